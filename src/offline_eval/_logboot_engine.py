"""The engines of :mod:`offline_eval.logboot`: per-cluster sums, every metric of every resample of one model
from them, the jackknife over clusters, and the BCa quantiles and p-values of the intervals."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import ndtr, ndtri

from ._losses import pointwise_log_loss
from ._sorting import sorted_order


#: A replicate within this relative distance of the statistic counts as tied with it in BCa's bias
#: correction: sums in another order can move a replicate equal to the statistic by a few ulps.
TIE_RTOL = 1e-12


# -- engines -------------------------------------------------------------------------------------------
#: Runs of the smaller class per chunk of the AUC's products: a fixed number, so that no sum's order depends on
#: the block of resamples, the number of threads or the machine.
RUN_CHUNK = 1 << 13

#: Clusters per chunk of the per-cluster sums' products (a fixed number, as :data:`RUN_CHUNK`; their float64
#: weights stay in cache while each column reads them).
CLUSTER_CHUNK = 1 << 12

_INT16_MAX = 32767


class ClusterSums:
    """Per-cluster weight, clicks and non-clicks (shared by the models), and the columns the models add.

    ``columns()`` stacks them as ``(c, G)`` sparse chunks of :data:`CLUSTER_CHUNK` clusters; ``totals(W)``
    gives their resampled totals ``(c, B)`` for cluster weights ``W`` of shape ``(G, B)``, each total summed
    over the clusters in one fixed order (sparse products: no BLAS, no dependence on SIMD or threads).
    """

    def __init__(self, y, w, g, n_clusters):
        self.g, self.n_clusters = g, n_clusters
        self.w = np.bincount(g, weights=w, minlength=n_clusters)
        self.wy = np.bincount(g, weights=w * y, minlength=n_clusters)
        # the negatives' weight summed directly, never as w - wy: a difference of totals loses the small class
        self.wn = np.bincount(g, weights=w * (1.0 - y), minlength=n_clusters)
        self.cols = [self.w, self.wy, self.wn]
        self._chunks = None

    def add(self, col) -> int:
        """Add a column (``None``: zeros); its row in :meth:`totals`."""
        self.cols.append(np.zeros(self.n_clusters) if col is None else col)
        self._chunks = None
        return len(self.cols) - 1

    def totals(self, W) -> np.ndarray:
        # integer weights (int16 W): the total weight is the clicks' plus the non-clicks', both exact integers
        derive = W.dtype == np.int16
        if self._chunks is None or self._chunks[0] != derive:
            C = np.vstack(self.cols[1:] if derive else self.cols)
            self._chunks = (derive, [sparse.csr_matrix(C[:, c0:c0 + CLUSTER_CHUNK])
                                     for c0 in range(0, self.n_clusters, CLUSTER_CHUNK)])
        out = np.zeros((len(self.cols), W.shape[1]))
        part = out[1:] if derive else out
        for i, Cc in enumerate(self._chunks[1]):
            c0 = i * CLUSTER_CHUNK
            part += Cc @ W[c0:c0 + Cc.shape[1]].astype(np.float64, copy=False)
        if derive:
            np.add(out[1], out[2], out=out[0])
        return out


def integer_weights(w) -> int:
    """The largest row weight when every weight is an integer small enough for the AUC's int16 products
    (times the largest Poisson weight within int16, the total within 2^31 / 12), else 0."""
    from ._logboot_weights import MAX_WEIGHT

    top = float(w.max(initial=0.0))
    if top < 1 or top * MAX_WEIGHT > _INT16_MAX or float(w.sum()) * MAX_WEIGHT >= 2.0**31:
        return 0
    return int(top) if bool((w == np.floor(w)).all()) else 0


def _sub_rows(keys, cols, data, n_cols, cap, dtype):
    """The CSR matrix of entries ``(keys, cols, data)`` (``keys`` nondecreasing), a row per key cut into rows
    of at most ``cap`` entries (``None``: no cut), and the key of each of its rows."""
    n = len(keys)
    new = np.r_[True, keys[1:] != keys[:-1]] if n else np.zeros(0, bool)
    if cap is not None and n:
        idx = np.arange(n)
        first = np.maximum.accumulate(np.where(new, idx, 0))
        piece = (idx - first) // cap
        new = new | np.r_[True, piece[1:] != piece[:-1]]
    starts = np.flatnonzero(new)
    idx_t = np.int32 if n_cols < 2**31 else np.int64
    m = sparse.csr_matrix((data.astype(dtype), cols.astype(idx_t), np.append(starts, n)),
                          shape=(len(starts), n_cols))
    return m, keys[starts]


class ModelEngine:
    """Everything one model needs to give its metrics for any matrix of cluster weights.

    ``int_top``: the largest row weight when every row weight is a small integer (:func:`integer_weights`):
    the AUC's products then run on int16 weights and every sum is an exact integer; 0: float64 throughout.
    """

    def __init__(self, y, s, w, g, n_clusters, sums, metrics, eps, int_top=0, *, add_columns=True):
        self.metrics, self.sums, self.n_clusters = metrics, sums, n_clusters
        self.y, self.s, self.w, self.g = y, s, w, g
        self.int_top = int_top
        loss = "log_loss" in metrics or "rig_score" in metrics
        self._cols = [np.bincount(g, weights=w * pointwise_log_loss(y, s, eps), minlength=n_clusters) if loss else None,
                      np.bincount(g, weights=w * s, minlength=n_clusters) if "calibration_ratio" in metrics else None]
        self.rows = None
        if add_columns:
            self.add_columns()
        self.width = 0
        if "roc_auc_score" in metrics:
            self._auc_setup()

    def add_columns(self):
        """Append this model's per-cluster columns to the shared sums (in the models' order: call it in turn)."""
        self.rows = [0, 1, 2] + [self.sums.add(c) for c in self._cols]
        self._cols = None

    # the AUC as sparse products (module notes), in chunks of RUN_CHUNK runs of the smaller class
    def _auc_setup(self):
        y, s, w, g = self.y, self.s, self.w, self.g
        if 2 * y.sum() > len(y):  # the smaller class indexes the slots; AUC(y, s) = AUC(1 - y, -s)
            y, s = 1.0 - y, -s
        o, so = sorted_order(s, with_values=True)  # (score, row) order: every later sum in one order on any machine
        small = y[o] == 1
        go = g[o].astype(np.int32 if self.n_clusters < 2**31 else np.int64)
        wo = None if self.int_top == 1 and bool((w == 1).all()) else w[o]
        self._sorted = (so, small, go, wo)
        # the positives' runs of equal scores k = 0..K-1; a larger-class row scoring between runs k - 1 and k
        # sits at slot 2k (outscored by Suf_k), one tied with run k at slot 2k + 1 (Suf_{k+1} + V_k / 2);
        # slot 2K (above every positive) adds nothing and is left out
        new = np.empty(len(so), bool)
        new[:1] = True
        np.not_equal(so[1:], so[:-1], out=new[1:])
        run = np.cumsum(new) - 1  # run of equal scores of each sorted row
        pidx, nidx = np.flatnonzero(small), np.flatnonzero(~small)
        has_pos = np.bincount(run[pidx], minlength=int(run[-1]) + 1 if len(run) else 0) > 0
        pos_runs_before = np.concatenate(([0], np.cumsum(has_pos)))
        K = int(pos_runs_before[-1])
        rn = run[nidx]
        slot = 2 * pos_runs_before[rn] + has_pos[rn]
        pr = pos_runs_before[run[pidx]]  # the run of each positive, nondecreasing
        del rn, run
        keep = int(np.searchsorted(slot, 2 * K))  # slots nondecreasing: those below 2K come first
        ns, nidx = slot[:keep], nidx[:keep]
        # int16 products: a row of the slot matrices holds at most cap entries, so no sum exceeds int16
        dtype = np.int16 if self.int_top else np.float64
        cap = _INT16_MAX // (12 * self.int_top) if self.int_top else None
        ones = np.ones(len(so), dtype) if wo is None else wo
        self.chunks = []
        na = np.searchsorted(ns, 2 * np.arange(0, K + RUN_CHUNK, RUN_CHUNK))
        pa = np.searchsorted(pr, np.arange(0, K + RUN_CHUNK, RUN_CHUNK))
        for i, k0 in enumerate(range(0, K, RUN_CHUNK)):
            k1 = min(K, k0 + RUN_CHUNK)
            rows = nidx[na[i]:na[i + 1]]
            M, m_slot = _sub_rows(ns[na[i]:na[i + 1]] - 2 * k0, go[rows], ones[rows], self.n_clusters, cap, dtype)
            rows = pidx[pa[i]:pa[i + 1]]
            P, p_run = _sub_rows(pr[pa[i]:pa[i + 1]] - k0, go[rows], ones[rows], self.n_clusters, cap, dtype)
            split = len(p_run) > k1 - k0
            p_starts = np.flatnonzero(np.r_[True, p_run[1:] != p_run[:-1]]) if split else None
            self.chunks.append((k1 - k0, M, m_slot, P, p_starts))
        self.width = 1

    def _auc_numerator(self, W):
        """The AUC numerator of every column of the cluster weights ``W`` (G, B): int16 with integer row
        weights (twice the numerator summed exactly in int64), else float64."""
        B = W.shape[1]
        exact = self.int_top > 0
        acc = np.int64 if exact else np.float64
        # exact: a positives' weight fits int32 (integer_weights bounds the total weight by 2^31 / 12)
        run_acc = np.int32 if exact else np.float64
        num = np.zeros(B, acc)
        carry = np.zeros(B, run_acc)  # Suf at the chunk's top: the positives' weight of the chunks above
        for nk, M, m_slot, P, p_starts in reversed(self.chunks):
            V = P @ W  # (nk, B) the positives' weight per run (per part of a run, then summed)
            if p_starts is not None:
                V = np.add.reduceat(V, p_starts, axis=0, dtype=run_acc)
            # Suf_k = sum_{l >= k} V_l, summed directly (never T - a prefix), along contiguous rows of resamples
            # (NumPy's cumulative sum down a column is several times slower; the same order, the same bits)
            acc_t = np.ascontiguousarray(V[::-1].T, dtype=run_acc)
            np.cumsum(acc_t, axis=1, out=acc_t)
            acc_t += carry[:, None]
            suf = np.empty((nk + 1, B), run_acc)
            suf[-1] = carry
            suf[-2::-1] = acc_t.T
            carry = suf[0].copy()
            F = np.empty((2 * nk, B), acc)  # what outscores slot 2k and 2k + 1 (twice it when exact)
            if exact:
                np.multiply(suf[:-1], 2, out=F[0::2], dtype=acc)
                np.multiply(suf[1:], 2, out=F[1::2], dtype=acc)
                F[1::2] += V
            else:
                F[0::2] = suf[:-1]
                np.multiply(V, 0.5, out=F[1::2])
                F[1::2] += suf[1:]
            D = M @ W  # (rows, B) the larger class's weight per (part of a) slot
            # every term non-negative: nothing cancels; integer sums are exact in any order
            if exact:  # integers: any order gives the same sum
                num += (D * F[m_slot]).sum(axis=0)
            else:  # each resample's products summed along a contiguous row: an order that ignores the block size
                num += np.ascontiguousarray((D * F[m_slot]).T).sum(axis=1)
        return num * 0.5 if exact else num

    def values(self, W, T):
        """Each metric of every column of the cluster weights ``W`` (G, B), given ``T = sums.totals(W)``."""
        t = T[self.rows]
        return metrics_from_sums(self.metrics, *t, lambda: self._auc_numerator(W))

    # leave one cluster out, for BCa's acceleration
    def jackknife(self):
        # the sums without cluster g as the clusters before g plus those after it (no total less a part:
        # a class held by g alone leaves exactly 0, so the metric is undefined, not a leftover of rounding)
        S = np.column_stack([self.sums.cols[r] for r in self.rows])  # (G, 5): w, wy, wn, wloss, wp
        G = S.shape[0]
        pre = np.zeros_like(S)
        np.cumsum(S[:-1], axis=0, out=pre[1:])
        suf = np.zeros_like(S)
        if G > 1:
            np.cumsum(S[:0:-1], axis=0, out=suf[G - 2::-1])
        T = pre + suf  # (G, 5)
        return metrics_from_sums(self.metrics, *T.T,
                                 self._jackknife_auc, clip_auc=False)

    def _jackknife_auc(self):
        so, small, go, wo = self._sorted
        first, end = _runs(so)
        return _auc_leave_one_cluster_out(so, small, go, np.ones(len(so)) if wo is None else wo, first, end,
                                          self.n_clusters)


def metrics_from_sums(metrics, tw, twy, twn, tloss, twp, auc_numerator, *, clip_auc=True) -> dict:
    """Each metric from the summed weight, clicks, non-clicks, log loss and predictions of every resample (arrays).

    ``auc_numerator()`` gives the AUC's weighted count of correctly ordered pairs (ties one half); it is
    called only when the AUC is asked for.  A metric is ``nan`` where it is undefined (no weight, no click,
    one class): the weights of the two classes are summed apart (``twn`` is never ``tw - twy``), so a class
    is absent exactly when its sum is 0.  Shared by the in-memory and the one-pass
    (:mod:`offline_eval.ondask`) bootstraps.
    """
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        tw_ok = np.where(tw > 0, tw, np.nan)
        both = (twy > 0) & (twn > 0)
        for m in metrics:
            if m == "log_loss":
                out[m] = tloss / tw_ok
            elif m == "rig_score":
                g1, g0 = twy / tw_ok, twn / tw_ok  # the CTR and its complement, each from its own sum
                h = -(np.where(twy > 0, g1 * np.log(g1), 0.0) + np.where(twn > 0, g0 * np.log(g0), 0.0))
                out[m] = np.where(both, 1.0 - (tloss / tw_ok) / np.where(both, h, 1.0), np.nan)
            elif m == "calibration_ratio":
                out[m] = np.where(twy > 0, twp / np.where(twy > 0, twy, 1.0), np.nan)
            elif m == "roc_auc_score":
                den = twy * twn
                ratio = auc_numerator() / np.where(den > 0, den, 1.0)
                out[m] = np.where(den > 0, np.clip(ratio, 0.0, 1.0) if clip_auc else ratio, np.nan)
    return out


def _runs(x):
    """For each position of the sorted ``x``: the first index of its run of equal values and the run's end."""
    n = len(x)
    new = np.r_[True, x[1:] != x[:-1]]
    first = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    starts = np.flatnonzero(new)
    end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))
    return first, end


