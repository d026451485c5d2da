"""Behaviour of the in-memory AUC engine (`_metrics_roc`, `_sorting.sorted_order`) that mutation testing found
unchecked (`make mutation`; docs/mutation.md): the sort of scores over a wide range, where rows share their kept high
bits but differ below them, of -0.0, of float32, of short inputs (its speed is `make bench`'s, not a test's); pandas
inputs' alignment; `pos_label`; the ROC curve's zero-weight rows, one-class rates and sums over ties; the weighted
AUC's clamp; the one-vs-rest AUC's weights, absent classes and warnings; the multiclass errors and row-sum
tolerance."""

import warnings

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score as sk_roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from offline_eval import OfflineEvalWarning
from offline_eval._sorting import sorted_order
from offline_eval.metrics import roc_auc_score, roc_auc_score_from_counts, roc_curve, roc_curve_from_counts


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


def test_sorted_order_of_short_float32_and_unkeyworded_inputs():
    # the default returns the order alone; empty and one-row inputs; float32 scores are floats too (their sort
    # is float64's: every float32 is a float64)
    np.testing.assert_array_equal(sorted_order([0.5, -1.0, 0.5, 2.0]), [1, 0, 2, 3])
    assert sorted_order(np.array([])).tolist() == []
    assert sorted_order([7.0]).tolist() == [0]
    s32 = np.random.default_rng(0).normal(size=500).astype(np.float32)
    s32[::7] = s32[0]  # ties
    order, values = sorted_order(s32, with_values=True)
    np.testing.assert_array_equal(order, np.argsort(s32, kind="stable"))
    np.testing.assert_array_equal(values, np.sort(s32.astype(np.float64)))


def test_weighted_auc_of_separated_classes_is_exactly_one_or_zero():
    # every positive outscores every negative: the AUC is 1 (and 0 reversed), whatever rounding the sums take;
    # with these weights the negatives' cumulative sum exceeds their total in the last bit, and the raw ratio of
    # the sums is 1 + 2**-52
    y = np.r_[np.ones(4, int), np.zeros(4, int)]
    s = np.r_[10.0, 11.0, 12.0, 13.0, 0.0, 1.0, 2.0, 3.0]
    w = np.random.default_rng(5).uniform(0.1, 1.0, 8)
    assert roc_auc_score(y, s, sample_weight=w) == 1.0
    assert roc_auc_score(y, -s, sample_weight=w) == 0.0


@pytest.mark.parametrize("fn", [roc_auc_score, roc_curve])
def test_misaligned_pandas_inputs_are_refused_naming_them(fn):
    pd = pytest.importorskip("pandas")
    y = pd.Series([0, 1, 0, 1], index=[0, 1, 2, 3])
    s = pd.Series([0.1, 0.9, 0.4, 0.3], index=[3, 2, 1, 0])
    w = pd.Series([1.0, 2.0, 1.0, 1.0], index=[1, 0, 2, 3])
    with pytest.raises(ValueError, match=r"`y_true` and `y_score` are pandas objects with different indexes"):
        fn(y, s)
    with pytest.raises(ValueError, match=r"`y_true` and `sample_weight` are pandas objects with different"):
        fn(y, s.set_axis(y.index), sample_weight=w)
    # aligned, they are read by position: positive 0.9 (weight 2) beats both negatives, positive 0.3 only 0.1,
    # of a total weight 3 x 2
    fpr, tpr, _ = roc_curve(y, s.set_axis(y.index), sample_weight=w.set_axis(y.index))
    assert fpr.tolist() == [0.0, 0.0, 0.5, 0.5, 1.0] and tpr.tolist() == [0.0, 2 / 3, 2 / 3, 1.0, 1.0]
    assert roc_auc_score(y, s.set_axis(y.index), sample_weight=w.set_axis(y.index)) == pytest.approx(5 / 6, abs=1e-15)


