"""The library as a newcomer meets it: documented parameters, a dependency structure one can read,
result types with attributes, and a fuzz of the public API beyond the scalar metrics."""

import ast
import importlib
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from hypothesis import given, settings
from hypothesis import strategies as st

import offline_eval
from offline_eval import OfflineEvalWarning, adaptive, auction, bidding, metrics
from offline_eval import ranking as rk
from offline_eval.synth import search_world

SRC = Path(offline_eval.__file__).parent
#: The library one uses on one's own data, and the synthetic-data generators.
LIBRARY = ["metrics", "ranking", "adaptive", "bidding", "auction", "mergeable", "ondask", "logboot", "_validation",
           "_bootstrap", "_losses", "_results", "_public", "_chunks", "_ondask_io", "_ondask_cells", "_ondask_summary",
           "_logboot_engine", "_logboot_weights", "_metrics_roc", "_metrics_losses", "_metrics_residual", "_adaptive_joint",
           "_mergeable_scores", "_mergeable_losses", "_mergeable_joint", "_mergeable_utility", "_logboot_run",
           "_logboot_results", "_logboot_sums", "results"]
GENERATORS = ["synth.sponsored", "synth.search_world", "synth.rtb", "synth.classifiers", "synth.wallet"]


def _public_callables(module_name):
    mod = importlib.import_module(f"offline_eval.{module_name}")
    for name in getattr(mod, "__all__", []):
        obj = getattr(mod, name)
        if inspect.isfunction(obj):
            yield f"{module_name}.{name}", obj
        elif inspect.isclass(obj) and obj.__module__.startswith("offline_eval"):
            for key, val in vars(obj).items():
                if key.startswith("_"):
                    continue
                fn = val.__func__ if isinstance(val, (classmethod, staticmethod)) else val
                if inspect.isfunction(fn):
                    yield f"{module_name}.{name}.{key}", fn


@pytest.mark.parametrize("module_name", [m for m in LIBRARY + GENERATORS if not m.startswith("_")])
def test_every_public_function_documents_its_parameters(module_name):
    missing = []
    for qualname, fn in _public_callables(module_name):
        params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
        doc = inspect.getdoc(fn) or ""
        if params and "Parameters\n----------" not in doc:
            missing.append(qualname)
        for p in params:
            if p not in doc:
                missing.append(f"{qualname}({p})")
    assert missing == []


def _library_files():
    for name in LIBRARY:
        path = SRC / (name + ".py")
        yield from ([path] if path.exists() else sorted((SRC / name).glob("*.py")))


