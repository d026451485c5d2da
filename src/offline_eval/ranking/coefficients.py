"""Kendall's tau and Spearman's rho through the paper's statistics T and R, and the variance of tau.

rosset eqs. 2-6: :func:`concordance_counts` (``C_i``), :func:`t_statistic`, :func:`r_statistic`,
:func:`kendall_tau`, :func:`spearman_rho`; one entry per statistic, as scipy's ``kendalltau(variant=...)``:
:func:`kendall_tau_test` computes tau, its variance (eq. 6 for tau-a), interval and p-value, and
:func:`tau_variance` and :func:`tau_confidence_interval` are shortcuts to the same engine with the same
default variant (tau-b, as :func:`kendall_tau` and scipy); :func:`spearman_rho_test` likewise for rho; and
:data:`MEASURES`, the measures of Tables 1-2 by name.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._results import ConfidenceInterval, Result, interval_doc, interval_text, normal_interval, short_repr
from .._validation import check_bool, check_choice, check_real, warn_undefined
from ..metrics import mean_absolute_error, median_absolute_error, root_mean_squared_error
from ._pairs import check_pair, pair_counts
from ._rho import RhoResult, r_statistic, spearman_rho, spearman_rho_test
from ._tau_engine import (
    MAX_EXACT_N, kendall_tau_checked, tau_pvalue, tau_stat_and_variance, tau_variance_from_concordance,
)
from .._public import publish

__all__ = [
    "MEASURES",
    "TauResult",
    "concordance_counts",
    "kendall_tau",
    "kendall_tau_test",
    "r_statistic",
    "RhoResult",
    "spearman_rho",
    "spearman_rho_test",
    "t_statistic",
    "tau_confidence_interval",
    "tau_variance",
    "tau_variance_from_concordance",
]

publish(globals(), "offline_eval.ranking._rho", "offline_eval.ranking._tau_engine")


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


def kendall_tau(y_true, y_pred, *, variant: str = "b", tilde: bool = False) -> float:
    """Kendall's tau between responses and predictions (eqs. 2 and 4).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    variant : {"b", "a", "c"}, default "b"
        ``"b"``: tau-b, :math:`(C - D)/\\sqrt{(N - n_1)(N - n_2)}`, equal to
        ``scipy.stats.kendalltau``; ``"a"``: :math:`1 - 4T/(n(n-1)) = (C - D)/N`,
        the paper's eq. 4 with tied pairs counted one half in T; ``"c"``: Stuart's tau-c,
        :math:`2(C - D) / (n^2 (k - 1) / k)` with ``k`` the smaller number of distinct values,
        equal to ``scipy.stats.kendalltau(..., variant="c")``.
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
    prediction.  Without ties tau-a and tau-b equal eq. 4, and
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
    if variant not in ("a", "b", "c"):
        raise ValueError(f"`variant` must be 'a', 'b' or 'c'; got {variant!r}")
    check_bool(tilde, "tilde")
    y, m = check_pair(y_true, y_pred)
    tau = kendall_tau_checked(y, m, variant)
    if np.isnan(tau):
        return tau
    return float(0.5 + 0.5 * tau) if tilde else tau


# -- variance and confidence interval of tau (eq. 6) ----------------------------------------
def tau_variance(y_true, y_pred, *, variant: str = "b") -> float:
    """Sample variance of Kendall's tau: that of :func:`kendall_tau_test` (tau-a's is the paper's eq. 6).

    A shortcut for ``kendall_tau_test(y_true, y_pred, variant=variant).variance`` without the p-value.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    variant : {"b", "a", "c"}, default "b"
        Whose variance, as everywhere in the library (:func:`kendall_tau`, :func:`kendall_tau_test`,
        :func:`tau_confidence_interval`): tau-b by default; ``"a"`` is rosset's eq. 6, equal to tau-b's
        without ties.

    Returns
    -------
    float
        The estimate, clipped at 0; ``nan`` with a warning for n < 3 (and, for tau-b and tau-c, a constant
        input).

    Notes
    -----
    Eq. 6 (tau-a):

    .. math::

        \\widehat{Var}(\\hat\\tau) = \\left(\\frac{2}{n(n-1)}\\right)^2 \\cdot 2 \\cdot
        \\left(2\\sum_i C_i^2 - \\sum_i C_i - \\frac{2n-3}{n(n-1)}\\Big(\\sum_i C_i\\Big)^2\\right)

    with :math:`C_i` from :func:`concordance_counts`: Noether's variance of the U-statistic tau-a with
    plug-in estimates, clipped at 0 (it can dip below in degenerate configurations).  tau-b's and tau-c's:
    see :func:`kendall_tau_test`.  O(n log n).

    Examples
    --------
    A perfect ranking has no sampling variance by this estimate:

    >>> tau_variance([1, 2, 3, 4], [10, 20, 30, 40])
    0.0
    """
    check_choice(variant, "variant", ("a", "b", "c"))
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the variance of tau needs at least 3 observations (got {n}); returning nan")
        return float("nan")
    stat, var = tau_stat_and_variance(pair_counts(y, m), y, m, variant)
    if np.isnan(stat):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan")
    return var


