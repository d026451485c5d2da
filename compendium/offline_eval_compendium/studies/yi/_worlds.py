"""The Table 6 model's world and its control world run together, one seed at a time (:mod:`._auction`'s
:func:`~._auction.per_seed_table6` for each of several baselines, the shared half done once).

The Table 6 pair (``run(..., models="table6")``) differs between a world and its control world only in the
baseline that serves the logs (its low-range over-estimation, :data:`~._auction.MISCALIBRATION`): the world,
the new model, the logged page views and the A/B tests' page views are the same draws.  So the new model's
operating-point sweep ranks the logged auctions and places the points' ads once, and replays them on each
world's logs (:func:`offline_eval.auction.sweep_logs`).

:func:`paired_sweep_in_workers` runs the seeds of such a sweep in worker processes, one per core
(:func:`~offline_eval_compendium.machine.map_in_workers`, which the calibrations' grids and chapelle's sweep use too): a seed's results are the same numbers
whichever process computes them, and they come back in the seeds' order.

:func:`seed_effects` turns a sweep's frame into every declared effect of the study, one row per seed.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import pandas as pd

from offline_eval import auction as au
from offline_eval.synth import search_world as sw
from offline_eval.synth import sponsored as sp
from ...claims import paired_seed_sweep
from ...machine import map_in_workers
from ._auction import (AGREEMENT, MODEL_1, Experiment, best_and_simulated, log_served, logged_rows, offline_pair,
                       offline_scores, per_seed_worlds, seeded_world, table6_outcomes)

__all__ = ["paired_sweep_in_workers", "paired_sweeps_in_workers", "per_seed_table6_worlds", "run_table6_worlds",
           "seed_effects", "sweep_table6_with_control", "sweep_with_control"]


def run_table6_worlds(seed, miscalibrations, *, n_queries=2000, n_log=100_000, n_ab=200_000, baseline_quantile=0.6,
                      alphas=(0.5, 1.0, 1.5, 2.0), mainline_quantiles=(0.4, 0.5, 0.6, 0.7, 0.8, 0.9), model_1=MODEL_1,
                      world_kwargs=None, min_impressions=1) -> list[Experiment]:
    """``run(seed, models="table6", miscalibration=m, ...)`` for each ``m`` of ``miscalibrations``, element by element.

    The new model (``distorted_pclick(ctr, **model_1)``), the world and the logged page views are drawn once;
    each baseline serves those page views with the clicks drawn from the logs' generator at the point a
    separate :func:`~._auction.run` reaches, and each world's A/B tests are the ones a separate run draws.
    The new model's sweep is ranked and placed once and replayed on every world's logs; its simulation at each
    world's baseline point comes from the sweep's ranking; the worlds' A/B arms share their page views
    (``ab_tests`` with a control per treatment).
    """
    world, r_models, r_log, r_ab1, r_ab2 = seeded_world(seed, n_queries, world_kwargs)
    p2 = sp.distorted_pclick(world.ctr, r_models, **model_1)
    pv = sp.sample_page_views(world, n_log, r_log)
    bases = []
    for mis in miscalibrations:
        p1 = sp.overestimate_low_range(p2, **mis)
        bases.append((p1, *log_served(world, p1, pv, copy.deepcopy(r_log), baseline_quantile=baseline_quantile,
                                      min_impressions=min_impressions)))
    # 0.95 (an almost empty mainline) is always in the grid, so the mainline budget can be met (as run)
    grid = sorted(set(float(q) for q in mainline_quantiles) | {0.95})
    swept = au.sweep_logs([log for *_, log in bases], p2, alphas=alphas, mainline_quantiles=grid,
                          points=[op_base for _, op_base, _, _ in bases])
    parts = []
    for i, ((p1, op_base, logged, log), (sweep, at_points)) in enumerate(zip(bases, swept)):
        rows = logged_rows(logged, log, world.n_mainline)
        s1, m1 = offline_scores(p1, logged, log, world.n_mainline, rows=rows)
        s2, m2 = offline_scores(p2, logged, log, world.n_mainline, rows=rows)
        op_best, simulated = best_and_simulated(sweep, au.simulate_served(log, logged), at_points[i])
        parts.append((rows["y"], s1, s2, offline_pair(m1, m2), simulated, op_best))
    # each world's A/B tests against its own baseline, the worlds' arms on the same page views (one draw each)
    controls = [(p1, op_base) for p1, op_base, _, _ in bases]
    online_base = sw.ab_tests(world, controls, [(p2, op_base) for _, op_base, _, _ in bases], n_page_views=n_ab,
                              rng=r_ab1)
    online_best = sw.ab_tests(world, controls, [(p2, part[-1]) for part in parts], n_page_views=n_ab, rng=r_ab2)
    out = []
    for (p1, op_base, logged, log), (sweep, _), (y, s1, s2, offline, simulated, op_best), base, best in zip(
            bases, swept, parts, online_base, online_best):
        out.append(Experiment(world, p1, p2, op_base, op_best, log, logged, offline, base, best, simulated, sweep,
                              dict(y=y, s1=s1, s2=s2)))
    return out


def per_seed_table6_worlds(seed, miscalibrations, *, n_queries=2000, n_log=100_000, n_ab=100_000, alphas=(1.0, 2.0),
                           mainline_quantiles=(0.5, 0.6, 0.7, 0.8), **kwargs) -> list[dict]:
    """:func:`~._auction.per_seed_table6` for each baseline of ``miscalibrations`` (a world and its control
    world), run together (:func:`run_table6_worlds`): element ``i`` equals
    ``per_seed_table6(seed, miscalibration=miscalibrations[i], ...)``."""
    exps = run_table6_worlds(seed, miscalibrations, n_queries=n_queries, n_log=n_log, n_ab=n_ab, alphas=alphas,
                             mainline_quantiles=mainline_quantiles, **kwargs)
    return [table6_outcomes(exp) for exp in exps]


def sweep_with_control(seeds, *, model_2, control_model_2, **kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The seed sweep of :func:`~._auction.per_seed` in the world of ``model_2`` and in its control world
    (``control_model_2``), each seed's two worlds run together (:func:`~._auction.per_seed_worlds`): the two frames
    ``claims.seed_sweep(per_seed, seeds, model_2=..., **kwargs)`` gives, one row per seed."""
    return paired_sweep_in_workers(functools.partial(per_seed_worlds, model_2s=(model_2, control_model_2), **kwargs),
                                   seeds, progress="per_seed (a world and its control)")


