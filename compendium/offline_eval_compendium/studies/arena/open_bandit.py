"""The arena on real logs: each policy of the Open Bandit Dataset's sample estimated from the other's logs.

Protocol (world :data:`WORLD`; data and peer outputs in ``data/real/open_bandit/``, made by ``make peers-obd``
in Open Bandit Pipeline's own environment):

1. **The data** (:func:`load`): ZOZOTOWN's fashion recommendations, three items per impression (positions
   0-2), logged by two policies run side by side on the same traffic -- uniform random and Bernoulli Thompson
   sampling (BTS) -- in three campaigns ("all": 80 items, "men": 34, "women": 46), 10,000 logged impressions
   (rows) per policy and campaign, each with its logging propensity and click.
2. **The evaluation policies' action probabilities** (:func:`load_action_dist`), as OBP computes them and
   committed as data: BTS from its production prior by simulation (``BernoulliTS(is_zozotown_prior=True)
   .compute_batch_action_dist``, 100,000 simulated rankings, a fixed seed), uniform random as 1 / items.
3. **The reward model** of the direct method and DR (:func:`reward_model`): a declared context-free model,
   the click rate of each (item, position) in the logging policy's logs shrunk towards its position's rate
   by :data:`PRIOR_IMPRESSIONS` impressions (both policies ignore the user, so a context-free model is
   well specified up to the users' mix).
4. **The estimates** (:func:`estimates`): each policy's click rate from the other's logs -- random -> BTS
   and BTS -> random -- by IPS, SNIPS and DR (:mod:`offline_eval.counterfactual`), the direct method (the
   mean over rows of the reward model under the evaluation policy) and the replay (Li et al. 2011, the
   estimate yi's auction simulation generalises: the mean click of the rows where the logged item is the
   one a drawn BTS ranking shows at that position).  The replay is unbiased only under uniform logging:
   it is defined for random -> BTS and not for BTS -> random (there the matched rows over-represent the
   items BTS favours; rejection sampling with the propensities would keep about n / max(pi_e / pi_b)
   rows, :func:`rejection_rows`).
5. **The ground truth** as OBP takes it: the on-policy click rate of the evaluation policy's own logs.
   Relative errors (estimate / truth - 1) with 95% percentile intervals from a bootstrap over rows of both
   logs (:func:`bootstrap`: the reward model refitted in each resample).
6. **OBP's own numbers** on the same files (``obp_estimates.csv``), compared with ours (:func:`against_obp`).
7. **What 10,000 rows can decide** (:func:`resolution`): the truth's own interval, and the rows that would
   pin it to +-10%.  The paper's benchmark used the full data (about 26 million rows); its printed
   relative errors are not beside ours: no source we could quote prints them.  The obp 0.5.7 distribution
   (README, docs) does not; zr-obp's ``benchmark/ope/README.md`` refers to Section 5 of the paper without
   the table; its ``examples/obd`` READMEs print their example script's output on the small sample (a
   logistic-regression reward model, bootstrap runs), not the paper's full-data cells; the stored copies of
   the paper's text that a search found (vdocuments.net, vdocuments.us) open on its introduction, not its
   tables.  Nothing is typed in from memory.
8. The ledger (:func:`add_claims`), by :data:`CLAIMS`, declared before the run.
"""

from __future__ import annotations

import json
import warnings
import dataclasses

import numpy as np
import pandas as pd

from offline_eval import OfflineEvalWarning
from offline_eval.counterfactual import dr_estimate, ips_estimate, snips_estimate
from offline_eval.plotting import new_figure
from ...claims import Claim, Effect, Ledger, declare
from ...paths import DATA_DIR

__all__ = ["ArenaOpenBanditRun", "CAMPAIGNS", "CLAIMS", "DATA", "DIRECTIONS", "ESTIMATORS", "PRIOR_IMPRESSIONS", "WORLD",
           "add_claims", "against_obp", "bootstrap", "error_figure", "estimates", "load", "load_action_dist",
           "load_obp", "load_replay_draws", "rejection_rows", "resolution", "reward_model", "run_experiment",
           "run_summary"]

