# %% [markdown]
# # rosset Sections 2–4: the ranking measures, their identities, Figs. 1–3 and evaluation breakdown
#
# Reproduces from S. Rosset, C. Perlich, B. Zadrozny, *Ranking-Based Evaluation of Regression Models*
# (ICDM 2005):
#
# * **Every formula of Sections 2–3, numerically**: tau and rho from the statistics T and R (eqs. 2–5),
#   R = Σi² − Σ i·s_i, tau-tilde as the share of correct pairs, the areas of Figs. 1–3, and
#   Σ(1 − AUC_i)·i·(n − i) = R. Where a printed formula is wrong the correct one is used and an
#   `erratum` claim gives the evidence (the C_i of eq. 6, the Fig. 3 area, a step of Proposition 2's proof);
#   the cutoff range of Fig. 2 ("1 < i < n" beside the text's "n − 1" cutoffs) is shown under both readings,
#   `ambiguous`: the one that fits may be a "≤" lost in the text, not proven a typo.
# * **Eq. 6 and the confidence interval of tau** on the survey, and the interval's coverage on random samples of
#   the survey's size whose population tau is known (the paper calls it "approximate, consistent").
# * **Figs. 1–3** for model M1 of the (synthetic) IT-wallet survey: share of correctly ranked pairs per
#   prediction with the locally optimal envelope; AUC of every cutoff on the axis rescaled by i·(n − i)
#   (area = rho-tilde); the cumulative inverse-rank lift curve with its optimal and worst bounds.
# * **Section 4, evaluation breakdown**: one label corrupted by a growing residual u0 (the construction of
#   Proposition 1's proof) — RMSE and MAE grow without bound, MAD and the ranking measures stay put — and
#   k corrupted labels against Proposition 2's bounds; the area over the REC curve beside the additive lower bound
#   the paper gives it (AOC ≥ max|r|/n ≥ Σ|r|/n²).
#
# The claims are declared first (`rm.CLAIMS`, shown below before any result). An identity or bound holds on any
# data, so the synthetic survey serves as data, not as a world. The identities of Sections 2–3 set our code beside
# a sum written here: they are our `check`s (world `ours`), counted with the checks; the propositions, bounds and
# the interval's coverage are the paper's `formula` rows.
#
# The survey is `offline_eval.synth.wallet.wallet_survey` (log-Student-t wallets, two models whose latent
# scores correlate `corr_m1` / `corr_m2` with the firm's size; see `rosset_wallet` for the mechanism).

# %% tags=["parameters"]
seed = 0  # the survey (same default as rosset_wallet, so Figs. 1-3 show its M1)
n_firms = 500  # surveyed firms (the paper's survey); range: 20..5_000
k_max = 10  # corrupted labels in the Proposition 2 panel; range: 1..20
n_coverage = 1000  # random samples per population tau in the coverage check of tau's interval; range: 20..5_000
output_root = None  # where figures/ outputs go (the pipeline passes a staging folder)

# %%
from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.rosset import measures as rm

out = OutputDir("rosset", output_root)
ledger = Ledger("rosset", "rosset_measures", claims=rm.CLAIMS)

# %% [markdown]
# ## The claims, declared before the experiment
# Each row: the paper's sentence, its kind, the criterion it is held to and the outputs that will back it.

# %%
rm.CLAIMS.frame()

# %% [markdown]
# The experiment, run once (`rm.run_experiment`): the survey of `seed`, the identities and tau's interval on M1, the
# interval's coverage, the breakdown and the area over the REC curve; each result is shown below.

# %%
run = rm.run_experiment(seed=seed, n_firms=n_firms, k_max=k_max, n_coverage=n_coverage)

# %% [markdown]
# ## The identities of Sections 2–3, on M1

# %%
out.table(rm.identities_table(run.ident), "identities", floatfmt=".10g")
run.ident

# %% [markdown]
# ## Eq. 6: the variance and 95% confidence interval of tau

# %%
out.table(run.tau_table, "tau_interval", floatfmt=".5f")
run.tau_table

# %% [markdown]
# Is the interval what the paper says, an approximate 95% interval? Its coverage on random bivariate-normal
# samples of the survey's size, whose population tau 2/π·arcsin(r) is known (a seed of its own, drawn after the
# breakdown's, so every other output keeps its draws).

# %%
out.table(run.coverage, "tau_coverage", floatfmt=".4f")
run.coverage

# %% [markdown]
# ## Figs. 1–3 for M1

# %%
y, m1 = run.y, run.m1
out.figure(rm.fig1_correct_pairs(y, m1), "fig1", caption="rosset Fig. 1: share of correct pairs of each firm, "
           "by decreasing prediction of M1")
out.figure(rm.fig2_cutoff_auc(y, m1), "fig2", caption="rosset Fig. 2: AUC_i of separating the top i wallets from the "
           "rest, against the cutoff, the axis scaled by the i (n - i) pairs so that the area is rho-tilde")
out.figure(rm.fig3_cumulative_rank(y, m1), "fig3", caption="rosset Fig. 3: cumulative inverse rank of the true wallet "
           "by decreasing prediction of M1, with the optimal and worst curves")

# %% [markdown]
# ## Section 4: evaluation breakdown

# %%
one, many = run.one, run.many
out.table(one, "breakdown", floatfmt=".6g")
out.table(many, "breakdown_k", floatfmt=".6g")
fig = rm.breakdown_figure(one, many)
out.figure(fig, "breakdown", caption="rosset Section 4: how each measure changes when one (or k) firms are "
           "removed, relative to the full survey (no figure in the paper)")
one[["u0"] + [f"{m}_relative" for m in rm.BREAKDOWN_MEASURES]].iloc[::6]

# %% [markdown]
# The area over the REC curve (Section 4) beside the additive lower bound the paper gives it, as one label's
# residual grows.

# %%
out.table(run.aoc, "aoc_bound", floatfmt=".6g")
run.aoc.iloc[::6]

# %% [markdown]
# ## The claims filled

# %%
rm.add_claims(ledger, run, block=None)
out.claims(ledger)
ledger.frame()[["claim_id", "kind", "status", "reproduced_value"]]

# %%
from IPython.display import Markdown

Markdown(ledger.verdict())
