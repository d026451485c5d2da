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
