"""Numbers for people (``offline_eval.display``) and the results' one-line reprs.

The formatter's cases are those of issue 34, read off the report as it stood: a prediction's
"median -38.9241, 5-95% [-49.7584, -28.6439]" beside a printed "-9.96%", "3775592.00" beside "3,872,481",
counts printed as "11.00", a bootstrap p-value at its floor 2/1001.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import offline_eval as oe
from offline_eval import display
from offline_eval.display import (format_count, format_interval, format_number, format_percent, format_pvalue,
                                  reformat, significant_digits)


@pytest.mark.parametrize("printed, digits", [("-9.96%", 3), ("3,872,481", 7), ("0.0283", 3), ("0.50", 2),
                                             ("120", 3), ("0.8820", 4), ("96,890", 5), ("", 4), ("n/a", 4)])
def test_significant_digits_of_a_printed_value(printed, digits):
    assert significant_digits(printed) == digits


def test_the_issues_cases():
    # the prediction beside a printed -9.96%: three significant digits, compact, a percentage
    assert format_interval(-38.9241, -49.7584, -28.6439, digits=significant_digits("-9.96%"), unit="%") \
        == "-38.9% [-49.8, -28.6]"
    # beside a printed 3,872,481: seven digits, thousands separators, no ".00"
    assert format_number(3775592.00, significant_digits("3,872,481")) == "3,775,592"
    assert reformat("3775592.00", like="3,872,481") == "3,775,592"
    # counts as integers
    assert format_count(11.0) == "11" and reformat("11.00") == "11" and format_count(1234567) == "1,234,567"
    # percentages as percentages
    assert format_percent(0.4286) == "42.9%" and format_percent(42.8571, 4, scale=1) == "42.86%"
    # a bootstrap p-value at its floor 2/(B + 1), B = 1000: a bound
    assert format_pvalue(2 / 1001, floor=2 / 1001) == "< 0.002"
    assert format_pvalue(1 / 1000, n_resamples=999, alternative="one-sided") == "< 0.001"
    assert format_pvalue(0.0432) == "0.043" and format_pvalue(0.3) == "0.30"


def test_rounding_carries_and_signs():
    assert format_number(9.996, 3) == "10.0"
    assert format_number(-0.00004, 2) == "-4.0e-05"
    assert format_number(-0.0001, 1) == "-0.0001"
    assert format_number(-0.04, 1) == "-0.04" and format_number(-0.0004, 1) == "-0.0004"
    assert format_number(0.0, 3) == "0.00"
    assert format_number(float("nan")) == "nan" and format_number(-math.inf) == "-inf"
    assert format_interval(0.001, -0.5, 0.6) == "0.001 [-0.500, 0.600]"


def test_reformat_leaves_words_ranges_and_years_alone():
    text = "median -38.9241, 5-95% [-49.7584, -28.6439] over 20 seeds; main seed: -43.1573 (fig1, 2013)"
    assert reformat(text, like="-9.96%") == "median -38.9, 5-95% [-49.8, -28.6] over 20 seeds; main seed: -43.2 (fig1, 2013)"
    assert reformat("max |diff| 1.7e-16") == "max |diff| 1.7e-16"  # never more digits than written
    assert reformat("0.881958", like="0.8820") == "0.8820"


def test_the_module_is_public_and_documented():
    assert set(display.__all__) == {"format_count", "format_interval", "format_number", "format_percent",
                                    "format_pvalue", "reformat", "resampling_floor", "significant_digits"}
    assert all(getattr(display, n).__doc__ for n in display.__all__)


# -- every result's repr: one line, at most ~200 characters, with the interval's method and level --------------
RNG = np.random.default_rng(34)
Y = RNG.normal(size=300)
M = Y + RNG.normal(size=300)
CLICK = (RNG.random(300) < 0.4).astype(int)
SCORE = np.clip(0.4 + 0.2 * CLICK + 0.2 * RNG.normal(size=300), 0.01, 0.99)
LIMIT = 200


def _oam(kind):
    rng = np.random.default_rng(3)
    k = 41  # piovano Table II's class count: per-class arrays must not reach the repr
    truth = rng.integers(0, k, 2000)
    b = np.where(rng.random(2000) < 0.7, truth, rng.integers(0, k, 2000))
    c = np.where(rng.random(2000) < 0.8, truth, rng.integers(0, k, 2000))
    if kind == "ci":
        return oe.bootstrap_oam_accuracy(b, c, truth, b[:1000], c[:1000], n_boot=100, rng=4)
    return oe.online_adaptive_metrics(b, c, truth, b[:1000], c[:1000])


def _ab():
    from offline_eval.synth import search_world
    from offline_eval.synth.sponsored import make_world

    w = make_world(0, n_queries=30, n_candidates=4)
    return search_world.ab_test(w, (w.ctr, None), (w.ctr * 0.7, None), n_page_views=3000, rng=1)


RESULTS = {
    "AdaptiveMetrics": (lambda: _oam("metrics"), None),
    "ModelMetrics": (lambda: _oam("metrics").baseline, None),
    "AdaptiveAccuracyCI": (lambda: _oam("ci"), "95% percentile CI"),
    "BootstrapCI": (lambda: oe.bootstrap_ci(oe.roc_auc_score, CLICK, SCORE, n_boot=200, rng=0), "95% percentile CI"),
    "Influence": (lambda: oe.most_influential(Y, M, measure="tau"), None),
    "TauResult": (lambda: oe.kendall_tau_test(Y, M), "95% normal CI"),
    "RhoResult": (lambda: oe.spearman_rho_test(Y, M), "95% Fisher-z CI"),
    "BootstrapComparison": (lambda: oe.bootstrap_compare(Y, M, -M, measure="MAE", n_boot=200, rng=0),
                            "95% normal CI"),
    "CorrectPairsCurve": (lambda: oe.correct_pairs_curve(Y, M), None),
    "CutoffAUC": (lambda: oe.cutoff_auc(Y, M), None),
    "CumulativeRankCurve": (lambda: oe.cumulative_rank_curve(Y, M), None),
    "ABCorrelation": (lambda: oe.ab_test_correlation(RNG.normal(size=20), RNG.normal(size=20),
                                                     np.full(20, 0.1), rng=0), None),
    "ABTest": (lambda: _ab(), "95% normal CI"),
    "ClickYield": (lambda: _ab().control, "95% normal CI"),
    "NormalEstimate": (lambda: _ab().cy_delta, "95% normal CI"),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_repr_is_one_line_of_at_most_200_characters_with_the_intervals_method_and_level(name):
    factory, interval = RESULTS[name]
    text = repr(factory())
    assert "\n" not in text and len(text) <= LIMIT, f"{len(text)} characters: {text}"
    assert "array" not in text and "..." not in text, text
    if interval:
        assert interval in text, text


# -- issue 50: numbers shown as they are ----------------------------------------------------------------
def test_lists_codes_and_overflow_are_left_as_written():
    assert reformat("ids [1,2] and 10,20,30") == "ids [1,2] and 10,20,30"
    assert reformat("x = 1e999") == "x = 1e999" and reformat("x = 1e-999") == "x = 1e-999"
    assert reformat("codes 007, 00123 and 0.5,0.25") == "codes 007, 00123 and 0.5,0.25"
    assert reformat("1,234,567 rows of 1234567") == "1,234,567 rows of 1,234,567"


def test_integers_are_exact():
    assert format_count(2**64 + 1) == "18,446,744,073,709,551,617"
    assert format_number(2**53 + 1, 17) == "9,007,199,254,740,993"
    assert reformat("seed 12345678901234567891") == "seed 12,345,678,901,234,567,891"
    assert format_count(11.5) == "11.50"  # not a count: never rounded to one


@pytest.mark.parametrize("call, match", [
    (lambda: format_number(1.0, digits=10**9), "`digits` must be an integer in"),
    (lambda: format_number(1.0, digits=0), "`digits`"),
    (lambda: format_number("1.5"), "`x` must be a real number"),
    (lambda: format_number(True), "`x` must be a real number"),
    (lambda: format_interval(1, 0, 2, digits=None), "`digits`"),
    (lambda: format_interval(1, 0, 2, unit=None), "`unit`"),
    (lambda: format_percent(0.5, scale=0), "`scale`"),
    (lambda: format_pvalue(1.5), "`p` must be a p-value in"),
    (lambda: format_pvalue(-0.1), "`p` must be a p-value in"),
    (lambda: format_pvalue(0.5, floor=0), "`floor`"),
    (lambda: format_pvalue(0.5, n_resamples=0), "`n_resamples`"),
    (lambda: reformat(None), "`text` must be a string"),
    (lambda: reformat("1.5", digits=99), "`digits`"),
    (lambda: significant_digits("1.5", default=None), "`default`"),
])
def test_arguments_are_validated_by_name(call, match):
    with pytest.raises((ValueError, TypeError), match=match):
        call()


def _segment(rng):
    """One piece of text and what it is: a word, an integer, a decimal, a number in e-notation, a code, a
    list, or a number beyond float64."""
    kind = rng.choice(["word", "int", "dec", "sci", "code", "list", "huge", "grouped"])
    sign = "-" if rng.random() < 0.3 else ""
    if kind == "word":
        return kind, rng.choice(["seeds", "rows", "fig1", "x2", "median", "[", "]", "(n", "=", "p"])
    if kind == "int":
        return kind, sign + str(int(rng.integers(1, 10)) * 10 ** int(rng.integers(0, 25)) + int(rng.integers(0, 9)))
    if kind == "dec":
        return kind, sign + f"{rng.uniform(0, 10) * 10.0 ** int(rng.integers(-6, 16)):.{int(rng.integers(1, 9))}f}"
    if kind == "sci":
        return kind, sign + f"{rng.uniform(1, 10):.{int(rng.integers(0, 6))}f}e{int(rng.integers(-300, 300))}"
    if kind == "code":
        return kind, "0" + str(int(rng.integers(0, 10**6)))
    if kind == "list":
        return kind, ",".join(str(int(rng.integers(0, 10 ** int(rng.integers(1, 5))))) for _ in range(int(rng.integers(2, 5))))
    if kind == "huge":
        return kind, f"1e{int(rng.integers(309, 2000))}"
    return kind, sign + f"{int(rng.integers(1000, 10**12)):,d}"


def _half_unit(shown: str) -> float:
    """Half a unit of the last digit ``shown`` (a number as printed, separators and e-notation allowed)."""
    mantissa, _, exp = shown.lower().partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 0.5 * 10.0 ** (-decimals + (int(exp) if exp else 0))


@pytest.mark.slow
def test_reference_parse_back_what_it_prints():
    """Random texts of words and numbers: every word as it was, every integer, code, list and huge number
    character for character or (integers) value for value, every decimal within half a unit of its last
    shown digit."""
    rng = np.random.default_rng(50)
    checked = 0
    for _ in range(3000):
        segments = [_segment(rng) for _ in range(int(rng.integers(1, 8)))]
        digits = int(rng.integers(1, 18))
        out = reformat(" ".join(s for _, s in segments), digits=digits).split(" ")
        assert len(out) == len(segments)
        for (kind, before), after in zip(segments, out):
            checked += 1
            if kind in ("word", "code", "list", "huge"):
                assert after == before, (kind, before, after)
            elif kind in ("int", "grouped"):
                assert int(after.replace(",", "")) == int(before.replace(",", "")), (before, after)
            else:
                x, y = float(before), float(after.replace(",", ""))
                # the rounding step: the last digit shown, or (trailing zeros of a large number) the last
                # significant one at the digits asked for, never more than were written
                d = min(digits, significant_digits(before))
                top = max(abs(x), abs(y))
                step = _half_unit(after.replace(",", ""))
                if top > 0:
                    step = max(step, 0.5 * 10.0 ** (math.floor(math.log10(top)) + 1 - d))
                assert abs(x - y) <= step * (1 + 1e-9) + top * 4e-16, (before, after, digits)
                if "." not in after and "e" not in after and abs(x) < 10 ** (d - 1):
                    assert x == y  # shown in full without decimals only when it is whole
    assert checked > 10_000
