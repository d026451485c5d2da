"""chapelle Table 1's standard deviations: what a per-network A/B noise variance can reach.

Shared by :mod:`offline_eval_compendium.studies.chapelle.auctions`.  The calibrated world's A/B test gives
every network the same size; the paper's networks differ in size ("Small networks were grouped together in
order to ensure that each of them had at least 30M impressions", Section 3), so each has its own noise
variance.  :func:`noise_family` fits that wider family to the six printed standard deviations, and bounds
what any per-network noise could do by raising the noise of the one network that carries most of the online
variance alone.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import reference
from ...claims import SIZE_RTOL
from ._world import (
    CALIBRATION_METRICS, ab_sizes, calibrate_ab_noise, correlation_table, expected_online_differences,
    online_differences, pearson_spread_why,
)
from offline_eval.synth.rtb import RTBWorld, resize_ab

__all__ = [
    "AB_SPREADS", "TOP_NOISE_FACTORS", "add_noise_calibration", "family_range", "family_why", "noise_family",
    "rows_brought_in",
]


#: The widened noise family's spreads of the networks' A/B sizes (log-sd of a half-normal above the smallest),
#: each with its A/B size fitted as :func:`calibrate_ab_noise` fits it; declared before any run.
AB_SPREADS = (0.0, 0.5, 1.0, 2.0, 3.0)
#: The A/B noise of the network that carries the most online variance, multiplied alone (a bound, not a world).
TOP_NOISE_FACTORS = (10.0, 30.0, 50.0)


def noise_family(world: RTBWorld, offline: pd.DataFrame, ref: pd.DataFrame, z, columns, *, n_trials: int = 100,
                 trial_seed: int = 0, spreads=AB_SPREADS, factors=TOP_NOISE_FACTORS) -> pd.DataFrame:
    """What a per-network A/B noise variance can reach: the six calibrated standard deviations and Table 1.

    ``family="sizes"``: for each spread of the networks' sizes (:func:`ab_sizes`,
    ``z`` one draw per network), the smallest size fitted to the printed
    standard deviations by :func:`calibrate_ab_noise` (``knob``: the spread;
    ``loss``: its sum of squares).  ``family="top network"``: at the spread-0
    fit, the A/B standard error of the one network that carries the most
    variance of the expected online differences multiplied by ``knob`` alone
    (``log10_size`` the size that network would then have).  Each row carries
    the six standard deviations (``<metric> r_std`` / ``tau_std``) and the
    mean Pearson r and Kendall tau of ``columns`` over Algorithm 1's trials.
    """
    cols = list(CALIBRATION_METRICS)
    printed = {(m, k): reference.parse_printed(reference.lookup(ref, "Table 1", m, f"{name} std"))
               for m in cols for k, name in (("pearson_r_std", "Pearson r"), ("kendall_tau_std", "Kendall tau"))}
    if spreads[0] != 0:
        raise ValueError(f"`spreads` must start with 0 (the family's narrowest member); got {spreads!r}")
    rows, base = [], None

    def row(family, knob, log_n, online):
        c = correlation_table(offline, online, list(dict.fromkeys(cols + list(columns))), n_trials=n_trials,
                              rng=trial_seed).set_index("metric")
        out = {"family": family, "knob": knob, "log10_size": log_n,
               "loss": sum((round(float(c.loc[m, k]), 6) - v) ** 2 for (m, k), v in printed.items())}
        out.update({f"{m} {k.replace('pearson_r', 'r').replace('kendall_tau', 'tau')}": float(c.loc[m, k])
                    for (m, k) in printed})
        for col in columns:
            out[f"{col} r"], out[f"{col} tau"] = float(c.loc[col, "pearson_r"]), float(c.loc[col, "kendall_tau"])
        return out

    for spread in spreads:
        n, _ = calibrate_ab_noise(world, offline, ref, n_trials=n_trials, trial_seed=trial_seed, spread=spread, z=z)
        sizes = n if spread == 0 else ab_sizes(n, spread, z)
        online = online_differences(resize_ab(world, sizes))
        rows.append(row("sizes", float(spread), float(np.log10(n)), online))
        base = online if spread == 0 else base
    expected = expected_online_differences(world)["expected_online"].to_numpy()
    top = int(np.argmax((expected - expected.mean()) ** 2))
    for f in factors:
        online = base.copy()
        online.loc[top, "online_se"] *= f
        rows.append(row("top network", float(f), float(rows[0]["log10_size"] - 2 * np.log10(f)), online))
    return pd.DataFrame(rows)


def family_why(family: pd.DataFrame, metric: str, coef: str, printed: float) -> str:
    """What the widened noise family (:func:`noise_family`) gives one calibrated standard deviation, in words."""
    col, sizes = f"{metric} {coef}_std", family[family["family"] == "sizes"]
    text = (f"; the family widened by networks of different A/B sizes (the spread of their log sizes "
            f"{sizes['knob'].min():g} to {sizes['knob'].max():g}, the size refitted at each) gives "
            f"{sizes[col].min():.3f} to {sizes[col].max():.3f} (loss {sizes['loss'].min():.5f} to "
            f"{sizes['loss'].max():.5f}, {sizes['loss'].iloc[0]:.5f} with equal sizes) against the printed {printed:g}")
    top = family[family["family"] == "top network"]
    if coef == "r" and len(top):
        text += ("; only the A/B noise of the network that carries most of the online variance, raised alone, moves "
                 "it: "
                 + ", ".join(f"x{r['knob']:g} (an A/B test of {10 ** r['log10_size']:.2g} impressions on that network) "
                             f"{r[col]:.3f}" for _, r in top.iterrows())
                 + "; no law of sizes independent of the networks' differences puts it there, and the paper states "
                 "no other property of its networks (how their profits differ is not printed), so it allows no "
                 "wider family")
    return text


def family_range(family: pd.DataFrame, column: str, coef: str) -> str:
    """The range of one Table 1 correlation of the main world over the widened family's fits (:func:`noise_family`)."""
    sizes = family[family["family"] == "sizes"][f"{column} {coef}"]
    return (f"over the widened noise family's fits (networks of different A/B sizes, chapelle/noise_family.csv) the "
            f"main world's value ranges {sizes.min():.3f} to {sizes.max():.3f}")


