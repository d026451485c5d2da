"""The clustered bootstrap of a log on Dask (:func:`offline_eval.ondask.clustered_bootstrap`), exact on float scores.

Two exact schemes, chosen from the first row group's scores before any pass:

* scores stored at a fixed precision (few distinct values): one pass of mergeable
  :class:`~offline_eval._logboot_sums.BootSums` (per score bin, ``n_boot + 1`` weighted sums per class), merged
  in a tree; memory per task ``(n_boot + 1) x bins x 2`` floats per model, independent of the rows;
* continuous scores (most of them distinct, one bin per row): the tasks read the label, score, weight and
  cluster key columns (validated per task, the keys hashed per task), and one task runs the in-memory engine of
  :mod:`offline_eval.logboot` on them (:func:`offline_eval._logboot_run.run_resamples` with the hashed weights): a sort
  per model, then per block of resamples one sparse product over the rows.  Its memory is about
  :data:`BYTES_PER_ROW` bytes per row, so the rows are bounded by :data:`MAX_EXACT_ROWS`, checked before any
  work for Parquet paths (the row count is in the footers) and after the read for a Dask DataFrame.

The binned approximation (``resolution``) is the one-pass scheme on rounded scores; it is never chosen silently.
"""

from __future__ import annotations

import functools

import numpy as np

from ._losses import LOG_LOSS_EPS
from ._ondask_io import Pieces, log_source, require_rows, tree_reduce, values_of
from ._ondask_cells import sample_first
from ._progress import reports_progress
from ._validation import InputTypeError

#: Rows the exact bootstrap of continuous scores holds in one task at most (about 2.5 GB a model per 1e7 rows).
MAX_EXACT_ROWS = 10**8

#: Bytes per row of the exact bootstrap of continuous scores, per model, about (columns, sort, sparse matrices).
BYTES_PER_ROW = 120


