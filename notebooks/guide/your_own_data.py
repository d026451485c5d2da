# %% [markdown]
# # Your own data: every module of `offline_eval` on plain data frames
#
# Not a paper reproduction (`make reproduce` does not run it): a worked example of the library on data a
# researcher brings. Each section starts from a pandas DataFrame with the columns your logs would have,
# then calls the public functions (all importable as `from offline_eval import ...`). Replace the
# synthetic frames below by `pd.read_parquet(...)` of your own logs; nothing else changes.
#
# Run it with `make run NB=guide/your_own_data` or open it in `make lab`.

# %% tags=["parameters"]
seed = 0
n_rows = 20_000  # rows of each example log
output_root = None

# %%
import numpy as np
import pandas as pd

import offline_eval as oe
from offline_eval.mergeable import LossSums, ScoreCounts

rng = np.random.default_rng(seed)

# %% [markdown]
# ## 1. Binary predictions (click models): AUC, log loss, RIG, calibration (yi)
# A click log with a label, two models' predicted probabilities and an optional weight per row.
# Pandas inputs are used as given when their indexes agree; two Series with different indexes are
# rejected (align them first), never combined by position. Names say the direction, as in scikit-learn:
# `*_score` higher is better, `*_loss` and `*_error` lower is better. Labels other than 0/1 need
# `pos_label`, e.g. `oe.roc_auc_score(df["outcome"], df["p"], pos_label="click")`.

# %%
ctr = rng.beta(1, 30, n_rows)
clicks = pd.DataFrame({"clicked": (rng.random(n_rows) < ctr).astype(int),
                       "p_model_a": np.clip(ctr * np.exp(rng.normal(0, 0.5, n_rows)), 1e-6, 1 - 1e-6),
                       "p_model_b": np.clip(ctr * 1.3, 1e-6, 1 - 1e-6), "weight": rng.integers(1, 4, n_rows)})
summary = pd.DataFrame({m: {"AUC": oe.roc_auc_score(clicks["clicked"], clicks[m], sample_weight=clicks["weight"]),
                            "log loss": oe.log_loss(clicks["clicked"], clicks[m], sample_weight=clicks["weight"]),
                            "RIG": oe.rig_score(clicks["clicked"], clicks[m], sample_weight=clicks["weight"]),
                            "avg p / CTR": oe.calibration_ratio(clicks["clicked"], clicks[m], sample_weight=clicks["weight"])}
                        for m in ("p_model_a", "p_model_b")})
summary

# %% [markdown]
# How sure is the AUC gap? Percentile bootstrap intervals of any metric (`bootstrap_ci`), here both AUCs.

# %%
cis = {m: oe.bootstrap_ci(oe.roc_auc_score, clicks["clicked"], clicks[m], n_boot=200, rng=seed) for m in ("p_model_a", "p_model_b")}
pd.DataFrame({m: {"AUC": r.value, "95% low": r.low, "95% high": r.high} for m, r in cis.items()})

# %% [markdown]
# Impressions of one query are not independent: they share the query's intent and click rate, and a bootstrap of
# rows reads that correlation as information, so its intervals are too narrow. `clustered_bootstrap` resamples
# whole queries (a Poisson(1) weight per query and resample) and returns AUC, log loss and RIG of both models and
# their paired differences B - A from the same resamples, with BCa intervals and, for a difference, a p-value.
# The query id here groups rows of similar true CTR (500 queries); use your log's query, user or day column.

# %%
clicks["query"] = pd.qcut(ctr, 500, labels=False)
boot = oe.clustered_bootstrap(clicks["clicked"], clicks["p_model_a"], clicks["p_model_b"], groups=clicks["query"],
                              sample_weight=clicks["weight"], n_boot=500, rng=seed)
rows = oe.clustered_bootstrap(clicks["clicked"], clicks["p_model_a"], clicks["p_model_b"],
                              sample_weight=clicks["weight"], n_boot=500, rng=seed)
table = boot.table(0.95)
table["row-level low"], table["row-level high"] = rows.table(0.95)[["low", "high"]].T.to_numpy()
table.round(4)

# %% [markdown]
# Where does each model err? The per-quantile breakdown (yi Figs. 3-4), binned by model A's score.

# %%
oe.quantile_breakdown(clicks["clicked"], clicks["p_model_b"], n_quantiles=5, by=clicks["p_model_a"])[
    ["quantile", "weight", "ctr", "avg_pclick", "log_loss_share", "prediction_error"]]

# %% [markdown]
# Logs in chunks (files, partitions): fill an accumulator per chunk and merge; the result equals the
# in-memory metric (`offline_eval.ondask` does this on a Dask DataFrame or a Parquet path).

# %%
chunks = [clicks.iloc[idx] for idx in np.array_split(np.arange(len(clicks)), 4)]
counts = ScoreCounts.from_arrays(chunks[0]["clicked"], chunks[0]["p_model_a"])
sums = LossSums.from_arrays(chunks[0]["clicked"], chunks[0]["p_model_a"])
for ch in chunks[1:]:
    counts = counts.merge(ScoreCounts.from_arrays(ch["clicked"], ch["p_model_a"]))
    sums = sums.merge(LossSums.from_arrays(ch["clicked"], ch["p_model_a"]))
