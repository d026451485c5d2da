"""The joint distribution of two classifiers' labels behind :mod:`offline_eval.adaptive` (piovano's ``M_BCG``): the
labels checked and encoded once, the number of classes resolved, and the counts of each (baseline, candidate
[, truth]) cell."""

from __future__ import annotations

import numpy as np

from ._validation import (
    InputTypeError, as_1d, as_array, as_labels, cast_checked, check_aligned, check_bool, check_consistent_length,
    check_finite, check_int, check_nonnegative, scale_weights,
)


# -- validation of labels --------------------------------------------------------------------
def _is_codes(x) -> bool:
    """True for numbers and bools (checked as codes 0..K-1); False for other labels (strings, objects)."""
    if isinstance(x, np.ma.MaskedArray):
        return True  # as_1d's masked-array message
    try:
        return np.asarray(x).dtype.kind in "biuf"
    except Exception:
        return True  # as_1d's conversion message


def encode_labels(named: dict, classes) -> tuple[dict, np.ndarray | None]:
    """Codes 0..K-1 of every array of ``named`` and the labels they stand for (``None``: already codes)."""
    if classes is None and all(_is_codes(x) for x in named.values()):
        return {name: _check_labels(x, name) for name, x in named.items()}, None
    arrays = {name: _hashable(as_labels(x, name), name) for name, x in named.items()}
    if classes is None:
        try:
            labels = np.unique(np.concatenate([a.astype(object) for a in arrays.values()]))
        except TypeError as exc:
            kinds = {name: sorted({type(v).__name__ for v in a.tolist()}) for name, a in arrays.items()}
            where = ", ".join(f"`{name}` {k}" for name, k in kinds.items())
            raise ValueError(f"class labels of different types cannot be sorted ({exc}): {where}; pass `classes`, "
                             "the labels in the order you want, or labels of one type") from None
    else:
        labels = np.asarray(classes, dtype=object)
        if labels.ndim != 1 or labels.size == 0:
            raise ValueError(f"`classes` must be a non-empty list of labels; got {classes!r}")
        _hashable(labels, "classes")
        if len(set(labels.tolist())) != labels.size:
            raise ValueError(f"`classes` must not repeat a label; got {classes!r}")
    index = {v: i for i, v in enumerate(labels.tolist())}
    codes = {}
    for name, arr in arrays.items():
        vals = arr.tolist()
        missing = {v for v in set(vals) if v not in index}
        if missing:
            raise ValueError(f"`{name}` holds labels not in `classes`: {sorted(map(repr, missing))[:5]}")
        codes[name] = np.fromiter((index[v] for v in vals), dtype=np.int64, count=len(vals))
    return codes, labels


def _hashable(arr: np.ndarray, name: str) -> np.ndarray:
    """``arr`` unchanged when every label is hashable (a class is looked up by its label); a named error otherwise."""
    if arr.dtype.kind == "O":
        for v in arr.tolist():
            try:
                hash(v)
            except TypeError:
                raise InputTypeError(f"`{name}` must hold hashable labels (numbers, strings, tuples, ...); got a "
                                     f"{type(v).__name__}: {repr(v)[:60]}") from None
    return arr


def _check_labels(x, name: str) -> np.ndarray:
    """Class codes as int64; raise unless integers >= 0 (bool and integral floats accepted)."""
    arr = as_1d(x, name, dtype=None)
    if arr.dtype.kind == "b":
        return arr.astype(np.int64, copy=False)
    if arr.dtype.kind == "f":
        check_finite(arr, name)
        frac = arr != np.round(arr)
        if frac.any():
            raise ValueError(
                f"`{name}` must hold integer class codes 0..K-1; got {int(frac.sum())} non-integer "
                f"value{'s' if frac.sum() != 1 else ''} (e.g. {arr[frac][:3].tolist()})"
            )
    neg = arr < 0
    if neg.any():
        raise ValueError(
            f"`{name}` must hold class codes 0..K-1; got {int(neg.sum())} negative "
            f"value{'s' if neg.sum() != 1 else ''} (min {arr.min():g})"
        )
    # checked in its own dtype before the cast: 1e19 or a uint64 beyond int64 would wrap to another class
    return cast_checked(arr, np.int64, name)


#: The largest dense table of class codes built without being asked for explicitly, in cells (beyond
#: 64 cells per item): codes far above the number of items are labels, not codes.
MAX_INFERRED_CELLS = 10**7


def n_labels(n_classes, labels) -> int:
    """The number of classes named by ``labels``, checked against ``n_classes`` when both are given."""
    if n_classes is not None and check_int(n_classes, "n_classes", low=1) != len(labels):
        raise ValueError(f"`n_classes` = {n_classes} disagrees with the {len(labels)} class labels")
    return len(labels)


