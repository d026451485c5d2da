"""Offline metrics of binary predictions (yi Sections 2.2 and 4.1-4.5).

Discrimination: :func:`roc_auc_score`, :func:`roc_auc_score_from_counts`,
:func:`roc_curve`, :func:`roc_curve_from_counts`.  Probability quality:
:func:`log_loss`, :func:`rig_score`, :func:`prediction_error`,
:func:`calibration_ratio`, and :func:`quantile_breakdown` (the same metrics per
quantile of predicted score).  Residuals, for clicks and for any numeric
response (rosset's RMSE, MAE and MAD too): :func:`mean_squared_error` (the
Brier score on clicks), :func:`normalized_mean_squared_error`,
:func:`root_mean_squared_error`, :func:`mean_absolute_error`,
:func:`median_absolute_error`.  Uncertainty: :func:`bootstrap_ci`.

Names say the direction: ``*_score`` higher is better, ``*_error`` and
``*_loss`` lower is better.  Binary metrics take 0/1 (or bool) labels, or any
two labels with ``pos_label`` naming the positive one, as scikit-learn's.

All functions validate their inputs once (see :mod:`offline_eval._validation`):
invalid input raises ``ValueError`` naming the argument; legal input on which
a metric is undefined (only one class present) returns ``nan`` with an
:class:`~offline_eval.OfflineEvalWarning`.
"""

from __future__ import annotations

import numpy as np

from ._bootstrap import BootstrapCI, check_boot, check_boot_work, percentile_ci
from ._losses import entropy, pointwise_log_loss
from ._validation import (
    OfflineEvalWarning,
    as_1d,
    check_aligned,
    check_binary,
    check_consistent_length,
    check_int,
    check_real,
    check_finite,
    floor_snapped,
    integer_weights,
    check_nonnegative,
    check_probability,
    check_sample_weight,
    scale_weights,
    warn_undefined,
)

__all__ = ["roc_auc_score", "roc_auc_score_from_counts", "roc_curve", "roc_curve_from_counts"]


def _check_scores(y_true, y_score, sample_weight, pos_label=None):
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label)
    s = check_finite(as_1d(y_score, "y_score"), "y_score")
    check_consistent_length(y_true=y, y_score=s)
    w = check_sample_weight(sample_weight, len(y))
    if w is not None and not w.any():
        raise ValueError("`sample_weight` must not be all zero; got a total weight of 0")
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

    Computed by sorting the larger class once and binary-searching the
    scores of the smaller one: O(n log n) with a SIMD sort, and no sort of
    the full data set.  Counts are accumulated in int64 (unweighted) or
    float64 (weighted).

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
        # s_pos / s_neg are copies (boolean indexing), so sort the reference class in place
        if n_neg >= n_pos:
            ref = s_neg
            ref.sort()
            lo = np.searchsorted(ref, s_pos, side="left")
            hi = np.searchsorted(ref, s_pos, side="right")
            # negatives below each positive, plus half of the ties: (lo + hi) / 2
            twice = int(lo.sum(dtype=np.int64)) + int(hi.sum(dtype=np.int64))
        else:
            ref = s_pos
            ref.sort()
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
    order = np.argsort(s_neg, kind="stable")
    s_neg = s_neg[order]
    cw = np.concatenate(([0.0], np.cumsum(w_neg[order])))
    s_pos, w_pos = s[pos], w[pos]
    below = cw[np.searchsorted(s_neg, s_pos, side="left")]
    below_or_equal = cw[np.searchsorted(s_neg, s_pos, side="right")]
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


# ---------------------------------------------------------------------------------------
# Calibration and loss metrics of predicted click probabilities (yi Sections 2.2, 4.2-4.5)
# ---------------------------------------------------------------------------------------
__all__ += [
    "calibration_ratio",
    "log_loss",
    "mean_absolute_error",
    "mean_squared_error",
    "median_absolute_error",
    "normalized_mean_squared_error",
    "prediction_error",
    "quantile_breakdown",
    "rig_score",
    "root_mean_squared_error",
]

#: Default clipping of probabilities in :func:`log_loss` and :func:`rig_score`.
LOG_LOSS_EPS = 1e-15


