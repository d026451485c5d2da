"""The clustered Poisson bootstrap of a log on Dask (issue 23, item 1): counter-based Poisson weights, and the
one-pass Dask result equal, resample by resample, to the in-memory ``clustered_bootstrap(..., weights="hashed")``
and to the library's metrics called with each resample's row weights.

Tolerance: the Dask path adds the same products in another order (per partition, then merged), so values
agree to a few ulps, not bit for bit: ``rtol=1e-12`` (observed differences are below 1e-14)."""

import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import OfflineEvalWarning, logboot, ondask  # noqa: E402
from offline_eval import metrics as M  # noqa: E402
from offline_eval._logboot_sums import MAX_SUM_CELLS, BootSums  # noqa: E402
from offline_eval._logboot_weights import _POISSON_T  # noqa: E402
from offline_eval.logboot import cluster_keys, draw_seed, hashed_poisson_weights  # noqa: E402

LIB = {"roc_auc_score": M.roc_auc_score, "log_loss": M.log_loss, "rig_score": M.rig_score,
       "calibration_ratio": M.calibration_ratio}
ALL = tuple(LIB)
RES = 1e-3


def _frame(seed, n=600, n_groups=40, strings=False, weights=True, grid=True):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, n_groups, n)
    p = rng.uniform(0.01, 0.99, n)
    pb = np.clip(p + rng.normal(0, 0.15, n), 0.001, 0.999)
    if grid:  # scores on the grid of RES: binning is then the identity, every metric comparable
        p, pb = np.round(p / RES) * RES, np.round(pb / RES) * RES
    df = pd.DataFrame({"click": (rng.random(n) < p).astype(int), "p": p, "pb": pb,
                       "q": np.array([f"query {k}" for k in q], dtype=object) if strings else q})
    if weights:
        df["w"] = rng.uniform(0.2, 3.0, n)
    return df


def _memory(df, two, weight, metrics=ALL, rng=3, **kw):
    return logboot.clustered_bootstrap(df["click"].to_numpy(), df["p"].to_numpy(),
                                       df["pb"].to_numpy() if two else None, groups=df["q"].to_numpy(),
                                       sample_weight=df["w"].to_numpy() if weight else None, metrics=metrics,
                                       n_boot=40, rng=rng, weights="hashed", **kw)


def _dask(df, two, weight, metrics=ALL, rng=3, npartitions=4, **kw):
    return ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=npartitions, sort=False), "click", "p",
                                      "pb" if two else None, groups="q", weight="w" if weight else None,
                                      metrics=metrics, n_boot=40, rng=rng, **kw)


def _assert_same(got, want, metrics=ALL):
    assert got.n_clusters == want.n_clusters and got.n_boot == want.n_boot
    for model in ("a", "b", "difference"):
        if getattr(want, model) is None:
            assert getattr(got, model) is None
            continue
        for m in metrics:
            g, w = getattr(getattr(got, model), m), getattr(getattr(want, model), m)
            assert g.statistic == pytest.approx(w.statistic, rel=1e-12, abs=1e-14), (model, m)
            np.testing.assert_allclose(g.replicates, w.replicates, rtol=1e-12, atol=1e-14, equal_nan=True,
                                       err_msg=f"{model} {m}")
            np.testing.assert_array_equal(np.isnan(g.pvalue), np.isnan(w.pvalue))


# -- the weights ---------------------------------------------------------------------------------------------
def test_hashed_weights_are_poisson_1():
    w = hashed_poisson_weights(12345, np.arange(4), np.arange(250_000, dtype=np.uint64)).ravel()  # 1e6 draws
    # standard errors on 1e6 draws: mean 1e-3, variance sqrt(3e-6) = 1.7e-3, P(0) 4.8e-4; bounds are 5 of them
    assert abs(w.mean() - 1.0) < 5e-3
    assert abs(w.var() - 1.0) < 9e-3
    assert abs(np.mean(w == 0) - np.exp(-1)) < 2.4e-3
    assert abs(np.mean(w == 2) - np.exp(-1) / 2) < 2e-3
    assert w.max() <= len(_POISSON_T)
    # no correlation between resamples of one cluster nor between neighbouring keys (sd 1e-3 on 2.5e5 pairs)
    W = w.reshape(4, -1)
    assert abs(np.corrcoef(W[0], W[1])[0, 1]) < 1e-2
    assert abs(np.corrcoef(W[0, :-1], W[0, 1:])[0, 1]) < 1e-2


