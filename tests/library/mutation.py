"""Mutation testing of the core engines (``make mutation``; ``make mutation MODULES="counterfactual ranking"``).

Each engine is mutated with mutmut against its own targeted test files, in a copy of the library under
``build/mutation/<module>/`` (mutmut writes its mutants and its cache in that copy's ``mutants/``; nothing it
writes lands in the repository), with one worker.  A second run re-tests only the functions whose text
changed.  Prints, per module, the mutants killed of those tested, the score and the survivors (``mutmut show
<name>`` in that module's folder shows one); ``docs/mutation.md`` records the scores and why each survivor left
is equivalent.  Not part of ``make test`` or CI: it takes minutes per module.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIB = "src/offline_eval"
#: Each core engine: the files mutated and the test files that target it.
MODULES = {
    "counterfactual": {
        "mutate": ["counterfactual.py"],
        "tests": ["test_counterfactual.py", "test_mutants_counterfactual.py"],
        "data": ["data/peers/open_bandit_pipeline"],
        # mutmut calls each function through a trampoline, one frame deeper: a warning's line is not the caller's
        "deselect": ["test_counterfactual.py::test_undefined_estimates_are_nan_with_a_warning"],
    },
    "ranking": {
        "mutate": ["ranking/_pairs.py"],
        "tests": ["test_ranking.py", "test_tau_variants.py", "test_mutants_ranking.py"],
        # Monte Carlo coverage, curves and sweeps against scipy: 70 of the files' 77 s, run for every surviving
        # mutant; the exact tests left (double loops, scipy on ties, hand-worked cases) check the same engine
        "skip": ["test_correct_pairs_curve_and_envelope", "test_statistic_and_pvalue_equal_scipy",
                 "test_eq6_close_to_bootstrap_and_to_monte_carlo", "test_invariant_under_monotone_transforms",
                 "test_cutoff_auc_matches_roc_auc_at_every_cutoff", "test_tau_b_interval_covers_the_population",
                 "test_large_input_matches_scipy", "test_proposition_2_bounds", "test_confidence_interval_covers",
                 "test_leave_one_out_equals_brute_force", "test_most_influential_finds_the_outlier",
                 "test_rho_interval_covers_the_population_rho"],
    },
    "losses": {
        "mutate": ["_losses.py", "_metrics_losses.py"],
        "tests": ["test_metrics_loss.py", "test_multiclass_metrics.py", "test_mutants_losses.py"],
        # checks of the library's source and signatures (every module imported, dask's among them), not of the
        # engine's behaviour; the mutated copy's source is mutmut's
        "skip": ["test_every_eps_defaults_to_the_one_constant", "test_the_log_loss_is_computed_in_one_engine"],
    },
    "auc": {
        "mutate": ["_metrics_roc.py", "_sorting.py"],
        "tests": ["test_metrics.py", "test_multiclass_metrics.py", "test_multiclass_sklearn_cases.py",
                  "test_mutants_auc.py"],
    },
    "adaptive": {
        "mutate": ["adaptive.py", "_adaptive_joint.py"],
        "tests": ["test_adaptive.py", "test_mutants_adaptive.py"],
    },
    "bootstrap": {
        "mutate": ["_bootstrap.py", "_logboot_engine.py"],
        "tests": ["test_logboot.py", "test_logboot_exact.py", "test_logboot_undefined_and_bounds.py",
                  "test_bootstrap_result.py", "test_bootstrap_checked_engines.py", "test_mutants_bootstrap.py"],
        # a check of the library's docstrings against its signatures: under mutation every method has mutmut's
        # copies of it, each undocumented
        # and the two Monte Carlo coverage checks (13 s, run again for every surviving mutant; the exact tests
        # left, against the replaced types bit for bit and against scipy, check the same engine)
        "skip": ["test_every_public_function_documents_its_parameters",
                 "test_coverage_clustered_near_its_level_row_level_under_covers_with_correlated_clusters"],
    },
}


#: The mutants' tests run in processes forked from the one that ran every test first: a thread pool made before the
#: fork (Dask's threaded scheduler keeps one) has no threads in the child, and a test that uses it waits until
#: mutmut's time limit, which would count a surviving mutant as killed ("timeout").  So Dask computes on the
#: calling thread, and BLAS uses one thread (mutmut's limit counts CPU seconds over all threads).  Every timeout
#: left is run again outside mutmut's workers (:func:`recheck_timeouts`).
ONE_THREAD = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
              "DASK_SCHEDULER": "synchronous"}


def _toml(value) -> str:
    """A TOML value: strings and lists of strings are written as JSON writes them."""
    return json.dumps(value)


def pytest_args(spec: dict) -> list[str]:
    """The pytest options of the module's mutation runs: its tests left out (``deselect`` by id, ``skip`` by name),
    and plain asserts: a failing assert kills the mutant whatever its message, and pytest's explanation of a
    failed comparison of large arrays can take longer than the mutant's time limit."""
    args = ["--assert=plain"]
    args += [a for t in spec.get("deselect", []) for a in ("--deselect", f"tests/library/{t}")]
    if spec.get("skip"):
        args += ["-k", " and ".join(f"not {name}" for name in spec["skip"])]
    return args


