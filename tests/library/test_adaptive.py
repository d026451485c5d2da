"""Tests of offline_eval.adaptive: joint distributions and online adaptive metrics (piovano)."""

import doctest
import warnings

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, precision_score, recall_score

from offline_eval import OfflineEvalWarning, adaptive
from offline_eval.adaptive import (
    bootstrap_oam_accuracy,
    joint_distribution,
    metrics_from_joint,
    online_adaptive_metrics,
    reweighted_joint,
)

SEEDS = range(6)


# -- slow, obviously-correct references ---------------------------------------------------------
def slow_joint(b, c, g=None, k=None):
    n = len(b)
    if g is None:
        m = np.zeros((k, k))
        for t in range(n):
            m[b[t], c[t]] += 1.0 / n
    else:
        m = np.zeros((k, k, k))
        for t in range(n):
            m[b[t], c[t], g[t]] += 1.0 / n
    return m


def slow_metrics_from_labels(hyp, g, k):
    """Per-item loops: accuracy, recall[k], precision[k] of one model."""
    acc = sum(hyp[t] == g[t] for t in range(len(g))) / len(g)
    rec, prec = np.full(k, np.nan), np.full(k, np.nan)
    for cls in range(k):
        n_true = sum(g[t] == cls for t in range(len(g)))
        n_pred = sum(hyp[t] == cls for t in range(len(g)))
        hit = sum(g[t] == cls and hyp[t] == cls for t in range(len(g)))
        if n_true:
            rec[cls] = hit / n_true
        if n_pred:
            prec[cls] = hit / n_pred
    return acc, rec, prec


def slow_oam_joint(m_bcg_o, m_bc_l):
    """Eqs. (8)-(13) written out with loops over i, j, k (K^3), on covered cells."""
    k = m_bcg_o.shape[0]
    m_bc_o = m_bcg_o.sum(axis=2)

    def w(i, j):
        return m_bc_l[i, j] / m_bc_o[i, j] if m_bc_o[i, j] > 0 else 0.0

    def cov_l(i, j):
        return m_bc_l[i, j] if m_bc_o[i, j] > 0 else 0.0

    total = sum(m_bcg_o[i, j, kk] * w(i, j) for i in range(k) for j in range(k) for kk in range(k))
    out = {}
    for model in ("baseline", "candidate"):
        rec, prec = np.full(k, np.nan), np.full(k, np.nan)
        acc = 0.0
        for cls in range(k):
            if model == "baseline":
                num = sum(m_bcg_o[cls, j, cls] * w(cls, j) for j in range(k))
                pden = sum(cov_l(cls, j) for j in range(k))
            else:
                num = sum(m_bcg_o[i, cls, cls] * w(i, cls) for i in range(k))
                pden = sum(cov_l(i, cls) for i in range(k))
            rden = sum(m_bcg_o[i, j, cls] * w(i, j) for i in range(k) for j in range(k))
            acc += num
            if rden > 0:
                rec[cls] = num / rden
            if pden > 0:
                prec[cls] = num / pden
        out[model] = SimpleNamespace(accuracy=acc / total, recall=rec, precision=prec)
    return SimpleNamespace(**out)


def slow_oam_independent(b_o, c_o, g_o, b_l, c_l, k):
    """IndDis: per-item weight p^(l)(h) / p^(o)(h) of each model's own hypothesis."""
    out = {}
    for model, h_o, h_l in (("baseline", b_o, b_l), ("candidate", c_o, c_l)):
        p_o = np.array([np.mean(np.asarray(h_o) == i) for i in range(k)])
        p_l = np.array([np.mean(np.asarray(h_l) == i) for i in range(k)])
        wt = [p_l[h] / p_o[h] / len(h_o) for h in h_o]
        total = sum(wt)
        rec, prec = np.full(k, np.nan), np.full(k, np.nan)
        acc = 0.0
        for cls in range(k):
            hit = sum(wt[t] for t in range(len(h_o)) if h_o[t] == cls and g_o[t] == cls)
            true_mass = sum(wt[t] for t in range(len(h_o)) if g_o[t] == cls)
            pred_mass = p_l[cls] if p_o[cls] > 0 else 0.0
            acc += hit
            if true_mass > 0:
                rec[cls] = hit / true_mass
            if pred_mass > 0:
                prec[cls] = hit / pred_mass
        out[model] = SimpleNamespace(accuracy=acc / total, recall=rec, precision=prec)
    return SimpleNamespace(**out)


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        return fn(*args, **kwargs)


