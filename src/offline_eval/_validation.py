"""Input validation shared by every public entry point.

Rules (the house style):

* *invalid* input raises ``ValueError`` whose message names the argument in
  backticks and repeats what it got;
* *legal but undefined* input (one class present, constant scores, ...) makes
  the metric return ``nan`` and emit :class:`OfflineEvalWarning`.

Validate once, at the public entry point; private helpers trust their inputs.

The vocabulary, declarative and the same everywhere:

* arrays: :func:`as_1d` (numeric, 1-D, no mask), :func:`as_labels` (any
  hashable labels), :func:`check_finite`,
  :func:`check_binary` (0/1, bool, or any two labels with ``pos_label``),
  :func:`check_probability`, :func:`check_nonnegative`,
  :func:`check_sample_weight`, :func:`check_consistent_length`,
  :func:`check_aligned` (pandas indexes);
* scalars: :func:`check_int` and :func:`check_real` (an interval, open or
  closed at each end), :func:`check_bool`, :func:`check_choice`, :func:`check_rng`;
* tables and work: :func:`reject_masked`, :func:`check_matrix`, :func:`check_distribution`, :func:`check_work`
  (a named error before a request whose memory or time the inputs do not justify);
* scale: :func:`scale_weights` (a power-of-two rescale: exact) and :func:`floor_snapped`
  (a bin decision that does not hinge on a float's last bits).

An argument of the wrong *kind* (a masked array, a string where a flag is
expected, ``True`` as a seed) raises :class:`InputTypeError`, a ``TypeError``
that is also a ``ValueError`` (so ``except ValueError`` still catches every
invalid input).

A ``bool`` is never a number here (``True`` is not 1 trials), and a
non-finite real is never inside an interval.
"""

from __future__ import annotations

import math
import os
import sys
import warnings

import numpy as np

__all__ = [
    "InputTypeError",
    "OfflineEvalWarning",
    "as_array",
    "asarray_named",
    "cast_checked",
    "check_distribution",
    "check_matrix",
    "is_missing",
    "check_work",
    "floor_snapped",
    "integer_weights",
    "reject_masked",
    "as_1d",
    "as_labels",
    "check_binary",
    "check_bool",
    "check_choice",
    "check_int",
    "check_real",
    "check_consistent_length",
    "check_finite",
    "check_nonnegative",
    "check_probability",
    "check_rng",
    "check_aligned",
    "check_sample_weight",
    "scale_weights",
    "warn_undefined",
]


class OfflineEvalWarning(UserWarning):
    """Warning of the ``offline_eval`` package.

    Emitted when a quantity is undefined on legal input (the function then
    returns ``nan``) or when an estimate silently loses information (for
    example live mass that no offline sample covers).
    """


class InputTypeError(TypeError, ValueError):
    """An argument of the wrong kind: a masked array, a string or number where a flag is expected, a bool as a seed.

    A ``TypeError`` by kind, and a ``ValueError`` too, so that code catching every invalid input with
    ``except ValueError`` keeps working.
    """



def asarray_named(x, name: str) -> np.ndarray:
    """``np.asarray(x)``, with numpy's errors on ragged lists and the like turned into named ones."""
    try:
        return np.asarray(x)
    except Exception as exc:  # noqa: BLE001 - numpy raises ValueError or TypeError by version
        if "inhomogeneous" in str(exc) or "sequence" in str(exc):
            raise ValueError(f"`{name}` is ragged (nested lists of different lengths) and cannot be an array; "
                             f"got {type(x).__name__} of {len(x) if hasattr(x, '__len__') else '?'} items") from None
        raise ValueError(f"`{name}` could not be converted to an array: {exc}") from None


