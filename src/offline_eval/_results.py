"""The protocol every result with an interval or a p-value follows, and the types it shares.

One protocol, as scipy's ``SignificanceResult`` and ``BootstrapResult``:

``.statistic``
    The point value, a Python ``float``.
``.standard_error``
    The spread of the statistic's sampling distribution (the one name for it: the normal interval's
    standard error, or the replicates' standard deviation for a bootstrap); ``nan`` where none is defined.
``.pvalue``
    Where the result tests a null hypothesis (a difference of zero, independence), its p-value in [0, 1];
    ``nan`` for the results that test nothing (never missing, never an error).
``.confidence_interval(level=0.95)``
    A :class:`ConfidenceInterval` ``(low, high)`` at coverage ``level``, 0.95 by default for every result.
``.method``
    How the interval is made: ``"normal"``, ``"percentile"``, ``"bca"``, ``"Fisher-z"``.
``repr``
    One line of at most about 200 characters: the statistic at four significant digits, its standard error or
    p-value (a bound at a resampling floor), the interval with its method and level (``95% normal CI [a, b]``),
    never the bootstrap replicates or any other array (:func:`short_repr`, :mod:`offline_eval.display`).

A result with several statistics (the click yield and the mainline click yield of an A/B arm) holds one
such result per statistic, e.g. ``res.cy_delta.confidence_interval(0.9)``.

The types: :class:`Result`, the base every interval-bearing result is or extends (a test holds each to
this protocol: ``tests/library/test_results_protocol.py``), :class:`ConfidenceInterval` (also exported by
:mod:`offline_eval.logboot`) and :class:`NormalEstimate`, a value with its standard error and the normal interval around it (the click yields
and deltas of :mod:`offline_eval.auction`).  :class:`~offline_eval.bidding.ABCorrelation` is a mean and a
standard deviation over resampled trials, not an interval, and stays outside the protocol.
"""

from __future__ import annotations

import inspect
from typing import NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from ._validation import check_bool, check_real
from .display import format_number, format_pvalue

__all__ = ["ConfidenceInterval", "NormalEstimate", "Result", "check_level", "interval_text", "normal_interval", "short_repr"]


class ConfidenceInterval(NamedTuple):
    """``(low, high)``, as scipy's ``ConfidenceInterval``."""

    low: float
    high: float


def check_level(level, default: float = 0.95) -> float:
    """``level`` as a float in (0, 1); ``default`` when it is ``None``."""
    if level is None:
        return float(default)
    return check_real(level, "level", low=0, high=1, closed="neither")


def normal_interval(center: float, standard_error: float, level, *, low: float = -np.inf,
                    high: float = np.inf) -> ConfidenceInterval:
    """``center -/+ z_{(1 + level)/2} standard_error``, clipped to ``[low, high]``."""
    half = float(ndtri(0.5 + check_level(level) / 2.0)) * standard_error
    return ConfidenceInterval(float(max(center - half, low)), float(min(center + half, high)))


def _num(x: float) -> str:
    """4 significant digits, trailing zeros dropped, ``_`` groups (a valid Python literal)."""
    text = format_number(x).replace(",", "_")
    if "." in text and "e" not in text:
        text = text.rstrip("0").rstrip(".")
    elif "e" in text:
        mantissa, exp = text.split("e")
        text = (mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa) + "e" + exp
    return text


