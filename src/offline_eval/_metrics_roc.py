"""Discrimination behind :mod:`offline_eval.metrics`: the AUC and the ROC curve, from rows or from binned counts
(yi Section 4.1); the multiclass AUC of a probability matrix, one-vs-rest and one-vs-one (Hand and Till)."""

from __future__ import annotations

import math

import numpy as np

from ._classes import check_labels_1d, check_probability_matrix, encode_classes, ndim_of
from ._sorting import sorted_order
from ._validation import (
    as_1d, check_aligned, check_binary, check_choice, check_consistent_length, check_finite, check_nonnegative,
    check_row_weights, scale_weights, warn_undefined,
)

#: The averages of :func:`roc_auc_score`: ``None`` (one AUC per class) and ``"micro"`` with one-vs-rest only.
AVERAGES = ("macro", "weighted", "micro", None)

#: What a binary AUC's error says to do with more than two classes.
MULTICLASS_HINT = ("for a multiclass AUC pass `y_score` as the (n_samples, n_classes) probability matrix with "
                   "`multi_class='ovr'` (one-vs-rest) or `multi_class='ovo'` (one-vs-one)")

#: How far a row of a multiclass ``y_score`` may sum from 1: scikit-learn's ``np.allclose(1, y_score.sum(axis=1))``.
ROW_SUM_RTOL, ROW_SUM_ATOL = 1e-5, 1e-8


def _check_scores(y_true, y_score, sample_weight, pos_label=None, multiclass=None):
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label, multiclass=multiclass)
    s = check_finite(as_1d(y_score, "y_score"), "y_score")
    check_consistent_length(y_true=y, y_score=s)
    w = check_row_weights(sample_weight, len(y))
    return y, s, scale_weights(w)


