"""Residual measures behind :mod:`offline_eval.metrics`: clicks against pClick (yi Sections 4.3-4.4), or any
numeric response against a regression model's prediction (rosset Section 2, eq. 1)."""

from __future__ import annotations

import numpy as np

from ._validation import (
    as_1d, check_aligned, check_consistent_length, check_finite, check_row_weights, scale_weights,
    warn_undefined,
)
from ._metrics_losses import weighted_mean


def _check_residuals(y_true, y_pred, sample_weight):
    check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    y = check_finite(as_1d(y_true, "y_true"), "y_true")
    m = check_finite(as_1d(y_pred, "y_pred"), "y_pred")
    check_consistent_length(y_true=y, y_pred=m)
    w = check_row_weights(sample_weight, len(y))
    return y, m, scale_weights(w)


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
    return weighted_mean((y - m) ** 2, w)


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
    var = weighted_mean((y - weighted_mean(y, w)) ** 2, w)
    if var == 0.0:
        warn_undefined("NMSE is undefined when `y_true` is constant (zero variance); returning nan")
        return float("nan")
    return weighted_mean((y - m) ** 2, w) / var


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
    return weighted_mean(np.abs(y - m), w)


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
