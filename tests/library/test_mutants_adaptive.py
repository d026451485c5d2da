"""Behaviour of `adaptive` that mutation testing found unchecked: the results' fields and reprs, the case with no
covered live mass, the warnings' and errors' texts, the bounds on the dense tables, the labels' checks and the
pandas alignment (`make mutation`; docs/mutation.md)."""

import math
import re
import tracemalloc
import warnings

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval.adaptive import (
    bootstrap_oam_accuracy,
    joint_distribution,
    metrics_from_joint,
    online_adaptive_metrics,
    reweighted_joint,
)

# The docstring's example: offline half the items are in the cell (B=0, C=1); live it holds 10% of the traffic.
B_O, C_O, G_O = [0, 0, 1, 0, 0, 1], [0, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]
B_L, C_L = [0] * 7 + [1] * 3, [0] * 6 + [1] * 4
GOOD = dict(hyp_b_offline=[0, 1], hyp_c_offline=[1, 1], truth_offline=[0, 1], hyp_b_live=[0, 1, 1],
            hyp_c_live=[0, 1, 1])


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        return fn(*args, **kwargs)


def call(**changes):
    return online_adaptive_metrics(**{**GOOD, **changes})


# -- the results' fields -------------------------------------------------------------------------
def test_offline_metrics_have_no_method_no_uncovered_mass_and_carry_their_classes():
    # the docstring: ``method`` is None and ``uncovered_mass`` 0; each model's bounds are then (A, A)
    r = metrics_from_joint(np.ones((2, 2, 2)))
    assert r.method is None and r.uncovered_mass == 0.0 and r.n_classes == 2 and r.classes.tolist() == [0, 1]
    for model in (r.baseline, r.candidate):
        assert model.accuracy == 0.5 and model.uncovered_mass == 0.0 and model.accuracy_bounds == (0.5, 0.5)
        assert model.classes.tolist() == [0, 1]


@pytest.mark.parametrize("method", ["joint", "independent"])
def test_adaptive_metrics_carry_their_method_and_classes(method):
    names = np.array(["cat", "dog"])
    r = online_adaptive_metrics(names[B_O], names[C_O], names[G_O], names[B_L], names[C_L], method=method)
    assert r.method == method and r.n_classes == 2 and r.classes.tolist() == ["cat", "dog"]
    assert r.baseline.classes.tolist() == ["cat", "dog"] and r.candidate.classes.tolist() == ["cat", "dog"]


def test_model_by_name():
    r = online_adaptive_metrics(B_O, C_O, G_O, B_L, C_L)
    assert r.model("baseline") is r.baseline and r.model("candidate") is r.candidate
    with pytest.raises(ValueError, match=r"^`name` must be one of \['baseline', 'candidate'\]; got 'live'$"):
        r.model("live")


# -- reprs: one line, numbers at 4 significant digits (short_repr) ------------------------------
def test_reprs_show_the_accuracies_the_uncovered_mass_and_the_bounds(project_warnings):
    r = online_adaptive_metrics(B_O, C_O, G_O, B_L, C_L)  # the docstring's example: 0.9 and 1
    assert repr(r) == ("AdaptiveMetrics(method='joint', baseline_accuracy=0.9, candidate_accuracy=1, "
                       "uncovered_mass=0, n_classes=2)")
    assert repr(r.baseline) == "ModelMetrics(accuracy=0.9, uncovered_mass=0, accuracy_bounds=(0.9, 0.9), n_classes=2)"
    # a quarter of the live items in the cell (0, 1), which no offline item covers: bounds (1 - 1/4, 1)
    r, _ = project_warnings(online_adaptive_metrics, [0, 1], [0, 1], [0, 1], [0, 1, 1, 1], [1, 1, 1, 1])
    assert repr(r.baseline) == ("ModelMetrics(accuracy=1, uncovered_mass=0.25, accuracy_bounds=(0.75, 1), "
                                "n_classes=2)")
    # offline metrics have no method: the field is left out
    assert repr(metrics_from_joint(np.ones((2, 2, 2)))) == (
        "AdaptiveMetrics(baseline_accuracy=0.5, candidate_accuracy=0.5, uncovered_mass=0, n_classes=2)")


