"""Offline metrics of a bidder in second-price auctions (chapelle Section 2, Algorithm 1).

A bidder values an action (a click) at ``v``, predicts its probability ``p``
and bids ``b = p v``; it wins when ``p v > c``, ``c`` being the highest
competing bid, pays ``c`` and earns ``a v`` (``a`` = 1 when the action
happens).  The logs hold only won auctions (no exploration data).  This module
gives the offline metrics the paper compares on such logs:

* :func:`utility` -- the replayed profit, eq. (1)/(2);
* :func:`weighted_mean_squared_error` -- the squared error weighted by the value, ``v^2 (a - p)^2``;
* :func:`expected_utility` -- the expected profit when the competing bid may
  have been different, eq. (3), with a Gamma ``Pr(c~ | c)`` of shape
  ``beta c + 1`` and rate ``beta``, in closed form;

each with a per-row variant (``*_per_row``; :func:`expected_utility_by_action` gives a row's
expected utility without and with the action at once), and
:func:`ab_test_correlation`, the correlation of offline metric differences
with A/B-test profit differences across publisher networks (Algorithm 1).

Every public function validates its inputs once: probabilities outside
[0, 1], negative values or bids, NaN, lengths that differ or ``beta <= 0``
raise ``ValueError`` naming the argument.
"""

from __future__ import annotations

import math

from typing import NamedTuple

import numpy as np

from . import _bidding_engine as _engine
from ._results import short_repr

from ._validation import (
    as_1d,
    asarray_named,
    check_aligned,
    check_work,
    reject_masked,
    check_binary,
    check_bool,
    check_int,
    check_consistent_length,
    check_finite,
    check_matrix,
    check_nonnegative,
    check_probability,
    check_rng,
    warn_undefined,
)

__all__ = [
    "ABCorrelation",
    "ab_test_correlation",
    "expected_utility",
    "expected_utility_by_action",
    "expected_utility_per_row",
    "sum_expected_utility",
    "utility",
    "utility_per_row",
    "weighted_mean_squared_error",
    "weighted_squared_error_per_row",
]


# -- validation -------------------------------------------------------------------------------
def _fast_binary(a):
    arr = np.asarray(a)
    # Fast path for the common case (0/1 integers or booleans): two reductions
    # instead of the element-wise checks; anything else goes through the
    # shared validator, which also writes the error message.
    if arr.ndim == 1 and arr.size and arr.dtype.kind in "iu" and arr.min() >= 0 and arr.max() <= 1:
        return arr
    if arr.ndim == 1 and arr.size and arr.dtype.kind == "b":
        return arr.view(np.uint8)
    return check_binary(a, "a")


def _fast_range(x, name, upper=None):
    arr = np.asarray(x)
    if arr.ndim == 1 and arr.size and arr.dtype == np.float64:
        # min/max propagate NaN, so a passing check also proves finiteness.
        lo, hi = arr.min(), arr.max()
        if lo >= 0 and (hi <= upper if upper is not None else hi < np.inf):
            return arr
    if upper is not None:
        return check_probability(x, name)
    return check_nonnegative(x, name)


def _check_rows(a, v, p, c=None, *, need_c=False, need_a=True):
    # Rows are combined by position: pandas inputs must share one index, and a mask would be dropped.
    if need_c and c is None:
        raise ValueError("`c` must be an array of the highest competing bids (>= 0); got None")
    check_aligned(a=a, v=v, p=p, c=c)
    for name, x in (("a", a), ("v", v), ("p", p), ("c", c)):
        reject_masked(x, name)
    v, p = asarray_named(v, "v"), asarray_named(p, "p")
    c = None if c is None else asarray_named(c, "c")
    a = _fast_binary(asarray_named(a, "a")) if need_a else None
    v = _fast_range(v, "v")
    p = _fast_range(p, "p", upper=1.0)
    if c is not None:
        c = _fast_range(c, "c")
    check_consistent_length(a=a, v=v, p=p, c=c)
    return a, v, p, c


_BETA_MIN, _BETA_MAX = 1e-300, 1e300


