"""The joint counts of the online adaptive metrics behind :mod:`offline_eval.mergeable` (which re-exports them):
item counts per (B, C[, G]) cell of a chunk, kept sparse, and merged."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._chunks import check_fields, check_other
from ._validation import as_1d, cast_checked, check_aligned, check_consistent_length, check_int

__all__ = ["JointCounts"]


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
        from ._adaptive_joint import MAX_INFERRED_CELLS

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
