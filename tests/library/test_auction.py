"""GSP allocation and pricing, the online world, the click log and the auction simulation."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offline_eval import OfflineEvalWarning
from offline_eval.auction import (
    Impressions,
    cross_validate_min_impressions,
    ClickLog,
    OperatingPoint,
    allocate,
    best_operating_point,
    click_yield,
    simulate,
    sweep_operating_points,
)
from offline_eval.synth import sponsored as sp
from offline_eval.synth.search_world import ab_test, serve


# -- a slow, obviously right auction --------------------------------------------------
def auction_loop(b, p, alpha, reserve, ml_reserve, n_ml, n_sb):
    """One auction at a time: sort, fill the mainline, then the sidebar, price by the next score."""
    k = len(b)
    r = [b[j] * p[j] ** alpha for j in range(k)]
    order = sorted(range(k), key=lambda j: (-r[j], j))
    slots, prices = [-1] * k, [0.0] * k
    m = 0
    for i, j in enumerate(order):
        if m < n_ml and i == m and r[j] > 0 and r[j] >= ml_reserve and r[j] >= reserve:
            slots[i] = m
            m += 1
    s = 0
    for i, j in enumerate(order):
        if slots[i] == -1 and i >= m and s < n_sb and r[j] > 0 and r[j] >= reserve:
            slots[i] = n_ml + s
            s += 1
    for i, j in enumerate(order):
        if slots[i] >= 0:
            nxt = r[order[i + 1]] if i + 1 < k else 0.0
            floor = ml_reserve if slots[i] < n_ml else reserve
            prices[i] = max(nxt, floor) / p[j] ** alpha  # yi Section 2.1, floored at the block's reserve
    return order, slots, prices


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("reserves", [(0.0, 0.0), (0.02, 0.05), (0.0, 0.3)])
def test_allocate_equals_loop_reference(rng, alpha, reserves):
    n, k = 60, 7
    b = rng.lognormal(size=(n, k)) * (rng.random((n, k)) < 0.85)  # some absent candidates
    p = rng.uniform(0.01, 0.3, (n, k))
    res, ml = reserves
    a = allocate(b, p, alpha=alpha, reserve=res, mainline_reserve=ml, n_mainline=2, n_sidebar=3)
    for i in range(n):
        order, slots, prices = auction_loop(b[i], p[i], alpha, res, ml, 2, 3)
        assert a.ranked[i].tolist() == order
        assert a.slot[i].tolist() == slots
        np.testing.assert_allclose(a.cpc[i], prices, rtol=1e-12)


def test_allocate_shows_an_ad_whose_score_equals_the_reserve():
    # regression: a truncated sort key was compared with the reserve, so the top ad was dropped
    b, p = np.array([[1.3, 0.7, 2.1]]), np.array([[0.11, 0.23, 0.37]])
    top = float((b * p).max())
    a = allocate(b, p, mainline_reserve=top)
    assert a.ranked.tolist() == [[2, 1, 0]] and a.slot.tolist() == [[0, 3, 4]]
    assert a.cpc[0, 0] == pytest.approx(2.1)  # floored at the reserve: pays its own bid
    a = allocate(b, p, reserve=top, mainline_reserve=top)
    assert a.slot.tolist() == [[0, -1, -1]]


@pytest.mark.parametrize("alpha", [0.0, 1.0, 2.0])
@given(seed=st.integers(0, 10**6), grid=st.sampled_from([2, 3, 5]), q=st.floats(0, 1))
@settings(max_examples=40)
def test_allocate_is_exact_on_ties_and_reserves_at_scores(alpha, seed, grid, q):
    # Bids and pClicks on a coarse grid make equal rank scores common; scores one ulp apart are
    # ordered exactly; reserves are placed at a score (as quantile reserves are).
    rng = np.random.default_rng(seed)
    n, k = 40, 6
    b = rng.integers(0, grid, (n, k)) * 0.5
    p = (rng.integers(1, grid + 1, (n, k)) / (grid + 1))
    b[:, 1] = np.where((b[:, 0] > 0) & (rng.random(n) < 0.5), np.nextafter(b[:, 0], np.inf), b[:, 1])  # one ulp above
    r = b * p**alpha
    pos = np.sort(r[r > 0])
    res = float(pos[int(q * (len(pos) - 1))]) if len(pos) else 0.0
    for reserve, ml in ((0.0, res), (res, res), (res / 2, res)):
        a = allocate(b, p, alpha=alpha, reserve=reserve, mainline_reserve=ml, n_mainline=2, n_sidebar=2)
        for i in range(n):
            order, slots, prices = auction_loop(b[i], p[i], alpha, reserve, ml, 2, 2)
            assert a.ranked[i].tolist() == order
            assert a.slot[i].tolist() == slots
            np.testing.assert_allclose(a.cpc[i], prices, rtol=1e-12)


def test_ties_are_broken_by_candidate_index():
    a = allocate([[1.0, 2.0, 1.0, 2.0]], [[0.5, 0.25, 0.5, 0.25]], n_mainline=4, n_sidebar=0)
    assert a.ranked.tolist() == [[0, 1, 2, 3]]
    assert a.cpc.tolist() == [[1.0, 2.0, 1.0, 0.0]]  # equal scores pay their own bid; the last pays 0


def test_alpha_zero_ranks_by_bid(rng):
    b = rng.lognormal(size=(200, 10))
    p = rng.uniform(0.001, 0.5, (200, 10))
    a = allocate(b, p, alpha=0.0)
    np.testing.assert_array_equal(a.ranked, np.argsort(-b, axis=1, kind="stable"))


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**31), st.floats(0, 3), st.floats(0, 0.5), st.floats(0, 1), st.integers(0, 4), st.integers(0, 6))
def test_gsp_invariants(seed, alpha, reserve, extra, n_ml, n_sb):
    rng = np.random.default_rng(seed)
    b = rng.lognormal(size=(40, 9)) * (rng.random((40, 9)) < 0.8)
    p = rng.uniform(1e-4, 1, (40, 9))
    a = allocate(b, p, alpha=alpha, reserve=reserve, mainline_reserve=reserve + extra, n_mainline=n_ml, n_sidebar=n_sb)
    bid_at_rank = np.take_along_axis(b, a.ranked.astype(int), axis=1)
    shown = a.slot >= 0
    assert (a.cpc[shown] <= bid_at_rank[shown]).all()  # CPC <= bid, exactly
    assert (a.cpc[~shown] == 0).all()
    assert (np.diff(a.rank_score, axis=1) <= 0).all()  # ranks monotone
    for row in a.slot:  # shown ads occupy consecutive slots from the top, mainline before sidebar
        s = row[row >= 0]
        assert (np.diff(s) > 0).all()
        assert (row[: len(s)] >= 0).all()
        ml = s[s < n_ml]
        assert ml.tolist() == list(range(len(ml)))
        assert (s[s >= n_ml] - n_ml).tolist() == list(range(len(s) - len(ml)))
    assert (a.rank_score[a.slot >= 0] >= reserve * (1 - 1e-14)).all()


def test_raising_a_score_never_lowers_its_rank(rng):
    b = rng.lognormal(size=(300, 6))
    p = rng.uniform(0.01, 0.2, (300, 6))
    before = np.argmax(allocate(b, p).ranked == 0, axis=1)
    p2 = p.copy()
    p2[:, 0] *= 1.5
    after = np.argmax(allocate(b, p2).ranked == 0, axis=1)
    assert (after <= before).all() and (after < before).any()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(bids=[[1.0, -1.0]]), "`bids` must be non-negative"),
        (dict(pclick=[[0.5, 1.5]]), "`pclick` must lie in \\[0, 1\\]"),
        (dict(pclick=[[0.5, np.nan]]), "`pclick` must be finite"),
        (dict(bids=[1.0, 2.0]), "`bids` must be a non-empty 2-D array"),
        (dict(pclick=[[0.5, 0.5, 0.5]]), "`pclick` must have the shape of `bids`"),
        (dict(alpha=-1.0), "`alpha` must be a finite non-negative number"),
        (dict(reserve=0.5, mainline_reserve=0.1), "`mainline_reserve` must be >= `reserve`"),
        (dict(n_mainline=-1), "`n_mainline` must be a non-negative integer"),
    ],
)
def test_allocate_rejects_bad_inputs(kwargs, match):
    args = dict(bids=[[1.0, 2.0]], pclick=[[0.5, 0.5]]) | kwargs
    with pytest.raises(ValueError, match=match):
        allocate(args.pop("bids"), args.pop("pclick"), **args)


def test_large_batch_crosses_blocks(rng):
    b = rng.lognormal(size=(40_000, 10))
    p = rng.uniform(0.001, 0.2, (40_000, 10))
    a = allocate(b, p, mainline_reserve=0.1)
    np.testing.assert_array_equal(a.ranked, np.argsort(-(b * p), axis=1, kind="stable"))


# -- the synthetic world --------------------------------------------------------------
def test_click_curve_mainline_above_sidebar():
    c = sp.click_curve()
    assert c[0] == 1 and (np.diff(c[:3]) < 0).all() and (np.diff(c[3:]) < 0).all() and c[3] < c[2]
    with pytest.raises(ValueError, match="`sidebar_top` must be in"):
        sp.click_curve(sidebar_top=0.9)


def test_world_is_reproducible_and_heavy_tailed():
    w1, w2 = sp.make_world(3, n_queries=300), sp.make_world(3, n_queries=300)
    np.testing.assert_array_equal(w1.ctr, w2.ctr)
    np.testing.assert_array_equal(w1.bids, w2.bids)
    assert not np.array_equal(w1.ctr, sp.make_world(4, n_queries=300).ctr)
    assert w1.query_prob[0] > 100 * w1.query_prob[-1]  # skewed query frequency
    no_junk = sp.make_world(3, n_queries=300, ctr_kwargs=dict(junk_share=0.0))
    assert np.quantile(w1.ctr, 0.1) < 0.2 * np.quantile(no_junk.ctr, 0.1)  # heavy low tail (junk ads)


def test_distorted_pclick_knobs():
    ctr = sp.sample_ctr(50_000, 0)
    exact = sp.distorted_pclick(ctr, 1, noise_sd=0)
    np.testing.assert_allclose(exact, ctr, rtol=1e-10)
    noisy = sp.distorted_pclick(ctr, 1, noise_sd=0.5)
    assert abs(noisy.mean() / ctr.mean() - 1) < 0.03  # centred noise keeps it calibrated
    over = sp.distorted_pclick(ctr, 1, noise_sd=0, low_ctr=0.004, low_shift=3.0)
    low, high = ctr < 0.0005, ctr > 0.05
    assert (over[low] / ctr[low]).min() > 5 and (over[high] / ctr[high]).max() < 1.05
    with pytest.raises(ValueError, match="`ctr` must be"):
        sp.distorted_pclick([0.0, 0.5])


def _overestimate_loop(p, low_ctr, low_shift, width):
    """The Notes formula one element at a time with math: logit p' = x + delta * sigma((x0 - x) / w)."""
    import math

    logit = lambda v: math.log(v / (1 - v))  # noqa: E731
    x0 = logit(low_ctr)
    out = []
    for v in p:
        x = logit(v)
        x += low_shift / (1 + math.exp(-(x0 - x) / width))
        out.append(1 / (1 + math.exp(-x)))
    return np.array(out)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_overestimate_low_range_equals_loop_reference(seed):
    rng = np.random.default_rng(seed)
    p = np.exp(rng.uniform(np.log(1e-5), np.log(0.5), 500))
    low_ctr, low_shift = rng.uniform(0.001, 0.05), rng.uniform(0, 6)
    width = low_shift / 4 + rng.uniform(0, 1)
    got = sp.overestimate_low_range(p, low_ctr=low_ctr, low_shift=low_shift, width=width)
    np.testing.assert_allclose(got, _overestimate_loop(p, low_ctr, low_shift, width), rtol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.0, 8.0), st.floats(0.0, 2.0), st.floats(1e-3, 0.2))