def test_bootstrap_repr_shows_both_intervals():
    # the baseline is right on every item and the candidate wrong on every item: every resample gives 1 and 0
    ci = bootstrap_oam_accuracy([0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [0, 1], [1, 0], n_boot=20, rng=0)
    assert repr(ci) == ("AdaptiveAccuracyCI(n_boot=20, baseline 95% percentile CI [1, 1] around 1; "
                        "candidate [0, 0] around 0)")
    ci = bootstrap_oam_accuracy([0, 1, 1, 0], [1, 0, 0, 1], [0, 1, 1, 0], [0, 1], [1, 0], n_boot=20, rng=0, level=0.9)
    assert repr(ci).startswith("AdaptiveAccuracyCI(n_boot=20, baseline 90% percentile CI [1, 1] around 1;")


# -- no covered live mass ---------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["joint", "independent"])
def test_no_covered_live_mass_gives_nan_metrics_and_the_widest_bounds(method, project_warnings):
    # offline every item is (0, 0); live every item is (1, 1): nothing live can be re-weighted
    r, msgs = project_warnings(online_adaptive_metrics, [0, 0], [0, 0], [0, 0], [1, 1], [1, 1], n_classes=2,
                               method=method)
    assert msgs == [
        "no live mass of the baseline is covered by the offline set; every metric is nan",
        "no live mass of the candidate is covered by the offline set; every metric is nan",
        f"1 of the live mass falls in cells with no offline sample ({method} re-weighting); the metrics are "
        "estimated on the covered part of live traffic only",
    ]
    assert r.uncovered_mass == 1.0 and r.method == method and r.classes.tolist() == [0, 1]
    for model in (r.baseline, r.candidate):
        assert isinstance(model.accuracy, float) and math.isnan(model.accuracy)
        for values in (model.recall, model.precision):
            assert values.dtype == np.float64 and values.shape == (2,) and np.isnan(values).all()
        assert model.recall is not model.precision
        assert model.uncovered_mass == 1.0 and model.accuracy_bounds == (0.0, 1.0)
        assert model.classes.tolist() == [0, 1]


# -- the warnings' texts ---------------------------------------------------------------------------
def test_undefined_recall_and_precision_warnings_name_the_model_and_the_reason(project_warnings):
    # truth never class 1: both recalls of class 1 undefined; the candidate never predicts 1: its precision too
    r, msgs = project_warnings(metrics_from_joint, joint_distribution([0, 1], [0, 0], [0, 0]))
    assert msgs == [
        "recall of the baseline is undefined for 1 class (1): no mass with that true class; returning nan there",
        "recall of the candidate is undefined for 1 class (1): no mass with that true class; returning nan there",
        "precision of the candidate is undefined for 1 class (1): the model never predicts it; returning nan there",
    ]
    assert r.baseline.precision.tolist() == [1.0, 0.0]
    _, msgs = project_warnings(online_adaptive_metrics, [0, 1], [0, 1], [0, 0], [0, 1], [0, 1], method="independent")
    assert msgs == [
        "recall of the baseline is undefined for 1 class (1): no mass with that true class; returning nan there",
        "recall of the candidate is undefined for 1 class (1): no mass with that true class; returning nan there",
    ]


@pytest.mark.parametrize(("k", "shown"), [(10, "8 classes (2, 3, 4, 5, 6, 7, 8, 9)"),
                                          (11, "9 classes (2, 3, 4, 5, 6, 7, 8, 9, ...)")])
def test_an_undefined_warning_lists_at_most_eight_classes(k, shown, project_warnings):
    # classes 0 and 1 only, of K = 10 or 11: 8 or 9 classes with neither truth nor prediction
    m = joint_distribution([0, 1], [0, 1], [0, 1], n_classes=k)
    _, msgs = project_warnings(metrics_from_joint, m)
    assert msgs[0] == (f"recall of the baseline is undefined for {shown}: no mass with that true class; "
                       "returning nan there")


# -- label checks -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (dict(hyp_c_offline=[0.5, 1.0]),
         "`hyp_c_offline` must hold integer class codes 0..K-1; got 1 non-integer value (e.g. [0.5])"),
        (dict(hyp_c_offline=[0.5, 1.5]),
         "`hyp_c_offline` must hold integer class codes 0..K-1; got 2 non-integer values (e.g. [0.5, 1.5])"),
        (dict(hyp_b_live=[0.5, 1.5, 2.5, 3.5], hyp_c_live=[0, 1, 1, 1]),  # three shown of four
         "`hyp_b_live` must hold integer class codes 0..K-1; got 4 non-integer values (e.g. [0.5, 1.5, 2.5])"),
        (dict(hyp_b_live=[0, -1, 1]), "`hyp_b_live` must hold class codes 0..K-1; got 1 negative value (min -1)"),
        (dict(hyp_b_live=[-3, -1, 1]), "`hyp_b_live` must hold class codes 0..K-1; got 2 negative values (min -3)"),
        (dict(truth_offline=[2, 3], n_classes=2),
         "`truth_offline` must hold class codes 0..1 (n_classes=2); got 2 values >= 2 (max 3)"),
        # the code shown is the one given: 2**53 + 1 is not rounded to a float's 2**53
        (dict(hyp_b_offline=[0, 2**53 + 1]),
         "`hyp_b_offline` holds class code 9,007,199,254,740,993 for 2 items: the inferred K = 9,007,199,254,740,994 "
         "needs a dense table of 9,007,199,254,740,994^2 cells; pass codes 0..K-1 (e.g. from np.unique(labels, "
         "return_inverse=True)) or `n_classes`"),
        (dict(hyp_b_offline=np.array([0, 2**63], dtype=np.uint64)),
         "`hyp_b_offline` holds 1 value(s) outside the range of int64 [-9223372036854775808, 9223372036854775807] "
         "(e.g. [9223372036854775808]); they would wrap"),
    ],
)
def test_invalid_codes_are_described_exactly(changes, message):
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        call(**changes)


