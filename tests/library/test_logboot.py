"""The clustered Poisson bootstrap of logs (issue 23, item 1): every resample equals the library's metrics with
the resample's weights, the AUC equals a pairwise reference, the jackknife equals leaving each cluster out,
and the clustered interval covers where the row-level one does not."""

import inspect
import math
import warnings

import numpy as np
import pytest

from offline_eval import OfflineEvalWarning, _logboot_engine, _logboot_run, _logboot_weights, clustered_bootstrap, logboot
from offline_eval import metrics as M
from offline_eval.logboot import BootstrapResult, poisson_weights

LIB = {"roc_auc_score": M.roc_auc_score, "log_loss": M.log_loss, "rig_score": M.rig_score,
       "calibration_ratio": M.calibration_ratio}


def _log(seed, n=400, n_groups=30, ctr=0.3, ties=True, weights=True):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, n_groups, n)
    y = (rng.random(n) < ctr).astype(int)
    a = rng.random(n)
    a = np.round(a, 1) if ties else a
    b = np.clip(a + rng.normal(0, 0.2, n) * (y - 0.3), 0, 1)
    w = rng.random(n) * 3 if weights else None
    return y, a, b, g, w


def _library(fn, y, s, w):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        try:
            return fn(y, s, sample_weight=w)
        except ValueError:  # an all-zero resampled weight
            return np.nan


def _auc_pairs(y, s, w):
    """O(n^2) reference: sum of w_i w_j over (positive, negative) pairs, ties one half, over the weights."""
    pos, neg = y == 1, y == 0
    d = s[pos][:, None] - s[neg][None, :]
    k = (d > 0) + 0.5 * (d == 0)
    den = w[pos].sum() * w[neg].sum()
    return float(w[pos] @ k @ w[neg] / den) if den > 0 else np.nan


@pytest.mark.parametrize("seed", range(6))
def test_every_resample_equals_the_library_metrics_with_its_weights(seed):
    y, a, b, g, w = _log(seed, ctr=(0.3, 0.7)[seed % 2], ties=seed % 3 != 0, weights=seed % 2 == 0)
    n_boot = 30
    res = clustered_bootstrap(y, a, b, groups=g, sample_weight=w, n_boot=n_boot, rng=seed, metrics=tuple(LIB))
    G = len(np.unique(g))
    W = poisson_weights(np.random.default_rng(seed), (n_boot, G))
    ww = np.ones(len(y)) if w is None else w
    _, gi = np.unique(g, return_inverse=True)
    for model, s in (("a", a), ("b", b)):
        for m, fn in LIB.items():
            got = getattr(getattr(res, model), m)
            assert got.statistic == pytest.approx(fn(y, s, sample_weight=w), rel=1e-12, abs=1e-14)
            ref = np.array([_library(fn, y, s, W[k, gi] * ww) for k in range(n_boot)])
            np.testing.assert_allclose(got.replicates, ref, rtol=1e-12, atol=1e-14, equal_nan=True)
            if m == "roc_auc_score":  # and the pairwise reference
                pairs = np.array([_auc_pairs(y, s, W[k, gi] * ww) for k in range(n_boot)])
                np.testing.assert_allclose(got.replicates, pairs, rtol=1e-12, equal_nan=True)
    for m in LIB:
        d = getattr(res.difference, m)
        np.testing.assert_array_equal(d.replicates, getattr(res.b, m).replicates - getattr(res.a, m).replicates)


def test_row_level_when_no_groups_and_labels_of_any_kind():
    y, a, _, g, _ = _log(3)
    r1 = clustered_bootstrap(y, a, n_boot=20, rng=1)
    r2 = clustered_bootstrap(y, a, groups=np.arange(len(y)), n_boot=20, rng=1)
    np.testing.assert_array_equal(r1.a.log_loss.replicates, r2.a.log_loss.replicates)
    r3 = clustered_bootstrap(y, a, groups=np.array([f"q{k:03d}" for k in g]), n_boot=20, rng=1)
    r4 = clustered_bootstrap(y, a, groups=g, n_boot=20, rng=1)
    np.testing.assert_array_equal(r3.a.roc_auc_score.replicates, r4.a.roc_auc_score.replicates)
    assert r1.n_clusters == len(y) and r4.n_clusters == len(np.unique(g))


@pytest.mark.parametrize("seed", range(4))
def test_jackknife_equals_leaving_each_cluster_out(seed):
    y, a, _, g, w = _log(seed, n=200, n_groups=12, ties=seed % 2 == 0, weights=seed < 2)
    ww = np.ones(len(y)) if w is None else w
    sums = _logboot_engine.ClusterSums(y.astype(float), ww, g, 12)
    eng = _logboot_engine.ModelEngine(y.astype(float), a, ww, g, 12, sums, tuple(LIB), M.LOG_LOSS_EPS)
    jack = eng.jackknife()
    for m, fn in LIB.items():
        ref = [_library(fn, y[g != k], a[g != k], ww[g != k]) for k in range(12)]
        np.testing.assert_allclose(jack[m], ref, rtol=1e-11, atol=1e-14)


