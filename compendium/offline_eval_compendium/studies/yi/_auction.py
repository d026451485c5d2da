"""The world and the experiment of yi Table 5, Figs. 3-4 and Table 6 (the study is :mod:`.offline_online`).

One experiment (:func:`run`) on a synthetic sponsored-search world
(:mod:`offline_eval.synth.sponsored`):

1. a baseline **model-1** (log-odds noise ``noise_1``) serves ``n_log`` page
   views at the baseline operating point; the impressions and clicks are the
   **logs**;
2. **model-2** has less noise (better in the high pClick range) but
   over-estimates the low range (``low_shift`` in log-odds below CTR
   ``low_ctr``) and the high range a little (``high_shift``), as yi describe
   it in Section 6;
3. **offline**: AUC and RIG of both models on the logged impressions (the
   position-unbiased pClick times the click curve estimated from the logs,
   against the logged clicks), and their per-quantile breakdown (Figs. 3-4);
4. **online**: an A/B test on fresh page views (``n_ab`` per arm);
5. **simulated**: every logged auction re-run with model-2's scores, clicks
   estimated from the logs only (:func:`offline_eval.auction.simulate`);
6. an **operating-point sweep** by simulation picks model-2's best (alpha,
   mainline reserve) under a budget of mainline ads per page view no larger
   than the baseline's, and that point is A/B-tested too (yi Section 6.1).

The same protocol runs on a second pair of models, **the Table 6 model**
(``run(..., models="table6")``, :func:`per_seed_table6`): yi's Table 6
model-2 moved AUC by +0.2% and RIG by +78%, so it is not Table 5's model-2.
There the new model is model-1's form (the same draw as Table 5's model-1)
and the baseline that served the logs is *the same predictions* with their
low range over-estimated by an order-preserving map
(:func:`offline_eval.synth.sponsored.overestimate_low_range`,
:data:`MISCALIBRATION`): identical ranking, much worse calibration of poor
ads, which the baseline lets into the auction.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import expit, logit

from offline_eval import auction as au
from ... import reference
from offline_eval.metrics import roc_auc_score, quantile_breakdown, rig_score
from offline_eval.plotting import new_figure
from offline_eval.synth import search_world as sw
from offline_eval.synth import sponsored as sp

__all__ = [
    "AGREEMENT", "CONTROL_MISCALIBRATION", "CONTROL_MODEL_2", "F3_THRESHOLD", "best_and_simulated", "log_served",
    "model_2_pclick",
    "low_high_gap", "make_logs", "logged_rows", "offline_deltas", "offline_pair", "offline_scores", "seeded_world",
    "printed_tables", "MODEL_1", "MODEL_2", "MISCALIBRATION", "Experiment", "agrees", "breakdown",
    "cross_validate_history", "fig3_figure", "fig4_figure", "per_seed", "per_seed_table6", "per_seed_worlds", "run",
    "run_table5_worlds", "table5", "table6", "table6_outcomes",
]

#: Baseline model: the true CTR with log-odds noise of sd 0.6.
MODEL_1 = dict(noise_sd=0.6)
#: model-2: less noise, strong over-estimation of its own pClicks below 0.004, slight above (``over="score"``:
#: the over-estimation follows the model's own score, order-preserving, :func:`model_2_pclick`; ``"ctr"``, the
#: earlier world, follows the true CTR).
MODEL_2 = dict(noise_sd=0.35, low_ctr=0.004, low_shift=4.0, high_shift=0.1, width=0.5, over="score")
#: The Table 6 baseline: the new model's predictions over-estimated below CTR
#: 0.004 by up to 4 log-odds (Table 5 model-2's boundary and size), with the
#: narrowest switch (width 4 / 4 = 1) that keeps their order.
MISCALIBRATION = dict(low_ctr=0.004, low_shift=4.0, width=1.0)
#: The control world of the Table 5 claims: model-2 without its over-estimation (of the low range
#: and, slightly, of the high range) -- the mechanism Section 6 credits for the online loss.
CONTROL_MODEL_2 = {**MODEL_2, "low_shift": 0.0, "high_shift": 0.0}
#: The control world of the Table 6 model: a baseline without its low-range over-estimation (the
#: baseline and the new model are then the same predictions).
CONTROL_MISCALIBRATION = {**MISCALIBRATION, "low_shift": 0.0}
#: Fig. 3's one threshold (main seed and sweep): model-2's log-loss share of the lowest 30% of its quantiles
#: exceeds model-1's by more than this (a share of each model's own total log-loss).
F3_THRESHOLD = 0.01
#: Agreement of a predicted relative delta with the online one: same sign and
#: |predicted - online| <= ABS + REL * |online| (fractions, not percent).
AGREEMENT = dict(abs=0.03, rel=0.25)


def model_2_pclick(ctr, rng, *, over="ctr", noise_sd=0.35, low_ctr=0.004, low_shift=0.0, high_shift=0.0,
                   width=0.5) -> np.ndarray:
    """Model-2's predictions: the true CTR with log-odds noise, over-estimated in its low range.

    ``over="ctr"`` (the earlier world): ``distorted_pclick(ctr, rng, ...)``, the over-estimation a function of
    the ad's *true* CTR, so an over-estimated poor ad leaves the low pClick range.  ``over="score"`` (yi Section
    6: "Model-2 substantially overestimates the pClick scores on the quantiles in lower pClick score range"):
    the noisy predictions ``p`` (the same draws) are over-estimated as a function of their *own* value, in
    log-odds ``x + high_shift * s((x - x0) / w) + low_shift * s((x0 - x) / w)`` with ``x = logit(p)``,
    ``x0 = logit(low_ctr)``, ``s`` the logistic function and ``w = max(|low_shift - high_shift| / 4, width)``,
    the narrowest switch that keeps their order (the map of
    :func:`offline_eval.synth.sponsored.overestimate_low_range`, of ``low_shift - high_shift``, on top of
    ``high_shift`` everywhere: the same map, since s(a) + s(-a) = 1).
    """
    if over not in ("ctr", "score"):
        raise ValueError(f"`over` must be 'ctr' or 'score'; got {over!r}")
    kw = dict(noise_sd=noise_sd, low_ctr=low_ctr, width=width)
    if over == "ctr":
        return sp.distorted_pclick(ctr, rng, low_shift=low_shift, high_shift=high_shift, **kw)
    p = sp.distorted_pclick(ctr, rng, **kw)
    d = float(low_shift) - float(high_shift)
    w = max(abs(d) / 4, float(width))
    shift = float(high_shift) + d * expit((logit(low_ctr) - logit(p)) / w)
    m = np.exp(np.minimum(shift, 700.0))  # the odds times exp(shift): full relative precision at small p
    return np.clip(p * m / (1.0 - p + p * m), 1e-12, 1 - 1e-12)


def agrees(predicted: float, online: float, *, abs_tol=AGREEMENT["abs"], rel_tol=AGREEMENT["rel"]) -> bool:
    """True when ``predicted`` has the sign of ``online`` and is within ``abs_tol + rel_tol * |online|``."""
    return bool(np.sign(predicted) == np.sign(online) and abs(predicted - online) <= abs_tol + rel_tol * abs(online))


@dataclass
class Experiment:
    """Everything one run produces (see :func:`run`)."""

    world: sp.SponsoredWorld
    p1: np.ndarray
    p2: np.ndarray
    op_base: au.OperatingPoint
    op_best: au.OperatingPoint
    log: au.ClickLog
    logged: au.Impressions
    offline: dict
    online_base: au.ABTest
    online_best: au.ABTest
    simulated: dict
    sweep: pd.DataFrame
    scores: dict


def seeded_world(seed, n_queries, world_kwargs):
    """The world of ``seed`` and the generators of the run's later steps (models, logs, the two A/B tests)."""
    r_world, r_models, r_log, r_ab1, r_ab2 = np.random.default_rng(seed).spawn(5)
    return sp.make_world(r_world, n_queries=n_queries, **(world_kwargs or {})), r_models, r_log, r_ab1, r_ab2


