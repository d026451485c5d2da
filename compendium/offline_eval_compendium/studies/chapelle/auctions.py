"""chapelle: the expected utility against A/B tests across publisher networks (notebook ``chapelle_auctions``).

Protocol.  The paper's equations are checked first, on random inputs, against
direct implementations (a loop over rows for the utility, eq. 1-2; adaptive
quadrature for the expected utility, eq. 3; a loop over the trials for
Algorithm 1), with the two limits of Section 2.3, the calibration property of
the expected utility and the Gamma's variance in the Section 3 example
(:mod:`._formulas`).  Then one synthetic RTB world
(:mod:`offline_eval.synth.rtb`, the paper's mechanisms as knobs: won-only
logs, a candidate that predicts above the production model -- eq. 2's premise
-- click values that differ between items, a noisy A/B test) is drawn; its
price level is *calibrated* on the paper's cost of $1 CPM (footnote 2, the
median logged cost) and its A/B test's size on Table 1's printed standard
deviations;
Algorithm 1 gives Fig. 1, Table 1 and Fig. 2 on it (:mod:`._world`).
Every claim of the paper on that world is judged on a 20-seed sweep by its declared effect (a gap of
correlations per seed, :data:`EFFECTS`), its 95% interval beside the paired interval of world minus the
control world of the mechanism the paper credits (exploration data logged; click values equal within a
network; :mod:`._sweep`); Table 1's printed correlations and the best beta are *predictions*: the
seeds' mean with its interval against the printed value's band.  Units: costs are in dollars per impression in the
world; the paper's beta applies to costs in CPM units (dollars per thousand
impressions), the one reading under which its example variance (0.1 at
c = 10^-3, i.e. 1 CPM) holds, so its best beta of 10 is 10 per CPM dollar
(1e4 per dollar per impression) and beta c = 10 at the example cost.  The main run's values are shown beside the sweep
they illustrate, never with a status of their own.

Table 1's standard deviations: why two of the six are out of reach (issue 48).  The A/B size is fitted to the six
printed standard deviations over Algorithm 1's trials (:func:`calibrate_ab_noise`: 8.36e6 impressions per network,
already below the paper's "at least 30M"); the three Kendall tau rows and the utility's Pearson r land within their
bands, the MSE's and weighted MSE's Pearson r do not (0.003 against 0.04, 0.002 against 0.06;
chapelle/noise_calibration.csv).  The reason is in the networks, not in the noise level: one network carries 85% of
the variance of the expected online differences (its median competing bid 7.0 times the networks' median, a gap of
0.84 logit between the two models' calibration errors and a competing-bid log-sd of 1.0), its A/B standard
error is 1.1% of its expected difference, and the A/B noise is 0.14% of the online variance (1.1% without that
network).  Pearson r follows that one network (r 0.81 and 0.98 for the MSE and weighted MSE, near their noise-free
values) and hardly moves over the trials, while Kendall tau reorders the small networks.  The ratio of the two
spreads says so: sd(r) / sd(tau) is 1.33, 2.0 and 1.0 in the paper's Table 1 (MSE, weighted MSE, utility), about
pi sqrt(1 - r^2) / 2 = 1.4 for networks spread like a normal sample (tau = 2/pi arcsin r at r = 0.44), and 0.10,
0.05 and 0.35 here.  A smaller A/B test cannot fix it: ten times the noise on every network (a hundredth of the size)
gives Pearson sds of 0.035 and 0.029 but Kendall sds of 0.08 to 0.10 (printed 0.02-0.03).

The widened family.  "A publisher network corresponds roughly to an RTB platform. Small networks were grouped together
in order to ensure that each of them had at least 30M impressions. We ended up with 25 networks." (Section 3): the
networks differ in size, so each has its own A/B noise variance.  The family is widened by a spread of the networks'
log sizes (:func:`ab_sizes`: ``N exp(spread |z_k|)``, the grouped small networks near the smallest size ``N``, one
draw per network), ``N`` refitted at every spread of :data:`AB_SPREADS` by the same least squares
(:func:`noise_family`, chapelle/noise_family.csv).  It does not reach: from spread 0 to 3 the Pearson sds go from 0.003
to 0.004 (MSE) and 0.002 to 0.003 (weighted MSE) and the loss from 0.0051 to 0.0047 at the grid's edge, no row
changing band; the spread is not pinned down by the targets, so it is not chosen inside the family: the equal sizes
stay (the declared rule adopts a wider spread only if it brings a row into its band), and each Table 1 prediction's
note gives the main world's range over the family (the correlations move by 0.034 at most).  What would reach is noise
on the one dominant network alone: raised 30 times (an A/B test of about 9,000 impressions on that network, against
the printed 30M) its Pearson sds are 0.025 and 0.033; no law of sizes independent of the networks' differences puts
it there.  Tried during the diagnosis: the other reading of the networks' variance, the spread of their CTR, value
and price levels (the generator's ``ctr_spread``, ``value_spread``, ``price_spread``, which the paper does not print):
with all three at 0 the dominant network still carries 29% (its models' gap and its price spread remain), and the
refitted Pearson sds are 0.015 and 0.014 (30,000 logged requests per network).  So the calibration rows
``chapelle-calib-mse-r-std`` and ``chapelle-calib-weighted-mse-r-std`` stay ``differs`` with this diagnosis, the world
is unchanged and the predictions keep their confirmation block.

The claims table :data:`CLAIMS` is declared before any result;
:func:`run_experiment` runs every step and returns one :class:`ChapelleRun`,
from which the notebook shows and saves the tables and figures and
:func:`add_claims` fills the table at the end.
"""

from __future__ import annotations

from dataclasses import dataclass

import warnings

import numpy as np
import pandas as pd

