"""The metrics on Dask: logs bigger than memory, the same results as in memory.

Every function takes a ``dask.dataframe.DataFrame`` (or a Parquet path, read with only the columns it
needs) and column names, fills one accumulator of :mod:`offline_eval.mergeable` per partition, merges
them in a binary tree of ``dask.delayed`` tasks, and returns what the in-memory function returns.
Nothing but the accumulators leaves a worker.  The work runs on Dask's default scheduler (threads), or
on a ``distributed`` client when one is active (``with Client(...):``).

>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"click": [0, 1, 1, 0], "p": [0.1, 0.4, 0.35, 0.8]})
>>> round(roc_auc_score(dd.from_pandas(df, npartitions=2), "click", "p"), 6)
0.5

Precision: counts are exact; sums agree with the in-memory functions to about 1e-12 relative (their
order of addition differs).  For continuous scores at scale, pass ``resolution`` to :func:`roc_auc_score` (see
:class:`offline_eval.mergeable.ScoreCounts`: the error is bounded by
:meth:`~offline_eval.mergeable.ScoreCounts.auc_error_bound`).
"""

from __future__ import annotations

import functools

from ._validation import InputTypeError
from .mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums

__all__ = [
    "roc_auc_score",
    "calibration_ratio",
    "clustered_bootstrap",
    "joint_counts",
    "log_loss",
    "loss_sums",
    "mean_squared_error",
    "prediction_error",
    "quantile_breakdown",
    "read",
    "reduce_partitions",
    "rig_score",
    "roc_curve",
    "score_counts",
    "utility_sums",
]


