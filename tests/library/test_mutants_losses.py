"""Behaviour of the loss engine (`_losses`, `_metrics_losses`) that mutation testing found unchecked: the
Bernoulli entropies, the checks of `eps` and `labels`, RIG's one-class case under weights (`make mutation`;
docs/mutation.md)."""

import math
import warnings

import numpy as np
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval._losses import entropies
from offline_eval.metrics import calibration_ratio, log_loss, prediction_error, quantile_breakdown, rig_score


def test_entropies_are_the_bernoulli_entropy_in_nats_and_nan_at_zero_and_one():
    got = entropies(np.array([0.0, 0.5, 1.0, 0.1, 0.9]))
    h01 = -0.1 * math.log(0.1) - 0.9 * math.log(0.9)  # 0.325083 nats
    np.testing.assert_allclose(got[[1, 3, 4]], [math.log(2), h01, h01], rtol=1e-15)
    assert np.isnan(got[[0, 2]]).all()


@pytest.mark.parametrize("fn", [log_loss, rig_score])
def test_eps_is_checked_by_name_within_zero_to_a_half(fn):
    y, p = [1, 0, 1, 0], [0.9, 0.2, 0.6, 0.4]
    for bad in (0.5, 0.6, 1.5, -1e-3):
        with pytest.raises(ValueError, match="`eps`"):
            fn(y, p, eps=bad)
    # eps=0 is the unclipped loss: perfect predictions cost nothing (RIG 1)
    assert fn([1, 0], [1.0, 0.0], eps=0) == (0.0 if fn is log_loss else 1.0)


def test_labels_with_a_binary_log_loss_point_to_pos_label():
    with pytest.raises(ValueError, match=r"^`labels` names the columns of a probability matrix `y_prob`; for a binary "
                                         r"log loss of two labels pass `pos_label`, the label of the positives$"):
        log_loss([1, 0], [0.5, 0.5], labels=[0, 1])


def test_rig_one_class_is_decided_on_rows_with_weight():
    # the only no-click has weight 0: one class carries weight, although the weighted CTR rounds to 0.9999999999999998
    w = [0.7214883401940817, 0.5253543224757259, 0.31024187555895566, 0.4858353588317891, 0.8894878343490003,
         0.9340435159562497, 0.35779519670907023, 0.5715298307297609, 0.32186939107594215, 0.0]
    y = [1] * 9 + [0]
    with pytest.warns(OfflineEvalWarning, match="RIG is undefined"):
        assert math.isnan(rig_score(y, [0.5] * 10, sample_weight=w))


@pytest.mark.parametrize("fn, what", [(calibration_ratio, "calibration ratio"), (prediction_error, "prediction error")])
def test_a_ratio_without_clicks_is_nan_with_a_warning_naming_it(fn, what):
    with pytest.warns(OfflineEvalWarning, match=f"^{what} is undefined when the data hold no click"):
        assert math.isnan(fn([0, 0], [0.2, 0.3]))
    assert fn([1, 0], [0.6, 0.2], sample_weight=[1, 3]) == pytest.approx((0.6 + 0.6) / 4 / 0.25 - (fn is prediction_error))


def _breakdown_case(low_weight):
    rng = np.random.default_rng(3)
    y, p = rng.integers(0, 2, 60), np.round(rng.uniform(0.05, 0.95, 60), 2)
    return y, p, rng.integers(low_weight, 4, 60)


@pytest.mark.parametrize("n_quantiles", [1, 4, 7])
def test_weighted_breakdown_with_integer_weights_equals_the_rows_repeated(n_quantiles):
    # integer weights are repetitions (the weighted path: its own bins, ties and sums), every column alike
    y, p, w = _breakdown_case(1)
    got = quantile_breakdown(y, p, sample_weight=w, n_quantiles=n_quantiles)
    ref = quantile_breakdown(np.repeat(y, w), np.repeat(p, w), n_quantiles=n_quantiles)
    assert list(got.columns) == list(ref.columns) and len(got) == len(ref)
    for column in ref.columns:
        np.testing.assert_allclose(got[column], ref[column], rtol=1e-12, equal_nan=True, err_msg=column)


def test_weighted_breakdown_a_zero_weight_equals_dropping_the_row():
    y, p, w = _breakdown_case(0)
    got = quantile_breakdown(y, p, sample_weight=w, n_quantiles=4)
    ref = quantile_breakdown(y[w > 0], p[w > 0], sample_weight=w[w > 0], n_quantiles=4)
    for column in ref.columns:
        np.testing.assert_allclose(got[column], ref[column], rtol=1e-12, equal_nan=True, err_msg=column)


def test_entropy_is_zero_at_zero_and_one_and_log_two_at_a_half():
    from offline_eval._losses import entropy

    assert entropy(0.0) == 0.0 and entropy(1.0) == 0.0
    assert entropy(0.5) == pytest.approx(math.log(2), rel=1e-15)
    assert entropy(0.1) == pytest.approx(-0.1 * math.log(0.1) - 0.9 * math.log(0.9), rel=1e-15)


def test_the_engines_logs_raise_no_numpy_warning_at_zero_and_one():
    from offline_eval._losses import log_likelihood

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(entropies(np.array([0.0, 1.0]))).all()
        # eps=0: log 0 is -inf, said by the value, not by a RuntimeWarning
        np.testing.assert_array_equal(log_likelihood(np.array([0.0, 1.0]), True, 0.0), [-np.inf, 0.0])
        np.testing.assert_array_equal(log_likelihood(np.array([0.0, 1.0]), False, 0.0), [0.0, -np.inf])


@pytest.mark.parametrize("positive", [True, False])
def test_log_likelihood_with_a_mask_takes_the_log_only_where_asked(positive):
    # a cell without rows of a class may hold p = 0 or 1: masked out, it gives 0, not an infinity
    from offline_eval._losses import log_likelihood

    p = np.array([0.2, 1.0, 0.0, 0.7])
    where = np.array([True, False, False, True])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = log_likelihood(p, positive, 0.0, where=where)
    want = np.log(p[[0, 3]]) if positive else np.log1p(-p[[0, 3]])
    np.testing.assert_array_equal(got, [want[0], 0.0, 0.0, want[1]])


@pytest.mark.parametrize("which", ["y_prob", "sample_weight"])
def test_misaligned_pandas_inputs_are_refused_by_name(which):
    import pandas as pd

    args = {"y_true": pd.Series([1, 0, 1, 0]), "y_prob": pd.Series([0.9, 0.2, 0.6, 0.4]),
            "sample_weight": pd.Series([1.0, 2.0, 1.0, 3.0])}
    args[which] = args[which].iloc[::-1]
    for fn in (log_loss, rig_score, calibration_ratio):
        with pytest.raises(ValueError, match=f"`{which}`"):
            fn(args["y_true"], args["y_prob"], sample_weight=args["sample_weight"])
