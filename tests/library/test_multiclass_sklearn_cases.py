"""The multiclass AUC and log loss on scikit-learn's own test cases.

Ported from scikit-learn 1.9.1 (the version pinned in ``requirements.lock``): ``sklearn/metrics/tests/test_ranking.py``
(``test_multiclass_ovo_roc_auc_toydata``, ``test_multiclass_ovo_roc_auc_toydata_binary``,
``test_multiclass_ovr_roc_auc_toydata``, ``test_perfect_imperfect_chance_multiclass_roc_auc``,
``test_micro_averaged_ovr_roc_auc``, ``test_roc_auc_score_multiclass_labels_error``,
``test_roc_auc_score_multiclass_error``, ``test_multiclass_ranking_metrics_raise_for_incorrect_shape_of_y_score``)
and ``sklearn/metrics/tests/test_classification.py`` (``test_log_loss``, ``test_log_loss_eps``,
``test_log_loss_not_probabilities_warning``, ``test_log_loss_perfect_predictions``, ``test_log_loss_pandas_input``,
``test_log_loss_warnings``).  Each case keeps scikit-learn's inputs and expected values; each expected value is
also checked against scikit-learn itself (under the ``sk_`` prefix).  Where the library answers otherwise, by
design, the test says so: errors name the argument in our words (the messages below are ours), rows that do not sum
to 1 and unsorted ``labels`` are refused where scikit-learn's ``log_loss`` only warns, ``average=None`` with
``"ovo"`` is a ``ValueError`` (scikit-learn: ``NotImplementedError``), and there is no ``max_fpr`` (a partial AUC)
or ``normalize`` (the summed loss is the mean times n).
"""

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.special import softmax
from sklearn.metrics import log_loss as sk_log_loss
from sklearn.metrics import roc_auc_score as sk_roc_auc_score

from offline_eval import OfflineEvalWarning
from offline_eval.metrics import log_loss, roc_auc_score, roc_curve


# -- test_ranking.py ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "y_true, labels",
    [
        (np.array([0, 1, 0, 2]), [0, 1, 2]),
        (np.array([0, 1, 0, 2]), None),
        (["a", "b", "a", "c"], ["a", "b", "c"]),
        (["a", "b", "a", "c"], None),
    ],
)
def test_multiclass_ovo_roc_auc_toydata(y_true, labels):
    y_scores = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])
    # labels 0 and 1: 0 positive, then 1 positive
    score_01 = roc_auc_score([1, 0, 1], [0.1, 0.3, 0.35])
    score_10 = roc_auc_score([0, 1, 0], [0.8, 0.4, 0.5])
    average_score_01 = (score_01 + score_10) / 2
    # labels 0 and 2
    score_02 = roc_auc_score([1, 1, 0], [0.1, 0.35, 0])
    score_20 = roc_auc_score([0, 0, 1], [0.1, 0.15, 0.8])
    average_score_02 = (score_02 + score_20) / 2
    # labels 1 and 2
    score_12 = roc_auc_score([1, 0], [0.4, 0.2])
    score_21 = roc_auc_score([0, 1], [0.3, 0.8])
    average_score_12 = (score_12 + score_21) / 2

    ovo_unweighted_score = (average_score_01 + average_score_02 + average_score_12) / 3
    got = roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo")
    assert got == pytest.approx(ovo_unweighted_score, abs=1e-12)
    assert got == pytest.approx(sk_roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo"), abs=1e-12)

    # weighted: each pair by its prevalence
    pair_scores = [average_score_01, average_score_02, average_score_12]
    prevalence = [0.75, 0.75, 0.50]
    ovo_weighted_score = np.average(pair_scores, weights=prevalence)
    got = roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo", average="weighted")
    assert got == pytest.approx(ovo_weighted_score, abs=1e-12)
    assert got == pytest.approx(sk_roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo",
                                                 average="weighted"), abs=1e-12)

    # scikit-learn: NotImplementedError; here an invalid option like any other, naming the argument
    with pytest.raises(ValueError, match=r"`average` must be one of \['macro', 'weighted'\]; got None"):
        roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo", average=None)


@pytest.mark.parametrize(
    "y_true, labels",
    [
        (np.array([0, 2, 0, 2]), [0, 1, 2]),
        (np.array(["a", "d", "a", "d"]), ["a", "b", "d"]),
    ],
)
def test_multiclass_ovo_roc_auc_toydata_binary(y_true, labels):
    y_scores = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    score_01 = roc_auc_score([1, 0, 1, 0], [0.2, 0.6, 0.55, 0.4])
    score_10 = roc_auc_score([0, 1, 0, 1], [0.8, 0.4, 0.45, 0.6])
    ovo_score = (score_01 + score_10) / 2
    for average in ("macro", "weighted"):
        got = roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo", average=average)
        assert got == pytest.approx(ovo_score, abs=1e-12)
        assert got == pytest.approx(sk_roc_auc_score(y_true, y_scores, labels=labels, multi_class="ovo",
                                                     average=average), abs=1e-12)