def _check_beta(beta) -> float:
    if isinstance(beta, (bool, np.bool_, str, bytes, complex, np.complexfloating)):
        raise ValueError(f"`beta` must be a positive finite number; got {beta!r} ({type(beta).__name__})")
    try:
        b = float(beta)
    except (TypeError, ValueError):
        raise ValueError(f"`beta` must be a positive finite number; got {beta!r}") from None
    if not math.isfinite(b) or b <= 0:
        raise ValueError(
            f"`beta` must be a positive finite number; got {beta!r} "
            "(beta -> infinity is the utility: use `utility`)"
        )
    if not _BETA_MIN <= b <= _BETA_MAX:
        # 1/beta and beta * c must stay finite; rescale the currency instead.
        raise ValueError(f"`beta` must lie in [{_BETA_MIN:g}, {_BETA_MAX:g}]; got {beta!r}")
    return b


# -- eq. (1)/(2): the replayed utility ---------------------------------------------------------
def utility_per_row(a, v, p, c, *, check_input: bool = True) -> np.ndarray:
    """Profit of each logged auction replayed with the prediction ``p``, eq. (1).

    Parameters
    ----------
    a : array-like of shape (n,)
        Actions, 0 or 1 (1 = the valued event, e.g. a click, happened).
    v : array-like of shape (n,)
        Non-negative value of the action (e.g. the CPC the advertiser pays).
    p : array-like of shape (n,)
        Predicted probability of the action, in [0, 1].
    c : array-like of shape (n,)
        Non-negative highest competing bid (the price paid when winning).
    check_input : bool, default True
        ``False`` skips the validation of the arrays, for float64 arrays
        already checked (a replay over many models of the same log).

    Returns
    -------
    ndarray of shape (n,)
        ``(a v - c) * [p v > c]``.

    Notes
    -----
    chapelle eq. (1): the bidder bids ``p v`` in a second-price auction, wins
    when ``p v > c`` (a tie ``p v = c`` is a loss, as the strict inequality of
    eq. (1) says), then pays ``c`` and earns ``a v``.

    Examples
    --------
    >>> utility_per_row([1, 0], [2.0, 2.0], [0.5, 0.5], [0.5, 1.5]).tolist()
    [1.5, 0.0]
    """
    if check_bool(check_input, "check_input"):
        a, v, p, c = _check_rows(a, v, p, c, need_c=True)
    return _utility_rows(a, v, p, c)


def _utility_rows(a, v, p, c):
    return np.where(p * v > c, a * v - c, 0.0)


def utility(a, v, p, c) -> float:
    """The replayed utility ``sum_i (a_i v_i - c_i) [p_i v_i > c_i]`` (chapelle eq. 2).

    Parameters
    ----------
    a, v, p, c : array-like of shape (n,)
        Actions (0/1), values (>= 0), predicted probabilities (in [0, 1]) and
        highest competing bids (>= 0); see :func:`utility_per_row`.

    Returns
    -------
    float
        The summed profit of the auctions the bidder would still win.

    Notes
    -----
    On logs that hold only auctions won by a production predictor
    ``pbar`` (``pbar_i v_i > c_i`` for every ``i``), any ``p >= pbar`` wins
    every logged auction, so its utility equals that of ``pbar``: the metric
    cannot penalise over-prediction (eq. 2).  It is the ``beta -> infinity``
    limit of :func:`expected_utility`.

    References
    ----------
    .. [1] O. Chapelle, "Offline Evaluation of Response Prediction in Online
       Advertising Auctions", WWW 2015 Companion, eqs. (1)-(2).

    Examples
    --------
    >>> utility([1, 0, 1], [2.0, 2.0, 1.0], [0.5, 0.5, 0.9], [0.5, 1.5, 0.2])
    2.3
    """
    a, v, p, c = _check_rows(a, v, p, c, need_c=True)
    return float(_utility_rows(a, v, p, c).sum())


# -- the value-weighted squared error ----------------------------------------------------------
def weighted_squared_error_per_row(a, v, p) -> np.ndarray:
    """Value-weighted squared error ``v^2 (a - p)^2`` of each row.

    Parameters
    ----------
    a : array-like of shape (n,)
        Actions, 0 or 1.
    v : array-like of shape (n,)
        Non-negative values of the action.
    p : array-like of shape (n,)
        Predicted probabilities in [0, 1].

    Returns
    -------
    ndarray of shape (n,)

    Examples
    --------
    >>> weighted_squared_error_per_row([1, 0], [2.0, 3.0], [0.5, 0.1]).tolist()
    [1.0, 0.09000000000000002]
    """
    a, v, p, _ = _check_rows(a, v, p)
    return (v * (a - p)) ** 2