def test_misaligned_pandas_counts_are_refused_naming_them():
    pd = pytest.importorskip("pandas")
    pos = pd.Series([3, 1], index=["a", "b"])
    neg = pd.Series([1, 3], index=["b", "a"])
    for fn in (roc_auc_score_from_counts, roc_curve_from_counts):
        with pytest.raises(ValueError, match=r"`positives` and `negatives` are pandas objects with different"):
            fn(pos, neg)
    assert roc_auc_score_from_counts(pos, neg.set_axis(pos.index)) == 0.75


def test_pos_label_picks_the_positives():
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.9, 0.4, 0.3, 0.6, 0.2])
    labels = np.where(y == 1, "yes", "no")
    a = roc_auc_score(y, s)
    assert a == 8 / 9  # positives 0.9 and 0.6 beat the three negatives, 0.3 beats 0.1 and 0.2
    assert roc_auc_score(labels, s, pos_label="yes") == a
    assert roc_auc_score(labels, s, pos_label="no") == 1 / 9
    assert roc_auc_score(y, s, pos_label=0) == 1 / 9
    for got, want in zip(roc_curve(labels, s, pos_label="yes"), roc_curve(y, s)):
        np.testing.assert_array_equal(got, want)
    for got, want in zip(roc_curve(y, s, pos_label=0), roc_curve(1 - y, s)):
        np.testing.assert_array_equal(got, want)


def test_roc_curve_zero_weight_rows_add_no_threshold():
    # as scikit-learn: rows of weight 0 are dropped, their scores are no thresholds (here 0.35 and 0.95)
    y = np.array([0, 1, 1, 0, 1, 0, 1])
    s = np.array([0.1, 0.35, 0.8, 0.4, 0.95, 0.2, 0.6])
    w = np.array([1.0, 0.0, 3.0, 0.5, 0.0, 2.0, 1.0])
    fpr, tpr, thr = roc_curve(y, s, sample_weight=w)
    np.testing.assert_array_equal(thr, [np.inf, 0.8, 0.6, 0.4, 0.2, 0.1])
    np.testing.assert_array_equal(tpr, [0.0, 0.75, 1.0, 1.0, 1.0, 1.0])
    np.testing.assert_array_equal(fpr, [0.0, 0.0, 0.0, 0.5 / 3.5, 2.5 / 3.5, 1.0])
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_array_equal(thr[1:], sk_thr[1:])
    np.testing.assert_allclose(fpr, sk_fpr, rtol=0, atol=1e-15)
    np.testing.assert_allclose(tpr, sk_tpr, rtol=0, atol=1e-15)


def test_roc_curve_of_one_positive_and_one_negative_is_defined():
    # each class totals 1: both present, no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", OfflineEvalWarning)
        for w in (None, [1.0, 1.0], [2.0, 2.0]):
            fpr, tpr, thr = roc_curve([0, 1], [0.2, 0.7], sample_weight=w)
            assert fpr.tolist() == [0.0, 0.0, 1.0] and tpr.tolist() == [0.0, 1.0, 1.0]
        fpr, tpr = roc_curve_from_counts([1, 1], [1, 1])  # scaled to halves: each class totals 1
        assert fpr.tolist() == [0.0, 0.5, 1.0] and tpr.tolist() == [0.0, 0.5, 1.0]


@pytest.mark.parametrize("case", ["no negative", "no positive", "zero weights", "counts"])
def test_roc_curve_of_one_class_has_nan_rates_with_a_warning(case):
    calls = {
        "no negative": lambda: roc_curve([1, 1, 1], [0.1, 0.2, 0.3]),
        "no positive": lambda: roc_curve([0, 0, 0], [0.1, 0.2, 0.3]),
        "zero weights": lambda: roc_curve([0, 1, 1, 1], [0.9, 0.1, 0.2, 0.3], sample_weight=[0.0, 1.0, 1.0, 2.0]),
        "counts": lambda: roc_curve_from_counts([0, 0, 0], [1, 2, 1]),
    }
    with pytest.warns(OfflineEvalWarning, match=r"ROC is undefined with only one class present"):
        curve = calls[case]()
    fpr, tpr = curve[:2]
    assert fpr.shape == tpr.shape == (4,)
    rates = {"no negative": (fpr, tpr, [0.0, 1 / 3, 2 / 3, 1.0]),
             "no positive": (tpr, fpr, [0.0, 1 / 3, 2 / 3, 1.0]),
             "zero weights": (fpr, tpr, [0.0, 0.5, 0.75, 1.0]),
             "counts": (tpr, fpr, [0.0, 0.25, 0.75, 1.0])}
    undefined, defined, want = rates[case]
    assert np.isnan(undefined).all()
    np.testing.assert_allclose(defined, want, rtol=0, atol=1e-15)


