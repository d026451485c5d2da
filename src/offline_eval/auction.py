"""Sponsored-search auctions: GSP allocation and pricing, online A/B tests, and
the *auction simulation* of yi Section 4.6 (simulated metrics from logs).

Three layers, all vectorised over auctions (arrays of shape
``(n_auctions, n_candidates)``):

:func:`allocate`
    the generalized second-price auction of yi Section 2.1: rank score
    :math:`r = b p^\\alpha`, allocation in descending rank score into mainline
    (above a mainline reserve) and sidebar slots, price per click
    :math:`c_i = b_{i+1} p_{i+1}^\\alpha / p_i^\\alpha`.
:func:`serve`, :func:`click_yield`, :func:`ab_test`
    the "online" world: page views served with a model's pClick, clicks drawn
    from the true CTR times the position effect, click yield (clicks per page
    view) with its sampling error.
:class:`ClickLog`, :func:`simulate`, :func:`sweep_operating_points`
    the offline replay: every logged auction is re-run with a new model's
    scores and the clicks of the ads it selects are estimated from the logs
    only (historic CTR of the (query, ad) pair at that position; else the
    pair's CTR calibrated by the click curve; else the position's reference
    CTR).
"""

from __future__ import annotations

import copy
import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from typing import NamedTuple

from ._validation import (
    OfflineEvalWarning,
    InputTypeError,
    as_1d,
    as_array,
    check_aligned,
    check_bool,
    check_choice,
    check_matrix,
    check_work,
    reject_masked,
    check_int,
    check_nonnegative,
    check_probability,
    check_real,
    check_rng,
    warn_undefined,
)

__all__ = [
    "ABTest",
    "Allocation",
    "ClickLog",
    "ClickYield",
    "Impressions",
    "OperatingPoint",
    "PageViews",
    "SimulatedMetrics",
    "SponsoredWorld",
    "ab_test",
    "allocate",
    "best_operating_point",
    "click_yield",
    "cross_validate_min_impressions",
    "MIN_IMPRESSIONS_GRID",
    "rank_score_quantiles",
    "sample_page_views",
    "serve",
    "simulate",
    "sweep_operating_points",
]

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

    def shown(self):
        """Flat arrays ``(auction, candidate, slot, cpc)`` of every shown ad."""
        a, j = np.nonzero(self.slot >= 0)
        return a, self.ranked[a, j].astype(np.int64), self.slot[a, j].astype(np.int64), self.cpc[a, j]


def _check_matrix(x, name):
    arr = check_matrix(x, name)
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise ValueError(f"`{name}` must be a non-empty 2-D array (n_auctions, n_candidates); got shape {arr.shape}")
    return arr


def _check_layout(n_mainline, n_sidebar):
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
    _check_layout(n_mainline, n_sidebar)
    n, k = b.shape
    if k > 1 << 15:
        raise ValueError(f"at most {1 << 15} candidates per auction; got {k}")
    ranked = np.empty((n, k), np.int16)
    slot = np.empty((n, k), np.int8)
    cpc = np.empty((n, k), np.float64)
    rank_score = np.empty((n, k), np.float64)
    for lo in range(0, n, _CHUNK):
        hi = min(lo + _CHUNK, n)
        _allocate_block(b[lo:hi], p[lo:hi], op, int(n_mainline), int(n_sidebar),
                        ranked[lo:hi], slot[lo:hi], cpc[lo:hi], rank_score[lo:hi])
    return Allocation(ranked, slot, cpc, rank_score)


def _rank_scores(b, p, alpha: float) -> np.ndarray:
    """:math:`b p^\\alpha` -- one function, so that reserves placed at quantiles of the
    rank scores (:func:`rank_score_quantiles`) compare equal to the same ads' scores in
    :func:`allocate` bit for bit."""
    if alpha == 1.0:
        return b * p
    if alpha == 0.0:
        return np.array(b, dtype=np.float64, copy=True)
    return b * np.power(p, alpha)


def _allocate_block(b, p, op, n_ml, n_sb, ranked, slot, cpc, rank_score):
    n, k = b.shape
    r = _rank_scores(b, p, float(op.alpha))
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
    key = key[:, ::-1]
    np.subtract(mask, key & mask, out=ranked, casting="unsafe")
    rs = rank_score
    rs[...] = np.take_along_axis(r, ranked.astype(np.intp), axis=1)
    high = key >> nbits
    clash = np.flatnonzero(((high[:, 1:] == high[:, :-1]) & (rs[:, 1:] > 0)).any(axis=1))
    if clash.size:
        sub = r[clash]
        ranked[clash] = np.lexsort((np.broadcast_to(np.arange(k), sub.shape), -sub), axis=-1)
        rs[clash] = np.take_along_axis(sub, ranked[clash].astype(np.intp), axis=1)
    # Rank scores are exactly sorted, so every block is a prefix of the ranks: count, then
    # compare the exact scores (an ad whose score equals a reserve -- reserves are often
    # quantiles of the same scores -- is shown, as r >= reserve says).
    eligible = rs >= op.reserve if op.reserve > 0 else rs > 0
    ml_ok = rs >= op.mainline_reserve if op.mainline_reserve > 0 else rs > 0
    n_eligible = np.count_nonzero(eligible, axis=1)
    n_ml_ok = np.count_nonzero(ml_ok, axis=1)
    m = np.minimum(n_ml_ok, n_ml)[:, None]
    n_shown = np.minimum(n_eligible[:, None], m + n_sb)
    col = np.arange(k, dtype=np.int64)
    ml = col < m
    shown = col < n_shown
    np.copyto(slot, np.where(shown, np.where(ml, col, col + (n_ml - m)), -1), casting="unsafe")
    floor = np.where(ml, op.mainline_reserve, op.reserve)
    np.maximum(rs[:, 1:], floor[:, :-1], out=cpc[:, :-1])
    cpc[:, -1] = floor[:, -1]
    np.divide(cpc, rs, out=cpc, where=shown)
    cpc[~shown] = 0.0
    rows = np.arange(n, dtype=np.int64)[:, None] * k
    cpc *= np.take(b.ravel(), rows + ranked)


