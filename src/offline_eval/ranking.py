"""Ranking-based evaluation of regression models (Rosset, Perlich & Zadrozny, ICDM 2005).

A regression model is judged by how well its predictions *order* the test
responses: Kendall's tau and Spearman's rho through the paper's statistics T
and R (eqs. 2-5), the sample variance and confidence interval of tau (eq. 6),
the three ROC-like curves of Section 3.2 (Figs. 1-3), the exact
leave-one-out influence of every observation on each measure (Section 5.2) and
a bootstrap comparison of two models (Section 5.3).

Conventions
-----------
``y_true`` are the responses, ``y_pred`` the model's predictions; a pair of
observations is *concordant* when both order it the same way, *discordant*
when they order it oppositely and *tied* when either has equal values.  The
paper assumes no ties (its footnote 2).  Where ties matter this module counts
a tied pair as one half correctly ranked (as the AUC does), so that
``tau_tilde = 1 - 2 T / (n (n - 1))`` is the share of correctly ranked pairs;
:func:`kendall_tau` returns tau-b and :func:`spearman_rho` the Pearson
correlation of average ranks, both equal to :mod:`scipy.stats` with and
without ties.  Without ties every variant coincides with the paper's.

Complexity
----------
Every per-observation count is obtained from one O(n log n) pass: the number
of observations ranked below by both truth and prediction is a "count smaller
before" over a permutation, computed by a vectorised radix partition (a
wavelet matrix, one stable partition per bit of the rank) with an O(n * 16)
brute force for the last four bits.  :func:`concordance_counts`,
:func:`kendall_tau`, :func:`tau_variance`, :func:`cutoff_auc` and
:func:`leave_one_out` are therefore O(n log n); the locally optimal envelope
of Fig. 1 is O(n^1.5) (:func:`correct_pairs_curve`).

References
----------
.. [1] S. Rosset, C. Perlich, B. Zadrozny, "Ranking-Based Evaluation of
   Regression Models", ICDM 2005.
.. [2] M. Kendall, J. D. Gibbons, *Rank Correlation Methods*, 1990.
.. [3] G. E. Noether, *Elements of Nonparametric Statistics*, 1967.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from ._validation import as_1d, check_aligned, check_consistent_length, check_finite, check_rng, warn_undefined

__all__ = [
    "MEASURES",
    "BootstrapComparison",
    "CorrectPairsCurve",
    "CumulativeRankCurve",
    "CutoffAUC",
    "Influence",
    "bootstrap_compare",
    "concordance_counts",
    "correct_pairs_curve",
    "cumulative_rank_curve",
    "cutoff_auc",
    "kendall_tau",
    "leave_one_out",
    "mean_absolute_error",
    "median_absolute_error",
    "most_influential",
    "r_statistic",
    "root_mean_squared_error",
    "spearman_rho",
    "TauSummary",
    "t_statistic",
    "tau_confidence_interval",
    "tau_summary",
    "tau_variance",
]


# -- validation ----------------------------------------------------------------------------
def _check_pair(y_true, y_pred, *, min_n: int = 1):
    check_aligned(y_true=y_true, y_pred=y_pred)
    y = check_finite(as_1d(y_true, "y_true"), "y_true")
    m = check_finite(as_1d(y_pred, "y_pred"), "y_pred")
    check_consistent_length(y_true=y, y_pred=m)
    return y, m


# -- the O(n log n) core -------------------------------------------------------------------
_BRUTE_BITS = 4  # the last 4 bits (groups of 16) by an O(16 n) comparison: cheaper than 4 partitions


def _smaller_before(r: np.ndarray) -> np.ndarray:
    """``out[k] = #{j < k : r[j] < r[k]}`` for a permutation ``r`` of ``0..n-1``.

    A wavelet-matrix pass from the top bit down: before processing bit ``b``
    the elements are ordered by their rank's bits above ``b`` (stable, so by
    position within a group); since ``r`` is a permutation, the group of
    prefix ``P`` occupies exactly positions ``[P 2^(b+1), (P+1) 2^(b+1))``.
    An element whose bit ``b`` is 1 is larger than every earlier member of
    its group whose bit is 0, which a cumulative sum counts; then each group
    is stably partitioned by the bit.  The array is padded to a power of two
    with ranks larger than every real one, placed last, which never count.
    """
    n = len(r)
    if n <= 1:
        return np.zeros(n, dtype=np.int64)
    levels = int(n - 1).bit_length()
    size = 1 << levels
    dt = np.int32 if size < 2**31 else np.int64
    vals = np.empty(size, dtype=dt)
    vals[:n] = r
    vals[n:] = np.arange(n, size, dtype=dt)
    cnt = np.zeros(size, dtype=dt)
    pos = np.arange(size, dtype=dt)
    zeros_before = np.zeros(size + 1, dtype=dt)
    nxt_vals = np.empty_like(vals)
    nxt_cnt = np.empty_like(cnt)
    brute = min(_BRUTE_BITS, levels)
    for lev in range(levels - 1, brute - 1, -1):
        half = 1 << lev
        bit = (vals >> lev) & 1
        np.cumsum(bit ^ 1, out=zeros_before[1:])
        start = pos & ~(2 * half - 1)
        zb = zeros_before[:-1] - zeros_before[start]  # zeros before, within the group
        cnt += bit * zb
        # zeros keep their order at the front of the group, ones after them
        to_zero = start + zb
        new = pos - zb + half
        new -= to_zero
        new *= bit
        new += to_zero
        nxt_vals[new] = vals
        nxt_cnt[new] = cnt
        vals, nxt_vals = nxt_vals, vals
        cnt, nxt_cnt = nxt_cnt, cnt
    g = 1 << brute
    vg = vals.reshape(-1, g)
    earlier = np.tri(g, g, -1, dtype=bool)  # [k, j] is True for j < k
    cmp = vg[:, None, :] < vg[:, :, None]
    cmp &= earlier
    cnt += cmp.sum(axis=2, dtype=dt).reshape(-1)
    by_rank = np.empty(size, dtype=np.int64)
    by_rank[vals] = cnt
    return by_rank[np.asarray(r)]


def _group_bounds(sorted_keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """First index and end (exclusive) of the run of equal keys at each sorted position."""
    n = len(sorted_keys[0])
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in sorted_keys:
        new[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    return np.repeat(starts, sizes), np.repeat(starts + sizes, sizes)


class _Counts(NamedTuple):
    """Per-observation pair counts (each excludes the observation itself).

    ``ly/gy/ey``: partners with smaller / larger / equal truth; ``lm/gm/em``
    the same for the prediction; ``A``: smaller in both, ``B``: larger in
    both; ``e_m_ylt``: equal prediction and smaller truth, ``e_m_ygt``: equal
    prediction and larger truth, ``e_y_mlt`` / ``e_y_mgt``: equal truth and
    smaller / larger prediction, ``e_both``: equal in both.  Tie arrays are
    the scalar 0 when there are no ties.
    """

    n: int
    ly: np.ndarray
    gy: np.ndarray
    ey: np.ndarray | int
    lm: np.ndarray
    gm: np.ndarray
    em: np.ndarray | int
    A: np.ndarray
    B: np.ndarray
    e_m_ylt: np.ndarray | int
    e_m_ygt: np.ndarray | int
    e_y_mlt: np.ndarray | int
    e_y_mgt: np.ndarray | int
    e_both: np.ndarray | int
    ties_y: bool
    ties_m: bool
    oy: np.ndarray  # an order of increasing truth
    om: np.ndarray  # an order of increasing prediction

    @property
    def concordant(self):
        return self.A + self.B

    @property
    def discordant(self):
        return (self.ly - self.A - self.e_m_ylt) + (self.gy - self.B - self.e_m_ygt)

    @property
    def tied(self):
        return self.ey + self.em - self.e_both


def _pair_counts(y: np.ndarray, m: np.ndarray) -> _Counts:
    n = len(y)
    ar = np.arange(n, dtype=np.int64)
    oy = np.argsort(y)
    om = np.argsort(m)
    ys, ms = y[oy], m[om]
    ties_y = bool((ys[1:] == ys[:-1]).any())
    ties_m = bool((ms[1:] == ms[:-1]).any())
    if not (ties_y or ties_m):
        rank_y = np.empty(n, dtype=np.int64)
        rank_y[oy] = ar
        rank_m = np.empty(n, dtype=np.int64)
        rank_m[om] = ar
        A = np.empty(n, dtype=np.int64)
        A[oy] = _smaller_before(rank_m[oy])
        B = (n - 1 - rank_m) - (rank_y - A)
        return _Counts(n, rank_y, n - 1 - rank_y, 0, rank_m, n - 1 - rank_m, 0, A, B, 0, 0, 0, 0, 0, False, False, oy, om)

    # Order by truth ascending, equal truths by prediction descending; equal
    # predictions ranked so that an earlier position gets the larger rank.
    # Then "smaller rank before" counts exactly the strictly smaller-in-both.
    o = np.lexsort((-m, y))
    m_seq = m[o]
    perm = np.argsort(m_seq[::-1], kind="stable")
    r_seq = np.empty(n, dtype=np.int64)
    r_seq[n - 1 - perm] = ar
    A = np.empty(n, dtype=np.int64)
    A[o] = _smaller_before(r_seq)

    def less_equal_greater(order, keys):
        first, end = _group_bounds([k[order] for k in keys])
        less, greater, equal = (np.empty(n, dtype=np.int64) for _ in range(3))
        less[order] = first
        greater[order] = n - end
        equal[order] = end - first - 1
        return less, equal, greater, first, end

    ly, ey, gy, _, _ = less_equal_greater(oy, [y])
    lm, em, gm, _, _ = less_equal_greater(om, [m])
    # within equal predictions, by truth (and the reverse)
    o2 = np.lexsort((y, m))
    m_first, m_end = _group_bounds([m[o2]])
    run_first, run_end = _group_bounds([m[o2], y[o2]])
    e_m_ylt, e_m_ygt, e_both = (np.empty(n, dtype=np.int64) for _ in range(3))
    e_m_ylt[o2] = run_first - m_first
    e_m_ygt[o2] = m_end - run_end
    e_both[o2] = run_end - run_first - 1
    o3 = np.lexsort((m, y))
    y_first, y_end = _group_bounds([y[o3]])
    run_first, run_end = _group_bounds([y[o3], m[o3]])
    e_y_mlt, e_y_mgt = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    e_y_mlt[o3] = run_first - y_first
    e_y_mgt[o3] = y_end - run_end
    B = gm - (ly - A - e_m_ylt) - e_y_mgt
    return _Counts(n, ly, gy, ey, lm, gm, em, A, B, e_m_ylt, e_m_ygt, e_y_mlt, e_y_mgt, e_both, ties_y, ties_m, oy, om)


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based average ranks (ties get the mean of the ranks they span)."""
    n = len(x)
    o = np.argsort(x, kind="stable")
    first, end = _group_bounds([x[o]])
    out = np.empty(n, dtype=np.float64)
    out[o] = (first + end + 1) / 2.0
    return out


