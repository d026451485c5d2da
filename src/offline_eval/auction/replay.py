"""Replay and operating points: the *auction simulation* of yi Section 4.6 (simulated metrics from logs).

Every logged auction is re-run with a new model's scores (:func:`simulate`) and the clicks of the ads it selects
are estimated from the logs only (:meth:`~offline_eval.auction.ClickLog.expected_ctr`: the historic CTR of the
(query, ad) pair at that position; else the pair's CTR calibrated by the click curve; else the position's
reference CTR).  :func:`sweep_operating_points` replays a grid of operating points and
:func:`best_operating_point` picks one; :func:`cross_validate_min_impressions` chooses the log's threshold for
a historic CTR from the logs alone.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import pandas as pd

from .._validation import (
    asarray_named,
    InputTypeError,
    OfflineEvalWarning,
    check_int,
    check_matrix,
    check_real,
    check_rng,
    check_work,
    reject_masked,
)
from .._results import short_repr
from .allocation import (OperatingPoint, as_operating_point, engine_inputs, iter_shown_at_points, rank_scores,
                         shown_at_points)
from .logs import MAX_LOG_CELLS, ClickLog, Impressions, PageViews, check_page_views, log_counts

__all__ = ["MIN_IMPRESSIONS_GRID", "SimulatedMetrics", "best_operating_point", "cross_validate_min_impressions",
           "rank_score_quantiles", "simulate", "simulate_served", "sweep_logs", "sweep_operating_points"]

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
    check_page_views(page_views)
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
        N, C = log_counts(impressions.query[train], impressions.ad[train], impressions.slot[train],
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

    def __repr__(self) -> str:
        return short_repr("SimulatedMetrics", **self._asdict())


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

    Examples
    --------
    Two logged page views of one query: ad 0 had CTR 2/10 in the mainline slot, ad 1 CTR 1/10 in the sidebar
    slot.  Scores that keep that order re-create the logged pages, so each page view yields 0.2 + 0.1 clicks,
    all from the pairs' historic CTRs; ad 0 pays 1 * (0.5 * 0.4) / (1 * 0.5) = 0.4 per click:

    >>> N = np.array([[[10.0, 0.0], [0.0, 10.0]]])  # impressions per (query, ad, slot)
    >>> C = np.array([[[2.0, 0.0], [0.0, 1.0]]])  # clicks
    >>> log = ClickLog(PageViews(np.array([0, 0]), np.array([[1.0, 0.5], [1.0, 0.5]])), N, C, n_mainline=1)
    >>> s = simulate(log, [[0.5, 0.4]])
    >>> round(s.cy, 6), round(s.ml_cy, 6), s.share_same_slot, round(s.revenue_per_pv, 6)
    (0.3, 0.2, 1.0, 0.08)
    """
    op = as_operating_point(op)
    p = _check_log_pclick(log, pclick)
    pv = log.page_views
    # The log's bids (a PageViews) and the pClick table are checked: the engine of allocate, without its checks.
    b, pq = engine_inputs(pv.bids, p[pv.query])
    queries = _log_queries(log)
    shown = shown_at_points(b, pq, [op], log.n_mainline, log.n_slots - log.n_mainline, query=queries,
                            n_slots=log.n_slots, ads=queries is None)
    return _replayed_metrics(log, shown[0])