def test_roc_curve_sums_tied_rows_in_row_order():
    # within a group of tied scores, numpy's default sort may put rows in any order (and another on another
    # machine), which moves the last bits of a weighted sum; the curve sums the rows by decreasing score and,
    # among ties, in row order: the same bits everywhere, those of this loop
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    s = rng.integers(0, 20, 400).astype(float)
    w = rng.exponential(size=400)
    fpr, tpr, thr = roc_curve(y, s, sample_weight=w)
    tp = fp = 0.0
    tps, fps = [0.0], [0.0]
    rows = sorted(range(400), key=lambda i: (-s[i], i))
    for k, i in enumerate(rows):
        tp, fp = (tp + w[i], fp) if y[i] == 1 else (tp, fp + w[i])
        if k == 399 or s[rows[k + 1]] != s[i]:
            tps.append(tp)
            fps.append(fp)
    scale = 2.0 ** -np.frexp(w.max())[1]  # the weights' power-of-two scale: exact, changes no ratio's bits
    np.testing.assert_array_equal(tpr, np.array(tps) * scale / (tp * scale))
    np.testing.assert_array_equal(fpr, np.array(fps) * scale / (fp * scale))


def neighbours(x, k=4):
    """``k`` neighbouring floats from ``x`` up, in decreasing order: rows in the reverse of their scores' order."""
    out = [x]
    for _ in range(k - 1):
        out.append(np.nextafter(out[-1], np.inf))
    return np.array(out[::-1])


@pytest.mark.parametrize("where", [["bottom"], ["middle"], ["top"], ["bottom", "middle", "top"]])
def test_sorted_order_puts_rows_sharing_their_kept_bits_in_score_order(where):
    # scores spread over +-1e300 leave room for 1000 positions only by dropping the keys' low bits, so four
    # neighbouring floats share their kept bits; placed in reverse order (no two equal), they must be reordered
    # by score, whether they are the lowest scores, in the middle or the highest, one group or several
    s = np.random.default_rng(1).uniform(-1e300, 1e300, 1000)
    for i, x in enumerate(where):
        s[10 * (i + 1):10 * (i + 1) + 4] = neighbours({"bottom": -1e301, "middle": 1.0, "top": 1e301}[x])
    order, values = sorted_order(s, with_values=True)
    np.testing.assert_array_equal(order, np.argsort(s, kind="stable"))
    np.testing.assert_array_equal(values, np.sort(s))


@pytest.mark.parametrize("s", [[0.0, -0.0, 1e-300, -0.0, 0.0], [0.0, -0.0, -1e-300, -0.0, 0.0],
                               [0.0, -0.0, 1e-300, -1e-300, -0.0, 0.0]])
def test_sorted_order_ties_negative_zero_with_zero(s):
    # -0.0 == 0.0: tied, so in row order (scores this close keep every bit of their keys)
    np.testing.assert_array_equal(sorted_order(np.array(s)), np.argsort(s, kind="stable"))


P4 = np.array([[0.6, 0.3, 0.1], [0.3, 0.2, 0.5], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4]])