def test_codes_are_checked_as_codes_in_order_whatever_a_later_argument_holds():
    # a masked or a ragged argument is refused as codes are: it does not turn the others into labels, so the
    # first argument at fault (a fraction, which is a valid label but not a code) is the one named
    for later in (np.ma.masked_array([0, 1], mask=[False, True]), [[0], [1, 2]]):
        with pytest.raises(ValueError, match="^`hyp_b_offline` must hold integer class codes"):
            call(hyp_b_offline=[0, 0.5], hyp_c_offline=later)


def test_labels_of_different_types_name_each_arguments_types():
    with pytest.raises(ValueError) as err:
        call(hyp_b_live=["a", "b", "c"])
    assert re.fullmatch(r"class labels of different types cannot be sorted \(.*\): `hyp_b_offline` \['int'\], "
                        r"`hyp_c_offline` \['int'\], `truth_offline` \['int'\], `hyp_b_live` \['str'\], "
                        r"`hyp_c_live` \['int'\]; pass `classes`, the labels in the order you want, or labels of "
                        r"one type", str(err.value))


def test_classes_are_kept_as_given():
    ab = dict(hyp_b_offline=["a", "b"], hyp_c_offline=["b", "b"], truth_offline=["a", "b"], hyp_b_live=["a", "b"],
              hyp_c_live=["a", "b"])
    # an int beside strings stays an int (numpy would make it the string "1"), and an unused class counts
    r = quiet(online_adaptive_metrics, **ab, classes=["a", "b", 1])
    assert r.classes.tolist() == ["a", "b", 1] and r.n_classes == 3 and r.baseline.recall.shape == (3,)
    # one class is a valid list of classes
    one = online_adaptive_metrics(["a"], ["a"], ["a"], ["a"], ["a"], classes=["a"])
    assert one.n_classes == 1 and one.baseline.accuracy == 1.0
    with pytest.raises(ValueError, match=r"^`classes` must be a non-empty list of labels; got \[\]$"):
        online_adaptive_metrics(**ab, classes=[])
    # at most five of the labels missing from `classes` are shown, sorted
    seven = list("gfedcba")
    with pytest.raises(ValueError, match=re.escape("""`hyp_b_offline` holds labels not in `classes`: ["'a'", "'b'", """
                                                   """"'c'", "'d'", "'e'"]""") + "$"):
        online_adaptive_metrics(seven, seven, seven, seven, seven, classes=["z"])
    # `n_classes` beside labels: checked against their number
    with pytest.raises(ValueError, match=r"^`n_classes` = 3 disagrees with the 2 class labels$"):
        online_adaptive_metrics(**ab, n_classes=3)


def test_an_unhashable_label_is_shown_by_its_type_and_the_first_60_characters_of_its_repr():
    labels = np.empty(2, dtype=object)
    labels[0], labels[1] = list(range(40)), [1]
    with pytest.raises(TypeError) as err:
        call(hyp_b_offline=labels, hyp_c_offline=["x", "y"], truth_offline=["x", "y"], hyp_b_live=["x", "y"],
             hyp_c_live=["x", "y"])
    assert str(err.value) == ("`hyp_b_offline` must hold hashable labels (numbers, strings, tuples, ...); got a list: "
                              + repr(list(range(40)))[:60])