def tau_confidence_interval(y_true, y_pred, *, level: float = 0.95, variant: str = "b") -> ConfidenceInterval:
    """Assumption-free normal confidence interval for tau (Section 3.1): that of :func:`kendall_tau_test`.

    A shortcut for ``kendall_tau_test(y_true, y_pred, variant=variant).confidence_interval(level)``.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    level : float, default 0.95
        Coverage :math:`1 - \\alpha`, in (0, 1).
    variant : {"b", "a", "c"}, default "b"
        The tau the interval is for, and centred on, as everywhere in the library; ``"a"`` is the paper's
        (its eq. 6 variance), equal to tau-b without ties.

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``: :math:`\\hat\\tau \\pm z_{1-\\alpha/2}\\sqrt{\\widehat{Var}}` clipped to
        [-1, 1] (tau cannot leave it; the normal approximation can); ``nan`` with a warning for n < 3.

    Examples
    --------
    >>> tau_confidence_interval([1, 2, 3, 4], [10, 20, 30, 40])
    ConfidenceInterval(low=1.0, high=1.0)
    """
    check_real(level, "level", low=0, high=1, closed="neither")
    check_choice(variant, "variant", ("a", "b", "c"))
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the confidence interval of tau needs at least 3 observations (got {n}); returning nan")
        return ConfidenceInterval(float("nan"), float("nan"))
    stat, var = tau_stat_and_variance(pair_counts(y, m), y, m, variant)
    if np.isnan(stat):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan")
    return TauResult(stat, float("nan"), var, variant).confidence_interval(level)


def _clipped_normal_interval(tau, var, level) -> ConfidenceInterval:
    """``tau -/+ z sqrt(var)`` clipped to [-1, 1]."""
    return normal_interval(tau, np.sqrt(var), level, low=-1.0, high=1.0)


# -- tau-b, tau-c, their variance and the test of independence (scipy-like result) ------------------
class TauResult(Result):
    """Kendall's tau with its p-value and confidence interval, as scipy's ``SignificanceResult``.

    A :class:`~offline_eval._results.Result` (``.standard_error`` the square root of ``variance``,
    ``.method`` ``"normal"``).

    Attributes
    ----------
    statistic : float
        tau-a, tau-b or tau-c (``variant``).
    pvalue : float
        The p-value of independence, equal to ``scipy.stats.kendalltau``'s (the same for every variant: it is a
        test of :math:`C - D = 0`).
    variance : float
        The estimated sampling variance of ``statistic`` (not under independence): the interval's.
    variant : str
    """

    def __init__(self, statistic, pvalue, variance, variant):
        self.statistic, self.pvalue = float(statistic), float(pvalue)
        self.variance, self.variant = float(variance), variant

    standard_error = property(lambda self: float(np.sqrt(self.variance)),
                              doc="The standard error of ``statistic``, ``sqrt(variance)``.")

    @interval_doc("Normal interval ``statistic -/+ z sqrt(variance)``, clipped to [-1, 1].",
                  returns="``(low, high)``, centred on ``statistic``.")
    def confidence_interval(self, level: float = 0.95):
        return _clipped_normal_interval(self.statistic, self.variance, level)

    def __repr__(self) -> str:
        return short_repr("TauResult", variant=self.variant, statistic=self.statistic, pvalue=self.pvalue,
                          variance=self.variance,
                          interval=interval_text(self.confidence_interval(), method="normal", level=0.95))


