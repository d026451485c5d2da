"""A bootstrap for click logs: clustered, several metrics from the same resamples, paired differences.

:func:`clustered_bootstrap` resamples whole clusters of a log (the impressions of one query, user or day)
with the *Poisson bootstrap*: every resample gives each cluster an independent Poisson(1) weight, and a
row's weight in the resample is its cluster's weight times its own ``sample_weight``.  Every metric is
then a function of weighted sums, so one set of resamples serves AUC, log loss, RIG and the calibration
ratio of one or two models and their paired differences, and the same sums are what the mergeable
accumulators of :mod:`offline_eval.mergeable` hold (a chunk of a log can fill them for the same weights).

The result, :class:`LogBootstrap`, holds one :class:`BootstrapResult` (the result of every bootstrap of the
library, :class:`offline_eval.results.BootstrapResult`) per metric and model (``.a``, ``.b``, ``.difference`` =
b - a), each with ``.statistic``, ``.confidence_interval(level=..., method=...)`` (BCa by default, percentile or
basic, as ``scipy.stats.bootstrap``), ``.standard_error`` and, for a paired difference, ``.pvalue``.

Notes
-----
**Why clusters.**  Impressions of one query share its intent, its ads and its click propensity; rows of
one cluster are correlated, and a bootstrap of rows treats them as independent, which understates the
variance of every metric by the design effect :math:`1 + (m - 1)\\rho` (``m`` rows per cluster,
``rho`` the within-cluster correlation).  Resampling whole clusters keeps that correlation inside each
resample [1]_ [3]_.

**Poisson weights.**  A multinomial bootstrap of ``G`` clusters draws counts that sum to ``G``; the
Poisson bootstrap draws them independently, so the resample size varies by about :math:`\\sqrt{G}`, which
the ratio metrics absorb; for ``G`` in the tens or more the two give the same intervals [2]_.  Independent
weights are what a one-pass or distributed computation needs: a row's weight depends on its cluster alone.
With ``weights="hashed"`` the weight is a function of (seed, resample, the cluster's key) alone
(:func:`hashed_poisson_weights`), which :func:`offline_eval.ondask.clustered_bootstrap` uses to run the same
bootstrap on a log bigger than memory, in one pass, with the same values (percentile intervals there).

**Metrics as sums.**  With cluster weights :math:`W_{bg}` and per-cluster sums :math:`S_g` (weight, clicks,
predicted clicks, log loss of each model), the resampled sums are the matrix product :math:`W S`; log loss,
RIG and the calibration ratio follow as in :mod:`offline_eval.metrics`.

**AUC, exactly.**  Let the positives be the smaller class (else swap the classes and negate the scores:
the AUC is unchanged), sorted by score once, with runs ``k = 0..K-1`` of equal scores and resampled
weights :math:`V_k` per run; :math:`\\mathrm{Suf}_k = \\sum_{l \\ge k} V_l`.  A negative scoring between runs
``k - 1`` and ``k`` is outscored by :math:`\\mathrm{Suf}_k`; one tied with run ``k`` by
:math:`\\mathrm{Suf}_{k+1} + V_k / 2`.  So with :math:`D` the negatives' resampled weight per one of these
``2K + 1`` slots,

.. math::

    \\sum_{i \\in P} \\sum_{j \\in N} v_i v_j \\left([s_i > s_j] + \\tfrac12 [s_i = s_j]\\right)
    = \\sum_k D_{2k} \\mathrm{Suf}_k + D_{2k+1} (\\mathrm{Suf}_{k+1} + V_k / 2),

and both :math:`D = M W` and :math:`V = P W` are products of a sparse matrix built once (the rows'
weights by slot, or run, and cluster) with a block :math:`W` of the cluster weights of up to
:data:`RESAMPLE_BLOCK` resamples (clusters by rows, C order: each entry of the matrix reads one contiguous row
of weights for the whole block), taken over chunks of :data:`~offline_eval._logboot_engine.RUN_CHUNK` runs from
the top (:math:`\\mathrm{Suf}` carried down); no sort per resample.  With integer row weights (no
``sample_weight``, or small integers) the weights are int16, a row of the matrices holds at most 2,730 entries
(so that no product exceeds int16; a longer slot or run is cut into several rows), and every sum is an exact
integer in int64: the value is the exact ratio of two integers, on any machine.  Otherwise the products run in
float64, each sum in a fixed order.  Ties count one half, as in :func:`offline_eval.metrics.roc_auc_score`; the
value of every resample equals that function's with the resample's row weights (up to the order of float
sums; exactly, with integer weights).

**Intervals.**  Percentile, and BCa [1]_ (Efron's bias-corrected and accelerated interval) with the bias
correction :math:`z_0 = \\Phi^{-1}(\\#\\{\\theta^*_b < \\hat\\theta\\} / B)` (a replicate within
:data:`TIE_RTOL` of :math:`\\hat\\theta` counting one half) and the acceleration from the jackknife over
clusters (leave one cluster out; exact in O(n log n) for the AUC too).

**Memory.**  Resamples are processed in blocks of at most :data:`RESAMPLE_BLOCK` resamples and
:data:`BLOCK_BYTES` of cluster weights (the next block's weights are hashed in a second thread meanwhile); the
results do not depend on the block size (the Poisson draws are one stream; every sum is per resample, in a
fixed order).  Per model: the rows sorted by score and the two sparse matrices, about 40 bytes a row.

References
----------
.. [1] B. Efron, R. Tibshirani, *An Introduction to the Bootstrap*, 1993, Sections 14.3 (BCa) and 11
   (the jackknife).
.. [2] A. B. Owen, D. Eckles, "Bootstrapping data arrays of arbitrary order", Annals of Applied
   Statistics 6 (2012); N. Chamandy et al., "Estimating uncertainty for massive data streams",
   Google technical report, 2012 (the Poisson bootstrap).
.. [3] A. C. Davison, D. V. Hinkley, *Bootstrap Methods and their Application*, 1997, Section 3.8
   (resampling clusters).
"""