def test_overestimate_low_range_keeps_the_order(low_shift, extra_width, low_ctr):
    p = np.exp(np.linspace(np.log(1e-6), np.log(0.9), 2001))  # increasing
    q = sp.overestimate_low_range(p, low_ctr=low_ctr, low_shift=low_shift, width=low_shift / 4 + extra_width + 1e-9)
    assert (np.diff(q) >= 0).all()  # order-preserving
    assert (q >= p * (1 - 1e-12)).all()  # never under-estimates


def test_overestimate_low_range_slope_identity():
    # Notes: f'(x) = 1 - (delta / w) sigma (1 - sigma), so at x0 the slope of the log-odds map is 1 - delta / (4 w)
    low_ctr, h = 0.01, 1e-4
    x0 = np.log(low_ctr / (1 - low_ctr))
    xs = np.array([x0 - h, x0 + h])
    for low_shift, width in ((4.0, 1.0), (4.0, 2.0), (1.0, 0.5)):
        q = sp.overestimate_low_range(1 / (1 + np.exp(-xs)), low_ctr=low_ctr, low_shift=low_shift, width=width)
        lq = np.log(q / (1 - q))
        assert (lq[1] - lq[0]) / (2 * h) == pytest.approx(1 - low_shift / (4 * width), abs=1e-5)


