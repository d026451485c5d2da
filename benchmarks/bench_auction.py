"""GSP auction simulator (yi Section 2.1): allocation + pricing, vectorised over auctions.

Target (issue 3): >= 1 million auctions per second with 10 candidates per
auction.  The peer is the same auction written with ``np.argsort`` and plain
NumPy (no packed sort key), the obvious vectorised implementation; both must
give the same ranks, slots and prices.
"""

import numpy as np
from harness import Case

from offline_eval.auction import allocate

K = 10
SETTINGS = dict(reserve=0.01, mainline_reserve=0.05, n_mainline=3, n_sidebar=5)


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    bids = rng.lognormal(0.0, 0.6, (n, K)) * (rng.random((n, K)) < 0.8)
    pclick = np.exp(rng.normal(np.log(0.02), 1.0, (n, K))).clip(1e-6, 0.9)
    return bids, pclick


def naive(bids, pclick, *, alpha=1.0, reserve, mainline_reserve, n_mainline, n_sidebar):
    r = bids * pclick**alpha
    order = np.argsort(-r, axis=1, kind="stable")
    rs = np.take_along_axis(r, order, axis=1)
    col = np.arange(K)
    eligible = (rs > 0) & (rs >= reserve)
    ml = eligible & (rs >= mainline_reserve) & (col < n_mainline)
    m = ml.sum(axis=1, keepdims=True)
    sb = eligible & ~ml & (col - m < n_sidebar)
    slot = np.where(ml, col, np.where(sb, n_mainline + col - m, -1))
    nxt = np.concatenate([rs[:, 1:], np.zeros((len(rs), 1))], axis=1)
    floor = np.where(ml, mainline_reserve, reserve)
    p_sorted = np.take_along_axis(pclick, order, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cpc = np.where(ml | sb, np.maximum(nxt, floor) / p_sorted**alpha, 0.0)
    return order, slot, cpc


def _ours(b, p):
    a = allocate(b, p, **SETTINGS)
    return a.ranked, a.slot, a.cpc


def _peer(b, p):
    return naive(b, p, **SETTINGS)


def _same(a, b):
    return bool(np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1]) and np.allclose(a[2], b[2], rtol=1e-12, atol=0))


def cases(quick):
    sizes = [10**5] if quick else [10**6, 4 * 10**6]
    return [
        Case(
            name=f"GSP allocation + pricing, {K} candidates, 3 mainline + 5 sidebar slots",
            n=n,
            setup=lambda n=n: _data(n),
            ours=_ours,
            peer=_peer,
            peer_name="argsort + plain NumPy",
            same=_same,
            items=n,
            min_per_second=1e6,
            note="auctions per second; target >= 1e6/s (issue 3)",
        )
        for n in sizes
    ]
