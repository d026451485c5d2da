"""Mergeable statistics: each metric family as a small accumulator that a chunk of rows fills and that
two accumulators merge, so a log bigger than memory is evaluated one partition at a time.

Every accumulator has ``from_arrays(...)`` (fill from one chunk), ``merge(other)`` (associative and
commutative: any partitioning and any merge order give the same counts) and methods that return the
same values as the in-memory functions of :mod:`offline_eval.metrics`, :mod:`offline_eval.adaptive` and
:mod:`offline_eval.bidding`.  :mod:`offline_eval.ondask` runs them on Dask.

==========================  ======================================================  ===================
accumulator                 what it holds                                           exact?
==========================  ======================================================  ===================
:class:`ScoreCounts`        weight of positives and negatives per distinct score    AUC/ROC exact; with
                                                                                    ``resolution``, the
                                                                                    error is bounded
:class:`LossSums`           sums of weights, labels, scores, losses                 sums (1e-12 rel.)
:class:`QuantileSums`       :class:`LossSums` per quantile bin (second pass)        bins exact, sums
:class:`JointCounts`        item counts per (B, C[, G]) cell, sparse                exact
:class:`UtilitySums`        utility, weighted squared error, EU per beta, per group sums (1e-12 rel.)
==========================  ======================================================  ===================

Notes
-----
**AUC and ROC.** The per-score counts of :class:`ScoreCounts` are all the AUC needs (ties count 1/2,
as in :func:`offline_eval.metrics.roc_auc_score`).  They are exact, the default, on any scores: a chunk's
cells come from a sort of its scores (without weights, two sorts of the values and no argsort), and two
accumulators merge by one linear merge of their sorted values.  Their size is one cell per distinct score:
small for scores stored at a fixed precision, about the rows for continuous float64 scores (for which
:mod:`offline_eval.ondask` fills the cells per score range rather than merging a tree of them).  As an
opt-in approximation, ``resolution`` rounds every score to a multiple of it first, which bounds the
number of cells by ``1 / resolution`` for scores in [0, 1]; only the order of a positive and a negative
in the *same* cell is then lost, so :meth:`ScoreCounts.auc_error_bound` -- half the weight of such
pairs, computed from the counts themselves -- bounds ``|AUC(rounded) - AUC(exact)|``.

**Quantiles** need two passes: the first collects the weight per distinct value of the binning score
(a :class:`ScoreCounts`), which fixes the quantile bin of every value exactly as
:func:`offline_eval.metrics.quantile_breakdown` does (a tie group takes the bin of its first row: the
bin of ``q * weight below / total``); the second fills one :class:`LossSums` per bin.

**Kendall's tau** is not here: an exact tau needs the joint order of all pairs (a distributed sort and
merge count); the ranking measures stay in memory (:mod:`offline_eval.ranking`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import bidding
from ._validation import (
    as_1d, as_labels, asarray_named, cast_checked, check_aligned, check_consistent_length, check_int, check_real,
    reject_masked,
)
from ._chunks import check_fields, check_other
from ._mergeable_losses import LossSums, QuantileSums
from ._mergeable_scores import ScoreCounts

__all__ = ["JointCounts", "LossSums", "QuantileSums", "ScoreCounts", "UtilitySums"]


# -- joint counts of the online adaptive metrics ---------------------------------------------------------
@dataclass(frozen=True)
class JointCounts:
    """Item counts per (B, C) or (B, C, G) cell, kept sparse (memory bounded by the cells present).

    ``cells`` is an ``(m, d)`` int64 array of distinct label tuples in lexicographic order, ``counts``
    their counts (``d = 2`` for live traffic, ``3`` with the truth).

    >>> j = JointCounts.from_arrays([0, 1, 1], [0, 1, 1]).merge(JointCounts.from_arrays([1], [0]))
    >>> j.cells.tolist(), j.counts.tolist()
    ([[0, 0], [1, 0], [1, 1]], [1, 1, 2])
    """

    cells: np.ndarray
    counts: np.ndarray

    def __repr__(self) -> str:
        return f"JointCounts({len(self.counts):,} cells of {self.cells.shape[1]} labels, {int(self.counts.sum()):,} items)"

    def __post_init__(self):
        check_fields(self, ("cells", "counts"), ndim={"cells": 2}, nonnegative=("cells", "counts"))

    @classmethod
    def from_arrays(cls, hyp_b, hyp_c, truth=None) -> JointCounts:
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        hyp_b, hyp_c : array-like of shape (n,)
            Class codes of the two models' hypotheses.
        truth : array-like of shape (n,), optional
            Ground-truth class codes.
        """
        named = {"hyp_b": hyp_b, "hyp_c": hyp_c, **({} if truth is None else {"truth": truth})}
        check_aligned(**named)
        cols = []
        for name, x in named.items():
            arr = as_1d(x, name, dtype=None, allow_empty=True)
            if arr.size and arr.dtype.kind not in "iu":
                raise ValueError(f"`{name}` must hold integer class codes (encode other labels first); got dtype {arr.dtype}")
            if (arr < 0).any():
                raise ValueError(f"`{name}` must hold non-negative class codes; got min {int(arr.min())}")
            cols.append(cast_checked(arr, np.int64, name) if arr.size else arr)  # a uint64 beyond int64 refused
        check_consistent_length(**dict(zip(named, cols)))
        if cols[0].size:
            fast = _joint_by_key(cols)
            if fast is not None:
                return cls(*fast)
        stacked = np.stack([c.astype(np.int64) for c in cols], axis=1) if cols[0].size else np.zeros((0, len(cols)), np.int64)
        cells, counts = np.unique(stacked, axis=0, return_counts=True)
        return cls(cells.reshape(-1, len(cols)), counts.astype(np.int64))

    def merge(self, other: JointCounts) -> JointCounts:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : JointCounts
            The accumulator of another chunk of the same log (same options).
        """
        check_other(self, other)
        if self.cells.shape[1] != other.cells.shape[1]:
            raise ValueError("cannot merge (B, C) counts with (B, C, G) counts")
        both = np.concatenate([self.cells, other.cells])
        cells, inv = np.unique(both, axis=0, return_inverse=True)
        counts = np.bincount(inv.ravel(), weights=np.r_[self.counts, other.counts], minlength=len(cells))
        return JointCounts(cells.reshape(-1, both.shape[1]), counts.astype(np.int64))

    def dense(self, n_classes: int) -> np.ndarray:
        """The counts as a dense ``K x K (x K)`` array (as :func:`offline_eval.adaptive.joint_distribution`
        with ``normalize=False``).

        Parameters
        ----------
        n_classes : int
            K: the dense table is K x K (x K with the truth); bounded like
            :func:`offline_eval.adaptive.joint_distribution`'s, by
            ``max(10**7, 64 x items)`` cells.
        """
        from .adaptive import MAX_INFERRED_CELLS

        k = check_int(n_classes, "n_classes", low=1)
        items = int(self.counts.sum())
        if k ** self.cells.shape[1] > max(MAX_INFERRED_CELLS, 64 * items):
            raise ValueError(f"`n_classes` = {k} makes a dense table of {k}^{self.cells.shape[1]} cells for {items:,} "
                             f"items, more than the bound max({MAX_INFERRED_CELLS:,}, 64 x items)")
        if self.cells.size and self.cells.max() >= k:
            raise ValueError(f"`n_classes` must exceed the largest label {int(self.cells.max())}; got {k}")
        out = np.zeros((k,) * self.cells.shape[1], np.int64)
        out[tuple(self.cells.T)] = self.counts
        return out


def _joint_by_key(cols):
    """``(cells, counts)`` of ``np.unique(np.stack(cols, 1), axis=0, return_counts=True)`` through one integer key.

    The codes are non-negative: ``key = (b * K_c + c) * K_g + g`` with ``K = max + 1`` per column orders
    the cells lexicographically, so the distinct keys (a bincount when the key space is small, else a
    1-D sort) are the distinct rows in the same order.  ``None`` when the key space exceeds 2**62.
    """
    radix = [int(c.max()) + 1 for c in cols]
    total = int(np.prod(radix, dtype=object))
    if total > 2**62:
        return None
    key = cols[0].astype(np.int64)
    for c, r in zip(cols[1:], radix[1:]):
        key = key * r + c
    n = key.size
    if total <= min(max(4 * n, 4096), 2**24):
        full = np.bincount(key, minlength=total)
        keys = np.flatnonzero(full)
        counts = full[keys]
    else:
        keys, counts = np.unique(key, return_counts=True)
    cells = np.stack(np.unravel_index(keys, radix), axis=1).astype(np.int64) if len(radix) > 1 else keys[:, None]
    return cells.reshape(-1, len(cols)), counts.astype(np.int64)


# -- bidding: utility, weighted squared error and the expected utility, per group ----------------------------
@dataclass(frozen=True)
class UtilitySums:
    """Per group (e.g. a network): rows, utility, weighted squared error and EU at each ``beta``.

    Equals :func:`offline_eval.bidding.utility_per_row`, ``weighted_squared_error_per_row`` and
    ``expected_utility_per_row`` summed over the rows of each group.
    """

    groups: np.ndarray
    n: np.ndarray
    utility: np.ndarray
    wse: np.ndarray
    eu: np.ndarray  # (n_groups, n_betas)
    betas: tuple = field(default=())

    def __repr__(self) -> str:
        return (f"UtilitySums({len(self.groups):,} groups, {int(np.sum(self.n)):,} rows, "
                f"betas {', '.join(f'{b:g}' for b in self.betas) or 'none'})")

    def __post_init__(self):
        check_fields(self, ("n", "utility", "wse", "eu"), ndim={"eu": 2}, labels=("groups",), nonnegative=("n", "wse"))

    @classmethod
    def from_arrays(cls, group, a, v, p, c, *, betas=()) -> UtilitySums:
        """The accumulator of one chunk of a log.

        Parameters
        ----------
        group : array-like of shape (n,)
            Group of each row (e.g. the network).
        a, v, p, c : array-like of shape (n,)
            Actions, values, predictions and competing bids, as in :func:`offline_eval.bidding.utility`.
        betas : sequence of float, default ()
            The ``beta`` of each expected-utility column.
        """
        check_aligned(group=group, a=a, v=v, p=p, c=c)
        reject_masked(group, "group")
        g = asarray_named(group, "group")
        if g.ndim != 1:
            raise ValueError(f"`group` must be 1-D; got an array of shape {g.shape}")
        if g.size:
            g = as_labels(g, "group")  # no NaN, None, pd.NA or NaT
        if g.dtype.kind == "O" and len({type(v) for v in g.tolist()}) > 1:
            kinds = sorted({type(v).__name__ for v in g.tolist()})
            raise ValueError(f"`group` mixes label types ({', '.join(kinds)}): they cannot be sorted into groups; "
                             "use labels of one type")
        if isinstance(betas, (str, bytes)) or np.ndim(betas) != 1:
            raise ValueError(f"`betas` must be a sequence of numbers; got {betas!r}")
        betas = tuple(betas)
        for b in betas:
            check_real(b, "betas", low=0, closed="neither")
        betas = tuple(float(b) for b in betas)
        if g.size == 0 and all(np.size(x) == 0 for x in (a, v, p, c)):  # an empty partition
            return cls(g, np.zeros(0, np.int64), np.zeros(0), np.zeros(0), np.zeros((0, len(betas))), betas)
        util = bidding.utility_per_row(a, v, p, c)  # validates the rows
        check_consistent_length(group=g, a=util)
        groups, inv = np.unique(g, return_inverse=True)
        m = len(groups)

        def tot(x):
            return np.bincount(inv, weights=x, minlength=m)

        eu = np.stack([tot(bidding.expected_utility_per_row(a, v, p, c, beta=b)) for b in betas], axis=1) \
            if betas else np.zeros((m, 0))
        return cls(groups, np.bincount(inv, minlength=m).astype(np.int64), tot(util),
                   tot(bidding.weighted_squared_error_per_row(a, v, p)), eu, betas)

    def merge(self, other: UtilitySums) -> UtilitySums:
        """The accumulator of both chunks (this one and ``other``): as if filled from their rows at once.

        Parameters
        ----------
        other : UtilitySums
            The accumulator of another chunk of the same log (same options).
        """
        check_other(self, other)
        if self.betas != other.betas:
            raise ValueError("cannot merge sums over different `betas`")
        groups, inv = np.unique(np.r_[self.groups, other.groups], return_inverse=True)
        m = len(groups)

        def tot(x, y):
            return np.bincount(inv, weights=np.r_[x, y], minlength=m)

        eu = np.stack([tot(self.eu[:, j], other.eu[:, j]) for j in range(len(self.betas))], axis=1) \
            if self.betas else np.zeros((m, 0))
        return UtilitySums(groups, tot(self.n, other.n).astype(np.int64), tot(self.utility, other.utility),
                           tot(self.wse, other.wse), eu, self.betas)

    def frame(self) -> pd.DataFrame:
        """One row per group: ``group, rows, utility, weighted_se`` and ``eu_<beta>`` columns (sums)."""
        df = pd.DataFrame({"group": self.groups, "rows": self.n, "utility": self.utility, "weighted_se": self.wse})
        for j, b in enumerate(self.betas):
            df[f"eu_{b:g}"] = self.eu[:, j]
        return df