def test_overestimate_low_range_hits_the_low_range_and_keeps_auc():
    from offline_eval.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    ctr = sp.sample_ctr(20_000, rng)
    p = sp.distorted_pclick(ctr, rng, noise_sd=0.6)
    q = sp.overestimate_low_range(p)  # defaults: low_ctr 0.004, low_shift 4, width 1
    low, high = p < 0.0005, p > 0.05
    assert np.median(q[low] / p[low]) > 20 and np.median(q[high] / p[high]) < 1.3
    y = (rng.random(ctr.size) < ctr).astype(int)
    assert roc_auc_score(y, q) == pytest.approx(roc_auc_score(y, p), abs=1e-6)  # the ranking is the same
    np.testing.assert_allclose(sp.overestimate_low_range(p, low_shift=0.0), p, rtol=1e-12)


@pytest.mark.parametrize(("kwargs", "match"), [
    (dict(pclick=[0.0, 0.5]), "`pclick` must be"),
    (dict(pclick=[0.1, np.nan]), "`pclick` must be"),
    (dict(pclick=[0.1], low_ctr=1.0), "`low_ctr` must be in"),
    (dict(pclick=[0.1], low_shift=-1.0), "`low_shift` must be non-negative"),
    (dict(pclick=[0.1], low_shift=4.0, width=0.9), "`width` must be >= low_shift / 4 = 1"),
])
def test_overestimate_low_range_rejects_bad_inputs(kwargs, match):
    p = kwargs.pop("pclick")
    with pytest.raises(ValueError, match=match):
        sp.overestimate_low_range(p, **kwargs)


