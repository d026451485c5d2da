"""Tests of the arena study: the worlds' mechanisms, the counterfactual estimates, the paired leaderboard, the claims."""

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

from offline_eval.ranking import spearman_rho
from offline_eval.synth import rtb
from offline_eval.synth import search_world as sw
from offline_eval.synth import sponsored as sp
from offline_eval_compendium.studies.arena import _worlds as W
from offline_eval_compendium.studies.arena import offline_online as A

TINY_RTB = dict(n_candidates=3, n_networks=2, n_log=800, n_contexts=500)
TINY_SP = dict(n_candidates=3, n_queries=30, n_log=1500, n_ab=1500)
TINY_CL = dict(n_candidates=3, n_live=3000, n_offline=300)


# -- the RTB world -------------------------------------------------------------------------------
@pytest.mark.parametrize("law", ["gamma", "lognormal"])
def test_profit_moments_match_a_monte_carlo_of_the_competing_bid(law):
    """The closed-form partial moments against draws of the competing bid from the same law."""
    rng = np.random.default_rng(0)
    p, v, b, mu, sd = 0.3, 2.0, 1.2, 0.0, 0.5
    s = np.zeros(400_000)
    c = W._competing_bids(rng, np.full_like(s, np.exp(mu)), np.full_like(s, sd), s, law, price_corr=0.0)
    a = rng.random(len(s)) < p
    profit = np.where(c < b, a * v - c, 0.0)
    win, mean, second = W._profit_moments(p, v, b, mu, sd, law)
    assert win == pytest.approx((c < b).mean(), abs=3e-3)
    assert mean == pytest.approx(profit.mean(), abs=4e-3)
    assert second == pytest.approx((profit**2).mean(), rel=2e-2)


def test_gamma_competing_bids_have_the_lognormal_conditional_mean_and_variance():
    rng = np.random.default_rng(1)
    s = np.zeros(300_000)
    g = W._competing_bids(rng, np.full_like(s, 2.0), np.full_like(s, 0.6), s, "gamma", price_corr=0.3)
    ln = W._competing_bids(rng, np.full_like(s, 2.0), np.full_like(s, 0.6), s, "lognormal", price_corr=0.3)
    assert g.mean() == pytest.approx(ln.mean(), rel=1e-2) and g.var() == pytest.approx(ln.var(), rel=5e-2)
    assert stats.skew(g) < stats.skew(ln)  # the same two moments, a lighter right tail


def test_the_two_competing_bid_laws_are_common_random_numbers():
    """One normal draw per request under both laws: the bids are in the same order, and the stream's next draws
    (the clicks, the prediction noise) are the same whichever law was asked for."""
    s = np.zeros(5000)  # one context: the law's quantile alone orders the bids
    price, sigma = np.full_like(s, 1.5), np.full_like(s, 0.7)
    r_g, r_l = np.random.default_rng(9), np.random.default_rng(9)
    g = W._competing_bids(r_g, price, sigma, s, "gamma", price_corr=0.3)
    ln = W._competing_bids(r_l, price, sigma, s, "lognormal", price_corr=0.3)
    z = (np.log(ln) - (np.log(price) + 0.7 * 0.3 * s)) / (0.7 * np.sqrt(1 - 0.3**2))
    assert stats.spearmanr(g, z)[0] == pytest.approx(1.0)  # the Gamma is monotone in the normal draw
    np.testing.assert_array_equal(r_g.random(10), r_l.random(10))
    assert np.isfinite(g).all() and (g > 0).all()  # both tails of the Gamma's quantile


