"""Behaviour of the pair-count engine (`ranking._pairs`) that mutation testing found unchecked: the smallest
inputs of tau-b, and its undefined case without numpy's own warnings (`make mutation`; docs/mutation.md)."""

import math
import warnings

import numpy as np
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval.ranking import _pairs, kendall_tau


@pytest.mark.parametrize("variant", ["a", "b"])
def test_two_observations_have_a_tau_of_plus_or_minus_one(variant):
    # one pair, concordant or discordant: tau-b's denominator sqrt((1 - 0)(1 - 0)) is 1, and the tau is defined
    assert kendall_tau([1.0, 2.0], [3.0, 5.0], variant=variant) == 1.0
    assert kendall_tau([1.0, 2.0], [5.0, 3.0], variant=variant) == -1.0


@pytest.mark.parametrize("y, m", [([1.0, 1.0, 1.0], [1.0, 2.0, 3.0]), ([1.0, 2.0, 3.0], [4.0, 4.0, 4.0]),
                                  ([2.0, 2.0], [2.0, 2.0])])
def test_tau_b_of_a_constant_input_is_nan_with_the_projects_warning_alone(y, m):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = kendall_tau(y, m)
    assert math.isnan(got)
    assert [w.category for w in caught] == [OfflineEvalWarning], [str(w.message) for w in caught]


def brute_force_counts(y, m):
    """Every field of ``_pairs.Counts`` by a double loop over the partners of each observation."""
    n = len(y)
    out = {k: np.zeros(n, dtype=np.int64) for k in
           ("ly", "gy", "ey", "lm", "gm", "em", "A", "B", "e_m_ylt", "e_m_ygt", "e_y_mlt", "e_y_mgt", "e_both")}
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            dy, dm = np.sign(y[j] - y[i]), np.sign(m[j] - m[i])
            out["ly"][i] += dy < 0
            out["gy"][i] += dy > 0
            out["ey"][i] += dy == 0
            out["lm"][i] += dm < 0
            out["gm"][i] += dm > 0
            out["em"][i] += dm == 0
            out["A"][i] += (dy < 0) and (dm < 0)
            out["B"][i] += (dy > 0) and (dm > 0)
            out["e_m_ylt"][i] += (dm == 0) and (dy < 0)
            out["e_m_ygt"][i] += (dm == 0) and (dy > 0)
            out["e_y_mlt"][i] += (dy == 0) and (dm < 0)
            out["e_y_mgt"][i] += (dy == 0) and (dm > 0)
            out["e_both"][i] += (dy == 0) and (dm == 0)
    return out


def tie_cases():
    rng = np.random.default_rng(49)
    distinct = rng.permutation(40).astype(float)
    # ties in the prediction away from its smallest value (the smallest value once), or in the truth alone
    tied_m = np.concatenate(([-1.0], rng.integers(0, 6, 39).astype(float)))
    return [(distinct, rng.permutation(40).astype(float)), (distinct, tied_m), (tied_m, distinct),
            (rng.integers(0, 4, 40).astype(float), rng.integers(0, 3, 40).astype(float))]


@pytest.mark.parametrize("case", range(4))
def test_every_pair_count_and_tie_flag_equals_a_double_loop(case):
    y, m = tie_cases()[case]
    got, ref = _pairs.pair_counts(y, m), brute_force_counts(y, m)
    assert got.n == len(y)
    for field, want in ref.items():
        np.testing.assert_array_equal(np.broadcast_to(getattr(got, field), want.shape), want, err_msg=field)
    assert got.ties_y == bool(ref["ey"].any()) and got.ties_m == bool(ref["em"].any())
    np.testing.assert_array_equal(y[got.oy], np.sort(y))
    np.testing.assert_array_equal(m[got.om], np.sort(m))


def test_an_invalid_input_is_refused_by_its_name():
    with pytest.raises(ValueError, match="`y_true`"):
        kendall_tau([1.0, np.nan, 3.0], [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="`y_pred`"):
        kendall_tau([1.0, 2.0, 3.0], [[1.0, 2.0, 3.0]] * 3)
