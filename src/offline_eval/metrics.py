"""Offline metrics of binary predictions (yi Sections 2.2 and 4.1-4.5).

Discrimination: :func:`roc_auc_score`, :func:`roc_auc_score_from_counts`,
:func:`roc_curve`, :func:`roc_curve_from_counts`.  Probability quality:
:func:`log_loss`, :func:`rig_score`, :func:`prediction_error`,
:func:`calibration_ratio`, and :func:`quantile_breakdown` (the same metrics per
quantile of predicted score).  Residuals, for clicks and for any numeric
response (rosset's RMSE, MAE and MAD too): :func:`mean_squared_error` (the
Brier score on clicks), :func:`normalized_mean_squared_error`,
:func:`root_mean_squared_error`, :func:`mean_absolute_error`,
:func:`median_absolute_error`.  Uncertainty: :func:`bootstrap_ci`.

Names say the direction: ``*_score`` higher is better, ``*_error`` and
``*_loss`` lower is better.  Binary metrics take 0/1 (or bool) labels, or any
two labels with ``pos_label`` naming the positive one, as scikit-learn's.
Several classes: :func:`roc_auc_score` with ``multi_class="ovr"`` or ``"ovo"``
and :func:`log_loss` take a probability matrix of shape (n, k) (``labels``
names its columns), with scikit-learn's definitions.

All functions validate their inputs once (see :mod:`offline_eval._validation`):
invalid input raises ``ValueError`` naming the argument; legal input on which
a metric is undefined (only one class present) returns ``nan`` with an
:class:`~offline_eval.OfflineEvalWarning`.
"""

from __future__ import annotations

import numpy as np

from ._bootstrap import BootstrapCI, check_boot, check_boot_work, percentile_ci
from ._progress import counter, reports_progress
from ._validation import (
    OfflineEvalWarning, as_1d, check_aligned, check_binary, check_consistent_length, check_finite,
    check_sample_weight,
)
from ._metrics_roc import roc_auc_score, roc_auc_score_from_counts, roc_curve, roc_curve_from_counts
from ._losses import LOG_LOSS_EPS  # noqa: F401  (the default eps of every log loss, importable from here as before)
from ._metrics_losses import calibration_ratio, log_loss, prediction_error, quantile_breakdown, rig_score
from ._metrics_residual import (mean_absolute_error, mean_squared_error, median_absolute_error,
                                normalized_mean_squared_error, root_mean_squared_error)

__all__ = [
    # discrimination (yi Section 4.1)
    "roc_auc_score", "roc_auc_score_from_counts", "roc_curve", "roc_curve_from_counts",
    # calibration and loss metrics of predicted click probabilities (yi Sections 2.2, 4.2-4.5), and residual
    # measures: clicks against pClick (yi Sections 4.3-4.4), or any numeric response (rosset Section 2, eq. 1)
    "calibration_ratio", "log_loss", "mean_absolute_error", "mean_squared_error", "median_absolute_error",
    "normalized_mean_squared_error", "prediction_error", "quantile_breakdown", "rig_score", "root_mean_squared_error",
    # bootstrap confidence intervals
    "BootstrapCI", "bootstrap_ci",  # BootstrapCI is defined in ._bootstrap
]


@reports_progress("metrics")
def bootstrap_ci(metric, y_true, y_pred, *, sample_weight=None, n_boot: int = 1000, level: float = 0.95,
                 rng=None, **kwargs) -> BootstrapCI:
    """Percentile bootstrap interval of any metric of this module (or any ``metric(y_true, y_pred, ...)``).

    Rows are resampled with replacement ``n_boot`` times (a resample's
    weights are carried along); the interval is the ``(1 - level) / 2`` and
    ``(1 + level) / 2`` percentiles of the replicates on which the metric is
    defined.  The undefined replicates (``nan``) are counted in ``n_valid``
    and warned about once; with fewer than half of them valid the interval
    is ``nan``.

    Parameters
    ----------
    metric : callable
        ``metric(y_true, y_pred, sample_weight=..., **kwargs) -> float``, e.g. :func:`roc_auc_score`,
        :func:`log_loss`, :func:`rig_score` (``sample_weight`` is passed only when given).
    y_true, y_pred : array-like of shape (n,)
    sample_weight : array-like of shape (n,), optional
    n_boot : int, default 1000
        Resamples, at most 10**6, and ``n_boot * (n + 1000)`` at most ``MAX_BOOT_WORK`` = 2 * 10**8 (about
        30 s of work; a larger request is an error before any work).
    level : float in (0, 1), default 0.95
    rng : int, numpy.random.Generator or None
    **kwargs
        Further keyword arguments of ``metric`` (with ``pos_label``, the labels are turned into 0/1 once);
        not ``groups``: for clusters use :func:`offline_eval.clustered_bootstrap`.

    Returns
    -------
    BootstrapCI
        The value on the data, the interval (``.confidence_interval()``) and the replicates.

    Examples
    --------
    >>> y = [0, 1] * 10
    >>> s = [0.1, 0.4, 0.35, 0.8, 0.2, 0.7, 0.6, 0.9, 0.3, 0.5] * 2
    >>> r = bootstrap_ci(roc_auc_score, y, s, n_boot=200, rng=0)
    >>> round(r.value, 4), r.low <= r.value <= r.high, r.n_valid
    (0.92, True, 200)
    """
    import warnings

    from ._validation import check_rng

    if not callable(metric):
        raise ValueError(f"`metric` must be a callable metric(y_true, y_pred, ...); got {metric!r}")
    if "groups" in kwargs:  # it would reach the metric as a keyword it does not take
        raise ValueError("`groups` is not supported: bootstrap_ci resamples rows; to resample whole clusters use "
                         "offline_eval.clustered_bootstrap(y_true, y_score, groups=...)")
    check_boot(n_boot, level)
    check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    extra = dict(kwargs)
    if extra.get("pos_label") is not None:  # resample 0/1 labels: the same rows, no label lookup per resample
        y = check_binary(y_true, "y_true", pos_label=extra.pop("pos_label"))
    else:
        y = np.asarray(as_1d(y_true, "y_true", dtype=None))
    p = check_finite(as_1d(y_pred, "y_pred"), "y_pred")
    if y.dtype.kind == "f":
        check_finite(y, "y_true")
    check_consistent_length(y_true=y, y_pred=p)
    w = check_sample_weight(sample_weight, len(y))
    check_boot_work(n_boot, len(y))
    value = float(metric(y, p, **({"sample_weight": w} if w is not None else {}), **extra))
    gen = check_rng(rng)
    reps = np.empty(int(n_boot))
    steps = counter(int(n_boot), "resamples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for b in range(int(n_boot)):
            idx = gen.integers(0, len(y), len(y))
            ww = {"sample_weight": w[idx]} if w is not None else {}
            try:
                reps[b] = metric(y[idx], p[idx], **ww, **extra)
            except ValueError:  # e.g. an all-zero resampled weight
                reps[b] = np.nan
            steps.advance()
    return percentile_ci(value, reps, level, "the metric")
