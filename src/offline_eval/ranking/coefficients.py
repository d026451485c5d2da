"""Kendall's tau and Spearman's rho through the paper's statistics T and R, and the variance of tau.

rosset eqs. 2-6: :func:`concordance_counts` (``C_i``), :func:`t_statistic`, :func:`r_statistic`,
:func:`kendall_tau`, :func:`spearman_rho`, :func:`tau_variance` (eq. 6),
:func:`tau_confidence_interval` and :func:`tau_summary` (all three from one count of the pairs), and
:data:`MEASURES`, the measures of Tables 1-2 by name.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.special import ndtri

from .._validation import check_bool, check_nonnegative, check_real, warn_undefined
from ..metrics import mean_absolute_error, median_absolute_error, root_mean_squared_error
from ._pairs import average_ranks, check_pair, pair_counts, tau_from_counts

__all__ = [
    "MEASURES",
    "TauSummary",
    "concordance_counts",
    "kendall_tau",
    "r_statistic",
    "spearman_rho",
    "t_statistic",
    "tau_confidence_interval",
    "tau_summary",
    "tau_variance",
    "tau_variance_from_concordance",
]


# -- coefficients --------------------------------------------------------------------------
def concordance_counts(y_true, y_pred) -> np.ndarray:
    """Number of partners each observation is correctly ranked with, ``C_i``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).

    Returns
    -------
    ndarray of shape (n,), float64
        ``C_i`` in the input order; ``C_i / (n - 1)`` is the share plotted in
        the paper's Fig. 1.

    Notes
    -----
    .. math::

        C_i = \\#\\{j \\ne i : (y_j - y_i)(m_j - m_i) > 0\\}
              + \\tfrac12 \\#\\{j \\ne i : y_j = y_i \\text{ or } m_j = m_i\\}

    so that :math:`\\sum_i C_i = n(n-1) - 2T` and
    :math:`\\tilde\\tau = \\sum_i C_i / (n(n-1))`.  Without ties ``C_i`` is an
    integer.

    The paper (text after eq. 6) prints
    :math:`C_i = \\sum_{j<i} 1\\{y_i > y_j\\} + \\sum_{j>i} 1\\{y_i < y_j\\}`
    with observations sorted by *decreasing* prediction; that expression
    counts the *discordant* partners, contradicting the words "concordant"
    and Fig. 1.  Eq. 6 is invariant under :math:`C_i \\to n - 1 - C_i`, so the
    variance is the same either way (pinned in the tests).

    Computed in O(n log n) by one "count smaller before" pass.

    Examples
    --------
    The middle observation is ranked correctly with one partner of two:

    >>> concordance_counts([1, 3, 2], [1, 2, 3]).tolist()
    [2.0, 1.0, 1.0]
    """
    y, m = check_pair(y_true, y_pred)
    if len(y) == 1:
        return np.zeros(1)
    c = pair_counts(y, m)
    return (c.concordant + 0.5 * c.tied).astype(np.float64)


def t_statistic(y_true, y_pred) -> float:
    """The paper's T (eq. 2): number of pairs ranked in the wrong order.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).

    Notes
    -----
    With observations sorted by decreasing prediction and :math:`s_i` the
    rank of :math:`y_i` in decreasing order,
    :math:`T = \\sum_{i<j} 1\\{s_i > s_j\\}`, at most :math:`n(n-1)/2`.
    Tie rule: a pair tied in either variable counts one half, so that
    :math:`1 - 4T/(n(n-1))` is tau-a (eq. 4).

    Examples
    --------
    >>> t_statistic([1, 2, 3], [3, 2, 1]), t_statistic([1, 3, 2], [1, 2, 3])
    (3.0, 1.0)
    """
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        return 0.0
    c = pair_counts(y, m)
    return float((c.discordant.sum() + 0.5 * np.sum(c.tied)) / 2.0)


def r_statistic(y_true, y_pred) -> float:
    """The paper's R (eq. 3): order switches weighted by their distance in model rank.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).

    Notes
    -----
    :math:`R = \\sum_{i<j} (j - i)\\, 1\\{s_i > s_j\\} = \\sum_i i^2 - \\sum_i i s_i
    = \\tfrac12 \\sum_i (i - s_i)^2`, at most :math:`n(n-1)(n+1)/6`, and
    :math:`\\hat\\rho = 1 - 12R / (n(n-1)(n+1))` (eq. 5).  Tie rule: with ties
    both rankings use average ranks in :math:`\\tfrac12\\sum_i (a_i - b_i)^2`,
    which makes eq. 5 the classical :math:`1 - 6\\sum d^2/(n^3 - n)` without
    tie correction (:func:`spearman_rho` corrects for ties).

    Examples
    --------
    Reversed order of three: every pair switched, weights 1 + 2 + 1:

    >>> r_statistic([1, 2, 3], [3, 2, 1])
    4.0
    """
    y, m = check_pair(y_true, y_pred)
    d = average_ranks(y) - average_ranks(m)
    return float(0.5 * np.dot(d, d))


def kendall_tau(y_true, y_pred, *, variant: str = "b", tilde: bool = False) -> float:
    """Kendall's tau between responses and predictions (eqs. 2 and 4).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    variant : {"b", "a"}, default "b"
        ``"b"``: tau-b, :math:`(C - D)/\\sqrt{(N - n_1)(N - n_2)}`, equal to
        ``scipy.stats.kendalltau``; ``"a"``: :math:`1 - 4T/(n(n-1)) = (C - D)/N`,
        the paper's eq. 4 with tied pairs counted one half in T.
    tilde : bool, default False
        Return :math:`\\tilde\\tau = 1/2 + \\hat\\tau/2 \\in [0, 1]` instead.

    Returns
    -------
    float
        ``nan`` with a warning when fewer than two observations are given, or
        for tau-b when either input is constant.

    Notes
    -----
    C and D are the numbers of concordant and discordant pairs,
    :math:`N = n(n-1)/2`, :math:`n_1, n_2` the pairs tied in truth and in
    prediction.  Without ties both variants equal eq. 4, and
    :math:`\\tilde\\tau` is the share of correctly ranked pairs (Section 3.1).
    O(n log n).

    Examples
    --------
    One of three pairs is switched: tau = (2 - 1) / 3.

    >>> round(kendall_tau([1, 3, 2], [1, 2, 3]), 12)
    0.333333333333
    >>> round(kendall_tau([1, 3, 2], [1, 2, 3], tilde=True), 12)
    0.666666666667
    """
    if variant not in ("a", "b"):
        raise ValueError(f"`variant` must be 'a' or 'b'; got {variant!r}")
    check_bool(tilde, "tilde")
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        warn_undefined(f"Kendall's tau is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    c = pair_counts(y, m)
    tau = tau_from_counts(c, variant)
    if np.isnan(tau):
        warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
        return tau
    return float(0.5 + 0.5 * tau) if tilde else tau


def spearman_rho(y_true, y_pred, *, tilde: bool = False) -> float:
    """Spearman's rho between responses and predictions (eqs. 3 and 5).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    tilde : bool, default False
        Return :math:`\\tilde\\rho = 1/2 + \\hat\\rho/2 \\in [0, 1]` instead.

    Returns
    -------
    float
        ``nan`` with a warning for fewer than two observations or a constant input.

    Notes
    -----
    Without ties :math:`\\hat\\rho = 1 - 12R/(n(n-1)(n+1))` (eq. 5).  Tie rule:
    the Pearson correlation of average ranks, as ``scipy.stats.spearmanr``.
    O(n log n).

    Examples
    --------
    >>> spearman_rho([1, 3, 2], [1, 2, 3])
    0.5
    """
    check_bool(tilde, "tilde")
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        warn_undefined(f"Spearman's rho is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    a, b = average_ranks(y), average_ranks(m)
    a -= (n + 1) / 2.0
    b -= (n + 1) / 2.0
    saa, sbb = float(np.dot(a, a)), float(np.dot(b, b))
    if saa == 0 or sbb == 0:
        warn_undefined("Spearman's rho is undefined when `y_true` or `y_pred` is constant; returning nan")
        return float("nan")
    rho = float(min(max(np.dot(a, b) / np.sqrt(saa * sbb), -1.0), 1.0))
    return 0.5 + 0.5 * rho if tilde else rho


# -- variance and confidence interval of tau (eq. 6) ----------------------------------------
def tau_variance_from_concordance(C: np.ndarray) -> float:
    """Eq. 6 from the per-observation concordance counts: the variance :func:`tau_variance` returns, unclipped.

    Parameters
    ----------
    C : ndarray of shape (n,)
        Per-observation concordance counts :math:`C_i` (:func:`concordance_counts`), ties counting 1/2.
    """
    C = check_nonnegative(C, "C")
    n = len(C)
    s = float(C.sum())
    q = float(np.dot(C, C))
    inner = 2.0 * q - s - (2 * n - 3) / (n * (n - 1.0)) * s * s
    return (2.0 / (n * (n - 1.0))) ** 2 * 2.0 * inner


def tau_variance(y_true, y_pred) -> float:
    """Sample variance of Kendall's tau, the paper's eq. 6.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    float
        The estimate, clipped at 0; ``nan`` with a warning for n < 3.

    Notes
    -----
    .. math::

        \\widehat{Var}(\\hat\\tau) = \\left(\\frac{2}{n(n-1)}\\right)^2 \\cdot 2 \\cdot
        \\left(2\\sum_i C_i^2 - \\sum_i C_i - \\frac{2n-3}{n(n-1)}\\Big(\\sum_i C_i\\Big)^2\\right)

    with :math:`C_i` from :func:`concordance_counts`.  It is Noether's
    variance :math:`\\frac{8}{n(n-1)}(\\pi_c(1-\\pi_c) + 2(n-2)(\\pi_{cc} - \\pi_c^2))`
    with the plug-in estimates :math:`\\hat\\pi_c = \\sum C_i / (n(n-1))` and
    :math:`\\hat\\pi_{cc} = \\sum C_i(C_i - 1)/(n(n-1)(n-2))`: the variance of
    the U-statistic tau-a (equal to tau-b without ties).  The plug-in can
    dip below 0 in degenerate configurations (every ``C_i`` equal); it is
    clipped at 0.  O(n log n).

    Examples
    --------
    A perfect ranking has no sampling variance by this estimate:

    >>> tau_variance([1, 2, 3, 4], [10, 20, 30, 40])
    0.0
    """
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the variance of tau (eq. 6) needs at least 3 observations (got {n}); returning nan")
        return float("nan")
    c = pair_counts(y, m)
    return float(max(tau_variance_from_concordance((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0))


def tau_confidence_interval(y_true, y_pred, *, level: float = 0.95) -> tuple[float, float]:
    """Assumption-free normal confidence interval for tau (Section 3.1).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    level : float, default 0.95
        Coverage :math:`1 - \\alpha`, in (0, 1).

    Returns
    -------
    (low, high) : tuple of float
        :math:`\\hat\\tau_a \\pm z_{1-\\alpha/2}\\sqrt{\\widehat{Var}}` clipped to
        [-1, 1] (tau cannot leave it; the normal approximation can).

    Notes
    -----
    Centred at tau-a, the U-statistic whose variance eq. 6 estimates (equal
    to tau-b without ties).

    Examples
    --------
    >>> tau_confidence_interval([1, 2, 3, 4], [10, 20, 30, 40])
    (1.0, 1.0)
    """
    check_real(level, "level", low=0, high=1, closed="neither")
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the confidence interval of tau needs at least 3 observations (got {n}); returning nan")
        return float("nan"), float("nan")
    c = pair_counts(y, m)
    tau = tau_from_counts(c, "a")
    var = max(tau_variance_from_concordance((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0)
    half = float(ndtri(0.5 + level / 2.0)) * np.sqrt(var)
    return float(max(tau - half, -1.0)), float(min(tau + half, 1.0))


class TauSummary(NamedTuple):
    """Kendall's tau with its eq. 6 variance and confidence interval, from one pass."""

    tau_b: float
    tau_a: float
    variance: float
    low: float
    high: float

    def confidence_interval(self) -> tuple[float, float]:
        """``(low, high)``: tau-a plus or minus the normal quantile times the eq. 6 standard deviation."""
        return self.low, self.high


