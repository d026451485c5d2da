"""Mergeable statistics: each metric family as a small accumulator that a chunk of rows fills and that
two accumulators merge, so a log bigger than memory is evaluated one partition at a time.

Every accumulator has ``from_arrays(...)`` (fill from one chunk), ``merge(other)`` (associative and
commutative: any partitioning and any merge order give the same counts) and methods that return the
same values as the in-memory functions of :mod:`offline_eval.metrics`, :mod:`offline_eval.adaptive` and
:mod:`offline_eval.bidding`.  :mod:`offline_eval.ondask` runs them on Dask.

==========================  ======================================================  ===================
accumulator                 what it holds                                           exact?
==========================  ======================================================  ===================
:class:`ScoreCounts`        weight of positives and negatives per distinct score    AUC/ROC exact; with
                                                                                    ``resolution``, the
                                                                                    error is bounded
:class:`LossSums`           sums of weights, labels, scores, losses                 sums (1e-12 rel.)
:class:`QuantileSums`       :class:`LossSums` per quantile bin (second pass)        bins exact, sums
:class:`JointCounts`        item counts per (B, C[, G]) cell, sparse                exact
:class:`UtilitySums`        utility, weighted squared error, EU per beta, per group sums (1e-12 rel.)
==========================  ======================================================  ===================

Notes
-----
**AUC and ROC.** The per-score counts of :class:`ScoreCounts` are all the AUC needs (ties count 1/2,
as in :func:`offline_eval.metrics.roc_auc_score`).  They are exact, the default, on any scores: a chunk's
cells come from a sort of its scores (without weights, two sorts of the values and no argsort), and two
accumulators merge by one linear merge of their sorted values.  Their size is one cell per distinct score:
small for scores stored at a fixed precision, about the rows for continuous float64 scores (for which
:mod:`offline_eval.ondask` fills the cells per score range rather than merging a tree of them).  As an
opt-in approximation, ``resolution`` rounds every score to a multiple of it first, which bounds the
number of cells by ``1 / resolution`` for scores in [0, 1]; only the order of a positive and a negative
in the *same* cell is then lost, so :meth:`ScoreCounts.auc_error_bound` -- half the weight of such
pairs, computed from the counts themselves -- bounds ``|AUC(rounded) - AUC(exact)|``.

**Quantiles** need two passes: the first collects the weight per distinct value of the binning score
(a :class:`ScoreCounts`), which fixes the quantile bin of every value exactly as
:func:`offline_eval.metrics.quantile_breakdown` does (a tie group takes the bin of its first row: the
bin of ``q * weight below / total``); the second fills one :class:`LossSums` per bin.

**Kendall's tau** is not here: an exact tau needs the joint order of all pairs (a distributed sort and
merge count); the ranking measures stay in memory (:mod:`offline_eval.ranking`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import bidding
from ._chunks import chunk_arrays, merge_sorted, score_cells, sorted_union, weight_scale
from ._losses import entropy, pointwise_log_loss
from ._validation import (
    InputTypeError,
    as_1d,
    as_labels,
    asarray_named,
    cast_checked,
    check_aligned,
    check_consistent_length,
    check_finite,
    check_int,
    check_real,
    floor_snapped,
    integer_weights,
    is_missing,
    reject_masked,
    warn_undefined,
)
from .metrics import LOG_LOSS_EPS, roc_auc_score_from_counts, roc_curve_from_counts

__all__ = ["JointCounts", "LossSums", "QuantileSums", "ScoreCounts", "UtilitySums"]


def _check_fields(obj, names, *, ndim=None, labels=(), nonnegative=()):
    """The array fields of an accumulator built directly: no mask, numbers only, one row each per entry."""
    ndim = ndim or {}
    check_aligned(**{k: getattr(obj, k) for k in (*labels, *names)})
    lengths = {}
    for k in labels:
        reject_masked(getattr(obj, k), k)
        arr = asarray_named(getattr(obj, k), k)
        if arr.dtype.kind == "O" and any(is_missing(v) for v in arr.ravel().tolist()):
            raise ValueError(f"`{k}` holds missing labels (None, NaN, pd.NA or NaT); drop those rows first")
        if arr.dtype.kind in "cmMV":
            raise ValueError(f"`{k}` must hold labels (integers, strings, bools); got dtype {arr.dtype}")
        if arr.dtype.kind == "f":
            check_finite(arr.ravel(), k)
        lengths[k] = arr
    for k in names:
        arr = as_1d(getattr(obj, k), k, dtype=None, allow_empty=True) if ndim.get(k, 1) == 1 else None
        if arr is None:
            reject_masked(getattr(obj, k), k)
            arr = asarray_named(getattr(obj, k), k)
            if arr.dtype.kind not in "biuf" and arr.size:
                raise ValueError(f"`{k}` must be numeric; got dtype {arr.dtype}")
            if arr.ndim != ndim[k]:
                raise ValueError(f"`{k}` must be {ndim[k]}-D; got shape {arr.shape}")
        if arr.dtype.kind == "f":
            check_finite(arr.ravel(), k)
        if k in nonnegative and (arr < 0).any():
            raise ValueError(f"`{k}` must be non-negative; got min {arr.min()!r}")
        lengths[k] = arr
    check_consistent_length(**lengths)


def _check_other(self, other):
    if not isinstance(other, type(self)):
        raise InputTypeError(f"`other` must be a {type(self).__name__} (the accumulator of another chunk); "
                             f"got {type(other).__name__}")


# -- AUC and ROC -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ScoreCounts:
    """Weight of positives and of negatives per distinct score (sorted ascending).

    >>> a = ScoreCounts.from_arrays([0, 1, 1], [0.1, 0.4, 0.4])
    >>> b = ScoreCounts.from_arrays([0, 1], [0.4, 0.9])
    >>> m = a.merge(b)
    >>> m.values.tolist(), m.pos.tolist(), m.neg.tolist(), round(m.roc_auc_score(), 6)
    ([0.1, 0.4, 0.9], [0.0, 2.0, 1.0], [1.0, 1.0, 0.0], 0.833333)
    """

    values: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    resolution: float | None = None
    scale: int = 0  #: ``pos`` and ``neg`` are the weights times ``2**-scale`` (0 unless the weights are extreme)

    def __repr__(self) -> str:
        how = "exact" if self.resolution is None else f"scores rounded to {self.resolution:g}"
        return (f"ScoreCounts({len(self.values):,} distinct scores, positives {self.pos.sum():.6g}, negatives "
                f"{self.neg.sum():.6g}{'' if not self.scale else f' (times 2**-{self.scale})'}; {how})")

    def __post_init__(self):
        _check_fields(self, ("values", "pos", "neg"), nonnegative=("pos", "neg"))

    @classmethod
    def from_arrays(cls, y_true, y_score, sample_weight=None, *, resolution=None) -> ScoreCounts:
        """Counts of one chunk; ``resolution`` rounds scores to its multiples first (see the notes).

        Parameters
        ----------
        y_true, y_score : array-like of shape (n,)
            Labels (0/1) and scores of the chunk.
        sample_weight : array-like of shape (n,), optional
        resolution : float > 0, optional
            Round scores to multiples of it first (bounded memory; see the class notes).  It must be
            coarse enough that ``score / resolution`` is finite.
        """
        y, s, w = chunk_arrays(y_true, y_score, sample_weight)
        if resolution is not None:
            check_real(resolution, "resolution", low=0, closed="right")
        values, pos, neg, scale, _ = score_cells(y, s, w, resolution, unit=sample_weight is None)
        return cls(values, pos, neg, None if resolution is None else float(resolution), scale)

    def merge(self, other: ScoreCounts) -> ScoreCounts:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : ScoreCounts
            The accumulator of another chunk of the same log (same options).
        """
        _check_other(self, other)
        if self.resolution != other.resolution:
            raise ValueError(f"cannot merge counts at resolution {self.resolution} and {other.resolution}")
        scale = max(self.scale, other.scale)

        def at(x, own):
            return np.ldexp(x, own - scale) if own != scale else x

        values, (pos, neg) = merge_sorted(self.values, other.values, (at(self.pos, self.scale), at(other.pos, other.scale)),
                                          (at(self.neg, self.scale), at(other.neg, other.scale)))
        return ScoreCounts(values, pos, neg, self.resolution, scale)

    @property
    def weight(self) -> np.ndarray:
        """Total weight per distinct score, times ``2**-scale``."""
        return self.pos + self.neg

    def roc_auc_score(self) -> float:
        """AUC with ties counted 1/2 (equals :func:`offline_eval.metrics.roc_auc_score` on the rows)."""
        return roc_auc_score_from_counts(self.pos[::-1], self.neg[::-1])

    def roc_curve(self):
        """``(fpr, tpr)`` at every distinct score, highest first (:func:`~offline_eval.metrics.roc_curve_from_counts`)."""
        return roc_curve_from_counts(self.pos[::-1], self.neg[::-1])

    def auc_error_bound(self) -> float:
        """Bound on ``|roc_auc_score() - AUC of the unrounded scores|``: 0 without ``resolution``.

        Rounding loses only the order of a positive and a negative in one cell, counted 1/2 here and 0 or
        1 in truth: the bound is ``sum_cells pos * neg / 2`` over ``P * N``.
        """
        if self.resolution is None:
            return 0.0
        p, n = self.pos.sum(), self.neg.sum()
        if p > 0 and n > 0:
            return float(np.dot(self.pos, self.neg) / (2.0 * p * n))
        warn_undefined("the AUC (and its error bound) is undefined with only one class present; returning nan")
        return float("nan")