def roc_auc_score(y_true, y_score, *, sample_weight=None, pos_label=None, multi_class=None, average="macro",
                  labels=None):
    """Area under the ROC curve, with tied scores counted one half; for several classes, one-vs-rest or one-vs-one.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary labels: 0/1 or bool, or any two labels with ``pos_label``.  With ``multi_class``: any hashable
        class labels.
    y_score : array-like of shape (n,) or (n, k)
        Finite scores; higher means "more likely positive".  With ``multi_class``: a probability matrix, column
        ``j`` the probability of class ``j`` (the ``j``-th of the sorted classes, or of ``labels``), entries in
        [0, 1] and rows summing to 1 (within scikit-learn's ``np.allclose``: ``1e-8 + 1e-5 * |sum|``).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights.  A zero weight is the same as dropping the row.  Not with ``multi_class="ovo"``
        (as scikit-learn).
    pos_label : str, int or bool, optional
        The label of the positives when ``y_true`` holds labels other than 0/1 (binary only).
    multi_class : {"ovr", "ovo"}, optional
        The multiclass AUC of a probability matrix ``y_score``: ``"ovr"`` each class against the rest,
        ``"ovo"`` each pair of classes (Hand and Till).  Required when ``y_score`` is a matrix.
    average : {"macro", "weighted", "micro", None}, default "macro"
        How the per-class (``"ovr"``) or per-pair (``"ovo"``) AUCs are averaged: ``"macro"`` plainly,
        ``"weighted"`` by each class's weight (``"ovr"``) or each pair's share of the rows (``"ovo"``);
        ``"micro"`` (``"ovr"`` only) is the binary AUC of every (row, class) cell, the class's indicator against its
        probability; ``None`` (``"ovr"`` only) returns the per-class AUCs.  Ignored for a binary AUC.
    labels : array-like of shape (k,), optional
        The classes of the columns of ``y_score``, sorted (as scikit-learn's); needed when a class is absent from
        ``y_true``.  Default: the sorted distinct labels of ``y_true``.

    Returns
    -------
    float, or ndarray of shape (k,) with ``average=None``
        The AUC, or ``nan`` (with a warning) when one class has no weight; with ``multi_class``, ``nan`` when an
        average needs a class's AUC that is undefined (a class with no row, for ``"ovr"`` ``"macro"``).

    Raises
    ------
    ValueError
        An invalid input, named: ``y_true`` with more than two classes and a 1-D ``y_score`` (the error points
        to ``multi_class``), a matrix ``y_score`` without ``multi_class``, rows that do not sum to 1, labels not
        in ``labels``, an unsorted ``labels``, a ``labels`` of another length than ``y_score``'s columns.

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

    **One-vs-rest** (``multi_class="ovr"``; Provost and Domingos [3]): for each class :math:`c`,
    :math:`A_c` is the binary AUC of the rows of class :math:`c` (positives) against all others, scored by
    column :math:`c`; ``"macro"`` is :math:`\\frac1k \\sum_c A_c`, ``"weighted"`` is
    :math:`\\sum_c W_c A_c / \\sum_c W_c` with :math:`W_c` the class's weight (a class with no row has weight
    0 and drops out).  **One-vs-one** (``multi_class="ovo"``; Hand and Till [4]): over the pairs of
    classes present in ``y_true``,

    .. math:: M = \\frac{2}{c(c - 1)} \\sum_{i < j} \\frac{A(i|j) + A(j|i)}{2},

    :math:`A(i|j)` the AUC of class :math:`i`'s rows against class :math:`j`'s, both scored by column
    :math:`i`; ``"weighted"`` weights each pair by its share of the rows.  Ties count one half in every AUC.
    Each class's scores are sorted once per column: O(k n log n) for k classes, O(n log n) per class.
    The values are scikit-learn's, which has the same definitions.

    References
    ----------
    .. [1] J. Yi et al., "Predictive Model Performance: Offline and Online
       Evaluations", KDD 2013, Section 4.1.
    .. [2] T. Fawcett, "An introduction to ROC analysis", Pattern
       Recognition Letters 27 (2006), Algorithm 2.
    .. [3] F. Provost and P. Domingos, "Well-trained PETs: Improving probability estimation trees", CeDER
       Working Paper IS-00-04, New York University (2000).
    .. [4] D. J. Hand and R. J. Till, "A simple generalisation of the area under the ROC curve for multiple
       class classification problems", Machine Learning 45 (2001), 171-186.

    Examples
    --------
    Two positives, two negatives; one tie between a positive and a negative:

    >>> roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    0.75
    >>> roc_auc_score([0, 1, 0, 1], [0.2, 0.2, 0.1, 0.9])
    0.875
    >>> roc_auc_score(["no", "no", "yes", "yes"], [0.1, 0.4, 0.35, 0.8], pos_label="yes")
    0.75

    Three classes, one row each; class 2's row outscores the others in column 2, but class 0's row ties
    class 1's in column 0 (one half), so class 0 against the rest is (1 + 1/2) / 2:

    >>> p = [[0.5, 0.25, 0.25], [0.5, 0.5, 0.0], [0.0, 0.25, 0.75]]
    >>> roc_auc_score([0, 1, 2], p, multi_class="ovr", average=None).tolist()
    [0.75, 1.0, 1.0]
    >>> round(roc_auc_score([0, 1, 2], p, multi_class="ovr"), 6)
    0.916667
    >>> roc_auc_score([0, 1, 2], p, multi_class="ovo")
    0.9166666666666666
    """
    if multi_class is not None or ndim_of(y_score, "y_score") == 2:
        return _multiclass_auc(y_true, y_score, sample_weight, pos_label, multi_class, average, labels)
    if labels is not None:
        raise ValueError("`labels` names the columns of a probability matrix `y_score` (with `multi_class`); for a "
                         "binary AUC of two labels pass `pos_label`, the label of the positives")
    check_choice(average, "average", AVERAGES)  # as scikit-learn, ignored for binary labels
    y, s, w = _check_scores(y_true, y_score, sample_weight, pos_label, multiclass=MULTICLASS_HINT)
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
        return sorted_auc(s_pos, s_neg)

    w_pos_total = float(w[pos].sum())
    w_neg_total = float(w[~pos].sum())
    if w_pos_total == 0 or w_neg_total == 0:
        warn_undefined(
            f"AUC is undefined with only one class present (positive weight {w_pos_total:g}, "
            f"negative weight {w_neg_total:g}); returning nan"
        )
        return float("nan")
    return weighted_auc(pos, s, w, w_pos_total, w_neg_total)