def sweep_table6_with_control(seeds, *, miscalibration, control_miscalibration,
                              **kwargs) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The Table 6 model's seed sweep in the world of ``miscalibration`` and in its control world
    (``control_miscalibration``), each seed's two worlds run together (:func:`per_seed_table6_worlds`): the two
    frames ``claims.seed_sweep(per_seed_table6, seeds, miscalibration=..., **kwargs)`` gives, one row per seed."""
    return paired_sweep_in_workers(functools.partial(per_seed_table6_worlds,
                                                     miscalibrations=(miscalibration, control_miscalibration), **kwargs),
                                   seeds, progress="per_seed_table6 (a world and its control)")


def paired_sweep_in_workers(per_seed, seeds, *, progress: str, workers=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``claims.paired_seed_sweep(per_seed, seeds, progress=progress)``, the seeds run in worker processes
    (:func:`map_in_workers`).

    Parameters
    ----------
    per_seed : callable
        ``per_seed(seed) -> (dict, dict)``, a module-level function or a :func:`functools.partial` of one (it is
        sent to the workers); every draw from the seed, so its results do not depend on the process.
    seeds : iterable of int
    progress : str
        The step's name in the progress lines (a seed counts as done when its results are back, in order).
    workers : int, optional
        As in :func:`map_in_workers`.

    Returns
    -------
    The two frames of :func:`~offline_eval_compendium.claims.paired_seed_sweep`, the same values.
    """
    return paired_sweeps_in_workers([(per_seed, seeds, progress)], workers=workers)[0][0]


def paired_sweeps_in_workers(sweeps, *, alongside=None, workers=None):
    """Several :func:`paired_sweep_in_workers` in one pool, and ``alongside()`` computed here while it runs.

    The workers go from one sweep's seeds straight on to the next sweep's (no pool drained and started again
    between sweeps), and this process computes ``alongside()`` while they work (with one worker, before the
    sweeps).  Each sweep's frames are the ones its own :func:`paired_sweep_in_workers` gives.

    Parameters
    ----------
    sweeps : list of (per_seed, seeds, progress)
        As the arguments of :func:`paired_sweep_in_workers`.
    alongside : callable, optional
        Called once with no argument, in this process.
    workers : int, optional
        As in :func:`~offline_eval_compendium.machine.map_in_workers`.

    Returns
    -------
    (list, object)
        The pair of frames of each sweep, in the order of ``sweeps``, and what ``alongside()`` returned (``None``
        without it).
    """
    sweeps = [(per_seed, [int(s) for s in seeds], progress) for per_seed, seeds, progress in sweeps]
    items = [(i, s) for i, (_, seeds, _) in enumerate(sweeps) for s in seeds]
    results = map_in_workers(functools.partial(_indexed_seed, tuple(f for f, _, _ in sweeps)), items, workers=workers)
    try:
        side = None if alongside is None else alongside()
        frames = [paired_seed_sweep(lambda s: next(results), seeds, progress=progress) for _, seeds, progress in sweeps]
    finally:
        results.close()
    return frames, side


