# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
# ---

# %% [markdown]
# # yi Table 5, Figs. 3–4, Table 6: offline metrics, online click yield and auction simulation
#
# Reproduces from J. Yi et al., *Predictive Model Performance: Offline and Online Evaluations* (KDD 2013):
#
# * **Table 5** (Section 6) — a new click model (model-2) gains offline AUC (+8.6%) and RIG (+19.5%) over the
#   baseline (model-1) yet loses click yield (CY, clicks per page view, −9.96%) and mainline CY (−8.07%)
#   in an online A/B test.
# * **Figs. 3–4** — per pClick quantile, model-2's share of the log-loss and its prediction error:
#   model-2 over-estimates substantially in the low pClick range and a little in the high range.
# * **Table 6** (Section 6.1) — *simulated metrics*: the logged auctions re-run offline with the new
#   model's scores (Section 4.6) predict the online CY and mainline CY deltas, where AUC and RIG do not.
#   The paper prints a model-2 whose simulated CY/mainline CY (+40%/+46%) match online (+39%/+44%) while
#   AUC moved +0.2% and RIG +78%.
#
# **Synthetic world (the Bing logs are proprietary)** — `offline_eval.synth.sponsored.make_world`:
# `n_queries` queries with Zipf frequency; per query 10 candidate ads with log-normal bids and a true
# position-unbiased CTR with a heavy low tail (30% poorly relevant ads with 20x lower CTR); a click
# curve of 3 mainline slots (factors 1, 0.7, 0.49) above 5 sidebar slots (0.12 decaying by 0.8); each
# candidate takes part in 80% of auctions. Auctions are GSP (`offline_eval.auction.allocate`):
# rank score b·p^α, the first ranks above the mainline reserve fill the mainline, the rest the sidebar.
#
# **The mechanism of Section 6.** Model-1 is the true CTR with log-odds noise of sd 0.6. Model-2 has less
# noise (sd 0.35: better in the high pClick range) but over-estimates ads whose CTR is below 0.4% by
# +4 log-odds (and everything above by +0.1). On the logs — impressions model-1 chose, mostly good
# ads — model-2 ranks and fits better, so AUC and RIG rise. Online, its inflated scores push poorly
# relevant ads with high bids over the mainline reserve and above good ads; the page gets fewer clicks.
# The +4 log-odds is a deliberately strong low-range error, picked by hand from a few values on one seed
# so that the online loss is of the order of the paper's; everything else follows from the mechanism.
#
# **Pipeline.** Model-1 serves `n_log` page views at the baseline operating point (α = 1, mainline
# reserve at the `baseline_quantile` quantile of model-1's rank scores, no sidebar reserve): the logs.
# Offline metrics are computed on the logged impressions (pClick × the click curve estimated from the
# logs, against the logged clicks). The online A/B test serves `n_ab` fresh page views per arm.
# The simulation re-runs every logged auction with model-2's scores and estimates each selected ad's
# clicks from the logs only: the pair's historic CTR at that slot, else the pair's CTR calibrated by the
# logs' click curve, else the slot's reference CTR. An operating-point sweep by simulation (α ×
# mainline-reserve quantile) picks model-2's best point under the budget "no more mainline ads per page
# view than the baseline", which is A/B-tested too (Table 6, second row).
#
# **Agreement criterion (fixed before the results):** a predicted relative delta agrees with the online
# one when it has the same sign and |predicted − online| ≤ 3 percentage points + 25% of |online|. The 3 pp
# cover the A/B test's sampling error (two standard errors are about 2.5 pp at 100,000 page views per
# arm). Seed-sweep claims hold when their criterion holds in at least 80% of `n_seeds` seeds.
#
# **Table 6 with its own model.** The paper's Table 6 model-2 moved AUC by +0.2% and RIG by +78% and
# gained +39% CY online: evidently not Table 5's model-2 (AUC +8.6%). The last section therefore runs the
# same protocol on a second pair of models, modelling what Section 6 says the gain comes from — poor ads
# kept out of the auction by better calibration in the low pClick range:
#
# * the **new model** is model-1's form (true CTR with log-odds noise of sd 0.6; the very draw of
#   Table 5's model-1, same world), so it is calibrated in the low range;
# * the **baseline** that serves the logs is the *same predictions* with their low range over-estimated
#   by an order-preserving map (`synth.sponsored.overestimate_low_range`): logit p′ = x + δ·σ((x₀ − x)/w)
#   with x the new model's log-odds, x₀ = logit(0.4%), δ = 4 log-odds (Table 5 model-2's boundary and
#   size of low-range error, reused rather than chosen anew) and w = δ/4 = 1, the narrowest switch that
#   keeps the map increasing. A model whose calibration map was fitted on data with few poor ads fails
#   this way: the ranking is intact, but poor ads get pClicks of relevant ones and, with high bids, pass
#   the mainline reserve.
#
# Expected from the mechanism (written before running): the pClick ranking is identical, so the AUC delta
# on the logs is near zero (it moves only because the logged score is pClick × the slot's click-curve
# factor); the log-loss on the baseline's logs — full of poor ads it over-estimated — falls a lot, so RIG
# rises a lot; online, the new model at its best simulated operating point keeps poor ads out of the
# mainline and gains click yield. Nothing was tuned toward the paper's +0.2% / +78% / +39%; the sizes are
# whatever the mechanism gives. Claims (criteria fixed in code before the run): the simulation agrees with
# online (the rule above, both operating points, CY and mainline CY); neither AUC nor RIG delta meets the
# agreement test against the online CY delta at the baseline point; the online CY delta at the best
# simulated point is > 0; the offline shape: |AUC delta| < 1% and RIG delta > 10 × |AUC delta|; each
# also on the seed sweep (≥ 80% of seeds), with the paper's six cells beside ours (5 pp tolerance rows,
# as for Table 5).

