"""Behaviour of the loss engine (`_losses`, `_metrics_losses`) that mutation testing found unchecked: the
Bernoulli entropies, the checks of `eps` and `labels`, RIG's one-class case under weights, extreme weights, the
matrix log loss's checks and tolerance, and the quantile breakdown's columns, bins (as many as the rows or more,
exact for integer and equal weights, snapped for fractional ones), one-class bins and warnings (`make mutation`;
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


def test_log_likelihood_masked_cells_are_zero_whatever_the_memory_held():
    # the masked cells are written, not left as numpy's fresh memory: freed blocks of 7.5 are offered first
    from offline_eval._losses import log_likelihood

    p = np.array([0.2, 1.0, 0.0, 0.7])
    where = np.array([True, False, False, True])
    for positive in (True, False):
        for _ in range(20):
            junk = np.full(4, 7.5)
            del junk
            got = log_likelihood(p, positive, 0.0, where=where)
            assert got[1] == 0.0 and got[2] == 0.0


def test_extreme_weights_only_their_ratios_matter():
    # weights near 1e308 overflow a plain sum (8 * 2**1022), multiples of 5e-324 underflow a product: scaled by a
    # power of two first, they give the bits of the weights 1, 2, 1, 3, 1
    y, p = np.array([1, 0, 1, 0, 0]), np.array([0.9, 0.2, 0.6, 0.4, 0.1])
    w = np.array([1.0, 2.0, 1.0, 3.0, 1.0])
    for fn in (log_loss, rig_score, calibration_ratio, prediction_error):
        want = fn(y, p, sample_weight=w)
        for scale in (2.0**1022, 2.0**-1074):
            assert fn(y, p, sample_weight=w * scale) == want, (fn.__name__, scale)


@pytest.mark.parametrize("fn", [log_loss, rig_score, calibration_ratio])
def test_misaligned_pandas_labels_and_probabilities_are_named_both(fn):
    import pandas as pd

    y, p = pd.Series([1, 0, 1, 0]), pd.Series([0.9, 0.2, 0.6, 0.4])
    with pytest.raises(ValueError, match=r"^`y_true` and `y_prob` are pandas objects with different indexes"):
        fn(y, p.iloc[::-1])


# -- the log loss of a probability matrix -------------------------------------------------------------------------
P2 = [[0.5, 0.5], [0.2, 0.8], [0.9, 0.1]]


def test_matrix_log_loss_eps_is_checked_by_name_within_zero_to_a_half():
    for bad in (0.5, 0.6, 1.5, -1e-3):
        with pytest.raises(ValueError, match=r"^`eps` must be a finite number in \[0, 0.5\); got "):
            log_loss([0, 1, 0], P2, eps=bad)
    # eps=0 is allowed and unclipped: a zero probability of the row's own class costs infinity
    assert log_loss([0, 1, 1], P2, eps=0) == pytest.approx((math.log(2) - math.log(0.8) - math.log(0.1)) / 3,
                                                           rel=1e-15)
    assert log_loss([0, 1], [[1.0, 0.0], [1.0, 0.0]], eps=0) == math.inf
    assert log_loss([0, 1], [[1.0, 0.0], [1.0, 0.0]], eps=0.25) == pytest.approx(
        -(math.log(0.75) + math.log(0.25)) / 2, rel=1e-15)


def test_matrix_rows_are_checked_at_the_precision_they_came_in():
    # scikit-learn's tolerance: sqrt(eps) of the input's float type; a float32 row off by 1e-5 is a distribution
    p32 = np.array([[0.5, 0.50001], [0.3, 0.7]], dtype=np.float32)
    own = np.array([0.5, 0.7], dtype=np.float32).astype(np.float64)
    assert log_loss([0, 1], p32) == pytest.approx(-np.log(own).mean(), rel=1e-15)
    with pytest.raises(ValueError, match=r"^`y_prob` must be a probability matrix whose rows sum to 1 "
                                         r"\(within 1\.49e-08"):
        log_loss([0, 1], p32.astype(np.float64))
    # integers are checked at float64's tolerance: one-hot rows are probabilities
    assert log_loss([0, 1], np.array([[1, 0], [0, 1]])) == pytest.approx(-math.log(1 - 1e-15), rel=1e-12)


@pytest.mark.parametrize("call, message", [
    (lambda: log_loss([[0, 1], [1, 0]], P2[:2]), r"^`y_true` must be 1-D; got an array of shape \(2, 2\)"),
    (lambda: log_loss([0, 1], P2), r"^inputs must have the same length; `y_true` has 2, `y_prob` has 3"),
    (lambda: log_loss([0, 1, 0, 1], P2), r"^inputs must have the same length; `y_true` has 4, `y_prob` has 3"),
    (lambda: log_loss([0, 1, 2], P2), r"^`y_true` holds 3 classes \[0, 1, 2\] but `y_prob` has 2 columns"),
    (lambda: log_loss([0, 1, 0], P2, labels=[0, 1, 2]), r"^`labels` has 3 labels but `y_prob` has 2 columns"),
])
def test_matrix_log_loss_errors_name_their_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_matrix_log_loss_refuses_misaligned_pandas_inputs_by_name():
    import pandas as pd

    y, p, w = pd.Series([0, 1, 0]), pd.DataFrame(P2), pd.Series([1.0, 2.0, 3.0])
    assert log_loss(y, p, sample_weight=w) == pytest.approx(
        -(math.log(0.5) + 2 * math.log(0.8) + 3 * math.log(0.9)) / 6, rel=1e-15)
    with pytest.raises(ValueError, match=r"^`y_true` and `y_prob` are pandas objects with different indexes"):
        log_loss(y, p.iloc[::-1])
    with pytest.raises(ValueError, match=r"^`y_true` and `sample_weight` are pandas objects with different indexes"):
        log_loss(y, p, sample_weight=w.iloc[::-1])
    with pytest.raises(ValueError, match=r"^`y_prob` and `sample_weight` are pandas objects with different indexes"):
        log_loss(y.to_numpy(), p, sample_weight=w.iloc[::-1])


def test_matrix_that_numpy_cannot_convert_is_refused_by_name():
    class TwoDimensional:  # claims two dimensions (as a DataFrame does) but is no array
        ndim = 2

        def __array__(self, dtype=None, copy=None):
            raise ValueError("setting an array element with a sequence")

    with pytest.raises(ValueError, match=r"^`y_prob` is ragged"):
        log_loss([0, 1], TwoDimensional())


# -- quantile_breakdown ---------------------------------------------------------------------------------------------
COLUMNS = ["quantile", "score_lo", "score_hi", "weight", "clicks", "ctr", "avg_pclick", "log_loss", "log_loss_share",
           "rig", "mse", "mae", "prediction_error", "calibration_ratio"]


def test_breakdown_columns_defaults_and_a_hand_worked_case():
    # the documented columns, in order, on a plain RangeIndex; ten bins by default
    y, p = [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]
    t = quantile_breakdown(np.tile([0, 1], 15), np.linspace(0.02, 0.98, 30))
    assert list(t.columns) == COLUMNS and t["quantile"].tolist() == list(range(1, 11))
    assert t.index.tolist() == list(range(10))
    with pytest.warns(OfflineEvalWarning, match=r"^1 bin\(s\) hold no click and 2 bin\(s\) have zero entropy"):
        t = quantile_breakdown(y, p, n_quantiles=2)
    loss = -math.log(0.9) - math.log(0.8)  # each bin: -log 0.9 and -log 0.8, one row of each
    assert t["log_loss"].tolist() == pytest.approx([loss / 2] * 2, rel=1e-15)
    assert t["log_loss_share"].tolist() == pytest.approx([0.5, 0.5], rel=1e-15)  # the total is below 1 nat
    assert t["mse"].tolist() == pytest.approx([0.025] * 2, rel=1e-15)
    assert t["mae"].tolist() == pytest.approx([0.15] * 2, rel=1e-15)
    assert t["ctr"].tolist() == [0.0, 1.0]
    # one class per bin: zero entropy, so RIG is undefined in both; the calibration ratio where there is no click
    assert t["rig"].isna().all()
    assert math.isnan(t["calibration_ratio"][0]) and t["calibration_ratio"][1] == pytest.approx(0.85, rel=1e-15)


def test_breakdown_warns_when_only_entropy_is_zero():
    # every bin has a click (the ratios are defined) but the top bin has nothing else: its RIG alone is nan
    with pytest.warns(OfflineEvalWarning, match=r"^0 bin\(s\) hold no click and 1 bin\(s\) have zero entropy"):
        t = quantile_breakdown([1, 0, 1, 1], [0.2, 0.3, 0.6, 0.9], n_quantiles=2)
    assert math.isnan(t["rig"][1]) and not math.isnan(t["rig"][0])
    assert t["calibration_ratio"].tolist() == pytest.approx([0.25 / 0.5, 0.75], rel=1e-15)


def test_breakdown_of_perfect_predictions_has_no_loss_to_share():
    with pytest.warns(OfflineEvalWarning):
        t = quantile_breakdown([0, 1, 0], [0.0, 1.0, 0.0], eps=0, n_quantiles=2)
    assert t["log_loss"].tolist() == [0.0, 0.0]
    share = t["log_loss_share"].to_numpy()
    assert share.dtype == np.float64 and np.isnan(share).all()


def test_breakdown_eps_is_checked_by_name_and_reaches_the_loss():
    y, p = [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]
    for bad in (0.5, 0.6, 1.5, -1e-3):
        with pytest.raises(ValueError, match=r"^`eps` must be a finite number in \[0, 0.5\); got "):
            quantile_breakdown(y, p, eps=bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        assert quantile_breakdown(y, [0.0, 1.0, 0.0, 1.0], eps=0, n_quantiles=1)["log_loss"][0] == 0.0
        assert quantile_breakdown(y, p, eps=0.25, n_quantiles=1)["log_loss"][0] == pytest.approx(-math.log(0.75),
                                                                                                    rel=1e-15)


def test_breakdown_n_quantiles_is_bounded_by_max_of_rows_and_1000():
    y, p = [0, 1, 0, 1, 1], [0.1, 0.9, 0.2, 0.8, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        t = quantile_breakdown(y, p, n_quantiles=1000)  # more bins than rows: each row alone, the rest empty
    assert t["weight"].tolist() == [1.0] * 5 and t["quantile"].tolist() == [1, 201, 401, 601, 801]
    with pytest.raises(ValueError, match=r"^`n_quantiles` must be at most max\(rows, 1000\) = 1000; got 1001$"):
        quantile_breakdown(y, p, n_quantiles=1001)
    y, p = np.tile([0, 1], 600), np.linspace(0.1, 0.9, 1200)
    with pytest.raises(ValueError, match=r"^`n_quantiles` must be at most max\(rows, 1000\) = 1200; got 1201$"):
        quantile_breakdown(y, p, n_quantiles=1201)


@pytest.mark.parametrize("weighted", [False, True])
def test_breakdown_with_as_many_bins_as_rows_or_more_puts_each_row_alone(weighted):
    # the bins of sorted position r: floor(q r / n); with q >= n no two rows share one
    y, p = np.array([0, 1, 1, 0, 1, 0, 0]), np.array([0.5, 0.9, 0.2, 0.4, 0.7, 0.1, 0.3])
    w = np.full(7, 3.0) if weighted else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for q in (7, 9, 20):
            t = quantile_breakdown(y, p, n_quantiles=q, sample_weight=w)
            assert t["quantile"].tolist() == [q * r // 7 + 1 for r in range(7)]
            assert t["score_lo"].tolist() == sorted(p) and t["score_hi"].tolist() == sorted(p)
            assert t["clicks"].tolist() == [float(y[i]) * (3.0 if weighted else 1.0) for i in np.argsort(p)]


def test_breakdown_labels_with_pos_label():
    y, p = np.array([0, 1, 0, 1, 1, 0]), np.array([0.1, 0.9, 0.2, 0.8, 0.5, 0.3])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        got = quantile_breakdown(np.where(y == 1, "click", "skip"), p, pos_label="click", n_quantiles=2)
        ref = quantile_breakdown(y, p, n_quantiles=2)
    for column in COLUMNS:
        np.testing.assert_array_equal(got[column], ref[column], err_msg=column)


def test_breakdown_by_is_checked_by_name():
    import pandas as pd

    y, p = pd.Series([0, 1, 0, 1]), pd.Series([0.1, 0.9, 0.2, 0.8])
    with pytest.raises(ValueError, match=r"^`y_true` and `by` are pandas objects with different indexes"):
        quantile_breakdown(y, p, by=pd.Series([0.4, 0.3, 0.2, 0.1]).iloc[::-1])
    with pytest.raises(ValueError, match=r"^`by` must be 1-D; got an array of shape \(2, 2\)"):
        quantile_breakdown(y, p, by=[[1.0, 2.0], [3.0, 4.0]])
    with pytest.raises(ValueError, match=r"^inputs must have the same length; `y_true` has 4, `by` has 3"):
        quantile_breakdown(y, p, by=[1.0, 2.0, 3.0])


def test_breakdown_raises_no_numpy_warning_over_empty_bins():
    # a tie of four rows leaves bin 2 of 3 empty: its 0/0 is not computed aloud, and it is left out
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        t = quantile_breakdown([0, 1, 0, 1, 0, 1], [0.1, 0.1, 0.1, 0.1, 0.7, 0.8], n_quantiles=3)
    assert t["quantile"].tolist() == [1, 3] and t["weight"].tolist() == [4.0, 2.0]


def test_breakdown_raises_no_numpy_warning_where_a_ctr_underflows():
    # a click of weight 1e-323 beside four of weight 1: its bin's CTR underflows to 0 while it holds a click; the
    # calibration ratio is then undefined (nan), as calibration_ratio of the same rows says, without a numpy warning
    y, p, w = [0, 0, 0, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 1, 1e-323]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(OfflineEvalWarning, match=r"^1 bin\(s\) hold no click and 1 bin\(s\) have zero entropy"):
            t = quantile_breakdown(y, p, sample_weight=w, n_quantiles=1)
        with pytest.warns(OfflineEvalWarning, match=r"no click \(CTR 0\)"):
            assert math.isnan(calibration_ratio(y, p, sample_weight=w))
    assert t["ctr"][0] == 0.0 and t["clicks"][0] == 1e-323
    assert math.isnan(t["calibration_ratio"][0]) and math.isnan(t["prediction_error"][0])


def test_breakdown_integer_weights_are_binned_exactly():
    # the second row starts at q W_< / W = 2**48 / (2**48 + 1), about 2**-48 below 1: bin 1, not bin 2; integer
    # weights are exact, nothing is snapped
    w = [2.0**47, 1.0, 2.0**47]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        t = quantile_breakdown([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=w, n_quantiles=2)
    assert t["weight"].tolist() == [2.0**47 + 1, 2.0**47]


@pytest.mark.parametrize("n, q", [(10, 5), (12, 2), (9, 3)])
def test_breakdown_equal_fractional_weights_equal_no_weights(n, q):
    # weights of 0.1: the boundaries are integers in exact arithmetic, one float rounding below them in floats
    rng = np.random.default_rng(n)
    y, p = np.r_[0, 1, rng.integers(0, 2, n - 2)], rng.permutation(np.linspace(0.05, 0.95, n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        got = quantile_breakdown(y, p, sample_weight=np.full(n, 0.1), n_quantiles=q)
        ref = quantile_breakdown(y, p, n_quantiles=q)
    assert got["quantile"].tolist() == ref["quantile"].tolist() == list(range(1, q + 1))
    np.testing.assert_allclose(got["weight"], 0.1 * ref["weight"], rtol=1e-15)
    for column in ["score_lo", "score_hi", "ctr", "avg_pclick", "log_loss", "log_loss_share", "rig", "mse", "mae"]:
        np.testing.assert_allclose(got[column], ref[column], rtol=1e-14, equal_nan=True, err_msg=column)


def test_breakdown_a_last_weight_too_small_to_move_the_total_stays_in_the_top_bin():
    # W_< / W rounds to 1 for the last row: its bin is still the last one, q - 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        t = quantile_breakdown([0, 1], [0.2, 0.7], sample_weight=[1.0, 1e-20], n_quantiles=2)
    assert t["quantile"].tolist() == [1, 2] and t["weight"].tolist() == [1.0, 1e-20]


def test_equal_count_bins_follow_floor_of_q_i_over_n_exactly():
    # 1,084,647 rows in 1000 bins: at i = 1,066,208, q i / n = 983 - 1/n, 9.2e-7 below an integer, inside the
    # (n + 1) 2**-50 relative tolerance that snaps the boundaries of rounded weights (9.5e-7 here); equal weights
    # are exact, so that row stays in bin 983 (1-based), not 984
    n, q = 1_084_647, 1000
    y = np.zeros(n, np.int8)
    y[::2] = 1
    t = quantile_breakdown(y, (np.arange(n) + 0.5) / n, n_quantiles=q)
    want = np.bincount(q * np.arange(n, dtype=np.int64) // n, minlength=q)
    np.testing.assert_array_equal(t["weight"], want)
