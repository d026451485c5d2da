"""Execute the compendium's notebooks through papermill, and gather the ledger.

Command line (what the Makefile calls)::

    python -m offline_eval_compendium.pipeline run notebooks/yi_auc_anomalies.py [-p seed 7 ...] [--output-root DIR]
    python -m offline_eval_compendium.pipeline ledger
    python -m offline_eval_compendium.pipeline changes runs/rosset_wallet/<time> [--against HEAD~1]
    python -m offline_eval_compendium.pipeline verify
    python -m offline_eval_compendium.pipeline lab-settings

``run`` checks that the destination takes files, converts the jupytext text
notebook, executes it with papermill into a private staging folder of its own
(the executed notebook too), and only when every cell succeeded installs the
staged outputs into ``figures/`` as one transaction (:mod:`offline_eval_compendium.install`:
all of the notebook's new outputs or none, stale ones removed, a manifest of
what it owns).  A failing notebook leaves ``figures/`` untouched, and the error
names the notebook and the failing cell.  The kernel talks to papermill over
IPC sockets (no unencrypted TCP port), with one BLAS thread
(:func:`offline_eval_compendium.machine.pinned_threads_env`).

``output_root`` (:data:`PIPELINE_PARAMETERS`) is the pipeline's to set: a ``-p output_root`` would
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
import math
import os
import re
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import install as _inst
from .machine import pinned_threads_env
from .paths import BUILD_DIR, FIGURES_DIR, NOTEBOOKS_DIR, PROJ_ROOT

__all__ = ["EXECUTED_DIR", "PIPELINE_PARAMETERS", "NotebookError", "check_parameters", "clean_stale_stages", "execute",
           "executed_dir", "is_size_parameter", "main", "notebook_parameters", "parameter_ranges", "parse_parameters",
           "record_run", "record_timing", "run", "run_record", "timing_table", "verify"]

KERNEL = "python3"
#: Parameters of every notebook that the pipeline sets itself and that ``-p`` may not.
PIPELINE_PARAMETERS = ("output_root",)
STAGE_DIR = BUILD_DIR / "stage"


class NotebookError(RuntimeError):
    """A notebook failed; the message names the notebook and the cell.

    ``cell`` and ``error`` (when known) say where and how, for the run's records (``run.yaml``, the failure
    marker that stops ``pipeline ledger``).
    """

    def __init__(self, message: str, *, cell: str | None = None, error: str | None = None):
        super().__init__(message)
        self.cell, self.error = cell, error


def _jupyter_env() -> None:
    # Use this interpreter's kernel, not a user-level kernelspec of another Python.
    os.environ["JUPYTER_PATH"] = os.pathsep.join(
        [str(Path(sys.prefix) / "share" / "jupyter")] + [p for p in os.environ.get("JUPYTER_PATH", "").split(os.pathsep) if p]
    )
    # Figures inline in the executed notebook (the report shows them); the saved files do not depend on it.
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
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

        async def _async_interrupt_kernel(self):
            # Shutting down a finished notebook, jupyter_client sends SIGINT first; a kernel still in a
            # message handler then logs "KeyboardInterrupt caught in kernel." although all succeeded.
            if not self.shutting_down:
                await super()._async_interrupt_kernel()

    return IPCKernelManager


class _Relay:
    """Relay the progress lines a kernel appends to ``path`` to this process's stderr, as they come.

    The kernel's own stdout and stderr become the notebook's outputs; the lines of
    :mod:`offline_eval_compendium.progress` go to a file instead (named to the kernel in its
    environment), which a thread of this process reads every ``poll`` seconds.  Only whole lines are
    relayed; what is left when the kernel is done is relayed on :meth:`close`.
    """

    def __init__(self, path: Path, *, stream=None, poll: float = 0.5):
        self.path, self.stream, self.poll = Path(path), stream, poll
        self.path.write_text("")
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name=f"relay {self.path.name}", daemon=True)
        self._offset = 0
        self._thread.start()

    def _pump(self, *, final: bool = False) -> None:
        try:
            with open(self.path, "rb") as f:
                f.seek(self._offset)
                data = f.read()
        except OSError:
            return
        end = len(data) if final else data.rfind(b"\n") + 1
        if end <= 0:
            return
        self._offset += end
        out = self.stream or sys.stderr
        text = data[:end].decode("utf-8", "replace")
        out.write(text if text.endswith("\n") else text + "\n")
        out.flush()

    def _loop(self) -> None:
        while not self._stop.wait(self.poll):
            self._pump()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._pump(final=True)


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


def notebook_parameters(notebook: str | Path) -> dict:
    """The defaults of a text notebook's ``parameters`` cell, ``{name: value}`` (literals only, by house rule)."""
    import ast

    import jupytext

    nb = jupytext.read(Path(notebook))
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise NotebookError(f"notebook {Path(notebook).stem} must have exactly one cell tagged `parameters`")
    out = {}
    for node in ast.parse(cells[0].source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def _kind(value) -> str:
    if value is None:
        return "any"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return type(value).__name__


def check_parameters(notebook: str | Path, parameters: dict | None) -> dict:
    """Check names and types of ``parameters`` against the notebook's ``parameters`` cell; return the effective values.

    An unknown name is an error that lists the notebook's parameters (papermill would only warn and run
    with the defaults).  A value must have the type of its default: an integer where the default is an
    integer (``1e5`` is accepted when it is a whole number), a number where it is a float, ``true`` /
    ``false`` where it is a bool, a list where it is a list; a default of ``None`` accepts anything.

    Values follow the house conventions of the parameters cells, checked here before anything runs:
    a number must be finite; an integer whose default is positive (a count or a size) must be >= 1, one
    whose default is 0 (a seed) >= 0; a float whose default is positive must be >= 0; a parameter whose
    name says it is a share (``*quantile*``, ``*fraction*``, ``*share*``) must lie in [0, 1].
    A value must lie in the range its line of the parameters cell declares (``# range: low..high``,
    :func:`parameter_ranges`); every size parameter declares one, so no run is unbounded.
    Notebooks check anything further in their first cells, with messages naming the parameter.
    The pipeline's own parameters (:data:`PIPELINE_PARAMETERS`: ``output_root``) are refused.

    Parameters
    ----------
    notebook : str or Path
        The text notebook whose ``parameters`` cell gives the names, defaults and types.
    parameters : dict or None
        ``{name: value}`` as given (e.g. by :func:`parse_parameters`).
    """
    name = Path(notebook).stem
    defaults = notebook_parameters(notebook)
    given = dict(parameters or {})
    for key in PIPELINE_PARAMETERS:
        if key in given:
            raise NotebookError(
                f"notebook {name}: parameter `{key}` is set by the pipeline, not with -p (got {given[key]!r}): "
                "outputs are staged and installed all or nothing into figures/, or, with `make run`, kept in "
                "runs/<notebook>/<time>/outputs/; to install elsewhere pass --output-root DIR to the pipeline")
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        listing = ", ".join(f"{k}={defaults[k]!r}" for k in defaults)
        raise NotebookError(f"notebook {name} has no parameter {', '.join(map(repr, unknown))}; "
                            f"its parameters (with defaults) are: {listing}")
    out = dict(defaults)
    for key, value in given.items():
        want, got = _kind(defaults[key]), _kind(value)
        if want == "int" and got == "float" and float(value).is_integer():
            value, got = int(value), "int"
        elif want == "float" and got == "int":
            value, got = float(value), "float"
        elif want in ("list", "tuple") and got in ("list", "tuple"):
            got = want
        if want != "any" and got != want:
            raise NotebookError(f"notebook {name}: parameter `{key}` must be {want} like its default "
                                f"{defaults[key]!r}; got {value!r} ({got})")
        problem = _value_problem(key, defaults[key], value) if got in ("int", "float") else None
        if problem:
            raise NotebookError(f"notebook {name}: parameter `{key}` {problem}; got {value!r} (default {defaults[key]!r})")
        out[key] = value
    _check_ranges(notebook, out)
    return out


def is_size_parameter(key: str) -> bool:
    """Whether a parameter is a size, which must declare a range: ``n``, ``n_*``, ``*_n_*``, ``*_n`` (``sweep_n_log``)."""
    return key == "n" or key.startswith("n_") or "_n_" in key or key.endswith("_n")


_RANGE = re.compile(r"\brange:\s*([0-9_.eE+-]+)\s*\.\.\s*([0-9_.eE+-]+)")


def parameter_ranges(notebook: str | Path) -> dict:
    """The ranges declared in a text notebook's ``parameters`` cell, ``{name: (low, high)}`` (both inclusive).

    A range is declared in the comment of the parameter's line, where a reader of the notebook sees it::

        n_firms = 500  # surveyed firms; range: 20..5_000

    ``low`` is what the notebook's code needs to run, ``high`` keeps a run within a few minutes on two
    cores.  :func:`check_parameters` refuses a value outside it (``None``, where that is the default,
    stays allowed).
    """
    import io
    import tokenize

    import jupytext

    nb = jupytext.read(Path(notebook))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []))
    out, name = {}, None
    for tok in tokenize.generate_tokens(io.StringIO(cell.source).readline):
        if tok.type == tokenize.NAME and tok.start[1] == 0:
            name = tok.string
        elif tok.type == tokenize.COMMENT and name is not None and (m := _RANGE.search(tok.string)):
            low, high = (_number(x) for x in m.groups())
            if not low <= high:
                raise NotebookError(f"notebook {Path(notebook).stem}: the range of `{name}` is empty ({tok.string})")
            out[name] = (low, high)
        elif tok.type in (tokenize.NEWLINE, tokenize.NL):
            name = None  # a range belongs to the line of its parameter
    return out


