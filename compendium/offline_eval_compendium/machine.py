"""What of the machine can change a result's last bits, and how to change it on purpose.

The compendium promises the same bytes in every table and figure on any CPU.
Three things of the machine change the last bits of floating-point results:

* numpy's **SIMD dispatch**: ``exp``, ``log``, ``power`` and some reductions
  have one implementation per instruction-set level (baseline, AVX2, AVX-512)
  that differ in the last bit; ``NPY_DISABLE_CPU_FEATURES`` forces the
  baseline;
* **OpenBLAS's kernel** for the CPU (``dot``, ``@``, ``einsum`` through
  BLAS): ``OPENBLAS_CORETYPE`` forces an older core's kernel;
* **BLAS threads**: a multi-threaded dot product splits its sum by thread.

:func:`pinned_threads_env` is what every notebook run uses (one BLAS thread,
so the split never depends on the core count); :func:`baseline_cpu_env` is
what the same-bytes test adds to run the notebooks as on an older CPU.  Code
never lets a discrete decision hinge on those bits (exact ties are decided in
exact arithmetic, see :func:`offline_eval.auction.allocate` and
:func:`offline_eval.synth.classifiers.apportion`), and tables are written at
:data:`offline_eval_compendium.io.FLOAT_DIGITS` significant digits.
"""

from __future__ import annotations

import multiprocessing
import os
import platform
from concurrent.futures import ProcessPoolExecutor

__all__ = ["WORKERS_ENV", "allocator_env", "baseline_cpu_env", "main", "map_in_workers", "pinned_threads_env",
           "worker_count"]

#: How many worker processes a study's seed sweep may use (``1``: none, the seeds run in the notebook's
#: own process).  Unset: one per core available.  The results are the same bytes for any value.
WORKERS_ENV = "OFFLINE_EVAL_WORKERS"

# An older core of each architecture whose OpenBLAS kernels differ from a current CPU's.
_OLD_CORE = {"x86_64": "Nehalem", "amd64": "Nehalem", "aarch64": "ARMV8", "arm64": "ARMV8"}


def worker_count() -> int:
    """Worker processes for a study's seed sweep: ``$OFFLINE_EVAL_WORKERS``, else the cores available.

    ``make reproduce`` runs one notebook per core and sets it to 1 (the cores are already busy); ``make run``
    of one notebook leaves it unset, so that notebook's sweeps use every core.

    >>> worker_count() >= 1
    True
    """
    raw = os.environ.get(WORKERS_ENV, "").strip()
    if raw:
        if not raw.isdigit() or int(raw) < 1:
            raise ValueError(f"${WORKERS_ENV} must be a whole number >= 1; got {raw!r}")
        return int(raw)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def map_in_workers(func, items, *, workers=None, chunksize=1):
    """``map(func, items)`` in worker processes, one per core: an iterator of the results in the items' order.

    Parameters
    ----------
    func : callable
        A module-level function or a :func:`functools.partial` of one (it is sent to the workers, with each
        item); every draw from its arguments, so its results do not depend on the process.
    items : iterable
    workers : int, optional
        Worker processes (forked); default :func:`worker_count` (one per
        core available, or ``$OFFLINE_EVAL_WORKERS``), at most one per item.  With one, the items
        run here, one by one, as each result is asked for.
    chunksize : int, default 1
        Items sent to a worker at a time (``func`` is sent once per chunk: fewer copies of large arguments).

    Returns
    -------
    generator
        ``func(item)`` of each item in turn; a worker's exception is raised when its result is reached.  With
        workers, the pool has started and every item is sent when this returns, so the caller may compute
        something else here before it asks for the first result.  ``close()`` it to stop early.
    """
    items = list(items)
    if workers is None:
        workers = worker_count()
    workers = max(1, min(int(workers), len(items)))
    if workers == 1:
        return (func(item) for item in items)
    results = _pool_map(func, items, workers, max(1, int(chunksize)))
    next(results)  # the pool is up and every item is sent
    return results


def _pool_map(func, items, workers, chunksize):
    """The generator of :func:`map_in_workers` with workers: yields ``None`` once every item is sent, then the
    results in order."""
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        results = pool.map(func, items, chunksize=chunksize)
        yield None
        yield from results
    finally:  # closed early (an error here or in a worker): the items not started are dropped
        pool.shutdown(wait=True, cancel_futures=True)


def pinned_threads_env() -> dict[str, str]:
    """Environment variables that pin the BLAS / OpenMP thread pools to one thread.

    >>> pinned_threads_env()["OPENBLAS_NUM_THREADS"]
    '1'
    """
    return {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def allocator_env() -> dict[str, str]:
    """Environment variables that make glibc's allocator keep freed memory for the next array.

    The simulations allocate and free arrays of a few MB thousands of times (an auction's (n, k) tables, a
    replay's shown ads).  By default glibc returns each freed block of that size to the kernel (a separate
    mapping, or a heap trimmed at its top), so the next array of the same size is mapped anew and every page
    of it faults on first touch: a million faults per minute of the auction engine, 10-15% of its time.  With
    blocks under 32 MB taken from the heap and at most 1 GB of free heap kept, the next array reuses the
    last one's pages.  Only where arrays live changes, never what is computed: the results are the same
    bytes.  Read once, when a process starts (set them for a child process); other C libraries ignore them.

    >>> allocator_env()["MALLOC_MMAP_THRESHOLD_"]
    '33554432'
    """
    return {"MALLOC_MMAP_THRESHOLD_": str(32 << 20), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}


def baseline_cpu_env() -> dict[str, str]:
    """Environment variables that make this machine compute like an older CPU.

    Disables every SIMD target numpy can dispatch to on this build (so numpy
    runs its baseline code paths, whatever this CPU has) and forces
    OpenBLAS's kernel for an older core of this architecture.  Set them
    before numpy is imported (in a child process).

    >>> env = baseline_cpu_env()
    >>> sorted(env)
    ['NPY_DISABLE_CPU_FEATURES', 'OPENBLAS_CORETYPE']
    """
    from numpy._core._multiarray_umath import __cpu_dispatch__

    env = {"NPY_DISABLE_CPU_FEATURES": " ".join(__cpu_dispatch__)}
    core = _OLD_CORE.get(platform.machine().lower())
    if core:
        env["OPENBLAS_CORETYPE"] = core
    return env


def main(argv=None) -> int:
    """``python -m offline_eval_compendium.machine --baseline-cpu -- CMD ...``: run CMD as on an older CPU."""
    import argparse
    import os
    import sys

    parser = argparse.ArgumentParser(prog="python -m offline_eval_compendium.machine", description=main.__doc__)
    parser.add_argument("--baseline-cpu", action="store_true", help="numpy's baseline SIMD and an older OpenBLAS core")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run (after --)")
    args = parser.parse_args(argv)
    env = {**os.environ, **pinned_threads_env(), **(baseline_cpu_env() if args.baseline_cpu else {})}
    cmd = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not cmd:
        for name in sorted(set(env) - set(os.environ) | set(pinned_threads_env()) | (set(baseline_cpu_env()) if args.baseline_cpu else set())):
            print(f"{name}={env[name]}")
        return 0
    print(" ".join(f"{k}={v!r}" for k, v in env.items() if os.environ.get(k) != v) + " " + " ".join(cmd), file=sys.stderr, flush=True)
    os.execvpe(cmd[0], cmd, env)


if __name__ == "__main__":
    raise SystemExit(main())