def tau_summary(y_true, y_pred, *, level: float = 0.95) -> TauSummary:
    """Tau-b, tau-a, the eq. 6 variance and the confidence interval, from one O(n log n) pass.

    Same values as :func:`kendall_tau` (both variants), :func:`tau_variance`
    and :func:`tau_confidence_interval`, without counting the pairs three
    times.  Needs n >= 3 (else ``nan`` fields with a warning).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).
    level : float in (0, 1), default 0.95
        Level of the confidence interval.

    Examples
    --------
    One switched pair of six; C = (3, 3, 2, 2), so eq. 6 is
    (2/12)^2 * 2 * (2 * 26 - 10 - 5/12 * 100) = 1/54:

    >>> s = tau_summary([1, 2, 3, 4], [10, 20, 40, 30])
    >>> round(s.tau_b, 6), round(s.tau_a, 6), round(s.variance * 54, 6)
    (0.666667, 0.666667, 1.0)
    """
    check_real(level, "level", low=0, high=1, closed="neither")
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the variance of tau (eq. 6) needs at least 3 observations (got {n}); returning nan")
        nan = float("nan")
        return TauSummary(nan, nan, nan, nan, nan)
    c = pair_counts(y, m)
    tau_b, tau_a = tau_from_counts(c, "b"), tau_from_counts(c, "a")
    if np.isnan(tau_b):
        warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
    var = max(tau_variance_from_concordance((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0)
    half = float(ndtri(0.5 + level / 2.0)) * np.sqrt(var)
    return TauSummary(tau_b, tau_a, float(var), float(max(tau_a - half, -1.0)), float(min(tau_a + half, 1.0)))




MEASURES: dict[str, Callable] = {
    "RMSE": root_mean_squared_error,
    "MAE": mean_absolute_error,
    "MAD": median_absolute_error,
    "tau": kendall_tau,
    "rho": spearman_rho,
}
"""The measures of rosset's Tables 1-2 by name (``tau`` and ``rho`` as in scipy; the residual measures from
:mod:`offline_eval.metrics`)."""