# -- joint_distribution: classes, n_classes, normalize -------------------------------------------------
def test_joint_distribution_follows_classes_and_checks_n_classes_against_labels():
    # axes in the order of `classes`: dog, cat
    got = joint_distribution(["cat", "cat", "dog"], ["cat", "dog", "dog"], normalize=False, classes=["dog", "cat"])
    np.testing.assert_array_equal(got, [[1, 0], [1, 1]])
    assert joint_distribution(["a", "b"], ["b", "a"], classes=["a", "b", "c"]).shape == (3, 3)  # "c" unused
    np.testing.assert_array_equal(joint_distribution(["a", "b"], ["b", "a"], n_classes=2), [[0, 0.5], [0.5, 0]])
    np.testing.assert_array_equal(joint_distribution(["a"], ["a"], n_classes=1), [[1.0]])
    with pytest.raises(ValueError, match=r"^`n_classes` = 3 disagrees with the 2 class labels$"):
        joint_distribution(["a", "b"], ["b", "a"], n_classes=3)
    with pytest.raises(ValueError, match=r"^`n_classes` must be a positive integer; got 0$"):
        joint_distribution(["a", "b"], ["b", "a"], n_classes=0)
    with pytest.raises(TypeError, match=r"^`normalize` must be True or False; got 'yes'$"):
        joint_distribution([0, 1], [0, 1], normalize="yes")


def test_the_inferred_table_is_bounded_by_its_own_dimension():
    # K = 301: 301^2 = 90,601 cells are allowed, 301^3 = 27,270,901 are more than 10**7
    assert joint_distribution([0, 300], [0, 1]).shape == (301, 301)
    r = quiet(online_adaptive_metrics, [0, 300], [0, 300], [0, 300], [0, 300], [0, 300])  # a K x K table
    assert r.n_classes == 301 and r.baseline.accuracy == 1.0
    with pytest.raises(ValueError, match=r"^`hyp_c` holds class code 300 for 2 items: the inferred K = 301 needs a "
                                         r"dense table of 301\^3 cells;"):
        joint_distribution([0, 1], [0, 300], [0, 1])  # the top code is in hyp_c, neither first nor last
    with pytest.raises(ValueError, match=r"^`n_classes` = 301 makes a dense table of 301\^3 cells for 2 items, more "
                                         r"than the bound max\(10,000,000, 64 x items\); relabel the classes present "
                                         r"with np\.unique\(labels, return_inverse=True\)$"):
        joint_distribution([0, 1], [0, 1], [0, 1], n_classes=301)


def test_the_table_bound_is_64_cells_per_item_beyond_ten_million():
    # n = 54^3 = 157,464 items: 64 n = 216^3 = 10,077,696 cells, above 10**7. K = 216 is exactly at the bound
    # (allowed), K = 217 above it (217^3 = 10,218,313, refused), inferred or given
    n = 54**3
    b = np.zeros(n, dtype=np.int64)
    top = b.copy()
    top[-1] = 215
    assert joint_distribution(top, b, b, normalize=False).shape == (216, 216, 216)
    assert joint_distribution(b, b, b, n_classes=216, normalize=False).sum() == n
    top[-1] = 216
    with pytest.raises(ValueError, match=r"^`hyp_b` holds class code 216 for 157,464 items: the inferred K = 217"):
        joint_distribution(top, b, b, normalize=False)
    with pytest.raises(ValueError, match=r"^`n_classes` = 217 makes a dense table of 217\^3 cells for 157,464 items"):
        joint_distribution(b, b, b, n_classes=217, normalize=False)


# -- many classes: the sparse count of (B, C, G) ------------------------------------------------------
def test_many_classes_are_counted_in_memory_of_order_k_squared():
    # K = 300: K^3 = 27,000,000 combinations (216 MB as int64) are never built; the K x K tables are 0.7 MB
    tracemalloc.start()
    try:
        r = quiet(online_adaptive_metrics, [0, 1], [0, 1], [0, 1], [0, 1], [0, 1], n_classes=300)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    # classes 2..299 never occur: their recall is nan, classes 0 and 1 are right
    assert r.baseline.recall.shape == (300,) and r.baseline.recall[:2].tolist() == [1.0, 1.0]
    assert np.isnan(r.baseline.recall[2:]).all() and r.baseline.accuracy == 1.0


def test_the_top_class_may_be_absent_from_the_truth_of_many_classes():
    # K = 130 (130^3 > 2^21): no item of true class 129, which the models do predict
    r = quiet(online_adaptive_metrics, [0, 129], [0, 129], [0, 1], [0, 129], [0, 129], n_classes=130)
    assert r.baseline.accuracy == 0.5 and r.baseline.recall[0] == 1.0 and r.baseline.recall[1] == 0.0
    assert np.isnan(r.baseline.recall[129]) and r.baseline.precision[129] == 0.0