def _number(text: str):
    import ast

    value = ast.literal_eval(text)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise NotebookError(f"a declared range bound must be a number; got {text!r}")
    return value


def _check_ranges(notebook: str | Path, values: dict) -> None:
    """Refuse a value outside its declared range (:func:`parameter_ranges`), naming the parameter and the range."""
    for key, (low, high) in parameter_ranges(notebook).items():
        value = values.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not low <= value <= high:
            raise NotebookError(
                f"notebook {Path(notebook).stem}: parameter `{key}` must lie in its declared range "
                f"{low:_}..{high:_} (the notebook's parameters cell); got {value!r}")


def _value_problem(key: str, default, value) -> str | None:
    """What is wrong with a numeric parameter value by the house conventions (see :func:`check_parameters`)."""
    if not math.isfinite(value):
        return "must be a finite number"
    # a count of quantiles (`n_quantiles`) is a size, not a share
    if any(w in key for w in ("quantile", "fraction", "share")) and not is_size_parameter(key) and not 0 <= value <= 1:
        return "is a share and must lie in [0, 1]"
    if isinstance(default, int) and not isinstance(default, bool):
        if default > 0 and value < 1:
            return "is a count or a size and must be >= 1"
        if default == 0 and value < 0:
            return "must be >= 0"
    if isinstance(default, float) and default > 0 and value < 0:
        return "must be >= 0"
    return None