def _check_probs(y_true, y_prob, sample_weight, *, scale=True, pos_label=None):
    check_aligned(y_true=y_true, y_prob=y_prob, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label)
    p = check_probability(y_prob, "y_prob")
    check_consistent_length(y_true=y, y_prob=p)
    w = check_sample_weight(sample_weight, len(y))
    if w is not None and not w.any():
        raise ValueError("`sample_weight` must not be all zero; got a total weight of 0")
    return y, p, (scale_weights(w) if scale else w)


def _check_residuals(y_true, y_pred, sample_weight):
    check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    y = check_finite(as_1d(y_true, "y_true"), "y_true")
    m = check_finite(as_1d(y_pred, "y_pred"), "y_pred")
    check_consistent_length(y_true=y, y_pred=m)
    w = check_sample_weight(sample_weight, len(y))
    if w is not None and not w.any():
        raise ValueError("`sample_weight` must not be all zero; got a total weight of 0")
    return y, m, scale_weights(w)


def _mean(x, w):
    return float(np.mean(x)) if w is None else float(np.dot(w, x) / w.sum())


def log_loss(y_true, y_prob, *, sample_weight=None, eps=LOG_LOSS_EPS, pos_label=None) -> float:
    """Mean log-loss (negative Bernoulli log-likelihood), natural log.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Observed clicks: 0/1 or bool, or any two labels with ``pos_label``.
    y_prob : array-like of shape (n,)
        Predicted click probabilities (pClick, of the positive label), in [0, 1].
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (for example impression counts); not all zero.
    eps : float, default 1e-15
        Probabilities are clipped to ``[eps, 1 - eps]`` before taking logs, so
        a prediction of exactly 0 or 1 with the wrong label costs
        ``-log(eps)`` (34.5 nats) instead of infinity.  ``eps=0`` computes
        the unclipped loss, which is ``inf`` in that case.
    pos_label : str, int or bool, optional
        The label of the positives when ``y_true`` holds labels other than 0/1.

    Returns
    -------
    float

    Notes
    -----
    yi Section 2.2:

    .. math:: L(y|p) = -y \\log p - (1 - y) \\log(1 - p),

    averaged over the rows (weighted by ``sample_weight``).  Equal to
    ``sklearn.metrics.log_loss`` with the same clipping.

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Section 2.2.

    Examples
    --------
    One click predicted at 0.5 and one no-click predicted at 0.5 cost log 2 each:

    >>> round(log_loss([1, 0], [0.5, 0.5]), 6)
    0.693147
    >>> log_loss([1], [0.0], eps=0)
    inf
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    return _mean(pointwise_log_loss(y, p, check_real(eps, "eps", low=0, high=0.5, closed="left")), w)


def rig_score(y_true, y_prob, *, sample_weight=None, eps=LOG_LOSS_EPS, pos_label=None) -> float:
    """Relative information gain: 1 - log-loss / entropy of the data's CTR.

    Parameters
    ----------
    y_true, y_prob, sample_weight, eps, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        RIG (higher is better; 0 for the constant predictor ``p = CTR``, 1
        for a perfect one, negative for a model worse than the constant), or
        ``nan`` with an :class:`~offline_eval.OfflineEvalWarning` when the
        data hold only clicks or only no-clicks (zero entropy).

    Notes
    -----
    yi eq. (2), with :math:`\\gamma` the (weighted) CTR of the evaluation data:

    .. math::

        RIG = 1 - \\frac{\\overline{-c \\log p - (1 - c) \\log(1 - p)}}
                         {-\\gamma \\log \\gamma - (1 - \\gamma) \\log(1 - \\gamma)}

    The base of the logarithm cancels.  The numerator is :func:`log_loss`
    (same clipping ``eps``).

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Section 4.2, eq. (2).
    .. [2] T. Graepel et al., "Web-scale Bayesian click-through rate
       prediction for sponsored search advertising", ICML 2010.

    Examples
    --------
    Predicting the data's own CTR (0.25) for every row gains nothing:

    >>> rig_score([1, 0, 0, 0], [0.25] * 4)
    0.0
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    gamma = _mean(y, w)
    # One class present is decided on the labels, not on the weighted mean: with weights, the mean of
    # all-ones labels can round to 0.9999999999999999, whose tiny entropy would give a huge negative RIG.
    present = y if w is None else y[w > 0]
    h = entropy(gamma) if present.min() != present.max() else 0.0
    if h == 0.0:
        warn_undefined(f"RIG is undefined when the data's CTR is {gamma:g} (zero entropy); returning nan")
        return float("nan")
    return float(1.0 - _mean(pointwise_log_loss(y, p, eps), w) / h)


