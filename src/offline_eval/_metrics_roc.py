"""Discrimination behind :mod:`offline_eval.metrics`: the AUC and the ROC curve, from rows or from binned counts
(yi Section 4.1)."""

from __future__ import annotations

import numpy as np

from ._sorting import sorted_order
from ._validation import (
    as_1d, check_aligned, check_binary, check_consistent_length, check_finite, check_nonnegative,
    check_row_weights, scale_weights, warn_undefined,
)


def _check_scores(y_true, y_score, sample_weight, pos_label=None):
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label)
    s = check_finite(as_1d(y_score, "y_score"), "y_score")
    check_consistent_length(y_true=y, y_score=s)
    w = check_row_weights(sample_weight, len(y))
    return y, s, scale_weights(w)


def roc_auc_score(y_true, y_score, *, sample_weight=None, pos_label=None) -> float:
    """Area under the ROC curve, with tied scores counted one half.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels: 0/1 or bool, or any two labels with ``pos_label``.
    y_score : array-like of shape (n,)
        Finite scores; higher means "more likely positive".
    sample_weight : array-like of shape (n,), optional
        Non-negative weights.  A zero weight is the same as dropping the row.
    pos_label : str, int or bool, optional
        The label of the positives when ``y_true`` holds labels other than 0/1.

    Returns
    -------
    float
        The AUC, or ``nan`` (with a warning) when one class has no weight.

    Notes
    -----
    The AUC is the probability that a random positive outscores a random
    negative, ties counting one half (the Mann-Whitney statistic):

    .. math::

        AUC = \\frac{\\sum_{i \\in P}\\sum_{j \\in N} w_i w_j
              \\left([s_i > s_j] + \\tfrac12 [s_i = s_j]\\right)}{W_P W_N}

    which equals the trapezoid area under the ROC curve drawn through every
    distinct score (yi Section 4.1; ``sklearn.metrics.roc_auc_score``).

    Computed by sorting each class (a SIMD sort of the values, no argsort)
    and binary-searching the sorted scores of the smaller class in those of
    the larger one: O(n log n), and no sort of the full data set.  Counts
    are accumulated in int64 (unweighted) or float64 (weighted).

    References
    ----------
    .. [1] J. Yi et al., "Predictive Model Performance: Offline and Online
       Evaluations", KDD 2013, Section 4.1.
    .. [2] T. Fawcett, "An introduction to ROC analysis", Pattern
       Recognition Letters 27 (2006), Algorithm 2.

    Examples
    --------
    Two positives, two negatives; one tie between a positive and a negative:

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 1, 0, 1], [0.2, 0.2, 0.1, 0.9])
    0.875
    >>> roc_auc_score(["no", "no", "yes", "yes"], [0.1, 0.4, 0.35, 0.8], pos_label="yes")
    0.75
    """
    y, s, w = _check_scores(y_true, y_score, sample_weight, pos_label)
    pos = y == 1
    if w is None:
        s_pos, s_neg = s[pos], s[~pos]
        n_pos, n_neg = len(s_pos), len(s_neg)
        if n_pos == 0 or n_neg == 0:
            warn_undefined(f"AUC is undefined with only one class present ({n_pos} positives, {n_neg} negatives); returning nan")
            return float("nan")
        # s_pos / s_neg are copies (boolean indexing), so sort them in place: the reference class to search,
        # the other one too, because sorted queries make the binary searches several times faster (each
        # starts from the last one's answer: cache-friendly); the counts are whole numbers, in any order
        s_pos.sort()
        s_neg.sort()
        if n_neg >= n_pos:
            ref = s_neg
            lo = np.searchsorted(ref, s_pos, side="left")
            hi = np.searchsorted(ref, s_pos, side="right")
            # negatives below each positive, plus half of the ties: (lo + hi) / 2
            twice = int(lo.sum(dtype=np.int64)) + int(hi.sum(dtype=np.int64))
        else:
            ref = s_pos
            lo = np.searchsorted(ref, s_neg, side="left")
            hi = np.searchsorted(ref, s_neg, side="right")
            # positives above each negative, plus half of the ties
            twice = 2 * n_pos * n_neg - int(lo.sum(dtype=np.int64)) - int(hi.sum(dtype=np.int64))
        return float(twice / (2.0 * n_pos * n_neg))

    w_pos_total = float(w[pos].sum())
    w_neg_total = float(w[~pos].sum())
    if w_pos_total == 0 or w_neg_total == 0:
        warn_undefined(
            f"AUC is undefined with only one class present (positive weight {w_pos_total:g}, "
            f"negative weight {w_neg_total:g}); returning nan"
        )
        return float("nan")
    s_neg, w_neg = s[~pos], w[~pos]
    order, s_neg = sorted_order(s_neg, with_values=True)  # np.argsort(s_neg, kind="stable"), faster
    cw = np.concatenate(([0.0], np.cumsum(w_neg[order])))
    s_pos, w_pos = s[pos], w[pos]
    # the positives searched in sorted order (binary searches several times faster), their results put back
    # in the rows' order: the dot product below adds them in that order, the same bits as before
    by = np.argsort(s_pos, kind="stable")
    below, below_or_equal = np.empty(len(s_pos)), np.empty(len(s_pos))
    below[by] = cw[np.searchsorted(s_neg, s_pos[by], side="left")]
    below_or_equal[by] = cw[np.searchsorted(s_neg, s_pos[by], side="right")]
    num = float(np.dot(w_pos, below + below_or_equal)) / 2.0
    return float(min(max(num / (w_pos_total * w_neg_total), 0.0), 1.0))


