"""The Dask paths on a ``dask.distributed`` LocalCluster with worker processes (2 workers, 1 thread each):
every value equals the in-memory one, bit for bit for counts and the tree's sums, else to 1e-12 relative.

One cluster for the module (starting one costs seconds); the log is written once as four Parquet files (four
tasks, four score ranges) with
continuous float64 scores (the per-range path), scores stored at 1e-3 (the tree of merges), weights and
string cluster keys.
"""

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")
dd = pytest.importorskip("dask.dataframe")

from offline_eval import clustered_bootstrap, metrics, ondask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def log(tmp_path_factory):
    rng = np.random.default_rng(36)
    n = 12_000
    p1 = rng.beta(1, 15, n)
    df = pd.DataFrame({"click": (rng.random(n) < 2 * p1).astype(np.int8), "p1": p1,
                       "p2": np.clip(p1 * np.exp(rng.normal(0, 0.4, n)), 0, 1), "p3": np.round(p1, 3),
                       "w": rng.integers(1, 4, n).astype(float),
                       "q": np.array([f"q{k}" for k in rng.integers(0, 1500, n)])})
    path = tmp_path_factory.mktemp("log")
    for i, part in enumerate(np.array_split(np.arange(n), 4)):
        df.iloc[part].to_parquet(path / f"part-{i}.parquet", row_group_size=1000, index=False)
    return df, path


def test_summarize_on_a_cluster_equals_in_memory(client, log):
    df, path = log
    y = df["click"].to_numpy()
    s = ondask.summarize(path, "click", ["p1", "p2", "p3"], n_quantiles=10)
    for col in ("p1", "p2", "p3"):
        p = df[col].to_numpy()
        assert s.roc_auc_score(col) == pytest.approx(metrics.roc_auc_score(y, p), rel=1e-12)
        assert s.log_loss(col) == pytest.approx(metrics.log_loss(y, p), rel=1e-12)
        ref = metrics.quantile_breakdown(y, p, n_quantiles=10)
        mine = s.quantile_breakdown(col)
        np.testing.assert_array_equal(mine["weight"], ref["weight"])
        np.testing.assert_allclose(mine.to_numpy(float), ref.to_numpy(float), rtol=1e-12, atol=1e-13)
    # continuous unweighted scores alone: the sorted path (pairs counted in integers, no cells), bit for bit
    fast = ondask.summarize(path, "click", ["p1", "p2"], n_quantiles=10)
    assert fast.pairs
    for col in ("p1", "p2"):
        p = df[col].to_numpy()
        assert fast.roc_auc_score(col) == metrics.roc_auc_score(y, p) == ondask.roc_auc_score(path, "click", col)
        np.testing.assert_array_equal(fast.quantile_breakdown(col)["weight"], metrics.quantile_breakdown(y, p, n_quantiles=10)["weight"])
        assert fast.log_loss(col) == pytest.approx(metrics.log_loss(y, p), rel=1e-12)
    # the counts bit for bit against the threaded scheduler and against np.unique
    sc = ondask.score_counts(path, "click", "p1")
    values, inv = np.unique(df["p1"].to_numpy(), return_inverse=True)
    np.testing.assert_array_equal(sc.values, values)
    np.testing.assert_array_equal(sc.pos, np.bincount(inv, weights=y, minlength=len(values)))
    np.testing.assert_array_equal(sc.neg, np.bincount(inv, weights=1 - y, minlength=len(values)))


def test_weighted_metrics_on_a_cluster(client, log):
    df, path = log
    y, w = df["click"].to_numpy(), df["w"].to_numpy()
    s = ondask.summarize(path, "click", ["p1", "p3"], weight="w", families=("auc", "losses"))
    for col in ("p1", "p3"):
        p = df[col].to_numpy()
        assert s.roc_auc_score(col) == pytest.approx(metrics.roc_auc_score(y, p, sample_weight=w), rel=1e-12)
        assert s.rig_score(col) == pytest.approx(metrics.rig_score(y, p, sample_weight=w), rel=1e-12)
    fpr, tpr, _ = ondask.roc_curve(path, "click", "p2", weight="w")
    rf, rt, _ = metrics.roc_curve(y, df["p2"].to_numpy(), sample_weight=w)
    np.testing.assert_allclose(fpr, rf, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tpr, rt, rtol=1e-12, atol=1e-15)
    dec = ondask.quantile_breakdown(path, "click", "p3", n_quantiles=5, weight="w")
    ref = metrics.quantile_breakdown(y, df["p3"].to_numpy(), n_quantiles=5, sample_weight=w)
    np.testing.assert_allclose(dec.to_numpy(float), ref.to_numpy(float), rtol=1e-12, atol=1e-13)


def test_clustered_bootstrap_on_a_cluster_equals_in_memory(client, log):
    df, path = log
    res = ondask.clustered_bootstrap(path, "click", "p3", "p1", groups="q", weight="w", n_boot=40, rng=5,
                                     resolution=1e-3)
    mem = clustered_bootstrap("click", np.round(df["p3"].to_numpy() / 1e-3) * 1e-3, np.round(df["p1"] / 1e-3) * 1e-3,
                              groups="q", sample_weight="w", data=df, weights="hashed", n_boot=40, rng=5,
                              metrics=("roc_auc_score",))
    for attr in ("a", "b", "difference"):
        np.testing.assert_allclose(getattr(res, attr).roc_auc_score.replicates,
                                   getattr(mem, attr).roc_auc_score.replicates, rtol=1e-9, atol=1e-12)
    exact = ondask.clustered_bootstrap(path, "click", "p3", groups="q", n_boot=40, rng=5, metrics=("log_loss", "rig_score"))
    mem = clustered_bootstrap("click", "p3", groups="q", data=df, weights="hashed", n_boot=40, rng=5,
                              metrics=("log_loss", "rig_score"))
    for m in ("log_loss", "rig_score"):
        assert getattr(exact.a, m).statistic == pytest.approx(getattr(mem.a, m).statistic, rel=1e-12)
        np.testing.assert_allclose(getattr(exact.a, m).replicates, getattr(mem.a, m).replicates, rtol=1e-9)