# -- the online world -------------------------------------------------------------------
@dataclass(frozen=True)
class SponsoredWorld:
    """A marketplace: queries, their candidate ads, true CTRs and the page layout (the "online" truth).

    :func:`offline_eval.synth.sponsored.make_world` draws one; build one from
    your own estimates to serve page views (:func:`serve`, :func:`ab_test`).

    Attributes
    ----------
    query_prob : ndarray of shape (n_queries,)
        Probability that a page view is for each query (sums to 1).
    bids : ndarray of shape (n_queries, n_candidates)
        Cost-per-click bid of each candidate ad of each query.
    ctr : ndarray of shape (n_queries, n_candidates)
        True position-unbiased CTR (at the top mainline slot).
    click_curve : ndarray of shape (n_slots,)
        Examination factor per slot, mainline slots first (:func:`click_curve`).
    n_mainline : int
        Number of mainline slots; the other slots are sidebar slots.
    participation : float
        Probability that a candidate takes part in a given auction.
    """

    def __post_init__(self):
        q, k = np.shape(self.bids) if np.ndim(self.bids) == 2 else (None, None)
        if q is None or np.shape(self.ctr) != (q, k) or np.shape(self.query_prob) != (q,):
            raise ValueError(f"`bids` must be (n_queries, n_candidates) with `ctr` of the same shape and "
                             f"`query_prob` of shape (n_queries,); got {np.shape(self.bids)}, {np.shape(self.ctr)}, "
                             f"{np.shape(self.query_prob)}")
        # Probabilities must be probabilities: a nan or > 1 CTR or a negative click curve would make
        # ab_test report nan or negative click yields rather than fail.
        qp = check_nonnegative(self.query_prob, "query_prob")
        if not abs(float(qp.sum()) - 1.0) <= 1.5e-8:  # numpy's tolerance for the draws of sample_page_views
            raise ValueError(f"`query_prob` must sum to 1; got {float(qp.sum())!r}")
        b = check_matrix(self.bids, "bids")
        if (b < 0).any():
            raise ValueError(f"`bids` must be non-negative; got {int((b < 0).sum())} negative values")
        ctr = check_matrix(self.ctr, "ctr")
        if ((ctr < 0) | (ctr > 1)).any():
            raise ValueError(f"`ctr` must lie in [0, 1]; got {int(((ctr < 0) | (ctr > 1)).sum())} values outside")
        check_probability(self.click_curve, "click_curve")
        check_int(self.n_mainline, "n_mainline", low=0, high=len(self.click_curve))
        check_real(self.participation, "participation", low=0, high=1)
        _check_layout(self.n_mainline, len(self.click_curve) - self.n_mainline)

    query_prob: np.ndarray
    bids: np.ndarray
    ctr: np.ndarray
    click_curve: np.ndarray
    n_mainline: int
    participation: float

    @property
    def n_queries(self) -> int:
        return self.bids.shape[0]

    @property
    def n_candidates(self) -> int:
        return self.bids.shape[1]

    @property
    def n_slots(self) -> int:
        return len(self.click_curve)

    @property
    def n_sidebar(self) -> int:
        return self.n_slots - self.n_mainline


@dataclass(frozen=True)
class PageViews:
    """The auctions of a stream of page views.

    Attributes
    ----------
    query : ndarray of int64, shape (n,)
    bids : ndarray of shape (n, n_candidates)
        The query's bids, 0 for candidates that do not take part.
    """

    query: np.ndarray
    bids: np.ndarray

    def __post_init__(self):
        check_aligned(query=self.query, bids=self.bids)
        q = as_array(self.query, "query", np.int64)
        b = check_matrix(self.bids, "bids", allow_empty=True)
        if q.ndim != 1 or len(q) != len(b):
            raise ValueError(f"`query` must be 1-D with one entry per row of `bids`; got shapes {q.shape} and {b.shape}")
        if (b < 0).any():
            raise ValueError(f"`bids` must be non-negative; got {int((b < 0).sum())} negative values")

    def __len__(self) -> int:
        return len(self.query)


def sample_page_views(world: SponsoredWorld, n, rng=None) -> PageViews:
    """Draw ``n`` page views: a query each (by frequency) and who takes part.

    Parameters
    ----------
    world : SponsoredWorld
    n : int >= 1
        Number of page views; ``n * n_candidates`` at most 2**30 (the bids
        are held in memory).
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> from offline_eval.synth.sponsored import make_world
    >>> w = make_world(0, n_queries=3, n_candidates=2)
    >>> pv = sample_page_views(w, 4, 1)
    >>> pv.bids.shape, bool((pv.bids >= 0).all())
    ((4, 2), True)
    """
    _check_world(world)
    rng = check_rng(rng)
    check_int(n, "n", low=1)
    check_work(int(n) * world.n_candidates, "n", n, what="bids (page views x candidates)")
    query = rng.choice(world.n_queries, size=int(n), p=world.query_prob)
    present = rng.random((int(n), world.n_candidates)) < world.participation
    return PageViews(query.astype(np.int64), np.where(present, world.bids[query], 0.0))


def _check_world(world):
    if not isinstance(world, SponsoredWorld):
        raise InputTypeError(f"`world` must be a SponsoredWorld; got {type(world).__name__}")


def _check_page_views(page_views, name="page_views"):
    if not isinstance(page_views, PageViews):
        raise InputTypeError(f"`{name}` must be a PageViews; got {type(page_views).__name__}")


def _check_pclick_table(world: SponsoredWorld, pclick, name="pclick") -> np.ndarray:
    """``pclick`` as a float table of the world's (query, ad) shape, with probabilities in [0, 1]."""
    _check_world(world)
    p = check_matrix(pclick, name, allow_empty=True)
    if p.shape != world.ctr.shape:
        raise ValueError(f"`{name}` must have shape {world.ctr.shape}; got {p.shape}")
    check_probability(p.ravel(), name)
    return p


@dataclass(frozen=True)
class Impressions:
    """Ads shown to a stream of page views, one row per impression.

    Attributes
    ----------
    page_view, query, ad, slot : ndarray of int64, shape (m,)
    click : ndarray of float64, shape (m,)
        Observed click (0 or 1), or the expected click when served with
        ``expected=True``.
    p_click : ndarray of float64, shape (m,)
        True click probability: CTR of the pair times the slot's factor.
    cpc : ndarray of float64, shape (m,)
    n_page_views : int
    n_mainline : int
    """

    page_view: np.ndarray
    query: np.ndarray
    ad: np.ndarray
    slot: np.ndarray
    click: np.ndarray
    p_click: np.ndarray
    cpc: np.ndarray
    n_page_views: int
    n_mainline: int

    def frame(self) -> pd.DataFrame:
        """The impressions as a DataFrame (the log's columns)."""
        return pd.DataFrame({k: getattr(self, k) for k in ("page_view", "query", "ad", "slot", "click", "p_click", "cpc")})


def _op(op):
    if op is None:
        return OperatingPoint()
    if isinstance(op, OperatingPoint):
        return op
    if isinstance(op, dict):
        return OperatingPoint(**op)
    raise ValueError(f"`op` must be an OperatingPoint, a dict or None; got {type(op).__name__}")


