"""Tests of offline_eval.bidding (chapelle eqs. 1-3, Section 2.4, Algorithm 1)."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate, special, stats

from offline_eval import OfflineEvalWarning, _bidding_engine, bidding
from offline_eval import bidding as bd
from offline_eval.bidding import (
    _kendall_b,
    _pearson,
    ab_test_correlation,
    expected_utility,
    expected_utility_by_action,
    expected_utility_per_row,
    utility,
    utility_per_row,
    weighted_mean_squared_error,
    weighted_squared_error_per_row,
)

BETAS = [1e-3, 1e-2, 1e-1, 1.0, 10.0, 1e2, 1e3, 1e4]


# -- slow, obviously-correct references --------------------------------------------------------
def eu_quad(a, v, p, c, beta):
    """Eq. (3) by adaptive quadrature, written from the paper's integral alone.

    EU = int_0^{pv} (a v - t) f(t) dt with f the Gamma density of shape beta c + 1 and rate beta, written
    out from its log (no scipy.stats), integrated piecewise around its bulk so quad sees the peak.
    """
    shape = beta * c + 1.0
    upper = p * v
    if upper == 0:
        return 0.0
    log_norm = shape * math.log(beta) - math.lgamma(shape)

    def integrand(t):
        if t <= 0.0:
            return 0.0 if shape > 1.0 else (a * v) * math.exp(log_norm) * (shape == 1.0)
        return (a * v - t) * math.exp(log_norm + (shape - 1.0) * math.log(t) - beta * t)

    centre, spread = (shape - 1.0) / beta, math.sqrt(shape) / beta
    cuts = sorted({0.0, upper, *(x for x in (centre - 6 * spread, centre - 2 * spread, centre, centre + 2 * spread,
                                              centre + 6 * spread) if 0.0 < x < upper)})
    return math.fsum(integrate.quad(integrand, lo, hi, limit=400, epsabs=0.0, epsrel=1e-12)[0]
                     for lo, hi in zip(cuts[:-1], cuts[1:]))


def eu_two_gammainc(a, v, p, c, beta):
    """The closed form with two incomplete-gamma calls (accurate away from beta -> 0)."""
    alpha = beta * c + 1.0
    x = beta * p * v
    return a * v * special.gammainc(alpha, x) - (alpha / beta) * special.gammainc(alpha + 1.0, x)


def eu_printed(a, v, p, c, beta):
    """The closed form as printed in chapelle Section 2.4 (regularized gamma)."""
    x = beta * p * v
    return a * v * special.gammainc(beta * c + 1.0, x) - (beta * c + 1.0) / beta * special.gammainc(beta * c, x)


def random_rows(rng, n, *, c_scale=1.0):
    a = (rng.random(n) < 0.4).astype(np.int8)
    v = rng.lognormal(0.0, 1.0, n)
    p = rng.random(n)
    c = c_scale * rng.lognormal(-1.0, 1.0, n)
    return a, v, p, c


# -- eq. (3) against numerical integration -------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("beta", BETAS)
def test_expected_utility_matches_quadrature(seed, beta):
    rng = np.random.default_rng(seed)
    a, v, p, c = random_rows(rng, 6)
    # bids on the scale of 1/beta too, so the integrand is not flat over [0, pv]
    c[:3] = rng.lognormal(0, 1, 3) / beta
    v[:3] = rng.lognormal(0, 1, 3) / beta
    got = expected_utility_per_row(a, v, p, c, beta=beta)
    ref = np.array([eu_quad(*row, beta) for row in zip(a, v, p, c)])
    scale = v + c + 1.0 / beta  # every term of EU is at most this in absolute value
    np.testing.assert_allclose(got, ref, rtol=1e-8, atol=1e-11 * scale.max())


def test_expected_utility_matches_two_gammainc_form_on_random_inputs():
    rng = np.random.default_rng(11)
    for beta in BETAS:
        a, v, p, c = random_rows(rng, 2000)
        np.testing.assert_allclose(
            expected_utility_per_row(a, v, p, c, beta=beta), eu_two_gammainc(a, v, p, c, beta), rtol=1e-9, atol=1e-13
        )


def test_doc_example_exponential_competing_bid_by_hand():
    # c = 0, beta = 1: Exp(1) competing bid; int_0^1 (2 - t) e^-t dt = 1 and int_0^1 -t e^-t dt = 2/e - 1
    got = expected_utility_per_row([1, 0], [2.0, 2.0], [0.5, 0.5], [0.0, 0.0], beta=1.0)
    np.testing.assert_allclose(got, [1.0, 2.0 / math.e - 1.0], rtol=1e-14)


def test_paper_printed_closed_form_is_off_by_two_in_the_shape():
    # Section 2.4 prints gamma(beta c, beta p v) in the second term; the integral
    # of t f(t) needs shape beta c + 2.  a = 0, v = 2, p = 0.5, c = 1, beta = 1:
    # eq. (3) = -int_0^1 t^2 e^-t dt = 5/e - 2 = -0.1606, printed form -2 (1 - 1/e) = -1.2642.
    ref = eu_quad(0, 2.0, 0.5, 1.0, 1.0)
    assert ref == pytest.approx(5 / math.e - 2, rel=1e-10)
    assert expected_utility_per_row([0], [2.0], [0.5], [1.0], beta=1.0)[0] == pytest.approx(ref, rel=1e-12)
    assert eu_printed(0, 2.0, 0.5, 1.0, 1.0) == pytest.approx(-2 * (1 - 1 / math.e), rel=1e-12)
    assert abs(eu_printed(0, 2.0, 0.5, 1.0, 1.0) - ref) > 1.0
    # and on random inputs the printed form is far off while the corrected one is not
    rng = np.random.default_rng(3)
    a, v, p, c = random_rows(rng, 40)
    ref = np.array([eu_quad(*row, 1.0) for row in zip(a, v, p, c)])
    assert np.max(np.abs(eu_printed(a, v, p, c, 1.0) - ref)) > 0.1
    np.testing.assert_allclose(expected_utility_per_row(a, v, p, c, beta=1.0), ref, rtol=1e-8, atol=1e-12)


def test_summed_form_is_the_sum_of_rows():
    rng = np.random.default_rng(5)
    a, v, p, c = random_rows(rng, 3000)
    rows = expected_utility_per_row(a, v, p, c, beta=3.0)
    assert isinstance(expected_utility(a, v, p, c, beta=3.0), float)
    assert expected_utility(a, v, p, c, beta=3.0) == pytest.approx(math.fsum(rows), rel=1e-12)


def test_blocks_do_not_change_the_result(monkeypatch):
    rng = np.random.default_rng(6)
    a, v, p, c = random_rows(rng, 1001)
    whole = expected_utility_per_row(a, v, p, c, beta=2.0)
    total = expected_utility(a, v, p, c, beta=2.0)
    monkeypatch.setattr(_bidding_engine, "BLOCK", 7)
    np.testing.assert_array_equal(expected_utility_per_row(a, v, p, c, beta=2.0), whole)
    assert expected_utility(a, v, p, c, beta=2.0) == pytest.approx(total, rel=1e-12)
    # all-zero and all-one actions go through both branches of every block
    for aa in (np.zeros_like(a), np.ones_like(a)):
        np.testing.assert_allclose(
            expected_utility_per_row(aa, v, p, c, beta=2.0), eu_two_gammainc(aa, v, p, c, 2.0), rtol=1e-9, atol=1e-14
        )


@pytest.mark.parametrize("beta", [1e-200, 1e-3, 1.0, 10.0, 1e3, 1e7, 1e16])
def test_by_action_is_the_per_row_eu_at_both_actions_bit_for_bit(monkeypatch, beta):
    # one incomplete gamma per row serves both actions: the same bits as two calls of the per-row EU,
    # and a drawn click picks its row (what the chapelle study's offline differences rely on)
    rng = np.random.default_rng(8)
    a, v, p, c = random_rows(rng, 2001)
    both = expected_utility_by_action(v, p, c, beta=beta)
    assert both.shape == (2, len(v))
    for action in (0, 1):
        np.testing.assert_array_equal(both[action], expected_utility_per_row(np.full(len(v), action), v, p, c, beta=beta))
    np.testing.assert_array_equal(np.where(a == 1, both[1], both[0]), expected_utility_per_row(a, v, p, c, beta=beta))
    monkeypatch.setattr(_bidding_engine, "BLOCK", 7)
    np.testing.assert_array_equal(expected_utility_by_action(v, p, c, beta=beta), both)


def test_by_action_validates_its_rows():
    with pytest.raises(ValueError, match="`p`"):
        expected_utility_by_action([1.0], [1.5], [0.1], beta=1.0)
    with pytest.raises(ValueError, match="`beta`"):
        expected_utility_by_action([1.0], [0.5], [0.1], beta=0.0)


# -- the two limits (Section 2.3-2.4) ---------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_large_beta_tends_to_the_utility(seed):
    rng = np.random.default_rng(seed)
    a, v, p, c = random_rows(rng, 500)
    # keep rows whose bid is not within 1% of the price (the Dirac limit is a step there)
    keep = np.abs(p * v - c) > 0.01 * c
    a, v, p, c = a[keep], v[keep], p[keep], c[keep]
    u = utility_per_row(a, v, p, c)
    errs = [np.max(np.abs(expected_utility_per_row(a, v, p, c, beta=b) - u)) for b in (1e4, 1e6, 1e8)]
    assert errs[-1] < 1e-6
    assert errs[0] > errs[1] > errs[2]
    assert expected_utility(a, v, p, c, beta=1e9) == pytest.approx(utility(a, v, p, c), rel=1e-6)


def test_large_beta_at_a_tied_bid_is_half_the_profit():
    # p v = c: the Dirac limit splits the mass, EU -> (a v - c) / 2
    got = expected_utility_per_row([1, 0], [2.0, 2.0], [0.5, 0.5], [1.0, 1.0], beta=1e12)
    np.testing.assert_allclose(got, [0.5, -0.5], rtol=1e-5)


@pytest.mark.parametrize("seed", range(3))
def test_small_beta_is_affine_in_the_weighted_squared_error(seed):
    rng = np.random.default_rng(seed)
    a, v, p, c = random_rows(rng, 500)
    wse = weighted_squared_error_per_row(a, v, p)
    limit = 0.5 * a * v**2 - 0.5 * wse  # EU / beta -> a v^2 / 2 - v^2 (a - p)^2 / 2
    for beta, tol in ((1e-6, 1e-4), (1e-9, 1e-7), (1e-14, 1e-11)):
        got = expected_utility_per_row(a, v, p, c, beta=beta) / beta
        np.testing.assert_allclose(got, limit, rtol=tol, atol=tol * (v**2).max())
    # the intercept does not depend on p: a difference of two predictors is a difference of weighted errors
    p2 = rng.random(len(p))
    d_eu = (expected_utility(a, v, p2, c, beta=1e-12) - expected_utility(a, v, p, c, beta=1e-12)) / 1e-12
    d_wse = np.sum(weighted_squared_error_per_row(a, v, p2)) - np.sum(wse)
    assert d_eu == pytest.approx(-0.5 * d_wse, rel=1e-8)


# -- numerical stability at the ends -----------------------------------------------------------
@pytest.mark.parametrize("beta", [1e-300, 1e-200, 1e-100, 1e-20, 1e20, 1e100, 1e300])
def test_extreme_beta_stays_finite_and_between_its_limits(beta):
    rng = np.random.default_rng(7)
    a, v, p, c = random_rows(rng, 300)
    eu = expected_utility_per_row(a, v, p, c, beta=beta)
    assert np.isfinite(eu).all()
    if beta < 1:
        lim = beta * (0.5 * a * v**2 - 0.5 * weighted_squared_error_per_row(a, v, p))
        np.testing.assert_allclose(eu, lim, rtol=1e-9, atol=1e-320)
    else:
        keep = np.abs(p * v - c) > 1e-6 * c
        np.testing.assert_allclose(eu[keep], utility_per_row(a, v, p, c)[keep], rtol=1e-9, atol=1e-12)


def one_gammainc_downward(a, v, p, c, beta):
    """The other one-call form: P(alpha, x) by gammainc, P(alpha + 1, x) = P(alpha, x) - D."""
    alpha = beta * c + 1.0
    x = beta * p * v
    P = special.gammainc(alpha, x)
    D = np.exp(special.xlogy(alpha, x) - x - special.gammaln(alpha + 1.0))
    return a * v * P - (alpha / beta) * (P - D)


def test_small_beta_has_no_cancellation():
    # x = beta p v = 1e-16.  Recurring downward, P(alpha + 1, x) = P(alpha, x) - D subtracts two
    # O(x) numbers to get O(x^2) and is wrong at the first digit; the implemented upward form,
    # P(alpha, x) = P(alpha + 1, x) + D, only adds positive terms.
    a, v, p, c = np.array([1, 0]), np.array([1.0, 1.0]), np.array([0.3, 0.3]), np.array([0.2, 0.2])
    beta = 1e-16 / 0.3
    exact = beta * (0.5 * a * v**2 - 0.5 * (v * (a - p)) ** 2)
    np.testing.assert_allclose(expected_utility_per_row(a, v, p, c, beta=beta), exact, rtol=1e-12)
    assert np.max(np.abs(one_gammainc_downward(a, v, p, c, beta) / exact - 1)) > 0.1


@pytest.mark.parametrize("c0", [0.0, 1e-300, 1e-30, 1e6, 1e12])
@pytest.mark.parametrize("beta", [1e-3, 1.0, 1e4])
def test_tiny_and_huge_prices_stay_finite(c0, beta):
    v = np.array([1.0, 1e6, 1e12, 3e12, 0.0])  # no bid exactly at a price: the step is ill-conditioned there
    p = np.array([0.5, 1.0, 0.9, 0.5, 1.0])
    for a in (np.zeros(5, np.int8), np.ones(5, np.int8)):
        c = np.full(5, c0)
        eu = expected_utility_per_row(a, v, p, c, beta=beta)
        assert np.isfinite(eu).all()
        # |EU| <= max(a v, c + 1/beta): a bounded integrand against a probability
        assert (np.abs(eu) <= np.maximum(a * v, c + 1 / beta) * (1 + 1e-12)).all()
        ref = eu_two_gammainc(a, v, p, c, beta)
        np.testing.assert_allclose(eu, ref, rtol=1e-8, atol=1e-300)


def test_p_zero_and_p_one():
    v = np.array([0.3, 2.0, 5.0])
    c = np.array([0.1, 1.0, 10.0])
    for beta in (1e-8, 1.0, 1e8):
        for a in (np.zeros(3, np.int8), np.ones(3, np.int8)):
            assert (expected_utility_per_row(a, v, np.zeros(3), c, beta=beta) == 0).all()
            full = expected_utility_per_row(a, v, np.ones(3), c, beta=beta)
            np.testing.assert_allclose(full, eu_two_gammainc(a, v, 1.0, c, beta), rtol=1e-8, atol=1e-300)


@pytest.mark.parametrize("share_small", [0.0, 0.03, 0.5, 0.97, 1.0])
def test_poisson_term_gives_each_row_its_branch_whatever_the_mix(share_small):
    # the branch most rows take runs on every row and the others are overwritten: each row has the bits it has alone
    rng = np.random.default_rng(3)
    n = 301
    s = np.where(rng.random(n) < share_small, rng.uniform(1, 10, n), rng.uniform(10, 1e4, n))
    x = s * rng.lognormal(0.0, 0.5, n)
    x[::50] = 0.0
    whole = _bidding_engine.log_poisson_term(s, x)
    alone = np.array([_bidding_engine.log_poisson_term(s[i:i + 1], x[i:i + 1])[0] for i in range(n)])
    np.testing.assert_array_equal(whole, alone)


def test_poisson_term_is_accurate_for_huge_shapes():
    # x^s e^-x / Gamma(s + 1) at x = s is 1/sqrt(2 pi s) (1 - 1/(12 s) + ...); the naive
    # s log x - x - lgamma(s + 1) loses ~s log(s) eps in the exponent.
    s = np.array([1e4, 1e8, 1e12, 1e15])
    got = np.exp(bidding._log_poisson_term(s, s.copy())) * np.sqrt(2 * np.pi * s)
    np.testing.assert_allclose(got, 1 - 1 / (12 * s) + 1 / (288 * s**2), rtol=1e-12)
    # and it agrees with the direct form where that one is exact enough
    rng = np.random.default_rng(2)
    s = rng.uniform(1, 60, 500)
    x = rng.uniform(0, 120, 500)
    direct = special.xlogy(s, x) - x - special.gammaln(s + 1)
    np.testing.assert_allclose(bidding._log_poisson_term(s, x), direct, rtol=1e-12, atol=1e-11)
    assert bidding._log_poisson_term(np.array([1.0, 50.0]), np.zeros(2)).tolist() == [-np.inf, -np.inf]


# -- properties (Hummel & McAfee Theorem 4, eq. 2) ------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    q=st.floats(0.01, 0.99), v=st.floats(0.01, 100.0), c=st.floats(0.0, 100.0),
    log_beta=st.floats(-3.0, 4.0), p_other=st.floats(0.0, 1.0),
)
def test_expected_eu_is_maximised_by_the_true_probability(q, v, c, log_beta, p_other):
    # E_a[EU(p)] = int_0^{pv} (q v - t) f(t) dt is maximal at p = q (truthful second-price auction)
    beta = 10.0**log_beta
    def mean_eu(p):
        return q * expected_utility_per_row([1], [v], [p], [c], beta=beta)[0] + (1 - q) * expected_utility_per_row(
            [0], [v], [p], [c], beta=beta)[0]
    scale = max(v, c + 1 / beta)
    assert mean_eu(q) >= mean_eu(p_other) - 1e-12 * scale


@settings(max_examples=60, deadline=None)
@given(v=st.floats(0.0, 50.0), c=st.floats(0.0, 50.0), p1=st.floats(0.0, 1.0), p2=st.floats(0.0, 1.0),
       log_beta=st.floats(-3.0, 4.0))
def test_eu_of_a_non_event_is_non_positive_and_decreasing_in_p(v, c, p1, p2, log_beta):
    beta = 10.0**log_beta
    lo, hi = sorted((p1, p2))
    e_lo, e_hi = expected_utility_per_row([0, 0], [v, v], [lo, hi], [c, c], beta=beta)
    assert e_hi <= e_lo <= 0.0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), log_beta=st.floats(-3.0, 4.0))
def test_zero_value_rows_contribute_nothing(seed, log_beta):
    rng = np.random.default_rng(seed)
    a, v, p, c = random_rows(rng, 20)
    v[::2] = 0.0
    eu = expected_utility_per_row(a, v, p, c, beta=10.0**log_beta)
    assert (eu[::2] == 0).all()


@pytest.mark.parametrize("seed", range(5))
def test_utility_matches_a_loop(seed):
    rng = np.random.default_rng(seed)
    a, v, p, c = random_rows(rng, 300)
    c[:10] = p[:10] * v[:10]  # exact ties are losses (strict inequality of eq. 1)
    ref = 0.0
    for ai, vi, pi, ci in zip(a, v, p, c):
        if pi * vi > ci:
            ref += ai * vi - ci
    assert utility(a, v, p, c) == pytest.approx(ref, rel=1e-12)
    assert (utility_per_row(a, v, p, c)[:10] == 0).all()


@pytest.mark.parametrize("seed", range(3))
def test_eq2_overprediction_is_not_penalised_on_won_only_logs(seed):
    rng = np.random.default_rng(seed)
    a, v, pbar, c = random_rows(rng, 5000)
    won = pbar * v > c
    a, v, pbar, c = a[won], v[won], pbar[won], c[won]
    p_over = np.minimum(1.0, pbar * rng.uniform(1.0, 3.0, len(pbar)))
    # eq. (2): the same utility for pbar and any p >= pbar: sum a v - c
    assert utility(a, v, p_over, c) == pytest.approx(utility(a, v, pbar, c), rel=1e-12)
    assert utility(a, v, pbar, c) == pytest.approx(float(np.sum(a * v - c)), rel=1e-12)
    # while the expected utility does penalise the over-prediction (with a bid spread of the scale of c)
    assert expected_utility(a, v, p_over, c, beta=3.0) < expected_utility(a, v, pbar, c, beta=3.0)


@pytest.mark.parametrize("seed", range(3))
def test_weighted_mse_matches_a_loop_and_sklearn(seed):
    from sklearn.metrics import mean_squared_error

    rng = np.random.default_rng(seed)
    a, v, p, _ = random_rows(rng, 200)
    ref = sum((vi * (ai - pi)) ** 2 for ai, vi, pi in zip(a, v, p)) / len(a)
    assert weighted_mean_squared_error(a, v, p) == pytest.approx(ref, rel=1e-12)
    w = v**2
    assert weighted_mean_squared_error(a, v, p) * len(a) / w.sum() == pytest.approx(mean_squared_error(a, p, sample_weight=w), rel=1e-12)


# -- bad input ---------------------------------------------------------------------------------
GOOD = dict(a=[1, 0, 1], v=[1.0, 2.0, 3.0], p=[0.1, 0.5, 0.9], c=[0.1, 0.2, 0.3])


@pytest.mark.parametrize(
    "name, value, match",
    [
        ("p", [0.1, 1.5, 0.2], r"`p` must lie in \[0, 1\]; got 1 value outside"),
        ("p", [0.1, -0.1, 0.2], r"`p` must lie in \[0, 1\]"),
        ("p", [0.1, np.nan, 0.2], r"`p` must be finite; got 1 NaN value"),
        ("v", [1.0, -2.0, 3.0], r"`v` must be non-negative; got 1 negative value"),
        ("v", [1.0, np.inf, 3.0], r"`v` must be finite; got 1 infinite value"),
        ("c", [0.1, -0.2, 0.3], r"`c` must be non-negative"),
        ("c", [np.nan, 0.2, 0.3], r"`c` must be finite; got 1 NaN"),
        ("a", [1, 2, 0], r"`a` must contain only 0 and 1; got 1 other value"),
        ("a", [1.0, 0.5, 0.0], r"`a` must contain only 0 and 1"),
        ("a", [1.0, np.nan, 0.0], r"`a` must be finite"),
        ("c", [0.1, 0.2], r"inputs must have the same length; .*`c` has 2"),
        ("p", [[0.1, 0.2, 0.3]], r"`p` must be 1-D"),
        ("v", [], r"`v` must not be empty"),
    ],
)
def test_invalid_input_names_the_argument(name, value, match):
    args = {**GOOD, name: value}
    for fn in (utility, utility_per_row):
        with pytest.raises(ValueError, match=match):
            fn(args["a"], args["v"], args["p"], args["c"])
    for fn in (expected_utility, expected_utility_per_row):
        with pytest.raises(ValueError, match=match):
            fn(args["a"], args["v"], args["p"], args["c"], beta=1.0)
    if name != "c":
        with pytest.raises(ValueError, match=match):
            weighted_mean_squared_error(args["a"], args["v"], args["p"])


@pytest.mark.parametrize("beta", [0.0, -1.0, np.nan, np.inf, "ten", None])
def test_invalid_beta(beta):
    with pytest.raises(ValueError, match="`beta` must be a positive finite number"):
        expected_utility(GOOD["a"], GOOD["v"], GOOD["p"], GOOD["c"], beta=beta)
    with pytest.raises(ValueError, match="`beta`"):
        expected_utility_per_row(GOOD["a"], GOOD["v"], GOOD["p"], GOOD["c"], beta=beta)


def test_boolean_and_float_actions_are_accepted():
    a_int = expected_utility_per_row(GOOD["a"], GOOD["v"], GOOD["p"], GOOD["c"], beta=2.0)
    a_bool = expected_utility_per_row(np.array(GOOD["a"], bool), GOOD["v"], GOOD["p"], GOOD["c"], beta=2.0)
    a_float = expected_utility_per_row(np.array(GOOD["a"], float), GOOD["v"], GOOD["p"], GOOD["c"], beta=2.0)
    np.testing.assert_array_equal(a_int, a_bool)
    np.testing.assert_array_equal(a_int, a_float)


# -- correlations and Algorithm 1 ----------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
def test_pearson_and_kendall_match_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 30))
    x = rng.normal(size=n)
    y = x + rng.normal(size=n)
    if seed % 2:  # ties in both samples (tau-b)
        x, y = np.round(x), np.round(y)
    # the batched helpers behind Algorithm 1 (one row per resampling trial)
    assert _pearson(x[None], y[None])[0, 0] == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert _kendall_b(x[None], y[None])[0, 0] == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)


def test_batched_kendall_tau_b_matches_a_pair_loop_with_ties():
    x = np.array([1, 2, 2, 3, 4, 4, 5.0])
    y = np.array([2, 1, 3, 3, 5, 4, 4.0])
    conc = disc = tx = ty = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            tx += dx == 0
            ty += dy == 0
            conc += dx * dy > 0
            disc += dx * dy < 0
    n0 = len(x) * (len(x) - 1) / 2
    assert _kendall_b(x[None], y[None])[0, 0] == pytest.approx((conc - disc) / math.sqrt((n0 - tx) * (n0 - ty)), abs=1e-14)


def test_constant_samples_are_undefined():
    with pytest.warns(OfflineEvalWarning, match="constant across networks"):
        out = ab_test_correlation([[1.0, 2.0, 3.0], [0.0, 0.0, 0.0]], [1.0, 2.0, 4.0], [0.1, 0.1, 0.1], n_trials=4, rng=0)
    assert np.isnan(out.pearson_r[1]) and np.isfinite(out.pearson_r[0])


def test_algorithm1_matches_a_loop_over_trials():
    rng = np.random.default_rng(4)
    n_net, n_trials = 25, 30
    offline = rng.normal(size=(3, n_net))
    online = offline[0] + rng.normal(size=n_net)
    se = rng.uniform(0.1, 1.0, n_net)
    out = ab_test_correlation(offline, online, se, n_trials=n_trials, rng=123)
    draws = online + se * np.random.default_rng(123).standard_normal((n_trials, n_net))
    r = np.array([[stats.pearsonr(m, d)[0] for d in draws] for m in offline])
    tau = np.array([[stats.kendalltau(m, d)[0] for d in draws] for m in offline])
    np.testing.assert_allclose(out.r_trials, r, atol=1e-12)
    np.testing.assert_allclose(out.tau_trials, tau, atol=1e-12)
    np.testing.assert_allclose(out.pearson_r, r.mean(1), atol=1e-12)
    np.testing.assert_allclose(out.kendall_tau_std, tau.std(1), atol=1e-12)
    one = ab_test_correlation(offline[1], online, se, n_trials=n_trials, rng=123)
    assert isinstance(one.pearson_r, float) and one.r_trials.shape == (n_trials,)
    assert one.kendall_tau == pytest.approx(out.kendall_tau[1], abs=1e-12)


def test_algorithm1_without_online_noise_is_the_plain_correlation():
    x = np.array([0.3, -1.0, 2.0, 0.5, 0.1])
    y = np.array([0.2, -0.5, 1.0, 1.2, -0.1])
    out = ab_test_correlation(x, y, np.zeros(5), n_trials=3, rng=0)
    assert out.pearson_r == pytest.approx(stats.pearsonr(x, y)[0], abs=1e-12)
    assert out.kendall_tau == pytest.approx(stats.kendalltau(x, y)[0], abs=1e-12)
    assert out.pearson_r_std == 0 and out.kendall_tau_std == 0


def test_algorithm1_invalid_input():
    with pytest.raises(ValueError, match="`online_se` must be non-negative"):
        ab_test_correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.1, -0.1, 0.1])
    with pytest.raises(ValueError, match="inputs must have the same length"):
        ab_test_correlation([1.0, 2.0, 3.0], [1.0, 2.0], [0.1, 0.1])
    with pytest.raises(ValueError, match="`n_trials` must be a positive integer"):
        ab_test_correlation([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [0.1, 0.1, 0.1], n_trials=0)
    with pytest.raises(ValueError, match="`offline_diff` must be finite"):
        ab_test_correlation([1.0, np.nan, 3.0], [1.0, 2.0, 3.0], [0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="`offline_diff` must hold at least 2 points"):
        ab_test_correlation([1.0], [1.0], [0.1])


@pytest.mark.parametrize("n", [0, 5, bd.EU_BLOCK - 1, 2 * bd.EU_BLOCK + 17])
def test_sum_expected_utility_adds_rows_as_expected_utility_does(n):
    rng = np.random.default_rng(n)
    a, v = rng.integers(0, 2, n), rng.lognormal(0, 1, n)
    p, c = rng.uniform(0, 0.2, n), rng.exponential(0.5, n)
    rows = bd.expected_utility_per_row(a, v, p, c, beta=3.0) if n else np.array([])
    total = bd.sum_expected_utility(rows)
    if n:
        assert total == bd.expected_utility(a, v, p, c, beta=3.0)  # the same bits
        assert total == pytest.approx(math.fsum(rows), rel=1e-12)
    else:
        assert total == 0.0
    with pytest.raises(ValueError, match="`eu_rows`"):
        bd.sum_expected_utility([1.0, np.nan])
