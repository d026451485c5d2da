"""Progress lines of a notebook's long steps, for a person watching ``make reproduce``.

A line reads ``[yi_offline_online] sweep: 5/20 seeds, 41 s, ~123 s left``: the notebook, the step,
what is done, the time since the step began and an estimate of what is left (the mean time per item
so far times the items left).

Where the lines go: the pipeline runs a notebook in a Jupyter kernel, whose stdout and stderr become
the notebook's outputs and never reach the terminal.  So the pipeline names a file of the run's
staging folder in :data:`ENV_FILE` (and the notebook in :data:`ENV_NAME`) and relays every line
written there to its own stderr as it comes (``execution._Relay``); the executed notebook stays free
of them.  Without those variables (JupyterLab, a script, a test) the lines go to ``sys.stderr``.

A step prints at most one line every :data:`MIN_INTERVAL` seconds (a fast sweep does not flood the
log), and always its last line, so every step leaves one line with its total time.

Which sweep: a step named by a helper that only passes it on (``claims.seed_sweep`` names a step by its
function, ``one_seed``) is named by the caller of that helper, from the statement that called it: what it
is assigned to and the values of its keys and loop variables (:func:`caller_name`), so that
``sweeps["control"][b] = seed_sweep(one_seed, ...)`` with ``b = "development"`` reads ``control development
(one_seed): 20/20 seeds``, and ``controls = {b: seed_sweep(table2_sweep_row, ...) for b in BLOCKS}`` reads
``controls confirmation (table2_sweep_row): ...``.  A step its caller names in words (``"Table 6
calibration"``) is printed as given.
"""

from __future__ import annotations

import ast
import linecache
import os
import sys
import time
from collections.abc import Iterable, Iterator

__all__ = ["ENV_FILE", "ENV_NAME", "MIN_INTERVAL", "PASS_THROUGH", "Progress", "caller_name", "say", "track"]

#: The file the pipeline relays to its stderr (set by the pipeline for the kernel).
ENV_FILE = "OFFLINE_EVAL_PROGRESS"
#: The notebook's name, the prefix of every line (set by the pipeline for the kernel).
ENV_NAME = "OFFLINE_EVAL_NOTEBOOK"
#: Seconds between two lines of one step.
MIN_INTERVAL = 10.0

#: Modules whose functions pass a step's name on to :func:`track` without knowing which sweep it is (the seed
#: sweeps of ``claims``): the name comes from their caller.
PASS_THROUGH = ("offline_eval_compendium.claims", "offline_eval_compendium.progress")

_COMPREHENSIONS = ("<dictcomp>", "<listcomp>", "<setcomp>", "<genexpr>")


def _write(line: str) -> None:
    name = os.environ.get(ENV_NAME)
    text = f"[{name}] {line}" if name else line
    path = os.environ.get(ENV_FILE)
    if path:
        # One write of one whole line in append mode: the relay never sees half a line.
        with open(path, "a", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text, file=sys.stderr, flush=True)


def say(message: str) -> None:
    """One progress line, now (a step's start or a choice made, not a count)."""
    _write(message)


def _seconds(x: float) -> str:
    return f"{x:.0f} s" if x >= 10 else f"{x:.1f} s"


class Progress:
    """A step of ``total`` items (seeds, grid points) that reports as items are done.

    Parameters
    ----------
    step : str
        What is done, as the log should name it (``"sweep"``, ``"control sweep"``).
    total : int
        How many items the step has.
    unit : str, default "seeds"
    every : float, default :data:`MIN_INTERVAL`
        Seconds between two lines (the last line is always printed).
    clock : callable, default time.monotonic

    Examples
    --------
    >>> t = iter([0.0, 1.0, 2.0, 3.0])
    >>> p = Progress("sweep", 2, every=0, clock=lambda: next(t))
    >>> p.line(1)
    'sweep: 1/2 seeds, 1.0 s, ~1.0 s left'
    """

    def __init__(self, step: str, total: int, *, unit: str = "seeds", every: float = MIN_INTERVAL,
                 clock=time.monotonic):
        self.step, self.total, self.unit, self.every, self.clock = step, int(total), unit, float(every), clock
        self.start = self.clock()
        self.last = self.start
        self.done = 0

    def line(self, done: int, now: float | None = None) -> str:
        elapsed = (self.clock() if now is None else now) - self.start
        text = f"{self.step}: {done}/{self.total} {self.unit}, {_seconds(elapsed)}"
        if 0 < done < self.total:
            text += f", ~{_seconds(elapsed / done * (self.total - done))} left"
        return text

    def advance(self, k: int = 1) -> None:
        """``k`` more items done: print a line if :attr:`every` seconds passed, or if the step is done."""
        self.done += int(k)
        now = self.clock()
        if self.done >= self.total or now - self.last >= self.every:
            self.last = now
            _write(self.line(self.done, now))