def test_hashed_weights_depend_on_seed_resample_and_key_alone():
    keys = np.array([3, 99, 2**63 + 5, 7], dtype=np.uint64)
    W = hashed_poisson_weights(42, np.arange(50), keys)
    # any subset of keys and resamples, in any order, gives the same weights
    perm = np.array([2, 0, 3])
    np.testing.assert_array_equal(hashed_poisson_weights(42, [31, 4], keys[perm]), W[[31, 4]][:, perm])
    assert not np.array_equal(hashed_poisson_weights(43, np.arange(50), keys), W)
    # pinned: the same weights on any machine (integer arithmetic only); a change of the mix changes them
    assert W[:5].astype(int).tolist() == [[1, 1, 1, 1], [0, 3, 0, 0], [3, 1, 2, 0], [1, 3, 0, 3], [0, 0, 1, 0]]


def test_cluster_keys():
    assert cluster_keys(np.array([5, -1])).tolist() == [5, 2**64 - 1]
    a = cluster_keys(np.array(["q1", "é"], dtype=object))
    assert a.tolist() == cluster_keys(np.array(["q1", "é"])).tolist()  # object and unicode arrays agree
    import hashlib

    assert int(a[1]) == int.from_bytes(hashlib.blake2b("é".encode(), digest_size=8).digest(), "little")
    with pytest.raises(TypeError, match="`groups` must hold integers or strings"):
        cluster_keys(np.array([0.5, 1.5]))
    with pytest.raises(TypeError, match="`groups`"):
        cluster_keys(np.array(["a", 1], dtype=object))


def test_memory_hashed_weights_are_the_stated_function():
    df = _frame(0)
    res = _memory(df, False, True, metrics=("log_loss",))
    uniq, gi = np.unique(df["q"].to_numpy(), return_inverse=True)
    W = hashed_poisson_weights(draw_seed(np.random.default_rng(3)), np.arange(40), cluster_keys(uniq))
    y, p, w = df["click"].to_numpy(), df["p"].to_numpy(), df["w"].to_numpy()
    ref = [M.log_loss(y, p, sample_weight=W[b, gi] * w) for b in range(40)]
    np.testing.assert_allclose(res.a.log_loss.replicates, ref, rtol=1e-12)
    # the default stream is unchanged
    stream = logboot.clustered_bootstrap(y, p, groups=df["q"].to_numpy(), metrics=("log_loss",), n_boot=40, rng=3)
    assert not np.allclose(stream.a.log_loss.replicates, res.a.log_loss.replicates)


# -- Dask against memory ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("two", [False, True])
@pytest.mark.parametrize("weight", [False, True])
@pytest.mark.parametrize("strings", [False, True])
def test_dask_equals_memory_hashed(two, weight, strings):
    df = _frame(int(two) + 2 * weight + 4 * strings, strings=strings, weights=weight)
    _assert_same(_dask(df, two, weight, resolution=RES), _memory(df, two, weight))


def test_dask_is_the_same_whatever_the_partitioning_and_row_order():
    df = _frame(7)
    want = _dask(df, True, True, npartitions=1)
    shuffled = df.sample(frac=1.0, random_state=1).reset_index(drop=True)
    for parts in (2, 5, 13):
        _assert_same(_dask(shuffled, True, True, npartitions=parts), want)