def simulate_served(log: ClickLog, impressions: Impressions) -> SimulatedMetrics:
    """Simulated metrics of ads already served on the logged auctions, without re-running the auctions.

    :func:`simulate` ranks the logged auctions with a model's scores and replays the ads it shows; when those
    ads are known -- the logs' own model at the logging operating point shows exactly the logged impressions --
    this replays them directly: ``simulate_served(log, serve(world, pclick, log.page_views, op=op))`` is
    ``simulate(log, pclick, op=op)``, bit for bit.

    Parameters
    ----------
    log : ClickLog
    impressions : Impressions
        Ads shown on ``log.page_views``, in the order :func:`~offline_eval.synth.search_world.serve` gives them
        (page view by page view, each one's ranks in order).

    Returns
    -------
    SimulatedMetrics

    Notes
    -----
    Only the impressions' page views, ads, slots and prices are used, not their clicks.  Their consistency with
    the log is checked (the number of page views and mainline slots, each impression's query); that they are
    what ``pclick`` at ``op`` shows is the caller's statement.

    Examples
    --------
    The log of :func:`simulate`'s example, its two page views showing their logged pages again:

    >>> N = np.array([[[10.0, 0.0], [0.0, 10.0]]])
    >>> C = np.array([[[2.0, 0.0], [0.0, 1.0]]])
    >>> log = ClickLog(PageViews(np.array([0, 0]), np.array([[1.0, 0.5], [1.0, 0.5]])), N, C, n_mainline=1)
    >>> imp = Impressions(np.array([0, 0, 1, 1]), np.array([0, 0, 0, 0]), np.array([0, 1, 0, 1]),
    ...                   np.array([0, 1, 0, 1]), np.zeros(4), np.zeros(4), np.array([0.4, 0.0, 0.4, 0.0]), 2, 1)
    >>> s = simulate_served(log, imp)
    >>> round(s.cy, 6), round(s.revenue_per_pv, 6)
    (0.3, 0.08)
    """
    if not isinstance(log, ClickLog):
        raise InputTypeError(f"`log` must be a ClickLog; got {type(log).__name__}")
    if not isinstance(impressions, Impressions):
        raise InputTypeError(f"`impressions` must be an Impressions; got {type(impressions).__name__}")
    pv = log.page_views
    if impressions.n_page_views != len(pv) or impressions.n_mainline != log.n_mainline:
        raise ValueError(f"`impressions` must be served on the log's {len(pv)} page views with {log.n_mainline} "
                         f"mainline slots; got {impressions.n_page_views} page views and {impressions.n_mainline}")
    a, ad, slot, cpc = (np.asarray(getattr(impressions, k)) for k in ("page_view", "ad", "slot", "cpc"))
    q_n, k, n_slots = log.impressions.shape
    if not (len(a) == len(ad) == len(slot) == len(cpc) == len(impressions.query)):
        raise ValueError("`impressions` must have one page view, query, ad, slot and price per impression")
    for name, x, high in (("page_view", a, len(pv)), ("ad", ad, k), ("slot", slot, n_slots)):
        if x.dtype.kind not in "iu" or (x.size and (x.min() < 0 or x.max() >= high)):
            raise ValueError(f"`impressions.{name}` must be integer codes in [0, {high}); got out-of-range values")
    if not np.array_equal(np.asarray(impressions.query), np.asarray(pv.query)[a]):
        raise ValueError("`impressions.query` must be the query of each impression's logged page view")
    queries = _log_queries(log)
    cell = None if queries is None else (queries[a] * k + ad) * n_slots + slot
    return _replayed_metrics(log, (a, ad, slot, cpc, cell))


def _log_queries(log: ClickLog):
    """The logged auctions' query codes when every one indexes the log's tables (else ``None``: the replay then
    looks the CTRs up through :meth:`ClickLog.expected_ctr`, which handles other codes)."""
    q = np.asarray(log.page_views.query)
    if q.dtype.kind not in "iu" or (q.size and (q.min() < 0 or q.max() >= log.impressions.shape[0])):
        return None
    return q


