"""The yi study modules: determinism, the mechanism at small scale, and the table builders."""

import functools
import inspect
import time
import warnings

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval_compendium import machine, reference
from offline_eval_compendium.studies.yi import metrics_behaviour as yi_metrics
from offline_eval_compendium.studies.yi import _auction, _formulas, _worlds
from offline_eval_compendium.studies.yi import offline_online as yi_auction

def _same(a: dict, b: dict) -> bool:
    """Equal dicts, NaN equal to NaN (a tiny log's lowest bins may hold no click: model-2's own low quantiles)."""
    return a.keys() == b.keys() and all(a[k] == b[k] or (a[k] != a[k] and b[k] != b[k]) for k in a)


SMALL = dict(n_queries=200, n_log=8000, n_ab=20_000, alphas=(1.0,), mainline_quantiles=(0.5, 0.6))


@pytest.fixture(scope="module")
def exp():
    return yi_auction.run(0, **SMALL)


def test_run_is_reproducible(exp):
    again = yi_auction.run(0, **SMALL)
    assert again.offline == exp.offline and again.online_base == exp.online_base and again.simulated == exp.simulated
    other = yi_auction.run(1, **SMALL)
    assert other.offline != exp.offline


def test_per_seed_is_reproducible_and_flat():
    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs: the lowest bins may hold no click
        a = yi_auction.per_seed(3, **kw)
        b = yi_auction.per_seed(3, **kw)
    assert _same(a, b)
    assert all(np.isscalar(v) for v in a.values())