DATA = DATA_DIR / "real" / "open_bandit"
WORLD = ("real: Open Bandit Dataset sample (ZOZOTOWN, obp 0.5.7; uniform random and Bernoulli TS, three "
         "campaigns, 10,000 logged impressions each)")
CAMPAIGNS = ("all", "men", "women")
#: (logging policy, evaluation policy): each policy estimated from the other's logs.
DIRECTIONS = (("random", "bts"), ("bts", "random"))
ESTIMATORS = ("ips", "snips", "dm", "dr", "replay")
#: The reward model's shrinkage (declared before the run, as in tools/peers_obd.py, which OBP's run used).
PRIOR_IMPRESSIONS = 100.0
#: The relative half-width of the truth's 95% interval below which the sample can tell estimators apart.
RESOLUTION = 0.10
#: The smallest relative error of an estimate that matters (declared before the run): +-10%, as RESOLUTION.
RELATIVE_DELTA = 0.10
#: The tolerance of our estimates against OBP's on the same files (relative).
OBP_RTOL = 1e-10
FILES = dict(estimates="arena/open_bandit_estimates.csv", obp="arena/open_bandit_vs_obp.csv",
             resolution="arena/open_bandit_resolution.csv", figure="arena/open_bandit_errors.png")

CLAIMS = declare(
    Claim("arena-obd-matches-obp", "Open Bandit Pipeline 0.5.7, the peer", "OBP's IPW, SNIPW, DM, DR and replay "
          "estimates of each policy's click rate from the other's logs", "check",
          f"on the vendored sample, our IPS, SNIPS, DR (offline_eval.counterfactual), direct method and replay equal "
          f"OBP's on the same files within a relative {OBP_RTOL:g}, in both directions and all three campaigns, and "
          "so do the relative errors against OBP's on-policy click rates", world=WORLD,
          evidence=(FILES["obp"],)),
    Claim("arena-obd-ope-vs-on-policy", "Abstract", "Our dataset is unique in that it contains a set of multiple "
          "logged bandit feedback datasets collected by running different policies on the same platform. This "
          "enables experimental comparisons of different OPE estimators for the first time.", "claim",
          "in each of the six (direction, campaign) pairs, the signed relative error (estimate / on-policy click "
          "rate - 1) of IPS, SNIPS and DR with its 95% percentile-bootstrap interval (rows of both logs "
          "resampled): the estimators that use the logged propensities agree with the on-policy truth when every "
          "interval lies inside +-delta", world=WORLD,
          control="the direct method, which does not use the logged propensities (a context-free reward model "
                  "fitted on the logging policy's logs): the same criterion",
          evidence=(FILES["estimates"], FILES["figure"]),
          revised="judged by 'every interval holds 0' (an interval that cannot reject the truth taken as agreement); "
                  "agreement now needs each interval inside +-delta (equivalence), else the data cannot decide",
          effect=Effect("relative error of the estimate against the on-policy click rate", "=", RELATIVE_DELTA,
                        "a stated default for a counterfactual estimate: within 10% of the on-policy click "
                        "rate, the resolution the study asks of the sample (RESOLUTION)")),
    Claim("arena-obd-resolution", "Section 5 (benchmark on the full data)", "We provide extensive benchmark "
          "experiments of existing OPE estimators using our dataset and software.", "check",
          f"what the sample can decide: each on-policy click rate's 95% interval (binomial over the 10,000 rows) has "
          f"a relative half-width of at most {RESOLUTION:g}, the size of an estimator's relative error worth "
          "telling from another's", world=WORLD, evidence=(FILES["resolution"],)),
)


