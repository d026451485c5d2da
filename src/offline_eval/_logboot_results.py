"""The results of the clustered bootstrap of a log, behind :mod:`offline_eval.logboot` (which re-exports them):
the metrics of one model (:class:`ModelResults`, each a :class:`~offline_eval.results.BootstrapResult`: one metric of
one model, or a paired difference, with its replicates) and the whole run (:class:`LogBootstrap`)."""

from __future__ import annotations

from ._bootstrap import BootstrapResult

__all__ = ["BootstrapResult", "LogBootstrap", "ModelResults"]


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
        method : {"bca", "percentile", "basic"}, optional
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
