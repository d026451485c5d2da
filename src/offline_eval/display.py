"""Numbers for people: one formatter for the results' reprs, the report, the ledger's display and run summaries.

The rules, as a careful table in a paper follows them:

* **Significant digits matched to what is compared**: a value shown beside a printed ``-9.96%`` gets the
  printed value's three significant digits (:func:`significant_digits`); with nothing to match, four.
* **Thousands separators**: ``3,775,592``, never ``3775592.00``.
* **Counts as integers**: ``11``, not ``11.00`` (:func:`format_count`).
* **Percentages as percentages**: a share ``0.123`` is ``12.3%`` (:func:`format_percent`).
* **Intervals compact**: ``-38.9% [-49.8, -28.6]``, the ends at the decimals of the estimate's rounding
  (:func:`format_interval`).
* **p-values at a resampling floor as bounds**: a bootstrap p-value of ``2/1001`` is ``< 0.002``, since
  ``B`` resamples cannot show a smaller one (:func:`format_pvalue`).

:func:`reformat` applies the rules to the numbers inside a free text (a ledger's value such as
``"median -38.9241, 5-95% [-49.7584, -28.6439] over 20 seeds"``) without touching its words.

Examples
--------
>>> format_number(3775592.0, digits=7)
'3,775,592'
>>> format_interval(-38.9241, -49.7584, -28.6439, digits=3, unit="%")
'-38.9% [-49.8, -28.6]'
>>> format_pvalue(2 / 1001, floor=2 / 1001)
'< 0.002'
>>> reformat("11.00 clicks in 3775592.00 impressions")
'11 clicks in 3,775,592 impressions'
"""

from __future__ import annotations

import math
import re

__all__ = ["format_count", "format_interval", "format_number", "format_percent", "format_pvalue", "reformat",
           "significant_digits"]

#: Significant digits when nothing printed says how many.
DEFAULT_DIGITS = 4

_NUMBER = re.compile(r"[-+−]?\d[\d,]*(?:\.\d*)?(?:[eE][-+]?\d+)?|[-+−]?\.\d+(?:[eE][-+]?\d+)?")


def significant_digits(printed, default: int = DEFAULT_DIGITS) -> int:
    """The significant digits of the first number in a printed value, ``default`` when it holds none.

    Leading zeros do not count; trailing zeros do (``"0.50"`` has two), also those of an integer
    (``"120"`` has three).  Thousands separators, signs and a trailing ``%`` are ignored.

    Parameters
    ----------
    printed : str or number
        The value as printed, e.g. ``"-9.96%"``, ``"3,872,481"``, ``"0.0283"``.
    default : int, default 4
        The digits when ``printed`` holds no number.

    Examples
    --------
    >>> [significant_digits(s) for s in ("-9.96%", "3,872,481", "0.0283", "0.50", "120", "n/a")]
    [3, 7, 3, 2, 3, 4]
    """
    m = _NUMBER.search(str(printed))
    if not m:
        return int(default)
    mantissa = re.split(r"[eE]", m.group(0))[0].lstrip("+-−").replace(",", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return max(len(digits), 1)


def _decimals(x: float, digits: int) -> int:
    """Decimals that show ``x`` at ``digits`` significant digits (negative: round to tens, hundreds...)."""
    if x == 0 or not math.isfinite(x):
        return max(digits - 1, 0)
    exponent = math.floor(math.log10(abs(x)))
    # rounding may carry into the next power of ten (9.996 at 3 digits is 10.0)
    if abs(round(x, digits - 1 - exponent)) >= 10.0 ** (exponent + 1):
        exponent += 1
    return digits - 1 - exponent


def _fixed(x: float, decimals: int) -> str:
    if decimals <= 0:
        text = f"{round(x, decimals):,.0f}"
    else:
        text = f"{x:,.{decimals}f}"
    return "0" + text[2:] if text.startswith("-0") and float(text.replace(",", "")) == 0 else text


def format_number(x, digits: int = DEFAULT_DIGITS) -> str:
    """``x`` at ``digits`` significant digits, with thousands separators; scientific below 1e-4 or from 1e15.

    Trailing zeros are kept (``0.50`` at two digits says what was measured); an integer-valued ``x``
    shown in full at ``digits`` has no decimals.  ``nan`` and the infinities are ``nan``, ``inf``, ``-inf``.

    Examples
    --------
    >>> format_number(-38.9241, 3), format_number(0.5, 2), format_number(1234567.891, 4)
    ('-38.9', '0.50', '1,235,000')
    >>> format_number(0.0000123), format_number(11.0, 2)
    ('1.230e-05', '11')
    """
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    digits = max(int(digits), 1)
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e15):
        return f"{x:.{digits - 1}e}"
    return _fixed(x, _decimals(x, digits))


def format_count(n) -> str:
    """A count as an integer with thousands separators: ``11`` for ``11.0``, ``3,775,592``.

    Examples
    --------
    >>> format_count(11.0), format_count(3775592), format_count(1)
    ('11', '3,775,592', '1')
    """
    n = float(n)
    if not math.isfinite(n):
        return format_number(n)
    return f"{round(n):,d}"