def weighted_mean_squared_error(a, v, p) -> float:
    """Mean value-weighted squared error ``mean_i v_i^2 (a_i - p_i)^2`` (lower is better).

    Parameters
    ----------
    a, v, p : array-like of shape (n,)
        Actions (0/1), values (>= 0) and predicted probabilities (in [0, 1]).

    Returns
    -------
    float

    Notes
    -----
    The ``beta -> 0`` limit of :func:`expected_utility` (chapelle Section 2.3,
    after Hummel & McAfee, Theorem 2): the Gamma competing-bid density
    tends to the constant ``beta`` and

    .. math:: EU_i / \\beta \\to \\tfrac12 a_i v_i^2 - \\tfrac12 v_i^2 (a_i - p_i)^2,

    an affine map of the weighted squared error whose intercept does not
    depend on ``p`` (so it cancels in a difference between two predictors).

    Examples
    --------
    >>> weighted_mean_squared_error([1, 0], [2.0, 1.0], [0.5, 0.0])
    0.5
    """
    a, v, p, _ = _check_rows(a, v, p)
    return float(np.mean((v * (a - p)) ** 2))


# -- eq. (3): the expected utility under a Gamma competing bid ---------------------------------
# The closed form and the coefficients live in the engine (_bidding_engine); these are the names the tests use.
_log_poisson_term, _eu_rows = _engine.log_poisson_term, _engine.eu_rows
_pearson, _kendall_b, _kendall_b_counts = _engine.pearson, _engine.kendall_b, _engine.kendall_b_counts



def expected_utility_per_row(a, v, p, c, *, beta, check_input: bool = True) -> np.ndarray:
    """Expected utility of each row when the competing bid is Gamma around ``c`` (chapelle eq. 3).

    Parameters
    ----------
    a : array-like of shape (n,)
        Actions, 0 or 1.
    v : array-like of shape (n,)
        Non-negative value of the action.
    p : array-like of shape (n,)
        Predicted probabilities in [0, 1]; the bid is ``p v``.
    c : array-like of shape (n,)
        Non-negative observed highest competing bids.
    beta : float
        Rate of the Gamma distribution of the competing bid, in the inverse
        units of ``c``; ``1e-300 <= beta <= 1e300`` (rescale the currency
        beyond that).  Small ``beta`` spreads the bid
        widely (weighted squared error limit), large ``beta`` concentrates it
        at ``c`` (utility limit).
    check_input : bool, default True
        As in :func:`utility_per_row`.

    Returns
    -------
    ndarray of shape (n,)

    Notes
    -----
    chapelle eq. (3) with ``Pr(c~ | c)`` the Gamma density of shape
    ``alpha = beta c + 1`` and rate ``beta``
    (``f(t) = beta^alpha t^(alpha-1) e^(-beta t) / Gamma(alpha)``):

    .. math::

        EU = \\int_0^{pv} (av - t) f(t)\\,dt
           = a v\\,P(\\beta c + 1, \\beta p v)
             - \\Big(c + \\frac1\\beta\\Big) P(\\beta c + 2, \\beta p v),

    ``P`` the regularized lower incomplete gamma function, because
    ``int_0^x t f(t) dt = (alpha/beta) P(alpha + 1, beta x)``.  The paper
    prints ``gamma(beta c, beta p v)`` in the second term; its shape is off by
    two (see the chapelle notebook's erratum claim and
    ``tests/library/test_bidding.py``).

    Computed with *one* incomplete-gamma evaluation per row: with
    ``Q = P(alpha + 1, x)``, ``x = beta p v`` and the recurrence
    ``P(alpha, x) = P(alpha + 1, x) + x^alpha e^(-x) / Gamma(alpha + 1)``
    (DLMF 8.8.5),

    .. math:: EU = (a v - c - 1/\\beta)\\,Q + a v\\,x^\\alpha e^{-x} / \\Gamma(\\alpha + 1).

    Both terms are computed without subtracting nearly equal quantities: at
    ``beta -> 0`` (``Q ~ x^2/2``, second term ``~ a v x``) the two terms have
    the exact leading orders ``beta a p v^2`` and ``-beta p^2 v^2 / 2``; the
    power term is computed in log space with Stirling's series for large
    ``alpha``; rows with ``a = 0`` never need it.

    Limits: as ``beta -> inf`` the Gamma tends to a Dirac at ``c`` and
    ``EU -> (a v - c) [p v > c]`` (:func:`utility_per_row`; ``(a v - c)/2``
    at ``p v = c``); as ``beta -> 0`` it tends to the uniform density
    ``beta`` and ``EU / beta -> (a v^2 - v^2 (a - p)^2) / 2``.

    References
    ----------
    .. [1] O. Chapelle, "Offline Evaluation of Response Prediction in Online
       Advertising Auctions", WWW 2015 Companion, eq. (3) and Section 2.4.
    .. [2] P. Hummel, P. McAfee, "Loss functions for predicted click through
       rates in auctions for online advertising", 2013.
    .. [3] NIST DLMF, eq. 8.8.5.

    Examples
    --------
    With ``c = 0`` and ``beta = 1`` the competing bid is Exponential(1); for
    ``v = 2``, ``p = 0.5`` the bid is 1 and
    ``EU = int_0^1 (2a - t) e^(-t) dt``, which is ``2(1 - 1/e) - (1 - 2/e) = 1``
    for ``a = 1`` and ``-(1 - 2/e) = -0.2642...`` for ``a = 0``:

    >>> expected_utility_per_row([1, 0], [2.0, 2.0], [0.5, 0.5], [0.0, 0.0], beta=1.0).round(4).tolist()
    [1.0, -0.2642]
    """
    b = _check_beta(beta)
    if check_bool(check_input, "check_input"):
        a, v, p, c = _check_rows(a, v, p, c, need_c=True)
    return _eu_rows(a, v, p, c, b)


