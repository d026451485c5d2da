"""Kendall's tau and Spearman's rho through the paper's statistics T and R, and the variance of tau.

rosset eqs. 2-6: :func:`concordance_counts` (``C_i``), :func:`t_statistic`, :func:`r_statistic`,
:func:`kendall_tau`, :func:`spearman_rho`; one entry per statistic, as scipy's ``kendalltau(variant=...)``:
:func:`kendall_tau_test` computes tau, its variance (eq. 6 for tau-a), interval and p-value, and
:func:`tau_variance` and :func:`tau_confidence_interval` are shortcuts to the same engine with the same
default variant (tau-b, as :func:`kendall_tau` and scipy); :func:`spearman_rho_test` likewise for rho; and
:data:`MEASURES`, the measures of Tables 1-2 by name.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri, stdtr

from .._results import ConfidenceInterval, Result, check_level, interval_text, normal_interval, short_repr
from .._validation import check_bool, check_choice, check_nonnegative, check_real, warn_undefined
from ..metrics import mean_absolute_error, median_absolute_error, root_mean_squared_error
from ._pairs import average_ranks, check_pair, pair_counts, tau_from_counts

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
    n = len(y)
    if n < 2:
        warn_undefined(f"Kendall's tau is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    c = pair_counts(y, m)
    tau = _tau_c(c, y, m) if variant == "c" else tau_from_counts(c, variant)
    if np.isnan(tau):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan")
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
        Per-observation concordance counts :math:`C_i` (:func:`concordance_counts`), ties counting 1/2:
        each in ``[0, n - 1]``.

    Returns
    -------
    float
        ``nan`` with a warning for n < 3 (as :func:`tau_variance`).
    """
    C = check_nonnegative(C, "C")
    n = len(C)
    if C.max() > n - 1:
        raise ValueError(f"`C` must hold concordance counts in [0, n - 1] = [0, {n - 1}] (each observation has "
                         f"n - 1 partners); got max {C.max():g}")
    if n < 3:
        warn_undefined(f"the variance of tau (eq. 6) needs at least 3 observations (got {n}); returning nan")
        return float("nan")
    s = float(C.sum())
    q = float(np.dot(C, C))
    inner = 2.0 * q - s - (2 * n - 3) / (n * (n - 1.0)) * s * s
    return (2.0 / (n * (n - 1.0))) ** 2 * 2.0 * inner


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
    stat, var = _tau_stat_and_variance(pair_counts(y, m), y, m, variant)
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
    stat, var = _tau_stat_and_variance(pair_counts(y, m), y, m, variant)
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

    def confidence_interval(self, level: float = 0.95):
        """Normal interval ``statistic -/+ z sqrt(variance)``, clipped to [-1, 1].

        Parameters
        ----------
        level : float in (0, 1), default 0.95

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``, centred on ``statistic``.
        """
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


class RhoResult(Result):
    """Spearman's rho with its p-value and confidence interval, as scipy's ``SignificanceResult``.

    A :class:`~offline_eval._results.Result`: ``.method`` ``"Fisher-z"``; ``.standard_error`` Bonett and
    Wright's standard error carried back from Fisher's z by the delta method,
    :math:`(1 - \\hat\\rho^2)\\sqrt{(1 + \\hat\\rho^2/2)/(n - 3)}` (``nan`` for n <= 3).

    Attributes
    ----------
    statistic : float
        Spearman's rho (:func:`spearman_rho`).
    pvalue : float
        The p-value of independence, equal to ``scipy.stats.spearmanr``'s (Student's t with n - 2 degrees of
        freedom).
    n : int
        The number of observations (the interval's).
    """

    def __init__(self, statistic, pvalue, n):
        self.statistic, self.pvalue, self.n = float(statistic), float(pvalue), int(n)

    method = "Fisher-z"

    @property
    def standard_error(self) -> float:
        """The delta-method standard error of rho (see the class notes)."""
        r = self.statistic
        if self.n <= 3 or not np.isfinite(r):
            return float("nan")
        return float((1.0 - r * r) * np.sqrt((1.0 + r * r / 2.0) / (self.n - 3)))

    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """Fisher-z interval with Bonett and Wright's variance for Spearman's rho.

        :math:`\\tanh(\\operatorname{atanh}\\hat\\rho \\mp z_{(1+\\text{level})/2} \\sqrt{(1 + \\hat\\rho^2/2)/(n - 3)})`:
        inside [-1, 1], around the statistic; ``nan`` for n <= 3.

        Parameters
        ----------
        level : float in (0, 1), default 0.95

        Returns
        -------
        ConfidenceInterval
        """
        q = float(ndtri(0.5 + check_level(level) / 2.0))
        r = self.statistic
        if self.n <= 3 or not np.isfinite(r):
            return ConfidenceInterval(float("nan"), float("nan"))
        with np.errstate(divide="ignore"):  # rho = +-1: atanh is infinite and the interval the point
            z = float(np.arctanh(r))
        half = q * np.sqrt((1.0 + r * r / 2.0) / (self.n - 3))
        return ConfidenceInterval(float(np.tanh(z - half)), float(np.tanh(z + half)))

    def __repr__(self) -> str:
        return short_repr("RhoResult", statistic=self.statistic, pvalue=self.pvalue, n=self.n,
                          interval=interval_text(self.confidence_interval(), method="Fisher-z", level=0.95))


