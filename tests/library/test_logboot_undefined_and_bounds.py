"""The clustered bootstrap never takes a difference of large totals, says when a metric is undefined, bounds
its work and takes the same ``groups`` convention in memory and on Dask (issues 35 and 36)."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score as sk_auc

from offline_eval import OfflineEvalWarning, _logboot_engine, _logboot_run, clustered_bootstrap, logboot, ondask

dd = pytest.importorskip("dask.dataframe")


def test_tiny_class_beside_huge_weights_is_not_lost():
    """Issue 35: w = 1e16 for the clicks, 1 for the two non-clicks gave a nan AUC (tw - twy rounds to 0)."""
    y, s, w = [1, 1, 1, 0, 0], [0.9, 0.8, 0.3, 0.5, 0.1], [1e16] * 3 + [1] * 2
    res = clustered_bootstrap(y, s, sample_weight=w, n_boot=50, rng=0)
    assert res.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, s, sample_weight=w), rel=1e-12)  # 0.8333
    assert res.a.roc_auc_score.statistic == pytest.approx(5 / 6, rel=1e-12)
    assert np.isfinite(res.a.roc_auc_score.replicates).sum() > 0


def test_leave_one_cluster_out_without_a_class_is_nan_and_left_out_of_bca():
    """Issue 35: a jackknife value without the only cluster holding clicks was a finite leftover (0 for the AUC)."""
    rng = np.random.default_rng(0)
    g = np.repeat(np.arange(20), 10)
    y = np.zeros(200, int)
    y[:10] = 1  # every click in cluster 0
    y[15] = 1   # and one in cluster 1
    s = rng.random(200)
    w = rng.uniform(0.5, 2.0, 200)
    sums = _logboot_engine.ClusterSums(y.astype(float), w, g, 20)
    eng = _logboot_engine.ModelEngine(y.astype(float), s, w, g, 20, sums, ("roc_auc_score", "rig_score", "log_loss"),
                                      1e-15)
    jack = eng.jackknife()
    assert np.isfinite(jack["roc_auc_score"]).all()  # cluster 1 still has a click when 0 is left out
    y2 = y.copy()
    y2[15] = 0  # now cluster 0 alone holds the clicks
    sums = _logboot_engine.ClusterSums(y2.astype(float), w, g, 20)
    eng = _logboot_engine.ModelEngine(y2.astype(float), s, w, g, 20, sums, ("roc_auc_score", "rig_score", "log_loss"),
                                      1e-15)
    jack = eng.jackknife()
    assert np.isnan(jack["roc_auc_score"][0]) and np.isnan(jack["rig_score"][0])
    assert np.isfinite(jack["roc_auc_score"][1:]).all() and np.isfinite(jack["log_loss"]).all()
    with pytest.warns(OfflineEvalWarning, match=r"without 1 of 20 clusters.*acceleration"):
        res = clustered_bootstrap(y2, s, groups=g, sample_weight=w, n_boot=100, rng=1)
    assert np.isfinite(res.a.roc_auc_score.acceleration)


def test_one_class_is_nan_with_a_warning():
    with pytest.warns(OfflineEvalWarning, match="undefined on the data"):
        res = clustered_bootstrap([0, 0, 0, 0], [0.1, 0.2, 0.3, 0.4], groups=[1, 1, 2, 2], n_boot=20, rng=0)
    assert np.isnan(res.a.roc_auc_score.statistic) and np.isnan(res.a.rig_score.statistic)
    assert np.isfinite(res.a.log_loss.statistic)


def test_resamples_times_rows_is_bounded_before_any_work(monkeypatch):
    monkeypatch.setattr(_logboot_run, "MAX_RESAMPLED_ROWS", 1000)
    with pytest.raises(ValueError, match=r"`n_boot` = 200 asks for 2,000 row-resamples .* bound of 1,000"):
        clustered_bootstrap(np.r_[0, 1, 0, 1, 0], np.linspace(0.1, 0.9, 5), np.linspace(0.2, 0.6, 5),
                            n_boot=200, rng=0)


def frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 40, n)
    return pd.DataFrame({"click": (rng.random(n) < 0.3).astype(np.int8), "p": rng.random(n),
                         "p2": rng.random(n), "query_id": q, "w": rng.uniform(0.5, 2, n)})


def test_groups_as_a_column_name_in_memory_as_on_dask():
    df = frame()
    by_name = clustered_bootstrap("click", "p", "p2", groups="query_id", sample_weight="w", data=df,
                                  weights="hashed", n_boot=30, rng=3)
    by_array = clustered_bootstrap(df["click"].to_numpy(), df["p"].to_numpy(), df["p2"].to_numpy(),
                                   groups=df["query_id"].to_numpy(), sample_weight=df["w"].to_numpy(),
                                   weights="hashed", n_boot=30, rng=3)
    on_dask = ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=3), "click", "p", "p2", groups="query_id",
                                         weight="w", n_boot=30, rng=3)
    assert type(on_dask) is type(by_name)
    for m in by_name.metrics:
        np.testing.assert_array_equal(getattr(by_name.a, m).replicates, getattr(by_array.a, m).replicates)
        np.testing.assert_allclose(getattr(on_dask.difference, m).replicates,
                                   getattr(by_name.difference, m).replicates, rtol=1e-9, atol=1e-12)
    assert repr(on_dask).startswith("LogBootstrap(") and "\n" not in repr(on_dask) and len(repr(on_dask)) < 200
    with pytest.raises(TypeError, match="`groups` = 'query_id' is a column name: pass the data frame as `data=`"):
        clustered_bootstrap(df["click"], df["p"], groups="query_id")
    with pytest.raises(ValueError, match="`groups` names the column 'nope'"):
        clustered_bootstrap("click", "p", groups="nope", data=df)
    with pytest.raises(TypeError, match="`groups` must name the column"):
        ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=2), "click", "p", groups=df["query_id"].to_numpy())


def test_dask_bootstrap_is_exact_by_default_and_refuses_with_the_bound_named(tmp_path):
    df = frame(600)
    ddf = dd.from_pandas(df, npartitions=3)
    exact = ondask.clustered_bootstrap(ddf, "click", "p", groups="query_id", n_boot=20, rng=0)
    mem = clustered_bootstrap("click", "p", groups="query_id", data=df, weights="hashed", n_boot=20, rng=0)
    # no rounding: the statistic is the exact AUC (it was the AUC of the scores rounded to 1e-3)
    assert exact.a.roc_auc_score.statistic == pytest.approx(sk_auc(df["click"], df["p"]), rel=1e-12)
    np.testing.assert_allclose(exact.a.roc_auc_score.replicates, mem.a.roc_auc_score.replicates, rtol=1e-9)
    big = pd.DataFrame({"click": np.tile([0, 1], 30_000), "p": np.random.default_rng(1).random(60_000),
                        "query_id": np.arange(60_000) // 3})
    big.to_parquet(tmp_path / "big.parquet")
    # continuous scores: exact (one bin per row would pass the bound of per-bin sums), the rows in one task
    got = ondask.clustered_bootstrap(tmp_path / "big.parquet", "click", "p", groups="query_id", n_boot=30, rng=0)
    want = clustered_bootstrap("click", "p", groups="query_id", data=big, weights="hashed", n_boot=30, rng=0)
    assert got.a.roc_auc_score.statistic == pytest.approx(sk_auc(big["click"], big["p"]), rel=1e-12)
    for m in got.metrics:
        np.testing.assert_allclose(getattr(got.a, m).replicates, getattr(want.a, m).replicates, rtol=1e-12)


def test_exact_dask_bootstrap_refuses_too_many_rows_before_the_pass(tmp_path, monkeypatch):
    from offline_eval import _ondask_boot

    big = pd.DataFrame({"click": np.tile([0, 1], 3_000), "p": np.random.default_rng(1).random(6_000),
                        "query_id": np.arange(6_000) // 3})
    big.to_parquet(tmp_path / "big.parquet")
    monkeypatch.setattr(_ondask_boot, "MAX_EXACT_ROWS", 5_000)

    def no_read(*args, **kwargs):
        raise AssertionError("read before the bound was checked")

    monkeypatch.setattr(_ondask_boot, "_read_rows", no_read)
    with pytest.raises(ValueError, match=r"`resolution` = None asks for 6,000 rows in one task .* more than the "
                                         r"bound of 5,000; pass `resolution`"):
        ondask.clustered_bootstrap(tmp_path / "big.parquet", "click", "p", groups="query_id", n_boot=10, rng=0)
    # a Dask DataFrame: its rows are known after the read, still before any resample
    with pytest.raises(ValueError, match="asks for 6,000 rows in one task"):
        ondask.clustered_bootstrap(dd.from_pandas(big, npartitions=2), "click", "p", groups="query_id", n_boot=10,
                                   rng=0)


def test_dask_bootstrap_names_a_column_missing_from_one_file(tmp_path):
    """Issue 35: a raw KeyError where the other ondask functions name the column."""
    df = frame()
    (tmp_path / "log").mkdir()
    df.iloc[:200].to_parquet(tmp_path / "log" / "a.parquet")
    df.iloc[200:].drop(columns="query_id").to_parquet(tmp_path / "log" / "b.parquet")
    with pytest.raises(ValueError, match=r"`data` has no column\(s\) \['query_id'\]"):
        ondask.clustered_bootstrap(tmp_path / "log", "click", "p", groups="query_id", n_boot=10, rng=0)


def test_a_paired_difference_of_equal_metrics_is_zero_whatever_the_order_of_their_sums():
    # regression: a replicate of -2e-16 (the same AUC summed in another order) counted as below 0 and flipped the
    # p-value of "no difference"; such a replicate is a tie with 0
    from offline_eval._logboot_engine import tied_difference as _difference

    assert _difference(0.75, 0.75 + 2e-16) == 0.0 and _difference(0.5, 0.25) == 0.25
    np.testing.assert_array_equal(_difference(np.array([0.3, 0.3 - 1e-16, np.nan]), np.array([0.3, 0.3, 0.1])),
                                  [0.0, 0.0, np.nan])
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    s = rng.random(300)
    # the same scores twice, the second through a monotone transform that keeps the AUC but not the bits of
    # every partial sum: every replicate of the AUC difference is exactly 0 and the p-value 1
    res = clustered_bootstrap(y, s, s * 0.5 + 0.25, groups=np.arange(300) // 3, metrics=("roc_auc_score",),
                              n_boot=200, rng=0)
    assert np.all(res.difference.roc_auc_score.replicates == 0.0)
    assert res.difference.roc_auc_score.pvalue == 1.0
