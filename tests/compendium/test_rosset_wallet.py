"""The synthetic IT-wallet survey and the rosset study modules."""

import dataclasses
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from offline_eval import ranking as rk
from offline_eval_compendium import reference
from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.studies.rosset import measures as rm
from offline_eval_compendium.studies.rosset import _printed, _survey as rs, wallet as rw
from offline_eval.synth.wallet import DEFAULTS, gumbel_normal_scores, positive_stable, wallet_survey


def test_survey_is_deterministic_and_well_formed():
    a, b = wallet_survey(rng=3), wallet_survey(rng=np.random.default_rng(3))
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == DEFAULTS["n"] == 500
    assert np.isfinite(a[["wallet", "m1", "m2"]].to_numpy()).all() and (a[["wallet", "m1", "m2"]] > 0).all().all()
    assert not a.equals(wallet_survey(rng=4))


def test_wallets_are_long_tailed():
    w = wallet_survey(20_000, rng=0)["wallet"]
    assert abs(np.median(w) / DEFAULTS["median_wallet"] - 1) < 0.05
    # a few firms hold a large share of the total: heavier than a log-normal of the same scale
    top1 = np.sort(w)[-200:].sum() / w.sum()
    assert top1 > 0.2


@pytest.mark.parametrize("estimates", ["upper_tail", "regression", "noisy_truth"])
def test_population_tau_follows_the_copula(estimates):
    # without the size effect, tau(wallet, m_k) = 2/pi arcsin(corr_k) for any monotone marginals, in the Gaussian
    # worlds; the upper-tail world's Gumbel copula is set to the same tau for M1, and M2 lands on it too
    df = wallet_survey(40_000, rng=1, estimates=estimates)
    for col, corr in (("m1", DEFAULTS["corr_m1"]), ("m2", DEFAULTS["corr_m2"])):
        assert abs(rk.kendall_tau(df["wallet"], df[col]) - 2 / np.pi * np.arcsin(corr)) < 0.01


def _residual_sd_by_estimate(df, col):
    zhat = stats.norm.ppf(stats.rankdata(df[col]) / (len(df) + 1))  # the model's standardised estimate
    corr = np.corrcoef(df["size"], zhat)[0, 1]
    resid = df["size"] - corr * zhat
    deciles = pd.qcut(zhat, 10, labels=False)
    return np.corrcoef(resid, zhat)[0, 1], pd.Series(resid).groupby(deciles).std().to_numpy()


def test_regression_estimates_the_truth_scatters_around_the_estimate():
    # a regression estimate: the residual is uncorrelated with the estimate; with size_skill it shrinks where the
    # estimate is large (the paper's "loss functions ... emphasize on the largest potential absolute errors")
    df = wallet_survey(60_000, rng=7, **rs.SHRINKING_RESIDUAL)
    c, sd = _residual_sd_by_estimate(df, "m1")
    assert abs(c) < 0.02 and sd[-1] < 0.75 * sd[0]
    flat = wallet_survey(60_000, rng=7, **rs.CONTROL)
    c0, sd0 = _residual_sd_by_estimate(flat, "m1")
    assert abs(c0) < 0.02 and abs(sd0[-1] / sd0[0] - 1) < 0.1
    # the earlier world: the estimate scatters around the truth, so the residual *given the estimate* is not flat
    old = wallet_survey(60_000, rng=7, estimates="noisy_truth", size_skill=0.25)
    assert _residual_sd_by_estimate(old, "m1")[1][-1] > 0.9 * _residual_sd_by_estimate(old, "m1")[1][0]


def _fig1_gap(df):
    share = rk.correct_pairs_curve(df["wallet"], df["m1"]).share
    k = len(df) // 10
    return share[:k].mean() - share[-k:].mean()


def _fig2_gap(df):
    res = rk.cutoff_auc(df["wallet"].to_numpy(), df["m1"].to_numpy())
    share = res.n_positive / len(df)
    return res.auc[share <= 0.1].mean() - res.auc[share >= 0.9].mean()


