"""One bootstrap result type (issue 49): every bootstrap returns ``results.BootstrapResult``, whose
``confidence_interval(level, method=...)`` gives the intervals of ``scipy.stats.bootstrap`` (percentile, basic, BCa
where the acceleration was computed), and whose numbers are those of the three result types it replaces, bit for bit
(the committed figures hold those bits).

The references below are the interval code of the replaced types, copied as it stood: ``_bootstrap.BootstrapCI``
(the row bootstraps of ``metrics.bootstrap_ci`` and ``adaptive.bootstrap_oam_accuracy``) and
``_logboot_results.BootstrapResult`` (the clustered bootstrap, in memory and on Dask).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import offline_eval as oe
from offline_eval import OfflineEvalWarning, adaptive, logboot, ranking, results
from offline_eval._bootstrap import BootstrapCI, percentile_ci
from offline_eval._logboot_engine import bca_quantiles, jackknife_acceleration
from offline_eval.results import BootstrapResult, ConfidenceInterval

LEVELS = (0.5, 0.8, 0.9, 0.95, 0.99, 0.123456789)


# -- the replaced types' interval code, as it stood ------------------------------------------------------------------
def old_rows_percentiles(reps, level):
    """``_bootstrap._percentiles``: the row bootstrap's percentile interval."""
    valid = np.isfinite(reps)
    if int(valid.sum()) < len(reps) / 2:
        return float("nan"), float("nan")
    low, high = (float(x) for x in np.percentile(reps[valid], [(100 - 100 * level) / 2, (100 + 100 * level) / 2]))
    return low, high


def old_rows_interval(reps, asked, level):
    """``BootstrapCI.confidence_interval(level)`` of a result built at level ``asked``."""
    if level == asked:  # the stored (low, high)
        return old_rows_percentiles(reps, asked)
    return old_rows_percentiles(reps, level)


def old_clustered_interval(statistic, replicates, acceleration, level, method):
    """``logboot.BootstrapResult.confidence_interval(level, method=method)`` (warnings left out)."""
    r = replicates[np.isfinite(replicates)]
    if len(r) < len(replicates) / 2 or len(r) == 0 or not np.isfinite(statistic):
        return float("nan"), float("nan")
    alpha = (1.0 - level) / 2.0
    if method == "percentile":
        q = np.array([alpha, 1.0 - alpha])
    else:
        q = bca_quantiles(r, statistic, acceleration, alpha)
        if q is None:
            return float("nan"), float("nan")
    low, high = np.percentile(r, 100.0 * q)
    return float(low), float(high)


def _same(got, want):
    got, want = tuple(got), tuple(want)
    assert np.array_equal(np.array(got), np.array(want), equal_nan=True), (got, want)
    assert all(np.isnan(g) or g.hex() == w.hex() for g, w in zip(got, want)), (got, want)


