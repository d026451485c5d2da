"""tau-a, tau-b, tau-c with p-values and intervals that agree (issue 23, item 3): scipy's statistic and p-value
on random inputs with and without ties, the tau-b variance against an O(n^2) reference and by its coverage."""

import warnings

import numpy as np
import pytest
from scipy import stats

from offline_eval import OfflineEvalWarning
from offline_eval import ranking as rk


def _pair(seed):
    """Random inputs of 3..60 observations: continuous, or few levels (heavy ties), in either variable."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 60))
    y = rng.integers(0, int(rng.integers(2, 8)), n).astype(float) if seed % 2 else rng.random(n)
    m = rng.integers(0, int(rng.integers(2, 8)), n).astype(float) if seed % 3 else rng.random(n)
    if seed % 5 == 0:
        m = y + rng.normal(0, 0.5, n)  # correlated
    return y, m


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


@pytest.mark.parametrize("seed", range(120))
def test_statistic_and_pvalue_equal_scipy(seed):
    y, m = _pair(seed)
    for variant in ("b", "c"):
        for alternative in ("two-sided", "less", "greater"):
            for method in ("auto", "asymptotic"):
                ours = _quiet(rk.kendall_tau_test, y, m, variant=variant, alternative=alternative, method=method)
                ref = _quiet(stats.kendalltau, y, m, variant=variant, alternative=alternative, method=method)
                np.testing.assert_allclose(ours.statistic, ref.statistic, rtol=1e-12, atol=1e-15, equal_nan=True)
                np.testing.assert_allclose(ours.pvalue, ref.pvalue, rtol=1e-10, atol=1e-300, equal_nan=True)
        np.testing.assert_allclose(_quiet(rk.kendall_tau, y, m, variant=variant),
                                   _quiet(stats.kendalltau, y, m, variant=variant).statistic, rtol=1e-12,
                                   atol=1e-15, equal_nan=True)


@pytest.mark.parametrize("n", [3, 4, 7, 20, 33, 40])
def test_exact_pvalues_equal_scipy(n):
    rng = np.random.default_rng(n)
    y = rng.random(n)
    for m in (y + rng.normal(0, 0.3, n), np.r_[y[1], y[0], y[2:]], -y, rng.random(n)):
        for alternative in ("two-sided", "less", "greater"):
            ref = stats.kendalltau(y, m, alternative=alternative)
            assert rk.kendall_tau_test(y, m, alternative=alternative).pvalue == pytest.approx(ref.pvalue, rel=1e-10)
            if n <= 33:
                ref = stats.kendalltau(y, m, alternative=alternative, method="exact")
                got = rk.kendall_tau_test(y, m, alternative=alternative, method="exact").pvalue
                assert got == pytest.approx(ref.pvalue, rel=1e-10)


def test_exact_refuses_ties():
    with pytest.raises(ValueError, match="`method` 'exact' needs data without ties"):
        rk.kendall_tau_test([1, 1, 2, 3], [1, 2, 3, 4], method="exact")


def _tau_b_variance_reference(y, m):
    """O(n^2): the delta-method kernel of tau-b written out pair by pair, and the U-statistic variance estimate."""
    n = len(y)
    s = np.sign(y[:, None] - y[None, :]) * np.sign(m[:, None] - m[None, :])
    a = (y[:, None] != y[None, :]).astype(float)
    b = (m[:, None] != m[None, :]).astype(float)
    nn = n * (n - 1)
    tau_a, ty, tm = s.sum() / nn, a.sum() / nn, b.sum() / nn
    k = (s - tau_a / 2 * (a / ty + b / tm)) / np.sqrt(ty * tm)
    np.fill_diagonal(k, 0.0)
    R = k.sum(axis=1)
    kbar = R.sum() / nn
    zeta2 = (k**2).sum() / nn - kbar**2  # the variance of the kernel over the pairs
    zeta1 = np.mean((R / (n - 1) - kbar) ** 2)  # the variance of the row means
    return 2 / nn * (zeta2 + 2 * (n - 2) * zeta1)


@pytest.mark.parametrize("seed", range(40))
def test_tau_b_variance_equals_the_pairwise_reference(seed):
    y, m = _pair(seed)
    if len(np.unique(y)) < 2 or len(np.unique(m)) < 2:
        return
    got = rk.tau_variance(y, m, variant="b")
    assert got == pytest.approx(_tau_b_variance_reference(y, m), rel=1e-9, abs=1e-15)
    assert rk.kendall_tau_test(y, m).variance == got


@pytest.mark.parametrize("seed", range(10))
def test_without_ties_every_variance_is_tau_a_s(seed):
    rng = np.random.default_rng(seed)
    y = rng.random(80)
    m = y + rng.normal(0, 0.5, 80)
    var_a = rk.tau_variance(y, m, variant="a")
    assert rk.tau_variance(y, m) == pytest.approx(var_a, rel=1e-12)
    assert rk.tau_confidence_interval(y, m) == pytest.approx(rk.tau_confidence_interval(y, m, variant="a"),
                                                             rel=1e-12)


def test_tau_c_variance_is_eq_6_rescaled():
    y = np.repeat([1.0, 2.0, 3.0], 10)
    m = np.tile([1.0, 2.0, 3.0, 4.0, 5.0], 6) + y
    n, k = 30, 3
    f = (n - 1) * k / (n * (k - 1))
    assert rk.tau_variance(y, m, variant="c") == pytest.approx(f * f * rk.tau_variance(y, m, variant="a"), rel=1e-12)


def test_tau_b_sits_inside_its_own_interval_with_ties():
    # regression: with ties a tau-b of 0.5246 sat at the top of the tau-a interval (0.5133, 0.5262)
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, 2000).astype(float)
    m = y + rng.integers(0, 4, 2000)
    tau_b = rk.kendall_tau(y, m)
    low_a, high_a = rk.tau_confidence_interval(y, m, variant="a")
    assert not low_a <= tau_b <= high_a  # the tau-a interval is for another number
    r = rk.kendall_tau_test(y, m)
    low, high = r.confidence_interval(0.95)
    assert r.statistic == tau_b and low < tau_b < high and (low + high) / 2 == pytest.approx(tau_b, abs=1e-12)
    assert rk.tau_confidence_interval(y, m) == rk.tau_confidence_interval(y, m, variant="b") == (low, high)


def test_one_default_variant_everywhere_tau_b_as_scipy():
    y, m = [1, 2, 2, 3, 4, 4], [1, 3, 2, 2, 5, 4]
    assert rk.kendall_tau(y, m) == pytest.approx(stats.kendalltau(y, m).statistic, rel=1e-15)  # tau-b
    res = rk.kendall_tau_test(y, m)
    assert res.variant == "b" and rk.tau_confidence_interval(y, m) == res.confidence_interval()
    assert rk.tau_variance(y, m) == res.variance != rk.tau_variance(y, m, variant="a")  # ties: b differs from a


def test_tau_b_interval_covers_the_population_tau_b_under_ties():
    """A world of 4 x 5 levels: the population tau-b from 4e5 draws; 300 samples of 150."""
    def draw(rng, n):
        y = rng.integers(0, 4, n).astype(float)
        return y, np.floor((y + rng.normal(0, 1.5, n)) * 1.2)

    truth = rk.kendall_tau(*draw(np.random.default_rng(1), 400_000))
    rng = np.random.default_rng(2)
    hits_b = hits_a = 0
    for _ in range(300):
        y, m = draw(rng, 150)
        low, high = rk.kendall_tau_test(y, m).confidence_interval(0.9)
        hits_b += low <= truth <= high
        low, high = rk.tau_confidence_interval(y, m, level=0.9, variant="a")
        hits_a += low <= truth <= high
    assert 0.85 <= hits_b / 300 <= 0.95
    assert hits_a / 300 < 0.5  # the tau-a interval is for another number


def test_result_repr_and_undefined():
    r = rk.kendall_tau_test([1, 2, 3, 4], [1, 3, 2, 4])
    assert repr(r).startswith("TauResult(variant='b', statistic=0.6667, pvalue=")
    with pytest.warns(OfflineEvalWarning, match="constant"):
        assert np.isnan(rk.kendall_tau_test([1, 1, 1, 1], [1, 2, 3, 4]).pvalue)
    with pytest.raises(ValueError, match="`variant` must be one of"):
        rk.kendall_tau_test([1, 2, 3], [1, 2, 3], variant="d")
    with pytest.raises(ValueError, match="`variant` must be one of"):
        rk.kendall_tau([1, 2, 3], [1, 2, 3], variant="d")


# -- Spearman's rho with its p-value and interval ------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_rho_test_equals_scipy_spearmanr(seed, alternative):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 300))
    y = rng.normal(size=n)
    m = 0.3 * y + rng.normal(size=n)
    if seed % 2:  # ties in both
        y, m = np.round(y), np.round(m * 2) / 2
    ref = stats.spearmanr(y, m, alternative=alternative)
    got = rk.spearman_rho_test(y, m, alternative=alternative)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-12, abs=1e-15)
    assert got.pvalue == pytest.approx(ref.pvalue, rel=1e-9, abs=1e-300)


def test_rho_test_edges():
    r = rk.spearman_rho_test([1, 2, 3, 4, 5], [1, 2, 3, 4, 5])
    assert r.statistic == 1.0 and r.pvalue == 0.0
    assert r.confidence_interval() == (1.0, 1.0)
    with pytest.warns(OfflineEvalWarning):
        assert np.isnan(rk.spearman_rho_test([1, 2], [2, 1]).pvalue)
    with pytest.warns(OfflineEvalWarning):
        assert np.isnan(rk.spearman_rho_test([1, 1, 1, 1], [1, 2, 3, 4]).statistic)
    assert np.isnan(rk.spearman_rho_test([1, 2, 3], [1, 3, 2]).confidence_interval()).all()  # n <= 3
    with pytest.raises(ValueError, match="alternative"):
        rk.spearman_rho_test([1, 2, 3], [1, 2, 3], alternative="both")


def test_rho_interval_covers_the_population_rho():
    # bivariate normal with correlation r: Spearman's population rho is (6 / pi) arcsin(r / 2)
    rng = np.random.default_rng(11)
    r, n, reps = 0.6, 60, 600
    truth = 6.0 / np.pi * np.arcsin(r / 2.0)
    hit = 0
    for _ in range(reps):
        x = rng.normal(size=n)
        y = r * x + np.sqrt(1 - r * r) * rng.normal(size=n)
        lo, hi = rk.spearman_rho_test(x, y).confidence_interval(0.9)
        hit += lo <= truth <= hi
    # 0.9 nominal; 600 replications give a standard error of 0.012
    assert 0.86 <= hit / reps <= 0.94
