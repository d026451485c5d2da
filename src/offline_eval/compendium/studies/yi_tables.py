"""yi Tables 1-4: the metric survey and the three "AUC anomaly" tables.

Everything is recomputed from the paper's own printed inputs (the survey
counts; per bin the average pClick, # clicks and # no-clicks) read from
``data/reference/yi/``, then compared cell by cell with what the paper prints.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .. import reference
from ..claims import Ledger, matches_printed
from ...metrics import roc_auc_score, roc_auc_score_from_counts, roc_curve_from_counts

__all__ = [
    "ANOMALY_TABLES",
    "BIN_COLUMNS",
    "binned_roc_table",
    "add_input_errata",
    "add_row_level_claim",
    "row_level_table",
    "compare_anomaly_table",
    "corrected_bins",
    "panel_table",
    "expand_bins",
    "printed_bins",
    "survey_checks",
    "survey_table",
]

ANOMALY_TABLES = ("Table 2", "Table 3", "Table 4")
PANELS = ("a", "b")
BIN_COLUMNS = ["Avg pClick", "# clicks", "# no-clicks", "Actual CTR", "TPR", "FPR", "Trapezoid", "Avg pClick / Actual CTR"]
SURVEY_METRICS = ["Probability", "Log Likelihood", "PE", "NDCG", "IR", "misc", "Online"]
# Top-level categories of Table 1 and their sub-categories, as the paper lists them.
SURVEY_CATEGORIES = {
    "Recommendation": [],
    "Search": ["ranking", "personalized search", "social search ranking", "result clustering",
               "query classification/suggestion", "topic assignment", "distributed search"],
    "Online Advertising": ["pricing/bid estimation", "ad auction", "bid agents", "targetting", "commerce"],
    "CTR Estimation (Algo + Ads)": [],
}


# -- Tables 2-4 ---------------------------------------------------------------------------
def printed_bins(ref: pd.DataFrame, table: str, panel: str) -> pd.DataFrame:
    """The printed bins of one panel as strings (rows ``bin 1..k``, columns :data:`BIN_COLUMNS`)."""
    sel = ref[(ref["source"] == table) & (ref["panel"] == panel) & ref["row"].str.startswith("bin ")]
    if sel.empty:
        raise ValueError(f"no printed bins for {table!r} panel {panel!r}")
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
    return tab, _totals(tab)


def _totals(tab: pd.DataFrame) -> dict:
    """The total row of a recomputed panel: clicks, no-clicks, actual CTR and AUC."""
    c, nc = tab["# clicks"].sum(), tab["# no-clicks"].sum()
    return {
        "# clicks": int(c),
        "# no-clicks": int(nc),
        "Actual CTR": c / (c + nc),
        "AUC": roc_auc_score_from_counts(tab["# clicks"], tab["# no-clicks"]),
    }


def panel_table(ref: pd.DataFrame, table: str, corrections: pd.DataFrame | None = None) -> pd.DataFrame:
    """Both panels of one anomaly table recomputed, each with the table's total row.

    Columns ``panel, row`` then :data:`BIN_COLUMNS` and ``AUC``; the total row
    holds the sums of clicks and no-clicks, the total CTR and the AUC, as the
    paper's total row does (its other cells are empty).
    """
    parts = []
    for panel in PANELS:
        tab, totals = recompute_panel(ref, table, panel, corrections)
        rows = printed_bins(ref, table, panel).index
        bins = tab.assign(panel=panel, row=list(rows), AUC=np.nan)
        total = pd.DataFrame([{**{c: np.nan for c in BIN_COLUMNS}, "panel": panel, "row": "total", **totals}])
        parts += [bins, total]
    out = pd.concat(parts, ignore_index=True)[["panel", "row"] + BIN_COLUMNS + ["AUC"]]
    return out.astype({"# clicks": "Int64", "# no-clicks": "Int64"})


def compare_anomaly_table(ref: pd.DataFrame, table: str, ledger: Ledger | None = None,
                          corrections: pd.DataFrame | None = None) -> pd.DataFrame:
    """Both panels of one anomaly table, printed beside recomputed, one row per cell.

    Returns a long table with columns ``panel, row, column, printed,
    recomputed, matches, recomputed_as_printed, matches_as_printed``: the
    cells recomputed from the inputs with ``corrections`` applied, and from
    the inputs as printed.  When ``ledger`` is given, every printed derived
    cell (CTR, TPR, FPR, trapezoid, ratio, totals, AUC) is added as a claim:
    ``exact`` when it matches at the printed precision (a cell that matches
    only with a corrected input says so and names the root erratum, which
    :func:`add_input_errata` records once), ``erratum`` with the evidence when
    the paper's own inputs give another value.
    """
    rows = []
    for panel in PANELS:
        tab, totals = recompute_panel(ref, table, panel, corrections)
        tab0, totals0 = recompute_panel(ref, table, panel)
        printed = printed_bins(ref, table, panel)
        for k, (label, prow) in enumerate(printed.iterrows()):
            for col in BIN_COLUMNS:
                rows.append(dict(panel=panel, row=label, column=col, printed=prow[col], recomputed=float(tab[col].iloc[k]),
                                 recomputed_as_printed=float(tab0[col].iloc[k])))
        tot = ref[(ref["source"] == table) & (ref["panel"] == panel) & (ref["row"] == "total")]
        for _, t in tot.iterrows():
            rows.append(dict(panel=panel, row="total", column=t["column"], printed=t["value"],
                             recomputed=float(totals[t["column"]]), recomputed_as_printed=float(totals0[t["column"]])))
    df = pd.DataFrame(rows)
    df["matches"] = [matches_printed(v, p) for v, p in zip(df["recomputed"], df["printed"])]
    df["matches_as_printed"] = [matches_printed(v, p) for v, p in zip(df["recomputed_as_printed"], df["printed"])]
    if ledger is not None:
        _add_cell_claims(ledger, table, df, corrections)
    return df


def _add_cell_claims(ledger: Ledger, table: str, cells: pd.DataFrame, corrections: pd.DataFrame | None) -> None:
    tid = table.replace("Table ", "T")
    n = table.split()[1]
    roots = ([] if corrections is None
             else sorted(set(corrections.loc[corrections["source"] == table, "erratum_id"])))
    for _, cell in cells.iterrows():
        if cell["column"] in ("Avg pClick", "# clicks", "# no-clicks") and cell["row"] != "total":
            continue  # inputs, not claims
        cid = f"yi-{tid}{cell['panel']}-{cell['row'].replace(' ', '')}-{_slug(cell['column'])}"
        where = f"{table}, panel {cell['panel']}, {cell['row']}, {cell['column']}"
        evidence = None if cell["matches"] else _evidence(table, cells, cell)
        note = ""
        if cell["matches"] and not cell["matches_as_printed"]:
            note = (f"a consequence of the input typo {', '.join(roots)}: reproduced from the corrected input; from the "
                    f"input as printed it would be {cell['recomputed_as_printed']:.6g}")
        ledger.printed(cid, table, f"{where} as printed", printed=cell["printed"], value=cell["recomputed"],
                       erratum_note=evidence, note=note, evidence=(f"yi/table{n}_cells.csv",))


def add_input_errata(ledger: Ledger, ref: pd.DataFrame, corrections: pd.DataFrame, cells: dict) -> pd.DataFrame:
    """One root ``erratum`` row per input typo of ``corrections``, proven by both readings of the input.

    For each corrected cell both values (as printed, corrected) are tried
    (:func:`input_hypotheses`); the erratum stands when the corrected value
    leaves no printed derived cell of its panel inconsistent while the
    printed one does.  ``cells`` is ``{table: compare_anomaly_table(...)}``,
    whose consequence rows the erratum lists.  Returns the hypotheses table.
    """
    hyp = pd.concat([input_hypotheses(ref, c["source"], c["panel"], c["row"], c["column"], [c["printed"], c["corrected"]])
                     .assign(erratum_id=c["erratum_id"], reading=["as printed", "corrected"])
                     for _, c in corrections.iterrows()], ignore_index=True)
    for root, grp in corrections.groupby("erratum_id", sort=True):
        h = hyp[hyp["erratum_id"] == root]
        bad_printed = int(h.loc[h["reading"] == "as printed", "n_inconsistent"].sum())
        bad_corrected = int(h.loc[h["reading"] == "corrected", "n_inconsistent"].sum())
        consequences = [f"{t} {r['panel']} {r['row']} {r['column']}" for t, df in cells.items() if t in set(grp["source"])
                        for _, r in df.iterrows() if r["matches"] and not r["matches_as_printed"]]
        where = "; ".join(f"{c['source']} panel {c['panel']} {c['row']} {c['column']}" for _, c in grp.iterrows())
        first = grp.iloc[0]
        proven = bad_corrected == 0 and bad_printed > 0
        ledger.add(
            root, first["source"], f"the input cell(s) {where} print {first['printed']}; the panels' own cells imply "
            f"{first['corrected']}", paper_value=f"{first['printed']} (printed)", reproduced_value=first["corrected"],
            criterion="with the corrected input every printed derived cell of the panel(s) is reproduced, with the "
                      "printed input not",
            status="erratum" if proven else "differs", kind="printed", evidence=(f"yi/table{first['source'].split()[1]}_typo.csv",),
            note=(f"{bad_printed} inconsistent derived cells with the printed input, {bad_corrected} with the corrected one; "
                  f"{grp.iloc[0]['reason']}; its consequences, reproduced exactly from the corrected input: "
                  f"{'; '.join(consequences) or 'none'}"),
        )
    return hyp


def _slug(col: str) -> str:
    col = {"Avg pClick / Actual CTR": "ratio", "# clicks": "clicks", "# no-clicks": "noclicks"}.get(col, col)
    return re.sub(r"[^a-z0-9]+", "-", col.lower()).strip("-")


def _evidence(table: str, cells: pd.DataFrame, cell) -> str:
    panel = cells[cells["panel"] == cell["panel"]]
    if cell["row"] == "total" and cell["column"] in ("# clicks", "# no-clicks"):
        parts = panel[(panel["column"] == cell["column"]) & (panel["row"] != "total")]["printed"].tolist()
        return (f"the printed bins {' + '.join(parts)} sum to {cell['recomputed']:,.0f}, "
                f"not the printed total {cell['printed']}")
    if cell["column"] == "Trapezoid":
        printed_traps = panel[(panel["column"] == "Trapezoid") & (panel["row"] != "total")]["printed"]
        auc_printed = panel[(panel["column"] == "AUC")]["printed"]
        s = sum(reference.parse_printed(x) for x in printed_traps)
        extra = f"; the printed trapezoids sum to {s:.4f}, not the printed AUC {auc_printed.iloc[0]}" if len(auc_printed) else ""
        return (f"(FPR_k - FPR_k-1)(TPR_k + TPR_k-1)/2 from the printed counts is {cell['recomputed']:.6f}"
                f", not {cell['printed']}{extra}")
    return f"recomputed from the printed # clicks and # no-clicks: {cell['recomputed']:.6g}, printed {cell['printed']}"


def expand_bins(avg_pclick, clicks, no_clicks) -> tuple[np.ndarray, np.ndarray]:
    """Row-level labels and scores of a binned table: each bin's rows share its avg pClick."""
    c = np.asarray(clicks, dtype=np.int64)
    nc = np.asarray(no_clicks, dtype=np.int64)
    score = np.repeat(np.asarray(avg_pclick, dtype=float), c + nc)
    y = np.concatenate([np.r_[np.ones(a, np.int8), np.zeros(b, np.int8)] for a, b in zip(c, nc)])
    return y, score


