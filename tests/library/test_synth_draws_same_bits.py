"""Faster synth draws take the same draws to the same result as the code they replaced."""

import numpy as np
import pytest

from offline_eval.synth import classifiers as cl


def _draw_rows_reference(cum, rows, rng, grouped=None):  # grouped: ignored (a speed-up only)
    u = rng.random(len(rows))
    idx = np.empty(len(rows), np.int64)
    for start in range(0, len(rows), 1 << 16):
        sl = slice(start, start + (1 << 16))
        idx[sl] = (u[sl, None] > cum[rows[sl]]).sum(axis=1)
    return np.minimum(idx, cum.shape[1] - 1)


class _Fixed:
    """A generator whose ``random`` returns given numbers (to hit the cumulative sums exactly)."""

    def __init__(self, u):
        self.u = u

    def random(self, size):
        assert size == len(self.u)
        return self.u.copy()


@pytest.mark.parametrize("case", range(20))
def test_draw_rows_same_indices(case):
    g = np.random.default_rng(case)
    k = int(g.integers(1, 40))
    n = int(g.integers(0, 3000))
    q = cl.random_confusion(k, float(g.uniform(0.05, 2)), rng=g) if k > 1 else np.ones((1, 1))
    if case % 4 == 0:  # zero cells: repeated cumulative values
        q[g.random(q.shape) < 0.4] = 0.0
    cum = np.cumsum(q, axis=1)
    rows = g.integers(0, k, n)
    assert np.array_equal(cl._draw_rows(cum, rows, np.random.default_rng(case)),
                          _draw_rows_reference(cum, rows, np.random.default_rng(case)))
    # u equal to a cumulative value, to 0, and just either side: the strict comparison is kept
    pick = cum[rows, g.integers(0, k, n)] if n else np.zeros(0)
    for u in (pick, np.nextafter(pick, 0), np.nextafter(pick, 2), np.zeros(n), np.where(g.random(n) < .5, 0., pick)):
        u = np.clip(u, 0.0, np.nextafter(1.0, 0))
        assert np.array_equal(cl._draw_rows(cum, rows, _Fixed(u)), _draw_rows_reference(cum, rows, _Fixed(u)))


@pytest.mark.parametrize("seed", range(6))
def test_two_model_world_same_world(seed, monkeypatch):
    g = np.random.default_rng(50 + seed)
    k = int(g.integers(2, 30))
    kw = dict(accuracy_b=g.uniform(0, 1, k), accuracy_c=g.uniform(0, 1, k), prior=np.full(k, 1 / k), rng=seed)
    n = int(g.integers(1, 5000))
    out = cl.two_model_world(n, **kw)
    monkeypatch.setattr(cl, "_draw_rows", _draw_rows_reference)
    ref = cl.two_model_world(n, **kw)
    for x, y in zip(out, ref):
        assert x.dtype == y.dtype and np.array_equal(x, y)


def _sample_by_cell_replace_reference(hb, hc, counts, k, rng):
    cell = hb * k + hc
    want = counts.ravel()
    have = np.bincount(cell, minlength=k * k)
    starts = np.r_[0, np.cumsum(have)[:-1]]
    cells = np.repeat(np.arange(k * k), want)
    pos = (rng.random(cells.size) * have[cells]).astype(np.int64)
    return np.sort(np.argsort(cell, kind="stable")[starts[cells] + pos])


@pytest.mark.parametrize("case", range(16))
def test_sample_by_cell_with_replacement_same_indices(case):
    g = np.random.default_rng(200 + case)
    k = int(g.choice([1, 2, 8, 41, 256, 257, 300])) if case % 2 else int(g.integers(1, 50))
    n = int(g.integers(1, 30000))
    hb, hc = g.integers(0, k, n), g.integers(0, k, n)
    have = np.bincount(hb * k + hc, minlength=k * k).reshape(k, k)
    counts = np.where(have > 0, g.integers(0, 6, (k, k)), 0)
    out = cl.sample_by_cell(hb, hc, counts, n_classes=k, replace=True, rng=case)
    ref = _sample_by_cell_replace_reference(hb, hc, counts, k, np.random.default_rng(case))
    assert out.dtype == ref.dtype and np.array_equal(out, ref)


def _sample_by_cell_reference(hb, hc, counts, k, rng):
    """The draw as first written: lexsort by (cell, uniform draw), then each cell's first items."""
    cell = hb * k + hc
    want = counts.ravel()
    have = np.bincount(cell, minlength=k * k)
    starts = np.r_[0, np.cumsum(have)[:-1]]
    shuffled = np.lexsort((rng.random(cell.size), cell))
    rank = np.arange(cell.size) - starts[cell[shuffled]]
    return np.sort(shuffled[rank < want[cell[shuffled]]])


@pytest.mark.parametrize("case", range(16))
def test_sample_by_cell_without_replacement_same_indices(case):
    g = np.random.default_rng(400 + case)
    k = int(g.choice([1, 2, 8, 45, 46, 64])) if case % 2 else int(g.integers(1, 50))  # k*k either side of 2**11
    n = int(g.integers(1, 30000))
    hb, hc = g.integers(0, k, n), g.integers(0, k, n)
    have = np.bincount(hb * k + hc, minlength=k * k).reshape(k, k)
    counts = np.minimum(have, g.integers(0, 6, (k, k)))
    out = cl.sample_by_cell(hb, hc, counts, n_classes=k, rng=case)
    ref = _sample_by_cell_reference(hb, hc, counts, k, np.random.default_rng(case))
    assert out.dtype == ref.dtype and np.array_equal(out, ref)


class _TiedDraws:
    """A generator whose uniform draws repeat (ties within a cell), or fall off the 2**-53 grid."""

    def __init__(self, values):
        self.values = values

    def random(self, size):
        return np.resize(self.values, size)


@pytest.mark.parametrize("values", [np.array([0.5, 0.25, 0.5, 0.0]), np.array([0.1, 0.1 + 2.0**-60, 0.3])])
def test_sample_by_cell_orders_tied_or_off_grid_draws_as_lexsort(values, monkeypatch):
    g = np.random.default_rng(7)
    k, n = 3, 500
    hb, hc = g.integers(0, k, n), g.integers(0, k, n)
    have = np.bincount(hb * k + hc, minlength=k * k).reshape(k, k)
    counts = np.minimum(have, 4)
    monkeypatch.setattr(cl, "check_rng", lambda rng: rng)
    out = cl.sample_by_cell(hb, hc, counts, n_classes=k, rng=_TiedDraws(values))
    ref = _sample_by_cell_reference(hb, hc, counts, k, _TiedDraws(values))
    assert np.array_equal(out, ref)
