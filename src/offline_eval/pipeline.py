"""Execute the compendium's notebooks through papermill, and gather the ledger.

Command line (what the Makefile calls)::

    python -m offline_eval.pipeline run notebooks/yi_auc_anomalies.py [-p seed 7 ...] [--output-root DIR]
    python -m offline_eval.pipeline ledger
    python -m offline_eval.pipeline verify
    python -m offline_eval.pipeline lab-settings

``run`` checks that the destination takes files, converts the jupytext text
notebook, executes it with papermill into a private staging folder of its own
(the executed notebook too), and only when every cell succeeded installs the
staged outputs into ``figures/`` as one transaction (:mod:`offline_eval.install`:
all of the notebook's new outputs or none, stale ones removed, a manifest of
what it owns).  A failing notebook leaves ``figures/`` untouched, and the error
names the notebook and the failing cell.  The kernel talks to papermill over
IPC sockets (no unencrypted TCP port), with one BLAS thread
(:func:`offline_eval.machine.pinned_threads_env`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from . import install as _inst
from .machine import pinned_threads_env
from .paths import BUILD_DIR, FIGURES_DIR, NOTEBOOKS_DIR, PROJ_ROOT

__all__ = ["NotebookError", "execute", "main", "parse_parameters", "run", "verify"]

KERNEL = "python3"


class NotebookError(RuntimeError):
    """A notebook failed; the message names the notebook and the cell."""


def _jupyter_env() -> None:
    # Use this interpreter's kernel, not a user-level kernelspec of another Python.
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(Path(sys.prefix) / "share" / "jupyter")] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    )
    os.environ.setdefault("MPLBACKEND", "Agg")
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    for name, value in pinned_threads_env().items():  # one BLAS thread: sums never split by core count
        os.environ.setdefault(name, value)


def _ipc_kernel_manager(folder: Path):
    """A kernel manager class that talks to the kernel over IPC sockets in ``folder``.

    Over TCP the kernel warns that it runs "without encryption" on every start; over IPC the
    sockets are files of this run only.
    """
    from jupyter_client.manager import AsyncKernelManager

    class IPCKernelManager(AsyncKernelManager):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.transport = "ipc"
            self.ip = str(folder / "kernel")

    return IPCKernelManager


def parse_parameters(pairs) -> dict:
    """``[("seed", "7"), ("n", "1e5")]`` -> ``{"seed": 7, "n": 100000.0}``.

    Integers, then floats, then any YAML value (``true``, ``[1, 2]``, strings).
    """
    import yaml

    def convert(value: str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
        return yaml.safe_load(value)

    return {name: convert(value) for name, value in pairs}


def execute(notebook: str | Path, output_root: str | Path, parameters: dict | None = None, *, executed: str | Path | None = None) -> Path:
    """Execute one text notebook with papermill, writing its outputs under ``output_root``.

    Raises :class:`NotebookError` naming the notebook and the failing cell.
    Returns the path of the executed ``.ipynb``.
    """
    _jupyter_env()
    import jupytext
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    notebook = Path(notebook).resolve()
    if not notebook.is_file():
        raise NotebookError(f"notebook {notebook} does not exist")
    name = notebook.stem
    nb = jupytext.read(notebook)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nb.metadata.setdefault("language_info", {"name": "python"})
    src_dir = BUILD_DIR / "notebooks"
    src_dir.mkdir(parents=True, exist_ok=True)
    src_ipynb = src_dir / f"{name}.{os.getpid()}.ipynb"
    jupytext.write(nb, src_ipynb)
    executed = Path(executed) if executed else BUILD_DIR / "executed" / f"{name}.ipynb"
    executed.parent.mkdir(parents=True, exist_ok=True)
    params = {"output_root": str(Path(output_root).resolve()), **(parameters or {})}
    sockets = Path(tempfile.mkdtemp(prefix="kernel.", dir=src_dir))
    try:
        pm.execute_notebook(
            str(src_ipynb),
            str(executed),
            parameters=params,
            kernel_name=KERNEL,
            cwd=str(NOTEBOOKS_DIR),
            progress_bar=False,
            report_mode=False,
            kernel_manager_class=_ipc_kernel_manager(sockets),
        )
    except PapermillExecutionError as exc:
        where, source = _locate_cell(notebook, nb, executed, exc.exec_count)
        raise NotebookError(
            f"notebook {name} failed in {where}: {exc.ename}: {exc.evalue}\n"
            f"--- cell source ---\n{source}\n--- executed copy: {executed}"
        ) from None
    except Exception as exc:  # kernel died, missing parameters cell, ...
        raise NotebookError(f"notebook {name} could not be executed: {type(exc).__name__}: {exc}") from None
    finally:
        src_ipynb.unlink(missing_ok=True)
        shutil.rmtree(sockets, ignore_errors=True)
    return executed


def _locate_cell(notebook: Path, nb, executed: Path, exec_count) -> tuple[str, str]:
    """Where the failing cell is in the *text* notebook: its number (from 1) and first line."""
    try:
        cells = json.loads(executed.read_text())["cells"]
        failed = next(c for c in cells if c.get("cell_type") == "code" and c.get("execution_count") == exec_count)
        source = "".join(failed["source"])
        number = next(i for i, c in enumerate(nb.cells, 1) if c.source == source)
        text = notebook.read_text().splitlines()
        first = source.splitlines()[0] if source else ""
        line = next((i for i, t in enumerate(text, 1) if t == first), None)
        at = f", {notebook.name} line {line}" if line else ""
        return f"cell {number} of {len(nb.cells)} (In [{exec_count}]{at})", source
    except Exception:
        return f"the cell with execution count {exec_count}", "<unavailable>"


def run(notebook: str | Path, parameters: dict | None = None, *, output_root: str | Path | None = None) -> list[Path]:
    """Execute ``notebook`` into a staging folder of its own, then install its outputs as one transaction.

    ``output_root`` defaults to ``figures/``.  Nothing is installed unless the
    whole notebook succeeded; a destination that does not take files fails
    before the notebook runs.  The executed notebook is kept as
    ``build/executed/<name>.ipynb`` (``<name>.failed.ipynb`` after a failure).
    """
    dest = Path(output_root) if output_root else FIGURES_DIR
    name = Path(notebook).stem
    paper = name.split("_")[0]
    try:
        _inst.preflight([dest / paper, _inst.manifest_path(dest, name).parent])
    except _inst.InstallError as exc:
        raise NotebookError(f"notebook {name}: {exc}") from None
    (BUILD_DIR / "stage").mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=f"{name}.", dir=BUILD_DIR / "stage"))
    stage, executed = run_dir / "outputs", run_dir / f"{name}.ipynb"
    stage.mkdir()
    keep = BUILD_DIR / "executed"
    keep.mkdir(parents=True, exist_ok=True)
    try:
        try:
            execute(notebook, stage, parameters, executed=executed)
        except NotebookError as exc:
            if executed.is_file():
                os.replace(executed, keep / f"{name}.failed.ipynb")
            raise NotebookError(str(exc).replace(str(executed), str(keep / f"{name}.failed.ipynb"))) from None
        with _inst.lock(dest):
            for line in _inst.recover(dest):
                print(f"[{name}] {line}", file=sys.stderr, flush=True)
            try:
                written = _inst.install(stage, dest, name)
            except _inst.InstallError as exc:
                raise NotebookError(f"notebook {name}: {exc}") from None
        os.replace(executed, keep / f"{name}.ipynb")
        return written
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)


def verify(output_root: str | Path | None = None) -> list[str]:
    """Problems of the installed outputs against their manifests (:func:`offline_eval.install.verify`)."""
    return _inst.verify(Path(output_root) if output_root else FIGURES_DIR)


def lab_settings() -> Path:
    """Make JupyterLab open ``.py`` notebooks as notebooks (jupytext) in this venv."""
    settings = Path(sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    overrides = json.loads(settings.read_text()) if settings.exists() else {}
    overrides.setdefault("@jupyterlab/docmanager-extension:plugin", {})["defaultViewers"] = {
        "python": "Jupytext Notebook"
    }
    settings.write_text(json.dumps(overrides, indent=2) + "\n")
    return settings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m offline_eval.pipeline", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_run = sub.add_parser("run", help="execute one notebook and install its outputs")
    p_run.add_argument("notebook")
    p_run.add_argument("-p", "--parameter", nargs=2, action="append", default=[], metavar=("NAME", "VALUE"))
    p_run.add_argument("--output-root", default=None, help="where outputs go (default: figures/)")
    sub.add_parser("ledger", help="gather every notebook's claims into figures/claims.csv and .md")
    sub.add_parser("verify", help="check figures/ against the notebooks' manifests")
    sub.add_parser("lab-settings", help="make JupyterLab open the text notebooks as notebooks")
    args = parser.parse_args(argv)

    if args.command == "run":
        name, start = Path(args.notebook).stem, time.perf_counter()
        print(f"[{name}] start", flush=True)
        try:
            written = run(args.notebook, parse_parameters(args.parameter), output_root=args.output_root)
        except NotebookError as exc:
            print(f"[{name}] FAILED after {time.perf_counter() - start:.1f} s", flush=True)
            print(f"ERROR: {exc}", file=sys.stderr, flush=True)
            return 1
        root = Path(args.output_root).resolve() if args.output_root else FIGURES_DIR
        print(f"[{name}] done in {time.perf_counter() - start:.1f} s: {len(written)} files under {_rel(root)}", flush=True)
        return 0
    if args.command == "verify":
        problems = verify()
        for p in problems:
            print(p)
        print(f"figures/: {'no problem' if not problems else f'{len(problems)} problems'}")
        return 1 if problems else 0
    if args.command == "ledger":
        from .claims import REPRODUCTION_KINDS, STATUSES, gather

        with _inst.lock(FIGURES_DIR):
            for line in _inst.recover(FIGURES_DIR):
                print(f"[ledger] {line}", file=sys.stderr, flush=True)
            df = gather()
        repro = df[df["kind"].isin(REPRODUCTION_KINDS)]
        counts = ", ".join(f"{s} {int((repro['status'] == s).sum())}" for s in STATUSES)
        rest = ", ".join(f"{int((df['kind'] == k).sum())} {k}s" for k in ("calibration", "check"))
        print(f"claims ledger: {len(repro)} of the papers' numbers and claims ({counts}); and {rest} "
              f"-> {_rel(FIGURES_DIR / 'claims.md')}")
        return 0
    if args.command == "lab-settings":
        print(f"JupyterLab settings: {lab_settings()}")
        return 0
    return 2


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(PROJ_ROOT))
    except ValueError:
        return str(p)


if __name__ == "__main__":
    sys.exit(main())
