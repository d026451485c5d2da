"""The per-chunk arithmetic shared by :mod:`offline_eval.mergeable` and :mod:`offline_eval.ondask` (a private
module: the public API is the accumulators): a chunk's arrays validated, the power-of-two scale of its weights,
and the cells of its scores counted without a sort where they lie on a grid."""

from __future__ import annotations

import numpy as np

from ._validation import (InputTypeError, as_1d, asarray_named, check_aligned, check_consistent_length, check_finite,
                          check_nonnegative, is_missing, reject_masked)

__all__ = ["GRID_DECIMALS", "MAX_GRID_CELLS", "check_fields", "check_other", "checked_labels", "chunk_arrays", "grid_cells",
           "score_cells", "merge_sorted", "sorted_union", "sorted_unit_cells", "weight_scale"]


def chunk_arrays(y, s, w=None, *, names=("y_true", "y_score"), weight_name="sample_weight"):
    """Labels, scores and weights of one chunk, validated as the in-memory metrics validate them.

    A chunk may be empty (a partition of a log can be).  Labels are 0/1 or bool; scores and weights are
    real numbers (complex numbers, strings, bytes and datetimes are refused, not coerced).  Errors name
    the arguments ``names`` and ``weight_name``.
    """
    check_aligned(**{names[0]: y, names[1]: s, weight_name: w})
    y = as_1d(y, names[0], dtype=None, allow_empty=True)
    if y.dtype.kind == "f":
        check_finite(y, names[0])
    # integers are 0/1 when they lie in [0, 1] (two reductions, cheaper than a set test)
    if y.size and not ((y.min() >= 0 and y.max() <= 1) if y.dtype.kind in "iub" else np.isin(y, (0, 1)).all()):
        raise ValueError(f"`{names[0]}` must hold 0/1 labels; got {np.unique(y[~np.isin(y, (0, 1))])[:5].tolist()}")
    s = check_finite(as_1d(s, names[1], allow_empty=True), names[1])
    check_consistent_length(**{names[0]: y, names[1]: s})
    if w is None:
        w = np.ones(y.size)
    else:
        w = check_nonnegative(w, weight_name, allow_empty=True)
        check_consistent_length(**{names[0]: y, weight_name: w})
    return y.astype(np.float64), s, w


def checked_labels(y, s, names, *, finite=True):
    """``(click, s)`` of one task: 0/1 labels as bool, finite real scores of the same length (the checks of
    :func:`chunk_arrays`, without its float64 copies of the labels and unit weights).
    ``finite=False``: the caller checks the scores' finiteness itself (from their minimum and maximum)."""
    check_aligned(**{names[0]: y, names[1]: s})
    y = as_1d(y, names[0], dtype=None, allow_empty=True)
    if y.dtype.kind == "f":
        check_finite(y, names[0])
    if y.size and not ((y.min() >= 0 and y.max() <= 1) if y.dtype.kind in "iub" else np.isin(y, (0, 1)).all()):
        raise ValueError(f"`{names[0]}` must hold 0/1 labels; got {np.unique(y[~np.isin(y, (0, 1))])[:5].tolist()}")
    s = as_1d(s, names[1], allow_empty=True)
    if finite:
        check_finite(s, names[1])
    check_consistent_length(**{names[0]: y, names[1]: s})
    return y == 1, s


def weight_scale(w: np.ndarray) -> int:
    """The power of two by which the sums of a chunk are stored, 0 for weights of ordinary size.

    Sums of weights near 1e308 overflow and of weights near 1e-320 lose every bit; weights whose largest
    lies outside [2**-500, 2**500] are stored times ``2**-scale`` (exact), so that every ratio of sums
    is the same at any power-of-two rescale of the weights.  Ordinary weights keep their bits.
    """
    top = float(w.max()) if w.size else 0.0
    if top == 0.0 or 2.0**-500 <= top <= 2.0**500:
        return 0
    return int(np.frexp(top)[1])


# The cells of a chunk's scores without a sort: the same values, cells and sums as np.unique.
GRID_DECIMALS = range(0, 10)
MAX_GRID_CELLS = 2**22