from ... import reference
from ...claims import RENEWAL, SIZE_RTOL, Claim, Effect, SeedBlocks, declare
from ._formulas import (  # noqa: F401  (the notebook's and the tests' names)
    CLOSED_FORM_TOL, FORMULA_NOTES, FORMULA_TOL, IMPRESSIONS_PER_MILLE, closed_form_check, closed_form_summary,
    add_formula_claims, closed_form_table, eu_by_quadrature, formula_table, gamma_variance, variance_example,
)
from offline_eval.synth.rtb import RTBWorld, resize_ab, simulate_rtb

from ._noise import (  # noqa: F401
    AB_SPREADS, TOP_NOISE_FACTORS, add_noise_calibration, family_range, family_why, noise_family, rows_brought_in,
)
from ._sweep import CONTROLS, EFFECTS, SWEEP_WHY, one_seed, sweep_with_controls, sweep_why  # noqa: F401
from ._world import (  # noqa: F401
    BASELINES, add_world_checks, ab_sizes, CALIBRATION_METRICS, CLICK_NOISE_MAX_RATIO, NOISE_BOUNDS, PRICE_BOUNDS, calibrate_ab_noise,
    calibrate_price_level, click_noise, correlation_table, eu_column, expected_online_differences, fig1, fig2,
    in_decades, noise_diagnosis, offline_differences, offline_tables, online_differences, paper_noise_why, paper_table1,
    pearson_sd_delta, pearson_spread_why, signal_noise, signal_noise_tables, table1, typical_cost,
)

WORLD = ("synthetic: rtb (25 publisher networks, won-only logs, candidate predicting above production, "
         "calibrated price level and A/B noise)")
SWEEP = "chapelle/seed_sweep.csv"
#: The control world of each mechanism, as the claims table names it (what the control switches off).
CONTROL = {name: f"{name}: {what}" for name, (_, what) in CONTROLS.items()}
_EXPL = ("chapelle/seed_sweep_control_exploration.csv",)
_VALUE = ("chapelle/seed_sweep_control_equal_values.csv",)
_NOISE = ("chapelle/signal_noise.csv", "chapelle/signal_tracking.csv")
_OLD_PREDICTION = ("kind 'printed', within-tolerance when the printed cell lies in the seeds' 5-95% interval, "
                   "whatever the interval's width; re-judged as a prediction of the synthetic world, whose interval "
                   "must also be narrower than the printed value (issue 21)")
_EU_LEAD_REVISED = ("earlier the EU above MSE, weighted MSE and utility on a share of seeds, beside the exploration "
                    "control: the control failed only because the utility improves there, while the EU still beat the "
                    "MSE and weighted MSE, so the control did not test the EU's lead (issue 46); now the effect is the "
                    "gap to the standard (squared-error) metrics the sentence compares the EU with; the utility's "
                    "place is chapelle-table1-utility-worst's")

#: The seed blocks of every sweep, declared before any result: 20 worlds each, the development block 1-20 and a
#: confirmation block no run used, renewed for the estimate rule (the first block's statuses stay on record).
SEEDS = SeedBlocks("chapelle_auctions", development=1).renewed(RENEWAL)

#: The smallest difference of best beta that matters, in decades, and why; the effect of every Table 1 prediction.
BETA_DECADES = 0.5
_BETA_WHY = ("half a decade: the sweep reads the best beta on a grid of one beta per decade, so half a decade is the "
             "finest difference it resolves, and the paper prints one round value")
_T1_EFFECT = Effect.default("relative", "the metric's correlation with the A/B test over Algorithm 1's trials, on each "
                            "seed's world (Pearson r or Kendall tau; the EU at the main run's beta)", "=")

