"""Behaviour of the bootstrap engines that mutation testing found unchecked: the result's row, repr, warnings and
errors; the row bootstraps' checks and bound; BCa's bias correction on replicates tied with the statistic; the
p-value and the acceleration at their edges; the clustered engine's integer path at its int16 / int32 bounds, its
cluster sort beyond 16 bits, its chunks of runs and its metrics from small or one-class totals (`make mutation`;
docs/mutation.md)."""

import warnings

import numpy as np
import pytest
from scipy.stats import norm

from offline_eval import OfflineEvalWarning, clustered_bootstrap
from offline_eval import metrics as M
from offline_eval._bootstrap import check_boot_work, percentile_ci
from offline_eval._logboot_engine import TIE_RTOL, bca_quantiles
from offline_eval.results import BootstrapResult

METRICS = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")


# -- the result type -------------------------------------------------------------------------------------------------
def test_a_results_row_holds_its_numbers_by_name():
    # replicates 1..8 and a nan: the 25th and 75th percentiles of 1..8 are 2.75 and 6.25 (linear interpolation)
    r = BootstrapResult(4.0, [1, 2, 3, 4, 5, 6, 7, 8, np.nan], name="x", level=0.5, difference=True)
    assert r._asdict() == {"name": "x", "statistic": 4.0, "standard_error": pytest.approx(np.std(np.arange(1, 9),
                                                                                                 ddof=1), abs=0),
                           "pvalue": pytest.approx(2 / 9, abs=0), "low": 2.75, "high": 6.25, "level": 0.5,
                           "method": "percentile",
                           "n_boot": 9, "n_valid": 8}
    # the p-value of 0, 2 (min(#<=0, #>=0) + 1) / (B + 1): 2 / 9 above, 2 (1 + 1) / 5 here
    row = BootstrapResult(0.5, [-1.0, 1.0, 2.0, 3.0], 0.0, name="d", difference=True, level=0.9)._asdict()
    assert (row["pvalue"], row["method"], row["level"]) == (pytest.approx(4 / 5, abs=0), "bca", 0.9)
    assert list(row) == ["name", "statistic", "standard_error", "pvalue", "low", "high", "level", "method", "n_boot",
                         "n_valid"]


def test_the_row_bootstraps_warning_counts_the_undefined_resamples_and_the_result_takes_its_name():
    reps = np.array([0.1, np.nan, 0.3, np.nan, 0.5])
    with pytest.warns(OfflineEvalWarning, match=r"^the metric is undefined on 2 of 5 resamples \(left out of the "
                                                r"interval\)$"):
        res = percentile_ci(0.3, reps, 0.9, "the metric")
    assert res.name == "metric"  # "the " dropped from `what`
    with pytest.warns(OfflineEvalWarning, match="^the x's accuracy is undefined on 2 of 5"):
        named = percentile_ci(0.3, reps, 0.9, "the x's accuracy", name="accuracy, x")
    assert named.name == "accuracy, x" and named.n_valid == 3