def grid_cells(s, k=None, step=None, *, divide=True):
    """``(values, inv, m, count)`` of scores that lie on a grid, or ``None`` to fall back on a sort.

    Scores stored at a fixed precision (multiples of ``10**-d`` as ``np.round(x, d)`` writes them, or of a
    ``resolution``) are integers ``k`` times a step: their cell is ``k - min(k)``, counted by ``np.bincount``
    in O(n) instead of the O(n log n) sort of ``np.unique``.  The grid is used only when it is exact for
    every score (``k / 10**d == s``, or ``k * step == s`` with distinct ``k`` giving distinct values) and
    small (at most ``max(4 n, 4096)`` and ``2**22`` cells); ``values`` are then ``s``'s distinct values
    bit for bit, ``inv`` maps each score to its cell among ``m`` grid cells (``values`` holds those
    with a row, in order), ``count`` the rows per grid cell.  A negative zero falls back on the sort, which decides which zero it keeps.
    """
    n = s.size
    if n < 64 or s.dtype != np.float64:
        return None
    if k is None:
        head, scale = s[:256], None
        with np.errstate(over="ignore", invalid="ignore"):
            for d in GRID_DECIMALS:  # the first decimal grid that holds every score
                if np.all(np.rint(head * 10.0**d) / 10.0**d == head):
                    k = np.multiply(s, 10.0**d)
                    np.rint(k, out=k)
                    if np.array_equal(k / 10.0**d, s):
                        scale = 10.0**d
                        break
        if scale is None:
            return None
    lo, hi = float(k.min()), float(k.max())
    if not (np.isfinite(lo) and np.isfinite(hi)) or max(abs(lo), abs(hi)) > 2.0**52:
        return None
    m = int(hi - lo) + 1
    if m > min(max(4 * n, 4096), MAX_GRID_CELLS):
        return None
    zero = s == 0
    if zero.any() and np.signbit(s[zero]).any():
        return None
    np.subtract(k, lo, out=k)  # k is this function's own array, or score_cells'
    inv = k.astype(np.intp)
    del k
    count = np.bincount(inv, minlength=m)
    cells = np.flatnonzero(count)
    values = (cells + lo) / scale if divide else (cells + lo) * step
    if not divide and len(values) > 1 and not (np.diff(values) > 0).all():
        return None  # two grid points round to one float: let np.unique merge them
    return values, inv, m, count


def sorted_union(a, b):
    """``np.unique(np.r_[a, b], return_inverse=True)`` for two sorted arrays of distinct values, by a merge.

    A stable sort of two sorted runs is linear (timsort merges them); values that compare equal form one
    cell holding the first of them in sorted order (``a``'s before ``b``'s), as np.unique's sort keeps
    one of them.  A zero in both falls back on np.unique (it decides which of 0.0 and -0.0 it keeps).
    """
    both = np.concatenate([a, b])
    if (a.size and b.size and (a == 0).any() and (b == 0).any()) or both.dtype.kind != "f":
        return np.unique(both, return_inverse=True)
    order = np.argsort(both, kind="stable")
    srt = both[order]
    new = np.empty(srt.size, bool)
    new[:1] = True
    np.not_equal(srt[1:], srt[:-1], out=new[1:])
    inv = np.empty(srt.size, np.intp)
    inv[order] = np.cumsum(new) - 1
    return srt[new], inv


def merge_sorted(a, b, *pairs):
    """The union of two sorted arrays of distinct values and, per pair ``(x_a, x_b)``, the sums per value.

    ``values, [x_a merged with x_b, ...]``: the entries of ``x_a`` and ``x_b`` that belong to one value
    are added ``a``'s first, in the order of :func:`sorted_union` with ``np.bincount`` (the same bits),
    by one stable argsort of the concatenation (timsort merges the two runs in linear time) and
    ``np.add.reduceat`` over the runs of equal values, without an inverse index and a bincount per pair.
    """
    both = np.concatenate([a, b])
    if (a.size and b.size and (a == 0).any() and (b == 0).any()) or both.dtype.kind != "f" or both.size == 0:
        values, inv = sorted_union(a, b)
        return values, [np.bincount(inv, weights=np.concatenate([xa, xb]), minlength=len(values)) for xa, xb in pairs]
    order = np.argsort(both, kind="stable")
    srt = both[order]
    new = np.empty(srt.size, bool)
    new[0] = True
    np.not_equal(srt[1:], srt[:-1], out=new[1:])
    if new.all():  # no value in both: the merge is a permutation, nothing to add
        return srt, [np.concatenate([xa, xb])[order] for xa, xb in pairs]
    starts = np.flatnonzero(new)
    return srt[starts], [np.add.reduceat(np.concatenate([xa, xb])[order], starts) for xa, xb in pairs]


