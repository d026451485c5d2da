"""The cells behind :func:`offline_eval.ondask.summarize`: every family filled from one read of a task, and
continuous scores split by score range so that each range is sorted into its exact cells by one task."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import numpy as np

from ._losses import log_likelihood, pointwise_log_loss
from ._validation import as_1d, check_finite
from ._chunks import chunk_arrays, grid_cells, merge_sorted, score_cells, sorted_unit_cells, weight_scale
from ._mergeable_joint import JointCounts
from ._mergeable_losses import LossSums, unweighted_loss_sums
from ._mergeable_scores import ScoreCounts
from ._mergeable_utility import UtilitySums
from ._ondask_io import Pieces, read_split_and_fill, tree_reduce, values_of


# -- every family in one pass --------------------------------------------------------------------------------
#: The metric families :func:`summarize` computes.
FAMILIES = ("auc", "losses", "quantiles", "joint", "utility")
SCORE_FAMILIES = ("auc", "losses", "quantiles")
UTILITY_KEYS = ("group", "a", "v", "p", "c")


@dataclass(frozen=True)
class Cells:
    """Per distinct score: the :class:`ScoreCounts` sums and the rows (all, and of positive weight with and
    without a click).  Merged exactly as :meth:`ScoreCounts.merge` merges (the same sums bit for bit).
    Without weights (``rows`` is ``None``) the rows are the sums themselves: ``pos`` clicks, ``neg`` others."""

    values: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    scale: int
    rows: np.ndarray | None = None
    n_pos: np.ndarray | None = None
    n_neg: np.ndarray | None = None
    #: with ``resolution``: per cell of rounded scores, the :meth:`terms` of its rows' own (unrounded) scores
    raw: dict | None = None

    def row_counts(self):
        """``(rows, n_pos, n_neg)`` per value."""
        if self.rows is None:
            return self.pos + self.neg, self.pos, self.neg
        return self.rows, self.n_pos, self.n_neg

    def merge(self, other):
        scale = max(self.scale, other.scale)

        def at(x, own):
            return np.ldexp(x, own - scale) if own != scale else x

        pairs = [(at(self.pos, self.scale), at(other.pos, other.scale)),
                 (at(self.neg, self.scale), at(other.neg, other.scale))]
        if self.raw is not None:
            names = list(self.raw)
            shift = {"n", "n_pos", "n_neg"}
            values, merged = merge_sorted(self.values, other.values, *pairs, *zip(self.row_counts(), other.row_counts()),
                                          *((self.raw[k], other.raw[k]) if k in shift else
                                            (at(self.raw[k], self.scale), at(other.raw[k], other.scale)) for k in names))
            return Cells(values, *merged[:2], scale, *merged[2:5], dict(zip(names, merged[5:])))
        if self.rows is None and other.rows is None:
            values, (pos, neg) = merge_sorted(self.values, other.values, *pairs)
            return Cells(values, pos, neg, scale)
        values, merged = merge_sorted(self.values, other.values, *pairs, *zip(self.row_counts(), other.row_counts()))
        return Cells(values, *merged[:2], scale, *merged[2:])

    def counts(self, resolution=None) -> ScoreCounts:
        return ScoreCounts(self.values, self.pos, self.neg, resolution, self.scale)

    def terms(self, eps) -> dict:
        """Per cell, the summands of :class:`LossSums`: a cell's rows share one score ``v``, so
        ``sum w loss = pos * loss(1, v) + neg * loss(0, v)`` (likewise the squared and absolute errors).
        Cells of rounded scores carry their rows' own sums (``raw``)."""
        if self.raw is not None:
            return self.raw
        v, pos, neg = self.values, self.pos, self.neg
        rows, n_pos, n_neg = self.row_counts()
        if eps > 0:  # every log finite: taken over the whole array (a masked ufunc loop is several times slower)
            l1, l0 = log_likelihood(v, True, eps), log_likelihood(v, False, eps)
            l1[pos == 0] = 0.0  # the masked logs' zeros: the same sums, bit for bit
            l0[neg == 0] = 0.0
        else:  # each log only where its class has weight: a cell of continuous scores holds one row, one class
            l1, l0 = log_likelihood(v, True, eps, where=pos > 0), log_likelihood(v, False, eps, where=neg > 0)
        w = pos + neg
        q = 1.0 - v
        return dict(n=rows, w=w, wy=pos, wp=w * v, wloss=-(pos * l1 + neg * l0), wsq=pos * q * q + neg * v * v,
                    wabs=pos * q + neg * v, n_pos=n_pos, n_neg=n_neg)

    def loss_sums(self, eps, keep=None, terms=None) -> LossSums:
        """The :class:`LossSums` of the rows (of the cells in ``keep``, a slice), from :meth:`terms`."""
        if not self.values[keep or slice(None)].size:
            return LossSums(eps=eps, scale=self.scale)
        t = self.terms(eps) if terms is None else terms
        sl = keep or slice(None)
        tot = {k: float(x[sl].sum()) for k, x in t.items()}
        n_pos, n_neg = tot.pop("n_pos"), tot.pop("n_neg")
        return LossSums(**tot, eps=eps, scale=self.scale, n_pos=n_pos, n_neg=n_neg)