def serve(world: SponsoredWorld, pclick, page_views: PageViews, *, op=None, rng=None, expected=False) -> Impressions:
    """Serve page views with a model's pClick and draw the users' clicks.

    Parameters
    ----------
    world : SponsoredWorld
    pclick : array-like of shape (n_queries, n_candidates)
        The model's pClick for every (query, ad) pair.
    page_views : PageViews
        From :func:`~offline_eval.synth.sponsored.sample_page_views`.
    op : OperatingPoint, optional
        Default: alpha 1, no reserves.
    rng : int, Generator or None
        Draws the clicks.
    expected : bool, default False
        Record the expected click (``p_click``) instead of a 0/1 draw.

    Returns
    -------
    Impressions

    Notes
    -----
    A shown ad of true CTR :math:`\\eta` in slot :math:`s` is clicked with
    probability :math:`\\eta \\kappa_s` (``world.click_curve``), independently
    of the other ads on the page.
    """
    p = _check_pclick_table(world, pclick)
    _check_page_views(page_views)
    op = _op(op)
    rng = check_rng(rng)
    check_bool(expected, "expected")
    alloc = allocate(page_views.bids, p[page_views.query], alpha=op.alpha, reserve=op.reserve,
                     mainline_reserve=op.mainline_reserve, n_mainline=world.n_mainline, n_sidebar=world.n_sidebar)
    pv, ad, slot, cpc = alloc.shown()
    q = page_views.query[pv]
    p_click = world.ctr[q, ad] * world.click_curve[slot]
    click = p_click.copy() if expected else (rng.random(len(pv)) < p_click).astype(np.float64)
    return Impressions(pv.astype(np.int64), q, ad, slot, click, p_click, cpc, len(page_views), world.n_mainline)


class ClickYield(NamedTuple):
    """Click yield of served page views (:func:`click_yield`)."""

    cy: float  #: observed clicks per page view
    cy_se: float  #: its standard error over page views
    ml_cy: float  #: mainline clicks per page view
    ml_cy_se: float
    expected_cy: float  #: the true expectation given the page views
    expected_ml_cy: float
    ads_per_pv: float
    ml_ads_per_pv: float
    revenue_per_pv: float

    def confidence_interval(self, metric: str = "cy", level: float = 0.95) -> tuple[float, float]:
        """Normal interval of ``cy`` or ``ml_cy`` from its standard error.

        Parameters
        ----------
        metric : {"cy", "ml_cy"}, default "cy"
        level : float in (0, 1), default 0.95
        """
        return _normal_interval(self, metric, level)


def _normal_interval(res, metric, level):
    from scipy.special import ndtri

    check_choice(metric, "metric", ("cy", "ml_cy") if not hasattr(res, "cy_delta") else ("cy_delta", "ml_cy_delta"))
    check_real(level, "level", low=0, high=1, closed="neither")
    v, se = getattr(res, metric), getattr(res, f"{metric}_se")
    half = float(ndtri(0.5 + level / 2.0)) * se
    return v - half, v + half


