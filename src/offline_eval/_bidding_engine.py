"""The engine behind :mod:`offline_eval.bidding`: the expected utility's closed form and Algorithm 1's coefficients.

A private module: its functions take validated float arrays (the public functions of
:mod:`offline_eval.bidding` check their inputs once) and return per-row values or matrices.  The names
carry no underscore because :mod:`offline_eval.bidding` uses them.

* :func:`eu_rows` -- eq. (3) per row (or summed) by one incomplete gamma per row, with the tiny-beta series;
* :func:`eu_rows_by_action` -- eq. (3) of each row at ``a = 0`` and at ``a = 1`` from the same incomplete
  gamma (an average over the click needs both; computing them apart evaluates it twice);
* :func:`pearson` and :func:`kendall_b` -- Algorithm 1's coefficients of every metric with every trial.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from .ranking._pairs import pair_counts

__all__ = ["BLOCK", "PAIR_MATRIX_CELLS", "eu_rows", "eu_rows_by_action", "eu_rows_core", "eu_rows_tiny_beta", "kendall_b",
           "kendall_b_counts", "log_poisson_term", "pearson"]


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def log_poisson_term(s, x):
    """``log(x^s e^{-x} / Gamma(s + 1))`` for ``s >= 1``, ``x >= 0``, without cancellation.

    For large ``s`` the three terms of the naive form are each ~``s log x``
    and cancel; Stirling's series with ``log1p`` keeps the result accurate:
    ``-s (u - log1p(u)) - log(2 pi s)/2 - stirlerr(s)``, ``u = (x - s)/s``.
    """
    small = s < 10.0
    n_small = int(np.count_nonzero(small))
    with np.errstate(divide="ignore", invalid="ignore"):
        # the branch of most rows on every row (beta sets the shapes' scale, so most rows share one), then the
        # other rows gathered and overwritten: each row's value is its own branch's, without gathering them all
        if 2 * n_small >= small.size:
            out = _log_poisson_small(s, x)
            other = ~small
            if n_small < small.size:
                out[other] = _log_poisson_stirling(s[other], x[other])
        else:
            out = _log_poisson_stirling(s, x)
            if n_small:
                out[small] = _log_poisson_small(s[small], x[small])
    return out


def _log_poisson_small(s, x):
    return special.xlogy(s, x) - x - special.gammaln(s + 1.0)


def _log_poisson_stirling(s, x):
    u = (x - s) / s
    r = (1.0 / s) ** 2
    # Stirling's error term lgamma(s+1) - (s log s - s + log(2 pi s)/2), truncation < 1e-14 for s >= 10
    stirlerr = (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 - r * (1.0 / 1680 - r / 1188)))) / s
    return -s * (u - np.log1p(u)) - 0.5 * np.log(s) - _HALF_LOG_2PI - stirlerr


BLOCK = 1 << 15
# Below this beta, x = beta p v can be so small that Q ~ x^2 / 2 underflows
# while EU ~ beta p v^2 is still representable; those rows use the series.
_TINY_BETA = 1e-100
_TINY_LOG_X = -345.0  # x < 1e-150


def eu_rows_tiny_beta(a, v, p, c, beta, *, total):
    eu = eu_rows_core(a, v, p, c, beta, total=False)
    with np.errstate(divide="ignore"):
        log_pv = np.log(p) + np.log(v)
    tiny = np.flatnonzero(np.isfinite(log_pv) & (math.log(beta) + log_pv < _TINY_LOG_X))
    if tiny.size:
        # x < 1e-150: e^-x = 1 and P(s, x) = x^s / Gamma(s + 1) to double precision, so
        # (alpha/beta) Q = alpha beta^alpha (pv)^(alpha+1) / Gamma(alpha + 2), in log space.
        alpha = c[tiny] * beta + 1.0
        lpv = log_pv[tiny]
        lb = math.log(beta)
        q_term = np.exp(np.log(alpha) + alpha * lb + (alpha + 1.0) * lpv - special.gammaln(alpha + 2.0))
        d_term = np.exp(alpha * (lb + lpv) - special.gammaln(alpha + 1.0))
        eu[tiny] = a[tiny] * v[tiny] * d_term - q_term
    return float(eu.sum()) if total else eu


def eu_rows(a, v, p, c, beta, *, total=False):
    if beta < _TINY_BETA:
        return eu_rows_tiny_beta(a, v, p, c, beta, total=total)
    return eu_rows_core(a, v, p, c, beta, total=total)


def eu_rows_core(a, v, p, c, beta, *, total=False):
    """Per-row EU (or their sum) by the one-incomplete-gamma closed form.

    ``EU = -(c + 1/beta) Q + a v (Q + D)`` with ``Q = P(beta c + 2, x)``,
    ``D = x^alpha e^-x / Gamma(alpha + 1)``, ``alpha = beta c + 1``,
    ``x = beta p v`` (see the Notes of :func:`offline_eval.bidding.expected_utility_per_row`).
    """
    n = len(v)
    hit = np.flatnonzero(a)
    # The a = 1 rows (a few percent in ad logs) also need D, computed once here.
    vh = v[hit]
    xh = p[hit] * vh * beta
    dh = np.exp(log_poisson_term(c[hit] * beta + 1.0, xh))
    bounds = np.searchsorted(hit, np.arange(0, n + BLOCK, BLOCK))
    # Blocks small enough for the temporaries to stay in cache: at 1e7 rows,
    # whole-array temporaries make the arithmetic memory-bound and cost about
    # as much as the incomplete gamma itself.
    m = min(n, BLOCK)
    x = np.empty(m)
    shape = np.empty(m)
    out = np.empty(m) if total else np.empty(n)
    acc = 0.0
    for b, lo in enumerate(range(0, n, BLOCK)):
        hi = min(lo + BLOCK, n)
        k = hi - lo
        xb, q = x[:k], shape[:k]
        dest = out[:k] if total else out[lo:hi]
        np.multiply(p[lo:hi], v[lo:hi], out=xb)
        xb *= beta
        np.multiply(c[lo:hi], beta, out=q)
        q += 2.0
        special.gammainc(q, xb, out=q)
        np.subtract(-1.0 / beta, c[lo:hi], out=dest)
        dest *= q
        h0, h1 = bounds[b], bounds[b + 1]
        if h1 > h0:
            loc = hit[h0:h1] - lo
            dest[loc] += vh[h0:h1] * (q[loc] + dh[h0:h1])
        if total:
            acc += float(dest.sum())
    return acc if total else out


def eu_rows_by_action(v, p, c, beta):
    """Per-row EU at ``a = 0`` and at ``a = 1``, shape (2, n), with one incomplete gamma per row.

    ``EU = -(c + 1/beta) Q + a v (Q + D)`` is affine in ``a`` (:func:`eu_rows_core`): both values share
    ``Q`` and ``D``.  Row 0 equals ``eu_rows(zeros, v, p, c, beta)`` and row 1 ``eu_rows(ones, v, p, c, beta)``
    bit for bit: the same operations on the same operands, in the same order.
    """
    n = len(v)
    if beta < _TINY_BETA:  # the series of eu_rows_tiny_beta patches rows per action: evaluate each action
        return np.stack([eu_rows(np.zeros(n, dtype=np.int8), v, p, c, beta),
                         eu_rows(np.ones(n, dtype=np.int8), v, p, c, beta)])
    out = np.empty((2, n))
    for lo in range(0, n, BLOCK):  # blocks for the cache, as in eu_rows_core
        hi = min(lo + BLOCK, n)
        vb, cb = v[lo:hi], c[lo:hi]
        x = p[lo:hi] * vb
        x *= beta
        q = cb * beta
        q += 2.0
        special.gammainc(q, x, out=q)
        e0 = out[0, lo:hi]
        np.subtract(-1.0 / beta, cb, out=e0)
        e0 *= q
        q += np.exp(log_poisson_term(cb * beta + 1.0, x))  # Q + D
        q *= vb
        np.add(e0, q, out=out[1, lo:hi])
    return out



def pearson(x, y):
    # x: (m, n) or (n,), y: (t, n) -> (m, t)
    xc = x - x.mean(axis=-1, keepdims=True)
    yc = y - y.mean(axis=-1, keepdims=True)
    num = xc @ yc.T
    den = np.sqrt((xc * xc).sum(-1))[:, None] * np.sqrt((yc * yc).sum(-1))[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(num / den, -1.0, 1.0)


#: Above this many (rows x pairs) entries the pair matrices of `kendall_b` would not fit in a
#: modest memory, and the O(n log n) pair counts are used instead (the same integers, the same bits).
PAIR_MATRIX_CELLS = 1 << 23


def kendall_b(x, y):
    # Tau-b over all pairs: sum sign(dx) sign(dy) / sqrt(n0 - n_x)(n0 - n_y),
    # pairs tied in x or y count zero in the numerator (scipy's tau-b).
    n = x.shape[-1]
    if (x.shape[0] + y.shape[0]) * (n * (n - 1) // 2) > PAIR_MATRIX_CELLS:
        return kendall_b_counts(x, y)
    iu = np.triu_indices(x.shape[-1], k=1)
    sx = np.sign(x[:, iu[0]] - x[:, iu[1]])
    sy = np.sign(y[:, iu[0]] - y[:, iu[1]])
    num = sx @ sy.T
    den = np.sqrt(np.abs(sx).sum(-1))[:, None] * np.sqrt(np.abs(sy).sum(-1))[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(num / den, -1.0, 1.0)


def kendall_b_counts(x, y):
    """:func:`kendall_b` from O(n log n) pair counts, for many networks (no n^2 pair matrices).

    The numerator ``C - D`` and the untied pair counts are the same integers as the matrix form's, and
    the float operations on them are the same, so the result has the same bits.
    """
    n = x.shape[-1]
    pairs = n * (n - 1) // 2
    untied_x = [pairs - int(np.sum(pair_counts(row, row).ey)) // 2 for row in x]
    untied_y = [pairs - int(np.sum(pair_counts(row, row).ey)) // 2 for row in y]
    sx = np.sqrt(np.asarray(untied_x, dtype=np.float64))
    sy = np.sqrt(np.asarray(untied_y, dtype=np.float64))
    num = np.empty((x.shape[0], y.shape[0]))
    for i, row in enumerate(x):
        for j, col in enumerate(y):
            c = pair_counts(row, col)
            s = (2 * (int(c.A.sum()) + int(c.B.sum())) - n * (n - 1) if not (c.ties_y or c.ties_m)
                 else int(c.concordant.sum()) - int(c.discordant.sum()))
            num[i, j] = s // 2
    den = sx[:, None] * sy[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip(num / den, -1.0, 1.0)