def test_dask_with_a_partition_holding_no_click_and_an_empty_partition():
    df = _frame(8).sort_values("click", kind="stable").reset_index(drop=True)  # the first rows hold no click
    ddf = dd.from_pandas(df, npartitions=6, sort=False)
    assert ddf.partitions[0].compute()["click"].sum() == 0
    ddf = dd.concat([ddf, ddf.head(0, compute=False, npartitions=1)])  # and an empty partition
    got = ondask.clustered_bootstrap(ddf, "click", "p", "pb", groups="q", weight="w", metrics=ALL, n_boot=40, rng=3)
    _assert_same(got, _memory(df, True, True))


def test_every_dask_resample_equals_the_library_metric_with_its_row_weights():
    df = _frame(9, n=300, n_groups=25)
    res = _dask(df, True, True)
    y, w, q = df["click"].to_numpy(), df["w"].to_numpy(), df["q"].to_numpy()
    uniq, gi = np.unique(q, return_inverse=True)
    W = hashed_poisson_weights(draw_seed(np.random.default_rng(3)), np.arange(40), cluster_keys(uniq))
    for model, col in (("a", "p"), ("b", "pb")):
        s = df[col].to_numpy()
        for m, fn in LIB.items():
            got = getattr(getattr(res, model), m)
            assert got.statistic == pytest.approx(fn(y, s, sample_weight=w), rel=1e-12)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", OfflineEvalWarning)
                ref = np.array([fn(y, s, sample_weight=W[b, gi] * w) for b in range(40)])
            np.testing.assert_allclose(got.replicates, ref, rtol=1e-12, err_msg=f"{model} {m}")


def test_auc_is_that_of_the_binned_scores_and_losses_of_the_raw_ones():
    df = _frame(10, grid=False)
    got = _dask(df, False, True, resolution=0.01)
    binned = df.assign(p=np.round(df["p"] / 0.01) * 0.01)
    _assert_same(got, _memory(binned, False, True), metrics=("roc_auc_score",))
    _assert_same(got, _memory(df, False, True), metrics=("log_loss", "rig_score", "calibration_ratio"))
    # exact scores without a resolution
    _assert_same(_dask(df, True, True, resolution=None), _memory(df, True, True))


def test_auc_only_on_any_real_scores_and_the_error_bound():
    df = _frame(11, grid=False)
    df["p"] = 10 * df["p"] - 3  # scores, not probabilities
    got = _dask(df, False, False, metrics=("roc_auc_score",), resolution=None)
    _assert_same(got, _memory(df, False, False, metrics=("roc_auc_score",)), metrics=("roc_auc_score",))
    sums = BootSums.from_arrays(df["click"], [df["p"]], df["q"], seed=1, n_boot=3, metrics=("roc_auc_score",),
                                resolution=0.5, eps=1e-15)
    exact = M.roc_auc_score(df["click"], df["p"])
    binned = float(sums.models[0].values(("roc_auc_score",))["roc_auc_score"][0])
    assert 0 < abs(binned - exact) <= sums.models[0].auc_error_bound()


def test_dask_reads_parquet(tmp_path):
    df = _frame(12)
    dd.from_pandas(df, npartitions=3).to_parquet(tmp_path / "log")
    got = ondask.clustered_bootstrap(tmp_path / "log", "click", "p", groups="q", weight="w", metrics=ALL,
                                     n_boot=40, rng=3)
    _assert_same(got, _memory(df, False, True))


def test_dask_result_gives_percentile_intervals_and_refuses_bca():
    res = _dask(_frame(13), True, True)
    ci = res.difference.roc_auc_score.confidence_interval(0.9, method="percentile")
    r = res.difference.roc_auc_score.replicates
    # (1 - 0.9) / 2 is not 0.05 to the last bit: the percentiles agree to rounding
    assert (ci.low, ci.high) == pytest.approx(tuple(np.percentile(r, [5, 95])), rel=1e-12)
    with pytest.raises(ValueError, match="`method` = 'bca' needs the jackknife"):
        res.a.log_loss.confidence_interval(method="bca")
    # the default is the interval the result holds: percentile here, as the results' protocol asks
    assert res.difference.roc_auc_score.confidence_interval(0.9) == ci
    assert res.table(0.9).equals(res.table(0.9, method="percentile"))
    assert len(res.table()) == 12