print(counts.roc_auc_score(), oe.roc_auc_score(clicks["clicked"], clicks["p_model_a"]))
print(sums.log_loss(), oe.log_loss(clicks["clicked"], clicks["p_model_a"]))

# %% [markdown]
# ## 2. Regression models judged by ranking (rosset)
# A test set with the true response and two models' predictions: Kendall's tau with its confidence
# interval (eq. 6), a paired bootstrap of the difference, and the single most influential observation.

# %%
size = rng.standard_normal(2_000)
firms = pd.DataFrame({"spend": np.exp(2 + size + rng.normal(0, 0.3, 2_000)),
                      "model_1": np.exp(2 + 0.7 * size + rng.normal(0, 0.6, 2_000)),
                      "model_2": np.exp(2 + 0.4 * size + rng.normal(0, 0.8, 2_000))})
tau, (lo, hi) = oe.kendall_tau(firms["spend"], firms["model_1"]), oe.tau_confidence_interval(firms["spend"], firms["model_1"])
cmp = oe.bootstrap_compare(firms["spend"], firms["model_1"], firms["model_2"], measure="tau", n_boot=100, rng=seed)
print(f"tau = {tau:.3f} (95% CI {lo:.3f} to {hi:.3f}); tau(model_1) - tau(model_2) = {cmp.difference:.3f}, "
      f"p = {cmp.pvalue:.2g}")
oe.most_influential(firms["spend"], firms["model_1"], measure="RMSE")

# %% [markdown]
# ## 3. Classifiers whose offline test set is not the live traffic (piovano)
# An annotated offline sample (both models' predictions and the truth) and unannotated live traffic
# (both models' predictions). The online adaptive metrics re-weight the offline sample to the live joint
# distribution of the two models' predictions. Class labels may be any hashable values (here intent
# names); results list the classes in sorted order (or the order of `classes=`), next to recall and precision.

# %%
names = np.array(["music", "shopping", "timer", "weather"])
k = len(names)
truth_live = rng.choice(k, 30_000, p=[0.6, 0.25, 0.1, 0.05])
noisy = lambda acc: np.where(rng.random(truth_live.size) < acc, truth_live, rng.integers(0, k, truth_live.size))  # noqa: E731
live = pd.DataFrame({"model_b": names[noisy(0.7)], "model_c": names[noisy(0.8)], "truth": names[truth_live]})
offline = live.groupby("truth", group_keys=False).sample(n=250, random_state=seed)  # balanced: not the live mix
oam = oe.online_adaptive_metrics(offline["model_b"], offline["model_c"], offline["truth"],
                                 live["model_b"], live["model_c"])
ci = oe.bootstrap_oam_accuracy(offline["model_b"], offline["model_c"], offline["truth"], live["model_b"],
                               live["model_c"], n_boot=100, rng=seed).candidate
pd.DataFrame({"offline sample": [(offline["model_c"] == offline["truth"]).mean()],
              "OAM (re-weighted)": [oam.candidate.accuracy], "OAM 95% interval": ["{:.3f} to {:.3f}".format(*ci.confidence_interval())],
              "live (unknown in practice)": [(live["model_c"] == live["truth"]).mean()]}, index=["accuracy of C"])

# %% [markdown]
# The offline sample here is balanced by *true* class, so `p(truth | both predictions)` differs offline and
# live, the one assumption the re-weighting needs (piovano Theorem 2): the estimate moves from the offline
# accuracy towards the live one but need not reach it, and its interval (the offline sample's uncertainty
# only) need not cover it. Per class, in the order of `oam.classes`:

# %%
pd.DataFrame({"recall": oam.candidate.recall, "precision": oam.candidate.precision}, index=oam.classes)

# %% [markdown]
# ## 4. Bidders in auctions (chapelle)
# Won-auction logs with the click, the value of a click, the price paid (highest competing bid) and two
# models' predicted click probabilities, grouped by network; the A/B-test profit difference per network
# with its standard error. Which offline metric tracks the A/B test (Algorithm 1)?

# %%
bids = pd.DataFrame({"network": rng.integers(0, 12, n_rows), "p_true": rng.beta(2, 60, n_rows)})
bids["value"], bids["price"] = rng.lognormal(0, 0.5, n_rows), rng.lognormal(-4, 0.5, n_rows)
bids["clicked"] = (rng.random(n_rows) < bids["p_true"]).astype(int)
bias = rng.normal(0, 0.3, 12)[bids["network"]]
bids["p_a"], bids["p_b"] = bids["p_true"] * np.exp(bias), bids["p_true"] * np.exp(rng.normal(0, 0.1, n_rows))
per_net = bids.groupby("network").apply(lambda g: pd.Series({
    "EU diff": oe.expected_utility(g["clicked"], g["value"], g["p_b"], g["price"], beta=100.0)
    - oe.expected_utility(g["clicked"], g["value"], g["p_a"], g["price"], beta=100.0),
    "utility diff": oe.utility(g["clicked"], g["value"], g["p_b"], g["price"])
    - oe.utility(g["clicked"], g["value"], g["p_a"], g["price"])}), include_groups=False)
