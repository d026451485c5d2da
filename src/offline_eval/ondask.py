"""The metrics on Dask: logs bigger than memory, the same results as in memory.

Every function takes a ``dask.dataframe.DataFrame`` (or a Parquet path: a file, a directory or a glob,
read by pyarrow with only the columns it needs, in tasks of at most :data:`ROWS_PER_TASK` rows) and
column names, fills one accumulator of :mod:`offline_eval.mergeable` per task, merges them in a binary
tree of ``dask.delayed`` tasks, and returns what the in-memory function returns.  Nothing but the
accumulators leaves a worker.  The work runs on Dask's default scheduler (threads), or on a
``distributed`` client when one is active (``with Client(...):``).

:func:`summarize` computes every requested family (AUC/ROC, the losses and RIG, calibration by quantile,
joint counts, utility sums) from one read of the data; the per-family functions read it once each
(:func:`quantile_breakdown` twice).

>>> import pandas as pd, dask.dataframe as dd
>>> df = pd.DataFrame({"click": [0, 1, 1, 0], "p": [0.1, 0.4, 0.35, 0.8]})
>>> round(roc_auc_score(dd.from_pandas(df, npartitions=2), "click", "p"), 6)
0.5

A worked example: a Parquet log of two models' predictions, both models' AUC, losses and calibration by
quartile from one read, then the clustered bootstrap of their difference (queries resampled whole):

>>> import tempfile, numpy as np
>>> rng = np.random.default_rng(0)
>>> n = 3000
>>> q = rng.integers(0, 400, n)
>>> p = rng.beta(2, 20, n)
>>> log = pd.DataFrame({"click": (rng.random(n) < p).astype(np.int8), "p_a": p,
...                     "p_b": np.clip(p * rng.lognormal(0.0, 0.3, n), 0, 1), "query": q})
>>> path = tempfile.mkdtemp()
>>> log.to_parquet(f"{path}/part-0.parquet")
>>> s = summarize(path, "click", ["p_a", "p_b"], n_quantiles=4)
>>> s
Summary(3,000 rows; families auc, losses, quantiles; scores p_a, p_b; AUC 0.6984, 0.6757; exact)
>>> s.quantile_breakdown("p_a")["calibration_ratio"].round(3).tolist()
[2.018, 0.821, 1.091, 1.049]
>>> res = clustered_bootstrap(path, "click", "p_a", "p_b", groups="query", n_boot=200, rng=0)
>>> res.difference.roc_auc_score
BootstrapResult(roc_auc_score, b - a: statistic=-0.02276, standard_error=0.008763, pvalue=0.010, 95% percentile CI [-0.03961, -0.00819], 200 resamples of 400 clusters)

The same calls run on a cluster: create a ``distributed`` client first, and every task runs on its workers
(only the accumulators travel back)::

    from dask.distributed import Client
    with Client("tcp://scheduler:8786"):  # or Client(LocalCluster(n_workers=4, threads_per_worker=1))
        s = summarize("/shared/logs/", "click", ["p_a", "p_b"])

Precision: counts are exact; sums agree with the in-memory functions to about 1e-12 relative (their
order of addition differs).  Exact is the default, on continuous float64 scores too: the AUC, ROC and
calibration breakdown hold one cell per distinct score.  Scores stored at a fixed precision give few
cells, filled per task and merged in a tree; continuous scores (almost every score distinct) are split by
score range instead, each range sorted by one task (about the cost of one sort of the scores, spread over
the workers; see :func:`summarize`'s notes).  Without weights, the AUC of continuous scores is then counted
in integers per range with no cell at all (the in-memory function's bits), and :func:`summarize` gives every
score family from each range's sorted scores of each class.  ``resolution`` is an opt-in
approximation: scores rounded to its multiples, the AUC within
:meth:`~offline_eval.mergeable.ScoreCounts.auc_error_bound`.
"""

from __future__ import annotations

import functools
import inspect

from ._validation import InputTypeError
from .mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums
from .metrics import LOG_LOSS_EPS
from ._ondask_io import (Pieces, check_loss_kwargs, checked_counts, checked_sums, log_source, read, reduce_partitions,
                         require_rows, tree_reduce, values_of)
