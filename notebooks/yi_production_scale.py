# %% [markdown]
# # yi Tables 2–4 at production scale: the binned tables as row-level logs, on Dask
#
# J. Yi et al. (KDD 2013) evaluate on Bing's sponsored-search logs; Tables 2–4 print them binned by
# predicted pClick (clicks and no-clicks per bin). Expanded to rows — every row carries its bin's
# average pClick — and every count multiplied by an integer `factor`, the six panels are logs of
# 4.5·10⁷ rows per unit of `factor` (`factor = 2`: 8.9·10⁷ rows), generated partition by partition and
# evaluated with `offline_eval.ondask`, which never holds more than one partition and the
# accumulators (`offline_eval.mergeable`). The row-level results must equal the binned recomputation
# exactly: AUC (ties count ½), the calibration ratio of every bin, and the calibration by decile. These
# are checks of the compendium's own Dask path (kind `check`), not claims of the paper; the paper's
# AUC anomalies themselves are in `yi_auc_anomalies`.

# %% tags=["parameters"]
seed = 0  # unused: the logs are the printed counts, nothing is drawn
factor = 2  # every printed count times this integer (44.5 million rows per unit); range: 1..3
tables = ["Table 2", "Table 3", "Table 4"]  # which tables
panels = ["a", "b"]  # which panels of each table
rows_per_partition = 4000000  # rows generated per Dask partition; range: 300_000..20_000_000
n_quantiles = 10  # calibration by decile; range: 2..100
output_root = None  # where figures/ outputs go (the pipeline passes a staging folder)

# %%
from IPython.display import Markdown

from offline_eval_compendium import reference
from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.yi import production_scale as study

ref = reference.load("yi")
out = OutputDir("yi", output_root)
ledger = Ledger("yi", "yi_production_scale", claims=study.CLAIMS)

# %% [markdown]
# ## The claims, declared before the run

# %%
study.CLAIMS.frame()

# %% [markdown]
# ## Row-level AUC and calibration per bin, through Dask

# %%
run = study.run_experiment(ref, tables=tables, panels=panels, factor=factor, rows_per_partition=rows_per_partition,
                           n_quantiles=n_quantiles)
out.table(run.auc, "scale_auc", floatfmt={"auc_dask": ".12f", "auc_binned": ".12f", "abs_diff": ".1e"})
out.table(run.per_bin, "scale_calibration_bins", floatfmt=".6g")
out.table(run.deciles, "scale_calibration_deciles", floatfmt=".6g")
run.auc

# %%
run.per_bin

# %% [markdown]
# ## Calibration by decile of predicted pClick
#
# With five printed bins, the deciles of the rows fall into those bins: a decile holding one bin's rows
# only has that bin's ratio.

# %%
run.deciles

# %% [markdown]
# ## Checks

# %%
study.add_claims(ledger, run, block=None)
out.claims(ledger)
Markdown(ledger.verdict())
