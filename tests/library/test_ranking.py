"""offline_eval.ranking against O(n^2) references, scipy, and every identity of Rosset et al. (2005)."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn.metrics import roc_auc_score

from offline_eval import OfflineEvalWarning
from offline_eval.ranking import _pairs
from offline_eval import ranking as rk
from offline_eval.metrics import roc_auc_score as project_auc

SEEDS = range(8)


# -- slow, obviously correct references ------------------------------------------------------
def brute_counts(y, m):
    """(concordant, discordant, tied) partners of every observation, by a double loop."""
    n = len(y)
    conc, disc, tie = np.zeros(n), np.zeros(n), np.zeros(n)
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            p = (y[j] - y[i]) * (m[j] - m[i])
            if p > 0:
                conc[i] += 1
            elif p < 0:
                disc[i] += 1
            else:
                tie[i] += 1
    return conc, disc, tie


def brute_C(y, m):
    conc, _, tie = brute_counts(y, m)
    return conc + tie / 2


def paper_sorted(y, m):
    """The paper's setting: sort by decreasing prediction; s_i = |{j : y_i <= y_j}| (no ties)."""
    order = np.argsort(-np.asarray(m), kind="stable")
    ys = np.asarray(y)[order]
    s = np.array([np.sum(ys[i] <= ys) for i in range(len(ys))])
    return ys, s


def brute_T(y, m):
    _, s = paper_sorted(y, m)
    n = len(s)
    return sum(1 for i in range(n) for j in range(i + 1, n) if s[i] > s[j])


def brute_R(y, m):
    _, s = paper_sorted(y, m)
    n = len(s)
    return sum(j - i for i in range(n) for j in range(i + 1, n) if s[i] > s[j])


def brute_envelope(y, m):
    """Best share of correct pairs for each i over every placement of its prediction."""
    n = len(y)
    out = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        cands = np.unique(np.asarray(m)[others])
        places = np.concatenate(([cands[0] - 1], (cands[:-1] + cands[1:]) / 2, [cands[-1] + 1]))
        best = -1.0
        for p in places:
            mm = np.array(m, dtype=float)
            mm[i] = p
            best = max(best, brute_C(y, mm)[i])
        out[i] = best / (n - 1)
    return out


def data(seed, n=60, ties=False):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    m = y + rng.normal(size=n)
    if ties:
        y = np.round(y * 2) / 2
        m = np.round(m * 2) / 2
    return y, m


# -- the core count ----------------------------------------------------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 15, 16, 17, 31, 32, 33, 100, 257, 1000])
def test_smaller_before_matches_double_loop(n):
    for seed in range(3):
        r = np.random.default_rng(seed).permutation(n)
        ref = np.array([np.sum(r[:k] < r[k]) for k in range(n)], dtype=np.int64)
        np.testing.assert_array_equal(_pairs.smaller_before(r), ref)


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", SEEDS)
def test_pair_counts_match_double_loop(seed, ties):
    y, m = data(seed, n=50, ties=ties)
    conc, disc, tie = brute_counts(y, m)
    c = _pairs.pair_counts(y, m)
    np.testing.assert_array_equal(c.concordant, conc)
    np.testing.assert_array_equal(c.discordant, disc)
    np.testing.assert_array_equal(np.broadcast_to(c.tied, (50,)), tie)
    np.testing.assert_array_equal(rk.concordance_counts(y, m), conc + tie / 2)


def test_pair_counts_heavy_ties_and_large_n():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 4, 300).astype(float)
    m = rng.integers(0, 3, 300).astype(float)
    np.testing.assert_array_equal(rk.concordance_counts(y, m), brute_C(y, m))
    y, m = data(9, n=3000)
    C = rk.concordance_counts(y, m)
    # a column of the double loop is enough to check a large n
    for i in (0, 1234, 2999):
        d = (y - y[i]) * (m - m[i])
        assert C[i] == np.sum(d > 0)


