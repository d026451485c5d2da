"""Behaviour of the in-memory AUC engine's sort (`_sorting.sorted_order`) that mutation testing found unchecked:
scores over a wide range, where rows share their kept high bits but differ below them (`make mutation`;
docs/mutation.md)."""

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from offline_eval._sorting import sorted_order
from offline_eval.metrics import roc_auc_score


def wide_scores(seed, n=3000):
    """Scores from 1e-300 to 1e300 of both signs, with clusters of neighbouring floats and exact ties."""
    rng = np.random.default_rng(seed)
    wide = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(-300, 300, n)
    near = 1.0 + rng.integers(0, 50, n) * np.finfo(float).eps  # neighbouring floats, many equal
    pick = rng.integers(0, 3, n)
    s = np.where(pick == 0, wide, np.where(pick == 1, near, np.round(rng.normal(size=n), 1)))
    s[rng.integers(0, n, 20)] = -0.0
    return s


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("with_values", [False, True])
def test_sorted_order_is_numpys_stable_argsort_over_a_wide_range(seed, with_values):
    s = wide_scores(seed)
    ref = np.argsort(s, kind="stable")
    got = sorted_order(s, with_values=with_values)
    if with_values:
        got, values = got
        np.testing.assert_array_equal(values, s[ref])
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("seed", range(3))
def test_auc_of_wide_range_scores_equals_sklearn(seed):
    s = wide_scores(seed)
    y = np.random.default_rng(seed + 10).integers(0, 2, len(s))
    assert roc_auc_score(y, s) == pytest.approx(sk_roc_auc_score(y, s), rel=1e-12, abs=0)
