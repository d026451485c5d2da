"""The exact AUC of continuous unweighted scores on Dask without cells: each task sorts the scores of each class
(two value sorts, no argsort) and cuts them by score range; one task per range sorts that range's scores
and counts its positive-negative pairs; the ranges' counts add up, in integers, to the in-memory count."""

from __future__ import annotations

import numpy as np

from ._validation import as_1d, check_aligned, check_consistent_length, check_finite
from ._ondask_io import Pieces, values_of


def continuous_cuts(source, score, n_ranges):
    """The :func:`value_cuts` of the first row group's scores when they are continuous (as
    :func:`offline_eval._ondask_cells.choose_splits` decides), else ``None``: scores stored at a fixed
    precision have few cells, which the tree of per-task cells merges fast."""
    from ._ondask_cells import choose_splits, sample_first

    first = sample_first(source, (score,))
    if choose_splits(first, (score,), 2)[score] is None:
        return None
    return value_cuts(values_of(first, score), n_ranges)


def value_cuts(sample, n_ranges):
    """Scores that cut a sorted sample into ``n_ranges`` ranges of about equal rows (distinct, increasing):
    range ``k`` holds the scores in ``[cut[k - 1], cut[k])``, so equal scores always share a range.  Only the
    speed depends on the sample, never a value."""
    x = np.sort(np.asarray(sample, dtype=np.float64))
    x = x[np.isfinite(x)] + 0.0  # +0.0: -0.0 and 0.0 compare equal; one of them stands for both
    if x.size == 0:
        return x
    return np.unique(x[(np.arange(1, n_ranges) * x.size) // n_ranges])


def checked_labels(y, s, names, *, finite=True):
    """``(click, s)`` of one task: 0/1 labels as bool, finite real scores of the same length (the checks of
    :func:`offline_eval._chunks.chunk_arrays`, without its float64 copies of the labels and unit weights).
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


def unweighted_loss_sums(y, p, names, eps):
    """The :class:`~offline_eval.mergeable.LossSums` of one task's unweighted rows, in about a third of
    :meth:`~offline_eval.mergeable.LossSums.from_arrays`' passes over them.

    Per class: ``sum (y - p)^2 = sum p^2 + sum_clicks (1 - 2 p)`` and ``sum |y - p| = sum p + sum_clicks (1 - 2 p)``;
    the log loss is ``-log1p(-p)`` of every row, replaced by ``-log p`` at the clicks.  The sums agree with
    ``from_arrays`` to about 1e-15 relative (another order of addition)."""
    from ._validation import check_real
    from .mergeable import LossSums

    click, p = checked_labels(y, p, names, finite=False)
    lo, hi = (float(p.min()), float(p.max())) if p.size else (0.0, 1.0)
    if not (np.isfinite(lo) and np.isfinite(hi)):  # a nan is the minimum; an infinity an extreme
        check_finite(p, names[1])  # the named error
    if lo < 0 or hi > 1:
        raise ValueError(f"`{names[1]}` must lie in [0, 1]; got min {lo:.6g}, max {hi:.6g}")
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    pc = np.clip(p, eps, 1.0 - eps) if eps > 0 and (lo < eps or hi > 1.0 - eps) else p  # else clipping changes nothing
    clicks = np.flatnonzero(click)
    loss = np.negative(pc)
    with np.errstate(divide="ignore"):
        np.log1p(loss, out=loss)
        loss[clicks] = np.log(pc[clicks])
    at = p[clicks]
    n_pos = float(at.size)
    fix = float(n_pos - 2.0 * at.sum())  # sum over the clicks of 1 - 2 p
    wp, n = float(p.sum()), float(p.size)
    return LossSums(n, n, n_pos, wp, -float(loss.sum()), float(np.dot(p, p)) + fix, wp + fix, float(eps), 0,
                    n_pos, n - n_pos)


def class_scores(y, s, names):
    """The validated scores of the positives and of the negatives of one task, each sorted.

    The labels and scores are checked as :func:`offline_eval._chunks.chunk_arrays` checks them (0/1 labels;
    finite real scores; equal lengths), without its float64 copies of the labels and unit weights."""
    click, s = checked_labels(y, s, names)
    pos, neg = s[click], s[~click]  # copies: sorted in place
    for x in (pos, neg):
        x += 0.0  # -0.0 becomes 0.0: which zero stands for both never depends on a sort
        x.sort()
    return pos, neg


def cut_sorted(x, cuts):
    """A sorted array as the pieces of the ranges of ``cuts`` (views; equal values in one piece)."""
    return np.split(x, np.searchsorted(x, cuts, side="left"))


def split_task(part, *, label, score, cuts):
    """One task: per score range, ``(positives, negatives)`` of its scores, each sorted."""
    pos, neg = class_scores(values_of(part, label), values_of(part, score), (label, score))
    return list(zip(cut_sorted(pos, cuts), cut_sorted(neg, cuts)))


def twice_pairs(pos, neg):
    """``2 x`` the pairs a positive outscores a negative, ties counted 1/2, of two sorted arrays: an integer,
    as :func:`offline_eval.metrics.roc_auc_score` counts them (the larger class searched, the smaller queried)."""
    if not pos.size or not neg.size:
        return 0
    if neg.size >= pos.size:
        lo = np.searchsorted(neg, pos, side="left")
        hi = np.searchsorted(neg, pos, side="right")
        return int(lo.sum(dtype=np.int64)) + int(hi.sum(dtype=np.int64))
    lo = np.searchsorted(pos, neg, side="left")
    hi = np.searchsorted(pos, neg, side="right")
    return 2 * pos.size * neg.size - int(lo.sum(dtype=np.int64)) - int(hi.sum(dtype=np.int64))


def range_counts(k, *tasks):
    """``(positives, negatives, 2 x pairs)`` of score range ``k``, from its pieces of every task."""
    pos = np.concatenate([t[k][0] for t in tasks])
    neg = np.concatenate([t[k][1] for t in tasks])
    pos.sort()
    neg.sort()
    return pos.size, neg.size, twice_pairs(pos, neg)


def combine(ranges):
    """``(positives, negatives, 2 x pairs)`` of the whole log from its ranges in increasing order: a positive
    of range ``k`` outscores every negative of the ranges below it (Python integers: exact at any size)."""
    n_pos = n_neg = twice = 0
    for p, n, t in ranges:
        twice += t + 2 * p * n_neg
        n_pos += p
        n_neg += n
    return n_pos, n_neg, twice


def auc_counts(source, label, score, cuts):
    """``(positives, negatives, 2 x pairs)`` of a log: the tasks of ``source`` split by ``cuts``, one task per range."""
    import dask

    if isinstance(source, Pieces):
        tasks = [dask.delayed(_read_split)(t, source.columns, label, score, cuts) for t in source.tasks]
    else:
        tasks = [dask.delayed(split_task)(p, label=label, score=score, cuts=cuts) for p in source.to_delayed()]
    ranges = [dask.delayed(range_counts)(k, *tasks) for k in range(len(cuts) + 1)]
    return combine(dask.compute(ranges)[0])


def _read_split(task, columns, label, score, cuts):
    from ._ondask_io import read_piece

    return split_task(read_piece(task, columns), label=label, score=score, cuts=cuts)