def test_in_memory_default_interval_is_bca():
    df = _frame(13)
    res = logboot.clustered_bootstrap(df["click"], df["p"], groups=df["q"], n_boot=200, rng=0)
    r = res.a.log_loss
    assert r.confidence_interval(0.9) == r.confidence_interval(0.9, method="bca")
    assert r.confidence_interval(0.9) != r.confidence_interval(0.9, method="percentile")


# -- errors ----------------------------------------------------------------------------------------------------
def test_errors_name_the_argument():
    ddf = dd.from_pandas(_frame(14), npartitions=2)
    with pytest.raises(ValueError, match=r"no column\(s\) \['nope'\]"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups="nope")
    with pytest.raises(ValueError, match="`groups` must name"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups=None)
    for bad in (0, -1e-3):
        with pytest.raises(ValueError, match="`resolution`"):
            ondask.clustered_bootstrap(ddf, "click", "p", groups="q", resolution=bad)
    with pytest.raises(ValueError, match="`n_boot`"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups="q", n_boot=0)
    with pytest.raises(ValueError, match="`n_boot`"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups="q", n_boot=10**7)
    # (n_boot + 1) x bins x 2 over the bound, refused before any work
    with pytest.raises(ValueError, match=f"`resolution` = 1e-06 asks for .* more than the bound of {MAX_SUM_CELLS:,}"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups="q", n_boot=1000, resolution=1e-6)
    with pytest.raises(ValueError, match="`metrics`"):
        ondask.clustered_bootstrap(ddf, "click", "p", groups="q", metrics=("accuracy",))
    with pytest.raises(ValueError, match="`p`"):  # a value error inside a partition names the column
        ondask.clustered_bootstrap(dd.from_pandas(_frame(14).assign(p=2.0), npartitions=2), "click", "p", groups="q")
    with pytest.raises(TypeError, match="`q` must hold integers or strings"):
        ondask.clustered_bootstrap(dd.from_pandas(_frame(14).assign(q=0.5), npartitions=2), "click", "p", groups="q")
    with pytest.raises(ValueError, match="`weights`"):
        logboot.clustered_bootstrap([0, 1], [0.2, 0.4], weights="poisson")


def test_merge_refuses_other_options():
    df = _frame(15)
    a = BootSums.from_arrays(df["click"], [df["p"]], df["q"], seed=1, n_boot=3, metrics=ALL, resolution=RES, eps=1e-15)
    b = BootSums.from_arrays(df["click"], [df["p"]], df["q"], seed=2, n_boot=3, metrics=ALL, resolution=RES, eps=1e-15)
    with pytest.raises(ValueError, match="different `seed`"):
        a.merge(b)
    with pytest.raises(TypeError, match="merge a BootSums"):
        a.merge(1)


def test_bins_bound_is_checked_in_each_partition_for_scores_of_any_range():
    # AUC alone on real scores: the number of bins is known only from the data, checked before the resamples;
    # (100_000 + 1) x 400 bins x 2 = 80,000,800 cells
    rng = np.random.default_rng(16)
    y, s = rng.integers(0, 2, 400), rng.normal(size=400)
    with pytest.raises(ValueError, match="`resolution` = None asks for 80,000,800 float64 cells"):
        BootSums.from_arrays(y, [s], np.arange(400), seed=1, n_boot=100_000, metrics=("roc_auc_score",), eps=1e-15)


@pytest.mark.parametrize("k", [-1000, -600, 600, 1000])
def test_extreme_weights_give_the_same_values(k):
    # a power-of-two rescale of the weights is exact: every ratio of sums, and the AUC's products, keep their value
    df = _frame(17)
    want = _dask(df, True, True)
    got = _dask(df.assign(w=np.ldexp(df["w"].to_numpy(), k)), True, True)
    _assert_same(got, want)