def _repr_value(value) -> str:
    """One field of a short repr: numbers at 4 significant digits (``_`` groups, a valid literal), arrays
    by their length, results by their type."""
    if isinstance(value, (bool, np.bool_, str)) or value is None:
        return repr(value if not isinstance(value, np.bool_) else bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return _num(float(value))
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return _repr_value(value.item())
    if isinstance(value, (tuple, list, np.ndarray)) and not hasattr(value, "_fields"):
        seq = list(np.ravel(value)) if isinstance(value, np.ndarray) else list(value)
        if len(seq) <= 3 and all(np.isscalar(v) for v in seq):
            inner = ", ".join(_repr_value(v) for v in seq)
            return f"[{inner}]" if isinstance(value, (list, np.ndarray)) else f"({inner})"
        shape = "x".join(map(str, value.shape)) if isinstance(value, np.ndarray) else str(len(seq))
        return f"<{shape} values>"
    return f"<{type(value).__name__}>"


def interval_text(interval, *, method: str, level: float) -> str:
    """``95% normal CI [0.31, 0.51]``: an interval with its method and level, at 4 significant digits."""
    low, high = (_num(float(v)) for v in interval)
    return f"{100 * float(level):.4g}% {method} CI [{low}, {high}]"


def short_repr(name: str, *, interval: str | None = None, pvalue_resamples: int | None = None,
               pvalue_alternative: str = "two-sided", **fields) -> str:
    """``name(field=value, ..., 95% normal CI [low, high])``: one line, numbers at 4 significant digits.

    ``None`` fields are left out; a field named ``pvalue`` (or ending in ``_pvalue``) is shown by
    :func:`offline_eval.display.format_pvalue`, a bound at its resampling floor when the p-value comes from
    ``pvalue_resamples`` resamples of a test of sidedness ``pvalue_alternative`` (``pvalue<0.010``: two-sided,
    200 resamples); arrays by their length, never their values; ``interval`` (see :func:`interval_text`) goes last.
    """
    parts = []
    for k, v in fields.items():
        if v is None:
            continue
        if (k == "pvalue" or k.endswith("_pvalue")) and isinstance(v, (float, np.floating)):
            shown = format_pvalue(float(v), n_resamples=pvalue_resamples, alternative=pvalue_alternative)
            parts.append(f"{k}{shown.replace(' ', '')}" if shown.startswith("<") else f"{k}={shown}")
        else:
            parts.append(f"{k}={_repr_value(v)}")
    if interval:
        parts.append(interval)
    return f"{name}({', '.join(parts)})"


def interval_doc(summary: str, *, returns: str = ""):
    """Give a ``confidence_interval(level=0.95)`` method its docstring: ``summary`` (how the interval is made), then
    the ``level`` parameter and the :class:`ConfidenceInterval` returned (``returns``: a line more about it), the
    sections every result type shares.

    Parameters
    ----------
    summary : str
        The first paragraphs of the docstring.
    returns : str, optional
        What the returned interval holds, beyond its type.
    """
    doc = (f"{inspect.cleandoc(summary)}\n\nParameters\n----------\nlevel : float in (0, 1), default 0.95\n\n"
           f"Returns\n-------\nConfidenceInterval\n" + (f"    {returns}\n" if returns else ""))

    def decorate(method):
        method.__doc__ = doc
        return method

    return decorate


class Result:
    """The base of every result with an interval or a p-value (the protocol of this module).

    A subclass gives ``statistic`` and ``standard_error`` (floats: attributes, fields or properties) and
    ``confidence_interval(level=0.95)``, and sets ``method``; ``pvalue`` is ``nan`` unless the subclass tests
    a hypothesis.  It holds no state of its own
    (``__slots__ = ()``), so records (named tuples) and floats can extend it.
    """

    __slots__ = ()
    #: How :meth:`confidence_interval` is made.
    method: str = "normal"
    #: The p-value of the result's null hypothesis; ``nan`` where it tests none.
    pvalue: float = float("nan")

    @interval_doc("The interval at coverage ``level`` (see :attr:`method`).")
    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:  # pragma: no cover
        raise NotImplementedError


class NormalEstimate(float, Result):
    """A point estimate with its standard error and the normal interval around it.

    It is the ``float`` of its value (so ``100 * res.cy_delta`` is a number), and follows the results'
    protocol: ``.statistic``, ``.standard_error``, ``.confidence_interval(level=0.95)`` and ``.pvalue``, that of
    "the value is zero" when it is a difference (``test_zero``), else ``nan``.

    Parameters
    ----------
    statistic : float
    standard_error : float
    name : str
        What the value is, e.g. ``"cy_delta"``.
    test_zero : bool, default False
        Whether the estimate tests a null value of 0 (a difference): then ``.pvalue`` is the two-sided normal
        p-value :math:`2\\,\\Phi(-|\\hat\\theta| / se)`.

    Notes
    -----
    The interval is :math:`\\hat\\theta \\mp z_{(1+\\text{level})/2}\\, se` (not clipped).

    Examples
    --------
    >>> e = NormalEstimate(0.1, 0.05, name="delta", test_zero=True)
    >>> [round(x, 4) for x in e.confidence_interval(0.95)]  # 0.1 -/+ 1.96 * 0.05
    [0.002, 0.198]
    >>> round(e.pvalue, 4), float(e) == e.statistic == 0.1
    (0.0455, True)
    """

    __slots__ = ("standard_error", "name", "_test_zero")

    def __new__(cls, statistic, standard_error, *, name: str = "estimate", test_zero: bool = False):
        self = super().__new__(cls, float(statistic))
        self.standard_error = float(standard_error)
        self.name = str(name)
        self._test_zero = check_bool(test_zero, "test_zero")  # a public type: "False" is not False
        return self

    def __getnewargs_ex__(self):
        return (float(self), self.standard_error), {"name": self.name, "test_zero": self._test_zero}

    @property
    def statistic(self) -> float:
        """The value, a plain ``float``."""
        return float(self)

    @property
    def pvalue(self) -> float:
        """Two-sided normal p-value of "the value is 0" for a difference (``test_zero``); else ``nan``."""
        if not self._test_zero:
            return float("nan")
        with np.errstate(divide="ignore", invalid="ignore"):  # se 0: p 0 (or nan for a value of 0 too)
            z = np.abs(np.float64(self)) / np.float64(self.standard_error)
        return float(2.0 * ndtr(-z))

    @interval_doc("Normal interval ``statistic -/+ z standard_error``.")
    def confidence_interval(self, level: float = 0.95) -> ConfidenceInterval:
        return normal_interval(float(self), self.standard_error, level)

    def __repr__(self) -> str:
        p = {"pvalue": self.pvalue} if self._test_zero else {}
        return short_repr(f"NormalEstimate[{self.name}]", statistic=float(self),
                          standard_error=self.standard_error, **p,
                          interval=interval_text(self.confidence_interval(), method="normal", level=0.95))

    def __str__(self) -> str:
        return float.__repr__(float(self))
