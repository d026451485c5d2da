"""``format_pvalue``'s resampling floor follows the test's sidedness (issue 51): ``2 / (B + 1)`` two-sided,
``1 / (B + 1)`` one-sided, checked against the floors two reference procedures actually reach: scipy's
``permutation_test`` (each tail counted with its +1, the two-sided p-value twice the smaller tail) and the library's
own two-sided bootstrap p-value of a paired difference (``_logboot_engine.pvalue_at_zero``)."""

import numpy as np
import pytest
from scipy import stats

from offline_eval._logboot_engine import pvalue_at_zero
from offline_eval._results import short_repr
from offline_eval.display import format_pvalue, resampling_floor


def _difference_of_means(a, b, axis):
    return np.mean(a, axis=axis) - np.mean(b, axis=axis)


@pytest.mark.parametrize("n_resamples", [99, 199, 200, 999, 1000])
@pytest.mark.parametrize("alternative, scipy_alternative", [("two-sided", "two-sided"), ("one-sided", "greater"),
                                                             ("greater", "greater")])
def test_the_floor_is_the_smallest_p_value_of_scipys_permutation_test(n_resamples, alternative, scipy_alternative):
    # two samples that never overlap: every resample's statistic is below the observed one, so the p-value is the
    # procedure's smallest
    res = stats.permutation_test((np.arange(10.0) + 100, np.arange(10.0)), _difference_of_means,
                                 n_resamples=n_resamples, alternative=scipy_alternative, random_state=0,
                                 vectorized=True)
    assert res.pvalue == pytest.approx(resampling_floor(n_resamples, alternative), rel=1e-12)
    assert format_pvalue(res.pvalue, n_resamples=n_resamples, alternative=alternative).startswith("< ")


@pytest.mark.parametrize("n_boot", [99, 200, 999])
def test_the_floor_is_the_smallest_two_sided_bootstrap_p_value_of_the_library(n_boot):
    replicates = np.linspace(0.01, 0.02, n_boot)  # every resampled difference above 0
    p = pvalue_at_zero(replicates)
    assert p == pytest.approx(resampling_floor(n_boot), rel=1e-12)
    shown = format_pvalue(p, n_resamples=n_boot)
    assert shown.startswith("< ") and float(shown[2:]) >= p
    # one replicate at 0: the next achievable p-value, 4 / (B + 1), is a number, not a bound
    replicates[0] = 0.0
    assert not format_pvalue(pvalue_at_zero(replicates), n_resamples=n_boot).startswith("<")


def test_a_two_sided_bootstrap_p_value_of_200_resamples_prints_a_bound_not_0_010():
    # the repr of a paired bootstrap difference of 200 resamples all on one side of 0 showed "pvalue=0.010"
    p = 2 / 201
    assert format_pvalue(p, n_resamples=200) == "< 0.010"
    assert format_pvalue(p, n_resamples=200, alternative="one-sided") == "0.010"  # a one-sided test can go lower
    assert short_repr("R", statistic=0.5, pvalue=p, pvalue_resamples=200) == "R(statistic=0.5, pvalue<0.010)"
    assert short_repr("R", statistic=0.5, pvalue=p) == "R(statistic=0.5, pvalue=0.010)"  # no resamples, no floor


@pytest.mark.parametrize("n_resamples", [9, 99, 200, 999, 4999])
@pytest.mark.parametrize("alternative", ["two-sided", "one-sided", "less", "greater"])
def test_only_the_floor_is_a_bound_and_the_bound_is_above_it(n_resamples, alternative):
    floor = resampling_floor(n_resamples, alternative)
    step = 1 / (n_resamples + 1) if alternative != "two-sided" else 2 / (n_resamples + 1)
    shown = format_pvalue(floor, n_resamples=n_resamples, alternative=alternative)
    assert shown.startswith("< ") and floor <= float(shown[2:]) < 10 * floor
    assert not format_pvalue(floor + step, n_resamples=n_resamples, alternative=alternative).startswith("<")


def test_an_explicit_floor_needs_no_sidedness_and_analytic_p_values_no_floor():
    assert format_pvalue(2 / 1001, floor=2 / 1001, alternative="one-sided") == "< 0.002"
    assert format_pvalue(0.0099) == "0.0099"
    assert format_pvalue(1e-7) == "< 0.0001"


@pytest.mark.parametrize("call, match", [
    (lambda: format_pvalue(0.5, n_resamples=200, alternative="both"), r"`alternative` must be one of \["),
    (lambda: format_pvalue(0.5, alternative=None), "`alternative` must be one of"),
    (lambda: resampling_floor(0), "`n_resamples` must be a positive integer"),
    (lambda: resampling_floor(True), "`n_resamples` must be a positive integer"),
    (lambda: resampling_floor(10, "two_sided"), "`alternative` must be one of"),
])
def test_invalid_sidedness_raises_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_a_paired_bootstrap_difference_shows_its_p_value_at_the_floor_as_a_bound():
    # ondask.clustered_bootstrap's docstring showed "pvalue=0.010" for 200 resamples all below 0 (issue 51)
    from offline_eval.results import BootstrapResult

    res = BootstrapResult(-0.02, -np.linspace(0.01, 0.03, 200), name="auc, b - a", difference=True)
    assert res.pvalue == pytest.approx(2 / 201)
    assert "pvalue<0.010" in repr(res)
    res = BootstrapResult(-0.02, np.r_[0.0, -np.linspace(0.01, 0.03, 199)], name="auc, b - a", difference=True)
    assert "pvalue=0.020" in repr(res)  # one replicate at 0: 4 / 201, above the floor
