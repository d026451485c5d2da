# %% [markdown]
# # arena: which offline metric predicts the online outcome? The four papers side by side
#
# The four papers ask one question -- does an offline metric tell how a model will do online? -- and each
# answers it in its own world with its own metrics. Here they meet on the compendium's two auction worlds:
#
# * **yi's sponsored search** (publisher side, `offline_eval.synth.sponsored`): a production click model
#   (log-odds noise 0.6, yi's model-1) serves the logged page views with a mainline reserve; each candidate
#   differs in noise, calibration by range (low / high CTR shifts, a scale) and, in a third of them, a
#   rank-preserving over-estimation of the low range (yi Table 6). Online: an A/B test of click yield (CY).
# * **chapelle's RTB** (bidder side, `offline_eval.synth.rtb`): the production bidder's won-only logs over
#   `n_networks` publisher networks; each candidate draws per-network calibration errors, value-correlated
#   errors and noise from the world's own laws, at a random scale (ranking quality and calibration both
#   vary). Online: the A/B profit delta from the exact per-request moments and 30M impressions per network.
#
# Every offline metric the papers use is computed on the **production model's logs**: AUC, log loss, RIG,
# MSE, calibration and mainline AUC (yi Section 2, 7); yi's simulated CY and mainline CY from the replay of
# the logged auctions (Section 4.6); rosset's rho between prediction and outcome (and between bid and
# realised value, RTB); piovano's re-weighting of the log loss to the live (production, candidate)
# prediction cells; chapelle's MSE, weighted MSE, utility and expected utility at its best beta
# (Algorithm 1's choice of beta, made here on the *other* seeds so that no candidate's A/B result picks it).
# Each leaderboard row: over the candidates of a seed, the Spearman correlation of the offline delta with
# the online delta (mean over seeds, bootstrap 95% interval resampling candidates), the share of candidate
# pairs ordered as the A/B test orders them, and how often the metric picks the A/B winner.
#
# Then each mechanism is switched off in turn: exploration logged (which also makes the offline sample
# representative: every bid request is logged), errors independent of value, light-tailed values, no
# position effect and no reserves, and no A/B noise (the expected online delta of the same runs).
# Sponsored-world exploration logs are not run (time).
#
# **Scale and time.** Default: `n_seeds` = 20 seeds in each of the two seed blocks (development and
# confirmation), 12 candidates per world, 8 networks x 3,000 requests (RTB), 200 queries, 8,000 logged page views
# and 20,000 A/B page views per arm (sponsored): four times the CPU of the earlier 10 seeds on one block (those
# took 36 s of CPU on one core, 80-90 s wall-clock on the shared 2-core machine). More candidates are a parameter
# away: `n_candidates=24` (about twice the CPU). Smoke (`notebooks/smoke/`): 2 seeds, 4
# candidates, about 6 s. The worlds are scaled down from the papers' (chapelle's 25 networks, yi's
# millions of page views) to fit `make reproduce`; the CTR level of the RTB world is raised to 1% so that a
# few thousand logged requests per network hold enough clicks.
#
# The claims are declared first, in the study `offline_eval_compendium.studies.arena_offline_online`, each
# beside the control world that switches its paper's mechanism off; the sweep alone decides a status.

# %% tags=["parameters"]
seed = 0
n_seeds = 20  # seeds in each block (declared: A.SEEDS)
n_candidates = 12
n_networks = 8
n_log_rtb = 3000
n_contexts = 3000
n_queries = 200
n_log_sponsored = 8000
n_ab = 20000
n_boot = 200
output_root = None

# %%
import time

from offline_eval_compendium.claims import Ledger
from offline_eval_compendium.io import OutputDir
from offline_eval_compendium.studies import arena_offline_online as A

out = OutputDir("arena", output_root)
blocks = A.SEEDS.sized(n_seeds, development=seed)
ledger = Ledger("arena", "arena_offline_online", claims=A.CLAIMS, seeds=blocks)
rtb_kw = dict(n_candidates=n_candidates, n_networks=n_networks, n_log=n_log_rtb, n_contexts=n_contexts)
sponsored_kw = dict(n_candidates=n_candidates, n_queries=n_queries, n_log=n_log_sponsored, n_ab=n_ab)

# %% [markdown]
# ## The claims, declared before the experiment
# Every sweep runs on two seed blocks of `n_seeds` seeds, declared here before any result: the development block
# (the seeds the claims were developed on) and a confirmation block derived from the notebook's name, which no
# development run used. A status comes from the confirmation block, the development result beside it.

# %%
print(f"development seeds {blocks.text('development')}; confirmation seeds {blocks.text('confirmation')}")
A.CLAIMS.frame()

# %% [markdown]
# ## Both worlds, every variant, every seed

# %%
t0 = time.perf_counter()
runs = {b: A.run_sweep(blocks.seeds(b), rtb_kw=rtb_kw, sponsored_kw=sponsored_kw) for b in blocks.BLOCKS}
sc = {b: A.scores(r) for b, r in runs.items()}
print(f"{sum(len(r) for r in runs.values())} candidate runs in {time.perf_counter() - t0:.0f} s")
for b in blocks.BLOCKS:
    out.table(runs[b], "candidates" + blocks.suffix(b))
    out.table(sc[b], "seed_scores" + blocks.suffix(b))

# %% [markdown]
# ## The leaderboard (base worlds, observed A/B tests)

# %%
board = A.leaderboard(runs["development"], sc["development"], n_boot=n_boot, seed=seed)
out.table(board, "leaderboard", floatfmt=".3f")
out.figure(A.figure(board), "leaderboard", caption="arena: Spearman correlation over candidate models of each offline "
           "metric's delta with the A/B delta (mean over seeds, bootstrap 95% interval), RTB and sponsored worlds")
board

# %% [markdown]
# ## Each mechanism switched off in turn (mean Spearman over seeds)

# %%
mech = A.mechanisms(sc["development"])
out.table(mech, "mechanisms", floatfmt=".2f")
mech

# %% [markdown]
# ## What the worlds show
# The leaderboard and the mechanisms table above are the development block's; the claims below are judged on the
# confirmation block, their notes quoting its values. No number is typed here: the tables are the run's.
#
# ## Claims

# %%
for b in ledger.blocks:  # the development block first; a status is the confirmation block's
    A.add_claims(ledger.block(b), sc[b])
out.claims(ledger)
ledger.frame()[["claim_id", "reproduced_value", "status", "control", "note"]]

# %%
from IPython.display import Markdown

Markdown(ledger.verdict())
