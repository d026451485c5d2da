"""Table 5's calibration of the yi sponsored-search world (:mod:`._auction`) on printed offline deltas.

:func:`calibrate_models` fits model-1's log-odds noise and model-2's low-range
over-estimation to Table 5's offline AUC and RIG deltas; :func:`offline_accepted_worlds`
measures how loosely that pair pins the online deltas down; :func:`calibrate_model_1`
is the earlier one-knob fit (model-1's noise to the RIG delta alone); :func:`calibrate_table6` fits the
Table 6 baseline's over-estimation to Table 6's offline RIG delta.  The accepted family is reported as a whole:
:func:`family_grid` (its coarse grid, the two ends), :func:`family_online` (a seed's online deltas of its members),
:func:`family_span` and :func:`family_depth` (where a printed value falls in the span).
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import pandas as pd

from offline_eval.synth import search_world as sw
from offline_eval.synth import sponsored as sp
from ...progress import track
from ._auction import (MISCALIBRATION, MODEL_1, MODEL_2, log_served, logged_rows, make_logs, model_2_pclick,
                       offline_deltas, offline_pair, offline_scores, run, seeded_world)
from ...machine import map_in_workers

__all__ = ["CALIBRATION_GRID", "calibration_note", "family_depth", "family_span", "family_grid", "family_online", "family_seed", "NOISE_GRID", "SHIFT_GRID", "T6_SHIFT_GRID", "calibrate_model_1", "calibrate_models",
           "calibrate_table6", "offline_accepted_worlds"]


#: Table 5's calibration: model-1's log-odds noise (the baseline's quality,
#: which the paper does not print) is the one free knob, fitted so that model-2's relative RIG delta on
#: the logs is the printed one; the AUC delta is then a prediction.  The grid of model-1 noise levels
#: over which the RIG delta is measured (model-2's noise is 0.35).
CALIBRATION_GRID = tuple(np.round(np.linspace(0.4, 1.2, 17), 3))


def calibrate_model_1(seed, target_rig_delta: float, *, n_queries=2000, n_log=100_000, baseline_quantile=0.6,
                      model_2=MODEL_2, grid=CALIBRATION_GRID, world_kwargs=None):
    """Fit model-1's log-odds noise so that model-2's offline RIG delta on the logs is ``target_rig_delta``.

    Every noise level of ``grid`` re-serves the same page views with model-1
    at that noise (the world, the models' error draws and the page views are
    fixed by ``seed`` as in :func:`run`) and measures model-2's relative RIG
    delta on the new logs.  Which ads are logged, and so which clicks, changes
    discretely with the noise, so the measured delta is a noisy function of
    it (jumps of a few points between neighbouring values); the fit is
    therefore a least-squares cubic through the grid's points
    (``numpy.polynomial``), and the fitted noise its crossing of the target
    (``scipy.optimize.brentq`` on the cubic), rounded to 3 decimals.

    Parameters
    ----------
    seed : int
        The run's seed (as in :func:`run`).
    target_rig_delta : float
        The printed relative RIG delta, as a fraction (yi Table 5: 0.195).
    n_queries, n_log, baseline_quantile, model_2, world_kwargs
        As in :func:`run`.
    grid : sequence of float
        Model-1 noise levels, increasing; the measured deltas at its ends
        must bracket the target.

    Returns
    -------
    noise_sd : float
        Model-1's fitted log-odds noise.
    trace : DataFrame
        One row per grid point: ``noise_sd, auc_delta, rig_delta`` and the
        cubic's ``rig_fit``.
    """
    from scipy import optimize

    world, r_models, r_log, _, _ = seeded_world(seed, n_queries, world_kwargs)
    rows = []
    for noise_sd in track(grid, "model-1 calibration", unit="noise levels"):
        p1, p2, _, _, logged, log = make_logs(world, copy.deepcopy(r_models), copy.deepcopy(r_log), n_log=n_log,
                                          baseline_quantile=baseline_quantile, models="table5",
                                          model_1={**MODEL_1, "noise_sd": float(noise_sd)}, model_2=model_2,
                                          miscalibration=MISCALIBRATION)
        off = offline_deltas(p1, p2, logged, log, world.n_mainline)[3]
        rows.append(dict(noise_sd=float(noise_sd), auc_delta=off["auc_delta"], rig_delta=off["rig_delta"]))
    trace = pd.DataFrame(rows)
    cubic = np.polynomial.Polynomial.fit(trace["noise_sd"], trace["rig_delta"], 3)
    trace["rig_fit"] = cubic(trace["noise_sd"].to_numpy())
    lo, hi = float(trace["noise_sd"].iloc[0]), float(trace["noise_sd"].iloc[-1])
    if not (cubic(lo) - target_rig_delta) * (cubic(hi) - target_rig_delta) < 0:
        raise ValueError(f"the RIG deltas over `grid` ({cubic(lo):.3g} to {cubic(hi):.3g}) do not bracket "
                         f"`target_rig_delta` = {target_rig_delta!r}")
    root = optimize.brentq(lambda x: cubic(x) - target_rig_delta, lo, hi, xtol=1e-6)
    return round(float(root), 3), trace


#: Table 5's two-knob calibration on the offline deltas only: model-1's log-odds noise (the baseline's
#: quality) and model-2's low-range over-estimation (log-odds below CTR ``low_ctr``), neither printed, are
#: fitted to the printed offline AUC and RIG deltas; the online CY and mainline CY deltas are then predictions.
NOISE_GRID = tuple(np.round(np.linspace(0.6, 1.6, 11), 3))
#: The grid of model-2's low-range over-estimation (log-odds) of :func:`calibrate_models`.
SHIFT_GRID = tuple(np.round(np.linspace(0.0, 8.0, 17), 3))


def calibrate_models(seed, target_auc_delta: float, target_rig_delta: float, *, n_queries=2000, n_log=100_000,
                     baseline_quantile=0.6, model_1=MODEL_1, model_2=MODEL_2, noise_grid=NOISE_GRID,
                     shift_grid=SHIFT_GRID, world_kwargs=None):
    """Fit model-1's noise and model-2's low-range over-estimation to the printed offline deltas (yi Table 5).

    Every (noise, shift) of the grid serves the seed's page views with
    model-1 at that noise (the world, the models' error draws and the page
    views are those of :func:`run`) and measures model-2's relative offline
    AUC delta (mainline impressions, the models' own pClicks, see
    :func:`offline_deltas`) and RIG delta on those logs.  Which ads are logged
    changes discretely with the noise, and the RIG delta falls steeply with
    a large over-estimation, so the fit has two stages: (1) the deltas are
    measured on the grid and interpolated bilinearly between its points
    (``scipy.interpolate.RegularGridInterpolator``), and the pair minimising
    the summed squared *relative* misses of the two interpolants on a lattice
    of step 0.01 in noise and 0.05 in shift is found; (2) the deltas are
    measured exactly on a local lattice around it (noise +-0.05 by 0.01,
    shift +-0.5 by 0.05, inside the grid) and the measured pair with the
    smallest miss is the fit.  Misses are rounded to 9 decimals before each
    argmin (the first minimum in the lattice's order), so no choice hinges
    on the last bits of a float.  No online quantity enters.

    Parameters
    ----------
    seed : int
        The run's seed (as in :func:`run`).
    target_auc_delta, target_rig_delta : float
        The printed relative deltas, as fractions (yi Table 5: 0.086, 0.195).
    n_queries, n_log, baseline_quantile, world_kwargs
        As in :func:`run`.
    model_1, model_2 : dict
        The models' other parameters (``noise_sd`` of model-1 and
        ``low_shift`` of model-2 are the grid's).
    noise_grid, shift_grid : sequence of float
        Increasing grids, at least 4 values each.

    Returns
    -------
    model_1, model_2 : dict
        The fitted models.
    trace : DataFrame
        One row per measured point: ``stage`` (1: the grid, 2: the local
        lattice), ``noise_sd, low_shift, auc_delta, rig_delta,
        auc_all_delta`` and ``miss`` (the objective; stage 2 only).

    Notes
    -----
    Objective: :math:`((A(n, s) - A^*) / A^*)^2 + ((R(n, s) - R^*) / R^*)^2`
    with :math:`A, R` the bilinear interpolants of the measured AUC and RIG deltas.

    Examples
    --------
    >>> m1, m2, t = calibrate_models(0, 0.05, 0.2, n_queries=100, n_log=3000, noise_grid=(0.6, 0.9, 1.2, 1.5),
    ...                              shift_grid=(0.0, 2.0, 4.0, 6.0))  # doctest: +SKIP
    """
    noise_grid, shift_grid = np.asarray(noise_grid, dtype=float), np.asarray(shift_grid, dtype=float)
    for name, g in (("noise_grid", noise_grid), ("shift_grid", shift_grid)):
        if g.ndim != 1 or g.size < 4 or not np.all(np.diff(g) > 0):
            raise ValueError(f"`{name}` must be an increasing sequence of at least 4 values")
    for name, v in (("target_auc_delta", target_auc_delta), ("target_rig_delta", target_rig_delta)):
        if not np.isfinite(v) or v == 0:
            raise ValueError(f"`{name}` must be finite and non-zero; got {v!r}")
    world, r_models, r_log, _, _ = seeded_world(seed, n_queries, world_kwargs)

    def measure(noises, shifts, stage):
        # each noise level in a worker process (its logs and every shift's deltas), the rows in the grid's order
        task = functools.partial(_calibration_rows, world=world, r_models=r_models, r_log=r_log, n_log=n_log,
                                 baseline_quantile=baseline_quantile, model_1=model_1, model_2=model_2,
                                 shifts=tuple(shifts), stage=stage)
        rows = []
        for part in track(map_in_workers(task, list(noises)), f"Table 5 calibration, stage {stage}", total=len(noises),
                          unit="noise levels"):
            rows.extend(part)
        return pd.DataFrame(rows)

    def miss(auc, rig):
        return np.round(((np.asarray(auc) - target_auc_delta) / target_auc_delta) ** 2
                        + ((np.asarray(rig) - target_rig_delta) / target_rig_delta) ** 2, 9)

    from scipy.interpolate import RegularGridInterpolator

    grid = measure(noise_grid, shift_grid, 1)
    shape = (noise_grid.size, shift_grid.size)
    n_fine = np.round(np.arange(noise_grid[0], noise_grid[-1] + 0.005, 0.01), 2)
    s_fine = np.round(np.arange(shift_grid[0], shift_grid[-1] + 0.025, 0.05), 2)
    nn, ss = np.meshgrid(np.clip(n_fine, noise_grid[0], noise_grid[-1]), np.clip(s_fine, shift_grid[0], shift_grid[-1]),
                         indexing="ij")
    pts = np.stack([nn.ravel(), ss.ravel()], axis=-1)
    f = {key: RegularGridInterpolator((noise_grid, shift_grid), grid[key].to_numpy(float).reshape(shape))(pts)
         for key in ("auc_delta", "rig_delta")}
    k = int(np.argmin(miss(f["auc_delta"], f["rig_delta"])))
    n0, s0 = float(nn.ravel()[k]), float(ss.ravel()[k])
    n_loc = np.round(n0 + 0.01 * np.arange(-5, 6), 2)
    s_loc = np.round(s0 + 0.05 * np.arange(-10, 11), 2)
    local = measure(n_loc[(n_loc >= noise_grid[0]) & (n_loc <= noise_grid[-1])],
                    s_loc[(s_loc >= shift_grid[0]) & (s_loc <= shift_grid[-1])], 2)
    local["miss"] = miss(local["auc_delta"], local["rig_delta"])
    best = local.iloc[int(np.argmin(local["miss"].to_numpy()))]
    trace = pd.concat([grid, local], ignore_index=True)
    return ({**model_1, "noise_sd": float(best["noise_sd"])}, {**model_2, "low_shift": float(best["low_shift"])}, trace)


def _calibration_rows(noise_sd, *, world, r_models, r_log, n_log, baseline_quantile, model_1, model_2, shifts, stage):
    """:func:`calibrate_models`' rows of one model-1 noise level: its logs, then model-2's deltas at every shift."""
    m1 = {**model_1, "noise_sd": float(noise_sd)}
    rm = copy.deepcopy(r_models)
    sp.distorted_pclick(world.ctr, rm, **m1)  # advance the models' generator past model-1's draw, as make_logs does
    p1, _, _, _, logged, log = make_logs(world, copy.deepcopy(r_models), copy.deepcopy(r_log), n_log=n_log,
                                         baseline_quantile=baseline_quantile, models="table5", model_1=m1,
                                         model_2=model_2, miscalibration=MISCALIBRATION)
    view = logged_rows(logged, log, world.n_mainline)  # what the scores take of the log: once per log
    _, base = offline_scores(p1, logged, log, world.n_mainline, rows=view)  # model-1's metrics: once per log
    rows = []
    for shift in shifts:
        p2 = model_2_pclick(world.ctr, copy.deepcopy(rm), **{**model_2, "low_shift": float(shift)})
        off = offline_pair(base, offline_scores(p2, logged, log, world.n_mainline, rows=view)[1])
        rows.append(dict(stage=stage, noise_sd=float(noise_sd), low_shift=float(shift),
                         auc_delta=off["auc_delta"], rig_delta=off["rig_delta"], auc_all_delta=off["auc_all_delta"]))
    return rows


def offline_accepted_worlds(seed, calibration: pd.DataFrame, target_auc_delta: float, target_rig_delta: float, *,
                            rtol=0.5, n_queries=2000, n_log=100_000, n_ab=100_000, baseline_quantile=0.6,
                            model_1=MODEL_1, model_2=MODEL_2, min_impressions=1, world_kwargs=None) -> pd.DataFrame:
    """How far the offline deltas pin down the online ones: the A/B test of every over-estimation the offline pair accepts.

    From :func:`calibrate_models`' grid (stage 1), for each over-estimation
    (``low_shift``) the grid point with the smallest miss is kept when both its
    offline deltas lie within ``rtol`` of the printed ones (the calibration
    rows' tolerance); each kept world is then run on ``seed`` (:func:`run`,
    its A/B test at the baseline operating point, ``n_ab`` page views per
    arm) and its online CY and mainline CY deltas measured.  The spread of
    those online deltas is what the printed offline pair leaves open.

    Returns
    -------
    DataFrame
        ``noise_sd, low_shift, auc_delta, rig_delta, online_cy_delta,
        online_ml_cy_delta`` (fractions), one row per accepted over-estimation.
    """
    g = calibration.loc[calibration["stage"] == 1].copy()
    g["miss"] = np.round(((g["auc_delta"] - target_auc_delta) / target_auc_delta) ** 2
                         + ((g["rig_delta"] - target_rig_delta) / target_rig_delta) ** 2, 9)
    ok = ((np.abs(g["auc_delta"] - target_auc_delta) <= rtol * abs(target_auc_delta))
          & (np.abs(g["rig_delta"] - target_rig_delta) <= rtol * abs(target_rig_delta)))
    g = g.loc[ok].sort_values(["low_shift", "miss", "noise_sd"], kind="stable").drop_duplicates("low_shift")
    # each accepted world in a worker process, the rows in the table's order
    task = functools.partial(_accepted_row, seed=seed, n_queries=n_queries, world_kwargs=world_kwargs, n_log=n_log,
                             baseline_quantile=baseline_quantile, min_impressions=min_impressions, model_1=model_1,
                             model_2=model_2, n_ab=n_ab)
    accepted = list(zip(g["noise_sd"], g["low_shift"], g["auc_delta"], g["rig_delta"]))
    rows = list(track(map_in_workers(task, accepted), "offline-accepted worlds", total=len(accepted), unit="worlds"))
    return pd.DataFrame(rows, columns=["noise_sd", "low_shift", "auc_delta", "rig_delta", "online_cy_delta",
                                       "online_ml_cy_delta"])


def _accepted_row(r, *, seed, n_queries, world_kwargs, n_log, baseline_quantile, min_impressions, model_1, model_2,
                  n_ab) -> dict:
    """:func:`offline_accepted_worlds`' row of one accepted world ``r = (noise_sd, low_shift, auc_delta, rig_delta)``."""
    noise_sd, low_shift, auc_delta, rig_delta = r
    # only the A/B test at the baseline operating point of :func:`run`: the same world, models, logs and
    # A/B stream (each step has its own generator), without the simulation, sweep and best-point test
    world, r_models, r_log, r_ab1, _ = seeded_world(seed, n_queries, world_kwargs)
    p1, p2, _, op_base, _, _ = make_logs(world, r_models, r_log, n_log=n_log, baseline_quantile=baseline_quantile,
                                         min_impressions=min_impressions, models="table5",
                                         model_1={**model_1, "noise_sd": noise_sd},
                                         model_2={**model_2, "low_shift": low_shift}, miscalibration=MISCALIBRATION)
    online_base, = sw.ab_tests(world, (p1, op_base), [(p2, op_base)], n_page_views=n_ab, rng=r_ab1)
    return dict(noise_sd=noise_sd, low_shift=low_shift, auc_delta=auc_delta, rig_delta=rig_delta,
                online_cy_delta=online_base.cy_delta, online_ml_cy_delta=online_base.ml_cy_delta)


#: The Table 6 baseline's over-estimation (log-odds, switch width = shift / 4) over which its offline RIG
#: delta is measured (:func:`calibrate_table6`).
T6_SHIFT_GRID = tuple(np.round(np.arange(3.0, 6.0 + 1e-9, 0.05), 2))


def calibrate_table6(seed, target_rig_delta: float, *, n_queries=2000, n_log=100_000, baseline_quantile=0.6,
                     model=MODEL_1, low_ctr=MISCALIBRATION["low_ctr"], shift_grid=T6_SHIFT_GRID, world_kwargs=None):
    """Fit the Table 6 baseline's low-range over-estimation to Table 6's printed offline RIG delta.

    The Table 6 pair (:func:`run` with ``models="table6"``): the new model is
    ``distorted_pclick(ctr, **model)``, the baseline that serves the logs the
    same predictions over-estimated below ``low_ctr`` by up to ``shift``
    log-odds (switch width ``shift / 4``, the narrowest that keeps their
    order).  For every shift of ``shift_grid`` the seed's page views are
    served by that baseline and the new model's relative offline RIG delta is
    measured on those logs; the fit is the first crossing of the target in
    the grid's order, linearly interpolated between the two bracketing grid
    points and rounded to 2 decimals.  Only an offline delta enters.

    Parameters
    ----------
    seed : int
    target_rig_delta : float
        The printed relative RIG delta, as a fraction (yi Table 6: 0.78).
    n_queries, n_log, baseline_quantile, world_kwargs
        As in :func:`run`.
    model : dict
        The new model's parameters.
    low_ctr : float
        Centre of the over-estimated range.
    shift_grid : sequence of float
        Increasing over-estimations, at least 2.

    Returns
    -------
    miscalibration : dict
        ``low_ctr, low_shift, width`` for :func:`run`.
    trace : DataFrame
        ``low_shift, auc_delta, rig_delta`` per grid point.
    """
    grid = np.asarray(shift_grid, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or not np.all(np.diff(grid) > 0) or grid[0] <= 0:
        raise ValueError("`shift_grid` must be an increasing sequence of at least 2 positive values")
    world, r_models, r_log, _, _ = seeded_world(seed, n_queries, world_kwargs)
    # the new model and the page views are the same draws at every shift (make_logs): drawn once; each shift's
    # baseline draws its clicks from the logs' generator where make_logs would
    p2 = sp.distorted_pclick(world.ctr, r_models, **model)
    pv = sp.sample_page_views(world, n_log, r_log)
    # each shift in a worker process (a few shifts per task: the page views are sent once a task), in the grid's order
    task = functools.partial(_table6_row, world=world, p2=p2, pv=pv, r_log=r_log, low_ctr=low_ctr,
                             baseline_quantile=baseline_quantile)
    rows = list(track(map_in_workers(task, [float(x) for x in grid], chunksize=4), "Table 6 calibration",
                      total=len(grid), unit="shifts"))
    trace = pd.DataFrame(rows)
    d = np.round(trace["rig_delta"].to_numpy(float) - target_rig_delta, 9)
    cross = np.flatnonzero((d[:-1] <= 0) & (d[1:] > 0) | (d[:-1] >= 0) & (d[1:] < 0))
    if cross.size == 0:
        raise ValueError(f"the RIG deltas over `shift_grid` never cross `target_rig_delta` = {target_rig_delta!r}")
    i = int(cross[0])
    shift = grid[i] + (grid[i + 1] - grid[i]) * (0 - d[i]) / (d[i + 1] - d[i]) if d[i + 1] != d[i] else grid[i]
    shift = round(float(shift), 2)
    return dict(low_ctr=float(low_ctr), low_shift=shift, width=shift / 4), trace


def _table6_row(shift, *, world, p2, pv, r_log, low_ctr, baseline_quantile) -> dict:
    """:func:`calibrate_table6`'s row of one over-estimation ``shift``: the baseline's logs and the new model's deltas."""
    mis = dict(low_ctr=float(low_ctr), low_shift=float(shift), width=float(shift) / 4)
    p1 = sp.overestimate_low_range(p2, **mis)
    _, logged, log = log_served(world, p1, pv, copy.deepcopy(r_log), baseline_quantile=baseline_quantile,
                                min_impressions=1)
    off = offline_deltas(p1, p2, logged, log, world.n_mainline)[3]
    return dict(low_shift=float(shift), auc_delta=off["auc_delta"], rig_delta=off["rig_delta"])


def family_grid(accepted: pd.DataFrame, *, step=None) -> pd.DataFrame:
    """The coarse grid of the offline-accepted family that the seed sweeps run: its two ends (the smallest and the
    largest accepted over-estimation, each at its own model-1 noise) and, with ``step``, the members whose
    over-estimation is a multiple of ``step`` log-odds; declared from the main seed's calibration grid alone,
    before any sweep.  (The study runs the ends: on the main seed the online deltas fall with the over-estimation,
    yi/table5_offline_accepted.csv, so the ends and the fitted world between them span the family.)"""
    a = accepted.sort_values("low_shift", kind="stable").reset_index(drop=True)
    keep = (a.index == 0) | (a.index == len(a) - 1)
    if step is not None:
        keep |= np.isclose(np.round(a["low_shift"] / step) * step, a["low_shift"])
    return a.loc[keep, ["noise_sd", "low_shift"]].reset_index(drop=True)


def family_online(seed, members, *, n_queries=2000, n_log=100_000, n_ab=100_000, baseline_quantile=0.6,
                  model_1=MODEL_1, model_2=MODEL_2, min_impressions=1, world_kwargs=None) -> dict:
    """One seed's online CY and mainline CY deltas of every member of an accepted family (``members``: rows of
    ``noise_sd, low_shift``) at the baseline operating point, as :func:`offline_accepted_worlds` measures them.

    The members that share a model-1 noise share its logs and operating point (served once); every A/B test of
    the seed is drawn by one :func:`~offline_eval.synth.search_world.ab_tests` from the run's A/B generator, so
    the arms share their page views and each is the one a separate test would serve.

    Returns
    -------
    dict
        ``online_cy_<i>``, ``online_ml_cy_<i>`` for member ``i`` (fractions) and the members' span
        ``online_cy_lo, online_cy_hi, online_ml_cy_lo, online_ml_cy_hi``.
    """
    members = [(float(n), float(s)) for n, s in members]
    world, r_models, r_log, r_ab1, _ = seeded_world(seed, n_queries, world_kwargs)
    served = {}
    for noise in sorted({n for n, _ in members}):
        rm, rl = copy.deepcopy(r_models), copy.deepcopy(r_log)
        p1 = sp.distorted_pclick(world.ctr, rm, **{**model_1, "noise_sd": noise})
        op_base = _serve_logs_point(world, p1, rl, n_log=n_log, baseline_quantile=baseline_quantile,
                                    min_impressions=min_impressions)
        served[noise] = (p1, op_base, rm)
    controls, treatments = [], []
    for noise, shift in members:
        p1, op_base, rm = served[noise]
        controls.append((p1, op_base))
        treatments.append((model_2_pclick(world.ctr, copy.deepcopy(rm), **{**model_2, "low_shift": shift}), op_base))
    tests = sw.ab_tests(world, controls, treatments, n_page_views=n_ab, rng=r_ab1)
    out = {}
    for i, t in enumerate(tests):
        out[f"online_cy_{i}"], out[f"online_ml_cy_{i}"] = float(t.cy_delta), float(t.ml_cy_delta)
    for key in ("online_cy", "online_ml_cy"):
        v = [out[f"{key}_{i}"] for i in range(len(members))]
        out[f"{key}_lo"], out[f"{key}_hi"] = min(v), max(v)
    return out


def _serve_logs_point(world, p1, r_log, *, n_log, baseline_quantile, min_impressions):
    """The baseline operating point of model-1 ``p1``'s logs (as :func:`make_logs` places it)."""
    pv = sp.sample_page_views(world, n_log, r_log)
    return log_served(world, p1, pv, r_log, baseline_quantile=baseline_quantile, min_impressions=min_impressions)[0]


def family_seed(seed, **kwargs) -> tuple[dict]:
    """``(family_online(seed, **kwargs),)``: a seed of the family's sweep in
    :func:`~._worlds.paired_sweeps_in_workers`' pool (a world without a control world of its own: the sweep's
    second frame is empty)."""
    return (family_online(seed, **kwargs),)


def calibration_note(model_1: dict, model_2: dict, calibration: pd.DataFrame) -> str:
    """What the offline calibration fixed, from :func:`calibrate_models`' fitted models and trace."""
    g, n_local = calibration.loc[calibration["stage"] == 1], int((calibration["stage"] == 2).sum())
    return (f"fitted on the main seed's logs over a grid of {g['noise_sd'].nunique()} x {g['low_shift'].nunique()} "
            f"(model-1 noise x model-2 low-range over-estimation), then {n_local} points measured around the "
            f"interpolated optimum: noise {model_1['noise_sd']:g}, over-estimation {model_2['low_shift']:g} log-odds; "
            "the fitted knobs' target, not evidence")


def family_span(fam, sweep: pd.DataFrame, key: str) -> pd.DataFrame:
    """The accepted family's span of one online delta on each seed: ``lo`` and ``hi`` (relative deltas in %) over
    its grid's members (:func:`family_online`'s frame ``fam``; ``None``: none) and the fitted world (the seed sweep
    ``sweep``, the same seeds), indexed by seed.

    Examples
    --------
    >>> f = pd.DataFrame(dict(seed=[1], online_cy_lo=[-0.3], online_cy_hi=[0.05]))
    >>> family_span(f, pd.DataFrame(dict(seed=[1], online_cy_delta=[0.1])), "online_cy").round(6).to_dict("list")
    {'lo': [-30.0], 'hi': [10.0]}
    """
    fitted = sweep[f"{key}_delta"].to_numpy(float)
    lo, hi = fitted, fitted
    if fam is not None:
        if not np.array_equal(fam["seed"].to_numpy(int), sweep["seed"].to_numpy(int)):
            raise ValueError("`fam` and `sweep` must hold the same seeds in the same order")
        lo, hi = np.minimum(fam[f"{key}_lo"].to_numpy(float), fitted), np.maximum(fam[f"{key}_hi"].to_numpy(float), fitted)
    return pd.DataFrame({"lo": 100 * lo, "hi": 100 * hi}, index=pd.Index(sweep["seed"].to_numpy(int), name="seed"))


def family_depth(span: pd.DataFrame, printed: float) -> pd.Series:
    """The printed value's depth inside the family's span on each seed, in pp (negative: outside)."""
    return pd.Series(np.minimum(printed - span["lo"], span["hi"] - printed).to_numpy(float), index=span.index)