# -- losses and calibration ----------------------------------------------------------------------------
_SUMS = ("n", "w", "wy", "wp", "wloss", "wsq", "wabs")


@dataclass(frozen=True)
class LossSums:
    """Sums that give log loss, RIG, MSE, MAE, the calibration ratio and the prediction error.

    ``n`` rows, ``w = sum w_i``, ``wy = sum w_i y_i``, ``wp = sum w_i p_i``, ``wloss = sum w_i loss_i``
    (log loss clipped at ``eps`` as in :func:`offline_eval.metrics.log_loss`), ``wsq = sum w_i (y_i - p_i)^2``,
    ``wabs = sum w_i |y_i - p_i|``.

    >>> s = LossSums.from_arrays([0, 1], [0.5, 0.5]).merge(LossSums.from_arrays([1], [0.5]))
    >>> round(s.log_loss(), 6), round(s.calibration_ratio(), 6)
    (0.693147, 0.75)
    """

    n: float = 0.0
    w: float = 0.0
    wy: float = 0.0
    wp: float = 0.0
    wloss: float = 0.0
    wsq: float = 0.0
    wabs: float = 0.0
    eps: float = LOG_LOSS_EPS
    scale: int = 0  #: the weighted sums are stored times ``2**-scale`` (0 unless the weights are extreme)
    n_pos: float = 0.0  #: rows with a click and a positive weight (whether both classes are present is exact)
    n_neg: float = 0.0  #: rows without a click and with a positive weight

    def __repr__(self) -> str:
        return f"LossSums({self.n:,.0f} rows, weight {self.total_weight:.6g}, clicks {self.n_pos:,.0f}, eps {self.eps:g})"

    @classmethod
    def from_arrays(cls, y_true, y_prob, sample_weight=None, *, eps=LOG_LOSS_EPS) -> LossSums:
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        y_true, y_prob : array-like of shape (n,)
            Clicks (0/1) and predicted probabilities of the chunk.
        sample_weight : array-like of shape (n,), optional
        eps : float, default 1e-15
            Clipping of the log loss, as in :func:`offline_eval.metrics.log_loss`.
        """
        y, p, w = chunk_arrays(y_true, y_prob, sample_weight, names=("y_true", "y_prob"))
        if ((p < 0) | (p > 1)).any():
            raise ValueError(f"`y_prob` must lie in [0, 1]; got min {p.min():.6g}, max {p.max():.6g}")
        eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
        scale = weight_scale(w)
        w = np.ldexp(w, -scale) if scale else w
        d = y - p
        return cls(float(y.size), float(w.sum()), float(np.dot(w, y)), float(np.dot(w, p)),
                   float(np.dot(w, pointwise_log_loss(y, p, eps))) if y.size else 0.0,
                   float(np.dot(w, d * d)), float(np.dot(w, np.abs(d))), float(eps), scale,
                   float(np.count_nonzero((w > 0) & (y == 1))), float(np.count_nonzero((w > 0) & (y == 0))))

    def merge(self, other: LossSums) -> LossSums:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : LossSums
            The accumulator of another chunk of the same log (same options).
        """
        _check_other(self, other)
        if self.eps != other.eps:
            raise ValueError(f"cannot merge sums with eps {self.eps} and {other.eps}")
        scale = max(self.scale, other.scale)
        a, b = self._at(scale), other._at(scale)
        return LossSums(*(a[k] + b[k] for k in _SUMS), eps=self.eps, scale=scale, n_pos=self.n_pos + other.n_pos,
                        n_neg=self.n_neg + other.n_neg)

    def _at(self, scale: int) -> dict:
        """The sums as stored at ``2**-scale`` (the row count is never scaled)."""
        shift = self.scale - scale
        return {k: (getattr(self, k) if k == "n" or shift == 0 else float(np.ldexp(getattr(self, k), shift)))
                for k in _SUMS}

    @property
    def total_weight(self) -> float:
        """The sum of the weights (``w`` times ``2**scale``; ``inf`` beyond float64)."""
        with np.errstate(over="ignore"):
            return float(np.ldexp(self.w, self.scale))

    def _div(self, num):
        if self.w > 0:
            return num / self.w
        warn_undefined("the metric is undefined on no weight (an empty log or all-zero weights); returning nan",
                       stacklevel=4)
        return float("nan")

    def log_loss(self) -> float:
        return self._div(self.wloss)

    def ctr(self) -> float:
        return self._div(self.wy)

    def rig_score(self) -> float:
        """Relative information gain ``1 - log loss / H(ctr)`` (nan, with a warning, when every label is equal)."""
        # one class present is decided on the row counts, not on a weighted CTR that may round below 1
        # (sums built directly, without the row counts, fall back on the CTR)
        known = self.n_pos + self.n_neg > 0
        h = entropy(self.ctr()) if not known or (self.n_pos > 0 and self.n_neg > 0) else 0.0
        if h > 0:
            return 1.0 - self.log_loss() / h
        if self.w > 0:
            warn_undefined("RIG is undefined when every label is equal (zero entropy); returning nan", stacklevel=3)
        return float("nan")

    def mean_squared_error(self) -> float:
        return self._div(self.wsq)

    def mean_absolute_error(self) -> float:
        return self._div(self.wabs)

    def calibration_ratio(self) -> float:
        """Average pClick over the CTR (nan, with a warning, without a click)."""
        if self.wy > 0:
            return self.wp / self.wy
        warn_undefined("the calibration ratio is undefined when the data hold no click (CTR 0); returning nan",
                       stacklevel=3)
        return float("nan")

    def prediction_error(self) -> float:
        return self.calibration_ratio() - 1.0


