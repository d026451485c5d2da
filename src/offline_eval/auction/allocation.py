"""GSP allocation and pricing: the generalized second-price auction of yi Section 2.1, vectorised over auctions.

:class:`OperatingPoint` holds the auction's knobs (the click investment power :math:`\\alpha` and the
reserves); :func:`allocate` ranks each auction's candidates by the rank score :math:`r = b p^\\alpha`, fills the
mainline (above a mainline reserve) and sidebar slots, and prices each click at
:math:`c_i = b_{i+1} p_{i+1}^\\alpha / p_i^\\alpha` (floored at the reserve); :class:`Allocation` is the outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._results import short_repr
from .._validation import check_aligned, check_int, check_matrix, check_real

__all__ = ["Allocation", "OperatingPoint", "allocate"]

_CHUNK = 1 << 14  # auctions per block: keeps the working set in cache


@dataclass(frozen=True)
class OperatingPoint:
    """The auction's knobs.

    Attributes
    ----------
    alpha : float, default 1.0
        Click investment power of the rank score :math:`r = b p^\\alpha` (yi eq. 1).
    reserve : float, default 0.0
        Minimum rank score to be shown at all (sidebar).
    mainline_reserve : float, default 0.0
        Minimum rank score to be shown in the mainline; at least ``reserve``.
    """

    alpha: float = 1.0
    reserve: float = 0.0
    mainline_reserve: float = 0.0

    def __post_init__(self):
        for name in ("alpha", "reserve", "mainline_reserve"):
            check_real(getattr(self, name), name, low=0)
        if self.mainline_reserve < self.reserve:
            raise ValueError(f"`mainline_reserve` must be >= `reserve` ({self.reserve:g}); got {self.mainline_reserve:g}")


@dataclass(frozen=True)
class Allocation:
    """Outcome of a batch of auctions, column ``j`` = the ``j``-th highest rank score.

    Attributes
    ----------
    ranked : ndarray of int16, shape (n, k)
        Candidate index at each rank (descending rank score).
    slot : ndarray of int8, shape (n, k)
        Slot of the candidate at each rank: ``0 .. n_mainline - 1`` mainline,
        ``n_mainline ..`` sidebar, ``-1`` not shown.
    cpc : ndarray of float64, shape (n, k)
        Price per click of the candidate at each rank (0 if not shown).
    rank_score : ndarray of float64, shape (n, k)
        The sorted rank scores.
    """

    ranked: np.ndarray
    slot: np.ndarray
    cpc: np.ndarray
    rank_score: np.ndarray

    def __repr__(self) -> str:
        n, k = np.shape(self.ranked)
        return short_repr("Allocation", n_auctions=n, n_ranks=k, shown=int((np.asarray(self.slot) >= 0).sum()))

    def shown(self):
        """Flat arrays ``(auction, candidate, slot, cpc)`` of every shown ad."""
        # One flat index (row-major, as np.nonzero orders them) instead of 2-D fancy indexing: 3x faster.
        k = self.slot.shape[1]
        flat = np.flatnonzero(self.slot.ravel() >= 0)
        return (flat // k, self.ranked.ravel()[flat].astype(np.int64), self.slot.ravel()[flat].astype(np.int64),
                self.cpc.ravel()[flat])


def _check_matrix(x, name):
    arr = check_matrix(x, name)
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"`{name}` must be a non-empty 2-D array (n_auctions, n_candidates); got shape {arr.shape}")
    return arr


def check_layout(n_mainline, n_sidebar):
    """Raise unless the page has ``n_mainline + n_sidebar`` slots, each count an int >= 0, at most 127 in all."""
    check_int(n_mainline, "n_mainline", low=0)
    check_int(n_sidebar, "n_sidebar", low=0)
    if n_mainline + n_sidebar > 127:
        raise ValueError(f"at most 127 slots; got {n_mainline + n_sidebar}")


def allocate(bids, pclick, *, alpha=1.0, reserve=0.0, mainline_reserve=0.0, n_mainline=3, n_sidebar=5) -> Allocation:
    """Run a batch of generalized second-price auctions.

    Parameters
    ----------
    bids : array-like of shape (n_auctions, n_candidates)
        Cost-per-click bids, >= 0.  A zero bid means the candidate is absent.
    pclick : array-like of shape (n_auctions, n_candidates)
        Estimated position-unbiased CTRs, in [0, 1].
    alpha : float, default 1.0
        Click investment power (yi eq. 1); ``alpha = 0`` ranks by bid.
    reserve, mainline_reserve : float, default 0.0
        Minimum rank score to be shown at all / in the mainline
        (``0 <= reserve <= mainline_reserve``).
    n_mainline, n_sidebar : int, default 3 and 5
        Number of mainline and sidebar slots.

    Returns
    -------
    Allocation

    Notes
    -----
    Rank score :math:`r_i = b_i p_i^\\alpha` (yi eq. 1).  Candidates are sorted
    by descending :math:`r`; **tie rule:** equal rank scores are ordered by
    candidate index (lower first).  Every comparison is exact: no tolerance,
    no truncation, so an ad whose score equals a reserve is shown and the
    same inputs give the same allocation on every machine.

    The first ``m = min(n_mainline, #{r_i >= mainline_reserve})`` ranks go to
    the mainline; the next ranks with :math:`r_i \\ge reserve` fill the sidebar
    slots; candidates with :math:`r_i = 0` are never shown.  The price per
    click is the GSP price of yi Section 2.1, floored at the reserve of the
    ad's block:

    .. math:: c_i = \\frac{\\max(r_{i+1}, R)}{p_i^\\alpha}
              = b_i \\frac{\\max(r_{i+1}, R)}{r_i} \\le b_i,

    with :math:`r_{k+1} = 0` and :math:`R` the mainline reserve for mainline
    ads and the reserve for sidebar ads.  Computing it as :math:`b_i` times a
    ratio :math:`\\le 1` makes :math:`c_i \\le b_i` hold exactly in floating point.

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Section 2.1, eq. (1).
    .. [2] B. Edelman, M. Ostrovsky, M. Schwarz, "Internet advertising and the
       generalized second-price auction", American Economic Review 97 (2007).

    Examples
    --------
    Three candidates, one mainline and one sidebar slot:

    >>> a = allocate([[2.0, 1.0, 4.0]], [[0.1, 0.5, 0.1]], n_mainline=1, n_sidebar=1)
    >>> a.ranked.tolist(), a.slot.tolist(), a.cpc.round(6).tolist()
    ([[1, 2, 0]], [[0, 1, -1]], [[0.8, 2.0, 0.0]])

    Rank scores are 0.5, 0.4, 0.2: the winner pays 0.4 / 0.5 = 0.8 per click
    and the runner-up 0.2 / 0.1 = 2.0.
    """
    b, p, op = _check_auctions(bids, pclick, alpha, reserve, mainline_reserve, n_mainline, n_sidebar)
    return _allocate_many(b, p, [op], int(n_mainline), int(n_sidebar))[0]


def _check_auctions(bids, pclick, alpha, reserve, mainline_reserve, n_mainline, n_sidebar):
    """:func:`allocate`'s checks: the bids and pClicks as float arrays, and the operating point."""
    # Two frames are combined cell by cell: their rows (and columns) must be the same, in the same order.
    check_aligned(bids=bids, pclick=pclick)
    if all(isinstance(x, pd.DataFrame) for x in (bids, pclick)) and not bids.columns.equals(pclick.columns):
        raise ValueError("`bids` and `pclick` are DataFrames with different columns (other labels or another order); "
                         "align them, e.g. `pclick[bids.columns]`, or pass arrays")
    b = _check_matrix(bids, "bids")
    p = _check_matrix(pclick, "pclick")
    if p.shape != b.shape:
        raise ValueError(f"`pclick` must have the shape of `bids` {b.shape}; got {p.shape}")
    if (b < 0).any():
        raise ValueError(f"`bids` must be non-negative; got {int((b < 0).sum())} negative values")
    if ((p < 0) | (p > 1)).any():
        raise ValueError(f"`pclick` must lie in [0, 1]; got {int(((p < 0) | (p > 1)).sum())} values outside")
    op = OperatingPoint(alpha, reserve, mainline_reserve)
    check_layout(n_mainline, n_sidebar)
    if b.shape[1] > 1 << 15:
        raise ValueError(f"at most {1 << 15} candidates per auction; got {b.shape[1]}")
    return b, p, op


def _allocate_many(b, p, ops, n_ml, n_sb) -> list[Allocation]:
    """:func:`allocate` at several operating points of one ``alpha`` (checked inputs): the auctions are
    ranked once and only the reserves' placement is redone per point -- the same bytes as one call each."""
    ranked, rank_score, b_ranked = _rank_all(b, p, ops)
    n, k = b.shape
    slots = [np.empty((n, k), np.int8) for _ in ops]
    cpcs = [np.empty((n, k), np.float64) for _ in ops]
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        for op, slot, cpc in zip(ops, slots, cpcs):
            _place_block(b_ranked[lo:hi], op, n_ml, n_sb, rank_score[lo:hi], slot[lo:hi], cpc[lo:hi])
    return [Allocation(ranked, slot, cpc, rank_score) for slot, cpc in zip(slots, cpcs)]


def _rank_all(b, p, ops):
    """The ranking of every auction (checked inputs, ``ops`` of one alpha): candidate, rank score and bid at
    each rank, in blocks of :data:`_CHUNK` auctions."""
    if len({float(op.alpha) for op in ops}) != 1:
        raise ValueError("`ops` must share one alpha")
    n, k = b.shape
    ranked = np.empty((n, k), np.int16)
    rank_score = np.empty((n, k), np.float64)
    b_ranked = np.empty((n, k), np.float64)
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        _rank_block(b[lo:hi], p[lo:hi], float(ops[0].alpha), ranked[lo:hi], rank_score[lo:hi], b_ranked[lo:hi])
    return ranked, rank_score, b_ranked


def engine_inputs(bids, pclick):
    """Bids and pClicks validated at a public entry (a :class:`~offline_eval.auction.PageViews`, a checked
    pClick table), as the engine's float64 arrays: only their shape is checked here, not every value again."""
    b = np.asarray(bids, dtype=np.float64)
    p = np.asarray(pclick, dtype=np.float64)
    if b.ndim != 2 or b.shape[0] == 0 or b.shape[1] == 0:
        raise ValueError(f"`bids` must be a non-empty 2-D array (n_auctions, n_candidates); got shape {b.shape}")
    if p.shape != b.shape:
        raise ValueError(f"`pclick` must have the shape of `bids` {b.shape}; got {p.shape}")
    if b.shape[1] > 1 << 15:
        raise ValueError(f"at most {1 << 15} candidates per auction; got {b.shape[1]}")
    return b, p


def _prefix_count(mask):
    """Per row, the number of leading True of a (n, k) mask whose rows are True...True False...False."""
    count = np.argmin(mask, axis=1)  # the first False; 0 when the row has none
    count[mask[:, -1]] = mask.shape[1]
    return count


def shown_at_points(b, p, ops, n_ml, n_sb, *, query=None, n_slots=None, ads=True):
    """The list of :func:`iter_shown_at_points`' tuples (the same arguments)."""
    return list(iter_shown_at_points(b, p, ops, n_ml, n_sb, query=query, n_slots=n_slots, ads=ads))


def iter_shown_at_points(b, p, ops, n_ml, n_sb, *, query=None, n_slots=None, ads=True):
    """``Allocation.shown()`` of :func:`_allocate_many` at each of ``ops`` (checked inputs, one alpha), without
    the full (n, k) slot and price tables: one ``(auction, candidate, slot, cpc)`` tuple per point.

    Each block is a prefix of a row's ranks (rank scores are exactly sorted), so the shown ads of a row are its
    first ``n_shown`` ranks; slots and prices are computed on those only, with the operations of
    :func:`_place_block` in its order (the same bits).  With ``query`` (each auction's query code) and
    ``n_slots``, each tuple gains a fifth array: the flat index of each shown ad's (query, candidate, slot) cell
    in a ``(n_queries, k, n_slots)`` table.  With ``ads=False`` the auction and candidate arrays are ``None``
    (a replay that reads the shown ads through their cells needs only the slots, prices and cells).

    A generator: each point's arrays are computed when the point is reached, so a caller that replays one
    point before asking for the next holds a single point's arrays at a time.
    """
    ranked, rs, b_ranked = _rank_all(b, p, ops)
    n, k = rs.shape
    rs_flat, b_flat = rs.ravel(), b_ranked.ravel()
    # A shown rank's next score is the next element of its row; a row's last rank (next score 0) is shown only
    # when a page holds all k candidates.
    last_shown = n_ml + n_sb >= k
    cpc_next = None
    if len(ops) > 1:
        # The price b * max(next rank score, the block's reserve) / own rank score: the next score clears the
        # reserve of its block for every shown rank but a row's last mainline rank and its last shown rank, so
        # with several points b * next / own is computed once and those two ranks are recomputed per point.
        rs_next = np.zeros_like(rs)  # the next rank's score, 0 after the last rank
        rs_next[:, :-1] = rs[:, 1:]
        with np.errstate(divide="ignore", invalid="ignore"):  # unshown ranks of score 0: never read
            cpc_next = rs_next.ravel() / rs_flat
        cpc_next *= b_flat
        del rs_next
    cell0 = None
    if query is not None:
        cell0 = ((np.asarray(query, dtype=np.int64) * k)[:, None] + ranked).ravel() * int(n_slots)
    cand = ranked.ravel().astype(np.int64) if ads and len(ops) > 1 else None  # gathered per point
    col = np.arange(k, dtype=np.int64)
    row_start = np.arange(0, n * k, k, dtype=np.int64)  # each row's first cell
    # A row's shown ranks are its first n_shown: the cells, slots and auctions are built from per-row numbers
    # repeated over each row's shown ranks, not from (n, k) masks.  slot_of[m, rank]: the rank's slot when the
    # mainline holds m ads (the rank itself in the mainline, shifted past the n_ml - m unfilled mainline slots
    # in the sidebar).
    slot_of = np.where(col < np.arange(n_ml + 1)[:, None], col, col + n_ml - np.arange(n_ml + 1)[:, None]).ravel()
    # The mainline holds at most the first min(n_ml, k) ranks: the mainline reserve is compared there only.
    lead = [np.ascontiguousarray(rs[:, j]) for j in range(min(n_ml, k))]
    eligible = {}  # the count of ranks above each reserve: the points of a sweep mostly share their reserve
    for op in ops:
        if op.reserve not in eligible:
            eligible[op.reserve] = _prefix_count(rs >= op.reserve if op.reserve > 0 else rs > 0)
        n_eligible = eligible[op.reserve]
        if op.mainline_reserve == op.reserve:
            m = np.minimum(n_eligible, n_ml)
        else:  # min(count above the mainline reserve, n_ml): the count within the first n_ml ranks (a prefix)
            m = np.zeros(n, np.int64)
            for score in lead:
                m += score >= op.mainline_reserve if op.mainline_reserve > 0 else score > 0
        n_shown = np.minimum(n_eligible, m + n_sb)
        start = np.cumsum(n_shown) - n_shown  # each row's first shown ad in the shown arrays
        step = np.arange(int(start[-1] + n_shown[-1]), dtype=np.int64)
        # the shown cells of the (n, k) tables in row-major order: row_start + rank, rank = step - start
        flat = np.repeat(row_start - start, n_shown)
        flat += step
        slot = np.repeat(m * k - start, n_shown)
        slot += step
        slot = slot_of.take(slot)
        if cpc_next is None:
            if last_shown:
                nxt = np.zeros(len(flat))
                inner = flat % k != k - 1
                nxt[inner] = rs_flat[flat[inner] + 1]
            else:
                nxt = rs_flat.take(flat + 1)
            floor = op.reserve if op.mainline_reserve == op.reserve else np.where(slot < n_ml, op.mainline_reserve,
                                                                                    op.reserve)
            cpc = np.maximum(nxt, floor, out=nxt)
            cpc /= rs_flat.take(flat)
            cpc *= b_flat.take(flat)
        else:
            cpc = cpc_next.take(flat)
            for row, last, floor in ((np.flatnonzero(m), m, op.mainline_reserve),
                                     (np.flatnonzero(n_shown > m), n_shown, op.reserve)):
                last = last[row] - 1
                at = row * k + last
                nxt = rs_flat.take(at + 1, mode="clip")  # the next rank's score; a row's last rank has none
                nxt[last == k - 1] = 0.0
                price = np.maximum(nxt, floor, out=nxt)
                price /= rs_flat.take(at)
                price *= b_flat.take(at)
                cpc[start[row] + last] = price
        if ads:
            auction = np.repeat(np.arange(n, dtype=np.int64), n_shown)
            shown = (auction, ranked.ravel()[flat].astype(np.int64) if cand is None else cand.take(flat), slot, cpc)
        else:
            shown = (None, None, slot, cpc)
        if cell0 is not None:
            cell = cell0.take(flat)
            cell += slot
            shown += (cell,)
        yield shown


def rank_scores(b, p, alpha: float) -> np.ndarray:
    """:math:`b p^\\alpha` -- one function, so that reserves placed at quantiles of the
    rank scores (:func:`rank_score_quantiles`) compare equal to the same ads' scores in
    :func:`allocate` bit for bit."""
    if alpha == 1.0:
        return b * p
    if alpha == 0.0:
        return np.array(b, dtype=np.float64, copy=True)
    return b * np.power(p, alpha)


def _rank_block(b, p, alpha, ranked, rank_score, b_ranked):
    n, k = b.shape
    r = rank_scores(b, p, alpha)
    # Sort key: the bits of r >= 0 (monotone as int64) with the low bits replaced
    # by (mask - candidate), so that one sort of plain integers gives both the
    # order and the argsort (an argsort of 10-element rows is 3x slower).  The
    # truncated key is only a fast path: rows where two positive scores share a
    # truncated key (equal or nearly equal scores) are re-sorted exactly below.
    nbits = max(1, (k - 1).bit_length())
    mask = np.int64((1 << nbits) - 1)
    key = r.view(np.int64) & ~mask
    key |= mask - np.arange(k, dtype=np.int64)
    key.sort(axis=1)
    key = np.ascontiguousarray(key[:, ::-1])
    cand = mask - (key & mask)
    ranked[...] = cand
    # one flat index (row * k + candidate) for the gathers: cheaper than take_along_axis's broadcast index
    cand += np.arange(0, n * k, k, dtype=np.int64)[:, None]
    np.take(r.ravel(), cand, out=rank_score)
    rs = rank_score
    # rows where two neighbouring ranks share a truncated key (the positive ones): compared on the flat
    # arrays (long loops), the pairs that straddle two rows dropped
    high = (key >> nbits).ravel()
    same = high[1:] == high[:-1]
    same &= rs.ravel()[1:] > 0
    same[k - 1::k] = False
    clash = np.unique(np.flatnonzero(same) // k)
    if clash.size:
        sub = r[clash]
        ranked[clash] = np.lexsort((np.broadcast_to(np.arange(k), sub.shape), -sub), axis=-1)
        rs[clash] = np.take_along_axis(sub, ranked[clash].astype(np.intp), axis=1)
        cand[clash] = ranked[clash] + np.arange(0, n * k, k, dtype=np.int64)[clash, None]
    np.take(np.ascontiguousarray(b).ravel(), cand, out=b_ranked)


def _place_block(b_ranked, op, n_ml, n_sb, rs, slot, cpc):
    n, k = rs.shape
    # Rank scores are exactly sorted, so every block is a prefix of the ranks: count, then
    # compare the exact scores (an ad whose score equals a reserve -- reserves are often
    # quantiles of the same scores -- is shown, as r >= reserve says).
    n_eligible = np.count_nonzero(rs >= op.reserve if op.reserve > 0 else rs > 0, axis=1)
    if op.mainline_reserve == op.reserve:
        n_ml_ok = n_eligible
    else:
        n_ml_ok = np.count_nonzero(rs >= op.mainline_reserve if op.mainline_reserve > 0 else rs > 0, axis=1)
    m = np.minimum(n_ml_ok, n_ml)[:, None]
    n_shown = np.minimum(n_eligible[:, None], m + n_sb)
    col = np.arange(k, dtype=np.int64)
    ml = col < m
    hidden = col >= n_shown
    # slot: the rank in the mainline, the rank shifted past the unfilled mainline slots in the sidebar, -1 hidden
    np.add(col, n_ml - m, out=slot, casting="unsafe")
    np.copyto(slot, col, where=ml, casting="unsafe")
    slot[hidden] = -1
    # price: b * max(next rank score, the block's reserve) / own rank score
    if op.mainline_reserve == op.reserve:
        np.maximum(rs[:, 1:], op.reserve, out=cpc[:, :-1])
        cpc[:, -1] = op.reserve
    else:
        floor = np.where(ml, op.mainline_reserve, op.reserve)
        np.maximum(rs[:, 1:], floor[:, :-1], out=cpc[:, :-1])
        cpc[:, -1] = floor[:, -1]
    np.divide(cpc, rs, out=cpc, where=~hidden)
    cpc[hidden] = 0.0
    cpc *= b_ranked


def as_operating_point(op):
    """``op`` as an :class:`OperatingPoint`: ``None`` the default point, a dict its fields."""
    if op is None:
        return OperatingPoint()
    if isinstance(op, OperatingPoint):
        return op
    if isinstance(op, dict):
        return OperatingPoint(**op)
    raise ValueError(f"`op` must be an OperatingPoint, a dict or None; got {type(op).__name__}")