@reports_progress("ondask")
def clustered_bootstrap(data, label, score, score_b=None, *, groups, weight=None,
                        metrics=("roc_auc_score", "log_loss", "rig_score"), n_boot=1000, resolution=None,
                        eps=LOG_LOSS_EPS, rng=None):
    """:func:`offline_eval.logboot.clustered_bootstrap` of a whole log (percentile intervals).

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    label : str
        Column of the 0/1 clicks.
    score : str
        Column of model A's predictions (probabilities in [0, 1] unless only the AUC is asked for).
    score_b : str, optional
        Column of model B's predictions: paired, with the differences B - A.
    groups : str
        Column of the cluster labels (integers or strings): whole clusters are resampled.  The convention
        of the in-memory function with ``data=frame`` (``groups="query_id"``).
    weight : str, optional
        Column of the row weights.
    metrics : sequence of str, default ("roc_auc_score", "log_loss", "rig_score")
        Any of :data:`offline_eval.logboot.METRICS`.
    n_boot : int, default 1000
        ``n_boot x rows x models`` is bounded by :data:`offline_eval.logboot.MAX_RESAMPLED_ROWS`.
    resolution : float > 0, optional
        ``None`` (the default): the AUC of the exact float64 scores.  Scores stored at a fixed precision
        (at most half of the first row group's scores distinct, and their bins within the bound
        :data:`offline_eval._logboot_sums.MAX_SUM_CELLS`) take one pass of per-bin sums; continuous scores
        take the rows into one task (at most :data:`MAX_EXACT_ROWS` rows, checked before the pass for Parquet
        paths) and the in-memory engine.  A float: an opt-in approximation, the AUC of the scores rounded to
        its multiples, in one pass of per-bin sums (as :func:`roc_auc_score`; the statistic's AUC within
        :meth:`offline_eval._logboot_sums.ModelSums.auc_error_bound` of the exact one); the losses always
        use the raw scores.
    eps : float, default 1e-15
        Clipping of the log loss, as in :func:`offline_eval.metrics.log_loss`.
    rng : None, int or numpy.random.Generator
        The 64-bit seed of the weights is one draw from it, as for ``weights="hashed"`` in memory.

    Returns
    -------
    LogBootstrap
        As in memory; the acceleration is ``nan`` and ``confidence_interval(method="percentile")`` (or
        ``table(method="percentile")``) is the interval given: BCa is refused.

    Notes
    -----
    The weights are :func:`offline_eval.logboot.hashed_poisson_weights` of the cluster keys, so the values
    equal those of the in-memory ``clustered_bootstrap(..., weights="hashed", rng=rng)`` (on the binned scores
    with ``resolution``), resample by resample, up to the order of float sums (the AUC exactly, with integer
    row weights).  Cost of the exact scheme on continuous scores: the read, a sort of the cluster keys and one
    per model, then about ``n_boot x rows x models`` sparse multiply-adds and ``n_boot x clusters`` hashes
    (about 1 and 6 ns each on one core; the hashing, and the two models, in threads beside each other): 200
    resamples of AUC, log loss and RIG of two models on 2e7 rows in 5e6 clusters took 30 to 39 s on 2 busy
    cores; memory about :data:`BYTES_PER_ROW` bytes per row and model, plus
    :data:`offline_eval.logboot.BLOCK_BYTES` of weights (4.3 GB in all for that log).  The one-pass scheme: per task ``(n_boot + 1) x bins
    x 2`` floats per model (bounded by :data:`offline_eval._logboot_sums.MAX_SUM_CELLS`), and 8 bytes per
    cluster key.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "p": [0.4, 0.6, 0.7, 0.2], "q": ["q1", "q1", "q2", "q2"]})
    >>> res = clustered_bootstrap(dd.from_pandas(df, npartitions=2), "click", "p", groups="q", n_boot=50, rng=0)
    >>> res.a.roc_auc_score.statistic
    0.75
    """
    from ._bootstrap import check_boot
    from ._logboot_sums import MAX_SUM_CELLS, check_cells
    from ._validation import check_real, check_rng
    from ._logboot_run import assemble, check_metrics, check_resampled_rows
    from ._logboot_weights import draw_seed

    metrics = check_metrics(metrics)
    check_boot(n_boot, 0.5)
    n_boot = int(n_boot)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    if groups is None:
        raise ValueError("`groups` must name the column of the clusters")
    if resolution is not None:
        resolution = check_real(resolution, "resolution", low=0, closed="right")
        if "roc_auc_score" in metrics and any(m != "roc_auc_score" for m in metrics):
            check_cells(n_boot, np.floor(1.0 / resolution) + 2, 1 if score_b is None else 2, "resolution", resolution)
    if not isinstance(groups, str):
        raise InputTypeError(f"`groups` must name the column of the clusters (a string); got {type(groups).__name__}")
    scores = (score,) if score_b is None else (score, score_b)
    source = log_source(data, [label, *scores, groups, weight])  # every file's columns checked: a named error
    if isinstance(source, Pieces):
        check_resampled_rows(n_boot, source.rows, len(scores))
    rows_scheme = False
    if resolution is None and "roc_auc_score" in metrics:
        first = {s: np.asarray(x) for s, x in sample_first(source, scores).items()}  # a task holds at least these
        numeric = [x for x in first.values() if x.dtype.kind in "biuf"]  # else: the task's named error
        distinct = [len(np.unique(x)) for x in numeric]
        if distinct:
            cells = (n_boot + 1) * max(distinct) * 2 * len(scores)
            rows_scheme = any(2 * d > len(x) for d, x in zip(distinct, numeric)) or cells > MAX_SUM_CELLS // 8
    seed = draw_seed(check_rng(rng))
    if rows_scheme:
        if isinstance(source, Pieces):
            check_exact_rows(source.rows)
        stat, reps, n_clusters = _exact_rows(source, label, scores, groups, weight, seed, n_boot, metrics, eps)
        return assemble(stat, reps, None, metrics, n_boot, n_clusters)
    sums = tree_reduce(source, functools.partial(
        _boot_chunk, label=label, scores=scores, groups=groups,
        weight=weight, seed=seed, n_boot=n_boot, metrics=metrics, resolution=resolution, eps=eps))
    require_rows(sums.n, float(sums.models[0].sums[0, 0]), weight)
    vals = [m.values(metrics) for m in sums.models]
    stat = [{m: float(v[m][0]) for m in metrics} for v in vals]
    reps = [{m: v[m][1:] for m in metrics} for v in vals]
    return assemble(stat, reps, None, metrics, n_boot, len(sums.keys))


