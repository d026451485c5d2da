"""yi Tables 1-4: the metric survey and the three "AUC anomaly" tables.

Protocol
--------
1. **Table 1**: the survey's counts as printed (blank = 0); every total the table states (row
   totals, column totals, each category against the sum of its sub-categories) recomputed.
2. **Tables 2-4**: per bin the printed inputs (avg pClick, # clicks, # no-clicks) give every
   derived cell (actual CTR, TPR, FPR, trapezoid, avg pClick / actual CTR, the totals and AUC),
   compared at the printed precision.  A printed input that is a typo
   (``data/corrections/yi.csv``) is proven from both readings of the input and recorded once, as
   a root erratum; the cells it broke are reproduced from the corrected input and name it.  A
   printed derived cell that contradicts the inputs is one root erratum, and the same cell copied
   into another table is folded into it.
3. **The anomalies** the paper draws from Tables 2-4, with criteria fixed below, and the ROC
   curves of the two panels of each table.
4. **Checks of ours**: the row-level AUC with tied scores equals the binned AUC; Section 4.1's
   AUC recipe and properties against :func:`offline_eval.metrics.roc_auc_score` on random inputs.

Everything is the paper's own printed inputs (``data/reference/yi/``): every row is world ``paper``
except our checks.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pandas as pd

from ... import reference
from ...io import format_float
from ...claims import Claim, Ledger, declare, matches_printed
from offline_eval.metrics import roc_auc_score, roc_curve_from_counts
from . import _formulas
from ._bins import (ANOMALY_TABLES, BIN_COLUMNS, PANELS, binned_roc_table, expand_bins, panel_totals, printed_bins,
                    recompute_panel)

__all__ = [
    "ANOMALY_TABLES",
    "CLAIMS",
    "YiAucAnomaliesRun",
    "add_claims",
    "anomaly_summary",
    "compare_anomaly_table",
    "formula_table",
    "input_typo_table",
    "panel_table",
    "roc_figure",
    "row_level_table",
    "run_experiment",
    "survey_checks",
    "survey_table",
]

_CAPTIONS = {
    "Table 2": "Table 2: The AUC Anomaly 1: A poorly fitted model has even higher AUC in the presence of a large "
               "number of negative samples concentrated on the low end of pClick score range.",
    "Table 3": "Table 3: The AUC Anomaly 2: Changes in the sample distribution on either end of FPR impacts the AUC "
               "score quite substantially, although the actual model performance is quite similar at the practical "
               "operationing point.",
    "Table 4": "Table 4: The AUC Anomaly 3: A poorly fitted model has the same AUC as a well-fitted model.",
}
_ANOMALY_EV = ("yi/anomaly_summary.csv", "yi/roc_tables2-4.png")
_CELLS = "every printed derived cell (actual CTR, TPR, FPR, trapezoid, avg pClick / actual CTR, totals, AUC)"

#: The claims table, declared before anything is computed.
#: Why a row that checks our implementation against the formula as we wrote it out is a check, not a formula.
OUR_CHECK = ("declared a formula of the paper; it checks our implementation against the formula as we wrote it "
             "out, so it is counted with our checks, not among the paper's results")

CLAIMS = declare(
    Claim("yi-T1-*", "Table 1",
          "The count of higher level category is sum of the counts of its sub-categories. (Table 1's row totals, "
          "column totals and category counts)", "printed",
          "integer sum of the printed counts (blank = 0) equals the printed total", evidence=("yi/table1_checks.csv",
                                                                                             "yi/table1.csv")),
    *(Claim(f"yi-T{t[-1]}[ab]-*", t, f"{_CAPTIONS[t]} ({_CELLS})", "printed",
            "recomputed from the panel's printed avg pClick, # clicks and # no-clicks", evidence=(
                f"yi/table{t[-1]}_cells.csv", f"yi/table{t[-1]}.csv")) for t in ("Table 2", "Table 3", "Table 4")),
    Claim("yi-T2a-bin5-trapezoid", "Table 2",
          "panel a, bin 5 (the lowest pClick bin): the printed Trapezoid, printed identically in Table 4 panels a "
          "and b", "printed",
          "(FPR_5 - FPR_4)(TPR_5 + TPR_4)/2 from the printed counts, at the printed 4 decimals; the printed "
          "trapezoids must sum to the printed AUC",
          evidence=("yi/table2_cells.csv", "yi/table4_cells.csv")),
    Claim("yi-T3-input-typo", "Table 3",
          "panel a bin 5 and panel b bin 4 (the 100-click bin): the printed # no-clicks", "printed",
          "with the corrected input every printed derived cell of the panels is reproduced, with the printed input "
          "not", evidence=("yi/table3_typo.csv", "yi/table3_cells.csv")),
    Claim("yi-T2-anomaly", "Table 2", _CAPTIONS["Table 2"], "claim",
          "AUC(b) > AUC(a) and max_k |log(avg pClick/CTR)| of b > that of a", evidence=_ANOMALY_EV + (
              "yi/table2.csv",)),
    Claim("yi-T3-anomaly", "Table 3", _CAPTIONS["Table 3"], "claim",
          "identical TPR and FPR in bins 1-3 (avg pClick >= 0.01, the practical operating points) and "
          "|AUC(a) - AUC(b)| >= 0.05", evidence=_ANOMALY_EV + ("yi/table3.csv",)),
    Claim("yi-T4-anomaly", "Table 4", _CAPTIONS["Table 4"], "claim",
          "|AUC(a) - AUC(b)| <= 1e-12 and avg pClick / CTR >= 9.5 in every bin of b",
          evidence=_ANOMALY_EV + ("yi/table4.csv",)),
    Claim("yi-S41-auc-recipe", "Section 4.1",
          "AUC is computed as follows: sort records with descending order of the model predicted scores; calculate "
          "TPR and FPR for each predicted value; plot ROC curve; Calculate the AUC using trapezoid approximation",
          "check", "the recipe written out (a point per distinct predicted value) equals roc_auc_score within "
          "1e-12 on random data sets, half of them with many tied scores", evidence=("yi/auc_formula_checks.csv",),
          revised=OUR_CHECK),
    Claim("yi-S41-auc-bounds", "Section 4.1",
          "The AUC score is bounded between [0,1] with the score of 0.5 for random predictions, and 1 for perfect "
          "predictions.", "formula",
          "on random data sets: 0 <= AUC <= 1; AUC = 1 (within 1e-12) when every click is scored above every "
          "no-click; 0.5 for a constant score; mean AUC of random scores within 3 standard errors of 0.5",
          evidence=("yi/auc_formula_checks.csv",)),
    Claim("yi-S51-auc-rank-invariant", "Section 5.1",
          "it ignores the predicted probability values. This makes it insensitive to the transformation of the "
          "predicted probabilities that preserve their ranks.", "formula",
          "AUC of a strictly increasing transform of the scores equals the AUC of the scores within 1e-12 on random "
          "data sets", evidence=("yi/auc_formula_checks.csv",)),
    Claim("yi-rowlevel-auc", "Tables 2-4",
          "The AUC of the row-level samples (tied scores within a bin) equals the binned trapezoid AUC", "check",
          "|row-level AUC - binned AUC| <= 1e-12 on every panel expanded to rows", world="ours",
          evidence=("yi/rowlevel_auc.csv",)),
)

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


def compare_anomaly_table(ref: pd.DataFrame, table: str, corrections: pd.DataFrame | None = None) -> pd.DataFrame:
    """Both panels of one anomaly table, printed beside recomputed, one row per cell.

    Returns a long table with columns ``panel, row, column, printed,
    recomputed, matches, recomputed_as_printed, matches_as_printed``: the
    cells recomputed from the inputs with ``corrections`` applied, and from
    the inputs as printed.
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
    return df


