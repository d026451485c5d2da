# %% [markdown]
# # arena on real logs: each Open Bandit policy's click rate from the other's logs
#
# Saito, Aihara, Matsutani and Narita, *Open Bandit Dataset and Pipeline: Towards Realistic and Reproducible
# Off-Policy Evaluation* (NeurIPS Datasets and Benchmarks 2021, arXiv 2008.07146), logged two recommendation
# policies side by side on ZOZOTOWN -- uniform random and Bernoulli Thompson sampling (BTS) -- so that each
# policy's click rate estimated from the other's logs can be compared with its own on-policy click rate. Here
# the arena's counterfactual estimators meet those real logs:
#
# * **Data** (world `real: Open Bandit Dataset sample ...`): the small sample that ships in the obp 0.5.7
#   source distribution, 10,000 logged impressions per policy and campaign ("all" 80 items, "men" 34, "women"
#   46; three positions), with the logging propensities; vendored in `data/real/open_bandit/` (origin,
#   SHA-256, licence in its README) by `make peers-obd`, which runs Open Bandit Pipeline in its own environment.
# * **The evaluation policies' probabilities**, as OBP computes them: BTS from its production prior by
#   simulation (100,000 rankings, a fixed seed), random as 1 / items; committed as data.
# * **Estimators**: IPS, SNIPS, DR (`offline_eval.counterfactual`), the direct method with a declared
#   context-free reward model, and the replay where the logging is uniform (random -> BTS).
# * **The peer**: OBP's own estimates on the same files, which ours must equal.
#
# Expectations, written before the run (the claims table): ours equal OBP's to 1e-10; the estimators that use
# the propensities do not contradict the on-policy truth; and the sample is too small to rank estimators as
# the paper's full data (about 26 million rows) does -- its printed relative errors are not shown beside ours
# because the obp distribution does not print them and they are not typed from memory.

# %% tags=["parameters"]
seed = 0
n_boot = 300  # bootstrap resamples over rows of both logs; range: 20..5_000
output_root = None

# %%
from IPython.display import Markdown

from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.arena import open_bandit as O

out = OutputDir("arena", output_root)
ledger = Ledger("arena", "arena_open_bandit", claims=O.CLAIMS)

# %% [markdown]
# ## The claims, declared before the experiment

# %%
O.CLAIMS.frame()

# %% [markdown]
# ## The logs, their click rates, and what 10,000 rows can decide
# Each policy's on-policy click rate (the ground truth OBP uses) with its 95% interval, and the rows that
# would pin it to +-10%.

# %%
run = O.run_experiment(n_boot=n_boot, seed=seed)
out.table(run.resolution, "open_bandit_resolution", floatfmt=".4g")
run.resolution

# %% [markdown]
# ## Our estimates against OBP's on the same files

# %%
out.table(run.vs_obp, "open_bandit_vs_obp", floatfmt=".3g")
run.vs_obp

# %% [markdown]
# ## Each policy from the other's logs, with intervals
# Signed relative error, estimate / on-policy click rate - 1, with 95% percentile intervals from a bootstrap
# over rows of both logs (the reward model refitted in each resample; the truth resampled too).

# %%
table = run.table()
out.table(table, "open_bandit_estimates", floatfmt=".4g")
out.figure(O.error_figure(run), "open_bandit_errors", caption="arena on the Open Bandit Dataset sample (the "
           "paper's Section 5 benchmark, on 10,000 rows per log): relative error of IPS, SNIPS, DM, DR and the "
           "replay against the on-policy click rate, random -> BTS and BTS -> random, 95% bootstrap intervals")
table

# %% [markdown]
# ## What the run shows

# %%
Markdown(O.run_summary(run))

# %% [markdown]
# ## Claims

# %%
O.add_claims(ledger, run, block=None)
out.claims(ledger)
ledger.frame()[["claim_id", "kind", "reproduced_value", "status", "control"]]

# %%
Markdown(ledger.verdict())
