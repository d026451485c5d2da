"""Tests of the arena study: the two worlds' candidates, piovano's weights, the scores and the claims' criteria."""

import numpy as np
import pandas as pd
import pytest

from offline_eval_compendium.studies import _arena_worlds as W
from offline_eval_compendium.studies import arena_offline_online as A
from offline_eval.synth import rtb

TINY_RTB = dict(n_candidates=3, n_networks=2, n_log=800, n_contexts=500)
TINY_SP = dict(n_candidates=3, n_queries=30, n_log=1500, n_ab=1500)


# -- piovano's weights -------------------------------------------------------------------------
def test_oam_weights_are_one_on_a_representative_sample():
    rng = np.random.default_rng(0)
    x0, x1 = rng.random(500), rng.random(500)
    np.testing.assert_allclose(W.oam_weights(x0, x1, x0, x1), 1.0)


def test_oam_weights_give_every_covered_cell_its_live_share():
    rng = np.random.default_rng(1)
    live0, live1 = rng.random(4000), rng.random(4000)
    keep = rng.random(4000) < np.where(live0 > 0.5, 0.9, 0.1)  # a sample biased towards high production scores
    off0, off1 = live0[keep], live1[keep]
    w = W.oam_weights(off0, off1, live0, live1, n_bins=3)
    # slow reference: the cells by explicit loops over the live terciles
    q0, q1 = np.quantile(live0, [1 / 3, 2 / 3]), np.quantile(live1, [1 / 3, 2 / 3])
    cell = lambda a, b: [int((a[i] > q0).sum()) * 3 + int((b[i] > q1).sum()) for i in range(len(a))]  # noqa: E731
    c_off, c_live = np.array(cell(off0, off1)), np.array(cell(live0, live1))
    for k in range(9):
        if (c_off == k).any():
            assert w[c_off == k].sum() / len(off0) == pytest.approx((c_live == k).mean())


# -- the RTB world -------------------------------------------------------------------------------
def test_rtb_candidate_with_the_production_knobs_and_no_noise_predicts_as_production():
    world = rtb.simulate_rtb(n_networks=3, n_log=500, n_ab=2, noise=(0.0, 0.0), exploration=True, rng=2)
    nets = world.networks
    cand = dict(bias=nets["bias_a"].to_numpy(), value_bias=nets["value_bias_a"].to_numpy(), noise=np.zeros(3))
    p = W._rtb_predict(world.logs, nets, cand, world.params["value_sigma"], np.random.default_rng(0))
    np.testing.assert_allclose(p, world.logs["p_a"], rtol=1e-9)


def test_rtb_online_delta_of_the_production_model_against_itself_is_zero_in_expectation():
    world = rtb.simulate_rtb(n_networks=2, n_log=200, n_ab=2, noise=(0.0, 0.0), rng=3)
    nets = world.networks
    cand = dict(bias=nets["bias_a"].to_numpy(), value_bias=nets["value_bias_a"].to_numpy(), noise=np.zeros(2))
    kw = dict(ctr_sigma=0.8, value_sigma=0.6, price_corr=0.3)
    observed, expected = W._rtb_online(nets, cand, n_contexts=2000, ab_impressions=30e6,
                                       z=np.zeros((2, 2)), kw=kw, rng_seed=5)
    assert expected == pytest.approx(0.0, abs=1e-9) and observed == pytest.approx(0.0, abs=1e-9)


def test_rtb_arena_is_a_function_of_its_seed_and_logs_all_with_exploration():
    a, b = W.rtb_arena(7, **TINY_RTB), W.rtb_arena(7, **TINY_RTB)
    pd.testing.assert_frame_equal(a, b)
    assert not a.equals(W.rtb_arena(8, **TINY_RTB))
    assert {"online", "online_expected", "live_log_loss", "off_eu_10"} <= set(a.columns)
    # on the exploration logs the offline sample is the live traffic: raw and live log-loss deltas coincide
    e = W.rtb_arena(7, exploration=True, **TINY_RTB)
    np.testing.assert_allclose(e["off_log_loss"], e["live_log_loss"], rtol=1e-9, atol=1e-15)


