"""AUC against sklearn.metrics.roc_auc_score (issue: compendium foundation)."""

import numpy as np
from harness import Case
from sklearn import metrics as skm

from offline_eval.metrics import roc_auc_score


def _data(n, distinct, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.01).astype(np.int8)
    if distinct is None:
        s = rng.random(n) + 0.3 * y
    else:
        s = np.floor(rng.random(n) * distinct + 0.8 * y).clip(0, distinct - 1) / distinct
    return y, s


def cases(quick):
    sizes = [10**5] if quick else [10**6, 10**7]
    out = []
    for n in sizes:
        for distinct, label in ((None, "continuous scores"), (5, "5 distinct scores")):
            out.append(
                Case(
                    name=f"auc, {label}, 1% positives",
                    n=n,
                    setup=lambda n=n, d=distinct: _data(n, d),
                    ours=roc_auc_score,
                    peer=skm.roc_auc_score,
                    peer_name="sklearn.metrics.roc_auc_score",
                    max_ratio=0.5,
                    same=lambda a, b: abs(a - b) <= 1e-12,
                )
            )
    return out
