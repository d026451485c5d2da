"""Generators validated like the metrics (issue 50, item 4): sizes in their own dtype, parameters finite and in
domain by name, bounds on work checked first."""

import numpy as np
import pytest

from offline_eval.synth import classifiers, rtb, sponsored, wallet


def test_zipf_prior_of_2_to_the_63_is_a_named_error_not_an_empty_array():
    with pytest.raises(ValueError, match="`n_classes`"):
        classifiers.zipf_prior(2**63)
    with pytest.raises(ValueError, match="`n_classes` = .* rows, more than the bound"):
        classifiers.zipf_prior(2**40)  # checked before numpy allocates 8 TB


@pytest.mark.parametrize("bad", [None, "a", True])
@pytest.mark.parametrize("call", [
    lambda v: wallet.wallet_survey(50, rng=0, median_wallet=v),
    lambda v: sponsored.sample_ctr(10, 0, junk_sd=v),
    lambda v: classifiers.random_offline_joint(np.full((3, 3), 1 / 9), sigma=v, rng=0),
    lambda v: rtb.simulate_rtb(n_networks=3, n_log=1000, n_ab=1000, price_corr=v, rng=0),
    lambda v: sponsored.sample_ctr(v, 0),
])
def test_none_strings_and_bools_are_named_type_errors(call, bad):
    with pytest.raises(ValueError if bad is True else TypeError, match=r"`\w+` must be"):
        call(bad)


@pytest.mark.parametrize("call, name", [
    (lambda: wallet.wallet_survey(50, rng=0, log_scale=float("nan")), "log_scale"),
    (lambda: sponsored.distorted_pclick([0.01, 0.2], 0, noise_sd=float("inf")), "noise_sd"),
    (lambda: classifiers.random_offline_joint(np.full((3, 3), 1 / 9), flatten=2**64, rng=0), "flatten"),
    (lambda: wallet.gumbel_normal_scores(20, 1e300, np.random.default_rng(0)), "theta"),
    (lambda: rtb.simulate_rtb(n_networks=3, n_log=1000, n_ab=1000, value_sigma=1e300, rng=0), "value_sigma"),
    (lambda: sponsored.make_world(0, n_queries=30, query_ctr_sd=1e300), "query_ctr_sd"),
    (lambda: rtb.simulate_rtb(n_networks=3, n_log=2**63, n_ab=1000, rng=0), "n_log"),
])
def test_non_finite_or_overflowing_parameters_are_named_errors(call, name):
    with pytest.raises(ValueError, match=f"`{name}`"):
        call()


def test_the_defaults_and_documented_inf_still_work():
    assert np.isfinite(wallet.wallet_survey(30, rng=0).select_dtypes("float").to_numpy()).all()
    rtb.simulate_rtb(n_networks=3, n_log=1000, n_ab=1000, ab_impressions=None, rng=0)
    assert classifiers.zipf_prior(3).sum() == pytest.approx(1.0)


# -- the parameters the public-API fuzz found unchecked: tuples, dicts of keyword arguments, an optional width --

_RTB = dict(n_networks=2, n_log=300, n_ab=400, rng=0)


@pytest.mark.parametrize("name", ["price_sigma", "noise"])
@pytest.mark.parametrize("bad, error", [
    (None, TypeError), ("ab", TypeError), (0.3, TypeError), (np.float64(0.3), TypeError), ({0.1, 0.6}, TypeError),
    ({"low": 0.1}, TypeError), ((0.1,), ValueError), ((0.1, 0.2, 0.3), ValueError), ((0.1, float("nan")), ValueError),
    ((0.0, float("inf")), ValueError), ((True, 1.0), TypeError), ((None, 1.0), TypeError), (("0.1", "0.6"), TypeError),
    ((0.6, 0.1), ValueError), ((-1.0, 1.0), ValueError), (np.array([[0.1, 0.6]]), ValueError),
])
def test_simulate_rtb_ranges_are_checked_by_name(name, bad, error):
    with pytest.raises(error, match=f"`{name}` must be"):
        rtb.simulate_rtb(**_RTB, **{name: bad})