CLAIMS = declare(
    # -- the paper's equations, on random inputs (world: the paper's formulas) -------------------------
    Claim("chapelle-eq1-utility", "eq. (1), Section 2.2",
          "The payoff for the auction can thus be written as: av - c if pv > c; 0 otherwise. (1) ... "
          "sum_i (a_i v_i - c_i) I(p(x_i) v_i > c_i) ... We call this metric the utility.",
          "check", "offline_eval.bidding.utility and utility_per_row equal eq. (1) summed row by row in a plain "
          f"loop, on random rows with ties p v = c (a tie loses): scaled gap <= {FORMULA_TOL:g}", world="ours",
          evidence=("chapelle/formulas.csv",),
          revised="earlier kind 'formula'; it checks our code against a loop we wrote (no number of the paper is "
                  "recomputed), so it is counted with our checks (issue 46)"),
    Claim("chapelle-eq2", "eq. (2), Section 2.2",
          "The issue with that metric is that without any exploration data, overpredictions are not penalized. In "
          "particular, if p >= pbar, then p(x_i)v_i >= pbar(x_i)v_i > c_i and the utility is the same for p and pbar",
          "formula", "on random won-only logs (pbar v > c) and any p >= pbar, utility(p) = utility(pbar) = "
          f"sum(a v - c) to {FORMULA_TOL:g} relative; with lost auctions (exploration) in the logs the identity fails",
          evidence=("chapelle/formulas.csv",),
          revised="earlier a check of ours on the main world's won-only logs, which hold eq. (2) by construction; "
                  "now the paper's derivation on random inputs, beside logs where its premise fails"),
    Claim("chapelle-eu-quadrature", "eq. (3), Section 2.4",
          "EU = int_0^{pv} (av - c~) Pr(c~ | c) dc~ (3) ... A Gamma distribution with alpha = beta c + 1 and free "
          "parameter beta has the following density function: Pr(c~ | c, beta) ~ c~^{beta c} exp(-beta c~)",
          "check", "offline_eval.bidding.expected_utility_per_row equals eq. (3) integrated numerically "
          "(scipy.integrate.quad of (a v - t) Gamma(t; beta c + 1, rate beta) on [0, p v]) on random rows, beta from "
          "1e-3 to 1e4: max |closed form - quadrature| / (v + c + 1/beta) <= 1e-9", world="ours",
          evidence=("chapelle/closed_form.csv",),
          revised="kind 'check' (ours), then 'formula' as the paper's eq. (3) as the library implements it; a check "
                  "again: it compares our closed form with our own quadrature, no number of the paper (the printed "
                  "closed form is chapelle-eu-closed-form; issue 46)"),
    Claim("chapelle-eu-closed-form", "Section 2.4",
          "With this choice of the highest competing bid distribution, the expected utility becomes: "
          "av gamma(beta c + 1, beta pv) - (beta c + 1)/beta gamma(beta c, beta pv)",
          "formula", "the printed closed form against quadrature of eq. (3) on the same random rows: an erratum when "
          "it is off by a thousand times the implemented form's error",
          evidence=("chapelle/closed_form.csv",)),
    Claim("chapelle-limit-utility", "Section 2.3",
          "Dirac at the observed price c: this original utility (1). ... as beta -> infinity ... it converges towards "
          "a Dirac distribution at c.",
          "formula", "on the rows of the main world's logs (as inputs), sum |EU diff at beta = 1e16 - utility diff| / "
          "sum |utility diff| <= 1e-6, no row tied at p v = c", evidence=("chapelle/formulas.csv",)),
    Claim("chapelle-limit-wmse", "Section 2.3",
          "Uniform: it is easy to show (see [5, Theorem 2]) that the expected utility is, up to an irrelevant additive "
          "term and multiplicative factor, equal to the squared error, weighted by the value: v^2(a - p)^2.",
          "formula", "on the rows of the main world's logs (as inputs), |sum EU diff / beta at beta = 1e-9 + 1/2 sum "
          "weighted-squared-error diff| <= 1e-6 relative (factor -1/2, intercept a v^2 / 2 independent of p)",
          evidence=("chapelle/formulas.csv",)),
    Claim("chapelle-eu-calibrated", "Section 2.3",
          "And it also well-calibrated in the sense that its expected value is maximized under perfect predictions, "
          "p_i = E(a_i | x_i) [5, Theorem 4].",
          "formula", "on random (q, v, c, beta), q EU(a=1, p) + (1 - q) EU(a=0, p) with the library's EU: no p on a "
          f"grid of [0, 1] beats p = q by more than {FORMULA_TOL:g} (scaled by v^2 beta), and the grid's argmax lies "
          "within one grid step of q", evidence=("chapelle/formulas.csv",)),
    Claim("chapelle-alg1", "Algorithm 1, Section 3",
          "This was done by randomly sampling the online profits according to their confidence intervals, computing "
          "the correlation with the offline metrics, and averaging the correlations over 100 trials.",
          "check", "offline_eval.bidding.ab_test_correlation equals a loop of Algorithm 1 over the trials with "
          "scipy.stats.pearsonr and kendalltau, on random networks and metrics with the same normal draws: max gap of "
          f"the means and standard deviations <= {FORMULA_TOL:g}", world="ours", evidence=("chapelle/formulas.csv",),
          revised="earlier kind 'formula'; it checks our code against a loop we wrote (no number of the paper is "
                  "recomputed), so it is counted with our checks (issue 46)"),
    Claim("chapelle-variance-example", "Section 3 and footnote 2",
          "Note that this value corresponds to a rather large variance: for a cost c = 10^-3 the variance is about "
          "0.1. [footnote 2:] a cost for thousand impressions (CPM) is indeed of the order of $1",
          "printed", "the Gamma's variance alpha / beta^2 = (beta c + 1) / beta^2 at the printed best beta under both "
          "readings of beta's units (costs in dollars per impression, as written; costs in CPM units, footnote 2), "
          "each equal at the printed precision or not; ambiguous when only one fits",
          evidence=("chapelle/variance_example.csv",),
          revised="earlier an erratum: with beta on costs in dollars per impression the variance is 0.0101 and 0.1 "
                  "its standard deviation; with beta on costs in CPM units the printed 0.1 is right, so the reading "
                  "is ambiguous, not an erratum (issue 21); then exact under the CPM reading, chosen because it fits; "
                  "now both readings shown, the row ambiguous"),
    # -- the synthetic world's calibration and our checks ------------------------------------------------
    Claim("chapelle-price-level", "Section 3 and footnote 2",
          "for a cost c = 10^-3 the variance is about 0.1. [footnote 2:] a cost for thousand impressions (CPM) is "
          "indeed of the order of $1",
          "calibration", "the world's price level (the networks' median highest competing bid) fitted so that the "
          "median logged cost of the main world is 10^-3 dollars per impression ($1 CPM); within 5%", world=WORLD,
          evidence=("chapelle/price_calibration.csv",)),
    Claim("chapelle-calib-*", "Table 1",
          "Table 1: Correlations coefficients and their standard deviation - as computed by algorithm 1 - between A/B "
          "test results and offline metrics. (the standard deviations of the MSE, weighted MSE and utility)",
          "calibration", "the A/B test's size fitted (least squares) to these six printed standard deviations; each "
          "within half its target (rtol 0.5, the compendium's size band); the family widened by networks of different "
          "A/B sizes (a spread of their log sizes, each spread's size refitted the same way) is fitted beside it and "
          "replaces the equal sizes only if it brings a row into its band that they leave out", world=WORLD,
          revised="each within 0.02 of its target; revised because 0.02 is as wide as the smallest target (0.02): a "
          "tolerance is never as wide as the value it judges; then the equal sizes alone (issue 48: the family "
          "widened)",
          evidence=("chapelle/noise_calibration.csv", "chapelle/networks.csv", "chapelle/noise_diagnosis.csv",
                    "chapelle/noise_family.csv")),
    Claim("chapelle-check-click-noise", "Section 3",
          "The metrics (offline and online) were computed on a 4 days period ... Small networks were grouped together "
          "in order to ensure that each of them had at least 30M impressions.",
          "check", f"at the paper's log size, median click-noise sd / spread across networks < {CLICK_NOISE_MAX_RATIO} "
          "for every metric, so each metric's expectation over the click stands for the paper's logs",
          world=WORLD, evidence=("chapelle/click_noise.csv",)),
    Claim("chapelle-fig1-limits", "Fig. 1",
          "As beta -> 0, the metric is equivalent to a weighted MSE, while as beta -> +infinity, it is equivalent to "
          "the utility.",
          "check", "on the main run, |r(EU, smallest beta of the grid) - r(weighted MSE)| <= 0.02 and |r(EU, largest "
          "beta) - r(utility)| <= 0.02 (follows from the limits: a check of ours)", world=WORLD,
          evidence=("chapelle/fig1.png",)),
    # -- predictions of printed cells by the synthetic world ---------------------------------------------
    Claim("chapelle-t1-*", "Table 1",
          "Table 1: Correlations coefficients and their standard deviation - as computed by algorithm 1 - between A/B "
          "test results and offline metrics.",
          "prediction", "the seeds' mean correlation, its 95% interval inside the printed value +-50% (the world "
          "calibrated on the median logged cost and the standard deviations only; the EU at the main run's beta)",
          world=WORLD, evidence=(SWEEP, "chapelle/table1.csv"), revised=_OLD_PREDICTION, effect=_T1_EFFECT),
    Claim("chapelle-best-beta", "Section 3 / Fig. 1",
          "The correlation coefficients as a function of beta are plotted in figure 1. The best correlation is "
          "achieved for beta = 10.",
          "prediction", "the seeds' mean log10 best beta (argmax of Pearson r on the sweep's grid), its 95% interval "
          f"inside log10 of the printed beta +-{BETA_DECADES:g}, both in inverse CPM dollars: beta applies to costs in "
          "dollars per thousand impressions, the reading under which the paper's variance example holds "
          "(chapelle-variance-example)", world=WORLD, evidence=(SWEEP, "chapelle/fig1.png"),
          effect=Effect("log10 of the seed's best beta per CPM dollar", "=", BETA_DECADES, _BETA_WHY),
          revised="earlier a claim on the main run alone: its best beta within one decade of the paper's (differs: "
                  "1000); then the seeds' best betas in inverse dollars per impression against the printed 10 "
                  "(differs: median 1000); now both in the units the paper's example fixes (issue 24)"),
    Claim("chapelle-best-beta-dimensionless", "Section 3",
          "The best correlation is achieved for beta = 10. Note that this value corresponds to a rather large "
          "variance: for a cost c = 10^-3 the variance is about 0.1.",
          "prediction", "the paper's beta times its example cost, both in CPM units (10 x 1 CPM = 10), against each "
          "seed's best beta times its median logged cost (beta c is the same in any unit: only it compares across "
          f"markets), in log10: the seeds' mean's 95% interval inside log10(10) +-{BETA_DECADES:g}",
          world=WORLD, evidence=("chapelle/seed_sweep_costs.csv", "chapelle/differences.csv"),
          effect=Effect("log10 of the seed's best beta times its median logged cost (beta c)", "=", BETA_DECADES,
                        _BETA_WHY),
          revised="earlier a claim on the main run alone: beta_best times the median logged cost within a factor 10 "
                  "of the paper's (differs); then the seeds' values against 10 x 10^-3 = 0.01, beta read as applying "
                  "to dollars per impression, the reading under which the paper's printed variance is off tenfold; "
                  "now against beta c = 10 of the CPM reading (issue 24)"),
    # -- the paper's claims on the synthetic world, beside their controls --------------------------------
    Claim("chapelle-table1-eu-best-r", "Table 1 / Section 4",
          "This paper demonstrated empirically that indeed the expected utility achieves better correlations with "
          "online results.",
          "claim", "Pearson r of the EU at the main run's beta above the better of MSE and weighted MSE, over the "
          "seeds, beside the exploration control", world=WORLD,
          control=CONTROL["exploration"], evidence=(SWEEP,) + _EXPL, combine="both: chapelle-table1-eu-best-tau",
          revised=_EU_LEAD_REVISED,
          effect=Effect.default("correlation", EFFECTS["eu_lead_r"], ">")),
    Claim("chapelle-table1-eu-best-tau", "Table 1 / Section 4",
          "We present here an empirical evaluation of a metric that is specifically tailored for auctions in online "
          "advertising and show that it correlates better than standard metrics with A/B test results.",
          "claim", "Kendall tau of the EU at the main run's beta above the better of MSE and weighted MSE, over the "
          "seeds, beside the exploration control", world=WORLD,
          control=CONTROL["exploration"], evidence=(SWEEP,) + _EXPL, combine="both: chapelle-table1-eu-best-r",
          revised=_EU_LEAD_REVISED,
          effect=Effect.default("correlation", EFFECTS["eu_lead_tau"], ">")),
    Claim("chapelle-table1-wmse-gt-mse", "Table 1 / Section 3",
          "The correlation of the regular MSE is worse than the weighted MSE, presumably because the regular MSE does "
          "not take into account the values associated with each action: it is more costly to make a prediction "
          "error while bidding on an item with a large value than on one with a small value.",
          "claim", "Pearson r of the weighted MSE above that of the MSE, over the seeds", world=WORLD,
          control=CONTROL["equal_values"], evidence=(SWEEP,) + _VALUE + _NOISE,
          effect=Effect.default("correlation", EFFECTS["wmse_lead_r"], ">"),
          revised="the same criterion, earlier on a world whose models erred more on items of high (or low) value "
                  "(a per-network slope of the logit error on the log value), beside the control without that "
                  "slope: 4/20 seeds against 13/20 in the control, the value-correlated error worked against the "
                  "claim and is not the mechanism the sentence names (the cost of an error grows with the item's "
                  "value); now without that slope, beside the control whose items of a network share one value "
                  "(issue 24)"),
    Claim("chapelle-table1-utility-worst", "Table 1 / Section 4",
          "The regular utility on the other hand tries to estimate the bidder profit but may fail to correctly "
          "penalize mispredictions. [Section 2.2:] without any exploration data, overpredictions are not penalized. "
          "In particular, if p >= pbar, then p(x_i)v_i >= pbar(x_i)v_i > c_i and the utility is the same for p and "
          "pbar",
          "claim", "Pearson r of the utility below MSE, weighted MSE and the EU at the main run's beta, over the seeds",
          world=WORLD, control=CONTROL["exploration"], evidence=(SWEEP,) + _EXPL + _NOISE,
          effect=Effect.default("correlation", EFFECTS["utility_gap_r"], ">")),
    Claim("chapelle-table1-order", "Table 1",
          "Table 1: Correlations coefficients and their standard deviation - as computed by algorithm 1 - between A/B "
          "test results and offline metrics. [its Pearson r column, in decreasing order: EU, weighted MSE, MSE, "
          "utility]",
          "claim", "Pearson r: EU (main run's beta) > weighted MSE > MSE > utility, each gap over the seeds", world=WORLD,
          control=CONTROL["exploration"], evidence=(SWEEP,) + _EXPL + _NOISE,
          effect=Effect.default("correlation", EFFECTS["order_gap_r"], ">")),
    Claim("chapelle-fig1-interior", "Fig. 1 / Section 4",
          "The best correlation is achieved for beta = 10. ... The expected utility, a metric recently proposed in "
          "[5], captures best of both worlds.",
          "claim", "Pearson r at the best interior beta of the sweep's grid above its value at both ends (the "
          "weighted-MSE and the utility limits), over the seeds", world=WORLD, control=CONTROL["exploration"],
          evidence=(SWEEP,) + _EXPL, effect=Effect.default("correlation", EFFECTS["interior_gap_r"], ">")),
    Claim("chapelle-fig2-eu-beats-wmse", "Fig. 2 / Section 3",
          "Finally a scatter plot of the offline / online differences is shown in figure 2. Even though the "
          "correlation between expected utility and online results is not that large ..., it is still much better "
          "than the correlation with the weighted MSE.",
          "claim", "Pearson r of the EU at the main run's beta above that of the weighted MSE, over the seeds (no "
          "control world switches the competing-bid distribution off)", world=WORLD,
          evidence=("chapelle/fig2.png", SWEEP), effect=Effect.default("correlation", "r(EU) - r(weighted MSE)", ">")),
    Claim("chapelle-fig2-online-noise", "Fig. 2 / Section 3",
          "Even though the correlation between expected utility and online results is not that large (probably "
          "because of noise in the online measurements), ...",
          "claim", "the EU's Pearson r with the noise-free (expected) A/B differences above its Algorithm 1 r with "
          "the observed ones, over the seeds (no control world without A/B noise is run)", world=WORLD,
          evidence=("chapelle/fig2.png", SWEEP) + _NOISE + ("chapelle/noise_diagnosis.csv",),
          effect=Effect.default("correlation", "r(EU, expected A/B differences) - r(EU, Algorithm 1)", ">")),
)