def cast_checked(arr: np.ndarray, dtype, name: str) -> np.ndarray:
    """``arr`` cast to ``dtype``, checked in its own dtype first: an integer target takes no value it would wrap
    (uint64 beyond int64, a float beyond the range) or truncate (a fraction)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu" and arr.dtype.kind in "iuf" and arr.size:
        info = np.iinfo(dtype)
        if arr.dtype.kind == "f":
            check_finite(arr, name)
            frac = arr != np.floor(arr)
            if frac.any():
                raise ValueError(f"`{name}` must hold integers; got {int(frac.sum())} non-integer value(s) "
                                 f"(e.g. {arr[frac][:3].tolist()})")
            # compared as floats: 2.0**63 is exact, and int64's max rounds up to it
            big = (arr >= float(info.max) + 1.0) | (arr < float(info.min))
        elif int(arr.max()) > info.max or int(arr.min()) < info.min:  # Python ints: exact in any dtype
            big = np.fromiter((int(v) > info.max or int(v) < info.min for v in arr.ravel().tolist()), bool,
                              count=arr.size).reshape(arr.shape)
        else:
            big = None
        if big is not None and big.any():
            raise ValueError(f"`{name}` holds {int(big.sum())} value(s) outside the range of {dtype} "
                             f"[{info.min}, {info.max}] (e.g. {arr[big][:3].tolist()}); they would wrap")
    return arr.astype(dtype, copy=False)


def reject_masked(x, name: str) -> None:
    """Raise :class:`InputTypeError` when ``x`` is a masked array (its mask would be dropped silently)."""
    if isinstance(x, np.ma.MaskedArray):
        raise InputTypeError(f"`{name}` is a masked array, whose mask would be ignored; pass `{name}.compressed()` "
                             f"(and the same rows of the other inputs) or `{name}.filled(value)`")


#: How far from 1 the total of a distribution may be: numpy's tolerance in ``Generator.choice(p=...)``.
DISTRIBUTION_TOL = math.sqrt(np.finfo(np.float64).eps)

#: Largest number of float64 cells a request may allocate (8 GiB) unless the data itself is that big.
MAX_CELLS = 1 << 30


def check_work(size, name: str, value, *, limit: int = MAX_CELLS, what: str = "float64 cells", hint=None) -> None:
    """Raise a named ``ValueError`` when a request would allocate or loop over more than ``limit`` ``what``.

    Called before any work starts, so that a typo (``n_boot=10**9``) is an error, not a hang or an
    out-of-memory kill.
    """
    if size > limit:
        raise ValueError(f"`{name}` = {value!r} asks for {int(size):,} {what}, more than the bound of "
                         f"{int(limit):,}; {hint or f'use a smaller `{name}`'}")


def as_array(x, name: str, dtype=np.float64) -> np.ndarray:
    """``x`` (any shape) as an array of ``dtype``: no mask, and only numbers are converted.

    ``np.asarray(x, dtype)`` would drop a mask, parse numeric strings, discard imaginary parts and
    truncate ``0.5`` to the integer 0; here each is a named error.  An integer ``dtype`` takes integers
    (and bools) only.
    """
    reject_masked(x, name)
    arr = asarray_named(x, name)
    want_int = np.dtype(dtype).kind in "iu"
    kinds = "biu" if want_int else "biuf"
    if arr.dtype.kind not in kinds and not (arr.size == 0 and arr.dtype.kind == "f"):
        raise ValueError(f"`{name}` must hold {'integers' if want_int else 'numbers'}; got dtype {arr.dtype}")
    return cast_checked(arr, dtype, name)


def check_matrix(x, name: str, *, allow_empty: bool = False, rows_1d: bool = False) -> np.ndarray:
    """``x`` as a finite 2-D float64 array: no mask, numeric dtype (no complex, strings, bytes, dates).

    With ``rows_1d`` a 1-D ``x`` is taken as one row.
    """
    reject_masked(x, name)
    arr = asarray_named(x, name)
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}")
    if rows_1d and arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or (not allow_empty and arr.size == 0):
        raise ValueError(f"`{name}` must be a non-empty 2-D array; got shape {arr.shape}")
    return check_finite(arr.astype(np.float64, copy=False), name)


def floor_snapped(t: np.ndarray, n: int, *, exact: bool = False) -> np.ndarray:
    """``floor(t)``, except that a ``t`` within rounding error of an integer counts as that integer.

    A bin index ``floor(q * W_before / W)`` computed in floats hinges on the last bits when the exact
    value is an integer (equal weights, or weights all divided by 3): ``2.9999999999999996`` would be bin
    2 at one weight scale and bin 3 at another.  The tolerance, ``(n + 1) * 2**-50`` relative, covers the
    rounding of a cumulative sum of ``n`` terms; exact ratios of integer weights (totals below ~2**40)
    are never that close to an integer without being one, so their bins are unchanged.  With ``exact``
    (integer weights whose sums are exact in float64) nothing is snapped at all: plain ``floor``.
    """
    t = np.asarray(t, dtype=np.float64)
    if exact:
        return np.floor(t)
    r = np.rint(t)
    near = np.abs(t - r) <= (n + 1) * 2.0**-50 * np.maximum(np.abs(t), 1.0)
    return np.where(near, r, np.floor(t))


def integer_weights(w) -> bool:
    """True when every weight is an integer and their total below 2**53: every partial sum is then exact."""
    return w is None or bool(np.all(w == np.floor(w)) and float(np.sum(w)) < 2.0**53)


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn_undefined(message: str, *, stacklevel: int | None = None) -> None:
    """Emit :class:`OfflineEvalWarning` with ``message``, attributed to the caller's line.

    The line is that of the first frame outside this package, however deep the call that warns (a public
    function calling another, a helper, a generator expression), so that the warning points at the user's code,
    as a warning should.  ``stacklevel`` is accepted for the callers that still pass one, and ignored: a count
    of frames written at each call site went stale whenever a helper moved.
    """
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, OfflineEvalWarning, stacklevel=level)


def as_1d(x, name: str, *, dtype=np.float64, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a 1-D array of ``dtype``; raise ``ValueError`` otherwise.

    Masked arrays are rejected (their mask would be silently dropped): pass
    ``x.compressed()`` for the valid entries, or ``x.filled(value)``.  Complex numbers, strings
    (numeric or not), bytes and datetimes are not numbers here.
    """
    reject_masked(x, name)
    arr = asarray_named(x, name)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"`{name}` must not be empty; got 0 elements")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}")
    if dtype is not None and arr.dtype != dtype:
        arr = cast_checked(arr, dtype, name)
    return arr