def calibration_ratio(y_true, y_prob, *, sample_weight=None, pos_label=None) -> float:
    """Average pClick over actual CTR (1 for a calibrated model).

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        The ratio, or ``nan`` with a warning when the data hold no click.

    Notes
    -----
    :math:`\\overline{p} / \\gamma`, the ratio yi print in Tables 2-4 and
    quote for Fig. 1 (1.02 for sponsored search, 0.86 for contextual ads).

    Examples
    --------
    >>> calibration_ratio([1, 0, 0, 0], [0.5, 0.1, 0.1, 0.3])
    1.0
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    return _ratio(_mean(p, w), _mean(y, w), "calibration ratio")


def prediction_error(y_true, y_prob, *, sample_weight=None, pos_label=None) -> float:
    """Prediction error: average pClick over actual CTR, minus one.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        The relative error of the average prediction (0 for a model calibrated on average), or ``nan`` with a
        warning when the data hold no click.

    Notes
    -----
    yi Section 4.5: :math:`PE = \\overline{p} / \\gamma - 1`.  Zero for a
    model whose average prediction equals the CTR, even when individual
    predictions are poor (over- and under-estimates cancel).

    Examples
    --------
    >>> prediction_error([1, 0, 0, 0], [0.5, 0.25, 0.25, 0.5])
    0.5
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    return _ratio(_mean(p, w), _mean(y, w), "prediction error") - 1.0


def _ratio(avg_p, gamma, what):
    if gamma == 0.0:
        warn_undefined(f"{what} is undefined when the data hold no click (CTR 0); returning nan", stacklevel=4)
        return float("nan")
    return float(avg_p / gamma)


# ---------------------------------------------------------------------------------------
# Residual measures: clicks against pClick (yi Sections 4.3-4.4), or any numeric response
# against a regression model's prediction (rosset Section 2, eq. 1)
# ---------------------------------------------------------------------------------------
def mean_squared_error(y_true, y_pred, *, sample_weight=None) -> float:
    """Mean squared error, :math:`\\sum_i w_i (y_i - m_i)^2 / \\sum_i w_i`.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Responses: clicks (0/1) or any finite numbers.
    y_pred : array-like of shape (n,)
        Predictions (pClick for clicks), finite.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights, not all zero.

    Returns
    -------
    float

    Notes
    -----
    On clicks it is the Brier score of yi Section 4.3,
    :math:`\\frac1n \\sum_i c_i (1 - p_i)^2 + (1 - c_i) p_i^2`; on a numeric
    response, rosset's squared-error loss.  Equal to
    ``sklearn.metrics.mean_squared_error`` (and ``brier_score_loss`` on clicks),
    with or without weights.

    Examples
    --------
    >>> mean_squared_error([1, 0], [0.75, 0.5])
    0.15625
    """
    y, m, w = _check_residuals(y_true, y_pred, sample_weight)
    return _mean((y - m) ** 2, w)


def root_mean_squared_error(y_true, y_pred, *, sample_weight=None) -> float:
    """RMSE, the square root of :func:`mean_squared_error` (rosset's RMSE, Tables 1-2).

    Parameters
    ----------
    y_true, y_pred, sample_weight
        As in :func:`mean_squared_error`.

    Returns
    -------
    float

    Examples
    --------
    >>> root_mean_squared_error([0, 0], [3, 4])
    3.5355339059327378
    """
    return float(np.sqrt(mean_squared_error(y_true, y_pred, sample_weight=sample_weight)))


