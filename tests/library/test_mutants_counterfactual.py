"""Behaviour of `counterfactual` that mutation testing found unchecked: names in results and errors, clipping in
DR, the float range at its edges (`make mutation`; docs/mutation.md)."""

import math

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval.counterfactual import dr_estimate, ips_estimate, snips_estimate

R, PI, PI0 = [1.0, 0.0, 2.0, 1.0], [0.9, 0.2, 0.6, 0.1], [0.5, 0.5, 0.25, 0.5]
Q, Q_PI = [0.4, 0.1, 0.3, 0.2], [0.5, 0.5, 0.5, 0.5]


def test_each_estimate_carries_its_estimators_name():
    assert ips_estimate(R, PI, PI0).name == "ips"
    assert snips_estimate(R, PI, PI0).name == "snips"
    assert dr_estimate(R, PI, PI0, Q, Q_PI).name == "dr"
    with pytest.warns(OfflineEvalWarning, match="^ips: one logged row"):
        one = ips_estimate([1.0], [1.0], [0.5])
    assert one.name == "ips" and one.statistic == 2.0 and math.isnan(one.standard_error)


def test_dr_clips_its_weights():
    # weights 1.8, 0.4, 2.4, 0.2 clipped at 1: d_i = q_pi + min(w, 1) (r - q)
    w = [min(a / b, 1.0) for a, b in zip(PI, PI0)]
    d = [qp + wi * (r - q) for r, q, qp, wi in zip(R, Q, Q_PI, w)]
    got = dr_estimate(R, PI, PI0, Q, Q_PI, clip=1.0)
    assert got.statistic == pytest.approx(sum(d) / 4, rel=1e-13)


def test_clip_below_one_is_a_weight_bound_and_zero_is_refused():
    # clip=0.5: every weight above it becomes 0.5 (a legal bound, though below 1)
    w = [min(a / b, 0.5) for a, b in zip(PI, PI0)]
    assert ips_estimate(R, PI, PI0, clip=0.5).statistic == pytest.approx(
        sum(wi * r for wi, r in zip(w, R)) / 4, rel=1e-13)
    for bad in (0, 0.0, -1.0):
        with pytest.raises(ValueError, match="`clip`"):
            ips_estimate(R, PI, PI0, clip=bad)


@pytest.mark.parametrize("short", ["reward", "target_pscore", "logging_pscore"])
def test_a_length_mismatch_names_the_short_argument(short):
    args = {"reward": R, "target_pscore": PI, "logging_pscore": PI0}
    args[short] = args[short][:3]
    with pytest.raises(ValueError, match=f"`{short}` has 3"):
        ips_estimate(**args)


@pytest.mark.parametrize("which", ["logging_pscore", "reward_hat", "target_reward_hat"])
def test_misaligned_pandas_inputs_are_refused_by_name(which):
    args = {"reward": pd.Series(R), "target_pscore": pd.Series(PI), "logging_pscore": pd.Series(PI0),
            "reward_hat": pd.Series(Q), "target_reward_hat": pd.Series(Q_PI)}
    args[which] = args[which].iloc[::-1]
    with pytest.raises(ValueError, match=f"`{which}`"):
        dr_estimate(*args.values())


