"""log_loss, rig_score, the residual measures (MSE, RMSE, NMSE, MAE, MAD), prediction_error,
calibration_ratio, pos_label and the quantile breakdown.

Each metric is checked against a plain-Python loop written here, against
scikit-learn where it has the metric, and against the identities yi state
(Sections 2.2 and 4.2-4.5).
"""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

from offline_eval import OfflineEvalWarning
from offline_eval.metrics import (
    calibration_ratio,
    log_loss,
    mean_absolute_error,
    mean_squared_error,
    median_absolute_error,
    normalized_mean_squared_error,
    prediction_error,
    quantile_breakdown,
    rig_score,
    roc_auc_score,
    root_mean_squared_error,
)


# -- slow, obviously right references --------------------------------------------------
def ref_metrics(y, p, w=None):
    """Every metric by a loop over rows, straight from the paper's formulas."""
    w = [1.0] * len(y) if w is None else list(w)
    W = sum(w)
    ll = sq = ab = sp = sy = 0.0
    for yi, pi, wi in zip(y, p, w):
        ll += wi * (-(yi * math.log(pi)) - (1 - yi) * math.log(1 - pi))
        sq += wi * (yi * (1 - pi) ** 2 + (1 - yi) * pi**2)  # yi Section 4.3 form
        ab += wi * abs(pi - yi)
        sp += wi * pi
        sy += wi * yi
    gamma = sy / W
    ent = -gamma * math.log(gamma) - (1 - gamma) * math.log(1 - gamma)
    return dict(
        log_loss=ll / W,
        rig=1 - (ll / W) / ent,  # yi eq. (2)
        mse=sq / W,
        nmse=(sq / W) / (gamma * (1 - gamma)),
        mae=ab / W,
        prediction_error=(sp / W) / gamma - 1,
        calibration_ratio=(sp / W) / gamma,
    )


FUNCS = dict(
    log_loss=log_loss, rig=rig_score, mse=mean_squared_error, nmse=normalized_mean_squared_error, mae=mean_absolute_error,
    prediction_error=prediction_error, calibration_ratio=calibration_ratio,
)


def _sample(rng, n, ctr=0.1):
    p = np.clip(rng.beta(1, 1 / ctr - 1, n), 1e-6, 1 - 1e-6)
    y = (rng.random(n) < p).astype(int)
    y[:2] = [0, 1]
    return y, p


@pytest.mark.parametrize("name", sorted(FUNCS))
@pytest.mark.parametrize("ctr", [0.01, 0.2, 0.6])
def test_metric_equals_loop_reference(rng, name, ctr):
    y, p = _sample(rng, 200, ctr)
    assert FUNCS[name](y, p) == pytest.approx(ref_metrics(y, p)[name], rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_weighted_metric_equals_loop_reference(rng, name):
    y, p = _sample(rng, 150)
    w = rng.exponential(size=150)
    assert FUNCS[name](y, p, sample_weight=w) == pytest.approx(ref_metrics(y, p, w)[name], rel=1e-12, abs=1e-14)


def test_against_sklearn(rng):
    y, p = _sample(rng, 500)
    w = rng.integers(0, 4, 500).astype(float)
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p, labels=[0, 1]), rel=1e-12)
    assert log_loss(y, p, sample_weight=w) == pytest.approx(sk_log_loss(y, p, sample_weight=w, labels=[0, 1]), rel=1e-12)
    assert mean_squared_error(y, p) == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    assert mean_squared_error(y, p, sample_weight=w) == pytest.approx(brier_score_loss(y, p, sample_weight=w), rel=1e-12)
    assert mean_absolute_error(y, p) == pytest.approx(skm.mean_absolute_error(y, p), rel=1e-12)
    assert mean_absolute_error(y, p, sample_weight=w) == pytest.approx(skm.mean_absolute_error(y, p, sample_weight=w), rel=1e-12)