def check_finite(arr: np.ndarray, name: str) -> np.ndarray:
    """Raise unless every element of ``arr`` is finite."""
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        n_nan = int(np.isnan(arr).sum())
        n_inf = int(np.isinf(arr).sum())
        parts = []
        if n_nan:
            parts.append(f"{n_nan} NaN value{'s' if n_nan != 1 else ''}")
        if n_inf:
            parts.append(f"{n_inf} infinite value{'s' if n_inf != 1 else ''}")
        raise ValueError(f"`{name}` must be finite; got {' and '.join(parts)}")
    return arr


def check_aligned(**inputs) -> None:
    """Raise when two pandas inputs (Series, Index) carry different indexes.

    Pairs of inputs are combined by position; two pandas objects whose
    indexes differ (other labels or another order) would be combined
    silently wrong, so they must be aligned first (``b.reindex(a.index)``)
    or passed as arrays.
    """
    import sys

    pd = sys.modules.get("pandas")
    if pd is None:
        return
    indexed = {k: v.index for k, v in inputs.items() if isinstance(v, (pd.Series, pd.DataFrame))}
    indexed.update({k: v for k, v in inputs.items() if isinstance(v, pd.Index) and k not in indexed})
    names = list(indexed)
    for other in names[1:]:
        if not indexed[names[0]].equals(indexed[other]):
            raise ValueError(f"`{names[0]}` and `{other}` are pandas objects with different indexes (other labels or "
                             f"another order); align them, e.g. `{other}.reindex({names[0]}.index)`, or pass arrays")


def check_consistent_length(**arrays) -> int:
    """Raise unless all arrays (given by keyword name) have the same length."""
    lengths = {name: len(a) for name, a in arrays.items() if a is not None}
    if len(set(lengths.values())) > 1:
        detail = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
        raise ValueError(f"inputs must have the same length; {detail}")
    return next(iter(lengths.values())) if lengths else 0


