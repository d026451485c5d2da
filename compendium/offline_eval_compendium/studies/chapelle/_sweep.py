"""chapelle Section 3: the seed sweep, each seed's world beside the control world of each mechanism the paper credits.

Shared by :mod:`offline_eval_compendium.studies.chapelle.auctions`.  Every
qualitative claim is judged on freshly drawn worlds at reduced scale
(:func:`one_seed`), each beside the control worlds of :data:`CONTROLS`
drawn from the same seed; :func:`sweep_with_controls` runs a block of
seeds and returns the sweep, its controls and each seed's median logged
cost (the scale that makes the best beta dimensionless).  The exploration
control logs every bid request of the same draws, so the won-only world is
its subset (:func:`offline_eval.synth.rtb.without_exploration`): both are
drawn once and their rows' metrics computed once.  :data:`SWEEP_WHY` says
why a claim may fail in this world.
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import pandas as pd

from ...machine import map_in_workers
from ...progress import track
from ._world import (
    BASELINES, correlation_table, eu_column, expected_online_differences, offline_differences, offline_tables,
    online_differences, signal_noise, typical_cost,
)
from offline_eval.synth.rtb import simulate_rtb, without_exploration

__all__ = ["CONTROLS", "EFFECTS", "SWEEP_WHY", "one_seed", "seed_with_controls", "sweep_with_controls", "sweep_why"]


#: The control worlds, one per mechanism the paper credits (``{name: (world knobs, what is switched off)}``).
#: ``exploration``: the production bidder's logs include exploration data, every bid request won or lost
#: ("Using exploration data with the utility would penalize overpredictions and fix the issue",
#: Section 2.2), so the utility is no longer blind to over-prediction.  ``equal_values``: every item of a
#: network has the same click value (``value_sigma = 0``), so within a network the weighted MSE is the MSE
#: times a constant and the values of the items carry nothing a weight could use ("it is more costly to make
#: a prediction error while bidding on an item with a large value than on one with a small value", Section 3);
#: the networks' own values still differ.
CONTROLS = {
    "exploration": ({"exploration": True}, "exploration data logged (every bid request, won or lost)"),
    "equal_values": ({"value_sigma": 0.0}, "click values equal within each network (items differ only in CTR)"),
}


#: The claims' effects, one column of :func:`one_seed` each: what is computed on every seed (the EU at the
#: main run's beta, ``r`` Pearson's and ``tau`` Kendall's coefficient over Algorithm 1's trials).
EFFECTS = {
    "eu_lead_r": "r(EU) - max(r(MSE), r(weighted MSE)): the EU's lead over the best standard (squared-error) metric",
    "eu_lead_tau": "tau(EU) - max(tau(MSE), tau(weighted MSE)): the EU's lead over the best standard (squared-error) "
                   "metric",
    "wmse_lead_r": "r(weighted MSE) - r(MSE)",
    "utility_gap_r": "min(r(MSE), r(weighted MSE), r(EU)) - r(utility): how far the utility lies below every other "
                     "metric",
    "order_gap_r": "min(r(EU) - r(weighted MSE), r(weighted MSE) - r(MSE), r(MSE) - r(utility)): the narrowest gap of "
                   "the printed order",
    "interior_gap_r": "max r(EU) over the grid's interior betas - max(r(EU) at the grid's two ends): how much an "
                      "interior beta beats both limits",
}


def one_seed(seed: int, *, betas, beta_star: float, n_trials: int = 100, clicks: str = "drawn", **world_kw) -> dict:
    """Draw one world and return the correlations of every metric (a flat dict for ``seed_sweep``).

    Keys: ``r_<metric>`` and ``tau_<metric>`` for MSE, weighted MSE, utility,
    EU at the fixed ``beta_star`` (chosen on the main run, so the sweep does
    not pick the best beta of each seed) and EU at every ``betas``; plus
    ``best_beta`` (argmax of Pearson r over ``betas``), and the world's signal-noise diagnosis
    (:func:`signal_noise`): ``signal_share``, ``r_signal_online`` and
    ``rexp_<metric>``, the Pearson r of each offline difference with the
    expected online difference; and the claims' effects, each a gap of correlations positive where the
    paper's sentence holds on the seed (:data:`EFFECTS`).  ``clicks`` goes to :func:`offline_differences`.
    """
    rng = np.random.default_rng(seed)
    world = simulate_rtb(rng=rng, **world_kw)
    grid = _grid(betas, beta_star)
    return _outcomes(world, offline_differences(world, grid, clicks), rng, betas=betas, beta_star=beta_star,
                     n_trials=n_trials)


def _grid(betas, beta_star) -> list[float]:
    return sorted(set(float(b) for b in betas) | {float(beta_star)})


def _outcomes(world, off: pd.DataFrame, rng, *, betas, beta_star: float, n_trials: int) -> dict:
    """:func:`one_seed`'s dict from the world, its offline differences and the seed's generator after the world."""
    grid = _grid(betas, beta_star)
    on = online_differences(world)
    cols = list(BASELINES) + [eu_column(b) for b in grid]
    corr = correlation_table(off, on, cols, n_trials=n_trials, rng=rng).set_index("metric")
    dec, trk = signal_noise(off, on, expected_online_differences(world, n_contexts=world.params["n_ab"], rng=rng), cols)
    trk = trk.set_index("metric")
    key = {"MSE": "mse", "Weighted MSE": "wmse", "Utility": "utility"}
    out = {"signal_share": float(dec["signal_share"].iloc[0]), "r_signal_online": float(dec["r_signal_online"].iloc[0])}
    for col in cols:
        name = key.get(col, col.replace("EU (beta=", "eu_").rstrip(")"))
        out[f"r_{name}"] = float(corr.loc[col, "pearson_r"])
        out[f"tau_{name}"] = float(corr.loc[col, "kendall_tau"])
        out[f"rexp_{name}"] = float(trk.loc[col, "r_expected"])
    eu_star = eu_column(beta_star)
    r_eu = corr.loc[eu_star, "pearson_r"]
    t_eu = corr.loc[eu_star, "kendall_tau"]
    r_grid = np.array([corr.loc[eu_column(b), "pearson_r"] for b in sorted(float(b) for b in betas)])
    out["best_beta"] = float(sorted(float(b) for b in betas)[int(np.argmax(r_grid))])
    r_util, r_mse, r_wmse = (float(corr.loc[m, "pearson_r"]) for m in ("Utility", "MSE", "Weighted MSE"))
    t_mse, t_wmse = (float(corr.loc[m, "kendall_tau"]) for m in ("MSE", "Weighted MSE"))
    # the claims' effects (EFFECTS): real-valued gaps, positive where the paper's sentence holds on this seed
    out["eu_lead_r"] = float(r_eu - max(r_mse, r_wmse))
    out["eu_lead_tau"] = float(t_eu - max(t_mse, t_wmse))
    out["wmse_lead_r"] = float(r_wmse - r_mse)
    out["utility_gap_r"] = float(min(r_mse, r_wmse, r_eu) - r_util)
    out["order_gap_r"] = float(min(r_eu - r_wmse, r_wmse - r_mse, r_mse - r_util))
    out["interior_gap_r"] = float(r_grid[1:-1].max() - max(r_grid[0], r_grid[-1])) if len(r_grid) > 2 else float("nan")
    return out


def seed_with_controls(seed: int, *, controls=CONTROLS, betas, beta_star: float, n_trials: int = 100,
                       clicks: str = "drawn", **world_kw) -> tuple[dict, float]:
    """:func:`one_seed` of the world and of each control world of ``controls``, and the world's median logged cost.

    Returns ``({"world": dict, <control name>: dict, ...}, median_cost)``,
    each dict equal to :func:`one_seed` with that control's knobs.  A control
    that only logs the exploration data (``{"exploration": True}``) shares the
    world's draws: it is drawn once, with every request logged, and the
    won-only world is its subset of rows, so the rows' metrics are computed
    once for both (their per-network sums bit for bit those of separate
    draws) and the A/B test's moments once.
    """
    kw = dict(betas=betas, beta_star=beta_star, n_trials=n_trials)
    shared = [name for name, (knobs, _) in controls.items()
              if knobs == {"exploration": True} and not world_kw.get("exploration", False)]
    out = {}
    if shared:
        rng = np.random.default_rng(seed)
        explored = simulate_rtb(rng=rng, **{**world_kw, "exploration": True})
        rng_explored = copy.deepcopy(rng)  # the same state: each world's Algorithm 1 gets the trials one_seed draws
        world = without_exploration(explored)
        L = explored.logs  # the rows without_exploration keeps: each logged arm's won auctions
        p = np.where((L["arm"] == "a").to_numpy(), L["p_a"].to_numpy(), L["p_b"].to_numpy())
        won = p * L["v"].to_numpy() > L["c"].to_numpy()
        if clicks not in ("drawn", "expected"):
            raise ValueError(f"`clicks` must be 'drawn' or 'expected'; got {clicks!r}")
        off_won, off_all = offline_tables(explored, _grid(betas, beta_star), (clicks,), masks=(won, None))[clicks]
        out["world"] = _outcomes(world, off_won, rng, **kw)
        for name in shared:
            out[name] = _outcomes(explored, off_all, copy.deepcopy(rng_explored), **kw)
    else:
        rng = np.random.default_rng(seed)
        world = simulate_rtb(rng=rng, **world_kw)
        out["world"] = _outcomes(world, offline_differences(world, _grid(betas, beta_star), clicks), rng, **kw)
    for name, (knobs, _) in controls.items():
        if name not in out:
            out[name] = one_seed(seed, clicks=clicks, **kw, **{**world_kw, **knobs})
    return out, typical_cost(world)


def sweep_with_controls(seeds, *, controls=CONTROLS, workers: int | None = None,
                        **kwargs) -> tuple[pd.DataFrame, dict, pd.DataFrame]:
    """A block of seeds of :func:`seed_with_controls`: ``(sweep, {control name: sweep}, costs)``.

    Each sweep has a ``seed`` column followed by :func:`one_seed`'s keys, one
    row per seed (as :func:`offline_eval_compendium.claims.seed_sweep` builds
    it); ``costs`` has per seed the median logged cost of its world, its best
    beta and their product ``beta_c`` (beta made dimensionless).  ``workers``
    processes run the seeds (:func:`~offline_eval_compendium.machine.map_in_workers`); each seed draws
    from its own generator, so the rows are those of one process, in the
    seeds' order.
    """
    seeds = [int(s) for s in seeds]
    one = functools.partial(seed_with_controls, controls=controls, **kwargs)
    rows, costs = _collect(seeds, track(map_in_workers(one, seeds, workers=workers), "seeds with their controls",
                                        total=len(seeds)), controls)
    if not costs:
        raise ValueError("`seeds` must not be empty")
    return (pd.DataFrame(rows["world"]), {name: pd.DataFrame(rows[name]) for name in controls}, pd.DataFrame(costs))


def _collect(seeds, results, controls):
    rows = {name: [] for name in ("world", *controls)}
    costs = []
    for s, (out, cost) in zip(seeds, results):
        for name, row in out.items():
            rows[name].append({"seed": s, **row})
        best = out["world"]["best_beta"]
        costs.append({"seed": s, "median_cost": cost, "best_beta": float(best), "beta_c": float(best) * cost})
    return rows, costs


#: Why a Table 1 claim of the sweep may fail in this world: the mechanism behind it, with
#: ``{rexp}`` standing for the seeds' median noise-free correlations (:func:`sweep_why`).
SWEEP_WHY = {
    "wmse_lead_r": (
        "without A/B noise, {rexp}; the v^2 weight is the regret of a bid error only where the competing price is "
        "spread evenly over the bids (the EU's beta -> 0 limit): an error costs in proportion to the density of the "
        "competing price at the bid, so which weighting tracks the profit depends on where a market's prices sit "
        "against its high values, which the paper does not print"),
    "utility_gap_r": (
        "without A/B noise, {rexp}; on won-only logs the utility difference B - A is minus the profit of the "
        "logged auctions the candidate would lose: it sees the production model's over-bidding that won and the "
        "candidate's under-bidding, never the auctions the candidate wins and production lost; with the candidate "
        "predicting above production (eq. 2's premise) those unseen auctions carry the A/B difference"),
    "eu_lead_r": (
        "without A/B noise, {rexp}; with the price level calibrated to a median logged cost of $1 CPM the bidder "
        "wins the cheaper part of the competing bids, where their density changes little over a bid's error, so "
        "the value-weighted squared error (the EU's beta -> 0 limit) already tracks the profit nearly as well as "
        "any EU: the EU at the main run's beta and the weighted MSE are close and their order turns on the seed; "
        "the paper's best law is narrow (beta c = 10, chapelle-best-beta-dimensionless), which says that in its "
        "market the density of the competing bid changed much over a bid's error, which this world does not have; "
        "tried: the earlier, uncalibrated price level (median logged cost 0.6 CPM), where the EU led but the "
        "weighted MSE lost to the MSE; what would settle it is the paper's win rate or the spread of the competing "
        "bids around its bids, which it does not print"),
    "order_gap_r": (
        "without A/B noise, {rexp}; the order needs the EU above the weighted MSE, the weighted MSE above the MSE "
        "and the MSE above the utility in the same seed: its effect is the narrowest of the three gaps on each "
        "seed, so it lies below any one of the three comparisons (the seeds' medians above show which is the "
        "closest)"),
}


def sweep_why(sweep: pd.DataFrame, key: str, beta_star: float) -> str:
    """The reason :data:`SWEEP_WHY` gives for ``key``, with the seeds' median noise-free correlations."""
    eu = f"eu_{beta_star:g}"
    rexp = "the seeds' median r with the expected A/B difference is " + ", ".join(
        f"{k} {sweep[f'rexp_{k}'].median():.3f}" for k in ("mse", "wmse", "utility", eu))
    return SWEEP_WHY[key].format(rexp=rexp)