# -- eqs. 2-5: T, R, tau, rho -------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_T_and_R_match_their_definitions(seed):
    y, m = data(seed, n=40)
    T, R = rk.t_statistic(y, m), rk.r_statistic(y, m)
    assert T == brute_T(y, m)
    assert R == brute_R(y, m)
    n = len(y)
    assert 0 <= T <= n * (n - 1) / 2 and 0 <= R <= n * (n - 1) * (n + 1) / 6


def test_T_and_R_maxima_on_reversed_order():
    n = 9
    y = np.arange(n, dtype=float)
    assert rk.t_statistic(y, -y) == n * (n - 1) / 2
    assert rk.r_statistic(y, -y) == n * (n - 1) * (n + 1) / 6
    assert rk.kendall_tau(y, -y) == -1.0 and rk.spearman_rho(y, -y) == -1.0


@pytest.mark.parametrize("seed", SEEDS)
def test_R_equals_sum_i2_minus_sum_i_si(seed):
    # Proposition 2's "equivalent formulation", proven in Kendall & Gibbons
    y, m = data(seed, n=45)
    _, s = paper_sorted(y, m)
    i = np.arange(1, len(s) + 1)
    assert brute_R(y, m) == np.sum(i**2) - np.sum(i * s)


@pytest.mark.parametrize("seed", SEEDS)
def test_eq4_eq5_are_kendall_and_spearman_without_ties(seed):
    y, m = data(seed, n=200)
    n = len(y)
    tau4 = 1 - 4 * rk.t_statistic(y, m) / (n * (n - 1))
    rho5 = 1 - 12 * rk.r_statistic(y, m) / (n * (n - 1) * (n + 1))
    assert abs(tau4 - stats.kendalltau(y, m)[0]) <= 1e-12
    assert abs(rho5 - stats.spearmanr(y, m)[0]) <= 1e-12
    assert abs(rk.kendall_tau(y, m) - stats.kendalltau(y, m)[0]) <= 1e-12
    assert abs(rk.kendall_tau(y, m, variant="a") - tau4) <= 1e-12
    assert abs(rk.spearman_rho(y, m) - stats.spearmanr(y, m)[0]) <= 1e-12
    assert abs(rk.kendall_tau(y, m, tilde=True) - (0.5 + tau4 / 2)) <= 1e-12
    assert abs(rk.spearman_rho(y, m, tilde=True) - (0.5 + rho5 / 2)) <= 1e-12


@pytest.mark.parametrize("seed", SEEDS)
def test_tie_rules_match_scipy(seed):
    y, m = data(seed, n=150, ties=True)
    assert abs(rk.kendall_tau(y, m) - stats.kendalltau(y, m, variant="b")[0]) <= 1e-12
    assert abs(rk.spearman_rho(y, m) - stats.spearmanr(y, m)[0]) <= 1e-12
    # tau-a with ties counted one half = the share of correctly ranked pairs, rescaled
    conc, disc, _ = brute_counts(y, m)
    n = len(y)
    assert abs(rk.kendall_tau(y, m, variant="a") - (conc.sum() - disc.sum()) / (n * (n - 1))) <= 1e-12
    assert abs(rk.t_statistic(y, m) - (n * (n - 1) - brute_C(y, m).sum()) / 2) <= 1e-9


def test_tau_tilde_is_share_of_correct_pairs_section_3_1():
    y, m = data(3, n=80)
    correct = sum(
        (y[i] - y[j]) * (m[i] - m[j]) > 0 for i in range(80) for j in range(i + 1, 80)
    )
    assert abs(rk.kendall_tau(y, m, tilde=True) - correct / (80 * 79 / 2)) <= 1e-12