def random_world(rng, n, k, p_correct=0.6):
    g = rng.integers(0, k, n)
    b = np.where(rng.random(n) < p_correct, g, rng.integers(0, k, n))
    c = np.where(rng.random(n) < p_correct + 0.15, g, rng.integers(0, k, n))
    return b, c, g


def assert_metrics_close(got, want, atol=1e-12):
    for model in ("baseline", "candidate"):
        assert getattr(got, model).accuracy == pytest.approx(getattr(want, model).accuracy, abs=atol)
        np.testing.assert_allclose(getattr(got, model).recall, getattr(want, model).recall, atol=atol, equal_nan=True)
        np.testing.assert_allclose(getattr(got, model).precision, getattr(want, model).precision, atol=atol, equal_nan=True)


def test_doctests():
    res = doctest.testmod(adaptive, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert res.attempted >= 5 and res.failed == 0


# -- joint distributions --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_joint_distribution_matches_loops(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    b, c, g = random_world(rng, 200, k)
    np.testing.assert_allclose(joint_distribution(b, c, n_classes=k), slow_joint(b, c, k=k), atol=1e-15)
    m3 = joint_distribution(b, c, g, n_classes=k)
    np.testing.assert_allclose(m3, slow_joint(b, c, g, k=k), atol=1e-15)
    # Section II-A: M_BC(i, j) = sum_k M_BCG(i, j, k); both sum to 1.
    np.testing.assert_allclose(m3.sum(axis=2), joint_distribution(b, c, n_classes=k), atol=1e-15)
    assert m3.sum() == pytest.approx(1.0, abs=1e-12)
    counts = joint_distribution(b, c, g, n_classes=k, normalize=False)
    assert counts.dtype.kind == "i" and counts.sum() == 200


def test_joint_distribution_infers_k_and_accepts_integral_floats():
    assert joint_distribution([0, 2], [1.0, 0.0]).shape == (3, 3)
    assert joint_distribution([True, False], [0, 1]).shape == (2, 2)


@pytest.mark.parametrize("seed", SEEDS)
def test_metrics_from_joint_match_loops_and_sklearn(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    b, c, g = random_world(rng, 150, k)
    res = quiet(metrics_from_joint, joint_distribution(b, c, g, n_classes=k))
    labels = list(range(k))
    for model, hyp in (("baseline", b), ("candidate", c)):
        acc, rec, prec = slow_metrics_from_labels(hyp, g, k)
        assert getattr(res, model).accuracy == pytest.approx(acc, abs=1e-12)
        np.testing.assert_allclose(getattr(res, model).recall, rec, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(getattr(res, model).precision, prec, atol=1e-12, equal_nan=True)
        assert getattr(res, model).accuracy == pytest.approx(accuracy_score(g, hyp), abs=1e-12)
        sk_rec = recall_score(g, hyp, labels=labels, average=None, zero_division=np.nan)
        sk_prec = precision_score(g, hyp, labels=labels, average=None, zero_division=np.nan)
        np.testing.assert_allclose(getattr(res, model).recall, sk_rec, atol=1e-12, equal_nan=True)
        np.testing.assert_allclose(getattr(res, model).precision, sk_prec, atol=1e-12, equal_nan=True)


def test_toy_example_by_hand():
    # Piovano Section II-A toy: M_BCG(:,:,C1) = [[.2,.02],[.03,.1]], M_BCG(:,:,C2) = [[.4,.03],[.12,.1]].
    m = np.stack([[[0.2, 0.02], [0.03, 0.1]], [[0.4, 0.03], [0.12, 0.1]]], axis=-1)
    np.testing.assert_allclose(m.sum(axis=2), [[0.6, 0.05], [0.15, 0.2]])  # the printed M_BC^(o)
    r = metrics_from_joint(m)
    # R_B(C1) = (.2 + .02) / (.2 + .02 + .03 + .1); P_C(C1) = (.2 + .03) / (.6 + .15)
    assert r.baseline.recall[0] == pytest.approx(0.22 / 0.35)
    assert r.candidate.precision[0] == pytest.approx(0.23 / 0.75)
    assert r.baseline.precision[1] == pytest.approx(0.22 / 0.35)  # (.12 + .1) / (.15 + .2)
    assert r.candidate.accuracy == pytest.approx(0.23 + 0.13)
    # The printed live matrix equals the offline one, so every weight is 1 and OAM = offline.
    w, unc = reweighted_joint(m, [[0.6, 0.05], [0.15, 0.2]])
    np.testing.assert_allclose(w, m, atol=1e-15)
    assert not unc.any()


# -- online adaptive metrics ---------------------------------------------------------------------
@pytest.mark.parametrize("seed", SEEDS)
def test_oam_joint_matches_equations_8_to_13(seed):
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 5))
    b_o, c_o, g_o = random_world(rng, 120, k)
    b_l, c_l, _ = random_world(rng, 300, k, p_correct=0.8)
    got = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=k)
    want = quiet(slow_oam_joint, slow_joint(b_o, c_o, g_o, k=k), slow_joint(b_l, c_l, k=k))
    assert_metrics_close(got, want)
    m_l, m_o = slow_joint(b_l, c_l, k=k), slow_joint(b_o, c_o, k=k)
    assert got.uncovered_mass == pytest.approx(m_l[m_o == 0].sum(), abs=1e-15)


