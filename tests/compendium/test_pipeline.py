"""The notebook runner: a failing notebook names its cell and leaves no output behind."""

import json
from pathlib import Path

import pytest

from offline_eval_compendium import pipeline
from offline_eval_compendium.pipeline import NotebookError

from toy_notebooks import FAILING, GOOD  # noqa: E402


@pytest.mark.notebook
def test_failing_notebook_names_cell_and_installs_nothing(tmp_path, capsys):
    nb = tmp_path / "yi_failing.py"
    nb.write_text(FAILING)
    dest = tmp_path / "figures"
    with pytest.raises(NotebookError, match=r"notebook yi_failing failed in cell 4 of 4 \(In \[4\], yi_failing.py line 14\): RuntimeError: boom in cell three"):
        pipeline.run(nb, {}, output_root=dest)
    assert not any(p.is_file() for p in dest.rglob("*")), "nothing is installed from a failing notebook"
    assert pipeline.main(["run", str(nb), "--output-root", str(dest)]) == 1
    assert "yi_failing failed in cell 4" in capsys.readouterr().err
    assert not (pipeline.EXECUTED_DIR / "yi_failing.failed.ipynb").exists()


@pytest.mark.notebook
def test_successful_notebook_installs_outputs_and_takes_parameters(tmp_path, monkeypatch):
    from offline_eval_compendium.machine import allocator_env

    nb = tmp_path / "yi_good.py"
    # the kernel also gets the allocator's settings (machine.allocator_env), even when this process lacks them
    for name in allocator_env():
        monkeypatch.delenv(name, raising=False)
    nb.write_text(GOOD.replace('{"a": [1]}', '{"a": [seed], "trim": [__import__("os").environ.get("MALLOC_TRIM_THRESHOLD_")]}'))
    dest = tmp_path / "figures"
    # the staging folder of a run killed earlier (its lock file free) is removed by the next run
    stale = pipeline.STAGE_DIR / f"yi_good.{tmp_path.name[-8:]}"
    (stale / "outputs").mkdir(parents=True)
    Path(f"{stale}.lock").write_text("")
    written = pipeline.run(nb, pipeline.parse_parameters([("seed", "7")]), output_root=dest)
    assert sorted(p.name for p in written) == ["half.csv", "half.md"]
    assert (dest / "yi" / "half.csv").read_text() == f"a,trim\n7,{allocator_env()['MALLOC_TRIM_THRESHOLD_']}\n"
    assert not stale.exists() and not Path(f"{stale}.lock").exists()
    # a run into another destination never lands where the report reads; the notebook records its run
    assert not (pipeline.EXECUTED_DIR / "yi_good.ipynb").exists()
    record = json.loads((pipeline.OTHER_EXECUTED_DIR / "yi_good.ipynb").read_text())["metadata"]["offline_eval"]
    assert record["parameters"]["seed"] == 7 and len(record["inputs_sha256"]) == 64


def test_only_runs_into_figures_keep_their_notebook_where_the_report_reads(tmp_path):
    from offline_eval_compendium.paths import FIGURES_DIR

    assert pipeline.executed_dir() == pipeline.executed_dir(FIGURES_DIR) == pipeline.EXECUTED_DIR
    assert pipeline.executed_dir(tmp_path / "figures") == pipeline.OTHER_EXECUTED_DIR != pipeline.EXECUTED_DIR


def test_parse_parameters_uses_yaml_scalars():
    assert pipeline.parse_parameters([("n", "1e5"), ("seed", "3"), ("name", "x"), ("flag", "true")]) == {
        "n": 1e5, "seed": 3, "name": "x", "flag": True}


PARAMS = '''# %% [markdown]
# Parameters of every kind.

# %% tags=["parameters"]
seed = 0
n_rows = 100
alpha = 0.5
flag = False
name = "x"
sizes = [1, 2]
output_root = None
'''


