"""The arena's paired leaderboard: every pair of estimates on one world variant, compared on the same seeds and
candidates with a bootstrap over both, Holm's correction over the pairs, and the matrix figure."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from offline_eval.plotting import new_figure
from . import _worlds as W
from ._contrasts import DECIMALS, holm as _holm

__all__ = ["figure", "leaderboard", "paired"]


def paired(runs, world, variant, metrics, *, margin, n_boot=1000, seed=0, alpha=0.05, only_best=False,
           target="online_expected") -> pd.DataFrame:
    """Every pair of estimates (A, B) on one world variant: the mean over seeds of Spearman(A) - Spearman(B) with
    ``target`` (the expected online delta by default; ``"online"``: the A/B test's), same seeds and candidates, with
    a bootstrap over seeds and, within each, candidates (one resample for both).

    Each difference's standard error is the bootstrap replicates' standard deviation; its two-sided normal p-value is
    Holm-corrected over the comparisons, and its interval is the normal interval at Holm's level for that comparison
    (1 - alpha / (m - rank)), so that a rejected comparison's interval excludes 0 (normal rather than percentile:
    Holm's smallest levels, 0.05 / 28, lie beyond what a few thousand replicates resolve).  ``verdict`` is "A > B" or
    "tie" where the interval lies within +-``margin`` (a difference smaller than the margin does not matter, even
    where it excludes 0), else "A > B" / "B > A" where Holm rejects (the interval then excludes 0), else
    "inconclusive".  With ``only_best`` only the
    comparisons with the estimate of the highest mean (the family of :func:`which_when`'s cells).
    """
    v = runs[(runs["world"] == world) & (runs["variant"] == variant)].sort_values(["seed", "candidate"], kind="stable")
    metrics = list(metrics)
    n_seed = v["seed"].nunique()
    y = v[target].to_numpy().reshape(n_seed, -1)
    x = np.stack([v[f"off_{m}"].to_numpy().reshape(n_seed, -1) for m in metrics])
    rng = np.random.default_rng(seed)
    n_cand = y.shape[1]
    si = rng.integers(0, n_seed, (n_boot, n_seed))
    ci = rng.integers(0, n_cand, (n_boot, n_seed, n_cand))

    def rho(xx, yy):
        rx, ry = W.average_ranks(xx), W.average_ranks(yy)
        rx, ry = rx - rx.mean(-1, keepdims=True), ry - ry.mean(-1, keepdims=True)
        den = np.sqrt((rx * rx).sum(-1) * (ry * ry).sum(-1))
        return np.divide((rx * ry).sum(-1), den, out=np.zeros(den.shape), where=den > 0)

    point = np.round(rho(x, y[None]).mean(-1), DECIMALS)  # (metrics,)
    boot = rho(x[:, si[..., None], ci], y[si[..., None], ci][None]).mean(-1)  # (metrics, n_boot)
    best = int(np.argmax(point))
    pairs = [(i, j) for i in range(len(metrics)) for j in range(i + 1, len(metrics))
             if not only_best or best in (i, j)]
    rows = []
    for i, j in pairs:
        diff = round(point[i] - point[j], DECIMALS)
        se = round(float(np.std(boot[i] - boot[j], ddof=1)), DECIMALS)
        p = float(2.0 * stats.norm.sf(abs(diff) / se)) if se > 0 else float(diff == 0)
        rows.append(dict(world=world, variant=variant, a=metrics[i], b=metrics[j], diff=diff, se=se, p=p))
    out = pd.DataFrame(rows)
    out["p_holm"], divisor = _holm(out["p"])
    half = stats.norm.isf(alpha / divisor / 2) * out["se"]
    out["ci_low"], out["ci_high"] = out["diff"] - half, out["diff"] + half
    win = out["p_holm"] < alpha
    # a tie only where the interval at Holm's level lies within the equivalence margin (two one-sided tests)
    tie = (out["ci_low"] > -margin) & (out["ci_high"] < margin)
    out["verdict"] = np.where(tie, "tie", np.where(win & (out["diff"] > 0), out["a"] + " > " + out["b"],
                                                   np.where(win & (out["diff"] < 0), out["b"] + " > " + out["a"],
                                                            "inconclusive")))
    out["mean_a"] = [point[metrics.index(a)] for a in out["a"]]
    out["mean_b"] = [point[metrics.index(b)] for b in out["b"]]
    out["n_seeds"], out["n_candidates"], out["best"] = n_seed, n_cand, metrics[best]
    return out


def leaderboard(pairs: pd.DataFrame) -> pd.DataFrame:
    """Per world, each estimate's mean Spearman and what the paired comparisons support: whom it beats, ties, loses to."""
    rows = []
    for world, g in pairs.groupby("world", sort=False):
        means = pd.concat([g.set_index("a")["mean_a"], g.set_index("b")["mean_b"]]).groupby(level=0).first()
        for m, mean in means.round(DECIMALS).sort_values(ascending=False, kind="stable").items():
            mine = g[(g["a"] == m) | (g["b"] == m)]
            other = np.where(mine["a"] == m, mine["b"], mine["a"])
            beats = [o for o, vd in zip(other, mine["verdict"]) if vd.startswith(m + " > ")]
            loses = [o for o, vd in zip(other, mine["verdict"]) if vd.startswith(o + " > ")]
            ties = [o for o, vd in zip(other, mine["verdict"]) if vd == "tie"]
            lab = lambda ms: ", ".join(W.METRICS[o][0] for o in ms)  # noqa: E731
            rows.append(dict(world=world, metric=W.METRICS[m][0], paper=W.METRICS[m][1], mean_spearman=mean,
                             beats=lab(beats), ties=lab(ties), loses_to=lab(loses)))
    return pd.DataFrame(rows)


def figure(pairs: pd.DataFrame):
    """The paired leaderboard: per world, the matrix of mean Spearman differences (row minus column), each cell
    marked '>' or '<' where the Holm-corrected interval excludes 0 and '=' where it does not."""
    worlds = list(dict.fromkeys(pairs["world"]))
    sizes = [pairs.loc[pairs["world"] == w, "a"].nunique() + 1 for w in worlds]  # panels as wide as their matrices
    fig, axes = new_figure(len(worlds), 1, width="double", height=3.4, gridspec_kw=dict(width_ratios=sizes))
    for ax, world in zip(np.atleast_1d(axes), worlds):
        g = pairs[pairs["world"] == world]
        ms = list(dict.fromkeys(list(g["a"]) + list(g["b"])))
        ms.sort(key=lambda m: -float(pd.concat([g.loc[g["a"] == m, "mean_a"], g.loc[g["b"] == m, "mean_b"]]).iloc[0]))
        mat = np.zeros((len(ms), len(ms)))
        mark = np.full((len(ms), len(ms)), "", dtype=object)
        for r in g.itertuples():
            i, j = ms.index(r.a), ms.index(r.b)
            mat[i, j], mat[j, i] = r.diff, -r.diff
            sig = r.verdict not in ("tie", "inconclusive")
            mark[i, j] = (">" if r.diff > 0 else "<") if sig else "="
            mark[j, i] = ("<" if r.diff > 0 else ">") if sig else "="
        ax.imshow(mat, cmap="RdBu", vmin=-1, vmax=1)
        for i in range(len(ms)):
            for j in range(len(ms)):
                ax.text(j, i, mark[i, j], ha="center", va="center", fontsize=6)
        labels = [W.METRICS[m][0] for m in ms]
        ax.set_xticks(range(len(ms)), labels, rotation=90, fontsize=5)
        ax.set_yticks(range(len(ms)), labels, fontsize=5)
        ax.set_title(f"{world}: row minus column", fontsize=7)
    fig.tight_layout()
    return fig
