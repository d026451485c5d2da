"""The result of a bootstrap interval and the percentile rule shared by :func:`offline_eval.metrics.bootstrap_ci`
and :func:`offline_eval.adaptive.bootstrap_oam_accuracy` (a private module: import ``BootstrapCI`` from
``offline_eval.metrics``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._results import ConfidenceInterval, Result, check_level, interval_text, short_repr
from ._validation import check_int, check_real, check_work, warn_undefined

__all__ = ["MAX_BOOT", "MAX_BOOT_WORK", "BOOT_CALL_ROWS", "BootstrapCI", "check_boot", "check_boot_work",
           "percentile_ci"]


class _BootstrapCIFields(NamedTuple):
    value: float
    low: float
    high: float
    level: float
    n_boot: int
    n_valid: int
    replicates: np.ndarray


class BootstrapCI(_BootstrapCIFields, Result):
    """A metric on the data with its bootstrap percentile interval.

    ``value`` (also ``.statistic``) is the metric on the data; ``low``/``high`` the percentile
    interval at ``level`` (the level it was asked at) over the ``n_valid`` of ``n_boot`` resamples on
    which the metric is defined; ``replicates`` the resampled values (``nan``
    where undefined, e.g. a resample with one class).  A :class:`~offline_eval.results.Result`:
    ``.statistic``, ``.standard_error`` (the defined replicates' standard deviation),
    ``.confidence_interval(level=0.95)`` (at any level, from the replicates), ``.pvalue`` ``nan`` (it tests
    nothing), ``.method`` ``"percentile"``, a short ``repr``.
    """

    __slots__ = ()
    method = "percentile"

    @property
    def statistic(self) -> float:
        """The metric on the data (``value``)."""
        return self.value

    @property
    def standard_error(self) -> float:
        """Standard deviation of the defined replicates (ddof=1); ``nan`` with fewer than two."""
        r = np.asarray(self.replicates, dtype=np.float64)
        r = r[np.isfinite(r)]
        return float(np.std(r, ddof=1)) if r.size > 1 else float("nan")

    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
        """The percentile interval of the defined replicates at ``level``.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            At the level the interval was asked at (``self.level``) it is ``(low, high)``.

        Returns
        -------
        ConfidenceInterval
            ``nan`` when fewer than half of the resamples are defined.
        """
        level = check_level(level)
        if level == self.level:
            return ConfidenceInterval(self.low, self.high)
        return ConfidenceInterval(*_percentiles(self.replicates, level))

    def __repr__(self) -> str:
        return short_repr("BootstrapCI", statistic=self.value, n_boot=self.n_boot, n_valid=self.n_valid,
                          interval=interval_text((self.low, self.high), method="percentile", level=self.level))


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


def percentile_ci(value: float, reps: np.ndarray, level: float, what: str) -> BootstrapCI:
    """The percentile interval of the finite replicates; ``nan`` (and a warning) when too many are undefined."""
    n_boot = len(reps)
    valid = np.isfinite(reps)
    n_valid = int(valid.sum())
    if n_valid < n_boot:
        warn_undefined(f"{what} is undefined on {n_boot - n_valid} of {n_boot} resamples (left out of the interval)",
                       stacklevel=4)
    low, high = _percentiles(reps, level)
    return BootstrapCI(float(value), low, high, float(level), n_boot, n_valid, reps)


def _percentiles(reps: np.ndarray, level: float) -> tuple[float, float]:
    """The ``(1 -/+ level) / 2`` percentiles of the finite replicates; nan when fewer than half are finite."""
    valid = np.isfinite(reps)
    if int(valid.sum()) < len(reps) / 2:
        return float("nan"), float("nan")
    low, high = (float(x) for x in np.percentile(reps[valid], [(100 - 100 * level) / 2, (100 + 100 * level) / 2]))
    return low, high
