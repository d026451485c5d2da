"""The exact clustered bootstrap on float scores: in memory (int16 / int64 and float64 engines) against brute
force and scikit-learn, and on Dask (the rows of every task into the same engine) against in memory."""

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score as sk_auc

from offline_eval import _logboot_engine, _logboot_run, logboot, ondask
from offline_eval._sorting import sorted_order
from offline_eval._logboot_weights import hashed_counts
from offline_eval.logboot import cluster_keys, draw_seed, hashed_poisson_weights

dd = pytest.importorskip("dask.dataframe")

ALL = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")


def _log(seed, n=2_000, n_groups=300, ties=False, strings=False):
    """A log of float scores; the rows of a query scattered (a query straddles the partitions)."""
    rng = np.random.default_rng(seed)
    q = rng.integers(0, n_groups, n)
    p = rng.beta(1.5, 12.0, n)
    pb = np.clip(p * rng.lognormal(0.0, 0.4, n), 1e-6, 1 - 1e-6)
    if ties:  # a few score values: long runs of tied positives and negatives
        p, pb = np.round(p, 2), np.round(pb, 2)
    df = pd.DataFrame({"click": (rng.random(n) < p).astype(np.int8), "p": p, "pb": pb,
                       "q": np.array([f"q{k}" for k in q], dtype=object) if strings else q})
    df["w"] = rng.uniform(0.2, 3.0, n)
    return df


def _brute_auc(y, s, row_weights):
    """The AUC of the rows repeated by their (integer) weights: plain scikit-learn on the expanded rows."""
    k = np.asarray(row_weights).astype(int)
    return sk_auc(np.repeat(y, k), np.repeat(s, k))


def _same(got, want, rtol=1e-12, metrics=ALL):
    assert got.n_clusters == want.n_clusters and got.n_boot == want.n_boot
    for model in ("a", "b", "difference"):
        for m in metrics:
            g, w = getattr(getattr(got, model), m), getattr(getattr(want, model), m)
            assert g.statistic == pytest.approx(w.statistic, rel=rtol, abs=1e-15), (model, m)
            np.testing.assert_allclose(g.replicates, w.replicates, rtol=rtol, atol=1e-15, equal_nan=True,
                                       err_msg=f"{model} {m}")


@pytest.mark.parametrize("ties", [False, True])
def test_in_memory_replicates_equal_brute_force_on_expanded_rows(ties):
    df = _log(1, n=400, n_groups=60, ties=ties)
    y, p, q = df["click"].to_numpy(), df["p"].to_numpy(), df["q"].to_numpy()
    res = logboot.clustered_bootstrap(y, p, groups=q, metrics=("roc_auc_score",), n_boot=25, rng=5,
                                      weights="hashed")
    uniq, gi = np.unique(q, return_inverse=True)
    W = hashed_poisson_weights(draw_seed(np.random.default_rng(5)), np.arange(25), cluster_keys(uniq))
    ref = [_brute_auc(y, p, W[b, gi]) for b in range(25)]
    # integer weights: every sum an exact integer (scikit-learn's trapezoids round in the last bits)
    np.testing.assert_allclose(res.a.roc_auc_score.replicates, ref, rtol=1e-14, atol=0)
    assert res.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, p), rel=1e-14)


def test_integer_row_weights_equal_brute_force_and_the_float_engine():
    df = _log(2, n=300, n_groups=50, ties=True)
    y, p, q = df["click"].to_numpy(), df["p"].to_numpy(), df["q"].to_numpy()
    k = np.random.default_rng(2).integers(0, 4, len(y)).astype(float)
    res = logboot.clustered_bootstrap(y, p, groups=q, sample_weight=k, metrics=("roc_auc_score",), n_boot=20,
                                      rng=1, weights="hashed")
    uniq, gi = np.unique(q, return_inverse=True)
    W = hashed_poisson_weights(draw_seed(np.random.default_rng(1)), np.arange(20), cluster_keys(uniq))
    ref = [_brute_auc(y, p, W[b, gi] * k) for b in range(20)]
    np.testing.assert_allclose(res.a.roc_auc_score.replicates, ref, rtol=1e-13)
    assert res.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, p, sample_weight=k), rel=1e-14)


def test_int16_parts_of_long_runs_equal_the_float64_engine(monkeypatch):
    # one tied score held by thousands of rows: the slot rows are cut into parts (at most 2730 entries of int16)
    rng = np.random.default_rng(3)
    n = 12_000
    y = (rng.random(n) < 0.45).astype(int)  # about 3,800 tied positives and 4,600 tied negatives
    s = np.where(rng.random(n) < 0.7, 0.5, rng.random(n))
    q = rng.integers(0, 900, n)
    exact = logboot.clustered_bootstrap(y, s, groups=q, metrics=("roc_auc_score",), n_boot=30, rng=0)
    # a constant non-integer row weight: the float64 engine, the same AUC (up to the order of float sums)
    floats = logboot.clustered_bootstrap(y, s, groups=q, sample_weight=np.full(n, 0.3), metrics=("roc_auc_score",),
                                         n_boot=30, rng=0)
    np.testing.assert_allclose(exact.a.roc_auc_score.replicates, floats.a.roc_auc_score.replicates, rtol=1e-12)
    assert exact.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, s), rel=1e-14)
    # chunks of runs and blocks of resamples do not change a bit
    monkeypatch.setattr(_logboot_engine, "RUN_CHUNK", 7)
    monkeypatch.setattr(_logboot_run, "RESAMPLE_BLOCK", 4)
    small = logboot.clustered_bootstrap(y, s, groups=q, metrics=("roc_auc_score",), n_boot=30, rng=0)
    np.testing.assert_array_equal(small.a.roc_auc_score.replicates, exact.a.roc_auc_score.replicates)


