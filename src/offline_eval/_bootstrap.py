"""The result of a bootstrap interval and the percentile rule shared by :func:`offline_eval.metrics.bootstrap_ci`
and :func:`offline_eval.adaptive.bootstrap_oam_accuracy` (a private module: import ``BootstrapCI`` from
``offline_eval.metrics``)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validation import check_int, check_real, warn_undefined

__all__ = ["MAX_BOOT", "BootstrapCI", "check_boot", "percentile_ci"]


class BootstrapCI(NamedTuple):
    """A metric on the data with its bootstrap percentile interval.

    ``value`` is the metric on the data; ``low``/``high`` the percentile
    interval at ``level`` over the ``n_valid`` of ``n_boot`` resamples on
    which the metric is defined; ``replicates`` the resampled values (``nan``
    where undefined, e.g. a resample with one class).
    """

    value: float
    low: float
    high: float
    level: float
    n_boot: int
    n_valid: int
    replicates: np.ndarray

    def confidence_interval(self) -> tuple[float, float]:
        """``(low, high)``."""
        return self.low, self.high


#: Most resamples a bootstrap may ask for: a percentile interval needs thousands, not billions.
MAX_BOOT = 10**6


def check_boot(n_boot, level) -> None:
    """Raise unless ``n_boot`` is an integer in [1, :data:`MAX_BOOT`] and ``level`` lies in (0, 1)."""
    check_int(n_boot, "n_boot", low=1, high=MAX_BOOT)
    check_real(level, "level", low=0, high=1, closed="neither")


def percentile_ci(value: float, reps: np.ndarray, level: float, what: str) -> BootstrapCI:
    """The percentile interval of the finite replicates; ``nan`` (and a warning) when too many are undefined."""
    n_boot = len(reps)
    valid = np.isfinite(reps)
    n_valid = int(valid.sum())
    if n_valid < n_boot:
        warn_undefined(f"{what} is undefined on {n_boot - n_valid} of {n_boot} resamples (left out of the interval)",
                       stacklevel=4)
    if n_valid < n_boot / 2:
        low = high = float("nan")
    else:
        low, high = (float(x) for x in np.percentile(reps[valid], [(100 - 100 * level) / 2, (100 + 100 * level) / 2]))
    return BootstrapCI(float(value), low, high, float(level), n_boot, n_valid, reps)