@pytest.mark.parametrize("seed", SEEDS)
def test_oam_independent_matches_loops(seed):
    rng = np.random.default_rng(200 + seed)
    k = int(rng.integers(2, 5))
    b_o, c_o, g_o = random_world(rng, 100, k)
    b_l, c_l, _ = random_world(rng, 250, k, p_correct=0.8)
    b_o[:k], c_o[:k] = np.arange(k), np.arange(k)  # every class predicted offline: no uncovered class
    got = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=k, method="independent")
    assert got.uncovered_mass == 0.0
    assert_metrics_close(got, slow_oam_independent(b_o, c_o, g_o, b_l, c_l, k))


@pytest.mark.parametrize("seed", SEEDS)
def test_inddis_precision_equals_offline_precision(seed):
    # Tables I-II print the same std. Prec. for "Offline" and "OAM IndDis": the marginal weight
    # scales numerator and denominator of eq. (3) alike.
    rng = np.random.default_rng(300 + seed)
    b_o, c_o, g_o = random_world(rng, 400, 4)
    b_l, c_l, _ = random_world(rng, 400, 4, p_correct=0.9)
    ind = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=4, method="independent")
    off = quiet(metrics_from_joint, joint_distribution(b_o, c_o, g_o, n_classes=4))
    for model in ("baseline", "candidate"):
        np.testing.assert_allclose(getattr(ind, model).precision, getattr(off, model).precision, atol=1e-12, equal_nan=True)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 6), n=st.integers(5, 80))
@settings(max_examples=60, deadline=None)
def test_lemma1_reweighted_joint_sums_to_one_when_covered(seed, k, n):
    rng = np.random.default_rng(seed)
    b_o, c_o, g_o = random_world(rng, n, k)
    m_o = joint_distribution(b_o, c_o, g_o, n_classes=k)
    # A live joint distribution supported inside the offline support: every live cell is covered.
    m_l = (m_o.sum(axis=2) > 0) * rng.random((k, k))
    w, unc = reweighted_joint(m_o, m_l)
    assert not unc.any()
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    # The re-weighted tensor's (B, C) marginal is the live one (the substitution of Algorithm 1).
    np.testing.assert_allclose(w.sum(axis=2), m_l / m_l.sum(), atol=1e-12)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5))