def input_typo_table(ref: pd.DataFrame, corrections: pd.DataFrame) -> pd.DataFrame:
    """Both readings (as printed, corrected) of every corrected input cell, tried on its whole panel.

    One row per reading (:func:`input_hypotheses`) with the correction's ``erratum_id``: the
    number of printed derived cells of the panel each reading fails to reproduce.
    """
    return pd.concat([input_hypotheses(ref, c["source"], c["panel"], c["row"], c["column"], [c["printed"], c["corrected"]])
                      .assign(erratum_id=c["erratum_id"], reading=["as printed", "corrected"])
                      for _, c in corrections.iterrows()], ignore_index=True)


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


def _panel_ratio_spread(tab: pd.DataFrame) -> float:
    """Largest calibration error of a panel: max over bins of |log(avg pClick / actual CTR)|."""
    return float(np.abs(np.log(tab["Avg pClick / Actual CTR"])).max())


def anomaly_summary(ref: pd.DataFrame) -> pd.DataFrame:
    """One row per panel of Tables 2-4: recomputed AUC, largest calibration error, printed AUC."""
    rows = []
    for table in ANOMALY_TABLES:
        for panel in PANELS:
            tab, totals = recompute_panel(ref, table, panel)
            rows.append(dict(table=table, panel=panel, auc=totals["AUC"], max_abs_log_calibration=_panel_ratio_spread(tab),
                             printed_auc=reference.lookup(ref, table, "total", "AUC", panel)))
    return pd.DataFrame(rows)