# -- 1-2. the data -----------------------------------------------------------------------------------------------
def load(data_dir=DATA) -> pd.DataFrame:
    """The vendored logs: ``policy, campaign, row, item_id, position, click, propensity_score``, in OBP's order."""
    df = pd.read_csv(data_dir / "logs.csv.gz", dtype={"policy": str, "campaign": str})
    expected = ["policy", "campaign", "row", "item_id", "position", "click", "propensity_score"]
    if list(df.columns) != expected:
        raise ValueError(f"{data_dir / 'logs.csv.gz'}: columns {list(df.columns)}, expected {expected} "
                         "(re-create it with `make peers-obd`)")
    return df


def load_action_dist(data_dir=DATA) -> dict:
    """``{(evaluation policy, campaign): array (n_items, 3)}``: the probability of each item at each position."""
    d = pd.read_csv(data_dir / "action_dist.csv")
    out = {}
    for (policy, campaign), part in d.groupby(["evaluation_policy", "campaign"], sort=False):
        m = np.zeros((part["item_id"].max() + 1, part["position"].max() + 1))
        m[part["item_id"].to_numpy(), part["position"].to_numpy()] = part["probability"].to_numpy()
        out[policy, campaign] = m
    return out


def load_replay_draws(data_dir=DATA) -> pd.DataFrame:
    """Per row of the random logs, the item one drawn BTS ranking shows at the row's position."""
    return pd.read_csv(data_dir / "replay_draws.csv.gz", dtype={"campaign": str})


def load_obp(data_dir=DATA) -> tuple[pd.DataFrame, dict]:
    """OBP's estimates on the vendored files and the run's record (versions, seeds, sizes)."""
    return pd.read_csv(data_dir / "obp_estimates.csv"), json.loads((data_dir / "run.json").read_text())


# -- 3. the reward model --------------------------------------------------------------------------------------------
def reward_model(item, position, click, *, n_items: int, n_positions: int = 3,
                 prior: float = PRIOR_IMPRESSIONS) -> np.ndarray:
    """``q[a, k]``: the click rate of item ``a`` at position ``k``, shrunk towards position ``k``'s click rate.

    ``q[a, k] = (clicks[a, k] + prior * rate[k]) / (shown[a, k] + prior)``, with ``rate[k]`` the position's
    click rate over all items; an item never shown at ``k`` gets ``rate[k]``.  Counts are exact integers.
    """
    item, position = np.asarray(item, dtype=np.int64), np.asarray(position, dtype=np.int64)
    cell = item * n_positions + position
    shown = np.bincount(cell, minlength=n_items * n_positions).reshape(n_items, n_positions).astype(float)
    clicks = np.bincount(cell, weights=np.asarray(click, dtype=float),
                         minlength=n_items * n_positions).reshape(n_items, n_positions)
    rate = clicks.sum(axis=0) / shown.sum(axis=0)
    return (clicks + prior * rate) / (shown + prior)


# -- 4. the estimates -------------------------------------------------------------------------------------------------
def _arrays(logs: pd.DataFrame) -> tuple:
    return (logs["item_id"].to_numpy(np.int64), logs["position"].to_numpy(np.int64),
            logs["click"].to_numpy(np.float64), logs["propensity_score"].to_numpy(np.float64))


def _inputs(arrays: tuple, dist: np.ndarray) -> dict:
    a, k, r, p = arrays
    q = reward_model(a, k, r, n_items=dist.shape[0], n_positions=dist.shape[1])
    return dict(reward=r, target_pscore=dist[a, k], logging_pscore=p, reward_hat=q[a, k],
                target_reward_hat=(dist * q).sum(axis=0)[k], item=a, position=k)


def _point(x: dict, shown=None) -> dict:
    """Every estimator on one log: ``{name: (value, standard error)}``."""
    args = (x["reward"], x["target_pscore"], x["logging_pscore"])
    out = {}
    for name, f in (("ips", ips_estimate), ("snips", snips_estimate)):
        e = f(*args)
        out[name] = (e.statistic, e.standard_error)
    e = dr_estimate(*args, x["reward_hat"], x["target_reward_hat"])
    out["dr"] = (e.statistic, e.standard_error)
    out["dm"] = (float(np.mean(x["target_reward_hat"])), float("nan"))  # its spread is the model's: bootstrap
    if shown is not None:
        m = x["item"] == shown
        v = float(x["reward"][m].mean()) if m.any() else float("nan")
        out["replay"] = (v, float(np.sqrt(v * (1 - v) / m.sum())) if m.sum() > 1 else float("nan"))
    return out


