"""Spearman's rho behind :mod:`offline_eval.ranking.coefficients`: the paper's statistic R (rosset eq. 3), the
coefficient, and its test of independence with a Fisher-z interval (scipy-like result)."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtri, stdtr

from .._results import ConfidenceInterval, Result, check_level, interval_doc, interval_text, short_repr
from .._validation import check_bool, check_choice, warn_undefined
from ._pairs import average_ranks, check_pair


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
    rho = spearman_rho_checked(y, m)
    return 0.5 + 0.5 * rho if tilde else rho


def spearman_rho_checked(y: np.ndarray, m: np.ndarray) -> float:
    """:func:`spearman_rho` of arrays already checked by ``check_pair`` (its engine, for the bootstrap)."""
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
    return float(min(max(np.dot(a, b) / np.sqrt(saa * sbb), -1.0), 1.0))


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

    @interval_doc("""Fisher-z interval with Bonett and Wright's variance for Spearman's rho.

        :math:`\\tanh(\\operatorname{atanh}\\hat\\rho \\mp z_{(1+\\text{level})/2} \\sqrt{(1 + \\hat\\rho^2/2)/(n - 3)})`:
        inside [-1, 1], around the statistic; ``nan`` for n <= 3.""")
    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
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