def expected_utility_by_action(v, p, c, *, beta, check_input: bool = True) -> np.ndarray:
    """Expected utility of each row without and with the action, ``EU(a=0)`` and ``EU(a=1)`` (chapelle eq. 3).

    Parameters
    ----------
    v, p, c : array-like of shape (n,)
        Values (>= 0), predicted probabilities (in [0, 1]) and observed
        highest competing bids (>= 0), as in :func:`expected_utility_per_row`.
    beta : float
        Rate of the Gamma competing-bid distribution, ``1e-300 <= beta <= 1e300``.
    check_input : bool, default True
        As in :func:`utility_per_row`.

    Returns
    -------
    ndarray of shape (2, n)
        Row 0: the expected utility if the action does not happen (``a = 0``);
        row 1: if it happens (``a = 1``).  Each equals
        :func:`expected_utility_per_row` at that ``a``, bit for bit.

    Notes
    -----
    The expected utility is affine in the action,
    ``EU = -(c + 1/beta) Q + a v (Q + D)`` (the Notes of
    :func:`expected_utility_per_row`), so both values share the incomplete
    gamma ``Q`` and the power term ``D``: one incomplete-gamma evaluation per
    row instead of two.  Averaged over ``a ~ Bernoulli(q)`` it gives
    ``q EU(1) + (1 - q) EU(0)``, the expectation whose maximum at ``p = q``
    is the calibration property of chapelle Section 2.3 (Hummel & McAfee,
    Theorem 4), and the expected offline metric of logs too large for the
    click noise to matter.

    Examples
    --------
    The Exponential(1) competing bid of :func:`expected_utility_per_row`'s
    example (``c = 0``, ``beta = 1``, ``v = 2``, ``p = 0.5``):

    >>> expected_utility_by_action([2.0], [0.5], [0.0], beta=1.0).round(4).tolist()
    [[-0.2642], [1.0]]
    """
    b = _check_beta(beta)
    if check_bool(check_input, "check_input"):
        _, v, p, c = _check_rows(None, v, p, c, need_c=True, need_a=False)
    return _engine.eu_rows_by_action(v, p, c, b)


def expected_utility(a, v, p, c, *, beta) -> float:
    """Summed expected utility ``sum_i EU_i`` (chapelle eq. 3); higher is better.

    Parameters
    ----------
    a, v, p, c : array-like of shape (n,)
        Actions (0/1), values (>= 0), predicted probabilities (in [0, 1]) and
        observed highest competing bids (>= 0).
    beta : float
        Rate of the Gamma competing-bid distribution, ``0 < beta < inf``.

    Returns
    -------
    float

    Notes
    -----
    See :func:`expected_utility_per_row` for the closed form, its derivation
    and both limits (utility as ``beta -> inf``; an affine map of the weighted
    squared error as ``beta -> 0``).

    Examples
    --------
    >>> round(expected_utility([1, 0], [2.0, 2.0], [0.5, 0.5], [0.0, 0.0], beta=1.0), 4)
    0.7358
    """
    b = _check_beta(beta)
    a, v, p, c = _check_rows(a, v, p, c, need_c=True)
    return float(_eu_rows(a, v, p, c, b, total=True))