def test_page_views_follow_participation():
    w = sp.make_world(0, n_queries=50, participation=0.6)
    pv = sp.sample_page_views(w, 20_000, 1)
    assert abs((pv.bids > 0).mean() - 0.6) < 0.01
    np.testing.assert_array_equal(pv.bids[pv.bids > 0], w.bids[pv.query][pv.bids > 0])


# -- online world, logs and the simulation ---------------------------------------------
@pytest.fixture(scope="module")
def small_world():
    w = sp.make_world(11, n_queries=40, n_candidates=6, curve_kwargs=dict(n_mainline=2, n_sidebar=2))
    p1 = sp.distorted_pclick(w.ctr, 12, noise_sd=0.6)
    p2 = sp.distorted_pclick(w.ctr, 13, noise_sd=0.3, low_shift=3.0)
    return w, p1, p2


def _exhaustive_log(w, pv):
    """A log holding every (query, ad, slot) with its exact CTR (one impression each)."""
    N = np.ones((w.n_queries, w.n_candidates, w.n_slots))
    C = w.ctr[:, :, None] * w.click_curve[None, None, :]
    return ClickLog(pv, N, C, n_mainline=w.n_mainline)


def test_simulation_equals_truth_when_logs_cover_everything(small_world):
    w, p1, p2 = small_world
    pv = sp.sample_page_views(w, 3000, 5)
    log = _exhaustive_log(w, pv)
    for p, op in itertools.product((p1, p2), (OperatingPoint(), OperatingPoint(1.5, 0.001, 0.01))):
        sim = simulate(log, p, op=op)
        truth = click_yield(serve(w, p, pv, op=op, expected=True))
        assert sim.cy == pytest.approx(truth.expected_cy, rel=1e-12)
        assert sim.ml_cy == pytest.approx(truth.expected_ml_cy, rel=1e-12)
        assert sim.share_same_slot == 1.0


