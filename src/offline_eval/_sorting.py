"""A stable argsort of float64 scores several times faster than numpy's (a private helper shared by the
in-memory AUC and the clustered bootstrap)."""

from __future__ import annotations

import numpy as np


def sorted_order(s, *, with_values=False):
    """``np.argsort(s, kind="stable")`` of floats: the rows by (score, position), about 4x faster (and with
    ``with_values``, also ``s`` in that order).

    Each row's order-preserving 64-bit key of its score, its low bits replaced by the row's position, is
    sorted by value (numpy's vectorized sort; the keys are distinct, so the sorted array is the same whatever
    the sort); rows whose scores share the kept high bits but differ below them are then put in score order
    by a sort of those rows alone (few with continuous scores).  The same permutation on any machine.
    """
    s = np.asarray(s, dtype=np.float64)
    n = len(s)
    bits = max(1, (n - 1).bit_length())
    if n < 2 or bits > 40:
        o = np.argsort(s, kind="stable")
        return (o, s[o]) if with_values else o
    top = np.uint64(1 << 63)
    key = (s + 0.0).view(np.uint64)  # + 0.0: -0.0 is 0.0 (and a copy to work in)
    if key.max() >= top:  # negative floats: every bit flipped
        key = np.where(key >= top, ~key, key | top)
    else:
        key |= top
    # the keys less their least, the low bits dropped only as far as the positions need room
    low = key.min()
    key -= low
    drop = np.uint64(max(0, int(key.max()).bit_length() + bits - 64))
    sh = np.uint64(bits)
    key >>= drop
    key <<= sh
    key |= np.arange(n, dtype=np.uint64)
    key.sort()
    o = (key & np.uint64((1 << bits) - 1)).astype(np.intp)
    key >>= sh
    same = key[1:] == key[:-1]  # neighbours whose kept bits agree
    del key
    so = s[o]
    off = np.flatnonzero(same & (so[1:] != so[:-1]))  # ... with different scores: their group is out of order
    if len(off):
        starts = np.flatnonzero(np.r_[True, ~same])  # where each group of equal kept bits begins
        gi = np.unique(np.searchsorted(starts, off, side="right") - 1)
        gs = starts[gi]
        length = np.append(starts, n)[gi + 1] - gs
        grp = np.repeat(np.arange(len(gi)), length)
        pos = np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length) + np.repeat(gs, length)
        sub = o[pos]
        fix = np.lexsort((sub, so[pos], grp))
        o[pos] = sub[fix]
        so[pos] = so[pos][fix]
    return (o, so) if with_values else o
