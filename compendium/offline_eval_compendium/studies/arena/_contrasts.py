"""The arena's statistics for decisions: each table's comparisons Holm-adjusted together, a tie only by
equivalence (two one-sided tests within a declared margin), the smallest detectable difference at a stated power and
the seeds it would take, and the selection regret of deploying the candidate an estimate ranks first."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from ._worlds import average_ranks

__all__ = ["ALPHA", "POWER", "answer", "candidate_spread", "contrast_text", "holm", "holm_table", "regret",
           "regret_table", "seeds_needed", "smallest_detectable", "t_stats", "why_not_powered"]

#: The level of every test of a table (Holm's family-wise level over the table).
ALPHA = 0.05
#: The power at which the smallest detectable difference is stated.
POWER = 0.8
#: Decimals at which means are compared (see :data:`.offline_online.DECIMALS`).
DECIMALS = 12


def holm(p):
    """Holm's step-down adjusted p-values and each comparison's family-wise level divisor ``m - rank``."""
    p = np.asarray(p, float)
    order = np.argsort(p, kind="stable")
    m = len(p)
    adj = np.empty(m)
    divisor = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adj[i], divisor[i] = running, m - rank
    return adj, divisor


def t_stats(x):
    """Mean, standard error, degrees of freedom of a per-seed effect (nan-free)."""
    x = np.asarray(x, float)
    n = len(x)
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else np.nan, n - 1


def smallest_detectable(sd, n, m, *, alpha=ALPHA, power=POWER) -> float:
    """The smallest true mean effect a two-sided t-test at Holm's strictest level ``alpha / m`` detects with
    probability ``power`` over ``n`` seeds whose effect has standard deviation ``sd``:
    ``(t_{1 - alpha / 2m} + t_{power}) sd / sqrt(n)``, ``n - 1`` degrees of freedom."""
    df = max(n - 1, 1)
    return float((stats.t.isf(alpha / (2 * m), df) + stats.t.ppf(power, df)) * sd / np.sqrt(n))


def seeds_needed(sd, target, m, *, alpha=ALPHA, power=POWER, cap=100_000) -> int:
    """The fewest seeds whose :func:`smallest_detectable` is at most ``target`` (``cap`` when none below it)."""
    if not np.isfinite(sd) or sd <= 0:
        return 2
    n = max(2, int(np.ceil(((stats.norm.isf(alpha / (2 * m)) + stats.norm.ppf(power)) * sd / target) ** 2)))
    while n < cap and smallest_detectable(sd, n, m, alpha=alpha, power=power) > target:
        n += 1
    return n


def holm_table(frame: pd.DataFrame, *, margin, alpha=ALPHA, labels=("estimate better", "rival better")) -> pd.DataFrame:
    """Decide every row of ``frame`` (columns ``mean``, ``se``, ``df``): the difference's two-sided t p-value and the
    equivalence p-value (two one-sided tests against +-``margin``, a column or a number), each Holm-adjusted over
    every row of the table; the interval at each row's Holm level.  ``verdict``: ``tie (within +-margin)`` where the
    equivalence test places the difference inside the margin (even where it also tells it from 0: a difference
    smaller than the margin does not matter, as the ledger's rule calls an effect inside +-delta negligible), else
    ``labels[0]`` / ``labels[1]`` where the difference is told apart from 0, else ``inconclusive`` (never a tie by
    default)."""
    out = frame.copy()
    mean, se, df = out["mean"].to_numpy(float), out["se"].to_numpy(float), out["df"].to_numpy(float)
    marg = np.broadcast_to(np.asarray(out[margin] if isinstance(margin, str) else margin, float), mean.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(se > 0, 2.0 * stats.t.sf(np.abs(mean) / se, df), (mean == 0).astype(float))
        p_eq = np.where(se > 0, np.maximum(stats.t.sf((mean + marg) / se, df), stats.t.cdf((mean - marg) / se, df)),
                        (np.abs(mean) >= marg).astype(float))
    out["p"], out["p_eq"] = p, p_eq
    out["p_holm"], divisor = holm(p)
    out["p_eq_holm"], _ = holm(p_eq)
    half = stats.t.isf(alpha / divisor / 2, df) * se
    out["ci_low"], out["ci_high"] = mean - half, mean + half
    told = out["p_holm"] < alpha
    tie = out["p_eq_holm"] < alpha
    out["verdict"] = np.where(tie, [f"tie (within +-{m:g})" for m in marg], np.where(
        told & (mean > 0), labels[0], np.where(told & (mean < 0), labels[1], "inconclusive")))
    return out


def regret(runs: pd.DataFrame, present, labels) -> pd.DataFrame:
    """Per (world, variant, seed, estimate): the expected online loss of deploying the candidate the estimate ranks
    first, against the best candidate (``max online_expected - online_expected[chosen]``; ties in the estimate broken
    by the lower candidate index), in the world's own unit, beside the same for the A/B test's own pick.
    ``present(group, world)``: the estimates computed in a group."""
    rows = []
    for (world, variant, seed), g in runs.groupby(["world", "variant", "seed"], sort=False):
        g = g.sort_values("candidate", kind="stable")
        y = g["online_expected"].to_numpy()
        best = float(y.max())
        for m in present(g, world) + ["ab"]:
            x = g["online" if m == "ab" else f"off_{m}"].to_numpy()
            rows.append(dict(world=world, variant=variant, seed=seed, metric=m,
                             regret=best - float(y[int(np.argmax(np.round(x, DECIMALS)))])))
    return pd.DataFrame(rows)


def regret_table(reg: pd.DataFrame, labels) -> pd.DataFrame:
    """Per (world, variant, estimate): the mean selection regret over the seeds with its 95% t-interval."""
    rows = []
    for (world, variant, metric), g in reg.groupby(["world", "variant", "metric"], sort=False):
        mean, se, df = t_stats(g["regret"])
        half = float(stats.t.isf(0.025, df) * se) if df > 0 else np.nan
        rows.append(dict(world=world, variant=variant, metric="A/B test's pick" if metric == "ab" else
                         labels[metric][0], mean_regret=mean, ci_low=mean - half, ci_high=mean + half,
                         n_seeds=len(g)))
    return pd.DataFrame(rows)


def contrast_text(kind, e, r, on, off, measure):
    """A contrast in words: estimate ``e`` against rival ``r``, where the mechanism acts (``on``) or switched off."""
    what = "Spearman" if measure == "spearman" else "-MAE"
    if kind == "gap":
        return f"{what}({e}) - {what}({r}), where it acts ({on})"
    if kind == "interaction":
        return f"[{what}({e}) - {what}({r})] acts - switched off ({off})"
    return f"{what}({e}) acts - switched off ({off}): its validity's change"


def answer(t: pd.DataFrame) -> dict:
    """A mechanism's pre-registered contrasts in words: each verdict with its difference and Holm interval, which
    estimate to trust, and, where the arena cannot tell, the seeds the development spread says it would take."""
    def one(r):
        return (f"{r['verdict']} ({r['mean']:+.3f} [{r['ci_low']:+.3f}, {r['ci_high']:+.3f}], Holm p "
                f"{r['p_holm']:.2g}, detectable {r['sdd']:.3f})")
    gap, inter = t[t["kind"] == "gap"].iloc[0], t[t["kind"] == "interaction"].iloc[0]
    est, rival = gap["contrast"].split(" - ")[0], gap["contrast"].split(" - ")[1].split(", where")[0]
    if gap["verdict"] == "estimate better":
        trust = f"trust {est} over {rival}"
    elif gap["verdict"] == "rival better":
        trust = f"trust {rival} over {est}"
    elif gap["verdict"].startswith("tie"):
        trust = f"either: {est} and {rival} within the margin"
    else:
        trust = (f"cannot tell {est} from {rival}: about {int(gap['seeds_for_margin'])} seeds would detect a gap "
                 f"of {gap['margin']:g}")
    out = {"contrast (acts)": one(gap), "on - off": one(inter), "answer": trust}
    change = t[t["kind"] == "change"]
    if len(change):
        out["robustness (own change)"] = one(change.iloc[0])
    return out


# -- where a contrast's spread over seeds comes from -------------------------------------------------------------
def _jackknife_var(theta):
    """The delete-one jackknife variance of a statistic from its ``n`` leave-one-out values."""
    theta = np.asarray(theta, float)
    n = len(theta)
    return float((n - 1) / n * ((theta - theta.mean()) ** 2).sum()) if n > 1 else 0.0


def _loo_spearman(x, y):
    """Spearman of ``x`` with ``y`` with each candidate left out in turn, all at once (undefined counts 0)."""
    n = len(y)
    keep = ~np.eye(n, dtype=bool)
    rx, ry = average_ranks(np.broadcast_to(x, (n, n))[keep].reshape(n, n - 1)), \
        average_ranks(np.broadcast_to(y, (n, n))[keep].reshape(n, n - 1))
    rx, ry = rx - rx.mean(axis=1, keepdims=True), ry - ry.mean(axis=1, keepdims=True)
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum(axis=1))
    return np.divide((rx * ry).sum(axis=1), den, out=np.zeros(n), where=den > 0)


def candidate_spread(runs: pd.DataFrame, contrasts) -> dict:
    """Per contrast, the part of its per-seed variance that is the candidates a seed drew: the mean over seeds of the
    delete-one-candidate jackknife variance of the seed's effect (``{(mechanism, kind): variance}``) on ``runs`` (one
    block's candidate rows).  A candidate is left out of the mechanism's on and off runs together (the same index:
    the same graded strength on the same seed).  ``contrasts``: ``(mechanism, world, on, off, estimate, rival,
    measure, change)`` rows, ``change`` whether the estimate's own change is a contrast too."""
    out = {}
    for mech, world, on, off, est, rival, measure, change in contrasts:
        per = {"gap": [], "interaction": [], "change": []}
        for _seed, g in runs[runs["world"] == world].groupby("seed", sort=True):
            side = {}
            for v in (on, off):
                h = g[g["variant"] == v].sort_values("candidate", kind="stable")
                if measure == "error":
                    d = (h[f"err_{rival}"] - h[f"err_{est}"]).to_numpy()
                    loo = (d.sum() - d) / (len(d) - 1)
                    side[v] = (loo, loo)
                else:
                    y = h["online_expected"].to_numpy()
                    side[v] = (_loo_spearman(h[f"off_{est}"].to_numpy(), y),
                               _loo_spearman(h[f"off_{rival}"].to_numpy(), y))
            gap_on = side[on][0] - side[on][1] if measure != "error" else side[on][0]
            gap_off = side[off][0] - side[off][1] if measure != "error" else side[off][0]
            per["gap"].append(_jackknife_var(gap_on))
            per["interaction"].append(_jackknife_var(gap_on - gap_off))
            if change:
                per["change"].append(_jackknife_var(side[on][0] - side[off][0]))
        for kind, vals in per.items():
            if vals:
                out[mech, kind] = float(np.mean(vals))
    return out


def why_not_powered(sd, var_candidates, n_seeds, n_candidates, margin, m, seeds, *, alpha=ALPHA, power=POWER) -> str:
    """Why a contrast's smallest detectable difference is above its margin, from the development block's spread
    ``sd`` and the part of its variance that is the candidates drawn (``var_candidates``, :func:`candidate_spread`):
    where the spread between seeds alone is above what the margin allows, more candidates cannot reach it (only
    ``seeds`` seeds would); otherwise, the candidates per seed that would (their part shrinking as 1 / candidates)."""
    allowed = (margin / smallest_detectable(1.0, n_seeds, m, alpha=alpha, power=power)) ** 2
    total = sd**2
    within = min(var_candidates, total)
    between = total - within
    share = within / total if total > 0 else 0.0
    if between >= allowed:
        return (f"between seeds: {1 - share:.0%} of the development spread is between seeds (the world and logs each "
                f"seed draws), which more candidates do not average away; about {seeds} seeds would reach the margin")
    need = int(np.ceil(n_candidates * within / (allowed - between)))
    return (f"the candidates drawn: {share:.0%} of the development spread is which {n_candidates} candidates each "
            f"seed drew; about {need} candidates per seed (or {seeds} seeds) would reach the margin")
