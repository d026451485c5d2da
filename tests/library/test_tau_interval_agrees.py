"""Kendall's tau: an interval that agrees with its p-value and is never of zero width where tau is not +-1
(issue 50, item 1), and the three errors that named no argument."""

import warnings

import numpy as np
import pandas as pd
import pytest

import offline_eval as oe
from offline_eval import ranking as rk

LEVELS = (0.8, 0.9, 0.95, 0.99)


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _contradictions(r, y, m):
    """The ways ``r`` contradicts the docstring's promise, as strings (empty: none)."""
    out = []
    if not np.isfinite(r.statistic):
        return out
    spread = np.ptp(y) > 0 and np.ptp(m) > 0
    if not r.variance >= 0:
        out.append(f"variance {r.variance}")
    for level in LEVELS:
        low, high = r.confidence_interval(level)
        if not low <= r.statistic <= high:
            out.append(f"{level}: statistic {r.statistic} outside [{low}, {high}]")
        if (low > 0 or high < 0) and not r.pvalue_two_sided < 1 - level:
            out.append(f"{level}: interval [{low}, {high}] excludes 0 beside p = {r.pvalue_two_sided}")
        if spread and abs(r.statistic) < 1 and not high > low:
            out.append(f"{level}: zero width at tau {r.statistic}")
    return out


def test_issue_examples_no_zero_width_and_agreement():
    # p = 0.23 beside a variance of 0 and the interval [0.6, 0.6]
    r = rk.kendall_tau_test([1, 2, 3, 4, 5], [1, 3, 2, 5, 4])
    low, high = r.confidence_interval()
    assert r.pvalue == pytest.approx(0.2333, abs=1e-4) and r.variance > 0
    assert low <= 0 < 0.6 < high  # not rejected: the interval reaches 0
    # a regular concordance graph: every observation's net concordance is equal (the jackknife's 0)
    r = rk.kendall_tau_test([1, 2, 3, 4], [2, 1, 4, 3])
    assert r.variance > 0 and np.diff(r.confidence_interval()) > 0


def test_random_permutations_of_ten_never_a_zero_width_interval():
    rng = np.random.default_rng(50)
    for _ in range(500):
        m = rng.permutation(10)
        r = rk.kendall_tau_test(np.arange(10), m)
        assert not _contradictions(r, np.arange(10.0), m)


def test_strongly_correlated_n10_zero_width_only_at_tau_one():
    rng = np.random.default_rng(10)
    for _ in range(500):
        y = rng.random(10)
        m = y + rng.normal(0, 0.05, 10)
        r = rk.kendall_tau_test(y, m)
        low, high = r.confidence_interval()
        assert (high > low) or r.statistic == 1.0


def test_eq_6_is_still_the_paper_s_and_can_go_negative():
    C = rk.concordance_counts([1, 2, 3, 4, 5], [1, 3, 2, 5, 4])
    assert rk.tau_variance_from_concordance(C) <= 0 < rk.tau_variance([1, 2, 3, 4, 5], [1, 3, 2, 5, 4], variant="a")


def _case(rng, i):
    """Random data of 3..300 observations: independent, correlated, tied in either or both, or tiny."""
    kind = i % 6
    n = int(rng.integers(3, 301)) if kind < 4 else int(rng.integers(3, 13))
    y = rng.random(n)
    if kind == 0:
        m = rng.random(n)
    elif kind == 1:
        m = y + rng.normal(0, rng.uniform(0.02, 2.0), n)
    elif kind == 2:
        y = rng.integers(0, int(rng.integers(2, 6)), n).astype(float)
        m = rng.integers(0, int(rng.integers(2, 6)), n) + y * rng.integers(0, 3)
    elif kind == 3:
        m = np.round(y + rng.normal(0, 0.3, n), 1)
    elif kind == 4:
        m = rng.permutation(n).astype(float)
    else:
        m = y + rng.normal(0, 0.2, n)
    return y, np.asarray(m, dtype=float)


def test_property_interval_agrees_with_pvalue_over_10000_random_cases():
    rng = np.random.default_rng(20050)
    cases = 0
    failures = []
    for i in range(10_500):
        y, m = _case(rng, i)
        variant = "bac"[i % 3]
        alternative = ("two-sided", "greater", "less")[(i // 3) % 3]
        r = _quiet(rk.kendall_tau_test, y, m, variant=variant, alternative=alternative)
        cases += 1
        bad = _contradictions(r, y, m)
        if bad:
            failures.append((i, variant, len(y), bad[0]))
    assert cases >= 10_000
    assert not failures, f"{len(failures)} contradictions, e.g. {failures[:3]}"


def test_shortcuts_delegate_to_the_test():
    y, m = [1, 2, 2, 3, 5, 4], [1, 3, 2, 2, 5, 4]
    r = rk.kendall_tau_test(y, m, variant="a")
    assert rk.tau_variance(y, m, variant="a") == r.variance
    assert rk.tau_confidence_interval(y, m, level=0.9, variant="a") == r.confidence_interval(0.9)
    with pytest.raises(ValueError, match="`variant` must be one of"):
        rk.tau_variance(y, m, variant="d")
    with pytest.raises(ValueError, match="`level`"):
        rk.tau_confidence_interval(y, m, level=1.5)
    assert r.method == "normal" and r.variance_method == "plug-in U-statistic"


def test_three_errors_that_named_no_argument_now_name_it():
    with pytest.raises(ValueError, match="`variant`"):
        rk.kendall_tau([1, 2, 3], [1, 3, 2], variant=pd.NA)
    with pytest.raises(ValueError, match="`groups` mixes labels"):
        oe.clustered_bootstrap([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], groups=[1, "a", 2, "a"], n_boot=20, rng=0)
    with pytest.raises(ValueError, match="`groups` mixes labels"):
        oe.clustered_bootstrap([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], groups=pd.Series([1, "a", 2, "a"]),
                               n_boot=20, rng=0)
    with pytest.raises(ValueError, match="`metrics`"):
        oe.clustered_bootstrap([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], metrics=None, n_boot=20, rng=0)