@pytest.mark.parametrize(
    "y_true, labels",
    [
        (np.array([0, 1, 2, 2]), None),
        (["a", "b", "c", "c"], None),
        ([0, 1, 2, 2], [0, 1, 2]),
        (["a", "b", "c", "c"], ["a", "b", "c"]),
    ],
)
def test_multiclass_ovr_roc_auc_toydata(y_true, labels):
    y_scores = np.array([[1.0, 0.0, 0.0], [0.1, 0.5, 0.4], [0.1, 0.1, 0.8], [0.3, 0.3, 0.4]])
    out_0 = roc_auc_score([1, 0, 0, 0], y_scores[:, 0])
    out_1 = roc_auc_score([0, 1, 0, 0], y_scores[:, 1])
    out_2 = roc_auc_score([0, 0, 1, 1], y_scores[:, 2])
    per_class = roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels, average=None)
    np.testing.assert_allclose(per_class, [out_0, out_1, out_2], atol=1e-12)
    np.testing.assert_allclose(per_class, sk_roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels,
                                                           average=None), atol=1e-12)

    result_unweighted = (out_0 + out_1 + out_2) / 3.0
    assert roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels) == pytest.approx(result_unweighted,
                                                                                             abs=1e-12)
    # weighted (Provost & Domingos, 2000)
    result_weighted = out_0 * 0.25 + out_1 * 0.25 + out_2 * 0.5
    got = roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels, average="weighted")
    assert got == pytest.approx(result_weighted, abs=1e-12)
    assert got == pytest.approx(sk_roc_auc_score(y_true, y_scores, multi_class="ovr", labels=labels,
                                                 average="weighted"), abs=1e-12)


@pytest.mark.parametrize("multi_class, average", [("ovr", "macro"), ("ovr", "micro"), ("ovo", "macro")])
def test_perfect_imperfect_chance_multiclass_roc_auc(multi_class, average):
    y_true = np.array([3, 1, 2, 0])
    y_perfect = [[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.75, 0.05, 0.05, 0.15]]
    assert roc_auc_score(y_true, y_perfect, multi_class=multi_class, average=average) == pytest.approx(1.0)
    y_imperfect = [[0.0, 0.0, 0.0, 1.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]]
    got = roc_auc_score(y_true, y_imperfect, multi_class=multi_class, average=average)
    assert got < 1.0
    assert got == pytest.approx(sk_roc_auc_score(y_true, y_imperfect, multi_class=multi_class, average=average))
    y_chance = 0.25 * np.ones((4, 4))
    assert roc_auc_score(y_true, y_chance, multi_class=multi_class, average=average) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(5))
def test_micro_averaged_ovr_roc_auc(seed):
    # scikit-learn's case: imbalanced Dirichlet predictions, labels drawn from them; the micro average is the
    # area under the ROC curve of the raveled one-hot labels against the raveled probabilities
    y_pred = stats.dirichlet.rvs([2.0, 1.0, 0.5], size=1000, random_state=seed)
    y_true = np.asarray([stats.multinomial.rvs(n=1, p=y_pred_i, random_state=seed).argmax() for y_pred_i in y_pred])
    y_onehot = (y_true[:, None] == np.arange(3)[None, :]).astype(int)
    fpr, tpr, _ = roc_curve(y_onehot.ravel(), y_pred.ravel())
    roc_auc_by_hand = float(np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1]) / 2))  # the trapezoid rule (sklearn's auc)
    roc_auc_auto = roc_auc_score(y_true, y_pred, multi_class="ovr", average="micro")
    assert roc_auc_by_hand == pytest.approx(roc_auc_auto)
    assert roc_auc_auto == pytest.approx(sk_roc_auc_score(y_true, y_pred, multi_class="ovr", average="micro"),
                                         abs=1e-12)