def test_simulate_rtb_other_parameters_named_and_valid_ranges_unchanged():
    with pytest.raises(ValueError, match="`log_arms` must be 'ab' or 'a'"):
        rtb.simulate_rtb(**_RTB, log_arms=np.array([1.0, 2.0]))
    with pytest.raises(ValueError, match="`price_sigma`=\\(0, 1e\\+300\\)"):  # a finite range that overflows the draw
        rtb.simulate_rtb(**_RTB, price_sigma=(0, 1e300))
    # a range as a tuple, a list or an array: the same world, and the params keep what was given
    w = rtb.simulate_rtb(**_RTB, price_sigma=(0.2, 0.9), noise=(0.1, 0.4))
    for ps, nz in (([0.2, 0.9], [0.1, 0.4]), (np.array([0.2, 0.9]), (np.float64(0.1), 0.4))):
        v = rtb.simulate_rtb(**_RTB, price_sigma=ps, noise=nz)
        assert v.logs.equals(w.logs) and v.ab.equals(w.ab) and v.networks.equals(w.networks)
    assert w.params["price_sigma"] == (0.2, 0.9) and w.params["noise"] == (0.1, 0.4)


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(ctr_kwargs=1.5), TypeError, "`ctr_kwargs` must be None or a dict"),
    (dict(ctr_kwargs="median"), TypeError, "`ctr_kwargs` must be None or a dict"),
    (dict(curve_kwargs=[("n_mainline", 2)]), TypeError, "`curve_kwargs` must be None or a dict"),
    (dict(curve_kwargs=True), TypeError, "`curve_kwargs` must be None or a dict"),
    (dict(ctr_kwargs={"foo": 1}), ValueError, r"`ctr_kwargs` holds key\(s\) \['foo'\]"),
    (dict(ctr_kwargs={"n": 3}), ValueError, r"`ctr_kwargs` holds key\(s\) \['n'\]"),  # make_world passes n and rng
    (dict(ctr_kwargs={"rng": 3}), ValueError, r"`ctr_kwargs` holds key\(s\) \['rng'\]"),
    (dict(curve_kwargs={1: 2}), ValueError, r"`curve_kwargs` holds key\(s\) \[1\]"),
    (dict(ctr_kwargs={"median": 2.0}), ValueError, "`ctr_kwargs`: `median` must be in"),
    (dict(ctr_kwargs={"junk_sd": None}), TypeError, "`ctr_kwargs`: `junk_sd` must be"),
    (dict(curve_kwargs={"sidebar_top": 5.0}), ValueError, "`curve_kwargs`: `sidebar_top` must be in"),
    (dict(curve_kwargs={"n_mainline": 0}), ValueError, "`curve_kwargs`: `n_mainline` must be"),
])
def test_make_world_keyword_dicts_are_checked_by_name_before_any_draw(kwargs, error, match):
    rng = np.random.default_rng(0)
    with pytest.raises(error, match=match):
        sponsored.make_world(rng, n_queries=20, n_candidates=3, **kwargs)
    assert rng.random() == np.random.default_rng(0).random()  # the error came before any draw


def test_make_world_valid_keyword_dicts_unchanged():
    kw = dict(ctr_kwargs={"median": 0.05, "junk_share": 0.1}, curve_kwargs={"n_mainline": 2, "sidebar_top": 0.1})
    w = sponsored.make_world(3, n_queries=40, n_candidates=4, **kw)
    rng = np.random.default_rng(3)
    np.exp(0.6 * rng.standard_normal((40, 4)))  # the bids
    ctr = sponsored.sample_ctr((40, 4), rng, **kw["ctr_kwargs"])
    qf = np.exp(0.4 * rng.standard_normal((40, 1)) - 0.5 * 0.4**2)
    assert np.array_equal(w.ctr, np.clip(ctr * qf, 1e-9, 0.9))
    assert np.array_equal(w.click_curve, sponsored.click_curve(**kw["curve_kwargs"])) and w.n_mainline == 2
    assert np.array_equal(sponsored.make_world(5, n_queries=30, ctr_kwargs={}, curve_kwargs={}).ctr,
                          sponsored.make_world(5, n_queries=30).ctr)


