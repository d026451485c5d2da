"""The bidding sums behind :mod:`offline_eval.mergeable` (which re-exports them): per group, the rows, utility,
weighted squared error and expected utility at each ``beta`` of a chunk, merged."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import bidding
from ._chunks import check_fields, check_other
from ._validation import as_labels, asarray_named, check_aligned, check_consistent_length, check_real, reject_masked

__all__ = ["UtilitySums"]


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