# scikit-learn's message -> ours (each names the argument)
LABELS_ERRORS = [
    ("`labels` must be unique", np.array([0, 1, 2, 2]), [0, 2, 0]),
    ("`labels` must be unique", np.array(["a", "b", "c", "c"]), ["a", "a", "b"]),
    (re.escape("`y_true` holds 2 classes [0, 2] but `y_score` has 3 columns; pass `labels`"),
     np.array([0, 2, 0, 2]), None),
    ("`labels` must be sorted", np.array(["a", "b", "c", "c"]), ["a", "c", "b"]),
    ("`labels` has 2 labels but `y_score` has 3 columns", np.array([0, 1, 2, 2]), [0, 1]),
    ("`labels` has 2 labels but `y_score` has 3 columns", np.array(["a", "b", "c", "c"]), ["a", "b"]),
    ("`labels` has 4 labels but `y_score` has 3 columns", np.array([0, 1, 2, 2]), [0, 1, 2, 3]),
    ("`labels` has 4 labels but `y_score` has 3 columns", np.array(["a", "b", "c", "c"]), ["a", "b", "c", "d"]),
    (re.escape("`y_true` holds labels not in `labels`: ['e']"), np.array(["a", "b", "c", "e"]), ["a", "b", "c"]),
    (re.escape("`y_true` holds labels not in `labels`: ['d']"), np.array(["a", "b", "c", "d"]), ["a", "b", "c"]),
    (re.escape("`y_true` holds labels not in `labels`: [3]"), np.array([0, 1, 2, 3]), [0, 1, 2]),
]


@pytest.mark.parametrize("msg, y_true, labels", LABELS_ERRORS)
@pytest.mark.parametrize("multi_class", ["ovo", "ovr"])
def test_roc_auc_score_multiclass_labels_error(msg, y_true, labels, multi_class):
    y_scores = np.array([[0.1, 0.8, 0.1], [0.3, 0.4, 0.3], [0.35, 0.5, 0.15], [0, 0.2, 0.8]])
    with pytest.raises(ValueError, match=msg):
        roc_auc_score(y_true, y_scores, labels=labels, multi_class=multi_class)
    with pytest.raises(ValueError):  # scikit-learn refuses every one of them too
        sk_roc_auc_score(y_true, y_scores, labels=labels, multi_class=multi_class)


@pytest.mark.parametrize(
    "msg, kwargs",
    [
        (r"`average` must be one of \['macro', 'weighted'\]; got 'samples'", {"average": "samples", "multi_class": "ovo"}),
        (r"`average` must be one of \['macro', 'micro', 'weighted', None\]; got 'samples'",
         {"average": "samples", "multi_class": "ovr"}),
        (r"`sample_weight` is not supported with multi_class='ovo'", {"multi_class": "ovo", "sample_weight": np.ones(20)}),
        # scikit-learn's max_fpr case: there is no partial AUC here, so no such keyword (a TypeError, below)
        (r"pass `multi_class='ovr'` \(one-vs-rest\) or `multi_class='ovo'`", {}),
    ],
)
def test_roc_auc_score_multiclass_error(msg, kwargs):
    rng = np.random.RandomState(404)
    y_score = rng.rand(20, 3)
    y_prob = softmax(y_score, axis=1)  # scikit-learn's own softmax, by rows
    y_true = rng.randint(0, 3, size=20)
    with pytest.raises(ValueError, match=msg):
        roc_auc_score(y_true, y_prob, **kwargs)
    with pytest.raises(TypeError, match="max_fpr"):
        roc_auc_score(y_true, y_prob, multi_class="ovo", max_fpr=0.5)


def test_multiclass_ranking_metrics_raise_for_incorrect_shape_of_y_score():
    y_true = np.array([0, 1, 2, 0, 1, 2])
    y_score = np.array([0.5, 0.4, 0.8, 0.9, 0.8, 0.7])
    with pytest.raises(ValueError, match=re.escape("`y_score` must be a probability matrix of shape "
                                                   "(n_samples, n_classes)")):
        roc_auc_score(y_true, y_score, multi_class="ovr")
    with pytest.raises(ValueError, match=re.escape("`y_score` needs to be of shape `(n_samples, n_classes)`")):
        sk_roc_auc_score(y_true, y_score, multi_class="ovr")


def test_rows_not_summing_to_one_refused_as_scikit_learn_does():
    # _multiclass_roc_auc_score: "Target scores need to be probabilities ... sum up to 1.0 over classes"
    y_true = [0, 1, 2, 1]
    y_score = np.array([[0.5, 0.3, 0.3], [0.2, 0.6, 0.2], [0.1, 0.1, 0.8], [0.3, 0.4, 0.3]])
    with pytest.raises(ValueError, match=r"`y_score` must be a probability matrix whose rows sum to 1 .*\(row 0 sums"):
        roc_auc_score(y_true, y_score, multi_class="ovr")
    with pytest.raises(ValueError, match="sum up to 1.0 over classes"):
        sk_roc_auc_score(y_true, y_score, multi_class="ovr")
    # within np.allclose's tolerance both accept (and agree)
    near = y_score.copy()
    near[0] = [0.4 + 4e-6, 0.3, 0.3]
    assert roc_auc_score(y_true, near, multi_class="ovr") == sk_roc_auc_score(y_true, near, multi_class="ovr")


