"""yi Tables 2-4 at production scale: the binned tables expanded to row-level logs on Dask.

The printed tables give, per bin of predicted pClick, the number of clicks and no-clicks.  Expanded to
rows (each row carrying its bin's average pClick) and multiplied by an integer ``factor``, they are
logs of 10^7-10^8 rows, generated lazily partition by partition (nothing is held in memory but one
partition).  :mod:`offline_eval.ondask` then computes the row-level AUC, the calibration per bin and
the calibration by decile; the binned recomputation of :mod:`.auc_anomalies` (:mod:`._bins`) is what they
must equal.  Multiplying every count by ``factor`` leaves the AUC and every ratio unchanged
exactly, so the comparison is exact at any scale.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from offline_eval import ondask
from ...claims import Claim, Ledger, declare
from . import _bins

__all__ = ["CLAIMS", "YiProductionScaleRun", "log_frame", "panel_counts", "partition_rows", "run_experiment",
           "scale_tables", "add_claims"]

_EV = ("yi/scale_auc.csv", "yi/scale_calibration_bins.csv", "yi/scale_calibration_deciles.csv")

#: The claims table, declared before the run: checks of the compendium's own Dask path (not claims of the paper).
CLAIMS = declare(
    Claim("yi-scale-auc-rows-equal-bins", "Tables 2-4",
          "the row-level AUC of every panel, computed through Dask on the expanded logs, equals the binned AUC",
          "check", "|AUC(Dask, rows) - AUC(binned)| <= 1e-12 on every panel", world="ours",
          evidence=("yi/scale_auc.csv",)),
    Claim("yi-scale-calibration-per-bin", "Tables 2-4",
          "the calibration ratio (avg pClick / actual CTR) of every bin, through Dask, equals the binned recomputation",
          "check", "relative difference <= 1e-12 in every bin of every panel", world="ours",
          evidence=("yi/scale_calibration_bins.csv",)),
    Claim("yi-scale-calibration-deciles", "Tables 2-4",
          "the calibration by decile of predicted pClick, through Dask, accounts for every row of the panel once",
          "check", "per panel, the deciles' rows equal the panel's rows and their pClick mass (rows x avg pClick) "
          "equals the bins' (relative difference <= 1e-9: sums of 10^7 floats in another order)", world="ours",
          evidence=("yi/scale_calibration_deciles.csv", "yi/scale_calibration_bins.csv")),
)

PANELS = ("a", "b")


def panel_counts(ref: pd.DataFrame, table: str, panel: str, factor: int = 1) -> pd.DataFrame:
    """The panel's bins recomputed from the printed counts, counts times ``factor``."""
    if not (isinstance(factor, (int, np.integer)) and not isinstance(factor, bool) and factor >= 1):
        raise ValueError(f"`factor` must be a positive integer; got {factor!r}")
    tab, _ = _bins.recompute_panel(ref, table, panel)
    out = tab[["Avg pClick", "# clicks", "# no-clicks"]].copy()
    out["# clicks"] = out["# clicks"].astype(np.int64) * int(factor)
    out["# no-clicks"] = out["# no-clicks"].astype(np.int64) * int(factor)
    return out.reset_index(drop=True)


def partition_rows(counts: pd.DataFrame, start: int, stop: int) -> pd.DataFrame:
    """Rows ``start:stop`` of the expanded panel: bin by bin, its clicks then its no-clicks.

    >>> c = pd.DataFrame({"Avg pClick": [0.5, 0.1], "# clicks": [1, 0], "# no-clicks": [1, 2]})
    >>> partition_rows(c, 1, 3).to_dict("list")
    {'click': [0, 0], 'pclick': [0.5, 0.1]}
    """
    seg_len = np.column_stack([counts["# clicks"], counts["# no-clicks"]]).ravel()  # click block, no-click block
    seg_click = np.tile([1, 0], len(counts)).astype(np.int8)
    seg_score = np.repeat(counts["Avg pClick"].to_numpy(float), 2)
    ends = np.cumsum(seg_len)
    begins = ends - seg_len
    take = np.clip(np.minimum(ends, stop) - np.maximum(begins, start), 0, None)
    return pd.DataFrame({"click": np.repeat(seg_click, take), "pclick": np.repeat(seg_score, take)})


def log_frame(counts: pd.DataFrame, *, rows_per_partition: int = 2_000_000):
    """The expanded panel as a Dask DataFrame generated partition by partition."""
    import dask.dataframe as dd

    n = int(counts["# clicks"].sum() + counts["# no-clicks"].sum())
    bounds = list(range(0, n, int(rows_per_partition))) + [n]
    meta = pd.DataFrame({"click": np.zeros(0, np.int8), "pclick": np.zeros(0)})
    return dd.from_map(lambda b: partition_rows(counts, *b), list(zip(bounds[:-1], bounds[1:])), meta=meta,
                       enforce_metadata=False), n