def _stable_order(keys, n_keys):
    """``np.argsort(keys, kind="stable")`` for integer keys in ``[0, n_keys)``, by radix passes of 16 bits
    (numpy's stable sort is a radix sort for 16-bit integers, a merge sort above)."""
    if n_keys <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    order = np.arange(len(keys))
    shift = 0
    while (n_keys - 1) >> shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _auc_leave_one_cluster_out(so, small, go, wo, run_first, run_end, G):
    """The AUC numerator without each cluster, from the rows sorted by score (runs of equal scores given).

    ``num_(-g) = num - (pairs with the positive in g) - (pairs with the negative in g) + (pairs with both in g)``,
    a pair weighing ``w_i w_j`` (one half when tied); ``small`` marks the positives.
    """
    big = ~small
    cn = np.concatenate(([0.0], np.cumsum(wo * big)))
    cpw = np.concatenate(([0.0], np.cumsum(wo * small)))
    nb = cn[run_first] + 0.5 * (cn[run_end] - cn[run_first])  # negatives below, ties one half
    pa = cpw[-1] - cpw[run_end] + 0.5 * (cpw[run_end] - cpw[run_first])  # positives above, ties one half
    num = float(np.sum(wo[small] * nb[small]))
    by_pos = np.bincount(go[small], weights=wo[small] * nb[small], minlength=G)
    by_neg = np.bincount(go[big], weights=wo[big] * pa[big], minlength=G)
    # pairs inside each cluster: the same runs within the rows ordered by (cluster, score)
    o = _stable_order(go, G)
    g2, s2, w2, small2 = go[o], so[o], wo[o], small[o]
    n = len(o)
    idx = np.arange(n)
    new_g = np.r_[True, g2[1:] != g2[:-1]]
    new_run = new_g | np.r_[True, s2[1:] != s2[:-1]]
    g_first = np.maximum.accumulate(np.where(new_g, idx, 0))
    first = np.maximum.accumulate(np.where(new_run, idx, 0))
    starts = np.flatnonzero(new_run)
    end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))
    cn2 = np.concatenate(([0.0], np.cumsum(w2 * ~small2)))
    inside = cn2[first] - cn2[g_first] + 0.5 * (cn2[end] - cn2[first])
    within = np.bincount(g2[small2], weights=w2[small2] * inside[small2], minlength=G)
    return num - by_pos - by_neg + within