def _replayed_metrics(log: ClickLog, shown) -> SimulatedMetrics:
    """The metrics of :func:`simulate` from the ads the new allocation shows (``Allocation.shown()``, or
    :func:`~offline_eval.auction.allocation.shown_at_points`'s tuples with each shown ad's cell of the log's
    tables as a fifth array)."""
    pv = log.page_views
    a, ad, slot, cpc = shown[:4]
    if len(shown) > 4 and shown[4] is not None:
        # The cell's flat index is the one expected_ctr computes: the same gather of the same table.
        ctr_table, source_table = log._ctr_table()
        ctr, source = ctr_table.take(shown[4]), source_table.take(shown[4])
    else:
        ctr, source = log.expected_ctr(pv.query[a], ad, slot)
    n = len(pv)
    ml = slot < log.n_mainline
    m = max(len(slot), 1)
    by_source = [np.count_nonzero(source == rule) for rule in (0, 1, 2)]  # the shown ads per rule: exact counts
    return SimulatedMetrics(
        cy=float(ctr.sum() / n), ml_cy=float(ctr[ml].sum() / n),
        ads_per_pv=float(len(slot) / n), ml_ads_per_pv=float(np.count_nonzero(ml) / n),
        revenue_per_pv=float(np.dot(ctr, cpc) / n),
        share_same_slot=float(by_source[0] / m),
        share_calibrated=float(by_source[1] / m),
        share_reference=float(by_source[2] / m),
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
    if isinstance(quantiles, (str, bytes)) or quantiles is None:
        raise ValueError(f"`{name}` must be numbers in [0, 1]; got {quantiles!r}")
    if not np.isscalar(quantiles) and not isinstance(quantiles, np.ndarray):
        quantiles = list(quantiles)  # an iterator is read once, here
    reject_masked(quantiles, name)
    q = asarray_named(quantiles, name)
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
    r = rank_scores(log.page_views.bids, p, float(alpha))
    r = r[r > 0]
    if r.size == 0:
        raise ValueError("`pclick`: no logged candidate has a positive rank score (all pClicks or bids are 0), "
                         "so there is no quantile to place a reserve at")
    return np.quantile(r, q)


def sweep_operating_points(log: ClickLog, pclick, *, alphas, mainline_quantiles, reserve_quantile=None,
                           points=None):
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
    points : sequence of OperatingPoint, optional
        Further operating points to simulate beside the grid (not rows of the
        frame); a point whose alpha is one of ``alphas`` shares that alpha's
        ranking of the logged auctions.

    Returns
    -------
    pandas.DataFrame
        One row per operating point: ``alpha``, ``mainline_quantile``,
        ``reserve``, ``mainline_reserve`` and the keys of :func:`simulate`.
        With ``points``, the pair ``(frame, metrics)``: ``metrics[j]`` is
        ``simulate(log, pclick, op=points[j])``, bit for bit.
    """
    frames, metrics = _sweep([log], pclick, alphas, mainline_quantiles, reserve_quantile, points)
    return frames[0] if points is None else (frames[0], metrics[0])


def sweep_logs(logs, pclick, *, alphas, mainline_quantiles, reserve_quantile=None, points=None) -> list:
    """:func:`sweep_operating_points` of one model on several logs of the same logged auctions.

    The logs share their page views (the same queries and bids) and differ in their impressions and clicks,
    e.g. the logs of two baselines serving the same page views: the auctions are ranked and the points' ads
    placed once, then replayed on each log.

    Parameters
    ----------
    logs : sequence of ClickLog
        At least one; their page views equal (queries and bids).
    pclick, alphas, mainline_quantiles, reserve_quantile, points
        As in :func:`sweep_operating_points`.

    Returns
    -------
    list
        Element ``i`` is ``sweep_operating_points(logs[i], pclick, ...)`` (a frame, or ``(frame, metrics)``
        with ``points``).
    """
    if isinstance(logs, ClickLog) or not isinstance(logs, (list, tuple)) or not logs:
        raise ValueError("`logs` must be a non-empty list or tuple of ClickLog")
    frames, metrics = _sweep(list(logs), pclick, alphas, mainline_quantiles, reserve_quantile, points)
    return frames if points is None else list(zip(frames, metrics))


def _sweep(logs, pclick, alphas, mainline_quantiles, reserve_quantile, points):
    """The frames of :func:`sweep_logs` and the metrics at ``points`` (a list per log)."""
    log = logs[0]
    p = _check_log_pclick(log, pclick)
    for other in logs[1:]:
        _check_log_pclick(other, p)
        if other.n_mainline != log.n_mainline or other.impressions.shape != log.impressions.shape:
            raise ValueError("`logs` must have the same tables' shape and mainline slots")
        a, b = other.page_views, log.page_views
        if a is not b and not (np.array_equal(a.query, b.query) and np.array_equal(a.bids, b.bids)):
            raise ValueError("`logs` must share their page views (the same queries and bids)")
    alphas = [check_real(a, "alphas", low=0) for a in _check_quantiles_free(alphas, "alphas")]
    mainline_quantiles = _check_quantiles(mainline_quantiles, "mainline_quantiles").tolist()
    if np.ndim(mainline_quantiles) != 1:
        raise ValueError(f"`mainline_quantiles` must be a sequence; got {mainline_quantiles!r}")
    if reserve_quantile is not None:
        check_real(reserve_quantile, "reserve_quantile", low=0, high=1)
    if points is not None:
        if isinstance(points, (OperatingPoint, dict)) or np.isscalar(points):
            raise ValueError("`points` must be a sequence of operating points")
        points = [as_operating_point(op) for op in points]
    pclick = p
    pv = log.page_views
    queries = _log_queries(log)
    rows = [[] for _ in logs]
    at_points = [[None] * len(points or ()) for _ in logs]
    extra = set(range(len(points or ())))
    for alpha in alphas:
        res = 0.0 if reserve_quantile is None else float(rank_score_quantiles(log, pclick, alpha=alpha, quantiles=reserve_quantile))
        ops = [OperatingPoint(float(alpha), res, max(float(ml_res), res))
               for ml_res in rank_score_quantiles(log, pclick, alpha=alpha, quantiles=list(mainline_quantiles))]
        # the further points of this alpha share its ranking; with the grid's points beside them each point's
        # ads and prices are the bits a ranking of its own gives (shown_at_points)
        mine = [j for j in sorted(extra) if float(points[j].alpha) == float(alpha)]
        extra -= set(mine)
        # One ranking of the logged auctions per alpha; only the reserves' placement differs between the points.
        # Each point is replayed on every log as soon as it is placed, before the next one (one point's arrays at a time).
        b, pq = engine_inputs(pv.bids, pclick[pv.query])
        shown = iter_shown_at_points(b, pq, ops + [points[j] for j in mine], log.n_mainline,
                                     log.n_slots - log.n_mainline, query=queries, n_slots=log.n_slots,
                                     ads=queries is None)
        for q, op, s in zip(mainline_quantiles, ops, shown):
            for i, lg in enumerate(logs):
                rows[i].append(dict(alpha=float(alpha), mainline_quantile=float(q), reserve=op.reserve,
                                    mainline_reserve=op.mainline_reserve, **_replayed_metrics(lg, s)._asdict()))
        for j, s in zip(mine, shown):
            for i, lg in enumerate(logs):
                at_points[i][j] = _replayed_metrics(lg, s)
    for j in sorted(extra):  # points of another alpha: ranked on their own, as simulate ranks them
        b, pq = engine_inputs(pv.bids, pclick[pv.query])
        shown, = shown_at_points(b, pq, [points[j]], log.n_mainline, log.n_slots - log.n_mainline, query=queries,
                                 n_slots=log.n_slots, ads=queries is None)
        for i, lg in enumerate(logs):
            at_points[i][j] = _replayed_metrics(lg, shown)
    return [pd.DataFrame(r) for r in rows], at_points


def _check_quantiles_free(values, name):
    """A sequence of numbers (an iterator is read once), as a list."""
    if isinstance(values, (str, bytes)) or np.isscalar(values) or values is None:
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
    need = ["alpha", "reserve", "mainline_reserve"] + (["ml_ads_per_pv"] if max_ml_ads_per_pv is not None else [])
    missing = [c for c in need if c not in sweep.columns]
    if missing:
        raise ValueError(f"`sweep` lacks the column(s) {missing} of sweep_operating_points; it has {list(sweep.columns)}")
    ok = sweep if max_ml_ads_per_pv is None else sweep[sweep["ml_ads_per_pv"] <= max_ml_ads_per_pv + 1e-12]
    if ok.empty:
        raise ValueError(f"no operating point has at most {max_ml_ads_per_pv} mainline ads per page view")
    if ok[objective].isna().all():
        raise ValueError(f"`objective` {objective!r} has no value in the sweep (all {len(ok)} candidate rows are NaN)")
    row = ok.loc[ok[objective].idxmax()]
    return OperatingPoint(row["alpha"], row["reserve"], row["mainline_reserve"]), row
