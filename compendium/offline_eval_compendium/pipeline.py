"""Execute the compendium's notebooks through papermill, and gather the ledger.

Command line (what the Makefile calls)::

    python -m offline_eval_compendium.pipeline run notebooks/yi_auc_anomalies.py [-p seed 7 ...] [--output-root DIR]
    python -m offline_eval_compendium.pipeline ledger
    python -m offline_eval_compendium.pipeline changes runs/rosset_wallet/<time> [--against HEAD~1]
    python -m offline_eval_compendium.pipeline verify
    python -m offline_eval_compendium.pipeline lab-settings

``figures/`` holds only what ``make reproduce`` makes: a ``run`` with ``-p`` must say where it goes
(``--record runs``, as ``make run`` does, or ``--output-root``) and is refused otherwise; a parameter given
twice is refused; a second run of one notebook into ``figures/`` while one is under way is refused (a lock
in ``build/locks/``).

``run`` checks that the destination takes files, converts the jupytext text
notebook, executes it with papermill into a private staging folder of its own
(the executed notebook too), and only when every cell succeeded installs the
staged outputs into ``figures/`` as one transaction (:mod:`offline_eval_compendium.install`:
all of the notebook's new outputs or none, stale ones removed, a manifest of
what it owns).  A failing notebook leaves ``figures/`` untouched, and the error
names the notebook and the failing cell.  The kernel talks to papermill over
IPC sockets (no unencrypted TCP port), with one BLAS thread
(:func:`offline_eval_compendium.machine.pinned_threads_env`).

``output_root`` (:data:`offline_eval_compendium.parameters.PIPELINE_PARAMETERS`) is the pipeline's to set: a ``-p output_root`` would
send the outputs around the staging folder and the all-or-nothing install, so it is refused.

Each run stages into ``build/stage/<notebook>.<id>/``, held by an exclusive ``flock`` on
``build/stage/<notebook>.<id>.lock`` for the run's lifetime; the kernel dies with a killed run and
the lock is released, so the next run removes every staging folder whose lock it can take (and never
one a live run holds).
"""

from __future__ import annotations

import argparse
import errno
import fcntl
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import install as _inst
from .paths import BUILD_DIR, FIGURES_DIR, NOTEBOOKS_DIR, PROJ_ROOT, relative
from .execution import EXECUTED_DIR, OTHER_EXECUTED_DIR, execute
from .parameters import NotebookError, check_parameters, notebook_parameters, parse_parameters
from .records import git_output, inputs_digest, record_run
from .timing import record_timing, timing_table

__all__ = ["clean_stale_stages", "executed_dir", "failed_runs", "lab_settings", "main", "new_run_dir", "read_ledger",
           "record_reproduce", "run", "run_record", "verify"]

STAGE_DIR = BUILD_DIR / "stage"


def executed_dir(output_root: str | Path | None = None) -> Path:
    """Where :func:`run` keeps the executed notebook of a run into ``output_root``.

    ``build/executed/`` only for a run into ``figures/`` (what the report publishes beside the figures);
    ``build/other-runs/`` for any other destination, so that a test or a run with other parameters never
    lands where the report reads.
    """
    dest = Path(output_root) if output_root else FIGURES_DIR
    return EXECUTED_DIR if dest.resolve() == FIGURES_DIR.resolve() else OTHER_EXECUTED_DIR


def run_record(notebook: str | Path, parameters: dict | None) -> dict:
    """What identifies a run: its effective parameters, the inputs' digest, the commit (and whether dirty).

    :func:`run` writes it into the executed notebook's metadata (``offline_eval``); the report compares it
    with ``figures/manifest/reproduce.yaml`` before it publishes the notebook.
    """
    return {"parameters": check_parameters(notebook, parameters),
            "inputs_sha256": inputs_digest()["sha256"],
            "git_commit": git_output("rev-parse", "HEAD") or "unknown",
            "git_dirty": bool(git_output("status", "--porcelain", "--untracked-files=no"))}


def _stamp_executed(executed: Path, record: dict) -> None:
    nb = json.loads(executed.read_text())
    nb.setdefault("metadata", {})["offline_eval"] = record
    executed.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