def normalized_mean_squared_error(y_true, y_pred, *, sample_weight=None) -> float:
    """MSE over the (weighted) variance of ``y_true``: 1 for the constant prediction of the mean.

    Parameters
    ----------
    y_true, y_pred, sample_weight
        As in :func:`mean_squared_error`.

    Returns
    -------
    float
        NMSE, or ``nan`` with a warning when ``y_true`` is constant (only one class on clicks).

    Notes
    -----
    yi Section 4.3: :math:`NMSE = MSE / (\\gamma (1 - \\gamma))` with :math:`\\gamma`
    the CTR, which is the variance of 0/1 clicks; for any response the
    denominator is :math:`\\sum_i w_i (y_i - \\bar y)^2 / \\sum_i w_i`.

    Examples
    --------
    >>> normalized_mean_squared_error([1, 0, 0, 0], [0.25] * 4)
    1.0
    """
    y, m, w = _check_residuals(y_true, y_pred, sample_weight)
    # NMSE is scale-free but its squares are not: at 1e200 they overflow (nan), at 1e-200 underflow (0).
    # Rescale responses and predictions by one power of two (exact) when, and only when, they are that
    # extreme; ordinary data keep their bits.
    top = max(float(np.max(np.abs(y))), float(np.max(np.abs(m))))
    if top > 2.0**400 or 0 < top < 2.0**-400:
        shift = -int(np.frexp(top)[1])
        y, m = np.ldexp(y, shift), np.ldexp(m, shift)
    var = _mean((y - _mean(y, w)) ** 2, w)
    if var == 0.0:
        warn_undefined("NMSE is undefined when `y_true` is constant (zero variance); returning nan")
        return float("nan")
    return _mean((y - m) ** 2, w) / var


def mean_absolute_error(y_true, y_pred, *, sample_weight=None) -> float:
    """Mean absolute error, :math:`\\sum_i w_i |y_i - m_i| / \\sum_i w_i` (yi Section 4.4; rosset's MAE).

    Parameters
    ----------
    y_true, y_pred, sample_weight
        As in :func:`mean_squared_error`.

    Returns
    -------
    float

    Notes
    -----
    Equal to ``sklearn.metrics.mean_absolute_error``, with or without weights.

    Examples
    --------
    >>> mean_absolute_error([1, 0], [0.75, 0.5])
    0.375
    >>> mean_absolute_error([0, 0], [3, -4])
    3.5
    """
    y, m, w = _check_residuals(y_true, y_pred, sample_weight)
    return _mean(np.abs(y - m), w)


def median_absolute_error(y_true, y_pred) -> float:
    """Median absolute error (rosset's MAD, eq. 1): the mean of the middle two residuals for even n.

    Parameters
    ----------
    y_true, y_pred
        As in :func:`mean_squared_error` (no weights: the weighted median has
        no single convention).

    Returns
    -------
    float

    Notes
    -----
    Equal to ``sklearn.metrics.median_absolute_error`` without weights.

    Examples
    --------
    >>> median_absolute_error([0, 0, 0], [1, -5, 2])
    2.0
    """
    y, m, _ = _check_residuals(y_true, y_pred, None)
    return float(np.median(np.abs(y - m)))


