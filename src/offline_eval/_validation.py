"""Input validation shared by every public entry point.

Rules (the house style):

* *invalid* input raises ``ValueError`` whose message names the argument in
  backticks and repeats what it got;
* *legal but undefined* input (one class present, constant scores, ...) makes
  the metric return ``nan`` and emit :class:`OfflineEvalWarning`.

Validate once, at the public entry point; private helpers trust their inputs.
"""

from __future__ import annotations

import warnings

import numpy as np

__all__ = [
    "OfflineEvalWarning",
    "as_1d",
    "check_binary",
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


def warn_undefined(message: str, *, stacklevel: int = 3) -> None:
    """Emit :class:`OfflineEvalWarning` with ``message``."""
    warnings.warn(message, OfflineEvalWarning, stacklevel=stacklevel)


def as_1d(x, name: str, *, dtype=np.float64, allow_empty: bool = False) -> np.ndarray:
    """Return ``x`` as a 1-D array of ``dtype``; raise ``ValueError`` otherwise.

    Masked arrays are rejected (their mask would be silently dropped): pass
    ``x.compressed()`` for the valid entries, or ``x.filled(value)``.
    """
    if isinstance(x, np.ma.MaskedArray):
        raise ValueError(f"`{name}` is a masked array, whose mask would be ignored; pass `{name}.compressed()` "
                         f"(and the same rows of the other inputs) or `{name}.filled(value)`")
    try:
        arr = np.asarray(x)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"`{name}` could not be converted to an array: {exc}") from None
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"`{name}` must not be empty; got 0 elements")
    if arr.dtype.kind not in "biuf":
        raise ValueError(f"`{name}` must be numeric; got dtype {arr.dtype}")
    if dtype is not None and arr.dtype != dtype:
        arr = arr.astype(dtype)
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


def check_binary(y, name: str = "y_true") -> np.ndarray:
    """Return ``y`` as an int8 array of 0/1 labels; raise on anything else."""
    arr = as_1d(y, name, dtype=None)
    if arr.dtype.kind == "b":
        return arr.astype(np.int8)
    if arr.dtype.kind == "f":
        check_finite(arr, name)
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        examples = np.unique(arr[bad])[:5]
        raise ValueError(
            f"`{name}` must contain only 0 and 1; got {int(bad.sum())} other "
            f"value{'s' if bad.sum() != 1 else ''} (e.g. {examples.tolist()})"
        )
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
    """Turn ``rng`` (None, an int seed or a Generator) into a ``numpy.random.Generator``."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (int, np.integer)):
        if rng is not None and rng < 0:
            raise ValueError(f"`rng` seed must be non-negative; got {rng}")
        return np.random.default_rng(rng)
    raise ValueError(f"`rng` must be None, an int seed or a numpy Generator; got {type(rng).__name__}")