def run(notebook: str | Path, parameters: dict | None = None, *, output_root: str | Path | None = None,
        keep: str | Path | None = None) -> list[Path]:
    """Execute ``notebook`` into a staging folder of its own, then install its outputs as one transaction.

    ``output_root`` defaults to ``figures/``.  Nothing is installed unless the
    whole notebook succeeded; a destination that does not take files fails
    before the notebook runs.  The executed notebook, with the run's parameters, inputs digest and
    commit in its metadata (:func:`run_record`), is kept as ``<keep>/<name>.ipynb``
    (``<name>.failed.ipynb`` after a failure); ``keep`` defaults to :func:`executed_dir`, so that only
    runs into ``figures/`` reach ``build/executed/``.
    """
    dest = Path(output_root) if output_root else FIGURES_DIR
    name = Path(notebook).stem
    paper = name.split("_")[0]
    try:
        _inst.preflight([dest / paper, _inst.manifest_path(dest, name).parent])
    except _inst.InstallError as exc:
        raise NotebookError(f"notebook {name}: {exc}") from None
    for line in clean_stale_stages():
        print(f"[{name}] {line}", file=sys.stderr, flush=True)
    run_dir, owner = _claim_stage(name)
    stage, executed = run_dir / "outputs", run_dir / f"{name}.ipynb"
    stage.mkdir()
    keep = Path(keep) if keep is not None else executed_dir(dest)
    keep.mkdir(parents=True, exist_ok=True)
    record = None
    try:
        try:
            record = run_record(notebook, parameters)
            execute(notebook, stage, parameters, executed=executed, scratch=run_dir)
            _stamp_executed(executed, record)
        except NotebookError as exc:
            if executed.is_file():
                _move_file(executed, keep / f"{name}.failed.ipynb")
            _mark_failed(dest, name, record, exc)
            raise NotebookError(str(exc).replace(str(executed), str(keep / f"{name}.failed.ipynb")),
                                cell=exc.cell, error=exc.error) from None
        with _inst.lock(dest):
            for line in _inst.recover(dest):
                print(f"[{name}] {line}", file=sys.stderr, flush=True)
            try:
                written = _inst.install(stage, dest, name)
            except _inst.InstallError as exc:
                _mark_failed(dest, name, record, exc)
                raise NotebookError(f"notebook {name}: {exc}", error=f"InstallError: {exc}") from None
            _failure_marker(dest, name).unlink(missing_ok=True)
        _move_file(executed, keep / f"{name}.ipynb")
        return written
    finally:
        _release_stage(run_dir, owner)


def _failure_marker(dest: str | Path, name: str) -> Path:
    """Where a failed run of ``name`` into ``dest`` leaves its marker (removed by the next successful install)."""
    import hashlib

    key = hashlib.sha256(str(Path(dest).resolve()).encode()).hexdigest()[:16]
    return BUILD_DIR / "failed" / key / f"{name}.yaml"


