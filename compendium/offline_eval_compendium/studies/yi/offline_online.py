"""yi Table 5, Figs. 3-4 and Table 6: offline metrics vs online click yield vs auction simulation.

**Worlds that reach their calibration targets (issue 48): the diagnosis.**

*Table 5's online deltas were read off one world picked inside a family.*  The world is calibrated on Table 5's
offline AUC (+8.6%) and RIG (+19.5%) deltas only.  That pair pins model-2's over-estimation down loosely: on the
main seed the 15 over-estimations whose best grid point met both within 50% (0 to 7 log-odds) gave online CY deltas
from +7.4% to -45.7% (mainline CY +9.2% to -53.7%), and the fit (noise 1.03, 6.35 log-odds) lay where the RIG delta
falls steeply with the over-estimation; its prediction, CY -40.6% [-43.7, -37.6] and mainline CY -46.8% [-50.3,
-43.3] over the estimate rule's first block, differed from the printed -9.96% and -8.07% -- a verdict on the point
picked, not on what the printed numbers allow.  No other printed number narrows the family (Figs. 3-4 print no
values, Table 6's model is another model), so none is declared: Table 5's online cells are now judged over the
whole accepted family (``offline_accepted_worlds``; the sweeps run its two ends, :func:`family_grid`, beside the
fitted world, on every seed: ``family_online``), the effect being where the printed value falls in the family's
span (its depth inside, in pp; negative outside).

*Figs. 3-4's shape was not in the world.*  Model-2 over-estimated as a function of the ad's *true* CTR
(``distorted_pclick``'s ``low_shift``): a poor ad (CTR about 0.15%) lifted by up to 6.35 log-odds lands at a pClick
of 0.3-0.5, in model-2's *top* quantiles, so binned by its own pClick model-2's prediction error was +0.35 over the
lowest 30% of quantiles and +0.29 over the highest on the main seed, and yi-F34-sweep's effect -0.0071 [-0.0915,
0.0773] (inconclusive).  The paper puts the error in the model's own score range: "Model-2 substantially
overestimates the pClick scores on the quantiles in lower pClick score range, and for the quantiles with higher
pClick scores with much less degree of over-estimation" (Section 6, Figs. 3-4); "over-estimation of pClick scores on
the low pClick range could make significant negative impact on online metrics by giving low quality ads higher
chance to be selected".  The world's family is widened by that sentence: model-2's over-estimation now follows its
own noisy pClick, order-preserving (``model_2_pclick(..., over="score")``, the map of Table 6's baseline:
``overestimate_low_range``), below 0.4% by the fitted number of log-odds and above by +0.1.  A scratch run at noise
0.91 and 4.05 log-odds (seed 0, the sweep's scale) gave model-2's PE 13.3, 3.6, 2.8 over its three lowest deciles
and 1.03, 0.44, 0.30 over the three highest.  Nothing of Figs. 3-4 is printed as a number, so the shape is built
in, not fitted: yi-F34-sweep becomes a check of ours (it holds by construction), not a claim nor a calibration.
The recalibration (the same declared optimiser, the same grid) now separates the knobs: model-2's ranking is its
noisy one whatever the over-estimation, so the mainline AUC delta depends on model-1's noise alone and the RIG delta
then fixes the over-estimation.

*What the widened world gives* (confirmation block 615702648-615702667): the fit is noise 0.91, 4.05 log-odds; the
accepted family shrinks to 0-5 log-odds (beyond, the RIG delta falls below half the printed one) and spans online CY
deltas of median -3.4% to +7.3% over the seeds: no world the offline pair accepts reaches the printed -9.96% (nor
-8.07%), so yi-T5-cy-size and -mlcy-size differ as a family, not as a point; the fitted world's online loss is small,
so yi-T5-sweep is inconclusive and yi-F3-sweep's log-loss gap negligible (differs).

*Not done here*: Table 6's world (yi-T6b-cy-size 21.3 [18.7, 23.8] against 39%, yi-T6b-sim-cy-size 21.8 [19.6,
24.0] against 40%) keeps its one knob fitted to the RIG delta; its new model's noise (0.6) is printed nowhere, so
the same whole-family report over that noise is the next step.

Protocol (the world and the experiment are in :mod:`._auction`; this module declares the claims and fills them):

1. **Calibrate, on the offline deltas only**: model-1's log-odds noise (the baseline's quality) and model-2's
   low-range over-estimation (its size), neither printed, are fitted jointly to Table 5's offline AUC and RIG
   deltas (:func:`calibrate_models`); the AUC is the paper's recommended one, on the mainline impressions with
   the models' own (position-unbiased) pClicks.  Table 5's online CY and mainline CY deltas are then
   predictions.  The simulator's history threshold is chosen on the logs alone (:func:`cross_validate_history`).
2. **Table 5 world, main seed**: model-1 serves the logs; offline AUC and RIG of both models on the
   logs, their per-quantile breakdown (Figs. 3-4), the online A/B test, the auction simulation from the
   logs and an operating-point sweep by simulation (:func:`run`): the tables and figures.
3. **Table 6 world, main seed**: the same protocol on the Table 6 pair, a baseline that over-estimates
   its low pClick range with the new model's very ranking (``run(..., models="table6")``); the size of that
   over-estimation, the world's one knob, is fitted to Table 6's offline RIG delta (:func:`calibrate_table6`).
4. **Sweeps**: every claim again on ``n_seeds`` seeds, beside its control world, the same world with the
   mechanism switched off (:data:`CONTROL_MODEL_2`, :data:`CONTROL_MISCALIBRATION`).  Figs. 3-4 bin each model by
   its own pClick; Table 6's AUC/RIG claim is judged at the best simulated operating point, the one the paper
   reports, and Table 6's sentences about a model that gains click yield on the Table 6 world only.
5. **Formulas**: eq. (1) and the GSP price of Section 2.1 written out beside :func:`offline_eval.auction.allocate`.
6. :func:`add_claims` fills :data:`CLAIMS`: the calibrations from the main seed; every synthetic status from the
   estimate rule, the declared effect of each claim computed on every seed of the sweep and its control
   (:func:`seed_effects`) -- the printed deltas the worlds predict (Table 5's online CY and mainline CY, Table 6's
   other five cells) against the printed cell's band -- the main seed's value beside it, without a status.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import pandas as pd

from ... import reference
from ...claims import RENEWAL, Claim, Effect, SeedBlocks, declare
from . import _formulas
from ._auction import (AGREEMENT, AGREEMENT_TEXT, CONTROL_MISCALIBRATION, CONTROL_MODEL_2, F3_THRESHOLD, MODEL_1,
                       Experiment, agrees, breakdown, cross_validate_history, fig3_figure, fig4_figure, low_high_gap,
                       model_2_pclick, offline_online_pairs, per_seed, per_seed_table6, per_seed_worlds, printed_tables,
                       run, table5, table6, table6_outcomes)
from ._worlds import paired_sweeps_in_workers, per_seed_table6_worlds, seed_effects
from ._calibration import (calibrate_model_1, calibrate_models, calibrate_table6, calibration_note,
                           family_depth as _depth, family_grid, family_online, family_seed, family_span,
                           offline_accepted_worlds)

#: The study's own names, and the parts of the world and experiment (its private modules) its notebook and tests name.
__all__ = [
    "AGREEMENT", "CLAIMS", "CONTROL_MISCALIBRATION", "CONTROL_MODEL_2", "F3_THRESHOLD", "MODEL_1", "PP_DELTA", "SEEDS",
    "Experiment", "YiRun", "add_claims", "agrees", "breakdown", "calibrate_model_1", "calibrate_models",
    "calibrate_table6", "calibration_note", "cross_validate_history", "family_grid", "family_online", "family_seed",
    "family_span", "fig3_figure", "fig4_figure", "low_high_gap", "model_2_pclick",
    "offline_accepted_worlds", "per_seed", "per_seed_table6", "per_seed_worlds", "printed_tables", "run",
    "run_experiment", "seed_effects", "table5", "table6", "table6_outcomes",
]

_W5 = ("synthetic: yi Table 5 world (model-2 over-estimates the low range of its own pClick, order-preserving; "
       "calibrated on the offline AUC and RIG deltas)")
_W5F = ("synthetic: yi Table 5 worlds, the whole family the printed offline AUC and RIG deltas accept (each within "
        "50%), model-2 over-estimating the low range of its own pClick")
_C5F = ("model-2 without its over-estimation (CONTROL_MODEL_2) beside the fitted world's model-1: the sweep's control "
        "world, where every member's mechanism is off")
#: What the Table 5 world was until this revision, and what it gave (kept in each changed row's ``revised``).
_W5_BEFORE = ("the Table 5 world's model-2 over-estimated by the true CTR (distorted_pclick: an ad below CTR 0.4% "
              "lifted by up to the fitted 6.35 log-odds, model-1 noise 1.03), so an over-estimated poor ad left the low "
              "pClick range; on the estimate rule's first block (749770246-749770265)")
_W6 = "synthetic: yi Table 6 world (a baseline over-estimating its low pClick range, the same ranking)"
_C5 = "model-2 without its over-estimation of the low (and high) pClick range (CONTROL_MODEL_2)"
_C6 = ("a baseline without its low-range over-estimation, i.e. the new model's own predictions "
       "(CONTROL_MISCALIBRATION)")
_EV5 = ("yi/seed_sweep.csv", "yi/seed_sweep_control.csv", "yi/table5.csv")
_EV5P = _EV5 + ("yi/table5_calibration.csv", "yi/table5_offline_accepted.csv", "yi/seed_sweep_table5_family.csv")
_EV34 = ("yi/seed_sweep.csv", "yi/seed_sweep_control.csv", "yi/fig3_fig4_breakdown.csv", "yi/fig3.png", "yi/fig4.png")
_EV6 = ("yi/seed_sweep.csv", "yi/seed_sweep_control.csv", "yi/table6.csv")
_EV6B = ("yi/seed_sweep_table6_model.csv", "yi/seed_sweep_table6_model_control.csv", "yi/table6.csv",
         "yi/operating_point_sweep.csv")
_T5_QUOTE = ("The new model experienced significant drop in user clicks over the baseline model on online environment "
             "even though both AUC and RIG exhibited significant gain on offline evaluation data.")
_T6_AGREE = "You can see that the online metrics highly coincides with the simulated metrics"
_T6_DISAGREE = "while the improvements on AUC and RIG metrics differ drastically."
_T6_BEST = ("We then set up AB testing environments with the best settings and ran the online AB testing experiments "
            "to get the online metrics. (Table 6's model-2 gains online CY)")
_SIM_SCALE = ("the same criterion on a sweep of half-size worlds (1,000 queries, 40k logged page views): 13/20 seeds, "
              "its misses 2-5 A/B standard errors away; after that result the simulator's historic CTR at a slot was "
              "given a threshold of impressions chosen on the logs (cross_validate_history) and the sweep's worlds "
              "were enlarged to the main run's size (a simulator short of history, not A/B noise)")

#: The seed blocks of every sweep, declared before any result: 20 seeds each, the development block from seed 0
#: (the seeds the claims were developed on) and a confirmation block no development run used; renewed when the
#: claims moved to the estimate rule (the earlier block's statuses stay on record).
SEEDS = SeedBlocks("yi_offline_online", development=0).renewed(RENEWAL).renewed(
    "the Table 5 world's model-2 over-estimates the low range of its own pClick (yi Section 6, Figs. 3-4), "
    "recalibrated; Table 5's online deltas judged over the offline-accepted family; Figs. 3-4 a check")

#: The smallest effect that matters for a relative delta of Tables 5-6 (in percentage points), declared with the
#: effects before the renewed confirmation block ran.
PP_DELTA = 1.0
PP_REASON = ("one percentage point of a relative delta: a tenth of the smallest magnitude Table 5 prints (Mainline "
             "CY -8.07%), and about one standard error of a sweep's A/B test (100,000 page views per arm), below "
             "which one test cannot tell a difference")
#: The agreement test as a distance: a delta's miss beyond the tolerance the agreement test allows.
_MISS = (f"|predicted - online| - ({100 * AGREEMENT['abs']:g} pp + {100 * AGREEMENT['rel']:g}% of |online|), in pp "
         "(the agreement test's distance; its sign condition is dropped: for deltas of tens of percent it adds "
         "nothing, and it makes an offline delta of exactly 0 disagree with any online delta)")


def _pp(quantity: str, direction: str) -> Effect:
    """An effect on relative deltas in percentage points, with the study's :data:`PP_DELTA`."""
    return Effect(quantity, direction, PP_DELTA, PP_REASON)


