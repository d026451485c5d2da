"""The resamples of the clustered bootstrap of a log, behind :mod:`offline_eval.logboot` and the exact Dask bootstrap
of :mod:`offline_eval.ondask`: the metrics by name, the blocks of cluster weights and the models' values on them, the
jackknife over clusters, the bound on the work, and the results assembled (the face imports this engine, never the
reverse)."""

from __future__ import annotations

import numpy as np

from ._logboot_engine import ClusterSums, ModelEngine, integer_weights, jackknife_acceleration, tied_difference
from ._logboot_results import BootstrapResult, LogBootstrap, ModelResults
from ._logboot_weights import hashed_counts, poisson_counts
from ._progress import counter
from ._validation import check_choice, check_work, warn_undefined

#: The metrics :func:`offline_eval.logboot.clustered_bootstrap` computes, by the name of the function of
#: :mod:`offline_eval.metrics` whose value each resample reproduces.
METRICS = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")

#: Resamples per block at most: each sparse product reads one row of ``RESAMPLE_BLOCK`` cluster weights.
RESAMPLE_BLOCK = 64

#: ``rows x n_boot`` from which :func:`run_resamples` uses threads (the results are the same either way).
THREADED_WORK = 10**8

#: Bytes of cluster weights of one block of resamples at most (1 GiB: blocks of 64 resamples up to 2^23 clusters
#: of int16 weights; fewer above).
BLOCK_BYTES = 1 << 30

#: The metrics of :data:`METRICS` that read the scores as probabilities.
PROB_METRICS = ("log_loss", "rig_score", "calibration_ratio")