def test_candidate_spread_is_the_jackknife_over_candidates_and_says_why_a_contrast_is_not_powered():
    """The error contrasts' part of the spread that is the candidates: the mean over seeds of the jackknife variance
    of a mean, var(d) / n; why_not_powered names the seeds where the spread between them alone is too wide."""
    rng = np.random.default_rng(0)
    rows = []
    for s in range(3):
        for v in ("base", "off"):
            rows.append(pd.DataFrame({"world": "classifier", "variant": v, "seed": s, "candidate": range(6),
                                      "err_raw": rng.random(6), "err_joint": rng.random(6)}))
    runs = pd.concat(rows, ignore_index=True)
    got = A._C.candidate_spread(runs, [("m", "classifier", "base", "off", "joint", "raw", "error", False)])
    want = np.mean([np.var((g["err_raw"] - g["err_joint"]).to_numpy(), ddof=1) / 6
                    for _, g in runs[runs["variant"] == "base"].groupby("seed")])
    assert got["m", "gap"] == pytest.approx(want) and ("m", "change") not in got
    assert A._C.why_not_powered(0.3, 0.0, 20, 16, 0.05, 21, 700).startswith("between seeds: 100%")
    why = A._C.why_not_powered(0.3, 0.3**2, 20, 16, 0.05, 21, 700)
    assert why.startswith("the candidates drawn: 100%") and "about 549 candidates per seed" in why


def test_production_against_itself_has_zero_expected_delta_and_independent_noise_per_test():
    nets = rtb.simulate_rtb(n_networks=2, n_log=2, n_ab=2, rng=3).networks.assign(noise_a=0.0)
    same = dict(bias=np.tile(nets["bias_a"].to_numpy(), (3, 1)), value_bias=np.tile(nets["value_bias_a"].to_numpy(), (3, 1)),
                noise=np.zeros((3, 2)))
    observed, expected = W._rtb_ab(np.random.default_rng(0), nets, same, n_contexts=2000, value_sigma=0.6,
                                   law="gamma", ab_impressions=30e6)
    np.testing.assert_allclose(expected, 0.0, atol=1e-6)
    assert len(set(np.round(observed, 3))) == 3  # every candidate's test draws its own noise


@pytest.mark.parametrize("seed", range(4))
def test_average_ranks_are_scipys_rankdata_with_ties_and_on_every_axis_length(seed):
    rng = np.random.default_rng(seed)
    for shape in [(1,), (7,), (3, 50), (4, 6, 16), (2, 3000)]:
        x = rng.normal(size=shape)
        x[..., ::3] = np.round(x[..., ::3], 1)  # runs of ties
        z = np.where(rng.random(shape) < 0.9, 0.0, rng.lognormal(size=shape))  # one long run of zeros
        for a in (x, z, -z, np.zeros(shape), rng.normal(size=shape)):  # the last without ties: the fast path
            np.testing.assert_array_equal(W.average_ranks(a), stats.rankdata(a, axis=-1))


def test_rtb_offline_taking_the_click_metrics_of_a_frame_on_the_same_clicks_is_the_full_computation():
    rng = np.random.default_rng(6)
    y = (rng.random(2000) < 0.05).astype(np.int8)
    v, c = rng.lognormal(size=2000), rng.lognormal(size=2000) * 0.01
    preds = rng.uniform(0.001, 0.2, (4, 2000))
    other_v = np.where(rng.random(2000) < 0.01, v * 100, v)
    full = W._rtb_offline(y, other_v, c, preds)
    pd.testing.assert_frame_equal(W._rtb_offline(y, other_v, c, preds, same_clicks=W._rtb_offline(y, v, c, preds)), full,
                                  check_exact=True)


def test_rho_rows_is_the_library_spearman_rho_row_by_row():
    rng = np.random.default_rng(4)
    y = np.where(rng.random(300) < 0.1, rng.lognormal(size=300), 0.0)  # many ties, as a realised value
    x = rng.normal(size=(4, 300))
    np.testing.assert_allclose(W.rho_rows(x, y), [spearman_rho(y, xi) for xi in x], rtol=1e-10)


