"""The multiclass AUC (one-vs-rest, one-vs-one) and the log loss of a probability matrix on random inputs: against a
slow, obviously right reference written here (every pair of rows counted, ties one half) and against scikit-learn;
their identities (two classes are the binary metric, a zero weight drops the row, relabelling the classes with their
columns changes nothing); the invalid inputs refused by name and the undefined ones ``nan`` with a warning; and the
binary-only functions, given three classes, pointing to the multiclass form rather than to ``pos_label``."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from offline_eval import OfflineEvalWarning
from offline_eval.metrics import log_loss, rig_score, roc_auc_score, roc_curve


# -- slow references -------------------------------------------------------------------------------------------

def pairs_auc(pos_scores, neg_scores, pos_w=None, neg_w=None):
    """Every (positive, negative) pair: 1 when the positive scores higher, 1/2 on a tie, by the pair's weight."""
    pos_w = np.ones(len(pos_scores)) if pos_w is None else pos_w
    neg_w = np.ones(len(neg_scores)) if neg_w is None else neg_w
    num = den = 0.0
    for sp, wp in zip(pos_scores, pos_w):
        for sn, wn in zip(neg_scores, neg_w):
            den += wp * wn
            num += wp * wn * (1.0 if sp > sn else 0.5 if sp == sn else 0.0)
    return num / den if den > 0 else float("nan")


