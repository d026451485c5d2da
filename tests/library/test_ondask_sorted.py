"""Continuous unweighted scores on Dask without cells: the AUC counted per score range
(``_ondask_auc``) and every score family of ``summarize`` from sorted scores (``_ondask_sorted``).

The AUC must equal the in-memory function bit for bit (both count pairs in integers), the quantile
bins row for row, the cells of the ROC curve exactly, and the sums to 1e-12 relative."""

import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import _mergeable_losses, _ondask_auc, _ondask_io, _ondask_sorted, metrics, ondask  # noqa: E402
from offline_eval.mergeable import ScoreCounts  # noqa: E402


def tied_log(rng, n):
    """Continuous scores with tie blocks (at 0, 1/4, 1/2 and 1), signed zeros and a few equal pairs."""
    p = rng.random(n)
    k = int(rng.integers(0, n // 3))
    p[rng.choice(n, k, replace=False)] = rng.choice([0.0, 0.25, 0.5, 1.0], k)
    p[:3] = -0.0
    y = (rng.random(n) < rng.uniform(0.05, 0.6)).astype(np.int8)
    return pd.DataFrame({"click": y, "p": p, "p2": np.clip(p * rng.lognormal(0, 0.3, n), 0, 1)})


@pytest.fixture
def spy(monkeypatch):
    """Counts the calls of the sorted paths: a test of them must run them."""
    calls = {"auc": 0, "summary": 0}
    real_auc, real_sum = _ondask_auc.range_counts, _ondask_sorted._range_stats

    def auc(*a):
        calls["auc"] += 1
        return real_auc(*a)

    def summ(*a, **kw):
        calls["summary"] += 1
        return real_sum(*a, **kw)

    monkeypatch.setattr(_ondask_auc, "range_counts", auc)
    monkeypatch.setattr(_ondask_sorted, "_range_stats", summ)
    return calls


@pytest.mark.parametrize("seed", range(8))
def test_sorted_auc_and_summary_equal_in_memory(seed, spy):
    rng = np.random.default_rng(seed)
    df = tied_log(rng, int(rng.integers(300, 6000)))
    ddf = dd.from_pandas(df, npartitions=int(rng.integers(1, 7)))
    y = df["click"].to_numpy()
    q = int(rng.integers(1, 25))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bins without a click: nan, as in memory
        s = ondask.summarize(ddf, "click", ["p", "p2"], n_quantiles=q)
        for col in ("p", "p2"):
            x = df[col].to_numpy()
            exact = metrics.roc_auc_score(y, x)
            assert s.roc_auc_score(col) == exact  # bit for bit
            assert ondask.roc_auc_score(ddf, "click", col) == exact
            ref = ScoreCounts.from_arrays(y, x)
            got = s.counts[col]
            np.testing.assert_array_equal(got.values, ref.values)
            np.testing.assert_array_equal(got.pos, ref.pos)
            np.testing.assert_array_equal(got.neg, ref.neg)
            for m in ("log_loss", "mean_squared_error", "calibration_ratio", "prediction_error"):
                assert getattr(s, m)(col) == pytest.approx(getattr(metrics, m)(y, x), rel=1e-12, abs=1e-15), m
            mine, table = s.quantile_breakdown(col), metrics.quantile_breakdown(y, x, n_quantiles=q)
            np.testing.assert_array_equal(mine["weight"], table["weight"])  # every row in its bin
            np.testing.assert_array_equal(mine[["quantile", "score_lo", "score_hi"]], table[["quantile", "score_lo", "score_hi"]])
            pd.testing.assert_frame_equal(mine, table, rtol=1e-10, check_dtype=False)
    assert spy["auc"] > 0 and spy["summary"] > 0


def test_sorted_paths_on_parquet_row_groups(tmp_path, rng, monkeypatch, spy):
    df = tied_log(rng, 9000)
    df.to_parquet(tmp_path / "log.parquet", row_group_size=800)
    monkeypatch.setattr(_ondask_io, "ROWS_PER_TASK", 1600)  # six tasks
    y, x = df["click"].to_numpy(), df["p"].to_numpy()
    assert ondask.roc_auc_score(tmp_path / "log.parquet", "click", "p") == metrics.roc_auc_score(y, x)
    s = ondask.summarize(tmp_path / "log.parquet", "click", "p", families=("auc", "losses"))
    assert s.roc_auc_score() == metrics.roc_auc_score(y, x)
    assert s.rig_score() == pytest.approx(metrics.rig_score(y, x), rel=1e-12)
    fpr, tpr = s.roc_curve()
    rf, rt, _ = metrics.roc_curve(y, x)
    np.testing.assert_allclose(fpr, rf, rtol=1e-12)
    np.testing.assert_allclose(tpr, rt, rtol=1e-12)
    assert spy["auc"] >= 2 and spy["summary"] >= 2


def test_sorted_summary_with_joint_counts(rng):
    df = tied_log(rng, 3000)
    df["b"], df["c"] = rng.integers(0, 4, len(df)), rng.integers(0, 4, len(df))
    ddf = dd.from_pandas(df, npartitions=3)
    s = ondask.summarize(ddf, "click", "p", joint=("b", "c"), families=("auc", "joint"))
    assert s.pairs and s.roc_auc_score() == metrics.roc_auc_score(df["click"], df["p"])
    ref = ondask.joint_counts(ddf, "b", "c")
    np.testing.assert_array_equal(s.joint.counts, ref.counts)
    assert "joint" in repr(s) and s.sums == {} and s.quantiles == {}


def test_sorted_paths_refuse_bad_input_by_name(rng):
    df = tied_log(rng, 2000)
    bad = df.assign(click=df["click"] * 2)
    with pytest.raises(ValueError, match="`click` must hold 0/1 labels"):
        ondask.roc_auc_score(dd.from_pandas(bad, npartitions=2), "click", "p")
    with pytest.raises(ValueError, match="`click` must hold 0/1 labels"):
        ondask.summarize(dd.from_pandas(bad, npartitions=2), "click", "p")
    nan = df.assign(p=df["p"].where(df.index != 700))
    with pytest.raises(ValueError, match="`p`"):
        ondask.roc_auc_score(dd.from_pandas(nan, npartitions=2), "click", "p")
    for bad_p in (nan, df.assign(p=df["p"].where(df.index != 5, np.inf)), df.assign(p=df["p"].where(df.index != 9, -np.inf))):
        with pytest.raises(ValueError, match="`p` must be finite|`p`.*finite"):
            ondask.log_loss(dd.from_pandas(bad_p, npartitions=2), "click", "p")
    out = df.assign(p=df["p"] * 3 - 1)
    with pytest.raises(ValueError, match="must lie in \\[0, 1\\]"):
        ondask.summarize(dd.from_pandas(out, npartitions=2), "click", "p")
    s = ondask.summarize(dd.from_pandas(out, npartitions=2), "click", "p", families=("auc",))  # no bound for the AUC
    assert s.roc_auc_score() == metrics.roc_auc_score(out["click"], out["p"])


def test_one_class_is_nan_with_a_warning(rng):
    df = tied_log(rng, 2000).assign(click=0)
    from offline_eval import OfflineEvalWarning

    with pytest.warns(OfflineEvalWarning, match="undefined"):
        assert np.isnan(ondask.roc_auc_score(dd.from_pandas(df, npartitions=2), "click", "p"))


def test_thresholds_are_the_least_counts_of_each_bin(rng):
    """The float rule of QuantileSums.edges, searched exhaustively on small totals."""
    for _ in range(300):
        total, q = int(rng.integers(1, 400)), int(rng.integers(1, 40))
        got = _ondask_sorted.thresholds(total, q)
        bins = np.minimum(np.floor(q * np.arange(total + 1) / float(total)), q - 1)
        for b, c in enumerate(got, start=1):
            hit = np.flatnonzero(bins >= b)
            assert c == (hit[0] if hit.size else total), (total, q, b)


def test_first_at_or_above_counts_strictly_below(rng):
    for _ in range(200):
        a = np.sort(rng.integers(0, 20, int(rng.integers(0, 30))).astype(float))
        b = np.sort(rng.integers(0, 20, int(rng.integers(0, 30))).astype(float))
        both = np.sort(np.r_[a, b])
        r = int(rng.integers(0, both.size + 2))
        below = np.searchsorted(both, both, side="left")
        ok = both[below >= r]
        want = ok[0] if ok.size else np.inf
        assert _ondask_sorted._first_at_or_above(a, b, r) == want


def test_whole_counts_auc_has_the_bits_of_the_float_sum(rng):
    """ScoreCounts.roc_auc_score counts whole counts in integers: the bits of roc_auc_score_from_counts (exact
    there below 2**52 pairs), and of the in-memory function on the rows."""
    for _ in range(200):
        k = int(rng.integers(1, 400))
        pos = rng.integers(0, 50, k).astype(float)
        neg = rng.integers(0, 50, k).astype(float)
        c = ScoreCounts(np.arange(k, dtype=float), pos, neg)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = metrics.roc_auc_score_from_counts(pos[::-1], neg[::-1])
            got = c.roc_auc_score()
        assert got == want or (np.isnan(got) and np.isnan(want))
    y = (rng.random(3000) < 0.3).astype(int)
    s = np.round(rng.random(3000), 2)
    assert ScoreCounts.from_arrays(y, s).roc_auc_score() == metrics.roc_auc_score(y, s)


@pytest.mark.parametrize("eps", [1e-15, 0.0, 0.01])
def test_unweighted_loss_sums_equal_from_arrays(rng, eps):
    from offline_eval.mergeable import LossSums

    for _ in range(20):
        n = int(rng.integers(1, 3000))
        p = rng.beta(1, 8, n)
        p[rng.random(n) < 0.05] = rng.choice([0.0, 1.0])
        y = (rng.random(n) < 0.2).astype(np.int8)
        if eps == 0.0:  # a certain miss is an infinite loss in both
            p[(y == 1) & (p == 0)] = 0.5
            p[(y == 0) & (p == 1)] = 0.5
        a, b = _mergeable_losses.unweighted_loss_sums(y, p, ("y", "p"), eps), LossSums.from_arrays(y, p, eps=eps)
        for f in ("n", "w", "wy", "n_pos", "n_neg"):
            assert getattr(a, f) == getattr(b, f)
        for f in ("wp", "wloss", "wsq", "wabs"):
            assert getattr(a, f) == pytest.approx(getattr(b, f), rel=1e-12, abs=1e-12), f
    df = pd.DataFrame({"y": y, "p": p})
    got = ondask.log_loss(dd.from_pandas(df, npartitions=3), "y", "p", eps=eps)
    assert got == pytest.approx(metrics.log_loss(y, p, eps=eps), rel=1e-12)
    with pytest.raises(ValueError, match="`p` must lie in \\[0, 1\\]"):
        ondask.log_loss(dd.from_pandas(df.assign(p=df["p"] + 1), npartitions=3), "y", "p")


def test_many_quantiles_take_the_cells_pass_and_its_bound(rng):
    df = tied_log(rng, 3000)
    ddf = dd.from_pandas(df, npartitions=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bins of one class: nan, as in memory
        s = ondask.summarize(ddf, "click", "p", n_quantiles=1001, families=("quantiles",))
    assert not s.pairs and s.quantile_breakdown()["weight"].sum() == len(df)
    with pytest.raises(ValueError, match="`n_quantiles` must be at most"):
        ondask.summarize(ddf, "click", "p", n_quantiles=10**9, families=("quantiles",))


def test_unique_inverse_equals_numpy(rng):
    from offline_eval._chunks import unique_inverse

    for _ in range(100):
        n = int(rng.integers(1, 2000))
        s = np.round(rng.normal(size=n), int(rng.integers(0, 8)))
        if rng.random() < 0.3:
            s[rng.random(n) < 0.1] = -0.0
        v, inv = unique_inverse(s)
        rv, rinv = np.unique(s, return_inverse=True)
        np.testing.assert_array_equal(v, rv)
        np.testing.assert_array_equal(np.signbit(v), np.signbit(rv))
        np.testing.assert_array_equal(inv, rinv)


def test_losses_alone_are_summed_per_task_without_a_sort(rng, spy):
    df = tied_log(rng, 3000)
    s = ondask.summarize(dd.from_pandas(df, npartitions=3), "click", "p", families=("losses",))
    assert spy["summary"] == 0 and not s.pairs
    assert s.log_loss() == pytest.approx(metrics.log_loss(df["click"], df["p"]), rel=1e-12)