def format_percent(share, digits: int = 3, *, scale: float = 100.0) -> str:
    """A share as a percentage at ``digits`` significant digits: ``0.123`` is ``12.3%``.

    Parameters
    ----------
    share : float
        The share (``scale=100``), or a value already in percent (``scale=1``).
    digits : int, default 3
    scale : float, default 100

    Examples
    --------
    >>> format_percent(0.12345), format_percent(-0.0996), format_percent(42.8571, 4, scale=1)
    ('12.3%', '-9.96%', '42.86%')
    """
    return format_number(float(share) * scale, digits) + "%"


def format_interval(estimate, low, high, *, digits: int = 3, unit: str = "") -> str:
    """An estimate and its interval, compact: ``-38.9% [-49.8, -28.6]``.

    The three numbers share one rounding step: that of the largest in magnitude at ``digits`` significant
    digits, so that the ends are comparable with the estimate.  ``unit`` (``"%"``) follows the estimate.

    Examples
    --------
    >>> format_interval(0.8245, 0.79, 0.861)
    '0.825 [0.790, 0.861]'
    >>> format_interval(12345.6, 11000.2, 14000.9, digits=3)
    '12,300 [11,000, 14,000]'
    """
    values = [float(v) for v in (estimate, low, high)]
    finite = [abs(v) for v in values if math.isfinite(v)]
    if not finite:
        return f"{format_number(values[0])}{unit} [{format_number(values[1])}, {format_number(values[2])}]"
    top = max(finite)
    if top != 0 and (top < 1e-4 or top >= 1e15):
        est, lo, hi = (format_number(v, digits) for v in values)
    else:
        decimals = _decimals(top, max(int(digits), 1))
        est, lo, hi = (_fixed(v, decimals) if math.isfinite(v) else format_number(v) for v in values)
    return f"{est}{unit} [{lo}, {hi}]"


def format_pvalue(p, *, floor: float | None = None, n_resamples: int | None = None) -> str:
    """A p-value at two significant digits; at a resampling floor, the bound it is: ``< 0.002``.

    A p-value from ``B`` resamples (or permutations) cannot be smaller than its floor, ``1 / (B + 1)``
    one-sided, ``2 / (B + 1)`` two-sided: at the floor the data say only that it is below it, rounded
    up to one significant digit.  Below ``0.0001`` a p-value is shown as ``< 0.0001``.

    Parameters
    ----------
    p : float
    floor : float, optional
        The smallest p-value the procedure can return (e.g. ``2 / 1001``).
    n_resamples : int, optional
        ``B``: the floor is then ``1 / (B + 1)`` when ``floor`` is not given (one-sided).

    Examples
    --------
    >>> format_pvalue(0.0432), format_pvalue(0.5), format_pvalue(1e-9)
    ('0.043', '0.50', '< 0.0001')
    >>> format_pvalue(2 / 1001, floor=2 / 1001), format_pvalue(1 / 1000, n_resamples=999)
    ('< 0.002', '< 0.001')
    """
    p = float(p)
    if math.isnan(p):
        return "nan"
    if floor is None and n_resamples is not None:
        floor = 1.0 / (int(n_resamples) + 1)
    if floor is not None and p <= float(floor) * (1 + 1e-9):
        exponent = math.floor(math.log10(float(floor)))
        bound = math.ceil(float(floor) / 10.0 ** exponent * (1 - 1e-12)) * 10.0 ** exponent
        return "< " + _fixed(bound, max(-exponent, 0))
    if p < 1e-4:
        return "< 0.0001"
    return format_number(p, 2)


def _one(token: str, digits: int) -> str:
    sign = "-" if token[0] in "-−" else ""
    body = token.lstrip("+-−")
    plain = body.replace(",", "")
    if "." not in plain and "e" not in plain.lower():
        # an integer as written: a count, a seed, a year (separators from five digits on: 2013 stays 2013)
        return sign + (f"{int(plain):,d}" if len(plain) >= 5 else plain)
    x = float(plain)
    if x == int(x) and abs(x) < 1e15 and "e" not in plain.lower():
        return sign + format_count(x)  # 11.00 -> 11
    # never more digits than were written (1.7e-16 stays 1.7e-16)
    return sign + format_number(x, min(digits, significant_digits(plain))) if x != 0 else "0"


def reformat(text, *, like=None, digits: int | None = None) -> str:
    """The numbers inside ``text`` rewritten by the rules above; its words left as they are.

    A number with decimals is rounded to ``digits`` significant digits (default: those of ``like``, the
    printed value it is compared with; else four); a whole number written with decimals (``11.00``)
    becomes an integer; integers of five digits or more get thousands separators.  A number that is part
    of a word (``fig1``, ``x2``) or of a range (the ``95`` of ``5-95%``) keeps its sign and digits.

    Examples
    --------
    >>> reformat("median -38.9241, 5-95% [-49.7584, -28.6439] over 20 seeds", like="-9.96%")
    'median -38.9, 5-95% [-49.8, -28.6] over 20 seeds'
    >>> reformat("max |diff| 1.7e-16 over 20 random inputs; 96889 rows")
    'max |diff| 1.7e-16 over 20 random inputs; 96,889 rows'
    """
    text = str(text)
    n = digits if digits is not None else significant_digits(like) if like is not None else DEFAULT_DIGITS

    def sub(m):
        start = m.start()
        token = m.group(0)
        before = text[start - 1] if start else ""
        if before and (before.isalnum() or before in "._" or (token[0] in "-+" and before.isdigit())):
            return token
        end = m.end()
        if end < len(text) and text[end].isalpha():
            return token
        return _one(token, n)

    return _NUMBER.sub(sub, text)