def test_residual_measures_of_any_response_against_sklearn(rng):
    # one name per measure: the same functions serve clicks (yi) and numeric responses (rosset)
    y = rng.lognormal(3, 1, 300)
    m = y * rng.lognormal(0, 0.5, 300)
    w = rng.exponential(size=300)
    for ours, theirs in ((mean_squared_error, skm.mean_squared_error), (mean_absolute_error, skm.mean_absolute_error)):
        assert ours(y, m) == pytest.approx(theirs(y, m), rel=1e-12)
        assert ours(y, m, sample_weight=w) == pytest.approx(theirs(y, m, sample_weight=w), rel=1e-12)
    assert root_mean_squared_error(y, m) == pytest.approx(math.sqrt(skm.mean_squared_error(y, m)), rel=1e-12)
    assert median_absolute_error(y, m) == pytest.approx(skm.median_absolute_error(y, m), rel=1e-12)
    var = np.average((y - np.average(y, weights=w)) ** 2, weights=w)
    assert normalized_mean_squared_error(y, m, sample_weight=w) == pytest.approx(
        skm.mean_squared_error(y, m, sample_weight=w) / var, rel=1e-12)
    assert normalized_mean_squared_error(y, m) == pytest.approx(1 - skm.r2_score(y, m), rel=1e-12)


@pytest.mark.parametrize("labels, pos", [(["no", "yes"], "yes"), ([-1, 1], 1), ([False, True], True), ([3, 7], 3)])
def test_pos_label_equals_the_zero_one_coding(rng, labels, pos):
    y01, p = _sample(rng, 300)
    neg = [v for v in labels if v != pos][0]
    y = np.array([pos if v else neg for v in y01], dtype=object if isinstance(pos, str) else None)
    for f in (log_loss, rig_score, calibration_ratio, prediction_error, roc_auc_score):
        assert f(y, p, pos_label=pos) == f(y01, p), f.__name__
    assert roc_auc_score(y, p, pos_label=pos) == pytest.approx(skm.roc_auc_score(y == pos, p), rel=1e-12)


def test_pos_label_errors_name_the_argument():
    with pytest.raises(ValueError, match="pos_label"):
        log_loss(["a", "b"], [0.2, 0.3])  # strings need pos_label
    with pytest.raises(ValueError, match="`pos_label` 'c' is not one of the labels"):
        log_loss(["a", "b"], [0.2, 0.3], pos_label="c")
    with pytest.raises(ValueError, match="at most two labels"):
        roc_auc_score(["a", "b", "c"], [0.2, 0.3, 0.1], pos_label="a")
    with pytest.raises(ValueError, match="0 and 1.*pos_label"):
        log_loss([-1, 1], [0.2, 0.3])


def test_scalar_metrics_return_python_float():
    for f in FUNCS.values():
        assert type(f([0, 1, 0], [0.2, 0.7, 0.4])) is float


# -- the paper's identities ------------------------------------------------------------
def test_rig_of_constant_ctr_predictor_is_zero(rng):
    # yi eq. (2): log-loss of p = gamma equals the entropy of gamma
    y, _ = _sample(rng, 1000)
    gamma = y.mean()
    assert rig_score(y, np.full(len(y), gamma)) == pytest.approx(0.0, abs=1e-12)


def test_rig_of_perfect_predictor_is_one():
    y = np.array([0, 1, 1, 0, 0])
    assert rig_score(y, y.astype(float), eps=0) == 1.0


def test_nmse_is_mse_over_label_variance(rng):
    y, p = _sample(rng, 400)
    g = y.mean()
    assert normalized_mean_squared_error(y, p) == pytest.approx(mean_squared_error(y, p) / (g * (1 - g)), rel=1e-13)
    assert normalized_mean_squared_error(y, np.full(len(y), g)) == pytest.approx(1.0, rel=1e-12)


def test_squared_error_binary_identity(rng):
    # yi Section 2.2: (y - p)^2 = y (1 - p)^2 + (1 - y) p^2 for y in {0, 1}
    y, p = _sample(rng, 300)
    assert mean_squared_error(y, p) == pytest.approx(np.mean(y * (1 - p) ** 2 + (1 - y) * p**2), rel=1e-13)


def test_prediction_error_of_calibrated_model_is_near_zero():
    # clicks drawn from the model's own probabilities: PE -> 0 (standard error ~ 1/sqrt(clicks))
    rng = np.random.default_rng(7)
    p = rng.beta(0.5, 20, 400_000)
    y = (rng.random(p.size) < p).astype(int)
    assert abs(prediction_error(y, p)) < 0.02
    assert calibration_ratio(y, p) == pytest.approx(1 + prediction_error(y, p), rel=1e-12)