def runs_of_sorted(srt):
    """Distinct values of a sorted array and the length of each run (as float64: exact below 2**53)."""
    n = srt.size
    if n == 0:
        return srt, np.zeros(0)
    new = np.empty(n, bool)
    new[0] = True
    np.not_equal(srt[1:], srt[:-1], out=new[1:])
    starts = np.flatnonzero(new)
    return srt[starts], np.diff(np.append(starts, n)).astype(np.float64)


def sorted_unit_cells(y, s):
    """``(values, pos, neg)`` of unit-weight rows by two value sorts and no argsort, or ``None``.

    The cells of continuous scores (no grid) are the runs of the sorted scores; ``np.unique(...,
    return_inverse=True)`` finds them with an argsort (indices travel with the values, several times the
    cost of sorting the values alone).  Without weights a cell's sums are row counts, so only counts are
    needed: the runs of ``np.sort(s)`` give every value and its rows, the runs of the sorted scores of the
    smaller class give that class's rows per value (placed by ``searchsorted``, which is exact: those values
    are among all the values), and the other class's rows are the difference (whole numbers: exact).  The
    same values, bit for bit, and the same sums as ``np.unique`` and ``np.bincount``.  ``None`` when a
    score is a negative zero (the sort would pick which zero stands for the cell).
    """
    zero = s == 0
    if zero.any() and np.signbit(s[zero]).any():
        return None
    values, count = runs_of_sorted(np.sort(s))
    click = y == 1
    n_click = int(np.count_nonzero(click))
    small = click if 2 * n_click <= y.size else ~click
    vs, cs = runs_of_sorted(np.sort(s[small]))
    few = np.zeros(values.size)
    few[np.searchsorted(values, vs)] = cs
    many = count - few
    return (values, few, many) if small is click else (values, many, few)


def unique_inverse(s):
    """``np.unique(s, return_inverse=True)`` of float scores by the packed-key stable sort
    (:func:`offline_eval._sorting.sorted_order`), several times faster at log scale; np.unique itself when a
    score is a negative zero (which of the two zeros stands for the cell is then np.unique's choice)."""
    zero = s == 0
    if s.dtype != np.float64 or s.size < 2 or (zero.any() and np.signbit(s[zero]).any()):
        return np.unique(s, return_inverse=True)
    from ._sorting import sorted_order

    o, so = sorted_order(s, with_values=True)
    new = np.empty(s.size, bool)
    new[0] = True
    np.not_equal(so[1:], so[:-1], out=new[1:])
    inv = np.empty(s.size, np.intp)
    inv[o] = np.cumsum(new) - 1
    return so[new], inv


