""":func:`offline_eval.ondask.summarize` of continuous unweighted scores from sorted scores, without cells.

Each task sorts the scores of each class of each score column (value sorts, no argsort) and cuts them by
score range (:func:`offline_eval._ondask_auc.value_cuts`); one task per range sorts that range's scores of
each class.  A range then gives, from its two sorted arrays alone:

- the AUC's pairs (:func:`offline_eval._ondask_auc.twice_pairs`; the ranges add up in integers);
- the loss sums: a positive's log loss is ``-log p``, a negative's ``-log(1 - p)`` (likewise the squared
  and absolute errors), summed per class;
- the quantile bins: a value's bin is ``min(floor(q * rows below it / rows), q - 1)`` (the rule of
  :meth:`~offline_eval.mergeable.QuantileSums.edges`), so once the ranges' sizes are known, each bin's
  first value in a range is found by a binary search, and a bin's rows are a slice of each sorted array.

The cells of :class:`~offline_eval.mergeable.ScoreCounts` (the ROC curve at every distinct score) are
built from the sorted arrays only when asked for (:class:`LazyCounts`)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping

import numpy as np

from ._chunks import runs_of_sorted
from ._losses import log_likelihood
from ._ondask_auc import class_scores, combine, cut_sorted, twice_pairs
from ._ondask_io import Pieces, values_of
from ._mergeable_losses import LossSums, QuantileSums
from ._mergeable_scores import ScoreCounts

LOSS_FIELDS = ("wp", "wloss", "wsq", "wabs")


# -- stage 1: one task's rows, per score column and range, the sorted scores of each class ------------------
def _task(part, *, spec, cuts, rest):
    label, y = spec["label"], values_of(part, spec["label"])
    out, rows = {}, 0
    for name in spec["scores"]:
        pos, neg = class_scores(y, values_of(part, name), (label, name))
        rows = pos.size + neg.size
        out[name] = list(zip(cut_sorted(pos, cuts[name]), cut_sorted(neg, cuts[name])))
    return rows, out, (rest(part) if rest is not None else None)


def _read_task(task, columns, **kw):
    from ._ondask_io import read_piece

    return _task(read_piece(task, columns), **kw)


# -- stage 2: one range of one score column ----------------------------------------------------------------
def _range(name, k, *tasks):
    pos = np.concatenate([t[1][name][k][0] for t in tasks])
    neg = np.concatenate([t[1][name][k][1] for t in tasks])
    pos.sort()
    neg.sort()
    return pos, neg


def _sizes(r):
    return r[0].size, r[1].size


def _offsets(*sizes):
    """Rows below each range, and the rows of all."""
    out, total = [], 0
    for p, n in sizes:
        out.append(total)
        total += p + n
    return out, total


def _first_at_or_above(pos, neg, r):
    """The smallest score with at least ``r`` scores of the two sorted arrays strictly below it (``inf`` if none)."""
    best = np.inf
    for a, b in ((pos, neg), (neg, pos)):
        i = bisect.bisect_left(range(a.size), r, key=lambda i: int(np.searchsorted(a, a[i], side="left"))
                               + int(np.searchsorted(b, a[i], side="left")))
        if i < a.size:
            best = min(best, float(a[i]))
    return best


def thresholds(total, q):
    """Per bin ``b = 1..q-1``, the fewest rows below a value that put it in bin ``b`` or above: the least
    integer ``c`` with ``floor(q * c / total) >= b``, the division in float64 as :meth:`QuantileSums.edges`
    computes it (exact in integers for ``c <= total < 2**53``)."""
    def at_least(c, b):
        return c >= total or np.floor(float(q * c) / float(total)) >= b

    out = []
    for b in range(1, q):
        c = -((-b * total) // q)  # ceil(b total / q): the exact answer, moved if the float division disagrees
        while c > 0 and at_least(c - 1, b):
            c -= 1
        while not at_least(c, b):
            c += 1
        out.append(c)
    return out


def _class_terms(x, positive, eps):
    """Per row of one class: ``p``, the log loss, the squared and the absolute error."""
    loss = -log_likelihood(x, positive, eps)
    err = 1.0 - x if positive else x
    return x, loss, err * err, err


def _range_stats(r, offsets, k, *, q, eps, quantiles, losses):
    """What range ``k`` gives: ``(pos, neg, 2 x pairs, lo, hi, per-bin sums)`` (the sorted arrays kept for the
    ROC curve)."""
    pos, neg = r
    twice = twice_pairs(pos, neg)
    lo = min(pos[0] if pos.size else np.inf, neg[0] if neg.size else np.inf)
    hi = max(pos[-1] if pos.size else -np.inf, neg[-1] if neg.size else -np.inf)
    bins = None
    if losses or quantiles:
        below, total = offsets
        if quantiles:
            cut = [_first_at_or_above(pos, neg, c - below[k]) if c > below[k] else -np.inf
                   for c in thresholds(total, q)]
        else:
            cut = []
        bins = []
        ip = np.searchsorted(pos, cut, side="left") if cut else np.zeros(0, np.intp)
        ineg = np.searchsorted(neg, cut, side="left") if cut else np.zeros(0, np.intp)
        edges_p = np.r_[0, ip, pos.size]
        edges_n = np.r_[0, ineg, neg.size]
        tp, tn = _class_terms(pos, True, eps), _class_terms(neg, False, eps)
        for b in range(len(cut) + 1):
            sp, sn = slice(edges_p[b], edges_p[b + 1]), slice(edges_n[b], edges_n[b + 1])
            n_p, n_n = sp.stop - sp.start, sn.stop - sn.start
            if not n_p + n_n:
                bins.append(None)
                continue
            sums = {f: float(a[sp].sum()) + float(c[sn].sum()) for f, a, c in zip(LOSS_FIELDS, tp, tn)}
            first = min(pos[sp.start] if n_p else np.inf, neg[sn.start] if n_n else np.inf)
            last = max(pos[sp.stop - 1] if n_p else -np.inf, neg[sn.stop - 1] if n_n else -np.inf)
            bins.append((n_p, n_n, sums, first, last))
    return pos, neg, twice, lo, hi, bins


def _merge_bins(ranges, n_bins, eps):
    """Per bin, the :class:`LossSums` of its rows over the ranges (in order), its lowest and highest score."""
    acc = [None] * n_bins
    for r in ranges:
        for b, got in enumerate(r[5]):
            if got is None:
                continue
            n_p, n_n, sums, first, last = got
            if acc[b] is None:
                acc[b] = [n_p, n_n, dict(sums), first, last]
            else:
                a = acc[b]
                a[0] += n_p
                a[1] += n_n
                for f in LOSS_FIELDS:
                    a[2][f] += sums[f]
                a[4] = last
    out = []
    for a in acc:
        if a is None:
            out.append((LossSums(eps=eps), np.inf, -np.inf))
            continue
        n_p, n_n, sums, first, last = a
        n = float(n_p + n_n)
        out.append((LossSums(n=n, w=n, wy=float(n_p), **sums, eps=eps, n_pos=float(n_p), n_neg=float(n_n)), first, last))
    return out


class LazyCounts(Mapping):
    """``score -> ScoreCounts``, each built from the ranges' sorted scores when first read (the cells of
    every distinct score: the ROC curve), then kept."""

    def __init__(self, ranges: dict):
        self._ranges, self._built = ranges, {}

    def __getitem__(self, name):
        if name not in self._built:
            self._built[name] = _counts_of(self._ranges[name])  # KeyError for another name, as a dict
        return self._built[name]

    def __iter__(self):
        return iter(self._ranges)

    def __len__(self):
        return len(self._ranges)

    def __repr__(self):
        return f"LazyCounts({list(self._ranges)})"


def _counts_of(ranges) -> ScoreCounts:
    from ._chunks import merge_sorted

    values, pos, neg = [], [], []
    for p_sorted, n_sorted in ranges:
        vp, cp = runs_of_sorted(p_sorted)
        vn, cn = runs_of_sorted(n_sorted)
        v, (a, b) = merge_sorted(vp, vn, (cp, np.zeros(vn.size)), (np.zeros(vp.size), cn))
        values.append(v)
        pos.append(a)
        neg.append(b)
    return ScoreCounts(np.concatenate(values), np.concatenate(pos), np.concatenate(neg))


def sorted_summary(source, spec, cuts, rest):
    """The pass of :func:`summarize` on continuous unweighted scores: ``(rows, auc, counts, sums, quantiles,
    rest)`` with ``rest`` the merged accumulator of ``rest(part)`` (the joint and utility families) or ``None``."""
    import dask

    kw = dict(spec=spec, cuts=cuts, rest=rest)
    if isinstance(source, Pieces):
        tasks = [dask.delayed(_read_task)(t, source.columns, **kw) for t in source.tasks]
    else:
        tasks = [dask.delayed(_task)(p, **kw) for p in source.to_delayed()]
    families, q, eps = spec["families"], int(spec["n_quantiles"]), spec["eps"]
    quantiles, losses = "quantiles" in families, "losses" in families
    stats = {}
    for name in spec["scores"]:
        ranges = [dask.delayed(_range)(name, k, *tasks) for k in range(len(cuts[name]) + 1)]
        offsets = dask.delayed(_offsets)(*[dask.delayed(_sizes)(r) for r in ranges])
        stats[name] = [dask.delayed(_range_stats)(r, offsets, k, q=q, eps=eps, quantiles=quantiles, losses=losses)
                       for k, r in enumerate(ranges)]
    rows = [dask.delayed(lambda t: t[0])(t) for t in tasks]
    level = [dask.delayed(lambda t: t[2])(t) for t in tasks] if rest is not None else []
    while len(level) > 1:
        nxt = [dask.delayed(lambda a, b: a.merge(b))(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    stats, rows, merged = dask.compute(stats, rows, level[0] if level else None)
    n_rows = int(sum(rows))
    auc, sums, tables, kept = {}, {}, {}, {}
    for name, got in stats.items():
        n_pos, n_neg, twice = auc[name] = combine((r[0].size, r[1].size, r[2]) for r in got)
        lo = min((r[3] for r in got), default=np.inf)
        hi = max((r[4] for r in got), default=-np.inf)
        if (losses or quantiles) and n_pos + n_neg and (lo < 0 or hi > 1):
            raise ValueError(f"`score` column {name!r} must lie in [0, 1] for the losses and quantiles; got min "
                             f"{lo:.6g}, max {hi:.6g}")
        if losses or quantiles:
            per_bin = _merge_bins(got, q if quantiles else 1, eps)
            if losses:
                tot = per_bin[0][0]
                for s, _, _ in per_bin[1:]:
                    tot = tot.merge(s)
                sums[name] = tot
            if quantiles:
                tables[name] = QuantileSums(tuple(s for s, _, _ in per_bin), np.array([a for _, a, _ in per_bin]),
                                            np.array([b for _, _, b in per_bin])).frame()
        kept[name] = [(r[0], r[1]) for r in got]
    return n_rows, auc, LazyCounts(kept), sums, tables, merged
