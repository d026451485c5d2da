"""The O(n log n) pair-count engine behind every rank measure of :mod:`offline_eval.ranking`.

A private module: its functions take validated float arrays and return the per-observation counts
(:class:`Counts`) from which the coefficients, their variance, the curves and the leave-one-out values
are computed.  The names carry no underscore because the sibling modules of the package use them.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._validation import as_1d, check_aligned, check_consistent_length, check_finite

__all__ = ["Counts", "average_ranks", "check_pair", "group_bounds", "pair_counts", "smaller_before", "tau_from_counts"]


# -- validation --------------------------------------------------------------------------
def check_pair(y_true, y_pred, names=("y_true", "y_pred")):
    """``(y, m)``: responses and predictions as aligned, finite float arrays of one length."""
    ny, nm = names
    check_aligned(**{ny: y_true, nm: y_pred})
    y = check_finite(as_1d(y_true, ny), ny)
    m = check_finite(as_1d(y_pred, nm), nm)
    check_consistent_length(**{ny: y, nm: m})
    return y, m


# -- the O(n log n) core -------------------------------------------------------------------
_BRUTE_BITS = 4  # the last 4 bits (groups of 16) by an O(16 n) comparison: cheaper than 4 partitions


def smaller_before(r: np.ndarray) -> np.ndarray:
    """``out[k] = #{j < k : r[j] < r[k]}`` for a permutation ``r`` of ``0..n-1``.

    A wavelet-matrix pass from the top bit down: before processing bit ``b``
    the elements are ordered by their rank's bits above ``b`` (stable, so by
    position within a group); since ``r`` is a permutation, the group of
    prefix ``P`` occupies exactly positions ``[P 2^(b+1), (P+1) 2^(b+1))``.
    An element whose bit ``b`` is 1 is larger than every earlier member of
    its group whose bit is 0, which a cumulative sum counts; then each group
    is stably partitioned by the bit.  The array is padded to a power of two
    with ranks larger than every real one, placed last, which never count.
    """
    n = len(r)
    if n <= 1:
        return np.zeros(n, dtype=np.int64)
    levels = int(n - 1).bit_length()
    size = 1 << levels
    dt = np.int32 if size < 2**31 else np.int64
    vals = np.empty(size, dtype=dt)
    vals[:n] = r
    vals[n:] = np.arange(n, size, dtype=dt)
    cnt = np.zeros(size, dtype=dt)
    pos = np.arange(size, dtype=dt)
    zeros_before = np.zeros(size + 1, dtype=dt)
    nxt_vals = np.empty_like(vals)
    nxt_cnt = np.empty_like(cnt)
    brute = min(_BRUTE_BITS, levels)
    for lev in range(levels - 1, brute - 1, -1):
        half = 1 << lev
        bit = (vals >> lev) & 1
        np.cumsum(bit ^ 1, out=zeros_before[1:])
        start = pos & ~(2 * half - 1)
        zb = zeros_before[:-1] - zeros_before[start]  # zeros before, within the group
        cnt += bit * zb
        # zeros keep their order at the front of the group, ones after them
        to_zero = start + zb
        new = pos - zb + half
        new -= to_zero
        new *= bit
        new += to_zero
        nxt_vals[new] = vals
        nxt_cnt[new] = cnt
        vals, nxt_vals = nxt_vals, vals
        cnt, nxt_cnt = nxt_cnt, cnt
    g = 1 << brute
    vg = vals.reshape(-1, g)
    earlier = np.tri(g, g, -1, dtype=bool)  # [k, j] is True for j < k
    cmp = vg[:, None, :] < vg[:, :, None]
    cmp &= earlier
    cnt += cmp.sum(axis=2, dtype=dt).reshape(-1)
    by_rank = np.empty(size, dtype=np.int64)
    by_rank[vals] = cnt
    return by_rank[np.asarray(r)]


def group_bounds(sorted_keys: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """First index and end (exclusive) of the run of equal keys at each sorted position."""
    n = len(sorted_keys[0])
    new = np.zeros(n, dtype=bool)
    new[0] = True
    for k in sorted_keys:
        new[1:] |= k[1:] != k[:-1]
    starts = np.flatnonzero(new)
    sizes = np.diff(np.append(starts, n))
    return np.repeat(starts, sizes), np.repeat(starts + sizes, sizes)


class Counts(NamedTuple):
    """Per-observation pair counts (each excludes the observation itself).

    ``ly/gy/ey``: partners with smaller / larger / equal truth; ``lm/gm/em``
    the same for the prediction; ``A``: smaller in both, ``B``: larger in
    both; ``e_m_ylt``: equal prediction and smaller truth, ``e_m_ygt``: equal
    prediction and larger truth, ``e_y_mlt`` / ``e_y_mgt``: equal truth and
    smaller / larger prediction, ``e_both``: equal in both.  Tie arrays are
    the scalar 0 when there are no ties.
    """

    n: int
    ly: np.ndarray
    gy: np.ndarray
    ey: np.ndarray | int
    lm: np.ndarray
    gm: np.ndarray
    em: np.ndarray | int
    A: np.ndarray
    B: np.ndarray
    e_m_ylt: np.ndarray | int
    e_m_ygt: np.ndarray | int
    e_y_mlt: np.ndarray | int
    e_y_mgt: np.ndarray | int
    e_both: np.ndarray | int
    ties_y: bool
    ties_m: bool
    oy: np.ndarray  # an order of increasing truth
    om: np.ndarray  # an order of increasing prediction

    @property
    def concordant(self):
        return self.A + self.B

    @property
    def discordant(self):
        return (self.ly - self.A - self.e_m_ylt) + (self.gy - self.B - self.e_m_ygt)

    @property
    def tied(self):
        return self.ey + self.em - self.e_both


def pair_counts(y: np.ndarray, m: np.ndarray) -> Counts:
    n = len(y)
    ar = np.arange(n, dtype=np.int64)
    oy = np.argsort(y)
    om = np.argsort(m)
    ys, ms = y[oy], m[om]
    ties_y = bool((ys[1:] == ys[:-1]).any())
    ties_m = bool((ms[1:] == ms[:-1]).any())
    if not (ties_y or ties_m):
        rank_y = np.empty(n, dtype=np.int64)
        rank_y[oy] = ar
        rank_m = np.empty(n, dtype=np.int64)
        rank_m[om] = ar
        A = np.empty(n, dtype=np.int64)
        A[oy] = smaller_before(rank_m[oy])
        B = (n - 1 - rank_m) - (rank_y - A)
        return Counts(n, rank_y, n - 1 - rank_y, 0, rank_m, n - 1 - rank_m, 0, A, B, 0, 0, 0, 0, 0, False, False, oy, om)

    ky, K = _dense_ranks(ys, oy)
    km, L = _dense_ranks(ms, om)
    if K * L <= max(_TABLE_MIN_CELLS, _TABLE_CELLS_PER_ROW * n):
        return _table_counts(n, ky, K, km, L, ties_y, ties_m, oy, om)

    # Order by truth ascending, equal truths by prediction descending; equal
    # predictions ranked so that an earlier position gets the larger rank.
    # Then "smaller rank before" counts exactly the strictly smaller-in-both.
    o = np.lexsort((-m, y))
    m_seq = m[o]
    perm = np.argsort(m_seq[::-1], kind="stable")
    r_seq = np.empty(n, dtype=np.int64)
    r_seq[n - 1 - perm] = ar
    A = np.empty(n, dtype=np.int64)
    A[o] = smaller_before(r_seq)

    def less_equal_greater(order, keys):
        first, end = group_bounds([k[order] for k in keys])
        less, greater, equal = (np.empty(n, dtype=np.int64) for _ in range(3))
        less[order] = first
        greater[order] = n - end
        equal[order] = end - first - 1
        return less, equal, greater, first, end

    ly, ey, gy, _, _ = less_equal_greater(oy, [y])
    lm, em, gm, _, _ = less_equal_greater(om, [m])
    # within equal predictions, by truth (and the reverse)
    o2 = np.lexsort((y, m))
    m_first, m_end = group_bounds([m[o2]])
    run_first, run_end = group_bounds([m[o2], y[o2]])
    e_m_ylt, e_m_ygt, e_both = (np.empty(n, dtype=np.int64) for _ in range(3))
    e_m_ylt[o2] = run_first - m_first
    e_m_ygt[o2] = m_end - run_end
    e_both[o2] = run_end - run_first - 1
    o3 = np.lexsort((m, y))
    y_first, y_end = group_bounds([y[o3]])
    run_first, run_end = group_bounds([y[o3], m[o3]])
    e_y_mlt, e_y_mgt = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64)
    e_y_mlt[o3] = run_first - y_first
    e_y_mgt[o3] = y_end - run_end
    B = gm - (ly - A - e_m_ylt) - e_y_mgt
    return Counts(n, ly, gy, ey, lm, gm, em, A, B, e_m_ylt, e_m_ygt, e_y_mlt, e_y_mgt, e_both, ties_y, ties_m, oy, om)


def average_ranks(x: np.ndarray) -> np.ndarray:
    """1-based average ranks (ties get the mean of the ranks they span)."""
    n = len(x)
    o = np.argsort(x, kind="stable")
    first, end = group_bounds([x[o]])
    out = np.empty(n, dtype=np.float64)
    out[o] = (first + end + 1) / 2.0
    return out




def tau_from_counts(c: Counts, variant: str) -> float:
    n = c.n
    if not (c.ties_y or c.ties_m):  # conc - disc = 2A + 2B - ly - gy, with sum(ly + gy) = n (n - 1)
        s = 2 * (int(c.A.sum()) + int(c.B.sum())) - n * (n - 1)
    else:
        s = int(c.concordant.sum()) - int(c.discordant.sum())  # 2 (C - D)
    pairs = n * (n - 1) / 2.0
    if variant == "a":
        return float(s / 2.0 / pairs)
    n1 = int(np.sum(c.ey)) / 2.0
    n2 = int(np.sum(c.em)) / 2.0
    den = (pairs - n1) * (pairs - n2)
    if den <= 0:
        return float("nan")
    return float(min(max(s / 2.0 / np.sqrt(den), -1.0), 1.0))


# -- few distinct values: the contingency table --------------------------------------------------
#: The table of distinct (truth, prediction) values is used when it has at most this many cells per
#: observation (or at most ``_TABLE_MIN_CELLS``): its cumulative sums then cost less than the sorts.
_TABLE_CELLS_PER_ROW = 2
_TABLE_MIN_CELLS = 1 << 16


def _dense_ranks(sorted_values: np.ndarray, order: np.ndarray) -> tuple[np.ndarray, int]:
    """Dense rank (0 for the smallest distinct value) of each observation, from its values in ``order``."""
    n = len(sorted_values)
    step = np.empty(n, dtype=np.int64)
    step[0] = 0
    np.not_equal(sorted_values[1:], sorted_values[:-1], out=step[1:], casting="unsafe")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.cumsum(step)
    return rank, int(rank.max()) + 1 if n else 0


def _table_counts(n, ky, K, km, L, ties_y, ties_m, oy, om) -> Counts:
    """:class:`Counts` from the K x L table of distinct truths and predictions: O(n + K L), exact integers.

    For an observation in cell ``(i, j)``, every count is a sum of the table over a quadrant, a row or a
    column around the cell (excluding the observation itself), read from cumulative sums.
    """
    T = np.bincount(ky * L + km, minlength=K * L).reshape(K, L).astype(np.int64)
    # C[a, b] = #{y-rank < a, m-rank < b}, with a zero first row and column
    C = np.zeros((K + 1, L + 1), dtype=np.int64)
    np.cumsum(np.cumsum(T, axis=0), axis=1, out=C[1:, 1:])
    row = np.concatenate(([0], np.cumsum(T.sum(axis=1))))  # #{y-rank < a}
    col = np.concatenate(([0], np.cumsum(T.sum(axis=0))))  # #{m-rank < b}
    # within a column (equal prediction): #{y-rank < a}; within a row (equal truth): #{m-rank < b}
    in_col = np.zeros((K + 1, L), dtype=np.int64)
    np.cumsum(T, axis=0, out=in_col[1:])
    in_row = np.zeros((K, L + 1), dtype=np.int64)
    np.cumsum(T, axis=1, out=in_row[:, 1:])
    i, j = ky, km
    ly, gy = row[i], n - row[i + 1]
    lm, gm = col[j], n - col[j + 1]
    A = C[i, j]
    e_m_ylt = in_col[i, j]
    e_m_ygt = in_col[K, j] - in_col[i + 1, j]
    e_y_mlt = in_row[i, j]
    e_y_mgt = in_row[i, L] - in_row[i, j + 1]
    cell = T[i, j]
    ey = row[i + 1] - row[i] - 1
    em = col[j + 1] - col[j] - 1
    e_both = cell - 1
    B = gm - (ly - A - e_m_ylt) - e_y_mgt
    return Counts(n, ly, gy, ey, lm, gm, em, A, B, e_m_ylt, e_m_ygt, e_y_mlt, e_y_mgt, e_both, ties_y, ties_m, oy, om)