def rows_brought_in(family: pd.DataFrame, printed: dict, rtol: float) -> list[str]:
    """The calibrated standard deviations a wider spread brings within ``rtol`` of ``printed`` while the equal sizes
    leave them out (``printed``: ``{column of the family: printed value}``): the declared rule adopts such a spread."""
    sizes = family[family["family"] == "sizes"]

    def inside(row, col):
        return abs(round(float(row[col]), 3) - printed[col]) <= rtol * abs(printed[col])

    return [f"{col} at spread {r['knob']:g}" for col in printed for _, r in sizes.iloc[1:].iterrows()
            if inside(r, col) and not inside(sizes.iloc[0], col)]


def add_noise_calibration(ledger, ab_impressions: float, table: pd.DataFrame, ref: pd.DataFrame,
                          diagnosis: pd.DataFrame | None = None, family: pd.DataFrame | None = None) -> None:
    """The calibrated A/B noise: one ``calibration`` row per printed standard deviation it was fitted to.

    With ``diagnosis`` (:func:`noise_diagnosis`), each Pearson row's note says
    what holds its spread over the trials: the correlation, the largest share
    of the online variance one network carries and the first-order spread;
    with ``family`` (:func:`noise_family`), what the widened family reaches.
    """
    diag = None if diagnosis is None else diagnosis.set_index("metric")
    for _, r in table.iterrows():
        slug = r["metric"].lower().replace(" ", "-")
        coef = "r" if r["coefficient"] == "Pearson r" else "tau"
        wider = "" if family is None else family_why(family, r["metric"], coef, r["paper"])
        moved = [] if family is None else rows_brought_in(family, {f"{r['metric']} {coef}_std": r["paper"]},
                                                          SIZE_RTOL)
        if moved:
            wider += (f"; by the declared rule a wider spread that brings this row into its band ({', '.join(moved)}) "
                      "replaces the equal sizes, and this run does not draw it: its value is the equal sizes' world's")
        ledger.calibration(
            f"chapelle-calib-{slug}-{coef}-std", detail=f"{r['coefficient']} of the {r['metric']}",
            printed=reference.lookup(ref, "Table 1", r["metric"], f"{r['coefficient']} std"), value=round(r["ours"], 3),
            rtol=SIZE_RTOL, note=(f"the A/B test's size was fitted to these six printed standard deviations (least squares, "
                             f"scipy.optimize.minimize_scalar): {ab_impressions:.3g} impressions per network; a "
                             "target, not evidence" + pearson_spread_why(diag, r["metric"], coef) + wider))