def _relative_imports(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            yield node, [a.name for a in node.names]


def test_the_library_imports_neither_the_generators_nor_the_compendium():
    offenders = []
    for path in _library_files():
        for node, names in _relative_imports(path):
            target = (node.module or "")
            if target.split(".")[0] in ("synth", "compendium") or any(n in ("synth", "compendium") for n in names):
                offenders.append(f"{path.relative_to(SRC)}: from {'.' * node.level}{target} import {names}")
    assert offenders == []
    code = ("import sys, offline_eval.metrics, offline_eval.ranking, offline_eval.adaptive, offline_eval.bidding, "
            "offline_eval.auction, offline_eval.mergeable; "
            "print(sorted(m for m in sys.modules if m.startswith(('offline_eval.synth', 'offline_eval_compendium'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
    # no way back up: the online world lives in the generator alone, ``auction`` neither holds nor re-exports it
    for name in search_world.__all__:
        assert not hasattr(auction, name) and name not in auction.__all__ and name not in offline_eval.__all__


def test_no_private_name_is_imported_across_modules():
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        for node, names in _relative_imports(path):
            # a private module (``_losses.py``) is its package's to share; a private name is its module's only
            here = path.parent / ("/".join([".."] * (node.level - 1)) or ".") / (node.module or "").replace(".", "/")
            private = [n for n in names if n.startswith("_") and n != "__version__"
                       and not (here.resolve() / f"{n}.py").exists()]
            if private:
                offenders.append(f"{path.relative_to(SRC)}: from {'.' * node.level}{node.module or ''} import {private}")
    assert offenders == []


def _public_modules():
    """Every public module of the library (no part of its name private), imported."""
    import pkgutil

    for info in pkgutil.walk_packages(offline_eval.__path__, "offline_eval."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            yield importlib.import_module(info.name)


PUBLIC_MODULES = [m.__name__ for m in _public_modules()]


@pytest.mark.parametrize("module_name", PUBLIC_MODULES)
def test_inspect_getsource_finds_every_public_name(module_name):
    # issue 49: a public module that named itself the __module__ of its engines' classes sent inspect to its own
    # file, where no such class is defined (RhoResult, LossSums, QuantileSums, ScoreCounts, ondask.Summary)
    mod = importlib.import_module(module_name)
    checked, failed = 0, []
    for name in mod.__all__:
        obj = getattr(mod, name)
        if not (inspect.isclass(obj) or inspect.isfunction(obj)) or not obj.__module__.startswith("offline_eval"):
            continue
        members = [getattr(obj, k) for k, v in vars(obj).items()
                   if inspect.isfunction(v) and not k.startswith("_")] if inspect.isclass(obj) else []
        for target in (obj, *members):
            checked += 1
            try:
                source = inspect.getsource(target)
            except (OSError, TypeError) as exc:
                failed.append(f"{name}: {exc}")
                continue
            keyword = "class" if inspect.isclass(target) else "def"
            if not re.search(rf"^\s*{keyword} {target.__name__}\b", source, re.M):
                failed.append(f"{name}: another object's source ({source.splitlines()[0]})")
    assert failed == []
    assert checked or not [n for n in mod.__all__ if inspect.isclass(getattr(mod, n)) or inspect.isfunction(getattr(mod, n))]


def test_the_names_reported_by_issue_49_have_their_source():
    from offline_eval import mergeable, ondask, ranking

    for obj in (ranking.RhoResult, mergeable.LossSums, mergeable.QuantileSums, mergeable.ScoreCounts, ondask.Summary):
        assert inspect.getsource(obj).lstrip().startswith(("@dataclass", "class")), obj
        assert inspect.getsourcefile(obj) == sys.modules[obj.__module__].__file__


def test_one_name_per_measure():
    # the residual measures live in metrics only; ranking's Tables 1-2 use those very functions
    assert rk.MEASURES["RMSE"] is metrics.root_mean_squared_error
    assert rk.MEASURES["MAE"] is metrics.mean_absolute_error
    assert rk.MEASURES["MAD"] is metrics.median_absolute_error
    for old in ("auc", "rig", "mse", "nmse", "mae", "auc_from_counts"):
        assert not hasattr(metrics, old), old
    assert not hasattr(bidding, "weighted_mse")
    names = [n for n in offline_eval.__all__ if n[0].islower() and not n.startswith("_")]
    counts = pd.Series([offline_eval._EXPORTS[n] for n in names if n in offline_eval._EXPORTS]).value_counts()
    assert counts.sum() == len(set(names) & set(offline_eval._EXPORTS))


def test_results_are_named_tuples_with_attributes_and_intervals():
    rng = np.random.default_rng(0)
    y, m = rng.normal(size=50), rng.normal(size=50)
    b = metrics.bootstrap_ci(metrics.roc_auc_score, (y > 0).astype(int), m, n_boot=30, rng=0)
    assert b.confidence_interval() == (b.low, b.high)
    c = rk.bootstrap_compare(y, m, -m, measure="tau", n_boot=30, rng=0)
    lo, hi = c.confidence_interval()
    assert lo < c.difference < hi
    for result in (c, adaptive.metrics_from_joint(np.ones((2, 2, 2)))):
        assert isinstance(result, tuple) and hasattr(result, "_fields") and hasattr(result, "_asdict")
    # a bootstrap's result holds its replicates and their intervals by method (results.BootstrapResult): not a
    # tuple, but a row for a data frame all the same
    row = b._asdict()
    assert (row["statistic"], row["low"], row["high"], row["n_boot"]) == (b.statistic, b.low, b.high, 30)


def test_ab_test_interval_is_the_normal_interval_of_its_standard_error():
    from offline_eval.synth.sponsored import make_world

    w = make_world(0, n_queries=30, n_candidates=4)
    res = search_world.ab_test(w, (w.ctr, None), (w.ctr * 0.5, None), n_page_views=3000, rng=1)
    for delta, se in ((res.cy_delta, res.cy_delta.standard_error), (res.ml_cy_delta, res.ml_cy_delta.standard_error)):
        lo, hi = delta.confidence_interval(level=0.95)
        assert (hi - lo) / 2 == pytest.approx(1.959963984540054 * se)
        assert delta.standard_error == se and (lo + hi) / 2 == pytest.approx(delta.statistic)
        assert delta.pvalue == pytest.approx(2 * stats.norm.sf(abs(delta.statistic) / se), rel=1e-12)
    for arm in (res.control, res.treatment):
        assert not any(f.endswith("_se") for f in arm._fields) and not any(f.endswith("_se") for f in res._fields)
        assert np.isnan(arm.cy.pvalue)  # a click yield tests nothing
    with pytest.raises(ValueError, match="`level`"):
        res.cy_delta.confidence_interval(1.5)


def test_click_log_from_frames_equals_the_log_of_the_served_impressions():
    # the same impressions given as data frames: identical tables, curve and replay
    from offline_eval.synth.sponsored import make_world

    w = make_world(3, n_queries=40, n_candidates=5)
    pv = search_world.sample_page_views(w, 4000, rng=2)
    imp = search_world.serve(w, w.ctr, pv, rng=3)
    frame = imp.frame().rename(columns={"query": "q", "ad": "a"})
    frame["q"] = "query-" + frame["q"].astype(str).str.zfill(3)  # string labels, sorted as the codes
    frame["a"] = "ad-" + frame["a"].astype(str)
    rows = np.nonzero(pv.bids > 0)
    auctions = pd.DataFrame({"page_view": rows[0], "q": "query-" + pd.Series(pv.query[rows[0]]).astype(str).str.zfill(3),
                             "a": "ad-" + pd.Series(rows[1]).astype(str), "bid": pv.bids[rows]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # slots no ad reached (the same in both logs)
        direct = auction.ClickLog.from_impressions(pv, imp, n_queries=w.n_queries, n_candidates=w.n_candidates,
                                                   n_slots=w.n_slots)
        log = auction.ClickLog.from_frame(frame, auctions, n_mainline=w.n_mainline, n_slots=w.n_slots, query="q",
                                          ad="a")
    seen_q = np.unique(np.r_[pv.query[rows[0]], imp.query])
    # every query of the world with a logged auction is in the log, in the same order
    assert log.queries.tolist() == [f"query-{q:03d}" for q in seen_q]
    pairs = log.ads.set_index(["query", "ad"])
    k = pairs["candidate"].to_numpy()
    q = pairs["query_code"].to_numpy()
    wq = np.array([int(s[6:]) for s in pairs.index.get_level_values(0)])
    wa = np.array([int(s[3:]) for s in pairs.index.get_level_values(1)])
    np.testing.assert_array_equal(log.impressions[q, k], direct.impressions[wq, wa])
    np.testing.assert_array_equal(log.clicks[q, k], direct.clicks[wq, wa])
    np.testing.assert_allclose(log.click_curve, direct.click_curve, rtol=1e-12)
    table = log.pclick_table(pd.DataFrame({"query": pairs.index.get_level_values(0), "ad": pairs.index.get_level_values(1),
                                           "pclick": w.ctr[wq, wa]}))
    sim_frame = auction.simulate(log, table)
    sim_direct = auction.simulate(direct, w.ctr)
    # a page view without any candidate is no row of `auctions`: compare totals, not per-page-view rates
    n_frame, n_direct = len(np.unique(rows[0])), len(pv)
    assert sim_frame.ads_per_pv * n_frame == pytest.approx(sim_direct.ads_per_pv * n_direct, rel=1e-12)
    assert sim_frame.cy * n_frame == pytest.approx(sim_direct.cy * n_direct, rel=1e-9)


def test_click_log_from_frame_names_what_is_wrong():
    imp = pd.DataFrame({"query": ["q"], "ad": ["a"], "slot": [0], "click": [1]})
    auc = pd.DataFrame({"page_view": [0], "query": ["q"], "ad": ["a"], "bid": [1.0]})
    with pytest.raises(ValueError, match=r"`impressions` lacks the column\(s\) \['click'\]"):
        auction.ClickLog.from_frame(imp.drop(columns="click"), auc, n_mainline=1)
    with pytest.raises(ValueError, match="slots must be integers"):
        auction.ClickLog.from_frame(imp.assign(slot=[-1]), auc, n_mainline=1)
    with pytest.raises(ValueError, match="single query"):
        auction.ClickLog.from_frame(imp, pd.concat([auc, auc.assign(query="r")]), n_mainline=1)
    with pytest.raises(ValueError, match="`auctions` has missing values"):
        auction.ClickLog.from_frame(imp, auc.assign(bid=[np.nan]), n_mainline=1)
    log = auction.ClickLog.from_frame(imp, auc, n_mainline=1)
    with pytest.raises(ValueError, match=r"no pClick for 1 \(query, ad\) pair"):
        log.pclick_table(pd.DataFrame({"query": ["x"], "ad": ["a"], "pclick": [0.1]}))


# -- a fuzz of the wider API: a value, nan with the project warning, or a named error -----------------------
_values = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-3, 3), st.booleans(),
                    st.text(max_size=2), st.none())
_arrays = st.one_of(st.lists(_values, max_size=6), st.lists(st.floats(0, 1), max_size=6),
                    st.lists(st.integers(0, 2), max_size=6), st.lists(st.sampled_from(["a", "b"]), max_size=6),
                    st.just("abc"), st.none())
_scalars = st.one_of(_values, st.just([1]), st.just(np.nan))
CALLS = {
    "kendall_tau": lambda a, b, x: rk.kendall_tau(a, b),
    "spearman_rho": lambda a, b, x: rk.spearman_rho(a, b),
    "tau_variance": lambda a, b, x: rk.tau_variance(a, b),
    "tau_confidence_interval": lambda a, b, x: rk.tau_confidence_interval(a, b, level=x),
    "root_mean_squared_error": lambda a, b, x: metrics.root_mean_squared_error(a, b, sample_weight=x),
    "median_absolute_error": lambda a, b, x: metrics.median_absolute_error(a, b),
    "normalized_mean_squared_error": lambda a, b, x: metrics.normalized_mean_squared_error(a, b),
    "roc_auc_score(pos_label)": lambda a, b, x: metrics.roc_auc_score(a, b, pos_label=x),
    "log_loss(pos_label)": lambda a, b, x: metrics.log_loss(a, b, pos_label=x),
    "quantile_breakdown": lambda a, b, x: metrics.quantile_breakdown(a, b, n_quantiles=x),
    "utility": lambda a, b, x: bidding.utility(a, b, b, b),
    "expected_utility": lambda a, b, x: bidding.expected_utility(a, b, b, b, beta=x),
    "weighted_mean_squared_error": lambda a, b, x: bidding.weighted_mean_squared_error(a, b, b),
    "online_adaptive_metrics": lambda a, b, x: adaptive.online_adaptive_metrics(a, b, a, b, a, n_classes=x),
    "joint_distribution": lambda a, b, x: adaptive.joint_distribution(a, b, classes=x),
    "cutoff_auc": lambda a, b, x: rk.cutoff_auc(a, b),
    "leave_one_out": lambda a, b, x: rk.leave_one_out(a, b, measure=x),
}


def _scalars_of(out):
    if isinstance(out, (float, int, np.floating)):
        return [float(out)]
    if isinstance(out, tuple) and hasattr(out, "_fields"):
        return [v for f in out for v in _scalars_of(f)]
    if isinstance(out, tuple):
        return [v for f in out for v in _scalars_of(f)]
    return []


@settings(max_examples=400, deadline=None, derandomize=True)  # the same examples on every run
@given(name=st.sampled_from(sorted(CALLS)), a=_arrays, b=_arrays, x=_scalars)
def test_fuzz_of_the_wider_api(name, a, b, x):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = CALLS[name](a, b, x)
        except (ValueError, TypeError) as exc:
            assert "`" in str(exc), f"{name}: unnamed error: {exc!r}"
            return
    for v in _scalars_of(out):
        if np.isnan(v):
            assert any(issubclass(c.category, OfflineEvalWarning) for c in caught), f"{name}: nan without the warning"
