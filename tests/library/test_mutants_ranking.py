"""Behaviour of the pair-count engine (`ranking._pairs`) that mutation testing found unchecked: the smallest
inputs of tau-b, and its undefined case without numpy's own warnings (`make mutation`; docs/mutation.md)."""

import math
import warnings

import pytest

from offline_eval import OfflineEvalWarning
from offline_eval.ranking import kendall_tau


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