from ._ondask_cells import FAMILIES, reduce_summary, sample_first
from ._ondask_auc import auc_counts, continuous_cuts, unweighted_loss_sums
from .metrics import roc_auc_score_from_counts
# the bounds named in the docstrings, importable from here as before (the engines read them)
from ._ondask_cells import MAX_RANGES, SAMPLE_ROWS  # noqa: F401
from ._ondask_io import ROWS_PER_TASK  # noqa: F401
from ._ondask_summary import Summary, summarize
from ._public import publish

__all__ = [
    "FAMILIES",
    "Summary",
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
    "summarize",
    "utility_sums",
]

publish(globals(), "offline_eval._ondask_io", "offline_eval._ondask_summary")


def _as_in(source: str, summary: str | None = None):
    """Give a metric of a whole log its docstring: ``summary`` (by default the in-memory function of the same name
    "of a whole log"), then its parameters, each as in ``source``, the function that reads the log for it."""

    def decorate(fn):
        params = [f"**{p.name}" if p.kind == p.VAR_KEYWORD else p.name
                  for p in inspect.signature(fn).parameters.values()]
        head = summary or f":func:`offline_eval.metrics.{fn.__name__}` of a whole log."
        fn.__doc__ = f"{head}\n\nParameters\n----------\n{', '.join(params)}\n    As in :func:`{source}`.\n"
        return fn

    return decorate


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
    source = log_source(data, [label, score, weight])
    if resolution is None and isinstance(score, str):
        # continuous scores: one sort per score range rather than a tree of merges (see reduce_summary)
        spec = dict(label=label, scores=(score,), weight=weight, families=("auc",), resolution=None,
                    eps=LOG_LOSS_EPS, exact=False, joint=None, utility=None, betas=())
        return reduce_summary(source, spec).counts[score]
    return tree_reduce(source, functools.partial(_score_chunk, label=label, score=score, weight=weight,
                                                 resolution=resolution))


def _score_chunk(part, *, label, score, weight, resolution):
    return ScoreCounts.from_arrays(values_of(part, label), values_of(part, score), values_of(part, weight), resolution=resolution)


@_as_in("score_counts", ':func:`offline_eval.metrics.roc_auc_score` of a whole log (ties count 1/2).')
def roc_auc_score(data, label, score, *, weight=None, resolution=None) -> float:
    if weight is None and resolution is None and isinstance(score, str) and isinstance(label, str):
        # continuous unweighted scores: the pairs counted per score range, no cells (_ondask_auc)
        source = log_source(data, [label, score])
        n_tasks = len(source.tasks) if isinstance(source, Pieces) else source.npartitions
        cuts = continuous_cuts(source, score, int(min(MAX_RANGES, max(2, n_tasks))))
        if cuts is not None:
            n_pos, n_neg, twice = auc_counts(source, label, score, cuts)
            require_rows(n_pos + n_neg, float(n_pos + n_neg), weight)
            if n_pos == 0 or n_neg == 0:
                return roc_auc_score_from_counts([n_pos], [n_neg])  # nan, with the in-memory warning
            return float(twice / (2.0 * n_pos * n_neg))  # the in-memory expression: the same bits
    return checked_counts(score_counts(data, label, score, weight=weight, resolution=resolution), weight).roc_auc_score()


@_as_in("score_counts", "``(fpr, tpr)`` at every distinct score, highest first, starting at (0, 0).")
def roc_curve(data, label, score, *, weight=None, resolution=None):
    return checked_counts(score_counts(data, label, score, weight=weight, resolution=resolution), weight).roc_curve()


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
    check_loss_kwargs(kwargs)
    return tree_reduce(log_source(data, [label, prob, weight]), functools.partial(_loss_chunk, label=label, prob=prob, weight=weight, kwargs=kwargs))