@dataclass(frozen=True)
class _Part:
    """What one task of :func:`summarize` returns, and the merge of two."""

    rows: int
    cells: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    sums: dict = field(default_factory=dict)
    joint: JointCounts | None = None
    utility: UtilitySums | None = None
    pieces: dict = field(default_factory=dict)  #: per shuffled score, its rows split by score range (not merged)

    def merge(self, other):
        def both(a, b):
            return {k: a[k].merge(b[k]) for k in a}

        return _Part(self.rows + other.rows, both(self.cells, other.cells), both(self.counts, other.counts),
                     both(self.sums, other.sums), None if self.joint is None else self.joint.merge(other.joint),
                     None if self.utility is None else self.utility.merge(other.utility))


def _rounded_cells(y, s, w, resolution, eps, name):
    """The cells of the scores rounded to multiples of ``resolution`` (as :class:`ScoreCounts` rounds them),
    each with the sums of its rows' own scores (``raw``): the quantile table of :func:`summarize` with
    ``resolution``."""
    if ((s < 0) | (s > 1)).any():
        raise ValueError(f"`score` column {name!r} must lie in [0, 1] for the losses and quantiles; got min "
                         f"{s.min():.6g}, max {s.max():.6g}")
    with np.errstate(over="ignore"):
        ratio = s / resolution
    r = np.round(ratio) * resolution
    values, inv = np.unique(r, return_inverse=True)
    m = len(values)
    scale = weight_scale(w)
    w = np.ldexp(w, -scale) if scale else w
    live = w > 0
    d = y - s

    def tot(x):
        return np.bincount(inv, weights=x, minlength=m)

    pos, neg = tot(w * y), tot(w * (1.0 - y))
    rows, n_pos, n_neg = tot(np.ones(y.size)), tot(live & (y == 1)), tot(live & (y == 0))
    raw = dict(n=rows, w=tot(w), wy=pos, wp=tot(w * s), wloss=tot(w * pointwise_log_loss(y, s, eps)),
               wsq=tot(w * d * d), wabs=tot(w * np.abs(d)), n_pos=n_pos, n_neg=n_neg)
    return Cells(values, pos, neg, scale, rows, n_pos, n_neg, raw)


def summary_chunk(part, *, spec, splits=None):
    out = {}
    splits = splits or {}
    label, scores, weight, families = spec["label"], spec["scores"], spec["weight"], spec["families"]
    rows = 0
    if scores:
        y_raw, w_raw = values_of(part, label), values_of(part, weight)
        losses_only = weight is None and not spec["exact"] and not ({"auc", "quantiles"} & set(families))
        for i, name in enumerate(scores):
            s_raw = values_of(part, name)
            if losses_only:  # the sums per class: no float copy of the labels, no unit weights
                out.setdefault("sums", {})[name] = unweighted_loss_sums(y_raw, s_raw, (label, name), spec["eps"])
                rows = int(out["sums"][name].n)
                continue
            if i == 0:
                y, s, w = chunk_arrays(y_raw, s_raw, w_raw, names=(label, name))
                rows = y.size
            else:
                s = check_finite(as_1d(s_raw, name, allow_empty=True), name)
                if s.size != rows:
                    raise ValueError(f"`{name}` has {s.size} rows; `{label}` has {rows}")
            if splits.get(name) is not None:  # the cells are filled per score range (reduce_summary)
                out.setdefault("pieces", {})[name] = _split_by_score(s, y, None if weight is None else w, splits[name])
            elif spec["exact"]:
                unit = weight is None
                values, pos, neg, scale, extra = score_cells(y, s, w, None, rows=not unit, unit=unit)
                out.setdefault("cells", {})[name] = Cells(values, pos, neg, scale, *(extra or ()))
            elif "auc" in families:
                values, pos, neg, scale, _ = score_cells(y, s, w, spec["resolution"], unit=weight is None)
                out.setdefault("counts", {})[name] = ScoreCounts(values, pos, neg, spec["resolution"], scale)
            if not spec["exact"]:
                if "losses" in families and weight is None:  # summed per class (_mergeable_losses.unweighted_loss_sums)
                    out.setdefault("sums", {})[name] = unweighted_loss_sums(y, s, (label, name), spec["eps"])
                elif "losses" in families:  # summed per row: no cell needed (the exact cells serve the quantiles)
                    out.setdefault("sums", {})[name] = LossSums.from_arrays(y, s, w, eps=spec["eps"])
                if "quantiles" in families:
                    out.setdefault("cells", {})[name] = _rounded_cells(y, s, w, spec["resolution"], spec["eps"], name)
    if "joint" in families:
        out["joint"] = JointCounts.from_arrays(*(values_of(part, c) for c in spec["joint"]))
        rows = rows if scores else int(out["joint"].counts.sum())
    if "utility" in families:
        u = spec["utility"]
        out["utility"] = UtilitySums.from_arrays(*(values_of(part, u[k]) for k in UTILITY_KEYS), betas=spec["betas"])
        rows = rows if scores or "joint" in families else int(out["utility"].n.sum())
    return _Part(rows, **out)