@pytest.mark.parametrize("n", [700, W.bd.EU_BLOCK + 300])
def test_eu_rows_and_sums_have_the_bits_of_the_library_expected_utility_and_patched_rows_those_of_a_full_run(n):
    """Per-row EUs of all models at once, summed as the library sums them, equal bd.expected_utility exactly; the
    values of logs changed in a few rows (a spurious click, a corrupted value) equal those computed from scratch."""
    rng = np.random.default_rng(5)
    y = (rng.random(n) < 0.05).astype(np.int8)
    v, c = rng.lognormal(size=n), rng.lognormal(-1.0, size=n)
    preds = rng.uniform(0.0, 0.2, (3, n))
    eu = W._eu_rows(y, v, c, preds)
    for beta in W.BETAS:
        assert [W.bd.sum_expected_utility(r) for r in eu[beta]] == [W.bd.expected_utility(y, v, p, c, beta=beta) for p in preds]
    y2, v2 = y.copy(), v.copy()
    y2[rng.random(n) < 0.01], v2[:5] = 1, v[:5] * 100.0
    patched, fresh = W._eu_rows(y2, v2, c, preds, like=(eu, y, v)), W._eu_rows(y2, v2, c, preds)
    for beta in W.BETAS:
        np.testing.assert_array_equal(patched[beta], fresh[beta])


def test_rtb_arena_is_a_function_of_its_seed_and_its_log_versions_share_the_online_outcome():
    a = W.rtb_arena(7, **TINY_RTB)
    pd.testing.assert_frame_equal(a, W.rtb_arena(7, **TINY_RTB))
    assert set(a["log"]) == set(W.LOG_VERSIONS)
    per = a.groupby("log")["online"].apply(tuple)
    assert per.nunique() == 1  # the logs change, the A/B tests do not
    won, bad = a[a["log"] == "won"].reset_index(), a[a["log"] == "outliers"].reset_index()
    np.testing.assert_allclose(won["off_auc"], bad["off_auc"])  # the outliers touch values, not clicks
    assert not np.allclose(won["off_wmse"], bad["off_wmse"])
    assert a.loc[a["log"] == "all", "off_eu_10"].isna().all()  # EU only on won-only logs


# -- the sponsored world and the counterfactual estimates ------------------------------------------
def _toy_world():
    return sw.SponsoredWorld(np.array([0.5, 0.5]), np.array([[2.0, 1.0, 1.5], [1.0, 3.0, 0.5]]),
                             np.array([[0.1, 0.3, 0.2], [0.25, 0.05, 0.15]]), np.array([1.0, 0.6, 0.3]),
                             n_mainline=1, participation=0.8)


def test_exploration_propensities_are_the_random_rankings_slot_frequencies():
    world = _toy_world()
    pv = sw.sample_page_views(world, 40_000, 0)
    ad, click, pscore = W.explore(world, pv, np.random.default_rng(1))
    k = (pv.bids > 0).sum(axis=1)
    for n_entrants in (2, 3):
        rows = k == n_entrants
        for slot in range(n_entrants):
            for a in range(3):
                # slow reference: the share of page views with ``a`` in ``slot``, among those where ``a`` takes part
                took = rows & (pv.bids[:, a] > 0)
                assert (ad[took, slot] == a).mean() == pytest.approx(1 / n_entrants, abs=0.02)
        assert np.all(pscore[rows, :n_entrants] == 1 / n_entrants)
    assert np.all(ad[np.arange(3)[None, :] >= k[:, None]] == -1)


def test_ips_and_dr_recover_a_models_expected_click_yield_from_exploration():
    """Unbiasedness in the world's own terms: the estimates against the model's expected CY served directly."""
    world = _toy_world()
    rng = np.random.default_rng(2)
    p = world.ctr[:, ::-1].copy()  # some model, not the truth
    op = W.au.OperatingPoint()
    pv = sw.sample_page_views(world, 60_000, rng)
    logged = W.explore(world, pv, rng)
    est = W.counterfactual_cy(world, W.ranking(world, p, pv, op), pv, logged, world.ctr * 0.5)
    truth = sw.serve(world, p, sw.sample_page_views(world, 200_000, rng), op=op, expected=True)
    cy = truth.click.sum() / 200_000
    for name in ("ips", "snips", "dr"):
        assert est[name] == pytest.approx(cy, rel=0.03), name