def _indexed_seed(per_seeds, item):
    """``per_seeds[i](seed)`` for ``item = (i, seed)`` (a worker's task of :func:`paired_sweeps_in_workers`)."""
    i, seed = item
    return per_seeds[i](seed)


def _miss(predicted, online) -> np.ndarray:
    """The agreement test as a distance, in pp: ``|predicted - online|`` beyond ``ABS + REL |online|``."""
    on = np.asarray(online, dtype=float)
    return 100 * (np.abs(np.asarray(predicted, dtype=float) - on) - (AGREEMENT["abs"] + AGREEMENT["rel"] * np.abs(on)))


def seed_effects(sweep: pd.DataFrame) -> pd.DataFrame:
    """Every declared effect on each seed of a sweep frame (:func:`per_seed` or :func:`per_seed_table6`), in the
    units of its :class:`~offline_eval_compendium.claims.Effect` (relative deltas in %).

    Columns (those whose inputs the frame has): ``t5_gain_and_loss`` (the smallest of AUC, RIG, -CY and -mainline
    CY deltas), ``f34_low_overestimate`` (min(PE_low, PE_low - PE_high) of model-2), ``f3_share_gap_low``,
    ``sim_miss`` (the largest of the four simulated deltas' miss, :func:`_miss`: the agreement test as a distance), ``offline_miss_best`` (the
    smaller of the AUC and RIG deltas' miss against the best-point online CY delta), ``best_online_cy``,
    ``offline_shape`` (min(1 - |AUC|, RIG - 10 |AUC|)), ``sim_closer`` (how much nearer the online CY delta the
    simulated delta lies than the nearer of AUC and RIG), ``auc_closer`` (how much nearer AUC lies than RIG),
    ``online_cy``, ``online_ml_cy`` and the Table 6 cells' deltas; one row per seed, its ``seed`` column first.

    Examples
    --------
    >>> f = pd.DataFrame(dict(seed=[3], auc_delta=[0.08], rig_delta=[0.2], online_cy_delta=[-0.1],
    ...                       online_ml_cy_delta=[-0.05]))
    >>> seed_effects(f)["t5_gain_and_loss"].tolist()
    [5.0]
    """
    col = {c: sweep[c].to_numpy(float) for c in sweep.columns if c != "seed" and sweep[c].dtype.kind in "fiu"}
    auc, rig, on, ml = (col.get(k) for k in ("auc_delta", "rig_delta", "online_cy_delta", "online_ml_cy_delta"))
    out = {"seed": sweep["seed"].to_numpy(int)}
    out["t5_gain_and_loss"] = 100 * np.min([auc, rig, -on, -ml], axis=0)
    if "pe2_low" in col:
        out["f34_low_overestimate"] = np.minimum(col["pe2_low"], col["pe2_low"] - col["pe2_high"])
        out["f3_share_gap_low"] = col["f3_share_gap_low"]
    if "sim_cy_delta" in col:
        best = col["best_online_cy_delta"]
        out["sim_miss"] = np.max([_miss(col["sim_cy_delta"], on), _miss(col["sim_ml_cy_delta"], ml),
                                  _miss(col["best_sim_cy_delta"], best),
                                  _miss(col["best_sim_ml_cy_delta"], col["best_online_ml_cy_delta"])], axis=0)
        out["offline_miss_best"] = np.minimum(_miss(auc, best), _miss(rig, best))
        out["best_online_cy"] = 100 * best
        out["offline_shape"] = np.minimum(1 - 100 * np.abs(auc), 100 * (rig - 10 * np.abs(auc)))
        far = np.minimum(np.abs(auc - on), np.abs(rig - on))
        out["sim_closer"] = 100 * (far - np.abs(col["sim_cy_delta"] - on))
        out["auc_closer"] = 100 * (np.abs(rig - on) - np.abs(auc - on))
        for c in ("best_sim_cy_delta", "best_sim_ml_cy_delta", "best_online_ml_cy_delta"):
            out[c] = 100 * col[c]
    out["online_cy"], out["online_ml_cy"], out["auc"] = 100 * on, 100 * ml, 100 * auc
    return pd.DataFrame(out)