def kendall_tau_test(y_true, y_pred, *, variant: str = "b", alternative: str = "two-sided",
                     method: str = "auto") -> TauResult:
    """Kendall's tau with the p-value of independence and a confidence interval that agree with each other.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).
    variant : {"b", "a", "c"}, default "b"
        As in :func:`kendall_tau` (whose value ``statistic`` is).
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        The alternative of the p-value, as scipy's.
    method : {"auto", "exact", "asymptotic"}, default "auto"
        The p-value's null distribution, as scipy's: ``"exact"`` (no ties only) counts permutations,
        ``"asymptotic"`` is the normal approximation with the tie-corrected variance; ``"auto"`` takes the
        exact one without ties when n <= 33 or at most one pair is discordant (or concordant).  ``"exact"``
        is bounded to n <= :data:`MAX_EXACT_N` = 1000 (its cost grows as n^3: about 0.04 s at n = 300,
        1.5 s at the bound); a larger n is an error before any work.

    Returns
    -------
    TauResult
        ``.statistic``, ``.pvalue`` (equal to ``scipy.stats.kendalltau(y_true, y_pred, variant=...,
        alternative=..., method=...)``), ``.variance`` and ``.confidence_interval(level=...)``, centred on
        the statistic.  ``nan`` fields with a warning for n < 3 or a constant input (for tau-a, whose value
        there is 0, the p-value only).

    Notes
    -----
    **Variance.** tau-a: eq. 6 (:func:`tau_variance`).  tau-b
    :math:`= \\tau_a / \\sqrt{t_y t_m}`, with :math:`t_y, t_m` the shares of pairs not tied in truth and in
    prediction, is a smooth function of three U-statistics of degree 2 (kernels
    :math:`\\mathrm{sign}(\\Delta y)\\mathrm{sign}(\\Delta m)`, :math:`[\\Delta y \\ne 0]`,
    :math:`[\\Delta m \\ne 0]`); its delta-method linearisation is one U-statistic with kernel

    .. math::

        k_{ij} = \\frac{s_{ij} - \\tfrac{\\tau_a}{2}(a_{ij}/t_y + b_{ij}/t_m)}{\\sqrt{t_y t_m}},

    whose variance :math:`\\frac{2}{n(n-1)}(\\hat\\zeta_2 + 2(n - 2)\\hat\\zeta_1)` is estimated from the
    row sums :math:`R_i = \\sum_j k_{ij}` and :math:`\\sum_{i \\ne j} k_{ij}^2` exactly as eq. 6 estimates
    tau-a's (Kendall and Gibbons 1990; Noether 1967) -- without ties the kernel is :math:`s_{ij} - \\tau` and the two coincide.  Both sums
    follow from the per-observation pair counts in O(n log n).  tau-c :math:`= \\tau_a (n - 1) k / (n (k - 1))`
    (``k`` distinct values, held fixed): eq. 6 times that factor squared.

    **p-value.** Under independence :math:`C - D` has mean 0 and the tie-corrected variance of Kendall
    (1970, eq. 4.3), as in scipy; the exact distribution without ties counts permutations by inversions
    (Mahonian numbers, in integers).

    References
    ----------
    .. [1] M. Kendall, J. D. Gibbons, *Rank Correlation Methods*, 1990, Chapters 4-5.
    .. [2] G. E. Noether, *Elements of Nonparametric Statistics*, 1967 (the variance of tau as a U-statistic).
    .. [3] A. Stuart, "The estimation and comparison of strengths of association in contingency tables",
       Biometrika 40 (1953) (tau-c).

    Examples
    --------
    One of three pairs switched: tau = 1/3, and 2 of the 6 orders of three are at least as concordant:

    >>> r = kendall_tau_test([1, 2, 3], [1, 3, 2])
    >>> round(r.statistic, 6), round(r.pvalue, 6)
    (0.333333, 1.0)
    >>> kendall_tau_test([1, 2, 3, 4, 5], [1, 2, 3, 5, 4], alternative="greater").pvalue
    0.041666666666666664
    """
    check_choice(variant, "variant", ("a", "b", "c"))
    check_choice(alternative, "alternative", ("two-sided", "less", "greater"))
    check_choice(method, "method", ("auto", "exact", "asymptotic"))
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if method == "exact" and n > MAX_EXACT_N:
        raise ValueError(f"`method` 'exact' is bounded to n <= MAX_EXACT_N = {MAX_EXACT_N} (its recurrence costs "
                         f"O(n^3)); got n = {n}; use 'asymptotic' or 'auto'")
    if n < 3:
        warn_undefined(f"the tau test needs at least 3 observations (got {n}); returning nan")
        return TauResult(float("nan"), float("nan"), float("nan"), variant)
    return _tau_result(pair_counts(y, m), y, m, variant, alternative, method)


def _tau_result(c, y, m, variant, alternative, method) -> TauResult:
    # stacklevel 4: the warning points at the line that called the public function (this one's caller)
    stat, var = tau_stat_and_variance(c, y, m, variant)
    if np.isnan(stat):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan",
                       stacklevel=4)
        return TauResult(float("nan"), float("nan"), float("nan"), variant)
    if y[0] == y[-1] and np.ptp(y) == 0 or m[0] == m[-1] and np.ptp(m) == 0:
        # tau-a is 0 there (no pair is concordant or discordant), but the test has nothing to test: under
        # independence C - D has variance 0
        warn_undefined("the p-value of independence is undefined when `y_true` or `y_pred` is constant (C - D has "
                       "no null variance); returning a nan p-value", stacklevel=4)
        return TauResult(stat, float("nan"), var, variant)
    return TauResult(stat, tau_pvalue(c, y, m, alternative, method), var, variant)


MEASURES: dict[str, Callable] = {
    "RMSE": root_mean_squared_error,
    "MAE": mean_absolute_error,
    "MAD": median_absolute_error,
    "tau": kendall_tau,
    "rho": spearman_rho,
}
"""The measures of rosset's Tables 1-2 by name (``tau`` and ``rho`` as in scipy; the residual measures from
:mod:`offline_eval.metrics`)."""
