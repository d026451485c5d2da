"""Every defect a fuzz run of the public API found, pinned: a right answer, `nan` with the project's
warning, or a `ValueError` naming the argument -- never a silent wrong answer or an unnamed crash.

The last test is the fuzz itself (hypothesis), over the metric families.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from offline_eval import OfflineEvalWarning, adaptive, auction, bidding, metrics, ranking
from offline_eval.synth import classifiers as synth
from offline_eval.synth import search_world


# -- pandas inputs are aligned or rejected, never silently positional ------------------------
def test_series_with_another_index_order_are_rejected():
    y = pd.Series([1.0, 5.0, 2.0, 8.0, 3.0], index=list("abcde"))
    m = pd.Series([1.1, 4.0, 2.5, 9.0, 2.9], index=list("abcde"))
    tau = ranking.kendall_tau(y, m)
    with pytest.raises(ValueError, match="`y_true` and `y_pred` are pandas objects with different indexes"):
        ranking.kendall_tau(y, m.iloc[::-1])  # the same pairs, another order: was a different tau
    assert ranking.kendall_tau(y, m.iloc[::-1].reindex(y.index)) == tau
    with pytest.raises(ValueError, match="`y_true` and `y_score`"):
        metrics.roc_auc_score(pd.Series([0, 1, 1], index=[0, 1, 2]), pd.Series([0.1, 0.5, 0.2], index=[2, 1, 0]))
    with pytest.raises(ValueError, match="`hyp_b` and `hyp_c`"):
        adaptive.joint_distribution(pd.Series([0, 1], index=[0, 1]), pd.Series([0, 1], index=[1, 0]))


def test_masked_arrays_are_rejected():
    masked = np.ma.array([0, 1, 1], mask=[0, 0, 1])
    with pytest.raises(ValueError, match="`y_true` is a masked array"):
        metrics.roc_auc_score(masked, [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="`offline_diff` is a masked array"):
        bidding.ab_test_correlation(np.ma.array([1.0, 2.0, 3.0]), [1.0, 2.0, 3.0], [0.1, 0.1, 0.1], rng=0)


# -- weights are scale-invariant -----------------------------------------------------------------
@pytest.mark.parametrize("scale", [1e-170, 1e-300, 1.0, 1e160, 1e300])
def test_weights_at_any_scale(scale):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 50)
    p = rng.uniform(0.01, 0.99, 50)
    w = rng.uniform(0.5, 2.0, 50)
    for f in (metrics.roc_auc_score, metrics.log_loss, metrics.rig_score, metrics.mean_squared_error, metrics.normalized_mean_squared_error, metrics.mean_absolute_error,
              metrics.calibration_ratio, metrics.prediction_error):
        assert f(y, p, sample_weight=w * scale) == pytest.approx(f(y, p, sample_weight=w), rel=1e-12), f.__name__
    assert metrics.roc_auc_score([0, 1], [0, 1], sample_weight=[1e-170] * 2) == skm.roc_auc_score([0, 1], [0, 1]) == 1.0


def test_power_of_two_rescaling_keeps_the_bits():
    rng = np.random.default_rng(1)
    y, p, w = rng.integers(0, 2, 200), rng.uniform(0.01, 0.99, 200), rng.integers(1, 10**6, 200).astype(float)
    unscaled = float(np.dot(w, (y - p) ** 2) / w.sum())
    assert metrics.mean_squared_error(y, p, sample_weight=w) == unscaled


def test_roc_curve_drops_zero_weight_rows_like_sklearn():
    y, s, w = [0, 1, 0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8, 0.2, 0.6], [1, 0, 2, 1, 1, 0]
    ours = metrics.roc_curve(y, s, sample_weight=w)
    theirs = skm.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b)


# -- memory bounded by the data, not by a label's value ---------------------------------------------
def test_class_codes_far_above_the_data_are_an_error_not_a_huge_table():
    with pytest.raises(ValueError, match="`hyp_b` holds class code 999,999"):
        adaptive.joint_distribution([0, 1, 999_999], [0, 1, 1])
    with pytest.raises(ValueError, match="class code 3,000,000,000"):
        adaptive.joint_distribution([0, 3_000_000_000], [0, 1])
    assert adaptive.joint_distribution([0, 1, 999], [0, 1, 1]).shape == (1000, 1000)  # within bounds: as asked
    with pytest.raises(ValueError, match="`n_quantiles` must be at most"):
        metrics.quantile_breakdown([0, 1], [0.1, 0.2], n_quantiles=10**12)
    with pytest.raises(ValueError, match="`n_quantiles` must be a positive integer"):
        metrics.quantile_breakdown([0, 1], [0.1, 0.2], n_quantiles=True)


# -- undefined is nan with a warning; bad input a ValueError naming it -------------------------------
def test_most_influential_warns_when_the_change_is_undefined():
    y = np.array([1.0, 2.0, 3.0, 4.0])
    m = np.array([1.0, 3.0, 2.0, 2.5])  # kendall tau with ties... any measure whose full value is 0
    y0, m0 = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0, 1.0, 2.0])
    assert ranking.kendall_tau(y0, m0) == 0.0
    with pytest.warns(OfflineEvalWarning, match="relative change is undefined"):
        res = ranking.most_influential(y0, m0, measure="tau")
    assert np.isnan(res.change)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ranking.most_influential(y, m, measure="tau")


@pytest.mark.parametrize("bad", [["a", "b", "c"], np.array([1 + 1j, 2, 3]), np.array([1, 2, 3], dtype=object)])
def test_ab_test_correlation_rejects_non_numbers(bad):
    with pytest.raises(ValueError, match="`offline_diff` must be numeric"):
        bidding.ab_test_correlation(bad, [1.0, 2.0, 3.0], [0.1, 0.1, 0.1], rng=0)


@pytest.mark.parametrize("beta", ["1", True, 1 + 0j])
def test_beta_must_be_a_real_number(beta):
    with pytest.raises(ValueError, match="`beta` must be a positive finite number"):
        bidding.expected_utility([1], [1.0], [0.5], [0.1], beta=beta)


def test_auction_helpers_name_their_arguments():
    one_ad = dict(page_view=np.arange(3), query=np.zeros(3, int), ad=np.zeros(3, int), slot=np.zeros(3, int),
                  p_click=np.full(3, 0.5), cpc=np.ones(3), n_page_views=3, n_mainline=1)
    no_clicks = auction.click_yield(auction.Impressions(click=np.zeros(3), **one_ad))
    some = auction.click_yield(auction.Impressions(click=np.array([1.0, 0.0, 1.0]), **one_ad))
    with pytest.warns(OfflineEvalWarning, match="control arm has no clicks"):
        res = auction.compare_click_yields(no_clicks, some)
    assert np.isnan(res.cy_delta) and np.isnan(res.cy_delta.standard_error) and np.isnan(res.cy_delta.pvalue)
    with pytest.raises(TypeError, match="`treatment` must be a ClickYield"):
        auction.compare_click_yields(some, (0.1, 0.2))
    sweep = pd.DataFrame({"alpha": [1.0, 2.0], "reserve": [0.0, 0.0], "mainline_reserve": [1.0, 2.0],
                          "mainline_quantile": [0.5, 0.6], "cy": [0.1, 0.2], "ml_ads_per_pv": [1.0, 1.0]})
    with pytest.raises(ValueError, match="`objective` must be a metric column"):
        auction.best_operating_point(sweep, objective="clicks")
    assert auction.best_operating_point(sweep)[0].alpha == 2.0


def test_synthetic_generators_reject_impossible_knobs():
    with pytest.raises(ValueError, match="`n_classes` must be a positive integer"):
        synth.zipf_prior(0)
    with pytest.raises(ValueError, match="`mean` must lie in"):
        synth.class_accuracies(2.0, synth.zipf_prior(3), rng=0)
    with pytest.raises(ValueError, match="`prior` must be"):
        synth.class_accuracies(0.7, [0.2, 0.2], rng=0)  # a prior that does not sum to 1 cannot reach its mean
    with pytest.raises(ValueError, match="`capacity` must be non-negative"):
        synth.apportion([1, 1], 1, capacity=[-1, 3])
    with pytest.raises(ValueError, match="`disagreement_boost` must be"):
        synth.random_offline_joint(np.eye(2) / 2, disagreement_boost=-1, rng=0)


# -- the fuzz -------------------------------------------------------------------------------------------
_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.booleans(),
                    st.text(max_size=2))
_inputs = st.one_of(
    st.lists(_values, max_size=6),
    st.lists(st.floats(0, 1), min_size=0, max_size=6),
    st.lists(st.integers(0, 1), min_size=0, max_size=6),
    st.builds(lambda xs: np.ma.array(xs, mask=[i % 2 for i in range(len(xs))]), st.lists(st.floats(0, 1), max_size=5)),
    st.builds(lambda xs: pd.Series(xs, index=list(range(len(xs)))[::-1]), st.lists(st.floats(0, 1), max_size=5)),
    st.none(), st.just("abc"), st.floats(),
)
_weights = st.one_of(st.none(), st.lists(st.floats(0, 1e300), max_size=6), st.lists(st.floats(-1, 1), max_size=6))
FUNCS = [metrics.roc_auc_score, metrics.log_loss, metrics.rig_score, metrics.mean_squared_error, metrics.mean_absolute_error, metrics.prediction_error,
         metrics.calibration_ratio]


@settings(max_examples=300, deadline=None, derandomize=True)  # the same examples on every run
@given(f=st.sampled_from(FUNCS), a=_inputs, b=_inputs, w=_weights)
def test_fuzz_outcome_is_a_value_nan_with_warning_or_a_named_error(f, a, b, w):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = f(a, b, sample_weight=w)
        except (ValueError, TypeError) as exc:
            assert "`" in str(exc), f"unnamed error: {exc!r}"
            return
    assert isinstance(out, float)
    if np.isnan(out):
        assert any(issubclass(c.category, OfflineEvalWarning) for c in caught), "nan without the project warning"
    else:
        assert np.isfinite(out)


# -- the public API ----------------------------------------------------------------------------------
def test_top_level_exports_are_the_modules_functions():
    import importlib

    import offline_eval

    for name in offline_eval.__all__:
        obj = getattr(offline_eval, name)
        module = offline_eval._EXPORTS.get(name)
        if module:
            assert obj is getattr(importlib.import_module(f"offline_eval.{module}"), name)
            assert name in importlib.import_module(f"offline_eval.{module}").__all__
    with pytest.raises(AttributeError):
        offline_eval.no_such_function  # noqa: B018


def test_package_docstring_names_every_module():
    from pathlib import Path

    import offline_eval

    src = Path(offline_eval.__file__).parent
    modules = {p.stem for p in src.glob("*.py") if not p.stem.startswith("_")} | {"synth"}
    missing = [m for m in sorted(modules) if f"``{m}``" not in offline_eval.__doc__]
    assert missing == []


# -- bootstrap confidence intervals ------------------------------------------------------------------
def test_bootstrap_ci_is_the_percentile_interval_of_a_plain_resampling_loop():
    from offline_eval.metrics import bootstrap_ci

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    p = np.clip(0.3 * y + 0.7 * rng.random(300), 0.01, 0.99)
    w = rng.uniform(0.5, 2, 300)
    for f in (metrics.roc_auc_score, metrics.log_loss, metrics.rig_score):
        r = bootstrap_ci(f, y, p, sample_weight=w, n_boot=200, rng=7)
        gen = np.random.default_rng(7)
        slow = []
        for _ in range(200):
            i = gen.integers(0, 300, 300)
            slow.append(f(y[i], p[i], sample_weight=w[i]))
        np.testing.assert_allclose(r.replicates, slow, rtol=0, atol=0)
        assert (r.low, r.high) == tuple(np.percentile(slow, [2.5, 97.5]))
        assert r.value == f(y, p, sample_weight=w) and r.confidence_interval() == (r.low, r.high)


def test_bootstrap_ci_covers_the_true_auc_about_as_often_as_it_says():
    from offline_eval.metrics import bootstrap_ci

    gen = np.random.default_rng(11)
    # scores N(1, 1) for positives, N(0, 1) for negatives: AUC = Phi(1 / sqrt(2))
    from scipy.stats import norm

    true_auc = norm.cdf(1 / np.sqrt(2))
    hits = 0
    for _ in range(60):
        y = gen.integers(0, 2, 200)
        s = gen.standard_normal(200) + y
        r = bootstrap_ci(metrics.roc_auc_score, y, s, n_boot=200, rng=gen)
        hits += r.low <= true_auc <= r.high
    assert 48 <= hits <= 60  # 95% nominal: 57 expected; well below would be a broken interval


def test_bootstrap_ci_names_bad_arguments_and_warns_on_undefined_resamples():
    from offline_eval.metrics import bootstrap_ci

    with pytest.raises(ValueError, match="`n_boot`"):
        bootstrap_ci(metrics.roc_auc_score, [0, 1], [0.1, 0.9], n_boot=0)
    with pytest.raises(ValueError, match="`level`"):
        bootstrap_ci(metrics.roc_auc_score, [0, 1], [0.1, 0.9], level=95)
    with pytest.raises(ValueError, match="`metric`"):
        bootstrap_ci("auc", [0, 1], [0.1, 0.9])
    with pytest.warns(OfflineEvalWarning, match="undefined on"):
        r = bootstrap_ci(metrics.roc_auc_score, [0, 1, 0], [0.1, 0.9, 0.3], n_boot=50, rng=0)
    assert r.n_valid < 50


def test_bootstrap_oam_accuracy_resamples_the_offline_sample():
    gen = np.random.default_rng(5)
    g = gen.integers(0, 3, 3000)
    b = np.where(gen.random(3000) < 0.7, g, gen.integers(0, 3, 3000))
    c = np.where(gen.random(3000) < 0.8, g, gen.integers(0, 3, 3000))
    off = gen.choice(3000, 400, replace=False)
    r = adaptive.bootstrap_oam_accuracy(b[off], c[off], g[off], b, c, n_classes=3, n_boot=100, rng=0)
    full = adaptive.online_adaptive_metrics(b[off], c[off], g[off], b, c, n_classes=3)
    for m in ("baseline", "candidate"):
        ci, est = getattr(r, m), getattr(full, m)
        assert ci.value == est.accuracy and ci.low < ci.value < ci.high
    live_acc_c = float((c == g).mean())
    assert r.candidate.low - 0.05 < live_acc_c < r.candidate.high + 0.05


# -- issue 22: one example per cause, each a right value or a named error ------------------------------------------
def _named(exc_type, name, f, *args, **kwargs):
    with pytest.raises(exc_type, match=f"`{name}`"):
        f(*args, **kwargs)


def test_issue22_cause1_pandas_inputs_aligned_or_refused():
    from offline_eval import mergeable

    a, v, p = pd.Series([0, 1, 0, 1]), pd.Series([1.0, 2.0, 3.0, 4.0]), pd.Series([0.5, 0.5, 0.9, 0.9])
    c = pd.Series([0.1, 0.2, 0.3, 0.4])
    assert bidding.utility(a, v, p, c) == bidding.utility(a.to_numpy(), v.to_numpy(), p.to_numpy(), c.to_numpy())
    _named(ValueError, "c", bidding.utility, a, v, p, c.iloc[::-1])
    _named(ValueError, "v", bidding.weighted_mean_squared_error, a, v.iloc[::-1], p)
    _named(ValueError, "v", bidding.expected_utility, a, v.iloc[::-1], p, c, beta=1.0)
    rng = np.random.default_rng(0)
    off = pd.Series(rng.normal(size=20))
    _named(ValueError, "online_diff", bidding.ab_test_correlation, off, (off + 0.1).iloc[::-1], np.full(20, 0.01), rng=0)
    x = pd.Series([1.0, 2, 3, 4, 5])
    _named(ValueError, "pred_b", ranking.bootstrap_compare, x, x, x.iloc[::-1], measure="tau", n_boot=5, rng=0)
    _named(ValueError, "by", metrics.quantile_breakdown, pd.Series([0, 1, 0, 1]), pd.Series([.1, .2, .3, .4]),
           by=pd.Series([.1, .2, .3, .4]).iloc[::-1], n_quantiles=2)
    for f in (metrics.roc_auc_score_from_counts, metrics.roc_curve_from_counts):
        _named(ValueError, "negatives", f, pd.Series([1, 2, 3]), pd.Series([3, 2, 1]).iloc[::-1])
    _named(ValueError, "pclick", auction.allocate, pd.DataFrame([[1.0, 2.0], [3.0, 4.0]]),
           pd.DataFrame([[0.1, 0.2], [0.3, 0.4]]).iloc[::-1])
    _named(ValueError, "y_prob", mergeable.LossSums.from_arrays, pd.Series([0, 1, 1, 0]),
           pd.Series([.2, .7, .4, .1]).iloc[::-1])


def test_issue22_cause2_weights_at_any_scale():
    from offline_eval import mergeable

    assert metrics.roc_auc_score_from_counts([3e-170, 1e-170], [1e-170, 3e-170]) == 0.75
    ll = mergeable.LossSums.from_arrays([0, 1, 1, 0], [.2, .7, .4, .1], [1e308] * 4).log_loss()
    assert ll == metrics.log_loss([0, 1, 1, 0], [.2, .7, .4, .1]) == pytest.approx(0.4003674357)
    rng = np.random.default_rng(0)
    for _ in range(50):
        y, p, w = rng.integers(0, 2, 30), rng.uniform(size=30).round(1), rng.integers(1, 4, 30).astype(float)
        q = int(rng.integers(2, 8))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OfflineEvalWarning)
            bins = [metrics.quantile_breakdown(y, p, sample_weight=w * s, n_quantiles=q)["score_lo"].tolist()
                    for s in (1.0, 1 / 3, 2.0**-600, 1e300)]
        assert all(b == bins[0] for b in bins)


def test_issue22_cause3_masked_arrays_refused():
    v = np.ma.array([1, 2, 3, 1e9], mask=[0, 0, 0, 1])
    for f, args in ((bidding.utility, ([0, 1, 0, 1], v, [.5] * 4, [.1] * 4)),
                    (bidding.weighted_mean_squared_error, ([0, 1, 0, 1], v, [.5] * 4)),
                    (bidding.expected_utility, ([0, 1, 0, 1], v, [.5] * 4, [.1] * 4))):
        with pytest.raises(TypeError, match="`v` is a masked array"):
            f(*args, **({"beta": 1.0} if f is bidding.expected_utility else {}))
    with pytest.raises(TypeError, match="`bids` is a masked array"):
        auction.allocate(np.ma.array([[1.0, 2.0]], mask=[[0, 1]]), [[.1, .2]])


def test_issue22_cause4_flags_are_bools_and_seeds_are_not():
    x, y = [1.0, 2, 3, 4, 5], [1.0, 3, 2, 5, 4]
    _named(TypeError, "tilde", ranking.kendall_tau, x, y, tilde="False")
    _named(TypeError, "tilde", ranking.spearman_rho, x, y, tilde=1)
    _named(TypeError, "normalize", adaptive.joint_distribution, [0, 1], [0, 1], normalize="no")
    _named(TypeError, "rng", ranking.bootstrap_compare, x, y, y, measure="tau", n_boot=5, rng=True)


@pytest.mark.parametrize("bad", [np.array([.1 + 1j, .2]), np.array([b"0.1", b"0.2"]), np.array(["0.1", "0.2"]),
                                 np.array(["2020-01-01", "2020-01-02"], dtype="datetime64[D]")])
def test_issue22_cause5_mergeable_refuses_non_numbers(bad):
    from offline_eval import mergeable

    for cls in (mergeable.ScoreCounts, mergeable.LossSums):
        with pytest.raises(ValueError, match="must be numeric"):
            cls.from_arrays([0, 1], bad)


def test_issue22_cause6_a_resolution_too_fine_is_named():
    from offline_eval import mergeable

    y, s = [0, 0, 1, 1, 0, 1], [.1, .4, .35, .8, .3, .9]
    _named(ValueError, "resolution", mergeable.ScoreCounts.from_arrays, y, s, resolution=1e-320)
    assert mergeable.ScoreCounts.from_arrays(y, s, resolution=1e-12).roc_auc_score() == metrics.roc_auc_score(y, s)


def test_issue22_cause7_finite_values_at_extreme_scales():
    y, m = np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.1, 2.0, 2.9, 4.2])
    for s in (1e200, 1e-200):
        assert metrics.normalized_mean_squared_error(y * s, m * s) == pytest.approx(
            metrics.normalized_mean_squared_error(y, m), rel=1e-12)
        for measure in ("RMSE", "MAE"):
            np.testing.assert_allclose(ranking.leave_one_out(y * s, m * s, measure=measure) / s,
                                       ranking.leave_one_out(y, m, measure=measure), rtol=1e-12)


@pytest.fixture(scope="module")
def small_log():
    from offline_eval.synth import sponsored

    w = sponsored.make_world(0, n_queries=5, n_candidates=3)
    pv = search_world.sample_page_views(w, 300, 1)
    imp = search_world.serve(w, w.ctr, pv, rng=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        log = auction.ClickLog.from_impressions(pv, imp, n_queries=5, n_candidates=3, n_slots=w.n_slots, n_iter=20)
    return w, pv, imp, log


def test_issue22_causes8_to_10_auction_inputs(small_log):
    w, pv, imp, log = small_log
    _named(ValueError, "pclick", auction.rank_score_quantiles, log, w.ctr[:, :1], alpha=1.0, quantiles=[.5])
    _named(ValueError, "pclick", auction.rank_score_quantiles, log, w.ctr * 50, alpha=1.0, quantiles=[.5])
    listed = auction.sweep_operating_points(log, w.ctr, alphas=[1.0], mainline_quantiles=[.2, .5])
    it = auction.sweep_operating_points(log, w.ctr, alphas=iter([1.0]), mainline_quantiles=iter([.2, .5]))
    pd.testing.assert_frame_equal(it, listed)
    _named(ValueError, "n_mainline", auction.ClickLog, pv, log.impressions, log.clicks, n_mainline=1.5)
    _named(ValueError, "n_iter", auction.ClickLog, pv, log.impressions, log.clicks, n_mainline=1, n_iter=-5)
    imp_f = pd.DataFrame({"query": ["q"], "ad": ["a"], "slot": [0], "click": [1]})
    auc_f = pd.DataFrame({"page_view": [0, 0], "query": ["q", "q"], "ad": ["a", "a"], "bid": [1.0, 2.0]})
    _named(ValueError, "auctions", auction.ClickLog.from_frame, imp_f, auc_f, n_mainline=1)


@pytest.mark.parametrize("field,value", [("ctr", np.nan), ("ctr", 2.0), ("click_curve", -1.0)])
def test_issue22_cause11_a_world_of_impossible_probabilities_is_refused(small_log, field, value):
    import dataclasses

    w = small_log[0]
    bad = getattr(w, field).copy()
    bad.flat[0] = value
    _named(ValueError, field, dataclasses.replace, w, **{field: bad})


def test_issue22_cause12_counts_are_integers_and_lengths_match():
    from offline_eval import mergeable

    _named(ValueError, "n_classes", mergeable.JointCounts.from_arrays([0, 1], [1, 2]).dense, 3.7)
    with pytest.raises(ValueError, match="`group` has 0, `a` has 2"):
        mergeable.UtilitySums.from_arrays([], [0, 1], [1.0, 1.0], [.5, .5], [.1, .1])


def test_issue22_crashes_and_hangs_are_named_errors(small_log):
    from offline_eval import mergeable

    zero = mergeable.ScoreCounts.from_arrays([0, 1], [.1, .2], [0.0, 0.0])
    _named(ValueError, "first_pass", mergeable.QuantileSums.edges, zero, 2)
    _named(TypeError, "other", mergeable.ScoreCounts.from_arrays([0, 1], [.1, .2]).merge, mergeable.LossSums())
    _named(ValueError, "n_boot", metrics.bootstrap_ci, metrics.log_loss, [0, 1], [.1, .2], n_boot=10**9)
    _named(ValueError, "n_classes", adaptive.joint_distribution, [0, 1], [0, 1], n_classes=10**6)
    _named(ValueError, "n_trials", bidding.ab_test_correlation, np.arange(30_000.0), np.arange(30_000.0),
           np.ones(30_000), n_trials=10**5)
    w, pv, imp, log = small_log
    _named(ValueError, "n_folds", auction.cross_validate_min_impressions, pv, imp, n_queries=5, n_candidates=3,
           n_slots=w.n_slots, n_folds=10**6)
    n = 20_000  # one query with 20,000 ads and 20,000 queries with one: a 400M-cell dense table
    q = np.r_[np.zeros(n, int), np.arange(1, n + 1)]
    ad = np.r_[np.arange(n), np.zeros(n, int)]
    imp_f = pd.DataFrame({"query": q, "ad": ad, "slot": 0, "click": 0})
    auc_f = pd.DataFrame({"page_view": np.arange(2 * n), "query": q, "ad": ad, "bid": 1.0})
    _named(ValueError, "impressions", auction.ClickLog.from_frame, imp_f, auc_f, n_mainline=1)


def test_issue22_ab_test_correlation_with_many_networks_is_exact_and_small():
    # 30,000 networks: the O(n log n) pair counts, the same values as the pair matrices on a subset
    rng = np.random.default_rng(3)
    off, on = rng.normal(size=30_000), rng.normal(size=30_000)
    r = bidding.ab_test_correlation(off, on, np.full(30_000, 0.1), n_trials=2, rng=0)
    assert -1 <= r.kendall_tau <= 1
    x, y = rng.integers(0, 5, (2, 60)).astype(float), rng.normal(size=(3, 60)).round(1)
    np.testing.assert_array_equal(bidding._kendall_b(x, y), bidding._kendall_b_counts(x, y))