def test_large_input_matches_scipy():
    rng = np.random.default_rng(11)
    y = rng.lognormal(size=200_000)
    m = np.log(y) + rng.normal(size=y.size)
    assert abs(rk.kendall_tau(y, m) - stats.kendalltau(y, m)[0]) <= 1e-12
    assert abs(rk.spearman_rho(y, m) - stats.spearmanr(y, m)[0]) <= 1e-12


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=3, max_size=25),
    st.sampled_from(["exp", "cube", "shift"]),
)
def test_invariant_under_monotone_transforms(pairs, how):
    y = np.array([p[0] for p in pairs], dtype=float)
    m = np.array([p[1] for p in pairs], dtype=float)
    f = {"exp": np.exp, "cube": lambda x: x**3, "shift": lambda x: 3 * x + 7}[how]
    assume(np.unique(y).size >= 2 and np.unique(m).size >= 2)
    assert abs(rk.kendall_tau(y, m) - rk.kendall_tau(f(y), m)) <= 1e-12
    assert abs(rk.spearman_rho(y, m) - rk.spearman_rho(y, f(m))) <= 1e-12
    np.testing.assert_allclose(rk.concordance_counts(y, m), rk.concordance_counts(f(y), f(m)))
    # symmetry of the coefficients in their two arguments
    assert abs(rk.kendall_tau(y, m) - rk.kendall_tau(m, y)) <= 1e-12
    assert abs(rk.kendall_tau(y, m) - stats.kendalltau(y, m)[0]) <= 1e-12


# -- eq. 6 ---------------------------------------------------------------------------------------
def noether_plugin(y, m):
    n = len(y)
    C = brute_C(y, m)
    pc = C.sum() / (n * (n - 1))
    pcc = np.sum(C * (C - 1)) / (n * (n - 1) * (n - 2))
    return 8 / (n * (n - 1)) * (pc * (1 - pc) + 2 * (n - 2) * (pcc - pc**2))


@pytest.mark.parametrize("seed", SEEDS)
def test_eq6_is_noethers_variance_with_plugin_estimates(seed):
    y, m = data(seed, n=70)
    eq6 = rk.tau_variance_from_concordance(rk.concordance_counts(y, m))
    assert abs(eq6 - noether_plugin(y, m)) <= 1e-15


def test_eq6_invariant_under_C_to_discordant_counts():
    # The printed C_i counts discordant partners; eq. 6 gives the same value either way.
    y, m = data(1, n=90)
    C = rk.concordance_counts(y, m)
    assert abs(rk.tau_variance_from_concordance(C) - rk.tau_variance_from_concordance(len(y) - 1 - C)) <= 1e-15


def test_printed_Ci_formula_counts_discordant_pairs_erratum():
    y, m = data(2, n=60)
    ys, _ = paper_sorted(y, m)  # decreasing prediction, as the paper assumes
    n = len(ys)
    printed = np.array(
        [sum(ys[i] > ys[j] for j in range(i)) + sum(ys[i] < ys[j] for j in range(i + 1, n)) for i in range(n)]
    )
    T = rk.t_statistic(y, m)
    assert printed.sum() == 2 * T  # discordant: each switched pair counted twice
    order = np.argsort(-m, kind="stable")
    np.testing.assert_array_equal(rk.concordance_counts(y, m)[order], n - 1 - printed)


@pytest.mark.parametrize("seed", range(3))
def test_eq6_close_to_bootstrap_and_to_monte_carlo(seed):
    rng = np.random.default_rng(100 + seed)
    n = 300

    def draw(size):
        z = rng.normal(size=size)
        return np.exp(z), 0.5 * z + rng.normal(size=size)

    y, m = draw(n)
    v6 = rk.tau_variance_from_concordance(rk.concordance_counts(y, m))
    assert 0.9 < rk.tau_variance(y, m, variant="a") / v6 < 1.1  # the interval's plug-in form: close at n = 300
    boot = [rk.kendall_tau(y[i], m[i], variant="a") for i in rng.integers(0, n, (400, n))]
    mc = [rk.kendall_tau(*draw(n)) for _ in range(400)]
    # 400 draws: the variance estimates carry ~7% noise; 25% is a 3.5-sigma band
    assert 0.75 < np.var(boot, ddof=1) / v6 < 1.33
    assert 0.75 < np.var(mc, ddof=1) / v6 < 1.33


def test_confidence_interval_covers_population_tau():
    # bivariate normal with correlation r: tau = 2/pi arcsin(r)
    rng = np.random.default_rng(7)
    r = 0.5
    tau = 2 / np.pi * np.arcsin(r)
    hits = 0
    for _ in range(200):
        z = rng.normal(size=(2, 150))
        y, m = z[0], r * z[0] + np.sqrt(1 - r * r) * z[1]
        lo, hi = rk.tau_confidence_interval(y, m, level=0.9, variant="a")
        hits += lo <= tau <= hi
    assert 0.83 <= hits / 200 <= 0.96  # binomial(200, 0.9) 99.8% band


