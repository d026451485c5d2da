"""yi Tables 2-4: the printed bins of a panel, recomputed from its inputs (shared by :mod:`.auc_anomalies` and
:mod:`.production_scale`).

A panel's printed inputs (avg pClick, # clicks, # no-clicks per bin, :data:`BIN_COLUMNS`), with a correction of
``data/corrections/yi.csv`` applied where asked, give every derived cell: actual CTR, TPR, FPR, trapezoid,
avg pClick / actual CTR and the totals with the AUC.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from offline_eval.metrics import roc_auc_score_from_counts, roc_curve_from_counts
from ... import reference

__all__ = ["ANOMALY_TABLES", "BIN_COLUMNS", "PANELS", "binned_roc_table", "corrected_bins", "expand_bins",
           "panel_totals", "printed_bins", "recompute_panel"]

ANOMALY_TABLES = ("Table 2", "Table 3", "Table 4")
PANELS = ("a", "b")
BIN_COLUMNS = ["Avg pClick", "# clicks", "# no-clicks", "Actual CTR", "TPR", "FPR", "Trapezoid", "Avg pClick / Actual CTR"]


def printed_bins(ref: pd.DataFrame, table: str, panel: str) -> pd.DataFrame:
    """The printed bins of one panel as strings (rows ``bin 1..k``, columns :data:`BIN_COLUMNS`)."""
    sel = ref[(ref["source"] == table) & (ref["panel"] == panel) & ref["row"].str.startswith("bin ")]
    if sel.empty:
        raise ValueError(f"`table`, `panel`: no printed bins for {table!r} panel {panel!r}")
    wide = sel.pivot(index="row", columns="column", values="value")
    wide = wide.loc[sorted(wide.index, key=lambda r: int(r.split()[1])), BIN_COLUMNS]
    wide.columns.name = None
    return wide


def binned_roc_table(avg_pclick, clicks, no_clicks) -> pd.DataFrame:
    """Recompute a yi anomaly table from its inputs (bins in descending pClick order).

    Columns: ``Actual CTR`` = clicks / (clicks + no-clicks); ``TPR`` and ``FPR``
    cumulative over the bins; ``Trapezoid`` = (FPR_k - FPR_{k-1})(TPR_k + TPR_{k-1})/2;
    ``Avg pClick / Actual CTR``.  The trapezoids sum to :func:`roc_auc_score_from_counts`.

    Examples
    --------
    >>> t = binned_roc_table([0.5, 0.1], [3, 1], [1, 3])
    >>> t["Trapezoid"].round(5).tolist(), float(t["Trapezoid"].sum())
    ([0.09375, 0.65625], 0.75)
    """
    pc = np.asarray(avg_pclick, dtype=float)
    c = np.asarray(clicks, dtype=float)
    nc = np.asarray(no_clicks, dtype=float)
    fpr, tpr = roc_curve_from_counts(c, nc)
    ctr = c / (c + nc)
    return pd.DataFrame(
        {
            "Avg pClick": pc,
            "# clicks": c.astype(np.int64),
            "# no-clicks": nc.astype(np.int64),
            "Actual CTR": ctr,
            "TPR": tpr[1:],
            "FPR": fpr[1:],
            "Trapezoid": np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2,
            "Avg pClick / Actual CTR": pc / ctr,
        }
    )


def corrected_bins(ref: pd.DataFrame, table: str, panel: str, corrections: pd.DataFrame | None = None) -> pd.DataFrame:
    """:func:`printed_bins` with the input cells of ``corrections`` (:func:`reference.load_corrections`) replaced."""
    printed = printed_bins(ref, table, panel)
    if corrections is not None:
        for _, c in corrections[(corrections["source"] == table) & (corrections["panel"] == panel)].iterrows():
            if printed.loc[c["row"], c["column"]] != c["printed"]:
                raise ValueError(f"`corrections`: {table} panel {panel} {c['row']} {c['column']} is printed "
                                 f"{printed.loc[c['row'], c['column']]!r}, not {c['printed']!r}")
            printed.loc[c["row"], c["column"]] = c["corrected"]
    return printed


def recompute_panel(ref: pd.DataFrame, table: str, panel: str,
                    corrections: pd.DataFrame | None = None) -> tuple[pd.DataFrame, dict]:
    """Recomputed bins of one panel and its totals (clicks, no-clicks, CTR, AUC).

    With ``corrections``, the corrected input cells replace the printed ones.
    """
    printed = corrected_bins(ref, table, panel, corrections)
    tab = binned_roc_table(
        printed["Avg pClick"].map(reference.parse_printed),
        printed["# clicks"].map(reference.parse_printed),
        printed["# no-clicks"].map(reference.parse_printed),
    )
    return tab, panel_totals(tab)


def panel_totals(tab: pd.DataFrame) -> dict:
    """The total row of a recomputed panel: clicks, no-clicks, actual CTR and AUC."""
    c, nc = tab["# clicks"].sum(), tab["# no-clicks"].sum()
    return {
        "# clicks": int(c),
        "# no-clicks": int(nc),
        "Actual CTR": c / (c + nc),
        "AUC": roc_auc_score_from_counts(tab["# clicks"], tab["# no-clicks"]),
    }


def expand_bins(avg_pclick, clicks, no_clicks) -> tuple[np.ndarray, np.ndarray]:
    """Row-level labels and scores of a binned table: each bin's rows share its avg pClick."""
    c = np.asarray(clicks, dtype=np.int64)
    nc = np.asarray(no_clicks, dtype=np.int64)
    score = np.repeat(np.asarray(avg_pclick, dtype=float), c + nc)
    y = np.concatenate([np.r_[np.ones(a, np.int8), np.zeros(b, np.int8)] for a, b in zip(c, nc)])
    return y, score