# -- per-quantile breakdown (second pass) -----------------------------------------------------------
@dataclass(frozen=True)
class QuantileSums:
    """:class:`LossSums` and the score range per quantile bin of a binning score (the second pass).

    The first pass is a :class:`ScoreCounts` of the binning score (its weights per distinct value);
    :meth:`edges` turns it into the bin of every distinct value.
    """

    sums: tuple
    lo: np.ndarray
    hi: np.ndarray

    def __repr__(self) -> str:
        return f"QuantileSums({len(self.sums)} bins, {sum(x.n for x in self.sums):,.0f} rows)"

    @staticmethod
    def edges(first_pass: ScoreCounts, n_quantiles: int) -> tuple[np.ndarray, np.ndarray]:
        """``(values, bins)``: the quantile bin (0-based) of every distinct value of the binning score.

        A value's bin is ``min(floor(q * weight below it / total), q - 1)`` -- the bin of the first row of
        its tie group in :func:`offline_eval.metrics.quantile_breakdown`.

        Parameters
        ----------
        first_pass : ScoreCounts
            The exact score counts (no ``resolution``) of the whole log's binning score.
        n_quantiles : int >= 1
        """
        if not isinstance(first_pass, ScoreCounts):
            raise InputTypeError(f"`first_pass` must be a ScoreCounts; got {type(first_pass).__name__}")
        check_int(n_quantiles, "n_quantiles", low=1)
        wt = first_pass.weight
        if not wt.sum() > 0:
            raise ValueError("`first_pass` holds no weight (an empty log or all-zero weights): no quantile is defined")
        if n_quantiles > max(len(wt), 1000):  # per-bin sums: memory bounded by the data, as in memory
            raise ValueError(f"`n_quantiles` must be at most max(distinct scores, 1000) = {max(len(wt), 1000)}; "
                             f"got {n_quantiles}")
        below = np.cumsum(wt) - wt
        q = int(n_quantiles)
        # the rule of quantile_breakdown: a bin boundary exact in real arithmetic is not moved by rounding
        exact = first_pass.scale == 0 and integer_weights(wt)
        bins = np.minimum(floor_snapped(q * below / wt.sum(), len(wt), exact=exact).astype(np.int64), q - 1)
        return first_pass.values, bins

    @classmethod
    def from_arrays(cls, edges, n_quantiles, y_true, y_prob, by=None, sample_weight=None, *, eps=LOG_LOSS_EPS):
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        edges : tuple of ndarray
            From :meth:`QuantileSums.edges` on the whole log's first pass.
        n_quantiles : int >= 1
        y_true, y_prob : array-like of shape (n,)
        by : array-like of shape (n,), optional
            The binning score (default ``y_prob``).
        sample_weight : array-like of shape (n,), optional
        eps : float, default 1e-15
        """
        try:
            values, bins = edges
        except (TypeError, ValueError):
            raise ValueError("`edges` must be the (values, bins) pair of QuantileSums.edges") from None
        q = check_int(n_quantiles, "n_quantiles", low=1)
        if len(bins) and int(np.max(bins)) >= q:
            raise ValueError(f"`n_quantiles` = {q} disagrees with `edges` (bins up to {int(np.max(bins))})")
        check_aligned(y_true=y_true, y_prob=y_prob, by=by, sample_weight=sample_weight)
        y, p, w = chunk_arrays(y_true, y_prob, sample_weight, names=("y_true", "y_prob"))
        s = p if by is None else check_finite(as_1d(by, "by", allow_empty=True), "by")
        check_consistent_length(y_true=y, by=s)
        at = np.searchsorted(values, s)
        if s.size and ((at >= len(values)) | (values[np.minimum(at, len(values) - 1)] != s)).any():
            name = "y_prob" if by is None else "by"
            raise ValueError(f"`{name}` holds a binning score that is not among the first pass's values (`edges`): "
                             f"bin every chunk by the scores the first pass saw ({'`y_prob`, as `by` is None' if by is None else '`by`'})")
        b = bins[at] if s.size else np.zeros(0, np.int64)
        sums = tuple(LossSums.from_arrays(y[b == k], p[b == k], w[b == k], eps=eps) for k in range(q))
        lo, hi = np.full(q, np.inf), np.full(q, -np.inf)
        np.minimum.at(lo, b, s)
        np.maximum.at(hi, b, s)
        return cls(sums, lo, hi)

    def merge(self, other: QuantileSums) -> QuantileSums:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : QuantileSums
            The accumulator of another chunk of the same log (same options).
        """
        _check_other(self, other)
        if len(self.sums) != len(other.sums):
            raise ValueError(f"cannot merge {len(self.sums)} bins with {len(other.sums)} bins")
        return QuantileSums(tuple(a.merge(b) for a, b in zip(self.sums, other.sums)),
                            np.minimum(self.lo, other.lo), np.maximum(self.hi, other.hi))

    def frame(self) -> pd.DataFrame:
        """The table of :func:`offline_eval.metrics.quantile_breakdown` (bins with weight only).

        Undefined metrics of a bin (no click, or only clicks) are nan, with one warning, as in memory.
        """
        import warnings

        from ._validation import OfflineEvalWarning

        scale = max((s.scale for s in self.sums), default=0)
        common = [s._at(scale) for s in self.sums]  # one scale for the shares across bins
        total_loss = sum(c["wloss"] for c in common)
        rows = []
        with warnings.catch_warnings():  # one warning for the table, below, as quantile_breakdown
            warnings.simplefilter("ignore", OfflineEvalWarning)
            for k, s in enumerate(self.sums):
                if s.w <= 0:
                    continue
                cal = s.calibration_ratio()
                with np.errstate(over="ignore"):
                    weight, clicks = float(np.ldexp(s.w, s.scale)), float(np.ldexp(s.wy, s.scale))
                rows.append(dict(quantile=k + 1, score_lo=self.lo[k], score_hi=self.hi[k], weight=weight, clicks=clicks,
                                 ctr=s.ctr(), avg_pclick=s.wp / s.w, log_loss=s.log_loss(),
                                 log_loss_share=common[k]["wloss"] / total_loss if total_loss > 0 else float("nan"),
                                 rig=s.rig_score(), mse=s.mean_squared_error(), mae=s.mean_absolute_error(),
                                 prediction_error=cal - 1.0, calibration_ratio=cal))
        out = pd.DataFrame(rows)
        if len(out) and (out["rig"].isna().any() or out["calibration_ratio"].isna().any()):
            warn_undefined(
                f"{int(out['calibration_ratio'].isna().sum())} bin(s) hold no click and "
                f"{int(out['rig'].isna().sum())} bin(s) have zero entropy: their undefined metrics are nan", stacklevel=3)
        return out