def test_eq6_can_be_negative_the_interval_s_variance_cannot_and_ci_within_bounds():
    # every C_i equal to 2 (two swapped neighbour pairs): eq. 6 (unbiased) is negative; the plug-in form is not
    y = np.array([1.0, 2, 3, 4])
    m = np.array([2.0, 1, 4, 3])
    assert rk.tau_variance_from_concordance(rk.concordance_counts(y, m)) < 0
    assert rk.tau_variance(y, m, variant="a") > 0
    lo, hi = rk.tau_confidence_interval(np.arange(6.0), np.arange(6.0))
    assert (lo, hi) == (1.0, 1.0)


# -- Fig. 1 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_correct_pairs_curve_and_envelope(seed, ties):
    y, m = data(seed, n=30, ties=ties)
    curve = rk.correct_pairs_curve(y, m)
    np.testing.assert_allclose(curve.share, brute_C(y, m)[curve.order] / 29)
    np.testing.assert_allclose(curve.envelope, brute_envelope(y, m)[curve.order])
    assert np.all(curve.envelope >= curve.share - 1e-12)


def test_fig1_area_is_tau_tilde_and_area_above_is_2T():
    y, m = data(4, n=500)
    curve = rk.correct_pairs_curve(y, m)
    n = len(y)
    assert abs(curve.share.mean() - rk.kendall_tau(y, m, tilde=True)) <= 1e-12
    assert abs((1 - curve.share).mean() - 2 * rk.t_statistic(y, m) / (n * (n - 1))) <= 1e-12


def test_envelope_large_n_spot_check():
    y, m = data(6, n=2000)
    env = rk.correct_pairs_curve(y, m).envelope
    order = np.argsort(-m, kind="stable")
    for k in (0, 777, 1999):  # placement search for single observations
        i = order[k]
        ys_others = y[order[order != i]]
        sign = np.sign(ys_others - y[i])
        best = np.sum(ys_others < y[i]) + max(0, np.cumsum(sign).max())
        assert abs(env[k] - best / 1999) <= 1e-12


# -- Fig. 2 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_cutoff_auc_matches_roc_auc_at_every_cutoff(seed):
    y, m = data(seed, n=40)
    res = rk.cutoff_auc(y, m)
    assert len(res.auc) == len(y) - 1  # n - 1 cutoffs, 1 <= i <= n - 1
    rank_desc = np.argsort(np.argsort(-y))
    for i, a in zip(res.n_positive, res.auc):
        labels = (rank_desc < i).astype(int)
        assert abs(a - roc_auc_score(labels, m)) <= 1e-12


def test_cutoff_auc_with_ties_matches_project_auc():
    y, m = data(2, n=80, ties=True)
    res = rk.cutoff_auc(y, m)
    assert len(res.auc) == np.unique(y).size - 1
    thresholds = np.sort(np.unique(y))[::-1]
    for k, (i, a) in enumerate(zip(res.n_positive, res.auc)):
        labels = (y >= thresholds[k]).astype(int)
        assert labels.sum() == i
        assert abs(a - project_auc(labels, m)) <= 1e-12


@pytest.mark.parametrize("seed", SEEDS)
def test_sum_of_cutoff_errors_is_R_and_area_is_rho_tilde(seed):
    y, m = data(seed, n=300)
    res = rk.cutoff_auc(y, m)
    R = rk.r_statistic(y, m)
    assert abs(np.sum((1 - res.auc) * res.weight) - R) <= 1e-6
    widths = np.diff(np.concatenate(([0.0], res.x)))
    assert abs(np.sum(res.auc * widths) - rk.spearman_rho(y, m, tilde=True)) <= 1e-12


