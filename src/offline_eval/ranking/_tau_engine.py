"""The engine of Kendall's tau behind :mod:`offline_eval.ranking.coefficients`: eq. 6 from the concordance counts,
tau-b and tau-c with their variance, and scipy's p-values (exact from the Mahonian numbers, else the normal)."""

from __future__ import annotations

import numpy as np
from scipy.special import ndtr

from .._validation import check_nonnegative, warn_undefined
from ._pairs import pair_counts, tau_from_counts


def tau_variance_from_concordance(C: np.ndarray) -> float:
    """Eq. 6 from the per-observation concordance counts: the paper's unbiased estimate of tau-a's variance.

    Unbiased, and therefore not always positive: in some configurations (``[1, 2, 3, 4, 5]`` against
    ``[1, 3, 2, 5, 4]``) it is 0 or below although tau is not 1.  The interval of :func:`kendall_tau_test` (and
    :func:`tau_variance`) uses the plug-in form of the same U-statistic variance instead, which cannot be.

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


def tau_c(c, y, m) -> float:
    k = min(len(_runs(y[c.oy])), len(_runs(m[c.om])))
    if k < 2:
        return float("nan")
    return float(min(max(2.0 * _con_minus_dis(c) / (c.n**2 * (k - 1) / k), -1.0), 1.0))


def _u_variance(R: np.ndarray, kk: float, nn: float, n: int) -> float:
    """Hoeffding's variance of a U-statistic of degree 2, ``2/(n(n-1)) (zeta_2 + 2(n-2) zeta_1)``, with plug-in
    (V-statistic) estimates of both zetas: ``zeta_1`` the variance of the row means ``R_i / (n - 1)`` and
    ``zeta_2`` the variance of the kernel over the ordered pairs (``kk`` the sum of its squares).  Each is a
    variance of an empirical distribution, so neither can be negative, and ``zeta_2`` is 0 only when every
    kernel value is the same: no clipping hides a negative estimate."""
    kbar = float(np.sum(R)) / nn
    zeta1 = float(np.mean((R / (n - 1.0) - kbar) ** 2))
    zeta2 = max(kk / nn - kbar * kbar, 0.0)  # max: rounding of a variance that is exactly 0 (all kernels equal)
    return 2.0 / nn * (zeta2 + 2.0 * (n - 2.0) * zeta1)


def tau_stat_and_variance(c, y, m, variant):
    """``(statistic, variance)`` of tau-a, tau-b or tau-c from the pair counts (see :func:`kendall_tau_test`)."""
    n = c.n
    nn = n * (n - 1.0)
    s_i = (c.concordant - c.discordant).astype(np.float64)  # sum_j s_ij
    full = np.full(n, n - 1.0)  # the tie counts are the scalar 0 without ties
    ab_i = full - c.tied  # partners tied in neither: sum_j s_ij^2
    if variant in ("a", "c"):
        var_a = _u_variance(s_i, float(np.sum(ab_i)), nn, n)  # kernel s_ij, mean tau-a
        if variant == "a":
            return tau_from_counts(c, "a"), var_a
        k = min(len(_runs(y[c.oy])), len(_runs(m[c.om])))
        if k < 2:
            return float("nan"), float("nan")
        f = (n - 1) * k / (n * (k - 1.0))
        return tau_c(c, y, m), float(f * f * var_a)
    tau_b = tau_from_counts(c, "b")
    if np.isnan(tau_b):
        return tau_b, float("nan")
    a_i = full - c.ey  # partners not tied in truth
    b_i = full - c.em
    tau_a = float(np.sum(s_i)) / nn
    ty = float(np.sum(a_i)) / nn if c.ties_y else 1.0
    tm = float(np.sum(b_i)) / nn if c.ties_m else 1.0
    scale = 1.0 / np.sqrt(ty * tm)
    R = (s_i - 0.5 * tau_a * (a_i / ty + b_i / tm)) * scale
    # sum_{i != j} k_ij^2 with s^2 = ab, s a = s b = s, a^2 = a, b^2 = b
    sab, sa, sb = float(np.sum(ab_i)), float(np.sum(a_i)), float(np.sum(b_i))
    kk = (sab - tau_a * (1 / ty + 1 / tm) * float(np.sum(s_i))
          + 0.25 * tau_a**2 * (sa / ty**2 + sb / tm**2 + 2 * sab / (ty * tm))) * scale**2
    return tau_b, _u_variance(R, kk, nn, n)


def tau_pvalue(c, y, m, alternative, method) -> float:
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


def kendall_tau_checked(y: np.ndarray, m: np.ndarray, variant: str = "b") -> float:
    """``kendall_tau`` of arrays already checked by ``check_pair`` (its engine, for the bootstrap)."""
    n = len(y)
    if n < 2:
        warn_undefined(f"Kendall's tau is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    c = pair_counts(y, m)
    tau = tau_c(c, y, m) if variant == "c" else tau_from_counts(c, variant)
    if np.isnan(tau):
        warn_undefined(f"Kendall's tau-{variant} is undefined when `y_true` or `y_pred` is constant; returning nan")
    return tau