#: The sweep's claims: (effect column of :func:`one_seed`, :data:`EFFECTS`; control world in :data:`CONTROLS`).
SWEEP_KEYS = {
    "chapelle-table1-eu-best-r": ("eu_lead_r", "exploration"),
    "chapelle-table1-eu-best-tau": ("eu_lead_tau", "exploration"),
    "chapelle-table1-wmse-gt-mse": ("wmse_lead_r", "equal_values"),
    "chapelle-table1-utility-worst": ("utility_gap_r", "exploration"),
    "chapelle-table1-order": ("order_gap_r", "exploration"),
    "chapelle-fig1-interior": ("interior_gap_r", "exploration"),
}
_T1_KEYS = {"MSE": "mse", "Weighted MSE": "wmse", "Utility": "utility"}


# -- the experiment ----------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class ChapelleRun:
    """Everything the notebook shows and :func:`add_claims` fills the table from (:func:`run_experiment`).

    ``sweep``, ``controls`` and ``costs`` map each seed block to its sweep, its
    control sweeps (``{name: frame}``, :data:`CONTROLS`) and its seeds' costs.
    """

    ref: pd.DataFrame
    betas: np.ndarray
    paper_beta: float
    paper_displays: float
    cf: pd.DataFrame
    variance: pd.DataFrame
    price_fit: pd.DataFrame
    world: RTBWorld
    offline: pd.DataFrame
    ab_fitted: float
    noise_fit: pd.DataFrame
    online: pd.DataFrame
    corr: pd.DataFrame
    beta_best: float
    formulas: pd.DataFrame
    sn: pd.DataFrame
    tracking: pd.DataFrame
    noise_table: pd.DataFrame
    noise_diag: pd.DataFrame
    noise_fam: pd.DataFrame
    sweep: dict
    controls: dict
    costs: dict

    @property
    def corr_beta(self) -> pd.DataFrame:
        """The EU rows of :attr:`corr`, one per beta of :attr:`betas` (Fig. 1)."""
        return self.corr[self.corr["metric"].isin([eu_column(b) for b in self.betas])].reset_index(drop=True)

    @property
    def corr_limits(self) -> pd.DataFrame:
        """The baselines' rows of :attr:`corr` (Fig. 1's two limits)."""
        return self.corr[self.corr["metric"].isin(BASELINES)].reset_index(drop=True)