def row_level_auc(ref: pd.DataFrame, table: str, panel: str) -> tuple[int, float, float]:
    """Number of rows, row-level :func:`roc_auc_score` and binned AUC of one panel."""
    tab, totals = recompute_panel(ref, table, panel)
    y, s = expand_bins(tab["Avg pClick"], tab["# clicks"], tab["# no-clicks"])
    return len(y), roc_auc_score(y, s), totals["AUC"]



def row_level_table(ref: pd.DataFrame, max_expanded_rows: int) -> pd.DataFrame:
    """Row-level against binned AUC of every panel with at most ``max_expanded_rows`` rows (as printed)."""
    rows = []
    for table in ANOMALY_TABLES:
        for panel in ("a", "b"):
            tab, totals = recompute_panel(ref, table, panel)
            n_rows = int(tab["# clicks"].sum() + tab["# no-clicks"].sum())
            if n_rows <= max_expanded_rows:
                n_rows, auc_rows, auc_bins = row_level_auc(ref, table, panel)
                rows.append(dict(table=table, panel=panel, rows=n_rows, auc_rows=auc_rows, auc_bins=auc_bins,
                                 abs_diff=abs(auc_rows - auc_bins)))
    row_level = pd.DataFrame(rows)
    return row_level


def add_row_level_claim(ledger: Ledger, row_level: pd.DataFrame, max_expanded_rows: int) -> None:
    """Our check: the row-level AUC with tied scores equals the binned trapezoid AUC."""
    ledger.check(
        "yi-rowlevel-auc", "Tables 2-4",
        "The AUC of the row-level samples (tied scores within a bin) equals the binned trapezoid AUC",
        criterion=f"|row-level AUC - binned AUC| <= 1e-12 on every panel with <= {max_expanded_rows:,} rows",
        holds=bool(len(row_level)) and bool((row_level["abs_diff"] <= 1e-12).all()),
        reproduced_value=f"{len(row_level)} panels, max |diff| {row_level['abs_diff'].max():.1e}, "
        f"largest {row_level['rows'].max():,} rows", kind="check", evidence="yi/rowlevel_auc.csv",
    )

