"""Issue 35, the library's silent wrong answers: each example of the issue, and the others of the same kinds.

Weights' scale, class codes that wrap, the documented domain, undefined results without a word, errors that
name nothing, and bounds on work.  (The clustered bootstrap's totals and BCa are tested with logboot.)
"""

from __future__ import annotations

import math
import time
import warnings
from fractions import Fraction
from itertools import permutations

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning, adaptive, bidding, metrics, ranking
from offline_eval import auction
from offline_eval.synth import classifiers as synth


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        return f(*args, **kwargs)


# -- weights' scale ------------------------------------------------------------------------------------------
Y8 = np.array([0, 1, 0, 1, 1, 0, 1, 1])
P8 = np.array([0.1, 0.35, 0.2, 0.5, 0.6, 0.7, 0.8, 0.8])


@pytest.mark.parametrize("w", [5e-324, 2.0**-1060, 1e-300, 1e300, 2.0**1020])
def test_quantile_breakdown_tiny_or_huge_equal_weights_are_the_unweighted_table(w):
    ref = _quiet(metrics.quantile_breakdown, Y8, P8, n_quantiles=3)
    got = _quiet(metrics.quantile_breakdown, Y8, P8, n_quantiles=3, sample_weight=[w] * 8)
    cols = [c for c in ref.columns if c not in ("weight", "clicks")]
    pd.testing.assert_frame_equal(got[cols], ref[cols])
    # `weight` and `clicks` are the totals as given
    np.testing.assert_array_equal(got["weight"], ref["weight"] * w)


def test_quantile_breakdown_avg_pclick_of_the_issue():
    # the unweighted bins of 8 rows in 3 quantiles: rows {0, 2, 1}, {3, 4, 5}, {6, 7} (the tie at 0.8 together)
    got = _quiet(metrics.quantile_breakdown, Y8, P8, n_quantiles=3, sample_weight=[5e-324] * 8)
    np.testing.assert_allclose(got["avg_pclick"], [(0.1 + 0.35 + 0.2) / 3, 0.6, 0.8], rtol=1e-15)


@pytest.mark.parametrize("power", [-1000, -600, 600, 1000])
def test_quantile_breakdown_is_scale_invariant_with_unequal_weights(power):
    rng = np.random.default_rng(3)
    y, p, w = rng.integers(0, 2, 50), rng.random(50).round(2), rng.uniform(0.5, 3, 50)
    ref = _quiet(metrics.quantile_breakdown, y, p, n_quantiles=4, sample_weight=w)
    got = _quiet(metrics.quantile_breakdown, y, p, n_quantiles=4, sample_weight=np.ldexp(w, power))
    cols = [c for c in ref.columns if c not in ("weight", "clicks")]
    pd.testing.assert_frame_equal(got[cols], ref[cols])


def test_random_offline_joint_of_a_tiny_or_huge_live_table_is_that_of_the_distribution():
    live = np.array([[4.0, 1.0], [1.0, 4.0]])
    ref = synth.random_offline_joint(live / 10, rng=0, flatten=1.3)
    for scale in (5e-324, 2.0**1020):
        got = synth.random_offline_joint(live * scale, rng=0, flatten=1.3)
        np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_joint_tables_whose_total_overflows_are_normalised():
    m = adaptive.joint_distribution([0, 1, 1, 0], [0, 1, 0, 0], [0, 1, 1, 1], n_classes=2, normalize=False)
    ref = adaptive.metrics_from_joint(m)
    got = adaptive.metrics_from_joint(m * 2.0**1022)  # cells finite, their total 2**1024 is not
    assert got.baseline.accuracy == ref.baseline.accuracy
    np.testing.assert_array_equal(got.candidate.recall, ref.candidate.recall)


# -- class codes that wrap -----------------------------------------------------------------------------------
def test_joint_distribution_refuses_a_code_that_would_wrap_in_int64():
    with pytest.raises(ValueError, match=r"`hyp_b`.*1e\+19"):
        adaptive.joint_distribution([1e19, 1, 0], [0, 1, 1])


@pytest.mark.parametrize("code", [np.uint64(2**63 + 5), np.uint64(2**64 - 1)])
def test_joint_distribution_refuses_uint64_codes_beyond_int64(code):
    with pytest.raises(ValueError, match="`hyp_c`"):
        adaptive.joint_distribution([0, 1, 1], np.array([code, 1, 0], dtype=np.uint64))