def execute(notebook: str | Path, output_root: str | Path, parameters: dict | None = None, *,
            executed: str | Path | None = None, scratch: str | Path | None = None) -> Path:
    """Execute one text notebook with papermill, writing its outputs under ``output_root``.

    Raises :class:`NotebookError` naming the notebook and the failing cell.
    Returns the path of the executed ``.ipynb``.

    Parameters
    ----------
    notebook : str or Path
        The text notebook.
    output_root : str or Path
        Passed to the notebook as its ``output_root``.
    parameters : dict, optional
        Other parameters (:func:`check_parameters`).
    executed : str or Path, optional
        Where the executed ``.ipynb`` goes (default ``build/other-runs/<name>.ipynb``: never where the
        report reads, :func:`executed_dir`).
    scratch : str or Path, optional
        Folder for the converted notebook and the kernel's sockets (default ``build/notebooks/``);
        :func:`run` passes its staging folder, so that a killed run leaves them only there.
    """
    _jupyter_env()
    import jupytext
    import papermill as pm
    from papermill.exceptions import PapermillExecutionError

    notebook = Path(notebook).resolve()
    if not notebook.is_file():
        raise NotebookError(f"notebook {notebook} does not exist")
    name = notebook.stem
    parameters = {k: v for k, v in check_parameters(notebook, parameters).items()
                  if k in (parameters or {})}
    nb = jupytext.read(notebook)
    nb.metadata["kernelspec"] = {"name": KERNEL, "display_name": "Python 3", "language": "python"}
    nb.metadata.setdefault("language_info", {"name": "python"})
    src_dir = Path(scratch) if scratch is not None else BUILD_DIR / "notebooks"
    src_dir.mkdir(parents=True, exist_ok=True)
    src_ipynb = src_dir / f"{name}.{os.getpid()}.ipynb"
    jupytext.write(nb, src_ipynb)
    executed = Path(executed) if executed else OTHER_EXECUTED_DIR / f"{name}.ipynb"
    executed.parent.mkdir(parents=True, exist_ok=True)
    params = {"output_root": str(Path(output_root).resolve()), **(parameters or {})}
    sockets = Path(tempfile.mkdtemp(prefix="kernel.", dir=src_dir))
    from . import progress

    # The kernel inherits this process's environment: tell it where its progress lines go.
    saved = {k: os.environ.get(k) for k in (progress.ENV_FILE, progress.ENV_NAME)}
    relay = _Relay(sockets / "progress.log")
    os.environ[progress.ENV_FILE], os.environ[progress.ENV_NAME] = str(relay.path), name
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
            f"--- cell source ---\n{source}\n--- executed copy: {executed}",
            cell=where, error=f"{exc.ename}: {exc.evalue}",
        ) from None
    except Exception as exc:  # kernel died, missing parameters cell, ...
        raise NotebookError(f"notebook {name} could not be executed: {type(exc).__name__}: {exc}") from None
    finally:
        relay.close()
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
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


