"""The logged-click data and its ingestion: logged auctions, impressions and the click log of yi Section 4.6.

:class:`PageViews` (the auctions of a stream of page views: each one's query and its candidates' bids),
:class:`Impressions` (the ads shown, one row per impression, with the clicks) and :class:`ClickLog` (impressions
and clicks per (query, ad, slot), with the click curve fitted from the logs alone); :meth:`ClickLog.from_frame`
reads a log from two data frames, :meth:`ClickLog.from_impressions` aggregates served impressions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._validation import (
    asarray_named,
    InputTypeError,
    as_1d,
    as_array,
    check_aligned,
    check_int,
    check_matrix,
    check_nonnegative,
    check_probability,
    check_work,
    reject_masked,
    warn_undefined,
)

__all__ = ["ClickLog", "Impressions", "MAX_LOG_CELLS", "PageViews"]

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


def check_page_views(page_views, name="page_views"):
    """Raise :class:`~offline_eval._validation.InputTypeError` unless ``page_views`` is a :class:`PageViews`."""
    if not isinstance(page_views, PageViews):
        raise InputTypeError(f"`{name}` must be a PageViews; got {type(page_views).__name__}")


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
        check_page_views(page_views)
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
        if count is None:
            # one impression per row: a click happened or not (fractional clicks need a `count` column)
            bad = (clicks != 0) & (clicks != 1)
            if bad.any():
                raise ValueError(f"`impressions[click]` must be 0 or 1 per impression without a `count` column; got "
                                 f"{int(bad.sum())} other value(s) (e.g. {np.unique(clicks[bad])[:3].tolist()}); pass "
                                 "`count` for rows that aggregate impressions")
            shown = np.ones(len(impressions))
        else:
            shown = check_nonnegative(impressions[count].to_numpy(), "impressions[count]")
            over = clicks > shown
            if over.any():
                raise ValueError(f"`impressions[click]` has more clicks than impressions (`impressions[count]`) in "
                                 f"{int(over.sum())} row(s), e.g. {clicks[over][0]:g} clicks of {shown[over][0]:g}")
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
        N, C = log_counts(impressions.query, impressions.ad, impressions.slot, impressions.click,
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
        try:
            # The rule per (query, ad, slot) cell once, then one gather per call: a replay asks for
            # hundreds of thousands of shown ads over a few thousand cells.  Element by element the same
            # operations as _expected_ctr, so the same bits.
            flat = np.ravel_multi_index(np.broadcast_arrays(query, ad, slot), self.impressions.shape)
        except (TypeError, ValueError):  # negative or out-of-range codes, non-integers: index as given
            return self._expected_ctr(query, ad, slot)
        ctr, source = self._ctr_table()
        return ctr[flat], source[flat].astype(np.int64)

    def _ctr_table(self):
        parts = (self.impressions, self.clicks, self.pair_ctr, self.click_curve, self.reference_ctr)
        cached = self.__dict__.get("_ctr_cache")
        if (cached is None or cached[0] != self.min_impressions
                or any(x is not y for x, y in zip(cached[1], parts))):
            q, a, s = np.indices(self.impressions.shape, sparse=True)
            ctr, source = self._expected_ctr(q, a, s)
            # the rule's code in one byte: a replay gathers it for every shown ad
            cached = (self.min_impressions, parts, (ctr.ravel(), source.ravel().astype(np.int8)))
            self._ctr_cache = cached
        return cached[2]

    def _expected_ctr(self, query, ad, slot):
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
    arr = asarray_named(x, name)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


def log_counts(query, ad, slot, click, shape):
    """Impressions and clicks per (query, ad, slot), as two arrays of ``shape``."""
    n_q, n_c, n_s = shape
    key = (np.asarray(query) * n_c + np.asarray(ad)) * n_s + np.asarray(slot)
    size = n_q * n_c * n_s
    N = np.bincount(key, minlength=size).astype(np.float64).reshape(shape)
    C = np.bincount(key, weights=click, minlength=size).reshape(shape)
    return N, C


#: Bound on the cells of a log's dense tables built by :meth:`ClickLog.from_frame` (with 64 per input row).
MAX_LOG_CELLS = 1 << 25