def sum_expected_utility(eu_rows) -> float:
    """Sum per-row expected utilities as :func:`expected_utility` sums them, to the same bits.

    Parameters
    ----------
    eu_rows : array-like of shape (n,)
        Per-row expected utilities, e.g. of :func:`expected_utility_per_row` (finite).

    Returns
    -------
    float
        ``sum_i eu_rows[i]``, added as :func:`expected_utility` adds its rows: the float sum of each
        consecutive block of :data:`EU_BLOCK` rows, the blocks added in order.  Rows computed apart (a
        subset recomputed, say) and summed here give :func:`expected_utility`'s value bit for bit.

    Examples
    --------
    >>> a, v, p, c = [1, 0], [2.0, 2.0], [0.5, 0.5], [0.0, 0.0]
    >>> rows = expected_utility_per_row(a, v, p, c, beta=1.0)
    >>> sum_expected_utility(rows) == expected_utility(a, v, p, c, beta=1.0)
    True
    """
    rows = check_finite(as_1d(eu_rows, "eu_rows", allow_empty=True), "eu_rows")
    acc = 0.0  # a plain loop: builtins.sum compensates float sums from Python 3.12 on
    for lo in range(0, len(rows), EU_BLOCK):
        acc += float(rows[lo:lo + EU_BLOCK].sum())
    return acc


#: Rows per block of :func:`expected_utility`'s sum (the order of its float additions; see
#: :func:`sum_expected_utility`).
EU_BLOCK = _engine.BLOCK


# -- Algorithm 1: correlation with the A/B test across networks --------------------------------
def _as_matrix(x, name):
    arr = check_matrix(x, name, rows_1d=True)
    if arr.shape[1] < 2:
        raise ValueError(f"`{name}` must hold at least 2 points per row; got shape {arr.shape}")
    return arr


#: Largest ``n_trials * n_networks`` of :func:`ab_test_correlation` (the draws are held in memory).
MAX_DRAWS = 10**8

#: Largest work of :func:`ab_test_correlation`, in pair comparisons of Kendall's tau over all trials (about 30 s
#: at the bound; see its ``n_trials``).
MAX_PAIR_WORK = 2 * 10**8


class ABCorrelation(NamedTuple):
    """Algorithm 1's correlations between offline metric differences and resampled A/B differences.

    Floats for one metric, arrays of shape (n_metrics,) for several; the
    trials have shape (n_trials,) or (n_metrics, n_trials).
    """

    pearson_r: float | np.ndarray  #: mean over the trials
    pearson_r_std: float | np.ndarray  #: standard deviation over the trials (ddof 0)
    kendall_tau: float | np.ndarray
    kendall_tau_std: float | np.ndarray
    r_trials: np.ndarray
    tau_trials: np.ndarray

    def __repr__(self) -> str:
        return short_repr("ABCorrelation", pearson_r=self.pearson_r, pearson_r_std=self.pearson_r_std,
                          kendall_tau=self.kendall_tau, kendall_tau_std=self.kendall_tau_std,
                          n_trials=int(np.shape(self.r_trials)[-1]))