def click_yield(impressions: Impressions) -> ClickYield:
    """Click yield (clicks per page view), overall and mainline, with standard errors.

    Parameters
    ----------
    impressions : Impressions
        From :func:`serve`.

    Returns
    -------
    ClickYield
        ``cy``, ``cy_se``, ``ml_cy``, ``ml_cy_se`` (observed clicks),
        ``expected_cy``, ``expected_ml_cy`` (true expectation given the
        page views), ``ads_per_pv``, ``ml_ads_per_pv``, ``revenue_per_pv``;
        ``.confidence_interval("cy")``.

    Notes
    -----
    :math:`CY = \\frac1N \\sum_v C_v` with :math:`C_v` the clicks of page view
    :math:`v`; its standard error is :math:`sd(C_v) / \\sqrt N` (page views are
    independent).  Mainline CY counts mainline clicks only.
    """
    n = impressions.n_page_views
    ml = impressions.slot < impressions.n_mainline
    per_pv = np.bincount(impressions.page_view, weights=impressions.click, minlength=n)
    per_pv_ml = np.bincount(impressions.page_view[ml], weights=impressions.click[ml], minlength=n)
    se = (lambda x: float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"))
    return ClickYield(
        cy=float(per_pv.mean()), cy_se=se(per_pv),
        ml_cy=float(per_pv_ml.mean()), ml_cy_se=se(per_pv_ml),
        expected_cy=float(impressions.p_click.sum() / n),
        expected_ml_cy=float(impressions.p_click[ml].sum() / n),
        ads_per_pv=float(len(impressions.slot) / n), ml_ads_per_pv=float(ml.sum() / n),
        revenue_per_pv=float(np.dot(impressions.click, impressions.cpc) / n),
    )


def _rel_delta(t, c, t_se, c_se):
    """Relative delta ``t / c - 1`` and its delta-method standard error; nan (with a warning) when ``c`` is 0."""
    if c == 0:
        warn_undefined("the control arm has no clicks: the relative delta is undefined (nan)")
        return float("nan"), float("nan")
    d = t / c - 1.0
    if t == 0:
        return d, (t / c) * c_se / c  # no treatment clicks: only the control's uncertainty
    return d, (t / c) * np.hypot(t_se / t, c_se / c)


class ABTest(NamedTuple):
    """An online A/B test (:func:`ab_test`): both arms and the treatment's relative deltas."""

    control: ClickYield
    treatment: ClickYield
    cy_delta: float  #: treatment / control - 1 of the observed click yield
    cy_delta_se: float  #: its delta-method standard error (independent arms)
    ml_cy_delta: float
    ml_cy_delta_se: float
    expected_cy_delta: float  #: the same from the true click probabilities
    expected_ml_cy_delta: float

    def confidence_interval(self, metric: str = "cy_delta", level: float = 0.95) -> tuple[float, float]:
        """Normal interval of ``cy_delta`` or ``ml_cy_delta`` from its standard error.

        Parameters
        ----------
        metric : {"cy_delta", "ml_cy_delta"}, default "cy_delta"
        level : float in (0, 1), default 0.95
        """
        return _normal_interval(self, metric, level)


def ab_test(world: SponsoredWorld, control, treatment, *, n_page_views=200_000, rng=None) -> ABTest:
    """An online A/B test: two arms of fresh page views, each served by one model.

    Parameters
    ----------
    world : SponsoredWorld
    control, treatment : tuple (pclick, OperatingPoint)
        Each arm's model (pClick per (query, ad)) and operating point.
    n_page_views : int, default 200_000
        Page views per arm; ``n_page_views * n_candidates`` at most 2**30.
    rng : int, Generator or None

    Returns
    -------
    ABTest
        ``control`` and ``treatment`` (:class:`ClickYield`), the relative
        deltas ``cy_delta``, ``ml_cy_delta`` (treatment / control - 1) with
        standard errors ``cy_delta_se``, ``ml_cy_delta_se`` (delta method,
        independent arms), ``expected_cy_delta`` and ``expected_ml_cy_delta``
        from the true click probabilities; ``.confidence_interval("cy_delta")``.
    """
    _check_world(world)
    rng = check_rng(rng)
    check_int(n_page_views, "n_page_views", low=1)
    check_work(int(n_page_views) * world.n_candidates, "n_page_views", n_page_views,
               what="bids (page views x candidates)")
    for name, arm in (("control", control), ("treatment", treatment)):
        if not isinstance(arm, tuple) or len(arm) != 2:
            raise ValueError(f"`{name}` must be a tuple (pclick, OperatingPoint); got {type(arm).__name__}")
        _check_pclick_table(world, arm[0], f"{name}[0]")
        _op(arm[1])
    arms = []
    for pclick, op in (control, treatment):
        arm_rng = np.random.default_rng(rng.integers(2**63))
        pv = sample_page_views(world, n_page_views, arm_rng)
        arms.append(click_yield(serve(world, pclick, pv, op=op, rng=arm_rng)))
    c, tr = arms
    cy_d, cy_se = _rel_delta(tr.cy, c.cy, tr.cy_se, c.cy_se)
    ml_d, ml_se = _rel_delta(tr.ml_cy, c.ml_cy, tr.ml_cy_se, c.ml_cy_se)
    e_cy = _rel_delta(tr.expected_cy, c.expected_cy, 0.0, 0.0)[0]
    e_ml = _rel_delta(tr.expected_ml_cy, c.expected_ml_cy, 0.0, 0.0)[0]
    return ABTest(c, tr, float(cy_d), float(cy_se), float(ml_d), float(ml_se), e_cy, e_ml)


# -- the offline replay -----------------------------------------------------------------
class ClickLog:
    """Historic auctions and their impressions/clicks per (query, ad, slot).

    Parameters
    ----------
    page_views : PageViews
        The logged auctions (each query and its candidates' bids).
    impressions, clicks : array-like of shape (n_queries, n_candidates, n_slots)
        Logged impressions and clicks of each (query, ad) pair in each slot.
    n_mainline : int
        Number of mainline slots (the first slots).
    n_iter : int, default 200
        Iterations of the click-curve fit.
    min_impressions : int, default 1
        A (query, ad) pair's historic CTR at a slot counts as available
        (:meth:`expected_ctr`) when the pair has at least this many
        impressions in that slot; 1 is yi's rule read literally.  A CTR from
        a handful of impressions is unbiased but skewed (mostly 0, now and
        then ``1/n``), so a replay summing many of them typically comes out
        low; :func:`cross_validate_min_impressions` picks the threshold from
        the logs alone.

    Attributes
    ----------
    reference_ctr : ndarray of shape (n_slots,)
        Average CTR of the ads logged in each slot (yi's *reference CTR*).
    click_curve : ndarray of shape (n_slots,)
        Estimated examination factor of each slot relative to slot 0.
    pair_ctr : ndarray of shape (n_queries, n_candidates)
        Position-normalised CTR of each logged pair (nan if never shown).

    Notes
    -----
    The click curve is fitted to the logs alone with the examination model
    :math:`E[C_{qas}] = N_{qas}\\,\\theta_{qa}\\,\\kappa_s` by alternating the
    closed-form maximum-likelihood (Poisson) updates

    .. math:: \\theta_{qa} = \\frac{\\sum_s C_{qas}}{\\sum_s N_{qas}\\kappa_s},\\qquad
              \\kappa_s = \\frac{\\sum_{qa} C_{qas}}{\\sum_{qa} N_{qas}\\theta_{qa}},

    normalised to :math:`\\kappa_0 = 1`.  Unlike the ratio of the raw
    reference CTRs it is not biased by better ads being shown higher, because
    the same pair is compared across slots.  A slot with no logged
    impression gets reference CTR and curve 0 (with a warning).
    """

    def __init__(self, page_views: PageViews, impressions, clicks, *, n_mainline, n_iter=200, min_impressions=1):
        """See the class docstring for the parameters."""
        check_int(min_impressions, "min_impressions", low=1)
        check_int(n_iter, "n_iter", low=0, high=10**6)
        _check_page_views(page_views)
        self.min_impressions = int(min_impressions)
        N, C = (_check_counts_3d(x, name) for x, name in ((impressions, "impressions"), (clicks, "clicks")))
        if N.ndim != 3 or N.shape != C.shape:
            raise ValueError(f"`impressions` and `clicks` must be 3-D arrays of one shape; got {N.shape} and {C.shape}")
        for name, x in (("impressions", N), ("clicks", C)):
            if not np.isfinite(x).all() or (x < 0).any():
                raise ValueError(f"`{name}` must be finite and non-negative")
        if (C > N).any():
            raise ValueError("`clicks` must satisfy 0 <= clicks <= impressions")
        check_int(n_mainline, "n_mainline", low=0, high=N.shape[2])
        if page_views.bids.shape[1] != N.shape[1]:
            raise ValueError(f"`page_views` have {page_views.bids.shape[1]} candidates, the counts {N.shape[1]}")
        self.page_views = page_views
        self.queries = None  # labels of the query codes, and where each (query, ad) sits: set by from_frame
        self.ads = None
        self.impressions = N
        self.clicks = C
        self.n_mainline = int(n_mainline)
        n_slot = N.sum(axis=(0, 1))
        c_slot = C.sum(axis=(0, 1))
        if (n_slot == 0).any():
            warn_undefined(f"slots {np.flatnonzero(n_slot == 0).tolist()} have no logged impression; their reference CTR is 0")
        self.reference_ctr = np.divide(c_slot, n_slot, out=np.zeros_like(c_slot), where=n_slot > 0)
        kappa = self.reference_ctr / self.reference_ctr[0] if self.reference_ctr[0] > 0 else np.ones_like(c_slot)
        c_pair = C.sum(axis=2)
        seen = N.sum(axis=2) > 0
        theta = np.zeros(c_pair.shape)
        for _ in range(int(n_iter)):
            denom = N @ kappa
            theta = np.divide(c_pair, denom, out=np.zeros_like(c_pair), where=denom > 0)
            d = np.einsum("qas,qa->s", N, theta)
            kappa = np.divide(c_slot, d, out=np.zeros_like(c_slot), where=d > 0)
            if kappa[0] > 0:
                theta *= kappa[0]
                kappa = kappa / kappa[0]
        self.click_curve = kappa
        self.pair_ctr = np.where(seen, theta, np.nan)

    @classmethod
    def from_frame(cls, impressions: pd.DataFrame, auctions: pd.DataFrame, *, n_mainline, n_slots=None,
                   page_view="page_view", query="query", ad="ad", slot="slot", click="click", bid="bid",
                   count=None, n_iter=200, min_impressions=1) -> ClickLog:
        """A log from one's own data frames: the impressions shown and the auctions to replay.

        Parameters
        ----------
        impressions : pandas.DataFrame
            One row per impression (or per aggregated (query, ad, slot) group
            with ``count``): columns ``query``, ``ad``, ``slot``, ``click``.
            Slots are integers ``0 .. n_slots - 1``, mainline slots first;
            ``click`` is 0/1 (or the clicks of the group).
        auctions : pandas.DataFrame
            The logged auctions, one row per (page view, candidate ad):
            columns ``page_view``, ``query``, ``ad``, ``bid`` (cost per click,
            >= 0).  Each page view has one query.
        n_mainline : int
            Number of mainline slots.
        n_slots : int, optional
            Number of slots; default the largest slot seen plus one.
        page_view, query, ad, slot, click, bid : str
            Column names.
        count : str, optional
            Column of impressions per row, when the rows are aggregated.
        n_iter : int, default 200
        min_impressions : int, default 1
            See :class:`ClickLog`.

        Raises
        ------
        ValueError
            Also when the dense tables would exceed ``max(2**25, 64 x rows)``
            cells (a sparse log: many queries, each with other ads).

        Returns
        -------
        ClickLog
            With ``queries`` (the query labels, in code order) and ``ads`` (a
            frame of ``query``, ``ad``, ``query_code``, ``candidate``: where
            each (query, ad) pair sits in the log's tables).  Build the
            ``pclick`` table a replay needs with :meth:`pclick_table`.

        Notes
        -----
        Query and ad labels may be any hashable values.  A query's candidates
        are numbered in the sorted order of their ad labels; a query with
        fewer candidates than the most crowded one has bid 0 (never shown) in
        the columns it lacks.

        Examples
        --------
        >>> imp = pd.DataFrame({"query": ["q1", "q1", "q2"], "ad": ["a", "b", "a"], "slot": [0, 1, 0],
        ...                     "click": [1, 0, 0]})
        >>> auc = pd.DataFrame({"page_view": [0, 0, 1], "query": ["q1", "q1", "q2"], "ad": ["a", "b", "a"],
        ...                     "bid": [1.0, 0.5, 2.0]})
        >>> log = ClickLog.from_frame(imp, auc, n_mainline=1)
        >>> log.impressions.shape, log.page_views.bids.tolist()
        ((2, 2, 2), [[1.0, 0.5], [2.0, 0.0]])
        >>> log.pclick_table(pd.DataFrame({"query": ["q1", "q1", "q2"], "ad": ["a", "b", "a"],
        ...                                "pclick": [0.1, 0.2, 0.3]})).tolist()
        [[0.1, 0.2], [0.3, 0.0]]
        """
        for name, frame, cols in (("impressions", impressions, [query, ad, slot, click] + ([count] if count else [])),
                                  ("auctions", auctions, [page_view, query, ad, bid])):
            if not isinstance(frame, pd.DataFrame):
                raise ValueError(f"`{name}` must be a pandas DataFrame; got {type(frame).__name__}")
            missing = [c for c in cols if c not in frame.columns]
            if missing:
                raise ValueError(f"`{name}` lacks the column(s) {missing}; it has {list(frame.columns)}")
            if frame.empty:
                raise ValueError(f"`{name}` must not be empty")
            if frame[cols].isna().any().any():
                raise ValueError(f"`{name}` has missing values in {[c for c in cols if frame[c].isna().any()]}")
        check_int(n_mainline, "n_mainline", low=0)
        pairs = pd.concat([impressions[[query, ad]].set_axis(["query", "ad"], axis=1),
                           auctions[[query, ad]].set_axis(["query", "ad"], axis=1)]).drop_duplicates()
        try:
            pairs = pairs.sort_values(["query", "ad"], kind="stable").reset_index(drop=True)
        except TypeError as exc:
            raise ValueError(f"query and ad labels must be sortable within each column ({exc})") from None
        q_codes, queries = pd.factorize(pairs["query"], sort=True)
        pairs["query_code"] = q_codes
        pairs["candidate"] = pairs.groupby("query_code").cumcount()
        n_q, n_c = len(queries), int(pairs["candidate"].max()) + 1
        index = pd.MultiIndex.from_frame(pairs[["query", "ad"]])

        def locate(frame):
            pos = index.get_indexer(pd.MultiIndex.from_frame(frame[[query, ad]].set_axis(["query", "ad"], axis=1)))
            return pairs["query_code"].to_numpy()[pos], pairs["candidate"].to_numpy()[pos]

        slots = as_1d(impressions[slot].to_numpy(), "impressions[slot]", dtype=None)
        if slots.dtype.kind not in "iu" or (slots < 0).any():
            raise ValueError("`impressions` slots must be integers >= 0 (mainline slots first)")
        n_s = int(slots.max()) + 1 if n_slots is None else check_int(n_slots, "n_slots", low=1)
        if slots.max() >= n_s or n_mainline > n_s:
            raise ValueError(f"slots and `n_mainline` must fit in `n_slots` = {n_s}; got slot {int(slots.max())}, "
                             f"n_mainline {n_mainline}")
        # The log's tables are dense (queries x candidates x slots, and page views x candidates): bounded
        # by what the rows justify, so that a sparse log (many queries, each with other ads) is an error,
        # not 30 GiB.
        rows = len(impressions) + len(auctions)
        bound = max(MAX_LOG_CELLS, 64 * rows)
        check_work(n_q * n_c * n_s, "impressions", f"{n_q} queries x {n_c} candidates x {n_s} slots", limit=bound,
                   what="cells of the dense (query, candidate, slot) tables",
                   hint="the log is too sparse for dense tables (queries with few, disjoint ads): split it by query")
        check_work(int(auctions[page_view].nunique()) * n_c, "auctions", f"{n_c} candidates per page view",
                   limit=bound, what="cells of the dense (page view, candidate) bid table",
                   hint="the log is too sparse for dense tables (page views with few of many ads): split it by query")
        clicks = check_nonnegative(impressions[click].to_numpy(), "impressions[click]")
        shown = (np.ones(len(impressions)) if count is None
                 else check_nonnegative(impressions[count].to_numpy(), "impressions[count]"))
        q, c = locate(impressions)
        key = (q * n_c + c) * n_s + slots
        N = np.bincount(key, weights=shown, minlength=n_q * n_c * n_s).reshape(n_q, n_c, n_s)
        C = np.bincount(key, weights=clicks, minlength=n_q * n_c * n_s).reshape(n_q, n_c, n_s)
        bids = check_nonnegative(auctions[bid].to_numpy(), "auctions[bid]")
        pv_codes, _ = pd.factorize(auctions[page_view], sort=True)
        aq, ac = locate(auctions)
        pv_query = np.full(pv_codes.max() + 1, -1, dtype=np.int64)
        pv_query[pv_codes] = aq
        if (pv_query[pv_codes] != aq).any():
            raise ValueError("`auctions`: a page view must have a single query")
        dup = auctions.duplicated([page_view, ad]).to_numpy()
        if dup.any():
            first = auctions.loc[dup, [page_view, ad]].head(1).to_dict("records")[0]
            raise ValueError(f"`auctions` has {int(dup.sum())} duplicated (page view, ad) row(s), e.g. {first}: "
                             "each candidate of an auction must appear once (which bid would be the logged one?)")
        bid_table = np.zeros((len(pv_query), n_c))
        bid_table[pv_codes, ac] = bids
        log = cls(PageViews(pv_query, bid_table), N, C, n_mainline=int(n_mainline), n_iter=n_iter,
                  min_impressions=min_impressions)
        log.queries = np.asarray(queries, dtype=object)
        log.ads = pairs
        return log

    def pclick_table(self, frame: pd.DataFrame, *, query="query", ad="ad", pclick="pclick") -> np.ndarray:
        """A model's pClick per (query, ad) pair, as the ``(n_queries, n_candidates)`` table of this log.

        Parameters
        ----------
        frame : pandas.DataFrame
            Columns ``query``, ``ad`` and ``pclick`` (one row per pair).
        query, ad, pclick : str
            Column names.

        Returns
        -------
        ndarray of shape (n_queries, n_candidates)
            0 where a query has no such candidate.  A pair of the log missing
            from ``frame`` is an error; pairs the log does not know are ignored.
        """
        ads = self.ads
        if ads is None:
            raise ValueError("`pclick_table` needs a log made by `ClickLog.from_frame`")
        missing = [c for c in (query, ad, pclick) if c not in frame.columns]
        if missing:
            raise ValueError(f"`frame` lacks the column(s) {missing}; it has {list(frame.columns)}")
        if frame.duplicated([query, ad]).any():
            raise ValueError("`frame` must have one row per (query, ad) pair")
        p = check_probability(frame[pclick].to_numpy(), "frame[pclick]")
        pos = pd.MultiIndex.from_frame(frame[[query, ad]].set_axis(["query", "ad"], axis=1)).get_indexer(
            pd.MultiIndex.from_frame(ads[["query", "ad"]]))
        if (pos < 0).any():
            raise ValueError(f"`frame` has no pClick for {int((pos < 0).sum())} (query, ad) pair(s) of the log, "
                             f"e.g. {ads.loc[pos < 0, ['query', 'ad']].head(3).to_dict('records')}")
        out = np.zeros(self.impressions.shape[:2])
        out[ads["query_code"].to_numpy(), ads["candidate"].to_numpy()] = p[pos]
        return out

    @classmethod
    def from_impressions(cls, page_views: PageViews, impressions: Impressions, *, n_queries, n_candidates, n_slots, n_iter=200,
                         min_impressions=1):
        """Aggregate served impressions into a log (counts per query, ad and slot).

        Parameters
        ----------
        page_views : PageViews
            The auctions that were served.
        impressions : Impressions
            What :func:`serve` showed on them.
        n_queries, n_candidates, n_slots : int
            The shape of the log's tables.
        n_iter : int, default 200
            Iterations of the click-curve fit.
        min_impressions : int, default 1
            See :class:`ClickLog`.
        """
        N, C = _log_counts(impressions.query, impressions.ad, impressions.slot, impressions.click,
                           (n_queries, n_candidates, n_slots))
        return cls(page_views, N, C, n_mainline=impressions.n_mainline, n_iter=n_iter, min_impressions=min_impressions)

    def with_min_impressions(self, min_impressions: int) -> ClickLog:
        """The same log (no refit) with another :attr:`min_impressions`.

        Parameters
        ----------
        min_impressions : int
            See :class:`ClickLog`.
        """
        check_int(min_impressions, "min_impressions", low=1)
        out = copy.copy(self)
        out.min_impressions = int(min_impressions)
        return out

    @property
    def n_slots(self) -> int:
        return self.impressions.shape[2]

    def expected_ctr(self, query, ad, slot):
        """Estimated click probability of (query, ad) shown in ``slot``, from the logs only.

        Returns ``(ctr, source)`` with ``source`` 0 = historic CTR of the pair
        at that slot (when it has at least :attr:`min_impressions` impressions
        there), 1 = pair CTR calibrated by the click curve, 2 = the slot's
        reference CTR (yi Section 4.6, in that order).

        Parameters
        ----------
        query, ad, slot : array-like of int
            Codes of the query, of the ad among the query's candidates, and of the slot (broadcast together).
        """
        n = self.impressions[query, ad, slot]
        c = self.clicks[query, ad, slot]
        pair = self.pair_ctr[query, ad]
        same = n >= self.min_impressions
        calibrated = ~same & ~np.isnan(pair)
        ctr = np.where(same, c / np.where(same, n, 1.0),
                       np.where(calibrated, np.nan_to_num(pair) * self.click_curve[slot], self.reference_ctr[slot]))
        source = np.where(same, 0, np.where(calibrated, 1, 2))
        return ctr, source


def _check_counts_3d(x, name):
    reject_masked(x, name)
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


def _log_counts(query, ad, slot, click, shape):
    """Impressions and clicks per (query, ad, slot), as two arrays of ``shape``."""
    n_q, n_c, n_s = shape
    key = (np.asarray(query) * n_c + np.asarray(ad)) * n_s + np.asarray(slot)
    size = n_q * n_c * n_s
    N = np.bincount(key, minlength=size).astype(np.float64).reshape(shape)
    C = np.bincount(key, weights=click, minlength=size).reshape(shape)
    return N, C


#: Bound on the cells of a log's dense tables built by :meth:`ClickLog.from_frame` (with 64 per input row).
MAX_LOG_CELLS = 1 << 25

#: The thresholds :func:`cross_validate_min_impressions` tries by default.
MIN_IMPRESSIONS_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)


