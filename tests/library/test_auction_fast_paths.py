"""The auction engine's fast paths give the bits of the plain computation they replace."""

import numpy as np
import pytest

from offline_eval.auction import ClickLog, OperatingPoint, allocate, simulate, sweep_operating_points
from offline_eval.auction.replay import rank_score_quantiles
from offline_eval.synth import search_world as sw
from offline_eval.synth.sponsored import distorted_pclick, make_world


def _log(seed):
    world = make_world(seed, n_queries=40)
    pv = sw.sample_page_views(world, 3000, seed)
    p1 = distorted_pclick(world.ctr, seed, noise_sd=0.8)
    imp = sw.serve(world, p1, pv, rng=seed)
    return world, ClickLog.from_impressions(pv, imp, n_queries=world.n_queries, n_candidates=world.n_candidates,
                                            n_slots=world.n_slots, min_impressions=2)


def _slow_shown(alloc):
    a, j = np.nonzero(alloc.slot >= 0)
    return a, alloc.ranked[a, j].astype(np.int64), alloc.slot[a, j].astype(np.int64), alloc.cpc[a, j]


@pytest.mark.parametrize("seed", range(4))
def test_shown_and_expected_ctr_equal_the_fancy_indexing_they_replace(seed):
    world, log = _log(seed)
    alloc = allocate(log.page_views.bids, world.ctr[log.page_views.query], mainline_reserve=0.01,
                     n_mainline=world.n_mainline, n_sidebar=world.n_sidebar)
    fast, slow = alloc.shown(), _slow_shown(alloc)
    for f, s in zip(fast, slow):
        assert f.dtype == s.dtype and np.array_equal(f, s)
    q, ad, slot = log.page_views.query[fast[0]], fast[1], fast[2]
    for k in (1, 3):
        lk = log.with_min_impressions(k)
        ctr, source = lk.expected_ctr(q, ad, slot)
        ref_ctr, ref_source = lk._expected_ctr(q, ad, slot)
        assert np.array_equal(ctr, ref_ctr) and np.array_equal(source, ref_source)


@pytest.mark.parametrize("seed", range(3))
def test_sweep_ranking_once_per_alpha_equals_one_simulation_per_point(seed):
    world, log = _log(seed)
    p2 = distorted_pclick(world.ctr, seed + 10, noise_sd=0.4)
    quantiles = [0.3, 0.6, 0.9]
    sweep = sweep_operating_points(log, p2, alphas=[0.5, 1.0, 2.0], mainline_quantiles=quantiles, reserve_quantile=0.2)
    for row in sweep.itertuples():
        op = OperatingPoint(row.alpha, row.reserve, row.mainline_reserve)
        one = simulate(log, p2, op=op)._asdict()
        assert all(getattr(row, k) == v for k, v in one.items()), row
    res = rank_score_quantiles(log, p2, alpha=1.0, quantiles=0.2)
    assert sweep.loc[sweep["alpha"] == 1.0, "reserve"].eq(res).all()



@pytest.mark.parametrize("seed", range(6))
def test_shown_many_equals_the_full_allocation_tables_shown(seed):
    # The replay and serving engine computes slots and prices on the shown ranks only; it must give the bits
    # of Allocation.shown() at every point, with ties, zero bids, reserves equal to a score and empty blocks.
    from offline_eval.auction import allocation as al

    rng = np.random.default_rng(seed)
    n, k = int(rng.integers(1, 2000)), int(rng.integers(1, 14))
    b = np.round(rng.lognormal(size=(n, k)), seed % 3) * (rng.random((n, k)) < 0.8)
    p = np.round(rng.random((n, k)), 1 + seed % 3)
    alpha = [0.0, 0.5, 1.0, 2.0][seed % 4]
    r = al.rank_scores(b, p, alpha)
    r = r[r > 0]
    ops = [OperatingPoint(alpha, 0.0, 0.0), OperatingPoint(alpha, 0.0, float(np.quantile(r, 0.5))),
           OperatingPoint(alpha, float(np.quantile(r, 0.2)), float(np.quantile(r, 0.7))),
           OperatingPoint(alpha, float(np.quantile(r, 0.4)), float(np.quantile(r, 0.4)))]
    n_ml, n_sb = seed % 4, 1 + seed % 5
    reference = [a.shown() for a in al._allocate_many(b, p, ops, n_ml, n_sb)]
    one_each = [al.shown_at_points(b, p, [op], n_ml, n_sb)[0] for op in ops]  # one point: the price computed directly
    for fast, single, slow in zip(al.shown_at_points(b, p, ops, n_ml, n_sb), one_each, reference):
        for f, g, s in zip(fast, single, slow):
            assert f.dtype == g.dtype == s.dtype and f.tobytes() == s.tobytes() and g.tobytes() == s.tobytes()