def ab_test_correlation(offline_diff, online_diff, online_se, *, n_trials=100, rng=None) -> ABCorrelation:
    """Correlation between offline metric differences and resampled A/B-test differences (Algorithm 1).

    Parameters
    ----------
    offline_diff : array-like of shape (n_networks,) or (n_metrics, n_networks)
        Per network, the offline metric of model B minus that of model A,
        normalised by the network's displays (steps 1-2), oriented so that
        positive means B is better (negate losses such as the MSE).
    online_diff : array-like of shape (n_networks,)
        Per network, the A/B-test profit of B minus that of A, normalised the
        same way.
    online_se : array-like of shape (n_networks,)
        Standard error of ``online_diff`` (the two populations are
        independent: ``sqrt(se_A^2 + se_B^2)`` / normaliser).
    n_trials : int, default 100
        Number of resamplings (the paper's 100); ``n_trials * n_networks``
        must be at most 10**8 (the draws are held in memory), and
        ``n_trials * (n_metrics + 1) * w`` at most ``MAX_PAIR_WORK`` = 2 * 10**8 (tau's
        pair comparisons, at most about 30 s of work), with ``w = n (n + 1) / 2`` for the pair
        matrices of ``n`` networks or ``n log2 n + 4000`` for the O(n log n) pair
        counts (used when the matrices would exceed 2**23 cells); a larger request is
        an error before any work.
    rng : int, numpy.random.Generator or None
        Source of the resampling noise.

    Returns
    -------
    ABCorrelation
        ``pearson_r``, ``pearson_r_std``, ``kendall_tau``, ``kendall_tau_std``:
        mean and standard deviation (ddof 0) over the trials, floats for 1-D
        ``offline_diff`` and arrays of shape (n_metrics,) for 2-D;
        ``r_trials``, ``tau_trials``: arrays of shape (n_metrics, n_trials)
        (or (n_trials,)).

    Notes
    -----
    Steps 3-8 of chapelle Algorithm 1: each trial draws the online
    differences from their confidence intervals,
    ``online_diff + online_se * z`` with ``z ~ N(0, I)`` (the paper's
    "randomly sampling the online profits according to their confidence
    intervals"; by the central limit theorem the same as resampling the
    logs), then computes Pearson ``r`` and Kendall ``tau_b`` with every
    offline metric.  All metrics see the same draws, so their comparison is
    paired.  A constant row of ``offline_diff`` gives ``nan`` with a warning.

    Examples
    --------
    With no online noise every trial is the same:

    >>> out = ab_test_correlation([1.0, 2.0, 3.0], [1.0, 3.0, 2.0], [0.0, 0.0, 0.0], n_trials=5, rng=0)
    >>> round(out.pearson_r, 3), round(out.kendall_tau, 3), out.pearson_r_std
    (0.5, 0.333, 0.0)
    """
    check_aligned(offline_diff=offline_diff, online_diff=online_diff, online_se=online_se)
    off = _as_matrix(offline_diff, "offline_diff")
    one_d = np.ndim(offline_diff) == 1
    on = check_finite(as_1d(online_diff, "online_diff"), "online_diff")
    se = check_nonnegative(online_se, "online_se")
    check_consistent_length(offline_diff=off[0], online_diff=on, online_se=se)
    check_int(n_trials, "n_trials", low=1)
    check_work(int(n_trials) * on.size, "n_trials", n_trials, limit=MAX_DRAWS, what="online draws (n_trials x networks)")
    n_net, n_pairs = on.size, on.size * (on.size - 1) // 2
    if (off.shape[0] + int(n_trials)) * n_pairs <= _engine.PAIR_MATRIX_CELLS:  # kendall_b's pair matrices
        per_row = n_pairs + n_net
    else:  # its O(n log n) pair counts, one call per (metric, trial): the call's own cost counted as 4000
        per_row = n_net * max(n_net.bit_length(), 1) + 4000
    work = int(n_trials) * (off.shape[0] + 1) * per_row
    check_work(work, "n_trials", n_trials, limit=MAX_PAIR_WORK,
               what=f"pair comparisons (n_trials x ({off.shape[0]} metrics + 1) x {per_row:,} for {n_net:,} networks)",
               hint=f"use a smaller `n_trials` (at most {max(MAX_PAIR_WORK // ((off.shape[0] + 1) * per_row), 1):,} here)")
    gen = check_rng(rng)
    draws = on[None, :] + se[None, :] * gen.standard_normal((int(n_trials), on.size))
    r = _pearson(off, draws)
    tau = _kendall_b(off, draws)
    const = np.ptp(off, axis=1) == 0
    if const.any():
        warn_undefined(f"{int(const.sum())} offline metric row(s) are constant across networks; their correlations are nan")
    if (np.ptp(draws, axis=1) == 0).any():
        warn_undefined("the online differences are constant in some trial; its correlations are nan")
    out = {
        "pearson_r": r.mean(axis=1),
        "pearson_r_std": r.std(axis=1),
        "kendall_tau": tau.mean(axis=1),
        "kendall_tau_std": tau.std(axis=1),
        "r_trials": r,
        "tau_trials": tau,
    }
    if one_d:
        out = {k: (float(val[0]) if val.ndim == 1 else val[0]) for k, val in out.items()}
    return ABCorrelation(**out)