# %% tags=["parameters"]
seed = 0
n_queries = 2000  # distinct queries of the world
n_log = 100_000  # logged page views (served by model-1)
n_ab = 200_000  # page views per arm of the online A/B test
baseline_quantile = 0.6  # baseline mainline reserve: this quantile of model-1's rank scores
n_quantiles = 10  # pClick quantiles of Figs. 3-4
n_seeds = 20  # seeds of the sweep
sweep_n_queries = 1000  # reduced scale of the sweep
sweep_n_log = 40_000
sweep_n_ab = 100_000
t6_low_ctr = 0.004  # Table 6 baseline: centre of its over-estimated low pClick range
t6_low_shift = 4.0  # ... and its over-estimation of the lowest pClicks (log-odds)
output_root = None

# %%
import numpy as np
import pandas as pd

from offline_eval import reference
from offline_eval.claims import Ledger, seed_sweep
from offline_eval.io import OutputDir
from offline_eval.studies import yi_auction

ref = reference.load("yi")
out = OutputDir("yi", output_root)
ledger = Ledger("yi", "yi_offline_online")
seeds = np.arange(seed, seed + n_seeds)
t6_miscalibration = dict(low_ctr=t6_low_ctr, low_shift=t6_low_shift, width=t6_low_shift / 4)
t5_printed = {c: reference.lookup(ref, "Table 5", "model-2 metrics", c) for c in ("AUC", "RIG", "CY", "Mainline CY")}
t6_printed = {c: reference.lookup(ref, "Table 6", "model-2 metrics", c)
              for c in ("offline AUC", "offline RIG", "simulated CY", "simulated Mainline CY", "online CY", "online Mainline CY")}

# %% [markdown]
# ## The experiment (main seed, full scale)

# %%
exp = yi_auction.run(seed, n_queries=n_queries, n_log=n_log, n_ab=n_ab, baseline_quantile=baseline_quantile)
pd.DataFrame({
    "true click curve": exp.world.click_curve,
    "click curve from logs": exp.log.click_curve,
    "reference CTR from logs": exp.log.reference_ctr,
}, index=pd.Index(range(exp.world.n_slots), name="slot")).round(4)

# %% [markdown]
# ## Table 5: offline gains, online losses

# %%
t5 = yi_auction.table5(exp, t5_printed)
out.table(t5, "table5")
t5