def _tie_pairs(x_sorted: np.ndarray) -> int:
    first, end = _group_bounds([x_sorted])
    t = (end - first).astype(np.int64)
    # each group of size t contributes t(t-1)/2 pairs; summed per member: (t-1)/2
    return int((t - 1).sum()) // 2


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
    y, m = _check_pair(y_true, y_pred)
    if len(y) == 1:
        return np.zeros(1)
    c = _pair_counts(y, m)
    return (c.concordant + 0.5 * c.tied).astype(np.float64)


def t_statistic(y_true, y_pred) -> float:
    """The paper's T (eq. 2): number of pairs ranked in the wrong order.

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
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        return 0.0
    c = _pair_counts(y, m)
    return float((c.discordant.sum() + 0.5 * np.sum(c.tied)) / 2.0)


def r_statistic(y_true, y_pred) -> float:
    """The paper's R (eq. 3): order switches weighted by their distance in model rank.

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
    y, m = _check_pair(y_true, y_pred)
    d = _average_ranks(y) - _average_ranks(m)
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
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        warn_undefined(f"Kendall's tau is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    c = _pair_counts(y, m)
    tau = _tau_from_counts(c, variant)
    if np.isnan(tau):
        warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
        return tau
    return float(0.5 + 0.5 * tau) if tilde else tau


def _tau_from_counts(c: _Counts, variant: str) -> float:
    n = c.n
    if not (c.ties_y or c.ties_m):  # conc - disc = 2A + 2B - ly - gy, with sum(ly + gy) = n (n - 1)
        s = 2 * (int(c.A.sum()) + int(c.B.sum())) - n * (n - 1)
    else:
        s = int(c.concordant.sum()) - int(c.discordant.sum())  # 2 (C - D)
    pairs = n * (n - 1) / 2.0
    if variant == "a":
        return float(s / 2.0 / pairs)
    n1 = int(np.sum(c.ey)) / 2.0
    n2 = int(np.sum(c.em)) / 2.0
    den = (pairs - n1) * (pairs - n2)
    if den <= 0:
        return float("nan")
    return float(min(max(s / 2.0 / np.sqrt(den), -1.0), 1.0))


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
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        warn_undefined(f"Spearman's rho is undefined for fewer than 2 observations (got {n}); returning nan")
        return float("nan")
    a, b = _average_ranks(y), _average_ranks(m)
    a -= (n + 1) / 2.0
    b -= (n + 1) / 2.0
    saa, sbb = float(np.dot(a, a)), float(np.dot(b, b))
    if saa == 0 or sbb == 0:
        warn_undefined("Spearman's rho is undefined when `y_true` or `y_pred` is constant; returning nan")
        return float("nan")
    rho = float(min(max(np.dot(a, b) / np.sqrt(saa * sbb), -1.0), 1.0))
    return 0.5 + 0.5 * rho if tilde else rho


# -- variance and confidence interval of tau (eq. 6) ----------------------------------------
def _eq6(C: np.ndarray) -> float:
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
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the variance of tau (eq. 6) needs at least 3 observations (got {n}); returning nan")
        return float("nan")
    c = _pair_counts(y, m)
    return float(max(_eq6((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0))


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
    if not (isinstance(level, (float, int)) and 0 < level < 1):
        raise ValueError(f"`level` must be in (0, 1); got {level!r}")
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the confidence interval of tau needs at least 3 observations (got {n}); returning nan")
        return float("nan"), float("nan")
    c = _pair_counts(y, m)
    tau = _tau_from_counts(c, "a")
    var = max(_eq6((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0)
    half = float(ndtri(0.5 + level / 2.0)) * np.sqrt(var)
    return float(max(tau - half, -1.0)), float(min(tau + half, 1.0))


class TauSummary(NamedTuple):
    """Kendall's tau with its eq. 6 variance and confidence interval, from one pass."""

    tau_b: float
    tau_a: float
    variance: float
    low: float
    high: float


def tau_summary(y_true, y_pred, *, level: float = 0.95) -> TauSummary:
    """Tau-b, tau-a, the eq. 6 variance and the confidence interval, from one O(n log n) pass.

    Same values as :func:`kendall_tau` (both variants), :func:`tau_variance`
    and :func:`tau_confidence_interval`, without counting the pairs three
    times.  Needs n >= 3 (else ``nan`` fields with a warning).

    Examples
    --------
    One switched pair of six; C = (3, 3, 2, 2), so eq. 6 is
    (2/12)^2 * 2 * (2 * 26 - 10 - 5/12 * 100) = 1/54:

    >>> s = tau_summary([1, 2, 3, 4], [10, 20, 40, 30])
    >>> round(s.tau_b, 6), round(s.tau_a, 6), round(s.variance * 54, 6)
    (0.666667, 0.666667, 1.0)
    """
    if not (isinstance(level, (float, int)) and 0 < level < 1):
        raise ValueError(f"`level` must be in (0, 1); got {level!r}")
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        warn_undefined(f"the variance of tau (eq. 6) needs at least 3 observations (got {n}); returning nan")
        nan = float("nan")
        return TauSummary(nan, nan, nan, nan, nan)
    c = _pair_counts(y, m)
    tau_b, tau_a = _tau_from_counts(c, "b"), _tau_from_counts(c, "a")
    if np.isnan(tau_b):
        warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
    var = max(_eq6((c.concordant + 0.5 * c.tied).astype(np.float64)), 0.0)
    half = float(ndtri(0.5 + level / 2.0)) * np.sqrt(var)
    return TauSummary(tau_b, tau_a, float(var), float(max(tau_a - half, -1.0)), float(min(tau_a + half, 1.0)))


# -- the three curves (Section 3.2) --------------------------------------------------------
class CorrectPairsCurve(NamedTuple):
    """Fig. 1: share of correctly ranked pairs per observation, by decreasing prediction."""

    rank: np.ndarray  # 1..n, position by decreasing prediction
    share: np.ndarray  # C_i / (n - 1)
    envelope: np.ndarray  # locally optimal share
    order: np.ndarray  # index of the observation at each rank


def _max_prefix_by_threshold(y_seq: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct value t of ``y_seq``: max over allowed p of sum_{k<p} sign(y_seq[k] - t).

    Square-root decomposition over thresholds: within a block of about
    sqrt(n) consecutive distinct values only its members change sign, so the
    prefix sums are a fixed base plus a step function with one step per
    member; the maximum is taken per segment between members.
    O(n sqrt n) time, O(n) memory.
    """
    n = len(y_seq)
    vals = np.unique(y_seq)
    k = len(vals)
    block = max(int(np.sqrt(n)), 1)
    out = np.empty(k, dtype=np.float64)
    neg_inf = np.float64(-np.inf)
    for b0 in range(0, k, block):
        lo, hi = vals[b0], vals[min(b0 + block, k) - 1]
        base = np.where(y_seq < lo, -1.0, np.where(y_seq > hi, 1.0, 0.0))
        pref = np.concatenate(([0.0], np.cumsum(base)))
        pref[~allowed] = neg_inf
        members = np.flatnonzero((y_seq >= lo) & (y_seq <= hi))  # positions, increasing
        seg_max = np.maximum.reduceat(pref, np.concatenate(([0], members + 1)))
        thr = vals[b0 : b0 + block]
        steps = np.sign(y_seq[members][None, :] - thr[:, None])  # (thresholds, members)
        add = np.concatenate((np.zeros((len(thr), 1)), np.cumsum(steps, axis=1)), axis=1)
        out[b0 : b0 + block] = (seg_max[None, :] + add).max(axis=1)
    return vals, out


def correct_pairs_curve(y_true, y_pred) -> CorrectPairsCurve:
    """Fig. 1: percent of correctly ranked pairs involving each prediction.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 2

    Returns
    -------
    CorrectPairsCurve
        ``rank`` 1..n by decreasing prediction (ties by input order),
        ``share`` :math:`C_i/(n-1)` and ``envelope`` the locally optimal share
        at each rank, ``order`` the observation shown at each rank.

    Notes
    -----
    The mean of ``share`` (the area under the curve on a [0, 1] x-axis) is
    :math:`\\tilde\\tau`; the area above it is :math:`2T/(n(n-1))`.  The
    envelope is the best share observation i could reach if its prediction
    alone were moved anywhere, the others kept:
    :math:`\\max_p \\#\\{j \\text{ above } p: y_j > y_i\\} + \\#\\{j \\text{ below } p: y_j < y_i\\}`
    (plus one half per partner tied in truth), over the gaps p between the
    other predictions (between tied groups when predictions tie).  O(n log n)
    for the share, O(n^1.5) for the envelope.

    Examples
    --------
    >>> c = correct_pairs_curve([1, 3, 2], [1, 2, 3])
    >>> c.share.tolist(), c.envelope.tolist()
    ([0.5, 0.5, 1.0], [1.0, 1.0, 1.0])
    """
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        raise ValueError(f"`y_true` must have at least 2 observations for pairs; got {n}")
    c = _pair_counts(y, m)
    C = (c.concordant + 0.5 * c.tied).astype(np.float64)
    order = np.argsort(-m, kind="stable")
    y_seq, m_seq = y[order], m[order]
    allowed = np.ones(n + 1, dtype=bool)
    allowed[1:-1] = m_seq[1:] != m_seq[:-1]
    vals, best = _max_prefix_by_threshold(y_seq, allowed)
    best_i = best[np.searchsorted(vals, y)]
    env = (c.ly + 0.5 * c.ey + best_i) / (n - 1.0)
    return CorrectPairsCurve(np.arange(1, n + 1), C[order] / (n - 1.0), env[order], order)


class CutoffAUC(NamedTuple):
    """Fig. 2: AUC of separating the top ``n_positive`` responses from the rest."""

    n_positive: np.ndarray  # i: size of the top class at each cutoff
    auc: np.ndarray  # AUC_i
    weight: np.ndarray  # i (n - i): pairs the cutoff separates
    x: np.ndarray  # right edge of each cutoff on the rescaled axis (cumulative weight share)


def cutoff_auc(y_true, y_pred) -> CutoffAUC:
    """Fig. 2: the AUC of every cutoff of the responses, on the axis rescaled by i (n - i).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    CutoffAUC
        For every cutoff between distinct responses (``n - 1`` cutoffs
        without ties), from the top: the size ``i`` of class 1
        (:math:`c^{(i)}(y_j) = 1` iff :math:`y_j` is among the ``i`` largest),
        :math:`AUC_i` (ties in prediction count one half), the weight
        :math:`i(n-i)` and the right edge ``x`` of the cutoff on the rescaled
        axis, :math:`\\sum_{k \\le i} k(n-k) / \\sum_k k(n-k)`.

    Notes
    -----
    A pair is separated by exactly as many cutoffs as its distance in truth
    rank, so without ties :math:`\\sum_i (1 - AUC_i)\\, i(n-i) = R` and the
    area :math:`\\sum_i AUC_i \\Delta x_i = \\tilde\\rho` (Section 3.2).  The
    paper prints the cutoffs as :math:`1 < i < n`; the identity needs all
    :math:`n - 1` of them, :math:`1 \\le i \\le n - 1`, as its own text says
    ("n - 1 classification results").

    Moving the cutoff past one observation removes its pairs with the
    responses above it and adds those with the responses below, so all
    cutoffs come from the per-observation counts of one O(n log n) pass.

    Examples
    --------
    >>> r = cutoff_auc([1, 3, 2], [1, 2, 3])
    >>> r.n_positive.tolist(), r.auc.tolist(), r.weight.tolist()
    ([1, 2], [0.5, 1.0], [2, 2])
    """
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        raise ValueError(f"`y_true` must have at least 2 observations for a cutoff; got {n}")
    c = _pair_counts(y, m)
    up_left = c.gy - c.B - c.e_m_ygt  # higher truth, lower prediction
    low_right = c.ly - c.A - c.e_m_ylt  # lower truth, higher prediction
    delta = (low_right + 0.5 * c.e_m_ylt) - (up_left + 0.5 * c.e_m_ygt)
    order = np.argsort(-y, kind="stable")
    wrong = np.cumsum(np.asarray(delta, dtype=np.float64)[order])
    ys = y[order]
    ends = np.flatnonzero(ys[1:] != ys[:-1])  # last index of each group but the last
    i = (ends + 1).astype(np.int64)
    weight = i * (n - i)
    if len(i) == 0:
        warn_undefined("`y_true` is constant: no cutoff separates it")
        empty = np.zeros(0)
        return CutoffAUC(i, empty, weight, empty)
    auc = 1.0 - wrong[ends] / weight
    total = weight.sum()
    return CutoffAUC(i, auc, weight, np.cumsum(weight) / total)


class CumulativeRankCurve(NamedTuple):
    """Fig. 3: cumulative inverse rank of the truth by decreasing prediction (shares of the total)."""

    x: np.ndarray  # i / n, i = 0..n
    model: np.ndarray  # p_i / p_n
    optimal: np.ndarray
    worst: np.ndarray


def cumulative_rank_curve(y_true, y_pred) -> CumulativeRankCurve:
    """Fig. 3: the lift-like curve of the cumulative inverse rank of the truth.

    Returns
    -------
    CumulativeRankCurve
        At ``x = i / n`` (``i = 0..n``), with observations in decreasing
        prediction: ``model`` :math:`p_i = \\sum_{j \\le i} (n - s_j + 1)`, the
        ``optimal`` :math:`\\sum_{j \\le i} (n - j + 1)` and the ``worst``
        :math:`\\sum_{j \\le i} j`, each divided by :math:`n(n+1)/2`.

    Notes
    -----
    :math:`n - s_j + 1` is the ascending rank of :math:`y_j`; with ties,
    average ranks, and predictions tied with each other share their mean (the
    curve is linear across a tied group).  The paper gives the area as
    :math:`\\sum_i (n-i)(n-s_i)` "equal to :math:`n^3 - n^2 - n - R + \\sum_i i^2`";
    the sum actually equals :math:`\\sum_i i^2 - R - n^2` (the printed form is
    :math:`n^3 - n` too large), and the area under the plotted points
    :math:`\\sum_{i=1}^n p_i` is :math:`\\sum_i i^2 - R` (tests pin both).

    Examples
    --------
    >>> c = cumulative_rank_curve([1, 3, 2], [1, 2, 3])
    >>> (c.model * 6).round(6).tolist(), (c.optimal * 6).round(6).tolist()
    ([0.0, 2.0, 5.0, 6.0], [0.0, 3.0, 5.0, 6.0])
    """
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    inv_rank = _average_ranks(y)
    order = np.argsort(-m, kind="stable")
    v = inv_rank[order]
    ms = m[order]
    first, end = _group_bounds([ms])
    if (end - first > 1).any():  # tied predictions share the mean inverse rank of their group
        cs = np.concatenate(([0.0], np.cumsum(v)))
        v = (cs[end] - cs[first]) / (end - first)
    total = n * (n + 1) / 2.0
    j = np.arange(1, n + 1, dtype=np.float64)
    zero = np.zeros(1)
    return CumulativeRankCurve(
        np.arange(n + 1) / n,
        np.concatenate((zero, np.cumsum(v))) / total,
        np.concatenate((zero, np.cumsum(n - j + 1))) / total,
        np.concatenate((zero, np.cumsum(j))) / total,
    )


# -- residual measures -----------------------------------------------------------------------
def root_mean_squared_error(y_true, y_pred) -> float:
    """RMSE, :math:`\\sqrt{\\frac1n \\sum_i (y_i - m_i)^2}` (squared error loss, Section 2).

    >>> root_mean_squared_error([0, 0], [3, 4])
    3.5355339059327378
    """
    y, m = _check_pair(y_true, y_pred)
    r = y - m
    return float(np.sqrt(np.dot(r, r) / len(r)))


def mean_absolute_error(y_true, y_pred) -> float:
    """MAE, :math:`\\frac1n \\sum_i |y_i - m_i|` (absolute error loss, Section 2).

    >>> mean_absolute_error([0, 0], [3, -4])
    3.5
    """
    y, m = _check_pair(y_true, y_pred)
    return float(np.abs(y - m).mean())


def median_absolute_error(y_true, y_pred) -> float:
    """MAD, :math:`\\mathrm{Median}(|r_1|, \\ldots, |r_n|)` (eq. 1; mean of the middle two for even n).

    >>> median_absolute_error([0, 0, 0], [1, -5, 2])
    2.0
    """
    y, m = _check_pair(y_true, y_pred)
    return float(np.median(np.abs(y - m)))


MEASURES: dict[str, Callable] = {
    "RMSE": root_mean_squared_error,
    "MAE": mean_absolute_error,
    "MAD": median_absolute_error,
    "tau": kendall_tau,
    "rho": spearman_rho,
}
"""The measures of Tables 1-2 by name (``tau`` and ``rho`` as in scipy)."""


# -- leave-one-out influence (Section 5.2) --------------------------------------------------
def _loo_tau(c: _Counts) -> np.ndarray:
    n = c.n
    conc = c.concordant.astype(np.float64)
    disc = c.discordant.astype(np.float64)
    s = (conc.sum() - disc.sum()) / 2.0 - (conc - disc)  # C - D without i
    pairs = (n - 1) * (n - 2) / 2.0
    n1 = np.sum(c.ey) / 2.0 - c.ey
    n2 = np.sum(c.em) / 2.0 - c.em
    den = (pairs - n1) * (pairs - n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, s / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
    return np.clip(out, -1.0, 1.0)


def _sum_of_larger(key: np.ndarray, val: np.ndarray, order: np.ndarray, ties: bool):
    """For each i: sum of ``val`` over j with key_j > key_i, and over j != i with key_j == key_i.

    ``order`` sorts ``key`` increasingly; without ``ties`` the second sum is 0.
    """
    n = len(key)
    cs = np.concatenate(([0.0], np.cumsum(val[order])))
    greater = np.empty(n)
    if not ties:
        greater[order] = cs[n] - cs[1:]
        return greater, 0.0
    first, end = _group_bounds([key[order]])
    equal = np.empty(n)
    greater[order] = cs[n] - cs[end]
    equal[order] = cs[end] - cs[first] - val[order]
    return greater, equal


def _loo_rho(y: np.ndarray, m: np.ndarray, c: _Counts) -> np.ndarray:
    """Spearman's rho without each observation, exactly, in O(n log n).

    Without i the average ranks become ``a_j - alpha_j`` with
    ``alpha_j = [y_i < y_j] + [y_i = y_j]/2`` (likewise ``b``, ``beta``); the
    cross-product :math:`\\sum_{j \\ne i} (a_j - \\alpha_j)(b_j - \\beta_j)` expands
    into sums over "larger than i" sets and the pair counts, and the sums of
    squares depend only on the tie-group sizes.
    """
    n = c.n
    a = c.ly + 1.0 + 0.5 * np.asarray(c.ey)  # average ranks from the counts
    b = c.lm + 1.0 + 0.5 * np.asarray(c.em)
    sab = float(np.dot(a, b))
    a_gt_m, a_eq_m = _sum_of_larger(m, a, c.om, c.ties_m)  # sum of a over m_j > m_i, and m_j == m_i
    b_gt_y, b_eq_y = _sum_of_larger(y, b, c.oy, c.ties_y)
    ab = c.B + 0.5 * (c.e_m_ygt + c.e_y_mgt) + 0.25 * c.e_both
    cross = sab - a * b - (a_gt_m + 0.5 * a_eq_m) - (b_gt_y + 0.5 * b_eq_y) + ab
    k = n - 1.0
    sxy = cross - k * (n / 2.0) ** 2
    ty = np.asarray(c.ey) + 1.0
    tm = np.asarray(c.em) + 1.0
    tie_y = float(np.sum(ty * ty - 1.0)) - 3.0 * ty * (ty - 1.0)  # sum over groups of t^3 - t, after removal
    tie_m = float(np.sum(tm * tm - 1.0)) - 3.0 * tm * (tm - 1.0)
    sxx = (k**3 - k - tie_y) / 12.0
    syy = (k**3 - k - tie_m) / 12.0
    den = sxx * syy
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, sxy / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
    # the full-sample rho from the same average ranks
    mid = (n + 1) / 2.0
    full_den = float(np.dot(a - mid, a - mid)) * float(np.dot(b - mid, b - mid))
    if full_den > 0:
        full = float(min(max((sab - n * mid * mid) / np.sqrt(full_den), -1.0), 1.0))
    else:
        warn_undefined("Spearman's rho is undefined when `y_true` or `y_pred` is constant; returning nan")
        full = float("nan")
    return np.clip(out, -1.0, 1.0), full


def _loo_median(x: np.ndarray) -> np.ndarray:
    n = len(x)
    o = np.argsort(x, kind="stable")
    s = x[o]
    k = np.empty(n, dtype=np.int64)
    k[o] = np.arange(n)  # sorted position of each element

    def order_stat(j):  # j-th smallest of the n - 1 remaining values
        return s[np.where(j < k, j, j + 1)]

    r = n - 1
    if r % 2:
        return order_stat(np.full(n, r // 2))
    return 0.5 * (order_stat(np.full(n, r // 2 - 1)) + order_stat(np.full(n, r // 2)))


def leave_one_out(y_true, y_pred, *, measure: str) -> np.ndarray:
    """Each measure recomputed without each observation, exactly and without n re-runs.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 3
    measure : {"RMSE", "MAE", "MAD", "tau", "rho"}

    Returns
    -------
    ndarray of shape (n,)
        ``out[i]`` = the measure on all observations but ``i`` (``nan`` where
        it is undefined, e.g. a constant remainder for tau).

    Notes
    -----
    RMSE and MAE from the totals minus one term; MAD from order statistics;
    tau-b from the per-observation concordant, discordant and tie counts
    (:math:`C - c_i, D - d_i`, tie totals minus i's partners); rho from the
    update of the average ranks (see ``_loo_rho``).  All O(n log n); equal to
    a brute-force loop of the measure (tests).

    Examples
    --------
    >>> leave_one_out([1, 2, 3], [1, 2, 10], measure="MAE").tolist()
    [3.5, 3.5, 0.0]
    """
    return _leave_one_out(y_true, y_pred, measure)[0]


def _leave_one_out(y_true, y_pred, measure: str):
    """(leave-one-out values, full value) from one pass."""
    if measure not in MEASURES:
        raise ValueError(f"`measure` must be one of {sorted(MEASURES)}; got {measure!r}")
    y, m = _check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        raise ValueError(f"`y_true` must have at least 3 observations for leave-one-out; got {n}")
    r = y - m
    if measure == "RMSE":
        sq = r * r
        return np.sqrt(np.maximum(sq.sum() - sq, 0.0) / (n - 1)), float(np.sqrt(sq.sum() / n))
    if measure == "MAE":
        ab = np.abs(r)
        return np.maximum(ab.sum() - ab, 0.0) / (n - 1), float(ab.mean())
    if measure == "MAD":
        ab = np.abs(r)
        return _loo_median(ab), float(np.median(ab))
    c = _pair_counts(y, m)
    if measure == "tau":
        full = _tau_from_counts(c, "b")
        if np.isnan(full):
            warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
        return _loo_tau(c), full
    return _loo_rho(y, m, c)


class Influence(NamedTuple):
    """The single most influential observation for one measure (Table 1)."""

    index: int
    full: float
    without: float
    change: float  # (without - full) / |full|


def most_influential(y_true, y_pred, *, measure: str) -> Influence:
    """The observation whose removal changes ``measure`` the most (Table 1).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 3
    measure : {"RMSE", "MAE", "MAD", "tau", "rho"}

    Returns
    -------
    Influence
        ``index`` of the observation (the first on ties), the measure on the
        full set and without it, and the relative change
        ``(without - full) / |full|``.

    Notes
    -----
    The paper finds it by an exhaustive leave-one-out search for tau and rho
    and by the largest residual for RMSE and MAE (Section 5.2); here every
    measure uses the exhaustive criterion ``argmax_i |without_i - full|``
    computed in O(n log n) by :func:`leave_one_out` (for RMSE and MAE it is
    the largest residual whenever that residual is above the mean).

    Examples
    --------
    >>> most_influential([1, 2, 3, 4], [1, 2, 3, 40], measure="RMSE").index
    3
    """
    if measure not in MEASURES:
        raise ValueError(f"`measure` must be one of {sorted(MEASURES)}; got {measure!r}")
    loo, full = _leave_one_out(y_true, y_pred, measure)
    gap = np.abs(loo - full)
    if np.isnan(full) or np.isnan(gap).all():
        warn_undefined(f"{measure} is undefined on these data; no most influential observation")
        return Influence(-1, float("nan"), float("nan"), float("nan"))
    i = int(np.nanargmax(gap))
    if full != 0:
        change = (loo[i] - full) / abs(full)
    else:
        change = float("nan")
        warn_undefined(f"{measure} is 0 on the full set: the relative change is undefined (nan); "
                       "`with_all` and `without` hold the values")
    return Influence(i, float(full), float(loo[i]), float(change))


# -- bootstrap comparison of two models (Table 2) --------------------------------------------
class BootstrapComparison(NamedTuple):
    """Table 2 row: two models under one measure, with the bootstrap of their difference."""

    value_a: float
    value_b: float
    difference: float  # value_a - value_b
    sd: float  # bootstrap standard deviation of the difference
    p_value: float  # one-sided Gaussian: P(Z > |difference| / sd)
    differences: np.ndarray  # the bootstrap differences


def bootstrap_compare(y_true, pred_a, pred_b, *, measure, n_boot: int = 100, rng=None) -> BootstrapComparison:
    """Compare two models on one measure with a bootstrap of the test set (Section 5.3).

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like of shape (n,)
    measure : str or callable
        A name of :data:`MEASURES` or ``f(y_true, y_pred) -> float``.
    n_boot : int, default 100
        Bootstrap samples (the paper uses 100).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BootstrapComparison
        Values on the full set, their difference ``a - b``, the standard
        deviation of the difference over the bootstrap samples (ddof=1), and
        the p-value :math:`1 - \\Phi(|d| / sd)`.

    Notes
    -----
    Both models are evaluated on the same resampled rows, so the standard
    deviation is that of the *paired* difference.  The p-value is one-sided:
    recomputed from Table 2's printed differences and standard deviations
    (e.g. RMSE: 96,890 / 92,649 = 1.046, :math:`1 - \\Phi(1.046) = 0.148`,
    printed 0.14778), the paper's are one-sided too.

    Examples
    --------
    >>> r = bootstrap_compare([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [2, 1, 3, 5, 4], measure="MAE", n_boot=50, rng=0)
    >>> r.value_a, r.value_b, r.difference
    (0.0, 0.8, -0.8)
    """
    fn = MEASURES.get(measure) if isinstance(measure, str) else measure
    if fn is None or not callable(fn):
        raise ValueError(f"`measure` must be one of {sorted(MEASURES)} or a callable; got {measure!r}")
    if not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2; got {n_boot!r}")
    y, a = _check_pair(y_true, pred_a)
    b = check_finite(as_1d(pred_b, "pred_b"), "pred_b")
    check_consistent_length(y_true=y, pred_b=b)
    gen = check_rng(rng)
    n = len(y)
    va, vb = float(fn(y, a)), float(fn(y, b))
    diffs = np.empty(int(n_boot))
    for k in range(int(n_boot)):
        idx = gen.integers(0, n, size=n)
        diffs[k] = fn(y[idx], a[idx]) - fn(y[idx], b[idx])
    d = va - vb
    sd = float(np.std(diffs, ddof=1))
    if not np.isfinite(sd) or sd == 0:
        warn_undefined("the bootstrap differences have no spread; the p-value is undefined (nan)")
        p = float("nan")
    else:
        p = float(ndtr(-abs(d) / sd))
    return BootstrapComparison(va, vb, d, sd, p, diffs)