# -- joint counts of the online adaptive metrics ---------------------------------------------------------
@dataclass(frozen=True)
class JointCounts:
    """Item counts per (B, C) or (B, C, G) cell, kept sparse (memory bounded by the cells present).

    ``cells`` is an ``(m, d)`` int64 array of distinct label tuples in lexicographic order, ``counts``
    their counts (``d = 2`` for live traffic, ``3`` with the truth).

    >>> j = JointCounts.from_arrays([0, 1, 1], [0, 1, 1]).merge(JointCounts.from_arrays([1], [0]))
    >>> j.cells.tolist(), j.counts.tolist()
    ([[0, 0], [1, 0], [1, 1]], [1, 1, 2])
    """

    cells: np.ndarray
    counts: np.ndarray

    def __repr__(self) -> str:
        return f"JointCounts({len(self.counts):,} cells of {self.cells.shape[1]} labels, {int(self.counts.sum()):,} items)"

    def __post_init__(self):
        _check_fields(self, ("cells", "counts"), ndim={"cells": 2}, nonnegative=("cells", "counts"))

    @classmethod
    def from_arrays(cls, hyp_b, hyp_c, truth=None) -> JointCounts:
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        hyp_b, hyp_c : array-like of shape (n,)
            Class codes of the two models' hypotheses.
        truth : array-like of shape (n,), optional
            Ground-truth class codes.
        """
        named = {"hyp_b": hyp_b, "hyp_c": hyp_c, **({} if truth is None else {"truth": truth})}
        check_aligned(**named)
        cols = []
        for name, x in named.items():
            arr = as_1d(x, name, dtype=None, allow_empty=True)
            if arr.size and arr.dtype.kind not in "iu":
                raise ValueError(f"`{name}` must hold integer class codes (encode other labels first); got dtype {arr.dtype}")
            if (arr < 0).any():
                raise ValueError(f"`{name}` must hold non-negative class codes; got min {int(arr.min())}")
            cols.append(cast_checked(arr, np.int64, name) if arr.size else arr)  # a uint64 beyond int64 refused
        check_consistent_length(**dict(zip(named, cols)))
        if cols[0].size:
            fast = _joint_by_key(cols)
            if fast is not None:
                return cls(*fast)
        stacked = np.stack([c.astype(np.int64) for c in cols], axis=1) if cols[0].size else np.zeros((0, len(cols)), np.int64)
        cells, counts = np.unique(stacked, axis=0, return_counts=True)
        return cls(cells.reshape(-1, len(cols)), counts.astype(np.int64))

    def merge(self, other: JointCounts) -> JointCounts:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : JointCounts
            The accumulator of another chunk of the same log (same options).
        """
        _check_other(self, other)
        if self.cells.shape[1] != other.cells.shape[1]:
            raise ValueError("cannot merge (B, C) counts with (B, C, G) counts")
        both = np.concatenate([self.cells, other.cells])
        cells, inv = np.unique(both, axis=0, return_inverse=True)
        counts = np.bincount(inv.ravel(), weights=np.r_[self.counts, other.counts], minlength=len(cells))
        return JointCounts(cells.reshape(-1, both.shape[1]), counts.astype(np.int64))

    def dense(self, n_classes: int) -> np.ndarray:
        """The counts as a dense ``K x K (x K)`` array (as :func:`offline_eval.adaptive.joint_distribution`
        with ``normalize=False``).

        Parameters
        ----------
        n_classes : int
            K: the dense table is K x K (x K with the truth); bounded like
            :func:`offline_eval.adaptive.joint_distribution`'s, by
            ``max(10**7, 64 x items)`` cells.
        """
        from .adaptive import MAX_INFERRED_CELLS

        k = check_int(n_classes, "n_classes", low=1)
        items = int(self.counts.sum())
        if k ** self.cells.shape[1] > max(MAX_INFERRED_CELLS, 64 * items):
            raise ValueError(f"`n_classes` = {k} makes a dense table of {k}^{self.cells.shape[1]} cells for {items:,} "
                             f"items, more than the bound max({MAX_INFERRED_CELLS:,}, 64 x items)")
        if self.cells.size and self.cells.max() >= k:
            raise ValueError(f"`n_classes` must exceed the largest label {int(self.cells.max())}; got {k}")
        out = np.zeros((k,) * self.cells.shape[1], np.int64)
        out[tuple(self.cells.T)] = self.counts
        return out