# %%
ob = exp.online_base
ledger.check(
    "yi-T5-offline-gain", "Table 5", "model-2 gains offline AUC and RIG on the logged data",
    criterion="AUC and RIG of model-2 above model-1's on the logged impressions, main seed",
    holds=exp.offline["auc_delta"] > 0 and exp.offline["rig_delta"] > 0,
    paper_value=f"AUC {t5_printed['AUC']}, RIG {t5_printed['RIG']}",
    reproduced_value=f"AUC {100 * exp.offline['auc_delta']:+.2f}%, RIG {100 * exp.offline['rig_delta']:+.1f}%",
)
ledger.check(
    "yi-T5-online-loss", "Table 5", "model-2 loses click yield and mainline click yield online",
    criterion="relative CY and mainline CY deltas below zero by more than 2 standard errors, main seed",
    holds=ob["cy_delta"] + 2 * ob["cy_delta_se"] < 0 and ob["ml_cy_delta"] + 2 * ob["ml_cy_delta_se"] < 0,
    paper_value=f"CY {t5_printed['CY']}, mainline CY {t5_printed['Mainline CY']}",
    reproduced_value=f"CY {100 * ob['cy_delta']:+.1f}% (se {100 * ob['cy_delta_se']:.1f}), "
                     f"mainline CY {100 * ob['ml_cy_delta']:+.1f}% (se {100 * ob['ml_cy_delta_se']:.1f})",
)
magnitude_note = "magnitudes depend on the synthetic world and model-2's distortion; the paper's data are not available"
for col, key, val in (("AUC", "auc", exp.offline["auc_delta"]), ("RIG", "rig", exp.offline["rig_delta"]),
                      ("CY", "cy", ob["cy_delta"]), ("Mainline CY", "mlcy", ob["ml_cy_delta"])):
    ledger.tolerance(f"yi-T5-{key}-size", "Table 5", f"model-2's relative {col} delta (%)",
                     printed=t5_printed[col], value=100 * val, atol=5.0, note=magnitude_note)

# %% [markdown]
# ## Figs. 3–4: where model-2 errs, per quantile of model-1's pClick on the logs

# %%
bd = yi_auction.breakdown(exp, n_quantiles=n_quantiles)
out.table(bd, "fig3_fig4_breakdown")
out.figure(yi_auction.fig3_figure(bd), "fig3")
out.figure(yi_auction.fig4_figure(bd), "fig4")
bd.pivot(index="quantile", columns="model", values=["log_loss_share", "prediction_error"]).round(3)

