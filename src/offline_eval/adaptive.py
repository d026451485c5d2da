"""Online adaptive metrics (OAM): offline metrics re-weighted to live traffic.

Piovano et al. compare a *baseline* model B (in production) with a
*candidate* C on a labelled offline test set whose distribution differs from
live traffic.  Live traffic is available without labels, so the joint
distribution of the two models' hypotheses on it, ``M_BC^(l)``, is known.
Re-weighting each offline item by ``M_BC^(l)(i, j) / M_BC^(o)(i, j)`` for its
cell ``(H_B, H_C) = (i, j)`` turns the offline precision, recall and accuracy
into estimates of the live ones (eqs. 7-13, Algorithm 1).  The estimate is
exact in the limit of a large offline set as long as the conditional
``p(G | H_B, H_C)`` is the same offline and live (Theorem 2).

Classes are integer codes ``0 .. K-1`` (the paper's ``C_1 .. C_K``), or any
hashable labels (strings, ...): those are coded in sorted order, or in the
order of ``classes``, and every result carries its ``classes``.

Public functions
----------------
:func:`joint_distribution`
    ``M_BC`` (K x K) or ``M_BCG`` (K x K x K) from hypotheses and labels.
:func:`metrics_from_joint`
    recall, precision and accuracy of both models from ``M_BCG`` (eqs. 1-6).
:func:`reweighted_joint`
    the re-weighted tensor of eq. (7) and the live cells it cannot cover.
:func:`online_adaptive_metrics`
    the OAM of both models (eqs. 8-13), or the per-model "IndDis" variant.
:func:`bootstrap_oam_accuracy`
    percentile intervals of both models' adaptive accuracy.

Results: :class:`AdaptiveMetrics` (both models, each a :class:`ModelMetrics`)
and :class:`AdaptiveAccuracyCI`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._bootstrap import BootstrapResult, check_boot, check_boot_work, percentile_ci
from ._progress import counter, reports_progress
from ._results import interval_text, short_repr
from ._validation import (
    OfflineEvalWarning, check_aligned, check_choice, check_consistent_length, check_rng, warn_undefined,
)
from ._adaptive_joint import MAX_INFERRED_CELLS  # noqa: F401  (the bound on an inferred table, read here too)
from ._adaptive_joint import check_tensor, encode_labels, joint_distribution, n_labels, resolve_n_classes

__all__ = [
    "METHODS",
    "AdaptiveAccuracyCI",
    "AdaptiveMetrics",
    "ModelMetrics",
    "bootstrap_oam_accuracy",
    "joint_distribution",
    "metrics_from_joint",
    "online_adaptive_metrics",
    "reweighted_joint",
]

METHODS = ("joint", "independent")


class ModelMetrics(NamedTuple):
    """One model's metrics: ``accuracy``; ``recall`` and ``precision`` per class (``nan`` where undefined),
    in the order of ``classes``; the live mass the offline set could not re-weight (``uncovered_mass``, 0
    offline) and the interval the live accuracy lies in whatever the model does there (``accuracy_bounds``)."""

    accuracy: float
    recall: np.ndarray
    precision: np.ndarray
    uncovered_mass: float
    accuracy_bounds: tuple
    classes: np.ndarray

    def __repr__(self) -> str:
        return short_repr("ModelMetrics", accuracy=self.accuracy, uncovered_mass=self.uncovered_mass,
                          accuracy_bounds=tuple(float(b) for b in self.accuracy_bounds),
                          n_classes=len(self.classes))


class AdaptiveMetrics(NamedTuple):
    """Both models' metrics: ``baseline`` and ``candidate`` (:class:`ModelMetrics`), the larger
    ``uncovered_mass``, the re-weighting ``method`` ("joint", "independent", or ``None`` for plain
    offline metrics), ``n_classes`` and the class labels, ``classes``."""

    baseline: ModelMetrics
    candidate: ModelMetrics
    uncovered_mass: float
    method: str | None
    n_classes: int
    classes: np.ndarray

    def model(self, name: str) -> ModelMetrics:
        """``"baseline"`` or ``"candidate"`` by name.

        Parameters
        ----------
        name : {"baseline", "candidate"}
        """
        return getattr(self, check_choice(name, "name", ("baseline", "candidate")))

    def __repr__(self) -> str:
        return short_repr("AdaptiveMetrics", method=self.method, baseline_accuracy=self.baseline.accuracy,
                          candidate_accuracy=self.candidate.accuracy, uncovered_mass=self.uncovered_mass,
                          n_classes=self.n_classes)


class AdaptiveAccuracyCI(NamedTuple):
    """Bootstrap intervals of both models' adaptive accuracy, from the same resamples: each a
    :class:`~offline_eval.results.BootstrapResult`, with ``.statistic`` and
    ``.confidence_interval(level=..., method=...)`` (``"percentile"`` by default, or ``"basic"``)."""

    baseline: BootstrapResult
    candidate: BootstrapResult

    def __repr__(self) -> str:
        b, c = self.baseline, self.candidate
        return short_repr("AdaptiveAccuracyCI", n_boot=b.n_boot,
                          interval=f"baseline {interval_text((b.low, b.high), method=b.method, level=b.level)} "
                                   f"around {b.statistic:.4g}; candidate [{c.low:.4g}, {c.high:.4g}] around "
                                   f"{c.statistic:.4g}")


def _safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.full(np.shape(num), np.nan)
    ok = den > 0
    np.divide(num, den, out=out, where=ok)
    return out


def _warn_classes(what: str, mask: np.ndarray, reason: str, classes) -> None:
    """Warn once that ``what`` is nan for the classes in ``mask``, named by their labels (``classes``)."""
    if mask.any():
        idx = np.flatnonzero(mask)
        labels = np.asarray(classes, dtype=object)[idx[:8]]
        shown = ", ".join(str(c) for c in labels) + (", ..." if len(idx) > 8 else "")
        warn_undefined(f"{what} is undefined for {len(idx)} class{'es' if len(idx) != 1 else ''} ({shown}): "
                       f"{reason}; returning nan there", stacklevel=4)


def _model_metrics(correct_mass, truth_mass, predicted_mass, total, model, classes, uncovered=0.0):
    """Accuracy, recall and precision of one model from per-class masses."""
    recall = _safe_ratio(correct_mass, truth_mass)
    precision = _safe_ratio(correct_mass, predicted_mass)
    _warn_classes(f"recall of the {model}", truth_mass <= 0, "no mass with that true class", classes)
    _warn_classes(f"precision of the {model}", predicted_mass <= 0, "the model never predicts it", classes)
    acc = float(correct_mass.sum() / total)
    lo = acc * (1.0 - uncovered)
    return ModelMetrics(acc, recall, precision, float(uncovered), (lo, lo + uncovered), classes)


def metrics_from_joint(m_bcg) -> AdaptiveMetrics:
    """Recall, precision and accuracy of both models from ``M_BCG`` (eqs. 1-6).

    Parameters
    ----------
    m_bcg : array-like of shape (K, K, K)
        ``M_BCG[i, j, k]``: mass of items with ``H_B = i``, ``H_C = j``,
        ``G = k`` (counts or shares; divided by its total).

    Returns
    -------
    AdaptiveMetrics
        ``.baseline`` and ``.candidate`` (:class:`ModelMetrics`), each with
        ``accuracy`` (float), ``recall`` and ``precision`` (arrays of shape
        (K,), ``nan`` where undefined, with an
        :class:`~offline_eval.OfflineEvalWarning`); ``method`` is ``None``
        and ``uncovered_mass`` 0.

    Notes
    -----
    With ``M_BC = M_BCG.sum(axis=2)`` (Section II-A):

    .. math::

        R_B(k) = \\frac{\\sum_j M_{BCG}(k, j, k)}{\\sum_{i,j} M_{BCG}(i, j, k)} \\;(1) \\qquad
        R_C(k) = \\frac{\\sum_i M_{BCG}(i, k, k)}{\\sum_{i,j} M_{BCG}(i, j, k)} \\;(2)

        P_B(k) = \\frac{\\sum_j M_{BCG}(k, j, k)}{\\sum_j M_{BC}(k, j)} \\;(3) \\qquad
        P_C(k) = \\frac{\\sum_i M_{BCG}(i, k, k)}{\\sum_i M_{BC}(i, k)} \\;(4)

        A_B = \\sum_{k,j} M_{BCG}(k, j, k) \\;(5) \\qquad A_C = \\sum_{k,i} M_{BCG}(i, k, k) \\;(6)

    A recall is undefined for a class no item belongs to, a precision for a
    class the model never predicts.

    Examples
    --------
    The paper's toy example (Section II-A): ``M_BCG(:, :, C_1) = [[.2, .02],
    [.03, .1]]``, ``M_BCG(:, :, C_2) = [[.4, .03], [.12, .1]]``.  B is right
    on ``.2 + .02`` (truth C_1) and ``.12 + .1`` (truth C_2):

    >>> m = np.stack([[[.2, .02], [.03, .1]], [[.4, .03], [.12, .1]]], axis=-1)
    >>> r = metrics_from_joint(m)
    >>> round(r.baseline.accuracy, 4), round(r.candidate.accuracy, 4)
    (0.44, 0.36)
    >>> r.baseline.recall.round(4)  # .22 / .35 and .22 / .65
    array([0.6286, 0.3385])
    """
    m = check_tensor(m_bcg, "m_bcg", 3)
    k = m.shape[0]
    idx = np.arange(k)
    truth_mass = m.sum(axis=(0, 1))
    m_bc = m.sum(axis=2)
    correct_b = m[idx, :, idx].sum(axis=1)  # sum_j M(k, j, k)
    correct_c = m[:, idx, idx].sum(axis=0)  # sum_i M(i, k, k)
    classes = np.arange(k)
    return AdaptiveMetrics(_model_metrics(correct_b, truth_mass, m_bc.sum(axis=1), 1.0, "baseline", classes),
                           _model_metrics(correct_c, truth_mass, m_bc.sum(axis=0), 1.0, "candidate", classes),
                           0.0, None, k, classes)


def reweighted_joint(m_bcg_offline, m_bc_live) -> tuple[np.ndarray, np.ndarray]:
    """The re-weighted joint distribution of eq. (7), and the uncovered live cells.

    Parameters
    ----------
    m_bcg_offline : array-like of shape (K, K, K)
        ``M_BCG^(o)`` of the labelled offline set (counts or shares).
    m_bc_live : array-like of shape (K, K)
        ``M_BC^(l)`` of the unlabelled live sample (counts or shares).

    Returns
    -------
    m_bcg_hat : ndarray of shape (K, K, K)
        ``M_BCG^(o)(i, j, k) * M_BC^(l)(i, j) / M_BC^(o)(i, j)`` where
        ``M_BC^(o)(i, j) > 0``, and 0 in the other cells.
    uncovered : ndarray of bool, shape (K, K)
        Cells with live mass and no offline sample
        (``M_BC^(o)(i, j) = 0 < M_BC^(l)(i, j)``).

    Notes
    -----
    Lemma 1 of the paper: ``m_bcg_hat`` sums to 1 -- but only when no cell
    is uncovered; in general it sums to ``1 - M_BC^(l)[uncovered].sum()``,
    since the proof divides by ``M_BC^(o)(i, j)``.

    Examples
    --------
    >>> m_o = np.zeros((2, 2, 2)); m_o[0, 0, 0] = 3; m_o[0, 0, 1] = 1; m_o[1, 1, 1] = 4
    >>> w, unc = reweighted_joint(m_o, [[0.2, 0.0], [0.1, 0.7]])
    >>> w[0, 0], float(w[1, 1, 1]), round(float(w.sum()), 12), unc.tolist()
    (array([0.15, 0.05]), 0.7, 0.9, [[False, False], [True, False]])
    """
    m_o = check_tensor(m_bcg_offline, "m_bcg_offline", 3)
    m_l = check_tensor(m_bc_live, "m_bc_live", 2)
    if m_l.shape[0] != m_o.shape[0]:
        raise ValueError(f"`m_bc_live` must be {m_o.shape[0]} x {m_o.shape[0]} like `m_bcg_offline`; got {m_l.shape}")
    m_bc_o = m_o.sum(axis=2)
    ratio = _safe_ratio(m_l, m_bc_o)
    covered = m_bc_o > 0
    weights = np.where(covered, ratio, 0.0)
    return m_o * weights[:, :, None], (~covered) & (m_l > 0)


# -- online adaptive metrics ------------------------------------------------------------------
def _reweighted_model(correct_mass, truth_mass, predicted_live_mass, uncovered, k, model, classes):
    """Metrics of one model from re-weighted per-class masses (their total is the covered live mass)."""
    covered_mass = float(truth_mass.sum())
    if covered_mass <= 0:
        warn_undefined(f"no live mass of the {model} is covered by the offline set; every metric is nan", stacklevel=4)
        nan_k = np.full(k, np.nan)
        return ModelMetrics(float("nan"), nan_k, nan_k.copy(), float(uncovered), (0.0, 1.0), classes)
    return _model_metrics(correct_mass, truth_mass, predicted_live_mass, covered_mass, model, classes, uncovered)


# Up to this many (B, C, G) combinations, count them with one bincount; above, count the
# combinations present with np.unique (O(N log N), memory O(N) instead of O(K^3)).
_MAX_DENSE_BCG = 1 << 21


def _truth_mass(cell_o, g_o, cell_weight, k):
    """sum over offline items of cell_weight[cell] grouped by truth, from exact integer counts."""
    code = cell_o * k + g_o
    if k**3 <= _MAX_DENSE_BCG:
        counts = np.bincount(code, minlength=k**3).reshape(k * k, k)
        return cell_weight.ravel() @ counts
    uniq, cnt = np.unique(code, return_counts=True)
    return np.bincount(uniq % k, weights=cnt * cell_weight.ravel()[uniq // k], minlength=k)


def online_adaptive_metrics(hyp_b_offline, hyp_c_offline, truth_offline, hyp_b_live, hyp_c_live, *,
                            n_classes=None, method="joint", classes=None) -> AdaptiveMetrics:
    """Offline recall, precision and accuracy of two models, re-weighted to live traffic.

    Parameters
    ----------
    hyp_b_offline, hyp_c_offline, truth_offline : array-like of shape (N,)
        Classes of the baseline's and the candidate's hypotheses and of the
        ground truth on the labelled offline set: codes ``0 .. K-1``, or any
        hashable labels (see ``classes``).
    hyp_b_live, hyp_c_live : array-like of shape (M,)
        Hypotheses of both models on an unlabelled random sample of live
        traffic (M >= 1).
    n_classes : int, optional
        K.  Default: the largest code seen plus one.
    method : {"joint", "independent"}, default "joint"
        ``"joint"``: re-weight by the joint distribution of both models'
        hypotheses (the paper's OAM, "JointDis").  ``"independent"``:
        re-weight each model by its own marginal ("IndDis", Section III-A).
    classes : sequence, optional
        The class labels, in the order of the per-class results.  Default:
        codes as they are, other labels (strings, ...) in sorted order.

    Returns
    -------
    AdaptiveMetrics
        ``.baseline`` and ``.candidate`` (:class:`ModelMetrics`): ``accuracy``
        (float), ``recall`` and ``precision`` (arrays of shape (K,), ``nan``
        where undefined, in the order of ``.classes``), ``uncovered_mass``
        (float: live mass the offline set cannot re-weight) and
        ``accuracy_bounds`` (see Notes).  Top level: ``uncovered_mass`` (the
        larger of the two models'), ``method``, ``n_classes``, ``classes``.

    Warns
    -----
    OfflineEvalWarning
        When live mass falls in cells with no offline sample (the estimate is
        then conditional on the covered cells), and for every class whose
        recall or precision is undefined.

    Raises
    ------
    ValueError
        Codes that are not integers in ``0 .. K-1``, offline (or live) arrays
        of different lengths, an empty offline or live sample, an unknown
        ``method``.

    Notes
    -----
    **JointDis** (eqs. 7-13, Algorithm 1).  Every offline item in cell
    ``(i, j) = (H_B, H_C)`` gets the weight
    ``w(i, j) = M_BC^(l)(i, j) / M_BC^(o)(i, j)``, i.e. ``M_BCG^(o)`` is
    replaced by ``M_BCG^(o)(i, j, k) w(i, j)`` in eqs. (1)-(6):

    .. math::

        \\hat R_B(k) = \\frac{\\sum_j M^{(o)}_{BCG}(k,j,k)\\, w(k,j)}
                              {\\sum_{i,j} M^{(o)}_{BCG}(i,j,k)\\, w(i,j)} \\;(8) \\qquad
        \\hat P_B(k) = \\frac{\\sum_j M^{(o)}_{BCG}(k,j,k)\\, w(k,j)}{\\sum_j M^{(l)}_{BC}(k,j)} \\;(10)

        \\hat A_B = \\sum_{k,j} M^{(o)}_{BCG}(k,j,k)\\, w(k,j) \\;(12)

    and symmetrically for C (eqs. 9, 11, 13, summing over the baseline's
    index).  It is exact when ``p(G | H_B, H_C)`` is the same offline and
    live and the offline set is large (Theorem 2); in particular it returns
    the true live metrics when the offline set is a stratified re-sample of
    the live set by (B, C) cell.

    **IndDis** re-weights each model by its own hypothesis marginal: an
    offline item gets ``p_B^(l)(H_B) / p_B^(o)(H_B)`` for the baseline's
    metrics, with ``p_B(i) = sum_j M_BC(i, j)``, and
    ``p_C^(l)(H_C) / p_C^(o)(H_C)`` (``p_C(j) = sum_i M_BC(i, j)``) for the
    candidate's.  Its precision therefore equals the offline precision
    (numerator and denominator of eq. (3) scale alike) -- as in the paper's
    Tables I-II, where the IndDis and offline ``std. Prec.`` coincide.

    **Uncovered cells.**  Eq. (7) cannot re-weight a cell with live mass and
    no offline sample (``M_BC^(o)(i, j) = 0 < M_BC^(l)(i, j)``); there
    Lemma 1 fails (the re-weighted tensor sums to ``1 - u``, ``u`` the
    uncovered live mass).  Such cells are not silently dropped: ``u`` is
    reported, a warning is emitted, and every metric is computed on the
    *covered* part of live traffic -- eqs. (8)-(13) with ``M_BC^(l)``
    restricted to covered cells and the accuracy divided by ``1 - u``.  The
    estimates then describe live traffic with the uncovered cells removed;
    they are biased if the models behave differently there.  Whatever the
    models do on the uncovered mass, the live accuracy lies in
    ``accuracy_bounds = (A (1 - u), A (1 - u) + u)``.  With ``u = 0`` this is
    exactly eqs. (8)-(13) and both bounds equal the accuracy.

    Every sum is taken over integer counts per cell (then times the cell's
    weight), not item by item.  Cost: O(N + M + K^3) time and memory while
    K^3 <= 2^21, above that O(N log N + M + K^2) (only the (B, C, G)
    combinations present are counted).

    References
    ----------
    .. [1] E. Piovano, D.-T. Le, B. Chen, M. Bradford, "Online Adaptive Metrics
       for Model Evaluation on Non-representative Offline Test Data",
       Section III, eqs. (7)-(13), Algorithm 1, Lemma 1, Theorem 2.

    Examples
    --------
    Offline, half the items are in the disagreement cell (B=0, C=1), where
    C is right; live, that cell holds only 10% of the traffic:

    >>> b_o, c_o, g_o = [0, 0, 1, 0, 0, 1], [0, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1]
    >>> b_l = [0] * 6 + [0] + [1] * 3       # live cells: (0,0) 60%, (0,1) 10%, (1,1) 30%
    >>> c_l = [0] * 6 + [1] + [1] * 3
    >>> r = online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l)
    >>> round(r.baseline.accuracy, 4), round(r.candidate.accuracy, 4)
    (0.9, 1.0)

    Offline the baseline's accuracy is 2/6; on live traffic it is wrong only
    in the (0, 1) cell, 10% of the items.
    """
    check_choice(method, "method", METHODS)
    check_aligned(hyp_b_offline=hyp_b_offline, hyp_c_offline=hyp_c_offline, truth_offline=truth_offline)
    check_aligned(hyp_b_live=hyp_b_live, hyp_c_live=hyp_c_live)
    codes, labels = encode_labels(dict(hyp_b_offline=hyp_b_offline, hyp_c_offline=hyp_c_offline, truth_offline=truth_offline,
                                       hyp_b_live=hyp_b_live, hyp_c_live=hyp_c_live), classes)
    off = {name: codes[name] for name in ("hyp_b_offline", "hyp_c_offline", "truth_offline")}
    live = {name: codes[name] for name in ("hyp_b_live", "hyp_c_live")}
    check_consistent_length(**off)
    check_consistent_length(**live)
    k = resolve_n_classes(n_classes if labels is None else n_labels(n_classes, labels), {**off, **live})
    labels = np.arange(k) if labels is None else labels
    b_o, c_o, g_o = off.values()
    b_l, c_l = live.values()
    n, m = len(b_o), len(b_l)

    # Integer counts per (B, C) cell, offline and live (O(N + M + K^2)); weights are applied per
    # cell, never summed item by item, so the live == offline case reproduces eqs. (1)-(6) exactly.
    cell_o = b_o * k + c_o
    n_o = np.bincount(cell_o, minlength=k * k).reshape(k, k)
    o = n_o / n
    ell = np.bincount(b_l * k + c_l, minlength=k * k).reshape(k, k) / m

    if method == "joint":
        covered = n_o > 0
        w = np.where(covered, _safe_ratio(ell, o), 0.0) / n  # mass of one offline item of each cell
        right_b = np.bincount(cell_o[b_o == g_o], minlength=k * k).reshape(k, k)
        right_c = np.bincount(cell_o[c_o == g_o], minlength=k * k).reshape(k, k)
        truth_mass = _truth_mass(cell_o, g_o, w, k)
        live_cov = np.where(covered, ell, 0.0)
        u = float(ell[~covered].sum())
        res_b = _reweighted_model((right_b * w).sum(axis=1), truth_mass, live_cov.sum(axis=1), u, k, "baseline", labels)
        res_c = _reweighted_model((right_c * w).sum(axis=0), truth_mass, live_cov.sum(axis=0), u, k, "candidate",
                                  labels)
    else:
        res = []
        for hyp, axis, model in ((b_o, 1, "baseline"), (c_o, 0, "candidate")):
            p_o, p_l = o.sum(axis=axis), ell.sum(axis=axis)
            covered = p_o > 0
            w = np.where(covered, _safe_ratio(p_l, p_o), 0.0) / n
            hg = np.bincount(hyp * k + g_o, minlength=k * k).reshape(k, k)  # rows: hypothesis, columns: truth
            u = float(p_l[~covered].sum())
            res.append(_reweighted_model(np.diag(hg) * w, w @ hg, np.where(covered, p_l, 0.0), u, k, model, labels))
        res_b, res_c = res

    u = max(res_b.uncovered_mass, res_c.uncovered_mass)
    if u > 0:
        warn_undefined(
            f"{u:.4g} of the live mass falls in cells with no offline sample ({method} re-weighting); "
            "the metrics are estimated on the covered part of live traffic only", stacklevel=2)
    return AdaptiveMetrics(res_b, res_c, u, method, k, labels)


@reports_progress("adaptive")
def bootstrap_oam_accuracy(hyp_b_offline, hyp_c_offline, truth_offline, hyp_b_live, hyp_c_live, *,
                           n_classes=None, method="joint", n_boot: int = 1000, level: float = 0.95, rng=None,
                           classes=None) -> AdaptiveAccuracyCI:
    """Percentile bootstrap intervals of both models' online adaptive accuracy.

    The annotated offline sample is resampled with replacement (the live
    traffic, usually far larger, is held fixed: the interval is the
    uncertainty of the offline sample).

    Parameters
    ----------
    hyp_b_offline, hyp_c_offline, truth_offline, hyp_b_live, hyp_c_live, n_classes, method, classes
        As in :func:`online_adaptive_metrics`.
    n_boot : int, default 1000
        Resamples of the offline set: at most 10**6, and ``n_boot * (offline + live items + 1000)`` at most
        ``MAX_BOOT_WORK`` = 2 * 10**8 (a larger request is an error before any work).
    level : float in (0, 1), default 0.95
    rng : None, int or numpy.random.Generator

    Returns
    -------
    AdaptiveAccuracyCI
        ``.baseline`` and ``.candidate``, each a :class:`~offline_eval.results.BootstrapResult` whose ``.low`` and
        ``.high`` are the percentile interval at ``level``.

    Examples
    --------
    >>> r = bootstrap_oam_accuracy([0, 0, 1, 1], [0, 1, 1, 1], [0, 1, 1, 0], [0, 1, 1], [0, 1, 1], n_boot=50, rng=0)
    >>> ci = r.candidate.confidence_interval(0.9, method="basic")
    >>> r.candidate.n_boot, r.candidate.low <= r.candidate.statistic <= r.candidate.high, ci.low <= ci.high
    (50, True, True)
    """
    import warnings

    check_boot(n_boot, level)
    check_aligned(hyp_b_offline=hyp_b_offline, hyp_c_offline=hyp_c_offline, truth_offline=truth_offline)
    full = online_adaptive_metrics(hyp_b_offline, hyp_c_offline, truth_offline, hyp_b_live, hyp_c_live,
                                   n_classes=n_classes, method=method, classes=classes)
    codes, _ = encode_labels(dict(hyp_b_offline=hyp_b_offline, hyp_c_offline=hyp_c_offline, truth_offline=truth_offline,
                                  hyp_b_live=hyp_b_live, hyp_c_live=hyp_c_live),
                             None if _all_codes(full.classes) else full.classes)
    b, c, g, bl, cl = codes.values()
    check_boot_work(n_boot, len(b) + len(bl))  # each resample re-reads the live arrays too
    k = full.n_classes
    gen = check_rng(rng)
    reps = {m: np.empty(int(n_boot)) for m in ("baseline", "candidate")}
    steps = counter(int(n_boot), "resamples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for i in range(int(n_boot)):
            idx = gen.integers(0, len(b), len(b))
            r = online_adaptive_metrics(b[idx], c[idx], g[idx], bl, cl, n_classes=k, method=method)
            for m in reps:
                reps[m][i] = getattr(r, m).accuracy
            steps.advance()
    return AdaptiveAccuracyCI(*(percentile_ci(getattr(full, m).accuracy, x, level, f"the {m}'s adaptive accuracy",
                                              name=f"adaptive accuracy, {m}")
                                for m, x in reps.items()))


def _all_codes(classes) -> bool:
    """True when ``classes`` is ``0..K-1`` as integers (the codes were given as codes)."""
    arr = np.asarray(classes)
    return arr.dtype.kind in "iu" and np.array_equal(arr, np.arange(len(arr)))
