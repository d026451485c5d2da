"""The one result of every bootstrap (:class:`BootstrapResult`: a statistic, its replicates and their intervals by
percentile, basic or BCa) and the bounds shared by the bootstraps of :mod:`offline_eval.metrics`,
:mod:`offline_eval.adaptive`, :mod:`offline_eval.ranking` and :mod:`offline_eval.logboot` (a private module: import
``BootstrapResult`` from ``offline_eval.results``)."""

from __future__ import annotations

import warnings

import numpy as np

from ._results import ConfidenceInterval, Result, check_level, interval_text, short_repr
from ._validation import OfflineEvalWarning, check_choice, check_int, check_real, check_work, warn_undefined

__all__ = ["MAX_BOOT", "MAX_BOOT_WORK", "BOOT_CALL_ROWS", "BootstrapCI", "BootstrapResult", "check_boot",
           "check_boot_work", "percentile_ci"]


class BootstrapResult(Result):
    """A statistic with its bootstrap replicates: the one result of every bootstrap of the library.

    Returned by :func:`offline_eval.metrics.bootstrap_ci`, each model of
    :func:`offline_eval.adaptive.bootstrap_oam_accuracy`, and each metric and difference of
    :func:`offline_eval.logboot.clustered_bootstrap` and :func:`offline_eval.ondask.clustered_bootstrap`.  A
    :class:`~offline_eval.results.Result`: ``.statistic``, ``.standard_error`` (the defined replicates' standard
    deviation), ``.pvalue`` (for a paired difference, the two-sided bootstrap p-value of "no difference"; else
    ``nan``), ``.confidence_interval(level=0.95, method=...)`` with the methods of ``scipy.stats.bootstrap``
    (``"percentile"``, ``"basic"``, and ``"bca"`` where the bootstrap computed BCa's acceleration), ``.method``
    (the default method), a one-line ``repr``.

    Parameters
    ----------
    statistic : float
        The statistic on the data.
    replicates : ndarray of shape (n_boot,)
        The statistic on each resample; ``nan`` where it is undefined (e.g. a resample with one class).
    acceleration : float, default nan
        BCa's acceleration (from a jackknife); ``nan`` when none was computed, and then BCa is refused.
    name : str, default "statistic"
        What the statistic is, e.g. ``"roc_auc_score, b - a"``.
    n_clusters : int, optional
        Clusters resampled whole (the clustered bootstrap); ``None`` when rows were resampled.
    difference : bool, default False
        Whether the statistic is a paired difference (then ``.pvalue`` tests 0).
    level : float in (0, 1), default 0.95
        The level the interval was asked at: ``.low`` and ``.high`` are the interval at it.

    Attributes
    ----------
    value : float
        ``statistic`` (the name of the row bootstrap's first result type).
    low, high : float
        The interval at ``level`` by the default method.
    n_boot, n_valid : int
        Resamples, and those on which the statistic is defined.

    Notes
    -----
    With :math:`q_p` the ``p``-quantile of the defined replicates (``numpy.percentile``, linear interpolation, as
    ``scipy.stats.bootstrap``) and :math:`\\alpha = (1 - \\text{level}) / 2`: ``"percentile"`` is
    :math:`(q_\\alpha, q_{1-\\alpha})`; ``"basic"`` is :math:`(2\\hat\\theta - q_{1-\\alpha},
    2\\hat\\theta - q_\\alpha)`; ``"bca"`` moves the two quantile levels by the bias correction and the
    acceleration (Efron & Tibshirani 1993, eq. 14.10; see :mod:`offline_eval.logboot`).  Undefined replicates are
    left out; with fewer than half of the resamples defined the interval is ``nan``.

    Examples
    --------
    >>> r = BootstrapResult(0.5, np.array([0.2, 0.4, 0.5, 0.6, 0.9]), name="x")
    >>> r.confidence_interval(0.5)            # the 25th and 75th percentiles
    ConfidenceInterval(low=0.4, high=0.6)
    >>> r.confidence_interval(0.5, method="basic")  # 2 * 0.5 - (0.6, 0.4)
    ConfidenceInterval(low=0.4, high=0.6)
    """

    def __init__(self, statistic, replicates, acceleration=float("nan"), *, name: str = "statistic",
                 n_clusters=None, difference: bool = False, level: float = 0.95):
        self.statistic = float(statistic)
        self.replicates = np.asarray(replicates, dtype=np.float64)
        self.acceleration = float(acceleration)
        self.name = str(name)
        self.n_clusters = None if n_clusters is None else int(n_clusters)
        self.level = check_level(level)
        if difference:
            from ._logboot_engine import pvalue_at_zero

            self.pvalue = pvalue_at_zero(self.replicates)
        else:
            self.pvalue = float("nan")
        # How the percentile points of a level are computed, and whether a nan interval warns.  The row bootstraps
        # (bootstrap_ci, bootstrap_oam_accuracy) have always taken them as (100 -/+ 100 level) / 2 and warned once,
        # when built, about undefined resamples; the clustered bootstrap as 100 (1 -/+ level) / 2 (scipy's) and
        # warns when an interval is nan.  The two differ in the last bit, and the committed figures hold those bits.
        self._rows_rule = False

    @property
    def method(self) -> str:
        """The default interval's method: ``"bca"`` where BCa's acceleration was computed, else ``"percentile"``."""
        return "percentile" if np.isnan(self.acceleration) else "bca"

    @property
    def value(self) -> float:
        """The statistic (``.statistic``)."""
        return self.statistic

    @property
    def n_boot(self) -> int:
        """Number of resamples."""
        return len(self.replicates)

    @property
    def n_valid(self) -> int:
        """Resamples on which the statistic is defined."""
        return int(np.isfinite(self.replicates).sum())

    @property
    def low(self) -> float:
        """The interval's lower end at :attr:`level`, by the default method."""
        return self.confidence_interval(self.level).low

    @property
    def high(self) -> float:
        """The interval's upper end at :attr:`level`, by the default method."""
        return self.confidence_interval(self.level).high

    @property
    def standard_error(self) -> float:
        """Standard deviation of the defined replicates (ddof=1); ``nan`` with fewer than two."""
        r = self.replicates[np.isfinite(self.replicates)]
        return float(np.std(r, ddof=1)) if r.size > 1 else float("nan")

    def _asdict(self) -> dict:
        """A row for a data frame: the name, statistic, standard error, p-value, the interval at :attr:`level` by
        :attr:`method`, and the resamples (as the named tuples' ``_asdict``)."""
        low, high = self.low, self.high
        return {"name": self.name, "statistic": self.statistic, "standard_error": self.standard_error,
                "pvalue": self.pvalue, "low": low, "high": high, "level": self.level, "method": self.method,
                "n_boot": self.n_boot, "n_valid": self.n_valid}

    def confidence_interval(self, level: float = 0.95, *, method: str | None = None) -> ConfidenceInterval:
        """The bootstrap confidence interval of the statistic.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Coverage of the two-sided interval.
        method : {"percentile", "basic", "bca"}, optional
            As ``scipy.stats.bootstrap`` (``"BCa"`` is accepted too): ``"percentile"``, the ``(1 - level) / 2`` and
            ``(1 + level) / 2`` percentiles of the replicates; ``"basic"``, those reflected about the statistic;
            ``"bca"``, the percentiles moved by the bias correction and the acceleration.  By default
            :attr:`method` (BCa where the acceleration was computed: the in-memory clustered bootstrap).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``nan`` when fewer than half of the resamples are defined, for ``"basic"`` and
            ``"bca"`` when the statistic is undefined, and for BCa when every replicate lies on one side of the
            statistic.

        Raises
        ------
        ValueError
            An unknown ``method``, or ``"bca"`` on a result without BCa's acceleration.
        """
        level = check_level(level)
        method = self.method if method is None else method
        if isinstance(method, str) and method.lower() == "bca":
            method = "bca"
        check_choice(method, "method", ("percentile", "basic", "bca"))
        if method == "bca" and np.isnan(self.acceleration):
            raise ValueError(f"`method` = 'bca' needs the jackknife over clusters (BCa's acceleration), which "
                             f"{self.name} does not hold (only the in-memory clustered bootstrap computes it); use "
                             "method='percentile' or 'basic'")
        nan = ConfidenceInterval(float("nan"), float("nan"))
        r = self.replicates[np.isfinite(self.replicates)]
        if len(r) < self.n_boot / 2 or len(r) == 0 or (method != "percentile" and not np.isfinite(self.statistic)):
            if not self._rows_rule:
                warn_undefined(f"{self.name}: undefined on {self.n_boot - len(r)} of {self.n_boot} resamples"
                               + ("" if np.isfinite(self.statistic) else " and on the data") + "; the interval is nan")
            return nan
        if method == "bca":
            from ._logboot_engine import bca_quantiles

            q = bca_quantiles(r, self.statistic, self.acceleration, (1.0 - level) / 2.0)
            if q is None:
                warn_undefined(f"{self.name}: every replicate lies on one side of the statistic; "
                               "the BCa interval is nan (use method='percentile')")
                return nan
            points = 100.0 * q
        elif self._rows_rule:
            points = [(100 - 100 * level) / 2, (100 + 100 * level) / 2]
        else:
            alpha = (1.0 - level) / 2.0
            points = 100.0 * np.array([alpha, 1.0 - alpha])
        low, high = (float(x) for x in np.percentile(r, points))
        if method == "basic":
            low, high = 2.0 * self.statistic - high, 2.0 * self.statistic - low
        return ConfidenceInterval(low, high)

    def __repr__(self) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OfflineEvalWarning)  # an undefined interval shows as nan
            ci = self.confidence_interval(self.level)
        fields = short_repr("", statistic=self.statistic, standard_error=self.standard_error,
                            pvalue=None if np.isnan(self.pvalue) else self.pvalue,
                            pvalue_resamples=self.n_valid, pvalue_alternative="two-sided",  # pvalue_at_zero's floor
                            interval=interval_text(ci, method=self.method, level=self.level))[1:-1]
        of = " of rows" if self.n_clusters is None else f" of {self.n_clusters:,} clusters"
        return f"BootstrapResult({self.name}: {fields}, {self.n_boot} resamples{of})"