# -- Table 1 ------------------------------------------------------------------------------
def survey_table(ref: pd.DataFrame) -> pd.DataFrame:
    """Table 1 as printed, counts as numbers (blank = 0), in the paper's row order."""
    sel = ref[ref["source"] == "Table 1"]
    order = list(dict.fromkeys(sel["row"]))
    wide = sel.pivot(index="row", columns="column", values="value").loc[order, SURVEY_METRICS + ["Total"]]
    wide.columns.name = None
    num = wide.apply(lambda col: col.map(lambda v: int(reference.parse_printed(v)) if v.strip() else pd.NA)).astype("Int64")
    num.insert(0, "level", ["category" if r in SURVEY_CATEGORIES or r == "Total" else "sub-category" for r in order])
    return num.reset_index().rename(columns={"row": "area"})


def survey_checks(ref: pd.DataFrame) -> pd.DataFrame:
    """Every total Table 1 states, printed beside recomputed.

    Three kinds: a category's ``Total`` column (sum over the metric columns),
    the ``Total`` row (sum over categories, per column), and each category
    cell against the sum of its sub-categories ("The count of higher level
    category is sum of the counts of its sub-categories", yi Section 3).
    """
    t = survey_table(ref).set_index("area").fillna(0)  # blank = 0 in every sum
    rows = []
    for cat in list(SURVEY_CATEGORIES) + ["Total"]:
        rows.append(dict(check="row total", area=cat, column="Total", printed=t.loc[cat, "Total"],
                         recomputed=int(t.loc[cat, SURVEY_METRICS].sum())))
    for col in SURVEY_METRICS + ["Total"]:
        rows.append(dict(check="column total", area="Total", column=col, printed=t.loc["Total", col],
                         recomputed=int(t.loc[list(SURVEY_CATEGORIES), col].sum())))
    for cat, subs in SURVEY_CATEGORIES.items():
        if not subs:
            continue
        for col in SURVEY_METRICS:
            rows.append(dict(check="sub-category sum", area=cat, column=col, printed=t.loc[cat, col],
                             recomputed=int(t.loc[subs, col].sum())))
    df = pd.DataFrame(rows)
    df["adds_up"] = df["printed"] == df["recomputed"]
    return df