def quantile_breakdown(y_true, y_prob, *, n_quantiles=10, by=None, sample_weight=None, eps=LOG_LOSS_EPS,
                       pos_label=None):
    """The metrics of :func:`log_loss` & co. per quantile of predicted score.

    Parameters
    ----------
    y_true, y_prob : array-like of shape (n,)
        Clicks and predicted click probabilities.
    n_quantiles : int, default 10
        Number of equal-weight quantile bins of the score.
    by : array-like of shape (n,), optional
        The score that defines the quantiles (default ``y_prob``).  Pass the
        baseline's pClick to break two models down on the same rows (yi
        Figs. 3-4).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (not all zero).  Only their ratios matter: every column but ``weight`` and
        ``clicks`` (the totals as given) is the same for weights rescaled by a power of two, 5e-324 or 1e308.
    eps : float, default 1e-15
        Clipping of :func:`log_loss`.
    pos_label : str, int or bool, optional
        As in :func:`log_loss`.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin, lowest scores first, with columns
        ``quantile`` (1-based), ``score_lo``, ``score_hi`` (range of ``by``
        in the bin), ``weight``, ``clicks``, ``ctr``, ``avg_pclick``,
        ``log_loss`` (mean in the bin), ``log_loss_share`` (the bin's share
        of the total summed log-loss; sums to 1), ``rig``, ``mse``, ``mae``,
        ``prediction_error``, ``calibration_ratio``.  Metrics undefined in a
        bin (no click, or only clicks) are ``nan``, with one warning.

    Notes
    -----
    Rows are sorted by ``by`` (stable) and row *i* goes to bin
    :math:`\\lfloor q \\cdot W_{<i} / W \\rfloor`, with :math:`W_{<i}` the
    weight before it.  **Tie rule:** rows with equal ``by`` all go to the
    bin of the first of them, so a bin never splits a tie (bins may then be
    unequal or empty; empty bins are left out).  Each bin's metrics are the
    functions of this module on the bin's rows; ``log_loss_share`` is
    :math:`\\sum_{i \\in bin} w_i L_i / \\sum_i w_i L_i` (yi Fig. 3).

    Examples
    --------
    >>> t = quantile_breakdown([0, 1, 0, 1], [0.1, 0.2, 0.6, 0.9], n_quantiles=2)
    >>> t[["quantile", "clicks", "ctr", "avg_pclick"]].to_dict("list")
    {'quantile': [1, 2], 'clicks': [1.0, 1.0], 'ctr': [0.5, 0.5], 'avg_pclick': [0.15000000000000002, 0.75]}
    """
    import pandas as pd

    # `weight` and `clicks` are reported as given; every ratio is computed from power-of-two-rescaled weights
    y, p, w = _check_probs(y_true, y_prob, sample_weight, scale=False, pos_label=pos_label)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    check_int(n_quantiles, "n_quantiles", low=1)
    if n_quantiles > max(len(y), 1000):  # per-bin arrays: memory bounded by the data, not by the argument
        raise ValueError(f"`n_quantiles` must be at most max(rows, 1000) = {max(len(y), 1000)}; got {n_quantiles}")
    if by is None:
        s = p
    else:
        check_aligned(y_true=y_true, by=by)
        s = check_finite(as_1d(by, "by"), "by")
        check_consistent_length(y_true=y, by=s)
    wt = np.ones(len(y)) if w is None else w
    order = np.argsort(s, kind="stable")
    s_sorted = s[order]
    # The bins from power-of-two-rescaled weights (no overflow at 1e308, the same bits otherwise), and a
    # boundary that is an integer in exact arithmetic stays one at any weight scale (floor_snapped).
    wsc = scale_weights(wt)  # every total below from these: 5e-324 or 1e308 weights neither vanish nor overflow
    ws = wsc[order]
    cum_before = np.cumsum(ws) - ws
    q = int(n_quantiles)
    bins_sorted = np.minimum(floor_snapped(q * cum_before / ws.sum(), len(ws), exact=integer_weights(w)).astype(np.int64),
                             q - 1)
    # tie rule: a tie group takes the bin of its first row
    first_of_group = np.r_[0, np.flatnonzero(np.diff(s_sorted)) + 1]
    group_len = np.diff(np.r_[first_of_group, len(s_sorted)])
    bins_sorted = np.repeat(bins_sorted[first_of_group], group_len)
    b = np.empty(len(y), dtype=np.int64)
    b[order] = bins_sorted

    loss = pointwise_log_loss(y, p, eps)

    def total(x):
        return np.bincount(b, weights=wsc * x, minlength=q)

    wsum = np.bincount(b, weights=wsc, minlength=q)
    clicks = total(y.astype(np.float64))
    psum = total(p)
    lsum = total(loss)
    sqsum = total((y - p) ** 2)
    abssum = total(np.abs(y - p))
    lo = np.full(q, np.nan)
    hi = np.full(q, np.nan)
    np.fmin.at(lo, b, s)
    np.fmax.at(hi, b, s)
    keep = wsum > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ctr = clicks / wsum
        avg_p = psum / wsum
        ll = lsum / wsum
        # a bin with one class has zero entropy, whatever its weighted CTR rounds to (see rig_score)
        pos_rows = np.bincount(b, weights=((wt > 0) & (y == 1)).astype(np.float64), minlength=q)
        neg_rows = np.bincount(b, weights=((wt > 0) & (y == 0)).astype(np.float64), minlength=q)
        h = np.array([entropy(g) if a > 0 and z > 0 else 0.0 for g, a, z in zip(ctr, pos_rows, neg_rows)])
        rig_b = np.where(h > 0, 1.0 - ll / np.where(h > 0, h, 1.0), np.nan)
        cal = np.where(clicks > 0, avg_p / np.where(clicks > 0, ctr, 1.0), np.nan)
        total_loss = lsum.sum()
        share = lsum / total_loss if total_loss > 0 else np.full(q, np.nan)
    out = pd.DataFrame(
        {
            "quantile": np.arange(1, q + 1),
            "score_lo": lo,
            "score_hi": hi,
            "weight": np.bincount(b, weights=wt, minlength=q),  # as given, not rescaled
            "clicks": np.bincount(b, weights=wt * y, minlength=q),
            "ctr": ctr,
            "avg_pclick": avg_p,
            "log_loss": ll,
            "log_loss_share": share,
            "rig": rig_b,
            "mse": sqsum / np.where(keep, wsum, 1.0),
            "mae": abssum / np.where(keep, wsum, 1.0),
            "prediction_error": cal - 1.0,
            "calibration_ratio": cal,
        }
    )[keep].reset_index(drop=True)
    if out["rig"].isna().any() or out["calibration_ratio"].isna().any():
        warn_undefined(
            f"{int(out['calibration_ratio'].isna().sum())} bin(s) hold no click and "
            f"{int(out['rig'].isna().sum())} bin(s) have zero entropy: their undefined metrics are nan"
        )
    return out