def run_experiment(blocks: SeedBlocks, *, seed: int, n_networks: int, n_log: int, n_ab: int, ab_impressions: float,
                   log_arms: str, value_bias_sd: float, bias_order: str, offline_clicks: str, beta_exps: tuple,
                   betas_per_decade: int, n_trials: int, sweep_n_log: int, sweep_n_ab: int, sweep_betas_per_decade: int,
                   n_quad: int) -> ChapelleRun:
    """The whole experiment, in the notebook's order: formulas, calibrated world, Algorithm 1, signal and noise, sweep.

    ``beta_exps = (low, high)``: the beta grid runs from ``10^low`` to
    ``10^high`` with ``betas_per_decade`` (the sweep's with
    ``sweep_betas_per_decade``); ``blocks`` holds the sweep's seed blocks.
    """
    lo, hi = beta_exps
    betas = np.logspace(lo, hi, (hi - lo) * betas_per_decade + 1)
    ref = reference.load("chapelle")
    world_rng, trial_rng, quad_rng, base_rng, formula_rng, size_rng = np.random.default_rng(seed).spawn(6)
    cf = closed_form_check(n_per_beta=n_quad, rng=quad_rng)
    c_example = reference.lookup_number(ref, "Section 3", "cost c for the variance example", "value")
    paper_beta = reference.parse_printed(reference.lookup(ref, "Section 3", "best beta", "value"))
    world_kw = dict(n_networks=n_networks, log_arms=log_arms, value_bias_sd=value_bias_sd, bias_order=bias_order)
    price_median, price_fit = calibrate_price_level(c_example, rng=world_rng, n_log=sweep_n_log, **world_kw)
    world0 = simulate_rtb(n_log=n_log, n_ab=n_ab, ab_impressions=ab_impressions, price_median=price_median,
                          rng=world_rng, **world_kw)
    tables = offline_tables(world0, betas)  # drawn and expected clicks, click noise: each row's metrics once
    offline = tables[offline_clicks]
    ab_fitted, noise_fit = calibrate_ab_noise(world0, offline, ref, n_trials=n_trials, trial_seed=seed)
    world = resize_ab(world0, ab_fitted)
    online = online_differences(world)
    corr = correlation_table(offline, online, list(BASELINES) + [eu_column(b) for b in betas], n_trials=n_trials,
                             rng=trial_rng)
    eu = corr[corr["metric"].isin([eu_column(b) for b in betas])]
    beta_best = float(betas[int(np.argmax(eu["pearson_r"].to_numpy()))])
    formulas = formula_table(world, formula_rng)
    first = simulate_rtb(n_networks=n_networks, n_log=n_log, n_ab=n_ab, ab_impressions=ab_impressions, log_arms="ab",
                         value_bias_sd=0.0, rng=base_rng)
    sn, tracking = signal_noise_tables({"calibrated": (world, offline), "calibrated, drawn clicks": (world, tables["drawn"]),
                                        "first version": (first, None)}, betas, n_trials=n_trials, n_contexts=n_ab,
                                       rng=base_rng)
    paper_displays = reference.parse_printed(
        reference.lookup(ref, "Section 3", "impressions per network (at least; printed 30M)", "value"))
    noise_table = click_noise(world, betas, paper_displays, tables=tables)
    noise_diag = noise_diagnosis(offline, online, corr, beta_best, ref)
    noise_fam = noise_family(world0, offline, ref, size_rng.standard_normal(n_networks),
                             list(BASELINES) + [eu_column(beta_best)], n_trials=n_trials, trial_seed=seed)
    brought = rows_brought_in(noise_fam, {f"{r.metric} {'r' if r.coefficient == 'Pearson r' else 'tau'}_std": r.paper
                                          for r in noise_fit.itertuples()}, SIZE_RTOL)
    if brought:  # the declared rule adopts a wider spread, which the study does not draw: said on each row it moves
        warnings.warn(f"the widened A/B noise family brings {brought} into their band, which the declared rule "
                      "adopts; this run draws the equal sizes, and the calibration rows say so", stacklevel=2)
    sweep_betas = np.logspace(lo, hi, (hi - lo) * sweep_betas_per_decade + 1)
    sweeps = {b: sweep_with_controls(
        blocks.seeds(b), betas=sweep_betas, beta_star=beta_best, n_trials=n_trials, n_log=sweep_n_log, n_ab=sweep_n_ab,
        ab_impressions=ab_fitted, price_median=price_median, clicks=offline_clicks, **world_kw) for b in blocks.BLOCKS}
    return ChapelleRun(
        ref=ref, betas=betas, paper_beta=paper_beta, paper_displays=paper_displays, cf=cf,
        variance=variance_example(c_example, paper_beta), price_fit=price_fit, world=world, offline=offline,
        ab_fitted=ab_fitted, noise_fit=noise_fit, online=online, corr=corr, beta_best=beta_best, formulas=formulas,
        sn=sn, tracking=tracking, noise_table=noise_table, noise_diag=noise_diag, noise_fam=noise_fam,
        sweep={b: s[0] for b, s in sweeps.items()}, controls={b: s[1] for b, s in sweeps.items()},
        costs={b: s[2] for b, s in sweeps.items()})