def _loss_chunk(part, *, label, prob, weight, kwargs):
    if weight is None:  # no weights: the sums per class (_ondask_auc.unweighted_loss_sums)
        return unweighted_loss_sums(values_of(part, label), values_of(part, prob), (label, prob), kwargs.get("eps", LOG_LOSS_EPS))
    return LossSums.from_arrays(values_of(part, label), values_of(part, prob), values_of(part, weight), **kwargs)


@_as_in("loss_sums")
def log_loss(data, label, prob, *, weight=None, **kwargs) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).log_loss()


@_as_in("loss_sums")
def rig_score(data, label, prob, *, weight=None, **kwargs) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).rig_score()


@_as_in("loss_sums")
def mean_squared_error(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).mean_squared_error()


@_as_in("loss_sums")
def calibration_ratio(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).calibration_ratio()


@_as_in("loss_sums")
def prediction_error(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).prediction_error()


def quantile_breakdown(data, label, prob, *, by=None, n_quantiles=10, weight=None, first_pass=None, **kwargs):
    """:func:`offline_eval.metrics.quantile_breakdown` of a whole log, in two passes.

    Pass one collects the weight per distinct value of the binning score (``by``, default ``prob``),
    which fixes every value's bin exactly as in memory; pass two fills the per-bin sums.  Binned by ``prob``
    itself without weights (and no ``first_pass``), it is :func:`summarize`'s one pass instead.  The first
    pass holds one entry per distinct score: bounded for scores stored at a fixed precision.  Pass
    ``first_pass`` (the :func:`score_counts` of the same label, binning score and weight, without
    ``resolution``) to skip it.

    Parameters
    ----------
    data, label, prob, weight, **kwargs
        As in :func:`loss_sums`.
    by : str, optional
        Column of the binning score (default ``prob``).
    n_quantiles : int, default 10
    first_pass : ScoreCounts, optional
        The exact :func:`score_counts` of ``label``, ``by`` and ``weight``, to skip the first pass.
    """
    check_loss_kwargs(kwargs)
    if by is None and weight is None and first_pass is None and isinstance(prob, str):
        # binned by the score itself, no weights: summarize's one pass (from sorted scores when continuous)
        return summarize(data, label, prob, families=("quantiles",), n_quantiles=n_quantiles,
                         **({"eps": kwargs["eps"]} if "eps" in kwargs else {})).quantile_breakdown()
    key = prob if by is None else by
    ddf = log_source(data, [label, prob, key, weight])
    if first_pass is not None and not isinstance(first_pass, ScoreCounts):
        raise InputTypeError(f"`first_pass` must be a ScoreCounts; got {type(first_pass).__name__}")
    if first_pass is not None and first_pass.resolution is not None:
        raise ValueError("`first_pass` must hold the exact scores (no `resolution`)")
    first = first_pass if first_pass is not None else checked_counts(tree_reduce(
        ddf, functools.partial(_score_chunk, label=label, score=key, weight=weight, resolution=None)), weight)
    edges = QuantileSums.edges(first, n_quantiles)
    second = tree_reduce(ddf, functools.partial(_quantile_chunk, edges=edges, q=n_quantiles, label=label,
                                                      prob=prob, by=by, weight=weight, kwargs=kwargs))
    return second.frame()


def _quantile_chunk(part, *, edges, q, label, prob, by, weight, kwargs):
    return QuantileSums.from_arrays(edges, q, values_of(part, label), values_of(part, prob), values_of(part, by),
                                    values_of(part, weight), **kwargs)


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
    return tree_reduce(log_source(data, [hyp_b, hyp_c, truth]), functools.partial(_joint_chunk, b=hyp_b, c=hyp_c, g=truth))


def _joint_chunk(part, *, b, c, g):
    return JointCounts.from_arrays(values_of(part, b), values_of(part, c), values_of(part, g))


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
    return tree_reduce(log_source(data, [group, a, v, p, c]), functools.partial(_utility_chunk, cols=(group, a, v, p, c), betas=tuple(betas)))


def _utility_chunk(part, *, cols, betas):
    return UtilitySums.from_arrays(*(values_of(part, x) for x in cols), betas=betas)