def prepare(name: str, work: Path) -> list[str]:
    """Copy the library, the module's tests and their data into ``work`` and write its mutmut settings."""
    spec = MODULES[name]
    work.mkdir(parents=True, exist_ok=True)
    # copy2 keeps the files' times: mutmut re-mutates a file only when its copy is newer than its mutants.
    for part in ("src", "tests", "data"):
        shutil.rmtree(work / part, ignore_errors=True)
    shutil.copytree(ROOT / LIB, work / LIB, copy_function=shutil.copy2,
                    ignore=shutil.ignore_patterns("__pycache__"))
    (work / "tests" / "library").mkdir(parents=True)
    shutil.copy2(ROOT / "tests" / "conftest.py", work / "tests" / "conftest.py")
    tests = [f"tests/library/{t}" for t in spec["tests"] if (ROOT / "tests" / "library" / t).exists()]
    for test in tests:
        shutil.copy2(ROOT / test, work / test)
    for data in spec.get("data", []):
        shutil.copytree(ROOT / data, work / data, copy_function=shutil.copy2)
    pytest = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    lines = [
        "[tool.mutmut]",
        f"source_paths = {_toml(['src'])}",
        f"only_mutate = {_toml([f'{LIB}/{m}' for m in spec['mutate']])}",
        f"pytest_add_cli_args_test_selection = {_toml(tests)}",
        f"also_copy = {_toml(spec.get('data', []))}",
        f"pytest_add_cli_args = {_toml(pytest_args(spec))}",
        # a mutant that loops forever is stopped at 15 times its tests' time plus 5 s
        "timeout_constant = 5.0",
        "",
        "[tool.pytest.ini_options]",
        # the project's own pytest settings, less its doctests of src/ and its test paths
        f"addopts = {_toml(pytest['addopts'].replace('--doctest-modules', '').strip())}",
        f"markers = {_toml(pytest['markers'])}",
        f"filterwarnings = {_toml(pytest['filterwarnings'])}",
        "",
    ]
    (work / "pyproject.toml").write_text("\n".join(lines))
    return tests


def score(work: Path) -> dict:
    """The run's counts (``mutmut export-cicd-stats``) and its survivors."""
    subprocess.run([sys.executable, "-m", "mutmut", "export-cicd-stats"], cwd=work, check=True,
                   capture_output=True)
    stats = json.loads((work / "mutants" / "mutmut-cicd-stats.json").read_text())
    listing = subprocess.run([sys.executable, "-m", "mutmut", "results"], cwd=work, check=True,
                             capture_output=True, text=True).stdout
    # every mutant not killed: survived, no test reaches it, suspicious
    stats["survivors"] = sorted(line.strip() for line in listing.splitlines()
                                if line.strip() and not line.strip().endswith(": killed"))
    return stats


def recheck_timeouts(name: str, work: Path, stats: dict, *, limit: float = 600.0) -> dict:
    """``stats`` with every mutant that timed out run again in a fresh process, outside mutmut's forked workers: its
    tests (those mutmut chose for it), with the module's options; passing, it survived, failing, it is killed, and
    past ``limit`` seconds it stays a timeout (a loop that does not end)."""
    timed = [line.rsplit(": ", 1)[0] for line in stats["survivors"] if line.endswith(": timeout")]
    if not timed:
        return stats
    tests_by = json.loads((work / "mutants" / "mutmut-stats.json").read_text())["tests_by_mangled_function_name"]
    stats = {**stats, "survivors": [x for x in stats["survivors"] if not x.endswith(": timeout")]}
    for mutant in timed:
        tests = sorted(tests_by.get(mutant.rsplit("__mutmut_", 1)[0], ()))
        cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *pytest_args(MODULES[name]),
               *tests]
        try:
            done = subprocess.run(cmd, cwd=work / "mutants", env={**ONE_THREAD, "MUTANT_UNDER_TEST": mutant},
                                  capture_output=True, timeout=limit)
            verdict = "survived" if done.returncode == 0 else "killed"
        except subprocess.TimeoutExpired:
            verdict = "timeout"
        print(f"{name}: {mutant} timed out under mutmut; run again alone: {verdict}", flush=True)
        if verdict != "timeout":
            stats["timeout"] -= 1
            stats[verdict] += 1
        if verdict != "killed":
            stats["survivors"].append(f"{mutant}: {verdict}")
    stats["survivors"].sort()
    return stats


def run(name: str, build: Path) -> dict:
    work = build / name
    prepare(name, work)
    start = time.monotonic()
    # one worker: the machine is shared
    done = subprocess.run([sys.executable, "-m", "mutmut", "run", "--max-children", "1"], cwd=work, env=ONE_THREAD)
    if done.returncode != 0:
        raise SystemExit(f"mutmut failed on {name} (exit {done.returncode}); see above")
    stats = recheck_timeouts(name, work, score(work))
    stats["seconds"] = time.monotonic() - start
    return stats


def main(argv: list[str]) -> None:
    names = argv or list(MODULES)
    unknown = [n for n in names if n not in MODULES]
    if unknown:
        raise SystemExit(f"unknown module {unknown}; the modules are: {' '.join(MODULES)}")
    build = ROOT / "build" / "mutation"
    results = {name: run(name, build) for name in names}
    print("\nmodule          killed / mutants   score  survived  no test  of the killed, timed out  seconds")
    for name, s in results.items():
        # a mutant no test reaches counts as surviving: no test can fail on it; one whose tests ran past their time
        # limit counts as killed (a loop that never ends), and is shown apart
        mutants = s["total"] - s["skipped"]
        killed = s["killed"] + s["timeout"] + s["segfault"]
        print(f"{name:<15} {killed:>6} / {mutants:<7}  {100 * killed / max(mutants, 1):5.1f}%  "
              f"{s['survived']:>8}  {s['no_tests']:>7}  {s['timeout']:>24}  {s['seconds']:>7.0f}")
    for name, s in results.items():
        for survivor in s["survivors"]:
            print(f"{name}: {survivor}")
    # the modules run now replace their earlier counts; the others' are kept
    path = build / "scores.json"
    kept = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**kept, **results}, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