def formula_table(rng=0) -> pd.DataFrame:
    """Section 4.1's AUC recipe and properties (and Section 5.1's rank invariance) on random inputs."""
    return _formulas.auc_formula_rows(rng)


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
        totals = panel_totals(tab)
        bad = [f"{r} {col}" for i, r in enumerate(printed.index) for col in BIN_COLUMNS[3:]
               if not matches_printed(tab[col].iloc[i], printed[col].iloc[i])]
        bad += [f"total {t['column']}" for _, t in tot.iterrows() if not matches_printed(totals[t["column"]], t["value"])]
        out.append(dict(table=table, panel=panel, cell=f"{row} {column}", value=cand,
                        n_inconsistent=len(bad), inconsistent_cells="; ".join(bad)))
    return pd.DataFrame(out)


def roc_figure(ref: pd.DataFrame):
    """ROC curves of the two panels of each anomaly table, side by side (one axis per table)."""
    from offline_eval.plotting import new_figure

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


# -- the ledger -------------------------------------------------------------------------------
#: Which rows of :func:`formula_table` back which formula claim.
_FORMULA_ROWS = {"yi-S41-auc-recipe": [0], "yi-S41-auc-bounds": [1, 2, 3, 4], "yi-S51-auc-rank-invariant": [5]}


def _add_survey(ledger: Ledger, checks: pd.DataFrame) -> None:
    # sub-category sums of one category that miss together are each their own erratum: that one misaligned row
    # causes them all is a hypothesis, not proven (Online Advertising's NDCG and IR both miss by +1, which no
    # single column shift of one sub-category row explains)
    missed = checks[(checks["check"] == "sub-category sum") & ~checks["adds_up"].astype(bool)]
    together = {area: list(g["column"]) for area, g in missed.groupby("area", sort=False) if len(g) > 1}
    for _, c in checks.iterrows():
        cid = f"yi-T1-{c['check'].split()[0]}-{_slug(c['area'])}-{_slug(c['column'])}"
        what = {"row total": f"{c['area']}: Total equals the sum over the metric columns",
                "column total": f"Total row, {c['column']}: equals the sum over the four categories",
                "sub-category sum": f"{c['area']}, {c['column']}: equals the sum of its sub-categories"}[c["check"]]
        why = (f"the sub-category counts sum to {c['recomputed']}, the printed category count is "
               f"{c['printed'] or 'blank (= 0)'}; the column and row totals agree with the category count, so a "
               "sub-category cell (or its column placement in the transcription) is off")
        others = [x for x in together.get(c["area"], []) if x != c["column"]]
        if c["check"] == "sub-category sum" and others:
            why += (f"; the sums of {', '.join(others)} in the same category miss too; that one cause (one misaligned "
                    "sub-category row) explains them all is unproven, so each is counted as its own erratum")
        ledger.printed(cid, printed=str(int(c["printed"])), value=float(c["recomputed"]), detail=what,
                       erratum_note=None if c["adds_up"] else why)


def _add_cells(ledger: Ledger, cells: dict, corrections: pd.DataFrame | None) -> None:
    """Every printed derived cell of Tables 2-4; a mismatch printed again in a later table is folded into its root."""
    roots = {}  # (row, column, printed, recomputed) of a mismatching cell -> [its cell ids]
    rows = []
    for table, df in cells.items():
        typos = ([] if corrections is None
                 else sorted(set(corrections.loc[corrections["source"] == table, "erratum_id"])))
        for _, cell in df.iterrows():
            if cell["column"] in ("Avg pClick", "# clicks", "# no-clicks") and cell["row"] != "total":
                continue  # inputs, not claims
            cid = f"yi-{table.replace('Table ', 'T')}{cell['panel']}-{cell['row'].replace(' ', '')}-{_slug(cell['column'])}"
            if not cell["matches"]:
                roots.setdefault((cell["row"], cell["column"], cell["printed"], round(cell["recomputed"], 9)),
                                 []).append((cid, table, df, cell))
            rows.append((cid, table, df, cell, typos))
    copies = {group[0][0]: [c for c, *_ in group[1:]] for group in roots.values()}
    folded = {c for cs in copies.values() for c in cs}
    for cid, table, df, cell, typos in rows:
        if cid in folded:
            continue
        note = ""
        if cell["matches"] and not cell["matches_as_printed"]:
            note = (f"a consequence of the input typo {', '.join(typos)}: reproduced from the corrected input; from the "
                    f"input as printed it would be {cell['recomputed_as_printed']:.6g}")
        why = None
        if not cell["matches"]:
            why = _evidence(table, df, cell)
            if copies.get(cid):
                why += (f"; the same cell is printed identically in {', '.join(copies[cid])} (the same bins, copied): "
                        "one typo, folded here and not counted again")
        ledger.printed(cid, printed=cell["printed"], value=cell["recomputed"], erratum_note=why, note=note,
                       detail=f"{table}, panel {cell['panel']}, {cell['row']}, {cell['column']}")