def _mark_failed(dest: Path, name: str, record: dict | None, exc: Exception) -> None:
    """Leave the failure marker of a run of ``name`` into ``dest``: the inputs digest it failed on, the cell, the error."""
    import yaml

    from .io import atomic_write_text

    marker = _failure_marker(dest, name)
    marker.parent.mkdir(parents=True, exist_ok=True)
    text = {"notebook": name, "destination": str(Path(dest).resolve()),
            "inputs_sha256": (record or {}).get("inputs_sha256") or inputs_digest()["sha256"],
            "cell": getattr(exc, "cell", None), "error": getattr(exc, "error", None) or str(exc).splitlines()[0],
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    atomic_write_text(marker, yaml.safe_dump(text, sort_keys=False, width=10_000))


def failed_runs(output_root: str | Path | None = None) -> list[str]:
    """The notebooks whose last run into ``output_root`` (default ``figures/``) failed, one line each; [] when none.

    :func:`run` leaves a marker when a notebook fails (or its install does) and removes it when the
    notebook's outputs are next installed; ``pipeline ledger`` refuses to record an inputs digest while
    any is left, since the outputs of that notebook were not made from those inputs.
    """
    import yaml

    dest = Path(output_root) if output_root else FIGURES_DIR
    folder = _failure_marker(dest, "x").parent
    if not folder.is_dir():
        return []
    current = inputs_digest()["sha256"]
    lines = []
    for marker in sorted(folder.glob("*.yaml")):
        meta = yaml.safe_load(marker.read_text()) or {}
        same = "the current inputs" if meta.get("inputs_sha256") == current else "inputs that have changed since"
        where = f" in {meta['cell']}" if meta.get("cell") else ""
        lines.append(f"notebook {meta.get('notebook', marker.stem)} failed on {same} "
                     f"(sha256 {str(meta.get('inputs_sha256'))[:12]}){where}: {meta.get('error')}")
    return lines


def _move_file(src: Path, dst: Path) -> None:
    """Move ``src`` to ``dst``, atomically at ``dst``, across filesystems too.

    The staging folder lives under ``build/``, which may be another filesystem than where the executed
    notebook is kept (``runs/``, a folder given to ``--record``): a rename across them fails with
    EXDEV after the outputs were installed, so the file is then copied beside ``dst`` and renamed there.
    """
    try:
        os.replace(src, dst)
        return
    except OSError as exc:
        if exc.errno != errno.EXDEV:
            raise
    fd, tmp = tempfile.mkstemp(prefix=f".{dst.name}.", suffix=".tmp", dir=dst.parent)
    os.close(fd)
    try:
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    src.unlink(missing_ok=True)


def _claim_stage(name: str) -> tuple[Path, int]:
    """A fresh staging folder ``build/stage/<name>.<id>/`` and the descriptor that holds its lock.

    The lock file is created and locked *before* the folder exists, and unlinked only after the folder
    is gone, so that a folder whose lock can be taken belongs to no live run.
    """
    STAGE_DIR.mkdir(parents=True, exist_ok=True)
    while True:
        fd, lock = tempfile.mkstemp(prefix=f"{name}.", suffix=".lock", dir=STAGE_DIR)
        fcntl.flock(fd, fcntl.LOCK_EX)
        # A cleaner may have taken the lock and removed the file between mkstemp and flock: start again.
        try:
            if os.stat(lock).st_ino == os.fstat(fd).st_ino:
                break
        except FileNotFoundError:
            pass
        os.close(fd)
    run_dir = Path(lock[: -len(".lock")])
    try:
        run_dir.mkdir()
    except OSError:
        os.unlink(lock)
        os.close(fd)
        raise
    return run_dir, fd


def _release_stage(run_dir: Path, fd: int) -> None:
    shutil.rmtree(run_dir, ignore_errors=True)
    Path(f"{run_dir}.lock").unlink(missing_ok=True)
    os.close(fd)


def clean_stale_stages(stage_root: str | Path | None = None) -> list[str]:
    """Remove the staging folders of runs that were killed; never one a live run holds.

    A run holds an exclusive ``flock`` on ``<folder>.lock`` while its folder exists (the kernel dies
    with it, and a killed process's locks are released), so a folder whose lock this call can take
    without waiting, or that has no lock file (left by an older version), is stale.

    Parameters
    ----------
    stage_root : str or Path, optional
        The staging root (default ``build/stage/``).

    Returns
    -------
    list of str
        One line per folder removed.
    """
    root = Path(stage_root) if stage_root is not None else STAGE_DIR
    done = []
    if not root.is_dir():
        return done
    for entry in sorted(root.iterdir()):
        if entry.suffix == ".lock":
            if not entry.with_suffix("").exists():
                _remove_if_unheld(entry, None)  # a lock file whose run died between mkstemp and mkdir
            continue
        if not entry.is_dir():
            continue
        lock = entry.with_name(entry.name + ".lock")
        if not lock.exists():
            # The lock file is created before the folder and removed after it: no lock, no live owner.
            shutil.rmtree(entry, ignore_errors=True)
            done.append(f"removed the staging folder of an interrupted run: {relative(entry)}")
        elif _remove_if_unheld(lock, entry):
            done.append(f"removed the staging folder of an interrupted run: {relative(entry)}")
    return done


def _remove_if_unheld(lock: Path, folder: Path | None) -> bool:
    """Take ``lock`` without waiting; if free, remove ``folder`` and the lock file.  Whether it did."""
    try:
        fd = os.open(lock, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False  # a live run holds it
        try:
            if os.stat(lock).st_ino != os.fstat(fd).st_ino:
                return False  # already removed and re-created by another run
        except FileNotFoundError:
            return False
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
        lock.unlink(missing_ok=True)
        return folder is not None
    finally:
        os.close(fd)


def record_reproduce(output_root: str | Path | None = None) -> Path:
    """Write ``<figures>/manifest/reproduce.yaml``: every notebook's parameters and the inputs' digest.

    The record of ``make reproduce``.  It holds nothing that changes between machines or clones (no
    time, no commit id: a commit that adds the figures would change its own id), so it regenerates
    byte for byte like the figures; the inputs' digest (:func:`inputs_digest`) ties the figures to the
    exact notebooks, library, reference data and pinned environment that made them.
    """
    import yaml

    from .io import atomic_write_text

    root = Path(output_root) if output_root else FIGURES_DIR
    record = {
        "command": "make reproduce",
        "inputs": inputs_digest(),
        "notebooks": {p.stem: {k: v for k, v in notebook_parameters(p).items() if k != "output_root"}
                      for p in sorted(NOTEBOOKS_DIR.glob("*.py"))},
    }
    return atomic_write_text(root / "manifest" / "reproduce.yaml", yaml.safe_dump(record, sort_keys=False, width=10_000))


def new_run_dir(runs_root: str | Path, notebook: str | Path) -> Path:
    """A fresh folder ``<runs_root>/<notebook>/<YYYYmmdd-HHMMSS>[-k]`` for one recorded run."""
    base = Path(runs_root) / Path(notebook).stem
    base.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for k in range(1000):
        d = base / (stamp if k == 0 else f"{stamp}-{k}")
        try:
            d.mkdir()
            return d
        except FileExistsError:
            continue
    raise NotebookError(f"could not create a run folder under {base}")


def verify(output_root: str | Path | None = None) -> list[str]:
    """Problems of the installed outputs against their manifests (:func:`offline_eval_compendium.install.verify`).

    Checked under the destination's install lock, so that the temporary files of an install that is
    running right now are not reported, and those left by a killed one are.

    Parameters
    ----------
    output_root : str or Path, optional
        The installed outputs (default ``figures/``).
    """
    dest = Path(output_root) if output_root else FIGURES_DIR
    with _inst.lock(dest):
        return _inst.verify(dest)


def lab_settings() -> Path:
    """JupyterLab's settings and the project's kernel (:func:`offline_eval_compendium.lab.lab_settings`)."""
    from .lab import lab_settings as settings; return settings()  # noqa: E702


def read_ledger(spec: str):
    """A ledger frame from a CSV file, or from ``figures/claims.csv`` at a git revision of the project.

    Parameters
    ----------
    spec : str
        A path to a ledger CSV, or a git revision (``HEAD~3``, a tag, a hash).
    """
    import io
    import subprocess

    import pandas as pd

    from .claims import COMPARED

    path = Path(spec)
    if path.is_file():
        text = path.read_text()
    else:
        proc = subprocess.run(["git", "show", f"{spec}:figures/claims.csv"], cwd=PROJ_ROOT, capture_output=True,
                              text=True)
        if proc.returncode:
            raise ValueError(f"`spec` {spec!r} is neither a ledger file nor a git revision with figures/claims.csv: "
                             f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'git failed'}")
        text = proc.stdout
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    # an earlier ledger may lack columns added since (world, revised): only the compared ones are needed
    missing = [c for c in ("paper", "claim_id", *COMPARED) if c not in df.columns]
    if missing:
        raise ValueError(f"`spec` {spec!r} is not a ledger: no column(s) {missing}")
    return df


def _hold_figures_run(name: str):
    """An exclusive lock on ``build/locks/figures-<name>.lock`` held until the process exits; ``None`` when another
    run of the notebook into ``figures/`` holds it (the kernel releases it when that run ends, however it ends)."""
    folder = BUILD_DIR / "locks"
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(folder / f"figures-{name}.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m offline_eval_compendium.pipeline", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    # No abbreviations: `make run` refuses --output-root and --record in its ARGS by their full names.
    p_run = sub.add_parser("run", help="execute one notebook and install its outputs", allow_abbrev=False)
    p_run.add_argument("notebook")
    p_run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    p_run.add_argument("--output-root", default=None, help="where outputs go (default: figures/)")
    p_run.add_argument("--record", default=None, metavar="RUNS_DIR",
                       help="keep this run in a new folder RUNS_DIR/<notebook>/<time>/: outputs, executed notebook, "
                            "run.yaml (parameters, commit, lock hash); overrides --output-root")
    sub.add_parser("ledger", help="gather every notebook's claims into figures/claims.csv and .md")
    sub.add_parser("verify", help="check figures/ against the notebooks' manifests")
    p_chg = sub.add_parser("changes", help="what a recorded run changed against the committed outputs (as make run prints)")
    p_chg.add_argument("run_dir", help="a recorded run's folder, runs/<notebook>/<time>")
    p_chg.add_argument("--against", default=None,
                       help="a git revision whose figures/ is read, or a folder laid out like figures/ (default: HEAD)")
    p_cmp = sub.add_parser("compare", help="the ledger rows that changed between two ledgers (files or git revisions)")
    p_cmp.add_argument("before", help="a ledger CSV, or a git revision whose figures/claims.csv is read")
    p_cmp.add_argument("after", nargs="?", default=None, help="the same (default: figures/claims.csv)")
    p_cmp.add_argument("--kind", action="append", default=[], help="only rows of this kind (repeatable)")
    p_cmp.add_argument("--status-only", action="store_true", help="only rows whose status or kind moved, added or gone")
    sub.add_parser("lab-settings", help="make JupyterLab open the text notebooks as notebooks")
    return parser


def _error(message: str, code: int = 2) -> int:
    print(f"ERROR: {message}", file=sys.stderr, flush=True)
    return code


def _run_refusal(args, name: str) -> str | None:
    """Why ``run`` refuses its arguments before anything runs, or ``None``."""
    if not Path(args.notebook).is_file():
        names = ", ".join(p.stem for p in sorted(NOTEBOOKS_DIR.glob("*.py")))
        return f"no notebook {args.notebook}; the notebooks are: {names}"
    names = [n for n, _ in args.parameter]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        return f"`-p` names {', '.join(repeated)} more than once; give each parameter once"
    if args.parameter and not args.record and not args.output_root:
        # figures/ holds what `make reproduce` makes: a run with other parameters installed there would pass
        # `verify` and leave the make stamp fresh, replacing the committed figures unmarked
        return (f"a run with parameters ({', '.join(names)}) does not install into figures/, which holds only what "
                f"`make reproduce` makes; record it instead: `make run NB={name} ARGS=\"...\"` (--record runs) or "
                f"give --output-root")
    return None


def _command_run(args) -> int:
    name, start, started = Path(args.notebook).stem, time.perf_counter(), time.time()
    if not Path(args.notebook).is_file() and (NOTEBOOKS_DIR / f"{name}.py").is_file():
        args.notebook = str(NOTEBOOKS_DIR / f"{name}.py")  # a notebook named by its stem
    refusal = _run_refusal(args, name)
    if refusal:
        return _error(refusal)
    params = parse_parameters(args.parameter)
    try:
        check_parameters(args.notebook, params)
    except NotebookError as exc:
        return _error(str(exc))
    run_dir = new_run_dir(args.record, args.notebook) if args.record else None
    output_root = run_dir / "outputs" if run_dir else args.output_root
    if not output_root and _hold_figures_run(name) is None:  # held until the process exits
        return _error(f"another run of {name} into figures/ is under way; two runs into figures/ would supersede each "
                      f"other, so this one is refused (wait for it, or run this one with --record)")
    print(f"[{name}] start", flush=True)
    try:
        written = run(args.notebook, params, output_root=output_root, keep=run_dir)
    except NotebookError as exc:
        print(f"[{name}] FAILED after {time.perf_counter() - start:.1f} s", flush=True)
        if run_dir:
            record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start, failure=exc)
        return _error(str(exc), 1)
    except Exception as exc:  # an unforeseen fault: the recorded run still says it failed, then it is raised
        if run_dir:
            record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start, failure=exc)
        raise
    if run_dir:
        record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start)
        print(f"[{name}] run recorded in {relative(run_dir)} (run.yaml: parameters, commit, lock hash)", flush=True)
    root = Path(output_root).resolve() if output_root else FIGURES_DIR
    if not output_root:  # a run into figures/, as make reproduce does: its time goes in the table
        record_timing(name, started=started, seconds=time.perf_counter() - start)
    print(f"[{name}] done in {time.perf_counter() - start:.1f} s: {len(written)} files under {relative(root)}", flush=True)
    if run_dir:
        _report_changes(run_dir, name, params)
    return 0


