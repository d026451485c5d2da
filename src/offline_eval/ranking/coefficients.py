"""Kendall's tau and Spearman's rho through the paper's statistics T and R, and the variance of tau.

rosset eqs. 2-6: :func:`concordance_counts` (``C_i``), :func:`t_statistic`, :func:`r_statistic`,
:func:`kendall_tau`, :func:`spearman_rho`; one entry per statistic, as scipy's ``kendalltau(variant=...)``:
:func:`kendall_tau_test` computes tau, its variance, interval and p-value, and
:func:`tau_variance` and :func:`tau_confidence_interval` are shortcuts to the same engine with the same
default variant (tau-b, as :func:`kendall_tau` and scipy); :func:`spearman_rho_test` likewise for rho; and
:data:`MEASURES`, the measures of Tables 1-2 by name.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._results import (
    ConfidenceInterval, Result, check_level, interval_doc, interval_text, normal_interval, short_repr,
)
from .._validation import check_bool, check_choice, warn_undefined
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
    check_choice(variant, "variant", ("a", "b", "c"))
    check_bool(tilde, "tilde")
    y, m = check_pair(y_true, y_pred)
    tau = kendall_tau_checked(y, m, variant)
    if np.isnan(tau):
        return tau
    return float(0.5 + 0.5 * tau) if tilde else tau


# -- variance and confidence interval of tau ------------------------------------------------
def tau_variance(y_true, y_pred, *, variant: str = "b") -> float:
    """Sample variance of Kendall's tau: that of :func:`kendall_tau_test`'s interval.

    ``kendall_tau_test(y_true, y_pred, variant=variant).variance``: the same validation, the same warnings.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    variant : {"b", "a", "c"}, default "b"
        Whose variance, as everywhere in the library (:func:`kendall_tau`, :func:`kendall_tau_test`,
        :func:`tau_confidence_interval`): tau-b by default; ``"a"`` is rosset's statistic, equal to tau-b
        without ties.

    Returns
    -------
    float
        The plug-in U-statistic variance (see :func:`kendall_tau_test`): never negative, and 0 only when
        :math:`|\\tau| = 1` or the data have no spread; ``nan`` with a warning for n < 3 (and, for tau-b and
        tau-c, a constant input).  The paper's own unbiased estimate (eq. 6), which can dip to 0 or below where
        the data have spread, is :func:`tau_variance_from_concordance` of :func:`concordance_counts`.

    Examples
    --------
    A perfect ranking has no sampling variance by this estimate:

    >>> tau_variance([1, 2, 3, 4], [10, 20, 30, 40])
    0.0
    """
    return kendall_tau_test(y_true, y_pred, variant=variant).variance


def tau_confidence_interval(y_true, y_pred, *, level: float = 0.95, variant: str = "b") -> ConfidenceInterval:
    """Assumption-free normal confidence interval for tau (Section 3.1): that of :func:`kendall_tau_test`.

    ``kendall_tau_test(y_true, y_pred, variant=variant).confidence_interval(level)``: the same validation, the
    same warnings.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    level : float, default 0.95
        Coverage :math:`1 - \\alpha`, in (0, 1).
    variant : {"b", "a", "c"}, default "b"
        The tau the interval is for, and centred on, as everywhere in the library; ``"a"`` is the paper's,
        equal to tau-b without ties.

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``: see :meth:`TauResult.confidence_interval`; ``nan`` with a warning for n < 3.

    Examples
    --------
    A perfect ranking of six (p = 2/720), and of four, where p = 2/24 does not reject independence at 95%:

    >>> tau_confidence_interval([1, 2, 3, 4, 5, 6], [10, 20, 30, 40, 50, 60])
    ConfidenceInterval(low=1.0, high=1.0)
    >>> tau_confidence_interval([1, 2, 3, 4], [10, 20, 30, 40])
    ConfidenceInterval(low=0.0, high=1.0)
    """
    check_level(level)
    return kendall_tau_test(y_true, y_pred, variant=variant).confidence_interval(level)


# -- tau-a, tau-b, tau-c, their variance and the test of independence (scipy-like result) ------------------
class TauResult(Result):
    """Kendall's tau with its p-value and confidence interval, as scipy's ``SignificanceResult``.

    A :class:`~offline_eval._results.Result` (``.standard_error`` the square root of ``variance``).

    Attributes
    ----------
    statistic : float
        tau-a, tau-b or tau-c (``variant``).
    pvalue : float
        The p-value of independence, equal to ``scipy.stats.kendalltau``'s (the same for every variant: it is a
        test of :math:`C - D = 0`).
    pvalue_two_sided : float
        The two-sided p-value of the same test (``pvalue`` itself unless ``alternative`` was one-sided): the one
        the interval agrees with.
    variance : float
        The estimated sampling variance of ``statistic`` (not under independence): the interval's.
    variance_method : str
        How ``variance`` is estimated: ``"plug-in U-statistic"`` (see :func:`kendall_tau_test`).
    method : str
        ``"normal"``: the interval is ``statistic -/+ z sqrt(variance)``, extended to reach 0 where the test does
        not reject independence (see :meth:`confidence_interval`).
    variant : str
    """

    method = "normal"
    variance_method = "plug-in U-statistic"

    def __init__(self, statistic, pvalue, variance, variant, pvalue_two_sided=None):
        self.statistic, self.pvalue = float(statistic), float(pvalue)
        self.variance, self.variant = float(variance), variant
        self.pvalue_two_sided = float(pvalue if pvalue_two_sided is None else pvalue_two_sided)

    standard_error = property(lambda self: float(np.sqrt(self.variance)),
                              doc="The standard error of ``statistic``, ``sqrt(variance)``.")

    @interval_doc("Normal interval ``statistic -/+ z sqrt(variance)``, clipped to [-1, 1]; where it would "
                  "exclude 0 although the two-sided p-value of independence is at least ``1 - level``, it is "
                  "extended to reach 0 (a tau of 0 cannot be excluded by data that do not reject independence).",
                  returns="``(low, high)``; it contains ``statistic`` and excludes 0 only when "
                          "``pvalue_two_sided < 1 - level``.")
    def confidence_interval(self, level: float = 0.95):
        level = check_level(level)
        low, high = _clipped_normal_interval(self.statistic, self.variance, level)
        if not self.pvalue_two_sided < 1.0 - level:  # also a nan p-value: nothing rejected
            low, high = min(low, 0.0), max(high, 0.0)
        return ConfidenceInterval(low, high)

    def __repr__(self) -> str:
        return short_repr("TauResult", variant=self.variant, statistic=self.statistic, pvalue=self.pvalue,
                          variance=self.variance,
                          interval=interval_text(self.confidence_interval(), method="normal", level=0.95))


def _clipped_normal_interval(tau, var, level) -> ConfidenceInterval:
    """``tau -/+ z sqrt(var)`` clipped to [-1, 1]."""
    return normal_interval(tau, np.sqrt(var), level, low=-1.0, high=1.0)


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
        alternative=..., method=...)``), ``.pvalue_two_sided``, ``.variance`` and
        ``.confidence_interval(level=...)``, which contains the statistic.  ``nan`` fields with a warning for
        n < 3 or a constant input (for tau-a, whose value there is 0, the p-value only).

    Notes
    -----
    **Variance.** tau-a is a U-statistic of degree 2 with kernel :math:`s_{ij} = \\mathrm{sign}(\\Delta y)
    \\mathrm{sign}(\\Delta m)`; tau-b :math:`= \\tau_a / \\sqrt{t_y t_m}`, with :math:`t_y, t_m` the shares
    of pairs not tied in truth and in prediction, is a smooth function of three U-statistics (kernels
    :math:`s_{ij}`, :math:`a_{ij} = [\\Delta y \\ne 0]`, :math:`b_{ij} = [\\Delta m \\ne 0]`) whose
    delta-method linearisation is one U-statistic with kernel

    .. math::

        k_{ij} = \\frac{s_{ij} - \\tfrac{\\tau_a}{2}(a_{ij}/t_y + b_{ij}/t_m)}{\\sqrt{t_y t_m}}

    (without ties :math:`s_{ij} - \\tau`).  The variance of either is Hoeffding's
    :math:`\\frac{2}{n(n-1)}(\\zeta_2 + 2(n - 2)\\zeta_1)`, estimated by plug-in: :math:`\\hat\\zeta_1` the
    variance over i of the row means :math:`R_i / (n - 1)`, :math:`R_i = \\sum_{j \\ne i} k_{ij}`, and
    :math:`\\hat\\zeta_2` the variance of :math:`k_{ij}` over the pairs.  Both are variances of empirical
    distributions, so the estimate is never negative; it is 0 only when every :math:`k_{ij}` is equal, which
    for data with spread means :math:`|\\tau| = 1`.  (The paper's eq. 6, :func:`tau_variance_from_concordance`,
    is the unbiased estimate of the same variance: it goes negative, and was clipped to a zero-width interval,
    e.g. for ``[1, 2, 3, 4, 5]`` against ``[1, 3, 2, 5, 4]``.)  The plug-in form is consistent and errs wide
    by about :math:`4\\zeta_2 / n^2`.  Both sums follow from the per-observation pair counts in O(n log n).
    tau-c :math:`= \\tau_a (n - 1) k / (n (k - 1))` (``k`` distinct values, held fixed): tau-a's times that
    factor squared.

    **p-value.** Under independence :math:`C - D` has mean 0 and the tie-corrected variance of Kendall
    (1970, eq. 4.3), as in scipy; the exact distribution without ties counts permutations by inversions
    (Mahonian numbers, in integers).

    **Agreement.** Independence implies tau = 0, so an interval that excludes 0 while the test does not reject
    independence would contradict it.  The normal interval alone can: its variance is estimated away from
    independence (smaller than the null's when tau is large), and the exact p-value is discrete.  So the level
    :math:`1 - \\alpha` interval is the normal interval where ``pvalue_two_sided`` :math:`< \\alpha`, and the
    normal interval extended to reach 0 otherwise: it excludes 0 only when ``pvalue_two_sided`` :math:`<
    \\alpha`, at every level (its coverage is at least the normal interval's).  The converse need not hold,
    and is no contradiction: a p-value below :math:`\\alpha` beside an interval containing 0 says the data
    reject independence without settling the sign of tau (dependence with tau = 0 exists).  The interval is
    of zero width only where :math:`|\\tau| = 1` (or the data have no spread).

    References
    ----------
    .. [1] M. Kendall, J. D. Gibbons, *Rank Correlation Methods*, 1990, Chapters 4-5.
    .. [2] G. E. Noether, *Elements of Nonparametric Statistics*, 1967 (the variance of tau as a U-statistic).
    .. [3] W. Hoeffding, "A class of statistics with asymptotically normal distribution", Ann. Math. Statist.
       19 (1948).
    .. [4] A. Stuart, "The estimation and comparison of strengths of association in contingency tables",
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
    stat, var = tau_stat_and_variance(c, y, m, variant)
    if np.isnan(stat):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan")
        return TauResult(float("nan"), float("nan"), float("nan"), variant)
    if y[0] == y[-1] and np.ptp(y) == 0 or m[0] == m[-1] and np.ptp(m) == 0:
        # tau-a is 0 there (no pair is concordant or discordant), but the test has nothing to test: under
        # independence C - D has variance 0
        warn_undefined("the p-value of independence is undefined when `y_true` or `y_pred` is constant (C - D has "
                       "no null variance); returning a nan p-value")
        return TauResult(stat, float("nan"), var, variant)
    p = tau_pvalue(c, y, m, alternative, method)
    p2 = p if alternative == "two-sided" else tau_pvalue(c, y, m, "two-sided", method)
    return TauResult(stat, p, var, variant, p2)


MEASURES: dict[str, Callable] = {
    "RMSE": root_mean_squared_error,
    "MAE": mean_absolute_error,
    "MAD": median_absolute_error,
    "tau": kendall_tau,
    "rho": spearman_rho,
}
"""The measures of rosset's Tables 1-2 by name (``tau`` and ``rho`` as in scipy; the residual measures from
:mod:`offline_eval.metrics`)."""
