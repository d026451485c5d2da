"""The metrics on Dask equal the in-memory ones, for random partitionings, on threads and on a LocalCluster."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import adaptive, metrics, ondask  # noqa: E402


def frame(rng, n=4000):
    y = (rng.random(n) < 0.2).astype(np.int8)
    y[:300] = 0  # the first partitions hold one class only
    p = np.round(rng.random(n) * 0.5, 3)
    return pd.DataFrame({"click": y, "p": p, "p2": np.clip(p + rng.normal(0, 0.05, n), 0, 1),
                         "w": rng.integers(1, 4, n).astype(float), "b": rng.integers(0, 5, n),
                         "c": rng.integers(0, 5, n), "g": rng.integers(0, 5, n)})


def partitioned(df, rng):
    # random partition sizes, some empty
    k = int(rng.integers(2, 9))
    cuts = np.sort(rng.integers(0, len(df), k - 1))
    cuts[0] = 0  # an empty first partition
    parts = [df.iloc[a:b] for a, b in zip(np.r_[0, cuts], np.r_[cuts, len(df)])]
    return dd.from_delayed([__import__("dask").delayed(x) for x in parts], meta=df.iloc[:0])


def test_dask_equals_in_memory(rng):
    df = frame(rng)
    ddf = partitioned(df, rng)
    y, p, w = df["click"].to_numpy(), df["p"].to_numpy(), df["w"].to_numpy()
    assert ondask.roc_auc_score(ddf, "click", "p", weight="w") == pytest.approx(metrics.roc_auc_score(y, p, sample_weight=w), rel=1e-12)
    assert ondask.log_loss(ddf, "click", "p") == pytest.approx(metrics.log_loss(y, p), rel=1e-12)
    assert ondask.rig_score(ddf, "click", "p", weight="w") == pytest.approx(metrics.rig_score(y, p, sample_weight=w), rel=1e-12)
    assert ondask.calibration_ratio(ddf, "click", "p") == pytest.approx(metrics.calibration_ratio(y, p), rel=1e-12)
    mine = ondask.quantile_breakdown(ddf, "click", "p2", by="p", n_quantiles=10)
    ref = metrics.quantile_breakdown(y, df["p2"].to_numpy(), by=p, n_quantiles=10)
    np.testing.assert_array_equal(mine["weight"], ref["weight"])
    np.testing.assert_allclose(mine.to_numpy(float), ref.to_numpy(float), rtol=1e-12, atol=1e-13)
    j = ondask.joint_counts(ddf, "b", "c", "g").dense(5)
    np.testing.assert_array_equal(j, adaptive.joint_distribution(df["b"], df["c"], df["g"], n_classes=5, normalize=False))


def test_parquet_path_and_bad_columns(tmp_path, rng):
    df = frame(rng, 1000)
    dd.from_pandas(df, npartitions=3).to_parquet(tmp_path / "log")
    assert ondask.roc_auc_score(str(tmp_path / "log"), "click", "p") == pytest.approx(
        metrics.roc_auc_score(df["click"].to_numpy(), df["p"].to_numpy()), rel=1e-12)
    with pytest.raises(ValueError, match="no column"):
        ondask.roc_auc_score(dd.from_pandas(df, npartitions=2), "clicks", "p")
    with pytest.raises(ValueError, match="`data` must be"):
        ondask.roc_auc_score(df, "click", "p")


@pytest.mark.slow
def test_on_a_two_worker_local_cluster():
    distributed = pytest.importorskip("distributed")
    rng = np.random.default_rng(0)
    df = frame(rng)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        got = ondask.roc_auc_score(dd.from_pandas(df, npartitions=6), "click", "p")
        counts = ondask.joint_counts(dd.from_pandas(df, npartitions=6), "b", "c").dense(5)
    assert got == pytest.approx(metrics.roc_auc_score(df["click"].to_numpy(), df["p"].to_numpy()), rel=1e-12)
    assert counts.sum() == len(df)