def test_click_curve_fit_recovers_the_curve_from_exact_logs(small_world):
    w, p1, _ = small_world
    pv = sp.sample_page_views(w, 20_000, 6)
    imp = serve(w, p1, pv, expected=True)  # expected clicks: no sampling noise
    log = ClickLog.from_impressions(pv, imp, n_queries=w.n_queries, n_candidates=w.n_candidates, n_slots=w.n_slots, n_iter=2000)
    np.testing.assert_allclose(log.click_curve, w.click_curve, rtol=1e-4)
    seen = ~np.isnan(log.pair_ctr)
    np.testing.assert_allclose(log.pair_ctr[seen], w.ctr[seen], rtol=1e-4)
    # the raw reference CTRs are biased: better ads sit higher
    assert not np.allclose(log.reference_ctr / log.reference_ctr[0], w.click_curve, rtol=0.05)


def test_expected_ctr_falls_back_in_the_papers_order():
    pv = sp.PageViews(np.array([0]), np.ones((1, 2)))
    N = np.zeros((2, 2, 2))
    C = np.zeros((2, 2, 2))
    N[0, 0, 0], C[0, 0, 0] = 10, 2  # pair (0, 0) seen only in slot 0; pair (0, 1) never
    N[1, 0, :], C[1, 0, :] = 10, [4, 1]  # another query fixes the click curve at [1, 0.25]
    log = ClickLog(pv, N, C, n_mainline=1)
    np.testing.assert_allclose(log.click_curve, [1.0, 0.25])
    ctr, src = log.expected_ctr(np.array([0, 0, 0]), np.array([0, 0, 1]), np.array([0, 1, 1]))
    assert src.tolist() == [0, 1, 2]
    # same slot: 2/10; calibrated: 0.2 * 0.25; reference CTR of slot 1: 1/10
    np.testing.assert_allclose(ctr, [0.2, 0.05, 0.1])


