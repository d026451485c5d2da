"""Joint distributions and online adaptive metrics against scikit-learn (issue: piovano OAM).

* ``joint_distribution(b, c)`` (counts) against ``sklearn.metrics.confusion_matrix`` -- the same
  K x K table of (B, C) pairs;
* ``online_adaptive_metrics`` with the live sample equal to the offline one -- then the OAM *are* the
  offline metrics -- against ``precision_recall_fscore_support`` + ``accuracy_score`` for both models.
  Ours also reads the live sample (2x the data) and still must be at least 2x faster.
"""

import numpy as np
from harness import Case
from sklearn.metrics import accuracy_score, confusion_matrix, precision_recall_fscore_support

from offline_eval.adaptive import joint_distribution, online_adaptive_metrics


def _data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, k, n)
    b = np.where(rng.random(n) < 0.6, g, rng.integers(0, k, n))
    c = np.where(rng.random(n) < 0.8, g, rng.integers(0, k, n))
    return b, c, g


def _oam(b, c, g, k):
    r = online_adaptive_metrics(b, c, g, b, c, n_classes=k)
    return [(getattr(r, m).accuracy, getattr(r, m).precision, getattr(r, m).recall) for m in ("baseline", "candidate")]


def _sklearn(b, c, g, k):
    labels = np.arange(k)
    out = []
    for h in (b, c):
        p, r, _, _ = precision_recall_fscore_support(g, h, labels=labels, average=None, zero_division=np.nan)
        out.append((accuracy_score(g, h), p, r))
    return out


def _same_metrics(a, b):
    return all(abs(x[0] - y[0]) <= 1e-12 and np.allclose(x[1], y[1], atol=1e-12) and np.allclose(x[2], y[2], atol=1e-12)
               for x, y in zip(a, b))


def cases(quick):
    sizes = [10**5] if quick else [10**6, 10**7]
    out = []
    for n in sizes:
        for k in (10, 50):
            out.append(Case(
                name=f"joint_distribution (counts), K={k}", n=n,
                setup=lambda n=n, k=k: (*_data(n, k)[:2], k),
                ours=lambda b, c, k: joint_distribution(b, c, n_classes=k, normalize=False),
                peer=lambda b, c, k: confusion_matrix(b, c, labels=np.arange(k)),
                peer_name="sklearn.metrics.confusion_matrix", max_ratio=0.5,
                same=lambda x, y: np.array_equal(x, y)))
            out.append(Case(
                name=f"online_adaptive_metrics, live = offline, K={k}", n=n,
                setup=lambda n=n, k=k: (*_data(n, k), k),
                ours=_oam, peer=_sklearn,
                peer_name="sklearn precision_recall_fscore_support + accuracy_score (x2 models)", max_ratio=0.5,
                same=_same_metrics, note="ours reads offline and live (2n labels each model)"))
    return out