def test_unknown_parameter_is_an_error_listing_the_notebooks_parameters(tmp_path):
    nb = tmp_path / "yi_params.py"
    nb.write_text(PARAMS)
    with pytest.raises(NotebookError, match=r"has no parameter 'seeed'; its parameters \(with defaults\) are: seed=0, n_rows=100"):
        pipeline.check_parameters(nb, {"seeed": 7})
    assert pipeline.main(["run", str(nb), "-p", "seeed", "7"]) == 2


@pytest.mark.parametrize("name, value, message", [
    ("seed", 1.5, r"`seed` must be int like its default 0; got 1.5 \(float\)"),
    ("seed", True, r"`seed` must be int .* got True \(bool\)"),
    ("alpha", "high", r"`alpha` must be float .* got 'high' \(str\)"),
    ("flag", 1, r"`flag` must be bool .* got 1 \(int\)"),
    ("sizes", 3, r"`sizes` must be list"),
])
def test_parameter_of_the_wrong_type_names_it(tmp_path, name, value, message):
    nb = tmp_path / "yi_params.py"
    nb.write_text(PARAMS)
    with pytest.raises(NotebookError, match=message):
        pipeline.check_parameters(nb, {name: value})


@pytest.mark.parametrize("name, value, message", [
    ("n_rows", 0, r"`n_rows` is a count or a size and must be >= 1; got 0 \(default 100\)"),
    ("seed", -1, r"`seed` must be >= 0"),
    ("alpha", float("nan"), r"`alpha` must be a finite number"),
    ("alpha", -0.5, r"`alpha` must be >= 0"),
])
def test_parameter_values_are_checked_before_anything_runs(tmp_path, name, value, message):
    nb = tmp_path / "yi_params.py"
    nb.write_text(PARAMS)
    with pytest.raises(NotebookError, match=message):
        pipeline.check_parameters(nb, {name: value})
    assert pipeline.check_parameters(nb, {"alpha": 0.0, "seed": 0, "n_rows": 1})["n_rows"] == 1


def test_share_parameters_of_the_notebooks_lie_in_0_1():
    nb = Path("notebooks/yi_offline_online.py")
    with pytest.raises(NotebookError, match="`baseline_quantile` is a share"):
        pipeline.check_parameters(nb, {"baseline_quantile": 1.5})
    with pytest.raises(NotebookError, match="`n_seeds` is a count"):
        pipeline.check_parameters(Path("notebooks/yi_auc_anomalies.py").with_name("yi_metrics_behaviour.py"), {"n_seeds": 0})


def test_parameters_are_converted_like_their_defaults(tmp_path):
    nb = tmp_path / "yi_params.py"
    nb.write_text(PARAMS)
    got = pipeline.check_parameters(nb, pipeline.parse_parameters([("n_rows", "1e5"), ("alpha", "1")]))
    assert got["n_rows"] == 100000 and isinstance(got["n_rows"], int)
    assert got["alpha"] == 1.0 and isinstance(got["alpha"], float)
    assert got["output_root"] is None and got["seed"] == 0


def test_output_root_cannot_be_set_with_p(tmp_path, capsys):
    # -p output_root would send the outputs around the staging folder and the all-or-nothing install
    nb = tmp_path / "yi_params.py"
    nb.write_text(PARAMS)
    with pytest.raises(NotebookError, match=r"parameter `output_root` is set by the pipeline, not with -p \(got 'figures'\)"):
        pipeline.check_parameters(nb, {"output_root": "figures"})
    figures = tmp_path / "figures"
    runs = tmp_path / "runs"
    assert pipeline.main(["run", str(nb), "-p", "output_root", str(figures), "--record", str(runs)]) == 2
    assert "`output_root` is set by the pipeline" in capsys.readouterr().err
    assert not figures.exists() and not runs.exists(), "nothing written, no run recorded"