def test_a_world_and_its_control_run_together_equal_two_separate_runs():
    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    model_2s = (_auction.MODEL_2, yi_auction.CONTROL_MODEL_2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs: the lowest bins may hold no click
        together = yi_auction.per_seed_worlds(3, model_2s, **kw)
        apart = [yi_auction.per_seed(3, model_2=m2, **kw) for m2 in model_2s]
        sweep, control = _worlds.sweep_with_control([3, 4], model_2=model_2s[0], control_model_2=model_2s[1], **kw)
    assert all(_same(t, a) for t, a in zip(together, apart))  # floats compared exactly: the same bits
    assert _same(sweep.iloc[0].to_dict(), {"seed": 3, **apart[0]})
    assert _same(control.iloc[0].to_dict(), {"seed": 3, **apart[1]})
    assert list(sweep["seed"]) == [3, 4]


def test_agreement_rule():
    assert yi_auction.agrees(-0.10, -0.12)
    assert not yi_auction.agrees(0.01, -0.12)  # wrong sign
    assert not yi_auction.agrees(-0.30, -0.12)  # 18 pp off > 3 pp + 3 pp
    assert yi_auction.agrees(-0.14, -0.10)  # 4 pp <= 3 + 2.5


def test_model_2_overestimates_the_low_range(exp):
    low = exp.world.ctr < 0.001
    high = exp.world.ctr > 0.05
    assert np.median(exp.p2[low] / exp.world.ctr[low]) > 10
    assert np.median(exp.p2[high] / exp.world.ctr[high]) < 1.3


def test_tables_have_the_papers_columns(exp):
    ref = reference.load("yi")
    t5p = {c: reference.lookup(ref, "Table 5", "model-2 metrics", c) for c in ("AUC", "RIG", "CY", "Mainline CY")}
    t5 = yi_auction.table5(exp, t5p)
    assert t5["metric"].tolist() == ["AUC", "RIG", "CY", "Mainline CY"]
    assert t5.loc[t5["metric"] == "CY", "reproduced_pct"].item() == pytest.approx(100 * exp.online_base.cy_delta)
    t6p = {c: reference.lookup(ref, "Table 6", "model-2 metrics", c) for c in
           ("offline AUC", "offline RIG", "simulated CY", "simulated Mainline CY", "online CY", "online Mainline CY")}
    t6 = yi_auction.table6(exp, t6p)
    assert len(t6) == 3 and t6.loc[0, "online CY"] == 39.0
    assert t6.loc[1, "simulated CY"] == pytest.approx(100 * exp.simulated["cy_delta"])


def test_breakdown_bins_each_model_by_its_own_pclick(exp):
    from offline_eval.metrics import quantile_breakdown

    bd = yi_auction.breakdown(exp, n_quantiles=5)
    y = exp.scores["y"]
    for name, s in (("model-1", exp.scores["s1"]), ("model-2", exp.scores["s2"])):
        t = bd.loc[bd["model"] == name].drop(columns="model").reset_index(drop=True)
        pd.testing.assert_frame_equal(t, quantile_breakdown(y, s, n_quantiles=5, by=s))
        assert t["log_loss_share"].sum() == pytest.approx(1.0)
    # the bins differ between the models: model-2's low quantiles are its own lowest scores
    lo2 = bd.loc[(bd["model"] == "model-2") & (bd["quantile"] == 1), "score_hi"].item()
    assert lo2 <= np.quantile(exp.scores["s2"], 0.2 + 1e-9)


def test_offline_auc_is_mainline_with_own_pclicks(exp):
    from offline_eval.metrics import roc_auc_score

    lg = exp.logged
    ml = lg.slot < exp.world.n_mainline
    assert 0 < ml.sum() < len(ml)
    y = lg.click[ml].astype(np.int8)
    a1 = roc_auc_score(y, exp.p1[lg.query[ml], lg.ad[ml]])
    a2 = roc_auc_score(y, exp.p2[lg.query[ml], lg.ad[ml]])
    assert exp.offline["auc_1"] == a1 and exp.offline["auc_2"] == a2
    assert exp.offline["auc_delta"] == a2 / a1 - 1
    # the earlier reading: every logged impression, pClick times the logs' click curve
    assert exp.offline["auc_all_1"] == roc_auc_score(lg.click.astype(np.int8), exp.scores["s1"])


def test_figures_are_deterministic(exp):
    from offline_eval_compendium.io import figure_bytes

    bd = yi_auction.breakdown(exp, n_quantiles=5)
    assert figure_bytes(yi_auction.fig4_figure(bd), "png") == figure_bytes(yi_auction.fig4_figure(bd), "png")


def test_fig1_contextual_has_higher_auc_and_worse_calibration():
    from offline_eval_compendium import reference

    ref = reference.load("yi")
    datasets = yi_metrics.fig1_datasets(ref)
    r = yi_metrics.fig1_run(0, datasets=datasets, n=100_000)
    ss, cx = r["sponsored search"], r["contextual ads"]
    assert cx["auc"] > ss["auc"]
    # the calibration factors are the printed ratios, read from the reference
    for name in r:
        printed = reference.parse_printed(reference.lookup(ref, "Figure 1", name, "avg pClick / actual CTR"))
        assert datasets[name]["scale"] == printed and abs(r[name]["calibration_ratio"] - printed) < 0.05
    # the control world (equal shares of easy negatives): the AUC gap is gone
    ctrl = yi_metrics.fig1_run(0, datasets=yi_metrics.fig1_datasets(ref, yi_metrics.CONTROL_FIG1_JUNK), n=100_000)
    gap = abs(ctrl["contextual ads"]["auc"] / ctrl["sponsored search"]["auc"] - 1)
    assert gap < 0.25 * (cx["auc"] / ss["auc"] - 1)


def test_fig2_control_model_loses_the_low_range_error():
    on = yi_metrics.fig2_run(0, n=50_000)
    off = yi_metrics.fig2_run(0, n=50_000, **yi_metrics.CONTROL_FIG2)
    assert on.prediction_error.iloc[0] > off["prediction_error"].iloc[0]


def test_fig2_rig_falls_with_ctr():
    df = yi_metrics.fig2_run(0, n=50_000)
    assert isinstance(df, pd.DataFrame) and (np.diff(df["ctr"]) >= 0).all()
    assert df["rig"].iloc[0] > df["rig"].iloc[-1]
    assert df["prediction_error"].iloc[0] > df["prediction_error"].iloc[-1]


def test_the_metrics_run_holds_every_block_and_fills_every_claim():
    from offline_eval_compendium.claims import Ledger

    ref = reference.load("yi")
    blocks = yi_metrics.SEEDS.sized(2)
    run = yi_metrics.run_experiment(ref, blocks, seed=0, n=20_000, sweep_n=10_000)
    assert run.f2.equals(yi_metrics.fig2_run(0, n=20_000))
    for b in blocks.BLOCKS:
        assert list(run.sweep[b]["seed"]) == list(run.control[b]["seed"]) == list(blocks.seeds(b))
    ledger = Ledger("yi", "yi_metrics_behaviour", claims=yi_metrics.CLAIMS, seeds=blocks)
    with pytest.raises(ValueError, match="`block` must be one of"):
        yi_metrics.add_claims(ledger, run, block="main")
    for b in ledger.blocks:
        yi_metrics.add_claims(ledger, run, block=b)
    assert ledger.unfilled() == []


# -- Table 6 with its own model ---------------------------------------------------------
def _same_results(a, b):
    return (a.offline == b.offline and a.online_base == b.online_base and a.online_best == b.online_best
            and a.simulated == b.simulated)


@pytest.fixture(scope="module")
def exp6():
    return yi_auction.run(0, models="table6", **SMALL)


def test_table6_models_share_the_ranking_and_the_world(exp, exp6):
    # the new model is the very draw of Table 5's model-1; the baseline is it over-estimated in the low range
    np.testing.assert_array_equal(exp6.p2, exp.p1)
    np.testing.assert_array_equal(exp6.world.ctr, exp.world.ctr)
    np.testing.assert_array_equal(exp6.log.page_views.query, exp.log.page_views.query)
    order = np.argsort(exp6.p2, axis=None, kind="stable")
    assert (np.diff(exp6.p1.ravel()[order]) >= 0).all()  # same order
    low, high = exp6.p2 < 0.001, exp6.p2 > 0.05
    assert np.median(exp6.p1[low] / exp6.p2[low]) > 10 and np.median(exp6.p1[high] / exp6.p2[high]) < 1.3
    assert _same_results(yi_auction.run(0, models="table6", **SMALL), exp6)


def test_run_rejects_unknown_models():
    with pytest.raises(ValueError, match="`models` must be 'table5' or 'table6'; got 'table7'"):
        yi_auction.run(0, models="table7", **SMALL)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_calibrated_low_range_keeps_poor_ads_out_and_gains_clicks(seed):
    # The mechanism, without sampling noise: on the same page views and with the same operating-point rule
    # (alpha 1, mainline reserve at the 0.6 quantile of the model's own rank scores), the calibrated model
    # shows fewer poor ads in the mainline and gets more expected clicks than the baseline.
    from offline_eval import auction as au
    from offline_eval.synth import search_world
    from offline_eval.synth import sponsored as sp

    rng = np.random.default_rng(seed)
    w = sp.make_world(rng, n_queries=300)
    p_new = sp.distorted_pclick(w.ctr, rng, **yi_auction.MODEL_1)
    p_base = sp.overestimate_low_range(p_new, **_auction.MISCALIBRATION)
    pv = sp.sample_page_views(w, 20_000, rng)
    res = {}
    for name, p in (("base", p_base), ("new", p_new)):
        r = pv.bids * p[pv.query]
        op = au.OperatingPoint(1.0, 0.0, float(np.quantile(r[r > 0], 0.6)))
        imp = search_world.serve(w, p, pv, op=op, expected=True)
        ml = imp.slot < w.n_mainline
        res[name] = dict(cy=au.click_yield(imp).expected_cy,
                         poor_ml=np.mean(w.ctr[imp.query[ml], imp.ad[ml]] < _auction.MISCALIBRATION["low_ctr"]))
    assert res["new"]["poor_ml"] < res["base"]["poor_ml"]
    assert res["new"]["cy"] > res["base"]["cy"]


def test_table6_model_offline_and_outcomes(exp6):
    o = yi_auction.table6_outcomes(exp6)
    assert all(np.isscalar(v) for v in o.values())
    assert abs(o["auc_delta"]) < 0.01 < o["rig_delta"]  # same ranking, better calibration (Notes of the generator)
    assert o["t6_best_gains"] == (exp6.online_best.cy_delta > 0)
    assert o["best_sim_cy_delta"] == exp6.simulated["best_cy_delta"]
    assert o["t6_offline_shape"] == (abs(o["auc_delta"]) < 0.01 and o["rig_delta"] > 10 * abs(o["auc_delta"]))
    assert o["t6_sim_agrees"] == all(yi_auction.agrees(s, on) for s, on in (
        (o["sim_cy_delta"], o["online_cy_delta"]), (o["sim_ml_cy_delta"], o["online_ml_cy_delta"]),
        (o["best_sim_cy_delta"], o["best_online_cy_delta"]), (o["best_sim_ml_cy_delta"], o["best_online_ml_cy_delta"])))


def test_per_seed_table6_is_reproducible():
    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    a, b = yi_auction.per_seed_table6(3, **kw), yi_auction.per_seed_table6(3, **kw)
    assert a == b and {"t6_sim_agrees", "t6_offline_disagrees", "t6_best_gains", "t6_offline_shape"} <= set(a)
    assert a != yi_auction.per_seed_table6(4, **kw)


def test_offline_scores_equal_the_plain_formula(exp):
    from offline_eval.metrics import rig_score, roc_auc_score
    ya = _auction

    logged, log, n_ml = exp.logged, exp.log, exp.world.n_mainline
    y = logged.click.astype(np.int8)
    view = ya.logged_rows(logged, log, n_ml)
    for p in (exp.p1, exp.p2):
        q = p[logged.query, logged.ad]
        s = q * log.click_curve[logged.slot]
        ml = logged.slot < n_ml
        ref = dict(auc=roc_auc_score(y[ml], q[ml]), auc_all=roc_auc_score(y, s), rig=rig_score(y, s))
        for got_s, got in (ya.offline_scores(p, logged, log, n_ml), ya.offline_scores(p, logged, log, n_ml, rows=view)):
            assert got == ref and got_s.tobytes() == s.tobytes()
    with pytest.raises(ValueError, match="shape"):
        ya.offline_scores(exp.p1[:, :-1], logged, log, n_ml)


def test_table6_world_and_its_control_run_together_equal_two_separate_runs():
    yi_worlds = _worlds

    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0, 2.0), mainline_quantiles=(0.5, 0.7))
    mis = (_auction.MISCALIBRATION, yi_auction.CONTROL_MISCALIBRATION)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs
        together = yi_worlds.per_seed_table6_worlds(3, mis, **kw)
        apart = [yi_auction.per_seed_table6(3, miscalibration=m, **kw) for m in mis]
        sweep, control = yi_worlds.sweep_table6_with_control([3, 4], miscalibration=mis[0],
                                                             control_miscalibration=mis[1], **kw)
    assert together == apart and apart[0] != apart[1]  # floats compared exactly: the same bits
    assert sweep.iloc[0].to_dict() == {"seed": 3, **apart[0]} and control.iloc[0].to_dict() == {"seed": 3, **apart[1]}
    assert list(sweep["seed"]) == [3, 4]
    exps = yi_worlds.run_table6_worlds(3, mis, **kw)
    for exp, m in zip(exps, mis):
        one = yi_auction.run(3, models="table6", miscalibration=m, **kw)
        assert exp.sweep.equals(one.sweep) and exp.op_best == one.op_best and exp.simulated == one.simulated