def test_top_predictions_are_ranked_better_only_with_the_size_effect():
    assert _fig1_gap(wallet_survey(6000, rng=11, **rs.SHRINKING_RESIDUAL)) > 0.03
    assert _fig1_gap(wallet_survey(6000, rng=11)) > 0.03
    assert abs(_fig1_gap(wallet_survey(6000, rng=11, **rs.CONTROL))) < 0.02


def test_positive_stable_has_its_laplace_transform():
    gen = np.random.default_rng(0)
    for alpha in (0.3, 0.7, 1.0):
        s = positive_stable(alpha, 200_000, gen)
        for t in (0.5, 1.0, 2.0):
            lt = np.exp(-t * s)
            assert abs(lt.mean() - np.exp(-(t**alpha))) < 4 * lt.std() / np.sqrt(len(s)) + 1e-12
    with pytest.raises(ValueError, match="`alpha` must lie in"):
        positive_stable(1.5, 3, gen)


def test_gumbel_scores_have_the_copulas_tau_and_upper_tail_only():
    theta = 1.5
    z, h = gumbel_normal_scores(100_000, theta, np.random.default_rng(1))
    assert stats.kendalltau(z[:20_000], h[:20_000])[0] == pytest.approx(1 - 1 / theta, abs=0.01)
    assert abs(z.mean()) < 0.02 and abs(z.std() - 1) < 0.02  # standard normal margins
    q = stats.norm.isf(0.01)
    upper = np.mean(h[z > q] > q)  # P(V > q | U > q) -> 2 - 2^(1/theta) = 0.413 as q -> 1
    lower = np.mean(h[z < -q] < -q)  # -> 0 in the lower tail
    assert 0.3 < upper < 0.5 and lower < 0.15 and upper > 3 * lower
    with pytest.raises(ValueError, match="`theta` must be >= 1"):
        gumbel_normal_scores(3, 0.5, np.random.default_rng(1))


def test_upper_tail_estimates_rank_as_a_regression_estimate():
    # the Gumbel copula is stochastically increasing: the mean size rises with every decile of the estimate, so
    # the estimate orders the firms as E[z | estimate] does; the top decile of the estimate holds far more of the
    # top decile of the sizes than the bottom decile holds of the bottom one (the Gaussian control: as many)
    def hits(df):
        deciles, true = (pd.qcut(df[c], 10, labels=False).to_numpy() for c in ("m1", "size"))
        return np.mean(true[deciles == 9] == 9), np.mean(true[deciles == 0] == 0), deciles

    df = wallet_survey(60_000, rng=4)
    top, bottom, deciles = hits(df)
    assert (np.diff(df.groupby(deciles)["size"].mean().to_numpy()) > 0).all()
    assert top > bottom + 0.1
    top0, bottom0, _ = hits(wallet_survey(60_000, rng=4, **rs.CONTROL))
    assert abs(top0 - bottom0) < 0.03
    with pytest.raises(ValueError, match="apply to the regression and noisy_truth estimates only"):
        wallet_survey(size_skill=0.25)


def test_paper_world_is_the_gaussian_identity_of_the_printed_taus():
    ref = reference.load("rosset")
    w = rs.paper_world(ref)
    for model in ("M1", "M2"):
        tau = rs.num(reference.lookup(ref, "Table 2", "tau", model))
        assert 2 / np.pi * np.arcsin(w[f"corr_{model.lower()}"]) == pytest.approx(tau, rel=1e-12)
    with pytest.raises(ValueError, match="`corr_m2` must lie in"):
        wallet_survey(corr_m1=0.2, corr_m2=0.3)
    with pytest.raises(ValueError, match="`estimates` must be one of"):
        wallet_survey(estimates="oracle")