def test_printed_cutoff_range_misses_the_first_cutoff_erratum():
    # "for all possible cutoffs 1 < i < n": without i = 1 the identity with R fails
    y, m = data(8, n=100)
    m[np.argmax(y)] = m.min() - 1  # the largest response gets the lowest prediction: AUC_1 = 0
    res = rk.cutoff_auc(y, m)
    keep = (res.n_positive > 1) & (res.n_positive < 100)
    R = rk.r_statistic(y, m)
    assert res.auc[0] == 0.0
    assert abs(np.sum(((1 - res.auc) * res.weight)[keep]) - R) == 99


# -- Fig. 3 --------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_cumulative_rank_curve_and_area_formula(seed):
    y, m = data(seed, n=120)
    n = len(y)
    c = rk.cumulative_rank_curve(y, m)
    _, s = paper_sorted(y, m)
    total = n * (n + 1) / 2
    np.testing.assert_allclose(c.model[1:] * total, np.cumsum(n - s + 1))
    assert c.model[-1] == pytest.approx(1.0) and c.optimal[-1] == pytest.approx(1.0)
    assert np.all(c.worst <= c.model + 1e-12) and np.all(c.model <= c.optimal + 1e-12)
    i = np.arange(1, n + 1)
    R = rk.r_statistic(y, m)
    paper_sum = np.sum((n - i) * (n - s))
    # the sum the paper names equals sum i^2 - R - n^2 ...
    assert paper_sum == np.sum(i**2) - R - n**2
    # ... not the printed n^3 - n^2 - n - R + sum i^2, which is n^3 - n larger (erratum)
    printed = n**3 - n**2 - n - R + np.sum(i**2)
    assert printed - paper_sum == n**3 - n
    # the area under the plotted points (right Riemann sum of p_i) is sum i^2 - R
    assert abs(np.sum(c.model[1:] * total) - (np.sum(i**2) - R)) <= 1e-6


def test_fig3_optimal_at_ten_percent_is_19_percent():
    # Fig. 3 caption: the model captures 15% at 10% of the data, "about 4% less than the optimal"
    c = rk.cumulative_rank_curve(np.arange(500.0), np.arange(500.0))
    assert round(c.optimal[50] * 100) == 19


def test_cumulative_rank_curve_with_tied_predictions_is_linear_in_group():
    y = np.array([5.0, 1, 3, 2])
    m = np.array([1.0, 1, 0, 0])
    c = rk.cumulative_rank_curve(y, m)
    # first group {5, 1} ascending ranks {4, 1}: mean 2.5 each
    np.testing.assert_allclose(c.model * 10, [0, 2.5, 5, 7.5, 10])


# -- Proposition 2 -------------------------------------------------------------------------------
@settings(max_examples=80, deadline=None)
@given(st.integers(5, 40), st.integers(0, 10**6), st.data())
def test_proposition_2_bounds(n, seed, draw):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    m = y + rng.normal(size=n)
    k = draw.draw(st.integers(1, n - 1))
    y2 = y.copy()
    idx = rng.choice(n, k, replace=False)
    y2[idx] = rng.normal(size=k) * 10 ** draw.draw(st.integers(0, 6))
    assume(np.unique(y2).size == n)
    dT = abs(rk.t_statistic(y2, m) - rk.t_statistic(y, m))
    dR = abs(rk.r_statistic(y2, m) - rk.r_statistic(y, m))
    assert dT <= sum(n - i for i in range(1, k + 1)) <= k * n
    assert dR <= k * n * (n + 3) / 2
    assert abs(rk.kendall_tau(y2, m, tilde=True) - rk.kendall_tau(y, m, tilde=True)) <= 2 * k / (n - 1) + 1e-12
    bound_rho = 6 * k / (n - 1) * (1 / (n + 1) + 1 / 2)
    assert abs(rk.spearman_rho(y2, m, tilde=True) - rk.spearman_rho(y, m, tilde=True)) <= bound_rho + 1e-12


