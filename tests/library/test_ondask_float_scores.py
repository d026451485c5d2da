"""Exact metrics of continuous (float64) scores on Dask: the per-range sort path equals the in-memory functions.

Continuous scores take the path of ``_ondask_cells.reduce_summary`` that splits every task's rows by score range
and sorts each range in one task; scores stored at a fixed precision take the tree of merges.  Both must
give the in-memory values: the counts bit for bit, the sums to 1e-12 relative.
"""

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import _ondask_cells, _ondask_io, metrics, ondask  # noqa: E402
from offline_eval._chunks import merge_sorted, sorted_union, sorted_unit_cells  # noqa: E402


def float_log(rng, n=6000, *, negative=False):
    y = (rng.random(n) < 0.1).astype(np.int8)
    p1 = rng.beta(1, 12, n)
    p2 = np.clip(p1 * np.exp(rng.normal(0, 0.3, n)), 0, 1)
    p2[:50] = p2[50:100]  # some ties across partitions
    df = pd.DataFrame({"click": y, "p1": p1, "p2": p2, "w": rng.integers(1, 4, n).astype(float)})
    if negative:
        df["logit"] = np.log(p1) - np.log1p(-p1)
        df.loc[:10, "logit"] = 0.0
        df.loc[11:20, "logit"] = -0.0
    return df


def counts_by_unique(y, s, w=None):
    """The slow reference: np.unique and weighted bincounts."""
    w = np.ones(len(y)) if w is None else w
    values, inv = np.unique(s, return_inverse=True)
    return values, np.bincount(inv, weights=w * y, minlength=len(values)), \
        np.bincount(inv, weights=w * (1 - y), minlength=len(values))


def test_sorted_unit_cells_equal_unique(rng):
    y = (rng.random(5000) < rng.random()).astype(float)
    s = np.round(rng.random(5000), int(rng.integers(2, 6)))  # ties
    got = sorted_unit_cells(y, s)
    for a, b in zip(got, counts_by_unique(y, s)):
        np.testing.assert_array_equal(a, b)
    assert sorted_unit_cells(y, np.r_[-0.0, s[1:]]) is None  # a signed zero: the sort decides nothing


def test_merge_sorted_equals_sorted_union(rng):
    a = np.unique(np.round(rng.random(300), 2))
    b = np.unique(np.round(rng.random(200), 2))
    xa, xb = rng.random(a.size), rng.random(b.size)
    values, (got,) = merge_sorted(a, b, (xa, xb))
    ref_values, inv = sorted_union(a, b)
    np.testing.assert_array_equal(values, ref_values)
    np.testing.assert_array_equal(got, np.bincount(inv, weights=np.r_[xa, xb], minlength=len(values)))
    v, (x,) = merge_sorted(np.array([0.1, 0.3]), np.array([0.2]), (np.array([1.0, 3.0]), np.array([2.0])))
    assert v.tolist() == [0.1, 0.2, 0.3] and x.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("weight", [None, "w"])