def check_exact_rows(n_rows) -> None:
    """The named bound :data:`MAX_EXACT_ROWS` on the rows of the exact bootstrap of continuous scores."""
    from ._validation import check_work

    check_work(int(n_rows), "resolution", None, limit=MAX_EXACT_ROWS,
               what=f"rows in one task (the exact AUC of continuous scores, about {BYTES_PER_ROW} bytes a row "
                    "and model)",
               hint="pass `resolution` (the AUC of the scores rounded to its multiples, in one pass of per-bin "
                    "sums), or bootstrap a sample of the clusters")


def _boot_chunk(part, *, label, scores, groups, weight, seed, n_boot, metrics, resolution, eps):
    from ._logboot_sums import BootSums

    return BootSums.from_arrays(values_of(part, label), [values_of(part, s) for s in scores], values_of(part, groups),
                                values_of(part, weight), seed=seed, n_boot=n_boot, metrics=metrics,
                                resolution=resolution, eps=eps, names=(label, scores, groups))


def _rows_chunk(part, *, label, scores, groups, weight, probs):
    """One task's rows for the exact scheme: clicks (int8), scores, weights (``None``: all 1) and cluster keys,
    validated as :class:`~offline_eval._logboot_sums.BootSums` validates them."""
    from ._chunks import chunk_arrays
    from ._validation import check_probability
    from ._logboot_weights import cluster_keys

    y_raw, w_raw = values_of(part, label), values_of(part, weight)
    cols = []
    for name in scores:
        y, s, w = chunk_arrays(y_raw, values_of(part, name), w_raw, names=(label, name), weight_name="weight")
        if probs and s.size:
            check_probability(s, name)
        cols.append(np.ascontiguousarray(s, dtype=np.float64))
    labels = np.asarray(values_of(part, groups))
    if labels.shape != y.shape:
        raise ValueError(f"`{groups}` must have one label per row; got {labels.shape[0]} for {y.shape[0]} rows")
    if labels.dtype.kind in "iub":
        keys = cluster_keys(labels, groups)
    elif labels.size:
        uniq, inv = np.unique(labels, return_inverse=True)
        keys = cluster_keys(uniq, groups)[inv.reshape(-1)]
    else:
        keys = np.zeros(0, np.uint64)
    return y.astype(np.int8), cols, None if weight is None else w, keys


def _read_rows(task, columns, **kw):
    """:func:`_rows_chunk` of one task of Parquet row groups (read as the other ondask tasks read them)."""
    from ._ondask_io import read_piece

    return _rows_chunk(read_piece(task, columns), **kw)


def _exact_rows(source, label, scores, groups, weight, seed, n_boot, metrics, eps):
    """The exact bootstrap of continuous scores: every task's rows, then the in-memory engine on them."""
    import dask

    from ._validation import scale_weights
    from ._logboot_run import check_resampled_rows, run_resamples

    kw = dict(label=label, scores=scores, groups=groups, weight=weight,
              probs=any(m != "roc_auc_score" for m in metrics))
    if isinstance(source, Pieces):
        tasks = [dask.delayed(_read_rows)(t, source.columns, **kw) for t in source.tasks]
    else:
        tasks = [dask.delayed(_rows_chunk)(p, **kw) for p in source.to_delayed()]
    parts = dask.compute(*tasks)
    n = sum(len(p[0]) for p in parts)
    check_exact_rows(n)
    check_resampled_rows(n_boot, n, len(scores))
    y = np.concatenate([p[0] for p in parts]).astype(np.float64)
    cols = [np.concatenate([p[1][i] for p in parts]) for i in range(len(scores))]
    w = None if weight is None else np.concatenate([p[2] for p in parts])
    keys = np.concatenate([p[3] for p in parts])
    del parts
    require_rows(n, float(n) if w is None else float(w.sum()), weight)
    w = np.ones(n) if w is None else scale_weights(w)  # the in-memory rescale: the same integer test, the same path
    uniq, g = np.unique(keys, return_inverse=True)
    del keys
    stat, reps, _ = run_resamples(y, cols, w, g.reshape(-1), len(uniq), metrics, eps, n_boot, keys=uniq, seed=seed)
    return stat, reps, len(uniq)