def cross_validate_min_impressions(page_views: PageViews, impressions: Impressions, *, n_queries, n_candidates, n_slots,
                                   grid=MIN_IMPRESSIONS_GRID, n_folds: int = 2, rng=0, n_iter: int = 200) -> pd.DataFrame:
    """Choose :attr:`ClickLog.min_impressions` from the logs alone, by K-fold cross-validation over page views.

    The logged page views are split into ``n_folds`` folds at random; for
    each fold a log is built from the other folds' impressions, and every
    held-out impression's click is predicted by :meth:`ClickLog.expected_ctr`
    at each threshold of ``grid``.  The score is the held-out squared error
    summed over folds (rounded to 1e-6, so the choice does not hinge on a
    float's last bits); the chosen threshold is the smallest with the least
    error.  Nothing but the logs is used: no true CTR, no online result.

    Parameters
    ----------
    page_views : PageViews
        The logged auctions.
    impressions : Impressions
        What was shown on them, with the observed clicks.
    n_queries, n_candidates, n_slots : int
        The shape of the log's tables.
    grid : sequence of int >= 1
        Thresholds to try.
    n_folds : int, default 2
        At least 2 and at most the number of page views (each fold needs
        page views; a larger request is an error before any work).
    rng : None, int or numpy.random.Generator
        Draws the folds.
    n_iter : int, default 200
        Iterations of each fold's click-curve fit.

    Returns
    -------
    pandas.DataFrame
        One row per threshold: ``min_impressions``, ``squared_error``,
        ``chosen`` (True on one row).
    """
    grid = [check_int(k, "grid", low=1) for k in np.atleast_1d(np.asarray(grid, dtype=object))]
    if not grid:
        raise ValueError("`grid` must hold at least one threshold")
    _check_page_views(page_views)
    if not isinstance(impressions, Impressions):
        raise InputTypeError(f"`impressions` must be an Impressions; got {type(impressions).__name__}")
    check_int(n_folds, "n_folds", low=2, high=max(2, len(page_views)))
    for name, k in (("n_queries", n_queries), ("n_candidates", n_candidates), ("n_slots", n_slots)):
        check_int(k, name, low=1)
    check_work(n_queries * n_candidates * n_slots, "n_queries", n_queries,
               limit=max(MAX_LOG_CELLS, 64 * len(impressions.query)), what="cells of the dense (query, candidate, slot) tables")
    if len(grid) > 1000:
        raise ValueError(f"`grid` must hold at most 1000 thresholds; got {len(grid)}")
    check_int(n_iter, "n_iter", low=0, high=10**6)
    gen = check_rng(rng)
    fold = gen.integers(0, n_folds, len(page_views))[impressions.page_view]
    shape = (n_queries, n_candidates, n_slots)
    err = np.zeros(len(grid))
    for f in range(n_folds):
        train, test = fold != f, fold == f
        N, C = _log_counts(impressions.query[train], impressions.ad[train], impressions.slot[train],
                           impressions.click[train], shape)
        with warnings.catch_warnings():  # a fold may lack a rarely used slot: its reference CTR is 0
            warnings.simplefilter("ignore", OfflineEvalWarning)
            log = ClickLog(page_views, N, C, n_mainline=impressions.n_mainline, n_iter=n_iter)
        q, a, s, y = impressions.query[test], impressions.ad[test], impressions.slot[test], impressions.click[test]
        for i, k in enumerate(grid):
            est, _ = log.with_min_impressions(k).expected_ctr(q, a, s)
            err[i] += float(np.sum((y - est) ** 2))
    err = np.round(err, 6)
    chosen = int(np.flatnonzero(err == err.min())[0])
    return pd.DataFrame({"min_impressions": grid, "squared_error": err, "chosen": np.arange(len(grid)) == chosen})


