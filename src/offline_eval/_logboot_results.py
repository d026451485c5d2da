"""The results of the clustered bootstrap of a log, behind :mod:`offline_eval.logboot` (which re-exports them):
one metric of one model, or a paired difference, with its replicates (:class:`BootstrapResult`), the metrics of one
model (:class:`ModelResults`) and the whole run (:class:`LogBootstrap`)."""

from __future__ import annotations

import warnings

import numpy as np

from ._logboot_engine import bca_quantiles, pvalue_at_zero
from ._results import ConfidenceInterval, Result, interval_text, short_repr
from ._validation import OfflineEvalWarning, check_choice, check_real, warn_undefined

__all__ = ["BootstrapResult", "LogBootstrap", "ModelResults"]


class BootstrapResult(Result):
    """One metric of one model (or a paired difference) with its bootstrap replicates.

    A :class:`~offline_eval.results.Result`; ``.method`` is the interval's default method, ``"bca"`` where
    the jackknife over clusters was computed (in memory), else ``"percentile"``.

    Attributes
    ----------
    statistic : float
        The metric on the data (every weight 1).
    replicates : ndarray of shape (n_boot,)
        The metric on each resample; ``nan`` where undefined (e.g. a resample with one class).
    acceleration : float
        BCa's acceleration, from the jackknife over clusters; ``nan`` when that jackknife was not computed
        (:func:`offline_eval.ondask.clustered_bootstrap`), and then only the percentile interval is given.
    pvalue : float
        For a paired difference, the two-sided bootstrap p-value of "no difference"; ``nan`` otherwise.
    name : str
        What the statistic is, e.g. ``"roc_auc_score, b - a"``.
    n_clusters : int
        Number of clusters resampled.
    """

    def __init__(self, statistic, replicates, acceleration, *, name, n_clusters, difference=False):
        self.statistic = float(statistic)
        self.replicates = replicates
        self.acceleration = float(acceleration)
        self.name = name
        self.n_clusters = int(n_clusters)
        self.pvalue = pvalue_at_zero(replicates) if difference else float("nan")

    @property
    def method(self) -> str:
        """The default interval's method: ``"bca"`` with the jackknife over clusters, else ``"percentile"``."""
        return "percentile" if np.isnan(self.acceleration) else "bca"

    @property
    def n_boot(self) -> int:
        """Number of resamples."""
        return len(self.replicates)

    @property
    def n_valid(self) -> int:
        """Resamples on which the metric is defined."""
        return int(np.isfinite(self.replicates).sum())

    @property
    def standard_error(self) -> float:
        """Standard deviation of the defined replicates (ddof=1)."""
        r = self.replicates[np.isfinite(self.replicates)]
        return float(np.std(r, ddof=1)) if len(r) > 1 else float("nan")

    def confidence_interval(self, level: float = 0.95, *, method: str | None = None) -> ConfidenceInterval:
        """The bootstrap confidence interval of the statistic.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Coverage of the two-sided interval.
        method : {"bca", "percentile"}, optional
            ``"percentile"``: the ``(1 - level) / 2`` and ``(1 + level) / 2`` percentiles of the replicates;
            ``"bca"``: the percentiles moved by the bias correction and the acceleration (see the notes of
            :mod:`offline_eval.logboot`).
            By default BCa where the jackknife over clusters was computed (in memory), else percentile (the
            one-pass Dask bootstrap).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``nan`` (with a warning) when fewer than half of the resamples are defined,
            or, for BCa, when every replicate lies on one side of the statistic.

        Notes
        -----
        Undefined replicates are left out.  Percentiles interpolate linearly (``numpy.percentile``'s
        default, as ``scipy.stats.bootstrap``).
        """
        level = check_real(level, "level", low=0, high=1, closed="neither")
        if method is None:
            method = self.method
        check_choice(method, "method", ("bca", "percentile"))
        if method == "bca" and np.isnan(self.acceleration):
            raise ValueError(f"`method` = 'bca' needs the jackknife over clusters, which {self.name} does not hold "
                             "(the one-pass Dask bootstrap keeps no per-cluster sums); use method='percentile'")
        r = self.replicates[np.isfinite(self.replicates)]
        nan = ConfidenceInterval(float("nan"), float("nan"))
        if len(r) < self.n_boot / 2 or len(r) == 0 or not np.isfinite(self.statistic):
            warn_undefined(f"{self.name}: undefined on {self.n_boot - len(r)} of {self.n_boot} resamples; "
                           "the interval is nan")
            return nan
        alpha = (1.0 - level) / 2.0
        if method == "percentile":
            q = np.array([alpha, 1.0 - alpha])
        else:
            q = bca_quantiles(r, self.statistic, self.acceleration, alpha)
            if q is None:
                warn_undefined(f"{self.name}: every replicate lies on one side of the statistic; "
                               "the BCa interval is nan (use method='percentile')")
                return nan
        low, high = np.percentile(r, 100.0 * q)
        return ConfidenceInterval(float(low), float(high))

    def __repr__(self) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OfflineEvalWarning)  # an undefined interval shows as nan
            ci = self.confidence_interval()
        fields = short_repr("", statistic=self.statistic, standard_error=self.standard_error,
                            pvalue=None if np.isnan(self.pvalue) else self.pvalue,
                            interval=interval_text(ci, method=self.method, level=0.95))[1:-1]
        return f"BootstrapResult({self.name}: {fields}, {self.n_boot} resamples of {self.n_clusters:,} clusters)"