#: The claims table, declared before the run.

#: Why a row that checks our implementation against the formula as we wrote it out is a check, not a formula.
OUR_CHECK = ("declared a formula of the paper; it checks our implementation against the formula as we wrote it "
             "out, so it is counted with our checks, not among the paper's results")

CLAIMS = declare(
    # -- calibrations: the values the Table 5 world was fitted to --------------------------------------------
    Claim("yi-T5-rig-size", "Table 5", "model-2 metrics, offline RIG (the printed relative delta)", "calibration",
          "model-1's noise and model-2's low-range over-estimation were fitted jointly to this delta and the AUC "
          "delta, offline deltas only (calibrate_models): main seed, |ours - paper| <= 50% of the printed value",
          world=_W5, evidence=("yi/table5.csv", "yi/table5_calibration.csv"),
          revised="model-1's noise alone was fitted to this delta (calibrate_model_1), model-2's over-estimation "
                  "picked by hand toward the online CY delta; then both fitted jointly in " + _W5_BEFORE + " "
                  "(+19.29% at noise 1.03, 6.35 log-odds)"),
    Claim("yi-T5-auc-size", "Table 5", "model-2 metrics, offline AUC (the printed relative delta; the AUC on the "
          "mainline impressions with the models' own pClicks: Section 7, 'AUC measured only on mainline ads are most "
          "reliable for search advertising')", "calibration",
          "fitted jointly with the RIG delta (calibrate_models): main seed, |ours - paper| <= 50% of the printed value",
          world=_W5, evidence=("yi/table5.csv", "yi/table5_calibration.csv"),
          revised="a prediction of the world calibrated on the RIG delta alone, the AUC taken over every logged "
                  "impression scored by pClick times the logs' click curve (median +1.02%, 5-95% [0.74, 1.28] over "
                  "20 seeds: differs); that score carries the slots' click curve, which both models share; then "
                  "fitted jointly in " + _W5_BEFORE + " (+8.61%)"),
    Claim("yi-T5-cy-size", "Table 5", "model-2 metrics, online CY (the printed relative delta)", "prediction",
          "the whole family of worlds the printed offline AUC and RIG deltas accept (offline_accepted_worlds: each "
          "over-estimation's best grid point within 50% of both; its coarse grid, family_grid, beside the fitted "
          "world) predicts the online delta: on each seed the family's span of relative CY deltas (%) in the A/B test "
          "at the baseline operating point, and where the printed value falls in it", world=_W5F, control=_C5F,
          evidence=_EV5P,
          revised="a calibration: model-2's +4 log-odds low-range over-estimation was picked by hand from a few values "
                  "on one seed to give an online loss of this order (main seed, |ours - paper| <= 50%); then a "
                  "prediction of the one world fitted to the offline pair, " + _W5_BEFORE + ": effect -40.6 [-43.7, "
                  "-37.6] against the band [-14.9, -5.0], differs; the accepted family spanned -45.7% to +7.4% on the "
                  "main seed, so one fitted world inside it decided the status",
          effect=_pp("the printed value's depth inside the accepted family's span of relative online CY deltas on the "
                     "seed, min(printed - lowest member, highest member - printed), in pp (negative: the printed value "
                     "lies outside every member's delta, by that much)", ">")),
    Claim("yi-T5-mlcy-size", "Table 5", "model-2 metrics, online Mainline CY (the printed relative delta)",
          "prediction", "as yi-T5-cy-size: the accepted family's span of relative mainline CY deltas (%) on each seed, "
          "and where the printed value falls in it", world=_W5F, control=_C5F, evidence=_EV5P,
          revised="a calibration (the same hand-picked over-estimation as yi-T5-cy-size); then a prediction of the one "
                  "world fitted to the offline pair, " + _W5_BEFORE + ": effect -46.8 [-50.3, -43.3] against the band "
                  "[-12.1, -4.0], differs",
          effect=_pp("the printed value's depth inside the accepted family's span of relative online mainline CY deltas "
                     "on the seed, min(printed - lowest member, highest member - printed), in pp (negative: outside)",
                     ">")),
    # -- Table 5 and Figs. 3-4 ---------------------------------------------------------------------------------
    Claim("yi-T5-sweep", "Table 5", _T5_QUOTE, "claim",
          "the AUC (mainline, own pClicks) and RIG deltas above 0 and the CY and mainline CY deltas below 0, all "
          "four at once over the seeds: their smallest margin", world=_W5, control=_C5, evidence=_EV5,
          revised="AUC and RIG deltas > 0 and CY and mainline CY deltas < 0 by more than 2 A/B standard errors on a "
                  "share of the seeds (before that, the AUC over every logged impression scored by pClick times the "
                  "click curve)" + "; then on " + _W5_BEFORE + ": holds, effect 4.70 [3.11, 6.29]",
          effect=_pp("min(AUC delta, RIG delta, -CY delta, -mainline CY delta), relative deltas in %: all four have "
                     "the sign Table 5 prints when it is above 0", ">")),
    Claim("yi-F34-sweep", "Figures 3-4",
          "Model-2 substantially overestimates the pClick scores on the quantiles in lower pClick score range, and "
          "for the quantiles with higher pClick scores with much less degree of over-estimation.", "check",
          "each model binned by its own pClick: model-2's prediction error over the lowest 30% of its quantiles > 0 "
          "and > its prediction error over the highest 30% (holds by construction: the world's model-2 over-estimates "
          "the low range of its own pClick, the shape this sentence describes; no number of Figs. 3-4 is printed, so "
          "the shape is built in, not fitted: a check of ours)",
          world=_W5, control=_C5, evidence=_EV34,
          revised="PE gap (model-2 - model-1) of the lowest 30% of quantiles of model-1's pClick > 0 and > that of "
                  "the highest 30%: binning both by model-1's pClick gives a less noisy model-2 a positive low-quantile "
                  "gap by regression to the mean alone (the control passed 20/20); then a claim on " + _W5_BEFORE +
                  ": effect -0.0071 [-0.0915, 0.0773], inconclusive (model-2's PE +0.35 low, +0.29 high on the main "
                  "seed: an over-estimation by true CTR lifts the poor ads out of the low pClick quantiles)",
          effect=Effect("min(PE_low, PE_low - PE_high) of model-2, each model binned by its own pClick (PE = avg "
                        "pClick / CTR - 1 over the lowest and the highest 30% of its quantiles)", ">", 0.05,
                        "5% of the CTR: the compendium's tolerance on avg pClick / CTR (yi Figure 1's calibration "
                        "rows, atol 0.05); a smaller over-estimation is not 'substantial'")),
    Claim("yi-F3-sweep", "Figure 3",
          "Figure 3: Relative contribution of log-loss over the typical range of pClick of interest. (model-2's "
          "log-loss weighs more on the low pClick quantiles than model-1's)", "claim",
          f"each model binned by its own pClick: log-loss share gap (model-2 - model-1) of the lowest 30% of "
          f"quantiles above 0 over the seeds", world=_W5, control=_C5, evidence=_EV34,
          revised=f"both models binned by model-1's pClick; the sweep asked > 0 and the main seed > 0.01; then the gap > "
                  f"{F3_THRESHOLD:g} on a share of the seeds" + "; then on " + _W5_BEFORE + ": holds, effect 0.0127 [0.0117, 0.0137]",
          effect=Effect("log-loss share gap (model-2 - model-1) over the lowest 30% of each model's own quantiles", ">",
                        F3_THRESHOLD, f"F3_THRESHOLD ({F3_THRESHOLD:g} of each model's own total log-loss), the one "
                        "threshold fixed for Fig. 3 before the first run")),
    # -- Table 6: the simulator on the Table 5 world (Table 6's other sentences are judged on its own world, below) --
    Claim("yi-T6-sim-agrees-sweep", "Table 6", _T6_AGREE, "claim",
          f"{AGREEMENT_TEXT}, for CY and mainline CY at the baseline and the best simulated operating point: the "
          "largest of the four misses below 0 over the seeds (the simulator's accuracy, on any world)",
          world=_W5, evidence=_EV6, revised=_SIM_SCALE + "; then all four agreeing on a share of the seeds" + "; then on " + _W5_BEFORE + ": not tested, effect -11.3 [-12.3, -10.4]",
          effect=_pp(f"the largest of the four simulated deltas' miss {_MISS}", "<")),
    # -- Table 6 with its own model -----------------------------------------------------------------------------
    Claim("yi-T6b-sim-agrees-sweep", "Table 6", _T6_AGREE, "claim",
          f"{AGREEMENT_TEXT}, for CY and mainline CY at the baseline and the best simulated operating point: the "
          "largest of the four misses below 0 over the seeds", world=_W6, evidence=_EV6B,
          revised="all four agreeing on a share of the seeds",
          effect=_pp(f"the largest of the four simulated deltas' miss {_MISS}", "<")),
    Claim("yi-T6b-auc-rig-disagree-sweep", "Table 6", _T6_DISAGREE, "claim",
          "neither the AUC delta nor the RIG delta comes within the agreement test's distance of the online CY delta "
          "at the best simulated operating point, the one Table 6 reports: the smaller of their two misses above 0 "
          "over the seeds", world=_W6, control=_C6, evidence=_EV6B,
          revised="the same at the baseline operating point; then neither meeting the agreement test (sign "
                  "included) on a share of the seeds; the sentence was also judged on the Table 5 world "
                  "(yi-T6-auc-rig-disagree-sweep, holds 20/20 seeds), whose model-2 loses click yield, so that its "
                  "offline gains disagreed with online by their sign alone: Table 5's sentence (yi-T5-sweep) again, "
                  "not Table 6's; that row is withdrawn and the sentence judged on the Table 6 world only",
          effect=_pp(f"the smaller of the AUC and RIG deltas' miss {_MISS}, against the best-point online CY delta",
                     ">")),
    Claim("yi-T6b-best-point-gains-sweep", "Table 6", _T6_BEST, "claim",
          "online CY delta at the best simulated operating point above 0 over the seeds", world=_W6, control=_C6,
          evidence=_EV6B,
          revised="the same on a share of the seeds; the sentence was also judged on the Table 5 world "
                  "(yi-T6-best-point-gains-sweep, differs 0/20 seeds), whose model-2's over-estimation no operating "
                  "point undoes: a statement about another model than Table 6's (AUC +8.6% against +0.2%); that row "
                  "is withdrawn and the sentence judged on the Table 6 world only",
          effect=_pp("relative online CY delta (%) at the best simulated operating point", ">")),
    Claim("yi-T6b-offline-shape-sweep", "Table 6", "model-2 metrics, offline AUC and RIG (AUC barely moves while RIG "
          "rises a lot)", "check", "|AUC delta| < 1% and RIG delta > 10 x |AUC delta| over the seeds: the smaller "
          "margin above 0 (holds by construction: the two models share one ranking, so the AUC delta is 0, and the "
          "RIG delta is the calibration target yi-T6b-rig-size)", world=_W6, control=_C6, evidence=_EV6B,
          revised="a claim of the paper on this world; revised because the world's construction makes it true (a "
          "shared ranking, a fitted RIG): a check of ours, not evidence",
          effect=Effect("min(1 - |AUC delta|, RIG delta - 10 |AUC delta|), relative deltas in %", ">", 0.1,
                        "0.1 pp, the precision to which Table 6 prints its AUC delta (+0.2%): the first term is at most "
                        "1 pp, so the study's 1 pp would call any AUC delta negligible")),
    Claim("yi-T6b-rig-size", "Table 6", "model-2 metrics: offline RIG (the printed relative delta)", "calibration",
          "the Table 6 baseline's low-range over-estimation was fitted to this delta, the only knob fitted in the "
          "Table 6 world (calibrate_table6): main seed, |ours - paper| <= 50% of the printed value", world=_W6,
          evidence=("yi/table6.csv", "yi/table6_calibration.csv"),
          revised="a prediction, the over-estimation reused from Table 5's model-2 (4 log-odds, itself picked by hand "
                  "toward Table 5's online loss): median +9.1%, 5-95% [4.5, 15.2] over 20 seeds, differs"),
    Claim("yi-T6b-*-size", "Table 6",
          "model-2 metrics: offline AUC; simulated CY, Mainline CY; online CY, Mainline CY (the printed "
          "relative deltas)", "prediction", "the seeds' relative delta (%) of the Table 6 world at its best simulated "
          "operating point (its one knob fitted to the offline RIG delta, nothing toward these cells)", world=_W6,
          control=_C6, evidence=_EV6B + ("yi/table6_calibration.csv",),
          revised="the same, the world's over-estimation reused from Table 5's model-2 (4 log-odds)",
          effect=Effect.default("relative", "the cell's relative delta (%) in the Table 6 world (the offline AUC on "
                                            "the logs, the others at the best simulated operating point)", "=")),
    # -- Sections 4.1, 4.6 and 7: which metrics are reliable ----------------------------------------------------
    Claim("yi-S7-simulated-reliable", "Section 7",
          "Simulated metrics are one of the most reliable metrics in predicting online performance of click "
          "prediction models.", "claim",
          "in the printed Table 6, the simulated CY and mainline CY deltas are closer to the online ones than the AUC "
          "and the RIG deltas are", evidence=("yi/table6.csv",)),
    Claim("yi-S7-simulated-reliable-sweep", "Section 7",
          "Simulated metrics are one of the most reliable metrics in predicting online performance of click "
          "prediction models. (Section 4.6: Simulated metric often turns out to be one of the strongest offline "
          "estimators of online model performance.)", "claim",
          "|simulated CY delta - online CY delta| < |AUC delta - online CY delta| and < |RIG delta - online CY "
          "delta| (baseline operating point; AUC on the mainline impressions, own pClicks): the margin above 0 over "
          "the seeds", world=_W5, control=_C5,
          evidence=_EV6, revised="the same on a share of the seeds (before that, with the AUC over every logged "
                                 "impression scored by pClick times the click curve)" + "; then on " + _W5_BEFORE + ": holds, effect 43.5 [40.7, 46.3]",
          effect=_pp("min(|AUC delta - online CY delta|, |RIG delta - online CY delta|) - |simulated CY delta - online "
                     "CY delta|, relative deltas in %", ">")),
    Claim("yi-S7-auc-better-than-rig-sweep", "Section 7",
          "For click prediction models, AUC estimates model efficacy better than other offline metrics. (Section "
          "4.1: For sponsored search, AUC, especially AUC measured only on mainline ads, is one of the most reliable "
          "indicators of the predictive power of the models.)", "claim",
          "|AUC delta - online CY delta| < |RIG delta - online CY delta| (baseline operating point; the AUC on the "
          "mainline impressions with the models' own pClicks, as Section 4.1 recommends; RIG is the other offline "
          "metric measured in the sweep, MAE is not): the margin above 0 over the seeds", world=_W5, control=_C5,
          evidence=_EV5,
          revised="the same on a share of the seeds (before that, with the AUC over every logged impression scored "
                  "by pClick times the click curve; mainline-only AUC not measured)" + "; then on " + _W5_BEFORE + ": not tested, effect 7.0 [1.9, 12.1]",
          effect=_pp("|RIG delta - online CY delta| - |AUC delta - online CY delta|, relative deltas in %", ">")),
    Claim("yi-S7-auc-not-sufficient", "Section 7",
          "Nevertheless, AUC alone is not sufficient enough to estimate the model performance reliably.", "claim",
          f"the printed AUC delta fails the agreement test ({AGREEMENT_TEXT}) against the printed online CY delta in "
          "Table 5 and in Table 6", evidence=("yi/table5.csv", "yi/table6.csv")),
    # -- formulas and our checks --------------------------------------------------------------------------------
    Claim("yi-eq1-rank-score", "eq. (1)",
          "r = b * p^alpha ... Ads are allocated in the descending order of estimated rank scores", "check",
          "allocate's rank scores equal b p^alpha written out (relative difference <= 1e-12) and its order is the "
          "descending order of r, in every auction of random bids and pClicks, alpha 0.5 to 2",
          evidence=("yi/auction_formula_checks.csv",),
          revised=OUR_CHECK),
    Claim("yi-S21-gsp-price", "Section 2.1",
          "In a GSP auction, CPC depends on the next higher bidder's bid amount, c_i = b_{i+1} p_{i+1}^alpha / "
          "p_i^alpha", "check",
          "allocate's price per click equals the formula written out (difference <= 1e-12 of the bid) in every "
          "auction of random bids and pClicks without reserves", evidence=("yi/auction_formula_checks.csv",),
          revised=OUR_CHECK),
    Claim("yi-check-history-threshold", "Section 4.6",
          "a historic CTR at a slot is used when the pair has enough impressions there; the threshold chosen by "
          "cross-validation on the logs predicts held-out logged clicks better than 'any impression' (threshold 1)",
          "check", "held-out squared error at the chosen threshold < at threshold 1", world=_W5,
          evidence=("yi/history_threshold.csv",)),
)