def test_results_do_not_depend_on_the_block_size(monkeypatch):
    y, a, b, g, w = _log(5)
    full = clustered_bootstrap(y, a, b, groups=g, sample_weight=w, n_boot=40, rng=7)
    # RESAMPLE_BLOCK is what the in-memory path reads (logboot.BLOCK_ELEMENTS, patched here before issue 49,
    # sized the Dask one-pass sums only: the two runs were the same code, and the test could not fail)
    monkeypatch.setattr(_logboot_run, "RESAMPLE_BLOCK", 1)  # blocks of one resample
    shapes, draw = [], _logboot_run.poisson_counts
    monkeypatch.setattr(_logboot_run, "poisson_counts", lambda gen, shape: shapes.append(shape) or draw(gen, shape))
    small = clustered_bootstrap(y, a, b, groups=g, sample_weight=w, n_boot=40, rng=7)
    assert shapes == [(1, 30)] * 40  # the blocks the run used
    for m in full.metrics:
        # equal up to the order of the float sums of a matrix product (BLAS picks its kernel by shape)
        np.testing.assert_allclose(getattr(full.difference, m).replicates, getattr(small.difference, m).replicates,
                                   rtol=1e-13, atol=1e-15)


def test_poisson_weights_are_poisson_to_2_to_the_minus_32_and_fixed_by_the_seed():
    t = _logboot_weights._POISSON_T.astype(np.int64)
    pmf = np.diff(np.r_[0, t, 2**32]) / 2.0**32
    exact = np.array([math.exp(-1) / math.factorial(k) for k in range(len(pmf))])
    assert np.abs(pmf - exact).max() < 2.0**-32
    w = poisson_weights(np.random.default_rng(0), (2, 8))
    assert w.dtype == np.float64 and w.sum(axis=1).tolist() == [4.0, 11.0]  # pinned: the same on any machine


def _bca_reference(r, theta, jack, alpha):
    """Efron & Tibshirani (1993) eqs. 14.10, 14.14, 14.15, written out."""
    from scipy.stats import norm

    z0 = norm.ppf(np.mean(r < theta))
    d = jack.mean() - jack
    acc = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    q = [norm.cdf(z0 + (z0 + z) / (1 - acc * (z0 + z))) for z in norm.ppf([alpha, 1 - alpha])]
    return np.percentile(r, 100 * np.array(q))


def test_bca_and_percentile_intervals_follow_their_formulas():
    rng = np.random.default_rng(0)
    r = rng.gamma(2.0, size=999)
    jack = rng.gamma(2.0, size=50)
    res = BootstrapResult(1.7, r, _logboot_engine.jackknife_acceleration(jack), name="x", n_clusters=50)
    np.testing.assert_allclose(res.confidence_interval(0.9), _bca_reference(r, 1.7, jack, 0.05), rtol=1e-12)
    np.testing.assert_allclose(res.confidence_interval(0.8, method="percentile"), np.percentile(r, [10, 90]))
    with pytest.warns(OfflineEvalWarning, match="one side"):
        assert np.isnan(BootstrapResult(-1.0, r, 0.0, name="x", n_clusters=5).confidence_interval().low)


def test_paired_difference_pvalue():
    y, a, _, g, _ = _log(1, n=2000, n_groups=100)
    same = clustered_bootstrap(y, a, a, groups=g, n_boot=99, rng=0)
    assert same.difference.roc_auc_score.pvalue == 1.0 and np.isnan(same.a.roc_auc_score.pvalue)
    better = np.where(y == 1, np.minimum(a + 0.3, 1), a)
    res = clustered_bootstrap(y, a, better, groups=g, n_boot=99, rng=0)
    assert res.difference.roc_auc_score.pvalue == pytest.approx(2 / 100)  # never below 2 / (B + 1)
    assert res.difference.roc_auc_score.statistic > 0


def test_repr_is_short_and_the_table_has_every_metric_and_model():
    y, a, b, g, _ = _log(2)
    res = clustered_bootstrap(y, a, b, groups=g, n_boot=500, rng=0)
    for text in (repr(res), repr(res.a)):
        assert len(text) < 200 and "[" not in text
    text = repr(res.difference.log_loss)  # one interval, never the replicates
    assert len(text) < 200 and text.count("[") == 1 and "95% bca CI" in text
    t = res.table(0.9, method="percentile")
    assert t.shape == (9, 7) and t["pvalue"].notna().sum() == 3
    assert (t["low"] <= t["statistic"]).all() and (t["statistic"] <= t["high"]).all()