def test_m1_ranks_better_than_m2_and_the_size_effect_splits_figs_1_and_2():
    # Fig. 2 conditions on the truth, Fig. 1 on the prediction. Dependence concentrated among the large firms
    # (the upper-tail world) ranks both the largest wallets and the largest predictions better; a residual that
    # shrinks with the estimate ranks the largest predictions better but lets true giants hide among the small
    # estimates (Fig. 2 reversed); noise that shrinks with the truth ranks the largest wallets better but puts
    # noisy small firms among the top predictions; the control is symmetric
    df = wallet_survey(20_000, rng=2)
    y = df["wallet"].to_numpy()
    assert rk.kendall_tau(y, df["m1"]) > rk.kendall_tau(y, df["m2"]) + 0.08
    assert _fig2_gap(df) > 0.05 and _fig1_gap(df) > 0.03
    assert _fig2_gap(wallet_survey(20_000, rng=2, **rs.SHRINKING_RESIDUAL)) < -0.1
    noisy = wallet_survey(20_000, rng=2, **rs.NOISY_TRUTH)
    assert _fig2_gap(noisy) > 0.05 and _fig1_gap(noisy) < 0
    control = wallet_survey(20_000, rng=2, **rs.CONTROL)
    assert abs(_fig2_gap(control)) < 0.03 and abs(_fig1_gap(control)) < 0.02


def test_skewed_errors_clean_the_top_predictions():
    df = wallet_survey(5000, rng=5, miss_shape=1.0, corr_m1=0.37, **rs.SHRINKING_RESIDUAL)
    c = rk.correct_pairs_curve(df["wallet"], df["m1"])
    assert c.share[:500].mean() > c.share[2500:].mean()


@pytest.mark.parametrize(
    "kw, match",
    [(dict(n=1), "`n` must be an integer >= 2"), (dict(corr_m1=1.5), "`corr_m1` must lie in"),
     (dict(tail_df=0), "`tail_df` must be positive"), (dict(rng=-1), "`rng` seed must be non-negative")],
)
def test_generator_rejects_invalid_knobs(kw, match):
    with pytest.raises(ValueError, match=match):
        wallet_survey(**kw)


def test_printed_interval_and_dollar_cells():
    assert rs.num("$3,872,481") == 3872481.0
    lo, hi = rs.printed_interval(lambda a, b: 100 * abs(b - a) / a, "0.2845", "0.2896")
    assert lo < 100 * (0.2896 - 0.2845) / 0.2845 < hi
    assert lo <= 1.80 <= hi


def test_consistency_claims_find_the_table1_errata():
    ref = reference.load("rosset")
    ledger = Ledger("rosset", "rosset_wallet", claims=rw.CLAIMS)
    _printed.printed_claims(ledger, ref, _printed.printed_consistency(ref), n=500)
    df = ledger.frame().set_index("claim_id")
    status = df["status"]
    # 1,940,415 / 3,872,481 gives 49.89%, printed 49.8%: truncated while the MAE row rounds, so it differs by
    # its last digit (no erratum: a truncated digit contradicts none of the inputs)
    assert status["rosset-t1-change-rmse"] == "differs" and "truncated" in df.loc["rosset-t1-change-rmse", "note"]
    assert status["rosset-t1-change-mae"] == "exact"
    assert (status[["rosset-t1-change-tau", "rosset-t1-change-rho"]] == "within-tolerance").all()
    assert status["rosset-t1-model"] == "erratum" and (status == "erratum").sum() == 1
    # p-values: one-sided Gaussian within the rounding of the printed inputs, except RMSE's 0.14778 (0.148 from
    # its inputs, one- and two-sided alike beyond rounding)
    assert status["rosset-t2-pvalue-rmse"] == "differs"
    assert (status[[f"rosset-t2-pvalue-{m}" for m in ("mae", "tau", "rho")]] == "holds").all()
    kinds = df["kind"]
    assert (kinds.filter(like="rosset-t2-pvalue") == "formula").all() and kinds["rosset-t1-model"] == "printed"
    assert status[[f"rosset-t2-diff-{m}" for m in ("rmse", "mae", "tau", "rho")]].isin(["exact", "within-tolerance"]).all()
    assert status["rosset-fig3-optimal-10"] == "exact" and (df["world"] == "paper").all()