def _scalar(value) -> str | None:
    """A key or loop value as a name shows it: strings and integers (not flags, not objects)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


def _lookup(name: str, frame) -> str | None:
    if name in frame.f_locals:
        return _scalar(frame.f_locals[name])
    return _scalar(frame.f_globals.get(name))


def _target_words(node, frame) -> list[str]:
    """What an assignment target says of its sweep: ``sweeps["control"][b]`` -> ``control <b's value>`` (a container
    keyed first by a name: the name says which), ``control[b]`` -> ``control <b's value>``, ``controls`` -> itself."""
    keys = []
    while isinstance(node, ast.Subscript):
        keys.append(node.slice)
        node = node.value
    keys.reverse()
    words = []
    if not (keys and isinstance(keys[0], ast.Constant) and isinstance(keys[0].value, str)) and isinstance(node, ast.Name):
        words.append(node.id)
    for key in keys:
        word = (_scalar(key.value) if isinstance(key, ast.Constant)
                else _lookup(key.id, frame) if isinstance(key, ast.Name) else None)
        if word:
            words.append(word)
    return words


def caller_name(step: str, depth: int = 1) -> str | None:
    """Which sweep the caller of a pass-through helper (:data:`PASS_THROUGH`) is running, or ``None``.

    Only for a ``step`` that is the name of a function the helper was handed (``seed_sweep(one_seed, ...)`` names
    its step ``one_seed``): a name its caller chose is its own.  From the frame ``depth`` levels above this
    function's caller, past the frames of :data:`PASS_THROUGH`: the
    statement it is executing (its source, as tracebacks read it), what that statement assigns to and the values
    of the keys (``sweeps["control"][b]``: ``control`` and ``b``'s value) and of the loop variables of the
    comprehension it runs in (``{name: seed_sweep(...) for name, w in EARLIER.items()}``: ``name``'s value).
    ``None`` when the caller is not behind such a helper, or its statement assigns nothing (a ``for`` loop).
    Never raises: a progress line must not stop a run.
    """
    try:
        frame = sys._getframe(depth + 1)
        handed = set()
        while frame is not None and frame.f_globals.get("__name__", "").startswith(PASS_THROUGH):
            handed |= {getattr(v, "__name__", None) for v in frame.f_locals.values() if callable(v)}
            frame = frame.f_back
        if frame is None or step not in handed:
            return None
        comp = frame if frame.f_code.co_name in _COMPREHENSIONS else None
        outer = frame.f_back if comp is not None else frame
        lines = linecache.getlines(frame.f_code.co_filename, frame.f_globals)
        if not lines:
            return None
        line = frame.f_lineno
        stmt = None
        for node in ast.walk(ast.parse("".join(lines))):
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.lineno <= line <= node.end_lineno:
                if stmt is None or node.lineno >= stmt.lineno:
                    stmt = node
        if stmt is None:
            return None
        target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
        words = _target_words(target, outer)
        if comp is not None:
            loop = [n.id for c in ast.walk(stmt) if isinstance(c, (ast.DictComp, ast.ListComp, ast.SetComp,
                                                                     ast.GeneratorExp))
                    for g in c.generators for n in ast.walk(g.target) if isinstance(n, ast.Name)]
            words += [v for v in (_scalar(comp.f_locals.get(n)) for n in dict.fromkeys(loop)) if v]
        return " ".join(words) or None
    except Exception:  # noqa: BLE001 -- a name is a nicety; the sweep goes on without it
        return None


def track(items: Iterable, step: str, *, total: int | None = None, unit: str = "seeds",
          every: float = MIN_INTERVAL) -> Iterator:
    """Yield from ``items``, reporting each one done as :class:`Progress` does.

    ``total`` defaults to ``len(items)``.  A ``step`` that is the name of the function a helper was handed
    (``one_seed``, what ``claims.seed_sweep`` passes on when its caller names nothing) is named by the caller
    of that helper (:func:`caller_name`): ``control development (one_seed)``.
    """
    which = caller_name(step)
    step = f"{which} ({step})" if which and which != step else step
    items = list(items) if total is None and not hasattr(items, "__len__") else items
    p = Progress(step, len(items) if total is None else total, unit=unit, every=every)
    for item in items:
        yield item
        p.advance()