def test_prediction_error_hides_compensating_errors():
    # yi Section 4.5: over- and under-estimates cancel; PE is 0 though every prediction is off
    y = [1, 0, 1, 0]
    p = [0.9, 0.1, 0.1, 0.9]
    assert prediction_error(y, p) == 0.0
    assert mean_absolute_error(y, p) == pytest.approx(0.5)


def test_rig_decreases_with_log_loss(rng):
    y, p = _sample(rng, 300)
    q = np.clip(p * 1.5, 0, 1 - 1e-9)
    assert (rig_score(y, p) - rig_score(y, q)) * (log_loss(y, q) - log_loss(y, p)) >= 0


# -- clipping -------------------------------------------------------------------------
def test_log_loss_clips_confident_wrong_predictions():
    assert log_loss([1], [0.0]) == pytest.approx(-math.log(1e-15), rel=1e-12)
    # 1 - 1e-15 rounds to the nearest double, so the no-click side agrees to ~1e-5 only
    assert log_loss([0], [1.0]) == pytest.approx(-math.log(1e-15), rel=1e-4)
    assert log_loss([1, 0], [0.0, 1.0], eps=1e-3) == pytest.approx(-math.log(1e-3))
    assert log_loss([1], [0.0], eps=0) == math.inf
    assert log_loss([0, 1], [0.0, 1.0], eps=0) == 0.0


def test_clipping_does_not_touch_interior_probabilities(rng):
    y, p = _sample(rng, 100)
    p = np.clip(p, 1e-3, 1 - 1e-3)
    assert log_loss(y, p) == log_loss(y, p, eps=0)


# -- bad inputs and undefined cases ---------------------------------------------------
@pytest.mark.parametrize("f", list(FUNCS.values()), ids=list(FUNCS))
def test_invalid_inputs_raise(f):
    residual = f in (mean_squared_error, normalized_mean_squared_error, mean_absolute_error)
    if residual:  # a measure of any numeric response: no [0, 1] or 0/1 restriction, `y_pred` named
        assert f([0, 2], [0.5, 1.2]) > 0
        with pytest.raises(ValueError, match="`y_pred` must be finite; got 1 NaN"):
            f([0, 1], [0.5, np.nan])
    else:
        with pytest.raises(ValueError, match="`y_prob` must lie in \\[0, 1\\]"):
            f([0, 1], [0.5, 1.2])
        with pytest.raises(ValueError, match="`y_prob` must be finite; got 1 NaN"):
            f([0, 1], [0.5, np.nan])
        with pytest.raises(ValueError, match="`y_true` must contain only 0 and 1"):
            f([0, 2], [0.5, 0.5])
    with pytest.raises(ValueError, match="same length"):
        f([0, 1, 0], [0.5, 0.5])
    with pytest.raises(ValueError, match="`sample_weight` must be non-negative"):
        f([0, 1], [0.5, 0.5], sample_weight=[1, -1])
    with pytest.raises(ValueError, match="`sample_weight` must not be all zero"):
        f([0, 1], [0.5, 0.5], sample_weight=[0, 0])
    with pytest.raises(ValueError, match="`y_true` must not be empty"):
        f([], [])


@pytest.mark.parametrize("eps", [-1e-3, 0.5, "small", None])
def test_bad_eps_raises(eps):
    with pytest.raises(ValueError, match=r"`eps` must be a finite number in \[0, 0.5\)"):
        log_loss([0, 1], [0.2, 0.8], eps=eps)


@pytest.mark.parametrize("f", [rig_score, normalized_mean_squared_error])
@pytest.mark.parametrize("y", [[0, 0, 0], [1, 1, 1]])
def test_one_class_is_undefined(f, y):
    with pytest.warns(OfflineEvalWarning, match="undefined"):
        assert math.isnan(f(y, [0.2, 0.3, 0.4]))


@pytest.mark.parametrize("f", [prediction_error, calibration_ratio])
def test_no_click_is_undefined(f):
    with pytest.warns(OfflineEvalWarning, match="no click"):
        assert math.isnan(f([0, 0], [0.2, 0.3]))


def test_all_clicks_is_defined_for_ratio():
    assert calibration_ratio([1, 1], [0.5, 1.0]) == 0.75


# -- property tests -------------------------------------------------------------------
probs = st.lists(st.floats(1e-6, 1 - 1e-6), min_size=2, max_size=40)