def _warnings(fn):
    """``fn()`` and the messages of the project's warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = fn()
    assert all(issubclass(w.category, OfflineEvalWarning) for w in caught), [str(w.message) for w in caught]
    return out, [str(w.message) for w in caught]


def test_the_repr_shows_the_pvalue_at_its_floor_the_error_and_what_was_resampled():
    # replicates 0.1..0.9: sd 0.2739 (ddof 1), 2.5th and 97.5th percentiles 0.1 + 0.2 x 0.1 and 0.9 - 0.2 x 0.1;
    # all above 0: the p-value of 0 is its floor 2 / (9 + 1), shown as a bound
    reps = np.arange(1, 10) / 10
    assert repr(BootstrapResult(0.5, reps, name="x", difference=True)) == (
        "BootstrapResult(x: statistic=0.5, standard_error=0.2739, pvalue<0.2, 95% percentile CI [0.12, 0.88], "
        "9 resamples of rows)")
    # not a difference: no p-value; clusters counted with a thousands separator
    assert repr(BootstrapResult(0.5, reps, name="x", n_clusters=1234)) == (
        "BootstrapResult(x: statistic=0.5, standard_error=0.2739, 95% percentile CI [0.12, 0.88], "
        "9 resamples of 1,234 clusters)")
    # the interval at the result's level: the 25th and 75th percentiles, 0.1 + 2 x 0.1 and 0.9 - 2 x 0.1
    assert repr(BootstrapResult(0.5, reps, name="x", level=0.5)) == (
        "BootstrapResult(x: statistic=0.5, standard_error=0.2739, 50% percentile CI [0.3, 0.7], 9 resamples of rows)")
    # an undefined interval shows as nan, without the interval's warning
    undefined = BootstrapResult(0.5, [np.nan, np.nan, 0.1], name="x")
    assert _warnings(lambda: repr(undefined)) == (
        "BootstrapResult(x: statistic=0.5, standard_error=nan, 95% percentile CI [nan, nan], 3 resamples of rows)", [])
    # above its floor the p-value is shown as a number: 2 (2 + 1) / (9 + 1) = 0.6
    mixed = BootstrapResult(0.5, reps * [-1, 1, -1, 1, 1, 1, 1, 1, 1], name="x", difference=True, n_clusters=12)
    assert "pvalue=0.60, " in repr(mixed)


def test_an_interval_is_defined_from_half_of_the_resamples_and_from_one():
    # 2 of 4 defined: half, enough; 1 of 3: fewer than half, nan with the count in the warning
    ci, caught = _warnings(lambda: BootstrapResult(0.2, [0.1, np.nan, 0.3, np.nan], name="x").confidence_interval(0.5))
    assert ci == (pytest.approx(0.15, abs=1e-15), pytest.approx(0.25, abs=1e-15)) and caught == []
    ci, caught = _warnings(lambda: BootstrapResult(0.2, [0.1, np.nan, np.nan], name="x").confidence_interval())
    assert np.isnan(ci.low) and np.isnan(ci.high)
    assert caught == ["x: undefined on 2 of 3 resamples; the interval is nan"]
    # one resample, defined: the interval is that replicate
    assert BootstrapResult(0.2, [0.7], name="x").confidence_interval() == (0.7, 0.7)
    # none at all: nan, not an error
    ci, caught = _warnings(lambda: BootstrapResult(0.2, [], name="x").confidence_interval())
    assert np.isnan(ci.low) and caught == ["x: undefined on 0 of 0 resamples; the interval is nan"]


def test_basic_on_an_undefined_statistic_says_so_and_errors_name_the_method():
    ci, caught = _warnings(lambda: BootstrapResult(np.nan, [0.1, 0.2, 0.3], name="x").confidence_interval(
        method="basic"))
    assert np.isnan(ci.high) and caught == ["x: undefined on 0 of 3 resamples and on the data; the interval is nan"]
    with pytest.raises(ValueError, match=r"^`method` must be one of \['basic', 'bca', 'percentile'\]; got 'normal'$"):
        BootstrapResult(0.2, [0.1], name="x").confidence_interval(method="normal")
    with pytest.raises(ValueError, match=r"^`method` = 'bca' needs the jackknife over clusters .* x does not hold .*; "
                                         r"use method='percentile' or 'basic'$"):
        BootstrapResult(0.2, [0.1], name="x").confidence_interval(method="BCa")


def test_the_pvalue_of_no_defined_replicate_is_nan_and_of_one_is_one():
    from offline_eval._logboot_engine import pvalue_at_zero

    assert np.isnan(pvalue_at_zero(np.array([np.nan, np.nan])))
    assert np.isnan(pvalue_at_zero(np.zeros(0)))
    assert np.isnan(BootstrapResult(0.0, [np.nan] * 3, name="x", difference=True).pvalue)
    # one replicate above 0: 2 (0 + 1) / (1 + 1) = 1
    assert pvalue_at_zero(np.array([0.5, np.nan])) == 1.0


def test_the_row_bootstraps_work_bound_names_its_argument_and_the_largest_n_boot_allowed():
    # 2,000 resamples x (99,000 rows + 1,000 per call) = 2 x 10^8, the bound itself: allowed; one more is refused
    check_boot_work(2000, 99_000)
    with pytest.raises(ValueError) as err:
        check_boot_work(2001, 99_000)
    assert str(err.value) == ("`n_boot` = 2001 asks for 200,100,000 row evaluations (resamples x (99,000 rows + "
                              "1,000 per call)), more than the bound of 200,000,000; use a smaller `n_boot` (at most "
                              "2,000 for these rows)")
    with pytest.raises(ValueError, match=r"^`n_pairs` = 2001 asks .*; use a smaller `n_pairs` \(at most 2,000 for"):
        check_boot_work(2001, 99_000, "n_pairs")


# -- BCa's bias correction -------------------------------------------------------------------------------------------
def _bca_levels(below, n, acc, alpha):
    """Efron & Tibshirani eq. 14.10 with z0 = Phi^-1(below / n), written out."""
    z0 = norm.ppf(below / n)
    z = norm.ppf([alpha, 1 - alpha])
    return norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z)))


@pytest.mark.parametrize("theta", [3.0, 0.25, -2.0])
def test_bca_counts_a_replicate_tied_with_the_statistic_as_one_half(theta):
    # tied: theta itself, and theta less half the tie tolerance (a sum in another order); beyond it: theta plus twice
    # the tolerance.  Below: 2 replicates and 2 tied halves; above: 3
    t = abs(theta) * TIE_RTOL
    r = np.array([theta - 5, theta - 1, theta - t / 2, theta, theta + 2 * t, theta + 1, theta + 7])
    assert len({*r}) == len(r)  # every replicate a distinct float
    got = bca_quantiles(r, theta, 0.1, 0.05)
    np.testing.assert_allclose(got, _bca_levels(2 + 1, 7, 0.1, 0.05), rtol=1e-14, atol=0)
    # fewer below than above: both levels move down
    assert got[0] < 0.05 and got[1] < 0.95


def test_bca_counts_a_replicate_at_exactly_the_tie_tolerance_as_tied():
    # theta = T / 1e-12 with T a multiple of theta's last bit: theta +- TIE_RTOL * theta are exact floats
    theta = 4100 * 2.0**-52 / TIE_RTOL
    t = TIE_RTOL * theta
    assert (theta + t) - theta == t and theta - (theta - t) == t
    r = np.array([theta - 1, theta - t, theta + t, theta + 1, theta + 2])
    np.testing.assert_allclose(bca_quantiles(r, theta, 0.0, 0.1), _bca_levels(1 + 1, 5, 0.0, 0.1), rtol=1e-14,
                               atol=0)


def test_bca_ties_of_a_zero_statistic_are_exact_zeros():
    # a statistic of 0 (a paired difference): tied only with 0 itself; 1e-13 is above it
    r = np.array([-1.0, 0.0, 0.0, 1e-13, 1.0, 2.0])
    np.testing.assert_allclose(bca_quantiles(r, 0.0, 0.0, 0.05), _bca_levels(1 + 1, 6, 0.0, 0.05), rtol=1e-14,
                               atol=0)


@pytest.mark.parametrize("side", [-1.0, 1.0])
def test_bca_is_nan_when_every_replicate_lies_on_one_side_of_the_statistic(side):
    r = BootstrapResult(side * 10.0, [1.0, 2.0, 3.0, 4.0], 0.0, name="x")
    assert bca_quantiles(r.replicates, side * 10.0, 0.0, 0.05) is None
    with pytest.warns(OfflineEvalWarning, match=r"^x: every replicate lies on one side of the statistic; the BCa "
                                                r"interval is nan \(use method='percentile'\)$"):
        ci = r.confidence_interval(0.9)
    assert np.isnan(ci.low) and np.isnan(ci.high)
    # a replicate tied with the statistic makes the bias correction finite again
    assert bca_quantiles(np.array([1.0, 2.0, 10.0]), 10.0, 0.0, 0.05) is not None


# -- the engine's integer path and its sorts ------------------------------------------------------------------------
def test_integer_weights_are_the_largest_weight_within_the_int16_and_int32_bounds():
    from offline_eval._logboot_engine import integer_weights
    from offline_eval._logboot_weights import MAX_WEIGHT

    top = 32767 // MAX_WEIGHT  # 2730: times the largest Poisson weight (12), still within int16
    assert integer_weights(np.array([1.0, 3.0, 2.0])) == 3
    assert integer_weights(np.ones(5)) == 1                       # unit weights: integers too
    assert integer_weights(np.array([0.0, float(top), 1.0])) == top
    assert integer_weights(np.array([0.0, top + 1.0])) == 0       # beyond int16 once resampled
    assert integer_weights(np.array([1.0, 2.5])) == 0             # not integers
    assert integer_weights(np.array([0.0, 0.0])) == 0             # no weight of 1 or more
    assert integer_weights(np.array([0.5])) == 0
    assert integer_weights(np.zeros(0)) == 0
    # the total times 12 must stay below 2^31: 2^31 / 12 = 178,956,970.67
    n = 178_956_970 // top                                        # rows of weight `top`, total just within
    ok = np.full(n, float(top))
    ok = np.append(ok, np.ones(178_956_970 - n * top))            # total exactly 178,956,970
    assert ok.sum() == 178_956_970 and integer_weights(ok) == top
    assert integer_weights(np.append(ok, 1.0)) == 0               # 178,956,971 x 12 >= 2^31


def test_stable_order_of_keys_beyond_16_bits_is_numpys_stable_argsort():
    from offline_eval._logboot_engine import _stable_order

    rng = np.random.default_rng(0)
    for n_keys in (2, 1 << 16, (1 << 16) + 1, 70_000, 1 << 20, (1 << 32) + 5, 1 << 40):
        keys = rng.integers(0, n_keys, 5_000)
        keys[:50] = n_keys - 1  # the largest key, and many ties
        keys[50:100] = 0
        np.testing.assert_array_equal(_stable_order(keys, n_keys), np.argsort(keys, kind="stable"), err_msg=n_keys)


def test_jackknife_auc_over_clusters_numbered_beyond_16_bits_equals_leaving_each_out():
    from sklearn.metrics import roc_auc_score

    from offline_eval._logboot_engine import ClusterSums, ModelEngine

    # 70,001 clusters, rows in a few of them on both sides of 2^16 (the cluster sort's second 16-bit pass), the last
    # one empty
    G = 70_001
    rng = np.random.default_rng(1)
    held = np.array([0, 7, 65_535, 65_536, 65_537, 69_999])
    g = rng.choice(held, 300)
    y = (rng.random(300) < 0.4).astype(float)
    s = np.round(rng.random(300), 1)  # ties within and across clusters
    w = rng.uniform(0.5, 2.0, 300)
    s = np.clip(s, 0.05, 0.95)
    eng = ModelEngine(y, s, w, g, G, ClusterSums(y, w, g, G), METRICS, 1e-15)
    jacks = eng.jackknife()
    jack = jacks["roc_auc_score"]
    assert jack.shape == (G,)
    full = roc_auc_score(y, s, sample_weight=w)
    for k in held:
        keep = g != k
        assert jack[k] == pytest.approx(roc_auc_score(y[keep], s[keep], sample_weight=w[keep]), rel=1e-12), k
    empty = np.setdiff1d(np.arange(G), held)
    np.testing.assert_allclose(jack[empty], full, rtol=1e-12, atol=0)
    # leaving an empty cluster out leaves every metric as it is
    for m in METRICS:
        assert jacks[m].shape == (G,)
        np.testing.assert_allclose(jacks[m][empty], getattr(M, m)(y, s, sample_weight=w), rtol=1e-12, atol=0,
                                   err_msg=m)


def test_a_tie_is_within_the_relative_tolerance_of_the_larger_metric_inclusive():
    from offline_eval._logboot_engine import tied_difference

    # 5e-13 of 4 apart: tied; 2e-12 of 4 apart: a difference
    assert tied_difference(4.0 + 2e-12, 4.0) == 0.0 and tied_difference(4.0, 4.0 + 2e-12) == 0.0
    assert tied_difference(4.0 + 8e-12, 4.0) == pytest.approx(8e-12, rel=1e-3)
    # exactly at the tolerance (theta - TIE_RTOL * theta exact in float64, as above): tied
    theta = 4100 * 2.0**-52 / TIE_RTOL
    t = TIE_RTOL * theta
    assert theta - (theta - t) == t
    assert tied_difference(theta, theta - t) == 0.0 and tied_difference(theta - t, theta) == 0.0
    assert tied_difference(theta, theta - 2 * t) == 2 * t
    # a scalar in, a Python float out; arrays stay arrays
    assert type(tied_difference(0.5, 0.25)) is float and type(tied_difference(0.5, 0.5)) is float
    assert isinstance(tied_difference(np.array([0.5]), np.array([0.25])), np.ndarray)


def test_cluster_totals_are_the_same_for_int16_and_float64_weights_in_any_order_of_calls():
    from offline_eval._logboot_engine import ClusterSums

    rng = np.random.default_rng(2)
    G, n = 50, 400
    g = rng.integers(0, G, n)
    y = (rng.random(n) < 0.3).astype(float)
    w = rng.integers(1, 4, n).astype(float)  # integer row weights: every total an exact integer
    W = rng.poisson(1.0, (G, 7)).astype(np.int16)
    sums = ClusterSums(y, w, g, G)
    sums.add(rng.random(G))
    # a plain loop over the clusters: weight, clicks, non-clicks, the added column
    cols = [np.bincount(g, w, G), np.bincount(g, w * y, G), np.bincount(g, w * (1 - y), G), sums.cols[3]]
    want = np.array([[sum(c[k] * float(W[k, b]) for k in range(G)) for b in range(7)] for c in cols])
    for Wk in (W, W.astype(np.float64), W, W.astype(np.float64)):
        np.testing.assert_allclose(sums.totals(Wk), want, rtol=1e-15, atol=0)
        np.testing.assert_array_equal(sums.totals(Wk)[:3], want[:3])  # integers: exact
    # float row weights, float cluster weights: each total summed over the clusters in their order
    wf = rng.uniform(0.1, 3.0, n)
    Wf = rng.uniform(0.0, 3.0, (G, 5))
    sums = ClusterSums(y, wf, g, G)
    for c, got in zip((sums.w, sums.wy, sums.wn), sums.totals(Wf)):
        ref = np.zeros(5)
        for k in range(G):
            if c[k] != 0:
                ref = ref + c[k] * Wf[k]
        np.testing.assert_array_equal(got, ref)


def test_jackknife_auc_with_a_tie_of_both_classes_at_the_first_cluster_s_lowest_score():
    from sklearn.metrics import roc_auc_score

    from offline_eval._logboot_engine import ClusterSums, ModelEngine

    # cluster 0: a non-click and a click tied at 0.2 (the non-click first); the tied pair inside cluster 0 is one
    # half of a pair, removed with the cluster
    y = np.array([0, 1, 1, 0, 0, 1.0])
    s = np.array([0.2, 0.2, 0.5, 0.1, 0.7, 0.9])
    g = np.array([0, 0, 1, 1, 1, 2])
    w = np.ones(6)
    jack = ModelEngine(y, s, w, g, 3, ClusterSums(y, w, g, 3), ("roc_auc_score",), 1e-15).jackknife()
    want = [roc_auc_score(y[g != k], s[g != k]) for k in range(3)]  # 3/4, 3/4, 3.5/6
    np.testing.assert_allclose(jack["roc_auc_score"], want, rtol=1e-15, atol=0)


def test_jackknife_of_one_cluster_is_undefined():
    from offline_eval._logboot_engine import ClusterSums, ModelEngine

    y, s, g, w = np.array([0, 1, 0, 1.0]), np.array([0.1, 0.4, 0.35, 0.8]), np.zeros(4, int), np.ones(4)
    metrics = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")
    jack = ModelEngine(y, s, w, g, 1, ClusterSums(y, w, g, 1), metrics, 1e-15).jackknife()
    for m in metrics:  # without its only cluster the log is empty
        assert jack[m].shape == (1,) and np.isnan(jack[m][0]), m


def _engine_auc(y, s, w, g, G, W, **int_top):
    """The AUC of every column of cluster weights ``W`` by the engine (``int_top``: its integer path)."""
    from offline_eval._logboot_engine import ClusterSums, ModelEngine

    sums = ClusterSums(y, w, g, G)
    eng = ModelEngine(y, s, w, g, G, sums, ("roc_auc_score",), 1e-15, **int_top)
    return eng.values(W, sums.totals(W))["roc_auc_score"], eng


def test_integer_auc_at_the_total_weight_bound_with_every_cluster_weight_at_its_largest():
    from sklearn.metrics import roc_auc_score

    from offline_eval._logboot_engine import integer_weights
    from offline_eval._logboot_weights import MAX_WEIGHT

    # 65,552 rows of weight 2,730: the total, 178,956,960, times the largest Poisson weight (12) is just below 2^31.
    # Weighting every cluster 12 scales every weight alike: the AUC is unchanged, though the positives' summed
    # weight (about 1.3e9 here) passes int16 and 2^30, and a run of tied positives holds far more than int16
    rng = np.random.default_rng(3)
    n, G = 65_552, 1_000
    y = (rng.random(n) < 0.6).astype(float)
    s = np.round(rng.random(n), 2)  # 101 scores: long runs of ties
    w = np.full(n, 2730.0)
    g = rng.integers(0, G, n)
    want = roc_auc_score(y, s)
    for k in (1, MAX_WEIGHT):
        got, eng = _engine_auc(y, s, w, g, G, np.full((G, 1), k, np.int16), int_top=integer_weights(w))
        assert eng.int_top == 2730
        assert got[0] == pytest.approx(want, rel=1e-13), k


def test_float_auc_summed_over_several_chunks_of_runs(monkeypatch):
    from offline_eval import _logboot_engine

    # chunks of 3 runs of positives: every chunk's pairs are added to the numerator (float row weights)
    monkeypatch.setattr(_logboot_engine, "RUN_CHUNK", 3)
    rng = np.random.default_rng(4)
    n, G = 300, 40
    y = (rng.random(n) < 0.3).astype(float)
    s = np.round(rng.random(n), 1)
    w = rng.uniform(0.2, 3.0, n)
    g = rng.integers(0, G, n)
    W = rng.poisson(1.0, (G, 6)).astype(np.float64)
    got, eng = _engine_auc(y, s, w, g, G, W)  # int_top by default 0: float64 throughout
    assert eng.int_top == 0 and len(eng.chunks) == 4  # 11 runs of positives (scores 0.0 .. 1.0) in chunks of 3
    pos, neg = y == 1, y == 0
    for b in range(6):
        rw = w * W[g, b]
        d = s[pos][:, None] - s[neg][None, :]
        ref = rw[pos] @ ((d > 0) + 0.5 * (d == 0)) @ rw[neg] / (rw[pos].sum() * rw[neg].sum())
        assert got[b] == pytest.approx(ref, rel=1e-13), b


def test_the_row_bootstraps_checks_name_n_boot_and_level_and_their_bounds():
    from offline_eval._bootstrap import MAX_BOOT, check_boot

    check_boot(1, 0.001)
    check_boot(MAX_BOOT, 0.999)
    for n_boot in (0, MAX_BOOT + 1):
        with pytest.raises(ValueError, match=rf"^`n_boot` must be an integer in \[1, 1000000\]; got {n_boot}$"):
            check_boot(n_boot, 0.9)
    for level in (0.0, 1.0, 1.5, -0.1):
        with pytest.raises(ValueError, match=rf"^`level` must be a finite number in \(0, 1\); got {level}$"):
            check_boot(10, level)


def test_a_result_built_from_integers_holds_float_replicates_and_is_named_statistic_by_default():
    r = BootstrapResult(1, [1, 2, 3])
    assert r.name == "statistic" and r.replicates.dtype == np.float64 and r.statistic == 1.0
    assert "BootstrapResult(statistic: statistic=1" in repr(r)


def test_the_acceleration_from_three_jackknife_values_and_its_undefined_cases():
    from offline_eval._logboot_engine import jackknife_acceleration

    # j = 1, 2, 4: d = mean - j = 4/3, 1/3, -5/3; sum d^2 = 42/9, sum d^3 = -60/27; a = sum d^3 / (6 (sum d^2)^1.5)
    want = (-60 / 27) / (6 * (42 / 9) ** 1.5)
    assert jackknife_acceleration(np.array([1.0, 2.0, 4.0])) == pytest.approx(want, rel=1e-14)
    assert jackknife_acceleration(np.array([0.1, 0.2, 0.4, np.nan])) == pytest.approx(want, rel=1e-13)  # scale-free
    assert jackknife_acceleration(np.array([1.0, 2.0, np.nan])) == 0.0   # fewer than 3 defined
    assert jackknife_acceleration(np.array([0.7, 0.7, 0.7, 0.7])) == 0.0  # no spread


def test_each_metric_alone_equals_the_library_metric_with_small_weights():
    # weights summing below 1 in total and in each class
    rng = np.random.default_rng(5)
    n = 40
    y = np.r_[1, 0, rng.integers(0, 2, n - 2)]
    s = np.clip(rng.random(n), 0.05, 0.95)
    w = rng.uniform(0.001, 0.02, n)
    assert w.sum() < 1
    for m in METRICS:
        res = clustered_bootstrap(y, s, sample_weight=w, groups=np.arange(n) // 4, metrics=(m,), n_boot=5, rng=0)
        assert getattr(res.a, m).statistic == pytest.approx(getattr(M, m)(y, s, sample_weight=w), rel=1e-12), m


@pytest.mark.parametrize("label", [0, 1])
def test_a_log_of_one_class_has_undefined_metrics_without_numpy_warnings(label):
    from offline_eval._logboot_engine import metrics_from_sums

    # totals of a log of non-clicks (label 0) or of clicks (label 1): weight 2, loss 0.6, predictions 0.8
    twy, twn = (0.0, 2.0) if label == 0 else (2.0, 0.0)
    args = [np.array([2.0]), np.array([twy]), np.array([twn]), np.array([0.6]), np.array([0.8])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from log(0), 0 * log(0) or 0 / 0
        out = metrics_from_sums(METRICS, *args, lambda: np.array([0.0]))
    assert out["log_loss"][0] == pytest.approx(0.3, abs=0)
    assert np.isnan(out["rig_score"][0]) and np.isnan(out["roc_auc_score"][0])
    # the calibration ratio needs clicks only: predicted 0.8 over 2 clicks observed
    assert np.isnan(out["calibration_ratio"][0]) if label == 0 else out["calibration_ratio"][0] == 0.4


@pytest.mark.parametrize("seed", range(10))
def test_a_perfectly_separating_score_has_an_auc_of_one_never_above_it(seed):
    # float weights: the pairs' sum and the product of the classes' weights round apart by an ulp either way (above
    # 1 in some of these logs, for the statistic or a replicate); the AUC is a share, never above 1
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 30))
    y = np.r_[np.zeros(n // 2), np.ones(n - n // 2)].astype(int)
    s = np.r_[rng.random(n // 2) * 0.5, 0.5 + rng.random(n - n // 2) * 0.5]
    w = rng.uniform(0.1, 3.0, n)
    res = clustered_bootstrap(y, s, sample_weight=w, metrics=("roc_auc_score",), n_boot=20, rng=seed)
    auc = res.a.roc_auc_score
    r = np.r_[auc.statistic, auc.replicates[np.isfinite(auc.replicates)]]
    assert np.all(r <= 1.0) and np.all(r >= 1.0 - 4e-16)


def test_integer_weights_of_zero_and_one_count_the_zeros_out():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(6)
    n = 200
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n), 1)
    w = (rng.random(n) < 0.6).astype(float)  # weights 0 and 1: the integer path with its largest weight 1
    res = clustered_bootstrap(y, s, sample_weight=w, metrics=("roc_auc_score",), n_boot=5, rng=0)
    assert res.a.roc_auc_score.statistic == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-14)


def test_metrics_from_totals_below_one():
    from offline_eval._logboot_engine import metrics_from_sums

    # weight 0.5 (clicks 0.2, non-clicks 0.3), summed loss 0.25, summed predictions 0.1, pairs 0.045 of 0.06
    t = [np.array([v]) for v in (0.5, 0.2, 0.3, 0.25, 0.1)]
    out = metrics_from_sums(METRICS, *t, lambda: np.array([0.045]))
    h = -(0.4 * np.log(0.4) + 0.6 * np.log(0.6))  # the entropy of a CTR of 0.4
    assert out["log_loss"][0] == pytest.approx(0.5, rel=1e-15)
    assert out["rig_score"][0] == pytest.approx(1 - 0.5 / h, rel=1e-14)
    assert out["calibration_ratio"][0] == pytest.approx(0.5, rel=1e-15)
    assert out["roc_auc_score"][0] == pytest.approx(0.75, rel=1e-15)


def test_integer_auc_with_weights_of_zero_and_one_and_with_unit_weights_beyond_int16():
    from sklearn.metrics import roc_auc_score

    from offline_eval._logboot_engine import integer_weights

    rng = np.random.default_rng(6)
    n, G = 200, 30
    y = rng.integers(0, 2, n).astype(float)
    s = np.round(rng.random(n), 1)
    g = rng.integers(0, G, n)
    w = (rng.random(n) < 0.6).astype(float)  # weights 0 and 1: the integer path with its largest weight 1
    got, eng = _engine_auc(y, s, w, g, G, np.ones((G, 1), np.int16), int_top=integer_weights(w))
    assert eng.int_top == 1 and got[0] == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-14)
    # unit weights, distinct scores (no run cut into parts), every cluster weighted 12: the positives' summed weight,
    # 12 x about 20,000, is far beyond int16
    n = 40_000
    y = (rng.random(n) < 0.5).astype(float)
    s = rng.random(n)
    g = rng.integers(0, G, n)
    w = np.ones(n)
    got, eng = _engine_auc(y, s, w, g, G, np.full((G, 1), 12, np.int16), int_top=integer_weights(w))
    assert eng.int_top == 1 and got[0] == pytest.approx(roc_auc_score(y, s), rel=1e-13)


def test_integer_auc_when_the_fewer_rows_hold_most_of_the_weight():
    from sklearn.metrics import roc_auc_score

    from offline_eval._logboot_engine import integer_weights

    # 32,780 clicks of weight 2,730 and 32,781 non-clicks of weight 1: the clicks are the smaller class by rows (they
    # index the slots) but hold almost all of the weight; every cluster weighted 12 puts their summed weight above
    # the lowest click, 32,779 x 32,760, just above 2^30 (twice it beyond int32), within the total's bound of
    # 2^31 / 12.  A non-click tied with the lowest click (score 0) reads that sum
    rng = np.random.default_rng(7)
    n_pos, n_neg, G = 32_780, 32_781, 500
    y = np.r_[np.ones(n_pos), np.zeros(n_neg)]
    s = rng.random(n_pos + n_neg)
    s[[0, n_pos]] = 0.0
    w = np.r_[np.full(n_pos, 2730.0), np.ones(n_neg)]
    g = rng.integers(0, G, n_pos + n_neg)
    assert integer_weights(w) == 2730 and (n_pos - 1) * 2730 * 12 > 2**30
    got, _ = _engine_auc(y, s, w, g, G, np.full((G, 1), 12, np.int16), int_top=2730)
    assert got[0] == pytest.approx(roc_auc_score(y, s, sample_weight=w), rel=1e-13)