def test_proposition_2_intermediate_R_step_is_not_a_bound():
    # |R(y*) - R(y)| <= k (sum_{i<=n-k} s_i + n) as printed fails for large k; the final bound holds.
    n, k = 10, 9
    y = np.arange(n, 0, -1, dtype=float)  # perfect: observation 1 has the largest response, s = 1..n
    m = y.copy()
    y2 = y.copy()
    y2[1:] = y[1:][::-1]  # corrupt the other 9 labels into reverse order
    dR = rk.r_statistic(y2, m) - rk.r_statistic(y, m)
    _, s = paper_sorted(y2, m)
    assert dR == 120
    assert dR > k * (np.sum(s[: n - k]) + n)  # 9 * (1 + 10) = 99
    assert dR <= k * n * (n + 3) / 2


# -- leave-one-out and influence -----------------------------------------------------------------
@pytest.mark.parametrize("measure", sorted(rk.MEASURES))
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_leave_one_out_equals_brute_force(measure, ties, seed):
    y, m = data(seed, n=41 + seed, ties=ties)
    fast = rk.leave_one_out(y, m, measure=measure)
    f = rk.MEASURES[measure]
    slow = np.array([f(np.delete(y, i), np.delete(m, i)) for i in range(len(y))])
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_most_influential_finds_the_outlier():
    rng = np.random.default_rng(0)
    y = rng.lognormal(size=200)
    m = y * rng.lognormal(0, 0.5, size=200)
    y[17] = 1e6
    for measure in ("RMSE", "MAE"):
        inf = rk.most_influential(y, m, measure=measure)
        assert inf.index == 17 and inf.change < -0.5
    for measure in ("tau", "rho"):
        inf = rk.most_influential(y, m, measure=measure)
        f = rk.MEASURES[measure]
        slow = [abs(f(np.delete(y, i), np.delete(m, i)) - f(y, m)) for i in range(200)]
        assert inf.index == int(np.argmax(slow))
        assert abs(inf.change) < 0.05


def test_leave_one_out_scales():
    y, m = data(1, n=100_000)
    loo = rk.leave_one_out(y, m, measure="rho")
    for i in (0, 50_000):
        assert abs(loo[i] - stats.spearmanr(np.delete(y, i), np.delete(m, i))[0]) <= 1e-12


# -- bootstrap comparison ------------------------------------------------------------------------
def test_bootstrap_compare_reproducible_and_paired():
    y, m1 = data(0, n=200)
    m2 = m1 + np.random.default_rng(1).normal(size=200)
    a = rk.bootstrap_compare(y, m1, m2, measure="tau", n_boot=50, rng=3)
    b = rk.bootstrap_compare(y, m1, m2, measure=rk.kendall_tau, n_boot=50, rng=3)
    np.testing.assert_array_equal(a.differences, b.differences)
    assert a.difference == pytest.approx(rk.kendall_tau(y, m1) - rk.kendall_tau(y, m2))
    assert a.pvalue == pytest.approx(stats.norm.sf(abs(a.difference) / a.standard_error))
    # the same model twice: zero spread -> undefined p-value
    with pytest.warns(OfflineEvalWarning, match="no spread"):
        c = rk.bootstrap_compare(y, m1, m1, measure="MAE", n_boot=5, rng=0)
    assert np.isnan(c.pvalue)


def test_table2_p_values_are_one_sided():
    # printed difference / std. dev. -> printed p-value, Table 2 (two-sided would double them)
    for diff, sd, printed in [(96890, 92649, 0.14778), (25124, 33498, 0.22663), (0.1154, 0.0304, 0.00007),
                              (0.1529, 0.0426, 0.00016)]:
        assert abs(stats.norm.sf(diff / sd) - printed) <= 1e-4
        assert abs(2 * stats.norm.sf(diff / sd) - printed) > 5e-5


