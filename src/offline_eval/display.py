"""Numbers for people: one formatter for the results' reprs, the report, the ledger's display and run summaries.

The rules, as a careful table in a paper follows them:

* **Significant digits matched to what is compared**: a value shown beside a printed ``-9.96%`` gets the
  printed value's three significant digits (:func:`significant_digits`); with nothing to match, four.
* **Thousands separators**: ``3,775,592``, never ``3775592.00``.
* **Counts as integers**: ``11``, not ``11.00`` (:func:`format_count`).
* **Percentages as percentages**: a share ``0.123`` is ``12.3%`` (:func:`format_percent`).
* **Intervals compact**: ``-38.9% [-49.8, -28.6]``, the ends at the decimals of the estimate's rounding
  (:func:`format_interval`).
* **p-values at a resampling floor as bounds**: a two-sided bootstrap p-value of ``2/1001`` is ``< 0.002``, since
  ``B`` resamples cannot show a smaller one (:func:`format_pvalue`, with the test's sidedness: the floor is
  ``2 / (B + 1)`` two-sided, ``1 / (B + 1)`` one-sided; :func:`resampling_floor`).

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

import numpy as np

from ._validation import InputTypeError, check_choice, check_int

__all__ = ["format_count", "format_interval", "format_number", "format_percent", "format_pvalue", "reformat",
           "resampling_floor", "significant_digits"]

#: Significant digits when nothing printed says how many.
DEFAULT_DIGITS = 4

#: Most significant digits shown: float64 holds 17.
MAX_DIGITS = 17

#: A number: thousands separators only in groups of three (``1,234,567``; ``10,20,30`` is three numbers).
_NUMBER = re.compile(r"[-+−]?(?:\d{1,3}(?:,\d{3}(?![\d]))+|\d+)(?:\.\d*)?(?:[eE][-+]?\d+)?"
                     r"|[-+−]?\.\d+(?:[eE][-+]?\d+)?")

#: A list or code written without spaces: digits joined by commas (``1,2``, ``10,20,30``, ``0.5,0.25``).
_LIST = re.compile(r"\d[\d.]*(?:,[\d.]*\d)+")


def _check_digits(digits, name: str = "digits") -> int:
    return check_int(digits, name, low=1, high=MAX_DIGITS)


def _check_number(x, name: str) -> float:
    """``x`` as a float: a real number (nan and the infinities allowed), not a bool, string or complex."""
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
        raise InputTypeError(f"`{name}` must be a real number; got {x!r}")
    try:
        return float(x)
    except OverflowError:  # an int beyond float64
        raise ValueError(f"`{name}` is beyond float64's range; got an integer of {len(str(abs(int(x))))} "
                         f"digits") from None


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

    At most :data:`MAX_DIGITS` (17, all a float64 holds).
    """
    default = _check_digits(default, "default")
    if not isinstance(printed, str):
        _check_number(printed, "printed")
    m = _NUMBER.search(str(printed))
    if not m:
        return default
    mantissa = re.split(r"[eE]", m.group(0))[0].lstrip("+-−").replace(",", "")
    digits = mantissa.replace(".", "").lstrip("0")
    return min(max(len(digits), 1), MAX_DIGITS)


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
    shown in full at ``digits`` has no decimals, and a Python or numpy integer of at most ``digits`` digits is
    shown exactly (``2**53 + 1`` at 17 digits).  ``digits`` is an int in [1, 17] (:data:`MAX_DIGITS`).  ``nan`` and the infinities are ``nan``, ``inf``, ``-inf``.

    Examples
    --------
    >>> format_number(-38.9241, 3), format_number(0.5, 2), format_number(1234567.891, 4)
    ('-38.9', '0.50', '1,235,000')
    >>> format_number(0.0000123), format_number(11.0, 2)
    ('1.230e-05', '11')
    """
    exact = isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))
    x_in = x
    x = _check_number(x, "x")
    digits = _check_digits(digits)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if exact and abs(int(x_in)) < 10**digits:  # an integer shown in full: its own digits, not a float's
        return f"{int(x_in):,d}"
    if x != 0 and (abs(x) < 1e-4 or abs(x) >= 1e15):
        return f"{x:.{digits - 1}e}"
    return _fixed(x, _decimals(x, digits))


def format_count(n) -> str:
    """A count as an integer with thousands separators: ``11`` for ``11.0``, ``3,775,592``.

    An integer is shown exactly, whatever its size; a float that is not a whole number is not a count and is
    shown by :func:`format_number` (its value is never rounded to a whole number).

    Examples
    --------
    >>> format_count(11.0), format_count(3775592), format_count(1), format_count(2**64 + 1)
    ('11', '3,775,592', '1', '18,446,744,073,709,551,617')
    """
    if isinstance(n, (int, np.integer)) and not isinstance(n, (bool, np.bool_)):
        return f"{int(n):,d}"
    x = _check_number(n, "n")
    if not math.isfinite(x) or x != math.floor(x):
        return format_number(x)
    return f"{int(x):,d}"


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
    share = _check_number(share, "share")
    scale = _check_number(scale, "scale")
    if not math.isfinite(scale) or scale == 0:
        raise ValueError(f"`scale` must be a finite non-zero number; got {scale!r}")
    return format_number(share * scale, digits) + "%"


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
    values = [_check_number(v, k) for v, k in ((estimate, "estimate"), (low, "low"), (high, "high"))]
    digits = _check_digits(digits)
    if not isinstance(unit, str):
        raise InputTypeError(f"`unit` must be a string; got {unit!r}")
    finite = [abs(v) for v in values if math.isfinite(v)]
    if not finite:
        return f"{format_number(values[0])}{unit} [{format_number(values[1])}, {format_number(values[2])}]"
    top = max(finite)
    if top != 0 and (top < 1e-4 or top >= 1e15):
        est, lo, hi = (format_number(v, digits) for v in values)
    else:
        decimals = _decimals(top, digits)
        est, lo, hi = (_fixed(v, decimals) if math.isfinite(v) else format_number(v) for v in values)
    return f"{est}{unit} [{lo}, {hi}]"


#: The sidedness of a test, as :func:`format_pvalue` takes it: scipy's names too (``"less"``, ``"greater"``: one-sided).
ALTERNATIVES = ("two-sided", "one-sided", "less", "greater")


def resampling_floor(n_resamples, alternative: str = "two-sided") -> float:
    """The smallest p-value ``n_resamples`` resamples (or permutations) can give: ``1 / (B + 1)`` one-sided,
    ``2 / (B + 1)`` two-sided (twice the smaller tail, each tail counted with its +1 correction).

    Examples
    --------
    >>> resampling_floor(999, "one-sided"), resampling_floor(200)
    (0.001, 0.009950248756218905)
    """
    n_resamples = check_int(n_resamples, "n_resamples", low=1)
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    return (1.0 if alternative in ("one-sided", "less", "greater") else 2.0) / (n_resamples + 1)


def format_pvalue(p, *, floor: float | None = None, n_resamples: int | None = None,
                  alternative: str = "two-sided") -> str:
    """A p-value at two significant digits; at a resampling floor, the bound it is: ``< 0.002``.

    A p-value from ``B`` resamples (or permutations) cannot be smaller than its floor, ``1 / (B + 1)``
    one-sided, ``2 / (B + 1)`` two-sided (:func:`resampling_floor`): at the floor the data say only that it is
    below it, rounded up to one significant digit.  Below ``0.0001`` a p-value is shown as ``< 0.0001``.

    Parameters
    ----------
    p : float
        In [0, 1], or nan (shown as ``nan``); anything else is an error.
    floor : float, optional
        The smallest p-value the procedure can return (e.g. ``2 / 1001``); when given, ``n_resamples`` and
        ``alternative`` are not used.
    n_resamples : int, optional
        ``B``: the floor is then :func:`resampling_floor` ``(B, alternative)`` when ``floor`` is not given.
    alternative : {"two-sided", "one-sided", "less", "greater"}, default "two-sided"
        The test's sidedness, which sets the floor of ``n_resamples`` (``"less"`` and ``"greater"``, scipy's
        names, are one-sided).  Two-sided by default, as scipy's tests and the library's bootstrap p-values are.

    Examples
    --------
    >>> format_pvalue(0.0432), format_pvalue(0.5), format_pvalue(1e-9)
    ('0.043', '0.50', '< 0.0001')
    >>> format_pvalue(2 / 1001, floor=2 / 1001), format_pvalue(1 / 1000, n_resamples=999, alternative="one-sided")
    ('< 0.002', '< 0.001')

    A two-sided bootstrap p-value of 200 resamples, all on one side of 0, is ``2 / 201``: at the floor.

    >>> format_pvalue(2 / 201, n_resamples=200), format_pvalue(2 / 201, n_resamples=200, alternative="one-sided")
    ('< 0.010', '0.010')
    """
    p = _check_number(p, "p")
    if not (math.isnan(p) or 0.0 <= p <= 1.0):
        raise ValueError(f"`p` must be a p-value in [0, 1] (or nan); got {p!r}")
    if floor is not None:
        floor = _check_number(floor, "floor")
        if not 0.0 < floor <= 1.0:
            raise ValueError(f"`floor` must be in (0, 1]; got {floor!r}")
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    if n_resamples is not None:
        n_resamples = check_int(n_resamples, "n_resamples", low=1)
    if math.isnan(p):
        return "nan"
    if floor is None and n_resamples is not None:
        floor = resampling_floor(n_resamples, alternative)
    if floor is not None and p <= float(floor) * (1 + 1e-9):
        exponent = math.floor(math.log10(float(floor)))
        bound = math.ceil(float(floor) / 10.0 ** exponent * (1 - 1e-12)) * 10.0 ** exponent
        return "< " + _fixed(bound, max(-exponent, 0))
    if p < 1e-4:
        return "< 0.0001"
    return format_number(p, 2)


def _one(token: str, digits: int) -> str:
    """One number as :func:`reformat` shows it: rounded where it has decimals, else exactly as written."""
    sign = "-" if token[0] in "-−" else ""
    body = token.lstrip("+-−")
    plain = body.replace(",", "")
    int_part = plain.split(".")[0].split("e")[0].split("E")[0]
    if len(int_part) > 1 and int_part[0] == "0":
        return token  # a zero-padded code (007, 00123): not a quantity
    if "." not in plain and "e" not in plain.lower():
        if "," in body:
            return token  # separators already in their groups
        # an integer as written: a count, a seed, a year (separators from five digits on: 2013 stays 2013)
        return sign + (f"{int(plain):,d}" if len(plain) >= 5 else plain)
    x = float(plain)
    if not math.isfinite(x) or (x == 0 and plain.strip(".0eE+-") != ""):
        return token  # beyond float64 (1e999, 1e-999): shown as written, never as inf or 0
    if x == int(x) and abs(x) < 1e15 and "e" not in plain.lower():
        return sign + format_count(x)  # 11.00 -> 11
    # never more digits than were written (1.7e-16 stays 1.7e-16)
    return sign + format_number(x, min(digits, significant_digits(plain))) if x != 0 else "0"


def reformat(text, *, like=None, digits: int | None = None) -> str:
    """The numbers inside ``text`` rewritten by the rules above; its words left as they are.

    A number with decimals is rounded to ``digits`` significant digits (default: those of ``like``, the
    printed value it is compared with; else four); a whole number written with decimals (``11.00``)
    becomes an integer; integers of five digits or more get thousands separators.  A number that is part
    of a word (``fig1``, ``x2``) or of a range (the ``95`` of ``5-95%``) keeps its sign and digits, and so do
    zero-padded codes (``007``), numbers joined by commas without spaces (``[1,2]``, ``10,20,30``: a list or a
    code, not thousands separators out of their groups) and numbers beyond float64 (``1e999``).  An integer's
    value is never changed (no float in between); a decimal changes only by its rounding.

    Parameters
    ----------
    text : str
    like : str or number, optional
        The printed value ``text`` is compared with: its significant digits are ``digits``.
    digits : int in [1, 17], optional
        Overrides ``like``.

    Examples
    --------
    >>> reformat("median -38.9241, 5-95% [-49.7584, -28.6439] over 20 seeds", like="-9.96%")
    'median -38.9, 5-95% [-49.8, -28.6] over 20 seeds'
    >>> reformat("max |diff| 1.7e-16 over 20 random inputs; 96889 rows")
    'max |diff| 1.7e-16 over 20 random inputs; 96,889 rows'
    """
    if not isinstance(text, str):
        raise InputTypeError(f"`text` must be a string; got {type(text).__name__}")
    if digits is not None:
        n = _check_digits(digits)
    else:
        n = significant_digits(like) if like is not None else DEFAULT_DIGITS
    lists = [(m.start(), m.end()) for m in _LIST.finditer(text) if not _NUMBER.fullmatch(m.group(0))]

    def sub(m):
        start = m.start()
        token = m.group(0)
        if any(a <= start < b for a, b in lists):
            return token
        before = text[start - 1] if start else ""
        if before and (before.isalnum() or before in "._" or (token[0] in "-+" and before.isdigit())):
            return token
        end = m.end()
        if end < len(text) and text[end].isalpha():
            return token
        return _one(token, n)

    return _NUMBER.sub(sub, text)