class ModelResults:
    """The :class:`BootstrapResult` of each metric for one model (or the difference), as attributes."""

    def __init__(self, label: str, results: dict):
        self._label = label
        self._results = dict(results)

    def __getattr__(self, name):
        try:
            return self.__dict__["_results"][name]
        except KeyError:
            raise AttributeError(f"no metric {name!r} here; computed: {list(self.__dict__['_results'])}") from None

    def __iter__(self):
        return iter(self._results.values())

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._results))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v.statistic:.6g}" for k, v in self._results.items())
        return f"ModelResults({self._label}: {inner})"


class LogBootstrap:
    """The result of :func:`offline_eval.logboot.clustered_bootstrap`.

    Attributes
    ----------
    a, b : ModelResults
        Per metric, a :class:`BootstrapResult` of model A (``y_score``) and B (``y_score_b``, else ``None``),
        e.g. ``res.a.roc_auc_score.confidence_interval()``.
    difference : ModelResults or None
        Per metric, the paired difference B - A on the same resamples, with its ``pvalue``.
    metrics : tuple of str
    n_boot, n_clusters : int
    """

    def __init__(self, a, b, difference, metrics, n_boot, n_clusters):
        self.a, self.b, self.difference = a, b, difference
        self.metrics = tuple(metrics)
        self.n_boot, self.n_clusters = int(n_boot), int(n_clusters)

    def table(self, level: float = 0.95, *, method: str | None = None):
        """One row per metric and model: statistic, standard error, interval and p-value.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
        method : {"bca", "percentile"}, optional
            As in :meth:`BootstrapResult.confidence_interval` (by default BCa where it was computed).

        Returns
        -------
        pandas.DataFrame
            Columns ``metric, model, statistic, standard_error, low, high, pvalue``.
        """
        import pandas as pd

        rows = []
        for label, group in (("a", self.a), ("b", self.b), ("b - a", self.difference)):
            if group is None:
                continue
            for metric in self.metrics:
                r = getattr(group, metric)
                ci = r.confidence_interval(level, method=method)
                rows.append({"metric": metric, "model": label, "statistic": r.statistic,
                             "standard_error": r.standard_error, "low": ci.low, "high": ci.high, "pvalue": r.pvalue})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        models = "a" if self.b is None else "a, b, b - a"
        return (f"LogBootstrap({', '.join(self.metrics)} of {models}; {self.n_boot} resamples of "
                f"{self.n_clusters:,} clusters)")