# %%
pe = bd.pivot(index="quantile", columns="model", values="prediction_error")
gap = (pe["model-2"] - pe["model-1"]).to_numpy()
k = max(1, len(gap) * 3 // 10)
ledger.check(
    "yi-F34-low-overestimate", "Figures 3-4",
    "model-2 over-estimates pClick substantially in the low range, much less in the high range",
    criterion=f"mean PE(model-2) - PE(model-1) over the lowest {k} quantiles > 0 and > the same over the highest {k}, main seed",
    holds=np.nanmean(gap[:k]) > 0 and np.nanmean(gap[:k]) > np.nanmean(gap[-k:]),
    reproduced_value=f"PE gap low {np.nanmean(gap[:k]):+.2f}, high {np.nanmean(gap[-k:]):+.3f}",
)

# %% [markdown]
# ## Table 6: simulated metrics from the logs vs online vs AUC/RIG

# %%
t6 = yi_auction.table6(exp, t6_printed, panel="Table 5 model")
t6

# %%
sim = exp.simulated
ob, obest = exp.online_base, exp.online_best
pairs = {
    "baseline point, CY": (sim["cy_delta"], ob["cy_delta"]),
    "baseline point, mainline CY": (sim["ml_cy_delta"], ob["ml_cy_delta"]),
    "best simulated point, CY": (sim["best_cy_delta"], obest["cy_delta"]),
    "best simulated point, mainline CY": (sim["best_ml_cy_delta"], obest["ml_cy_delta"]),
}
agreement_text = "same sign and |simulated - online| <= 3 pp + 25% of |online|"
ledger.check(
    "yi-T6-sim-agrees", "Table 6", "simulated CY and mainline CY deltas agree with the online ones",
    criterion=f"{agreement_text}, for CY and mainline CY at both operating points, main seed",
    holds=all(yi_auction.agrees(s, o) for s, o in pairs.values()),
    paper_value=f"CY {t6_printed['simulated CY']} vs {t6_printed['online CY']}; "
                f"mainline {t6_printed['simulated Mainline CY']} vs {t6_printed['online Mainline CY']}",
    reproduced_value="; ".join(f"{k} {100 * s:+.1f}% vs {100 * o:+.1f}%" for k, (s, o) in pairs.items()),
)
ledger.check(
    "yi-T6-auc-rig-disagree", "Table 6", "the AUC and RIG deltas do not predict the online CY delta",
    criterion="neither the AUC delta nor the RIG delta meets the agreement test against the online CY delta "
              "(baseline operating point), main seed",
    holds=not yi_auction.agrees(exp.offline["auc_delta"], ob["cy_delta"])
    and not yi_auction.agrees(exp.offline["rig_delta"], ob["cy_delta"]),
    paper_value=f"AUC {t6_printed['offline AUC']}, RIG {t6_printed['offline RIG']} vs CY {t6_printed['online CY']}",
    reproduced_value=f"AUC {100 * exp.offline['auc_delta']:+.2f}%, RIG {100 * exp.offline['rig_delta']:+.1f}% "
                     f"vs CY {100 * ob['cy_delta']:+.1f}%",
)
ledger.check(
    "yi-T6-best-point-gains", "Table 6", "at its best simulated operating point model-2 gains click yield online",
    criterion="online CY delta at the best simulated operating point > 0, main seed",
    holds=obest["cy_delta"] > 0, paper_value=t6_printed["online CY"],
    reproduced_value=f"{100 * obest['cy_delta']:+.1f}% (alpha {exp.op_best.alpha:g})",
    note="the paper's Table 6 model-2 (AUC +0.2%) is evidently another model than Table 5's (AUC +8.6%); "
         "this compendium uses one model-2, whose low-range over-estimation no operating point in the "
         "sweep undoes",
)

# %% [markdown]
# ## Seed sweep
# Every claim again on `n_seeds` seeds at reduced scale (`sweep_n_queries` queries, `sweep_n_log` logged
# page views, `sweep_n_ab` page views per arm, a 2 × 4 operating-point grid).

# %%
sweep = seed_sweep(yi_auction.per_seed, seeds, n_queries=sweep_n_queries, n_log=sweep_n_log, n_ab=sweep_n_ab,
                   n_quantiles=n_quantiles, baseline_quantile=baseline_quantile)
out.table(sweep, "seed_sweep")
ledger.sweep("yi-T5-offline-gain-sweep", "Table 5", "model-2 gains offline AUC and RIG",
             outcomes=sweep["t5_offline_gain"], criterion="AUC and RIG deltas > 0")
ledger.sweep("yi-T5-online-loss-sweep", "Table 5", "model-2 loses CY and mainline CY online",
             outcomes=sweep["t5_online_loss"], criterion="CY and mainline CY deltas < 0 by > 2 se")
ledger.sweep("yi-F34-sweep", "Figures 3-4", "model-2 over-estimates most in the low pClick quantiles",
             outcomes=sweep["f34_low_overestimate"],
             criterion="PE gap (model-2 - model-1) of the lowest 30% of quantiles > 0 and > that of the highest 30%")
ledger.sweep("yi-T6-sim-agrees-sweep", "Table 6", "simulated deltas agree with online",
             outcomes=sweep["t6_sim_agrees"],
             criterion=f"{agreement_text}, CY and mainline CY, both operating points")
ledger.sweep("yi-T6-auc-rig-disagree-sweep", "Table 6", "AUC and RIG deltas do not predict online CY",
             outcomes=sweep["t6_offline_disagrees"],
             criterion="neither AUC nor RIG delta meets the agreement test against the online CY delta")
sweep.describe().T[["mean", "min", "max"]]


# %% [markdown]
# ## Table 6 with its own model
# The same protocol (logs, offline AUC/RIG, operating-point sweep by simulation, simulated and online
# deltas at the baseline point and at the best simulated point) on the Table 6 pair: a baseline that
# over-estimates its low pClick range without changing its ranking, and the same model calibrated.
# Same seed, world and logged page views as above; main seed at full scale.

# %%
exp6 = yi_auction.run(seed, n_queries=n_queries, n_log=n_log, n_ab=n_ab, baseline_quantile=baseline_quantile,
                      models="table6", miscalibration=t6_miscalibration)
low = exp6.world.ctr < t6_low_ctr
pd.DataFrame({
    "true CTR < low_ctr": [np.median(exp6.p1[low] / exp6.world.ctr[low]), np.median(exp6.p2[low] / exp6.world.ctr[low])],
    "true CTR >= low_ctr": [np.median(exp6.p1[~low] / exp6.world.ctr[~low]), np.median(exp6.p2[~low] / exp6.world.ctr[~low])],
}, index=["baseline (median pClick / CTR)", "new model (median pClick / CTR)"]).round(2)

# %%
t6b = yi_auction.table6(exp6, t6_printed, panel="Table 6 model")
out.table(pd.concat([t6, t6b], ignore_index=True), "table6")
out.table(pd.concat([exp.sweep.assign(panel="Table 5 model"), exp6.sweep.assign(panel="Table 6 model")],
                    ignore_index=True), "operating_point_sweep")
t6b.set_index("model-2 at").T

# %% [markdown]
# Reading the table (an observation, not a criterion): at the *baseline's* operating point the new model
# loses — the baseline's mainline reserve was placed on the baseline's inflated rank scores, so the
# calibrated model's scores clear it less often and the mainline holds fewer ads (mainline ads per page
# view in the A/B tests, below). The gain appears only once the sweep re-places the operating point on the
# new model's own scale, under the same mainline-ads budget: the paper's reason for simulating the whole
# span of operating points before an A/B test (Sections 4.6, 6.1).

# %%
pd.DataFrame({
    point: {"baseline": ab["control_ml_ads_per_pv"], "new model": ab["treatment_ml_ads_per_pv"]}
    for point, ab in (("baseline operating point", exp6.online_base), ("best simulated operating point", exp6.online_best))
}).rename_axis("mainline ads per page view").round(2)

# %%
o6 = yi_auction.table6_outcomes(exp6)
sim6, ob6, obest6 = exp6.simulated, exp6.online_base, exp6.online_best
pairs6 = {
    "baseline point, CY": (sim6["cy_delta"], ob6["cy_delta"]),
    "baseline point, mainline CY": (sim6["ml_cy_delta"], ob6["ml_cy_delta"]),
    "best simulated point, CY": (sim6["best_cy_delta"], obest6["cy_delta"]),
    "best simulated point, mainline CY": (sim6["best_ml_cy_delta"], obest6["ml_cy_delta"]),
}
ledger.check(
    "yi-T6b-sim-agrees", "Table 6", "Table 6 model: simulated CY and mainline CY deltas agree with the online ones",
    criterion=f"{agreement_text}, for CY and mainline CY at both operating points, main seed",
    holds=o6["t6_sim_agrees"],
    paper_value=f"CY {t6_printed['simulated CY']} vs {t6_printed['online CY']}; "
                f"mainline {t6_printed['simulated Mainline CY']} vs {t6_printed['online Mainline CY']}",
    reproduced_value="; ".join(f"{k} {100 * s:+.1f}% vs {100 * o:+.1f}%" for k, (s, o) in pairs6.items()),
)
ledger.check(
    "yi-T6b-auc-rig-disagree", "Table 6", "Table 6 model: the AUC and RIG deltas do not predict the online CY delta",
    criterion="neither the AUC delta nor the RIG delta meets the agreement test against the online CY delta "
              "(baseline operating point), main seed",
    holds=o6["t6_offline_disagrees"],
    paper_value=f"AUC {t6_printed['offline AUC']}, RIG {t6_printed['offline RIG']} vs CY {t6_printed['online CY']}",
    reproduced_value=f"AUC {100 * o6['auc_delta']:+.2f}%, RIG {100 * o6['rig_delta']:+.1f}% "
                     f"vs CY {100 * o6['online_cy_delta']:+.1f}%",
)
ledger.check(
    "yi-T6b-best-point-gains", "Table 6",
    "Table 6 model: at its best simulated operating point the new model gains click yield online",
    criterion="online CY delta at the best simulated operating point > 0, main seed",
    holds=o6["t6_best_gains"], paper_value=t6_printed["online CY"],
    reproduced_value=f"{100 * obest6['cy_delta']:+.1f}% (se {100 * obest6['cy_delta_se']:.1f}; "
                     f"alpha {exp6.op_best.alpha:g})",
)
ledger.check(
    "yi-T6b-offline-shape", "Table 6", "Table 6 model: AUC barely moves while RIG rises a lot",
    criterion="|AUC delta| < 1% and RIG delta > 10 x |AUC delta|, main seed",
    holds=o6["t6_offline_shape"],
    paper_value=f"AUC {t6_printed['offline AUC']}, RIG {t6_printed['offline RIG']}",
    reproduced_value=f"AUC {100 * o6['auc_delta']:+.2f}%, RIG {100 * o6['rig_delta']:+.1f}%",
)
for col, key, val in (("offline AUC", "auc", o6["auc_delta"]), ("offline RIG", "rig", o6["rig_delta"]),
                      ("simulated CY", "sim-cy", o6["best_sim_cy_delta"]),
                      ("simulated Mainline CY", "sim-mlcy", o6["best_sim_ml_cy_delta"]),
                      ("online CY", "cy", o6["best_online_cy_delta"]),
                      ("online Mainline CY", "mlcy", o6["best_online_ml_cy_delta"])):
    ledger.tolerance(f"yi-T6b-{key}-size", "Table 6", f"Table 6 model: relative {col} delta (%), best simulated point",
                     printed=t6_printed[col], value=100 * val, atol=5.0, note=magnitude_note)

# %% [markdown]
# ### Seed sweep of the Table 6 model
# The same `n_seeds` seeds and reduced scale as the sweep above.

# %%
sweep6 = seed_sweep(yi_auction.per_seed_table6, seeds, n_queries=sweep_n_queries, n_log=sweep_n_log, n_ab=sweep_n_ab,
                    baseline_quantile=baseline_quantile, miscalibration=t6_miscalibration)
out.table(sweep6, "seed_sweep_table6_model")
ledger.sweep("yi-T6b-sim-agrees-sweep", "Table 6", "Table 6 model: simulated deltas agree with online",
             outcomes=sweep6["t6_sim_agrees"],
             criterion=f"{agreement_text}, CY and mainline CY, both operating points",
             note="where it fails, the best-point simulated and online deltas differ beyond the tolerance, in either "
                  "direction (seed_sweep_table6_model); at the sweep's reduced scale about a third of the ads the new "
                  "model selects have no logged record at their simulated slot (click-curve calibrated CTRs), and "
                  "the A/B delta's own standard error is about 1.5 pp")
ledger.sweep("yi-T6b-auc-rig-disagree-sweep", "Table 6", "Table 6 model: AUC and RIG deltas do not predict online CY",
             outcomes=sweep6["t6_offline_disagrees"],
             criterion="neither AUC nor RIG delta meets the agreement test against the online CY delta")
ledger.sweep("yi-T6b-best-point-gains-sweep", "Table 6", "Table 6 model: gains CY online at its best simulated point",
             outcomes=sweep6["t6_best_gains"], criterion="online CY delta at the best simulated point > 0")
ledger.sweep("yi-T6b-offline-shape-sweep", "Table 6", "Table 6 model: AUC barely moves while RIG rises a lot",
             outcomes=sweep6["t6_offline_shape"],
             criterion="|AUC delta| < 1% and RIG delta > 10 x |AUC delta|")
sweep6.describe().T[["mean", "min", "max"]]

# %%
out.claims(ledger)
ledger.frame()[["claim_id", "paper_value", "reproduced_value", "status"]]