@pytest.mark.parametrize("seed", range(6))
def test_shown_at_points_cells_and_the_replay_only_arrays_equal_the_full_allocations(seed):
    # iter_shown_at_points yields each point's arrays in turn; ads=False leaves out the auctions and candidates
    # (a replay reads the ads through their cells), the slots, prices and cells the same bytes.
    from offline_eval.auction import allocation as al

    rng = np.random.default_rng(100 + seed)
    n, k = int(rng.integers(1, 3000)), int(rng.integers(1, 14))
    n_queries, n_ml, n_sb = int(rng.integers(1, 50)), seed % 4, 1 + seed % 5
    query = rng.integers(0, n_queries, n)
    b = np.round(rng.lognormal(size=(n, k)), seed % 3) * (rng.random((n, k)) < 0.8)
    p = np.round(rng.random((n, k)), 1 + seed % 3)
    alpha = [0.0, 0.5, 1.0, 2.0][seed % 4]
    r = al.rank_scores(b, p, alpha)
    r = r[r > 0]
    ops = [OperatingPoint(alpha, 0.0, float(np.quantile(r, 0.6))),
           OperatingPoint(alpha, float(np.quantile(r, 0.3)), float(np.quantile(r, 0.3))), OperatingPoint(alpha)]
    n_slots = n_ml + n_sb
    reference = [a.shown() for a in al._allocate_many(b, p, ops, n_ml, n_sb)]
    for subset in (ops, ops[:1]):
        lazy = al.iter_shown_at_points(b, p, subset, n_ml, n_sb, query=query, n_slots=n_slots, ads=False)
        assert not isinstance(lazy, list)
        full = al.shown_at_points(b, p, subset, n_ml, n_sb, query=query, n_slots=n_slots)
        for (a, ad, slot, cpc), replay, shown in zip(reference, lazy, full):
            cell = np.ravel_multi_index((query[a], ad, slot), (n_queries, k, n_slots))
            assert replay[0] is None and replay[1] is None
            for x, y in ((replay[2], slot), (replay[3], cpc), (replay[4], cell)):
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes()
            for x, y in zip(shown, (a, ad, slot, cpc, cell)):
                assert x.dtype == y.dtype and x.tobytes() == y.tobytes()


@pytest.mark.parametrize("seed", range(3))
def test_ab_tests_of_several_treatments_equal_one_ab_test_each(seed):
    world = make_world(seed, n_queries=30)
    p1, p2, p3 = (distorted_pclick(world.ctr, seed + i, noise_sd=0.5) for i in range(3))
    op = OperatingPoint(1.0, 0.0, 0.01)
    arms = [(p2, op), (p3, None), (p1, OperatingPoint(2.0))]
    together = sw.ab_tests(world, (p1, op), arms, n_page_views=2000, rng=seed)
    for t, arm in zip(together, arms):
        assert repr(t) == repr(sw.ab_test(world, (p1, op), arm, n_page_views=2000, rng=seed))
        alone = sw.ab_test(world, (p1, op), arm, n_page_views=2000, rng=seed)
        assert tuple(t.control) == tuple(alone.control) and tuple(t.treatment) == tuple(alone.treatment)
        assert float(t.cy_delta) == float(alone.cy_delta) and t.cy_delta.standard_error == alone.cy_delta.standard_error


def _two_logs(seed):
    """Two logs of the same page views, served by two models at their own operating points."""
    world = make_world(seed, n_queries=40)
    pv = sw.sample_page_views(world, 3000, seed)
    out = []
    for i, op in enumerate((OperatingPoint(1.0, 0.0, 0.02), OperatingPoint(1.0, 0.0, 0.05))):
        p = distorted_pclick(world.ctr, seed + 20 + i, noise_sd=0.8)
        imp = sw.serve(world, p, pv, op=op, rng=seed)
        out.append((p, op, imp, ClickLog.from_impressions(pv, imp, n_queries=world.n_queries,
                                                          n_candidates=world.n_candidates, n_slots=world.n_slots,
                                                          min_impressions=2)))
    return world, out


@pytest.mark.parametrize("seed", range(3))
def test_simulate_served_equals_simulating_the_model_that_served_the_logs(seed):
    from offline_eval.auction import simulate_served

    _, logs = _two_logs(seed)
    for p, op, imp, log in logs:
        for k in (1, 2, 50):
            lk = log.with_min_impressions(k)
            assert tuple(simulate_served(lk, imp)) == tuple(simulate(lk, p, op=op))
    # the other log's impressions are not this log's page views' ads: another answer, which is the point
    (p, op, imp, log), (_, _, imp_b, _) = logs
    assert tuple(simulate_served(log, imp_b)) != tuple(simulate(log, p, op=op))