def make_logs(world, r_models, r_log, *, n_log, baseline_quantile, models, model_1, model_2, miscalibration,
          min_impressions=1):
    """The two models' predictions and the baseline's logs (steps 1-2 of :func:`run`)."""
    if models == "table5":
        p1 = sp.distorted_pclick(world.ctr, r_models, **model_1)
        p2 = model_2_pclick(world.ctr, r_models, **model_2)
    else:
        p2 = sp.distorted_pclick(world.ctr, r_models, **model_1)
        p1 = sp.overestimate_low_range(p2, **miscalibration)
    pv, op_base, logged, log = _serve_logs(world, p1, r_log, n_log=n_log, baseline_quantile=baseline_quantile,
                                           min_impressions=min_impressions)
    return p1, p2, pv, op_base, logged, log


def _serve_logs(world, p1, r_log, *, n_log, baseline_quantile, min_impressions):
    """The baseline's page views, operating point, impressions and click log (the second half of :func:`make_logs`)."""
    pv = sp.sample_page_views(world, n_log, r_log)
    return (pv, *log_served(world, p1, pv, r_log, baseline_quantile=baseline_quantile, min_impressions=min_impressions))


def log_served(world, p1, pv, r_log, *, baseline_quantile, min_impressions):
    """The baseline's operating point, impressions and click log on the page views ``pv`` (:func:`make_logs`, after
    its page views were drawn from ``r_log``, which then draws the clicks)."""
    r_bids = pv.bids * p1[pv.query]
    op_base = au.OperatingPoint(1.0, 0.0, float(np.quantile(r_bids[r_bids > 0], baseline_quantile)))
    logged = sw.serve(world, p1, pv, op=op_base, rng=r_log)
    log = au.ClickLog.from_impressions(pv, logged, n_queries=world.n_queries, n_candidates=world.n_candidates,
                                       n_slots=world.n_slots, min_impressions=min_impressions)
    return op_base, logged, log