def score_cells(y, s, w, resolution=None, *, rows=False, unit=False):
    """The cells of :meth:`ScoreCounts.from_arrays` on validated arrays: ``(values, pos, neg, scale, extra)``.

    With ``rows``, ``extra`` is ``(n, n_pos, n_neg)`` per value: the rows, and the rows of positive weight
    with and without a click (``None`` otherwise).  ``unit`` says that every weight is 1 (no weight was
    given): the sums are then whole numbers, exact, and ``neg`` is the rows less ``pos``, bit for bit.
    """
    if resolution is not None:
        with np.errstate(over="ignore"):
            ratio = s / resolution
        if not np.isfinite(ratio).all():
            raise ValueError(f"`resolution` = {resolution!r} is too fine for scores up to "
                             f"{float(np.abs(s).max()):g}: score / resolution overflows; pass a coarser "
                             "resolution or none")
        k = np.round(ratio)
        s = k * resolution
        grid = grid_cells(s, k, resolution, divide=False)
    else:
        grid = grid_cells(s)
    scale = weight_scale(w)
    w = np.ldexp(w, -scale) if scale else w
    if grid is None and unit and not rows and y.size < 2**53:
        sorted_ = sorted_unit_cells(y, s)
        if sorted_ is not None:
            return (*sorted_, scale, None)
    if grid is None:
        values, inv = unique_inverse(s)
        m, count = len(values), None
    else:
        values, inv, m, count = grid
    extra = None
    if unit and y.size < 2**53:
        if count is None:
            count = np.bincount(inv, minlength=m)
        # w * y = y: the sum over a cell is its number of clicks (whole numbers, exact)
        pos = np.bincount(inv[y == 1], minlength=m).astype(np.float64)
        neg = count - pos  # sum of (1 - y) over whole numbers: exact
        if rows:
            extra = (count.astype(np.float64), pos.copy(), neg.copy())
    else:
        pos = np.bincount(inv, weights=w * y, minlength=m)
        neg = np.bincount(inv, weights=w * (1.0 - y), minlength=m)
        if count is None and (rows or m != len(values)):
            count = np.bincount(inv, minlength=m)
    if rows and extra is None:
        live = w > 0
        n_pos = np.bincount(inv, weights=live & (y == 1), minlength=m)
        n_neg = (count - n_pos) if live.all() else np.bincount(inv, weights=live & (y == 0), minlength=m)
        extra = (count.astype(np.float64), n_pos, n_neg.astype(np.float64))
    if m != len(values):  # grid cells: keep those that hold a row (the cells np.unique gives)
        held = count > 0
        pos, neg = pos[held], neg[held]
        extra = None if extra is None else tuple(x[held] for x in extra)
    return values, pos, neg, scale, extra


# -- accumulators built directly or merged ---------------------------------------------------------
def check_fields(obj, names, *, ndim=None, labels=(), nonnegative=()):
    """The array fields of an accumulator built directly: no mask, numbers only, one row each per entry."""
    ndim = ndim or {}
    check_aligned(**{k: getattr(obj, k) for k in (*labels, *names)})
    lengths = {}
    for k in labels:
        reject_masked(getattr(obj, k), k)
        arr = asarray_named(getattr(obj, k), k)
        if arr.dtype.kind == "O" and any(is_missing(v) for v in arr.ravel().tolist()):
            raise ValueError(f"`{k}` holds missing labels (None, NaN, pd.NA or NaT); drop those rows first")
        if arr.dtype.kind in "cmMV":
            raise ValueError(f"`{k}` must hold labels (integers, strings, bools); got dtype {arr.dtype}")
        if arr.dtype.kind == "f":
            check_finite(arr.ravel(), k)
        lengths[k] = arr
    for k in names:
        arr = as_1d(getattr(obj, k), k, dtype=None, allow_empty=True) if ndim.get(k, 1) == 1 else None
        if arr is None:
            reject_masked(getattr(obj, k), k)
            arr = asarray_named(getattr(obj, k), k)
            if arr.dtype.kind not in "biuf" and arr.size:
                raise ValueError(f"`{k}` must be numeric; got dtype {arr.dtype}")
            if arr.ndim != ndim[k]:
                raise ValueError(f"`{k}` must be {ndim[k]}-D; got shape {arr.shape}")
        if arr.dtype.kind == "f":
            check_finite(arr.ravel(), k)
        if k in nonnegative and (arr < 0).any():
            raise ValueError(f"`{k}` must be non-negative; got min {arr.min()!r}")
        lengths[k] = arr
    check_consistent_length(**lengths)


def check_other(self, other):
    """``other`` an accumulator of the same type as ``self``, to merge with it."""
    if not isinstance(other, type(self)):
        raise InputTypeError(f"`other` must be a {type(self).__name__} (the accumulator of another chunk); "
                             f"got {type(other).__name__}")
