"""The mergeable sums of the clustered Poisson bootstrap of a log (:func:`offline_eval.ondask.clustered_bootstrap`).

A partition of the log fills a :class:`BootSums` for resamples ``0..B`` (row 0: every cluster weight 1, the
statistic; row ``b + 1``: resample ``b``), with the counter-based weights of
:func:`offline_eval.logboot.hashed_poisson_weights`: a cluster's weight depends on (seed, resample, its key)
alone, so partitions need no communication and a cluster split over partitions gets one weight.  Two
accumulators merge by adding their sums (and taking the union of their bins and cluster keys).

Per model and resample it holds the resampled total weight, clicks, summed log loss and summed
predictions, and for the AUC the resampled weight of positives and of negatives per score bin (scores
rounded to multiples of ``resolution``, as :class:`offline_eval.mergeable.ScoreCounts` does): ``(B + 1) x
bins x 2`` floats per model, bounded by :data:`MAX_SUM_CELLS`.  It also holds the sorted keys of the
clusters seen (8 bytes per cluster) to count them.  It does not hold per-cluster sums, so there is no
jackknife over clusters: the result has percentile intervals only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from ._chunks import chunk_arrays
from ._losses import pointwise_log_loss
from ._validation import InputTypeError, check_probability, check_work
from ._logboot_engine import metrics_from_sums
from ._logboot_weights import cluster_keys, hashed_poisson_weights
from ._logboot_run import PROB_METRICS

__all__ = ["MAX_SUM_CELLS", "BootSums", "ModelSums"]

#: Most float64 cells one accumulator may hold, (n_boot + 1) x bins x 2 per model (512 MiB).
MAX_SUM_CELLS = 1 << 26

#: At most this many float64 cells in the largest array of one block of resamples (32 MiB) of the one-pass sums.
BLOCK_ELEMENTS = 1 << 22


def check_cells(n_boot, n_bins, n_models, name, value):
    """The named bound on the AUC's (n_boot + 1) x bins x 2 cells per model, before any work."""
    check_work((int(n_boot) + 1) * int(n_bins) * 2 * int(n_models), name, value, limit=MAX_SUM_CELLS,
               what="float64 cells ((n_boot + 1) x score bins x 2 per model)",
               hint="pass a coarser `resolution` or a smaller `n_boot`")


@dataclass(frozen=True)
class ModelSums:
    """One model's resampled sums: ``sums[b] = (weight, clicks, non-clicks, log loss, predictions)``; ``pos[k, b]``,
    ``neg[k, b]`` the weight of positives and negatives in score bin ``bins[k]`` (bin ``k`` holds the scores
    that round to ``bins[k] * resolution``).  Bins are rows: a merge moves whole rows."""

    sums: np.ndarray
    bins: np.ndarray
    pos: np.ndarray
    neg: np.ndarray

    def __post_init__(self):
        r = self.sums.shape[0]
        if self.sums.ndim != 2 or self.sums.shape[1] != 5:
            raise ValueError(f"`sums` must have shape (n_boot + 1, 5); got {self.sums.shape}")
        if self.bins.ndim != 1 or self.bins.dtype != np.int64:
            raise ValueError(f"`bins` must be a 1-D int64 array; got shape {self.bins.shape}, dtype {self.bins.dtype}")
        for k in ("pos", "neg"):
            a = getattr(self, k)
            if a.shape != (len(self.bins), r):
                raise ValueError(f"`{k}` must have shape {(len(self.bins), r)}; got {a.shape}")
            if not np.isfinite(a).all() or (a < 0).any():
                raise ValueError(f"`{k}` must be finite and non-negative")
        if not np.isfinite(self.sums).all():
            raise ValueError("`sums` must be finite")
        if len(self.bins) > 1 and not (np.diff(self.bins) > 0).all():
            raise ValueError("`bins` must be strictly increasing")

    def scaled(self, k: int) -> ModelSums:
        """The sums times ``2**k`` (exact)."""
        if k == 0:
            return self
        return ModelSums(np.ldexp(self.sums, k), self.bins, np.ldexp(self.pos, k), np.ldexp(self.neg, k))

    def merge(self, other: ModelSums) -> ModelSums:
        if np.array_equal(self.bins, other.bins):
            return ModelSums(self.sums + other.sums, self.bins, self.pos + other.pos, self.neg + other.neg)
        bins = np.union1d(self.bins, other.bins)
        ia, ib = np.searchsorted(bins, self.bins), np.searchsorted(bins, other.bins)
        r = self.sums.shape[0]
        pos, neg = np.zeros((len(bins), r)), np.zeros((len(bins), r))
        for out, a, b in ((pos, self.pos, other.pos), (neg, self.neg, other.neg)):
            out[ia] = a
            out[ib] += b
        return ModelSums(self.sums + other.sums, bins, pos, neg)

    def values(self, metrics):
        """Each metric on every row (statistic, then the resamples), as :mod:`offline_eval.logboot` computes it."""
        # a power of two brings the data's total weight near 1 (exact): the AUC's products of two sums
        # neither overflow nor underflow whatever the scale of the weights
        e = -int(np.frexp(self.sums[0, 0])[1]) if self.sums[0, 0] > 0 else 0
        tw, twy, twn, tloss, twp = np.ldexp(self.sums, e).T
        pos, neg = np.ldexp(self.pos, e), np.ldexp(self.neg, e)

        def auc_numerator():
            # bins ascending: a positive outscores the negatives of lower bins, ties count one half; the
            # negatives below a bin summed directly (an exclusive cumulative sum, not a total less the bin)
            below = np.zeros_like(neg)
            np.cumsum(neg[:-1], axis=0, out=below[1:])
            return np.sum(pos * (below + 0.5 * neg), axis=0)

        return metrics_from_sums(metrics, tw, twy, twn, tloss, twp, auc_numerator)

    def auc_error_bound(self) -> float:
        """Bound on ``|AUC of the binned scores - AUC of the raw scores|`` on the data (row 0), as
        :meth:`offline_eval.mergeable.ScoreCounts.auc_error_bound`: ``sum_bins pos * neg / 2`` over ``P * N``."""
        p, n = self.pos[:, 0].sum(), self.neg[:, 0].sum()
        return float(np.dot(self.pos[:, 0], self.neg[:, 0]) / (2.0 * p * n)) if p > 0 and n > 0 else float("nan")