from __future__ import annotations

import numpy as np

from ._bootstrap import check_boot
from ._results import ConfidenceInterval
from ._validation import (
    InputTypeError,
    as_1d,
    as_labels,
    check_aligned,
    check_binary,
    check_choice,
    check_consistent_length,
    check_finite,
    check_probability,
    check_real,
    check_rng,
    check_row_weights,
    scale_weights,
)
from ._losses import LOG_LOSS_EPS
from ._logboot_results import BootstrapResult, LogBootstrap, ModelResults
from ._progress import reports_progress
from ._logboot_run import (METRICS, PROB_METRICS, assemble, check_metrics, check_resampled_rows, jackknives,
                           run_resamples)
# the bounds and block sizes named in the docstrings, importable from here as before (the engine reads them)
from ._logboot_run import BLOCK_BYTES, MAX_RESAMPLED_ROWS, RESAMPLE_BLOCK  # noqa: F401
from ._logboot_engine import TIE_RTOL, metrics_from_sums  # noqa: F401  (importable from here as before)
# the helpers ondask and the tests use, documented here
from ._logboot_weights import cluster_keys, draw_seed, hashed_poisson_weights, poisson_weights  # noqa: F401

__all__ = ["METRICS", "BootstrapResult", "ConfidenceInterval", "LogBootstrap", "ModelResults",
           "clustered_bootstrap"]