def sorted_auc(s_pos: np.ndarray, s_neg: np.ndarray) -> float:
    """The unweighted AUC of two non-empty sorted samples, positives' and negatives' scores: the engine.

    The binary-searches of the smaller class's scores in the larger one's count the pairs it wins and ties
    (whole numbers, exact in int64); the AUC is their ratio to ``n_pos * n_neg``.
    """
    n_pos, n_neg = len(s_pos), len(s_neg)
    if n_neg >= n_pos:
        lo = np.searchsorted(s_neg, s_pos, side="left")
        hi = np.searchsorted(s_neg, s_pos, side="right")
        # negatives below each positive, plus half of the ties: (lo + hi) / 2
        twice = int(lo.sum(dtype=np.int64)) + int(hi.sum(dtype=np.int64))
    else:
        lo = np.searchsorted(s_pos, s_neg, side="left")
        hi = np.searchsorted(s_pos, s_neg, side="right")
        # positives above each negative, plus half of the ties
        twice = 2 * n_pos * n_neg - int(lo.sum(dtype=np.int64)) - int(hi.sum(dtype=np.int64))
    return float(twice / (2.0 * n_pos * n_neg))


def weighted_auc(pos: np.ndarray, s: np.ndarray, w: np.ndarray, w_pos_total: float, w_neg_total: float) -> float:
    """The weighted AUC of the rows ``pos`` (positives) against the others, both totals positive: the engine."""
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


def _multiclass_auc(y_true, y_score, sample_weight, pos_label, multi_class, average, labels):
    """:func:`roc_auc_score` of a probability matrix: the checks once, then :func:`ovr_auc` or :func:`ovo_auc`."""
    check_labels_1d(y_true, "y_true")
    if multi_class is None:
        raise ValueError(f"`y_score` is a matrix of shape {np.shape(y_score)}: pass `multi_class='ovr'` "
                         f"(one-vs-rest) or `multi_class='ovo'` (one-vs-one) for a multiclass AUC, or the positive "
                         f"class's column for a binary one")
    check_choice(multi_class, "multi_class", ("ovr", "ovo"))
    if pos_label is not None:
        raise ValueError(f"`pos_label` is for a binary AUC; with `multi_class` every class is positive in turn "
                         f"(the columns' classes are `labels`); got pos_label={pos_label!r}")
    check_choice(average, "average", AVERAGES if multi_class == "ovr" else ("macro", "weighted"))
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    if ndim_of(y_score, "y_score") != 2:
        raise ValueError(f"`y_score` must be a probability matrix of shape (n_samples, n_classes) with "
                         f"`multi_class`={multi_class!r}; got shape {np.shape(y_score)}")
    s = check_probability_matrix(y_score, "y_score", rtol=ROW_SUM_RTOL, atol=ROW_SUM_ATOL)
    codes, classes = encode_classes(y_true, s.shape[1], labels, score_name="y_score")
    check_consistent_length(y_true=codes, y_score=s)
    w = check_row_weights(sample_weight, len(codes))
    if multi_class == "ovo":
        if w is not None:
            raise ValueError("`sample_weight` is not supported with multi_class='ovo' (Hand and Till's pairs are "
                             "unweighted, as in scikit-learn); use multi_class='ovr'")
        return ovo_auc(codes, s, classes, average)
    return ovr_auc(codes, s, scale_weights(w), classes, average)


