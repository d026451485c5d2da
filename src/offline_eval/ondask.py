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
score range instead, each range sorted into its cells by one task (about the cost of one sort of the
scores, spread over the workers; see :func:`summarize`'s notes).  ``resolution`` is an opt-in
approximation: scores rounded to its multiples, the AUC within
:meth:`~offline_eval.mergeable.ScoreCounts.auc_error_bound`.
"""

from __future__ import annotations

import functools
import glob
import os
from dataclasses import dataclass, field

import numpy as np

from ._losses import pointwise_log_loss
from ._validation import InputTypeError, as_1d, check_choice, check_finite, check_int, check_real
from ._chunks import chunk_arrays, grid_cells, merge_sorted, score_cells, sorted_unit_cells, weight_scale
from .mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums
from .metrics import LOG_LOSS_EPS

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


#: Rows read per task from a Parquet file at most (whole row groups; a row group bigger than this is one task).
ROWS_PER_TASK = 2_500_000


@dataclass(frozen=True)
class _Pieces:
    """Parquet row groups to read with pyarrow, one task per entry of ``tasks``: ``(file, row groups)``."""

    tasks: list
    columns: list
    rows: int = 0  #: rows of every file, from the Parquet footers


def _local_files(data):
    """The Parquet files of a local path, directory or glob (sorted), or ``None`` for anything else."""
    if not (isinstance(data, str) or hasattr(data, "__fspath__")):
        return None
    path = os.fspath(data)
    if "://" in path:
        return None
    if any(ch in path for ch in "*?["):
        files = sorted(glob.glob(path))
    elif os.path.isdir(path):
        import pyarrow.dataset as pads

        files = sorted(pads.dataset(path, format="parquet").files)
    elif os.path.isfile(path):
        files = [path]
    else:
        return None
    return files or None


def _source(data, columns):
    """What the tasks read: :class:`_Pieces` of local Parquet files, or the Dask DataFrame of :func:`read`.

    Local Parquet files are read by pyarrow directly (only ``columns``; the row groups of a file in tasks
    of at most :data:`ROWS_PER_TASK` rows), without a Dask DataFrame's per-partition pandas frames.
    """
    columns = [c for c in dict.fromkeys(columns) if c is not None]
    files = _local_files(data) if all(isinstance(c, str) for c in columns) else None
    if files is None:
        return read(data, columns)
    import pyarrow.parquet as pq

    tasks, total = [], 0
    for f in files:
        meta = pq.ParquetFile(f).metadata
        total += meta.num_rows
        names = meta.schema.names
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"`data` has no column(s) {missing}; it has {list(names)}")
        group, rows = [], 0
        for i in range(meta.num_row_groups):
            n = meta.row_group(i).num_rows
            if group and rows + n > ROWS_PER_TASK:
                tasks.append((f, tuple(group)))
                group, rows = [], 0
            group.append(i)
            rows += n
        tasks.append((f, tuple(group)))
    return _Pieces(tasks, columns, total)


def _read_piece(task, columns):
    """One task's columns as NumPy arrays (a dict)."""
    import pyarrow.parquet as pq

    f, groups = task
    table = pq.ParquetFile(f).read_row_groups(list(groups), columns=columns, use_threads=False) if groups else None
    if table is None:  # a file without row groups: an empty partition
        table = pq.read_table(f, columns=columns)
    return {c: table.column(c).to_numpy() for c in columns}


def _read_and_fill(task, columns, chunk):
    return chunk(_read_piece(task, columns))


def _reduce(source, chunk, merge=lambda a, b: a.merge(b)):
    """``chunk`` on every task of ``source``, merged in a binary tree, computed."""
    import dask

    if isinstance(source, _Pieces):
        level = [dask.delayed(_read_and_fill)(t, source.columns, chunk) for t in source.tasks]
    else:
        level = [dask.delayed(chunk)(part) for part in source.to_delayed()]
    if not level:
        raise ValueError("`data` has no partition")
    if len(level) == 1 and dask.config.get("scheduler", None) is None:
        return level[0].compute(scheduler="sync")  # one task: no thread pool to start
    while len(level) > 1:
        nxt = [dask.delayed(merge)(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0].compute()


def reduce_partitions(ddf, chunk, merge=lambda a, b: a.merge(b)):
    """``chunk(partition)`` on every partition, then a binary tree of ``merge``; computed.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    chunk : callable
        ``chunk(partition) -> accumulator``.
    merge : callable, default ``a.merge(b)``
    """
    if not callable(chunk) or not callable(merge):
        raise InputTypeError(f"`chunk` and `merge` must be callables; got {type(chunk).__name__} and {type(merge).__name__}")
    return _reduce(ddf, chunk, merge)


def _col(part, name):
    if name is None:
        return None
    x = part[name]
    return x if isinstance(x, np.ndarray) else x.to_numpy()


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
    source = _source(data, [label, score, weight])
    if resolution is None and isinstance(score, str):
        # continuous scores: one sort per score range rather than a tree of merges (see _reduce_summary)
        spec = dict(label=label, scores=(score,), weight=weight, families=("auc",), resolution=None,
                    eps=LOG_LOSS_EPS, exact=False, joint=None, utility=None, betas=())
        return _reduce_summary(source, spec).counts[score]
    return _reduce(source, functools.partial(_score_chunk, label=label, score=score, weight=weight,
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
    return _reduce(_source(data, [label, prob, weight]), functools.partial(_loss_chunk, label=label, prob=prob, weight=weight, kwargs=kwargs))


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
    ddf = _source(data, [label, prob, key, weight])
    if first_pass is not None and not isinstance(first_pass, ScoreCounts):
        raise InputTypeError(f"`first_pass` must be a ScoreCounts; got {type(first_pass).__name__}")
    if first_pass is not None and first_pass.resolution is not None:
        raise ValueError("`first_pass` must hold the exact scores (no `resolution`)")
    first = first_pass if first_pass is not None else _checked_counts(_reduce(
        ddf, functools.partial(_score_chunk, label=label, score=key, weight=weight, resolution=None)), weight)
    edges = QuantileSums.edges(first, n_quantiles)
    second = _reduce(ddf, functools.partial(_quantile_chunk, edges=edges, q=n_quantiles, label=label,
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
    return _reduce(_source(data, [hyp_b, hyp_c, truth]), functools.partial(_joint_chunk, b=hyp_b, c=hyp_c, g=truth))


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
    return _reduce(_source(data, [group, a, v, p, c]), functools.partial(_utility_chunk, cols=(group, a, v, p, c), betas=tuple(betas)))


def _utility_chunk(part, *, cols, betas):
    return UtilitySums.from_arrays(*(_col(part, x) for x in cols), betas=betas)


# -- every family in one pass --------------------------------------------------------------------------------
#: The metric families :func:`summarize` computes.
FAMILIES = ("auc", "losses", "quantiles", "joint", "utility")
_SCORE_FAMILIES = ("auc", "losses", "quantiles")
_UTILITY_KEYS = ("group", "a", "v", "p", "c")


@dataclass(frozen=True)
class _Cells:
    """Per distinct score: the :class:`ScoreCounts` sums and the rows (all, and of positive weight with and
    without a click).  Merged exactly as :meth:`ScoreCounts.merge` merges (the same sums bit for bit).
    Without weights (``rows`` is ``None``) the rows are the sums themselves: ``pos`` clicks, ``neg`` others."""

    values: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    scale: int
    rows: np.ndarray | None = None
    n_pos: np.ndarray | None = None
    n_neg: np.ndarray | None = None
    #: with ``resolution``: per cell of rounded scores, the :meth:`terms` of its rows' own (unrounded) scores
    raw: dict | None = None

    def row_counts(self):
        """``(rows, n_pos, n_neg)`` per value."""
        if self.rows is None:
            return self.pos + self.neg, self.pos, self.neg
        return self.rows, self.n_pos, self.n_neg

    def merge(self, other):
        scale = max(self.scale, other.scale)

        def at(x, own):
            return np.ldexp(x, own - scale) if own != scale else x

        pairs = [(at(self.pos, self.scale), at(other.pos, other.scale)),
                 (at(self.neg, self.scale), at(other.neg, other.scale))]
        if self.raw is not None:
            names = list(self.raw)
            shift = {"n", "n_pos", "n_neg"}
            values, merged = merge_sorted(self.values, other.values, *pairs, *zip(self.row_counts(), other.row_counts()),
                                          *((self.raw[k], other.raw[k]) if k in shift else
                                            (at(self.raw[k], self.scale), at(other.raw[k], other.scale)) for k in names))
            return _Cells(values, *merged[:2], scale, *merged[2:5], dict(zip(names, merged[5:])))
        if self.rows is None and other.rows is None:
            values, (pos, neg) = merge_sorted(self.values, other.values, *pairs)
            return _Cells(values, pos, neg, scale)
        values, merged = merge_sorted(self.values, other.values, *pairs, *zip(self.row_counts(), other.row_counts()))
        return _Cells(values, *merged[:2], scale, *merged[2:])

    def counts(self, resolution=None) -> ScoreCounts:
        return ScoreCounts(self.values, self.pos, self.neg, resolution, self.scale)

    def terms(self, eps) -> dict:
        """Per cell, the summands of :class:`LossSums`: a cell's rows share one score ``v``, so
        ``sum w loss = pos * loss(1, v) + neg * loss(0, v)`` (likewise the squared and absolute errors).
        Cells of rounded scores carry their rows' own sums (``raw``)."""
        if self.raw is not None:
            return self.raw
        v, pos, neg = self.values, self.pos, self.neg
        rows, n_pos, n_neg = self.row_counts()
        p = np.clip(v, eps, 1.0 - eps) if eps > 0 else v
        # each log only where its class has weight: a cell of continuous scores holds one row, one class
        with np.errstate(divide="ignore"):
            l1 = np.log(p, where=pos > 0, out=np.zeros_like(p))
            l0 = np.log1p(-p, where=neg > 0, out=np.zeros_like(p))
        w = pos + neg
        q = 1.0 - v
        return dict(n=rows, w=w, wy=pos, wp=w * v, wloss=-(pos * l1 + neg * l0), wsq=pos * q * q + neg * v * v,
                    wabs=pos * q + neg * v, n_pos=n_pos, n_neg=n_neg)

    def loss_sums(self, eps, keep=None, terms=None) -> LossSums:
        """The :class:`LossSums` of the rows (of the cells in ``keep``, a slice), from :meth:`terms`."""
        if not self.values[keep or slice(None)].size:
            return LossSums(eps=eps, scale=self.scale)
        t = self.terms(eps) if terms is None else terms
        sl = keep or slice(None)
        tot = {k: float(x[sl].sum()) for k, x in t.items()}
        n_pos, n_neg = tot.pop("n_pos"), tot.pop("n_neg")
        return LossSums(**tot, eps=eps, scale=self.scale, n_pos=n_pos, n_neg=n_neg)


@dataclass(frozen=True)
class _Part:
    """What one task of :func:`summarize` returns, and the merge of two."""

    rows: int
    cells: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    joint: JointCounts | None = None
    utility: UtilitySums | None = None
    pieces: dict = field(default_factory=dict)  #: per shuffled score, its rows split by score range (not merged)

    def merge(self, other):
        def both(a, b):
            return {k: a[k].merge(b[k]) for k in a}

        return _Part(self.rows + other.rows, both(self.cells, other.cells), both(self.counts, other.counts),
                     both(self.sums, other.sums), None if self.joint is None else self.joint.merge(other.joint),
                     None if self.utility is None else self.utility.merge(other.utility))


def _rounded_cells(y, s, w, resolution, eps, name):
    """The cells of the scores rounded to multiples of ``resolution`` (as :class:`ScoreCounts` rounds them),
    each with the sums of its rows' own scores (``raw``): the quantile table of :func:`summarize` with
    ``resolution``."""
    if ((s < 0) | (s > 1)).any():
        raise ValueError(f"`score` column {name!r} must lie in [0, 1] for the losses and quantiles; got min "
                         f"{s.min():.6g}, max {s.max():.6g}")
    with np.errstate(over="ignore"):
        ratio = s / resolution
    r = np.round(ratio) * resolution
    values, inv = np.unique(r, return_inverse=True)
    m = len(values)
    scale = weight_scale(w)
    w = np.ldexp(w, -scale) if scale else w
    live = w > 0
    d = y - s

    def tot(x):
        return np.bincount(inv, weights=x, minlength=m)

    pos, neg = tot(w * y), tot(w * (1.0 - y))
    rows, n_pos, n_neg = tot(np.ones(y.size)), tot(live & (y == 1)), tot(live & (y == 0))
    raw = dict(n=rows, w=tot(w), wy=pos, wp=tot(w * s), wloss=tot(w * pointwise_log_loss(y, s, eps)),
               wsq=tot(w * d * d), wabs=tot(w * np.abs(d)), n_pos=n_pos, n_neg=n_neg)
    return _Cells(values, pos, neg, scale, rows, n_pos, n_neg, raw)


def _summary_chunk(part, *, spec, splits=None):
    out = {}
    splits = splits or {}
    label, scores, weight, families = spec["label"], spec["scores"], spec["weight"], spec["families"]
    rows = 0
    if scores:
        y_raw, w_raw = _col(part, label), _col(part, weight)
        for i, name in enumerate(scores):
            s_raw = _col(part, name)
            if i == 0:
                y, s, w = chunk_arrays(y_raw, s_raw, w_raw, names=(label, name))
                rows = y.size
            else:
                s = check_finite(as_1d(s_raw, name, allow_empty=True), name)
                if s.size != rows:
                    raise ValueError(f"`{name}` has {s.size} rows; `{label}` has {rows}")
            if splits.get(name) is not None:  # the cells are filled per score range (_reduce_summary)
                out.setdefault("pieces", {})[name] = _split_by_score(s, y, None if weight is None else w, splits[name])
            elif spec["exact"]:
                unit = weight is None
                values, pos, neg, scale, extra = score_cells(y, s, w, None, rows=not unit, unit=unit)
                out.setdefault("cells", {})[name] = _Cells(values, pos, neg, scale, *(extra or ()))
            elif "auc" in families:
                values, pos, neg, scale, _ = score_cells(y, s, w, spec["resolution"], unit=weight is None)
                out.setdefault("counts", {})[name] = ScoreCounts(values, pos, neg, spec["resolution"], scale)
            if not spec["exact"]:
                if "losses" in families:  # summed per row: no cell needed (the exact cells serve the quantiles)
                    out.setdefault("sums", {})[name] = LossSums.from_arrays(y, s, w, eps=spec["eps"])
                if "quantiles" in families:
                    out.setdefault("cells", {})[name] = _rounded_cells(y, s, w, spec["resolution"], spec["eps"], name)
    if "joint" in families:
        out["joint"] = JointCounts.from_arrays(*(_col(part, c) for c in spec["joint"]))
        rows = rows if scores else int(out["joint"].counts.sum())
    if "utility" in families:
        u = spec["utility"]
        out["utility"] = UtilitySums.from_arrays(*(_col(part, u[k]) for k in _UTILITY_KEYS), betas=spec["betas"])
        rows = rows if scores or "joint" in families else int(out["utility"].n.sum())
    return _Part(rows, **out)


# -- continuous scores: the cells of a range of scores in one task (a sort, not a tree of merges) -------------
#: Most score ranges (reduce tasks) of the exact cells of continuous scores.
MAX_RANGES = 32  # at most 256: a range is a uint8
#: Rows of the first task that choose the score ranges at most.
SAMPLE_ROWS = 1 << 16


#: Bits of a score's order-preserving key that pick its range (sign, exponent, 8 bits of mantissa).
_PREFIX_BITS = 20


def _prefix(s):
    """The top :data:`_PREFIX_BITS` bits of each score's order-preserving 64-bit key (``+0.0`` for ``-0.0``):
    ``a < b`` gives ``prefix(a) <= prefix(b)``, and equal scores share a prefix."""
    b = (s + 0.0).view(np.uint64)
    if s.size and s.min() < 0:  # negative floats: every bit flipped (larger magnitude, smaller key)
        b = np.where(b >> np.uint64(63), ~b, b | np.uint64(1 << 63))
    else:
        b = b | np.uint64(1 << 63)
    return (b >> np.uint64(64 - _PREFIX_BITS)).astype(np.intp)


def _split_by_score(s, y, w, cut):
    """The rows of one task split by score range: ``[(scores, clicks, weights), ...]``, range ``k`` holding the
    scores whose key prefix lies in ``[cut[k - 1], cut[k])`` (equal scores share a prefix: a cell never
    straddles two ranges)."""
    # a table from every prefix to its range: one gather per row instead of a binary search per row
    lut = np.searchsorted(cut, np.arange(1 << _PREFIX_BITS), side="right").astype(np.uint8)
    k = lut[_prefix(s)]
    count = np.bincount(k, minlength=len(cut) + 1)
    order = np.argsort(k, kind="stable")  # numpy's stable sort of 8-bit integers is a radix sort: linear
    ends = np.cumsum(count)[:-1]
    ss, yy = np.split(s[order], ends), np.split(y[order] == 1, ends)
    ww = [None] * len(ss) if w is None else np.split(w[order], ends)
    return list(zip(ss, yy, ww))


def _range_cells(exact, *pieces):
    """The :class:`_Cells` of one score range from its pieces of every task (the rows in task order)."""
    s = np.concatenate([p[0] for p in pieces])
    click = np.concatenate([p[1] for p in pieces])
    if pieces[0][2] is None and s.size < 2**53:
        cells = sorted_unit_cells(click, s)
        if cells is not None:
            return _Cells(*cells, 0)
    y = click.astype(np.float64)
    unit = pieces[0][2] is None
    w = np.ones(s.size) if unit else np.concatenate([p[2] for p in pieces])
    values, pos, neg, scale, extra = score_cells(y, s, w, None, rows=exact and not unit, unit=unit)
    return _Cells(values, pos, neg, scale, *(extra or ()))


def _concat_cells(*ranges):
    """The cells of consecutive score ranges as one :class:`_Cells` (values stay sorted: the ranges are ordered)."""
    scale = max(c.scale for c in ranges)

    def cat(k, shift):
        arrs = [getattr(c, k) for c in ranges]
        if arrs[0] is None:
            return None
        return np.concatenate([np.ldexp(a, c.scale - scale) if shift and c.scale != scale else a
                               for a, c in zip(arrs, ranges)])

    return _Cells(cat("values", False), cat("pos", True), cat("neg", True), scale, cat("rows", False),
                  cat("n_pos", False), cat("n_neg", False))


def _choose_splits(first, scores, n_ranges):
    """Per score column: the key prefixes (:func:`_prefix`) that cut the scores into ``n_ranges`` ranges of
    about equal rows in a sample of the first row group's scores; ``None`` when the sample's scores repeat (stored at a fixed precision:
    the per-task cells are then small and merge fast).  Only the speed depends on the sample, never a value."""
    out = {}
    for name in scores:
        x = np.asarray(_col(first, name), dtype=np.float64)
        if x.size > SAMPLE_ROWS:
            x = x[:: x.size // SAMPLE_ROWS]
        x = np.sort(x[np.isfinite(x)])
        if x.size < 64 or grid_cells(x) is not None or 2 * len(np.unique(x)) < x.size:
            out[name] = None
            continue
        pre = _prefix(x)
        # range k: the prefixes from cut[k - 1] (included) to cut[k]
        out[name] = np.unique(pre[(np.arange(1, n_ranges) * x.size) // n_ranges])
    return out


def _sample(source, scores):
    """The score columns of the first row group of the first task (or of the first partition)."""
    if isinstance(source, _Pieces):
        import pyarrow.parquet as pq

        f, groups = source.tasks[0]
        if not groups:
            return {name: np.zeros(0) for name in scores}
        table = pq.ParquetFile(f).read_row_group(groups[0], columns=list(scores), use_threads=False)
        return {name: table.column(name).to_numpy() for name in scores}
    first = source.partitions[0][list(scores)].compute()
    return {name: first[name].to_numpy() for name in scores}


def _piece(part, name, k):
    return part.pieces[name][k]


def _strip(part):
    return _Part(part.rows, part.cells, part.counts, part.sums, part.joint, part.utility)


def _read_split_and_fill(task, columns, chunk, splits):
    return chunk(_read_piece(task, columns), splits=splits)


def _reduce_summary(source, spec):
    """The merged :class:`_Part` of :func:`summarize`'s chunks.

    Scores stored at a fixed precision: each task's cells, merged in a binary tree.  Continuous scores
    (almost every score distinct): every cell's merge would move every row again at each level of the tree,
    so the tasks instead split their rows by score range (cut from the scores of the first row group read
    once more), one task per
    range sorts its rows into cells (the sort of the in-memory functions, on ``1 / ranges`` of the rows), and
    the ranges are concatenated in order.  The counts are the same either way (exact); weighted sums are
    added in another order (agreeing to about 1e-15 relative).
    """
    import dask

    chunk = functools.partial(_summary_chunk, spec=spec)
    n_tasks = len(source.tasks) if isinstance(source, _Pieces) else source.npartitions
    cells_needed = spec["exact"] or "auc" in spec["families"]
    if spec["resolution"] is not None or not spec["scores"] or not cells_needed or n_tasks < 2:
        return _reduce(source, chunk)
    n_ranges = int(min(MAX_RANGES, max(2, n_tasks)))
    splits = _choose_splits(_sample(source, spec["scores"]), spec["scores"], n_ranges)
    if all(v is None for v in splits.values()):
        return _reduce(source, chunk)
    if isinstance(source, _Pieces):
        tasks = [dask.delayed(_read_split_and_fill)(t, source.columns, chunk, splits) for t in source.tasks]
    else:
        tasks = [dask.delayed(chunk)(p, splits=splits) for p in source.to_delayed()]
    level = [dask.delayed(_strip)(t) for t in tasks]
    while len(level) > 1:
        nxt = [dask.delayed(lambda a, b: a.merge(b))(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    exact = spec["exact"]
    cells = {name: dask.delayed(_concat_cells)(*[
        dask.delayed(_range_cells)(exact, *[dask.delayed(_piece)(t, name, k) for t in tasks])
        for k in range(len(cut) + 1)]) for name, cut in splits.items() if cut is not None}
    part, cells = dask.compute(level[0], cells)
    if exact:
        return _Part(part.rows, {**part.cells, **cells}, part.counts, part.sums, part.joint, part.utility)
    counts = {**part.counts, **{k: c.counts() for k, c in cells.items()}}
    return _Part(part.rows, part.cells, counts, part.sums, part.joint, part.utility)


@dataclass(frozen=True)
class Summary:
    """Every requested metric family of a log, from one pass (:func:`summarize`).

    ``counts[score]`` (:class:`~offline_eval.mergeable.ScoreCounts`), ``sums[score]``
    (:class:`~offline_eval.mergeable.LossSums`), ``quantiles[score]`` (the table of
    :func:`offline_eval.metrics.quantile_breakdown`), ``joint`` and ``utility`` hold the families asked
    for; the methods return the metrics of one score column (the only one by default).
    """

    rows: int
    scores: tuple
    families: tuple
    counts: dict
    sums: dict
    quantiles: dict
    joint: JointCounts | None = None
    utility: UtilitySums | None = None
    resolution: float | None = None  #: ``None``: exact; else the scores were rounded to its multiples

    def __repr__(self) -> str:
        parts = [f"{self.rows:,} rows", f"families {', '.join(self.families)}"]
        if self.scores:
            parts.append(f"scores {', '.join(self.scores)}")
        if "auc" in self.families and self.scores:
            parts.append("AUC " + ", ".join(f"{self.counts[k].roc_auc_score():.4g}" for k in self.scores))
        parts.append("exact" if self.resolution is None else f"resolution {self.resolution:g}")
        return f"Summary({'; '.join(parts)})"

    def auc_error_bound(self, score=None) -> float:
        """Bound on ``|roc_auc_score(score) - the AUC of the unrounded scores|``: 0 when exact (no ``resolution``).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.counts, "auc", score).auc_error_bound()

    def _of(self, table, family, score):
        if family not in self.families:
            raise ValueError(f"the family {family!r} was not computed; families = {self.families}")
        if score is None:
            if len(self.scores) != 1:
                raise ValueError(f"`score` must name one of the score columns {list(self.scores)}")
            score = self.scores[0]
        if score not in table:
            raise ValueError(f"`score` must be one of {list(self.scores)}; got {score!r}")
        return table[score]

    def roc_auc_score(self, score=None) -> float:
        """:func:`offline_eval.metrics.roc_auc_score` of the column ``score``.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.counts, "auc", score).roc_auc_score()

    def roc_curve(self, score=None):
        """:func:`offline_eval.metrics.roc_curve` (``fpr, tpr`` at every distinct score, highest first).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.counts, "auc", score).roc_curve()

    def log_loss(self, score=None) -> float:
        """:func:`offline_eval.metrics.log_loss`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).log_loss()

    def rig_score(self, score=None) -> float:
        """:func:`offline_eval.metrics.rig_score`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).rig_score()

    def mean_squared_error(self, score=None) -> float:
        """:func:`offline_eval.metrics.mean_squared_error`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).mean_squared_error()

    def calibration_ratio(self, score=None) -> float:
        """:func:`offline_eval.metrics.calibration_ratio`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).calibration_ratio()

    def prediction_error(self, score=None) -> float:
        """:func:`offline_eval.metrics.prediction_error`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).prediction_error()

    def quantile_breakdown(self, score=None):
        """The table of :func:`offline_eval.metrics.quantile_breakdown` (binned by the score itself).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.quantiles, "quantiles", score).copy()


def summarize(data, label=None, score=None, *, weight=None, families=None, n_quantiles=10, resolution=None,
              eps=LOG_LOSS_EPS, joint=None, utility=None, betas=()) -> Summary:
    """Every requested metric family of a log from one read of its data: AUC/ROC, the losses and RIG,
    calibration by quantile, joint counts and utility sums.

    Each task reads one piece of the log (a partition, or row groups of a Parquet file: only the columns
    needed) once and fills every family's accumulator; the accumulators merge in a binary tree.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files (a file, a directory or a glob).
    label : str, optional
        Column of the 0/1 labels (needed by the score families).
    score : str or sequence of str, optional
        Column(s) of the scores (predicted probabilities for the losses and quantiles); every score
        family is computed for each.
    weight : str, optional
        Column of the row weights.
    families : sequence of str, optional
        Among :data:`FAMILIES`; by default the score families when ``score`` is given, ``"joint"`` when
        ``joint`` is given and ``"utility"`` when ``utility`` is given.
    n_quantiles : int, default 10
    resolution : float > 0, optional
        An opt-in approximation (exact is the default, on continuous scores too): round the scores to
        multiples of it for the AUC (as :func:`score_counts`; the AUC is then within
        :meth:`Summary.auc_error_bound`, at most the share of positive-negative pairs in one cell, halved)
        and for the quantile bins (the rows of a cell of rounded scores share a bin; each bin's sums are
        those of its rows' own scores; a bin's edges move by at most ``resolution / 2`` in score, so only
        the rows of the cells at its two edges can change bin, and ``score_lo`` / ``score_hi`` are rounded
        values).  The losses are summed per row (exact).
    eps : float, default 1e-15
        Clipping of the log loss.
    joint : sequence of str, optional
        Columns ``(hyp_b, hyp_c)`` or ``(hyp_b, hyp_c, truth)`` (see :func:`joint_counts`).
    utility : mapping, optional
        Columns ``{"group", "a", "v", "p", "c"}`` (see :func:`utility_sums`).
    betas : sequence of float, default ()
        The expected utility's ``beta`` values.

    Returns
    -------
    Summary

    Notes
    -----
    Without ``resolution``, one accumulator per score column holds, per distinct score ``v``, the weight
    of positives ``P_v`` and negatives ``N_v`` (a :class:`~offline_eval.mergeable.ScoreCounts`) and the
    row counts.  It gives the AUC exactly, and the losses because the rows of a cell share their score:
    ``sum_i w_i loss(y_i, p_i) = sum_v P_v loss(1, v) + N_v loss(0, v)`` (likewise the squared and
    absolute errors and ``sum w p``).  The quantile bin of every value follows from the same counts
    (:meth:`~offline_eval.mergeable.QuantileSums.edges`), and the per-bin sums are the sums over the cells
    of a bin: calibration by quantile needs no second pass.  The memory is one entry per distinct score
    (24 bytes; 40 with weights): bounded for scores stored at a fixed precision (1e-6: at most 10^6 + 1
    entries), about the rows for continuous scores.  How the cells are filled: per task and merged in a
    binary tree when the scores repeat (a sample of the first row group decides; only the speed depends on
    it); for continuous scores each task splits its rows by the top 20 bits of an order-preserving 64-bit
    key of the score (sign, exponent, 8 bits of mantissa; the ranges cut from that sample so that they hold
    about equal rows), and one task per range sorts its rows into cells (two value sorts without weights,
    no argsort); the ranges are concatenated in order.  Equal scores share a key, so a cell never
    straddles two ranges.  Counts are exact; sums agree with the in-memory functions to about 1e-12
    relative (another order of addition).

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"click": [0, 1, 1, 0], "p": [0.1, 0.4, 0.35, 0.8]})
    >>> s = summarize(dd.from_pandas(df, npartitions=2), "click", "p", n_quantiles=2)
    >>> s.roc_auc_score(), round(s.log_loss(), 6), s.quantile_breakdown()["clicks"].tolist()
    (0.5, 0.920228, [1.0, 1.0])
    """
    # -- validation at entry
    if families is None:
        families = (_SCORE_FAMILIES if score is not None else ()) + (("joint",) if joint is not None else ()) \
            + (("utility",) if utility is not None else ())
    if isinstance(families, str) or not hasattr(families, "__iter__"):
        raise InputTypeError(f"`families` must be a sequence of names among {FAMILIES}; got {families!r}")
    families = tuple(dict.fromkeys(check_choice(f, "families", FAMILIES) for f in families))
    if not families:
        raise ValueError(f"`families` must name at least one of {FAMILIES} (or pass `score`, `joint` or `utility`)")
    scores = ()
    if any(f in _SCORE_FAMILIES for f in families):
        if score is None or label is None:
            raise ValueError(f"the families {[f for f in families if f in _SCORE_FAMILIES]} need `label` and `score`")
        scores = (score,) if isinstance(score, str) else tuple(score) if hasattr(score, "__iter__") else (score,)
        bad = [c for c in (label, *scores, weight) if c is not None and not isinstance(c, str)]
        if bad or not scores:
            raise InputTypeError(f"`label`, `score` and `weight` must be column names (strings); got {bad or score!r}")
        if len(set(scores)) != len(scores):
            raise ValueError(f"`score` names a column twice: {list(scores)}")
    check_int(n_quantiles, "n_quantiles", low=1)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    if resolution is not None:
        resolution = check_real(resolution, "resolution", low=0, closed="right")
    if "joint" in families:
        if isinstance(joint, str) or not hasattr(joint, "__iter__") or len(tuple(joint)) not in (2, 3) \
                or not all(isinstance(c, str) for c in joint):
            raise InputTypeError(f"`joint` must be 2 or 3 column names (hyp_b, hyp_c[, truth]); got {joint!r}")
        joint = tuple(joint)
    if "utility" in families:
        if not isinstance(utility, dict) or set(utility) != set(_UTILITY_KEYS) \
                or not all(isinstance(c, str) for c in utility.values()):
            raise InputTypeError(f"`utility` must map {list(_UTILITY_KEYS)} to column names; got {utility!r}")
        if isinstance(betas, (str, bytes)) or np.ndim(betas) != 1:
            raise ValueError(f"`betas` must be a sequence of numbers; got {betas!r}")
        betas = tuple(check_real(b, "betas", low=0, closed="neither") for b in betas)
    columns = [*((label, *scores, weight) if scores else ()), *(joint if "joint" in families else ()),
               *(utility[k] for k in _UTILITY_KEYS if "utility" in families)]
    source = _source(data, columns)
    spec = dict(label=label, scores=scores, weight=weight, families=families, resolution=resolution, eps=eps,
                exact=resolution is None and "quantiles" in families, joint=joint, utility=utility, betas=betas)
    # -- the pass
    part = _reduce_summary(source, spec)
    # -- the metrics
    counts, sums, quantiles = {}, {}, {}
    for name in scores:
        if spec["exact"]:
            cells = part.cells[name]
            _require_rows(part.rows, float(cells.pos.sum() + cells.neg.sum()), weight)
            if "auc" in families:
                counts[name] = cells.counts()
            if ("losses" in families or "quantiles" in families) and cells.values.size and \
                    (cells.values[0] < 0 or cells.values[-1] > 1):
                raise ValueError(f"`score` column {name!r} must lie in [0, 1] for the losses and quantiles; got min "
                                 f"{cells.values[0]:.6g}, max {cells.values[-1]:.6g}")
            terms = cells.terms(eps) if "losses" in families or "quantiles" in families else None
            if "losses" in families:
                sums[name] = cells.loss_sums(eps, terms=terms)
            if "quantiles" in families:
                quantiles[name] = _quantile_table(cells, n_quantiles, eps, terms)
        else:
            if "auc" in families:
                counts[name] = _checked_counts(part.counts[name], weight)
            if "losses" in families:
                sums[name] = _checked_sums(part.sums[name], weight)
            if "quantiles" in families:  # bins of the rounded scores, sums of the rows' own scores
                cells = part.cells[name]
                _require_rows(part.rows, float(cells.pos.sum() + cells.neg.sum()), weight)
                quantiles[name] = _quantile_table(cells, n_quantiles, eps)
    return Summary(part.rows, scores, families, counts, sums, quantiles, part.joint, part.utility, resolution)


def _quantile_table(cells: _Cells, n_quantiles: int, eps: float, terms=None):
    """The quantile table from the per-score cells: the bins of :meth:`QuantileSums.edges`, the sums per bin."""
    values, bins = QuantileSums.edges(cells.counts(), n_quantiles)
    q = int(n_quantiles)
    starts = np.searchsorted(bins, np.arange(q), side="left")
    stops = np.searchsorted(bins, np.arange(q), side="right")
    terms = cells.terms(eps) if terms is None else terms
    sums = tuple(cells.loss_sums(eps, slice(a, b), terms) for a, b in zip(starts, stops))
    lo = np.array([values[a] if b > a else np.inf for a, b in zip(starts, stops)])
    hi = np.array([values[b - 1] if b > a else -np.inf for a, b in zip(starts, stops)])
    return QuantileSums(sums, lo, hi).frame()


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
    source = _source(data, [label, *scores, groups, weight])  # every file's columns checked: a named error
    if isinstance(source, _Pieces):
        check_resampled_rows(n_boot, source.rows, len(scores))
    if resolution is None and "roc_auc_score" in metrics:
        first = {s: np.asarray(x) for s, x in _sample(source, scores).items()}  # a task holds at least these
        distinct = [len(np.unique(x)) for x in first.values() if x.dtype.kind in "biuf"]  # else: the task's named error
        if distinct:
            check_cells(n_boot, max(distinct), len(scores), "resolution", resolution)
    seed = draw_seed(check_rng(rng))
    sums = _reduce(source, functools.partial(
        _boot_chunk, label=label, scores=scores, groups=groups,
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