def read(data, columns):
    """``data`` as a Dask DataFrame holding ``columns``: a DataFrame is checked, a Parquet path read.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    columns : list of str
        The columns needed (``None`` entries are ignored).
    """
    import dask.dataframe as dd

    columns = [c for c in columns if c is not None]
    bad = [c for c in columns if not isinstance(c, str)]
    if bad:
        raise InputTypeError(f"column names must be strings; got {bad!r}")
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        # Read the schema first (no data): a missing column is then the same named error as for a
        # DataFrame, not a KeyError from deep inside the Parquet reader.
        data = dd.read_parquet(data)
    elif not isinstance(data, dd.DataFrame):
        raise ValueError(f"`data` must be a dask DataFrame or a Parquet path; got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"`data` has no column(s) {missing}; it has {list(data.columns)}")
    return data[columns]


def reduce_partitions(ddf, chunk, merge=lambda a, b: a.merge(b)):
    """``chunk(partition)`` on every partition, then a binary tree of ``merge``; computed.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    chunk : callable
        ``chunk(partition) -> accumulator``.
    merge : callable, default ``a.merge(b)``
    """
    import dask

    if not callable(chunk) or not callable(merge):
        raise InputTypeError(f"`chunk` and `merge` must be callables; got {type(chunk).__name__} and {type(merge).__name__}")
    level = [dask.delayed(chunk)(part) for part in ddf.to_delayed()]
    if not level:
        raise ValueError("`data` has no partition")
    while len(level) > 1:
        nxt = [dask.delayed(merge)(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0].compute()


def _col(part, name):
    return None if name is None else part[name].to_numpy()


def _check_kwargs(kwargs):
    extra = sorted(set(kwargs) - {"eps"})
    if extra:
        raise InputTypeError(f"unexpected keyword argument(s) {extra}; only `eps` is passed on to the log loss")


def _require_rows(n_rows, total_weight, weight):
    """The errors of the in-memory functions for an empty log or all-zero weights (not a silent nan)."""
    if n_rows == 0:
        raise ValueError("`data` has no rows; the metric needs at least one (as in memory)")
    if not total_weight > 0:
        raise ValueError(f"`weight` column {weight!r} must not be all zero; got a total weight of 0")


def _checked_counts(counts: ScoreCounts, weight) -> ScoreCounts:
    _require_rows(len(counts.values), float(counts.weight.sum()), weight)
    return counts


def _checked_sums(sums: LossSums, weight) -> LossSums:
    _require_rows(sums.n, sums.w, weight)
    return sums


# -- AUC and ROC ---------------------------------------------------------------------------------------
def score_counts(data, label, score, *, weight=None, resolution=None) -> ScoreCounts:
    """The :class:`~offline_eval.mergeable.ScoreCounts` of a whole log.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    label : str
        Column of the 0/1 labels.
    score : str
        Column of the scores.
    weight : str, optional
        Column of the row weights.
    resolution : float > 0, optional
        Round scores to multiples of it (bounded memory; see :class:`~offline_eval.mergeable.ScoreCounts`).
    """
    ddf = read(data, [label, score, weight])
    return reduce_partitions(ddf, functools.partial(_score_chunk, label=label, score=score, weight=weight,
                                                    resolution=resolution))


def _score_chunk(part, *, label, score, weight, resolution):
    return ScoreCounts.from_arrays(_col(part, label), _col(part, score), _col(part, weight), resolution=resolution)


def roc_auc_score(data, label, score, *, weight=None, resolution=None) -> float:
    """:func:`offline_eval.metrics.roc_auc_score` of a whole log (ties count 1/2).

    Parameters
    ----------
    data, label, score, weight, resolution
        As in :func:`score_counts`.
    """
    return _checked_counts(score_counts(data, label, score, weight=weight, resolution=resolution), weight).roc_auc_score()


def roc_curve(data, label, score, *, weight=None, resolution=None):
    """``(fpr, tpr)`` at every distinct score, highest first, starting at (0, 0).

    Parameters
    ----------
    data, label, score, weight, resolution
        As in :func:`score_counts`.
    """
    return _checked_counts(score_counts(data, label, score, weight=weight, resolution=resolution), weight).roc_curve()


# -- losses and calibration --------------------------------------------------------------------------------
def loss_sums(data, label, prob, *, weight=None, **kwargs) -> LossSums:
    """The :class:`~offline_eval.mergeable.LossSums` of a whole log.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    label : str
        Column of the 0/1 labels.
    prob : str
        Column of the predicted probabilities.
    weight : str, optional
        Column of the row weights.
    **kwargs
        ``eps`` of the log loss.
    """
    _check_kwargs(kwargs)
    ddf = read(data, [label, prob, weight])
    return reduce_partitions(ddf, functools.partial(_loss_chunk, label=label, prob=prob, weight=weight, kwargs=kwargs))


def _loss_chunk(part, *, label, prob, weight, kwargs):
    return LossSums.from_arrays(_col(part, label), _col(part, prob), _col(part, weight), **kwargs)


def log_loss(data, label, prob, *, weight=None, **kwargs) -> float:
    """:func:`offline_eval.metrics.log_loss` of a whole log.

    Parameters
    ----------
    data, label, prob, weight, **kwargs
        As in :func:`loss_sums`.
    """
    return _checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).log_loss()


def rig_score(data, label, prob, *, weight=None, **kwargs) -> float:
    """:func:`offline_eval.metrics.rig_score` of a whole log.

    Parameters
    ----------
    data, label, prob, weight, **kwargs
        As in :func:`loss_sums`.
    """
    return _checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).rig_score()


def mean_squared_error(data, label, prob, *, weight=None) -> float:
    """:func:`offline_eval.metrics.mean_squared_error` of a whole log.

    Parameters
    ----------
    data, label, prob, weight
        As in :func:`loss_sums`.
    """
    return _checked_sums(loss_sums(data, label, prob, weight=weight), weight).mean_squared_error()


def calibration_ratio(data, label, prob, *, weight=None) -> float:
    """:func:`offline_eval.metrics.calibration_ratio` of a whole log.

    Parameters
    ----------
    data, label, prob, weight
        As in :func:`loss_sums`.
    """
    return _checked_sums(loss_sums(data, label, prob, weight=weight), weight).calibration_ratio()


def prediction_error(data, label, prob, *, weight=None) -> float:
    """:func:`offline_eval.metrics.prediction_error` of a whole log.

    Parameters
    ----------
    data, label, prob, weight
        As in :func:`loss_sums`.
    """
    return _checked_sums(loss_sums(data, label, prob, weight=weight), weight).prediction_error()