@pytest.mark.parametrize("n, seed", [(2, 5), (3, 5), (40, 0), (3000, 0)])  # (2, 5), (3, 5): a slot without a match
def test_snips_on_the_rows_the_target_takes_is_the_per_slot_snips_on_every_row(n, seed):
    """The weight-0 rows left out of each slot's SNIPS: the same bits as the library's estimate on every row (a slot
    without a match, undefined there, counts 0 in both)."""
    import warnings

    from offline_eval.counterfactual import snips_estimate

    world = _toy_world()
    rng = np.random.default_rng(seed)
    pv = sw.sample_page_views(world, n, rng)
    ad, click, pscore = logged = W.explore(world, pv, rng)
    target = W.ranking(world, world.ctr[:, ::-1].copy(), pv, W.au.OperatingPoint())
    t = (target == ad).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = sum(np.nan_to_num(snips_estimate(click[:, s], t[:, s], pscore[:, s]).statistic) for s in range(3))
    assert W.counterfactual_cy(world, target, pv, logged, world.ctr)["snips"] == slow


@pytest.mark.parametrize("n, seed", [(2, 5), (3, 1), (40, 0), (3000, 0), (3000, 7)])
def test_counterfactual_cy_has_the_bits_of_the_librarys_ips_snips_and_dr(n, seed):
    """The statistics computed in place have the bits of the library's estimators on every (page view, slot) row."""
    import warnings

    from offline_eval.counterfactual import dr_estimate, ips_estimate, snips_estimate

    world = _toy_world()
    rng = np.random.default_rng(seed)
    pv = sw.sample_page_views(world, n, rng)
    ad, click, pscore = logged = W.explore(world, pv, rng)
    p = np.clip(world.ctr * np.exp(rng.normal(0, 1, world.ctr.shape)), 0, 1)
    target = W.ranking(world, p, pv, W.au.OperatingPoint())
    reward_model = rng.uniform(0, 0.5, world.ctr.shape)
    q = np.broadcast_to(pv.query[:, None], ad.shape)
    hat = lambda a: np.where(a >= 0, reward_model[q, np.maximum(a, 0)] * world.click_curve[None, :], 0.0)  # noqa: E731
    t = (target == ad).astype(float)
    r, pi0 = click.ravel(), pscore.ravel()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        slow = dict(ips=3 * ips_estimate(r, t.ravel(), pi0).statistic,
                    snips=sum(np.nan_to_num(snips_estimate(click[:, s], t[:, s], pscore[:, s]).statistic)
                              for s in range(3)),
                    dr=3 * dr_estimate(r, t.ravel(), pi0, hat(ad).ravel(), hat(target).ravel()).statistic)
    assert W.counterfactual_cy(world, target, pv, logged, reward_model) == slow


@pytest.mark.parametrize("seed", range(3))
def test_gamma_p_ladder_is_scipys_gammainc_at_three_shapes(seed):
    rng = np.random.default_rng(seed)
    a = rng.uniform(0.05, 30.0, 2000)
    x = a * np.exp(rng.normal(0, 1.5, (3, 2000)))
    x[0, :5] = 0.0
    for got, shift in zip(W.gamma_p_ladder(a, x), (0.0, 1.0, 2.0)):
        want = special.gammainc(a + shift, x)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)
        assert np.all(got[0, :5] == 0.0)


def test_sponsored_arena_is_a_function_of_its_seed_and_has_every_estimate():
    a = W.sponsored_arena(1, **TINY_SP)
    pd.testing.assert_frame_equal(a, W.sponsored_arena(1, **TINY_SP))
    assert {"off_sim_cy", "off_ml_auc", "off_ips@0.05", "off_dr@0.25", "online", "online_expected"} <= set(a.columns)