# -- intervals and p-values ------------------------------------------------------------------------
def jackknife_acceleration(jack):
    """BCa's acceleration from the jackknife values (Efron & Tibshirani eq. 14.15); 0 when undefined."""
    j = jack[np.isfinite(jack)]
    if len(j) < 3:
        return 0.0
    d = j.mean() - j
    ss = float(np.sum(d * d))
    return float(np.sum(d**3) / (6.0 * ss**1.5)) if ss > 0 else 0.0


def bca_quantiles(r, theta, acc, alpha):
    """BCa's two quantile levels (Efron & Tibshirani eq. 14.10), or ``None`` when the bias correction is infinite."""
    tol = TIE_RTOL * max(abs(theta), 1e-300)
    below = np.sum(r < theta - tol) + 0.5 * np.sum(np.abs(r - theta) <= tol)
    frac = below / len(r)
    if frac <= 0 or frac >= 1:
        return None
    z0 = float(ndtri(frac))
    z = ndtri(np.array([alpha, 1.0 - alpha]))
    return ndtr(z0 + (z0 + z) / (1.0 - acc * (z0 + z)))


def tied_difference(b, a):
    """``b - a``, exactly 0 where ``|b - a| <= TIE_RTOL * max(|a|, |b|)``: two metrics equal but for the order of
    their sums (a replicate of -2e-16) are equal, so that no p-value's side of 0 hinges on the last bits."""
    b, a = np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)
    d = b - a
    with np.errstate(invalid="ignore"):
        tied = np.abs(d) <= TIE_RTOL * np.maximum(np.abs(a), np.abs(b))
    d = np.where(tied, 0.0, d)
    return float(d) if d.ndim == 0 else d


def pvalue_at_zero(r):
    """Two-sided bootstrap p-value of 0: twice the smaller share of replicates on one side of 0, with +1 corrections.

    The smallest ``1 - level`` at which the percentile interval excludes 0, never below ``2 / (B + 1)``.
    """
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan")
    k = min(int(np.sum(r <= 0)), int(np.sum(r >= 0)))
    return float(min(1.0, 2.0 * (k + 1) / (len(r) + 1)))