def rejection_rows(target_pscore, logging_pscore) -> float:
    """The expected rows rejection sampling keeps: ``sum_i w_i / max_i w_i``, ``w = pi_e / pi_b`` (Li et al.)."""
    w = np.asarray(target_pscore, dtype=float) / np.asarray(logging_pscore, dtype=float)
    return float(w.sum() / w.max())


def estimates(logs: pd.DataFrame, dists: dict, draws: pd.DataFrame) -> pd.DataFrame:
    """Each policy's click rate from the other's logs, per campaign and estimator, beside its on-policy rate.

    Columns ``logging, evaluation, campaign, estimator, value, se, on_policy, relative_error`` (signed,
    ``value / on_policy - 1``), ``rows``, ``matched`` (the replay's matched rows; for BTS -> random the rows
    rejection sampling would keep).
    """
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for campaign in CAMPAIGNS:
            for logging, target in DIRECTIONS:
                log = logs[(logs["policy"] == logging) & (logs["campaign"] == campaign)]
                truth = float(logs.loc[(logs["policy"] == target) & (logs["campaign"] == campaign), "click"].mean())
                x = _inputs(_arrays(log), dists[target, campaign])
                shown = _shown(log, draws, campaign) if logging == "random" else None
                matched = (float((x["item"] == shown).sum()) if shown is not None
                           else rejection_rows(x["target_pscore"], x["logging_pscore"]))
                for est, (v, se) in _point(x, shown).items():
                    rows.append(dict(logging=logging, evaluation=target, campaign=campaign, estimator=est, value=v,
                                     se=se, on_policy=truth, relative_error=v / truth - 1, rows=len(log),
                                     matched=matched))
                if shown is None:
                    rows.append(dict(logging=logging, evaluation=target, campaign=campaign, estimator="replay",
                                     value=float("nan"), se=float("nan"), on_policy=truth,
                                     relative_error=float("nan"), rows=len(log), matched=matched))
    return pd.DataFrame(rows)


def _shown(log: pd.DataFrame, draws: pd.DataFrame, campaign: str) -> np.ndarray:
    d = draws[draws["campaign"] == campaign]
    if not np.array_equal(d["row"].to_numpy(), log["row"].to_numpy()):
        raise ValueError(f"replay draws of campaign {campaign!r} are not aligned with its random logs")
    return d["bts_item"].to_numpy(np.int64)