# -- invalid and undefined inputs ----------------------------------------------------------------
@pytest.mark.parametrize(
    "func", [rk.kendall_tau, rk.spearman_rho, rk.concordance_counts, rk.tau_variance, rk.cutoff_auc, rk.t_statistic]
)
def test_invalid_inputs_raise(func):
    with pytest.raises(ValueError, match="`y_pred` must be finite; got 1 NaN value"):
        func([1, 2, 3], [1, np.nan, 3])
    with pytest.raises(ValueError, match="same length"):
        func([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="`y_true` must be 1-D"):
        func([[1, 2], [3, 4]], [1, 2])
    with pytest.raises(ValueError, match="`y_true` must not be empty"):
        func([], [])


def test_option_errors():
    with pytest.raises(ValueError, match=r"`variant` must be one of \['a', 'b', 'c'\]; got 'd'"):
        rk.kendall_tau([1, 2], [1, 2], variant="d")
    with pytest.raises(ValueError, match=r"`level` must be a finite number in \(0, 1\)"):
        rk.tau_confidence_interval([1, 2, 3], [1, 2, 3], level=1.5)
    with pytest.raises(ValueError, match="`measure` must be one of"):
        rk.leave_one_out([1, 2, 3], [1, 2, 3], measure="auc")
    with pytest.raises(ValueError, match=r"`n_boot` must be an integer in \[2, 1000000\]; got 1"):
        rk.bootstrap_compare([1, 2, 3], [1, 2, 3], [3, 2, 1], measure="tau", n_boot=1)
    with pytest.raises(ValueError, match="at least 3 observations"):
        rk.leave_one_out([1, 2], [1, 2], measure="tau")


def test_undefined_cases_warn_and_return_nan():
    with pytest.warns(OfflineEvalWarning, match="fewer than 2"):
        assert np.isnan(rk.kendall_tau([1.0], [2.0]))
    with pytest.warns(OfflineEvalWarning, match="constant"):
        assert np.isnan(rk.kendall_tau([1, 1, 1], [1, 2, 3]))
    with pytest.warns(OfflineEvalWarning, match="constant"):
        assert np.isnan(rk.spearman_rho([1, 2, 3], [5, 5, 5]))
    with pytest.warns(OfflineEvalWarning, match="at least 3"):
        assert np.isnan(rk.tau_variance([1, 2], [1, 2]))
    with pytest.warns(OfflineEvalWarning, match="constant"):
        assert len(rk.cutoff_auc([2, 2, 2], [1, 2, 3]).auc) == 0
    # tau-a stays defined on a constant input: every pair is a tie
    assert rk.kendall_tau([1, 1, 1], [1, 2, 3], variant="a") == 0.0


@pytest.mark.parametrize("ties", [False, True])
def test_the_tau_test_equals_the_separate_functions(ties):
    y, m = data(4, n=120, ties=ties)
    for variant in ("a", "b"):
        r = rk.kendall_tau_test(y, m, variant=variant)
        assert r.statistic == rk.kendall_tau(y, m, variant=variant)
        assert r.variance == rk.tau_variance(y, m, variant=variant)
        assert r.confidence_interval(0.9) == rk.tau_confidence_interval(y, m, level=0.9, variant=variant)


@pytest.mark.parametrize("seed", range(40))
def test_pair_counts_by_table_equal_the_sorted_path(seed, monkeypatch):
    # few distinct values take the contingency table (O(n + K L)); it must give the sorted path's counts exactly
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    y = rng.integers(0, int(rng.integers(1, 9)), n).astype(float) if seed % 4 != 1 else rng.normal(size=n)
    m = rng.integers(0, int(rng.integers(1, 9)), n).astype(float) if seed % 4 != 2 else rng.normal(size=n)
    monkeypatch.setattr(_pairs, "_TABLE_MIN_CELLS", 0)
    monkeypatch.setattr(_pairs, "_TABLE_CELLS_PER_ROW", 0)
    sorted_path = _pairs.pair_counts(y, m)
    monkeypatch.setattr(_pairs, "_TABLE_MIN_CELLS", 10**9)
    table = _pairs.pair_counts(y, m)
    for field in sorted_path._fields:
        a, b = getattr(sorted_path, field), getattr(table, field)
        np.testing.assert_array_equal(a, b, err_msg=field)
        assert np.asarray(a).dtype == np.asarray(b).dtype, field
    if sorted_path.ties_y or sorted_path.ties_m:
        conc, disc, tie = brute_counts(y, m)
        np.testing.assert_array_equal(table.concordant, conc)
        np.testing.assert_array_equal(table.discordant, disc)
        np.testing.assert_array_equal(np.broadcast_to(table.tied, (n,)), tie)