def ovr_reference(y, p, classes, average, w=None):
    """One-vs-rest by its definition: each class's rows against the others', scored by that class's column."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    aucs, support = [], []
    for j, c in enumerate(classes):
        pos = np.asarray([v == c for v in y])
        aucs.append(pairs_auc(p[pos, j], p[~pos, j], w[pos], w[~pos]))
        support.append(w[pos].sum())
    if average == "macro":
        return sum(aucs) / len(aucs)
    return sum(a * s for a, s in zip(aucs, support) if s > 0) / sum(support)


def ovo_reference(y, p, classes, average):
    """Hand and Till by its definition: each pair of present classes, both directions, averaged."""
    y = np.asarray(y, dtype=object)
    present = [j for j, c in enumerate(classes) if any(v == c for v in y)]
    scores, shares = [], []
    for a, b in itertools.combinations(present, 2):
        in_a = np.asarray([v == classes[a] for v in y])
        in_b = np.asarray([v == classes[b] for v in y])
        a_b = pairs_auc(p[in_a, a], p[in_b, a])
        b_a = pairs_auc(p[in_b, b], p[in_a, b])
        scores.append((a_b + b_a) / 2)
        shares.append((in_a.sum() + in_b.sum()) / len(y))
    if average == "macro":
        return sum(scores) / len(scores)
    return sum(s * q for s, q in zip(scores, shares)) / sum(shares)


def log_loss_reference(y, p, classes, w=None):
    """Minus the log of each row's probability of its own class, clipped as the library's default (1e-15)."""
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    losses = [-math.log(min(max(p[i, list(classes).index(v)], 1e-15), 1 - 1e-15)) for i, v in enumerate(y)]
    return math.fsum(wi * li for wi, li in zip(w, losses)) / math.fsum(w)


# -- random inputs -------------------------------------------------------------------------------------------------

def draw(rng, n, k, *, levels=None, labels=None):
    """n rows of k classes: labels (every class present), a probability matrix (``levels``: rows built of a few
    values, so that scores tie), and the classes in column order."""
    classes = np.arange(k) if labels is None else np.asarray(labels)
    codes = rng.integers(0, k, n)
    codes[:k] = np.arange(k)
    rng.shuffle(codes)
    raw = rng.gamma(1.0, size=(n, k)) + 2.0 * (codes[:, None] == np.arange(k)[None, :]) * rng.random((n, 1))
    if levels is not None:
        raw = rng.integers(1, levels + 1, size=(n, k)).astype(float)  # few distinct rows: many ties
    p = raw / raw.sum(axis=1, keepdims=True)
    return classes[codes], p, classes


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("levels", [None, 2])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_one_vs_rest_equals_pairwise_reference(rng, k, levels, average):
    y, p, classes = draw(rng, 60, k, levels=levels)
    assert roc_auc_score(y, p, multi_class="ovr", average=average) == pytest.approx(
        ovr_reference(y, p, classes, average), abs=1e-12)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("levels", [None, 2])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_one_vs_one_equals_pairwise_reference(rng, k, levels, average):
    y, p, classes = draw(rng, 60, k, levels=levels)
    assert roc_auc_score(y, p, multi_class="ovo", average=average) == pytest.approx(
        ovo_reference(y, p, classes, average), abs=1e-12)


@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_weighted_one_vs_rest_equals_pairwise_reference(rng, average):
    y, p, classes = draw(rng, 50, 4, levels=3)
    w = rng.exponential(size=50)
    w[::7] = 0.0
    assert roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w) == pytest.approx(
        ovr_reference(y, p, classes, average, w), abs=1e-12)


def test_log_loss_of_a_matrix_equals_reference(rng):
    y, p, classes = draw(rng, 80, 4, labels=["ant", "bee", "cat", "dog"])
    w = rng.exponential(size=80)
    assert log_loss(y, p) == pytest.approx(log_loss_reference(y, p, classes), rel=1e-13)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(log_loss_reference(y, p, classes, w), rel=1e-13)


@pytest.mark.parametrize("k", [3, 4, 7])
@pytest.mark.parametrize("levels", [None, 3])
def test_against_sklearn_on_random_inputs(rng, k, levels):
    y, p, classes = draw(rng, 400, k, levels=levels, labels=[f"c{j}" for j in range(k)])
    w = rng.exponential(size=400)
    for multi_class, average in [("ovr", "macro"), ("ovr", "weighted"), ("ovr", "micro"), ("ovo", "macro"),
                                 ("ovo", "weighted")]:
        assert roc_auc_score(y, p, multi_class=multi_class, average=average) == pytest.approx(
            sk_roc_auc_score(y, p, multi_class=multi_class, average=average), abs=1e-12), (multi_class, average)
    for average in ("macro", "weighted", "micro"):
        assert roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w) == pytest.approx(
            sk_roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w), abs=1e-12), average
    np.testing.assert_allclose(roc_auc_score(y, p, multi_class="ovr", average=None),
                               sk_roc_auc_score(y, p, multi_class="ovr", average=None), atol=1e-12)
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p), rel=1e-12)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(sk_log_loss(y, p, sample_weight=w), rel=1e-12)


def test_against_sklearn_with_a_class_absent_from_y_true(rng):
    y, p, _ = draw(rng, 200, 4)
    y = np.where(y == 2, 1, y)  # class 2 has no row; labels name the four columns
    labels = [0, 1, 2, 3]
    for average in ("macro", "weighted"):
        assert roc_auc_score(y, p, multi_class="ovo", labels=labels, average=average) == pytest.approx(
            sk_roc_auc_score(y, p, multi_class="ovo", labels=labels, average=average), abs=1e-12)
    with pytest.warns(Warning, match="Only one class is present"):  # scikit-learn's, for the absent class
        expected = sk_roc_auc_score(y, p, multi_class="ovr", labels=labels, average="weighted")
    assert roc_auc_score(y, p, multi_class="ovr", labels=labels, average="weighted") == pytest.approx(expected,
                                                                                                    abs=1e-12)
    assert log_loss(y, p, labels=labels) == pytest.approx(sk_log_loss(y, p, labels=labels), rel=1e-12)


@settings(max_examples=60)
@given(st.integers(2, 5), st.integers(5, 30), st.integers(0, 2**32 - 1), st.sampled_from([None, 2, 4]))
def test_property_every_average_equals_sklearn(k, n, seed, levels):
    y, p, _ = draw(np.random.default_rng(seed), max(n, k), k, levels=levels)
    for multi_class, average in [("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # scikit-learn on a 2-class y_true with a 2-column matrix: binary path
            if k == 2:
                expected = sk_roc_auc_score(y, p[:, 1])
            else:
                expected = sk_roc_auc_score(y, p, multi_class=multi_class, average=average)
        assert roc_auc_score(y, p, multi_class=multi_class, average=average) == pytest.approx(expected, abs=1e-12)


# -- identities ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("multi_class", ["ovr", "ovo"])
def test_two_classes_are_the_binary_auc(rng, multi_class):
    y, p, _ = draw(rng, 100, 2, levels=4)
    assert roc_auc_score(y, p, multi_class=multi_class) == pytest.approx(roc_auc_score(y, p[:, 1]), abs=1e-15)


def test_two_column_log_loss_is_the_binary_log_loss(rng):
    y, p, _ = draw(rng, 100, 2)
    w = rng.exponential(size=100)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(log_loss(y, p[:, 1], sample_weight=w), rel=1e-12)


def test_a_zero_weight_drops_the_row(rng):
    y, p, _ = draw(rng, 90, 3)
    w = rng.exponential(size=90)
    w[10:20] = 0.0
    keep = w > 0
    for average in ("macro", "weighted", "micro"):
        assert roc_auc_score(y, p, multi_class="ovr", average=average, sample_weight=w) == pytest.approx(
            roc_auc_score(y[keep], p[keep], multi_class="ovr", average=average, sample_weight=w[keep]), abs=1e-13)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(log_loss(y[keep], p[keep], sample_weight=w[keep]),
                                                            rel=1e-13)


def test_relabelling_classes_with_their_columns_changes_nothing(rng):
    y, p, _ = draw(rng, 120, 4, levels=3)
    perm = np.array([2, 0, 3, 1])  # class c becomes perm[c]; its column moves with it
    q = np.empty_like(p)
    q[:, perm] = p
    for multi_class, average in [("ovr", "macro"), ("ovr", "weighted"), ("ovo", "macro"), ("ovo", "weighted")]:
        assert roc_auc_score(perm[y], q, multi_class=multi_class, average=average) == pytest.approx(
            roc_auc_score(y, p, multi_class=multi_class, average=average), abs=1e-15)
    assert log_loss(perm[y], q) == pytest.approx(log_loss(y, p), rel=1e-15)


def test_weights_are_scale_free(rng):
    y, p, _ = draw(rng, 80, 3)
    w = rng.exponential(size=80)
    for scale in (2.0**-1000, 2.0**900):
        assert roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w * scale) == \
            roc_auc_score(y, p, multi_class="ovr", average="weighted", sample_weight=w)


def test_perfect_ranking_is_one_and_reversed_is_zero():
    y = np.repeat([0, 1, 2], 4)
    onehot = (y[:, None] == np.arange(3)).astype(float)
    p = 0.25 * onehot + 0.25  # 0.5 at the row's own class, 0.25 elsewhere
    for multi_class in ("ovr", "ovo"):
        assert roc_auc_score(y, p, multi_class=multi_class) == 1.0
        assert roc_auc_score(y, (1 - p) / 2, multi_class=multi_class) == 0.0  # 0.25 at its own class, 0.375 elsewhere


def test_micro_is_the_auc_of_the_raveled_cells(rng):
    y, p, _ = draw(rng, 70, 3, levels=3)
    cells = (y[:, None] == np.arange(3)).ravel().astype(int)
    fpr, tpr, _ = roc_curve(cells, p.ravel())
    assert roc_auc_score(y, p, multi_class="ovr", average="micro") == pytest.approx(
        float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2)), abs=1e-12)


def test_one_vs_one_scales_as_n_log_n_per_class():
    """Each class's scores sorted once per column: 10^5 rows of 10 classes in well under a second or two."""
    import time

    rng = np.random.default_rng(0)
    y, p, _ = draw(rng, 100_000, 10)
    t0 = time.perf_counter()
    roc_auc_score(y, p, multi_class="ovo")
    roc_auc_score(y, p, multi_class="ovr")
    assert time.perf_counter() - t0 < 10.0