# -- test_classification.py -------------------------------------------------------------------------------------

def test_log_loss():
    # binary case with symbolic labels ("no" < "yes")
    y_true = ["no", "no", "no", "yes", "yes", "yes"]
    y_proba = np.array([[0.5, 0.5], [0.1, 0.9], [0.01, 0.99], [0.9, 0.1], [0.75, 0.25], [0.001, 0.999]])
    loss = log_loss(y_true, y_proba)
    loss_true = -np.mean(stats.bernoulli.logpmf(np.array(y_true) == "yes", y_proba[:, 1]))
    np.testing.assert_allclose(loss, loss_true)
    np.testing.assert_allclose(loss, sk_log_loss(y_true, y_proba))

    # multiclass case; adapted from http://bit.ly/RJJHWA
    y_true = [1, 0, 2]
    y_proba = [[0.2, 0.7, 0.1], [0.6, 0.2, 0.2], [0.6, 0.1, 0.3]]
    np.testing.assert_allclose(log_loss(y_true, y_proba), 0.6904911)

    # all the shapes and axes right: doubled rows, the sum (scikit-learn's normalize=False) is the mean times n
    y_true *= 2
    y_proba *= 2
    np.testing.assert_allclose(log_loss(y_true, y_proba) * len(y_true), 0.6904911 * 6)

    # number of classes not equal
    y_true = [1, 0, 2]
    y_proba = [[0.3, 0.7], [0.6, 0.4], [0.4, 0.6]]
    with pytest.raises(ValueError, match=r"`y_true` holds 3 classes \[0, 1, 2\] but `y_prob` has 2 columns"):
        log_loss(y_true, y_proba)

    # labels that do not contain every value of y_true (scikit-learn: "y_true contains values {'b'} not belonging
    # to the passed labels ['a', 'c', 'd']."); the third row sums to 1 here, 0.9 in scikit-learn's (which warns)
    y_true = ["a", "b", "c"]
    y_proba = [[0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.1, 0.1, 0.8]]
    with pytest.raises(ValueError, match=re.escape("`y_true` holds labels not in `labels`: ['b']")):
        log_loss(y_true, [[0.9, 0.1, 0.0], [0.1, 0.9, 0.0], [0.1, 0.1, 0.8]], labels=["a", "c", "d"])
    with pytest.raises(ValueError, match="not belonging to the passed labels"):
        sk_log_loss(y_true, y_proba, labels=["a", "c", "d"])

    # y_true a string array
    y_true = ["ham", "spam", "spam", "ham"]
    y_proba = [[0.3, 0.7], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]]
    np.testing.assert_allclose(log_loss(y_true, y_proba), 0.7469410)

    # labels option
    y_true = [2, 2]
    y_proba = [[0.2, 0.8], [0.6, 0.4]]
    y_score = np.array([[0.1, 0.9], [0.1, 0.9]])
    with pytest.raises(ValueError, match=re.escape("`y_true` holds 1 class [2] but `y_prob` has 2 columns; pass "
                                                   "`labels`")):
        log_loss(y_true, y_proba)

    y_proba = [[0.2, 0.8], [0.6, 0.4], [0.7, 0.3]]
    with pytest.raises(ValueError, match=re.escape("inputs must have the same length; `y_true` has 2, `y_prob` has 3")):
        log_loss(y_true, y_proba, labels=[1, 2])

    # works when the labels argument is used
    true_log_loss = -np.mean(np.log(y_score[:, 1]))
    np.testing.assert_allclose(log_loss(y_true, y_score, labels=[1, 2]), true_log_loss)

    # labels work when len(np.unique(y_true)) != y_proba.shape[1]
    y_true = [1, 2, 2]
    y_score2 = [[0.7, 0.1, 0.2], [0.2, 0.7, 0.1], [0.1, 0.7, 0.2]]
    np.testing.assert_allclose(log_loss(y_true, y_score2, labels=[1, 2, 3]), -np.log(0.7))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_log_loss_eps(dtype):
    # scikit-learn issue 24315: a confident wrong prediction costs a finite loss, whatever the input's float type
    y_true = np.array([0, 1], dtype=dtype)
    y_proba = np.array([1, 0], dtype=dtype)
    assert np.isfinite(log_loss(y_true, y_proba))
    assert np.isfinite(log_loss(y_true.astype(int), np.array([[0, 1], [1, 0]], dtype=dtype)))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_log_loss_not_probabilities_warning(dtype):
    # scikit-learn warns ("The y_prob values do not sum to one.") and computes; here the matrix is refused
    y_true = np.array([0, 1, 1, 0])
    y_proba = np.array([[0.2, 0.7], [0.6, 0.3], [0.4, 0.7], [0.8, 0.3]], dtype=dtype)
    with pytest.raises(ValueError, match="`y_prob` must be a probability matrix whose rows sum to 1"):
        log_loss(y_true, y_proba)
    with pytest.warns(UserWarning, match="The y_prob values do not sum to one."):
        sk_log_loss(y_true, y_proba)


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_log_loss_row_sums_tolerance_follows_the_input_float_type(dtype):
    # as scikit-learn: sqrt(eps) of the type the probabilities came in, so a float32 softmax is accepted
    rng = np.random.default_rng(3)
    p = softmax(rng.normal(size=(50, 4)), axis=1).astype(dtype)
    y = rng.integers(0, 4, 50)
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p), rel=1e-3 if dtype == np.float16 else 1e-6)
    with pytest.raises(ValueError, match="rows sum to 1"):
        log_loss(y, p.astype(np.float64) * (1 + 1e-3))


