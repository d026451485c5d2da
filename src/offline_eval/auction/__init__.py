"""Sponsored-search auctions: GSP allocation and pricing, the logged-click data, the *auction simulation* of
yi Section 4.6 (simulated metrics from logs) and the statistics of online A/B tests.

One module per concept, all vectorised over auctions (arrays of shape ``(n_auctions, n_candidates)``):

:mod:`~offline_eval.auction.allocation`
    :func:`allocate`, the generalized second-price auction of yi Section 2.1: rank score
    :math:`r = b p^\\alpha`, allocation in descending rank score into mainline (above a mainline reserve) and
    sidebar slots, price per click :math:`c_i = b_{i+1} p_{i+1}^\\alpha / p_i^\\alpha`; :class:`OperatingPoint`.
:mod:`~offline_eval.auction.logs`
    the logged-click data: :class:`PageViews`, :class:`Impressions`, :class:`ClickLog` and its ingestion from
    data frames (:meth:`ClickLog.from_frame`).
:mod:`~offline_eval.auction.replay`
    the offline replay: every logged auction is re-run with a new model's scores and the clicks of the ads it
    selects are estimated from the logs only (historic CTR of the (query, ad) pair at that position; else the
    pair's CTR calibrated by the click curve; else the position's reference CTR): :func:`simulate`
    (:func:`simulate_served` for ads already served), :func:`sweep_operating_points` (:func:`sweep_logs` on several
    logs of the same auctions), :func:`best_operating_point`, :func:`cross_validate_min_impressions`.
:mod:`~offline_eval.auction.abtest`
    the A/B statistics: click yield (clicks per page view) with its sampling error (:func:`click_yield`), the
    relative deltas of two arms with theirs (:func:`compare_click_yields`).

The online world (a marketplace's true CTRs, the page views it draws, their serving and an A/B test in it:
:class:`SponsoredWorld`, :func:`sample_page_views`, :func:`serve`, :func:`ab_test`) is a generator and lives in
:mod:`offline_eval.synth.search_world`: generators sit above the library's types, never the other way round.
"""

from __future__ import annotations

from .abtest import ABTest, ClickYield, click_yield, compare_click_yields
from .allocation import Allocation, OperatingPoint, allocate
from .logs import ClickLog, Impressions, PageViews
from .replay import (
    MIN_IMPRESSIONS_GRID,
    SimulatedMetrics,
    best_operating_point,
    cross_validate_min_impressions,
    rank_score_quantiles,
    simulate,
    simulate_served,
    sweep_logs,
    sweep_operating_points,
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
    "allocate",
    "best_operating_point",
    "click_yield",
    "compare_click_yields",
    "cross_validate_min_impressions",
    "MIN_IMPRESSIONS_GRID",
    "rank_score_quantiles",
    "simulate",
    "simulate_served",
    "sweep_logs",
    "sweep_operating_points",
]

