# %% [markdown]
# # arena: which offline estimate predicts the online outcome? The four papers, and today's counterfactual estimators
#
# The four papers ask one question -- does an offline number tell how a model will do online? -- and each answers it
# in its own world. Here they meet on three worlds, each paper's mechanism switchable, beside the counterfactual
# estimators (IPS, SNIPS, doubly robust; Open Bandit Pipeline's) that practitioners use today where a share of
# traffic is randomised. Each world's candidates are scored offline against production and tested online.
#
# | paper | its sentence | the mechanism (on) | the control (off) |
# |---|---|---|---|
# | chapelle | "A Gamma distribution with $\alpha = \beta c + 1$ and free parameter β" (Section 2.4); "it is more costly to make a prediction error while bidding on an item with a large value" (Section 3); "each of them had at least 30M impressions" (Section 3) | RTB: competing bids Gamma-distributed (the EU's own law; log-normal as a factor), candidate errors correlated with the click's value, one A/B test of 30M impressions per network *per candidate* with its own noise | errors independent of value |
# | rosset | "ranking-based evaluation is robust. That is, it is only mildly affected by errors — even gross ones — both in the values of features and in the measured response" (Section 1) | RTB logs with 0.5% of the logged click values multiplied by 100 (a unit error) | the same logs uncorrupted |
# | piovano | "re-weights the offline metrics based on calculating the joint distributions of the model hypothesis over the offline test data VS. the online data" (Abstract) | 1,000 labelled items drawn by distorted (production, candidate) cell, candidate errors correlated with production's; scored on recall and precision per class | a representative (uniform) test set; as a factor, independent errors |
# | yi | "AUC, especially AUC measured only on mainline ads, is one of the most reliable indicators" (Section 4.1); "Auction simulation, first, reruns ad auctions offline" (Section 4.6) | sponsored search: a position effect (click curve) and a mainline reserve | a flat click curve, no reserve |
# | counterfactual | Open Bandit Pipeline's IPS, SNIPS, DR (`offline_eval.counterfactual`) | a declared 5% of extra traffic served in a uniformly random ranking, propensities logged; estimates per (page view, slot) | 25% of traffic (the exploration share as a factor) |
#
# Also on the RTB logs: spurious clicks on 0.2% of rows (label noise), and every bid request logged
# (exploration: a representative sample). The equivalent statistics are one row: rosset's rho(prediction,
# click) is a function of the AUC on a 0/1 click, and RIG is the log loss at the logs' one base rate.
#
# **Target.** The primary target is the expected online delta the simulator computes without A/B noise (RTB: the
# profit's closed-form moments; sponsored search: every model's expected clicks on one shared sample of page views;
# classifiers: the live recall and precision); the A/B test's observed delta stays as the second target, beside it.
# Candidates are graded along each world's error direction (evenly spread strengths, not only random ones).
#
# **Statistics.** Two seed blocks declared up front: the development block (seeds 0-19) on which the worlds and
# criteria were written, and a confirmation block of 20 seeds from a stable hash of the notebook's name into
# [10^6, 10^9), run once with the criteria frozen; a claim's status comes from the confirmation block, the
# development result beside it. When the claims moved to the estimate rule (each claim's effect per seed, a gap of
# Spearman correlations or of errors, with the smallest gap that matters declared: 0.05 for a correlation, 5 points
# for an error of recall and precision; its 95% interval over the seeds beside the paired interval of world minus
# control, `inconclusive` where the seeds cannot tell) the confirmation block was renewed, the first kept on
# record. The leaderboard compares every pair of estimates on the same seeds and
# candidates (Spearman of the offline delta with the online delta over the candidates, mean over seeds),
# with a bootstrap over seeds and candidates and Holm's correction; an order is printed only where the
# corrected interval excludes 0.
#
# **Power from the design.** Where a contrast's spread over seeds comes from was measured on the development block
# alone (the part that is the candidates a seed drew: a delete-one-candidate jackknife of each seed's effect): for the
# RTB and classifier contrasts mostly the candidates, so those worlds draw 40 and 32 graded candidates per seed
# (vectorised: every candidate's predictions, expected utilities and A/B moments in one array), and the two laws of
# the competing bid are common random numbers (one normal draw, the Gamma by its quantile). Sponsored search keeps 16:
# each candidate is served on the target's 40,000 page views and an A/B arm, the arena's dearest step. The
# confirmation block was renewed for this design, declared before it ran. Each contrast states its smallest
# detectable difference and, where it is above the margin, why (the candidates drawn, or the seeds).
#
# **Scale and time.** Candidates per seed: RTB 40, sponsored 16, classifiers 32; RTB 8 networks x 3,000 requests; sponsored 200 queries,
# 8,000 logged page views (+5% / 25% exploration), 20,000 A/B page views per arm; classifiers 20,000 live and
# 1,000 labelled items. Smoke (`notebooks/smoke/`): 2 + 2 seeds, 4 candidates per world.