@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
def test_one_vs_rest_unit_weights_are_no_weights(average):
    # weights of 1 scale to 1/2: class 0's two rows weigh 1 in all, as do the two rows of the rest
    y = [0, 0, 1, 2]
    got = roc_auc_score(y, P4, multi_class="ovr", average=average, sample_weight=np.ones(4))
    want = roc_auc_score(y, P4, multi_class="ovr", average=average)
    np.testing.assert_array_equal(got, want)
    if average is None:  # by hand: class 0's 0.6 beats 0.2 and 0.3, its 0.3 beats 0.2 and ties 0.3: 3.5 / 4;
        # class 1's 0.5 tops its column; class 2's 0.4 beats 0.1 and 0.3, not 0.5
        np.testing.assert_array_equal(got, [0.875, 1.0, 2 / 3])


def test_one_vs_rest_class_of_zero_weight_is_undefined_and_drops_out_of_the_weighted_average():
    y = np.array([0, 1, 2, 2, 1, 0])
    p = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.3, 0.4], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3],
                  [0.4, 0.4, 0.2]])
    w = np.array([1.0, 2.0, 0.0, 0.0, 1.0, 3.0])
    per_class = [roc_auc_score(y == c, p[:, c], sample_weight=w) for c in (0, 1)]
    with pytest.warns(OfflineEvalWarning, match=r"one-vs-rest AUC is undefined for class\(es\) \[2\]"):
        aucs = roc_auc_score(y, p, multi_class="ovr", average=None, sample_weight=w)
    np.testing.assert_array_equal(aucs[:2], per_class)
    assert np.isnan(aucs[2])
    weighted = roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w)
    assert weighted == pytest.approx((4 * per_class[0] + 3 * per_class[1]) / 7, rel=1e-15, abs=0)


def test_one_vs_rest_weighted_average_with_the_last_class_absent():
    # class 2 (the last column) has no row: its weight is 0 and it drops out, as scikit-learn does
    y = np.array([0, 1, 1, 0, 1])
    p = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.5, 0.4, 0.1], [0.3, 0.3, 0.4], [0.3, 0.5, 0.2]])
    # by hand: class 0's rows score 0.7 and 0.3 in column 0 against 0.2, 0.5, 0.3: (3 + 1 + 0.5) / 6; class 1's
    # rows score 0.6, 0.4, 0.5 against 0.2, 0.3: 6 / 6; weighted 2 : 3
    want = (2 * 4.5 / 6 + 3 * 1.0) / 5
    got = roc_auc_score(y, p, multi_class="ovr", average="weighted", labels=[0, 1, 2])
    assert got == pytest.approx(want, rel=1e-15, abs=0)
    with pytest.warns(Warning):
        assert got == pytest.approx(sk_roc_auc_score(y, p, multi_class="ovr", average="weighted", labels=[0, 1, 2]),
                                    rel=1e-15, abs=0)


@pytest.mark.parametrize("w", [None, [1.0, 0.25, 0.25]])
def test_one_vs_rest_weighted_average_of_one_class_present_is_nan_with_a_warning(w):
    # every row is of class 0 (of weight 1, or 3/4 once scaled): its AUC is undefined; classes 1 and 2 have no
    # row, weigh 0 and drop out, so the average is that undefined AUC
    y, p = [0] * (1 if w is None else 3), [[0.5, 0.25, 0.25]] * (1 if w is None else 3)
    with pytest.warns(OfflineEvalWarning, match=r"undefined for class\(es\) \[0\] .*the weighted average is nan"):
        assert np.isnan(roc_auc_score(y, p, multi_class="ovr", average="weighted", labels=[0, 1, 2],
                                      sample_weight=w))


@pytest.mark.parametrize("average, says", [(None, "the per-class AUCs hold nan there"),
                                           ("macro", "the macro average is nan")])
def test_one_vs_rest_undefined_warning_says_what_is_nan(average, says):
    y, p = [0, 2, 0, 2], [[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]]
    with pytest.warns(OfflineEvalWarning, match=rf"undefined for class\(es\) \[1\] \(a class with no row, or every "
                                                rf"row of that class\); {says}$"):
        roc_auc_score(y, p, multi_class="ovr", average=average, labels=[0, 1, 2])