def _binary_or_nan(pos: np.ndarray, s: np.ndarray, w) -> float:
    """The binary AUC of the rows ``pos`` against the others, ``nan`` when either side has no weight (no warning:
    the caller says which class)."""
    if w is None:
        s_pos, s_neg = s[pos], s[~pos]
        if len(s_pos) == 0 or len(s_neg) == 0:
            return float("nan")
        s_pos.sort()
        s_neg.sort()
        return sorted_auc(s_pos, s_neg)
    w_pos, w_neg = float(w[pos].sum()), float(w[~pos].sum())
    if w_pos == 0 or w_neg == 0:
        return float("nan")
    return weighted_auc(pos, s, w, w_pos, w_neg)


def ovr_auc(codes: np.ndarray, s: np.ndarray, w, classes: np.ndarray, average):
    """One-vs-rest AUC of the class codes ``codes`` (rows) and the probability matrix ``s``: the engine."""
    n, k = s.shape
    if average == "micro":  # every row has one cell of its class and k - 1 of others: both kinds, always defined
        cells = (codes[:, None] == np.arange(k)[None, :]).ravel()
        return _binary_or_nan(cells, s.ravel(), None if w is None else np.repeat(w, k))
    aucs = np.array([_binary_or_nan(codes == c, s[:, c], w) for c in range(k)])
    support = np.bincount(codes, weights=w, minlength=k).astype(np.float64)
    undefined = np.isnan(aucs)
    if average == "weighted":  # a class of weight 0 drops out of the average (scikit-learn forces its AUC to 0)
        undefined &= support > 0
    if undefined.any():
        what = ("the per-class AUCs hold nan there" if average is None else f"the {average} average is nan")
        warn_undefined(f"one-vs-rest AUC is undefined for class(es) {classes[undefined].tolist()} (a class with no "
                       f"row, or every row of that class); {what}")
    if average is None:
        return aucs
    if undefined.any():
        return float("nan")
    if average == "macro":
        return math.fsum(aucs.tolist()) / k
    keep = support > 0
    return math.fsum((aucs[keep] * support[keep]).tolist()) / math.fsum(support[keep].tolist())


def ovo_auc(codes: np.ndarray, s: np.ndarray, classes: np.ndarray, average) -> float:
    """One-vs-one AUC (Hand and Till) of the class codes ``codes`` and the probability matrix ``s``: the engine.

    The pairs are those of the classes present in ``codes``, in order.  Each class's rows are scored by each
    present class's column and sorted once, so a pair's two AUCs are binary searches of sorted arrays.
    """
    counts = np.bincount(codes, minlength=s.shape[1])
    present = np.flatnonzero(counts)
    if len(present) < 2:
        warn_undefined(f"one-vs-one AUC is undefined with one class present ({classes[present].tolist()}); "
                       f"returning nan")
        return float("nan")
    order = np.argsort(codes, kind="stable")
    start = np.concatenate(([0], np.cumsum(counts)))
    rows = {c: order[start[c]:start[c + 1]] for c in present.tolist()}
    # column j's scores of class c's rows, sorted: k x k arrays of n x k values in all
    col = {(c, j): np.sort(s[rows[c], j]) for c in rows for j in rows}
    pair_scores, prevalence = [], []
    for i, a in enumerate(present.tolist()):
        for b in present[i + 1:].tolist():
            a_vs_b = sorted_auc(col[a, a], col[b, a])
            b_vs_a = sorted_auc(col[b, b], col[a, b])
            pair_scores.append((a_vs_b + b_vs_a) / 2)
            prevalence.append(float(counts[a] + counts[b]) / len(codes))
    if average == "macro":
        return math.fsum(pair_scores) / len(pair_scores)
    return math.fsum(p * q for p, q in zip(pair_scores, prevalence)) / math.fsum(prevalence)


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