# %% tags=["parameters"]
seed = 0
n_seeds = 20  # seeds in each block (declared: A.SEEDS); range: 2..40
n_candidates_rtb = 40  # graded candidates per seed; range: 4..96
n_candidates_sponsored = 16  # range: 4..48
n_candidates_classifier = 32  # range: 4..96
n_networks = 8  # range: 3..32
n_log_rtb = 3000  # range: 1_000..12_000
n_contexts = 3000  # range: 1_000..12_000
n_queries = 200  # range: 50..800
n_log_sponsored = 8000  # range: 2_000..32_000
n_ab = 20000  # range: 2_000..80_000
n_live = 20000  # range: 2_000..80_000
n_offline = 1000  # range: 200..4_000
n_boot = 2000  # range: 20..8_000
output_root = None

# %%
from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies.arena import offline_online as A

out = OutputDir("arena", output_root)
blocks = A.SEEDS.sized(n_seeds, development=seed)
ledger = Ledger("arena", "arena_offline_online", claims=A.CLAIMS, seeds=blocks)
kw = dict(rtb_kw=dict(n_candidates=n_candidates_rtb, n_networks=n_networks, n_log=n_log_rtb, n_contexts=n_contexts),
          sponsored_kw=dict(n_candidates=n_candidates_sponsored, n_queries=n_queries, n_log=n_log_sponsored, n_ab=n_ab),
          classifier_kw=dict(n_candidates=n_candidates_classifier, n_live=n_live, n_offline=n_offline))

# %% [markdown]
# ## The claims, declared before the experiment

# %%
A.CLAIMS.frame()

# %% [markdown]
# ## The development block, then the confirmation block (run once, criteria frozen)

# %%
run = A.run_experiment(blocks, n_boot=n_boot, seed=seed, **kw)
print(f"{len(run.development) + len(run.confirmation)} candidate rows in {run.seconds:.0f} s")
out.table(run.candidates(), "candidates")
out.table(run.seed_scores(), "seed_scores")

# %% [markdown]
# ## The leaderboard: paired differences on the confirmation block (expected online outcome)
#
# Each cell: the row estimate's mean Spearman minus the column's; '>' or '<' where Holm's corrected
# bootstrap interval excludes 0, '=' (a tie) where it does not.

# %%
out.figure(A.figure(run.pairs), "leaderboard", caption="arena: paired differences of Spearman(offline delta, online "
           "delta) between estimates, confirmation block; '>'/'<' where the Holm-corrected bootstrap interval "
           "excludes 0, '=' a tie")
out.table(run.pairs, "pairs", floatfmt=".3f")
out.table(run.board, "leaderboard", floatfmt=".3f")
run.board

# %% [markdown]
# ## Pre-registered contrasts, their power, and what the choice costs
#
# Declared in the study before the confirmation block ran (`A.CONTRASTS`): per mechanism, the paper's estimate
# against its named rival where the mechanism acts, and the on - off interaction, on the expected online outcome
# (the A/B test's mean beside it). Holm over every contrast of the table; a tie only where two one-sided tests place
# the difference within +-0.05; the smallest detectable difference at 80% power (Holm's strictest level) from the
# development block's spread, and the seeds it would take to reach the margin. Selection regret: the expected online
# loss of deploying the candidate an estimate ranks first, against the best candidate.

# %%
out.table(run.contrasts, "contrasts", floatfmt=".4g")
out.table(run.regret, "regret", floatfmt=".4g")
run.contrasts[["mechanism", "kind", "mean", "ci_low", "ci_high", "p_holm", "verdict", "sdd", "seeds_for_margin", "why"]]

# %% [markdown]
# ## Which estimate to trust when
#
# Per mechanism, each estimate against the one chosen best on the development block, judged on the confirmation
# block where the mechanism acts, then (after "|") where it is switched off: "best" (its mean Spearman), "tie"
# (within +-0.05 by two one-sided tests), "worse", "better" or "inconclusive" (the gap); Holm over every cell.
# The last columns: the pre-registered contrasts and the answer.

# %%
out.table(run.which_when, "which_when")
run.which_when.set_index("mechanism").T

# %% [markdown]
# ## Claims: status from the confirmation block, development beside it

# %%
for block in ("development", "confirmation"):
    A.add_claims(ledger, run, block=block)
out.claims(ledger)
ledger.frame()[["claim_id", "reproduced_value", "status", "control", "development"]]

# %%
from IPython.display import Markdown

Markdown(ledger.verdict())