# -- the ledger ---------------------------------------------------------------------------------------------------
def _add_table5(ledger, ref, exp, bd, calibration, fx, cx, model_1, model_2, accepted, fam, fam_c, family) -> None:
    """Table 5 and Figs. 3-4: ``fx`` and ``cx`` are the world's and the control's :func:`seed_effects`."""
    t5, _ = printed_tables(ref)
    ob, off = exp.online_base, exp.offline
    note = calibration_note(model_1, model_2, calibration)
    for cid, col, val in (("yi-T5-rig-size", "RIG", off["rig_delta"]), ("yi-T5-auc-size", "AUC", off["auc_delta"])):
        ledger.calibration(cid, printed=t5[col], value=100 * val, rtol=0.5, note=note)
    ends = ", ".join(f"{r.low_shift:g} log-odds (noise {r.noise_sd:g})" for r in family.itertuples())
    for cid, col, field, key, main in (("yi-T5-cy-size", "CY", "online_cy_delta", "online_cy", ob.cy_delta),
                                       ("yi-T5-mlcy-size", "Mainline CY", "online_ml_cy_delta", "online_ml_cy",
                                        ob.ml_cy_delta)):
        printed = reference.parse_printed(t5[col])
        span, span_c = fam[key], fam_c[key]
        a = accepted
        lo, hi = a.loc[a[field].idxmin()], a.loc[a[field].idxmax()]
        text = (f"the accepted family: on the main seed {len(a)} over-estimations ({a['low_shift'].min():g} to "
                f"{a['low_shift'].max():g} log-odds, each at its best model-1 noise) meet both offline calibrations "
                f"within 50% and give online deltas from {100 * lo[field]:+.1f}% ({lo['low_shift']:g} log-odds) to "
                f"{100 * hi[field]:+.1f}% ({hi['low_shift']:g}) (yi/table5_offline_accepted.csv); over the block's "
                f"seeds its ends ({ends}) and the fitted world (noise {model_1['noise_sd']:g}, "
                f"{model_2['low_shift']:g} log-odds) span median {span['lo'].median():+.1f}% to "
                f"{span['hi'].median():+.1f}% (lowest on any seed {span['lo'].min():+.1f}%), the printed {printed:+.2f}% "
                f"{'inside' if span['lo'].median() <= printed <= span['hi'].median() else 'outside'} it; without "
                f"the over-estimation (the sweep's control world) median {span_c['lo'].median():+.1f}% "
                "(yi/seed_sweep_table5_family.csv); no other printed number narrows the family (Figs. 3-4 print no "
                "values)")
        ledger.estimate(cid, world=_depth(span, printed), control=_depth(span_c, printed), paper_value=t5[col],
                        main_seed=f"the fitted world {100 * main:+.1f}%", note=text)
    ledger.estimate("yi-T5-sweep", world=(fx, "t5_gain_and_loss"), control=(cx, "t5_gain_and_loss"),
                    paper_value=f"AUC {t5['AUC']}, RIG {t5['RIG']}; CY {t5['CY']}, mainline CY {t5['Mainline CY']}",
                    main_seed=f"AUC {100 * off['auc_delta']:+.2f}%, RIG {100 * off['rig_delta']:+.1f}%; CY "
                              f"{100 * ob.cy_delta:+.1f}% (se {100 * ob.cy_delta.standard_error:.1f}), mainline CY "
                              f"{100 * ob.ml_cy_delta:+.1f}% (se {100 * ob.ml_cy_delta.standard_error:.1f})",
                    why="per-seed deltas of both worlds in yi/seed_sweep.csv and yi/seed_sweep_control.csv")
    pe2 = bd.loc[bd["model"] == "model-2", "prediction_error"].to_numpy(float)
    k = max(1, len(pe2) * 3 // 10)
    ledger.estimate("yi-F34-sweep", world=(fx, "f34_low_overestimate"), control=(cx, "f34_low_overestimate"),
                    main_seed=f"model-2's PE low {np.nanmean(pe2[:k]):+.2f}, high {np.nanmean(pe2[-k:]):+.3f}",
                    why="per-seed PE_low and PE_high of model-2 (pe2_low, pe2_high) in yi/seed_sweep.csv and "
                        "yi/seed_sweep_control.csv: 'substantially' and 'much less' are magnitudes, judged against "
                        "delta = 0.05 of the CTR")
    s_low, s_high = low_high_gap(bd, "log_loss_share")
    ledger.estimate("yi-F3-sweep", world=(fx, "f3_share_gap_low"), control=(cx, "f3_share_gap_low"),
                    main_seed=f"share gap low {s_low:+.4f}, high {s_high:+.4f}",
                    why="per-seed gaps in yi/seed_sweep.csv (f3_share_gap_low)")


def _add_table6(ledger, ref, exp, fx) -> None:
    """Table 6's simulator sentence on the Table 5 world (``fx``: the world's :func:`seed_effects`)."""
    _, t6 = printed_tables(ref)
    pairs = "; ".join(f"{k} {100 * a:+.1f}% vs {100 * b:+.1f}%" for k, (a, b) in offline_online_pairs(exp).items())
    paper_agree = (f"CY {t6['simulated CY']} vs {t6['online CY']}; mainline {t6['simulated Mainline CY']} vs "
                   f"{t6['online Mainline CY']}")
    ledger.estimate("yi-T6-sim-agrees-sweep", world=(fx, "sim_miss"), paper_value=paper_agree, main_seed=pairs,
                    note="the claim is the simulator's accuracy, which must hold with or without the mechanism: no "
                         "control world switches it off")


def _add_table6_model(ledger, ref, exp6, fx6, cx6, t6_miscalibration) -> None:
    """Table 6 on its own world (``fx6``, ``cx6``: the world's and the control's :func:`seed_effects`)."""
    _, t6 = printed_tables(ref)
    ledger.calibration("yi-T6b-rig-size", printed=t6["offline RIG"], value=100 * exp6.offline["rig_delta"], rtol=0.5,
                       note=f"the Table 6 baseline's over-estimation, {t6_miscalibration['low_shift']:g} log-odds "
                            f"(switch width {t6_miscalibration['width']:g}), fitted on the main seed's logs; the fitted "
                            "knob's target, not evidence")
    o6, obest6 = table6_outcomes(exp6), exp6.online_best
    pairs = "; ".join(f"{k} {100 * a:+.1f}% vs {100 * b:+.1f}%" for k, (a, b) in offline_online_pairs(exp6).items())
    ledger.estimate("yi-T6b-sim-agrees-sweep", world=(fx6, "sim_miss"), main_seed=pairs,
                    paper_value=f"CY {t6['simulated CY']} vs {t6['online CY']}; mainline {t6['simulated Mainline CY']} "
                                f"vs {t6['online Mainline CY']}",
                    note="the claim is the simulator's accuracy, which must hold with or without the mechanism: no "
                         "control world switches it off",
                    why="where a simulated delta misses, it is at the best point (yi/seed_sweep_table6_model.csv): at "
                        "the sweep's scale many selected ads have no logged record at their simulated slot, and the "
                        "A/B delta's own standard error is about 1.5 pp")
    ledger.estimate("yi-T6b-auc-rig-disagree-sweep", world=(fx6, "offline_miss_best"),
                    control=(cx6, "offline_miss_best"),
                    paper_value=f"AUC {t6['offline AUC']}, RIG {t6['offline RIG']} vs CY {t6['online CY']}",
                    main_seed=f"AUC {100 * o6['auc_delta']:+.2f}%, RIG {100 * o6['rig_delta']:+.1f}% vs best-point CY "
                              f"{100 * o6['best_online_cy_delta']:+.1f}%",
                    why="in the control world the two models are the same predictions: AUC and RIG deltas of exactly "
                        "0 beside the best point's online CY delta (yi/seed_sweep_table6_model_control.csv)")
    ledger.estimate("yi-T6b-best-point-gains-sweep", world=(fx6, "best_online_cy"), control=(cx6, "best_online_cy"),
                    paper_value=t6["online CY"],
                    main_seed=f"{100 * obest6.cy_delta:+.1f}% (se {100 * obest6.cy_delta.standard_error:.1f}; "
                              f"alpha {exp6.op_best.alpha:g})",
                    why="in the control world the baseline serves the new model's own predictions, yet the new model "
                        "at its best simulated operating point may gain online CY: part of a gain is the operating "
                        "point the simulation chose, not the predictions (yi/seed_sweep_table6_model_control.csv)")
    ledger.estimate("yi-T6b-offline-shape-sweep", world=(fx6, "offline_shape"), control=(cx6, "offline_shape"),
                    paper_value=f"AUC {t6['offline AUC']}, RIG {t6['offline RIG']}",
                    main_seed=f"AUC {100 * o6['auc_delta']:+.2f}%, RIG {100 * o6['rig_delta']:+.1f}%")
    sizes = (("offline AUC", "auc", "auc"), ("simulated CY", "sim-cy", "best_sim_cy_delta"),
             ("simulated Mainline CY", "sim-mlcy", "best_sim_ml_cy_delta"), ("online CY", "cy", "best_online_cy"),
             ("online Mainline CY", "mlcy", "best_online_ml_cy_delta"))
    main = {"auc": o6["auc_delta"], "best_online_cy": o6["best_online_cy_delta"]}
    for col, key, field in sizes:
        ledger.estimate(f"yi-T6b-{key}-size", world=(fx6, field), control=(cx6, field), printed=t6[col],
                        main_seed=100 * main.get(field, o6.get(field, np.nan)), detail=col,
                        why="the paper describes its Table 6 models only by their deltas; with the one knob fitted to "
                            "the RIG delta the sizes are what the mechanism gives, their shape is the check "
                            "yi-T6b-offline-shape-sweep (an AUC delta is 0 by construction: the two models share "
                            "their ranking, and the mainline AUC of the models' own pClicks sees only the ranking)")


def _add_reliability(ledger, ref, exp, fx, cx) -> None:
    """Section 7 on the printed tables and on the Table 5 world (``fx``, ``cx``: :func:`seed_effects`)."""
    t5, t6 = printed_tables(ref)
    v = {k: reference.parse_printed(x) for k, x in t6.items()}
    closer = all(abs(v[f"simulated {m}"] - v[f"online {m}"]) < min(abs(v["offline AUC"] - v[f"online {m}"]),
                                                                   abs(v["offline RIG"] - v[f"online {m}"]))
                 for m in ("CY", "Mainline CY"))
    ledger.check("yi-S7-simulated-reliable", holds=closer,
                 paper_value=f"simulated CY {t6['simulated CY']} / mainline {t6['simulated Mainline CY']}, AUC "
                             f"{t6['offline AUC']}, RIG {t6['offline RIG']}; online CY {t6['online CY']} / mainline "
                             f"{t6['online Mainline CY']}", reproduced_value="recomputed from the printed cells")
    off, sim, ob = exp.offline, exp.simulated, exp.online_base
    ledger.estimate("yi-S7-simulated-reliable-sweep", world=(fx, "sim_closer"), control=(cx, "sim_closer"),
                    why="per-seed deltas of both worlds in yi/seed_sweep.csv and yi/seed_sweep_control.csv: without "
                        "the over-estimation the offline deltas lie nearer the online one too",
                    main_seed=f"simulated CY {100 * sim['cy_delta']:+.1f}%, AUC {100 * off['auc_delta']:+.2f}%, RIG "
                              f"{100 * off['rig_delta']:+.1f}% vs online CY {100 * ob.cy_delta:+.1f}%")
    ledger.estimate("yi-S7-auc-better-than-rig-sweep", world=(fx, "auc_closer"), control=(cx, "auc_closer"),
                    why="over the seeds the RIG delta spreads widely -- the offline fit sits where RIG falls steeply "
                        "with the over-estimation -- and where it is low it lies nearer the online loss than the AUC "
                        "delta; per-seed values in yi/seed_sweep.csv",
                    main_seed=f"AUC {100 * off['auc_delta']:+.2f}%, RIG {100 * off['rig_delta']:+.1f}% vs online CY "
                              f"{100 * ob.cy_delta:+.1f}%")
    fails = [not agrees(reference.parse_printed(auc) / 100, reference.parse_printed(cy) / 100)
             for auc, cy in ((t5["AUC"], t5["CY"]), (t6["offline AUC"], t6["online CY"]))]
    ledger.check("yi-S7-auc-not-sufficient", holds=all(fails),
                 paper_value="; ".join(f"{table}: AUC {auc} vs CY {cy}" for table, auc, cy in (
                     ("Table 5", t5["AUC"], t5["CY"]), ("Table 6", t6["offline AUC"], t6["online CY"]))),
                 reproduced_value=f"agreement test fails: Table 5 {'yes' if fails[0] else 'no'}, Table 6 "
                                  f"{'yes' if fails[1] else 'no'}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class YiRun:
    """Everything the notebook shows and :func:`add_claims` fills the ledger from (:func:`run_experiment`).

    ``ref``: the printed numbers; ``sweep``, ``control``, ``sweep6``, ``control6`` and ``fam`` (the sweep of Table 5's
    accepted family, ``family``: its two ends) map each seed block to its sweep frame."""

    ref: pd.DataFrame
    t5_printed: pd.Series
    t6_printed: pd.Series
    model_1: dict
    model_2: dict
    calibration: pd.DataFrame
    accepted: pd.DataFrame
    history: pd.DataFrame
    min_impressions: int
    exp: Experiment
    t5: pd.DataFrame
    bd: pd.DataFrame
    t6: pd.DataFrame
    t6_miscalibration: dict
    t6_calibration: pd.DataFrame
    exp6: Experiment
    t6b: pd.DataFrame
    formulas: pd.DataFrame
    sweep: dict
    control: dict
    sweep6: dict
    control6: dict
    family: pd.DataFrame
    fam: dict


def run_experiment(ref: pd.DataFrame, blocks: SeedBlocks, *, seed: int = 0, n_queries: int = 2000, n_log: int = 100_000,
                   n_ab: int = 200_000, baseline_quantile: float = 0.6, n_quantiles: int = 10,
                   sweep_n_queries: int = 2000, sweep_n_log: int = 100_000, sweep_n_ab: int = 100_000,
                   t6_low_ctr: float = 0.004) -> YiRun:
    """The notebook's experiment: the Table 5 models calibrated on the offline deltas, the offline-accepted
    worlds, the history threshold and the Table 6 model's calibration; then the four seed sweeps (the Table 5
    model and the Table 6 model, each with its control world, on each seed block) in one pool of workers
    (:func:`~._worlds.paired_sweeps_in_workers`), the two main runs computed here meanwhile; the main runs'
    breakdown, Tables 5 and 6, and the formula checks.  Parameters as in the notebook's parameters cell."""
    t5_printed, t6_printed = printed_tables(ref)
    target_auc = reference.parse_printed(t5_printed["AUC"]) / 100
    target_rig = reference.parse_printed(t5_printed["RIG"]) / 100
    world = dict(n_queries=n_queries, n_log=n_log, baseline_quantile=baseline_quantile)
    model_1, model_2, calibration = calibrate_models(seed, target_auc, target_rig, **world)
    accepted = offline_accepted_worlds(seed, calibration, target_auc, target_rig, n_ab=sweep_n_ab, **world)
    history = cross_validate_history(seed, model_1=model_1, model_2=model_2, **world)
    min_impressions = int(history.loc[history["chosen"], "min_impressions"].iloc[0])
    sweep_kw = dict(n_queries=sweep_n_queries, n_log=sweep_n_log, n_ab=sweep_n_ab, baseline_quantile=baseline_quantile,
                    min_impressions=min_impressions)
    t6_target_rig = reference.parse_printed(t6_printed["offline RIG"]) / 100
    t6_miscalibration, t6_calibration = calibrate_table6(seed, t6_target_rig, low_ctr=t6_low_ctr, **world)
    # The four seed sweeps (Table 5's model and the Table 6 model, each beside its control world, on each seed
    # block) in one pool of workers, the two main runs here meanwhile: every seed draws from itself alone, so the
    # order changes no number.
    t5 = functools.partial(per_seed_worlds, model_2s=(model_2, CONTROL_MODEL_2), n_quantiles=n_quantiles,
                           model_1=model_1, **sweep_kw)
    t6 = functools.partial(per_seed_table6_worlds, miscalibrations=(t6_miscalibration,
                                                                    {**t6_miscalibration, "low_shift": 0.0}), **sweep_kw)
    sweeps = [(t5, blocks.seeds(b), "per_seed (a world and its control)") for b in blocks.BLOCKS]
    sweeps += [(t6, blocks.seeds(b), "per_seed_table6 (a world and its control)") for b in blocks.BLOCKS]
    # Table 5's accepted family: its two ends on every seed (the fitted world between them is the sweep's)
    family = family_grid(accepted)
    fam = functools.partial(family_seed, members=tuple(map(tuple, family.to_numpy(float))), model_1=model_1,
                            model_2=model_2, **sweep_kw)
    sweeps += [(fam, blocks.seeds(b), "Table 5 accepted family (its two ends)") for b in blocks.BLOCKS]
    frames, (exp, exp6) = paired_sweeps_in_workers(sweeps, alongside=lambda: (
        run(seed, n_ab=n_ab, model_1=model_1, model_2=model_2, min_impressions=min_impressions, **world),
        run(seed, n_ab=n_ab, models="table6", miscalibration=t6_miscalibration, min_impressions=min_impressions,
            **world)))
    n_blocks = len(blocks.BLOCKS)
    sweep, control = (dict(zip(blocks.BLOCKS, x)) for x in zip(*frames[:n_blocks]))
    sweep6, control6 = (dict(zip(blocks.BLOCKS, x)) for x in zip(*frames[n_blocks:2 * n_blocks]))
    fam_w = {b: f[0] for b, f in zip(blocks.BLOCKS, frames[2 * n_blocks:])}
    return YiRun(ref=ref, t5_printed=t5_printed, t6_printed=t6_printed, model_1=model_1, model_2=model_2,
                 calibration=calibration, accepted=accepted, history=history, min_impressions=min_impressions, exp=exp,
                 t5=table5(exp, t5_printed), bd=breakdown(exp, n_quantiles=n_quantiles),
                 t6=table6(exp, t6_printed, panel="Table 5 model"), t6_miscalibration=t6_miscalibration,
                 t6_calibration=t6_calibration, exp6=exp6, t6b=table6(exp6, t6_printed, panel="Table 6 model"),
                 formulas=_formulas.auction_formula_rows(seed), sweep=sweep, control=control, sweep6=sweep6, control6=control6,
                 family=family, fam=fam_w)


def add_claims(ledger, run: YiRun, *, block: str) -> None:
    """Fill :data:`CLAIMS` from ``run`` (:func:`run_experiment`) on the seed block ``block``: the main runs, the
    breakdown, the calibration trace and the fitted models, the offline-accepted worlds, the history table, the
    block's four sweeps and the formula table, beside the printed numbers the run carries.

    ``ledger`` is the notebook's ledger (its ``block`` is filled) or one block's ledger already.
    """
    if block not in run.sweep:
        raise ValueError(f"`block` must be one of {tuple(run.sweep)}; got {block!r}")
    ledger = ledger.block(block) if ledger.blocks else ledger
    ref, exp, exp6, history, formulas = run.ref, run.exp, run.exp6, run.history, run.formulas
    fx, cx, fx6, cx6 = (seed_effects(f[block]) for f in (run.sweep, run.control, run.sweep6, run.control6))
    fam = {k: family_span(run.fam[block], run.sweep[block], k) for k in ("online_cy", "online_ml_cy")}
    fam_c = {k: family_span(None, run.control[block], k) for k in ("online_cy", "online_ml_cy")}
    _add_table5(ledger, ref, exp, run.bd, run.calibration, fx, cx, run.model_1, run.model_2, run.accepted, fam, fam_c,
                run.family)
    _add_table6(ledger, ref, exp, fx)
    _add_table6_model(ledger, ref, exp6, fx6, cx6, run.t6_miscalibration)
    _add_reliability(ledger, ref, exp, fx, cx)
    for cid, idx in (("yi-eq1-rank-score", [0, 1]), ("yi-S21-gsp-price", [2])):
        f = formulas.iloc[idx]
        ledger.check(cid, holds=bool(f["holds"].all()),
                     reproduced_value="; ".join(f"{r.formula}: {r.n_inputs} auctions, max {r.max_abs_diff:.1e}"
                                                for r in f.itertuples()))
    chosen = history.loc[history["chosen"]].iloc[0]
    literal = history.loc[history["min_impressions"] == 1]
    if literal.empty:
        raise ValueError("`history` must include the threshold 1 (yi's literal rule)")
    ledger.check("yi-check-history-threshold", holds=bool(chosen["squared_error"] < literal["squared_error"].iloc[0]),
                 reproduced_value=(f"threshold {int(chosen['min_impressions'])}: {chosen['squared_error']:.1f} vs "
                                   f"{literal['squared_error'].iloc[0]:.1f} at 1"),
                 note="2-fold cross-validation over the logged page views, logs only; in this world the click model is "
                      "exactly position times pair (separable), so pooling a pair's impressions over slots wins "
                      "wherever a slot holds few of them")