def as_labels(x, name: str) -> np.ndarray:
    """``x`` as a non-empty 1-D array of labels of any hashable kind: no mask, no NaN, no ``None``."""
    reject_masked(x, name)
    arr = asarray_named(x, name)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"`{name}` must not be empty; got 0 elements")
    if arr.dtype.kind in "cmMV":  # complex numbers, datetimes and raw records: not class labels
        raise ValueError(f"`{name}` must hold labels (integers, strings, bools); got dtype {arr.dtype}")
    if arr.dtype.kind == "f":
        check_finite(arr, name)
    if arr.dtype.kind == "O" and any(is_missing(v) for v in arr.tolist()):
        raise ValueError(f"`{name}` holds missing labels (None, NaN, pd.NA or NaT); drop those rows first")
    if arr.dtype.kind == "O" or arr.dtype.kind in "US" and not isinstance(x, np.ndarray):
        # numpy makes [1, "a"] the strings ["1", "a"] (1 and "1" one label) and cannot sort 1 beside "a"
        values = arr.tolist() if arr.dtype.kind == "O" else (x.tolist() if hasattr(x, "tolist") else list(x))
        kinds = {_label_kind(v) for v in values}
        if len(kinds) > 1:
            raise ValueError(f"`{name}` mixes labels of different kinds ({', '.join(sorted(kinds))}); numpy would "
                             f"compare or merge them as strings (1 and '1' one label); convert them to one kind")
    return arr


def _label_kind(v) -> str:
    if isinstance(v, (str, np.str_)):
        return "strings"
    if isinstance(v, (bytes, np.bytes_)):
        return "bytes"
    if isinstance(v, (bool, np.bool_)):
        return "bools"
    if isinstance(v, (int, float, np.integer, np.floating)):
        return "numbers"
    return type(v).__name__


def is_missing(x) -> bool:
    """True for a missing scalar: ``None``, NaN, ``pd.NA``, ``pd.NaT`` (anything not equal to itself, or whose
    equality has no truth value)."""
    if x is None:
        return True
    try:
        return not bool(x == x)
    except (TypeError, ValueError):  # pd.NA: "boolean value of NA is ambiguous"
        return True


def check_distribution(p, name: str, *, ndim: int = 1) -> np.ndarray:
    """``p`` as a float64 array of ``ndim`` dimensions that is a probability distribution.

    Non-empty, finite, non-negative and summing to 1 within :data:`DISTRIBUTION_TOL` (numpy's own tolerance
    for ``Generator.choice(p=...)``, ``sqrt(eps)``): the one tolerance of every "is a distribution" check.
    """
    arr = as_array(p, name)
    if arr.ndim != ndim or arr.size == 0:
        raise ValueError(f"`{name}` must be a distribution: a non-empty {ndim}-D array; got shape {arr.shape}")
    check_finite(arr, name)
    if (arr < 0).any():
        raise ValueError(f"`{name}` must be a distribution (non-negative); got min {arr.min():.6g}")
    total = math.fsum(arr.ravel().tolist())
    if abs(total - 1.0) > DISTRIBUTION_TOL:
        raise ValueError(f"`{name}` must be a distribution (summing to 1 within {DISTRIBUTION_TOL:.3g}); "
                         f"got sum {total:.17g}")
    return arr


def _more_than_two(name: str, labels, multiclass) -> str:
    """What a binary metric says of a ``y`` with more than two classes: that it is binary, and where to go
    (``multiclass``, the caller's hint), never ``pos_label``, which picks one of two labels."""
    return (f"`{name}` holds {len(labels)} classes (e.g. {list(labels)[:5]}) and this metric is binary"
            + (f"; {multiclass}" if multiclass else ""))


def _distinct(arr: np.ndarray, name: str) -> list:
    """The distinct labels of ``arr``, sorted."""
    if arr.dtype.kind in "biufUS":  # vectorised for numbers and fixed-width strings
        return np.unique(arr).tolist()
    try:
        return sorted(set(arr.tolist()), key=repr)
    except TypeError as exc:
        raise ValueError(f"`{name}` labels must be hashable: {exc}") from None


