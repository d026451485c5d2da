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
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterable, Iterator

__all__ = ["ENV_FILE", "ENV_NAME", "MIN_INTERVAL", "Progress", "say", "track"]

#: The file the pipeline relays to its stderr (set by the pipeline for the kernel).
ENV_FILE = "OFFLINE_EVAL_PROGRESS"
#: The notebook's name, the prefix of every line (set by the pipeline for the kernel).
ENV_NAME = "OFFLINE_EVAL_NOTEBOOK"
#: Seconds between two lines of one step.
MIN_INTERVAL = 10.0


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


def track(items: Iterable, step: str, *, total: int | None = None, unit: str = "seeds",
          every: float = MIN_INTERVAL) -> Iterator:
    """Yield from ``items``, reporting each one done as :class:`Progress` does.

    ``total`` defaults to ``len(items)``.
    """
    items = list(items) if total is None and not hasattr(items, "__len__") else items
    p = Progress(step, len(items) if total is None else total, unit=unit, every=every)
    for item in items:
        yield item
        p.advance()