def test_statistic_equals_sklearn_with_and_without_weights():
    df = _log(4)
    y, p, pb, q, w = (df[c].to_numpy() for c in ("click", "p", "pb", "q", "w"))
    res = logboot.clustered_bootstrap(y, p, pb, groups=q, n_boot=10, rng=0)
    assert res.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, p), rel=1e-14)
    assert res.b.roc_auc_score.statistic == pytest.approx(sk_auc(y, pb), rel=1e-14)
    wres = logboot.clustered_bootstrap(y, p, groups=q, sample_weight=w, n_boot=10, rng=0)
    assert wres.a.roc_auc_score.statistic == pytest.approx(sk_auc(y, p, sample_weight=w), rel=1e-12)


@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("strings", [False, True])
def test_exact_dask_equals_in_memory_hashed_replicate_by_replicate(weight, strings):
    df = _log(5, strings=strings)
    got = ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=5, sort=False), "click", "p", "pb", groups="q",
                                     weight="w" if weight else None, metrics=ALL, n_boot=40, rng=7)
    want = logboot.clustered_bootstrap("click", "p", "pb", groups="q", sample_weight="w" if weight else None,
                                       data=df, metrics=ALL, n_boot=40, rng=7, weights="hashed")
    _same(got, want)
    assert got.a.roc_auc_score.statistic == pytest.approx(
        sk_auc(df["click"], df["p"], sample_weight=df["w"] if weight else None), rel=1e-12)
    assert type(got) is type(want) and repr(got) == repr(want)
    assert repr(got.a.log_loss).startswith("BootstrapResult(log_loss, a: statistic=")


def test_exact_dask_on_parquet_files_with_straddling_clusters(tmp_path):
    df = _log(6, n=3_000, n_groups=500)
    (tmp_path / "log").mkdir()
    for i, idx in enumerate(np.array_split(np.arange(len(df)), 3)):  # every query in (nearly) every file
        df.iloc[idx].to_parquet(tmp_path / "log" / f"part-{i}.parquet", row_group_size=400)
    got = ondask.clustered_bootstrap(tmp_path / "log", "click", "p", "pb", groups="q", n_boot=30, rng=2)
    want = logboot.clustered_bootstrap("click", "p", "pb", groups="q", data=df, n_boot=30, rng=2, weights="hashed")
    _same(got, want, metrics=got.metrics)


def test_sorted_order_is_the_stable_argsort():
    rng = np.random.default_rng(8)
    for x in (rng.random(5_000), np.round(rng.random(5_000), 2), np.r_[rng.random(300), np.zeros(20), -np.zeros(9)],
              np.array([]), np.ones(3)):
        x = x[rng.permutation(len(x))]
        np.testing.assert_array_equal(sorted_order(x), np.argsort(x, kind="stable"))


def test_hashed_counts_equal_hashed_poisson_weights():
    keys = np.random.default_rng(9).integers(0, 2**63, 20_001, dtype=np.int64).view(np.uint64)
    for resamples in ([0], np.arange(7), np.arange(100, 300)):
        W = hashed_counts(11, resamples, keys)
        assert W.dtype == np.int16 and W.flags.c_contiguous
        np.testing.assert_array_equal(W, hashed_poisson_weights(11, resamples, keys).T)


@pytest.mark.parametrize("weighted", [False, True])
def test_same_bytes_for_any_block_size_and_with_threads(monkeypatch, weighted):
    df = _log(10)
    y, p, pb, q, w = (df[c].to_numpy() for c in ("click", "p", "pb", "q", "w"))
    kw = dict(groups=q, sample_weight=w if weighted else None, metrics=ALL, n_boot=40, rng=3)
    want = logboot.clustered_bootstrap(y, p, pb, **kw)
    # every sum per resample in an order fixed by the data and the (constant) chunk sizes alone
    monkeypatch.setattr(_logboot_run, "RESAMPLE_BLOCK", 3)
    monkeypatch.setattr(_logboot_run, "THREADED_WORK", 0)  # the models' set-up and values in threads
    got = logboot.clustered_bootstrap(y, p, pb, **kw)
    for model in ("a", "b", "difference"):
        for m in ALL:
            g, v = getattr(getattr(got, model), m), getattr(getattr(want, model), m)
            assert g.statistic == v.statistic
            np.testing.assert_array_equal(g.replicates, v.replicates)


def test_sorted_order_on_ties_signed_zeros_and_negatives(rng):
    """The stable order of the weighted AUC and the bootstrap: numpy's stable argsort, permutation for permutation."""
    for _ in range(50):
        n = int(rng.integers(1, 3000))
        x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300)
        x[rng.random(n) < 0.3] = rng.choice([0.0, -0.0, 1.5, -2.25])
        np.testing.assert_array_equal(sorted_order(x), np.argsort(x, kind="stable"))
