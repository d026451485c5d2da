"""The accumulators of the probability metrics behind :mod:`offline_eval.mergeable`: the loss sums (log loss, RIG,
calibration, prediction error, MSE, MAE) and their breakdown by quantile of the score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from ._chunks import check_other, checked_labels, chunk_arrays, weight_scale
from ._losses import LOG_LOSS_EPS, entropy, log_likelihood, pointwise_log_loss
from ._validation import (
    InputTypeError, as_1d, check_aligned, check_consistent_length, check_finite, check_int, check_real,
    floor_snapped, integer_weights, warn_undefined,
)
from ._mergeable_scores import ScoreCounts


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
        check_other(self, other)
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
        """Average pClick over the CTR (nan, with a warning, where the CTR is 0: without a click, or with clicks of
        weights too small beside the others for the CTR to be above 0 in float64, as in memory)."""
        if self.w > 0 and self.wy / self.w > 0:
            return self.wp / self.wy
        warn_undefined("the calibration ratio is undefined when the data hold no click (CTR 0); returning nan",
                       stacklevel=3)
        return float("nan")

    def prediction_error(self) -> float:
        return self.calibration_ratio() - 1.0


def unweighted_loss_sums(y, p, names, eps):
    """The :class:`LossSums` of one task's unweighted rows, in about a third of
    :meth:`LossSums.from_arrays`' passes over them.

    Per class: ``sum (y - p)^2 = sum p^2 + sum_clicks (1 - 2 p)`` and ``sum |y - p| = sum p + sum_clicks (1 - 2 p)``;
    the log loss is ``-log1p(-p)`` of every row, replaced by ``-log p`` at the clicks.  The sums agree with
    ``from_arrays`` to about 1e-15 relative (another order of addition)."""
    click, p = checked_labels(y, p, names, finite=False)
    lo, hi = (float(p.min()), float(p.max())) if p.size else (0.0, 1.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):  # a nan is the minimum; an infinity an extreme
        check_finite(p, names[1])  # the named error
    if lo < 0 or hi > 1:
        raise ValueError(f"`{names[1]}` must lie in [0, 1]; got min {lo:.6g}, max {hi:.6g}")
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    clip = eps if eps > 0 and (lo < eps or hi > 1.0 - eps) else 0.0  # else clipping changes nothing: no copy
    clicks = np.flatnonzero(click)
    loss = log_likelihood(p, False, clip)
    loss[clicks] = log_likelihood(p[clicks], True, clip)
    at = p[clicks]
    n_pos = float(at.size)
    fix = float(n_pos - 2.0 * at.sum())  # sum over the clicks of 1 - 2 p
    wp, n = float(p.sum()), float(p.size)
    return LossSums(n, n, n_pos, wp, -float(loss.sum()), float(np.dot(p, p)) + fix, wp + fix, float(eps), 0,
                    n_pos, n - n_pos)


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
        held = w > 0  # a row of weight 0 is as if dropped: it widens no bin's range (as in memory)
        np.minimum.at(lo, b[held], s[held])
        np.maximum.at(hi, b[held], s[held])
        return cls(sums, lo, hi)

    def merge(self, other: QuantileSums) -> QuantileSums:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : QuantileSums
            The accumulator of another chunk of the same log (same options).
        """
        check_other(self, other)
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