# -- 5. intervals: a bootstrap over rows of both logs ---------------------------------------------------------------
def bootstrap(logs: pd.DataFrame, dists: dict, draws: pd.DataFrame, *, n_boot: int = 500, rng=0,
              level: float = 0.95) -> pd.DataFrame:
    """Percentile intervals of each estimate, of its on-policy truth and of the signed relative error.

    Each resample draws the logging policy's rows and, independently, the evaluation policy's own rows with
    replacement (10,000 of each), refits the reward model and recomputes every estimator and the truth.
    Columns ``logging, evaluation, campaign, estimator, value_low, value_high, truth_low, truth_high,
    error_low, error_high, n_boot``.
    """
    rng = np.random.default_rng(rng)
    q = [50 * (1 - level), 50 * (1 + level)]
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for campaign in CAMPAIGNS:
            for logging, target in DIRECTIONS:
                log = logs[(logs["policy"] == logging) & (logs["campaign"] == campaign)].reset_index(drop=True)
                own = logs.loc[(logs["policy"] == target) & (logs["campaign"] == campaign), "click"].to_numpy(float)
                shown = _shown(log, draws, campaign) if logging == "random" else None
                arrays = _arrays(log)
                vals = {e: [] for e in ESTIMATORS}
                truths = []
                for _ in range(n_boot):
                    i = rng.integers(0, len(log), size=len(log))
                    truths.append(float(own[rng.integers(0, len(own), size=len(own))].mean()))
                    x = _inputs(tuple(c[i] for c in arrays), dists[target, campaign])
                    for e, (v, _se) in _point(x, None if shown is None else shown[i]).items():
                        vals[e].append(v)
                t = np.array(truths)
                for e in ESTIMATORS:
                    if not vals[e]:
                        continue
                    v = np.array(vals[e])
                    err = v / t - 1
                    ok = np.isfinite(err)
                    rows.append(dict(logging=logging, evaluation=target, campaign=campaign, estimator=e,
                                     value_low=np.percentile(v[ok], q[0]), value_high=np.percentile(v[ok], q[1]),
                                     truth_low=np.percentile(t, q[0]), truth_high=np.percentile(t, q[1]),
                                     error_low=np.percentile(err[ok], q[0]), error_high=np.percentile(err[ok], q[1]),
                                     n_boot=int(ok.sum())))
    return pd.DataFrame(rows)


# -- 6. OBP's own numbers -------------------------------------------------------------------------------------------------
def against_obp(est: pd.DataFrame, obp: pd.DataFrame) -> pd.DataFrame:
    """Ours beside OBP's on the same files: value, on-policy rate and |relative error|, with their relative gaps."""
    key = ["logging", "evaluation", "campaign", "estimator"]
    m = obp.merge(est, on=key, how="left", suffixes=("_obp", ""))
    if m["value"].isna().any():
        raise ValueError(f"no estimate of ours for {m.loc[m['value'].isna(), key].to_dict('records')[:2]}")
    out = m[key].copy()
    out["obp"], out["ours"] = m["value_obp"], m["value"]
    out["gap"] = _gap(m["value"], m["value_obp"])
    out["on_policy_gap"] = _gap(m["on_policy"], m["on_policy_obp"])
    out["obp_relative_ee"] = m["relative_ee"]
    out["relative_ee_gap"] = _gap(m["relative_error"].abs(), m["relative_ee"])
    return out


def _gap(ours, theirs) -> np.ndarray:
    """|ours - theirs| relative to |theirs|, absolute where theirs is 0 (the replay's 0 clicks): never nan."""
    d, t = np.abs(np.asarray(ours, float) - np.asarray(theirs, float)), np.abs(np.asarray(theirs, float))
    return np.where(t > 0, d / np.where(t > 0, t, 1.0), d)


# -- 7. what the sample can decide --------------------------------------------------------------------------------------
def resolution(logs: pd.DataFrame, *, target: float = RESOLUTION) -> pd.DataFrame:
    """Each policy's on-policy click rate per campaign with its 95% (normal, binomial) interval, the interval's
    relative half-width, and the rows that would bring it to ``target`` (half-width scales as 1 / sqrt(rows))."""
    rows = []
    for (policy, campaign), part in logs.groupby(["policy", "campaign"], sort=False):
        n, c = len(part), int(part["click"].sum())
        p = c / n
        half = 1.959963984540054 * np.sqrt(p * (1 - p) / n)
        rows.append(dict(policy=policy, campaign=campaign, rows=n, clicks=c, click_rate=p, low=p - half,
                         high=p + half, relative_half_width=half / p,
                         rows_for_target=int(np.ceil(n * (half / p / target) ** 2))))
    return pd.DataFrame(rows)