@settings(max_examples=40, deadline=None)
def test_lemma1_fails_by_exactly_the_uncovered_mass(seed, k):
    rng = np.random.default_rng(seed)
    b_o, c_o, g_o = random_world(rng, 10, k)
    m_o = joint_distribution(b_o, c_o, g_o, n_classes=k)
    m_l = rng.random((k, k)) + 0.01
    m_l /= m_l.sum()
    w, unc = reweighted_joint(m_o, m_l)
    np.testing.assert_array_equal(unc, m_o.sum(axis=2) == 0)
    assert w.sum() == pytest.approx(1.0 - m_l[unc].sum(), abs=1e-12)


@given(seed=st.integers(0, 2**32 - 1), k=st.integers(2, 5), reps=st.integers(1, 4))
@settings(max_examples=40, deadline=None)
def test_oam_equals_offline_when_live_joint_equals_offline_joint(seed, k, reps):
    rng = np.random.default_rng(seed)
    b_o, c_o, g_o = random_world(rng, 60, k)
    perm = rng.permutation(60 * reps)
    b_l, c_l = np.tile(b_o, reps)[perm], np.tile(c_o, reps)[perm]  # same joint distribution
    off = quiet(metrics_from_joint, joint_distribution(b_o, c_o, g_o, n_classes=k))
    for method in ("joint", "independent"):
        oam = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=k, method=method)
        assert oam.uncovered_mass == 0.0
        assert_metrics_close(oam, off, atol=1e-12)


def stratified_resample(rng, b, c, g, k, max_rep=5, drop_cells=0):
    """Offline set = each live (B, C) cell repeated a cell-specific number of times.

    Within each cell the truth composition is the live one (an exact stratified re-sample),
    while the cells' shares differ arbitrarily from live.  ``drop_cells`` cells get no copy.
    """
    rep = rng.integers(1, max_rep + 1, size=(k, k))
    if drop_cells:
        present = np.flatnonzero(np.bincount(b * k + c, minlength=k * k))
        rep.ravel()[rng.choice(present, size=min(drop_cells, len(present) - 1), replace=False)] = 0
    times = rep[b, c]
    return np.repeat(b, times), np.repeat(c, times), np.repeat(g, times)


@pytest.mark.parametrize("seed", SEEDS)
def test_oam_is_exact_on_a_stratified_resample(seed):
    rng = np.random.default_rng(400 + seed)
    k = 4
    b, c, g = random_world(rng, 500, k)
    b_o, c_o, g_o = stratified_resample(rng, b, c, g, k)
    online = quiet(metrics_from_joint, joint_distribution(b, c, g, n_classes=k))
    oam = quiet(online_adaptive_metrics, b_o, c_o, g_o, b, c, n_classes=k)
    assert oam.uncovered_mass == 0.0
    assert_metrics_close(oam, online, atol=1e-12)
    # The offline metrics themselves are biased by the re-sampling (a test that could fail).
    offline = quiet(metrics_from_joint, joint_distribution(b_o, c_o, g_o, n_classes=k))
    assert abs(offline.baseline.accuracy - online.baseline.accuracy) > 1e-6


@pytest.mark.parametrize("seed", SEEDS)
def test_uncovered_cells_warn_and_bound_the_accuracy(seed):
    rng = np.random.default_rng(500 + seed)
    k = 3
    b, c, g = random_world(rng, 600, k)
    b_o, c_o, g_o = stratified_resample(rng, b, c, g, k, drop_cells=2)
    with pytest.warns(OfflineEvalWarning, match="no offline sample"):
        oam = online_adaptive_metrics(b_o, c_o, g_o, b, c, n_classes=k)
    m_l, m_o = joint_distribution(b, c, n_classes=k), joint_distribution(b_o, c_o, n_classes=k)
    u = m_l[m_o == 0].sum()
    assert u > 0 and oam.uncovered_mass == pytest.approx(u, abs=1e-15)
    # On the covered live items the estimate is exact ...
    keep = m_o[b, c] > 0
    covered = quiet(metrics_from_joint, joint_distribution(b[keep], c[keep], g[keep], n_classes=k))
    online = metrics_from_joint(joint_distribution(b, c, g, n_classes=k))
    for model in ("baseline", "candidate"):
        assert getattr(oam, model).accuracy == pytest.approx(getattr(covered, model).accuracy, abs=1e-12)
        np.testing.assert_allclose(getattr(oam, model).recall, getattr(covered, model).recall, atol=1e-12, equal_nan=True)
        # ... and the live accuracy lies within the reported bounds.
        lo, hi = getattr(oam, model).accuracy_bounds
        assert hi - lo == pytest.approx(u)
        assert lo - 1e-12 <= getattr(online, model).accuracy <= hi + 1e-12