# -- filling the table -------------------------------------------------------------------------
def add_price_calibration(ledger, world, price_fit: pd.DataFrame, ref: pd.DataFrame) -> None:
    """The world's price level, fitted so that the main world's median logged cost is the paper's $1 CPM."""
    row = price_fit.iloc[0]
    ledger.calibration(
        "chapelle-price-level", printed=reference.lookup(ref, "Section 3", "cost c for the variance example",
                                                               "value"),
        value=float(f"{typical_cost(world):.4g}"), rtol=0.05,
        note=(f"the networks' median highest competing bid fitted (scipy.optimize.brentq on its log10, "
              f"{int(row['n_log']):,} requests per network) to a median logged cost of $1 CPM: "
              f"{row['price_median']:.4g} dollars per impression; the bidder wins the cheaper auctions, so the logged "
              "costs sit below the competing bids; a target, not evidence"))


def add_predictions(ledger, sweep: pd.DataFrame, costs: pd.DataFrame, corr: pd.DataFrame, beta_best: float,
                    c_typ: float, ref: pd.DataFrame, family: pd.DataFrame | None = None) -> None:
    """Table 1's printed correlations and the best beta, each judged by the seeds' mean and its interval against the
    printed value's band (:meth:`~offline_eval_compendium.claims.Ledger.estimate`); with ``family``
    (:func:`noise_family`), each Table 1 row's note gives the main world's range over the widened noise family."""
    main = corr.set_index("metric")
    keys = {**_T1_KEYS, "EU (best beta)": f"eu_{beta_best:g}"}
    rexp = ", ".join(f"{k} {sweep[f'rexp_{key}'].median():.3f}" for k, key in (
        ("MSE", "mse"), ("weighted MSE", "wmse"), ("utility", "utility"), ("EU", keys["EU (best beta)"]))
        if f"rexp_{key}" in sweep)
    t1_why = (f"the seeds' median signal share of the online variance is {sweep['signal_share'].median():.3f}: the A/B "
              "size fitted to the printed standard deviations leaves little noise, so each correlation sits near its "
              f"noise-free value (the seeds' median r with the expected A/B difference: {rexp}), set by how the "
              "world's networks differ, which the paper does not print; tried: the earlier world (independent calibration errors with a slope on the value, a "
              "median logged cost of 0.6 CPM), whose intervals were wider than most printed values"
              ) if "signal_share" in sweep else ""
    cols = {**{m: m for m in _T1_KEYS}, "EU (best beta)": eu_column(beta_best)}
    for metric, key in keys.items():
        for coef, col, mcol in (("Pearson r", "r", "pearson_r"), ("Kendall tau", "tau", "kendall_tau")):
            slug = metric.lower().replace(" ", "-").replace("(", "").replace(")", "")
            ledger.estimate(
                f"chapelle-t1-{slug}-{col}", detail=f"{coef} of the {metric}",
                printed=reference.lookup(ref, "Table 1", metric, coef), world=(sweep, f"{col}_{key}"),
                main_seed=round(float(main.loc[cols[metric], mcol]), 3),
                note=f"the world was calibrated on the median logged cost ($1 CPM) and Table 1's standard deviations "
                     f"only; the EU at beta = {beta_best:g} (chosen on the main run)"
                     + ("" if family is None else "; " + family_range(family, cols[metric], col)), why=t1_why)
    paper_beta = reference.lookup_number(ref, "Section 3", "best beta", "value")
    c_paper = reference.lookup_number(ref, "Section 3", "cost c for the variance example", "value")
    per_mille = IMPRESSIONS_PER_MILLE  # the world's beta is per dollar per impression; the paper's per CPM dollar
    bc_paper = paper_beta * c_paper * per_mille
    bc_seeds = float(costs["beta_c"].median())
    shape = (f"at the paper's beta c = {bc_paper:g} the Gamma of the competing bid has shape {bc_paper + 1:g}, a "
             f"relative sd of {1 / np.sqrt(bc_paper + 1):.2f} around the cost; the seeds' best beta c (median "
             f"{bc_seeds:.3g}) gives a relative sd of {1 / np.sqrt(bc_seeds + 1):.2f}: the world's A/B differences "
             "are tracked best by a wider law, closer to the weighted-MSE limit, than the paper's")
    dollars = "beta on costs in dollars per impression (as written)"
    # decades compared: log10 of the seeds' values against log10 of the printed one, shown as "printed" (BETA_DECADES)
    log_beta, log_bc = (pd.Series(np.log10(f[c].to_numpy(float)), index=f["seed"].to_numpy(int))
                        for f, c in ((sweep, "best_beta"), (costs, "beta_c")))
    decades = np.log10(per_mille)
    ledger.estimate("chapelle-best-beta", printed=f"{np.log10(paper_beta):g}", world=log_beta - decades,
                    paper_value=in_decades(paper_beta), why=shape,
                    main_seed=f"{beta_best / per_mille:g} per CPM dollar ({beta_best:g} per dollar per impression, "
                              "finer grid)", other_reading=(dollars, log_beta, None),
                    note=f"the seeds' median best beta {np.median(sweep['best_beta']) / per_mille:g} per CPM dollar")
    ledger.estimate(
        "chapelle-best-beta-dimensionless", printed=f"{np.log10(bc_paper):g}", world=log_bc,
        paper_value=in_decades(bc_paper), note=f"the seeds' median beta c {bc_seeds:.3g}",
        main_seed=f"{beta_best * c_typ:.3g} (beta {beta_best:g} x median logged c {c_typ:.3g})", why=shape,
        other_reading=(dollars + ", the printed beta c then 1000 times smaller: the seeds' beta c x 1000 against it",
                       log_bc + decades, None))