def offline_deltas(p1, p2, logged, log, n_mainline):
    """Step 3 of :func:`run`: AUC and RIG of both models on the logged impressions.

    ``auc_*`` is the AUC the paper's logs give for its Tables 5-6: the
    model's own score -- the position-unbiased pClick that Section 4.1's
    recipe sorts ("sort records with descending order of the model predicted
    scores") -- on the **mainline** impressions only (Section 4.1: "AUC,
    especially AUC measured only on mainline ads, is one of the most reliable
    indicators"; Section 7: "AUC measured only on mainline ads are most
    reliable for search advertising").  ``auc_all_*`` is the earlier reading:
    every logged impression, scored by pClick times the logs' click curve at
    its slot.  RIG (eq. 2) needs a probability of the logged click, so its
    score is pClick times the logs' click curve at the slot, on every logged
    impression.
    """
    rows = logged_rows(logged, log, n_mainline)
    (s1, m1), (s2, m2) = (offline_scores(p, logged, log, n_mainline, rows=rows) for p in (p1, p2))
    return rows["y"], s1, s2, offline_pair(m1, m2)


def offline_scores(p, logged, log, n_mainline, y=None, rows=None):
    """One model's half of :func:`offline_deltas`: its RIG score on the logged impressions and its metrics
    (``auc``, ``auc_all``, ``rig``); a calibration grid computes model-1's once per log.  ``rows``: the log's
    :func:`logged_rows`, when several models are scored on one log."""
    if np.shape(p) != log.pair_ctr.shape:
        raise ValueError(f"`p` must have the log's (query, candidate) shape {log.pair_ctr.shape}; got {np.shape(p)}")
    if rows is None:
        rows = logged_rows(logged, log, n_mainline, y)
    y, ml = rows["y"], rows["ml"]
    q = p.ravel()[rows["cell"]]  # p[logged.query, logged.ad] by one flat gather: the same values
    s = q * rows["curve"]
    return s, dict(auc=roc_auc_score(rows["y_ml"], q[ml]), auc_all=roc_auc_score(y, s), rig=rig_score(y, s))


def logged_rows(logged, log, n_mainline, y=None) -> dict:
    """What :func:`offline_scores` takes of the logs whatever the model: the clicks ``y`` (int8), each
    impression's (query, ad) cell, the logs' click curve at its slot, the mainline mask and the mainline clicks."""
    y = logged.click.astype(np.int8) if y is None else y
    ml = logged.slot < n_mainline
    return dict(y=y, ml=ml, y_ml=y[ml], cell=logged.query * log.pair_ctr.shape[1] + logged.ad,
                curve=log.click_curve[logged.slot])


def offline_pair(m1: dict, m2: dict) -> dict:
    """The ``offline`` dict of :func:`offline_deltas` from the two models' :func:`offline_scores`."""
    offline = dict(auc_1=m1["auc"], auc_2=m2["auc"], auc_all_1=m1["auc_all"], auc_all_2=m2["auc_all"],
                   rig_1=m1["rig"], rig_2=m2["rig"])
    offline["auc_delta"] = offline["auc_2"] / offline["auc_1"] - 1
    offline["auc_all_delta"] = offline["auc_all_2"] / offline["auc_all_1"] - 1
    offline["rig_delta"] = offline["rig_2"] / offline["rig_1"] - 1
    return offline


