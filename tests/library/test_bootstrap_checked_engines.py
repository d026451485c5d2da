"""``bootstrap_compare`` checks its inputs once and runs the measures' engines per resample: the same floats."""

import warnings

import numpy as np
import pytest

from offline_eval import ranking as rk
from offline_eval.ranking.bootstrap import _difference
from offline_eval.ranking.coefficients import MEASURES


def _reference(y, a, b, measure, n_boot, seed):
    """The loop as it was: the public measure on every resample."""
    fn = MEASURES[measure]
    y, a, b = (np.asarray(v, dtype=np.float64) for v in (y, a, b))
    gen = np.random.default_rng(seed)
    n = len(y)
    va, vb = float(fn(y, a)), float(fn(y, b))
    diffs = np.empty(n_boot)
    for k in range(n_boot):
        idx = gen.integers(0, n, size=n)
        diffs[k] = _difference(fn(y[idx], a[idx]), fn(y[idx], b[idx]))
    return va, vb, diffs


@pytest.mark.parametrize("measure", sorted(MEASURES))
@pytest.mark.parametrize("case", range(12))
def test_same_bits_as_the_public_measures(measure, case):
    g = np.random.default_rng(1000 + case)
    n = int(g.integers(2, 400))
    if case % 3 == 0:  # ties everywhere
        y, a, b = (g.integers(0, 4, n).astype(float) for _ in range(3))
    elif case % 3 == 1:
        y = g.lognormal(size=n)
        a, b = y + g.normal(size=n), y * g.uniform(0.5, 2, n)
    else:
        y, a, b = g.normal(size=n), g.normal(size=n) * 1e6, g.normal(size=n) * 1e-6
    n_boot = int(g.integers(2, 30))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = _reference(y, a, b, measure, n_boot, case)
        r = rk.bootstrap_compare(y, a, b, measure=measure, n_boot=n_boot, rng=case)
    assert (r.value_a, r.value_b) == ref[:2] or np.isnan(ref[0]) or np.isnan(ref[1])
    assert r.differences.tobytes() == ref[2].tobytes()


def test_constant_resamples_still_warn():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        rk.bootstrap_compare([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [3.0, 1.0, 2.0], measure="tau", n_boot=40, rng=0)
    assert any("is undefined when `y_true` or `y_pred` is constant" in str(w.message) for w in caught)