#: The name of the row bootstrap's result type before it became :class:`BootstrapResult` (``metrics`` lists it).
BootstrapCI = BootstrapResult


#: Most resamples a bootstrap may ask for: a percentile interval needs thousands, not billions.
MAX_BOOT = 10**6


def check_boot(n_boot, level) -> None:
    """Raise unless ``n_boot`` is an integer in [1, :data:`MAX_BOOT`] and ``level`` lies in (0, 1)."""
    check_int(n_boot, "n_boot", low=1, high=MAX_BOOT)
    check_real(level, "level", low=0, high=1, closed="neither")


#: Most work a bootstrap may ask for, in rows resampled and evaluated: resamples x (rows + BOOT_CALL_ROWS).  At
#: about 150 ns per row and 150 us per metric call (the cost of one call on a small resample, as many rows), the
#: bound is about 30 s of work; ``n_boot=10**4`` on 10**4 rows or ``n_boot=100`` on 10**6 rows are within it.
MAX_BOOT_WORK = 2 * 10**8

#: The cost of one metric call beyond its rows (validation, allocation), counted as this many rows.
BOOT_CALL_ROWS = 1000


def check_boot_work(n_boot: int, n_rows: int, name: str = "n_boot") -> None:
    """Raise a named error, before any work, when ``n_boot`` resamples of ``n_rows`` rows exceed :data:`MAX_BOOT_WORK`."""
    check_work(int(n_boot) * (int(n_rows) + BOOT_CALL_ROWS), name, n_boot, limit=MAX_BOOT_WORK,
               what=f"row evaluations (resamples x ({n_rows:,} rows + {BOOT_CALL_ROWS:,} per call))",
               hint=f"use a smaller `{name}` (at most {MAX_BOOT_WORK // (int(n_rows) + BOOT_CALL_ROWS):,} for these rows)")


def percentile_ci(value: float, reps: np.ndarray, level: float, what: str, *, name: str | None = None) -> BootstrapResult:
    """The :class:`BootstrapResult` of a row bootstrap (percentile by default), warning when resamples are undefined.

    ``what`` names the statistic in the warning, ``name`` in the result (default ``what``).
    """
    n_boot = len(reps)
    n_valid = int(np.isfinite(reps).sum())
    if n_valid < n_boot:
        warn_undefined(f"{what} is undefined on {n_boot - n_valid} of {n_boot} resamples (left out of the interval)",
                       stacklevel=4)
    res = BootstrapResult(value, reps, name=what.removeprefix("the ") if name is None else name, level=level)
    res._rows_rule = True
    return res