def _command_changes(args) -> int:
    run_dir = Path(args.run_dir)
    record = run_dir / "run.yaml"
    if not record.is_file():
        return _error(f"`run_dir` must be a recorded run's folder (with run.yaml); got {args.run_dir!r}")
    import yaml

    meta = yaml.safe_load(record.read_text())
    given = {k: meta["parameters"][k] for k in meta.get("overridden", [])}
    return 0 if _report_changes(run_dir, meta["notebook"], given, against=args.against) else 1


def _command_verify(args) -> int:
    problems = verify()
    for p in problems:
        print(p)
    print(f"figures/: {'no problem' if not problems else f'{len(problems)} problem' + ('s' if len(problems) > 1 else '')}")
    return 1 if problems else 0


def _command_compare(args) -> int:
    from .claims import KINDS, compare
    from .io import to_markdown

    bad = [k for k in args.kind if k not in KINDS]
    if bad:
        return _error(f"--kind must be one of {', '.join(KINDS)}; got {', '.join(bad)}")
    try:
        before = read_ledger(args.before)
        after = read_ledger(args.after) if args.after else read_ledger(str(FIGURES_DIR / "claims.csv"))
        table = compare(before, after)
    except ValueError as exc:
        return _error(str(exc))
    if args.kind:
        table = table[table["kind_after"].isin(args.kind) | table["kind_before"].isin(args.kind)]
    if args.status_only:
        table = table[table["change"] != "value"]
    counts = table["change"].value_counts()
    summary = ", ".join(f"{int(counts.get(c, 0))} {c}" for c in ("status", "value", "added", "removed"))
    if not len(table):
        print("(no row changed)")
        return 0
    print(to_markdown(table))
    print(f"\n{len(table)} row{'s' if len(table) != 1 else ''} changed ({summary})")
    return 0