@pytest.mark.parametrize("bad", ["a", [1.0, 2.0], np.array([1.0]), True, float("nan"), float("inf"), 0.0, -1.0])
def test_overestimate_low_range_width_is_checked_by_name(bad):
    with pytest.raises(ValueError, match="`width` must be a finite positive number"):
        sponsored.overestimate_low_range([1e-3, 0.01], width=bad)


def test_overestimate_low_range_valid_width_unchanged():
    p = np.array([1e-4, 1e-3, 0.01, 0.1])
    assert np.array_equal(sponsored.overestimate_low_range(p, width=1), sponsored.overestimate_low_range(p, width=1.0))
    assert np.array_equal(sponsored.overestimate_low_range(p), sponsored.overestimate_low_range(p, width=1.0))


_C3 = np.array([[300, 20, 10], [15, 200, 5], [12, 8, 100]])


@pytest.mark.parametrize("kwargs, error, match", [
    (dict(counts=[[5]]), ValueError, r"`counts` must be a K x K array .* \(1, 1\)"),
    (dict(counts=np.ones(3, int)), ValueError, "`counts` must be a K x K array"),
    (dict(counts=np.ones((2, 3), int)), ValueError, "`counts` must be a K x K array"),
    (dict(counts=-np.eye(2, dtype=int)), ValueError, "`counts` must be non-negative"),
    (dict(counts=np.full((2, 2), 2**62)), ValueError, "`counts` totals"),  # its int64 sum would wrap
    (dict(counts=np.array([[0, 5], [5, 0]])), ValueError, "`counts` must have items where the models agree"),
    (dict(target_accuracy=None), TypeError, "`target_accuracy` must be a pair"),
    (dict(target_accuracy=0.8), TypeError, "`target_accuracy` must be a pair"),
    (dict(target_accuracy=("0.8", "0.8")), TypeError, "`target_accuracy` must be a pair"),
    (dict(target_accuracy=(0.8,)), ValueError, "`target_accuracy` must be a pair"),
    (dict(target_accuracy=(0.8, float("nan"))), ValueError, "`target_accuracy` must be a pair"),
    (dict(target_accuracy=(0.8, 1.5)), ValueError, r"`target_accuracy` must be two accuracies in \[0, 1\]"),
    (dict(agree_correct=1.5), ValueError, "`agree_correct` must be"),
    (dict(class_spread=-0.1), ValueError, "`class_spread` must be"),
    # two classes: an item on which the models disagree is right for one of them (there is no third class)
    (dict(counts=np.array([[400, 30], [20, 300]]), target_accuracy=(0.85, 0.86)), ValueError,
     "`target_accuracy` .* out of reach .* with 2 classes"),
])
def test_truth_for_joint_counts_checks_by_name(kwargs, error, match):
    kw = dict(counts=_C3, target_accuracy=(0.83, 0.86), rng=0)
    with pytest.raises(error, match=match):
        classifiers.truth_for_joint_counts(**{**kw, **kwargs})


def test_truth_for_joint_counts_valid_inputs_unchanged():
    b, c, g = classifiers.truth_for_joint_counts(_C3.tolist(), target_accuracy=[0.83, 0.86], rng=0)
    b2, c2, g2 = classifiers.truth_for_joint_counts(_C3, target_accuracy=(0.83, 0.86), rng=0)
    assert np.array_equal(b, b2) and np.array_equal(c, c2) and np.array_equal(g, g2)
    assert int(np.sum(b == g)) == round(0.83 * 670) and int(np.sum(c == g)) == round(0.86 * 670)
    # two classes whose targets account for every disagreement item: drawn as before
    b, c, g = classifiers.truth_for_joint_counts(np.array([[400, 30], [20, 300]]), target_accuracy=(0.8667, 0.88),
                                                 rng=1)
    assert int(np.sum(b == g)) == 650 and int(np.sum(c == g)) == 660