def _typo_changes(cells: dict, tables: set) -> str:
    """What an input typo changes and what it does not, from both readings of its panels' derived cells.

    The corrections file's own reason is not quoted: which cells the typo moves is computed here, the AUC
    included (a typo of 900 no-clicks in ten million moves a panel's AUC below its printed precision).
    """
    changed, aucs = [], []
    for t, df in cells.items():
        if t not in tables:
            continue
        for _, r in df.iterrows():
            where = f"{t} {r['panel']} {r['row']} {r['column']}"
            if r["row"] != "total" and r["column"] in ("Avg pClick", "# clicks", "# no-clicks"):
                continue  # an input cell, the typo itself
            if r["matches"] != r["matches_as_printed"]:
                changed.append(f"{where} (printed {r['printed']}; {format_float(r['recomputed'])} from the corrected "
                               f"input, {format_float(r['recomputed_as_printed'])} from the printed one)")
            elif r["column"] == "AUC":
                aucs.append(f"{where} {format_float(r['recomputed'])} from the corrected input and "
                            f"{format_float(r['recomputed_as_printed'])} from the printed one (printed {r['printed']})")
    return (f"the typo decides whether these derived cells are reproduced: {'; '.join(changed) or 'none'}"
            + (f"; it does not change the AUC: {'; '.join(aucs)}, both equal at the printed precision" if aucs else ""))


def _add_input_errata(ledger: Ledger, corrections: pd.DataFrame, typo: pd.DataFrame, cells: dict) -> None:
    """One root row per input typo of ``corrections``, proven by both readings of the input (``typo``)."""
    for root, grp in corrections.groupby("erratum_id", sort=True):
        h = typo[typo["erratum_id"] == root]
        bad_printed = int(h.loc[h["reading"] == "as printed", "n_inconsistent"].sum())
        bad_corrected = int(h.loc[h["reading"] == "corrected", "n_inconsistent"].sum())
        consequences = [f"{t} {r['panel']} {r['row']} {r['column']}" for t, df in cells.items() if t in set(grp["source"])
                        for _, r in df.iterrows() if r["matches"] and not r["matches_as_printed"]]
        first = grp.iloc[0]
        note = (f"{bad_printed} inconsistent derived cells with the printed input, {bad_corrected} with the corrected one; "
                f"{_typo_changes(cells, set(grp['source']))}; its consequences, reproduced exactly from the corrected "
                f"input: {'; '.join(consequences) or 'none'}")
        if bad_corrected == 0 and bad_printed > 0:
            ledger.erratum(root, printed=f"{first['printed']} (printed)", value=first["corrected"], evidence=note)
        else:
            ledger.printed(root, printed=first["printed"], value=reference.parse_printed(first["corrected"]), note=note)


