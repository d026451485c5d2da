"""Every result with an interval or a p-value is a ``Result`` and follows one protocol (``offline_eval.results``).

It is an instance of :class:`offline_eval.results.Result`; ``.statistic`` and ``.standard_error`` are floats;
``.confidence_interval(level)`` is a ``ConfidenceInterval`` that widens with the level and, for the normal
intervals centred on the statistic, contains it; with no argument it is the 95% interval; ``.method`` names
how it is made and the repr says it; ``.pvalue`` lies in [0, 1] where the result tests something and is
``nan`` where it tests nothing (never missing); no field repeats a standard error (``*_se``); the ``repr``
is one line of at most 200 characters even with 10**5 bootstrap replicates.
"""

from __future__ import annotations

import math
import pickle
import re

import numpy as np
import pytest
from scipy import stats

import offline_eval as oe
from offline_eval import auction, logboot
from offline_eval.synth import search_world
from offline_eval._bootstrap import percentile_ci
from offline_eval import results
from offline_eval.results import ConfidenceInterval, NormalEstimate, Result
from offline_eval.ranking.bootstrap import BootstrapComparison

RNG = np.random.default_rng(20)
N = 60
Y = RNG.normal(size=N)
M = Y + RNG.normal(size=N)
CLICK = (RNG.random(N) < 0.4).astype(int)
SCORE = np.clip(0.4 + 0.2 * CLICK + 0.2 * RNG.normal(size=N), 0.01, 0.99)
BIG = np.random.default_rng(1).normal(0.3, 0.05, 10**5)  # 10**5 replicates: the repr must not show them


def _ab_test():
    from offline_eval.synth.sponsored import make_world

    w = make_world(0, n_queries=30, n_candidates=4)
    return search_world.ab_test(w, (w.ctr, None), (w.ctr * 0.7, None), n_page_views=3000, rng=1)


def _oam():
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 3, 80)
    b = np.where(rng.random(80) < 0.7, truth, rng.integers(0, 3, 80))
    c = np.where(rng.random(80) < 0.8, truth, rng.integers(0, 3, 80))
    return oe.bootstrap_oam_accuracy(b, c, truth, b[:40], c[:40], n_boot=200, rng=4)


# name -> (factory, centred: the interval is centred on the statistic, pvalue: True / False / "nan", level)
CASES = {
    "TauResult-b": (lambda: oe.kendall_tau_test(Y, M, variant="b"), True, True, 0.95),
    "TauResult-c": (lambda: oe.kendall_tau_test(Y, np.round(M), variant="c"), True, True, 0.95),
    "RhoResult": (lambda: oe.spearman_rho_test(Y, M), False, True, 0.95),
    "TauResult-a": (lambda: oe.kendall_tau_test(Y, M, variant="a"), True, True, 0.95),
    "BootstrapCI": (lambda: oe.bootstrap_ci(oe.roc_auc_score, CLICK, SCORE, n_boot=300, rng=0), False, False, 0.95),
    "BootstrapCI-1e5": (lambda: percentile_ci(0.3, BIG, 0.9, "x"), False, False, 0.95),
    "AdaptiveAccuracyCI.candidate": (lambda: _oam().candidate, False, False, 0.95),
    "BootstrapComparison": (lambda: oe.bootstrap_compare(Y, M, -M, measure="MAE", n_boot=200, rng=0),
                            True, True, 0.95),
    "BootstrapComparison-1e5": (lambda: BootstrapComparison(0.5, 0.2, 0.3, 0.05, 1e-9, BIG), True, True, 0.95),
    "BootstrapResult": (lambda: oe.clustered_bootstrap(CLICK, SCORE, n_boot=300, rng=0).a.log_loss,
                        False, "nan", 0.95),
    "BootstrapResult-difference": (lambda: oe.clustered_bootstrap(CLICK, SCORE, np.sqrt(SCORE), n_boot=300,
                                                                  rng=0).difference.roc_auc_score,
                                   False, True, 0.95),
    "BootstrapResult-1e5": (lambda: logboot.BootstrapResult(0.3, BIG, 0.01, name="x", n_clusters=10**5,
                                                            difference=True), False, True, 0.95),
    "ClickYield.cy": (lambda: _ab_test().control.cy, True, False, 0.95),
    "ClickYield.ml_cy": (lambda: _ab_test().treatment.ml_cy, True, False, 0.95),
    "ABTest.cy_delta": (lambda: _ab_test().cy_delta, True, True, 0.95),
    "ABTest.ml_cy_delta": (lambda: _ab_test().ml_cy_delta, True, True, 0.95),
}

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99)


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request):
    factory, centred, pvalue, level = CASES[request.param]
    return request.param, factory(), centred, pvalue, level


def test_statistic_is_a_float(case):
    _, res, *_ = case
    assert type(res.statistic) is float and math.isfinite(res.statistic)


def test_interval_is_one_type_and_widens_with_the_level(case):
    _, res, centred, _, level = case
    cis = [res.confidence_interval(lv) for lv in LEVELS]
    assert all(type(ci) is ConfidenceInterval for ci in cis)
    lows, highs = np.array([ci.low for ci in cis]), np.array([ci.high for ci in cis])
    assert np.all(np.diff(lows) <= 0) and np.all(np.diff(highs) >= 0) and np.all(lows <= highs)
    if centred:
        assert np.all(lows <= res.statistic) and np.all(res.statistic <= highs)
    assert res.confidence_interval() == res.confidence_interval(level)
    assert res.confidence_interval(level=level) == res.confidence_interval(level)
    with pytest.raises(ValueError, match="`level`"):
        res.confidence_interval(1.0)