def test_min_impressions_sends_thin_slots_to_the_calibrated_ctr():
    pv = sp.PageViews(np.array([0]), np.ones((1, 2)))
    N = np.zeros((2, 2, 2))
    C = np.zeros((2, 2, 2))
    N[0, 0, :], C[0, 0, :] = [3, 40], [1, 8]  # pair (0, 0): 3 impressions in slot 0, 40 in slot 1
    N[1, 0, :], C[1, 0, :] = 10, [4, 1]
    log = ClickLog(pv, N, C, n_mainline=1)
    q, a, s = np.array([0, 0]), np.array([0, 0]), np.array([0, 1])
    ctr1, src1 = log.expected_ctr(q, a, s)
    np.testing.assert_allclose(ctr1, [1 / 3, 0.2])
    assert src1.tolist() == [0, 0] and log.min_impressions == 1
    thick = log.with_min_impressions(5)
    ctr5, src5 = thick.expected_ctr(q, a, s)
    assert src5.tolist() == [1, 0] and log.expected_ctr(q, a, s)[1].tolist() == [0, 0]  # the original is unchanged
    np.testing.assert_allclose(ctr5, [thick.pair_ctr[0, 0] * thick.click_curve[0], 0.2])
    assert ClickLog(pv, N, C, n_mainline=1, min_impressions=5).expected_ctr(q, a, s)[1].tolist() == [1, 0]
    for bad in (0, 2.5, True):
        with pytest.raises(ValueError, match="`min_impressions` must be a positive integer"):
            log.with_min_impressions(bad)


def _impressions(query, ad, slot, click, n_page_views, page_view, n_mainline=1):
    z = np.zeros(len(query))
    return Impressions(page_view, query, ad, slot, click.astype(float), z, z, n_page_views, n_mainline)


