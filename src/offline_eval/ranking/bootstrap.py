"""A paired bootstrap comparison of two models under one measure (rosset Section 5.3, Table 2)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from scipy.special import ndtr

from .._bootstrap import MAX_BOOT, BootstrapResult, check_boot_work
from .._progress import counter, reports_progress
from .._results import ConfidenceInterval, Result, interval_text, normal_interval, short_repr
from .._validation import (
    as_1d,
    check_aligned,
    check_choice,
    check_consistent_length,
    check_finite,
    check_int,
    check_rng,
    warn_undefined,
)
from .._metrics_losses import weighted_mean
from ._pairs import check_pair
from ._rho import spearman_rho_checked
from ._tau_engine import kendall_tau_checked
from .coefficients import MEASURES

__all__ = ["BootstrapComparison", "bootstrap_compare"]


# -- bootstrap comparison of two models (Table 2) --------------------------------------------
class _BootstrapComparisonFields(NamedTuple):
    value_a: float
    value_b: float
    difference: float  # value_a - value_b
    standard_error: float  # bootstrap standard deviation of the difference
    pvalue: float  # one-sided Gaussian: P(Z > |difference| / standard_error)
    differences: np.ndarray  # the bootstrap differences


class BootstrapComparison(_BootstrapComparisonFields, Result):
    """Table 2 row: two models under one measure, with the bootstrap of their difference.

    A :class:`~offline_eval._results.Result`: ``.statistic`` is the difference, ``.standard_error`` the
    bootstrap standard deviation of the difference (the paper's "Std. Dev."), ``.pvalue`` the paper's
    one-sided Gaussian p-value, ``.confidence_interval(level=0.95, method=...)`` the normal interval of the
    difference by default (the Gaussian of the p-value), or the percentile or basic interval of the bootstrap
    differences (as :class:`~offline_eval.results.BootstrapResult`'s), and the ``repr`` leaves out the bootstrap
    differences.
    """

    __slots__ = ()
    method = "normal"

    @property
    def statistic(self) -> float:
        """The difference ``value_a - value_b``."""
        return self.difference

    def confidence_interval(self, level: float = 0.95, *, method: str | None = None) -> ConfidenceInterval:
        """The interval of the difference.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
        method : {"normal", "percentile", "basic"}, optional
            ``"normal"`` (the default, :attr:`method`): ``difference -/+ z standard_error``, the Gaussian of the
            p-value; ``"percentile"`` and ``"basic"``: from the bootstrap differences, as
            :meth:`offline_eval.results.BootstrapResult.confidence_interval`.

        Returns
        -------
        ConfidenceInterval
        """
        method = self.method if method is None else method
        check_choice(method, "method", ("normal", "percentile", "basic"))
        if method == "normal":
            return normal_interval(self.difference, self.standard_error, level)
        return BootstrapResult(self.difference, self.differences, name="the difference").confidence_interval(
            level, method=method)

    def __repr__(self) -> str:
        return short_repr("BootstrapComparison", statistic=self.difference, value_a=self.value_a,
                          value_b=self.value_b, standard_error=self.standard_error, pvalue=self.pvalue,
                          n_boot=len(self.differences),
                          interval=interval_text(self.confidence_interval(), method="normal", level=0.95))


#: Two values of a measure closer than this, relative to the larger, are equal: their difference is rounding (a
#: sum in another order, 0.1 + 0.2 against 0.3), far below any difference worth reporting, and its sign or size
#: must not decide a p-value.
TIE_RTOL = 2.0**-40


#: The named measures on arrays already checked (aligned, finite float64 of one length): the arithmetic of their
#: public functions without the checks, which :func:`bootstrap_compare` makes once rather than per resample.
_CHECKED = {
    "RMSE": lambda y, m: float(np.sqrt(weighted_mean((y - m) ** 2, None))),
    "MAE": lambda y, m: weighted_mean(np.abs(y - m), None),
    "MAD": lambda y, m: float(np.median(np.abs(y - m))),
    "tau": kendall_tau_checked,
    "rho": spearman_rho_checked,
}


def _difference(x: float, y: float) -> float:
    """``x - y``, or exactly 0 when ``|x - y| <= TIE_RTOL * max(|x|, |y|)``."""
    d = float(x) - float(y)
    return 0.0 if abs(d) <= TIE_RTOL * max(abs(float(x)), abs(float(y))) else d


@reports_progress("ranking")
def bootstrap_compare(y_true, pred_a, pred_b, *, measure, n_boot: int = 100, rng=None) -> BootstrapComparison:
    """Compare two models on one measure with a bootstrap of the test set (Section 5.3).

    Parameters
    ----------
    y_true, pred_a, pred_b : array-like of shape (n,)
    measure : str or callable
        A name of :data:`MEASURES` or ``f(y_true, y_pred) -> float``.
    n_boot : int, default 100
        Bootstrap samples (the paper uses 100); at most 10**6, and ``2 n_boot (n + 1000)`` at most
        ``MAX_BOOT_WORK`` = 2 * 10**8 (two measures per resample; a larger request is an error before any work).
    rng : None, int or numpy.random.Generator

    Returns
    -------
    BootstrapComparison
        Values on the full set, their difference ``a - b``, the standard
        deviation of the difference over the bootstrap samples (ddof=1), and
        the p-value :math:`1 - \\Phi(|d| / sd)`.

    Notes
    -----
    Both models are evaluated on the same resampled rows, so the standard
    deviation is that of the *paired* difference.  **Tie rule:** two values
    within a relative ``2**-40`` of each other (:data:`TIE_RTOL`) are equal
    and their difference is exactly 0, on the data and in every resample, so
    that no p-value hinges on rounding (two models equal in exact arithmetic
    give a ``nan`` p-value with a warning, not 0.5 or 1e-30 by the last bit).  The p-value is one-sided:
    recomputed from Table 2's printed differences and standard deviations
    (e.g. RMSE: 96,890 / 92,649 = 1.046, :math:`1 - \\Phi(1.046) = 0.148`,
    printed 0.14778), the paper's are one-sided too.

    Examples
    --------
    >>> r = bootstrap_compare([1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [2, 1, 3, 5, 4], measure="MAE", n_boot=50, rng=0)
    >>> r.value_a, r.value_b, r.difference
    (0.0, 0.8, -0.8)
    """
    fn = MEASURES.get(measure) if isinstance(measure, str) else measure
    if fn is None or not callable(fn):
        raise ValueError(f"`measure` must be one of {sorted(MEASURES)} or a callable; got {measure!r}")
    check_int(n_boot, "n_boot", low=2, high=MAX_BOOT)
    check_aligned(y_true=y_true, pred_a=pred_a, pred_b=pred_b)
    y, a = check_pair(y_true, pred_a, names=("y_true", "pred_a"))
    b = check_finite(as_1d(pred_b, "pred_b"), "pred_b")
    check_consistent_length(y_true=y, pred_b=b)
    check_boot_work(2 * int(n_boot), len(y))  # two measures per resample
    gen = check_rng(rng)
    n = len(y)
    va, vb = float(fn(y, a)), float(fn(y, b))
    # a named measure's resamples skip the checks its first call made (same arithmetic, same values)
    per = _CHECKED.get(measure, fn) if isinstance(measure, str) and MEASURES[measure] is fn else fn
    diffs = np.empty(int(n_boot))
    steps = counter(int(n_boot), "resamples")
    for k in range(int(n_boot)):
        idx = gen.integers(0, n, size=n)
        yk = y[idx]
        diffs[k] = _difference(per(yk, a[idx]), per(yk, b[idx]))
        steps.advance()
    d = _difference(va, vb)
    sd = float(np.std(diffs, ddof=1))
    if not np.isfinite(sd) or sd == 0:
        warn_undefined("the bootstrap differences have no spread; the p-value is undefined (nan)")
        p = float("nan")
    else:
        p = float(ndtr(-abs(d) / sd))
    return BootstrapComparison(va, vb, d, sd, p, diffs)