# -- piovano's classifiers -------------------------------------------------------------------------
def test_on_a_representative_sample_every_estimate_is_close_and_on_a_distorted_one_jointdis_is_closest():
    rep = W.classifier_arena(0, representative=True, **TINY_CL)
    dis = W.classifier_arena(0, **TINY_CL)
    assert rep[["err_raw", "err_ind", "err_joint"]].max().max() < 0.1
    assert (dis["err_joint"] < dis["err_raw"]).all()


# -- statistics ----------------------------------------------------------------------------------
def test_confirmation_seeds_are_stable_far_from_development_and_derived_from_the_name():
    c = A.confirmation_seeds(20)
    assert c == A.confirmation_seeds(20) and len(c) == 20 and 10**6 <= c[0] and c[-1] < 10**9
    assert not set(c) & set(A.DEVELOPMENT_SEEDS) and A.confirmation_seeds(20, name="other")[0] != c[0]


def test_holm_matches_a_slow_step_down():
    p = np.array([0.01, 0.04, 0.03, 0.005, 0.5])
    adj, div = A.holm(p)
    order = np.argsort(p)
    slow, run = np.empty(5), 0.0
    for r, i in enumerate(order):  # Holm (1979): (m - r) p_(r), kept monotone
        run = max(run, min(1.0, (5 - r) * p[i]))
        slow[i] = run
    np.testing.assert_allclose(adj, slow)
    assert sorted(div) == [1, 2, 3, 4, 5]