class SimulatedMetrics(NamedTuple):
    """Simulated metrics of a model on the logged auctions (:func:`simulate`)."""

    cy: float  #: estimated clicks per page view
    ml_cy: float  #: estimated mainline clicks per page view
    ads_per_pv: float
    ml_ads_per_pv: float
    revenue_per_pv: float
    share_same_slot: float  #: share of shown ads whose CTR is the pair's historic CTR at that slot
    share_calibrated: float  #: ... the pair's CTR calibrated by the click curve
    share_reference: float  #: ... the slot's reference CTR


def simulate(log: ClickLog, pclick, *, op=None) -> SimulatedMetrics:
    """Simulated metrics: re-run every logged auction with new scores (yi Section 4.6).

    Parameters
    ----------
    log : ClickLog
    pclick : array-like of shape (n_queries, n_candidates)
        The new model's pClick per (query, ad).
    op : OperatingPoint, optional

    Returns
    -------
    SimulatedMetrics
        ``cy`` and ``ml_cy`` (estimated clicks per page view, overall and
        mainline), ``ads_per_pv``, ``ml_ads_per_pv``, ``revenue_per_pv`` and
        the shares of shown ads whose CTR came from each rule:
        ``share_same_slot``, ``share_calibrated``, ``share_reference``.

    Notes
    -----
    The auctions are the logged ones (same queries and candidate bids); only
    the scores and the operating point change.  The click estimate of a shown
    ad is :meth:`ClickLog.expected_ctr`, so nothing of the true world is used.
    When the log holds every (query, ad, slot) with exact CTRs the simulated
    click yield equals the true expected click yield of the same page views.
    """
    op = _op(op)
    p = _check_log_pclick(log, pclick)
    pv = log.page_views
    alloc = allocate(pv.bids, p[pv.query], alpha=op.alpha, reserve=op.reserve, mainline_reserve=op.mainline_reserve,
                     n_mainline=log.n_mainline, n_sidebar=log.n_slots - log.n_mainline)
    a, ad, slot, cpc = alloc.shown()
    ctr, source = log.expected_ctr(pv.query[a], ad, slot)
    n = len(pv)
    ml = slot < log.n_mainline
    m = max(len(a), 1)
    return SimulatedMetrics(
        cy=float(ctr.sum() / n), ml_cy=float(ctr[ml].sum() / n),
        ads_per_pv=float(len(a) / n), ml_ads_per_pv=float(ml.sum() / n),
        revenue_per_pv=float(np.dot(ctr, cpc) / n),
        share_same_slot=float((source == 0).sum() / m), share_calibrated=float((source == 1).sum() / m),
        share_reference=float((source == 2).sum() / m),
    )