def run_resamples(y, scores, w, g, n_clusters, metrics, eps, n_boot, *, keys=None, seed=None, gen=None):
    """The statistics, replicates and engines of every model: ``(stat, reps, engines)``.

    The cluster weights come from :func:`hashed_counts` of ``keys`` with ``seed``, else from ``gen`` as one
    stream, in blocks of at most :data:`RESAMPLE_BLOCK` resamples (and :data:`BLOCK_BYTES` of weights).  Each
    resample's values depend on its weights alone, every sum in a fixed order: the result does not depend on
    the block size.  Shared by :func:`offline_eval.logboot.clustered_bootstrap` and the exact Dask bootstrap.
    """
    from concurrent.futures import ThreadPoolExecutor

    int_top = integer_weights(w)
    sums = ClusterSums(y, w, g, n_clusters)
    dtype = np.int16 if int_top else np.float64
    big = len(y) * max(1, n_boot) >= THREADED_WORK
    # threads: the models' sorts and gathers (NumPy releases the GIL in them), their products side by side, and
    # the hashing of the next block's weights meanwhile; each value depends on its inputs alone (no shared sum)
    pool = ThreadPoolExecutor(3) if big else None
    try:
        if pool is not None and len(scores) == 2:
            engines = list(pool.map(lambda s: ModelEngine(y, s, w, g, n_clusters, sums, metrics, eps, int_top,
                                                          add_columns=False), scores))
            for eng in engines:
                eng.add_columns()
        else:
            engines = [ModelEngine(y, s, w, g, n_clusters, sums, metrics, eps, int_top) for s in scores]
        return _resample_blocks(engines, sums, dtype, metrics, n_boot, n_clusters, keys, seed, gen, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _resample_blocks(engines, sums, dtype, metrics, n_boot, n_clusters, keys, seed, gen, pool):

    def compute(W):
        T = sums.totals(W)
        if pool is None or len(engines) == 1:
            return [eng.values(W, T) for eng in engines]
        # the models side by side: one's NumPy steps (which release the GIL) beside the other's sparse products
        return list(pool.map(lambda eng: eng.values(W, T), engines))

    ones = np.ones((n_clusters, 1), dtype)
    stat = [{m: float(v[0]) for m, v in vals.items()} for vals in compute(ones)]
    reps = [{m: np.empty(n_boot) for m in metrics} for _ in engines]
    block = int(min(RESAMPLE_BLOCK, BLOCK_BYTES // max(1, n_clusters * np.dtype(dtype).itemsize)))
    block = max(1, min(n_boot, block - block % 16 if block >= 16 else block))  # 16s: the products' loops vectorize

    def weights(start):
        stop = min(n_boot, start + block)
        if seed is None:  # one stream, drawn in order
            return np.ascontiguousarray(poisson_counts(gen, (stop - start, n_clusters)).T, dtype=dtype)
        return hashed_counts(seed, np.arange(start, stop), keys).astype(dtype, copy=False)

    starts = list(range(0, n_boot, block))
    steps = counter(n_boot, "resamples")
    nxt = None
    for i, start in enumerate(starts):
        W = weights(start) if nxt is None else nxt.result()
        nxt = pool.submit(weights, starts[i + 1]) if pool is not None and i + 1 < len(starts) else None
        for out, vals in zip(reps, compute(W)):
            for m in metrics:
                out[m][start:start + W.shape[1]] = vals[m]
        steps.advance(W.shape[1])
        del W
    return stat, reps, engines


#: Most ``n_boot x rows x models`` one clustered bootstrap may ask for (a few minutes on one core in memory:
#: about 1 ns each, with the hashed weights and the set-up; a bound on the work, checked before any starts).
MAX_RESAMPLED_ROWS = 10**10


def check_resampled_rows(n_boot, n_rows, n_models) -> None:
    """The named bound :data:`MAX_RESAMPLED_ROWS` on ``n_boot x rows x models``, before any work."""
    check_work(int(n_boot) * int(n_rows) * int(n_models), "n_boot", n_boot, limit=MAX_RESAMPLED_ROWS,
               what=f"row-resamples (n_boot x {int(n_rows):,} rows x {int(n_models)} model(s))",
               hint="pass a smaller `n_boot`, or bootstrap a sample of the clusters")


def jackknives(engines, n_rows, n_boot) -> list:
    """The jackknife over clusters of each model's engine (two models side by side in threads on big work)."""
    if len(engines) == 2 and n_rows * n_boot >= THREADED_WORK:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as pool:
            return list(pool.map(lambda eng: eng.jackknife(), engines))
    return [eng.jackknife() for eng in engines]


def assemble(stat, reps, jack, metrics, n_boot, n_clusters) -> LogBootstrap:
    """The :class:`LogBootstrap` of one or two models from their statistics, replicates and jackknife values.

    ``stat[i][m]`` is a float, ``reps[i][m]`` the replicates of model ``i``; ``jack`` is ``None`` when the
    jackknife over clusters was not computed: the acceleration is then ``nan`` and BCa is refused.
    """
    # warnings raised here, not in helpers: stacklevel 4 is the caller of clustered_bootstrap
    for i in range(len(stat)):
        undefined = [m for m in metrics if not np.isfinite(stat[i][m])]
        if undefined:
            warn_undefined(f"{', '.join(undefined)} of model {'ab'[i]} undefined on the data (one class present, no "
                           "click or no weight); the statistic and its resamples are nan", stacklevel=4)
    accel = {}
    for i in range(len(stat)):
        for m in metrics:
            j = None if jack is None else jack[i][m]
            bad = 0 if j is None else int(np.size(j) - np.isfinite(j).sum())
            if bad and np.isfinite(stat[i][m]):
                warn_undefined(f"{m} of model {'ab'[i]}: undefined without {bad} of {np.size(j)} clusters (a class "
                               "or every weight absent once the cluster is left out); those leave-one-cluster-out "
                               "values are left out of BCa's acceleration", stacklevel=4)
            accel[i, m] = float("nan") if j is None else jackknife_acceleration(j)
            if i == 1:
                accel["diff", m] = float("nan") if j is None else jackknife_acceleration(jack[1][m] - jack[0][m])

    def acc(i, m, diff=False):
        return accel["diff", m] if diff else accel[i, m]

    def results(i, label):
        return ModelResults(label, {
            m: BootstrapResult(stat[i][m], reps[i][m], acc(i, m), name=f"{m}, {label}",
                               n_clusters=n_clusters) for m in metrics})

    a = results(0, "a")
    b = diff = None
    if len(stat) == 2:
        b = results(1, "b")
        diff = ModelResults("b - a", {
            m: BootstrapResult(tied_difference(stat[1][m], stat[0][m]), tied_difference(reps[1][m], reps[0][m]),
                               acc(0, m, True), name=f"{m}, b - a", n_clusters=n_clusters, difference=True)
            for m in metrics})
    return LogBootstrap(a, b, diff, metrics, n_boot, n_clusters)


def check_metrics(metrics) -> tuple:
    """``metrics`` as a tuple of distinct names of :data:`METRICS` (one name or a sequence), in the order given."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    else:
        try:
            metrics = tuple(metrics)
        except TypeError:  # None, a number: not a sequence of names
            raise ValueError(f"`metrics` must be a name or a sequence of names of {list(METRICS)}; "
                             f"got {metrics!r}") from None
    if not metrics:
        raise ValueError(f"`metrics` must name at least one of {list(METRICS)}; got none")
    for m in metrics:
        check_choice(m, "metrics", METRICS)
    return tuple(dict.fromkeys(metrics))