@pytest.mark.parametrize("y_true, y_proba", [([0, 1, 0], [0, 1, 0]), ([0, 1, 0], [[1, 0], [0, 1], [1, 0]]),
                                             ([0, 1, 2], [[1, 0, 0], [0, 1, 0], [0, 0, 1]])])
def test_log_loss_perfect_predictions(y_true, y_proba):
    # not exactly 0, because of the clipping
    assert log_loss(y_true, y_proba) == pytest.approx(0)


def test_log_loss_pandas_input():
    # scikit-learn gh-5715: a Series of labels and a DataFrame of probabilities
    y_tr = np.array(["ham", "spam", "spam", "ham"])
    y_pr = np.array([[0.3, 0.7], [0.6, 0.4], [0.4, 0.6], [0.7, 0.3]])
    np.testing.assert_allclose(log_loss(pd.Series(y_tr), pd.DataFrame(y_pr)), 0.7469410)
    # pandas objects with other indexes are refused rather than combined by position
    with pytest.raises(ValueError, match="different indexes"):
        log_loss(pd.Series(y_tr, index=[3, 2, 1, 0]), pd.DataFrame(y_pr))


def test_log_loss_warnings():
    # scikit-learn warns that it assumes the labels sorted and uses the sorted order; here unsorted labels are
    # refused, naming the sorted order, so a column is never read as another class
    with pytest.raises(ValueError, match=re.escape("`labels` must be sorted, the order of the columns of `y_prob` "
                                                   "(as scikit-learn's); got ['spam', 'eggs', 'ham'], sorted "
                                                   "['eggs', 'ham', 'spam']")):
        log_loss(["eggs", "spam", "ham"], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], labels=["spam", "eggs", "ham"])
    with pytest.warns(UserWarning, match="assumes labels are ordered lexicographically"):
        sk_log_loss(["eggs", "spam", "ham"], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], labels=["spam", "eggs", "ham"])


def test_undefined_one_vs_rest_class_warns_as_scikit_learn_does():
    # test_ranking.py's toy matrix with a class absent: the per-class AUC of that class is nan (scikit-learn:
    # UndefinedMetricWarning), the macro average nan, the weighted average without it
    y_scores = np.array([[0.2, 0.0, 0.8], [0.6, 0.0, 0.4], [0.55, 0.0, 0.45], [0.4, 0.0, 0.6]])
    y_true = [0, 2, 0, 2]
    with pytest.warns(OfflineEvalWarning, match=r"undefined for class\(es\) \[1\]"):
        assert np.isnan(roc_auc_score(y_true, y_scores, labels=[0, 1, 2], multi_class="ovr"))
    with pytest.warns(OfflineEvalWarning, match=r"undefined for class\(es\) \[1\]"):
        per_class = roc_auc_score(y_true, y_scores, labels=[0, 1, 2], multi_class="ovr", average=None)
    np.testing.assert_array_equal(np.isnan(per_class), [False, True, False])
    with pytest.warns(Warning):
        np.testing.assert_allclose(per_class, sk_roc_auc_score(y_true, y_scores, labels=[0, 1, 2], multi_class="ovr",
                                                               average=None))
    with pytest.warns(Warning):
        expected = sk_roc_auc_score(y_true, y_scores, labels=[0, 1, 2], multi_class="ovr", average="weighted")
    assert roc_auc_score(y_true, y_scores, labels=[0, 1, 2], multi_class="ovr", average="weighted") == expected