def test_expected_shares_from_the_papers_z_scores():
    from scipy.stats import norm

    exp = rs.expected_shares(reference.load("rosset"))
    z = exp["z"]
    assert z["RMSE"] == pytest.approx(96890 / 92649) and z["tau"] == pytest.approx(0.1154 / 0.0304)
    # a faithful world passes "RMSE and MAE not significant" only about 60% of the time
    assert exp["residual_not_significant"] == pytest.approx(norm.cdf(1.6449 - z["RMSE"]) * norm.cdf(1.6449 - z["MAE"]), rel=1e-3)
    assert 0.5 < exp["residual_not_significant"] < 0.7 and exp["ranking_significant"] > 0.95
    assert 0.6 < exp["m1_better"] < 0.7


def _small_ledger(n_seeds=3, n=120):
    blocks = rw.SEEDS.sized(n_seeds)
    run = rw.run_experiment(reference.load("rosset"), blocks, seed=0, n_firms=n, n_boot=5)
    ledger = Ledger("rosset", "rosset_wallet", claims=rw.CLAIMS, seeds=blocks)
    with pytest.raises(ValueError, match="`block` must be one of"):
        rw.add_claims(ledger, run, block="main")
    for b in ledger.blocks:
        rw.add_claims(ledger, run, block=b)
    return ledger, run.sweep["confirmation"]