@settings(max_examples=60, deadline=None)
@given(probs, st.data())
def test_zero_weight_equals_dropping_the_row(p, data):
    n = len(p)
    y = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    y[0], y[1] = 0, 1
    assume(n > 2)
    drop = data.draw(st.integers(2, n - 1))
    w = np.ones(n)
    w[drop] = 0
    keep = np.arange(n) != drop
    ya, pa = np.array(y), np.array(p)
    for name, f in FUNCS.items():
        assert f(ya, pa, sample_weight=w) == pytest.approx(f(ya[keep], pa[keep]), rel=1e-9, abs=1e-12), name


@settings(max_examples=60, deadline=None)
@given(probs, st.data())
def test_bounds_and_integer_weights_equal_repetition(p, data):
    n = len(p)
    y = np.array(data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    y[:2] = [0, 1]
    p = np.array(p)
    k = np.array(data.draw(st.lists(st.integers(1, 3), min_size=n, max_size=n)))
    assert 0 <= mean_squared_error(y, p) <= mean_absolute_error(y, p) <= 1  # squared error <= absolute error on [0, 1]
    assert log_loss(y, p) >= 0
    assert rig_score(y, p) <= 1
    for name, f in FUNCS.items():
        assert f(y, p, sample_weight=k) == pytest.approx(f(np.repeat(y, k), np.repeat(p, k)), rel=1e-9, abs=1e-12), name


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 0.99), st.integers(5, 60))
def test_constant_ctr_predictor_rig_zero_nmse_one(ctr, n):
    clicks = max(1, min(n - 1, round(ctr * n)))
    y = np.r_[np.ones(clicks), np.zeros(n - clicks)]
    g = clicks / n
    assert rig_score(y, np.full(n, g)) == pytest.approx(0.0, abs=1e-9)
    assert normalized_mean_squared_error(y, np.full(n, g)) == pytest.approx(1.0, rel=1e-9)
    assert prediction_error(y, np.full(n, g)) == pytest.approx(0.0, abs=1e-12)