def test_uncovered_class_under_independent_method_warns():
    # Live, the baseline predicts class 2 on 1/3 of the items; offline it never does.
    with pytest.warns(OfflineEvalWarning) as record:
        r = online_adaptive_metrics([0, 0, 1, 0], [0, 1, 1, 0], [0, 1, 1, 2], [0, 2, 1], [0, 1, 1], n_classes=3,
                                    method="independent")
    messages = [str(w.message) for w in record]
    assert any(m.startswith("0.3333 of the live mass falls in cells with no offline sample") for m in messages)
    assert r.baseline.uncovered_mass == pytest.approx(1 / 3)
    assert r.candidate.uncovered_mass == 0.0
    assert r.uncovered_mass == pytest.approx(1 / 3)
    assert np.isnan(r.baseline.precision[2])  # no covered live mass predicted as class 2


def test_undefined_recall_and_precision_are_nan_with_a_warning():
    # No item of true class 1: its recall is undefined for both models.
    with pytest.warns(OfflineEvalWarning) as record:
        r = online_adaptive_metrics([0, 1], [0, 1], [0, 0], [0, 1], [0, 1], n_classes=2)
    messages = sorted(str(w.message) for w in record)
    assert len(messages) == 2
    assert messages[0].startswith("recall of the baseline is undefined for 1 class (1)")
    assert messages[1].startswith("recall of the candidate is undefined for 1 class (1)")
    assert np.isnan(r.baseline.recall[1]) and r.baseline.recall[0] == pytest.approx(0.5)
    assert r.baseline.precision.tolist() == [1.0, 0.0]
    # A class the model never predicts has an undefined precision.
    with pytest.warns(OfflineEvalWarning, match="precision of the baseline is undefined for 1 class"):
        r = metrics_from_joint(joint_distribution([0, 0], [0, 1], [0, 1], n_classes=2))
    assert np.isnan(r.baseline.precision[1])


def test_class_relabelling_permutes_the_result():
    rng = np.random.default_rng(7)
    k = 4
    b_o, c_o, g_o = random_world(rng, 200, k)
    b_l, c_l, _ = random_world(rng, 300, k, p_correct=0.9)
    perm = rng.permutation(k)
    r1 = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=k)
    r2 = quiet(online_adaptive_metrics, perm[b_o], perm[c_o], perm[g_o], perm[b_l], perm[c_l], n_classes=k)
    for model in ("baseline", "candidate"):
        assert getattr(r1, model).accuracy == pytest.approx(getattr(r2, model).accuracy, abs=1e-12)
        np.testing.assert_allclose(getattr(r2, model).recall[perm], getattr(r1, model).recall, atol=1e-12, equal_nan=True)


def test_theorem2_error_shrinks_with_offline_size():
    # Offline drawn at random, with a biased cell distribution, from a fixed live set: the OAM
    # error of the accuracy falls as N grows (Theorem 2), the offline error does not.
    rng = np.random.default_rng(11)
    k = 4
    b, c, g = random_world(rng, 20_000, k)
    true_acc = np.mean(b == g)
    cell = b * k + c
    bias = rng.uniform(0.2, 5.0, size=k * k)[cell]
    p = bias / bias.sum()
    err = {}
    for n in (100, 20_000):
        e_oam, e_off = [], []
        for _ in range(20):
            idx = rng.choice(len(b), size=n, replace=True, p=p)
            r = quiet(online_adaptive_metrics, b[idx], c[idx], g[idx], b, c, n_classes=k)
            e_oam.append(abs(r.baseline.accuracy - true_acc))
            e_off.append(abs(np.mean(b[idx] == g[idx]) - true_acc))
        err[n] = (np.mean(e_oam), np.mean(e_off))
    assert err[20_000][0] < err[100][0] / 5
    assert err[20_000][0] < err[20_000][1] / 5


