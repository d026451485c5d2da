"""The metrics on Dask: logs bigger than memory, the same results as in memory.

Every function takes a ``dask.dataframe.DataFrame`` (or a Parquet path: a file, a directory or a glob,
read by pyarrow with only the columns it needs, in tasks of at most :data:`ROWS_PER_TASK` rows) and
column names, fills one accumulator of :mod:`offline_eval.mergeable` per task, merges them in a binary
tree of ``dask.delayed`` tasks, and returns what the in-memory function returns.  Nothing but the
accumulators leaves a worker.  The work runs on Dask's default scheduler (threads), or on a
``distributed`` client when one is active (``with Client(...):``).  ``progress=True`` (or a callable taking each
line) reports a call's tasks as they finish, on stderr, a line a tenth of them (``ondask.summarize: 8/16 tasks, 1.1 s,
~1.1 s left``; on a local scheduler: a ``distributed`` client's dashboard shows its own).

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
BootstrapResult(roc_auc_score, b - a: statistic=-0.02276, standard_error=0.008763, pvalue<0.010, 95% percentile CI [-0.03961, -0.00819], 200 resamples of 400 clusters)

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

import numpy as np

from ._validation import InputTypeError
from .mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums
from ._losses import LOG_LOSS_EPS
from ._ondask_io import (Pieces, check_loss_kwargs, checked_counts, checked_sums, log_source, read, reduce_partitions,
                         require_rows, tree_reduce, values_of)
from ._ondask_cells import FAMILIES, reduce_summary, sample_first
from ._ondask_auc import auc_counts, continuous_cuts
from ._mergeable_losses import unweighted_loss_sums
from .metrics import roc_auc_score_from_counts, roc_curve_from_counts
# the bounds named in the docstrings, importable from here as before (the engines read them)
from ._ondask_cells import MAX_RANGES, SAMPLE_ROWS  # noqa: F401
from ._ondask_io import ROWS_PER_TASK  # noqa: F401
from ._ondask_summary import Summary, summarize
from ._progress import reports_progress

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
@reports_progress("ondask")
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
@reports_progress("ondask")
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


@_as_in("score_counts", ":func:`offline_eval.metrics.roc_curve` of a whole log: ``(fpr, tpr, thresholds)`` at "
                        "every distinct score of positive weight, highest first, starting at (0, 0) and ``inf`` (a "
                        "score whose rows all weigh 0 adds no point, as in memory and in scikit-learn); with "
                        "``resolution`` the thresholds are the rounded scores.")
@reports_progress("ondask")
def roc_curve(data, label, score, *, weight=None, resolution=None):
    counts = checked_counts(score_counts(data, label, score, weight=weight, resolution=resolution), weight)
    keep = (counts.pos > 0) | (counts.neg > 0)
    fpr, tpr = roc_curve_from_counts(counts.pos[keep][::-1], counts.neg[keep][::-1])
    return fpr, tpr, np.r_[np.inf, np.asarray(counts.values, dtype=np.float64)[keep][::-1]]


# -- losses and calibration --------------------------------------------------------------------------------
@reports_progress("ondask")
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
    if weight is None:  # no weights: the sums per class (_mergeable_losses.unweighted_loss_sums)
        return unweighted_loss_sums(values_of(part, label), values_of(part, prob), (label, prob), kwargs.get("eps", LOG_LOSS_EPS))
    return LossSums.from_arrays(values_of(part, label), values_of(part, prob), values_of(part, weight), **kwargs)


@_as_in("loss_sums")
@reports_progress("ondask")
def log_loss(data, label, prob, *, weight=None, **kwargs) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).log_loss()


@_as_in("loss_sums")
@reports_progress("ondask")
def rig_score(data, label, prob, *, weight=None, **kwargs) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight, **kwargs), weight).rig_score()


@_as_in("loss_sums")
@reports_progress("ondask")
def mean_squared_error(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).mean_squared_error()


@_as_in("loss_sums")
@reports_progress("ondask")
def calibration_ratio(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).calibration_ratio()


@_as_in("loss_sums")
@reports_progress("ondask")
def prediction_error(data, label, prob, *, weight=None) -> float:
    return checked_sums(loss_sums(data, label, prob, weight=weight), weight).prediction_error()


@reports_progress("ondask")
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
@reports_progress("ondask")
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
@reports_progress("ondask")
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


# -- the clustered bootstrap of a log: in _ondask_boot ---------------------------------------------------------
from ._ondask_boot import MAX_EXACT_ROWS, clustered_bootstrap  # noqa: E402,F401