def roc_curve(y_true, y_score, *, sample_weight=None, pos_label=None):
    """ROC curve through every distinct score.

    Parameters
    ----------
    y_true, y_score, sample_weight, pos_label
        As in :func:`roc_auc_score`.

    Returns
    -------
    fpr, tpr : ndarray
        Rates at each threshold, starting at (0, 0) and ending at (1, 1).
    thresholds : ndarray
        Decreasing distinct scores; the first is ``inf`` (nothing predicted positive).

    Notes
    -----
    Same points as ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``,
    with or without ``sample_weight`` (rows of zero weight add no threshold).
    The trapezoid area under the points equals :func:`roc_auc_score`.

    Examples
    --------
    >>> fpr, tpr, thr = roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.0, 0.5, 0.5, 1.0], [0.0, 0.5, 0.5, 1.0, 1.0])
    """
    y, s, w = _check_scores(y_true, y_score, sample_weight, pos_label)
    if w is not None and (w == 0).any():  # as scikit-learn: a zero-weight row adds no threshold
        keep = w > 0
        y, s, w = y[keep], s[keep], w[keep]
    order = np.argsort(-s, kind="stable")
    s_sorted = s[order]
    wt = np.ones(len(y)) if w is None else w
    tp_w = np.where(y[order] == 1, wt[order], 0.0)
    fp_w = np.where(y[order] == 1, 0.0, wt[order])
    last_of_value = np.r_[np.flatnonzero(np.diff(s_sorted)), len(s_sorted) - 1]
    tps = np.cumsum(tp_w)[last_of_value]
    fps = np.cumsum(fp_w)[last_of_value]
    fpr, tpr = _rates(np.r_[0.0, tps], np.r_[0.0, fps])
    return fpr, tpr, np.r_[np.inf, s_sorted[last_of_value]]


def _rates(tps, fps):
    p, n = tps[-1], fps[-1]
    if p == 0 or n == 0:
        warn_undefined(f"ROC is undefined with only one class present (positives {p:g}, negatives {n:g}); rates are nan", stacklevel=4)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (fps / n if n > 0 else np.full_like(fps, np.nan)), (tps / p if p > 0 else np.full_like(tps, np.nan))


def _check_counts(positives, negatives):
    check_aligned(positives=positives, negatives=negatives)
    pos = check_nonnegative(positives, "positives")
    neg = check_nonnegative(negatives, "negatives")
    check_consistent_length(positives=pos, negatives=neg)
    # Counts may be weights at any scale (3e-170 or 1e300): one power-of-two rescale of both keeps
    # every ratio's bits where nothing under- or overflowed and makes it finite where something did.
    both = scale_weights(np.r_[pos, neg])
    return both[:len(pos)], both[len(pos):]


def roc_curve_from_counts(positives, negatives):
    """ROC points from per-bin counts given in descending score order.

    Parameters
    ----------
    positives, negatives : array-like of shape (k,)
        Number (or weight) of positives and negatives in each score bin, the
        bins listed from the highest score to the lowest, as the yi tables print
        them (``# clicks``, ``# no-clicks``).

    Returns
    -------
    fpr, tpr : ndarray of shape (k + 1,)
        Cumulative rates after each bin, starting at (0, 0).

    Examples
    --------
    >>> fpr, tpr = roc_curve_from_counts([3, 1], [1, 3])
    >>> fpr.tolist(), tpr.tolist()
    ([0.0, 0.25, 1.0], [0.0, 0.75, 1.0])
    """
    pos, neg = _check_counts(positives, negatives)
    return _rates(np.r_[0.0, np.cumsum(pos)], np.r_[0.0, np.cumsum(neg)])


def roc_auc_score_from_counts(positives, negatives) -> float:
    """AUC from per-bin counts given in descending score order (rows of a yi table).

    Parameters
    ----------
    positives, negatives : array-like of shape (k,)
        As in :func:`roc_curve_from_counts`.

    Returns
    -------
    float
        The AUC, or ``nan`` with a warning when one class has no count.

    Every row of a bin shares one score, so within a bin positives and
    negatives tie and count one half: the trapezoid rule on
    :func:`roc_curve_from_counts`,

    .. math:: AUC = \\sum_k (FPR_k - FPR_{k-1}) \\frac{TPR_k + TPR_{k-1}}{2},

    which equals :func:`roc_auc_score` on the rows the bins expand to.

    Examples
    --------
    >>> roc_auc_score_from_counts([3, 1], [1, 3])
    0.75
    """
    pos, neg = _check_counts(positives, negatives)
    p, n = pos.sum(), neg.sum()
    if p == 0 or n == 0:
        warn_undefined(f"AUC is undefined with only one class present (positives {p:g}, negatives {n:g}); returning nan")
        return float("nan")
    # Mann-Whitney form of the trapezoid sum (exact in float64 for integer counts)
    neg_below = n - np.cumsum(neg)
    return float(np.dot(pos, neg_below + 0.5 * neg) / (p * n))