def resolve_n_classes(n_classes, named: dict, ndim: int = 2) -> int:
    """``n_classes`` checked against the data, or inferred as ``max code + 1``.

    The result is a dense K^ndim table, so memory is bounded by the data: an
    inferred K whose table exceeds ``max(MAX_INFERRED_CELLS, 64 n)`` cells is
    an error (relabel with ``np.unique(..., return_inverse=True)``), and so
    is an explicit ``n_classes`` whose table would not fit in an int64 index.
    """
    top = max(int(a.max()) for a in named.values())
    n = len(next(iter(named.values())))
    if n_classes is None:
        k = top + 1
        if k**ndim > max(MAX_INFERRED_CELLS, 64 * n):
            name = max(named, key=lambda nm: int(named[nm].max()))
            raise ValueError(f"`{name}` holds class code {top:,} for {n:,} items: the inferred K = {k:,} needs a dense "
                             f"table of {k:,}^{ndim} cells; pass codes 0..K-1 (e.g. from np.unique(labels, "
                             "return_inverse=True)) or `n_classes`")
        return k
    check_int(n_classes, "n_classes", low=1)
    # An explicit K is bounded like an inferred one: the dense table's memory must be justified by the data.
    if int(n_classes) ** ndim > max(MAX_INFERRED_CELLS, 64 * n):
        raise ValueError(f"`n_classes` = {n_classes} makes a dense table of {n_classes}^{ndim} cells for {n:,} items, "
                         f"more than the bound max({MAX_INFERRED_CELLS:,}, 64 x items); relabel the classes present "
                         "with np.unique(labels, return_inverse=True)")
    for name, a in named.items():
        bad = a >= n_classes
        if bad.any():
            raise ValueError(
                f"`{name}` must hold class codes 0..{int(n_classes) - 1} (n_classes={int(n_classes)}); "
                f"got {int(bad.sum())} value{'s' if bad.sum() != 1 else ''} >= {int(n_classes)} (max {int(a.max())})"
            )
    return int(n_classes)


def check_tensor(m, name: str, ndim: int) -> np.ndarray:
    arr = as_array(m, name)
    if arr.ndim != ndim or len(set(arr.shape)) != 1 or arr.shape[0] == 0:
        want = " x ".join(["K"] * ndim)
        raise ValueError(f"`{name}` must be a {want} array; got shape {arr.shape}")
    check_nonnegative(arr.ravel(), name)
    arr = scale_weights(arr)  # a power of two: exact, and a total of 1e308-sized cells does not overflow
    total = arr.sum()
    if total <= 0:
        raise ValueError(f"`{name}` must have positive total mass; got {total:g}")
    return arr / total


# -- joint distributions --------------------------------------------------------------------
def joint_distribution(hyp_b, hyp_c, truth=None, *, n_classes=None, normalize=True, classes=None) -> np.ndarray:
    """Joint distribution of the two models' hypotheses (and the ground truth).

    Parameters
    ----------
    hyp_b, hyp_c : array-like of shape (n,)
        Classes predicted by the baseline B and the candidate C: codes
        ``0 .. K-1``, or any hashable labels (see ``classes``).
    truth : array-like of shape (n,), optional
        Ground-truth classes.  Without it the result is ``M_BC``.
    n_classes : int, optional
        K for codes.  Default: the largest code seen plus one.  The dense
        table's K^2 (K^3 with ``truth``) cells are bounded by
        ``max(10**7, 64 n)``, given or inferred (a named error otherwise).
    normalize : bool, default True
        Divide the counts by ``n`` (the paper's definition); ``False``
        returns the integer counts.
    classes : sequence, optional
        The labels in the order of the table's axes.  Default: codes as they
        are, other labels (strings, ...) in sorted order.

    Returns
    -------
    ndarray of shape (K, K), or (K, K, K) with ``truth``
        ``M[i, j]`` (``M[i, j, k]``) is the share of items with ``H_B = i``,
        ``H_C = j`` (and ``G = k``).

    Notes
    -----
    Section II-A of the paper:

    .. math::

        M_{BC}(i, j) = \\frac1n |\\{d : H_B(d) = C_i, H_C(d) = C_j\\}|, \\qquad
        M_{BCG}(i, j, k) = \\frac1n |\\{d : H_B(d) = C_i, H_C(d) = C_j, G(d) = C_k\\}|

    so that ``M_BC = M_BCG.sum(axis=2)``.  One ``np.bincount`` over the
    flattened cell index: O(n + K^2) (O(n + K^3) with ``truth``).

    References
    ----------
    .. [1] E. Piovano, D.-T. Le, B. Chen, M. Bradford, "Online Adaptive Metrics
       for Model Evaluation on Non-representative Offline Test Data", Section II-A.

    Examples
    --------
    >>> joint_distribution([0, 0, 1, 1], [0, 1, 1, 1])
    array([[0.25, 0.25],
           [0.  , 0.5 ]])
    >>> joint_distribution([0, 0, 1, 1], [0, 1, 1, 1], [0, 1, 1, 0], normalize=False)[:, :, 1]
    array([[0, 1],
           [0, 1]])
    >>> joint_distribution(["cat", "cat", "dog"], ["cat", "dog", "dog"], normalize=False)  # axes: cat, dog
    array([[1, 1],
           [0, 1]])
    """
    check_aligned(hyp_b=hyp_b, hyp_c=hyp_c, truth=truth)
    named = dict(hyp_b=hyp_b, hyp_c=hyp_c, **({} if truth is None else {"truth": truth}))
    arrays, labels = encode_labels(named, classes)
    b, c = arrays["hyp_b"], arrays["hyp_c"]
    check_consistent_length(**arrays)
    k = resolve_n_classes(n_classes if labels is None else n_labels(n_classes, labels), arrays,
                          ndim=3 if truth is not None else 2)
    code = b * k + c
    shape = (k, k)
    if truth is not None:
        code = code * k + arrays["truth"]
        shape = (k, k, k)
    counts = np.bincount(code, minlength=k ** len(shape)).reshape(shape)
    return counts / len(b) if check_bool(normalize, "normalize") else counts