def test_undefined_resamples_are_nan_and_left_out():
    y = np.array([1, 0, 0, 0, 0, 0])
    s = np.array([0.9, 0.1, 0.2, 0.3, 0.4, 0.5])
    with pytest.warns(OfflineEvalWarning, match=r"without 1 of 3 clusters .* left out of BCa's acceleration"):
        res = clustered_bootstrap(y, s, groups=[0, 1, 1, 2, 2, 2], n_boot=50, rng=0)
    r = res.a.roc_auc_score
    assert 0 < r.n_valid < 50 and np.isnan(r.replicates).sum() == 50 - r.n_valid  # no click drawn: nan


@pytest.mark.parametrize("kwargs, match", [
    (dict(metrics=("auc",)), "`metrics` must be one of"),
    (dict(metrics=()), "`metrics` must name"),
    (dict(groups=[0, 1]), "same length"),
    (dict(n_boot=0), "`n_boot`"),
    (dict(groups=[0, None, 1, 1]), "`groups` holds missing"),
])
def test_invalid_input_names_the_argument(kwargs, match):
    with pytest.raises(ValueError, match=match):
        clustered_bootstrap([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], **kwargs)


def test_probabilities_are_required_only_for_the_probability_metrics():
    with pytest.raises(ValueError, match=r"`y_score` must lie in \[0, 1\]"):
        clustered_bootstrap([0, 1, 0, 1], [-1.0, 2.0, 3.0, 4.0], n_boot=5, rng=0)
    res = clustered_bootstrap([0, 1, 0, 1], [-1.0, 2.0, 3.0, 4.0], metrics="roc_auc_score", n_boot=5, rng=0)
    assert res.a.roc_auc_score.statistic == 0.75


def test_bootstrap_ci_refuses_groups_and_points_to_the_clustered_bootstrap():
    # regression: `groups` used to be passed on to the metric (TypeError: unexpected keyword argument 'groups')
    with pytest.raises(ValueError, match="clustered_bootstrap"):
        M.bootstrap_ci(M.roc_auc_score, [0, 1, 0, 1], [0.1, 0.2, 0.3, 0.4], groups=[0, 0, 1, 1])


def test_every_public_function_documents_its_parameters():
    missing = []
    for name in logboot.__all__:
        obj = getattr(logboot, name)
        if not (inspect.isfunction(obj) or inspect.isclass(obj)):
            continue
        fns = [obj] if inspect.isfunction(obj) else [v for k, v in vars(obj).items()
                                                   if inspect.isfunction(v) and not k.startswith("_")]
        for fn in fns:
            params = [p for p in inspect.signature(fn).parameters if p not in ("self", "cls")]
            doc = inspect.getdoc(fn) or ""
            missing += [f"{fn.__qualname__}({p})" for p in params if p not in doc or "Parameters" not in doc]
    assert missing == []


# -- coverage on a world with known truth ------------------------------------------------------------
def _expit(z):
    return 1.0 / (1.0 + np.exp(-z))


def _world(rng, n_groups, m, tau):
    """Clicks with a random intercept per query (sd ``tau``) that the model ignores: rows of a query correlate."""
    u = np.repeat(rng.normal(0.0, tau, n_groups), m)
    x = rng.normal(0.0, 1.0, n_groups * m)
    y = (rng.random(n_groups * m) < _expit(x + u - 1.0)).astype(np.int8)
    return y, _expit(x - 1.0), np.repeat(np.arange(n_groups), m)


def _true_log_loss(tau):
    """E[-q log p - (1 - q) log(1 - p)] with q = expit(x + u - 1), p = expit(x - 1): Gauss-Hermite in (x, u)."""
    z, wz = np.polynomial.hermite_e.hermegauss(80)
    wz = wz / wz.sum()
    x, u = np.meshgrid(z, tau * z)
    q, p = _expit(x + u - 1.0), _expit(x - 1.0)
    return float(np.sum(np.outer(wz, wz) * (-q * np.log(p) - (1 - q) * np.log1p(-p))))


@pytest.mark.parametrize("tau", [0.0, 1.5])
def test_coverage_clustered_near_its_level_row_level_under_covers_with_correlated_clusters(tau):
    truth = _true_log_loss(tau)
    rng = np.random.default_rng(2023)
    reps, hits = 300, {None: 0, "query": 0}
    for _ in range(reps):
        y, p, g = _world(rng, 40, 25, tau)
        for key, groups in ((None, None), ("query", g)):
            res = clustered_bootstrap(y, p, groups=groups, metrics="log_loss", n_boot=200, rng=rng)
            low, high = res.a.log_loss.confidence_interval(0.9, method="percentile")
            hits[key] += low <= truth <= high
    clustered, rows = hits["query"] / reps, hits[None] / reps
    # 300 worlds: a binomial standard error of 0.017 at 0.9
    assert 0.85 <= clustered <= 0.95
    if tau == 0:
        assert 0.85 <= rows <= 0.95
    else:
        assert rows <= 0.70  # about 0.55: the design effect 1 + (m - 1) rho is near 4 here
