"""The exact AUC of continuous unweighted scores on Dask without cells: each task sorts the scores of each class
(two value sorts, no argsort) and cuts them by score range; one task per range sorts that range's scores
and counts its positive-negative pairs; the ranges' counts add up, in integers, to the in-memory count."""

from __future__ import annotations

import numpy as np

from ._chunks import checked_labels
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