# -- the public entry --------------------------------------------------------------------------------
@reports_progress("logboot")
def clustered_bootstrap(y_true, y_score, y_score_b=None, *, groups=None, sample_weight=None,
                        metrics=("roc_auc_score", "log_loss", "rig_score"), n_boot: int = 1000,
                        eps: float = LOG_LOSS_EPS, pos_label=None, weights: str = "stream", rng=None,
                        data=None) -> LogBootstrap:
    """Poisson bootstrap of a log, clustered by ``groups``: several metrics, one or two models, one set of resamples.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Clicks: 0/1 or bool, or any two labels with ``pos_label``.
    y_score : array-like of shape (n,)
        Predictions of model A: probabilities in [0, 1] when a metric other than the AUC is asked for,
        else any finite scores.
    y_score_b : array-like of shape (n,), optional
        Predictions of model B, evaluated on the same resamples (paired), with the differences B - A.
    groups : array-like of shape (n,), optional
        The cluster of each row (a query, user or day id; any hashable labels).  Whole clusters are
        resampled.  ``None``: every row is its own cluster (the row-level bootstrap).
    sample_weight : array-like of shape (n,), optional
        Non-negative row weights (e.g. impression counts), multiplied by the resampled cluster weights.
    metrics : sequence of str, default ("roc_auc_score", "log_loss", "rig_score")
        Any of :data:`METRICS`, named after the functions of :mod:`offline_eval.metrics` they equal.
    n_boot : int, default 1000
        Number of resamples.
    eps : float, default 1e-15
        Clipping of the log loss, as in :func:`offline_eval.metrics.log_loss`.
    pos_label : str, int or bool, optional
        The label of the positives when ``y_true`` holds labels other than 0/1.
    weights : {"stream", "hashed"}, default "stream"
        How the Poisson weights are drawn.  ``"stream"``: from ``rng`` as one stream of 32-bit uniforms
        (:func:`poisson_weights`).  ``"hashed"``: each cluster's weight in resample ``b`` is a function of
        (a 64-bit seed drawn from ``rng``, ``b``, the cluster's key) alone (:func:`hashed_poisson_weights`):
        the weights of :func:`offline_eval.ondask.clustered_bootstrap`, equal whatever the order of the rows.
        ``groups`` must then hold integers or strings.
    rng : None, int or numpy.random.Generator
        Source of the Poisson weights (drawn as one stream: the result does not depend on the block size).
    data : pandas.DataFrame, optional
        The log as a data frame: ``y_true``, ``y_score``, ``y_score_b``, ``groups`` and ``sample_weight``
        may then be its column names (``groups="query_id"``), the convention of
        :func:`offline_eval.ondask.clustered_bootstrap`; arrays are taken as they are.

    Returns
    -------
    LogBootstrap
        ``.a`` (and ``.b``, ``.difference``) hold a :class:`BootstrapResult` per metric:
        ``res.difference.roc_auc_score.pvalue``, ``res.a.log_loss.confidence_interval(0.9)``;
        ``res.table()`` is all of them as a DataFrame.

    Notes
    -----
    Resample ``b`` gives cluster ``g`` the weight :math:`W_{bg} \\sim \\text{Poisson}(1)`, independently;
    each metric of the resample equals the function of :mod:`offline_eval.metrics` of the same name called
    with ``sample_weight`` :math:`= W_{b, g(i)} w_i` (a resample where the metric is undefined, e.g. without
    a click, gives ``nan`` and is left out of the intervals).  The algorithms (per-cluster sums; the AUC by
    two sparse products per resample) and the intervals are described in the module notes.
    Complexity: O(n log n) once (a sort per model; the two models' in two threads), then O(n + G) per
    resample of G clusters: about 1 ns per row, model and resample (sparse products over blocks of int16
    weights) and 6 ns per cluster and resample (the hashed weights); 200 resamples of two models on 1e6 rows
    take about 2 s.  The work ``n_boot x rows x models`` is bounded by :data:`MAX_RESAMPLED_ROWS` (checked
    before any work; a few minutes on one core).  A metric is computed from the two classes' weights summed apart (never a total
    less a part), so a class of tiny weight beside huge ones still counts; a statistic undefined on the
    data (one class present) is ``nan`` with an :class:`~offline_eval.OfflineEvalWarning`, and a
    leave-one-cluster-out value undefined without its cluster is ``nan``, left out of BCa's acceleration
    with a warning that says how many.

    References
    ----------
    .. [1] B. Efron, R. Tibshirani, *An Introduction to the Bootstrap*, 1993, Section 14.3.
    .. [2] A. B. Owen, D. Eckles, "Bootstrapping data arrays of arbitrary order", Annals of Applied
       Statistics 6 (2012).

    Examples
    --------
    Two queries of two impressions each; model B ranks the first query right:

    >>> res = clustered_bootstrap([1, 0, 1, 0], [0.4, 0.6, 0.7, 0.2], [0.6, 0.4, 0.7, 0.2],
    ...                           groups=["q1", "q1", "q2", "q2"], n_boot=200, rng=0)
    >>> res.a.roc_auc_score.statistic, res.b.roc_auc_score.statistic, res.difference.roc_auc_score.statistic
    (0.75, 1.0, 0.25)
    >>> res.a.roc_auc_score
    BootstrapResult(roc_auc_score, a: statistic=0.75, standard_error=0.3785, 95% bca CI [0, 1], 200 resamples of 2 clusters)
    """
    y_true, y_score, y_score_b, groups, sample_weight = columns_of(
        data, y_true=y_true, y_score=y_score, y_score_b=y_score_b, groups=groups, sample_weight=sample_weight)
    metrics = check_metrics(metrics)
    check_boot(n_boot, 0.5)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    check_choice(weights, "weights", ("stream", "hashed"))
    check_aligned(y_true=y_true, y_score=y_score, y_score_b=y_score_b, groups=groups, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label).astype(np.float64)
    probs = any(m in PROB_METRICS for m in metrics)

    def score(x, name):
        return check_probability(x, name) if probs else check_finite(as_1d(x, name), name)

    scores = [score(y_score, "y_score")] + ([] if y_score_b is None else [score(y_score_b, "y_score_b")])
    n = check_consistent_length(y_true=y, y_score=scores[0], y_score_b=scores[1] if len(scores) > 1 else None)
    check_resampled_rows(n_boot, n, len(scores))
    w = check_row_weights(sample_weight, n)
    # a power-of-two rescale is exact: products of weights neither under- nor overflow at any weight scale
    w = scale_weights(w)
    if groups is None:
        g, n_clusters = np.arange(n, dtype=np.intp), n
        keys = np.arange(n, dtype=np.uint64)  # every row its own cluster, keyed by its position
    else:
        labels = as_labels(groups, "groups")
        check_consistent_length(y_true=y, groups=labels)
        uniq, g = np.unique(labels, return_inverse=True)
        g, n_clusters = g.astype(np.intp).reshape(-1), len(uniq)
        keys = cluster_keys(uniq, "groups") if weights == "hashed" else None
    gen = check_rng(rng)
    seed = draw_seed(gen) if weights == "hashed" else None
    n_boot = int(n_boot)

    ww = np.ones(n) if w is None else w
    stat, reps, per_model = run_resamples(y, scores, ww, g, n_clusters, metrics, eps, n_boot,
                                          keys=keys if seed is not None else None, seed=seed, gen=gen)
    return assemble(stat, reps, jackknives(per_model, n, n_boot), metrics, n_boot, n_clusters)


def columns_of(data, **arrays):
    """The arrays of :func:`clustered_bootstrap`, a column name taken from the data frame ``data``.

    A string with ``data`` is a column of it (a named error when it is missing); a string without ``data``
    is refused with the convention named (``groups="query_id"`` needs ``data=frame``).
    """
    if data is not None:
        import pandas as pd

        if not isinstance(data, pd.DataFrame):
            raise InputTypeError(f"`data` must be a pandas DataFrame (whose columns the other arguments name); got "
                                 f"{type(data).__name__} (for a Dask DataFrame or Parquet files: "
                                 "offline_eval.ondask.clustered_bootstrap)")
    out = []
    for name, x in arrays.items():
        if isinstance(x, str):
            if data is None:
                raise InputTypeError(f"`{name}` = {x!r} is a column name: pass the data frame as `data=` "
                                     f"(or `{name}` as an array)")
            if x not in data.columns:
                raise ValueError(f"`{name}` names the column {x!r}, which `data` does not have; it has "
                                 f"{list(data.columns)}")
            x = data[x].to_numpy()
        out.append(x)
    return out