# -- continuous scores: the cells of a range of scores in one task (a sort, not a tree of merges) -------------
#: Most score ranges (reduce tasks) of the exact cells of continuous scores.
MAX_RANGES = 32  # at most 256: a range is a uint8
#: Rows of the first task that choose the score ranges at most.
SAMPLE_ROWS = 1 << 16


#: Bits of a score's order-preserving key that pick its range (sign, exponent, 8 bits of mantissa).
_PREFIX_BITS = 20


def _prefix(s):
    """The top :data:`_PREFIX_BITS` bits of each score's order-preserving 64-bit key (``+0.0`` for ``-0.0``):
    ``a < b`` gives ``prefix(a) <= prefix(b)``, and equal scores share a prefix."""
    b = (s + 0.0).view(np.uint64)
    if s.size and s.min() < 0:  # negative floats: every bit flipped (larger magnitude, smaller key)
        b = np.where(b >> np.uint64(63), ~b, b | np.uint64(1 << 63))
    else:
        b = b | np.uint64(1 << 63)
    return (b >> np.uint64(64 - _PREFIX_BITS)).astype(np.intp)


def _split_by_score(s, y, w, cut):
    """The rows of one task split by score range: ``[(scores, clicks, weights), ...]``, range ``k`` holding the
    scores whose key prefix lies in ``[cut[k - 1], cut[k])`` (equal scores share a prefix: a cell never
    straddles two ranges)."""
    # a table from every prefix to its range: one gather per row instead of a binary search per row
    lut = np.searchsorted(cut, np.arange(1 << _PREFIX_BITS), side="right").astype(np.uint8)
    k = lut[_prefix(s)]
    count = np.bincount(k, minlength=len(cut) + 1)
    order = np.argsort(k, kind="stable")  # numpy's stable sort of 8-bit integers is a radix sort: linear
    ends = np.cumsum(count)[:-1]
    ss, yy = np.split(s[order], ends), np.split(y[order] == 1, ends)
    ww = [None] * len(ss) if w is None else np.split(w[order], ends)
    return list(zip(ss, yy, ww))


def _range_cells(exact, *pieces):
    """The :class:`Cells` of one score range from its pieces of every task (the rows in task order)."""
    s = np.concatenate([p[0] for p in pieces])
    click = np.concatenate([p[1] for p in pieces])
    if pieces[0][2] is None and s.size < 2**53:
        cells = sorted_unit_cells(click, s)
        if cells is not None:
            return Cells(*cells, 0)
    y = click.astype(np.float64)
    unit = pieces[0][2] is None
    w = np.ones(s.size) if unit else np.concatenate([p[2] for p in pieces])
    values, pos, neg, scale, extra = score_cells(y, s, w, None, rows=exact and not unit, unit=unit)
    return Cells(values, pos, neg, scale, *(extra or ()))