def test_online_adaptive_metrics_and_its_bootstrap_inherit_the_code_check():
    with pytest.raises(ValueError, match="`truth_offline`"):
        adaptive.online_adaptive_metrics([0, 1, 1], [0, 1, 1], [1e19, 1, 0], [0, 1], [0, 1])
    with pytest.raises(ValueError, match="`hyp_b_live`"):
        adaptive.bootstrap_oam_accuracy([0, 1, 1], [0, 1, 1], [0, 1, 0], np.array([2**64 - 1, 1], dtype=np.uint64),
                                        [0, 1], n_boot=5, rng=0)


def test_uint64_cell_counts_do_not_wrap():
    with pytest.raises(ValueError, match="`cell_counts`"):
        synth.sample_by_cell([0, 1], [0, 1], np.array([[2**64 - 1, 0], [0, 1]], dtype=np.uint64), n_classes=2, rng=0)


# -- the documented domain -----------------------------------------------------------------------------------
def _frames(click):
    imp = pd.DataFrame({"query": ["q1", "q2"], "ad": ["a", "a"], "slot": [0, 1], "click": click})
    auc = pd.DataFrame({"page_view": [0, 1], "query": ["q1", "q2"], "ad": ["a", "a"], "bid": [1.0, 2.0]})
    return imp, auc


def test_click_log_from_frame_refuses_fractional_clicks_without_counts():
    imp, auc = _frames([0.5, 0.0])
    with pytest.raises(ValueError, match=r"`impressions\[click\]`.*0 or 1.*`count`"):
        auction.ClickLog.from_frame(imp, auc, n_mainline=1, n_iter=5)


def test_click_log_from_frame_refuses_more_clicks_than_impressions():
    imp, auc = _frames([3, 0])
    imp["n"] = [2, 1]
    with pytest.raises(ValueError, match=r"`impressions\[click\]`.*more clicks than"):
        auction.ClickLog.from_frame(imp, auc, n_mainline=1, n_iter=5, count="n")
    imp["click"] = [2, 0]  # at most the count: legal
    auction.ClickLog.from_frame(imp, auc, n_mainline=1, n_iter=5, count="n")


def test_tau_variance_from_concordance_refuses_counts_beyond_n_minus_1():
    with pytest.raises(ValueError, match="`C`"):
        ranking.tau_variance_from_concordance([5.0, 1.0, 0.0])


# -- undefined without a word --------------------------------------------------------------------------------
@pytest.mark.parametrize("variant", ["a", "b", "c"])
def test_kendall_tau_test_on_a_constant_input_is_nan_with_our_warning_at_the_callers_line(variant):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = ranking.kendall_tau_test([1.0, 1.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0], variant=variant)
    if variant == "a":  # tau-a is defined there (0: no pair concordant or discordant), its test is not
        assert r.statistic == 0.0 == ranking.kendall_tau([1.0] * 4, [1.0, 2.0, 3.0, 4.0], variant="a")
        assert math.isnan(r.pvalue)
    else:
        assert math.isnan(r.statistic) and math.isnan(r.pvalue) and math.isnan(r.variance)
    assert [w.category for w in caught] == [OfflineEvalWarning], [str(w.message) for w in caught]
    assert caught[0].filename == __file__


def test_tau_variance_from_concordance_of_fewer_than_3_counts_is_nan_with_a_warning():
    with pytest.warns(OfflineEvalWarning, match="at least 3"):
        assert math.isnan(ranking.tau_variance_from_concordance([0.0]))
    with pytest.warns(OfflineEvalWarning, match="at least 3"):
        assert math.isnan(ranking.tau_variance_from_concordance([1.0, 0.0]))


def test_bootstrap_compare_p_value_does_not_flip_on_a_rounding_difference():
    # Two models one ulp apart: every replicate's difference is rounding (about 1e-17), not a difference;
    # before, the p-value was that of a "significant" difference of 2e-16 or 0.5, depending on the last bits.
    rng = np.random.default_rng(1)
    y = rng.random(30)
    a = rng.random(30)
    b = np.where(rng.random(30) < 0.5, np.nextafter(a, 2.0), a)
    with pytest.warns(OfflineEvalWarning, match="no spread"):
        r = ranking.bootstrap_compare(y, a, b, measure="MAE", n_boot=30, rng=0)
    assert r.difference == 0.0 and math.isnan(r.pvalue)
    assert np.all(r.differences == 0.0)


