"""auc, roc_auc_score_from_counts and the ROC curves against an O(n^2) reference and scikit-learn."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import roc_auc_score as sk_roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from offline_eval import OfflineEvalWarning
from offline_eval.metrics import roc_auc_score, roc_auc_score_from_counts, roc_curve, roc_curve_from_counts


def auc_pairwise(y, s, w=None):
    """Slow, obviously right: every (positive, negative) pair, ties count one half."""
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    num = den = 0.0
    for i in np.flatnonzero(y == 1):
        for j in np.flatnonzero(y == 0):
            den += w[i] * w[j]
            num += w[i] * w[j] * (1.0 if s[i] > s[j] else 0.5 if s[i] == s[j] else 0.0)
    return num / den


def _sample(rng, n, distinct=None, p_pos=0.3):
    y = (rng.random(n) < p_pos).astype(int)
    y[:2] = [0, 1]  # both classes present
    s = rng.normal(size=n) + y if distinct is None else rng.integers(0, distinct, n).astype(float)
    return y, s


@pytest.mark.parametrize("distinct", [None, 2, 5])
@pytest.mark.parametrize("p_pos", [0.05, 0.5, 0.95])
def test_auc_equals_pairwise_reference(rng, distinct, p_pos):
    y, s = _sample(rng, 120, distinct, p_pos)
    assert roc_auc_score(y, s) == pytest.approx(auc_pairwise(y, s), abs=1e-12)


@pytest.mark.parametrize("distinct", [None, 3, 50])
@pytest.mark.parametrize("p_pos", [0.01, 0.5, 0.99])
def test_auc_equals_sklearn(rng, distinct, p_pos):
    y, s = _sample(rng, 5000, distinct, p_pos)
    assert abs(roc_auc_score(y, s) - sk_roc_auc_score(y, s)) <= 1e-12


@pytest.mark.parametrize("distinct", [None, 4])
def test_weighted_auc_equals_sklearn_and_reference(rng, distinct):
    y, s = _sample(rng, 300, distinct)
    w = rng.exponential(size=300)
    w[rng.random(300) < 0.1] = 0.0
    assert abs(roc_auc_score(y, s, sample_weight=w) - sk_roc_auc_score(y, s, sample_weight=w)) <= 1e-12
    assert roc_auc_score(y, s, sample_weight=w) == pytest.approx(auc_pairwise(y, s, w), abs=1e-12)


def test_toy_values_by_hand():
    # 2 positives (0.35, 0.8) and 2 negatives (0.1, 0.4): pairs won 1+1+0+1 of 4
    assert roc_auc_score([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]) == 0.75
    # one tie between a positive and a negative counts one half: (1 + 0.5 + 1 + 1) / 4
    assert roc_auc_score([0, 1, 0, 1], [0.2, 0.2, 0.1, 0.9]) == 0.875


def test_bool_labels_and_all_ties():
    assert roc_auc_score(np.array([True, False, True]), [1.0, 1.0, 1.0]) == 0.5


def test_negative_zero_ties_with_zero():
    assert roc_auc_score([1, 0], [0.0, -0.0]) == 0.5


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), st.integers(-5, 5), st.integers(0, 3)), min_size=2, max_size=40),
)
def test_properties_monotone_invariance_zero_weight_and_symmetry(rows):
    y = np.array([r[0] for r in rows], dtype=int)
    s = np.array([r[1] for r in rows], dtype=float)
    w = np.array([r[2] for r in rows], dtype=float)
    assume(y.min() < y.max() and w[y == 1].sum() > 0 and w[y == 0].sum() > 0)
    a = roc_auc_score(y, s, sample_weight=w)
    assert 0.0 <= a <= 1.0
    # strictly increasing transform of the scores leaves the AUC unchanged
    assert roc_auc_score(y, np.exp(s / 3) * 7 - 2, sample_weight=w) == pytest.approx(a, abs=1e-12)
    # a zero weight is the same as dropping the row
    keep = w > 0
    assert roc_auc_score(y[keep], s[keep], sample_weight=w[keep]) == pytest.approx(a, abs=1e-12)
    # swapping the classes (or negating the scores) gives 1 - AUC
    assert roc_auc_score(1 - y, s, sample_weight=w) == pytest.approx(1 - a, abs=1e-12)
    assert roc_auc_score(y, -s, sample_weight=w) == pytest.approx(1 - a, abs=1e-12)
    # integer weights equal repeating the rows
    rep = np.repeat(np.arange(len(y)), w.astype(int))
    assert roc_auc_score(y[rep], s[rep]) == pytest.approx(a, abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_roc_curve_matches_sklearn_and_its_area_is_auc(rng, weighted):
    y, s = _sample(rng, 400, distinct=20)
    w = rng.exponential(size=400) if weighted else None
    fpr, tpr, thr = roc_curve(y, s, sample_weight=w)
    sk_fpr, sk_tpr, sk_thr = sk_roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sk_fpr, atol=1e-12)
    np.testing.assert_allclose(tpr, sk_tpr, atol=1e-12)
    np.testing.assert_array_equal(thr[1:], sk_thr[1:])
    assert np.trapezoid(tpr, fpr) == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)


def test_auc_from_counts_equals_row_level_auc(rng):
    for _ in range(20):
        k = int(rng.integers(1, 8))
        pos = rng.integers(0, 30, k)
        neg = rng.integers(0, 30, k)
        pos[0], neg[-1] = max(pos[0], 1), max(neg[-1], 1)
        scores = np.sort(rng.choice(1000, k, replace=False))[::-1].astype(float)  # descending bins
        y = np.concatenate([np.r_[np.ones(a), np.zeros(b)] for a, b in zip(pos, neg)]).astype(int)
        s = np.repeat(scores, pos + neg)
        assert roc_auc_score_from_counts(pos, neg) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        fpr, tpr = roc_curve_from_counts(pos, neg)
        assert np.trapezoid(tpr, fpr) == pytest.approx(roc_auc_score_from_counts(pos, neg), abs=1e-12)


def test_auc_from_counts_toy():
    # bins (3 pos, 1 neg) above (1 pos, 3 neg): 3*3 wins, 3*1 + 1*3 ties at 1/2, of 4*4 pairs
    assert roc_auc_score_from_counts([3, 1], [1, 3]) == (9 + 0.5 * 6) / 16


@pytest.mark.parametrize(
    "y, s, w, match",
    [
        ([0, 1, 2], [0.1, 0.2, 0.3], None, r"`y_true` must contain only 0 and 1; got 1 other value"),
        ([0, 1], [0.1, np.nan], None, r"`y_score` must be finite; got 1 NaN value"),
        ([0, 1], [np.inf, 0.2], None, r"`y_score` must be finite; got 1 infinite value"),
        ([0, 1, 1], [0.1, 0.2], None, r"same length; `y_true` has 3, `y_score` has 2"),
        ([0, 1], [0.1, 0.2], [1.0, -1.0], r"`sample_weight` must be non-negative"),
        ([0, 1], [0.1, 0.2], [1.0], r"`sample_weight` must have length 2; got 1"),
        ([], [], None, r"`y_true` must not be empty"),
        ([[0, 1]], [[0.1, 0.2]], None, r"`y_true` must be 1-D"),
        ([0, 1], ["a", "b"], None, r"`y_score` must be numeric"),
    ],
)
def test_invalid_input_raises_naming_the_argument(y, s, w, match):
    with pytest.raises(ValueError, match=match):
        roc_auc_score(y, s, sample_weight=w)


def test_counts_invalid_input():
    with pytest.raises(ValueError, match=r"`negatives` must be non-negative"):
        roc_auc_score_from_counts([1, 2], [1, -2])
    with pytest.raises(ValueError, match=r"same length"):
        roc_auc_score_from_counts([1, 2], [1])
    with pytest.raises(ValueError, match=r"`positives` must be finite"):
        roc_auc_score_from_counts([1, np.nan], [1, 1])


@pytest.mark.parametrize("fn", [lambda: roc_auc_score([1, 1], [0.1, 0.2]), lambda: roc_auc_score([0, 0], [0.1, 0.2]),
                                lambda: roc_auc_score([0, 1], [0.1, 0.2], sample_weight=[1, 0]),
                                lambda: roc_auc_score_from_counts([0, 0], [3, 4])])
def test_one_class_is_nan_with_warning(fn):
    with pytest.warns(OfflineEvalWarning, match="only one class"):
        assert np.isnan(fn())


def test_auc_large_counts_accumulate_in_int64():
    # 3e5 positives x 3e5 negatives = 9e10 pairs: beyond int32
    y = np.r_[np.ones(300_000, int), np.zeros(300_000, int)]
    s = np.r_[np.ones(300_000), np.zeros(300_000)]
    assert roc_auc_score(y, s) == 1.0
    assert roc_auc_score(y, np.zeros(600_000)) == 0.5