def scale_tables(ref: pd.DataFrame, *, tables=_bins.ANOMALY_TABLES, panels=PANELS, factor: int = 1,
                 rows_per_partition: int = 2_000_000, n_quantiles: int = 10) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per panel: rows, AUC through Dask vs binned; calibration per bin; calibration by decile.

    Returns ``(auc, per_bin, deciles)`` tables.
    """
    auc_rows, bin_rows, dec_rows = [], [], []
    for table in tables:
        for panel in panels:
            counts = panel_counts(ref, table, panel, factor)
            ddf, n = log_frame(counts, rows_per_partition=rows_per_partition)
            sc = ondask.score_counts(ddf, "click", "pclick")
            _, totals = _bins.recompute_panel(ref, table, panel)
            auc_rows.append(dict(table=table, panel=panel, rows=n, partitions=ddf.npartitions, auc_dask=sc.roc_auc_score(),
                                 auc_binned=totals["AUC"], abs_diff=abs(sc.roc_auc_score() - totals["AUC"])))
            clicks, no_clicks = counts["# clicks"].to_numpy(float), counts["# no-clicks"].to_numpy(float)
            binned_ratio = counts["Avg pClick"].to_numpy(float) / (clicks / (clicks + no_clicks))
            at = np.searchsorted(sc.values, counts["Avg pClick"].to_numpy(float))
            dask_ratio = sc.values[at] / (sc.pos[at] / sc.weight[at])
            for k in range(len(counts)):
                bin_rows.append(dict(table=table, panel=panel, bin=k + 1, avg_pclick=counts["Avg pClick"].iloc[k],
                                     rows=int(clicks[k] + no_clicks[k]), ratio_dask=dask_ratio[k],
                                     ratio_binned=binned_ratio[k]))
            dec = ondask.quantile_breakdown(ddf, "click", "pclick", n_quantiles=n_quantiles, first_pass=sc)
            dec.insert(0, "panel", panel)
            dec.insert(0, "table", table)
            dec_rows.append(dec[["table", "panel", "quantile", "weight", "clicks", "ctr", "avg_pclick", "calibration_ratio"]])
    return pd.DataFrame(auc_rows), pd.DataFrame(bin_rows), pd.concat(dec_rows, ignore_index=True)


@dataclasses.dataclass(frozen=True, kw_only=True)
class YiProductionScaleRun:
    """The three tables of :func:`scale_tables` (:func:`run_experiment`): per panel the AUC through Dask beside the
    binned one, the calibration per bin, the calibration by quantile."""

    auc: pd.DataFrame
    per_bin: pd.DataFrame
    deciles: pd.DataFrame


def run_experiment(ref: pd.DataFrame, *, tables=_bins.ANOMALY_TABLES, panels=PANELS, factor: int = 1,
                   rows_per_partition: int = 2_000_000, n_quantiles: int = 10) -> YiProductionScaleRun:
    """The notebook's experiment: :func:`scale_tables` on the panels of ``tables`` and ``panels``, every printed count
    times ``factor``.  Parameters as in the notebook's parameters cell."""
    auc, per_bin, deciles = scale_tables(ref, tables=tables, panels=panels, factor=factor,
                                         rows_per_partition=rows_per_partition, n_quantiles=n_quantiles)
    return YiProductionScaleRun(auc=auc, per_bin=per_bin, deciles=deciles)


def add_claims(ledger: Ledger, run: YiProductionScaleRun, *, block: None = None) -> None:
    """Fill :data:`CLAIMS` from ``run`` (:func:`run_experiment`): the Dask path equals the binned computation on every
    panel, at this scale.  The study has no seed blocks: ``block`` must be None."""
    if block is not None:
        raise ValueError(f"`block` must be None: yi_production_scale has no seed blocks; got {block!r}")
    auc, per_bin, deciles = run.auc, run.per_bin, run.deciles
    worst = float(auc["abs_diff"].max())
    ledger.check(
        "yi-scale-auc-rows-equal-bins", holds=worst <= 1e-12,
        reproduced_value=f"{int(auc['rows'].sum()):,} rows in {int(auc['partitions'].sum())} partitions; "
                         f"max |diff| {'< 1e-12' if worst <= 1e-12 else f'{worst:.3g}'}",
    )
    rel = (per_bin["ratio_dask"] / per_bin["ratio_binned"] - 1).abs().max()
    ledger.check(
        "yi-scale-calibration-per-bin", holds=bool(rel <= 1e-12),
        reproduced_value=f"{len(per_bin)} bins; max relative difference {'< 1e-12' if rel <= 1e-12 else f'{rel:.3g}'}",
    )
    key = ["table", "panel"]
    bins = per_bin.assign(mass=per_bin["rows"] * per_bin["avg_pclick"]).groupby(key)[["rows", "mass"]].sum()
    dec = deciles.assign(mass=deciles["weight"] * deciles["avg_pclick"]).groupby(key)[["weight", "mass"]].sum()
    rows_equal = bool((dec["weight"].to_numpy() == bins["rows"].to_numpy()).all())
    mass_rel = float((dec["mass"] / bins["mass"] - 1).abs().max())
    ledger.check(
        "yi-scale-calibration-deciles", holds=rows_equal and mass_rel <= 1e-9,
        reproduced_value=f"{len(bins)} panels, {len(deciles)} non-empty deciles; rows equal: "
                         f"{'yes' if rows_equal else 'no'}; pClick mass equal within "
                         f"{'1e-9' if mass_rel <= 1e-9 else f'{mass_rel:.1e} (more than 1e-9)'}",
    )
