# %% [markdown]
# # yi Tables 1–4: the metric survey and three AUC anomalies
#
# Reproduces from J. Yi et al., *Predictive Model Performance: Offline and Online Evaluations* (KDD 2013):
#
# * **Table 1** — the survey of evaluation metrics used by 70 papers. The published counts are a data
#   table; every row total, column total and category-vs-sub-category sum the paper states is recomputed.
# * **Tables 2, 3, 4** — the "AUC anomalies". Each panel prints, per pClick bin, the inputs
#   (avg pClick, # clicks, # no-clicks) and the derived cells (actual CTR, TPR, FPR, trapezoid, AUC,
#   avg pClick / actual CTR). Every derived cell is recomputed from the printed inputs
#   (`offline_eval.metrics.roc_auc_score_from_counts`, `roc_curve_from_counts`) and compared at the printed precision:
#   `exact`, or `erratum` with the evidence when a printed cell contradicts the table's own inputs.
# * The anomalies the paper draws from them (a poorly fitted panel with a higher or equal AUC), as claims.
# * The ROC curves of the two panels of each table, side by side.
# * Each panel expanded into row-level samples (Table 3's panels are ~10.4 million rows): the row-level
#   AUC with tied scores (`offline_eval.metrics.roc_auc_score`) equals the binned AUC.
# * Section 4.1's recipe for the AUC and its stated properties (bounds, 0.5 for random, 1 for perfect
#   predictions), and Section 5.1's insensitivity to rank-preserving transformations, as `formula` rows.
#
# All inputs come from `data/reference/yi/tables1-4.csv` (the cells as printed); no number is typed here.
# One printed *input* is a typo (Table 3's 9,999,900 no-clicks): the correction lives in
# `data/corrections/yi.csv`, is proven below from both readings, and is recorded once as a root erratum;
# the derived cells it affects are recomputed from the corrected input and name that erratum. One printed
# *derived* cell is a typo too (the bin-5 trapezoid 0.8499 of Table 2 panel a): it is one root erratum, and its
# copies in Table 4 (same bins, same printed cell) are folded into it, not counted again.

# %% tags=["parameters"]
seed = 0  # the random inputs of the formula checks (the tables are not random)
max_expanded_rows = 20_000_000  # expand a panel to rows only if it has at most this many; range: 2_000_000..20_000_000
output_root = None  # where figures/ outputs go (the pipeline passes a staging folder)

# %%
import pandas as pd

from offline_eval_compendium import reference
from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.yi import auc_anomalies as study

ref = reference.load("yi")
out = OutputDir("yi", output_root)
ledger = Ledger("yi", "yi_auc_anomalies", claims=study.CLAIMS)

# %% [markdown]
# ## The claims, declared before anything is computed
# Families (`*`) are every cell of a table; the criteria are fixed here, the values come below.

# %%
study.CLAIMS.frame()

# %% [markdown]
# Every table below, computed once (`study.run_experiment`) from the printed numbers (and the random inputs of the
# formula checks, from `seed`); the cells after it show them in the paper's order.

# %%
run = study.run_experiment(ref, seed=seed, max_expanded_rows=max_expanded_rows)

# %% [markdown]
# ## Table 1: the survey of metrics
# Counts as printed (blank = 0), then every total the table states, recomputed.

# %%
out.table(run.survey, "table1")
out.table(run.survey_checks, "table1_checks")
run.survey_checks[~run.survey_checks["adds_up"]]

# %% [markdown]
# ## Tables 2–4, recomputed from the printed bins
# `table<N>` holds both panels recomputed with their total rows (Σ clicks, Σ no-clicks, total CTR, AUC);
# `table<N>_cells` puts every printed cell beside the value recomputed from the (corrected) inputs and
# from the inputs as printed.

# %%
fmt = {"Avg pClick": ".6f", "Actual CTR": ".6f", "TPR": ".4f", "FPR": ".4f", "Trapezoid": ".4f",
       "Avg pClick / Actual CTR": ".1f", "AUC": ".4f"}
for table in study.ANOMALY_TABLES:
    n = table.split()[1]
    out.table(run.panels[table], f"table{n}", floatfmt=fmt)
    out.table(run.cells[table], f"table{n}_cells", floatfmt=".6g")
pd.concat(run.cells.values(), keys=run.cells.keys()).query("not matches or not matches_as_printed")

# %% [markdown]
# ### Table 3: which input is the typo?
# Table 3 prints a no-click total of 10,392,500, but its bins sum to 10,393,400, and in panel a the printed
# bin-5 trapezoid (0.9548) disagrees with the printed counts. Both readings of the no-click count of the
# 100-click bin (panel a bin 5, panel b bin 4), as printed and as corrected, are tried on the whole panel.

# %%
out.table(run.typo, "table3_typo")
run.typo

# %% [markdown]
# ## The anomalies, and the ROC curves of each table

# %%
out.table(run.summary, "anomaly_summary")
fig = study.roc_figure(ref)
out.figure(fig, "roc_tables2-4", caption="yi Tables 2-4: ROC curves of the two panels of each AUC-anomaly table, "
           "recomputed from the printed bins (no figure in the paper)")
run.summary

# %% [markdown]
# ## Row-level AUC with tied scores equals the binned AUC
# Each bin expands to its rows, all sharing the bin's avg pClick; `roc_auc_score` counts tied scores one half.

# %%
out.table(run.row_level, "rowlevel_auc", floatfmt={"auc_rows": ".12f", "auc_bins": ".12f", "abs_diff": ".1e"})
run.row_level

# %% [markdown]
# ## Section 4.1: the AUC recipe and its properties, written out
# The paper's four-step recipe (sort, TPR/FPR per predicted value, trapezoids), its bounds, 0.5 for random and
# 1 for perfect predictions, and Section 5.1's rank invariance, against `roc_auc_score` on random data sets.

# %%
out.table(run.formulas, "auc_formula_checks", floatfmt={"max_abs_diff": ".1e", "tolerance": ".1e"})
run.formulas

# %% [markdown]
# ## Claims

# %%
study.add_claims(ledger, run, block=None)
out.claims(ledger)
claims = ledger.frame()
claims[claims["status"] != "exact"]

# %%
from IPython.display import Markdown

Markdown(ledger.verdict())