def _replicates(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    reps = rng.normal(rng.normal(), rng.exponential(), n)
    if seed % 3 == 0:
        reps[rng.random(n) < rng.uniform(0, 0.7)] = np.nan  # undefined resamples, sometimes more than half
    if seed % 5 == 0:
        reps = np.round(reps, 1)  # ties, and replicates equal to the statistic
    return reps, float(np.nanmedian(reps) if np.isfinite(reps).any() else 0.0) + rng.normal(0, 0.1)


# -- numbers unchanged -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(60))
def test_row_bootstrap_intervals_are_the_replaced_types_bit_for_bit(seed):
    reps, value = _replicates(seed)
    asked = LEVELS[seed % len(LEVELS)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        res = percentile_ci(value, reps, asked, "x")
        assert isinstance(res, BootstrapResult) and res.method == "percentile"
        _same((res.low, res.high), old_rows_percentiles(reps, asked))
        for level in LEVELS:
            _same(res.confidence_interval(level), old_rows_interval(reps, asked, level))
            _same(res.confidence_interval(level, method="percentile"), old_rows_interval(reps, asked, level))


@pytest.mark.parametrize("seed", range(60))
def test_clustered_bootstrap_intervals_are_the_replaced_types_bit_for_bit(seed):
    reps, stat = _replicates(seed)
    rng = np.random.default_rng(seed + 1000)
    acc = jackknife_acceleration(rng.normal(size=int(rng.integers(3, 50)))) if seed % 4 else float("nan")
    difference = seed % 2 == 0
    res = logboot.BootstrapResult(stat, reps, acc, name="x", n_clusters=40, difference=difference)
    assert res.method == ("percentile" if np.isnan(acc) else "bca")
    methods = ("percentile",) if np.isnan(acc) else ("percentile", "bca")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for level in LEVELS:
            for method in methods:
                _same(res.confidence_interval(level, method=method),
                      old_clustered_interval(stat, reps, acc, level, method))
            _same(res.confidence_interval(level), old_clustered_interval(stat, reps, acc, level, res.method))


def test_every_entry_point_gives_the_replaced_types_numbers():
    rng = np.random.default_rng(4)
    n = 300
    y = (rng.random(n) < 0.3).astype(int)
    a = np.clip(0.3 + 0.2 * y + 0.15 * rng.normal(size=n), 0.01, 0.99)
    b = np.clip(a + 0.1 * rng.normal(size=n), 0.01, 0.99)
    g = rng.integers(0, 60, n)
    row = oe.bootstrap_ci(oe.roc_auc_score, y, a, n_boot=300, level=0.9, rng=1)
    for level in LEVELS:
        _same(row.confidence_interval(level), old_rows_interval(row.replicates, 0.9, level))
    truth = rng.integers(0, 3, 120)
    hb = np.where(rng.random(120) < 0.7, truth, rng.integers(0, 3, 120))
    hc = np.where(rng.random(120) < 0.8, truth, rng.integers(0, 3, 120))
    oam = adaptive.bootstrap_oam_accuracy(hb, hc, truth, hb[:50], hc[:50], n_boot=200, level=0.8, rng=2)
    for res in oam:
        assert type(res) is BootstrapResult
        _same((res.low, res.high), old_rows_percentiles(res.replicates, 0.8))
        for level in LEVELS:
            _same(res.confidence_interval(level), old_rows_interval(res.replicates, 0.8, level))
    boot = oe.clustered_bootstrap(y, a, b, groups=g, n_boot=200, rng=3)
    for group in (boot.a, boot.b, boot.difference):
        for res in group:
            assert type(res) is BootstrapResult
            for level in LEVELS:
                for method in ("percentile", "bca"):
                    _same(res.confidence_interval(level, method=method),
                          old_clustered_interval(res.statistic, res.replicates, res.acceleration, level, method))


def test_the_dask_bootstrap_gives_the_replaced_types_numbers():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    rng = np.random.default_rng(5)
    n = 400
    p = rng.uniform(0.05, 0.6, n)
    df = pd.DataFrame({"click": (rng.random(n) < p).astype(int), "p": p, "q": rng.integers(0, 50, n)})
    from offline_eval import ondask

    res = ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=3), "click", "p", groups="q", n_boot=100, rng=0)
    for r in res.a:
        assert type(r) is BootstrapResult and r.method == "percentile"
        for level in LEVELS:
            _same(r.confidence_interval(level), old_clustered_interval(r.statistic, r.replicates, np.nan, level,
                                                                       "percentile"))
        with pytest.raises(ValueError, match="`method` = 'bca' needs the jackknife"):
            r.confidence_interval(method="bca")


def test_bootstrap_compare_keeps_its_normal_interval_by_default():
    rng = np.random.default_rng(6)
    y = rng.normal(size=80)
    r = ranking.bootstrap_compare(y, y + rng.normal(size=80), y + 2 * rng.normal(size=80), measure="MAE",
                                  n_boot=200, rng=0)
    from scipy.special import ndtri

    z = float(ndtri(0.5 + 0.9 / 2.0)) * r.standard_error
    assert r.confidence_interval(0.9) == (r.difference - z, r.difference + z) == r.confidence_interval(0.9,
                                                                                                     method="normal")
    d = r.differences
    lo, hi = np.percentile(d, 100 * np.array([0.05, 0.95]))
    assert r.confidence_interval(0.9, method="percentile") == (lo, hi)
    assert r.confidence_interval(0.9, method="basic") == (2 * r.difference - hi, 2 * r.difference - lo)
    with pytest.raises(ValueError, match="`method`"):
        r.confidence_interval(method="bca")


# -- one type, its methods -------------------------------------------------------------------------------------------
def test_every_bootstrap_returns_the_one_public_type():
    assert results.BootstrapResult is logboot.BootstrapResult is oe.BootstrapResult
    assert BootstrapCI is BootstrapResult and results.BootstrapCI is BootstrapResult  # the old name, still importable
    assert oe.metrics.BootstrapCI is BootstrapResult
    assert "BootstrapResult" in results.__all__ and "BootstrapCI" not in results.__all__
    assert issubclass(BootstrapResult, results.Result)
    import inspect

    sig = inspect.signature(BootstrapResult.confidence_interval).parameters
    assert sig["level"].default == 0.95 and sig["method"].kind is inspect.Parameter.KEYWORD_ONLY


def test_basic_is_the_percentile_interval_reflected_about_the_statistic():
    reps = np.random.default_rng(8).gamma(2.0, 1.0, 999)
    for res in (BootstrapResult(2.0, reps, name="x"), percentile_ci(2.0, reps, 0.9, "x"),
                BootstrapResult(2.0, reps, 0.05, name="x", n_clusters=30)):
        for level in LEVELS:
            lo, hi = res.confidence_interval(level, method="percentile")
            assert res.confidence_interval(level, method="basic") == (2 * 2.0 - hi, 2 * 2.0 - lo)


