"""Mergeable statistics: each metric family as a small accumulator that a chunk of rows fills and that
two accumulators merge, so a log bigger than memory is evaluated one partition at a time.

Every accumulator has ``from_arrays(...)`` (fill from one chunk), ``merge(other)`` (associative and
commutative: any partitioning and any merge order give the same counts) and methods that return the
same values as the in-memory functions of :mod:`offline_eval.metrics`, :mod:`offline_eval.adaptive` and
:mod:`offline_eval.bidding`.  :mod:`offline_eval.ondask` runs them on Dask.

==========================  ======================================================  ===================
accumulator                 what it holds                                           exact?
==========================  ======================================================  ===================
:class:`ScoreCounts`        weight of positives and negatives per distinct score    AUC/ROC exact; with
                                                                                    ``resolution``, the
                                                                                    error is bounded
:class:`LossSums`           sums of weights, labels, scores, losses                 sums (1e-12 rel.)
:class:`QuantileSums`       :class:`LossSums` per quantile bin (second pass)        bins exact, sums
:class:`JointCounts`        item counts per (B, C[, G]) cell, sparse                exact
:class:`UtilitySums`        utility, weighted squared error, EU per beta, per group sums (1e-12 rel.)
==========================  ======================================================  ===================

Notes
-----
**AUC and ROC.** The per-score counts of :class:`ScoreCounts` are all the AUC needs (ties count 1/2,
as in :func:`offline_eval.metrics.roc_auc_score`).  They are exact, the default, on any scores: a chunk's
cells come from a sort of its scores (without weights, two sorts of the values and no argsort), and two
accumulators merge by one linear merge of their sorted values.  Their size is one cell per distinct score:
small for scores stored at a fixed precision, about the rows for continuous float64 scores (for which
:mod:`offline_eval.ondask` fills the cells per score range rather than merging a tree of them).  As an
opt-in approximation, ``resolution`` rounds every score to a multiple of it first, which bounds the
number of cells by ``1 / resolution`` for scores in [0, 1]; only the order of a positive and a negative
in the *same* cell is then lost, so :meth:`ScoreCounts.auc_error_bound` -- half the weight of such
pairs, computed from the counts themselves -- bounds ``|AUC(rounded) - AUC(exact)|``.

**Quantiles** need two passes: the first collects the weight per distinct value of the binning score
(a :class:`ScoreCounts`), which fixes the quantile bin of every value exactly as
:func:`offline_eval.metrics.quantile_breakdown` does (a tie group takes the bin of its first row: the
bin of ``q * weight below / total``); the second fills one :class:`LossSums` per bin.

**Kendall's tau** is not here: an exact tau needs the joint order of all pairs (a distributed sort and
merge count); the ranking measures stay in memory (:mod:`offline_eval.ranking`).
"""

from __future__ import annotations

from ._mergeable_joint import JointCounts
from ._mergeable_losses import LossSums, QuantileSums
from ._mergeable_scores import ScoreCounts
from ._mergeable_utility import UtilitySums

__all__ = ["JointCounts", "LossSums", "QuantileSums", "ScoreCounts", "UtilitySums"]