# -- invalid input --------------------------------------------------------------------------------
GOOD = dict(hyp_b_offline=[0, 1], hyp_c_offline=[1, 1], truth_offline=[0, 1], hyp_b_live=[0, 1, 1], hyp_c_live=[0, 1, 1])


def call(**changes):
    args = {**GOOD, **changes}
    n_classes = args.pop("n_classes", None)
    method = args.pop("method", "joint")
    classes = args.pop("classes", None)
    return online_adaptive_metrics(*args.values(), n_classes=n_classes, method=method, classes=classes)


@pytest.mark.parametrize(
    ("changes", "match"),
    [
        (dict(truth_offline=[0, 2], n_classes=2), r"`truth_offline` must hold class codes 0\.\.1.*got 1 value >= 2"),
        (dict(hyp_b_live=[0, -1, 1]), r"`hyp_b_live` must hold class codes.*1 negative value"),
        (dict(hyp_c_offline=[0.5, 1.0]), r"`hyp_c_offline` must hold integer class codes.*non-integer"),
        (dict(truth_offline=[0, 1, 1]), r"`hyp_b_offline` has 2.*`truth_offline` has 3"),
        (dict(hyp_c_live=[0, 1]), r"`hyp_b_live` has 3, `hyp_c_live` has 2"),
        (dict(hyp_b_live=[], hyp_c_live=[]), r"`hyp_b_live` must not be empty"),
        (dict(hyp_b_offline=[], hyp_c_offline=[], truth_offline=[]), r"`hyp_b_offline` must not be empty"),
        (dict(method="inddis"), r"`method` must be one of \['independent', 'joint'\]; got 'inddis'"),
        (dict(n_classes=0), r"`n_classes` must be a positive integer; got 0"),
        (dict(hyp_b_live=["a", "b", "c"]), r"labels of different types cannot be sorted.*pass `classes`"),
        (dict(hyp_b_live=["a", "b", "c"], classes=[0, 1, 2]), r"`hyp_b_live` holds labels not in `classes`"),
        (dict(classes=[0, 0, 1]), r"`classes` must not repeat a label"),
        (dict(hyp_b_live=[0, None, 1]), r"`hyp_b_live` holds missing labels"),
        (dict(hyp_c_offline=[np.nan, 1.0]), r"`hyp_c_offline` must be finite; got 1 NaN value"),
    ],
)
def test_invalid_input_raises(changes, match):
    with pytest.raises(ValueError, match=match):
        call(**changes)


def test_invalid_matrices_raise():
    with pytest.raises(ValueError, match=r"`m_bcg` must be a K x K x K array; got shape \(2, 2\)"):
        metrics_from_joint(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"`m_bcg` must be non-negative"):
        metrics_from_joint(-np.ones((2, 2, 2)))
    with pytest.raises(ValueError, match=r"`m_bc_live` must be 2 x 2"):
        reweighted_joint(np.ones((2, 2, 2)), np.ones((3, 3)))
    with pytest.raises(ValueError, match=r"`truth` must hold class codes 0\.\.1"):
        joint_distribution([0, 1], [0, 1], [0, 3], n_classes=2)


@pytest.mark.parametrize("seed", range(3))
def test_sparse_truth_count_path_equals_dense(seed, monkeypatch):
    # Above 2^21 (B, C, G) combinations the truth masses come from np.unique instead of a bincount.
    rng = np.random.default_rng(600 + seed)
    b_o, c_o, g_o = random_world(rng, 300, 6)
    b_l, c_l, _ = random_world(rng, 400, 6, p_correct=0.9)
    dense = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=6)
    monkeypatch.setattr(adaptive, "_MAX_DENSE_BCG", 0)
    sparse = quiet(online_adaptive_metrics, b_o, c_o, g_o, b_l, c_l, n_classes=6)
    assert_metrics_close(sparse, dense, atol=1e-12)
    # A real many-class case goes through the sparse path.
    b, c, g = random_world(rng, 2000, 150)
    r = quiet(online_adaptive_metrics, b, c, g, b, c, n_classes=150)
    assert r.baseline.accuracy == pytest.approx(np.mean(b == g), abs=1e-12)


