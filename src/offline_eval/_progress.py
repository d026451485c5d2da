"""Progress lines of the library's long calls: the opt-in ``progress=`` of the bootstraps and of :mod:`offline_eval.ondask`.

Off by default.  ``progress=True`` prints lines such as ``ondask.clustered_bootstrap: 128/1000 resamples, 2.1 s,
~14 s left`` to stderr (the call, what is done of how many, the time since the pass began, an estimate of what is
left: the mean time per item so far times the items left); a callable is called with each line instead (e.g. a
logger's ``info``).  One line per step, a step being a tenth of a pass (at most :data:`LINES` lines a pass) or
one block of resamples where a block is more; the last line of a pass is always printed.  A Dask computation on the
local scheduler (threads, processes or sync) reports its tasks as they finish; on a ``distributed`` client, its
dashboard shows them.  Nothing the call computes depends on it: the lines go to stderr (or the callable) only.

The entry points wear :func:`reports_progress`, which adds the keyword, checks it, and sets the reporter that the
engines below ask for with :func:`counter` (a no-op when no progress was asked for, or when a reporting call calls
another: the outer call names the lines).
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import inspect
import sys
import time

import numpy as np

from ._validation import InputTypeError

__all__ = ["LINES", "counter", "reports_progress", "reporting"]

#: Lines of one pass at most (one a step; the last always).
LINES = 10

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("offline_eval_progress", default=None)


def _seconds(x: float) -> str:
    return f"{x:.0f} s" if x >= 10 else f"{x:.1f} s"


def check_progress(progress):
    """``progress`` as a function of one line, or ``None`` (no progress); a named error unless a bool or a callable."""
    if isinstance(progress, (bool, np.bool_)):
        return _to_stderr if progress else None
    if isinstance(progress, (int, float, str, bytes)) or not callable(progress):
        raise InputTypeError(f"`progress` must be True, False or a callable taking one line of text; got {progress!r}")
    return progress


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _Counter:
    """One pass of ``total`` items of a reporting call: a line each step, and the last."""

    def __init__(self, emit, what: str, total: int, unit: str, clock=time.monotonic):
        self.emit, self.what, self.total, self.unit, self.clock = emit, what, max(0, int(total)), unit, clock
        self.start = self.clock()
        self.done = 0
        self.shown = 0  # steps shown

    def line(self, now: float) -> str:
        elapsed = now - self.start
        text = f"{self.what}: {self.done:,}/{self.total:,} {self.unit}, {_seconds(elapsed)}"
        if 0 < self.done < self.total:
            text += f", ~{_seconds(elapsed / self.done * (self.total - self.done))} left"
        return text

    def advance(self, k: int = 1) -> None:
        """``k`` more items done: a line when a step is completed, or the pass."""
        self.done += int(k)
        step = LINES if self.done >= self.total else (LINES * self.done) // max(1, self.total)
        if step > self.shown:
            self.shown = step
            self.emit(self.line(self.clock()))


class _Null:
    def advance(self, k: int = 1) -> None:
        pass


_NULL = _Null()


def counter(total: int, unit: str):
    """A pass of ``total`` items (``unit``: "resamples", "tasks") of the reporting call, or a no-op without one."""
    active = _ACTIVE.get()
    if active is None:
        return _NULL
    emit, what = active
    return _Counter(emit, what, total, unit)


@contextlib.contextmanager
def reporting(progress, what: str):
    """Report the work inside as ``what`` when ``progress`` asks for it (checked here) and no outer call reports."""
    emit = check_progress(progress)
    if emit is None or _ACTIVE.get() is not None:
        yield
        return
    token = _ACTIVE.set((emit, what))
    try:
        with _dask_tasks():
            yield
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def _dask_tasks():
    """A pass of Dask tasks per computation on a local scheduler, when Dask is imported (the library never imports it
    for this)."""
    if "dask" not in sys.modules:
        yield
        return
    from dask.callbacks import Callback

    class _Tasks(Callback):
        def _start_state(self, dsk, state):
            self.pass_ = counter(len(state["ready"]) + len(state["waiting"]) + len(state["running"])
                                 + len(state["finished"]), "tasks")

        def _posttask(self, key, result, dsk, state, worker_id):
            self.pass_.advance()

    with _Tasks():
        yield


_DOC = ("progress : bool or callable, default False\n"
        "    Progress lines of the call, one a step of its work, to stderr (a callable is called with each line\n"
        "    instead).  Nothing computed depends on it.\n")


def reports_progress(module: str):
    """Give an entry point the keyword-only ``progress=False`` (checked at the entry) and its line in the docstring's
    Parameters; its work reports as ``<module>.<name>`` (``ondask.clustered_bootstrap``)."""

    def decorate(fn):
        what = f"{module}.{fn.__name__}"
        sig = inspect.signature(fn)
        params = list(sig.parameters.values())
        at = next((i for i, p in enumerate(params) if p.kind is p.VAR_KEYWORD), len(params))
        params.insert(at, inspect.Parameter("progress", inspect.Parameter.KEYWORD_ONLY, default=False))

        @functools.wraps(fn)
        def entry(*args, progress=False, **kwargs):
            with reporting(progress, what):
                return fn(*args, **kwargs)

        entry.__signature__ = sig.replace(parameters=params)
        entry.__doc__ = _with_param(fn.__doc__)
        return entry

    return decorate


def _with_param(doc: str | None) -> str | None:
    """``doc`` with :data:`_DOC` as the last entry of its Parameters section (numpydoc, at the section's indent)."""
    if not doc or "Parameters\n" not in doc:
        return doc
    lines = doc.split("\n")
    i = next(k for k, line in enumerate(lines) if line.strip() == "Parameters")
    indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
    # the section ends at the blank line before the next section's title (a line underlined with dashes)
    end = next((k for k in range(i + 2, len(lines) - 2)
                if not lines[k].strip() and lines[k + 2].strip() and set(lines[k + 2].strip()) == {"-"}), len(lines))
    while end > i + 2 and not lines[end - 1].strip():
        end -= 1
    entry = [indent + x for x in _DOC.rstrip("\n").split("\n")]
    return "\n".join(lines[:end] + entry + lines[end:])
