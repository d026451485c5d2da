"""One notebook executed through papermill (:func:`execute`): the jupytext text converted, the kernel over IPC
sockets with one BLAS thread, its progress relayed to the terminal, and a failure named by notebook and cell."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path

from .machine import allocator_env, pinned_threads_env
from .paths import BUILD_DIR, NOTEBOOKS_DIR
from .parameters import NotebookError, check_parameters, jupytext_module


KERNEL = "python3"


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
    for name, value in allocator_env().items():  # freed arrays' pages reused, not faulted in again: speed only
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
    jupytext = jupytext_module()
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