def spearman_rho_test(y_true, y_pred, *, alternative: str = "two-sided") -> RhoResult:
    """Spearman's rho with the p-value of independence and a confidence interval.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).
    alternative : {"two-sided", "less", "greater"}, default "two-sided"
        The alternative of the p-value, as scipy's.

    Returns
    -------
    RhoResult
        ``.statistic`` (:func:`spearman_rho`, average ranks for ties), ``.pvalue`` (equal to
        ``scipy.stats.spearmanr(y_true, y_pred, alternative=...).pvalue``) and ``.confidence_interval(level=...)``.
        ``nan`` fields with a warning for n < 3 or a constant input.

    Notes
    -----
    **p-value.** :math:`t = \\hat\\rho \\sqrt{(n - 2)/(1 - \\hat\\rho^2)}` against Student's t with n - 2 degrees of
    freedom, as scipy.  **Interval.** Fisher's z with the variance :math:`(1 + \\hat\\rho^2/2)/(n - 3)` that
    Bonett and Wright recommend for Spearman's rho (the Pearson variance :math:`1/(n-3)` under-covers it).
    O(n log n).

    References
    ----------
    .. [1] D. G. Bonett, T. A. Wright, "Sample size requirements for estimating Pearson, Kendall and Spearman
       correlations", Psychometrika 65 (2000).

    Examples
    --------
    Five observations, one pair switched: rho = 1 - 6 * 2 / (5 * 24) = 0.9.

    >>> r = spearman_rho_test([1, 2, 3, 4, 5], [1, 2, 3, 5, 4])
    >>> round(r.statistic, 6), round(r.pvalue, 6)
    (0.9, 0.037386)
    """
    check_choice(alternative, "alternative", ("two-sided", "less", "greater"))
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the rho test needs at least 3 observations (got {n}); returning nan")
        return RhoResult(float("nan"), float("nan"), n)
    rho = spearman_rho(y, m)
    if not np.isfinite(rho):
        return RhoResult(float("nan"), float("nan"), n)
    dof = n - 2
    with np.errstate(divide="ignore"):  # rho = +-1: t is infinite and the p-value 0 (or 1)
        t = rho * np.sqrt(np.float64(dof) / ((1.0 + rho) * (1.0 - rho)))
    if alternative == "two-sided":
        p = 2.0 * stdtr(dof, -abs(t))
    elif alternative == "greater":
        p = stdtr(dof, -t)
    else:
        p = stdtr(dof, t)
    return RhoResult(rho, float(min(max(p, 0.0), 1.0)), n)


def _runs(sorted_x):
    """Lengths of the runs of equal values of a sorted array."""
    n = len(sorted_x)
    starts = np.flatnonzero(np.r_[True, sorted_x[1:] != sorted_x[:-1]])
    return np.diff(np.append(starts, n))


def _con_minus_dis(c) -> int:
    """C - D, exactly (an int)."""
    if not (c.ties_y or c.ties_m):
        return (2 * (int(c.A.sum()) + int(c.B.sum())) - c.n * (c.n - 1)) // 2
    return (int(c.concordant.sum()) - int(c.discordant.sum())) // 2