# -- the tensors' checks ----------------------------------------------------------------------------
def test_tensors_are_checked_by_name():
    with pytest.raises(ValueError, match=r"^`m_bcg` must have positive total mass; got 0$"):
        metrics_from_joint(np.zeros((2, 2, 2)))
    with pytest.raises(ValueError, match=r"^`m_bcg` must be a K x K x K array; got shape \(2, 3, 2\)$"):
        metrics_from_joint(np.ones((2, 3, 2)))
    with pytest.raises(ValueError, match=r"^`m_bcg` must hold numbers; got dtype <U1$"):
        metrics_from_joint(np.full((2, 2, 2), "a"))
    with pytest.raises(ValueError, match=r"^`m_bcg_offline` must be a K x K x K array; got shape \(2, 2\)$"):
        reweighted_joint(np.ones((2, 2)), np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"^`m_bc_live` must be a K x K array; got shape \(2, 3\)$"):
        reweighted_joint(np.ones((2, 2, 2)), np.ones((2, 3)))


def test_one_class_is_a_valid_tensor():
    r = metrics_from_joint([[[3.0]]])
    assert r.baseline.accuracy == 1.0 and r.baseline.recall.tolist() == [1.0]
    assert r.candidate.precision.tolist() == [1.0]
    w, unc = reweighted_joint([[[3.0]]], [[2.0]])
    assert w.tolist() == [[[1.0]]] and unc.tolist() == [[False]]


# -- pandas inputs: aligned by index or refused ------------------------------------------------------
@pytest.mark.parametrize(("shifted", "pair"), [("hyp_b", "`hyp_b` and `hyp_c`"), ("hyp_c", "`hyp_b` and `hyp_c`"),
                                               ("truth", "`hyp_b` and `truth`")])
def test_joint_distribution_refuses_misaligned_series(shifted, pair):
    args = {name: pd.Series([0, 1, 1]) for name in ("hyp_b", "hyp_c", "truth")}
    args[shifted] = pd.Series([0, 1, 1], index=[2, 1, 0])
    with pytest.raises(ValueError, match=f"^{pair} are pandas objects with different indexes"):
        joint_distribution(**args)


@pytest.mark.parametrize(("shifted", "pair"), [
    ("hyp_b_offline", "`hyp_b_offline` and `hyp_c_offline`"), ("hyp_c_offline", "`hyp_b_offline` and `hyp_c_offline`"),
    ("truth_offline", "`hyp_b_offline` and `truth_offline`"), ("hyp_b_live", "`hyp_b_live` and `hyp_c_live`"),
    ("hyp_c_live", "`hyp_b_live` and `hyp_c_live`")])
def test_online_adaptive_metrics_refuses_misaligned_series(shifted, pair):
    args = {name: pd.Series([0, 1, 1]) for name in GOOD}
    args[shifted] = pd.Series([0, 1, 1], index=[2, 1, 0])
    with pytest.raises(ValueError, match=f"^{pair} are pandas objects with different indexes"):
        online_adaptive_metrics(**args)


# -- the bootstrap's encoding ------------------------------------------------------------------------
@pytest.mark.parametrize("method", ["joint", "independent"])
def test_bootstrap_of_integer_labels_as_objects_equals_that_of_codes(method):
    # the same classes 0..19 (eight of them present) as int codes or as Python ints in object arrays with
    # `classes` = 0..19: the same codes, hence the same resamples to the last bit (a relabelling of the classes
    # present would move the absent classes' zeros within the sums, and change their rounding)
    rng = np.random.default_rng(3)
    present = np.array([0, 3, 4, 7, 9, 12, 15, 19])
    g = present[rng.integers(0, 8, 60)]
    b = np.where(rng.random(60) < 0.6, g, present[rng.integers(0, 8, 60)])
    c = np.where(rng.random(60) < 0.7, g, present[rng.integers(0, 8, 60)])
    b_l = present[rng.integers(0, 8, 200)]
    c_l = np.where(rng.random(200) < 0.5, b_l, present[rng.integers(0, 8, 200)])
    codes = quiet(bootstrap_oam_accuracy, b, c, g, b_l, c_l, n_classes=20, method=method, n_boot=50, rng=5)
    objects = quiet(bootstrap_oam_accuracy, *(np.array(a.tolist(), dtype=object) for a in (b, c, g, b_l, c_l)),
                    classes=list(range(20)), method=method, n_boot=50, rng=5)
    for model in ("baseline", "candidate"):
        np.testing.assert_array_equal(getattr(objects, model).replicates, getattr(codes, model).replicates)