def test_intervals_agree_with_scipy_bootstrap_on_its_own_resamples():
    # scipy.stats.bootstrap draws its resamples from rng.integers(0, n, (n_resamples, n)); the same draws give the
    # same replicates here, and percentile and basic must then be scipy's own numbers
    from scipy import stats

    x = np.random.default_rng(9).lognormal(size=50)
    n_resamples = 999
    reps = x[np.random.default_rng(11).integers(0, len(x), (n_resamples, len(x)))].mean(axis=1)
    res = BootstrapResult(float(np.mean(x)), reps, name="mean")
    for method in ("percentile", "basic"):
        want = stats.bootstrap((x,), np.mean, n_resamples=n_resamples, method=method, confidence_level=0.9,
                               random_state=np.random.default_rng(11), vectorized=True).confidence_interval
        got = res.confidence_interval(0.9, method=method)
        if not np.allclose(got, want, rtol=1e-12):
            pytest.skip("this scipy draws its resamples otherwise")  # the draw order is scipy's, not an API
        assert got == pytest.approx(tuple(want), rel=1e-12)


def test_bca_is_accepted_by_scipy_spelling_and_refused_without_an_acceleration():
    reps = np.random.default_rng(10).normal(size=500)
    res = BootstrapResult(0.1, reps, 0.02, name="x", n_clusters=20)
    assert res.confidence_interval(0.9, method="BCa") == res.confidence_interval(0.9, method="bca")
    with pytest.raises(ValueError, match="one of"):
        res.confidence_interval(method="studentized")
    with pytest.raises(ValueError, match="`level`"):
        res.confidence_interval(1.5)
    with pytest.raises(ValueError, match="jackknife"):
        percentile_ci(0.1, reps, 0.95, "x").confidence_interval(method="bca")


def test_basic_and_bca_are_nan_where_the_statistic_is_undefined():
    reps = np.random.default_rng(12).normal(size=100)
    res = BootstrapResult(float("nan"), reps, 0.0, name="x", n_clusters=10)
    with pytest.warns(OfflineEvalWarning, match="interval is nan"):
        assert np.isnan(res.confidence_interval(method="basic").low)
    row = percentile_ci(float("nan"), reps, 0.95, "x")  # the row bootstrap warned when built: quiet here
    assert np.isnan(row.confidence_interval(method="basic").low)
    assert row.confidence_interval() == row.confidence_interval(method="percentile")  # percentile needs no value


def test_old_attribute_names_keep_working():
    reps = np.random.default_rng(13).normal(size=200)
    res = percentile_ci(0.25, reps, 0.8, "the metric")
    assert res.value == res.statistic == 0.25 and res.level == 0.8
    assert (res.low, res.high) == res.confidence_interval(0.8)
    assert res.n_boot == 200 and res.n_valid == 200
    assert res.name == "metric" and repr(res).startswith("BootstrapResult(metric: statistic=0.25")
    assert "80% percentile CI" in repr(res)


def test_the_result_pickles_and_its_repr_is_one_line():
    import pickle

    res = logboot.BootstrapResult(0.3, np.random.default_rng(1).normal(0.3, 0.05, 10**5), 0.01, name="x",
                                  n_clusters=10**5, difference=True)
    back = pickle.loads(pickle.dumps(res))
    assert back.confidence_interval(0.9) == res.confidence_interval(0.9) and back.pvalue == res.pvalue
    assert "\n" not in repr(res) and len(repr(res)) < 200
    assert type(ConfidenceInterval(0, 1)) is type(res.confidence_interval())


def test_tau_shortcuts_take_their_validation_from_kendall_tau_test():
    # issue 49: tau_variance and tau_confidence_interval delegate to kendall_tau_test: the same errors and warnings
    bad = [([1, 2, np.nan], [1, 2, 3]), ([1, 2, 3], [1, 2]), ("abc", [1, 2, 3]), ([1, 2, 3], [1, 2, 3], "d")]
    for case in bad:
        args, variant = case[:2], (case[2] if len(case) > 2 else "b")
        with pytest.raises((ValueError, TypeError)) as want:
            oe.kendall_tau_test(*args, variant=variant)
        for fn in (oe.tau_variance, oe.tau_confidence_interval):
            with pytest.raises(type(want.value)) as got:
                fn(*args, variant=variant)
            assert str(got.value) == str(want.value), fn
    with pytest.warns(OfflineEvalWarning) as want:
        oe.kendall_tau_test([1, 2], [2, 1])
    for fn in (oe.tau_variance, oe.tau_confidence_interval):
        with pytest.warns(OfflineEvalWarning) as got:
            fn([1, 2], [2, 1])
        assert [str(w.message) for w in got] == [str(w.message) for w in want]