#: Where the executed notebooks of ``figures/`` are kept: the report reads them, and only them.
EXECUTED_DIR = BUILD_DIR / "executed"
#: Where the executed notebooks of runs into any other destination go (tests, ``--output-root``).
OTHER_EXECUTED_DIR = BUILD_DIR / "other-runs"


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
            "git_commit": _git("rev-parse", "HEAD") or "unknown",
            "git_dirty": bool(_git("status", "--porcelain", "--untracked-files=no"))}


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
            done.append(f"removed the staging folder of an interrupted run: {_rel(entry)}")
        elif _remove_if_unheld(lock, entry):
            done.append(f"removed the staging folder of an interrupted run: {_rel(entry)}")
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


def _git(*args) -> str:
    import subprocess

    try:
        return subprocess.run(["git", *args], cwd=PROJ_ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def record_run(run_dir: str | Path, notebook: str | Path, parameters: dict | None, *, elapsed: float,
               failure: Exception | None = None) -> Path:
    """Write ``run.yaml`` into ``run_dir``: status, parameters, git commit and dirty flag, lock hash, command, time.

    ``status`` is ``succeeded``, or ``failed`` when ``failure`` (the run's exception) is given; a failed
    run also records its failing cell (when a cell failed) and the error, so that its folder does not read
    like a success.

    ``make run`` keeps one such folder per run under ``runs/<notebook>/`` (``make clean`` leaves it).
    """
    import platform

    import yaml

    run_dir = Path(run_dir)
    status = _git("status", "--porcelain", "--untracked-files=no")
    record = {
        "notebook": Path(notebook).stem,
        "status": "failed" if failure is not None else "succeeded",
        **({"failed_cell": getattr(failure, "cell", None),
            "error": getattr(failure, "error", None) or f"{type(failure).__name__}: {str(failure).splitlines()[0]}"}
           if failure is not None else {}),
        "parameters": {**check_parameters(notebook, parameters), "output_root": _rel(run_dir / "outputs")},
        "overridden": sorted(parameters or {}),
        "git_commit": _git("rev-parse", "HEAD") or "unknown",
        "git_dirty": bool(status),
        "requirements_lock_sha256": _sha256(PROJ_ROOT / "requirements.lock"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - elapsed)),
        "elapsed_s": round(elapsed, 1),
        "command": " ".join(["python -m offline_eval_compendium.pipeline run", _rel(Path(notebook))]
                            + [f"-p {k} {v!r}" for k, v in (parameters or {}).items()]),
    }
    from .io import atomic_write_text

    return atomic_write_text(run_dir / "run.yaml", yaml.safe_dump(record, sort_keys=False, width=10_000))


#: The compendium's presentation, which no notebook imports: it shows the outputs and makes none of them, so
#: it is not an input (changing the report's look neither re-runs a notebook nor changes the digest).
PRESENTATION = ("report.py", "report_html.py", "report_papers.py", "report_static", "findings.py")


def _presentation(path: Path) -> bool:
    try:
        rel = path.relative_to(PROJ_ROOT / "compendium" / "offline_eval_compendium")
    except ValueError:
        return False
    return rel.parts[0] in PRESENTATION