def cross_validate_history(seed, *, n_queries=2000, n_log=100_000, baseline_quantile=0.6, models="table5",
                           model_1=MODEL_1, model_2=MODEL_2, miscalibration=MISCALIBRATION, world_kwargs=None,
                           grid=au.MIN_IMPRESSIONS_GRID, n_folds=2) -> pd.DataFrame:
    """The simulator's history threshold chosen on the logs of :func:`run`'s world (same draws), by cross-validation.

    yi Section 4.6 replays a logged auction with the historic CTR of the ad
    at its new slot when there is one, else its CTR calibrated by position.
    Bing's logs hold a large number of impressions per (query, ad, slot); the
    simulated logs (``n_log`` page views) hold a handful for most, and a CTR
    from a handful of impressions is unbiased but skewed, so a replay summing
    many of them typically comes out low.  How many impressions make a
    historic CTR "available" is therefore chosen from the logs alone
    (:func:`offline_eval.auction.cross_validate_min_impressions`: held-out
    clicks of the logged page views, ``n_folds`` folds, no true CTR and no
    online result).  Returns its table (``min_impressions``,
    ``squared_error``, ``chosen``).
    """
    world, r_models, r_log, _, _ = seeded_world(seed, n_queries, world_kwargs)
    _, _, pv, _, logged, _ = make_logs(world, r_models, r_log, n_log=n_log, baseline_quantile=baseline_quantile,
                                   models=models, model_1=model_1, model_2=model_2, miscalibration=miscalibration)
    return au.cross_validate_min_impressions(pv, logged, n_queries=world.n_queries, n_candidates=world.n_candidates,
                                             n_slots=world.n_slots, grid=grid, n_folds=n_folds, rng=seed)


