"""Class labels and probability matrices: the validation shared by the multiclass faces of
:mod:`offline_eval.metrics` (``roc_auc_score(..., multi_class=...)`` and ``log_loss`` of an (n, k) matrix).

Column ``j`` of a probability matrix is the class ``classes[j]``: the sorted distinct labels of ``y_true``, or
``labels`` when given (sorted, as scikit-learn's ``LabelBinarizer`` orders the columns).  A private module: the
public functions validate here once and hand integer class codes to their engines.
"""

from __future__ import annotations

import numpy as np

from ._validation import as_labels, asarray_named, check_matrix, reject_masked

__all__ = ["check_labels_1d", "check_probability_matrix", "encode_classes", "ndim_of"]


def ndim_of(x, name: str) -> int:
    """The number of dimensions of ``x`` (an array, a pandas object or nested lists), a masked array refused."""
    reject_masked(x, name)
    ndim = getattr(x, "ndim", None)
    return int(ndim) if isinstance(ndim, (int, np.integer)) else asarray_named(x, name).ndim


def check_labels_1d(y, name: str) -> None:
    """Raise unless ``y`` is 1-D: checked before anything is said of a matrix beside it."""
    if ndim_of(y, name) != 1:
        raise ValueError(f"`{name}` must be 1-D; got an array of shape {np.shape(y)}")


def check_probability_matrix(p, name: str, *, rtol: float, atol: float = 0.0) -> np.ndarray:
    """``p`` as a finite (n, k) float64 matrix of probabilities, ``k >= 2``: every entry in [0, 1] and every row
    summing to 1, ``|sum - 1| <= atol + rtol * |sum|`` (the caller's tolerance: scikit-learn's for its metric).

    The row sums are checked as given, never normalised: a matrix whose rows are not distributions is an error
    naming its first such row, not a silently different metric.
    """
    arr = check_matrix(p, name)
    n, k = arr.shape
    if k < 2:
        raise ValueError(f"`{name}` must be a probability matrix of shape (n_samples, n_classes) with at least two "
                         f"columns; got shape {arr.shape}")
    lo, hi = float(arr.min()), float(arr.max())
    if lo < 0.0 or hi > 1.0:
        raise ValueError(f"`{name}` must hold probabilities in [0, 1]; got min {lo:.6g}, max {hi:.6g}")
    sums = arr.sum(axis=1)
    off = np.abs(sums - 1.0) > atol + rtol * np.abs(sums)
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise ValueError(f"`{name}` must be a probability matrix whose rows sum to 1 (within {rtol:.3g} relative"
                         f"{f' + {atol:.3g}' if atol else ''}); got {int(off.sum())} of {n} rows that do not "
                         f"(row {i} sums to {sums[i]:.17g}); divide each row by its sum if the scores are "
                         f"unnormalised probabilities")
    return arr


def _preview(values, limit: int = 6) -> str:
    values = list(values)
    more = f", ... ({len(values)} in all)" if len(values) > limit else ""
    return "[" + ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:limit]) + more + "]"


def _unique(arr: np.ndarray, name: str) -> np.ndarray:
    try:
        return np.unique(arr)
    except TypeError as exc:  # an object array of labels that cannot be ordered
        raise ValueError(f"`{name}` holds labels that cannot be sorted: {exc}") from None


def encode_classes(y_true, n_columns: int, labels, *, score_name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, classes)``: each row's class as the index of its column in the ``n_columns``-column matrix
    ``score_name``, and the classes in column order.

    Without ``labels`` the classes are the sorted distinct labels of ``y_true``, which must then number
    ``n_columns``; with ``labels``, they are ``labels`` (unique, sorted, one per column), and every label of
    ``y_true`` must be one of them (a class may be absent from ``y_true``).
    """
    y = as_labels(y_true, "y_true")
    if labels is None:
        classes = _unique(y, "y_true")
        if len(classes) != n_columns:
            raise ValueError(f"`y_true` holds {len(classes)} class{'es' if len(classes) != 1 else ''} "
                             f"{_preview(classes)} but `{score_name}` has "
                             f"{n_columns} columns; pass `labels`, the classes of the columns in order, when a class "
                             f"is absent from `y_true`")
    else:
        classes = as_labels(labels, "labels")
        uniq = _unique(classes, "labels")
        if len(uniq) != len(classes):
            raise ValueError(f"`labels` must be unique; got {_preview(classes)}")
        if not np.array_equal(uniq, classes):
            raise ValueError(f"`labels` must be sorted, the order of the columns of `{score_name}` (as scikit-learn's); "
                             f"got {_preview(classes)}, sorted {_preview(uniq)}")
        if len(classes) != n_columns:
            raise ValueError(f"`labels` has {len(classes)} labels but `{score_name}` has {n_columns} columns")
    kinds = {"numbers" if a.dtype.kind in "biuf" else "strings" if a.dtype.kind in "US" else "objects"
             for a in (y, classes)}
    if kinds == {"numbers", "strings"}:  # numpy would compare them as strings, or not at all
        raise ValueError(f"`y_true` and `labels` hold labels of different kinds ({y.dtype} and {classes.dtype}); "
                         f"give both as numbers or both as strings")
    try:
        codes = np.searchsorted(classes, y)
    except TypeError:  # numbers against strings: no order between them
        raise ValueError(f"`y_true` and `labels` hold labels of different kinds ({y.dtype} and {classes.dtype}); "
                         f"give both as numbers or both as strings") from None
    codes = np.minimum(codes, len(classes) - 1)
    found = np.asarray(classes[codes] == y, dtype=bool)
    if not found.all():
        missing = _unique(y[~found], "y_true")
        raise ValueError(f"`y_true` holds labels not in `labels`: {_preview(missing)} (`labels` is "
                         f"{_preview(classes)})")
    return codes.astype(np.int64, copy=False), classes