def _check_log_pclick(log, pclick):
    """A model's pClick table for the log: its (query, candidate) shape, probabilities in [0, 1]."""
    if not isinstance(log, ClickLog):
        raise InputTypeError(f"`log` must be a ClickLog; got {type(log).__name__}")
    q_n, k, _ = log.impressions.shape
    p = check_matrix(pclick, "pclick", allow_empty=True)
    if p.shape != (q_n, k):  # no broadcast of a wrong-shaped table
        raise ValueError(f"`pclick` must have shape {(q_n, k)}; got {p.shape}")
    if ((p < 0) | (p > 1)).any():
        raise ValueError(f"`pclick` must lie in [0, 1]; got {int(((p < 0) | (p > 1)).sum())} values outside")
    return p


def _check_quantiles(quantiles, name):
    if isinstance(quantiles, (str, bytes)):
        raise ValueError(f"`{name}` must be numbers in [0, 1]; got {quantiles!r}")
    if not np.isscalar(quantiles) and not isinstance(quantiles, np.ndarray):
        quantiles = list(quantiles)  # an iterator is read once, here
    reject_masked(quantiles, name)
    q = np.asarray(quantiles)
    if q.dtype.kind not in "iuf" or q.ndim > 1:
        raise ValueError(f"`{name}` must be a number or a 1-D sequence of numbers in [0, 1]; got {quantiles!r}")
    q = q.astype(np.float64)
    if not (np.isfinite(q).all() and ((q >= 0) & (q <= 1)).all()):
        raise ValueError(f"`{name}` must lie in [0, 1]; got {quantiles!r}")
    return q