@pytest.mark.parametrize("args, message", [
    ("-p output_root figures", "`output_root` is set by the pipeline"),
    ("-p seed 1 --output-root figures", "ARGS takes notebook parameters only"),
    ("--record elsewhere", "ARGS takes notebook parameters only"),
    ("--out figures", "unrecognized arguments: --out figures"),
])
def test_make_run_refuses_the_pipelines_own_settings(args, message):
    import subprocess

    def state():
        figures = subprocess.run(["git", "status", "--porcelain", "--", "figures"], cwd=pipeline.PROJ_ROOT,
                                 capture_output=True, text=True).stdout
        runs = pipeline.PROJ_ROOT / "runs" / "rosset_measures"
        return figures, sorted(runs.iterdir()) if runs.is_dir() else []

    before = state()
    res = subprocess.run(["make", "-s", "run", "NB=rosset_measures", f"ARGS={args}"], cwd=pipeline.PROJ_ROOT,
                         capture_output=True, text=True)
    assert res.returncode != 0 and message in res.stdout + res.stderr
    assert state() == before, "nothing written to figures/, no run recorded"


KILLED_RUN = """
import os, signal, sys
from offline_eval_compendium import pipeline
pipeline.STAGE_DIR = pipeline.Path(sys.argv[1])
run_dir, _ = pipeline._claim_stage("yi_killed")
(run_dir / "outputs").mkdir()
(run_dir / "outputs" / "half.csv").write_text("a\\n1\\n")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_staging_of_a_killed_run_is_removed_and_a_live_one_kept(tmp_path, monkeypatch):
    import subprocess
    import sys

    root = tmp_path / "stage"
    monkeypatch.setattr(pipeline, "STAGE_DIR", root)
    proc = subprocess.run([sys.executable, "-c", KILLED_RUN, str(root)], capture_output=True)
    assert proc.returncode == -9
    (killed,) = [p for p in root.iterdir() if p.is_dir()]
    legacy = root / "yi_old.k2j3h4g5"  # an older version's folder: no lock file
    (legacy / "outputs").mkdir(parents=True)
    orphan = root / "yi_orphan.zz9y8x7w.lock"  # a run killed between its lock and its folder
    orphan.write_text("")
    live, fd = pipeline._claim_stage("yi_live")
    (live / "outputs").mkdir()
    try:
        done = pipeline.clean_stale_stages()
        assert sorted(done) == sorted(f"removed the staging folder of an interrupted run: {p}" for p in (killed, legacy))
        assert not killed.exists() and not Path(f"{killed}.lock").exists() and not legacy.exists()
        assert not orphan.exists()
        assert (live / "outputs").is_dir() and Path(f"{live}.lock").exists(), "a live run's staging is never removed"
        assert pipeline.clean_stale_stages() == []
    finally:
        pipeline._release_stage(live, fd)
    assert list(root.iterdir()) == []


def test_verify_reports_stray_install_temp_files(tmp_path, capsys):
    from offline_eval_compendium import install as inst

    stage = tmp_path / "stage"
    (stage / "yi").mkdir(parents=True)
    (stage / "yi" / "half.csv").write_text("a\n1\n")
    dest = tmp_path / "figures"
    inst.install(stage, dest, "yi_good")
    assert pipeline.verify(dest) == []
    (dest / "yi" / ".half.csv.oe-4242-deadbeef.tmp").write_text("half of a copy")
    (dest / ".install-yi_good.journal.4242-deadbeef.tmp").write_text("{")
    problems = pipeline.verify(dest)
    assert problems == [".install-yi_good.journal.4242-deadbeef.tmp: a temporary file left by an interrupted install "
                        "(the next run removes it)",
                        "yi/.half.csv.oe-4242-deadbeef.tmp: a temporary file left by an interrupted install "
                        "(the next run removes it)"]
    with inst.lock(dest):
        inst.recover(dest)
    assert pipeline.verify(dest) == []


def test_unknown_notebook_lists_the_notebooks(capsys):
    assert pipeline.main(["run", "notebooks/no_such_notebook.py"]) == 2
    err = capsys.readouterr().err
    assert "no notebook" in err and "rosset_wallet" in err and "yi_auc_anomalies" in err


@pytest.mark.notebook
def test_recorded_run_keeps_outputs_notebook_parameters_and_commit(tmp_path, capsys):
    import yaml

    nb = tmp_path / "yi_good.py"
    nb.write_text(GOOD.replace('{"a": [1]}', '{"a": [seed]}'))
    assert pipeline.main(["run", str(nb), "-p", "seed", "5", "--record", str(tmp_path / "runs")]) == 0
    (run_dir,) = (tmp_path / "runs" / "yi_good").iterdir()
    assert (run_dir / "outputs" / "yi" / "half.csv").read_text() == "a\n5\n"
    assert (run_dir / "yi_good.ipynb").is_file()
    record = yaml.safe_load((run_dir / "run.yaml").read_text())
    assert record["parameters"]["seed"] == 5 and record["overridden"] == ["seed"]
    assert len(record["git_commit"]) == 40 and isinstance(record["git_dirty"], bool)
    assert len(record["requirements_lock_sha256"]) == 64
    assert pipeline.main(["run", str(nb), "--record", str(tmp_path / "runs")]) == 0
    assert len(list((tmp_path / "runs" / "yi_good").iterdir())) == 2, "a second run gets a folder of its own"


def test_reproduce_record_is_the_same_bytes_twice_and_has_every_notebook(tmp_path):
    import yaml

    first = pipeline.record_reproduce(tmp_path).read_bytes()
    second = pipeline.record_reproduce(tmp_path).read_bytes()
    assert first == second
    record = yaml.safe_load(first)
    assert set(record["notebooks"]) == {p.stem for p in pipeline.NOTEBOOKS_DIR.glob("*.py")}
    assert len(record["inputs"]["sha256"]) == 64 and record["inputs"]["files"] > 10


@pytest.mark.notebook
def test_readme_papermill_recipe_works_as_written(tmp_path):
    """The README's direct papermill recipe, run as written (in a copy of the commands, from the repository root)."""
    import re
    import subprocess

    readme = (pipeline.PROJ_ROOT / "README.md").read_text()
    block = re.search(r"# or with papermill directly on the converted notebook\n(.*?)```", readme, flags=re.S).group(1)
    commands = [line for line in block.splitlines() if line.strip()]
    assert any("papermill" in c for c in commands) and any("jupytext" in c for c in commands)
    script = re.sub(r"(?<![\w/.])build\b", f"{tmp_path}/build", "\n".join(["set -euo pipefail", *commands]))
    script = script.replace("-p seed 7", "-p seed 7 -p n_firms 120 -p k_max 3")
    res = subprocess.run(["bash", "-c", script], cwd=pipeline.PROJ_ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-2000:]
    assert list((tmp_path / "build" / "runs" / "mine").rglob("*.csv"))


def test_run_takes_a_notebook_by_name(monkeypatch):
    # `run rosset_wallet` means notebooks/rosset_wallet.py; the execution itself is replaced by a stub
    seen = {}

    def fake_run(notebook, params, *, output_root=None, keep=None):
        seen["notebook"] = str(notebook)
        raise pipeline.NotebookError("stub: not executed")

    monkeypatch.setattr(pipeline, "run", fake_run)
    assert pipeline.main(["run", "rosset_wallet"]) == 1
    assert Path(seen["notebook"]) == pipeline.NOTEBOOKS_DIR / "rosset_wallet.py"


def test_reading_a_notebook_skips_the_slow_iri_checker_and_still_validates():
    # jsonschema would import rfc3987_syntax (installed with JupyterLab), about 2 s per process; the runner hides
    # it from its own process, and nbformat's validation works without it
    import subprocess
    import sys

    code = ("import sys, time; from offline_eval_compendium.parameters import jupytext_module; t = time.perf_counter(); "
            "jt = jupytext_module(); import nbformat; nb = jt.reads('# %%\\nx = 1\\n', fmt='py:percent'); "
            "nbformat.validate(nb); print(sys.modules.get('rfc3987_syntax') is None, 'jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["True", "True"]