def _concat_cells(*ranges):
    """The cells of consecutive score ranges as one :class:`Cells` (values stay sorted: the ranges are ordered)."""
    scale = max(c.scale for c in ranges)

    def cat(k, shift):
        arrs = [getattr(c, k) for c in ranges]
        if arrs[0] is None:
            return None
        return np.concatenate([np.ldexp(a, c.scale - scale) if shift and c.scale != scale else a
                               for a, c in zip(arrs, ranges)])

    return Cells(cat("values", False), cat("pos", True), cat("neg", True), scale, cat("rows", False),
                 cat("n_pos", False), cat("n_neg", False))


def choose_splits(first, scores, n_ranges):
    """Per score column: the key prefixes (:func:`_prefix`) that cut the scores into ``n_ranges`` ranges of
    about equal rows in a sample of the first row group's scores; ``None`` when the sample's scores repeat (stored at a fixed precision:
    the per-task cells are then small and merge fast).  Only the speed depends on the sample, never a value."""
    out = {}
    for name in scores:
        x = np.asarray(values_of(first, name), dtype=np.float64)
        if x.size > SAMPLE_ROWS:
            x = x[:: x.size // SAMPLE_ROWS]
        x = np.sort(x[np.isfinite(x)])
        if x.size < 64 or grid_cells(x) is not None or 2 * len(np.unique(x)) < x.size:
            out[name] = None
            continue
        pre = _prefix(x)
        # range k: the prefixes from cut[k - 1] (included) to cut[k]
        out[name] = np.unique(pre[(np.arange(1, n_ranges) * x.size) // n_ranges])
    return out


def sample_first(source, scores):
    """The score columns of the first row group of the first task (or of the first partition)."""
    if isinstance(source, Pieces):
        import pyarrow.parquet as pq

        f, groups = source.tasks[0]
        if not groups:
            return {name: np.zeros(0) for name in scores}
        table = pq.ParquetFile(f).read_row_group(groups[0], columns=list(scores), use_threads=False)
        return {name: table.column(name).to_numpy() for name in scores}
    first = source.partitions[0][list(scores)].compute()
    return {name: first[name].to_numpy() for name in scores}


def _piece(part, name, k):
    return part.pieces[name][k]


def _strip(part):
    return _Part(part.rows, part.cells, part.counts, part.sums, part.joint, part.utility)


def reduce_summary(source, spec):
    """The merged :class:`_Part` of :func:`summarize`'s chunks.

    Scores stored at a fixed precision: each task's cells, merged in a binary tree.  Continuous scores
    (almost every score distinct): every cell's merge would move every row again at each level of the tree,
    so the tasks instead split their rows by score range (cut from the scores of the first row group read
    once more), one task per
    range sorts its rows into cells (the sort of the in-memory functions, on ``1 / ranges`` of the rows), and
    the ranges are concatenated in order.  The counts are the same either way (exact); weighted sums are
    added in another order (agreeing to about 1e-15 relative).
    """
    import dask

    chunk = functools.partial(summary_chunk, spec=spec)
    n_tasks = len(source.tasks) if isinstance(source, Pieces) else source.npartitions
    cells_needed = spec["exact"] or "auc" in spec["families"]
    if spec["resolution"] is not None or not spec["scores"] or not cells_needed or n_tasks < 2:
        return tree_reduce(source, chunk)
    n_ranges = int(min(MAX_RANGES, max(2, n_tasks)))
    splits = choose_splits(sample_first(source, spec["scores"]), spec["scores"], n_ranges)
    if all(v is None for v in splits.values()):
        return tree_reduce(source, chunk)
    if isinstance(source, Pieces):
        tasks = [dask.delayed(read_split_and_fill)(t, source.columns, chunk, splits) for t in source.tasks]
    else:
        tasks = [dask.delayed(chunk)(p, splits=splits) for p in source.to_delayed()]
    level = [dask.delayed(_strip)(t) for t in tasks]
    while len(level) > 1:
        nxt = [dask.delayed(lambda a, b: a.merge(b))(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    exact = spec["exact"]
    cells = {name: dask.delayed(_concat_cells)(*[
        dask.delayed(_range_cells)(exact, *[dask.delayed(_piece)(t, name, k) for t in tasks])
        for k in range(len(cut) + 1)]) for name, cut in splits.items() if cut is not None}
    part, cells = dask.compute(level[0], cells)
    if exact:
        return _Part(part.rows, {**part.cells, **cells}, part.counts, part.sums, part.joint, part.utility)
    counts = {**part.counts, **{k: c.counts() for k, c in cells.items()}}
    return _Part(part.rows, part.cells, counts, part.sums, part.joint, part.utility)