def quantile_breakdown(data, label, prob, *, by=None, n_quantiles=10, weight=None, first_pass=None, **kwargs):
    """:func:`offline_eval.metrics.quantile_breakdown` of a whole log, in two passes.

    Pass one collects the weight per distinct value of the binning score (``by``, default ``prob``),
    which fixes every value's bin exactly as in memory; pass two fills the per-bin sums.  The first
    pass holds one entry per distinct score: bounded for scores stored at a fixed precision.  Pass
    ``first_pass`` (the :func:`score_counts` of the same label, binning score and weight, without
    ``resolution``) to skip it.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    label : str
        Column of the 0/1 labels.
    prob : str
        Column of the predicted probabilities.
    weight : str, optional
        Column of the row weights.
    by : str, optional
        Column of the binning score (default ``prob``).
    n_quantiles : int, default 10
    first_pass : ScoreCounts, optional
        The exact :func:`score_counts` of ``label``, ``by`` and ``weight``, to skip the first pass.
    **kwargs
        ``eps`` of the log loss.
    """
    _check_kwargs(kwargs)
    key = prob if by is None else by
    ddf = read(data, list(dict.fromkeys([label, prob, key, weight])))
    if first_pass is not None and not isinstance(first_pass, ScoreCounts):
        raise InputTypeError(f"`first_pass` must be a ScoreCounts; got {type(first_pass).__name__}")
    if first_pass is not None and first_pass.resolution is not None:
        raise ValueError("`first_pass` must hold the exact scores (no `resolution`)")
    first = first_pass if first_pass is not None else _checked_counts(reduce_partitions(
        ddf, functools.partial(_score_chunk, label=label, score=key, weight=weight, resolution=None)), weight)
    edges = QuantileSums.edges(first, n_quantiles)
    second = reduce_partitions(ddf, functools.partial(_quantile_chunk, edges=edges, q=n_quantiles, label=label,
                                                      prob=prob, by=by, weight=weight, kwargs=kwargs))
    return second.frame()


def _quantile_chunk(part, *, edges, q, label, prob, by, weight, kwargs):
    return QuantileSums.from_arrays(edges, q, _col(part, label), _col(part, prob), _col(part, by),
                                    _col(part, weight), **kwargs)


# -- online adaptive metrics: joint counts ------------------------------------------------------------------
def joint_counts(data, hyp_b, hyp_c, truth=None) -> JointCounts:
    """Item counts per (B, C) or (B, C, G) cell of a whole log (sparse; exact).

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    hyp_b, hyp_c : str
        Columns of the two models' class codes.
    truth : str, optional
        Column of the true class codes.
    """
    ddf = read(data, [hyp_b, hyp_c, truth])
    return reduce_partitions(ddf, functools.partial(_joint_chunk, b=hyp_b, c=hyp_c, g=truth))


def _joint_chunk(part, *, b, c, g):
    return JointCounts.from_arrays(_col(part, b), _col(part, c), _col(part, g))


# -- bidding ----------------------------------------------------------------------------------------------
def utility_sums(data, group, a, v, p, c, *, betas=()) -> UtilitySums:
    """Per group: utility, weighted squared error and EU at each ``beta``, summed over a whole log.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    group, a, v, p, c : str
        Columns of the group, action, value, prediction and competing bid.
    betas : sequence of float, default ()
    """
    ddf = read(data, [group, a, v, p, c])
    return reduce_partitions(ddf, functools.partial(_utility_chunk, cols=(group, a, v, p, c), betas=tuple(betas)))


def _utility_chunk(part, *, cols, betas):
    return UtilitySums.from_arrays(*(_col(part, x) for x in cols), betas=betas)


