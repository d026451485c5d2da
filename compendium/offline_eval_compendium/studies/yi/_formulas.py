"""yi's formulas written out directly, beside the library's implementations (shared by the yi studies).

Each check draws random inputs (``rng``), computes the paper's formula the obvious, slow way, and
returns one row: the formula, where the paper states it, how many inputs, the largest absolute
difference from the library (0 below :data:`NOISE`), and whether it stays within the stated tolerance.  The studies turn
these rows into ``formula`` claims (world ``paper``: the paper's own formula, checked numerically).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from offline_eval import auction as au
from offline_eval.metrics import (mean_absolute_error, mean_squared_error, normalized_mean_squared_error, prediction_error,
                        rig_score, roc_auc_score)

__all__ = ["TOL", "auc_formula_rows", "auction_formula_rows", "metric_formula_rows"]

#: Largest absolute difference accepted between the library and the direct formula (floating point only).
TOL = 1e-12
#: Differences below this are floating-point rounding, whose last bits differ between CPUs: written as 0 so that
#: the table's bytes do not depend on the machine.
NOISE = 1e-14


def _row(formula, source, n, diffs, tol=TOL, **extra):
    worst = float(np.max(diffs)) if len(diffs) else float("nan")
    return dict(formula=formula, source=source, n_inputs=int(n), max_abs_diff=0.0 if worst < NOISE else worst,
                tolerance=tol, holds=bool(len(diffs) and worst <= tol), **extra)


def _labels_scores(rng, n, *, ties):
    y = (rng.random(n) < rng.uniform(0.05, 0.5)).astype(np.int8)
    y[:2] = (0, 1)  # both classes present
    s = rng.random(n)
    if ties:
        s = np.round(s, 1)  # many tied scores, as in a binned table
    return y, s


def trapezoid_auc(y, s) -> float:
    """yi Section 4.1's recipe: sort by descending score, TPR and FPR at each distinct score, trapezoids."""
    order = sorted(range(len(s)), key=lambda i: -s[i])
    pos, neg = int(sum(y)), len(y) - int(sum(y))
    tp = fp = 0
    tpr, fpr = [0.0], [0.0]
    for k, i in enumerate(order):
        tp += int(y[i])
        fp += 1 - int(y[i])
        if k + 1 == len(order) or s[order[k + 1]] != s[i]:  # a point per distinct predicted value
            tpr.append(tp / pos)
            fpr.append(fp / neg)
    return sum((fpr[j] - fpr[j - 1]) * (tpr[j] + tpr[j - 1]) / 2 for j in range(1, len(tpr)))


def auc_formula_rows(rng, *, n_draws=200, n=300) -> pd.DataFrame:
    """Section 4.1 (the AUC recipe, its bounds, 0.5 for random and 1 for perfect predictions) and Section 5.1
    (AUC ignores rank-preserving transformations), on ``n_draws`` random data sets of ``n`` rows."""
    rng = np.random.default_rng(rng)
    recipe, bounds, perfect, constant, monotone, rand = [], [], [], [], [], []
    for d in range(n_draws):
        y, s = _labels_scores(rng, n, ties=d % 2 == 0)
        auc = roc_auc_score(y, s)
        recipe.append(abs(auc - trapezoid_auc(y.tolist(), s.tolist())))
        bounds.append(max(0.0, -auc, auc - 1))
        perfect.append(abs(roc_auc_score(y, y + 0.5 * s) - 1.0))
        constant.append(abs(roc_auc_score(y, np.full(n, 0.3)) - 0.5))
        monotone.append(abs(roc_auc_score(y, 1 / (1 + np.exp(-8 * s))) - auc))
        rand.append(roc_auc_score(y, rng.random(n)))
    rand = np.asarray(rand)
    se = float(rand.std(ddof=1) / np.sqrt(len(rand)))
    return pd.DataFrame([
        _row("AUC by the recipe of Section 4.1 (sort descending, TPR/FPR per predicted value, trapezoids)",
             "Section 4.1", n_draws, recipe),
        _row("0 <= AUC <= 1", "Section 4.1", n_draws, bounds, tol=0.0),
        _row("AUC = 1 for perfect predictions (every click scored above every no-click)", "Section 4.1", n_draws,
             perfect),
        _row("AUC = 0.5 for a constant prediction (every pair tied)", "Section 4.1", n_draws, constant),
        _row("AUC = 0.5 in expectation for random predictions: |mean AUC - 0.5| <= 3 standard errors",
             "Section 4.1", n_draws, [abs(float(rand.mean()) - 0.5)], tol=3 * se),
        _row("AUC unchanged by a rank-preserving transformation of the scores", "Section 5.1", n_draws, monotone),
    ])