def _add_anomalies(ledger: Ledger, ref: pd.DataFrame) -> None:
    p = {(t, k): recompute_panel(ref, t, k) for t in ANOMALY_TABLES for k in PANELS}
    auc = {key: totals["AUC"] for key, (_, totals) in p.items()}

    def printed(t, k):
        return reference.lookup(ref, t, "total", "AUC", k)

    t2a, t2b = p["Table 2", "a"][0], p["Table 2", "b"][0]
    ledger.check(
        "yi-T2-anomaly", holds=auc["Table 2", "b"] > auc["Table 2", "a"]
        and _panel_ratio_spread(t2b) > _panel_ratio_spread(t2a),
        paper_value=f"{printed('Table 2', 'b')} > {printed('Table 2', 'a')}",
        reproduced_value=f"{auc['Table 2', 'b']:.4f} > {auc['Table 2', 'a']:.4f}")
    t3a, t3b = p["Table 3", "a"][0], p["Table 3", "b"][0]
    top = slice(0, 3)  # bins with avg pClick >= 0.01: the practical operating range
    same_top = np.allclose(t3a[["TPR", "FPR"]].iloc[top], t3b[["TPR", "FPR"]].iloc[top], rtol=0, atol=1e-15)
    ledger.check(
        "yi-T3-anomaly", holds=same_top and abs(auc["Table 3", "a"] - auc["Table 3", "b"]) >= 0.05,
        paper_value=f"{printed('Table 3', 'a')} vs {printed('Table 3', 'b')}",
        reproduced_value=f"{auc['Table 3', 'a']:.4f} vs {auc['Table 3', 'b']:.4f}")
    t4b = p["Table 4", "b"][0]
    ledger.check(
        "yi-T4-anomaly", holds=abs(auc["Table 4", "a"] - auc["Table 4", "b"]) <= 1e-12
        and bool((t4b["Avg pClick / Actual CTR"] >= 9.5).all()),
        paper_value=f"{printed('Table 4', 'a')} = {printed('Table 4', 'b')}",
        reproduced_value=f"{auc['Table 4', 'a']:.6f} = {auc['Table 4', 'b']:.6f}")


@dataclasses.dataclass(frozen=True, kw_only=True)
class YiAucAnomaliesRun:
    """Everything the notebook shows and :func:`add_claims` fills the ledger from (:func:`run_experiment`).

    ``survey`` is Table 1 (:func:`survey_table`) and ``survey_checks`` its totals recomputed; ``panels`` and
    ``cells`` map each of :data:`ANOMALY_TABLES` to :func:`panel_table` and :func:`compare_anomaly_table`;
    ``corrections`` are ``data/corrections/yi.csv``; ``typo`` is :func:`input_typo_table`, ``summary``
    :func:`anomaly_summary`, ``row_level`` :func:`row_level_table` and ``formulas`` :func:`formula_table`.
    """

    ref: pd.DataFrame
    survey: pd.DataFrame
    survey_checks: pd.DataFrame
    corrections: pd.DataFrame
    panels: dict
    cells: dict
    typo: pd.DataFrame
    summary: pd.DataFrame
    row_level: pd.DataFrame
    formulas: pd.DataFrame


def run_experiment(ref: pd.DataFrame, *, seed: int = 0, max_expanded_rows: int = 20_000_000) -> YiAucAnomaliesRun:
    """The notebook's tables: Table 1 and its totals, Tables 2-4 recomputed from the (corrected) printed bins, both
    readings of each corrected input, the anomalies, the row-level AUC of every panel of at most
    ``max_expanded_rows`` rows, and Section 4.1's formulas on the random inputs of ``seed``."""
    corrections = reference.load_corrections("yi")
    return YiAucAnomaliesRun(
        ref=ref, survey=survey_table(ref), survey_checks=survey_checks(ref), corrections=corrections,
        panels={t: panel_table(ref, t, corrections) for t in ANOMALY_TABLES},
        cells={t: compare_anomaly_table(ref, t, corrections) for t in ANOMALY_TABLES},
        typo=input_typo_table(ref, corrections), summary=anomaly_summary(ref),
        row_level=row_level_table(ref, max_expanded_rows), formulas=formula_table(seed))


def add_claims(ledger: Ledger, run: YiAucAnomaliesRun, *, block: None = None) -> None:
    """Fill :data:`CLAIMS` from ``run`` (:func:`run_experiment`).  The study has no seed blocks: ``block`` must be
    None."""
    if block is not None:
        raise ValueError(f"`block` must be None: yi_auc_anomalies has no seed blocks; got {block!r}")
    cells, corrections, formulas, row_level = run.cells, run.corrections, run.formulas, run.row_level
    _add_survey(ledger, run.survey_checks)
    _add_cells(ledger, cells, corrections)
    _add_input_errata(ledger, corrections, run.typo, cells)
    _add_anomalies(ledger, run.ref)
    for cid, idx in _FORMULA_ROWS.items():
        f = formulas.iloc[idx]
        ledger.check(cid, holds=bool(f["holds"].all()),
                     reproduced_value="; ".join(f"{r.formula}: {r.n_inputs} data sets, max |diff| {r.max_abs_diff:.1e}"
                                                for r in f.itertuples()))
    ledger.check("yi-rowlevel-auc", holds=bool(len(row_level)) and bool((row_level["abs_diff"] <= 1e-12).all()),
                 reproduced_value=f"{len(row_level)} panels, max |diff| {row_level['abs_diff'].max():.1e}, "
                                  f"largest {row_level['rows'].max():,} rows")