@dataclasses.dataclass(frozen=True, kw_only=True)
class ArenaOpenBanditRun:
    """Everything the notebook shows and the ledger judges (:func:`run_experiment`)."""

    logs: pd.DataFrame
    estimates: pd.DataFrame
    intervals: pd.DataFrame
    obp: pd.DataFrame
    obp_run: dict
    vs_obp: pd.DataFrame
    resolution: pd.DataFrame

    def table(self) -> pd.DataFrame:
        """The estimates with their bootstrap intervals, one row per direction, campaign and estimator."""
        key = ["logging", "evaluation", "campaign", "estimator"]
        t = self.estimates.merge(self.intervals, on=key, how="left")
        t["direction"] = t["logging"] + " -> " + t["evaluation"]
        return t[["direction", "campaign", "estimator", "value", "se", "value_low", "value_high", "on_policy",
                  "truth_low", "truth_high", "relative_error", "error_low", "error_high", "matched", "n_boot"]]


def run_experiment(*, n_boot: int = 500, seed: int = 0, data_dir=DATA) -> ArenaOpenBanditRun:
    """Load the vendored files, estimate, bootstrap, compare with OBP's numbers and measure the resolution."""
    logs = load(data_dir)
    dists, draws = load_action_dist(data_dir), load_replay_draws(data_dir)
    est = estimates(logs, dists, draws)
    obp, run = load_obp(data_dir)
    intervals = bootstrap(logs, dists, draws, n_boot=n_boot, rng=seed)
    return ArenaOpenBanditRun(logs=logs, estimates=est, intervals=intervals,
                              obp=obp, obp_run=run, vs_obp=against_obp(est, obp), resolution=resolution(logs))


# -- tables and figures ---------------------------------------------------------------------------------------------------
def error_figure(run: ArenaOpenBanditRun):
    """Signed relative error of each estimator per campaign and direction, with 95% bootstrap intervals."""
    t = run.table()
    fig, axes = new_figure(2, 1, width="double", height=2.4, sharey=True)
    x = np.arange(len(CAMPAIGNS))
    for ax, (logging, target) in zip(axes, DIRECTIONS):
        part = t[t["direction"] == f"{logging} -> {target}"]
        for j, e in enumerate(ESTIMATORS):
            r = part[part["estimator"] == e].set_index("campaign").reindex(list(CAMPAIGNS))
            pos = x + (j - 2) * 0.15
            ax.errorbar(pos, r["relative_error"], yerr=[r["relative_error"] - r["error_low"],
                                                        r["error_high"] - r["relative_error"]],
                        fmt="o", ms=3, color=f"C{j}", elinewidth=0.8, capsize=1.5, label=e)
        ax.axhline(0, color="0.5", lw=0.6)
        ax.set_xticks(x, CAMPAIGNS)
        ax.set_title(f"{target} estimated from {logging} logs")
    axes[0].set_ylabel("estimate / on-policy - 1")
    axes[1].legend(ncols=2, loc="best")
    return fig


def run_summary(run: ArenaOpenBanditRun) -> str:
    """What the run shows, in Markdown, every number read from the run (nothing typed)."""
    t = run.table()
    res = run.resolution
    lines = ["**What the run shows** (every number from this run).", "",
             f"- Ours against OBP's on the same files: largest relative gap {run.vs_obp['gap'].max():.1e} over "
             f"{len(run.vs_obp)} estimates (OBP {run.obp_run['obp']}, BTS action probabilities from "
             f"{run.obp_run['n_sim']:,} simulated rankings)."]
    for (logging, target) in DIRECTIONS:
        part = t[t["direction"] == f"{logging} -> {target}"]
        cells = []
        for e in ESTIMATORS:
            r = part[part["estimator"] == e]
            if r["value"].isna().all():
                continue
            cells.append(f"{e} " + ", ".join(f"{c} {v:+.0%} [{lo:+.0%}, {hi:+.0%}]" for c, v, lo, hi in zip(
                r["campaign"], r["relative_error"], r["error_low"], r["error_high"])))
        lines.append(f"- {target} from {logging} logs, relative error (95% bootstrap interval): " + "; ".join(cells) + ".")
    rep = t[(t["direction"] == "random -> bts") & (t["estimator"] == "replay")]
    rej = t[(t["direction"] == "bts -> random") & (t["estimator"] == "replay")]
    lines.append("- The replay keeps " + ", ".join(f"{c} {m:,.0f}" for c, m in zip(rep["campaign"], rep["matched"]))
                 + " of 10,000 random rows (one in the number of items); from BTS logs it is not defined: rejection "
                 "sampling would keep about " + ", ".join(f"{c} {m:,.1f}" for c, m in zip(rej["campaign"], rej["matched"]))
                 + " rows.")
    lines.append("- What the sample can decide: the on-policy click rates' 95% intervals are +-"
                 + ", ".join(f"{r.policy}/{r.campaign} {r.relative_half_width:.0%}" for r in res.itertuples())
                 + f" of the rate; to reach +-{RESOLUTION:.0%} would take "
                 + ", ".join(f"{r.rows_for_target:,}" for r in res.itertuples())
                 + " rows. A relative error smaller than that cannot be told from the truth's own noise here; the "
                 "paper's full data (about 26 million rows) can, and its ranking of estimators is not re-decided by "
                 "this sample.")
    return "\n".join(lines)