def metric_formula_rows(rng, *, n_draws=200, n=300) -> pd.DataFrame:
    """eq. (2) RIG, Section 4.3 MSE and NMSE, Section 4.4 MAE and Section 4.5 PE written out, beside the library."""
    rng = np.random.default_rng(rng)
    diffs = {k: [] for k in ("rig", "mse", "nmse", "mae", "pe")}
    for _ in range(n_draws):
        c, _ = _labels_scores(rng, n, ties=False)
        p = np.clip(rng.beta(1.0, 6.0, n), 1e-6, 1 - 1e-6)
        g = c.mean()
        logloss = np.mean(-c * np.log(p) - (1 - c) * np.log(1 - p))
        entropy = -g * np.log(g) - (1 - g) * np.log(1 - g)
        mse = np.sum(c * (1 - p) ** 2 + (1 - c) * p ** 2) / n
        diffs["rig"].append(abs(rig_score(c, p) - (1 - logloss / entropy)))
        diffs["mse"].append(abs(mean_squared_error(c, p) - mse))
        diffs["nmse"].append(abs(normalized_mean_squared_error(c, p) - mse / (g * (1 - g))))
        diffs["mae"].append(abs(mean_absolute_error(c, p) - np.mean(np.abs(p - c))))
        diffs["pe"].append(abs(prediction_error(c, p) - (np.mean(p) / g - 1)))
    return pd.DataFrame([
        _row("RIG = 1 - log loss / Entropy(CTR)", "eq. (2)", n_draws, diffs["rig"]),
        _row("MSE = sum(c (1 - p)^2 + (1 - c) p^2) / n", "Section 4.3", n_draws, diffs["mse"]),
        _row("NMSE = MSE / (CTR (1 - CTR))", "Section 4.3", n_draws, diffs["nmse"]),
        _row("MAE = mean |p - c|", "Section 4.4", n_draws, diffs["mae"]),
        _row("PE = avg(p) / CTR - 1", "Section 4.5", n_draws, diffs["pe"]),
    ])


def auction_formula_rows(rng, *, n_auctions=2000, n_candidates=8, alphas=(0.5, 1.0, 1.5, 2.0)) -> pd.DataFrame:
    """eq. (1) (rank score b p^alpha, ads in its descending order) and the GSP price of Section 2.1
    (c_i = b_{i+1} p_{i+1}^alpha / p_i^alpha), written out per auction, beside :func:`offline_eval.auction.allocate`
    (no reserves and a slot for every candidate, as the paper states the price)."""
    rng = np.random.default_rng(rng)
    rank, order, price = [], [], []
    for alpha in alphas:
        b = rng.lognormal(0.0, 1.0, (n_auctions, n_candidates))
        p = rng.uniform(0.001, 0.2, (n_auctions, n_candidates))
        a = au.allocate(b, p, alpha=alpha, n_mainline=3, n_sidebar=n_candidates - 3)
        for i in range(n_auctions):
            r = [b[i, j] * p[i, j] ** alpha for j in range(n_candidates)]
            ranked = sorted(range(n_candidates), key=lambda j: -r[j])
            order.append(float(list(a.ranked[i]) != ranked))
            rank.append(max(abs(a.rank_score[i, k] - r[j]) / r[j] for k, j in enumerate(ranked)))
            for k, j in enumerate(ranked):
                nxt = ranked[k + 1] if k + 1 < n_candidates else None
                c = 0.0 if nxt is None else b[i, nxt] * p[i, nxt] ** alpha / p[i, j] ** alpha
                price.append(abs(a.cpc[i, k] - c) / b[i, j])
    n = n_auctions * len(alphas)
    return pd.DataFrame([
        _row("rank score r = b p^alpha (relative difference)", "eq. (1)", n, rank),
        _row("ads allocated in descending order of r (share of auctions ordered otherwise)", "eq. (1)", n, order,
             tol=0.0),
        _row("GSP price c_i = b_{i+1} p_{i+1}^alpha / p_i^alpha (difference relative to the bid)", "Section 2.1", n,
             price),
    ])