# -- quantile breakdown ---------------------------------------------------------------
def breakdown_loop(y, p, by, q):
    """Reference: rank rows by `by`, cut into q equal-count bins, ties to the first row's bin."""
    order = sorted(range(len(y)), key=lambda i: (by[i], i))
    n = len(y)
    bins = {}
    for pos, i in enumerate(order):
        bins[i] = min(q * pos // n, q - 1)
    first = {}
    for pos, i in enumerate(order):
        first.setdefault(by[i], bins[i])
    rows = []
    total_ll = sum(-(y[i] * math.log(p[i]) + (1 - y[i]) * math.log(1 - p[i])) for i in range(n))
    for b in range(q):
        idx = [i for i in range(n) if first[by[i]] == b]
        if not idx:
            continue
        ys, ps = [y[i] for i in idx], [p[i] for i in idx]
        ll = [-(a * math.log(c) + (1 - a) * math.log(1 - c)) for a, c in zip(ys, ps)]
        rows.append(dict(quantile=b + 1, weight=len(idx), clicks=sum(ys), avg_pclick=sum(ps) / len(ps),
                         log_loss=sum(ll) / len(ll), log_loss_share=sum(ll) / total_ll,
                         mse=sum((a - c) ** 2 for a, c in zip(ys, ps)) / len(ys),
                         score_lo=min(by[i] for i in idx), score_hi=max(by[i] for i in idx)))
    return pd.DataFrame(rows)


@pytest.mark.parametrize("q", [1, 4, 10])
@pytest.mark.parametrize("distinct", [None, 6])
def test_breakdown_equals_loop_reference(rng, q, distinct):
    n = 120
    p = rng.uniform(0.01, 0.5, n)
    y = (rng.random(n) < p).astype(int)
    by = p if distinct is None else rng.integers(0, distinct, n).astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # bins without clicks are legal here
        got = quantile_breakdown(y, p, n_quantiles=q, by=by)
    ref = breakdown_loop(list(y), list(p), list(by), q)
    assert got["quantile"].tolist() == ref["quantile"].tolist()
    for col in ref.columns:
        np.testing.assert_allclose(got[col].to_numpy(float), ref[col].to_numpy(float), rtol=1e-12, err_msg=col)
    assert got["log_loss_share"].sum() == pytest.approx(1.0)
    assert got["weight"].sum() == n


def test_breakdown_bins_agree_with_scalar_metrics(rng):
    y, p = _sample(rng, 5000, ctr=0.2)
    t = quantile_breakdown(y, p, n_quantiles=5)
    edges = np.quantile(p, [0.2, 0.4, 0.6, 0.8])
    b = np.searchsorted(edges, p, side="right")
    for k, row in t.iterrows():
        sel = b == k
        assert row["weight"] == sel.sum()
        assert row["rig"] == pytest.approx(rig_score(y[sel], p[sel]), rel=1e-12)
        assert row["prediction_error"] == pytest.approx(prediction_error(y[sel], p[sel]), rel=1e-12)
        assert row["mae"] == pytest.approx(mean_absolute_error(y[sel], p[sel]), rel=1e-12)
    assert (t["score_lo"].to_numpy()[1:] > t["score_hi"].to_numpy()[:-1]).all()


def test_breakdown_never_splits_a_tie():
    p = np.array([0.1] * 6 + [0.2] * 2 + [0.3] * 2)
    y = np.array([0, 1] * 5)
    t = quantile_breakdown(y, p, n_quantiles=4)
    assert t["weight"].tolist() == [6, 2, 2]
    # sorted positions 0-5 tie at 0.1 and all join bin 1; 0.2 starts at position 6 -> bin 3
    assert t["quantile"].tolist() == [1, 3, 4]


def test_breakdown_warns_on_bins_without_clicks():
    with pytest.warns(OfflineEvalWarning, match="hold no click"):
        t = quantile_breakdown([0, 0, 1, 0], [0.1, 0.2, 0.3, 0.4], n_quantiles=2)
    assert math.isnan(t["calibration_ratio"].iloc[0])


def test_breakdown_rejects_bad_arguments():
    with pytest.raises(ValueError, match="`n_quantiles` must be a positive integer"):
        quantile_breakdown([0, 1], [0.2, 0.3], n_quantiles=0)
    with pytest.raises(ValueError, match="same length"):
        quantile_breakdown([0, 1], [0.2, 0.3], by=[1.0])
    with pytest.raises(ValueError, match="`by` must be finite"):
        quantile_breakdown([0, 1], [0.2, 0.3], by=[1.0, np.inf])


# -- one log loss, one default eps (issue 49) ----------------------------------------------------------------------------
def _callables_with_eps():
    """``(qualified name, default)`` of every public function and method of the library with an ``eps``."""
    import importlib
    import inspect
    import pkgutil

    import offline_eval

    seen = set()
    for info in pkgutil.walk_packages(offline_eval.__path__, "offline_eval."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            targets = [obj] + [v for v in vars(obj).values()] if inspect.isclass(obj) else [obj]
            for t in targets:
                fn = t.__func__ if isinstance(t, (classmethod, staticmethod)) else t
                if callable(fn) and id(fn) not in seen:
                    seen.add(id(fn))
                    try:
                        params = inspect.signature(fn).parameters
                    except (TypeError, ValueError):
                        continue
                    if "eps" in params:
                        yield f"{info.name}.{getattr(fn, '__qualname__', name)}", params["eps"].default


def test_every_eps_defaults_to_the_one_constant():
    # before issue 49 ondask.clustered_bootstrap defaulted to None, filled in deep inside; every default is now the
    # one constant of the log loss's engine, so a change of it reaches every path
    from offline_eval import _losses

    found = dict(_callables_with_eps())
    assert {"offline_eval.metrics.log_loss", "offline_eval.ondask.clustered_bootstrap",
            "offline_eval.logboot.clustered_bootstrap", "offline_eval.mergeable.LossSums.from_arrays"} <= set(found)
    assert {k: v for k, v in found.items() if v is not _losses.LOG_LOSS_EPS} == {}


def test_the_log_loss_is_computed_in_one_engine():
    # a log loss is a log1p of a negated probability (the non-clicks' term); only _losses takes one
    import ast
    from pathlib import Path

    import offline_eval

    src = Path(offline_eval.__file__).parent
    offenders = []
    for path in sorted(src.rglob("*.py")):
        if path.name == "_losses.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "log1p" and node.args:
                arg = node.args[0]
                negated = isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub) or (
                    isinstance(arg, ast.Call) and ast.unparse(arg.func).split(".")[-1] == "negative")
                if negated or any(k.arg == "out" for k in node.keywords):
                    offenders.append(f"{path.relative_to(src)}:{node.lineno}: {ast.unparse(node)}")
    assert offenders == []