def run(seed, *, n_queries=2000, n_log=100_000, n_ab=200_000, baseline_quantile=0.6,
        alphas=(0.5, 1.0, 1.5, 2.0), mainline_quantiles=(0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
        models="table5", model_1=MODEL_1, model_2=MODEL_2, miscalibration=MISCALIBRATION,
        world_kwargs=None, min_impressions=1) -> Experiment:
    """Run the whole experiment for one seed (all draws from ``default_rng(seed)``).

    ``min_impressions`` is the simulator's threshold for a historic CTR at a
    slot (:class:`offline_eval.auction.ClickLog`; see
    :func:`cross_validate_history`).

    ``baseline_quantile`` places the baseline's mainline reserve at that
    quantile of the baseline's rank scores (alpha 1, no sidebar reserve).

    ``models`` picks the pair (``Experiment.p1`` is the baseline that serves
    the logs, ``p2`` the new model):

    ``"table5"``
        model-1 = ``distorted_pclick(ctr, **model_1)``, model-2 =
        ``model_2_pclick(ctr, **model_2)`` (yi Table 5);
    ``"table6"``
        model-2 = ``distorted_pclick(ctr, **model_1)`` (the very draw of
        Table 5's model-1: same seed, same world) and the baseline =
        ``overestimate_low_range(model-2, **miscalibration)``: the same
        ranking with the low range over-estimated (yi Table 6).

    The world and the logged page views are the same for both pairs.
    """
    if models not in ("table5", "table6"):
        raise ValueError(f"`models` must be 'table5' or 'table6'; got {models!r}")
    world, r_models, r_log, r_ab1, r_ab2 = seeded_world(seed, n_queries, world_kwargs)
    p1, p2, pv, op_base, logged, log = make_logs(world, r_models, r_log, n_log=n_log, baseline_quantile=baseline_quantile,
                                             min_impressions=min_impressions,
                                             models=models, model_1=model_1, model_2=model_2,
                                             miscalibration=miscalibration)
    return _experiments(world, p1, [p2], op_base, logged, log, r_ab1, r_ab2, n_ab=n_ab, alphas=alphas,
                        mainline_quantiles=mainline_quantiles)[0]


def run_table5_worlds(seed, model_2s, *, n_queries=2000, n_log=100_000, n_ab=200_000, baseline_quantile=0.6,
                      alphas=(0.5, 1.0, 1.5, 2.0), mainline_quantiles=(0.4, 0.5, 0.6, 0.7, 0.8, 0.9), model_1=MODEL_1,
                      world_kwargs=None, min_impressions=1) -> list[Experiment]:
    """:func:`run` of the Table 5 pair for each model-2 of ``model_2s`` (a world and its control world), the
    baseline's half done once.

    The worlds differ only in model-2: the same seed gives the same world, model-1, logs, model-1's offline
    metrics and simulation and the A/B tests' control arms, and each model-2 is drawn from the same point of the
    models' stream (the same error draws), as a separate :func:`run` would draw it.  So element ``i`` equals
    ``run(seed, model_2=model_2s[i], ...)`` and costs a model-2's half of it.
    """
    world, r_models, r_log, r_ab1, r_ab2 = seeded_world(seed, n_queries, world_kwargs)
    p1 = sp.distorted_pclick(world.ctr, r_models, **model_1)
    p2s = [model_2_pclick(world.ctr, copy.deepcopy(r_models), **m2) for m2 in model_2s]
    op_base, logged, log = _serve_logs(world, p1, r_log, n_log=n_log, baseline_quantile=baseline_quantile,
                                       min_impressions=min_impressions)[1:]
    return _experiments(world, p1, p2s, op_base, logged, log, r_ab1, r_ab2, n_ab=n_ab, alphas=alphas,
                        mainline_quantiles=mainline_quantiles)


def _experiments(world, p1, p2s, op_base, logged, log, r_ab1, r_ab2, *, n_ab, alphas, mainline_quantiles):
    """Steps 3-6 of :func:`run` for the baseline ``p1`` and each new model of ``p2s`` on one log: the baseline's
    half (its offline metrics, its simulation, the A/B tests' control arms) once."""
    rows = logged_rows(logged, log, world.n_mainline)
    y = rows["y"]
    s1, m1 = offline_scores(p1, logged, log, world.n_mainline, rows=rows)
    sim1 = au.simulate_served(log, logged)  # the baseline at its own point shows the logged ads: no re-run
    # 0.95 (an almost empty mainline) is always in the grid, so the mainline budget can be met
    grid = sorted(set(float(q) for q in mainline_quantiles) | {0.95})
    parts = []
    for p2 in p2s:
        s2, m2 = offline_scores(p2, logged, log, world.n_mainline, rows=rows)
        # model-2 at the baseline point shares the sweep's ranking at its alpha
        sweep, (sim2,) = au.sweep_operating_points(log, p2, alphas=alphas, mainline_quantiles=grid, points=[op_base])
        op_best, simulated = best_and_simulated(sweep, sim1, sim2)
        parts.append((p2, s2, offline_pair(m1, m2), simulated, sweep, op_best))
    online_base = sw.ab_tests(world, (p1, op_base), [(p2, op_base) for p2, *_ in parts], n_page_views=n_ab, rng=r_ab1)
    online_best = sw.ab_tests(world, (p1, op_base), [(part[0], part[5]) for part in parts], n_page_views=n_ab,
                               rng=r_ab2)
    return [Experiment(world, p1, p2, op_base, op_best, log, logged, offline, base, best, simulated, sweep,
                       dict(y=y, s1=s1, s2=s2))
            for (p2, s2, offline, simulated, sweep, op_best), base, best in zip(parts, online_base, online_best)]


def best_and_simulated(sweep, sim1, sim2):
    """The best point of model-2's ``sweep`` under the baseline's mainline budget and the ``simulated`` dict of an
    :class:`Experiment` (the baseline's and model-2's simulations at the baseline point, ``sim1`` and ``sim2``)."""
    op_best, best_row = au.best_operating_point(sweep, max_ml_ads_per_pv=sim1.ml_ads_per_pv)
    return op_best, dict(
        base_cy=sim1.cy, base_ml_cy=sim1.ml_cy, base_ml_ads_per_pv=sim1.ml_ads_per_pv,
        cy_delta=sim2.cy / sim1.cy - 1, ml_cy_delta=sim2.ml_cy / sim1.ml_cy - 1,
        best_cy_delta=best_row["cy"] / sim1.cy - 1, best_ml_cy_delta=best_row["ml_cy"] / sim1.ml_cy - 1,
        share_same_slot=sim2.share_same_slot, share_calibrated=sim2.share_calibrated,
        share_reference=sim2.share_reference,
    )


def table5(exp: Experiment, printed: dict) -> pd.DataFrame:
    """yi Table 5: relative deltas (%) of model-2 over model-1, paper beside ours.

    ``printed`` maps the columns ``AUC, RIG, CY, Mainline CY`` to the paper's cells.
    """
    ours = {"AUC": exp.offline["auc_delta"], "RIG": exp.offline["rig_delta"],
            "CY": exp.online_base.cy_delta, "Mainline CY": exp.online_base.ml_cy_delta}
    se = {"CY": exp.online_base.cy_delta.standard_error, "Mainline CY": exp.online_base.ml_cy_delta.standard_error}
    return pd.DataFrame([
        dict(metric=k, kind="offline" if k in ("AUC", "RIG") else "online", paper=printed[k],
             reproduced_pct=100 * v, se_pct=100 * se[k] if k in se else np.nan)
        for k, v in ours.items()
    ])


def table6(exp: Experiment, printed: dict | None = None, *, panel: str | None = None) -> pd.DataFrame:
    """yi Table 6: offline, simulated and online deltas (%) of model-2, at two operating points.

    Row ``baseline operating point``: model-2 served with the baseline's
    (alpha, reserves) -- the Table 5 test.  Row ``best simulated operating
    point``: the point the simulation sweep picks for model-2.  With
    ``printed`` (column -> printed cell) a first row holds the paper's values.
    With ``panel`` a first column ``panel`` holds that label (two-panel
    Table 6: the Table 5 model and the Table 6 model, concatenated).
    """
    rows = []
    if printed is not None:
        rows.append({"model-2 at": "paper (yi Table 6)",
                     **{k: reference.parse_printed(v) for k, v in printed.items()}})
    for label, on, sim_cy, sim_ml, op in (
        ("baseline operating point", exp.online_base, exp.simulated["cy_delta"], exp.simulated["ml_cy_delta"], exp.op_base),
        ("best simulated operating point", exp.online_best, exp.simulated["best_cy_delta"], exp.simulated["best_ml_cy_delta"], exp.op_best),
    ):
        rows.append({
            "model-2 at": label, "alpha": op.alpha, "mainline_reserve": op.mainline_reserve,
            "offline AUC": 100 * exp.offline["auc_delta"], "offline RIG": 100 * exp.offline["rig_delta"],
            "simulated CY": 100 * sim_cy, "simulated Mainline CY": 100 * sim_ml,
            "online CY": 100 * on.cy_delta, "online CY se": 100 * on.cy_delta.standard_error,
            "online Mainline CY": 100 * on.ml_cy_delta, "online Mainline CY se": 100 * on.ml_cy_delta.standard_error,
        })
    df = pd.DataFrame(rows, columns=list(rows[-1]))
    if panel is not None:
        df.insert(0, "panel", panel)
    return df


def breakdown(exp: Experiment, *, n_quantiles=10) -> pd.DataFrame:
    """Figs. 3-4: each model per quantile of its own logged score (long table, ``model`` column).

    yi: "Figure 3 compares log-loss [4] of two click prediction models ... of each quantile within the
    typical range of pClick scores of interest. Model-2 substantially overestimates the pClick scores on the
    quantiles in lower pClick score range": each model's quantiles are those of its own pClick (binning both
    by model-1's pClick, the earlier reading, gives a less noisy model-2 a positive low-quantile gap by
    regression to the mean alone).
    """
    return _breakdown(exp, n_quantiles)[0]


def _breakdown(exp, n_quantiles, model_1=None):
    """:func:`breakdown` and its model-1 part; ``model_1``, that part of an experiment on the same logs and scores
    (the worlds of :func:`run_table5_worlds`), is reused."""
    y, s1, s2 = exp.scores["y"], exp.scores["s1"], exp.scores["s2"]
    frames = []
    for name, s in (("model-1", s1), ("model-2", s2)):
        if name == "model-1" and model_1 is not None:
            frames.append(model_1)
            continue
        t = quantile_breakdown(y, s, n_quantiles=n_quantiles, by=s)
        t.insert(0, "model", name)
        frames.append(t)
    return pd.concat(frames, ignore_index=True), frames[0]


def _quantile_plot(bd, column, ylabel, title):
    fig, ax = new_figure(1, 1, width="single", height=2.5)
    for name, t in bd.groupby("model", sort=True):
        ax.plot(t["quantile"], t[column], "-o", ms=3, label=name)
    ax.set_xlabel("quantile of the model's own pClick (low to high)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend()
    return fig


def fig3_figure(bd):
    """Share of total log-loss per pClick quantile (yi Fig. 3)."""
    return _quantile_plot(bd, "log_loss_share", "share of total log-loss", "Fig. 3: log-loss per pClick quantile")


def fig4_figure(bd):
    """Prediction error per pClick quantile (yi Fig. 4)."""
    fig = _quantile_plot(bd, "prediction_error", "prediction error (avg p / CTR - 1)", "Fig. 4: pClick prediction error")
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    ax = fig.axes[0]
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_yscale("symlog", linthresh=1.0)  # low-range errors are 100x the high-range ones
    # symlog's own ticks are 0 and the powers of ten only: label the values a reader compares
    low, high = ax.get_ylim()
    steps = [s * m for m in (1, 10, 100, 1000) for s in (1, 2, 5)]
    ticks = sorted({0.0, 0.5, -0.5, *steps, *(-v for v in steps)})
    ax.yaxis.set_major_locator(FixedLocator([t for t in ticks if low <= t <= high]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(NullLocator())
    return fig


def low_high_gap(bd: pd.DataFrame, column: str) -> tuple[float, float]:
    """Mean of model-2 minus model-1 in ``column`` over the lowest and the highest 30% of the quantiles."""
    t = bd.pivot(index="quantile", columns="model", values=column)
    gap = (t["model-2"] - t["model-1"]).to_numpy()
    k = max(1, len(gap) * 3 // 10)
    return float(np.nanmean(gap[:k])), float(np.nanmean(gap[-k:]))


def per_seed(seed, *, n_queries=2000, n_log=100_000, n_ab=100_000, n_quantiles=10,
             alphas=(1.0, 2.0), mainline_quantiles=(0.5, 0.6, 0.7, 0.8), **kwargs) -> dict:
    """One seed of the sweep (the main run's world and logs, a smaller A/B test and grid): every claim's outcome."""
    exp = run(seed, n_queries=n_queries, n_log=n_log, n_ab=n_ab, alphas=alphas, mainline_quantiles=mainline_quantiles, **kwargs)
    return _outcomes(exp, n_quantiles)


def per_seed_worlds(seed, model_2s, *, n_queries=2000, n_log=100_000, n_ab=100_000, n_quantiles=10,
                    alphas=(1.0, 2.0), mainline_quantiles=(0.5, 0.6, 0.7, 0.8), **kwargs) -> list[dict]:
    """:func:`per_seed` for each model-2 of ``model_2s`` (a world and its control world), the baseline's half of the
    run done once (:func:`run_table5_worlds`): element ``i`` equals ``per_seed(seed, model_2=model_2s[i], ...)``."""
    exps = run_table5_worlds(seed, model_2s, n_queries=n_queries, n_log=n_log, n_ab=n_ab, alphas=alphas,
                             mainline_quantiles=mainline_quantiles, **kwargs)
    out, model_1 = [], None
    for exp in exps:  # the worlds share model-1's logs and scores: its half of the breakdown once
        bd, model_1 = _breakdown(exp, n_quantiles, model_1)
        out.append(_outcomes(exp, n_quantiles, bd))
    return out


def _outcomes(exp: Experiment, n_quantiles, bd=None) -> dict:
    """:func:`per_seed`'s flat dict of one experiment (``bd``: its :func:`breakdown`, when computed already)."""
    bd = breakdown(exp, n_quantiles=n_quantiles) if bd is None else bd
    pe = bd.pivot(index="quantile", columns="model", values="prediction_error")
    gap = (pe["model-2"] - pe["model-1"]).to_numpy()
    k = max(1, len(gap) * 3 // 10)
    ob, obest, sim = exp.online_base, exp.online_best, exp.simulated
    share_low, _ = low_high_gap(bd, "log_loss_share")
    pe2 = pe["model-2"].to_numpy()
    pe2_low, pe2_high = float(np.nanmean(pe2[:k])), float(np.nanmean(pe2[-k:]))
    return dict(
        auc_delta=exp.offline["auc_delta"], rig_delta=exp.offline["rig_delta"],
        online_cy_delta=ob.cy_delta, online_cy_delta_se=ob.cy_delta.standard_error,
        online_ml_cy_delta=ob.ml_cy_delta, online_ml_cy_delta_se=ob.ml_cy_delta.standard_error,
        sim_cy_delta=sim["cy_delta"], sim_ml_cy_delta=sim["ml_cy_delta"],
        best_alpha=exp.op_best.alpha, best_online_cy_delta=obest.cy_delta, best_online_ml_cy_delta=obest.ml_cy_delta,
        best_sim_cy_delta=sim["best_cy_delta"], best_sim_ml_cy_delta=sim["best_ml_cy_delta"],
        pe_gap_low=float(np.nanmean(gap[:k])), pe_gap_high=float(np.nanmean(gap[-k:])),
        # Table 5: offline up, online down (beyond 2 standard errors)
        t5_offline_gain=bool(exp.offline["auc_delta"] > 0 and exp.offline["rig_delta"] > 0),
        t5_online_loss=bool(ob.cy_delta + 2 * ob.cy_delta.standard_error < 0 and ob.ml_cy_delta + 2 * ob.ml_cy_delta.standard_error < 0),
        # Figs. 3-4: model-2 over-estimates, most in its low quantiles (each model binned by its own pClick)
        pe2_low=pe2_low, pe2_high=pe2_high,
        f34_low_overestimate=bool(pe2_low > 0 and pe2_low > pe2_high),
        # Fig. 3: model-2's log-loss weighs more on the low quantiles than model-1's (one threshold)
        f3_share_gap_low=share_low, f3_low_loss_share=bool(share_low > F3_THRESHOLD),
        auc_all_delta=exp.offline["auc_all_delta"],
        # Table 5 as a whole: offline up and online down
        t5_gain_and_loss=bool(exp.offline["auc_delta"] > 0 and exp.offline["rig_delta"] > 0
                              and ob.cy_delta + 2 * ob.cy_delta.standard_error < 0
                              and ob.ml_cy_delta + 2 * ob.ml_cy_delta.standard_error < 0),
        # Table 6: the simulation agrees with online, at both operating points, for CY and mainline CY
        t6_sim_agrees=bool(all(agrees(a, b) for a, b in (
            (sim["cy_delta"], ob.cy_delta), (sim["ml_cy_delta"], ob.ml_cy_delta),
            (sim["best_cy_delta"], obest.cy_delta), (sim["best_ml_cy_delta"], obest.ml_cy_delta)))),
        # Table 6: AUC and RIG deltas, read as predictions of the online CY delta, do not agree
        t6_offline_disagrees=bool(not agrees(exp.offline["auc_delta"], ob.cy_delta)
                                  and not agrees(exp.offline["rig_delta"], ob.cy_delta)),
        # ... at the operating point Table 6 reports (the best simulated one)
        t6_offline_disagrees_best=bool(not agrees(exp.offline["auc_delta"], obest.cy_delta)
                                       and not agrees(exp.offline["rig_delta"], obest.cy_delta)),
    )


def per_seed_table6(seed, *, n_queries=2000, n_log=100_000, n_ab=100_000, alphas=(1.0, 2.0),
                    mainline_quantiles=(0.5, 0.6, 0.7, 0.8), **kwargs) -> dict:
    """One seed of the Table 6 model's sweep (the main run's world, a smaller A/B test and grid): its deltas and every claim's outcome.

    The criteria are those of :func:`per_seed` (``t6_sim_agrees``,
    ``t6_offline_disagrees``) plus ``t6_best_gains`` (online CY delta at the
    best simulated point > 0) and ``t6_offline_shape`` (|AUC delta| < 1% and
    RIG delta > 10 |AUC delta|: the ranking barely moves, the calibration a lot).
    """
    exp = run(seed, n_queries=n_queries, n_log=n_log, n_ab=n_ab, alphas=alphas, mainline_quantiles=mainline_quantiles,
              models="table6", **kwargs)
    return table6_outcomes(exp)


def table6_outcomes(exp: Experiment) -> dict:
    """The Table 6 deltas of one experiment and its claims' outcomes (a flat dict, see :func:`per_seed_table6`)."""
    ob, obest, sim, off = exp.online_base, exp.online_best, exp.simulated, exp.offline
    return dict(
        auc_delta=off["auc_delta"], rig_delta=off["rig_delta"],
        online_cy_delta=ob.cy_delta, online_ml_cy_delta=ob.ml_cy_delta,
        sim_cy_delta=sim["cy_delta"], sim_ml_cy_delta=sim["ml_cy_delta"],
        best_alpha=exp.op_best.alpha,
        best_online_cy_delta=obest.cy_delta, best_online_cy_delta_se=obest.cy_delta.standard_error,
        best_online_ml_cy_delta=obest.ml_cy_delta, best_online_ml_cy_delta_se=obest.ml_cy_delta.standard_error,
        best_sim_cy_delta=sim["best_cy_delta"], best_sim_ml_cy_delta=sim["best_ml_cy_delta"],
        t6_sim_agrees=bool(all(agrees(a, b) for a, b in (
            (sim["cy_delta"], ob.cy_delta), (sim["ml_cy_delta"], ob.ml_cy_delta),
            (sim["best_cy_delta"], obest.cy_delta), (sim["best_ml_cy_delta"], obest.ml_cy_delta)))),
        t6_offline_disagrees=bool(not agrees(off["auc_delta"], ob.cy_delta)
                                  and not agrees(off["rig_delta"], ob.cy_delta)),
        t6_offline_disagrees_best=bool(not agrees(off["auc_delta"], obest.cy_delta)
                                       and not agrees(off["rig_delta"], obest.cy_delta)),
        auc_all_delta=off["auc_all_delta"],
        t6_best_gains=bool(obest.cy_delta > 0),
        t6_offline_shape=bool(abs(off["auc_delta"]) < 0.01 and off["rig_delta"] > 10 * abs(off["auc_delta"])),
    )


# -- printed cells and the texts the claims quote ----------------------------------------------
AGREEMENT_TEXT = (f"same sign and |simulated - online| <= {100 * AGREEMENT['abs']:g} pp + "
                  f"{100 * AGREEMENT['rel']:g}% of |online|")
T5_COLUMNS = ("AUC", "RIG", "CY", "Mainline CY")
T6_COLUMNS = ("offline AUC", "offline RIG", "simulated CY", "simulated Mainline CY", "online CY", "online Mainline CY")


def printed_tables(ref: pd.DataFrame) -> tuple[dict, dict]:
    """The printed model-2 rows of Tables 5 and 6, ``{column: text}``."""
    return ({c: reference.lookup(ref, "Table 5", "model-2 metrics", c) for c in T5_COLUMNS},
            {c: reference.lookup(ref, "Table 6", "model-2 metrics", c) for c in T6_COLUMNS})


def offline_online_pairs(exp: Experiment) -> dict:
    sim, ob, obest = exp.simulated, exp.online_base, exp.online_best
    return {
        "baseline point, CY": (sim["cy_delta"], ob.cy_delta),
        "baseline point, mainline CY": (sim["ml_cy_delta"], ob.ml_cy_delta),
        "best simulated point, CY": (sim["best_cy_delta"], obest.cy_delta),
        "best simulated point, mainline CY": (sim["best_ml_cy_delta"], obest.ml_cy_delta),
    }