def test_float_scores_on_parquet_equal_in_memory(tmp_path, rng, monkeypatch, weight):
    df = float_log(rng)
    df.to_parquet(tmp_path / "log.parquet", row_group_size=700)
    monkeypatch.setattr(_ondask_io, "ROWS_PER_TASK", 1400)  # five tasks: the per-range path
    calls = []
    real = _ondask_cells._range_cells
    monkeypatch.setattr(_ondask_cells, "_range_cells", lambda *a: calls.append(1) or real(*a))
    path = tmp_path / "log.parquet"
    y, w = df["click"].to_numpy(), None if weight is None else df[weight].to_numpy()
    sc = ondask.score_counts(path, "click", "p1", weight=weight)
    ref = counts_by_unique(y.astype(float), df["p1"].to_numpy(), w)
    assert len(calls) >= 2  # the per-range path, not the tree
    np.testing.assert_array_equal(sc.values, ref[0])
    if weight is None:  # whole numbers: bit for bit
        np.testing.assert_array_equal(sc.pos, ref[1])
        np.testing.assert_array_equal(sc.neg, ref[2])
    else:
        np.testing.assert_allclose(sc.pos, ref[1], rtol=1e-15)
    assert sc.roc_auc_score() == pytest.approx(metrics.roc_auc_score(y, df["p1"].to_numpy(), sample_weight=w), rel=1e-12)
    s = ondask.summarize(path, "click", ["p1", "p2"], weight=weight, n_quantiles=7)
    for col in ("p1", "p2"):
        p = df[col].to_numpy()
        assert s.roc_auc_score(col) == pytest.approx(metrics.roc_auc_score(y, p, sample_weight=w), rel=1e-12)
        assert s.log_loss(col) == pytest.approx(metrics.log_loss(y, p, sample_weight=w), rel=1e-12)
        assert s.rig_score(col) == pytest.approx(metrics.rig_score(y, p, sample_weight=w), rel=1e-12)
        mine = s.quantile_breakdown(col)
        table = metrics.quantile_breakdown(y, p, n_quantiles=7, sample_weight=w)
        np.testing.assert_array_equal(mine["weight"], table["weight"])
        np.testing.assert_allclose(mine.to_numpy(float), table.to_numpy(float), rtol=1e-12, atol=1e-13)
    fpr, tpr, _ = ondask.roc_curve(path, "click", "p2", weight=weight)
    rf, rt, _ = metrics.roc_curve(y, df["p2"].to_numpy(), sample_weight=w)
    np.testing.assert_allclose(fpr, rf, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(tpr, rt, rtol=1e-12, atol=1e-15)


def test_negative_scores_and_signed_zeros(rng):
    df = float_log(rng, negative=True)
    ddf = dd.from_pandas(df, npartitions=4)
    y, s = df["click"].to_numpy(), df["logit"].to_numpy()
    sc = ondask.score_counts(ddf, "click", "logit")
    ref = counts_by_unique(y.astype(float), s)
    np.testing.assert_array_equal(sc.values, ref[0])
    np.testing.assert_array_equal(sc.pos, ref[1])
    assert sc.roc_auc_score() == pytest.approx(metrics.roc_auc_score(y, s), rel=1e-12)


def test_range_split_keeps_every_row(rng):
    """Every row lands in exactly one range, equal scores in the same one (a cell never straddles)."""
    s = np.r_[rng.random(1000), -rng.random(100), np.zeros(5), np.full(7, 0.25)]
    cut = _ondask_cells.choose_splits({"s": s}, ("s",), 6)["s"]
    pieces = _ondask_cells._split_by_score(s, np.zeros(s.size), None, cut)
    assert sum(p[0].size for p in pieces) == s.size
    ranges = [set(p[0].tolist()) for p in pieces]
    assert all(not (a & b) for i, a in enumerate(ranges) for b in ranges[i + 1:])
    highs = [p[0].max() for p in pieces if p[0].size]
    lows = [p[0].min() for p in pieces if p[0].size]
    assert all(h < lo for h, lo in zip(highs[:-1], lows[1:]))  # ranges in score order


def test_summarize_with_resolution_serves_its_default_families(rng):
    """Issue 36: ``summarize(..., resolution=...)`` used to refuse its own default families (the quantiles)."""
    df = float_log(rng)
    df["p3"] = np.round(df["p1"], 3)
    ddf = dd.from_pandas(df, npartitions=3)
    y = df["click"].to_numpy()
    # scores stored at the resolution: the bins are those of the stored scores, the table the in-memory one
    s = ondask.summarize(ddf, "click", "p3", resolution=1e-3, n_quantiles=5)
    ref = metrics.quantile_breakdown(y, df["p3"].to_numpy(), n_quantiles=5)
    mine = s.quantile_breakdown()
    np.testing.assert_array_equal(mine["weight"], ref["weight"])
    cols = ["weight", "clicks", "ctr", "avg_pclick", "calibration_ratio"]
    np.testing.assert_allclose(mine[cols].to_numpy(float), ref[cols].to_numpy(float), rtol=1e-12)
    assert s.log_loss() == pytest.approx(metrics.log_loss(y, df["p3"].to_numpy()), rel=1e-12)
    # continuous scores: the AUC within its stated bound, the table's totals those of the rows
    c = ondask.summarize(ddf, "click", ["p1", "p2"], resolution=1e-4, n_quantiles=4)
    for col in ("p1", "p2"):
        exact = metrics.roc_auc_score(y, df[col].to_numpy())
        assert abs(c.roc_auc_score(col) - exact) <= c.auc_error_bound(col) + 1e-15
        table = c.quantile_breakdown(col)
        assert table["weight"].sum() == len(df)
        assert (table["avg_pclick"] * table["weight"]).sum() == pytest.approx(df[col].sum(), rel=1e-12)
    assert "resolution 0.0001" in repr(c) and "exact" in repr(ondask.summarize(ddf, "click", "p3"))


def test_summary_repr_is_one_short_line(rng):
    df = float_log(rng)
    s = ondask.summarize(dd.from_pandas(df, npartitions=2), "click", ["p1", "p2"])
    r = repr(s)
    assert "\n" not in r and len(r) < 200 and "array" not in r


def test_accumulator_reprs_are_one_short_line(rng):
    from offline_eval.mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums

    y, s = (rng.random(5000) < 0.2).astype(int), rng.random(5000)
    counts = ScoreCounts.from_arrays(y, s)
    objs = [counts, ScoreCounts.from_arrays(y, s, resolution=1e-3), LossSums.from_arrays(y, s),
            QuantileSums.from_arrays(QuantileSums.edges(counts, 4), 4, y, s),
            JointCounts.from_arrays(rng.integers(0, 5, 5000), rng.integers(0, 5, 5000)),
            UtilitySums.from_arrays(rng.integers(0, 3, 5000), rng.integers(0, 2, 5000), s, s, s * 0.5, betas=(1.0,))]
    for obj in objs:
        r = repr(obj)
        assert "\n" not in r and len(r) < 120 and "array" not in r, r
    assert repr(counts).startswith("ScoreCounts(5,000 distinct scores, positives ") and repr(counts).endswith("; exact)")