def test_bootstrap_compare_keeps_real_differences():
    rng = np.random.default_rng(2)
    y = rng.random(40)
    a, b = y + rng.normal(0, 0.1, 40), y + rng.normal(0, 0.3, 40)
    r = ranking.bootstrap_compare(y, a, b, measure="MAE", n_boot=50, rng=0)
    assert r.difference == metrics.mean_absolute_error(y, a) - metrics.mean_absolute_error(y, b)
    assert r.pvalue < 0.05 and np.all(r.differences != 0)


# -- errors that name nothing ----------------------------------------------------------------------------
@pytest.mark.parametrize("f", [bidding.utility, bidding.utility_per_row])
def test_utility_with_c_none_names_c(f):
    with pytest.raises(ValueError, match="`c`"):
        f([0, 1], [1.0, 1.0], [0.5, 0.5], None)


@pytest.mark.parametrize("call", [
    lambda: metrics.roc_auc_score([[0, 1], [1]], [0.1, 0.2]),
    lambda: metrics.log_loss([0, 1], [[0.1], [0.2, 0.3]]),
    lambda: bidding.utility([[0, 1], [1]], [1.0, 1.0], [0.5, 0.5], [0.1, 0.1]),
    lambda: ranking.kendall_tau([[1, 2], [3]], [1.0, 2.0]),
    lambda: adaptive.joint_distribution([[0, 1], [1]], [0, 1]),
])
def test_ragged_lists_are_named_errors(call):
    with pytest.raises(ValueError, match=r"^`[a-z_]+`.*ragged"):
        call()


@pytest.mark.parametrize("missing", [pd.NA, np.nan, float("nan"), pd.NaT])
def test_pos_label_missing_is_a_named_error(missing):
    with pytest.raises(ValueError, match="`pos_label`"):
        metrics.roc_auc_score(["a", "b", "a"], [0.1, 0.2, 0.3], pos_label=missing)
    with pytest.raises(ValueError, match="`pos_label`"):
        metrics.log_loss(["a", "b", "a"], [0.1, 0.2, 0.3], pos_label=missing)


def test_pd_na_and_mixed_labels_in_class_arrays_are_named_errors():
    with pytest.raises(ValueError, match="`hyp_b`"):
        adaptive.joint_distribution(np.array(["x", pd.NA, "y"], dtype=object), ["x", "y", "y"])
    with pytest.raises(ValueError, match="`hyp_b`"):
        adaptive.joint_distribution(np.array([1, "x", 2], dtype=object), [1, 2, 2])


def test_tau_variance_from_concordance_of_one_count_is_no_zero_division():
    # one observation has no partner, so C = [1.0] is no concordance count (it was a ZeroDivisionError)
    with pytest.raises(ValueError, match=r"`C` must hold concordance counts in \[0, n - 1\]"):
        ranking.tau_variance_from_concordance([1.0])


def test_best_operating_point_of_an_all_nan_objective_names_it():
    sweep = pd.DataFrame({"alpha": [1.0, 1.0], "reserve": [0.1, 0.2], "mainline_reserve": [0.1, 0.2],
                          "mainline_quantile": [0.3, 0.6], "cy": [np.nan, np.nan], "ml_ads_per_pv": [1.0, 2.0]})
    with pytest.raises(ValueError, match="`objective`.*'cy'.*no value"):
        auction.best_operating_point(sweep)
    with pytest.raises(ValueError, match="`sweep`.*ml_ads_per_pv"):
        auction.best_operating_point(sweep.drop(columns="ml_ads_per_pv").assign(cy=[1.0, 2.0]), max_ml_ads_per_pv=1)


def test_prior_is_checked_at_one_tolerance():
    prior = np.array([0.5, 0.3, 0.2]) * (1 + 1e-8)  # within numpy's sqrt(eps) of 1: a distribution to both
    synth.class_accuracies(0.6, prior, rng=0)
    synth.two_model_world(20, accuracy_b=np.full(3, 0.6), accuracy_c=np.full(3, 0.7), prior=prior, rng=0)
    bad = np.array([0.5, 0.3, 0.3])
    for call in (lambda: synth.class_accuracies(0.6, bad, rng=0),
                 lambda: synth.two_model_world(20, accuracy_b=np.full(3, 0.6), accuracy_c=np.full(3, 0.7), prior=bad,
                                               rng=0)):
        with pytest.raises(ValueError, match=r"`prior` must be a distribution.*sum 1\.1"):
            call()


