"""The accumulator of the AUC and the ROC curve behind :mod:`offline_eval.mergeable`: the weight of positives and of
negatives per distinct score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._chunks import check_fields, check_other, chunk_arrays, merge_sorted, score_cells
from ._validation import check_real, warn_undefined
from ._metrics_roc import roc_auc_score_from_counts, roc_curve_from_counts


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
        check_fields(self, ("values", "pos", "neg"), nonnegative=("pos", "neg"))

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
        check_other(self, other)
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
        """AUC with ties counted 1/2 (equals :func:`offline_eval.metrics.roc_auc_score` on the rows).

        Whole counts (no weights) whose pairs number below 2**52 are counted in integers, as the in-memory
        function counts them: the same bits as :func:`~offline_eval.metrics.roc_auc_score_from_counts`
        (whose float sums are then exact), without re-validating counts checked when they were built.
        """
        pos, neg = self.pos, self.neg
        if self.scale == 0 and pos.size:
            n_pos, n_neg = float(pos.sum()), float(neg.sum())
            if 0 < n_pos * n_neg < 2.0**52 and np.array_equal(pos, np.floor(pos)) and np.array_equal(neg, np.floor(neg)):
                p, n = pos.astype(np.int64), neg.astype(np.int64)
                below = np.cumsum(n) - n
                twice = 2 * int(np.dot(p, below)) + int(np.dot(p, n))
                return float(twice / (2.0 * n_pos * n_neg))
        return roc_auc_score_from_counts(pos[::-1], neg[::-1])

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