def rank_score_quantiles(log: ClickLog, pclick, *, alpha, quantiles) -> np.ndarray:
    """Quantiles of the positive rank scores :math:`b p^\\alpha` over the logged auctions.

    A scale-free way to place reserves: the rank-score scale changes with
    ``alpha``, the quantiles do not.

    Parameters
    ----------
    log : ClickLog
    pclick : array-like of shape (n_queries, n_candidates)
        The model's pClick per (query, ad).
    alpha : float >= 0
        Click investment power of the rank score.
    quantiles : float or sequence of float in [0, 1]
    """
    check_real(alpha, "alpha", low=0)
    q = _check_quantiles(quantiles, "quantiles")
    p = _check_log_pclick(log, pclick)[log.page_views.query]
    r = _rank_scores(log.page_views.bids, p, float(alpha))
    r = r[r > 0]
    if r.size == 0:
        raise ValueError("`pclick`: no logged candidate has a positive rank score (all pClicks or bids are 0), "
                         "so there is no quantile to place a reserve at")
    return np.quantile(r, q)


def sweep_operating_points(log: ClickLog, pclick, *, alphas, mainline_quantiles, reserve_quantile=None) -> pd.DataFrame:
    """Simulated metrics over a grid of operating points.

    Parameters
    ----------
    log : ClickLog
    pclick : array-like of shape (n_queries, n_candidates)
    alphas : sequence of float
        Click investment powers to try.
    mainline_quantiles : sequence of float in [0, 1]
        Mainline reserves, as quantiles of the model's rank scores on the
        logged auctions (:func:`rank_score_quantiles`) at each ``alpha``.
    reserve_quantile : float, optional
        The (sidebar) reserve as a quantile likewise; default no reserve.

    Returns
    -------
    pandas.DataFrame
        One row per operating point: ``alpha``, ``mainline_quantile``,
        ``reserve``, ``mainline_reserve`` and the keys of :func:`simulate`.
    """
    p = _check_log_pclick(log, pclick)
    alphas = [check_real(a, "alphas", low=0) for a in _check_quantiles_free(alphas, "alphas")]
    mainline_quantiles = _check_quantiles(mainline_quantiles, "mainline_quantiles").tolist()
    if np.ndim(mainline_quantiles) != 1:
        raise ValueError(f"`mainline_quantiles` must be a sequence; got {mainline_quantiles!r}")
    if reserve_quantile is not None:
        check_real(reserve_quantile, "reserve_quantile", low=0, high=1)
    pclick = p
    rows = []
    for alpha in alphas:
        res = 0.0 if reserve_quantile is None else float(rank_score_quantiles(log, pclick, alpha=alpha, quantiles=reserve_quantile))
        for q, ml_res in zip(mainline_quantiles, rank_score_quantiles(log, pclick, alpha=alpha, quantiles=list(mainline_quantiles))):
            op = OperatingPoint(float(alpha), res, max(float(ml_res), res))
            rows.append(dict(alpha=float(alpha), mainline_quantile=float(q), reserve=op.reserve,
                             mainline_reserve=op.mainline_reserve, **simulate(log, pclick, op=op)._asdict()))
    return pd.DataFrame(rows)


def _check_quantiles_free(values, name):
    """A sequence of numbers (an iterator is read once), as a list."""
    if isinstance(values, (str, bytes)) or np.isscalar(values):
        raise ValueError(f"`{name}` must be a sequence of numbers; got {values!r}")
    reject_masked(values, name)
    return list(values)


def best_operating_point(sweep: pd.DataFrame, *, objective="cy", max_ml_ads_per_pv=None):
    """The operating point of a sweep with the highest simulated ``objective``.

    Parameters
    ----------
    sweep : DataFrame from :func:`sweep_operating_points`
    objective : str, default "cy"
        Column to maximise.
    max_ml_ads_per_pv : float, optional
        Constraint: at most this many mainline ads per page view (a
        user-experience budget; without it the best point simply fills the
        mainline).

    Returns
    -------
    (OperatingPoint, pandas.Series)
        The point and its sweep row.  Ties go to the first row.
    """
    if not isinstance(sweep, pd.DataFrame):
        raise InputTypeError(f"`sweep` must be the DataFrame of sweep_operating_points; got {type(sweep).__name__}")
    if max_ml_ads_per_pv is not None:
        check_real(max_ml_ads_per_pv, "max_ml_ads_per_pv", low=0)
    numeric = [c for c in sweep.columns if c not in ("alpha", "reserve", "mainline_reserve", "mainline_quantile")
               and pd.api.types.is_numeric_dtype(sweep[c])]
    if objective not in numeric:
        raise ValueError(f"`objective` must be a metric column of the sweep ({', '.join(numeric)}); got {objective!r}")
    ok = sweep if max_ml_ads_per_pv is None else sweep[sweep["ml_ads_per_pv"] <= max_ml_ads_per_pv + 1e-12]
    if ok.empty:
        raise ValueError(f"no operating point has at most {max_ml_ads_per_pv} mainline ads per page view")
    row = ok.loc[ok[objective].idxmax()]
    return OperatingPoint(row["alpha"], row["reserve"], row["mainline_reserve"]), row
