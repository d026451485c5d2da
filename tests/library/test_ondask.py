"""The metrics on Dask equal the in-memory ones, for random partitionings, on threads and on a LocalCluster."""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import _ondask_io, adaptive, metrics, ondask  # noqa: E402


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


# -- summarize: every family in one pass --------------------------------------------------------------
def _utility_frame(rng, df):
    n = len(df)
    return df.assign(net=rng.integers(0, 3, n), a=rng.integers(0, 2, n), v=rng.random(n), cb=rng.random(n) * 0.5)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_summarize_equals_in_memory_and_the_per_family_functions(seed, weighted):
    rng = np.random.default_rng(seed)
    df = _utility_frame(rng, frame(rng))
    df["p3"] = np.round(df["p2"], 2)  # heavy ties
    ddf = partitioned(df, rng)
    y, w = df["click"].to_numpy(), (df["w"].to_numpy() if weighted else None)
    wcol = "w" if weighted else None
    s = ondask.summarize(ddf, "click", ["p", "p2", "p3"], weight=wcol, joint=("b", "c", "g"),
                         utility=dict(group="net", a="a", v="v", p="p", c="cb"), betas=(1.0, 2.0))
    assert s.rows == len(df) and s.families == ondask.FAMILIES
    for col in ("p", "p2", "p3"):
        p = df[col].to_numpy()
        # the counts are those of score_counts bit for bit: the AUC and ROC are the same floats
        assert s.roc_auc_score(col) == ondask.roc_auc_score(ddf, "click", col, weight=wcol)
        assert s.roc_auc_score(col) == pytest.approx(metrics.roc_auc_score(y, p, sample_weight=w), rel=1e-12)
        for a, b in zip(s.roc_curve(col), metrics.roc_curve(y, p, sample_weight=w)[:2]):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-15)
        for m in ("log_loss", "rig_score", "mean_squared_error", "calibration_ratio", "prediction_error"):
            assert getattr(s, m)(col) == pytest.approx(getattr(metrics, m)(y, p, sample_weight=w), rel=1e-12, abs=1e-14), m
        mine, ref = s.quantile_breakdown(col), metrics.quantile_breakdown(y, p, n_quantiles=10, sample_weight=w)
        assert list(mine.columns) == list(ref.columns)
        np.testing.assert_array_equal(mine[["quantile", "score_lo", "score_hi", "weight", "clicks"]],
                                      ref[["quantile", "score_lo", "score_hi", "weight", "clicks"]])
        np.testing.assert_allclose(mine.to_numpy(float), ref.to_numpy(float), rtol=1e-12, atol=1e-13)
        two = ondask.quantile_breakdown(ddf, "click", col, weight=wcol, n_quantiles=10)
        np.testing.assert_allclose(mine.to_numpy(float), two.to_numpy(float), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(s.joint.dense(5), adaptive.joint_distribution(df["b"], df["c"], df["g"], n_classes=5,
                                                                               normalize=False))
    pd.testing.assert_frame_equal(s.utility.frame(), ondask.utility_sums(ddf, "net", "a", "v", "p", "cb",
                                                                         betas=(1.0, 2.0)).frame())


def test_summarize_reads_parquet_once_per_piece(tmp_path, rng, monkeypatch):
    df = frame(rng, 3000)
    dd.from_pandas(df, npartitions=3).to_parquet(tmp_path / "log")
    reads = []
    real = _ondask_io.read_piece
    monkeypatch.setattr(_ondask_io, "read_piece", lambda t, c: reads.append((t, tuple(c))) or real(t, c))
    s = ondask.summarize(str(tmp_path / "log"), "click", ["p", "p2"], joint=("b", "c"), n_quantiles=4)
    assert len(reads) == 3 and len({t for t, _ in reads}) == 3  # each file once
    assert all(set(c) == {"click", "p", "p2", "b", "c"} for _, c in reads)  # only the columns needed
    y = df["click"].to_numpy()
    assert s.roc_auc_score("p2") == pytest.approx(metrics.roc_auc_score(y, df["p2"].to_numpy()), rel=1e-12)
    assert s.log_loss("p") == pytest.approx(metrics.log_loss(y, df["p"].to_numpy()), rel=1e-12)
    # a glob and a single file
    one = ondask.summarize(str(tmp_path / "log" / "*.parquet"), "click", "p", families=("auc",))
    assert one.roc_auc_score() == s.roc_auc_score("p")
    first = sorted((tmp_path / "log").glob("*.parquet"))[0]
    part = pd.read_parquet(first)
    assert ondask.summarize(first, "click", "p", families=("losses",)).log_loss() == pytest.approx(
        metrics.log_loss(part["click"].to_numpy(), part["p"].to_numpy()), rel=1e-12)


def test_summarize_with_resolution_and_row_groups(tmp_path, rng, monkeypatch):
    df = frame(rng, 5000)
    df["p2"] = rng.random(len(df))  # continuous scores
    df.to_parquet(tmp_path / "one.parquet", row_group_size=700)
    monkeypatch.setattr(_ondask_io, "ROWS_PER_TASK", 1500)  # tasks of two row groups
    s = ondask.summarize(tmp_path / "one.parquet", "click", "p2", families=("auc", "losses"), resolution=1e-3)
    c = ondask.score_counts(dd.from_pandas(df, npartitions=1), "click", "p2", resolution=1e-3)
    assert s.roc_auc_score() == pytest.approx(c.roc_auc_score(), rel=1e-12)
    exact = metrics.roc_auc_score(df["click"].to_numpy(), df["p2"].to_numpy())
    assert abs(s.roc_auc_score() - exact) <= s.counts["p2"].auc_error_bound()
    assert s.log_loss() == pytest.approx(metrics.log_loss(df["click"].to_numpy(), df["p2"].to_numpy()), rel=1e-12)


def test_summarize_refuses_bad_input(rng):
    df = frame(rng, 1000)
    ddf = dd.from_pandas(df, npartitions=2)
    with pytest.raises(ValueError, match="no column"):
        ondask.summarize(ddf, "clicks", "p")
    with pytest.raises(ValueError, match="`data` must be"):
        ondask.summarize(df, "click", "p")
    with pytest.raises(ValueError, match="`families`"):
        ondask.summarize(ddf, "click", "p", families=("auc", "kendall"))
    with pytest.raises(TypeError, match="`families`"):
        ondask.summarize(ddf, "click", "p", families="auc")
    with pytest.raises(ValueError, match="need `label` and `score`"):
        ondask.summarize(ddf, families=("auc",))
    with pytest.raises(ValueError, match="`families` must name"):
        ondask.summarize(ddf)
    with pytest.raises(ValueError, match="n_quantiles"):
        ondask.summarize(ddf, "click", "p", n_quantiles=0)
    with pytest.raises(ValueError, match="eps"):
        ondask.summarize(ddf, "click", "p", eps=0.7)
    with pytest.raises(TypeError, match="`joint`"):
        ondask.summarize(ddf, families=("joint",), joint="b")
    with pytest.raises(TypeError, match="`utility`"):
        ondask.summarize(ddf, utility=dict(group="b"))
    with pytest.raises(ValueError, match="twice"):
        ondask.summarize(ddf, "click", ["p", "p"])
    bad = df.assign(click=df["click"] * 2)
    with pytest.raises(ValueError, match="0/1 labels"):
        ondask.summarize(dd.from_pandas(bad, npartitions=2), "click", "p")
    with pytest.raises(ValueError, match=r"must lie in \[0, 1\]"):
        ondask.summarize(dd.from_pandas(df.assign(p=df["p"] + 1), npartitions=2), "click", "p")
    with pytest.raises(ValueError, match="has no rows"):
        ondask.summarize(dd.from_pandas(df.iloc[:0], npartitions=1), "click", "p")
    with pytest.raises(ValueError, match="all zero"):
        ondask.summarize(dd.from_pandas(df.assign(w=0.0), npartitions=2), "click", "p", weight="w")
    s = ondask.summarize(ddf, "click", ["p", "p2"], families=("auc",))
    with pytest.raises(ValueError, match="not computed"):
        s.log_loss("p")
    with pytest.raises(ValueError, match="one of the score columns"):
        s.roc_auc_score()
    with pytest.raises(ValueError, match="must be one of"):
        s.roc_auc_score("q")


def test_the_library_never_imports_the_benchmark_peers():
    import subprocess
    import sys

    code = ("import sys, offline_eval, offline_eval.ondask, offline_eval.mergeable, offline_eval.metrics; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('duckdb', 'polars')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