def _tau_c(c, y, m) -> float:
    k = min(len(_runs(y[c.oy])), len(_runs(m[c.om])))
    if k < 2:
        return float("nan")
    return float(min(max(2.0 * _con_minus_dis(c) / (c.n**2 * (k - 1) / k), -1.0), 1.0))


def _tau_stat_and_variance(c, y, m, variant):
    """``(statistic, variance)`` of tau-a, tau-b or tau-c from the pair counts (see :func:`kendall_tau_test`)."""
    n = c.n
    eq6 = max(tau_variance_from_concordance((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0)
    if variant == "a":
        return tau_from_counts(c, "a"), float(eq6)
    if variant == "c":
        k = min(len(_runs(y[c.oy])), len(_runs(m[c.om])))
        if k < 2:
            return float("nan"), float("nan")
        f = (n - 1) * k / (n * (k - 1.0))
        return _tau_c(c, y, m), float(f * f * eq6)
    tau_b = tau_from_counts(c, "b")
    if np.isnan(tau_b):
        return tau_b, float("nan")
    nn = n * (n - 1.0)
    s_i = (c.concordant - c.discordant).astype(np.float64)  # sum_j s_ij
    full = np.full(n, n - 1.0)  # the tie counts are the scalar 0 without ties
    a_i = full - c.ey  # partners not tied in truth
    b_i = full - c.em
    ab_i = full - c.tied  # partners tied in neither
    tau_a = float(np.sum(s_i)) / nn
    ty = float(np.sum(a_i)) / nn if c.ties_y else 1.0
    tm = float(np.sum(b_i)) / nn if c.ties_m else 1.0
    scale = 1.0 / np.sqrt(ty * tm)
    R = (s_i - 0.5 * tau_a * (a_i / ty + b_i / tm)) * scale
    # sum_{i != j} k_ij^2 with s^2 = ab, s a = s b = s, a^2 = a, b^2 = b
    sab, sa, sb = float(np.sum(ab_i)), float(np.sum(a_i)), float(np.sum(b_i))
    kk = (sab - tau_a * (1 / ty + 1 / tm) * float(np.sum(s_i))
          + 0.25 * tau_a**2 * (sa / ty**2 + sb / tm**2 + 2 * sab / (ty * tm))) * scale**2
    kbar = float(np.sum(R)) / nn
    zeta2 = kk / nn - kbar**2
    zeta1 = (float(np.dot(R, R)) - kk) / (nn * (n - 2.0)) - kbar**2
    return tau_b, float(max(2.0 / nn * (zeta2 + 2.0 * (n - 2.0) * zeta1), 0.0))


def _tau_pvalue(c, y, m, alternative, method) -> float:
    """scipy.stats.kendalltau's p-value: exact (Mahonian numbers) without ties, else the tie-corrected normal."""
    n = c.n
    tot = n * (n - 1) // 2
    ry, rm = _runs(y[c.oy]), _runs(m[c.om])

    def tie_stats(t):
        t = t[t > 1].astype(object)  # Python ints: no overflow
        return int(sum(t * (t - 1) // 2)), int(sum(t * (t - 1) * (t - 2))), int(sum(t * (t - 1) * (2 * t + 5)))

    xtie, x0, x1 = tie_stats(ry)
    ytie, y0, y1 = tie_stats(rm)
    cmd = _con_minus_dis(c)
    ties = xtie or ytie
    if method == "exact" and ties:
        raise ValueError("`method` 'exact' needs data without ties; got ties (use 'asymptotic' or 'auto')")
    dis = (tot - xtie - ytie + int(np.sum(c.e_both)) // 2 - cmd) // 2  # e_both: partners tied in both
    if method == "auto":
        method = "exact" if not ties and (n <= 33 or min(dis, tot - dis) <= 1) else "asymptotic"
    if method == "exact":
        return _tau_p_exact(n, tot - dis, alternative)
    mm = n * (n - 1.0)
    var = (mm * (2 * n + 5) - x1 - y1) / 18.0 + 2.0 * xtie * ytie / mm + x0 * y0 / (9.0 * mm * (n - 2))
    z = cmd / np.sqrt(var)
    if alternative == "less":
        return float(ndtr(z))
    if alternative == "greater":
        return float(ndtr(-z))
    return float(2.0 * ndtr(-abs(z)))


#: Largest n of the exact p-value of tau (``method="exact"``): its recurrence costs O(n^3) (about 1.5 s at the bound
#: on a 2020s core); beyond it ``"asymptotic"`` is as accurate as a float can tell.
MAX_EXACT_N = 1000

#: Up to this n the exact p-value counts permutations in integers (then rounds once); beyond it, scipy's float
#: recurrence (the same values to about 1e-13, and about 40 times faster at n = 300).
_EXACT_INTEGER_N = 33


def _tau_p_exact(n: int, conc: int, alternative: str) -> float:
    """P-value from the number of concordant pairs among ``n`` untied observations, as scipy's.

    The null distribution of the number of inversions is the Mahonian numbers: the counts for ``j`` elements are
    those for ``j - 1`` convolved with ``j`` ones, i.e. a cumulative sum minus its shift by ``j`` (O(n c) for the
    lower tail up to ``c``).  Up to n = 33 (and at most one inversion, any n) in exact integers; beyond, scipy's
    float recurrence (``scipy.stats._mstats_basic._kendall_p_exact``): probabilities divided by ``j`` at every step.
    """
    from fractions import Fraction
    from math import factorial

    tot = n * (n - 1) // 2
    in_right_tail = conc >= tot - conc
    c = min(conc, tot - conc)
    if c <= 1 and n > 300:  # the tail's mass is below 1e-600: 0 as a float, 1 for the other side
        cdf = mass = 0.0
    elif n <= _EXACT_INTEGER_N or c <= 1:
        counts = [1] + [0] * c  # permutations of j elements by number of inversions <= c (Mahonian numbers)
        for j in range(2, n + 1):
            prefix, acc = [], 0
            for v in counts:
                acc += v
                prefix.append(acc)
            counts = [prefix[k] - (prefix[k - j] if k >= j else 0) for k in range(c + 1)]
        nf = factorial(n)
        cdf_exact = Fraction(sum(counts), nf)
        if alternative == "two-sided":
            return float(min(2 * cdf_exact, 1))
        if in_right_tail == (alternative == "greater"):
            return float(cdf_exact)
        return float(min(1 - cdf_exact + Fraction(counts[-1], nf), 1))
    elif 4 * c == 2 * tot and alternative == "two-sided":
        return 1.0
    else:
        new = np.zeros(c + 1)
        new[0:2] = 1.0
        if n < 171:  # n! is a float: the counts themselves
            for j in range(3, n + 1):
                new = np.cumsum(new)
                if j <= c:
                    new[j:] -= new[:c + 1 - j]
            nf = float(factorial(n))
            cdf, mass = float(np.sum(new)) / nf, float(new[-1]) / nf
        else:  # probabilities: divided by j at every step
            for j in range(3, n + 1):
                new = np.cumsum(new) / j
                if j <= c:
                    new[j:] -= new[:c + 1 - j]
            cdf, mass = float(np.sum(new)) / 2, float(new[-1]) / 2
    if alternative == "two-sided":
        return float(min(max(2 * cdf, 0.0), 1.0))
    if in_right_tail == (alternative == "greater"):
        return float(min(max(cdf, 0.0), 1.0))
    return float(min(max(1 - cdf + mass, 0.0), 1.0))


def _tau_result(c, y, m, variant, alternative, method) -> TauResult:
    # stacklevel 4: the warning points at the line that called the public function (this one's caller)
    stat, var = _tau_stat_and_variance(c, y, m, variant)
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
    return TauResult(stat, _tau_pvalue(c, y, m, alternative, method), var, variant)


MEASURES: dict[str, Callable] = {
    "RMSE": root_mean_squared_error,
    "MAE": mean_absolute_error,
    "MAD": median_absolute_error,
    "tau": kendall_tau,
    "rho": spearman_rho,
}
"""The measures of rosset's Tables 1-2 by name (``tau`` and ``rho`` as in scipy; the residual measures from
:mod:`offline_eval.metrics`)."""