def _labels_of(y, name: str, pos_label, multiclass=None) -> np.ndarray:
    """0/1 from any two labels, 1 where ``y == pos_label``."""
    if isinstance(pos_label, (list, tuple, dict, set, np.ndarray)) or pos_label is None:
        raise ValueError(f"`pos_label` must be one label (a str, int or bool); got {pos_label!r}")
    if is_missing(pos_label):
        raise ValueError(f"`pos_label` must be a label, not a missing value; got {pos_label!r}")
    arr = as_labels(y, name)
    labels = _distinct(arr, name)
    if len(labels) > 2:
        raise ValueError(f"`{name}` must hold at most two labels for a binary metric; got {len(labels)} classes "
                         f"(e.g. {labels[:5]})" + (f"; {multiclass}" if multiclass else ""))
    if len(labels) == 2 and pos_label not in labels:
        raise ValueError(f"`pos_label` {pos_label!r} is not one of the labels of `{name}`: {labels}")
    if arr.dtype.kind != "O":
        return np.asarray(arr == pos_label, dtype=np.int8).reshape(arr.shape)
    return np.fromiter((v == pos_label for v in arr.tolist()), dtype=np.int8, count=arr.size)


def check_binary(y, name: str = "y_true", *, pos_label=None, multiclass: str | None = None) -> np.ndarray:
    """Return ``y`` as an int8 array of 0/1 labels; raise on anything else.

    With ``pos_label``, ``y`` may hold any two hashable labels (strings, -1/1, ...)
    and the rows equal to ``pos_label`` are the positives; without it ``y`` must
    be 0/1 or bool.  A ``y`` of more than two classes is refused as such, with ``multiclass`` (the caller's
    hint: where its multiclass form is) and no word of ``pos_label``.
    """
    if pos_label is not None:
        return _labels_of(y, name, pos_label, multiclass)
    try:
        arr = as_1d(y, name, dtype=None)
    except ValueError as exc:
        if "must be numeric" in str(exc):
            labels = _distinct(as_labels(y, name), name)
            if len(labels) > 2:
                raise ValueError(_more_than_two(name, labels, multiclass)) from None
            raise ValueError(f"{exc}; for labels other than 0/1 pass `pos_label`, the label of the positives") from None
        raise
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind == "f":
        check_finite(arr, name)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        examples = np.unique(arr[bad])[:5]
        head = (f"`{name}` must contain only 0 and 1; got {int(bad.sum())} other "
                f"value{'s' if bad.sum() != 1 else ''} (e.g. {examples.tolist()})")
        labels = np.unique(arr)
        if len(labels) > 2 and bool(np.all(labels == np.round(labels))):  # whole numbers: class labels
            raise ValueError(f"{head}: {_more_than_two(name, labels.tolist(), multiclass)}")
        raise ValueError(f"{head}; for other labels pass `pos_label`")
    return arr.astype(np.int8)


def check_probability(p, name: str = "y_prob") -> np.ndarray:
    """Return ``p`` as float64, raising unless finite and within [0, 1]."""
    arr = check_finite(as_1d(p, name), name)
    out = (arr < 0) | (arr > 1)
    if out.any():
        raise ValueError(
            f"`{name}` must lie in [0, 1]; got {int(out.sum())} value"
            f"{'s' if out.sum() != 1 else ''} outside (min {arr.min():.6g}, max {arr.max():.6g})"
        )
    return arr