P3 = np.array([[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])


@pytest.mark.parametrize("bad, error, match", [
    (np.ma.masked_array(P3, mask=False), TypeError, r"^`y_score` is a masked array, whose mask would be ignored"),
    ([[0.5, 0.5, 0.0], [0.2, 0.8], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]], ValueError, r"^`y_score` is ragged"),
    (P3[:, 1], ValueError, r"^`y_score` must be a probability matrix of shape \(n_samples, n_classes\) with "
                           r"`multi_class`='ovr'; got shape \(4,\)$"),
])
def test_multiclass_y_score_errors_name_it_and_its_shape(bad, error, match):
    with pytest.raises(error, match=match):
        roc_auc_score([0, 1, 2, 1], bad, multi_class="ovr")


@pytest.mark.parametrize("bad, error, match", [
    (np.ma.masked_array([0.1, 0.7, 0.4], mask=False), TypeError, r"^`y_score` is a masked array"),
    ([[0.1, 0.9], [0.7], [0.4, 0.6]], ValueError, r"^`y_score` is ragged"),
])
def test_binary_y_score_errors_name_it(bad, error, match):
    with pytest.raises(error, match=match):
        roc_auc_score([0, 1, 0], bad)


def test_labels_with_a_binary_auc_point_to_pos_label():
    with pytest.raises(ValueError, match=r"^`labels` names the columns of a probability matrix `y_score` \(with "
                                         r"`multi_class`\); for a binary AUC of two labels pass `pos_label`, the "
                                         r"label of the positives$"):
        roc_auc_score(["a", "b", "a"], [0.1, 0.7, 0.4], labels=["a", "b"])


def test_one_vs_one_refuses_weights_saying_why():
    with pytest.raises(ValueError, match=r"^`sample_weight` is not supported with multi_class='ovo' \(Hand and Till's "
                                         r"pairs are unweighted, as in scikit-learn\); use multi_class='ovr'$"):
        roc_auc_score([0, 1, 2, 1], P3, multi_class="ovo", sample_weight=[1, 1, 1, 1])


@pytest.mark.parametrize("d, ok", [(1.0005e-5, True), (1.0015e-5, False), (-1.0005e-5, True), (-1.0015e-5, False)])
def test_row_sums_within_scikit_learns_allclose_tolerance(d, ok):
    # np.allclose(1, sum): |sum - 1| <= 1e-8 + 1e-5 * |sum|; a row 1.0005e-5 off is within it only by the 1e-8
    p = P3.copy()
    p[0, 0] += d
    for multi_class in ("ovr", "ovo"):
        if ok:
            assert roc_auc_score([0, 1, 2, 1], p, multi_class=multi_class) == pytest.approx(
                sk_roc_auc_score([0, 1, 2, 1], p, multi_class=multi_class), rel=1e-15, abs=0)
        else:
            with pytest.raises(ValueError, match=r"`y_score` must be a probability matrix whose rows sum to 1"):
                roc_auc_score([0, 1, 2, 1], p, multi_class=multi_class)
            with pytest.raises(ValueError):
                sk_roc_auc_score([0, 1, 2, 1], p, multi_class=multi_class)


def test_misaligned_pandas_inputs_of_the_multiclass_auc_are_refused_naming_them():
    pd = pytest.importorskip("pandas")
    y = pd.Series([0, 1, 2, 1], index=[0, 1, 2, 3])
    p = pd.DataFrame(P3, index=[3, 2, 1, 0])
    w = pd.Series([1.0, 2.0, 1.0, 1.0], index=[1, 0, 2, 3])
    with pytest.raises(ValueError, match=r"`y_true` and `y_score` are pandas objects with different indexes"):
        roc_auc_score(y, p, multi_class="ovr")
    with pytest.raises(ValueError, match=r"`y_true` and `sample_weight` are pandas objects with different indexes"):
        roc_auc_score(y, p.set_axis(y.index), multi_class="ovr", sample_weight=w)
    aligned = roc_auc_score(y, p.set_axis(y.index), multi_class="ovr")
    assert aligned == roc_auc_score([0, 1, 2, 1], P3, multi_class="ovr")
