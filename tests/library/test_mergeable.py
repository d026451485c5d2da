"""Mergeable accumulators: any partitioning, any merge order, the same values as the in-memory functions."""

import functools

import numpy as np
import pytest

from offline_eval import adaptive, bidding, metrics
from offline_eval.mergeable import JointCounts, LossSums, QuantileSums, ScoreCounts, UtilitySums


def partitions(n, rng, *, k=None):
    """Random cut points: some partitions empty, some of one row."""
    k = int(rng.integers(1, 9)) if k is None else k
    cuts = np.sort(rng.integers(0, n + 1, k - 1))
    cuts = np.r_[0, cuts, n]
    if k > 2:
        cuts[1] = cuts[2]  # an empty partition
    return [slice(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def merged(cls_from, parts, rng):
    accs = [cls_from(sl) for sl in parts]
    order = rng.permutation(len(accs))  # any merge order
    return functools.reduce(lambda a, b: a.merge(b), [accs[i] for i in order])


def data(rng, n=3000, distinct=None):
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.random(n)
    if distinct:
        s = np.round(s * distinct) / distinct
    w = rng.integers(1, 4, n).astype(float)
    return y, s, w


@pytest.mark.parametrize("distinct", [None, 20])
def test_score_counts_auc_equals_in_memory(rng, distinct):
    y, s, w = data(rng, distinct=distinct)
    y[:200] = 1  # a one-class partition at the start
    parts = partitions(len(y), rng)
    acc = merged(lambda sl: ScoreCounts.from_arrays(y[sl], s[sl], w[sl]), parts, rng)
    assert acc.roc_auc_score() == pytest.approx(metrics.roc_auc_score(y, s, sample_weight=w), rel=1e-12)
    np.testing.assert_array_equal(acc.values, np.unique(s))
    assert acc.pos.sum() == w[y == 1].sum() and acc.neg.sum() == w[y == 0].sum()  # counts exactly
    fpr, tpr = acc.roc_curve()
    ref_fpr, ref_tpr, _ = metrics.roc_curve(y, s, sample_weight=w)
    np.testing.assert_allclose(fpr, ref_fpr, rtol=1e-12)
    np.testing.assert_allclose(tpr, ref_tpr, rtol=1e-12)


def test_resolution_bounds_the_auc_error(rng):
    y, s, _ = data(rng, n=20000)
    exact = metrics.roc_auc_score(y, s)
    for res in (1e-1, 1e-2, 1e-3):
        acc = ScoreCounts.from_arrays(y, s, resolution=res)
        assert abs(acc.roc_auc_score() - exact) <= acc.auc_error_bound() + 1e-15
        assert len(acc.values) <= 1 / res + 1
    assert ScoreCounts.from_arrays(y, s).auc_error_bound() == 0.0
    with pytest.raises(ValueError, match="cannot merge"):
        ScoreCounts.from_arrays(y, s, resolution=0.1).merge(ScoreCounts.from_arrays(y, s))


def test_loss_sums_equal_in_memory(rng):
    y, p, w = data(rng)
    p[:5] = [0.0, 1.0, 1e-17, 1 - 1e-17, 0.5]  # clipped at eps
    acc = merged(lambda sl: LossSums.from_arrays(y[sl], p[sl], w[sl]), partitions(len(y), rng), rng)
    kw = dict(sample_weight=w)
    assert acc.n == len(y) and acc.w == w.sum()
    for mine, ref in ((acc.log_loss(), metrics.log_loss(y, p, **kw)), (acc.rig_score(), metrics.rig_score(y, p, **kw)),
                      (acc.mean_squared_error(), metrics.mean_squared_error(y, p, **kw)), (acc.mean_absolute_error(), metrics.mean_absolute_error(y, p, **kw)),
                      (acc.calibration_ratio(), metrics.calibration_ratio(y, p, **kw)),
                      (acc.prediction_error(), metrics.prediction_error(y, p, **kw))):
        assert mine == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("distinct", [None, 7])
def test_quantile_sums_equal_quantile_breakdown(rng, distinct):
    y, p, _ = data(rng, distinct=distinct)
    p = np.clip(p, 0.01, 0.99)
    parts = partitions(len(y), rng)
    first = merged(lambda sl: ScoreCounts.from_arrays(y[sl], p[sl]), parts, rng)
    edges = QuantileSums.edges(first, 10)
    acc = merged(lambda sl: QuantileSums.from_arrays(edges, 10, y[sl], p[sl]), parts, rng)
    mine, ref = acc.frame(), metrics.quantile_breakdown(y, p, n_quantiles=10)
    assert list(mine.columns) == list(ref.columns)
    np.testing.assert_array_equal(mine["quantile"], ref["quantile"])
    np.testing.assert_array_equal(mine["weight"], ref["weight"])  # bins exact
    # prediction_error = ratio - 1 cancels near 0: compare it absolutely
    np.testing.assert_allclose(mine.to_numpy(float), ref.to_numpy(float), rtol=1e-12, atol=1e-13)


def test_joint_counts_equal_joint_distribution_and_the_adaptive_metrics(rng):
    k = 6
    b, c, g = (rng.integers(0, k, 5000) for _ in range(3))
    lb, lc = rng.integers(0, k, 8000), rng.integers(0, k, 8000)
    off = merged(lambda sl: JointCounts.from_arrays(b[sl], c[sl], g[sl]), partitions(len(b), rng), rng)
    live = merged(lambda sl: JointCounts.from_arrays(lb[sl], lc[sl]), partitions(len(lb), rng), rng)
    np.testing.assert_array_equal(off.dense(k), adaptive.joint_distribution(b, c, g, n_classes=k, normalize=False))
    np.testing.assert_array_equal(live.dense(k), adaptive.joint_distribution(lb, lc, n_classes=k, normalize=False))
    # sparse: memory bounded by the cells present, not by a label's value
    big = JointCounts.from_arrays(np.array([0, 10**12]), np.array([1, 1]))
    assert big.cells.tolist() == [[0, 1], [10**12, 1]]


def test_utility_sums_equal_the_per_row_functions(rng):
    n = 4000
    grp = rng.integers(0, 5, n)
    a = (rng.random(n) < 0.1).astype(int)
    v, p, c = rng.lognormal(0, 1, n), rng.random(n) * 0.2, rng.lognormal(-2, 1, n)
    betas = (0.1, 10.0)
    acc = merged(lambda sl: UtilitySums.from_arrays(grp[sl], a[sl], v[sl], p[sl], c[sl], betas=betas),
                 partitions(n, rng, k=4), rng)
    df = acc.frame()
    for g in range(5):
        m = grp == g
        row = df[df["group"] == g].iloc[0]
        assert row["rows"] == m.sum()
        assert row["utility"] == pytest.approx(bidding.utility_per_row(a[m], v[m], p[m], c[m]).sum(), rel=1e-12)
        assert row["eu_10"] == pytest.approx(bidding.expected_utility_per_row(a[m], v[m], p[m], c[m], beta=10.0).sum(),
                                             rel=1e-12)


def test_accumulators_reject_bad_input():
    with pytest.raises(ValueError, match="`y_true` must hold 0/1"):
        ScoreCounts.from_arrays([0, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="`y_score` must be finite"):
        ScoreCounts.from_arrays([0, 1], [0.1, np.nan])
    with pytest.raises(ValueError, match="`resolution`"):
        ScoreCounts.from_arrays([0, 1], [0.1, 0.2], resolution=0)
    with pytest.raises(ValueError, match="`y_prob` must lie"):
        LossSums.from_arrays([0, 1], [0.1, 1.2])
    with pytest.raises(ValueError, match="`n_quantiles`"):
        QuantileSums.edges(ScoreCounts.from_arrays([0, 1], [0.1, 0.2]), True)
    with pytest.raises(ValueError, match="non-negative"):
        JointCounts.from_arrays([-1], [0])


# -- the sort-free paths give the bytes of the sort (np.unique) -------------------------------------------
def _unique_reference(y, s, w=None, resolution=None):
    """ScoreCounts' cells by np.unique, as they were filled before the grid path."""
    y = np.asarray(y, float)
    w = np.ones(y.size) if w is None else np.asarray(w, float)
    s = np.asarray(s, float)
    if resolution is not None:
        s = np.round(s / resolution) * resolution
    v, inv = np.unique(s, return_inverse=True)
    return v, np.bincount(inv, weights=w * y, minlength=len(v)), np.bincount(inv, weights=w * (1.0 - y), minlength=len(v))


@pytest.mark.parametrize("seed", range(4))
def test_score_counts_grid_path_is_bit_identical_to_the_sort(seed):
    rng = np.random.default_rng(seed)
    for trial in range(60):
        n = int(rng.integers(0, 3000))
        d = int(rng.integers(0, 11))
        x = rng.random(n) * rng.choice([1, 3, 1e-3, 100]) - rng.choice([0, 0.5])
        s = np.round(x, d) if d < 10 else x  # d = 10: continuous scores (the sort)
        if trial % 7 == 0 and n:
            s[::5] = -0.0
        y = (rng.random(n) < 0.3).astype(int)
        w = rng.random(n) * 3 if trial % 2 else None
        res = [None, 1e-3, 0.01, 1e-6][trial % 4]
        got = ScoreCounts.from_arrays(y, s, w, resolution=res)
        want = _unique_reference(y, s, w, res)
        for a, b in zip((got.values, got.pos, got.neg), want):
            assert a.tobytes() == b.tobytes()
        other = ScoreCounts.from_arrays(y[::-1], s[::-1] * 0.5, None if w is None else w[::-1], resolution=res)
        merged = got.merge(other)
        v, inv = np.unique(np.r_[got.values, other.values], return_inverse=True)
        assert merged.values.tobytes() == v.tobytes()
        assert merged.pos.tobytes() == np.bincount(inv, weights=np.r_[got.pos, other.pos], minlength=len(v)).tobytes()
        assert merged.neg.tobytes() == np.bincount(inv, weights=np.r_[got.neg, other.neg], minlength=len(v)).tobytes()


def test_joint_counts_key_path_equals_the_row_sort():
    rng = np.random.default_rng(5)
    for _ in range(100):
        n, k = int(rng.integers(1, 3000)), int(rng.choice([2, 5, 50, 3000, 2**40]))
        cols = [rng.integers(0, k, n).astype(np.int8 if k < 100 else np.int64) for _ in range(int(rng.integers(2, 4)))]
        got = JointCounts.from_arrays(*cols)
        cells, counts = np.unique(np.stack([c.astype(np.int64) for c in cols], 1), axis=0, return_counts=True)
        assert got.cells.tobytes() == cells.tobytes() and got.counts.tobytes() == counts.astype(np.int64).tobytes()