def _command_ledger(args) -> int:
    from .claims import COUNT_TABLES, count_tables, gather
    from .findings import update_readme

    with _inst.lock(FIGURES_DIR):
        for line in _inst.recover(FIGURES_DIR):
            print(f"[ledger] {line}", file=sys.stderr, flush=True)
        failed = failed_runs()
        if failed:
            return _error("the ledger records no inputs digest while a notebook's last run failed:\n  "
                          + "\n  ".join(failed) + "\nre-run it (make reproduce) once it succeeds", 1)
        df = gather()
        record_reproduce()
    print(f"claims ledger -> {relative(FIGURES_DIR / 'claims.md')}")
    if update_readme():
        print("README.md: its findings rewritten from the ledger")
    for key, table in count_tables(df).items():
        total = table.set_index("paper").loc["all"]
        counts = ", ".join(f"{c} {int(v)}" for c, v in total.items() if c != "total" and int(v))
        print(f"  {COUNT_TABLES[key]}: {counts or 'none'}")
    for line in timing_table():
        print(line)
    return 0


def _command_lab_settings(args) -> int:
    print(f"JupyterLab settings: {lab_settings()}")
    return 0


#: One function per subcommand.
COMMANDS = {"run": _command_run, "changes": _command_changes, "verify": _command_verify, "compare": _command_compare,
            "ledger": _command_ledger, "lab-settings": _command_lab_settings}


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    return COMMANDS[args.command](args)


def _report_changes(run_dir: Path, name: str, parameters: dict | None, *, against: str | None = None) -> bool:
    """Write ``<run_dir>/changes.md`` and print its short summary; False when the comparison failed.

    A failed comparison does not fail the run (its outputs are recorded), but it is said, not hidden.
    """
    from .changes import run_changes
    from .io import atomic_write_text

    try:
        ch = run_changes(run_dir / "outputs", name, baseline=against)
        where = atomic_write_text(run_dir / "changes.md", ch.markdown(parameters))
    except Exception as exc:  # noqa: BLE001 - any failure is reported with its type
        print(f"[{name}] WARNING: could not compare with the committed outputs: {type(exc).__name__}: {exc}",
              file=sys.stderr, flush=True)
        return False
    print("\n".join(f"[{name}] {line}" for line in ch.summary(where=relative(where)).splitlines()), flush=True)
    return True


if __name__ == "__main__":
    sys.exit(main())