def inputs_digest() -> dict:
    """SHA-256 of what the outputs are made from: the notebooks, ``src/``, ``compendium/``, ``data/`` and the lock file.

    Files are those git tracks (all files when git is absent), hashed in sorted order as
    ``<path> <sha256 of its bytes>`` lines; the result does not depend on the machine or the commit
    message, only on the bytes of the inputs.  The report's own modules (:data:`PRESENTATION`) are left
    out: no notebook imports them.
    """
    import hashlib

    listed = _git("ls-files", "--", "notebooks", "src", "compendium", "data", "requirements.lock")
    if listed:
        paths = [PROJ_ROOT / line for line in listed.splitlines()]
    else:
        paths = [p for d in ("notebooks", "src", "compendium", "data") for p in (PROJ_ROOT / d).rglob("*")]
        paths.append(PROJ_ROOT / "requirements.lock")
    paths = sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts and not _presentation(p))
    lines = "".join(f"{p.relative_to(PROJ_ROOT).as_posix()} {_sha256(p)}\n" for p in paths)
    return {"files": len(paths), "sha256": hashlib.sha256(lines.encode()).hexdigest(),
            "requirements_lock_sha256": _sha256(PROJ_ROOT / "requirements.lock")}


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
            raise ValueError(f"{spec!r} is neither a ledger file nor a git revision with figures/claims.csv: "
                             f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'git failed'}")
        text = proc.stdout
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    # an earlier ledger may lack columns added since (world, revised): only the compared ones are needed
    missing = [c for c in ("paper", "claim_id", *COMPARED) if c not in df.columns]
    if missing:
        raise ValueError(f"{spec!r} is not a ledger: no column(s) {missing}")
    return df


def main(argv=None) -> int:
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
    args = parser.parse_args(argv)

    if args.command == "run":
        name, start, started = Path(args.notebook).stem, time.perf_counter(), time.time()
        if not Path(args.notebook).is_file() and (NOTEBOOKS_DIR / f"{name}.py").is_file():
            args.notebook = str(NOTEBOOKS_DIR / f"{name}.py")  # a notebook named by its stem
        if not Path(args.notebook).is_file():
            names = ", ".join(p.stem for p in sorted(NOTEBOOKS_DIR.glob("*.py")))
            print(f"ERROR: no notebook {args.notebook}; the notebooks are: {names}", file=sys.stderr, flush=True)
            return 2
        params = parse_parameters(args.parameter)
        try:
            check_parameters(args.notebook, params)
        except NotebookError as exc:
            print(f"ERROR: {exc}", file=sys.stderr, flush=True)
            return 2
        run_dir = new_run_dir(args.record, args.notebook) if args.record else None
        output_root = run_dir / "outputs" if run_dir else args.output_root
        print(f"[{name}] start", flush=True)
        try:
            written = run(args.notebook, params, output_root=output_root, keep=run_dir)
        except NotebookError as exc:
            print(f"[{name}] FAILED after {time.perf_counter() - start:.1f} s", flush=True)
            print(f"ERROR: {exc}", file=sys.stderr, flush=True)
            if run_dir:
                record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start, failure=exc)
            return 1
        except Exception as exc:  # an unforeseen fault: the recorded run still says it failed, then it is raised
            if run_dir:
                record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start, failure=exc)
            raise
        if run_dir:
            record_run(run_dir, args.notebook, params, elapsed=time.perf_counter() - start)
            print(f"[{name}] run recorded in {_rel(run_dir)} (run.yaml: parameters, commit, lock hash)", flush=True)
        root = Path(output_root).resolve() if output_root else FIGURES_DIR
        if not output_root:  # a run into figures/, as make reproduce does: its time goes in the table
            record_timing(name, started=started, seconds=time.perf_counter() - start)
        print(f"[{name}] done in {time.perf_counter() - start:.1f} s: {len(written)} files under {_rel(root)}", flush=True)
        if run_dir:
            _report_changes(run_dir, name, params)
        return 0
    if args.command == "changes":
        run_dir = Path(args.run_dir)
        record = run_dir / "run.yaml"
        if not record.is_file():
            print(f"ERROR: `run_dir` must be a recorded run's folder (with run.yaml); got {args.run_dir!r}",
                  file=sys.stderr, flush=True)
            return 2
        import yaml

        meta = yaml.safe_load(record.read_text())
        given = {k: meta["parameters"][k] for k in meta.get("overridden", [])}
        return 0 if _report_changes(run_dir, meta["notebook"], given, against=args.against) else 1
    if args.command == "verify":
        problems = verify()
        for p in problems:
            print(p)
        print(f"figures/: {'no problem' if not problems else f'{len(problems)} problem' + ('s' if len(problems) > 1 else '')}")
        return 1 if problems else 0
    if args.command == "compare":
        from .claims import KINDS, compare
        from .io import to_markdown

        bad = [k for k in args.kind if k not in KINDS]
        if bad:
            print(f"ERROR: --kind must be one of {', '.join(KINDS)}; got {', '.join(bad)}", file=sys.stderr, flush=True)
            return 2
        try:
            before = read_ledger(args.before)
            after = read_ledger(args.after) if args.after else read_ledger(str(FIGURES_DIR / "claims.csv"))
            table = compare(before, after)
        except ValueError as exc:
            print(f"ERROR: {exc}", file=sys.stderr, flush=True)
            return 2
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
    if args.command == "ledger":
        from .claims import COUNT_TABLES, count_tables, gather

        with _inst.lock(FIGURES_DIR):
            for line in _inst.recover(FIGURES_DIR):
                print(f"[ledger] {line}", file=sys.stderr, flush=True)
            failed = failed_runs()
            if failed:
                print("ERROR: the ledger records no inputs digest while a notebook's last run failed:\n  "
                      + "\n  ".join(failed) + "\nre-run it (make reproduce) once it succeeds", file=sys.stderr, flush=True)
                return 1
            df = gather()
            record_reproduce()
        print(f"claims ledger -> {_rel(FIGURES_DIR / 'claims.md')}")
        from .findings import update_readme

        if update_readme():
            print("README.md: its findings rewritten from the ledger")
        for key, table in count_tables(df).items():
            total = table.set_index("paper").loc["all"]
            counts = ", ".join(f"{c} {int(v)}" for c, v in total.items() if c != "total" and int(v))
            print(f"  {COUNT_TABLES[key]}: {counts or 'none'}")
        for line in timing_table():
            print(line)
        return 0
    if args.command == "lab-settings":
        print(f"JupyterLab settings: {lab_settings()}")
        return 0
    return 2


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
    print("\n".join(f"[{name}] {line}" for line in ch.summary(where=_rel(where)).splitlines()), flush=True)
    return True