# -- claims and figures ---------------------------------------------------------------------
def add_survey_claims(ledger: Ledger, checks: pd.DataFrame) -> None:
    """One claim per stated total of Table 1: ``exact`` if it adds up, ``erratum`` with the sums if not."""
    for _, c in checks.iterrows():
        cid = f"yi-T1-{c['check'].split()[0]}-{_slug(c['area'])}-{_slug(c['column'])}"
        what = {"row total": f"{c['area']}: Total equals the sum over the metric columns",
                "column total": f"Total row, {c['column']}: equals the sum over the four categories",
                "sub-category sum": f"{c['area']}, {c['column']}: equals the sum of its sub-categories"}[c["check"]]
        if c["adds_up"]:
            ledger.add(cid, "Table 1", what, paper_value=c["printed"], reproduced_value=c["recomputed"],
                       criterion="integer sum equals the printed count", status="exact")
        else:
            ledger.erratum(cid, "Table 1", what, printed=str(c["printed"]) if c["printed"] else "(blank)", value=c["recomputed"],
                           evidence=(f"the sub-category counts sum to {c['recomputed']}, the printed category count is "
                                     f"{c['printed']} (blank = 0); the column and row totals agree with the category "
                                     "count, so a sub-category cell (or its column placement in the transcription) is off"))