# -- the clustered bootstrap of a log ------------------------------------------------------------------------
def clustered_bootstrap(data, label, score, score_b=None, *, groups, weight=None,
                        metrics=("roc_auc_score", "log_loss", "rig_score"), n_boot=1000, resolution=None,
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
        Column of the cluster labels (integers or strings): whole clusters are resampled.  The convention
        of the in-memory function with ``data=frame`` (``groups="query_id"``).
    weight : str, optional
        Column of the row weights.
    metrics : sequence of str, default ("roc_auc_score", "log_loss", "rig_score")
        Any of :data:`offline_eval.logboot.METRICS`.
    n_boot : int, default 1000
    resolution : float > 0, optional
        ``None`` (the default): the AUC of the exact scores, one bin per distinct score of a task.  Each bin
        holds ``n_boot + 1`` sums per class, so continuous scores (about one bin per row) exceed the bound
        :data:`offline_eval._logboot_sums.MAX_SUM_CELLS` at log scale: the call is then refused before the
        pass (from the first row group's distinct scores) or by the first task over the bound, with the
        bound named.  A float: an opt-in approximation, the AUC of the scores rounded to its multiples (as
        :func:`roc_auc_score`; the statistic's AUC is then within the bound
        :meth:`offline_eval._logboot_sums.ModelSums.auc_error_bound` of the exact one); the losses always
        use the raw scores.
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
    from ._validation import check_real, check_rng
    from .logboot import assemble, check_metrics, draw_seed
    from .metrics import LOG_LOSS_EPS

    import numpy as np

    metrics = check_metrics(metrics)
    check_boot(n_boot, 0.5)
    n_boot = int(n_boot)
    eps = LOG_LOSS_EPS if eps is None else check_real(eps, "eps", low=0, high=0.5, closed="left")
    if groups is None:
        raise ValueError("`groups` must name the column of the clusters")
    if resolution is not None:
        resolution = check_real(resolution, "resolution", low=0, closed="right")
        if "roc_auc_score" in metrics and any(m != "roc_auc_score" for m in metrics):
            check_cells(n_boot, np.floor(1.0 / resolution) + 2, 1 if score_b is None else 2, "resolution", resolution)
    if not isinstance(groups, str):
        raise InputTypeError(f"`groups` must name the column of the clusters (a string); got {type(groups).__name__}")
    from .logboot import check_resampled_rows

    scores = (score,) if score_b is None else (score, score_b)
    source = log_source(data, [label, *scores, groups, weight])  # every file's columns checked: a named error
    if isinstance(source, Pieces):
        check_resampled_rows(n_boot, source.rows, len(scores))
    if resolution is None and "roc_auc_score" in metrics:
        first = {s: np.asarray(x) for s, x in sample_first(source, scores).items()}  # a task holds at least these
        distinct = [len(np.unique(x)) for x in first.values() if x.dtype.kind in "biuf"]  # else: the task's named error
        if distinct:
            check_cells(n_boot, max(distinct), len(scores), "resolution", resolution)
    seed = draw_seed(check_rng(rng))
    sums = tree_reduce(source, functools.partial(
        _boot_chunk, label=label, scores=scores, groups=groups,
        weight=weight, seed=seed, n_boot=n_boot, metrics=metrics, resolution=resolution, eps=eps))
    require_rows(sums.n, float(sums.models[0].sums[0, 0]), weight)
    vals = [m.values(metrics) for m in sums.models]
    stat = [{m: float(v[m][0]) for m in metrics} for v in vals]
    reps = [{m: v[m][1:] for m in metrics} for v in vals]
    return assemble(stat, reps, None, metrics, n_boot, len(sums.keys))


def _boot_chunk(part, *, label, scores, groups, weight, seed, n_boot, metrics, resolution, eps):
    from ._logboot_sums import BootSums

    return BootSums.from_arrays(values_of(part, label), [values_of(part, s) for s in scores], values_of(part, groups),
                                values_of(part, weight), seed=seed, n_boot=n_boot, metrics=metrics,
                                resolution=resolution, eps=eps, names=(label, scores, groups))