def test_a_sweep_in_worker_processes_equals_the_sweep_run_here():
    import functools

    from offline_eval_compendium.claims import paired_seed_sweep
    yi_worlds = _worlds

    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    per_seed = functools.partial(yi_auction.per_seed_worlds,
                                 model_2s=(_auction.MODEL_2, yi_auction.CONTROL_MODEL_2), **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs
        here = paired_seed_sweep(per_seed, [5, 3, 4], progress="here")
        for workers in (1, 2, 3):
            there = yi_worlds.paired_sweep_in_workers(per_seed, [5, 3, 4], progress="workers", workers=workers)
            for a, b in zip(here, there):
                assert a.equals(b) and list(a["seed"]) == [5, 3, 4]
                assert a.to_csv() == b.to_csv()  # floats compared through their text: the same bits


def test_several_sweeps_in_one_pool_equal_each_sweep_apart_with_the_alongside_result():
    import functools

    yi_worlds = _worlds

    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    t5 = functools.partial(yi_auction.per_seed_worlds, model_2s=(_auction.MODEL_2, yi_auction.CONTROL_MODEL_2), **kw)
    mis = (_auction.MISCALIBRATION, {**_auction.MISCALIBRATION, "low_shift": 0.0})
    t6 = functools.partial(yi_worlds.per_seed_table6_worlds, miscalibrations=mis, **kw)
    sweeps = [(t5, [5, 3], "t5 a"), (t5, [4], "t5 b"), (t6, [3, 6], "t6 a")]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs
        apart = [yi_worlds.paired_sweep_in_workers(f, seeds, progress=p, workers=1) for f, seeds, p in sweeps]
        for workers in (1, 2, 3):
            calls = []
            frames, side = yi_worlds.paired_sweeps_in_workers(sweeps, alongside=lambda: calls.append(1) or "main",
                                                              workers=workers)
            assert side == "main" and calls == [1]
            assert len(frames) == len(apart)
            for pair, one in zip(frames, apart):
                for a, b in zip(pair, one):
                    assert a.to_csv() == b.to_csv()  # floats compared through their text: the same bits
        assert yi_worlds.paired_sweeps_in_workers(sweeps[1:2], workers=1)[1] is None


def test_map_in_workers_sends_every_item_before_the_first_result_is_asked_for(tmp_path):
    import functools

    items = list(range(4))
    results = machine.map_in_workers(functools.partial(_touch, tmp_path), items, workers=2)
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < len(items) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(p.name for p in tmp_path.iterdir()) == [str(i) for i in items]  # nothing asked for yet
    assert list(results) == items
    here = machine.map_in_workers(functools.partial(_touch, tmp_path / "here"), items, workers=1)
    assert not (tmp_path / "here").exists()  # one worker: each item runs when its result is asked for
    assert next(here) == 0 and sorted(p.name for p in (tmp_path / "here").iterdir()) == ["0"]
    here.close()


def test_map_in_workers_closed_early_drops_the_items_not_started(tmp_path):
    import functools

    results = machine.map_in_workers(functools.partial(_touch, tmp_path, delay=0.3), list(range(40)), workers=2)
    assert next(results) == 0
    results.close()
    assert len(list(tmp_path.iterdir())) < 10


def _touch(folder, i, delay=0.0):
    """A worker's task of the two tests above: a file named ``i`` in ``folder``, then ``i``."""
    folder.mkdir(exist_ok=True)
    (folder / str(i)).touch()
    time.sleep(delay)
    return i


def test_map_in_workers_keeps_the_items_order_and_raises_a_workers_error():
    import functools
    import math

    yi_worlds = _worlds

    items = [5.0, -1.0, 3.5, 2.0, 0.25, 9.0, 1.0]
    for workers, chunksize in ((1, 1), (2, 1), (2, 3), (4, 2)):
        got = list(machine.map_in_workers(functools.partial(math.pow, 3.0), items, workers=workers,
                                            chunksize=chunksize))
        assert got == [math.pow(3.0, x) for x in items]
    assert list(machine.map_in_workers(math.sqrt, [], workers=2)) == []
    with pytest.raises(ValueError):
        list(machine.map_in_workers(math.sqrt, [4.0, -1.0, 9.0], workers=2))


def test_calibration_grids_in_workers_equal_the_grids_run_here():
    from offline_eval_compendium.studies.yi import _calibration as yi_calibration

    kw = dict(n_queries=150, n_log=5000)
    grids = dict(noise_grid=(0.6, 0.9, 1.2, 1.5), shift_grid=(0.0, 2.0, 4.0, 6.0))
    runs = []
    for workers in (1, 2):
        real = machine.map_in_workers
        yi_calibration.map_in_workers = lambda f, items, chunksize=1, w=workers: real(f, items, workers=w,
                                                                                        chunksize=chunksize)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs
                m1, m2, trace = yi_calibration.calibrate_models(0, 0.086, 0.195, **kw, **grids)
                accepted = yi_calibration.offline_accepted_worlds(0, trace, 0.086, 0.195, rtol=5.0, n_ab=5000, **kw)
                mis, trace6 = yi_calibration.calibrate_table6(0, -0.5, shift_grid=(1.0, 3.0, 5.0, 7.0, 9.0), **kw)
        finally:
            yi_calibration.map_in_workers = real
        runs.append((m1, m2, mis, trace.to_csv(), accepted.to_csv(), trace6.to_csv()))
    assert runs[0] == runs[1] and len(accepted)


def test_table6_panels(exp, exp6):
    t6p = {c: "1%" for c in ("offline AUC", "offline RIG", "simulated CY", "simulated Mainline CY", "online CY",
                             "online Mainline CY")}
    t = pd.concat([yi_auction.table6(exp, panel="Table 5 model"), yi_auction.table6(exp6, t6p, panel="Table 6 model")],
                  ignore_index=True)
    assert t.columns[0] == "panel" and t["panel"].tolist() == ["Table 5 model"] * 2 + ["Table 6 model"] * 3
    assert t.loc[2, "online CY"] == 1.0
    assert t.loc[4, "online CY"] == pytest.approx(100 * exp6.online_best.cy_delta)
    assert "panel" not in yi_auction.table6(exp).columns


def test_per_seed_outcomes_and_the_control_model():
    kw = dict(n_queries=300, n_log=20_000, n_ab=10_000, n_quantiles=5)
    out = yi_auction.per_seed(3, **kw)
    for key in ("t5_gain_and_loss", "f3_low_loss_share", "f3_share_gap_low", "f34_low_overestimate"):
        assert key in out
    assert out["f3_low_loss_share"] == (out["f3_share_gap_low"] > yi_auction.F3_THRESHOLD)
    assert out["f34_low_overestimate"] == (out["pe2_low"] > 0 and out["pe2_low"] > out["pe2_high"])
    assert out["t5_gain_and_loss"] == (out["t5_offline_gain"] and out["t5_online_loss"])
    assert yi_auction.CONTROL_MODEL_2["low_shift"] == 0 and yi_auction.CONTROL_MODEL_2["noise_sd"] == _auction.MODEL_2["noise_sd"]
    ctrl = yi_auction.per_seed(3, model_2=yi_auction.CONTROL_MODEL_2, **kw)
    assert ctrl["pe2_low"] < out["pe2_low"]
    assert out["t6_offline_disagrees_best"] == (not yi_auction.agrees(out["auc_delta"], out["best_online_cy_delta"])
                                                and not yi_auction.agrees(out["rig_delta"], out["best_online_cy_delta"]))


def test_magnitudes_are_predictions_and_the_fitted_targets_calibrations():
    kinds = {c.id: c.kind for c in yi_auction.CLAIMS}
    # Table 5: calibrated on the offline deltas only, the online deltas predicted
    assert kinds["yi-T5-cy-size"] == kinds["yi-T5-mlcy-size"] == kinds["yi-T6b-*-size"] == "prediction"
    assert kinds["yi-T5-rig-size"] == kinds["yi-T5-auc-size"] == "calibration"
    assert kinds["yi-T6b-rig-size"] == "calibration"  # the Table 6 world's one knob
    revised = {c.id: c.revised for c in yi_auction.CLAIMS}
    for cid in ("yi-T5-cy-size", "yi-T5-mlcy-size", "yi-T5-auc-size", "yi-F34-sweep", "yi-F3-sweep", "yi-T6b-rig-size",
                "yi-T6b-auc-rig-disagree-sweep", "yi-T6b-best-point-gains-sweep"):
        assert revised[cid], cid
    # every claim on a synthetic world declares a control world, but those of the simulator's accuracy
    no_control = {c.id for c in yi_auction.CLAIMS if c.kind == "claim" and c.world != "paper" and not c.control}
    assert no_control == {"yi-T6-sim-agrees-sweep", "yi-T6b-sim-agrees-sweep"}


def test_the_auction_formulas_hold():
    f = _formulas.auction_formula_rows(0)
    assert f["holds"].all() and list(f["source"]) == ["eq. (1)", "eq. (1)", "Section 2.1"]


def test_calibration_note_names_the_fitted_knobs():
    trace = pd.DataFrame({"stage": [1, 1, 1, 1, 2], "noise_sd": [0.6, 0.6, 0.8, 0.8, 0.71],
                          "low_shift": [0.0, 2.0, 0.0, 2.0, 1.5]})
    note = yi_auction.calibration_note({"noise_sd": 0.71}, {"low_shift": 1.5}, trace)
    assert "grid of 2 x 2" in note and "noise 0.71, over-estimation 1.5 log-odds" in note


def test_sweep_worlds_have_the_main_runs_size():
    # the simulator estimates clicks from the logs: its claims are swept in worlds of the main run's
    # size (a half-size sweep missed in 7/20 seeds by 2-5 A/B standard errors)
    from offline_eval_compendium import pipeline
    from offline_eval_compendium.paths import NOTEBOOKS_DIR

    p = pipeline.check_parameters(NOTEBOOKS_DIR / "yi_offline_online.py", {})
    assert p["sweep_n_queries"] == p["n_queries"] and p["sweep_n_log"] == p["n_log"]
    sig = inspect.signature(yi_auction.per_seed).parameters
    assert sig["n_queries"].default == p["n_queries"] and sig["n_log"].default == p["n_log"]


def test_model_1_calibration_replays_the_runs_logs_and_hits_the_target():
    kw = dict(n_queries=200, n_log=10_000, baseline_quantile=0.6)
    grid = (0.4, 0.6, 0.8, 1.0, 1.2)
    noise, trace = yi_auction.calibrate_model_1(5, 0.2, grid=grid, **kw)
    assert list(trace.columns) == ["noise_sd", "auc_delta", "rig_delta", "rig_fit"] and len(trace) == len(grid)
    # each grid point is exactly the offline delta of the run with that model-1 (the same draws)
    exp = yi_auction.run(5, n_ab=2000, alphas=(1.0,), mainline_quantiles=(0.6,),
                         model_1={**yi_auction.MODEL_1, "noise_sd": 0.8}, **kw)
    row = trace.set_index("noise_sd").loc[0.8]
    assert exp.offline["rig_delta"] == row["rig_delta"] and exp.offline["auc_delta"] == row["auc_delta"]
    # the fitted noise is where the cubic through the grid crosses the target, inside the grid
    coef = np.polynomial.Polynomial.fit(trace["noise_sd"], trace["rig_delta"], 3)
    assert 0.4 < noise < 1.2 and coef(noise) == pytest.approx(0.2, abs=5e-3)
    assert noise == round(noise, 3)
    with pytest.raises(ValueError, match="bracket"):
        yi_auction.calibrate_model_1(5, 50.0, grid=grid, **kw)


def test_two_knob_calibration_uses_the_offline_deltas_of_the_runs_logs():
    kw = dict(n_queries=200, n_log=10_000, baseline_quantile=0.6)
    ng, sg = (0.6, 0.8, 1.0, 1.2), (0.0, 2.0, 4.0, 6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        m1, m2, trace = yi_auction.calibrate_models(5, 0.05, 0.2, noise_grid=ng, shift_grid=sg, **kw)
        assert list(trace.columns) == ["stage", "noise_sd", "low_shift", "auc_delta", "rig_delta", "auc_all_delta",
                                       "miss"]
        assert (trace["stage"] == 1).sum() == len(ng) * len(sg)
        # each grid point is exactly the offline deltas of the run with those two models (the same draws)
        exp = yi_auction.run(5, n_ab=2000, alphas=(1.0,), mainline_quantiles=(0.6,),
                             model_1={**yi_auction.MODEL_1, "noise_sd": 0.8},
                             model_2={**_auction.MODEL_2, "low_shift": 4.0}, **kw)
    row = trace.loc[trace["stage"] == 1].set_index(["noise_sd", "low_shift"]).loc[(0.8, 4.0)]
    assert exp.offline["rig_delta"] == row["rig_delta"] and exp.offline["auc_delta"] == row["auc_delta"]
    # the fitted pair lies on the lattice inside the grid, and only the two knobs move
    assert 0.6 <= m1["noise_sd"] <= 1.2 and 0.0 <= m2["low_shift"] <= 6.0
    assert m1["noise_sd"] == round(m1["noise_sd"], 2) and m2["low_shift"] == round(m2["low_shift"], 2)
    assert {k: v for k, v in m2.items() if k != "low_shift"} == {k: v for k, v in _auction.MODEL_2.items()
                                                                  if k != "low_shift"}
    # the fit is the measured point of the local lattice with the smallest miss, the objective written out
    local = trace.loc[trace["stage"] == 2]
    miss = ((local["auc_delta"] - 0.05) / 0.05) ** 2 + ((local["rig_delta"] - 0.2) / 0.2) ** 2
    np.testing.assert_allclose(local["miss"], miss, atol=1e-9)
    fit = local.loc[(local["noise_sd"] == m1["noise_sd"]) & (local["low_shift"] == m2["low_shift"])]
    assert len(fit) == 1 and fit["miss"].item() == local["miss"].min()
    with pytest.raises(ValueError, match="noise_grid"):
        yi_auction.calibrate_models(5, 0.05, 0.2, noise_grid=(0.6, 0.8), shift_grid=sg, **kw)
    with pytest.raises(ValueError, match="target_auc_delta"):
        yi_auction.calibrate_models(5, 0.0, 0.2, noise_grid=ng, shift_grid=sg, **kw)


def test_offline_accepted_worlds_keeps_the_best_point_per_over_estimation_within_tolerance():
    trace = pd.DataFrame({"stage": [1, 1, 1, 1, 1, 2], "noise_sd": [0.6, 0.8, 0.6, 0.8, 0.6, 0.7],
                          "low_shift": [0.0, 0.0, 2.0, 2.0, 4.0, 1.0],
                          "auc_delta": [0.05, 0.06, 0.2, 0.055, 0.05, 0.05],
                          "rig_delta": [0.25, 0.2, 0.2, 0.19, 0.5, 0.2], "auc_all_delta": 0.0, "miss": np.nan})
    kw = dict(n_queries=150, n_log=5000, n_ab=4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        acc = yi_auction.offline_accepted_worlds(3, trace, 0.06, 0.2, **kw)
        # shift 0: both points within 50%, the smaller miss (noise 0.8) kept; shift 2: only noise 0.8 within;
        # shift 4: RIG 0.5 outside; stage 2 ignored
        assert acc[["noise_sd", "low_shift"]].values.tolist() == [[0.8, 0.0], [0.8, 2.0]]
        exp = yi_auction.run(3, alphas=(1.0,), mainline_quantiles=(0.6,), model_1={"noise_sd": 0.8},
                             model_2={**_auction.MODEL_2, "low_shift": 2.0}, **kw)
    assert acc["online_cy_delta"].iloc[1] == exp.online_base.cy_delta


def test_table6_calibration_crosses_the_rig_target_on_the_runs_logs():
    kw = dict(n_queries=200, n_log=10_000, baseline_quantile=0.6)
    grid = (3.0, 4.0, 5.0, 6.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        mis, trace = yi_auction.calibrate_table6(5, 0.3, shift_grid=grid, **kw)
        assert list(trace.columns) == ["low_shift", "auc_delta", "rig_delta"] and len(trace) == len(grid)
        # each grid point is the offline delta of the Table 6 run with that baseline (the same draws)
        exp = yi_auction.run(5, n_ab=2000, alphas=(1.0,), mainline_quantiles=(0.6,), models="table6",
                             miscalibration=dict(low_ctr=0.004, low_shift=4.0, width=1.0), **kw)
    assert exp.offline["rig_delta"] == trace.set_index("low_shift").loc[4.0, "rig_delta"]
    # the fit interpolates the first bracketing pair of grid points
    d = trace["rig_delta"].to_numpy() - 0.3
    i = int(np.flatnonzero(np.sign(d[:-1]) != np.sign(d[1:]))[0])
    assert grid[i] <= mis["low_shift"] <= grid[i + 1] and mis["width"] == mis["low_shift"] / 4
    assert mis["low_shift"] == round(mis["low_shift"], 2) and mis["low_ctr"] == 0.004
    with pytest.raises(ValueError, match="never cross"):
        yi_auction.calibrate_table6(5, 1e6, shift_grid=(3.0, 4.0), **kw)


def test_history_threshold_comes_from_the_runs_own_logs(exp):
    kw = {k: SMALL[k] for k in ("n_queries", "n_log")}
    table = yi_auction.cross_validate_history(0, grid=(1, 5, 50), **kw)
    assert list(table["min_impressions"]) == [1, 5, 50] and table["chosen"].sum() == 1
    # the same logs as the run's: the run with the chosen threshold replays them with that threshold
    k = int(table.loc[table["chosen"], "min_impressions"].iloc[0])
    run_k = yi_auction.run(0, min_impressions=k, **SMALL)
    np.testing.assert_array_equal(run_k.log.impressions, exp.log.impressions)
    assert run_k.log.min_impressions == k and exp.log.min_impressions == 1


def test_seed_effects_follow_the_claims_criteria_on_every_seed():
    # a slow reference beside each effect: the agreement test's distance written out pair by pair, and the
    # sign criteria of the earlier booleans read off the effects
    kw = dict(n_queries=300, n_log=20_000, n_ab=10_000, n_quantiles=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        rows = [yi_auction.per_seed(s, **kw) for s in (3, 4)]
    frame = pd.DataFrame([{"seed": s, **r} for s, r in zip((3, 4), rows)])
    fx = yi_auction.seed_effects(frame)
    assert list(fx["seed"]) == [3, 4]
    tol = lambda on: 100 * (yi_auction.AGREEMENT["abs"] + yi_auction.AGREEMENT["rel"] * abs(on))
    for r, e in zip(rows, fx.itertuples()):
        four = (r["auc_delta"], r["rig_delta"], -r["online_cy_delta"], -r["online_ml_cy_delta"])
        assert e.t5_gain_and_loss == pytest.approx(100 * min(four))
        assert (e.t5_gain_and_loss > 0) == (r["t5_offline_gain"] and r["online_cy_delta"] < 0
                                            and r["online_ml_cy_delta"] < 0)
        assert (e.f34_low_overestimate > 0) == r["f34_low_overestimate"]
        assert e.f3_share_gap_low == r["f3_share_gap_low"]
        pairs = [(r["sim_cy_delta"], r["online_cy_delta"]), (r["sim_ml_cy_delta"], r["online_ml_cy_delta"]),
                 (r["best_sim_cy_delta"], r["best_online_cy_delta"]),
                 (r["best_sim_ml_cy_delta"], r["best_online_ml_cy_delta"])]
        misses = [100 * abs(p - o) - tol(o) for p, o in pairs]
        assert e.sim_miss == pytest.approx(max(misses))
        best = r["best_online_cy_delta"]
        assert e.offline_miss_best == pytest.approx(min(100 * abs(x - best) - tol(best)
                                                        for x in (r["auc_delta"], r["rig_delta"])))
        on = r["online_cy_delta"]
        near = min(abs(r["auc_delta"] - on), abs(r["rig_delta"] - on))
        assert e.sim_closer == pytest.approx(100 * (near - abs(r["sim_cy_delta"] - on)))
        assert e.auc_closer == pytest.approx(100 * (abs(r["rig_delta"] - on) - abs(r["auc_delta"] - on)))
        # where every sign agrees, a negative miss is the agreement test passing
        if all(np.sign(p) == np.sign(o) for p, o in pairs):
            assert (e.sim_miss <= 0) == r["t6_sim_agrees"]


def test_seed_effects_of_the_table6_model_and_its_shape_check():
    frame = pd.DataFrame(dict(seed=[1, 2], auc_delta=[0.0, 0.004], rig_delta=[0.78, 0.02],
                              online_cy_delta=[-0.2, 0.1], online_ml_cy_delta=[-0.3, 0.1],
                              sim_cy_delta=[-0.2, 0.1], sim_ml_cy_delta=[-0.3, 0.1], best_online_cy_delta=[0.3, 0.01],
                              best_online_ml_cy_delta=[0.4, 0.0], best_sim_cy_delta=[0.3, 0.0],
                              best_sim_ml_cy_delta=[0.4, 0.0]))
    fx = yi_auction.seed_effects(frame)
    assert "f34_low_overestimate" not in fx  # the Table 6 frames have no breakdown
    # |AUC| < 1% and RIG > 10 |AUC|: seed 1 by construction (1 pp margin), seed 2 fails its second part
    assert fx["offline_shape"].tolist() == pytest.approx([1.0, 2.0 - 4.0])
    assert fx["best_online_cy"].tolist() == pytest.approx([30.0, 1.0])
    # an AUC delta of 0 beside an online delta of +1% is within the agreement distance (a miss below 0)
    assert fx["offline_miss_best"].iloc[1] < 0 < fx["offline_miss_best"].iloc[0]


def test_the_run_is_built_by_keyword_and_add_claims_takes_its_block():
    import dataclasses

    from offline_eval_compendium.claims import Ledger

    fields = [f.name for f in dataclasses.fields(yi_auction.YiRun)]
    assert fields[0] == "ref"  # the printed numbers travel in the run, not beside it
    with pytest.raises(TypeError):
        yi_auction.YiRun(*range(len(fields)))
    run = yi_auction.YiRun(**{**dict.fromkeys(fields), "sweep": {"development": None, "confirmation": None}})
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.sweep = {}
    ledger = Ledger("yi", "yi_offline_online", claims=yi_auction.CLAIMS, seeds=yi_auction.SEEDS.sized(2))
    with pytest.raises(ValueError, match="`block` must be one of"):
        yi_auction.add_claims(ledger, run, block="main")


def test_every_synthetic_row_is_judged_by_a_declared_effect_and_no_share_of_seeds():
    study = yi_auction

    src = inspect.getsource(study)
    assert "ledger.sweep(" not in src and "ledger.predict(" not in src and "sweep_verdict" not in src
    assert "sweep_verdict" not in inspect.getsource(__import__(
        "offline_eval_compendium.studies.yi._auction", fromlist=["x"]))
    for c in study.CLAIMS:
        if c.world.startswith("synthetic:") and c.kind in ("claim", "prediction", "check") \
                and c.id != "yi-check-history-threshold":
            assert c.effect is not None, c.id
    # Table 6's sentences about a model that gains click yield are judged on the Table 6 world only
    ids = {c.id for c in study.CLAIMS}
    assert "yi-T6-auc-rig-disagree-sweep" not in ids and "yi-T6-best-point-gains-sweep" not in ids
    revised = {c.id: c.revised for c in study.CLAIMS}
    assert "yi-T6-auc-rig-disagree-sweep" in revised["yi-T6b-auc-rig-disagree-sweep"]
    assert "yi-T6-best-point-gains-sweep" in revised["yi-T6b-best-point-gains-sweep"]
    assert study.SEEDS.superseded  # the confirmation block was renewed for the estimate rule


def test_the_metric_formulas_hold():
    f = yi_metrics.formula_table(0)
    assert f["holds"].all() and list(f["source"]) == ["eq. (2)", "Section 4.3", "Section 4.3", "Section 4.4",
                                                       "Section 4.5"]


def test_model_2_over_estimates_the_low_range_of_its_own_pclick_keeping_its_order():
    # yi Section 6: "Model-2 substantially overestimates the pClick scores on the quantiles in lower pClick score
    # range": the over-estimation follows the model's own score, so its ranking is the noisy model's
    from offline_eval.synth import sponsored as sp

    ctr = sp.sample_ctr(5000, 1)
    m2 = {**_auction.MODEL_2, "low_shift": 4.0}
    p = yi_auction.model_2_pclick(ctr, 7, **m2)
    plain = sp.distorted_pclick(ctr, 7, noise_sd=m2["noise_sd"])
    assert np.array_equal(np.argsort(p, kind="stable"), np.argsort(plain, kind="stable"))
    ratio = p / plain
    low, high = plain < 1e-3, plain > 0.2  # the switch is wide (w ~ 1 log-odds): well above it, +0.1 and a little
    assert np.median(ratio[low]) > 20 and np.all(ratio[high] < 1.25) and np.all(ratio >= 1 - 1e-12)
    # the written-out map: logit p' = x + high s((x - x0)/w) + low s((x0 - x)/w), w = max((low - high)/4, width)
    from scipy.special import expit, logit

    x, x0, w = logit(plain), logit(m2["low_ctr"]), max((4.0 - m2["high_shift"]) / 4, m2["width"])
    want = expit(x + m2["high_shift"] * expit((x - x0) / w) + 4.0 * expit((x0 - x) / w))
    np.testing.assert_allclose(p, want, rtol=1e-9)
    # without shifts both forms are the noisy model; "ctr" is distorted_pclick itself
    np.testing.assert_array_equal(yi_auction.model_2_pclick(ctr, 7, **yi_auction.CONTROL_MODEL_2), plain)
    np.testing.assert_array_equal(yi_auction.model_2_pclick(ctr, 7, **{**m2, "over": "ctr"}),
                                  sp.distorted_pclick(ctr, 7, **{k: v for k, v in m2.items() if k != "over"}))
    with pytest.raises(ValueError, match="over"):
        yi_auction.model_2_pclick(ctr, 7, **{**m2, "over": "truth"})


def test_family_online_equals_the_accepted_worlds_ab_tests():
    trace = pd.DataFrame({"stage": [1, 1], "noise_sd": [0.8, 0.9], "low_shift": [0.0, 3.0], "auc_delta": [0.06, 0.06],
                          "rig_delta": [0.2, 0.2], "auc_all_delta": 0.0, "miss": np.nan})
    kw = dict(n_queries=150, n_log=5000, n_ab=4000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        acc = yi_auction.offline_accepted_worlds(3, trace, 0.06, 0.2, **kw)
        fam = yi_auction.family_grid(acc)
        assert fam.values.tolist() == [[0.8, 0.0], [0.9, 3.0]]
        w = yi_auction.family_online(3, fam.to_numpy(), **kw)
        frames, _ = yi_auction.paired_sweeps_in_workers(
            [(functools.partial(yi_auction.family_seed, members=((0.8, 0.0), (0.9, 3.0)), **kw), [3], "family")])
    # each member's online deltas are the ones its own A/B test gives (the arms share their page views)
    for i in range(2):
        assert w[f"online_cy_{i}"] == acc["online_cy_delta"].iloc[i]
        assert w[f"online_ml_cy_{i}"] == acc["online_ml_cy_delta"].iloc[i]
    assert (w["online_cy_lo"], w["online_cy_hi"]) == (min(w["online_cy_0"], w["online_cy_1"]),
                                                      max(w["online_cy_0"], w["online_cy_1"]))
    world, control = frames[0]
    assert world.iloc[0].to_dict() == {"seed": 3, **w} and control.empty
    # the span over the family's grid and the fitted world, and the printed value's depth inside it
    span = yi_auction.family_span(pd.DataFrame({"seed": [3], "online_cy_lo": [-0.3], "online_cy_hi": [0.05]}),
                                  pd.DataFrame({"seed": [3], "online_cy_delta": [-0.4]}), "online_cy")
    assert span.round(9).to_dict("list") == {"lo": [-40.0], "hi": [5.0]}
    assert yi_auction.family_span(None, pd.DataFrame({"seed": [3], "online_cy_delta": [0.1]}),
                                  "online_cy").round(9).to_dict("list") == {"lo": [10.0], "hi": [10.0]}
    with pytest.raises(ValueError, match="same seeds"):
        yi_auction.family_span(pd.DataFrame({"seed": [3], "online_cy_lo": [0.0], "online_cy_hi": [0.0]}),
                               pd.DataFrame({"seed": [4], "online_cy_delta": [0.0]}), "online_cy")


def test_table5_online_deltas_are_judged_over_the_accepted_family_and_figs_3_4_is_a_check():
    claims = {c.id: c for c in yi_auction.CLAIMS}
    for cid in ("yi-T5-cy-size", "yi-T5-mlcy-size"):
        c = claims[cid]
        assert c.kind == "prediction" and "whole family" in c.world and c.effect.direction == ">"
        assert "6.35" in c.revised  # the earlier world and what it gave
    f34 = claims["yi-F34-sweep"]
    assert f34.kind == "check" and "by construction" in f34.criterion and "-0.0071" in f34.revised
    assert _auction.MODEL_2["over"] == "score" and "over" not in yi_auction.MODEL_1