# -- invalid and undefined -------------------------------------------------------------------------------------

P3 = np.array([[0.5, 0.25, 0.25], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])
Y3 = [0, 1, 2, 1]


@pytest.mark.parametrize("call, match", [
    (lambda: roc_auc_score(Y3, P3), r"`y_score` is a matrix of shape \(4, 3\): pass `multi_class='ovr'`"),
    (lambda: roc_auc_score(Y3, P3, multi_class="ovx"), r"`multi_class` must be one of \['ovo', 'ovr'\]; got 'ovx'"),
    (lambda: roc_auc_score(Y3, P3, multi_class="ovr", pos_label=1), "`pos_label` is for a binary AUC"),
    (lambda: roc_auc_score(Y3, P3[:, :1], multi_class="ovr"), "at least two columns"),
    (lambda: roc_auc_score(Y3, P3 * 2 - 0.5, multi_class="ovr"), r"`y_score` must hold probabilities in \[0, 1\]"),
    (lambda: roc_auc_score(Y3, np.where(P3 == 0.8, np.nan, P3), multi_class="ovr"), "`y_score` must be finite"),
    (lambda: roc_auc_score(Y3[:3], P3, multi_class="ovr"), "`y_true` has 3, `y_score` has 4"),
    (lambda: roc_auc_score([[0, 1, 2, 1]], P3, multi_class="ovr"), "`y_true` must be 1-D"),
    (lambda: roc_auc_score(Y3, P3, multi_class="ovr", sample_weight=[1, 1, -1, 1]), "`sample_weight` must be non-neg"),
    (lambda: roc_auc_score(Y3, P3, multi_class="ovr", labels=["a", "b", "c"]), "labels of different kinds"),
    (lambda: roc_auc_score(np.array(Y3, dtype=object), P3, multi_class="ovr", labels=["a", "b", "c"]),
     "labels of different kinds"),
    (lambda: roc_auc_score(Y3, P3[:, 1], labels=[0, 1, 2]), "`labels` names the columns of a probability matrix"),
    (lambda: roc_auc_score([0, 1, 0, 1], P3[:, 1], average="mean"), "`average` must be one of"),
    (lambda: log_loss(Y3, P3, pos_label=1), "`pos_label` is for a 1-D `y_prob`"),
    (lambda: log_loss(Y3, P3, eps=-1), "`eps` must be"),
    (lambda: log_loss(Y3, P3 + 0.01), "`y_prob` must be a probability matrix whose rows sum to 1"),
    (lambda: log_loss(Y3, P3[:, 1], labels=[0, 1, 2]), "`labels` names the columns of a probability matrix"),
    (lambda: log_loss(Y3, np.ma.masked_array(P3)), "`y_prob` is a masked array"),
])
def test_invalid_input_raises_naming_the_argument(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("call, hint", [
    (lambda: roc_auc_score([0, 1, 2, 1], [0.1, 0.5, 0.9, 0.4]), "multi_class='ovr'"),
    (lambda: roc_auc_score(["a", "b", "c", "b"], [0.1, 0.5, 0.9, 0.4]), "multi_class='ovr'"),
    (lambda: roc_auc_score(["a", "b", "c", "b"], [0.1, 0.5, 0.9, 0.4], pos_label="a"), "multi_class='ovr'"),
    (lambda: log_loss([0, 1, 2, 1], [0.1, 0.5, 0.9, 0.4]), "probability matrix"),
    (lambda: log_loss(["a", "b", "c", "b"], [0.1, 0.5, 0.9, 0.4]), "probability matrix"),
    (lambda: rig_score([0, 1, 2, 1], [0.1, 0.5, 0.9, 0.4]), "this metric is binary"),
])
def test_three_classes_to_a_binary_function_point_to_the_multiclass_form_not_pos_label(call, hint):
    with pytest.raises(ValueError) as err:
        call()
    assert "3 classes" in str(err.value) and hint in str(err.value)
    assert "pass `pos_label`" not in str(err.value)


def test_two_labels_other_than_0_1_still_suggest_pos_label():
    with pytest.raises(ValueError, match="pass `pos_label`"):
        roc_auc_score(["a", "b", "a"], [0.1, 0.5, 0.9])
    with pytest.raises(ValueError, match="pass `pos_label`"):
        roc_auc_score([1, 2, 1], [0.1, 0.5, 0.9])


def test_one_vs_one_with_one_class_present_is_nan_with_a_warning():
    with pytest.warns(OfflineEvalWarning, match="one-vs-one AUC is undefined with one class present"):
        assert math.isnan(roc_auc_score([1, 1, 1, 1], P3, multi_class="ovo", labels=[0, 1, 2]))


def test_micro_is_defined_even_with_one_class_present():
    # every row has one cell of its class and k - 1 of the others: the raveled cells always hold both kinds
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert roc_auc_score([1, 1, 1, 1], P3, multi_class="ovr", average="micro", labels=[0, 1, 2]) == pytest.approx(
            sk_roc_auc_score(np.eye(3)[[1, 1, 1, 1]].ravel(), P3.ravel()))