def test_every_result_is_a_result_with_a_standard_error_and_a_method(case):
    name, res, *_ = case
    assert isinstance(res, Result), name
    assert type(res.standard_error) is float and res.standard_error >= 0
    assert res.method in ("normal", "percentile", "bca", "Fisher-z")
    assert re.search(rf"\d+% {res.method} CI", repr(res)), repr(res)
    fields = getattr(res, "_fields", ())
    assert not [f for f in fields if f.endswith("_se")]
    import inspect

    assert inspect.signature(type(res).confidence_interval).parameters["level"].default == 0.95


def test_every_interval_bearing_class_of_the_library_is_a_result():
    # the census: every public class with a confidence_interval method extends Result
    import importlib
    import inspect

    found = set()
    for module in ("offline_eval", "offline_eval.metrics", "offline_eval.ranking", "offline_eval.logboot",
                   "offline_eval.auction", "offline_eval.adaptive", "offline_eval.bidding",
                   "offline_eval.counterfactual", "offline_eval.results"):
        mod = importlib.import_module(module)
        for name in getattr(mod, "__all__", []):
            obj = getattr(mod, name)
            if inspect.isclass(obj) and hasattr(obj, "confidence_interval"):
                found.add(obj.__name__)
                assert issubclass(obj, Result), obj
    assert {"BootstrapResult", "BootstrapComparison", "TauResult", "RhoResult",
            "NormalEstimate"} <= found


def _every_subclass(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _every_subclass(sub)


def test_results_is_the_public_home_of_the_base_and_every_result_type():
    # issue 49: Result and NormalEstimate were returned to users and public nowhere
    import importlib
    import pkgutil

    import offline_eval

    for info in pkgutil.walk_packages(offline_eval.__path__, "offline_eval."):  # every type the library defines
        importlib.import_module(info.name)
    types = {cls.__name__: cls for cls in _every_subclass(Result) if cls.__module__.startswith("offline_eval.")}
    assert set(results.__all__) == {"Result", "ConfidenceInterval", *types}
    for name, cls in types.items():
        assert getattr(results, name) is cls
    assert results.Result is importlib.import_module("offline_eval._results").Result  # old paths still work
    assert results.BootstrapResult is offline_eval.metrics.BootstrapCI and results.TauResult is offline_eval.ranking.TauResult
    namespace = {}
    exec("from offline_eval.results import *", namespace)
    assert {n for n in namespace if not n.startswith("__")} == set(results.__all__)
    with pytest.raises(AttributeError, match="no attribute 'Nothing'"):
        results.Nothing


def test_pvalue_is_a_probability_where_the_result_tests_something(case):
    _, res, _, pvalue, _ = case
    if pvalue is True:
        assert 0.0 <= res.pvalue <= 1.0
    else:
        assert math.isnan(res.pvalue)


def test_repr_is_one_short_line(case):
    _, res, *_ = case
    text = repr(res)
    assert len(text) <= 200 and "\n" not in text and "array" not in text and "..." not in text


def test_logboot_and_tau_share_the_interval_type():
    assert logboot.ConfidenceInterval is ConfidenceInterval
    assert type(oe.tau_confidence_interval(Y, M)) is ConfidenceInterval


def test_normal_estimate_is_its_float_with_a_normal_interval_and_test():
    e = NormalEstimate(-0.12, 0.05, name="d", test_zero=True)
    assert e == -0.12 and 100 * e == pytest.approx(-12.0) and type(100 * e) is float
    low, high = e.confidence_interval(0.9)
    assert (low, high) == pytest.approx((-0.12 - stats.norm.ppf(0.95) * 0.05, -0.12 + stats.norm.ppf(0.95) * 0.05))
    assert e.pvalue == pytest.approx(2 * stats.norm.sf(0.12 / 0.05), rel=1e-12)
    back = pickle.loads(pickle.dumps(e))
    assert back == e and back.standard_error == 0.05 and back.pvalue == e.pvalue and back.name == "d"
    assert math.isnan(NormalEstimate(1.0, 0.1).pvalue)  # tests nothing
    assert NormalEstimate(0.0, 0.0, test_zero=True).pvalue != NormalEstimate(0.0, 0.0, test_zero=True).pvalue  # nan
    assert NormalEstimate(0.1, 0.0, test_zero=True).pvalue == 0.0


def test_bootstrap_ci_recomputes_other_levels_from_its_replicates():
    reps = np.random.default_rng(5).normal(size=1000)
    reps[:10] = np.nan
    with pytest.warns(oe.OfflineEvalWarning):
        res = percentile_ci(0.0, reps, 0.95, "x")
    assert res.confidence_interval(0.95) == (res.low, res.high)
    assert res.confidence_interval(0.8) == pytest.approx(np.percentile(reps[10:], [10, 90]).tolist(), rel=1e-15)


def test_tau_shortcuts_delegate_to_the_test_with_its_default_variant():
    import inspect

    for fn in (oe.kendall_tau, oe.kendall_tau_test, oe.tau_variance, oe.tau_confidence_interval):
        assert inspect.signature(fn).parameters["variant"].default == "b", fn
    ties = np.round(M)
    for variant in ("a", "b", "c"):
        res = oe.kendall_tau_test(Y, ties, variant=variant)
        assert oe.tau_variance(Y, ties, variant=variant) == res.variance
        assert oe.tau_confidence_interval(Y, ties, level=0.8, variant=variant) == res.confidence_interval(0.8)
    assert oe.kendall_tau(Y, ties) == oe.kendall_tau_test(Y, ties).statistic