def _panel_ratio_spread(tab: pd.DataFrame) -> float:
    """Largest calibration error of a panel: max over bins of |log(avg pClick / actual CTR)|."""
    return float(np.abs(np.log(tab["Avg pClick / Actual CTR"])).max())


def add_anomaly_claims(ledger: Ledger, ref: pd.DataFrame) -> pd.DataFrame:
    """The three qualitative anomalies the paper draws from Tables 2-4, with fixed criteria.

    Returns a summary (one row per panel: AUC, largest calibration error).
    """
    rows = []
    panels = {}
    for table in ANOMALY_TABLES:
        for panel in PANELS:
            tab, totals = recompute_panel(ref, table, panel)
            panels[table, panel] = (tab, totals)
            rows.append(dict(table=table, panel=panel, auc=totals["AUC"], max_abs_log_calibration=_panel_ratio_spread(tab),
                             printed_auc=reference.lookup(ref, table, "total", "AUC", panel)))
    (t2a, s2a), (t2b, s2b) = panels["Table 2", "a"], panels["Table 2", "b"]
    ledger.check(
        "yi-T2-anomaly", "Table 2", "A poorly fitted model (panel b) has a higher AUC than the well-fitted one (panel a)",
        criterion="AUC(b) > AUC(a) and max_k |log(avg pClick/CTR)| of b > that of a",
        holds=s2b["AUC"] > s2a["AUC"] and _panel_ratio_spread(t2b) > _panel_ratio_spread(t2a),
        paper_value=f"{reference.lookup(ref, 'Table 2', 'total', 'AUC', 'b')} > {reference.lookup(ref, 'Table 2', 'total', 'AUC', 'a')}",
        reproduced_value=f"{s2b['AUC']:.4f} > {s2a['AUC']:.4f}",
    )
    (t3a, s3a), (t3b, s3b) = panels["Table 3", "a"], panels["Table 3", "b"]
    top = slice(0, 3)  # bins with avg pClick >= 0.01: the practical operating range
    same_top = np.allclose(t3a[["TPR", "FPR"]].iloc[top], t3b[["TPR", "FPR"]].iloc[top], rtol=0, atol=1e-15)
    ledger.check(
        "yi-T3-anomaly", "Table 3",
        "Moving samples at the low end of the score range changes AUC substantially while the ROC at the operating "
        "points (pClick >= 0.01) is unchanged",
        criterion="identical TPR and FPR in bins 1-3 and |AUC(a) - AUC(b)| >= 0.05",
        holds=same_top and abs(s3a["AUC"] - s3b["AUC"]) >= 0.05,
        paper_value=f"{reference.lookup(ref, 'Table 3', 'total', 'AUC', 'a')} vs {reference.lookup(ref, 'Table 3', 'total', 'AUC', 'b')}",
        reproduced_value=f"{s3a['AUC']:.4f} vs {s3b['AUC']:.4f}",
    )
    (t4a, s4a), (t4b, s4b) = panels["Table 4", "a"], panels["Table 4", "b"]
    ledger.check(
        "yi-T4-anomaly", "Table 4", "A poorly fitted model (every bin over-predicts ~10x) has the same AUC as a well-fitted one",
        criterion="|AUC(a) - AUC(b)| <= 1e-12 and avg pClick / CTR >= 9.5 in every bin of b",
        holds=abs(s4a["AUC"] - s4b["AUC"]) <= 1e-12 and bool((t4b["Avg pClick / Actual CTR"] >= 9.5).all()),
        paper_value=f"{reference.lookup(ref, 'Table 4', 'total', 'AUC', 'a')} = {reference.lookup(ref, 'Table 4', 'total', 'AUC', 'b')}",
        reproduced_value=f"{s4a['AUC']:.6f} = {s4b['AUC']:.6f}",
    )
    return pd.DataFrame(rows)