def check_nonnegative(x, name: str, *, dtype=np.float64, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a finite, non-negative 1-D array."""
    arr = check_finite(as_1d(x, name, dtype=dtype, allow_empty=allow_empty), name)
    neg = arr < 0
    if neg.any():
        raise ValueError(
            f"`{name}` must be non-negative; got {int(neg.sum())} negative "
            f"value{'s' if neg.sum() != 1 else ''} (min {arr.min():.6g})"
        )
    return arr


def check_sample_weight(sample_weight, n: int) -> np.ndarray | None:
    """Validate optional per-sample weights (finite, non-negative, length ``n``)."""
    if sample_weight is None:
        return None
    w = check_nonnegative(sample_weight, "sample_weight")
    if len(w) != n:
        raise ValueError(f"`sample_weight` must have length {n}; got {len(w)}")
    return w


def check_row_weights(sample_weight, n: int) -> np.ndarray | None:
    """:func:`check_sample_weight`, and weights that are all zero refused: a metric of rows that none counts."""
    w = check_sample_weight(sample_weight, n)
    if w is not None and not w.any():
        raise ValueError("`sample_weight` must not be all zero; got a total weight of 0")
    return w


def scale_weights(w: np.ndarray | None) -> np.ndarray | None:
    """Weights rescaled by a power of two so that the largest lies in [0.5, 1).

    A ratio of weighted sums is scale-invariant, but its float evaluation is
    not: weights of 1e-170 underflow, 1e160 overflow.  Multiplying by a power
    of two is exact, so every ratio keeps its bits where nothing under- or
    overflowed, and is finite where something did.
    """
    if w is None or w.size == 0:
        return w
    top = float(w.max())
    if top == 0.0:
        return w
    return np.ldexp(w, -int(np.frexp(top)[1]))


def check_rng(rng) -> np.random.Generator:
    """Turn ``rng`` (None, an int seed or a Generator) into a ``numpy.random.Generator``.

    A bool is not a seed (``rng=True`` would silently be seed 1): :class:`InputTypeError`.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, (bool, np.bool_)):
        raise InputTypeError(f"`rng` must be None, an int seed or a numpy Generator; got {rng!r} (a bool)")
    if rng is None or isinstance(rng, (int, np.integer)):
        if rng is not None and rng < 0:
            raise ValueError(f"`rng` seed must be non-negative; got {rng}")
        return np.random.default_rng(rng)
    raise InputTypeError(f"`rng` must be None, an int seed or a numpy Generator; got {type(rng).__name__}")


def _interval(low, high, closed: str) -> str:
    left = "[" if closed in ("both", "left") else "("
    right = "]" if closed in ("both", "right") else ")"
    return f"{left}{'-inf' if low is None else low}, {'inf' if high is None else high}{right}"


def check_int(x, name: str, *, low=None, high=None) -> int:
    """``x`` as an ``int`` within ``[low, high]`` (either bound optional); a bool is not an int."""
    if high is None and low == 1:
        want = "a positive integer"
    elif high is None and low == 0:
        want = "a non-negative integer"
    elif high is None and low is not None:
        want = f"an integer >= {low}"
    else:
        want = f"an integer in {_interval(low, high, 'both')}"
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)):
        raise ValueError(f"`{name}` must be {want}; got {x!r}")
    if (low is not None and x < low) or (high is not None and x > high):
        raise ValueError(f"`{name}` must be {want}; got {x!r}")
    return int(x)


def check_real(x, name: str, *, low=None, high=None, closed: str = "both") -> float:
    """``x`` as a finite ``float`` within an interval; ``closed`` is "both", "left", "right" or "neither".

    Ints are reals; bools, strings, complex numbers and non-finite values are not.
    """
    ok = not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, float, np.integer, np.floating))
    if ok:
        v = float(x)
        ok = np.isfinite(v)
        if ok and low is not None:
            ok = v >= low if closed in ("both", "left") else v > low
        if ok and high is not None:
            ok = v <= high if closed in ("both", "right") else v < high
    if not ok:
        if low == 0 and high is None:
            want = "a finite non-negative number" if closed in ("both", "left") else "a finite positive number"
        else:
            want = f"a finite number in {_interval(low, high, closed)}"
        raise ValueError(f"`{name}` must be {want}; got {x!r}")
    return float(x)


def check_bool(x, name: str) -> bool:
    """``x`` as a ``bool``; only ``True``/``False`` (numpy's too) are accepted (:class:`InputTypeError`)."""
    if not isinstance(x, (bool, np.bool_)):
        raise InputTypeError(f"`{name}` must be True or False; got {x!r}")
    return bool(x)


def check_choice(x, name: str, choices) -> object:
    """``x`` unchanged when it is one of ``choices``; a ``ValueError`` listing them otherwise."""
    try:
        ok = bool(x in choices)
    except (TypeError, ValueError):  # unhashable against a set or dict; an array (ambiguous truth); pd.NA
        ok = False
    if not ok or isinstance(x, (bool, np.bool_)) and not any(isinstance(c, (bool, np.bool_)) for c in choices):
        raise ValueError(f"`{name}` must be one of {sorted(choices, key=repr)}; got {x!r}")
    return x