# ---------------------------------------------------------------------------------------
# Bootstrap confidence intervals
# ---------------------------------------------------------------------------------------
__all__ += ["BootstrapCI", "bootstrap_ci"]  # BootstrapCI is defined in ._bootstrap


def bootstrap_ci(metric, y_true, y_pred, *, sample_weight=None, n_boot: int = 1000, level: float = 0.95,
                 rng=None, **kwargs) -> BootstrapCI:
    """Percentile bootstrap interval of any metric of this module (or any ``metric(y_true, y_pred, ...)``).

    Rows are resampled with replacement ``n_boot`` times (a resample's
    weights are carried along); the interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` percentiles of the replicates on which the metric is
    defined.  The undefined replicates (``nan``) are counted in ``n_valid``
    and warned about once; with fewer than half of them valid the interval
    is ``nan``.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, y_pred, sample_weight=..., **kwargs) -> float``, e.g. :func:`roc_auc_score`,
        :func:`log_loss`, :func:`rig_score` (``sample_weight`` is passed only when given).
    y_true, y_pred : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional
    n_boot : int, default 1000
        Resamples, at most 10**6, and ``n_boot * (n + 1000)`` at most ``MAX_BOOT_WORK`` = 2 * 10**8 (about
        30 s of work; a larger request is an error before any work).
    level : float in (0, 1), default 0.95
    rng : int, numpy.random.Generator or None
    **kwargs
        Further keyword arguments of ``metric`` (with ``pos_label``, the labels are turned into 0/1 once);
        not ``groups``: for clusters use :func:`offline_eval.clustered_bootstrap`.

    Returns
    -------
    BootstrapCI
        The value on the data, the interval (``.confidence_interval()``) and the replicates.

    Examples
    --------
    >>> y = [0, 1] * 10
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.6, 0.9, 0.3, 0.5] * 2
    >>> r = bootstrap_ci(roc_auc_score, y, s, n_boot=200, rng=0)
    >>> round(r.value, 4), r.low <= r.value <= r.high, r.n_valid
    (0.92, True, 200)
    """
    import warnings

    from ._validation import check_rng

    if not callable(metric):
        raise ValueError(f"`metric` must be a callable metric(y_true, y_pred, ...); got {metric!r}")
    if "groups" in kwargs:  # it would reach the metric as a keyword it does not take
        raise ValueError("`groups` is not supported: bootstrap_ci resamples rows; to resample whole clusters use "
                         "offline_eval.clustered_bootstrap(y_true, y_score, groups=...)")
    check_boot(n_boot, level)
    check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    extra = dict(kwargs)
    if extra.get("pos_label") is not None:  # resample 0/1 labels: the same rows, no label lookup per resample
        y = check_binary(y_true, "y_true", pos_label=extra.pop("pos_label"))
    else:
        y = np.asarray(as_1d(y_true, "y_true", dtype=None))
    p = check_finite(as_1d(y_pred, "y_pred"), "y_pred")
    if y.dtype.kind == "f":
        check_finite(y, "y_true")
    check_consistent_length(y_true=y, y_pred=p)
    w = check_sample_weight(sample_weight, len(y))
    check_boot_work(n_boot, len(y))
    value = float(metric(y, p, **({"sample_weight": w} if w is not None else {}), **extra))
    gen = check_rng(rng)
    reps = np.empty(int(n_boot))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for b in range(int(n_boot)):
            idx = gen.integers(0, len(y), len(y))
            ww = {"sample_weight": w[idx]} if w is not None else {}
            try:
                reps[b] = metric(y[idx], p[idx], **ww, **extra)
            except ValueError:  # e.g. an all-zero resampled weight
                reps[b] = np.nan
    return percentile_ci(value, reps, level, "the metric")
