"""Ranking-based evaluation (rosset) against one scipy.stats.kendalltau call on the same data (issue 4).

Targets at n = 1e6 (time ours / time of one ``kendalltau``): tau + eq. 6
variance <= 2.5, per-observation concordance counts <= 2.5, the AUC of all
n - 1 cutoffs <= 5, the exact leave-one-out influence search <= 5.  For
contrast, the naive algorithms are timed at a small n; their cost grows as
n^2 (concordance by pairs) and n^2 log n (leave-one-out with n kendalltau
calls), so the note gives the factor that extrapolates them to 1e6.
"""

import numpy as np
from harness import Case
from scipy.stats import kendalltau

from offline_eval import ranking as rk

BIG = 10**6


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.lognormal(sigma=1.5, size=n)
    m = np.log(y) + rng.normal(scale=1.5, size=n)
    return y, m


def _tau(r):
    return r.statistic if hasattr(r, "statistic") else r[0]


def _same_tau(ours, peer):
    return abs(ours - _tau(peer)) <= 1e-12


def _naive_counts(y, m, block=500):
    """O(n^2) concordance counts by blocks of pairwise comparisons (the obvious vectorised code)."""
    out = np.empty(len(y))
    for s in range(0, len(y), block):
        d = np.sign(y[s : s + block, None] - y[None, :]) * np.sign(m[s : s + block, None] - m[None, :])
        out[s : s + block] = (d > 0).sum(axis=1) + 0.5 * (d == 0).sum(axis=1) - 0.5
    return out


def _naive_loo_tau(y, m):
    """The paper's exhaustive search: kendalltau without each observation in turn."""
    full = _tau(kendalltau(y, m))
    keep = np.ones(len(y), dtype=bool)
    best, best_i = -1.0, -1
    for i in range(len(y)):
        keep[i] = False
        gap = abs(_tau(kendalltau(y[keep], m[keep])) - full)
        keep[i] = True
        if gap > best:
            best, best_i = gap, i
    return best_i


def cases(quick):
    n = 10**5 if quick else BIG
    rows = [
        Case(
            name="tau-b + its variance + CI + p-value (kendall_tau_test) vs one kendalltau",
            n=n, setup=lambda: _data(n), ours=lambda y, m: rk.kendall_tau_test(y, m).statistic,
            peer=kendalltau, peer_name="scipy.stats.kendalltau", max_ratio=2.5, same=_same_tau,
        ),
        Case(
            name="concordance_counts C_i (all n) vs one kendalltau",
            n=n, setup=lambda: _data(n),
            ours=lambda y, m: 2 * rk.concordance_counts(y, m).sum() / (len(y) * (len(y) - 1.0)) - 1,
            peer=kendalltau, peer_name="scipy.stats.kendalltau", max_ratio=2.5,
            same=lambda a, b: abs(a - _tau(b)) <= 1e-12, note="checked through tau-a = 2 sum C_i / (n(n-1)) - 1",
        ),
        Case(
            name="cutoff_auc: AUC_i of all n - 1 cutoffs vs one kendalltau",
            n=n, setup=lambda: _data(n), ours=lambda y, m: rk.cutoff_auc(y, m).auc,
            peer=kendalltau, peer_name="scipy.stats.kendalltau", max_ratio=5.0,
            note="exactness of every AUC_i against roc_auc_score is in tests/library/test_ranking.py",
        ),
        Case(
            name="most_influential tau: exact leave-one-out of all n vs one kendalltau",
            n=n, setup=lambda: _data(n), ours=lambda y, m: rk.most_influential(y, m, measure="tau").index,
            peer=kendalltau, peer_name="scipy.stats.kendalltau", max_ratio=5.0,
        ),
        Case(
            name="most_influential rho: exact leave-one-out of all n vs one kendalltau",
            n=n, setup=lambda: _data(n), ours=lambda y, m: rk.most_influential(y, m, measure="rho").index,
            peer=kendalltau, peer_name="scipy.stats.kendalltau", max_ratio=5.0,
        ),
    ]
    n_pairs = 2000 if quick else 10_000
    rows.append(
        Case(
            name="naive O(n^2) concordance counts (blocked NumPy pairs), for contrast",
            n=n_pairs, setup=lambda: _data(n_pairs), ours=_naive_counts, repeat=1,
            note=f"O(n^2): x{(BIG / n_pairs) ** 2:,.0f} to extrapolate to n = 1e6",
        )
    )
    n_loo = 500 if quick else 2000
    scale = (BIG / n_loo) ** 2 * np.log(BIG) / np.log(n_loo)
    rows.append(
        Case(
            name="naive leave-one-out search for tau (n kendalltau calls), for contrast",
            n=n_loo, setup=lambda: _data(n_loo), ours=_naive_loo_tau, repeat=1,
            note=f"O(n^2 log n): x{scale:,.0f} to extrapolate to n = 1e6",
        )
    )
    return rows