def _joint_by_key(cols):
    """``(cells, counts)`` of ``np.unique(np.stack(cols, 1), axis=0, return_counts=True)`` through one integer key.

    The codes are non-negative: ``key = (b * K_c + c) * K_g + g`` with ``K = max + 1`` per column orders
    the cells lexicographically, so the distinct keys (a bincount when the key space is small, else a
    1-D sort) are the distinct rows in the same order.  ``None`` when the key space exceeds 2**62.
    """
    radix = [int(c.max()) + 1 for c in cols]
    total = int(np.prod(radix, dtype=object))
    if total > 2**62:
        return None
    key = cols[0].astype(np.int64)
    for c, r in zip(cols[1:], radix[1:]):
        key = key * r + c
    n = key.size
    if total <= min(max(4 * n, 4096), 2**24):
        full = np.bincount(key, minlength=total)
        keys = np.flatnonzero(full)
        counts = full[keys]
    else:
        keys, counts = np.unique(key, return_counts=True)
    cells = np.stack(np.unravel_index(keys, radix), axis=1).astype(np.int64) if len(radix) > 1 else keys[:, None]
    return cells.reshape(-1, len(cols)), counts.astype(np.int64)


# -- bidding: utility, weighted squared error and the expected utility, per group ----------------------------
@dataclass(frozen=True)
class UtilitySums:
    """Per group (e.g. a network): rows, utility, weighted squared error and EU at each ``beta``.

    Equals :func:`offline_eval.bidding.utility_per_row`, ``weighted_squared_error_per_row`` and
    ``expected_utility_per_row`` summed over the rows of each group.
    """

    groups: np.ndarray
    n: np.ndarray
    utility: np.ndarray
    wse: np.ndarray
    eu: np.ndarray  # (n_groups, n_betas)
    betas: tuple = field(default=())

    def __repr__(self) -> str:
        return (f"UtilitySums({len(self.groups):,} groups, {int(np.sum(self.n)):,} rows, "
                f"betas {', '.join(f'{b:g}' for b in self.betas) or 'none'})")

    def __post_init__(self):
        _check_fields(self, ("n", "utility", "wse", "eu"), ndim={"eu": 2}, labels=("groups",), nonnegative=("n", "wse"))

    @classmethod
    def from_arrays(cls, group, a, v, p, c, *, betas=()) -> UtilitySums:
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        group : array-like of shape (n,)
            Group of each row (e.g. the network).
        a, v, p, c : array-like of shape (n,)
            Actions, values, predictions and competing bids, as in :func:`offline_eval.bidding.utility`.
        betas : sequence of float, default ()
            The ``beta`` of each expected-utility column.
        """
        check_aligned(group=group, a=a, v=v, p=p, c=c)
        reject_masked(group, "group")
        g = asarray_named(group, "group")
        if g.ndim != 1:
            raise ValueError(f"`group` must be 1-D; got an array of shape {g.shape}")
        if g.size:
            g = as_labels(g, "group")  # no NaN, None, pd.NA or NaT
        if g.dtype.kind == "O" and len({type(v) for v in g.tolist()}) > 1:
            kinds = sorted({type(v).__name__ for v in g.tolist()})
            raise ValueError(f"`group` mixes label types ({', '.join(kinds)}): they cannot be sorted into groups; "
                             "use labels of one type")
        if isinstance(betas, (str, bytes)) or np.ndim(betas) != 1:
            raise ValueError(f"`betas` must be a sequence of numbers; got {betas!r}")
        betas = tuple(betas)
        for b in betas:
            check_real(b, "betas", low=0, closed="neither")
        betas = tuple(float(b) for b in betas)
        if g.size == 0 and all(np.size(x) == 0 for x in (a, v, p, c)):  # an empty partition
            return cls(g, np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros((0, len(betas))), betas)
        util = bidding.utility_per_row(a, v, p, c)  # validates the rows
        check_consistent_length(group=g, a=util)
        groups, inv = np.unique(g, return_inverse=True)
        m = len(groups)

        def tot(x):
            return np.bincount(inv, weights=x, minlength=m)

        eu = np.stack([tot(bidding.expected_utility_per_row(a, v, p, c, beta=b)) for b in betas], axis=1) \
            if betas else np.zeros((m, 0))
        return cls(groups, np.bincount(inv, minlength=m).astype(np.int64), tot(util),
                   tot(bidding.weighted_squared_error_per_row(a, v, p)), eu, betas)

    def merge(self, other: UtilitySums) -> UtilitySums:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : UtilitySums
            The accumulator of another chunk of the same log (same options).
        """
        _check_other(self, other)
        if self.betas != other.betas:
            raise ValueError("cannot merge sums over different `betas`")
        groups, inv = np.unique(np.r_[self.groups, other.groups], return_inverse=True)
        m = len(groups)

        def tot(x, y):
            return np.bincount(inv, weights=np.r_[x, y], minlength=m)

        eu = np.stack([tot(self.eu[:, j], other.eu[:, j]) for j in range(len(self.betas))], axis=1) \
            if self.betas else np.zeros((m, 0))
        return UtilitySums(groups, tot(self.n, other.n).astype(np.int64), tot(self.utility, other.utility),
                           tot(self.wse, other.wse), eu, self.betas)

    def frame(self) -> pd.DataFrame:
        """One row per group: ``group, rows, utility, weighted_se`` and ``eu_<beta>`` columns (sums)."""
        df = pd.DataFrame({"group": self.groups, "rows": self.n, "utility": self.utility, "weighted_se": self.wse})
        for j, b in enumerate(self.betas):
            df[f"eu_{b:g}"] = self.eu[:, j]
        return df