def add_sweep_claims(ledger, sweep: pd.DataFrame, controls: dict, *, beta_star: float, ref: pd.DataFrame,
                     main: pd.DataFrame | None = None) -> None:
    """The :data:`SWEEP_KEYS` claims, each beside the control world of its mechanism (:data:`CONTROLS`).

    ``controls`` maps each name of :data:`CONTROLS` to its sweep (the same
    seeds); ``main`` is the main run's correlation table, shown beside the sweep.
    """
    r, tau = paper_table1(ref), paper_table1(ref, "Kendall tau")
    paper = {
        "eu_lead_r": f"{r['EU (best beta)']} vs {r['MSE']} / {r['Weighted MSE']}",
        "eu_lead_tau": f"{tau['EU (best beta)']} vs {tau['MSE']} / {tau['Weighted MSE']}",
        "wmse_lead_r": f"{r['Weighted MSE']} vs {r['MSE']}",
        "utility_gap_r": f"{r['Utility']} vs {r['MSE']} / {r['Weighted MSE']} / {r['EU (best beta)']}",
        "order_gap_r": f"{r['EU (best beta)']} > {r['Weighted MSE']} > {r['MSE']} > {r['Utility']}",
        "interior_gap_r": f"best beta {reference.lookup(ref, 'Section 3', 'best beta', 'value')}",
    }
    eu = f"eu_{beta_star:g}"

    def medians(df):
        return ", ".join(f"{k} {df[f'r_{k}'].median():.3f}" for k in ("mse", "wmse", "utility", eu))

    def shown(key):  # the main run's values, beside the sweep they illustrate
        if main is None:
            return ""
        if key == "interior_gap_r":
            return f"best beta {beta_star:g} on the main run's grid"
        m, (name, col) = main.set_index("metric"), (("Kendall tau", "kendall_tau") if key == "eu_lead_tau"
                                                    else ("Pearson r", "pearson_r"))
        return f"{name} " + ", ".join(f"{k} {m.loc[c, col]:.3f}" for k, c in (
            ("mse", "MSE"), ("wmse", "Weighted MSE"), ("utility", "Utility"), (eu, eu_column(beta_star))))

    for claim_id, (key, control) in SWEEP_KEYS.items():
        _, what = CONTROLS[control]
        ledger.estimate(claim_id, world=(sweep, key), control=(controls[control], key),
                        paper_value=paper[key], main_seed=shown(key),
                        note=(f"EU at beta = {beta_star:g} (chosen on the main run); median Pearson r over the seeds: "
                              f"{medians(sweep)}; control world ({what}): {medians(controls[control])}"),
                        why=(lambda key=key: sweep_why(sweep, key, beta_star)) if key in SWEEP_WHY else "")