ab = pd.DataFrame({"profit diff": per_net["EU diff"] * rng.normal(1, 0.3, 12), "se": 0.1 * per_net["EU diff"].abs() + 1e-3})
res = oe.ab_test_correlation(per_net[["EU diff", "utility diff"]].to_numpy().T, ab["profit diff"], ab["se"], rng=seed)
pd.DataFrame({"Pearson r": res.pearson_r, "Kendall tau": res.kendall_tau}, index=["EU", "utility"])

# %% [markdown]
# ## 5. Replaying logged auctions with a new model (yi Section 4.6)
# Two frames: the auctions (one row per page view and candidate ad, with its bid) and the impressions
# shown (query, ad, slot, click). `ClickLog.from_frame` turns them into a log; `pclick_table` maps a
# model's pClick per (query, ad) onto it; `simulate` re-runs every logged auction with the new scores
# and estimates the clicks of the ads it shows from the logs alone.

# %%
n_pv, n_ads = 5_000, 6
auctions = pd.DataFrame({"page_view": np.repeat(np.arange(n_pv), n_ads), "ad": np.tile([f"ad{j}" for j in range(n_ads)], n_pv)})
auctions["query"] = np.repeat(rng.choice(["flights", "hotels", "shoes"], n_pv), n_ads)
auctions["bid"] = rng.lognormal(0, 0.5, len(auctions))
ctr_true = {(q, a): rng.beta(2, 40) for q in ("flights", "hotels", "shoes") for a in auctions["ad"].unique()}
shown = auctions.groupby("page_view").sample(n=3, random_state=seed).assign(slot=np.tile([0, 1, 2], n_pv))
p_true = np.array([ctr_true[qa] for qa in zip(shown["query"], shown["ad"])]) * np.array([1.0, 0.6, 0.4])[shown["slot"]]
shown["click"] = (rng.random(len(shown)) < p_true).astype(int)
log = oe.ClickLog.from_frame(shown, auctions, n_mainline=2)
pairs = pd.DataFrame(list(ctr_true), columns=["query", "ad"]).assign(pclick=list(ctr_true.values()))
models = {"true CTR": pairs, "noisy": pairs.assign(pclick=pairs["pclick"] * np.exp(rng.normal(0, 1, len(pairs))))}
pd.DataFrame({m: oe.simulate(log, log.pclick_table(f))._asdict() for m, f in models.items()})

# %% [markdown]
# ## 6. A randomised log: what would the new model have earned online? (IPS, SNIPS, doubly robust)
# Where a share of traffic was served at random with known probabilities (an exploration bucket), the
# online value of a new policy can be estimated from those rows alone, without an A/B test: each logged
# reward re-weighted by how much more (or less) likely the new policy was to take the logged action
# (`offline_eval.counterfactual`, the estimators of Open Bandit Pipeline). The frame: one row per
# exploration page view, the ad shown in the top slot, its propensity under the random logging policy,
# the click, and a reward model's pCTR of each ad (here the "noisy" model of section 5).

# %%
explore = auctions.groupby("page_view").sample(n=1, random_state=seed + 1).reset_index(drop=True)
explore["logging_pscore"] = 1.0 / n_ads  # the top ad drawn uniformly among the page view's candidates
explore["click"] = (rng.random(len(explore)) < [ctr_true[qa] for qa in zip(explore["query"], explore["ad"])]).astype(int)
pctr = {qa: p for qa, p in zip(zip(models["noisy"]["query"], models["noisy"]["ad"]), models["noisy"]["pclick"])}
explore["reward_hat"] = [pctr[qa] for qa in zip(explore["query"], explore["ad"])]
best_ad = pd.Series(pctr).groupby(level=0).idxmax().map(lambda qa: qa[1])  # the new policy: the top-pCTR ad per query
explore["target_pscore"] = (explore["ad"] == explore["query"].map(best_ad)).astype(float)
explore["target_reward_hat"] = [pctr[(q, best_ad[q])] for q in explore["query"]]

# %%
truth = np.mean([ctr_true[(q, best_ad[q])] for q in explore["query"]])  # known here, never in a real log
args = explore["click"], explore["target_pscore"], explore["logging_pscore"]
estimates = {"IPS": oe.ips_estimate(*args), "SNIPS": oe.snips_estimate(*args),
             "DR": oe.dr_estimate(*args, explore["reward_hat"], explore["target_reward_hat"])}
pd.DataFrame({k: {"CTR of the new policy": e.statistic, "standard error": e.standard_error,
                  "95% low": e.confidence_interval(0.95).low, "95% high": e.confidence_interval(0.95).high}
              for k, e in estimates.items()}).assign(**{"true (simulation only)": truth}).T
