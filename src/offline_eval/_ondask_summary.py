"""The summary of a log on Dask: every requested metric family from one read (:func:`offline_eval.ondask.summarize`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import InputTypeError, check_choice, check_int, check_real
from ._mergeable_joint import JointCounts
from ._mergeable_losses import QuantileSums
from ._mergeable_utility import UtilitySums
from ._losses import LOG_LOSS_EPS
from ._ondask_io import checked_counts, checked_sums, log_source, require_rows
from ._ondask_cells import FAMILIES, SCORE_FAMILIES, UTILITY_KEYS, Cells, reduce_summary
from ._progress import reports_progress


@dataclass(frozen=True)
class Summary:
    """Every requested metric family of a log, from one pass (:func:`summarize`).

    ``counts[score]`` (:class:`~offline_eval.mergeable.ScoreCounts`), ``sums[score]``
    (:class:`~offline_eval.mergeable.LossSums`), ``quantiles[score]`` (the table of
    :func:`offline_eval.metrics.quantile_breakdown`), ``joint`` and ``utility`` hold the families asked
    for; the methods return the metrics of one score column (the only one by default).
    """

    rows: int
    scores: tuple
    families: tuple
    counts: dict
    sums: dict
    quantiles: dict
    joint: JointCounts | None = None
    utility: UtilitySums | None = None
    resolution: float | None = None  #: ``None``: exact; else the scores were rounded to its multiples
    #: per score column, ``(positives, negatives, 2 x pairs outscored)`` when counted without cells (exact)
    pairs: dict | None = None

    def __repr__(self) -> str:
        parts = [f"{self.rows:,} rows", f"families {', '.join(self.families)}"]
        if self.scores:
            parts.append(f"scores {', '.join(self.scores)}")
        if "auc" in self.families and self.scores:
            parts.append("AUC " + ", ".join(f"{self.roc_auc_score(k):.4g}" for k in self.scores))
        parts.append("exact" if self.resolution is None else f"resolution {self.resolution:g}")
        return f"Summary({'; '.join(parts)})"

    def auc_error_bound(self, score=None) -> float:
        """Bound on ``|roc_auc_score(score) - the AUC of the unrounded scores|``: 0 when exact (no ``resolution``).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.counts, "auc", score).auc_error_bound()

    def _of(self, table, family, score):
        if family not in self.families:
            raise ValueError(f"the family {family!r} was not computed; families = {self.families}")
        if score is None:
            if len(self.scores) != 1:
                raise ValueError(f"`score` must name one of the score columns {list(self.scores)}")
            score = self.scores[0]
        if score not in table:
            raise ValueError(f"`score` must be one of {list(self.scores)}; got {score!r}")
        return table[score]

    def roc_auc_score(self, score=None) -> float:
        """:func:`offline_eval.metrics.roc_auc_score` of the column ``score``.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        if self.pairs:
            n_pos, n_neg, twice = self._of(self.pairs, "auc", score)
            if n_pos and n_neg:
                return float(twice / (2.0 * n_pos * n_neg))  # as the in-memory function: the same bits
        return self._of(self.counts, "auc", score).roc_auc_score()

    def roc_curve(self, score=None):
        """:func:`offline_eval.metrics.roc_curve` (``fpr, tpr`` at every distinct score, highest first).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.counts, "auc", score).roc_curve()

    def log_loss(self, score=None) -> float:
        """:func:`offline_eval.metrics.log_loss`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).log_loss()

    def rig_score(self, score=None) -> float:
        """:func:`offline_eval.metrics.rig_score`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).rig_score()

    def mean_squared_error(self, score=None) -> float:
        """:func:`offline_eval.metrics.mean_squared_error`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).mean_squared_error()

    def calibration_ratio(self, score=None) -> float:
        """:func:`offline_eval.metrics.calibration_ratio`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).calibration_ratio()

    def prediction_error(self, score=None) -> float:
        """:func:`offline_eval.metrics.prediction_error`.

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.sums, "losses", score).prediction_error()

    def quantile_breakdown(self, score=None):
        """The table of :func:`offline_eval.metrics.quantile_breakdown` (binned by the score itself).

        Parameters
        ----------
        score : str, optional
            The score column (default: the only one).
        """
        return self._of(self.quantiles, "quantiles", score).copy()


@reports_progress("ondask")
def summarize(data, label=None, score=None, *, weight=None, families=None, n_quantiles=10, resolution=None,
              eps=LOG_LOSS_EPS, joint=None, utility=None, betas=()) -> Summary:
    """Every requested metric family of a log from one read of its data: AUC/ROC, the losses and RIG,
    calibration by quantile, joint counts and utility sums.

    Each task reads one piece of the log (a partition, or row groups of a Parquet file: only the columns
    needed) once and fills every family's accumulator; the accumulators merge in a binary tree.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files (a file, a directory or a glob).
    label : str, optional
        Column of the 0/1 labels (needed by the score families).
    score : str or sequence of str, optional
        Column(s) of the scores (predicted probabilities for the losses and quantiles); every score
        family is computed for each.
    weight : str, optional
        Column of the row weights.
    families : sequence of str, optional
        Among :data:`FAMILIES`; by default the score families when ``score`` is given, ``"joint"`` when
        ``joint`` is given and ``"utility"`` when ``utility`` is given.
    n_quantiles : int, default 10
    resolution : float > 0, optional
        An opt-in approximation (exact is the default, on continuous scores too): round the scores to
        multiples of it for the AUC (as :func:`score_counts`; the AUC is then within
        :meth:`Summary.auc_error_bound`, at most the share of positive-negative pairs in one cell, halved)
        and for the quantile bins (the rows of a cell of rounded scores share a bin; each bin's sums are
        those of its rows' own scores; a bin's edges move by at most ``resolution / 2`` in score, so only
        the rows of the cells at its two edges can change bin, and ``score_lo`` / ``score_hi`` are rounded
        values).  The losses are summed per row (exact).
    eps : float, default 1e-15
        Clipping of the log loss.
    joint : sequence of str, optional
        Columns ``(hyp_b, hyp_c)`` or ``(hyp_b, hyp_c, truth)`` (see :func:`joint_counts`).
    utility : mapping, optional
        Columns ``{"group", "a", "v", "p", "c"}`` (see :func:`utility_sums`).
    betas : sequence of float, default ()
        The expected utility's ``beta`` values.

    Returns
    -------
    Summary

    Notes
    -----
    Without ``resolution``, one accumulator per score column holds, per distinct score ``v``, the weight
    of positives ``P_v`` and negatives ``N_v`` (a :class:`~offline_eval.mergeable.ScoreCounts`) and the
    row counts.  It gives the AUC exactly, and the losses because the rows of a cell share their score:
    ``sum_i w_i loss(y_i, p_i) = sum_v P_v loss(1, v) + N_v loss(0, v)`` (likewise the squared and
    absolute errors and ``sum w p``).  The quantile bin of every value follows from the same counts
    (:meth:`~offline_eval.mergeable.QuantileSums.edges`), and the per-bin sums are the sums over the cells
    of a bin: calibration by quantile needs no second pass.  The memory is one entry per distinct score
    (24 bytes; 40 with weights): bounded for scores stored at a fixed precision (1e-6: at most 10^6 + 1
    entries), about the rows for continuous scores.  How the cells are filled: per task and merged in a
    binary tree when the scores repeat (a sample of the first row group decides; only the speed depends on
    it); for continuous scores each task splits its rows by the top 20 bits of an order-preserving 64-bit
    key of the score (sign, exponent, 8 bits of mantissa; the ranges cut from that sample so that they hold
    about equal rows), and one task per range sorts its rows into cells (two value sorts without weights,
    no argsort); the ranges are concatenated in order.  Equal scores share a key, so a cell never
    straddles two ranges.  Counts are exact; sums agree with the in-memory functions to about 1e-12
    relative (another order of addition).

    Continuous scores without weights need no cell: each task sorts the scores of each class and cuts them
    at score values (from the same sample), one task per range sorts the range's scores of each class, and
    every score family follows from those sorted arrays (:mod:`offline_eval._ondask_sorted`): the AUC's
    pairs counted in integers (the in-memory function's bits), the loss sums per class, and the quantile
    bins, whose first value in a range is found by binary search once the ranges' sizes are known (the bin
    of a value depends only on the rows below it).  ``Summary.counts`` (the cells, for the ROC curve) is
    then built from the sorted scores when first read.  Memory: 8 bytes per row and score column, held by
    the summary until it is dropped.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> df = pd.DataFrame({"click": [0, 1, 1, 0], "p": [0.1, 0.4, 0.35, 0.8]})
    >>> s = summarize(dd.from_pandas(df, npartitions=2), "click", "p", n_quantiles=2)
    >>> s.roc_auc_score(), round(s.log_loss(), 6), s.quantile_breakdown()["clicks"].tolist()
    (0.5, 0.920228, [1.0, 1.0])
    """
    # -- validation at entry
    if families is None:
        families = (SCORE_FAMILIES if score is not None else ()) + (("joint",) if joint is not None else ()) \
            + (("utility",) if utility is not None else ())
    if isinstance(families, str) or not hasattr(families, "__iter__"):
        raise InputTypeError(f"`families` must be a sequence of names among {FAMILIES}; got {families!r}")
    families = tuple(dict.fromkeys(check_choice(f, "families", FAMILIES) for f in families))
    if not families:
        raise ValueError(f"`families` must name at least one of {FAMILIES} (or pass `score`, `joint` or `utility`)")
    scores = ()
    if any(f in SCORE_FAMILIES for f in families):
        if score is None or label is None:
            raise ValueError(f"the families {[f for f in families if f in SCORE_FAMILIES]} need `label` and `score`")
        scores = (score,) if isinstance(score, str) else tuple(score) if hasattr(score, "__iter__") else (score,)
        bad = [c for c in (label, *scores, weight) if c is not None and not isinstance(c, str)]
        if bad or not scores:
            raise InputTypeError(f"`label`, `score` and `weight` must be column names (strings); got {bad or score!r}")
        if len(set(scores)) != len(scores):
            raise ValueError(f"`score` names a column twice: {list(scores)}")
    check_int(n_quantiles, "n_quantiles", low=1)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    if resolution is not None:
        resolution = check_real(resolution, "resolution", low=0, closed="right")
    if "joint" in families:
        if isinstance(joint, str) or not hasattr(joint, "__iter__") or len(tuple(joint)) not in (2, 3) \
                or not all(isinstance(c, str) for c in joint):
            raise InputTypeError(f"`joint` must be 2 or 3 column names (hyp_b, hyp_c[, truth]); got {joint!r}")
        joint = tuple(joint)
    if "utility" in families:
        if not isinstance(utility, dict) or set(utility) != set(UTILITY_KEYS) \
                or not all(isinstance(c, str) for c in utility.values()):
            raise InputTypeError(f"`utility` must map {list(UTILITY_KEYS)} to column names; got {utility!r}")
        if isinstance(betas, (str, bytes)) or np.ndim(betas) != 1:
            raise ValueError(f"`betas` must be a sequence of numbers; got {betas!r}")
        betas = tuple(check_real(b, "betas", low=0, closed="neither") for b in betas)
    columns = [*((label, *scores, weight) if scores else ()), *(joint if "joint" in families else ()),
               *(utility[k] for k in UTILITY_KEYS if "utility" in families)]
    source = log_source(data, columns)
    spec = dict(label=label, scores=scores, weight=weight, families=families, resolution=resolution, eps=eps,
                exact=resolution is None and "quantiles" in families, joint=joint, utility=utility, betas=betas)
    # -- the pass
    fast = _sorted_pass(source, spec, n_quantiles) if scores and weight is None and resolution is None else None
    if fast is not None:
        return fast
    part = reduce_summary(source, spec)
    # -- the metrics
    counts, sums, quantiles = {}, {}, {}
    for name in scores:
        if spec["exact"]:
            cells = part.cells[name]
            require_rows(part.rows, float(cells.pos.sum() + cells.neg.sum()), weight)
            if "auc" in families:
                counts[name] = cells.counts()
            if ("losses" in families or "quantiles" in families) and cells.values.size and \
                    (cells.values[0] < 0 or cells.values[-1] > 1):
                raise ValueError(f"`score` column {name!r} must lie in [0, 1] for the losses and quantiles; got min "
                                 f"{cells.values[0]:.6g}, max {cells.values[-1]:.6g}")
            terms = cells.terms(eps) if "losses" in families or "quantiles" in families else None
            if "losses" in families:
                sums[name] = cells.loss_sums(eps, terms=terms)
            if "quantiles" in families:
                quantiles[name] = _quantile_table(cells, n_quantiles, eps, terms)
        else:
            if "auc" in families:
                counts[name] = checked_counts(part.counts[name], weight)
            if "losses" in families:
                sums[name] = checked_sums(part.sums[name], weight)
            if "quantiles" in families:  # bins of the rounded scores, sums of the rows' own scores
                cells = part.cells[name]
                require_rows(part.rows, float(cells.pos.sum() + cells.neg.sum()), weight)
                quantiles[name] = _quantile_table(cells, n_quantiles, eps)
    return Summary(part.rows, scores, families, counts, sums, quantiles, part.joint, part.utility, resolution)


#: Most quantile bins of the pass from sorted scores (more take the cells' pass).
SORTED_MAX_QUANTILES = 1000


def _sorted_pass(source, spec, n_quantiles):
    """The :class:`Summary` from sorted scores (:mod:`offline_eval._ondask_sorted`) when every score column is
    continuous and there are no weights; ``None`` otherwise (the cells' pass then runs)."""
    import functools

    from ._ondask_auc import continuous_cuts
    from ._ondask_cells import MAX_RANGES, summary_chunk
    from ._ondask_io import Pieces
    from ._ondask_sorted import sorted_summary

    if not {"auc", "quantiles"} & set(spec["families"]):
        return None  # the losses need no order: summed per task (no sort)
    if "quantiles" in spec["families"] and n_quantiles > SORTED_MAX_QUANTILES:
        return None  # each range searches every bin's start: the cells' pass (and its bound) instead
    n_tasks = len(source.tasks) if isinstance(source, Pieces) else source.npartitions
    n_ranges = int(min(MAX_RANGES, max(2, n_tasks)))
    cuts = {name: continuous_cuts(source, name, n_ranges) for name in spec["scores"]}
    if any(c is None for c in cuts.values()):
        return None
    families = spec["families"]
    others = tuple(f for f in families if f not in SCORE_FAMILIES)
    rest = functools.partial(summary_chunk, spec={**spec, "scores": (), "families": others}) if others else None
    rows, auc, counts, sums, quantiles, merged = sorted_summary(source, {**spec, "n_quantiles": n_quantiles}, cuts, rest)
    if rows == 0:
        require_rows(0, 0.0, None)
    if "auc" not in families:
        counts, auc = {}, {}
    return Summary(rows, spec["scores"], families, counts, sums, quantiles, None if merged is None else merged.joint,
                   None if merged is None else merged.utility, None, auc)


def _quantile_table(cells: Cells, n_quantiles: int, eps: float, terms=None):
    """The quantile table from the per-score cells: the bins of :meth:`QuantileSums.edges`, the sums per bin."""
    values, bins = QuantileSums.edges(cells.counts(), n_quantiles)
    q = int(n_quantiles)
    starts = np.searchsorted(bins, np.arange(q), side="left")
    stops = np.searchsorted(bins, np.arange(q), side="right")
    terms = cells.terms(eps) if terms is None else terms
    sums = tuple(cells.loss_sums(eps, slice(a, b), terms) for a, b in zip(starts, stops))
    # a bin's score range spans its cells with weight: rows of weight 0 are as if dropped (as in memory)
    held = np.flatnonzero((cells.pos + cells.neg) > 0)
    first = np.searchsorted(held, starts, side="left")
    last = np.searchsorted(held, stops, side="left") - 1
    some = first <= last
    lo = np.where(some, values[held[np.minimum(first, len(held) - 1)]] if len(held) else np.inf, np.inf)
    hi = np.where(some, values[held[np.maximum(last, 0)]] if len(held) else -np.inf, -np.inf)
    return QuantileSums(sums, lo, hi).frame()