@dataclass(frozen=True)
class BootSums:
    """The resampled sums of one or two models over a chunk of a log, and the keys of its clusters.

    Attributes
    ----------
    models : tuple of ModelSums
    keys : uint64 array
        Sorted distinct cluster keys seen.
    n : int
        Rows seen.
    seed, n_boot, resolution, metrics
        The options, equal in two accumulators that merge.
    scale : int
        The sums are those of the weights times ``2**-scale``: 0 for weights of ordinary size; a chunk whose
        largest weight lies outside [2**-500, 2**500] is stored rescaled (exact), as in
        :mod:`offline_eval.mergeable`, so that no sum over- or underflows.
    """

    models: tuple
    keys: np.ndarray
    n: int
    seed: int
    n_boot: int
    resolution: float | None
    metrics: tuple
    scale: int = 0  #: the sums are the weights' times ``2**-scale`` (0 unless the weights are extreme)

    def __post_init__(self):
        if not isinstance(self.models, tuple) or not 1 <= len(self.models) <= 2 or not all(
                isinstance(m, ModelSums) for m in self.models):
            raise InputTypeError("`models` must be a tuple of one or two ModelSums")
        if any(m.sums.shape[0] != self.n_boot + 1 for m in self.models):
            raise ValueError(f"every model must hold n_boot + 1 = {self.n_boot + 1} rows")
        if self.keys.dtype != np.uint64 or self.keys.ndim != 1:
            raise ValueError("`keys` must be a 1-D uint64 array")
        if self.n < 0:
            raise ValueError(f"`n` must be non-negative; got {self.n}")

    @classmethod
    def from_arrays(cls, y, scores, groups, w=None, *, seed, n_boot, metrics, resolution=None, eps,
                    names=("label", ("score", "score_b"), "groups")) -> BootSums:
        """The sums of one chunk (it may be empty); ``scores`` holds one or two score arrays."""
        probs = any(m in PROB_METRICS for m in metrics)
        cols = []
        for s, name in zip(scores, names[1]):
            yy, ss, ww = chunk_arrays(y, s, w, names=(names[0], name), weight_name="weight")
            if probs and ss.size:  # an empty partition is legal; check_probability refuses empty input
                check_probability(ss, name)
            cols.append(ss)
        y = yy
        top = float(ww.max()) if ww.size else 0.0
        scale = 0 if top == 0.0 or 2.0**-500 <= top <= 2.0**500 else int(np.frexp(top)[1])
        w = np.ldexp(ww, -scale) if scale else ww
        g_raw = np.asarray(groups)
        if g_raw.shape != y.shape:
            raise ValueError(f"`{names[2]}` must have one label per row; got {g_raw.shape[0]} for {y.shape[0]} rows")
        if y.size == 0:
            uniq_keys, inv = np.zeros(0, np.uint64), np.zeros(0, np.intp)
        else:
            uniq, inv = np.unique(g_raw, return_inverse=True)
            inv = inv.reshape(-1)
            uniq_keys = cluster_keys(uniq, names[2])
        G = len(uniq_keys)
        S = [np.column_stack([
            np.bincount(inv, weights=w, minlength=G),
            np.bincount(inv, weights=w * y, minlength=G),
            np.bincount(inv, weights=w * (1.0 - y), minlength=G),
            np.bincount(inv, weights=w * pointwise_log_loss(y, s, eps), minlength=G) if (
                "log_loss" in metrics or "rig_score" in metrics) else np.zeros(G),
            np.bincount(inv, weights=w * s, minlength=G) if "calibration_ratio" in metrics else np.zeros(G),
        ]) for s in cols]
        auc = "roc_auc_score" in metrics
        parts = []
        for s in cols:
            if not auc:
                parts.append((np.zeros(0, np.int64), None, None))
                continue
            idx = _bin_index(s, resolution, names[1][len(parts)])
            bins, binv = np.unique(idx, return_inverse=True)
            binv = binv.reshape(-1)
            check_cells(n_boot, len(bins), len(cols), "resolution", resolution)
            P = sparse.csr_matrix((w * y, (binv, inv)), shape=(len(bins), G))
            N = sparse.csr_matrix((w * (1.0 - y), (binv, inv)), shape=(len(bins), G))
            parts.append((bins, P, N))
        R = n_boot + 1
        sums = [np.empty((R, 5)) for _ in cols]
        pos = [np.empty((len(b), R)) for b, _, _ in parts]
        neg = [np.empty((len(b), R)) for b, _, _ in parts]
        width = max([G, 1] + [len(b) for b, _, _ in parts])
        block = max(1, min(R, BLOCK_ELEMENTS // width))
        for start in range(0, R, block):
            stop = min(R, start + block)
            # clusters by rows (G, block), C order: what the sparse products read without a copy;
            # column 0 of the accumulator is the data itself, column r >= 1 resample r - 1
            if start == 0:
                Wt = np.empty((G, stop))
                Wt[:, 0] = 1.0
                Wt[:, 1:] = hashed_poisson_weights(seed, np.arange(stop - 1), uniq_keys, by_cluster=True)
            else:
                Wt = hashed_poisson_weights(seed, np.arange(start - 1, stop - 1), uniq_keys, by_cluster=True)
            for i in range(len(cols)):
                sums[i][start:stop] = Wt.T @ S[i]  # (S.T @ Wt).T is the same product, 20x slower under a threaded BLAS
                bins, P, N = parts[i]
                if P is not None:
                    pos[i][:, start:stop] = P @ Wt
                    neg[i][:, start:stop] = N @ Wt
        models = tuple(ModelSums(sums[i], parts[i][0], pos[i], neg[i]) for i in range(len(cols)))
        return cls(models, np.unique(uniq_keys), int(y.size), int(seed), int(n_boot),
                   None if resolution is None else float(resolution), tuple(metrics), scale)

    def merge(self, other: BootSums) -> BootSums:
        """The sums of both chunks: as if filled from their rows at once (up to the order of float sums)."""
        if not isinstance(other, BootSums):
            raise InputTypeError(f"can only merge a BootSums; got {type(other).__name__}")
        for k in ("seed", "n_boot", "resolution", "metrics"):
            if getattr(self, k) != getattr(other, k):
                raise ValueError(f"cannot merge sums with different `{k}`: {getattr(self, k)!r} and {getattr(other, k)!r}")
        if len(self.models) != len(other.models):
            raise ValueError("cannot merge sums of one model with sums of two")
        s = max(self.scale, other.scale)
        models = tuple(a.scaled(self.scale - s).merge(b.scaled(other.scale - s))
                       for a, b in zip(self.models, other.models))
        if "roc_auc_score" in self.metrics:
            check_cells(self.n_boot, max(len(m.bins) for m in models), len(models), "resolution", self.resolution)
        return BootSums(models, np.union1d(self.keys, other.keys), self.n + other.n, self.seed, self.n_boot,
                        self.resolution, self.metrics, s)


def _bin_index(s, resolution, name):
    """The bin of each score: ``round(s / resolution)`` (ScoreCounts' rounding), or the exact score's rank
    among the float64 order (its bit pattern made monotone) without ``resolution``."""
    if resolution is None:
        # exact scores: an order-preserving int64 of the float64 (sign-magnitude to two's complement)
        b = (s + 0.0).view(np.int64)  # + 0.0: -0.0 becomes 0.0, one bin
        return np.where(b < 0, np.int64(-(2**63)) - b, b)
    with np.errstate(over="ignore"):
        ratio = s / resolution
    if not (np.abs(ratio) < 2.0**62).all():
        raise ValueError(f"`resolution` = {resolution!r} is too fine for `{name}` up to {float(np.abs(s).max()):g}; "
                         "pass a coarser resolution")
    return np.round(ratio).astype(np.int64)