# -- bounds on work ------------------------------------------------------------------------------------------
def _tau_exact_reference(n, conc):
    """P(C >= conc) for n untied observations by enumerating permutations (n <= 7)."""
    counts = {}
    for perm in permutations(range(n)):
        c = sum(perm[i] < perm[j] for i in range(n) for j in range(i + 1, n))
        counts[c] = counts.get(c, 0) + 1
    return Fraction(sum(v for k, v in counts.items() if k >= conc), math.factorial(n))


@pytest.mark.parametrize("n", [3, 5, 7])
def test_exact_tau_p_values_against_enumeration(n):
    rng = np.random.default_rng(n)
    for _ in range(5):
        y, m = np.arange(n, dtype=float), rng.permutation(n).astype(float)
        conc = sum((y[i] - y[j]) * (m[i] - m[j]) > 0 for i in range(n) for j in range(i + 1, n))
        got = ranking.kendall_tau_test(y, m, method="exact", alternative="greater").pvalue
        assert got == pytest.approx(float(_tau_exact_reference(n, conc)), rel=1e-12)


@pytest.mark.parametrize("n", [40, 120, 300])
def test_exact_tau_p_values_equal_scipy_beyond_33(n):
    from scipy import stats

    rng = np.random.default_rng(n)
    y = rng.random(n)
    for m in (y + rng.normal(0, 0.5, n), rng.random(n)):
        for alternative in ("two-sided", "less", "greater"):
            ref = stats.kendalltau(y, m, alternative=alternative, method="exact").pvalue
            got = ranking.kendall_tau_test(y, m, alternative=alternative, method="exact").pvalue
            assert got == pytest.approx(ref, rel=1e-9, abs=1e-300)


def test_exact_tau_test_is_fast_at_n_300():
    rng = np.random.default_rng(0)
    y, m = rng.random(300), rng.random(300)
    t0 = time.perf_counter()
    ranking.kendall_tau_test(y, m, method="exact")
    assert time.perf_counter() - t0 < 0.5  # was 1.26 s; scipy's recurrence takes about 0.03 s


def test_exact_tau_test_refuses_n_beyond_its_bound():
    from offline_eval.ranking.coefficients import MAX_EXACT_N

    n = MAX_EXACT_N + 1
    y = np.arange(n, dtype=float)
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=rf"`method` 'exact'.*{MAX_EXACT_N}.*n = {n}"):
        ranking.kendall_tau_test(y, y[::-1].copy(), method="exact")
    assert time.perf_counter() - t0 < 1.0


@pytest.mark.parametrize("call", [
    lambda: metrics.bootstrap_ci(metrics.log_loss, np.r_[[0, 1] * 5000], np.full(10000, 0.5), n_boot=10**6),
    lambda: ranking.bootstrap_compare(np.arange(10000.), np.arange(10000.), np.arange(10000.)[::-1], measure="MAE",
                                      n_boot=10**6),
    lambda: adaptive.bootstrap_oam_accuracy(np.r_[[0, 1] * 5000], np.r_[[0, 1] * 5000], np.r_[[0, 1] * 5000],
                                            [0, 1], [0, 1], n_boot=10**6),
    lambda: bidding.ab_test_correlation(np.arange(50.), np.arange(50.)[::-1], np.ones(50), n_trials=10**6),
])
def test_bootstraps_refuse_resamples_times_rows_beyond_the_bound(call):
    t0 = time.perf_counter()
    with pytest.raises(ValueError, match=r"`n_(boot|trials)`.*bound"):
        call()
    assert time.perf_counter() - t0 < 1.0


def test_two_model_world_checks_a_given_confusion_matrix():
    kw = dict(accuracy_b=np.full(3, 0.6), accuracy_c=np.full(3, 0.7), prior=np.array([0.5, 0.3, 0.2]), rng=0)
    good = np.array([[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]])
    synth.two_model_world(20, confusion=good, **kw)
    with pytest.raises(ValueError, match=r"`confusion\[1\]` must be a distribution"):  # was drawn from silently
        synth.two_model_world(20, confusion=good * [[1], [0.5], [1]], **kw)
    with pytest.raises(ValueError, match="`confusion` must have a zero diagonal"):
        synth.two_model_world(20, confusion=np.full((3, 3), 1 / 3), **kw)