def _fake_runs(n_seeds=8, n_cand=10, noise=(0.05, 3.0), seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for s in range(n_seeds):
        y = rng.normal(size=n_cand)
        rows.append(pd.DataFrame({"world": "classifier", "variant": "base", "seed": s, "candidate": range(n_cand),
                                  "online": y, "off_raw": y + noise[0] * rng.normal(size=n_cand),
                                  "off_ind": y + noise[1] * rng.normal(size=n_cand),
                                  "off_joint": y + noise[1] * rng.normal(size=n_cand)}))
    return pd.concat(rows, ignore_index=True)


def test_paired_orders_a_clearly_better_estimate_and_ties_two_equal_ones():
    pr = A.paired(_fake_runs(), "classifier", "base", n_boot=400, target="online").set_index(["a", "b"])
    assert pr.loc[("raw", "ind"), "verdict"] == "raw > ind" and pr.loc[("raw", "joint"), "verdict"] == "raw > joint"
    assert pr.loc[("ind", "joint"), "verdict"] in ("tie", "inconclusive")  # a tie only by equivalence
    assert (pr["ci_low"] <= pr["diff"]).all() and (pr["diff"] <= pr["ci_high"]).all()
    # an order is printed only where the corrected interval excludes 0
    sig = ~pr["verdict"].isin(["tie", "inconclusive"])
    assert ((pr.loc[sig, "ci_low"] > 0) | (pr.loc[sig, "ci_high"] < 0)).all()


def test_paired_difference_is_the_mean_of_per_seed_spearman_differences():
    runs = _fake_runs(n_seeds=3)
    pr = A.paired(runs, "classifier", "base", n_boot=50, target="online").set_index(["a", "b"])
    slow = np.mean([stats.spearmanr(g["off_raw"], g["online"])[0] - stats.spearmanr(g["off_ind"], g["online"])[0]
                    for _, g in runs.groupby("seed")])
    assert pr.loc[("raw", "ind"), "diff"] == pytest.approx(slow)


def test_claim_effects_are_per_seed_gaps_to_the_best_rival_indexed_by_seed():
    sc = pd.DataFrame({"world": "sponsored", "variant": "base", "seed": [5, 5, 5, 9, 9, 9],
                       "metric": ["sim_cy", "ml_auc", "log_loss"] * 2, "spearman": [0.9, 0.5, 0.4, 0.5, 0.5, 0.1]})
    gap = A._gap(sc, "sponsored", "base", "sim_cy", ("ml_auc", "log_loss"))
    assert gap.index.tolist() == [5, 9] and gap.tolist() == pytest.approx([0.4, 0.0])
    # JointDis's margin: the smaller of (raw / 2 - joint) and (ind - joint), positive only when below both
    err = pd.DataFrame({"world": "classifier", "variant": "base", "seed": [1, 1, 1, 2, 2, 2],
                        "metric": ["raw~error", "ind~error", "joint~error"] * 2,
                        "error": [0.4, 0.3, 0.1, 0.1, 0.3, 0.08]})
    assert A._oam_margin(err, "base").tolist() == pytest.approx([0.1, -0.03])


def test_claims_are_judged_by_their_effects_interval_beside_the_control():
    from offline_eval_compendium.claims import Ledger

    rng = np.random.default_rng(0)
    rows = []
    for variant, lead in ((A.BASE, 0.3), (A.NO_POSITION, 0.0)):
        for s in range(20):
            d = lead + rng.normal(0, 0.02)
            rows += [dict(world="sponsored", variant=variant, seed=s, metric=m, spearman=v)
                     for m, v in (("sim_cy", 0.5 + d), ("ml_auc", 0.5), ("log_loss", 0.4))]
    sc = pd.DataFrame(rows)
    world, control = (A._gap(sc, "sponsored", v, "sim_cy", ("ml_auc", "log_loss")) for v in (A.BASE, A.NO_POSITION))
    ledger = Ledger("arena", "t", claims=A.CLAIMS)
    ledger.estimate("arena-yi-simulated-beats-auc-rig", world=world, control=control)
    assert ledger.frame()["status"].tolist() == ["holds"]
    # the mean lead of the papers' way with an interval holding 0 is inconclusive, not a contradiction
    noisy = pd.Series(0.05 + 0.3 * np.tile([1.0, -1.0], 10), index=world.index)
    ledger2 = Ledger("arena", "t", claims=A.CLAIMS)
    ledger2.estimate("arena-yi-simulated-beats-auc-rig", world=noisy, control=control)
    assert ledger2.frame()["status"].tolist() == ["inconclusive"]
    for c in A.CLAIMS:
        assert c.effect is not None and c.effect.direction == ">"


def test_every_claim_quotes_its_paper_names_a_control_and_keeps_its_earlier_form():
    for c in A.CLAIMS:
        assert c.quote and c.control and c.world.startswith("synthetic:") and c.revised


def test_a_tiny_run_fills_every_declared_claim_and_keeps_the_ledger_rules():
    from offline_eval_compendium import claims
    from offline_eval_compendium.claims import Ledger

    blocks = A.SEEDS.sized(2)
    run = A.run_experiment(blocks, n_boot=20, rtb_kw=TINY_RTB, sponsored_kw=TINY_SP, classifier_kw=TINY_CL)
    assert list(run.development["seed"].unique()) == list(blocks.seeds("development"))
    assert set(A.claim_effects(run.scores("confirmation"))) == {c.id for c in A.CLAIMS}
    assert set(run.board["world"]) == {"RTB", "sponsored", "classifier"}
    table = run.contrasts
    assert len(table) == 2 * len(A.CONTRASTS) + len(A.CHANGE)  # Holm over every contrast the table reports
    when = run.which_when
    assert when.shape[0] == len(A.WHEN) and {"contrast (acts)", "on - off", "answer"} <= set(when.columns)
    assert not when.astype(str).apply(lambda c: c.str.contains("= best")).any().any()
    assert set(A.regret(run.confirmation)["regret"].round(12) >= 0) == {True}
    # the block the study first declared stays on record, then the estimate rule's; the redesign's is fresh
    assert blocks.superseded[0][0] == A.confirmation_seeds(20).start != blocks.seeds("confirmation")[0]
    assert [s[2] for s in blocks.superseded[1:]] == [A.REDESIGN, A.POWER, A.NEGLIGIBLE]
    # every contrast above its margin says why, from the development block's candidates and seeds
    assert (table.loc[~table['powered'], 'why'].str.len() > 0).all() and (table.loc[table['powered'], 'why'] == '').all()
    assert (table['sd_candidates_dev'] >= 0).all()
    ledger = Ledger("arena", "arena_offline_online", claims=A.CLAIMS, seeds=blocks)
    with pytest.raises(ValueError, match="`block`"):
        run.scores("other")
    for block in ("development", "confirmation"):
        A.add_claims(ledger, run, block=block)
    assert ledger.unfilled() == [] and claims.problems(ledger.frame()) == []
    assert (ledger.frame()["confirmation"] == blocks.text("confirmation")).all()


def test_a_tie_comes_only_from_equivalence_and_holm_runs_over_the_whole_table():
    t = pd.DataFrame(dict(mean=[0.001, 0.001, 0.3, 0.3, -0.02], se=[0.005, 0.2, 0.01, 0.01, 0.002], df=[19] * 5))
    out = A.holm_table(t, margin=0.05)
    # the last is told from 0 and placed inside the margin: a difference smaller than the margin is a tie
    assert out["p_holm"].iloc[4] < 0.05 and out["p_eq_holm"].iloc[4] < 0.05
    assert out["verdict"].tolist() == ["tie (within +-0.05)", "inconclusive", "estimate better", "estimate better",
                                       "tie (within +-0.05)"]
    alone = A.holm_table(t.iloc[[1]], margin=0.05)
    assert out["p_holm"].iloc[1] >= alone["p_holm"].iloc[0]  # adjusted over every row, not one family
    # the interval at each row's Holm level: the t quantile at alpha / divisor
    assert out["ci_high"].iloc[0] - out["mean"].iloc[0] == pytest.approx(stats.t.isf(0.05 / 2 / 2, 19) * 0.005)


def test_smallest_detectable_difference_and_the_seeds_it_takes_agree():
    sd, m = 0.2, 21
    n = A.seeds_needed(sd, 0.05, m)
    assert A.smallest_detectable(sd, n, m) <= 0.05 < A.smallest_detectable(sd, n - 1, m)
    # a normal-approximation check: (z_{1 - 0.05 / 42} + z_0.8) * 0.2 / sqrt(n) near 0.05
    assert n == pytest.approx(((stats.norm.isf(0.05 / 42) + stats.norm.ppf(0.8)) * sd / 0.05) ** 2, rel=0.05)


def test_selection_regret_is_zero_for_an_estimate_that_orders_the_candidates_as_the_target():
    runs = pd.DataFrame(dict(world="classifier", variant="base", seed=0, candidate=range(4),
                             online_expected=[0.1, 0.4, 0.2, 0.3], online=[0.1, 0.2, 0.4, 0.3],
                             off_raw=[0.0, 0.9, 0.1, 0.2], off_ind=[0.9, 0.0, 0.1, 0.2], off_joint=[1, 4, 2, 3])).astype(
        {"online_expected": float})
    reg = A.regret(runs).set_index("metric")["regret"]
    assert reg["joint"] == 0 and reg["raw"] == 0 and reg["ind"] == pytest.approx(0.3) and reg["ab"] == pytest.approx(0.2)


def test_where_theorem_2s_premise_is_violated_jointdis_does_not_help_and_where_it_holds_it_does():
    kw = dict(n_candidates=4, n_live=6000, n_offline=600)
    met = W.classifier_arena(3, **kw)
    broken = W.classifier_arena(3, premise=False, **kw)
    assert met["err_joint"].mean() < 0.5 * met["err_raw"].mean()
    assert broken["err_joint"].mean() > 0.5 * broken["err_raw"].mean()  # the truth's tilt is left as it was


def test_graded_strengths_fill_every_stratum_once():
    g = W._graded(np.random.default_rng(0), 8, 0.2, 0.9)
    np.testing.assert_array_equal(np.sort(np.floor((g - 0.2) / 0.7 * 8)), np.arange(8))