# -- the clustered bootstrap of a log ------------------------------------------------------------------------
def clustered_bootstrap(data, label, score, score_b=None, *, groups, weight=None,
                        metrics=("roc_auc_score", "log_loss", "rig_score"), n_boot=1000, resolution=1e-3,
                        eps=None, rng=None):
    """:func:`offline_eval.logboot.clustered_bootstrap` of a whole log in one pass (percentile intervals).

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
        Column of the cluster labels (integers or strings): whole clusters are resampled.
    weight : str, optional
        Column of the row weights.
    metrics : sequence of str, default ("roc_auc_score", "log_loss", "rig_score")
        Any of :data:`offline_eval.logboot.METRICS`.
    n_boot : int, default 1000
    resolution : float > 0 or None, default 1e-3
        The AUC is that of the scores rounded to multiples of ``resolution`` (as in :func:`roc_auc_score`);
        the losses use the raw scores.  ``None``: exact scores (one bin per distinct score).
    eps : float, optional
        Clipping of the log loss (default that of :func:`offline_eval.metrics.log_loss`).
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
    equal those of the in-memory ``clustered_bootstrap(..., weights="hashed", rng=rng)`` on the binned scores,
    resample by resample, up to the order of float sums.  Memory per partition task: ``(n_boot + 1) x bins
    x 2`` floats per model (bounded by :data:`offline_eval._logboot_sums.MAX_SUM_CELLS`, checked before
    any work when a probability metric bounds the scores to [0, 1]), the resample weights in blocks of
    :data:`offline_eval.logboot.BLOCK_ELEMENTS`, and 8 bytes per cluster key (to count the clusters).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"click": [1, 0, 1, 0], "p": [0.4, 0.6, 0.7, 0.2], "q": ["q1", "q1", "q2", "q2"]})
    >>> res = clustered_bootstrap(dd.from_pandas(df, npartitions=2), "click", "p", groups="q", n_boot=50, rng=0)
    >>> res.a.roc_auc_score.statistic
    0.75
    """
    from ._bootstrap import check_boot
    from ._logboot_sums import check_cells
    from ._validation import check_choice, check_real, check_rng
    from .logboot import METRICS, assemble, draw_seed
    from .metrics import LOG_LOSS_EPS

    import numpy as np

    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not metrics:
        raise ValueError(f"`metrics` must name at least one of {list(METRICS)}; got none")
    for m in metrics:
        check_choice(m, "metrics", METRICS)
    metrics = tuple(dict.fromkeys(metrics))
    check_boot(n_boot, 0.5)
    n_boot = int(n_boot)
    eps = LOG_LOSS_EPS if eps is None else check_real(eps, "eps", low=0, high=0.5, closed="left")
    if groups is None:
        raise ValueError("`groups` must name the column of the clusters")
    if resolution is not None:
        resolution = check_real(resolution, "resolution", low=0, closed="right")
        if "roc_auc_score" in metrics and any(m != "roc_auc_score" for m in metrics):
            check_cells(n_boot, np.floor(1.0 / resolution) + 2, 1 if score_b is None else 2, "resolution", resolution)
    ddf = read(data, list(dict.fromkeys([label, score, score_b, groups, weight])))
    seed = draw_seed(check_rng(rng))
    sums = reduce_partitions(ddf, functools.partial(
        _boot_chunk, label=label, scores=(score,) if score_b is None else (score, score_b), groups=groups,
        weight=weight, seed=seed, n_boot=n_boot, metrics=metrics, resolution=resolution, eps=eps))
    _require_rows(sums.n, float(sums.models[0].sums[0, 0]), weight)
    vals = [m.values(metrics) for m in sums.models]
    stat = [{m: float(v[m][0]) for m in metrics} for v in vals]
    reps = [{m: v[m][1:] for m in metrics} for v in vals]
    return assemble(stat, reps, None, metrics, n_boot, len(sums.keys))


def _boot_chunk(part, *, label, scores, groups, weight, seed, n_boot, metrics, resolution, eps):
    from ._logboot_sums import BootSums

    return BootSums.from_arrays(_col(part, label), [_col(part, s) for s in scores], _col(part, groups),
                                _col(part, weight), seed=seed, n_boot=n_boot, metrics=metrics,
                                resolution=resolution, eps=eps, names=(label, scores, groups))