def input_hypotheses(ref: pd.DataFrame, table: str, panel: str, row: str, column: str, candidates) -> pd.DataFrame:
    """Which value of one printed input makes every derived cell of the panel consistent?

    For each candidate value of the input cell (``row``, ``column``), recompute
    the whole panel and count the printed derived cells (bins and totals) that
    it fails to reproduce at their printed precision.
    """
    printed = printed_bins(ref, table, panel)
    k = list(printed.index).index(row)
    tot = ref[(ref["source"] == table) & (ref["panel"] == panel) & (ref["row"] == "total")]
    out = []
    for cand in candidates:
        vals = {c: printed[c].map(reference.parse_printed).to_numpy(copy=True) for c in BIN_COLUMNS[:3]}
        vals[column][k] = reference.parse_printed(cand)
        tab = binned_roc_table(vals["Avg pClick"], vals["# clicks"], vals["# no-clicks"])
        totals = _totals(tab)
        bad = [f"{r} {col}" for i, r in enumerate(printed.index) for col in BIN_COLUMNS[3:]
               if not matches_printed(tab[col].iloc[i], printed[col].iloc[i])]
        bad += [f"total {t['column']}" for _, t in tot.iterrows() if not matches_printed(totals[t["column"]], t["value"])]
        out.append(dict(table=table, panel=panel, cell=f"{row} {column}", value=cand,
                        n_inconsistent=len(bad), inconsistent_cells="; ".join(bad)))
    return pd.DataFrame(out)


def roc_figure(ref: pd.DataFrame):
    """ROC curves of the two panels of each anomaly table, side by side (one axis per table)."""
    from ...plotting import new_figure

    fig, axes = new_figure(3, 1, width="double", height=2.5)
    for ax, table in zip(axes, ANOMALY_TABLES):
        for panel, style in zip(PANELS, ("-o", "--s")):
            tab, totals = recompute_panel(ref, table, panel)
            fpr, tpr = roc_curve_from_counts(tab["# clicks"], tab["# no-clicks"])
            ax.plot(fpr, tpr, style, ms=3, label=f"panel {panel}: AUC {totals['AUC']:.4f}")
        ax.plot([0, 1], [0, 1], ":", color="0.6", lw=0.8)
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.02)
        ax.set_title(table)
        ax.set_xlabel("FPR")
        ax.legend(loc="lower right")
    axes[0].set_ylabel("TPR")
    fig.tight_layout()
    return fig