def test_hashable_labels_equal_their_codes():
    # any hashable labels: the result is that of their codes in sorted order (or in the order of `classes`)
    rng = np.random.default_rng(7)
    b, c, g = random_world(rng, 400, 3)
    bl, cl, _ = random_world(rng, 300, 3)
    names = np.array(["cat", "dog", "emu"])
    by_code = online_adaptive_metrics(b, c, g, bl, cl)
    by_name = online_adaptive_metrics(names[b], names[c], names[g], names[bl], names[cl])
    assert by_name.classes.tolist() == ["cat", "dog", "emu"] and by_code.classes.tolist() == [0, 1, 2]
    for model in ("baseline", "candidate"):
        assert getattr(by_name, model).accuracy == getattr(by_code, model).accuracy
        np.testing.assert_array_equal(getattr(by_name, model).recall, getattr(by_code, model).recall)
    order = ["emu", "cat", "dog"]  # `classes` fixes the order of the per-class results
    reordered = online_adaptive_metrics(names[b], names[c], names[g], names[bl], names[cl], classes=order)
    np.testing.assert_allclose(reordered.candidate.precision, by_code.candidate.precision[[2, 0, 1]], rtol=1e-12)
    np.testing.assert_array_equal(joint_distribution(names[b], names[c]), joint_distribution(b, c))
    ci = bootstrap_oam_accuracy(names[b], names[c], names[g], names[bl], names[cl], n_boot=20, rng=1)
    assert ci.candidate.value == by_code.candidate.accuracy
    assert ci.candidate.confidence_interval() == (ci.candidate.low, ci.candidate.high)


@pytest.mark.parametrize("where", ["hyp_b_offline", "truth_offline", "hyp_c_live", "classes"])
@pytest.mark.parametrize("with_classes", [False, True])
def test_online_adaptive_metrics_unhashable_labels_are_named_errors(where, with_classes):
    # an object array of lists or sets is 1-D and sortable, but a class is looked up by its label
    unhashable = np.empty(2, dtype=object)
    unhashable[0], unhashable[1] = [0], [1]
    args = dict(hyp_b_offline=["x", "y"], hyp_c_offline=["x", "y"], truth_offline=["x", "y"], hyp_b_live=["x", "y"],
                hyp_c_live=["x", "y"])
    classes = ["x", "y"] if with_classes else None
    if where == "classes":
        classes = [{0}, {1}]
    else:
        args[where] = unhashable
    with pytest.raises(TypeError, match=f"`{where}` must hold hashable labels"):
        online_adaptive_metrics(**args, classes=classes)

    def tuples(labels):  # tuples as labels, in a 1-D object array: hashable
        out = np.empty(len(labels), dtype=object)
        out[:] = [{"x": (0,), "y": (1,)}[v] for v in labels]
        return out

    args = {k: tuples(a) for k, a in
            dict(hyp_b_offline="xy", hyp_c_offline="xy", truth_offline="xy", hyp_b_live="xy", hyp_c_live="xy").items()}
    assert online_adaptive_metrics(**args).n_classes == 2


def test_an_undefined_recall_names_its_class_by_label():
    b, c = np.array(["cat", "cat", "dog", "cat"]), np.array(["cat", "dog", "dog", "cat"])
    truth = np.array(["cat"] * 4)  # no item is truly a dog: its recall is undefined
    with pytest.warns(OfflineEvalWarning, match=r"^recall of the (baseline|candidate) is undefined for 1 class "
                                                  r"\(dog\): no mass with that true class") as record:
        got = online_adaptive_metrics(b, c, truth, b, c)
    assert len(record) == 2
    assert list(got.baseline.classes) == ["cat", "dog"] and np.isnan(got.baseline.recall[1])