def test_sponsored_arena_is_a_function_of_its_seed():
    a = W.sponsored_arena(1, **TINY_SP)
    pd.testing.assert_frame_equal(a, W.sponsored_arena(1, **TINY_SP))
    assert {"off_sim_cy", "off_ml_auc", "online", "online_expected"} <= set(a.columns)


# -- scores and claims -----------------------------------------------------------------------------
def _runs(online, offline_auc, world="sponsored", variant="base"):
    n = len(online)
    return pd.DataFrame({"candidate": range(n), "off_auc": offline_auc, "online": online, "online_expected": online,
                         "world": world, "variant": variant, "seed": 0})


def test_a_perfect_metric_scores_one_and_picks_the_winner_and_a_reversed_one_minus_one():
    online = np.array([0.3, -0.1, 0.2, 0.05])
    sc = A.scores(_runs(online, online * 2))
    row = sc[(sc["variant"] == "base")].iloc[0]
    assert row["spearman"] == pytest.approx(1.0) and row["pair_agreement"] == 1.0 and row["picks_winner"]
    row = A.scores(_runs(online, -online)).iloc[0]
    assert row["spearman"] == pytest.approx(-1.0) and row["pair_agreement"] == 0.0 and not row["picks_winner"]


def test_pair_agreement_counts_pairs_like_a_slow_loop():
    rng = np.random.default_rng(4)
    online, off = rng.normal(size=7), rng.normal(size=7)
    slow = np.mean([np.sign(off[i] - off[j]) == np.sign(online[i] - online[j]) for i in range(7) for j in range(i + 1, 7)])
    assert A.scores(_runs(online, off)).iloc[0]["pair_agreement"] == pytest.approx(slow)


def test_claim_criteria_are_strict_per_seed_comparisons():
    sc = pd.DataFrame({"world": "sponsored", "variant": "base", "seed": [0, 0, 0, 1, 1, 1],
                       "metric": ["sim_cy", "auc", "rig"] * 2, "spearman": [0.9, 0.5, 0.4, 0.5, 0.5, 0.1]})
    assert A._per_seed(sc, "sponsored", "base", "sim_cy", ("auc", "rig")).tolist() == [True, False]


def test_every_claim_quotes_its_paper_and_names_a_control():
    for c in A.CLAIMS:
        assert c.quote and c.control and c.world.startswith("synthetic:")
    assert {c.id for c in A.CLAIMS} == {c for c in A.claim_outcomes.__code__.co_consts if isinstance(c, str)
                                         and c.startswith("arena-")}


def test_a_tiny_sweep_fills_every_declared_claim_and_keeps_the_ledger_rules(tmp_path):
    from offline_eval_compendium import claims
    from offline_eval_compendium.claims import Ledger

    runs = A.run_sweep(range(2), rtb_kw=TINY_RTB, sponsored_kw=TINY_SP)
    sc = A.scores(runs)
    board = A.leaderboard(runs, sc, n_boot=20)
    assert set(board["world"]) == {"RTB", "sponsored"}
    assert ((board["ci_low"] <= board["ci_high"]) & board["spearman"].between(-1, 1)).all()
    assert "simulated CY (replay)" in set(board.loc[board["world"] == "sponsored", "metric"])
    assert "simulated CY (replay)" not in set(board.loc[board["world"] == "RTB", "metric"])
    mech = A.mechanisms(sc)
    assert {"base", A.NO_AB_NOISE, *A.RTB_VARIANTS, *A.SPONSORED_VARIANTS} <= set(mech.columns)
    ledger = Ledger("arena", "arena_offline_online", claims=A.CLAIMS)
    A.add_claims(ledger, sc)
    assert ledger.unfilled() == [] and claims.problems(ledger.frame()) == []