def test_bad_propensities_and_predictions_are_named():
    with pytest.raises(ValueError, match="`logging_pscore` must lie in"):
        ips_estimate(R, PI, [0.5, 1.5, 0.5, 0.5])
    with pytest.raises(ValueError, match="got 3 zero value"):
        ips_estimate(R, PI, [0.5, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="`reward_hat`"):
        dr_estimate(R, PI, PI0, [0.4, np.nan, 0.3, 0.2], Q_PI)


def test_snips_undefined_cases_say_what_is_undefined():
    with pytest.warns(OfflineEvalWarning, match=r"^snips: every importance weight is 0 .* actions\); the estimate is nan$"):
        none = snips_estimate(R, [0.0] * 4, PI0)
    assert math.isnan(none.statistic) and math.isnan(none.standard_error) and none.name == "snips"
    with pytest.warns(OfflineEvalWarning,
                      match=r"^snips: fewer than two logged rows carry weight .* on at most one\); the standard error is nan$"):
        one = snips_estimate(R, [0.0, 0.0, 0.6, 0.0], PI0)
    assert one.statistic == 2.0 and math.isnan(one.standard_error) and one.name == "snips"


def test_snips_clips_its_weights():
    # weights 1.8, 0.4, 2.4, 0.2 clipped at 1: sum(w r) / sum(w) = (1 + 0 + 2 + 0.2) / (1 + 0.4 + 1 + 0.2)
    assert snips_estimate(R, PI, PI0, clip=1.0).statistic == pytest.approx(3.2 / 2.6, rel=1e-14, abs=0)


def test_snips_scales_with_its_rewards_down_to_tiny_rewards():
    # snips(c r) = c snips(r), its standard error too: exactly so for a power of two, even where the rewards'
    # squares would underflow (1e-200 ** 2 is 0 in float64)
    r = [1.0, 3.0, 0.5, 2.0]
    ref = snips_estimate(r, PI, PI0)
    for c in (2.0 ** -660, 2.0 ** -1000, 2.0 ** 500):
        got = snips_estimate([c * x for x in r], PI, PI0)
        assert got.statistic == pytest.approx(c * ref.statistic, rel=1e-14, abs=0)
        assert got.standard_error == pytest.approx(c * ref.standard_error, rel=1e-14, abs=0)


def test_an_estimate_beyond_float_range_warns_by_name_and_numpy_stays_silent(project_warnings):
    # weight 2**1073 on a reward of 1e300: the estimate exists but no float holds it
    (ips, messages) = project_warnings(ips_estimate, [1e300, 1e300], [1.0, 1.0], [5e-324, 1.0])
    assert ips.statistic == math.inf
    assert any(m.startswith("ips: the estimate is beyond float64's range") for m in messages)
    assert any(m.startswith("ips: the standard error is beyond float64's range") for m in messages)
    (dr, messages) = project_warnings(dr_estimate, [1e300, 1e300], [1.0, 1.0], [5e-324, 1.0], [0, 0], [0, 0])
    assert dr.statistic == math.inf and any(m.startswith("dr: the estimate is beyond") for m in messages)
    # snips is a weighted mean: neither it nor its standard error leaves the rewards' range
    (sn, messages) = project_warnings(snips_estimate, [1.7e308, -1.7e308], [1.0, 1.0], [1.0, 1.0])
    assert sn.statistic == 0.0 and sn.standard_error == pytest.approx(1.7e308 / math.sqrt(2)) and messages == []


def test_clipping_a_weight_beyond_float_range_raises_no_numpy_warning(project_warnings):
    # a weight of 5e-324 (-we = 1073): the clip test must not overflow on its way
    (got, messages) = project_warnings(ips_estimate, [1.0, 2.0], [5e-324, 1.0], [1.0, 1.0], clip=10.0)
    assert messages == [] and got.statistic == pytest.approx((5e-324 + 2.0) / 2, rel=1e-15, abs=0)


def test_dr_with_a_zero_model_is_ips_even_at_the_edges_of_float_range():
    # documented identity (reward_hat = target_reward_hat = 0): tiny weights on large rewards, estimate ~1e-23
    r, pi, pi0 = [1e300, 3e299, 2e300], [5e-324, 1e-323, 5e-324], [1.0, 0.5, 1.0]
    ips = ips_estimate(r, pi, pi0)
    dr = dr_estimate(r, pi, pi0, [0.0] * 3, [0.0] * 3)
    # sum_i w_i r_i / 3 with w = 5e-324, 2e-323, 5e-324: about 6.9e-24 (a loop in float64 underflows)
    assert ips.statistic == pytest.approx((1e300 * 5e-324 + 3e299 * 2e-323 + 2e300 * 5e-324) / 3, rel=1e-12, abs=0)
    assert dr.statistic == pytest.approx(ips.statistic, rel=1e-12, abs=0)
    assert dr.standard_error == pytest.approx(ips.standard_error, rel=1e-12, abs=0)


def test_a_row_whose_reward_its_model_predicts_adds_only_its_model_value_whatever_its_weight():
    # row 0: r = q, so its term is q_pi = 0.2 whatever its weight (here 2**1074); row 1: 0.3 + 1 (1 - 0)
    got = dr_estimate([0.5, 1.0], [1.0, 1.0], [5e-324, 1.0], [0.5, 0.0], [0.2, 0.3])
    assert got.statistic == pytest.approx((0.2 + 1.3) / 2, rel=1e-14, abs=0)
    assert got.standard_error == pytest.approx(abs(1.3 - 0.2) / 2, rel=1e-14, abs=0)