# -- 8. the ledger -----------------------------------------------------------------------------------------------------------
def add_claims(ledger: Ledger, run: ArenaOpenBanditRun, *, block=None) -> None:
    """Fill every declared claim of :data:`CLAIMS` from the run.  The real logs have no seed blocks: ``block`` is
    ``None`` (any other value is refused)."""
    if block is not None:
        raise ValueError(f"`block` must be None: the Open Bandit study has no seed blocks; got {block!r}")
    v = run.vs_obp
    worst = float(max(v["gap"].max(), v["on_policy_gap"].max(), v["relative_ee_gap"].max()))
    ledger.check("arena-obd-matches-obp", holds=worst <= OBP_RTOL,
                 reproduced_value=(f"largest relative gap <= {OBP_RTOL:g} over {len(v)} estimates" if worst <= OBP_RTOL
                                   else f"largest relative gap {worst:.3g}"),
                 note=f"OBP {run.obp_run['obp']} run by `make peers-obd`; the replay from BTS logs has no OBP value "
                      "(OBP's ReplayMethod needs a deterministic target; ours draws one BTS ranking per row)")
    t = run.table()

    fmt = lambda p: "; ".join(f"{r.direction} {r.campaign} {r.estimator} {r.relative_error:+.2f} "  # noqa: E731
                              f"[{r.error_low:+.2f}, {r.error_high:+.2f}]" for r in p.itertuples())
    part, dm = t[t["estimator"].isin(("ips", "snips", "dr"))], t[t["estimator"] == "dm"]
    triples = lambda p: list(zip(p["relative_error"], p["error_low"], p["error_high"]))  # noqa: E731
    ledger.judge_intervals("arena-obd-ope-vs-on-policy", intervals=triples(part), control=triples(dm), printed="0",
                           confirmation="all six (direction, campaign) pairs of the vendored sample; the reward "
                                        "model, seeds and sizes declared in tools/peers_obd.py before any estimate "
                                        "was seen",
                           reproduced_value=fmt(part), control_text=f"direct method: {fmt(dm)}",
                           note="intervals from a bootstrap over rows of both logs (the truth's own noise included); "
                                "on 10,000 rows an interval holding 0 means the sample cannot reject the estimate, "
                                "not that it is right")
    res = run.resolution
    widest = float(res["relative_half_width"].max())
    ledger.check("arena-obd-resolution", holds=widest <= RESOLUTION,
                 reproduced_value="relative half-widths " + ", ".join(
                     f"{r.policy}/{r.campaign} {r.relative_half_width:.3f}" for r in res.itertuples()),
                 note="" if widest <= RESOLUTION else
                 "the sample's on-policy click rates are themselves too noisy to rank estimators whose relative errors "
                 f"differ by less than about {widest:.0%}; rows needed for +-{RESOLUTION:g}: "
                 + ", ".join(f"{r.policy}/{r.campaign} {r.rows_for_target:,}" for r in res.itertuples()))
