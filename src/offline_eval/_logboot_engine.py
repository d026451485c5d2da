"""The engines of :mod:`offline_eval.logboot`: per-cluster sums, every metric of every resample of one model
from them, the jackknife over clusters, and the BCa quantiles and p-values of the intervals."""

from __future__ import annotations

import numpy as np
from scipy import sparse
from scipy.special import ndtr, ndtri

from ._losses import pointwise_log_loss


#: A replicate within this relative distance of the statistic counts as tied with it in BCa's bias
#: correction: sums in another order can move a replicate equal to the statistic by a few ulps.
TIE_RTOL = 1e-12


# -- engines -------------------------------------------------------------------------------------------
class ClusterSums:
    """Per-cluster weight and clicks, shared by the models."""

    def __init__(self, y, w, g, n_clusters):
        self.g, self.n_clusters = g, n_clusters
        self.w = np.bincount(g, weights=w, minlength=n_clusters)
        self.wy = np.bincount(g, weights=w * y, minlength=n_clusters)
        # the negatives' weight summed directly, never as w - wy: a difference of totals loses the small class
        self.wn = np.bincount(g, weights=w * (1.0 - y), minlength=n_clusters)


class ModelEngine:
    """Everything one model needs to give its metrics for any matrix of cluster weights."""

    def __init__(self, y, s, w, g, n_clusters, sums, metrics, eps):
        self.metrics, self.sums, self.n_clusters = metrics, sums, n_clusters
        self.y, self.s, self.w, self.g = y, s, w, g
        cols = [sums.w, sums.wy, sums.wn]
        if "log_loss" in metrics or "rig_score" in metrics:
            cols.append(np.bincount(g, weights=w * pointwise_log_loss(y, s, eps), minlength=n_clusters))
        else:
            cols.append(np.zeros(n_clusters))
        if "calibration_ratio" in metrics:
            cols.append(np.bincount(g, weights=w * s, minlength=n_clusters))
        else:
            cols.append(np.zeros(n_clusters))
        self.S = np.column_stack(cols)  # (G, 5): w, wy, wn, wloss, wp
        self.width = 0
        if "roc_auc_score" in metrics:
            self._auc_setup()

    # the AUC as a sparse product (module notes)
    def _auc_setup(self):
        y, s, w, g = self.y, self.s, self.w, self.g
        if 2 * y.sum() > len(y):  # the smaller class indexes the slots; AUC(y, s) = AUC(1 - y, -s)
            y, s = 1.0 - y, -s
        o = np.argsort(s, kind="stable")  # stable: every later sum in one order on any machine
        so, small, go, wo = s[o], y[o] == 1, g[o], w[o]
        first, end = _runs(so)
        # the positives' runs of equal scores k = 0..K-1; a larger-class row scoring between runs k - 1 and k
        # sits at slot 2k (outscored by Suf_k), one tied with run k at slot 2k + 1 (Suf_{k+1} + V_k / 2)
        run = np.cumsum(np.r_[True, so[1:] != so[:-1]]) - 1  # run of equal scores of each sorted row
        has_pos = np.bincount(run, weights=small) > 0
        pos_runs_before = np.concatenate(([0], np.cumsum(has_pos)))
        big = ~small
        slot = 2 * pos_runs_before[run[big]] + has_pos[run[big]]
        n_runs = int(pos_runs_before[-1])
        idx = np.int32 if self.n_clusters < 2**31 else np.int64
        self.M = sparse.csr_matrix((wo[big], go[big].astype(idx), np.searchsorted(slot, np.arange(2 * n_runs + 2))),
                                   shape=(2 * n_runs + 1, self.n_clusters))
        pr = pos_runs_before[run[small]]  # the run of each positive, nondecreasing
        self.P = sparse.csr_matrix((wo[small], go[small].astype(idx), np.searchsorted(pr, np.arange(n_runs + 1))),
                                   shape=(n_runs, self.n_clusters))
        self.width = 2 * n_runs + 1
        self._sorted = (so, small, go, wo, first, end)

    def _auc_numerator(self, W):
        num = np.empty(len(W))
        for b, wb in enumerate(W):
            V = self.P @ wb  # the positives' weight per run
            if not len(V):
                num[b] = 0.0
                continue
            suf = np.empty(len(V) + 1)  # Suf_k = sum_{l >= k} V_l, summed directly (never T - a prefix)
            suf[-1] = 0.0
            np.cumsum(V[::-1], out=suf[-2::-1])
            D = self.M @ wb  # the larger class's weight per slot
            De, Do = D[0::2], D[1::2]
            # sum_k De_k Suf_k + Do_k (Suf_{k+1} + V_k / 2): every term non-negative, nothing cancels
            # sums of products, not np.dot: a BLAS call per resample is slow on a busy machine (threads spin)
            num[b] = (De * suf).sum() + (Do * (suf[1:] + 0.5 * V)).sum()
        return num

    def values(self, W):
        T = W @ self.S  # (B, 4)
        return metrics_from_sums(self.metrics, *T.T, lambda: self._auc_numerator(W))

    # leave one cluster out, for BCa's acceleration
    def jackknife(self):
        # the sums without cluster g as the clusters before g plus those after it (no total less a part:
        # a class held by g alone leaves exactly 0, so the metric is undefined, not a leftover of rounding)
        G = self.S.shape[0]
        pre = np.zeros_like(self.S)
        np.cumsum(self.S[:-1], axis=0, out=pre[1:])
        suf = np.zeros_like(self.S)
        if G > 1:
            np.cumsum(self.S[:0:-1], axis=0, out=suf[G - 2::-1])
        T = pre + suf  # (G, 5)
        return metrics_from_sums(self.metrics, *T.T,
                                 lambda: _auc_leave_one_cluster_out(*self._sorted, self.n_clusters), clip_auc=False)


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