def test_cross_validation_pools_separable_clicks_and_keeps_slot_history_otherwise():
    rng = np.random.default_rng(20)  # not the folds' seed (0)
    n_q, per_q = 40, 400
    query = np.repeat(np.arange(n_q), per_q)
    page_view = np.arange(n_q * per_q)
    slot = rng.integers(0, 2, len(query))
    pv = sp.PageViews(query, np.ones((len(query), 1)))
    grid = (1, 10, 1000)
    # separable: CTR = pair x slot factor; half the pairs have a few impressions in slot 1, many in slot 0
    theta = rng.uniform(0.02, 0.2, n_q)
    keep = (query < n_q // 2) | (slot == 0) | (rng.random(len(query)) < 0.02)
    p = theta[query] * np.where(slot == 0, 1.0, 0.3)
    click = (rng.random(len(query)) < p).astype(float)
    sep = cross_validate_min_impressions(pv, _impressions(query[keep], 0 * query[keep], slot[keep], click[keep],
                                                          len(pv), page_view[keep]),
                                         n_queries=n_q, n_candidates=1, n_slots=2, grid=grid)
    assert sep["chosen"].sum() == 1 and int(sep.loc[sep["chosen"], "min_impressions"].iloc[0]) > 1
    # not separable: half the pairs lose 90% of their clicks in slot 1, half lose 10%; every cell is thick
    drop = np.where(query % 2 == 0, 0.1, 0.9)
    p = theta[query] * np.where(slot == 0, 1.0, drop)
    click = (rng.random(len(query)) < p).astype(float)
    non = cross_validate_min_impressions(pv, _impressions(query, 0 * query, slot, click, len(pv), page_view),
                                         n_queries=n_q, n_candidates=1, n_slots=2, grid=grid)
    assert int(non.loc[non["chosen"], "min_impressions"].iloc[0]) == 1
    assert non["squared_error"].iloc[-1] > non["squared_error"].iloc[0]
    with pytest.raises(ValueError, match=r"`n_folds` must be an integer in \[2, "):
        cross_validate_min_impressions(pv, _impressions(query, 0 * query, slot, click, len(pv), page_view),
                                       n_queries=n_q, n_candidates=1, n_slots=2, n_folds=1)


def test_sampled_logs_estimate_the_truth(small_world):
    w, p1, p2 = small_world
    pv = sp.sample_page_views(w, 60_000, 7)
    log = ClickLog.from_impressions(pv, serve(w, p1, pv, rng=8), n_queries=w.n_queries,
                                    n_candidates=w.n_candidates, n_slots=w.n_slots)
    sim = simulate(log, p2)
    truth = click_yield(serve(w, p2, pv, expected=True))
    assert sim.cy == pytest.approx(truth.expected_cy, rel=0.05)


def test_serve_and_ab_test_are_reproducible(small_world):
    w, p1, p2 = small_world
    a = ab_test(w, (p1, None), (p2, None), n_page_views=5000, rng=3)
    b = ab_test(w, (p1, None), (p2, None), n_page_views=5000, rng=3)
    assert a == b
    assert a != ab_test(w, (p1, None), (p2, None), n_page_views=5000, rng=4)


def test_click_yield_matches_its_expectation(small_world):
    w, p1, _ = small_world
    pv = sp.sample_page_views(w, 100_000, 9)
    cy = click_yield(serve(w, p1, pv, rng=10))
    assert abs(cy.cy - cy.expected_cy) < 4 * cy.cy.standard_error
    assert cy.ml_cy <= cy.cy and cy.ml_ads_per_pv <= cy.ads_per_pv


def test_ab_test_of_a_model_against_itself_is_null(small_world):
    w, p1, _ = small_world
    res = ab_test(w, (p1, None), (p1, None), n_page_views=50_000, rng=1)
    assert res.expected_cy_delta == pytest.approx(0.0, abs=0.02)
    assert abs(res.cy_delta) < 4 * res.cy_delta.standard_error


def test_sweep_picks_the_best_point_under_the_budget(small_world):
    w, p1, p2 = small_world
    pv = sp.sample_page_views(w, 5000, 2)
    log = _exhaustive_log(w, pv)
    sw = sweep_operating_points(log, p2, alphas=[0.5, 1.0], mainline_quantiles=[0.3, 0.6, 0.9])
    assert len(sw) == 6
    op, row = best_operating_point(sw)
    assert row["cy"] == sw["cy"].max()
    budget = sw["ml_ads_per_pv"].median()
    op_b, row_b = best_operating_point(sw, max_ml_ads_per_pv=budget)
    assert row_b["ml_ads_per_pv"] <= budget and row_b["cy"] == sw[sw["ml_ads_per_pv"] <= budget]["cy"].max()
    assert simulate(log, p2, op=op_b).cy == pytest.approx(row_b["cy"])
    with pytest.raises(ValueError, match="`max_ml_ads_per_pv` must be a finite non-negative number"):
        best_operating_point(sw, max_ml_ads_per_pv=-1)


def test_click_log_rejects_bad_counts_and_warns_on_empty_slots():
    pv = sp.PageViews(np.array([0]), np.ones((1, 2)))
    with pytest.raises(ValueError, match="0 <= clicks <= impressions"):
        ClickLog(pv, np.ones((1, 2, 2)), 2 * np.ones((1, 2, 2)), n_mainline=1)
    N = np.zeros((1, 2, 2))
    N[:, :, 0] = 1
    with pytest.warns(OfflineEvalWarning, match="no logged impression"):
        ClickLog(pv, N, np.zeros_like(N), n_mainline=1)


def test_doctests():
    import doctest

    from offline_eval import metrics
    from offline_eval.auction import abtest, allocation, logs, replay
    from offline_eval.synth import search_world, sponsored

    for mod in (allocation, logs, replay, abtest, search_world, sponsored, metrics):
        res = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
        assert res.attempted > 0 and res.failed == 0, mod.__name__
    for mod in (allocation, logs, replay, abtest):  # toy inputs a reader can check, not a generated world
        finder = doctest.DocTestFinder()
        examples = [ex.source for t in finder.find(mod) for ex in t.examples]
        assert not any("synth" in src for src in examples), mod.__name__


def test_auction_package_reexports_its_modules_not_the_world():
    from offline_eval import auction
    from offline_eval.auction import abtest, allocation, logs, replay
    from offline_eval.synth import search_world

    homes = {"allocation": allocation, "logs": logs, "replay": replay, "abtest": abtest}
    for name in auction.__all__:
        obj = getattr(auction, name)
        assert any(getattr(m, name, None) is obj for m in homes.values()), name
    assert not any(hasattr(auction, name) for name in search_world.__all__)
    assert set(search_world.__all__) == {"SponsoredWorld", "ab_test", "sample_page_views", "serve"}
