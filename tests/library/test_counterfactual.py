"""IPS, SNIPS and doubly robust estimates against slow references, hand-worked cases and simulation."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval.counterfactual import dr_estimate, ips_estimate, snips_estimate


# -- slow, obviously-right references (loops over rows, the published formulas) ---------------------------
def ips_loop(r, pi, pi0, clip=math.inf):
    terms = [min(a / b, clip) * x for x, a, b in zip(r, pi, pi0)]
    mean = sum(terms) / len(terms)
    var = sum((t - mean) ** 2 for t in terms) / (len(terms) - 1)
    return mean, math.sqrt(var / len(terms))


def snips_loop(r, pi, pi0):
    w = [a / b for a, b in zip(pi, pi0)]
    value = sum(wi * x for wi, x in zip(w, r)) / sum(w)
    se = math.sqrt(sum((wi * (x - value)) ** 2 for wi, x in zip(w, r))) / sum(w)
    return value, se


def dr_loop(r, pi, pi0, q, q_pi):
    terms = [qp + (a / b) * (x - qq) for x, a, b, qq, qp in zip(r, pi, pi0, q, q_pi)]
    mean = sum(terms) / len(terms)
    var = sum((t - mean) ** 2 for t in terms) / (len(terms) - 1)
    return mean, math.sqrt(var / len(terms))


def random_log(rng, n):
    """A log of a stochastic logging policy and a stochastic target policy over 3 actions."""
    pi0 = rng.dirichlet(np.ones(3), size=n) * 0.9 + 0.1 / 3
    pi = rng.dirichlet(np.ones(3) * 0.5, size=n)
    a = np.array([rng.choice(3, p=row) for row in pi0])
    q = rng.uniform(0, 1, size=(n, 3))  # a reward model
    r = rng.binomial(1, 0.2 + 0.6 * (a == 1)).astype(float) * rng.uniform(0.5, 2, n)
    rows = np.arange(n)
    return r, pi[rows, a], pi0[rows, a], q[rows, a], (pi * q).sum(axis=1)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("n", [2, 7, 300])
def test_the_three_estimators_equal_their_loops_on_random_logs(seed, n):
    r, pi, pi0, q, q_pi = random_log(np.random.default_rng(seed), n)
    for got, ref in ((ips_estimate(r, pi, pi0), ips_loop(r, pi, pi0)),
                     (snips_estimate(r, pi, pi0), snips_loop(r, pi, pi0)),
                     (dr_estimate(r, pi, pi0, q, q_pi), dr_loop(r, pi, pi0, q, q_pi))):
        assert got.statistic == pytest.approx(ref[0], rel=1e-12, abs=1e-15)
        assert got.standard_error == pytest.approx(ref[1], rel=1e-10, abs=1e-15)
    assert ips_estimate(r, pi, pi0, clip=1.5).statistic == pytest.approx(ips_loop(r, pi, pi0, 1.5)[0], rel=1e-12)


def test_hand_worked_cases_of_the_published_formulas():
    # Two actions logged uniformly (propensity 1/2); the deterministic target takes action 1, logged on rows
    # 0 and 2 (rewards 1 and 0); on rows 1 and 3 action 0 was logged (rewards 1 and 0).
    r, pi, pi0 = [1, 1, 0, 0], [1, 0, 1, 0], [0.5] * 4
    # IPS (Horvitz-Thompson): (2*1 + 0 + 2*0 + 0) / 4 = 0.5; terms (2, 0, 0, 0): sd = 1, se = 1/2
    ips = ips_estimate(r, pi, pi0)
    assert (ips.statistic, ips.standard_error) == (0.5, 0.5)
    # SNIPS: (2*1 + 2*0) / (2 + 2) = 0.5; se = sqrt((2*0.5)^2 + (2*(-0.5))^2) / 4 = sqrt(2) / 4
    snips = snips_estimate(r, pi, pi0)
    assert snips.statistic == 0.5 and snips.standard_error == pytest.approx(math.sqrt(2) / 4, rel=1e-15)
    # DR with q(x, 1) = 0.8, q(x, 0) = 0.3 on every row, so q_pi(x) = 0.8:
    # terms 0.8 + 2(1 - 0.8), 0.8, 0.8 + 2(0 - 0.8), 0.8 = 1.2, 0.8, -0.8, 0.8: mean 0.5
    q = [0.8, 0.3, 0.8, 0.3]
    dr = dr_estimate(r, pi, pi0, q, [0.8] * 4)
    assert dr.statistic == pytest.approx(0.5, rel=1e-15)
    terms = np.array([1.2, 0.8, -0.8, 0.8])
    assert dr.standard_error == pytest.approx(terms.std(ddof=1) / 2, rel=1e-14)
    # clipping at 1.5 (OBP's lambda_): terms (1.5, 0, 0, 0): 0.375
    assert ips_estimate(r, pi, pi0, clip=1.5).statistic == 0.375


def test_dr_with_a_zero_reward_model_is_ips():
    r, pi, pi0, q, q_pi = random_log(np.random.default_rng(3), 200)
    zero = np.zeros_like(r)
    a, b = dr_estimate(r, pi, pi0, zero, zero), ips_estimate(r, pi, pi0)
    assert (a.statistic, a.standard_error) == pytest.approx((b.statistic, b.standard_error), rel=1e-14)


def test_dr_with_the_true_reward_model_has_less_variance_than_ips():
    rng = np.random.default_rng(5)
    n = 4000
    pi0 = np.full((n, 3), 1 / 3)
    mean_reward = np.array([0.2, 0.5, 0.8])
    a = rng.integers(0, 3, n)
    r = rng.binomial(1, mean_reward[a]).astype(float)
    pi = np.zeros((n, 3))
    pi[:, 2] = 1.0  # always action 2: true value 0.8
    rows = np.arange(n)
    ips = ips_estimate(r, pi[rows, a], pi0[rows, a])
    dr = dr_estimate(r, pi[rows, a], pi0[rows, a], mean_reward[a], np.full(n, 0.8))
    # per-row variances: IPS E[(3 r)^2; a = 2] - 0.8^2 = 2.4 - 0.64 = 1.76, DR (1/3) 9 Var(r | a = 2) = 0.48;
    # the ratio of standard errors sqrt(0.48 / 1.76) = 0.52
    assert dr.standard_error / ips.standard_error == pytest.approx(math.sqrt(0.48 / 1.76), abs=0.05)
    for est in (ips, dr, snips_estimate(r, pi[rows, a], pi0[rows, a])):
        low, high = est.confidence_interval(0.999)
        assert low < 0.8 < high


def test_ips_and_dr_are_unbiased_and_their_intervals_cover():
    # 400 replicate logs of a known world: the mean estimate within 4 standard errors of the truth and the
    # 95% intervals covering it in 90-99% of the replicates
    rng = np.random.default_rng(11)
    mean_reward = np.array([0.1, 0.3, 0.6])
    pi_target = np.array([0.1, 0.2, 0.7])
    truth = float(pi_target @ mean_reward)
    logging = np.array([0.5, 0.3, 0.2])
    est = {"ips": [], "snips": [], "dr": []}
    cover = {k: 0 for k in est}
    for _ in range(400):
        a = rng.choice(3, size=500, p=logging)
        r = rng.binomial(1, mean_reward[a]).astype(float)
        q = mean_reward[a] + 0.1  # a biased reward model: DR stays unbiased
        for name, res in (("ips", ips_estimate(r, pi_target[a], logging[a])),
                          ("snips", snips_estimate(r, pi_target[a], logging[a])),
                          ("dr", dr_estimate(r, pi_target[a], logging[a], q, np.full(500, truth + 0.1)))):
            est[name].append(res.statistic)
            low, high = res.confidence_interval(0.95)
            cover[name] += low <= truth <= high
    for name in ("ips", "dr"):
        values = np.array(est[name])
        assert abs(values.mean() - truth) < 4 * values.std() / math.sqrt(values.size), name
    for name in est:
        assert 0.90 <= cover[name] / 400 <= 0.99, (name, cover[name])


def test_snips_is_invariant_to_the_scale_of_the_weights():
    r, pi, pi0, _, _ = random_log(np.random.default_rng(2), 50)
    base = snips_estimate(r, pi, pi0)
    # every target propensity scaled down by 2**-600 (the ratios stay in [0, 1]): the same SNIPS
    tiny = snips_estimate(r, np.ldexp(pi, -600), pi0)
    assert tiny.statistic == pytest.approx(base.statistic, rel=1e-13)
    assert tiny.standard_error == pytest.approx(base.standard_error, rel=1e-13)


def test_invalid_input_names_the_argument():
    r, pi, pi0 = [1.0, 0.0], [1.0, 0.0], [0.5, 0.5]
    with pytest.raises(ValueError, match="`logging_pscore` must be > 0"):
        ips_estimate(r, pi, [0.5, 0.0])
    with pytest.raises(ValueError, match="`target_pscore` must lie in \\[0, 1\\]"):
        snips_estimate(r, [1.5, 0.0], pi0)
    with pytest.raises(ValueError, match="`reward` must be finite"):
        ips_estimate([np.nan, 0.0], pi, pi0)
    with pytest.raises(ValueError, match="same length"):
        dr_estimate(r, pi, pi0, [0.1], [0.1, 0.2])
    with pytest.raises(ValueError, match="`reward_hat` must be numeric"):
        dr_estimate(r, pi, pi0, ["a", "b"], [0.1, 0.2])
    with pytest.raises(ValueError, match="`clip` must"):
        ips_estimate(r, pi, pi0, clip=0)
    with pytest.raises(ValueError, match="`reward` (could not be converted|must be 1-D|is ragged)"):
        ips_estimate([[1.0, 0.0], [1.0]], pi, pi0)
    with pytest.raises(ValueError, match="different indexes"):
        ips_estimate(pd.Series(r, index=[0, 1]), pd.Series(pi, index=[1, 0]), pi0)


def test_undefined_estimates_are_nan_with_a_warning():
    with pytest.warns(OfflineEvalWarning, match="every importance weight is 0"):
        res = snips_estimate([1.0, 0.0], [0.0, 0.0], [0.5, 0.5])
    assert math.isnan(res.statistic) and math.isnan(res.standard_error)
    with pytest.warns(OfflineEvalWarning, match="one logged row gives no standard error") as rec:
        res = ips_estimate([1.0], [1.0], [0.5])
    assert res.statistic == 2.0 and math.isnan(res.standard_error)
    assert rec[0].filename == __file__  # attributed to the caller's line
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ips_estimate([1.0, 0.0], [1.0, 0.0], [0.5, 0.5])


def test_results_follow_the_protocol():
    res = dr_estimate([1, 0, 1], [1, 0, 1], [0.5, 0.5, 0.5], [0.4, 0.4, 0.4], [0.4, 0.4, 0.4])
    assert isinstance(res.statistic, float) and isinstance(res.standard_error, float)
    low, high = res.confidence_interval(0.9)
    assert low < res.statistic < high
    assert len(repr(res)) < 200 and "dr" in repr(res)


# -- the peer: Open Bandit Pipeline's own estimates on fixed logs (tools/peers_obp.py, make peers-obp) --------
PEER = __import__("pathlib").Path(__file__).resolve().parents[2] / "data" / "peers" / "open_bandit_pipeline"


def test_agrees_with_open_bandit_pipeline_to_1e12():
    import json

    logs = pd.read_csv(PEER / "logs.csv", dtype={"case": int, "row": int})
    estimates = pd.read_csv(PEER / "estimates.csv")
    assert json.loads((PEER / "run.json").read_text())["obp"] == "0.5.7"
    assert len(estimates) == 4 * logs["case"].nunique() >= 40
    for (case, name), obp_value in estimates.set_index(["case", "estimator"])["value"].items():
        d = logs[logs["case"] == case]
        args = (d["reward"].to_numpy(), d["target_pscore"].to_numpy(), d["logging_pscore"].to_numpy())
        ours = {"ips": lambda: ips_estimate(*args),
                "ips_clipped": lambda: ips_estimate(*args, clip=3.0),
                "snips": lambda: snips_estimate(*args),
                "dr": lambda: dr_estimate(*args, d["reward_hat"].to_numpy(), d["target_reward_hat"].to_numpy()),
                }[name]()
        assert ours.statistic == pytest.approx(obp_value, rel=1e-12, abs=1e-15), (case, name)


# -- issue 50: scale-safe sums and standard errors, one rule for n = 1 --------------------------------------
def test_ips_standard_error_of_huge_opposite_rewards_is_finite_and_exact():
    # terms 1e200, -1e200, 0: mean 0, sample sd 1e200 (sum of squares 2e400 / 2), se 1e200 / sqrt(3)
    est = ips_estimate([1e200, -1e200, 0], [1, 1, 1], [1, 1, 1])
    assert est.statistic == 0.0
    assert est.standard_error == pytest.approx(1e200 / math.sqrt(3), rel=1e-15)


@pytest.mark.parametrize("scale", [1.0, 2.0**-600, 2.0**-1000, 1e-300, 2.0**-1070])
def test_snips_invariant_to_the_weights_scale_even_for_tiny_propensities(scale):
    r, pi, pi0 = [2.0, 0.0, 1.0, 5.0], [1.0, 1.0, 1.0, 0.5], [0.5, 0.25, 1.0, 0.5]
    ref = snips_estimate(r, pi, pi0)
    got = snips_estimate(r, pi, np.array(pi0) * scale) if scale != 1.0 else ref
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-15)
    assert got.standard_error == pytest.approx(ref.standard_error, rel=1e-15)
    # the target's probabilities scaled instead: the same value
    got = snips_estimate(r, np.array(pi) * scale, pi0)
    assert got.statistic == pytest.approx(ref.statistic, rel=1e-15)


def test_snips_with_a_subnormal_propensity_is_not_nan():
    est = snips_estimate([1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [5e-324, 1e-300, 1.0])
    assert est.statistic == pytest.approx(1.0, rel=1e-15) and math.isfinite(est.standard_error)


def test_dr_of_huge_rewards_and_predictions_does_not_overflow():
    est = dr_estimate([1e307, -1e307, 0.0], [1, 1, 1], [1, 1, 1], [-1e307, 1e307, 0.0], [1e307, 0.0, 0.0])
    # terms 1e307 + 2e307, -2e307, 0: mean 1e307 / 3
    assert est.statistic == pytest.approx(1e307 / 3, rel=1e-14) and math.isfinite(est.standard_error)


@pytest.mark.parametrize("estimate", [
    lambda: ips_estimate([1.0], [1.0], [0.5]),
    lambda: snips_estimate([1.0], [1.0], [0.5]),
    lambda: dr_estimate([1.0], [1.0], [0.5], [0.2], [0.3]),
])
def test_one_row_gives_a_nan_standard_error_with_a_warning_in_all_three(estimate):
    with pytest.warns(OfflineEvalWarning, match="standard error"):
        est = estimate()
    assert math.isfinite(est.statistic) and math.isnan(est.standard_error)