def test_the_run_holds_every_sweep_of_every_block_and_the_main_surveys_draws():
    blocks = rw.SEEDS.sized(2)
    run = rw.run_experiment(reference.load("rosset"), blocks, seed=3, n_firms=100, n_boot=4)
    gen = np.random.default_rng(3)
    survey = wallet_survey(100, rng=gen, **run.world)
    s_boot, _, s_fig5 = (int(x) for x in gen.integers(0, 2**31 - 1, 3))
    assert run.survey.equals(survey)
    y, m1, m2 = (survey[c].to_numpy() for c in ("wallet", "m1", "m2"))
    assert run.t2.equals(rs.table2(y, m1, m2, n_boot=4, seed=s_boot))
    grid, wins = rs.fig5_bootstrap(y, m1, m2, n_boot=4, seed=s_fig5)
    assert np.array_equal(run.fig5_wins, wins) and np.array_equal(run.fig5_band[0], grid)
    for b in blocks.BLOCKS:
        tables = run.sweep_tables(b)
        assert list(tables) == ["seed_sweep", "seed_sweep_control", "seed_sweep_noisy_truth",
                                "seed_sweep_shrinking_residual_regression"]
        for frame in (*tables.values(), run.fig1_local[b], run.tails[b]):
            assert list(frame["seed"]) == list(blocks.seeds(b))
    assert list(run.below_half) == ["upper-tail", "control", "noisy-truth", "shrinking-residual regression"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.t2 = None


def test_sweep_claims_test_every_cutoff_and_sit_beside_the_control():
    ledger, sweep = _small_ledger()
    assert ledger.unfilled() == []
    df = ledger.frame().set_index("claim_id")
    assert "every cutoff i = 1, ..., n - 1" in df.loc["rosset-fig5-all-cutoffs", "criterion"]
    # the printed 1 < i < n is the other reading of "all the cutoff points", shown beside it
    assert "under the other reading (the printed 1 < i < n" in df.loc["rosset-fig5-all-cutoffs", "note"]
    assert "mechanism off; world - control" in df.loc["rosset-fig1-top-better", "control"]
    assert "bottom 50%" in df.loc["rosset-fig1-top-better", "revised"]
    # Fig. 1's outliers: the paper's "less than 50 percent correct pairs", beside the local-errors control
    assert "5% of the firms" in df.loc["rosset-fig1-outliers", "revised"]
    assert "5% of the firms" not in df.loc["rosset-fig1-outliers", "criterion"]
    assert "world - control" in df.loc["rosset-fig1-outliers", "control"]
    assert df.loc["rosset-t1-robustness", "control"] == ""
    assert df.loc["rosset-t1-robustness", "status"] in ("not tested", "differs", "inconclusive")  # no control: never holds
    assert df.loc["rosset-scale-rho-m1", "kind"] == "prediction" and df.loc["rosset-scale-tau-m1", "kind"] == "calibration"
    # "all cutoffs" really is all of them: M1 loses some cutoff whenever the count says so, and the worst cutoff's
    # gap says the same; the printed 1 < i < n leaves out at most the top firm's cutoff
    assert (sweep["fig5_all_cutoffs"] == (sweep["fig5_cutoffs_lost"] == 0)).all()
    assert (sweep["fig5_all_cutoffs"] == (sweep["fig5_min_gap"] > 0)).all()
    assert (sweep["fig5_min_gap_inner"] >= sweep["fig5_min_gap"]).all()


def test_no_synthetic_row_is_judged_by_a_share_of_seeds():
    ledger, _ = _small_ledger()
    df = ledger.frame()
    synthetic = df[df["world"].str.startswith("synthetic:") & (df["kind"] != "calibration")]
    assert len(synthetic) == 21  # eq. 6's printed variance is the tail's calibration target, not a prediction
    assert synthetic["criterion"].str.contains("the estimate rule").all()
    assert not synthetic["reproduced_value"].str.contains(r"\d+/\d+ seeds").any()
    assert synthetic["reproduced_value"].str.match(r"effect -?[0-9.]").all()
    # every declaration names its effect and its smallest effect that matters, with the reason
    for c in rw.CLAIMS:
        if c.world.startswith("synthetic:") and c.kind != "calibration":
            assert c.effect is not None and c.effect.delta > 0 and c.effect.reason, c.id
    # a claim without a control world can at best be `not tested` (or an "=" row within its band)
    no_control = synthetic[(synthetic["kind"] == "claim") & (synthetic["control"] == "")]
    assert not no_control["status"].isin(["holds"]).any()


def test_bb6_tau_is_gumbels_and_joes_at_its_ends():
    from scipy import integrate

    assert rs.bb6_tau(1.0, 1 / (1 - 0.2845)) == pytest.approx(0.2845, abs=1e-10)  # Gumbel: tau = 1 - 1/delta
    # Joe's copula, tau = 1 + 4 int_0^1 phi / phi' with phi(t) = -log(1 - (1 - t)^theta), by a separate quadrature
    theta = 2.0
    ratio = integrate.quad(lambda t: np.log1p(-(1 - t) ** theta) * (1 - (1 - t) ** theta)
                           / (theta * (1 - t) ** (theta - 1)), 0, 1)[0]
    assert rs.bb6_tau(theta, 1.0) == pytest.approx(1 + 4 * ratio, abs=1e-10)


@pytest.mark.parametrize("theta", [1.0, 1.4, 1.7147])
def test_bb6_scores_draw_the_copula_of_their_tau(theta):
    from scipy.optimize import brentq

    delta = brentq(lambda d: rs.bb6_tau(theta, d) - 0.2845, 1.0, 10.0) if theta > 1.0 else 1 / (1 - 0.2845)
    z = rs.bb6_normal_scores(40_000, theta, max(delta, 1.0), np.random.default_rng(2))
    assert z.shape == (2, 40_000) and np.isfinite(z).all()
    assert abs(np.mean(z, axis=1)).max() < 0.03 and abs(np.std(z, axis=1) - 1).max() < 0.03  # normal scores
    assert rk.kendall_tau(z[0], z[1]) == pytest.approx(0.2845, abs=0.01)
    # upper-tail dependence 2 - 2^(1/(theta delta)) and none in the lower tail, read at the 1% corners
    q = stats.norm.isf(0.01)
    upper = np.mean((z[0] > q) & (z[1] > q)) / 0.01
    lower = np.mean((z[0] < -q) & (z[1] < -q)) / 0.01
    assert upper > lower + 0.2 and abs(upper - (2 - 2 ** (1 / (theta * max(delta, 1.0))))) < 0.12


def test_sibuya_draws_follow_their_law():
    from scipy.special import gammaln

    alpha = 0.6
    v = rs._sibuya(alpha, 50_000, np.random.default_rng(4))
    assert (v >= 1).all() and (v == np.floor(v)).all()
    for k in (1, 2, 5, 20):  # P(V > k) = Gamma(k + 1 - alpha) / (Gamma(k + 1) Gamma(1 - alpha))
        assert np.mean(v > k) == pytest.approx(np.exp(gammaln(k + 1 - alpha) - gammaln(k + 1) - gammaln(1 - alpha)),
                                               abs=0.01)
    assert (rs._sibuya(1.0, 5, np.random.default_rng(0)) == 1).all()


def test_tail_family_spans_gumbel_to_joe_at_the_printed_taus_and_eq6_is_out_of_its_reach():
    ref = reference.load("rosset")
    tail = rs.tail_family(ref, n_pop=20_000)
    assert list(tail["copula"]) == ["Gumbel", "BB6", "BB6", "BB6", "Joe", "Gaussian (control)", "independence"]
    family = tail.iloc[:5]
    assert family["upper_tail_dependence"].is_monotonic_increasing
    assert family["upper_tail_dependence"].iloc[0] == pytest.approx(2 - 2 ** (1 - 0.2845))
    assert (abs(family["tau_m2"] - 0.1692) < 0.002).all() and (abs(family["tau_m1"] - 0.2845) < 0.02).all()
    # independence: Kendall's 2 (2n + 5) / (9 n (n - 1)) at n = 500
    assert tail["expected_eq6_m2"].iloc[-1] == pytest.approx(2 * 1005 / (9 * 500 * 499))
    # the diagnosis: the whole family stays short of the printed 0.00097 by more than the calibration's 5%
    assert (family["expected_eq6_m2"] < 0.95 * 0.00097).all()


def test_tail_calibration_differs_with_its_diagnosis():
    ledger, _ = _small_ledger()
    df = ledger.frame().set_index("claim_id")
    row = df.loc["rosset-scale-tail-eq6"]
    assert row["kind"] == "calibration" and row["status"] == "differs"
    assert "out of reach" in row["note"] and "independence" in row["note"]
    assert "rosset-var-pred-eq6" in row["revised"]
    assert "rosset-var-pred-eq6" not in df.index and df.loc["rosset-var-pred-bootstrap", "kind"] == "prediction"


def test_table2_effect_is_m1s_signed_lead_in_standard_errors():
    row = rs.one_seed(0, n=120, n_boot=5)
    gen = np.random.default_rng(0)  # one_seed's draws: the survey, then the bootstraps' seeds
    df = wallet_survey(120, rng=gen)
    s_boot = int(gen.integers(0, 2**31 - 1, 3)[0])
    t2 = rs.table2(*(df[c].to_numpy() for c in ("wallet", "m1", "m2")), n_boot=5, seed=s_boot).set_index("Measure")
    for m in rs.MEASURES:
        z = t2.loc[m, "Absolute Difference"] / t2.loc[m, "Std. Dev."]
        assert row[f"t2_z_{m}"] == pytest.approx(z if t2.loc[m, "M1 better"] else -z)
        assert (row[f"t2_z_{m}"] > 0) == row[f"t2_m1_better_{m}"]
    # the one-sided p-value is the normal tail of |z|
    assert row["t2_p_tau"] == pytest.approx(stats.norm.sf(abs(row["t2_z_tau"])), rel=1e-6)


def test_table1_matches_brute_force_and_one_seed_is_flat():
    df = wallet_survey(80, rng=0)
    y, m1 = df["wallet"].to_numpy(), df["m1"].to_numpy()
    t1 = rs.table1(y, m1).set_index("Measure")
    for m in rs.MEASURES:
        f = rk.MEASURES[m]
        gaps = [abs(f(np.delete(y, i), np.delete(m1, i)) - f(y, m1)) for i in range(80)]
        assert t1.loc[m, "firm"] == int(np.argmax(gaps))
    out = rs.one_seed(0, n=80, n_boot=5)
    assert all(np.isscalar(v) for v in out.values())


def test_identities_hold_on_the_survey_and_breakdown_claims():
    run = rm.run_experiment(seed=0, n_firms=150, k_max=3, n_coverage=40)
    df = wallet_survey(150, rng=np.random.default_rng(0))
    assert run.y.tobytes() == df["wallet"].to_numpy().tobytes() and run.m1.tobytes() == df["m1"].to_numpy().tobytes()
    assert (run.ident["relative_gap"] <= 1e-9).all() and len(run.many) == 3 and set(run.coverage["samples"]) == {40}
    ledger = Ledger("rosset", "rosset_measures", claims=rm.CLAIMS)
    with pytest.raises(ValueError, match="`block` must be None"):
        rm.add_claims(ledger, run, block="confirmation")
    rm.add_claims(ledger, run, block=None)
    assert ledger.unfilled() == []
    rows = ledger.frame().set_index("claim_id")
    assert (rows.drop("rosset-tau-ci")["status"] != "differs").all() and (rows["status"] == "erratum").sum() == 3
    # the identities check our code against sums we wrote: our checks, never the paper's recomputed formulas
    ours = rows.index.str.startswith("rosset-identity-")
    assert ours.sum() == 12 and (rows.loc[ours, "kind"] == "check").all() and (rows.loc[ours, "world"] == "ours").all()
    assert (rows.loc[~ours, "kind"] == "formula").all() and (rows.loc[~ours, "world"] == "paper").all()
    assert rows.loc[ours, "revised"].str.contains("a check of ours").all()
    # the cutoffs' range is a reading, not a proven erratum: both readings shown, the one that fits not confirmed
    cut = rows.loc["rosset-erratum-cutoffs"]
    assert cut["status"] == "ambiguous" and "as printed, 1 < i < n: n - 2 cutoffs: sum" in cut["reproduced_value"]
    assert "1 <= i < n" in cut["reproduced_value"] and "erratum" in cut["revised"]
    assert "ambiguous" in rows.loc["rosset-identity-09", "note"]


def test_rec_area_over_curve_is_the_mean_absolute_residual_and_its_bound_holds():
    gen = np.random.default_rng(0)
    y, pred = gen.standard_normal(50), gen.standard_normal(50)
    aoc = rm.rec_area_over_curve(y, pred)
    r = np.abs(y - pred)
    assert aoc == pytest.approx(r.mean(), rel=1e-12)
    assert aoc >= r.max() / 50 >= r.sum() / 50**2


def test_tau_interval_covers_the_population_tau():
    cov = rm.tau_coverage(200, 300, rng=1, taus=(0.3,))
    assert abs(cov["coverage"].iloc[0] - 0.95) < 0.04


def test_segment_reversed_ranking_keeps_every_firm_above_one_half_at_the_printed_tau():
    rng = np.random.default_rng(3)
    y = rng.lognormal(size=500)
    m = rs.segment_reversed_ranking(y, "0.2845")
    # by brute force: the tau and every firm's share of correctly ordered pairs
    conc = np.sign(y[:, None] - y[None, :]) * np.sign(m[:, None] - m[None, :])
    share = (conc > 0).sum(axis=1) / 499
    tau = conc[np.triu_indices(500, 1)].mean()
    assert abs(tau - 0.2845) < 0.002 and share.min() >= 0.5
    assert np.sort(share) == pytest.approx(np.sort(rk.correct_pairs_curve(y, m).share))
    # the paper's world at the same tau puts firms below one half (the claim can fail on the control only)
    df = wallet_survey(500, rng=1000, **rs.paper_world(reference.load("rosset")))
    assert (rk.correct_pairs_curve(df["wallet"].to_numpy(), df["m1"].to_numpy()).share < 0.5).sum() > 0
    with pytest.raises(ValueError, match="tau"):
        rs.segment_reversed_ranking(y, "1.5")


# -- the bootstrap of tau, all resamples at once ------------------------------------------------------
@pytest.mark.parametrize("seed", range(12))
def test_resampled_tau_b_is_the_librarys_tau_on_every_resample(seed):
    g = np.random.default_rng(seed)
    n = int(g.integers(2, 300))
    if seed % 3 == 0:  # few distinct values: ties in truth and prediction beside the resample's duplicates
        y, m = g.integers(0, 5, n).astype(float), g.integers(0, 4, n).astype(float)
    else:
        y = np.exp(2 * g.standard_normal(n))
        m = y * np.exp(g.standard_normal(n))
    draws = [g.integers(0, n, n) for _ in range(25)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a constant resample: nan with the library's warning
        expected = np.array([rk.kendall_tau(y[i], m[i]) for i in draws])
        got = rs.resampled_tau_b(y, m, draws)
    assert got.tobytes() == expected.tobytes()  # the same floats, bit for bit (nan where undefined)


def test_bootstrap_variance_keeps_its_draws():
    s = wallet_survey(200, rng=7)
    y, m2 = s["wallet"].to_numpy(), s["m2"].to_numpy()
    gen = np.random.default_rng(5)
    taus = [rk.kendall_tau(y[i], m2[i]) for i in (gen.integers(0, 200, 200) for _ in range(40))]
    out = rs.bootstrap_variance(y, m2, n_boot=40, seed=5)
    assert out == {"bootstrap": float(np.var(taus, ddof=1)),
                   "eq6": rk.tau_variance_from_concordance(rk.concordance_counts(y, m2))}
    assert out["eq6"] != rk.tau_variance(y, m2, variant="a")  # the paper's eq. 6, not the interval's plug-in form


@pytest.mark.parametrize("seed", range(12))
def test_resampled_grid_auc_is_cutoff_grid_auc_on_every_resample(seed):
    g = np.random.default_rng(seed)
    n = int(g.integers(10, 400))
    y = np.exp(2 * g.standard_normal(n))
    m = y * np.exp(g.standard_normal(n))
    if seed % 3 == 0:
        m = np.round(m)  # tied predictions count one half
    elif seed % 3 == 1:
        y = g.integers(0, 30, n).astype(float)  # tied responses: the library's own path
    grid = np.round(np.arange(0.1, 0.9 + 0.005, 0.01), 10)
    draws = [g.integers(0, n, n) for _ in range(20)]
    expected = np.array([rs.cutoff_grid_auc(y[i], m[i], grid) for i in draws])
    assert rs.resampled_grid_auc(y, m, draws, grid).tobytes() == expected.tobytes()


def test_fig5_band_is_the_difference_over_the_wins_resamples():
    # the notebook once redrew Fig. 5's resamples with a generator of its own to draw the band; the band now comes
    # from the resamples that decide the wins, the same floats as that redraw
    s = wallet_survey(300, rng=2)
    y, m1, m2 = (s[c].to_numpy() for c in ("wallet", "m1", "m2"))
    grid, auc1, auc2 = rs.fig5_resamples(y, m1, m2, n_boot=30, seed=9)
    gen = np.random.default_rng(9)
    redrawn = np.array([rs.cutoff_grid_auc(y[i], m1[i], grid) - rs.cutoff_grid_auc(y[i], m2[i], grid)
                        for i in (gen.integers(0, 300, 300) for _ in range(30))])
    assert (auc1 - auc2).tobytes() == redrawn.tobytes()


def test_fig5_bootstrap_keeps_its_draws():
    s = wallet_survey(300, rng=2)
    y, m1, m2 = (s[c].to_numpy() for c in ("wallet", "m1", "m2"))
    grid, wins = rs.fig5_bootstrap(y, m1, m2, n_boot=30, seed=9)
    gen = np.random.default_rng(9)
    expected = [rs.cutoff_grid_auc(y[i], m1[i], grid) > rs.cutoff_grid_auc(y[i], m2[i], grid)
                for i in (gen.integers(0, 300, 300) for _ in range(30))]
    assert np.array_equal(wins, np.array(expected))