def test_simulate_served_rejects_impressions_of_other_page_views():
    from dataclasses import replace

    from offline_eval.auction import simulate_served

    _, ((_, _, imp, log), _) = _two_logs(0)
    with pytest.raises(ValueError, match="page views"):
        simulate_served(log, replace(imp, n_page_views=imp.n_page_views + 1))
    with pytest.raises(ValueError, match="query"):
        simulate_served(log, replace(imp, query=imp.query + 1))
    with pytest.raises(ValueError, match="slot"):
        simulate_served(log, replace(imp, slot=imp.slot + 100))
    with pytest.raises(TypeError):
        simulate_served(log, imp.frame())


@pytest.mark.parametrize("seed", range(3))
def test_sweep_points_equal_simulate_at_each_point(seed):
    world, log = _log(seed)
    p2 = distorted_pclick(world.ctr, seed + 10, noise_sd=0.4)
    points = [OperatingPoint(1.0, 0.0, 0.013), OperatingPoint(0.7, 0.0, 0.0), OperatingPoint(2.0, 0.001, 0.004)]
    kw = dict(alphas=[1.0, 2.0], mainline_quantiles=[0.3, 0.6, 0.9])
    sweep, metrics = sweep_operating_points(log, p2, points=points, **kw)
    assert sweep.equals(sweep_operating_points(log, p2, **kw))  # the grid's rows do not change
    assert len(metrics) == len(points)
    for op, m in zip(points, metrics):
        assert tuple(m) == tuple(simulate(log, p2, op=op)), op


@pytest.mark.parametrize("seed", range(3))
def test_sweep_logs_equals_one_sweep_per_log(seed):
    from offline_eval.auction import sweep_logs

    world, logs = _two_logs(seed)
    p2 = distorted_pclick(world.ctr, seed + 10, noise_sd=0.4)
    kw = dict(alphas=[0.5, 1.0], mainline_quantiles=[0.3, 0.6, 0.9], reserve_quantile=0.1)
    points = [op for _, op, _, _ in logs]
    frames = sweep_logs([log for *_, log in logs], p2, **kw)
    with_points = sweep_logs([log for *_, log in logs], p2, points=points, **kw)
    for (*_, log), frame, (frame_p, metrics) in zip(logs, frames, with_points):
        alone = sweep_operating_points(log, p2, **kw)
        assert frame.equals(alone) and frame_p.equals(alone)
        assert [tuple(m) for m in metrics] == [tuple(simulate(log, p2, op=op)) for op in points]
    assert not frames[0].equals(frames[1])  # two logs, two replays of the same ads


def test_sweep_logs_rejects_logs_of_other_page_views():
    from offline_eval.auction import sweep_logs

    world, ((_, _, _, log_a), _) = _two_logs(0)
    _, (_, (_, _, _, log_c)) = _two_logs(1)
    p2 = distorted_pclick(world.ctr, 3, noise_sd=0.4)
    with pytest.raises(ValueError, match="page views"):
        sweep_logs([log_a, log_c], p2, alphas=[1.0], mainline_quantiles=[0.5])
    with pytest.raises(ValueError, match="list or tuple"):
        sweep_logs(log_a, p2, alphas=[1.0], mainline_quantiles=[0.5])
    with pytest.raises(ValueError, match="points"):
        sweep_operating_points(log_a, p2, alphas=[1.0], mainline_quantiles=[0.5], points=OperatingPoint())


@pytest.mark.parametrize("seed", range(3))
def test_ab_tests_with_a_control_per_treatment_equal_one_ab_test_each(seed):
    world = make_world(seed, n_queries=30)
    p1, p2, p3 = (distorted_pclick(world.ctr, seed + i, noise_sd=0.5) for i in range(3))
    op, op_b = OperatingPoint(1.0, 0.0, 0.01), OperatingPoint(1.0, 0.0, 0.02)
    controls = [(p1, op), (p2, op_b), (p1, op), (p3, None)]
    arms = [(p2, op), (p2, op_b), (p2, op), (p1, OperatingPoint(2.0))]  # the first arm pair listed twice
    together = sw.ab_tests(world, controls, arms, n_page_views=2000, rng=seed)
    for t, c, arm in zip(together, controls, arms):
        alone = sw.ab_test(world, c, arm, n_page_views=2000, rng=seed)
        assert tuple(t.control) == tuple(alone.control) and tuple(t.treatment) == tuple(alone.treatment)
        assert float(t.cy_delta) == float(alone.cy_delta) and t.cy_delta.standard_error == alone.cy_delta.standard_error
    assert tuple(together[0].control) != tuple(together[1].control)  # each treatment against its own control
    with pytest.raises(ValueError, match="one arm per treatment"):
        sw.ab_tests(world, controls[:2], arms, n_page_views=2000, rng=seed)
    with pytest.raises(ValueError, match="tuple"):
        sw.ab_tests(world, [controls[0], [p1, op], controls[2], controls[3]], arms, n_page_views=2000, rng=seed)