def add_fig2_claims(ledger, sweep: pd.DataFrame, corr: pd.DataFrame, tracking: pd.DataFrame, beta_star: float,
                    ref: pd.DataFrame, diagnosis: pd.DataFrame | None = None) -> None:
    """Fig. 2's sentence: the EU's correlation beats the weighted MSE's; its size limited by the online noise.

    With ``diagnosis`` (:func:`noise_diagnosis`), the reason given when the
    noise claim differs quotes the noise share the paper's own Table 1 implies.
    """
    r = paper_table1(ref)
    eu, col = f"eu_{beta_star:g}", eu_column(beta_star)
    m = corr.set_index("metric")["pearson_r"]
    seeds = sweep["seed"].to_numpy(int)
    ledger.estimate("chapelle-fig2-eu-beats-wmse",
                    world=pd.Series((sweep[f"r_{eu}"] - sweep["r_wmse"]).to_numpy(float), index=seeds),
                    paper_value=f"{r['EU (best beta)']} vs {r['Weighted MSE']}",
                    main_seed=f"Pearson r EU {m[col]:.3f} vs weighted MSE {m['Weighted MSE']:.3f}",
                    note=f"median Pearson r over the seeds: EU {sweep[f'r_{eu}'].median():.3f}, weighted MSE "
                         f"{sweep['r_wmse'].median():.3f}")
    t = tracking[(tracking["world"] == "calibrated") & (tracking["metric"] == col)].iloc[0]
    ledger.estimate("chapelle-fig2-online-noise",
                    world=pd.Series((sweep[f"rexp_{eu}"] - sweep[f"r_{eu}"]).to_numpy(float), index=seeds),
                    paper_value=r["EU (best beta)"],
                    main_seed=f"EU r with the expected A/B {t['r_expected']:.3f} vs Algorithm 1 r {t['r_alg1']:.3f}",
                    note=f"median over the seeds: EU r with the expected A/B differences "
                         f"{sweep[f'rexp_{eu}'].median():.3f}, Algorithm 1 r {sweep[f'r_{eu}'].median():.3f}; median "
                         f"signal share of the online variance {sweep['signal_share'].median():.3f}",
                    why=("the A/B size fitted to Table 1's standard deviations leaves the online noise a small share of "
                         "the networks' spread of profit differences, so removing it moves the EU's correlation by "
                         "less than the seeds' spread" + paper_noise_why(diagnosis)))


def add_claims(ledger, run: ChapelleRun, *, block: str) -> None:
    """Fill every row of :data:`CLAIMS` from the run (:func:`run_experiment`), the sweeps of ``block``, in order.

    ``ledger`` is the notebook's ledger (its ``block`` is filled) or one block's ledger already.
    """
    if block not in run.sweep:
        raise ValueError(f"`block` must be one of {tuple(run.sweep)}; got {block!r}")
    ledger = ledger.block(block) if ledger.blocks else ledger
    sweep, controls, costs = run.sweep[block], run.controls[block], run.costs[block]
    add_formula_claims(ledger, run.cf, run.formulas, run.variance, run.ref)
    add_price_calibration(ledger, run.world, run.price_fit, run.ref)
    add_noise_calibration(ledger, run.ab_fitted, run.noise_fit, run.ref, run.noise_diag, run.noise_fam)
    add_world_checks(ledger, run.noise_table, run.paper_displays, run.betas, run.corr)
    add_predictions(ledger, sweep, costs, run.corr, run.beta_best, typical_cost(run.world), run.ref, run.noise_fam)
    add_sweep_claims(ledger, sweep, controls, beta_star=run.beta_best, ref=run.ref, main=run.corr)
    add_fig2_claims(ledger, sweep, run.corr, run.tracking, run.beta_best, run.ref, run.noise_diag)
