"""Benchmark harness: time the library against its peers in the same process.

Each ``benchmarks/bench_<theme>.py`` defines ``cases(quick: bool) -> list[Case]``.
``benchmarks/run.py`` times every case (median of ``repeat`` >= 3 runs for
ours and for the peer, interleaved), measures peak memory with tracemalloc in
one extra run each, checks that both give the same value, and writes a table
of ratios ``ours / peer`` against each case's target.
"""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass
class Case:
    """One benchmark row.

    ``setup()`` builds the inputs once (not timed) and returns a tuple of
    arguments passed to ``ours(*args)`` and ``peer(*args)``.  ``max_ratio`` is
    the target for ``time(ours) / time(peer)`` (0.5 means "at least 2x
    faster", 2.5 means "at most 2.5x the peer's time").  ``same(a, b)`` tells
    whether the two results agree.  A case with no peer reports absolute
    time (and ``per_second``: items per second, with ``items``).
    """

    name: str
    n: int
    setup: Callable[[], tuple]
    ours: Callable[..., Any]
    peer: Callable[..., Any] | None = None
    peer_name: str = ""
    max_ratio: float | None = None
    same: Callable[[Any, Any], bool] | None = None
    items: int | None = None
    min_per_second: float | None = None
    note: str = ""
    repeat: int = 3
    extra: dict = field(default_factory=dict)


def _time(fn, args, repeat):
    times, result = [], None
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        result = fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _peak(fn, args):
    gc.collect()
    tracemalloc.start()
    try:
        fn(*args)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def measure(case: Case) -> dict:
    args = case.setup()
    t_ours, r_ours = _time(case.ours, args, max(case.repeat, 3))
    row = dict(case=case.name, n=case.n, ours_s=t_ours, ours_peak_mb=_peak(case.ours, args) / 2**20)
    if case.peer is not None:
        t_peer, r_peer = _time(case.peer, args, max(case.repeat, 3))
        ratio = t_ours / t_peer
        row.update(
            peer=case.peer_name, peer_s=t_peer, peer_peak_mb=_peak(case.peer, args) / 2**20, ratio=ratio,
            target=f"<= {case.max_ratio:g}" if case.max_ratio is not None else "",
            meets=(ratio <= case.max_ratio) if case.max_ratio is not None else None,
            same_value=case.same(r_ours, r_peer) if case.same else None,
        )
    if case.items:
        rate = case.items / t_ours
        row["per_second"] = rate
        if case.min_per_second is not None:
            row["target"] = f">= {case.min_per_second:g}/s"
            row["meets"] = rate >= case.min_per_second
    row["note"] = case.note
    row.update(case.extra)
    del args
    gc.collect()
    return row