TIMING_DIR = BUILD_DIR / "timing"


def record_timing(name: str, *, started: float, seconds: float, timing_dir: str | Path | None = None) -> Path:
    """Write ``build/timing/<name>.json``: when a notebook's run into ``figures/`` started (epoch seconds) and how long it took."""
    folder = Path(timing_dir) if timing_dir else TIMING_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"notebook": name, "started": round(started, 3), "seconds": round(seconds, 1)}) + "\n")
    return path


def timing_table(timing_dir: str | Path | None = None, *, now: float | None = None) -> list[str]:
    """The lines of the time table that ends ``make reproduce``, and mark the runs as reported.

    One line per notebook, longest first: the seconds of its last run into ``figures/``; the notebooks
    not run since the previous table (their outputs were up to date) marked ``earlier``.  Then the sum
    of this time's runs and the wall time from the first start to ``now`` (with ``-j2``, less than the sum).
    """
    folder = Path(timing_dir) if timing_dir else TIMING_DIR
    now = time.time() if now is None else now
    mark = folder / "reported"
    since = float(mark.read_text()) if mark.is_file() else 0.0
    runs = sorted((json.loads(p.read_text()) for p in folder.glob("*.json")) if folder.is_dir() else [],
                  key=lambda r: (-r["seconds"], r["notebook"]))
    if not runs:
        return []
    fresh = [r for r in runs if r["started"] >= since]
    width = max(len(r["notebook"]) for r in runs)
    lines = ["time per notebook (s):"]
    lines += [f"  {r['notebook']:<{width}}  {r['seconds']:>6.1f}" + ("" if r in fresh else "  (earlier; up to date)")
              for r in runs]
    if fresh:
        wall = max(r["started"] + r["seconds"] for r in fresh) - min(r["started"] for r in fresh)
        lines.append(f"  {'total':<{width}}  {sum(r['seconds'] for r in fresh):>6.1f}  "
                     f"({len(fresh)} notebook{'s' if len(fresh) != 1 else ''} run; {wall:.0f} s wall from the first start "
                     "to the last finish)")
    else:
        lines.append("  (no notebook run: every output up to date)")
    folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(f"{now:.3f}\n")
    return lines


def _rel(p: Path) -> str:
    try:
        return str(Path(p).resolve().relative_to(PROJ_ROOT))
    except ValueError:
        return str(p)


if __name__ == "__main__":
    sys.exit(main())
