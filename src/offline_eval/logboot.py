"""A bootstrap for click logs: clustered, several metrics from the same resamples, paired differences.

:func:`clustered_bootstrap` resamples whole clusters of a log (the impressions of one query, user or day)
with the *Poisson bootstrap*: every resample gives each cluster an independent Poisson(1) weight, and a
row's weight in the resample is its cluster's weight times its own ``sample_weight``.  Every metric is
then a function of weighted sums, so one set of resamples serves AUC, log loss, RIG and the calibration
ratio of one or two models and their paired differences, and the same sums are what the mergeable
accumulators of :mod:`offline_eval.mergeable` hold (a chunk of a log can fill them for the same weights).

The result, :class:`LogBootstrap`, holds one :class:`BootstrapResult` per metric and model (``.a``,
``.b``, ``.difference`` = b - a), each with ``.statistic``, ``.confidence_interval(level=..., method=...)``
(percentile or BCa), ``.standard_error`` and, for a paired difference, ``.pvalue``.

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

import warnings

import numpy as np

from ._bootstrap import check_boot
from ._results import ConfidenceInterval, Result, interval_text, short_repr
from ._validation import (
    InputTypeError,
    OfflineEvalWarning,
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
    check_work,
    scale_weights,
    warn_undefined,
)
from .metrics import LOG_LOSS_EPS
from ._logboot_engine import (ClusterSums, ModelEngine, bca_quantiles, integer_weights, jackknife_acceleration,
                              pvalue_at_zero, tied_difference)
from ._logboot_engine import TIE_RTOL, metrics_from_sums  # noqa: F401  (importable from here as before)
from ._logboot_weights import (cluster_keys, draw_seed, hashed_counts, hashed_poisson_weights, poisson_counts,
                               poisson_weights)
from ._public import publish

__all__ = ["METRICS", "BootstrapResult", "ConfidenceInterval", "LogBootstrap", "ModelResults",
           "clustered_bootstrap"]

# the helpers ondask and the tests use, documented here: their home stays this module
publish(globals(), "offline_eval._logboot_engine", "offline_eval._logboot_weights",
        also=("cluster_keys", "draw_seed", "hashed_poisson_weights", "metrics_from_sums", "poisson_weights"))

#: The metrics :func:`clustered_bootstrap` computes, by the name of the function of
#: :mod:`offline_eval.metrics` whose value each resample reproduces.
METRICS = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")

#: At most this many float64 cells in the largest array of one block of resamples (32 MiB) of the one-pass sums.
BLOCK_ELEMENTS = 1 << 22

#: Resamples per block at most: each sparse product reads one row of ``RESAMPLE_BLOCK`` cluster weights.
RESAMPLE_BLOCK = 64

#: ``rows x n_boot`` from which :func:`run_resamples` uses threads (the results are the same either way).
THREADED_WORK = 10**8

#: Bytes of cluster weights of one block of resamples at most (1 GiB: blocks of 64 resamples up to 2^23 clusters
#: of int16 weights; fewer above).
BLOCK_BYTES = 1 << 30


_PROB_METRICS = ("log_loss", "rig_score", "calibration_ratio")


class BootstrapResult(Result):
    """One metric of one model (or a paired difference) with its bootstrap replicates.

    A :class:`~offline_eval._results.Result`; ``.method`` is the interval's default method, ``"bca"`` where
    the jackknife over clusters was computed (in memory), else ``"percentile"``.

    Attributes
    ----------
    statistic : float
        The metric on the data (every weight 1).
    replicates : ndarray of shape (n_boot,)
        The metric on each resample; ``nan`` where undefined (e.g. a resample with one class).
    acceleration : float
        BCa's acceleration, from the jackknife over clusters; ``nan`` when that jackknife was not computed
        (:func:`offline_eval.ondask.clustered_bootstrap`), and then only the percentile interval is given.
    pvalue : float
        For a paired difference, the two-sided bootstrap p-value of "no difference"; ``nan`` otherwise.
    name : str
        What the statistic is, e.g. ``"roc_auc_score, b - a"``.
    n_clusters : int
        Number of clusters resampled.
    """

    def __init__(self, statistic, replicates, acceleration, *, name, n_clusters, difference=False):
        self.statistic = float(statistic)
        self.replicates = replicates
        self.acceleration = float(acceleration)
        self.name = name
        self.n_clusters = int(n_clusters)
        self.pvalue = pvalue_at_zero(replicates) if difference else float("nan")

    @property
    def method(self) -> str:
        """The default interval's method: ``"bca"`` with the jackknife over clusters, else ``"percentile"``."""
        return "percentile" if np.isnan(self.acceleration) else "bca"

    @property
    def n_boot(self) -> int:
        """Number of resamples."""
        return len(self.replicates)

    @property
    def n_valid(self) -> int:
        """Resamples on which the metric is defined."""
        return int(np.isfinite(self.replicates).sum())

    @property
    def standard_error(self) -> float:
        """Standard deviation of the defined replicates (ddof=1)."""
        r = self.replicates[np.isfinite(self.replicates)]
        return float(np.std(r, ddof=1)) if len(r) > 1 else float("nan")

    def confidence_interval(self, level: float = 0.95, *, method: str | None = None) -> ConfidenceInterval:
        """The bootstrap confidence interval of the statistic.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
            Coverage of the two-sided interval.
        method : {"bca", "percentile"}, optional
            ``"percentile"``: the ``(1 - level) / 2`` and ``(1 + level) / 2`` percentiles of the replicates;
            ``"bca"``: the percentiles moved by the bias correction and the acceleration (see the module notes).
            By default BCa where the jackknife over clusters was computed (in memory), else percentile (the
            one-pass Dask bootstrap).

        Returns
        -------
        ConfidenceInterval
            ``(low, high)``; ``nan`` (with a warning) when fewer than half of the resamples are defined,
            or, for BCa, when every replicate lies on one side of the statistic.

        Notes
        -----
        Undefined replicates are left out.  Percentiles interpolate linearly (``numpy.percentile``'s
        default, as ``scipy.stats.bootstrap``).
        """
        level = check_real(level, "level", low=0, high=1, closed="neither")
        if method is None:
            method = self.method
        check_choice(method, "method", ("bca", "percentile"))
        if method == "bca" and np.isnan(self.acceleration):
            raise ValueError(f"`method` = 'bca' needs the jackknife over clusters, which {self.name} does not hold "
                             "(the one-pass Dask bootstrap keeps no per-cluster sums); use method='percentile'")
        r = self.replicates[np.isfinite(self.replicates)]
        nan = ConfidenceInterval(float("nan"), float("nan"))
        if len(r) < self.n_boot / 2 or len(r) == 0 or not np.isfinite(self.statistic):
            warn_undefined(f"{self.name}: undefined on {self.n_boot - len(r)} of {self.n_boot} resamples; "
                           "the interval is nan")
            return nan
        alpha = (1.0 - level) / 2.0
        if method == "percentile":
            q = np.array([alpha, 1.0 - alpha])
        else:
            q = bca_quantiles(r, self.statistic, self.acceleration, alpha)
            if q is None:
                warn_undefined(f"{self.name}: every replicate lies on one side of the statistic; "
                               "the BCa interval is nan (use method='percentile')")
                return nan
        low, high = np.percentile(r, 100.0 * q)
        return ConfidenceInterval(float(low), float(high))

    def __repr__(self) -> str:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", OfflineEvalWarning)  # an undefined interval shows as nan
            ci = self.confidence_interval()
        fields = short_repr("", statistic=self.statistic, standard_error=self.standard_error,
                            pvalue=None if np.isnan(self.pvalue) else self.pvalue,
                            interval=interval_text(ci, method=self.method, level=0.95))[1:-1]
        return f"BootstrapResult({self.name}: {fields}, {self.n_boot} resamples of {self.n_clusters:,} clusters)"


class ModelResults:
    """The :class:`BootstrapResult` of each metric for one model (or the difference), as attributes."""

    def __init__(self, label: str, results: dict):
        self._label = label
        self._results = dict(results)

    def __getattr__(self, name):
        try:
            return self.__dict__["_results"][name]
        except KeyError:
            raise AttributeError(f"no metric {name!r} here; computed: {list(self.__dict__['_results'])}") from None

    def __iter__(self):
        return iter(self._results.values())

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._results))

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={v.statistic:.6g}" for k, v in self._results.items())
        return f"ModelResults({self._label}: {inner})"


class LogBootstrap:
    """The result of :func:`clustered_bootstrap`.

    Attributes
    ----------
    a, b : ModelResults
        Per metric, a :class:`BootstrapResult` of model A (``y_score``) and B (``y_score_b``, else ``None``),
        e.g. ``res.a.roc_auc_score.confidence_interval()``.
    difference : ModelResults or None
        Per metric, the paired difference B - A on the same resamples, with its ``pvalue``.
    metrics : tuple of str
    n_boot, n_clusters : int
    """

    def __init__(self, a, b, difference, metrics, n_boot, n_clusters):
        self.a, self.b, self.difference = a, b, difference
        self.metrics = tuple(metrics)
        self.n_boot, self.n_clusters = int(n_boot), int(n_clusters)

    def table(self, level: float = 0.95, *, method: str | None = None):
        """One row per metric and model: statistic, standard error, interval and p-value.

        Parameters
        ----------
        level : float in (0, 1), default 0.95
        method : {"bca", "percentile"}, optional
            As in :meth:`BootstrapResult.confidence_interval` (by default BCa where it was computed).

        Returns
        -------
        pandas.DataFrame
            Columns ``metric, model, statistic, standard_error, low, high, pvalue``.
        """
        import pandas as pd

        rows = []
        for label, group in (("a", self.a), ("b", self.b), ("b - a", self.difference)):
            if group is None:
                continue
            for metric in self.metrics:
                r = getattr(group, metric)
                ci = r.confidence_interval(level, method=method)
                rows.append({"metric": metric, "model": label, "statistic": r.statistic,
                             "standard_error": r.standard_error, "low": ci.low, "high": ci.high, "pvalue": r.pvalue})
        return pd.DataFrame(rows)

    def __repr__(self) -> str:
        models = "a" if self.b is None else "a, b, b - a"
        return (f"LogBootstrap({', '.join(self.metrics)} of {models}; {self.n_boot} resamples of "
                f"{self.n_clusters:,} clusters)")


# -- the public entry --------------------------------------------------------------------------------
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
    probs = any(m in _PROB_METRICS for m in metrics)

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
    if len(per_model) == 2 and n * n_boot >= THREADED_WORK:  # the two models' jackknives side by side
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(2) as pool:
            jack = list(pool.map(lambda eng: eng.jackknife(), per_model))
    else:
        jack = [eng.jackknife() for eng in per_model]
    return assemble(stat, reps, jack, metrics, n_boot, n_clusters)


def run_resamples(y, scores, w, g, n_clusters, metrics, eps, n_boot, *, keys=None, seed=None, gen=None):
    """The statistics, replicates and engines of every model: ``(stat, reps, engines)``.

    The cluster weights come from :func:`hashed_counts` of ``keys`` with ``seed``, else from ``gen`` as one
    stream, in blocks of at most :data:`RESAMPLE_BLOCK` resamples (and :data:`BLOCK_BYTES` of weights).  Each
    resample's values depend on its weights alone, every sum in a fixed order: the result does not depend on
    the block size.  Shared by :func:`clustered_bootstrap` and the exact Dask bootstrap.
    """
    from concurrent.futures import ThreadPoolExecutor

    int_top = integer_weights(w)
    sums = ClusterSums(y, w, g, n_clusters)
    dtype = np.int16 if int_top else np.float64
    big = len(y) * max(1, n_boot) >= THREADED_WORK
    # threads: the models' sorts and gathers (NumPy releases the GIL in them), their products side by side, and
    # the hashing of the next block's weights meanwhile; each value depends on its inputs alone (no shared sum)
    pool = ThreadPoolExecutor(3) if big else None
    try:
        if pool is not None and len(scores) == 2:
            engines = list(pool.map(lambda s: ModelEngine(y, s, w, g, n_clusters, sums, metrics, eps, int_top,
                                                          add_columns=False), scores))
            for eng in engines:
                eng.add_columns()
        else:
            engines = [ModelEngine(y, s, w, g, n_clusters, sums, metrics, eps, int_top) for s in scores]
        return _resample_blocks(engines, sums, dtype, metrics, n_boot, n_clusters, keys, seed, gen, pool)
    finally:
        if pool is not None:
            pool.shutdown()


def _resample_blocks(engines, sums, dtype, metrics, n_boot, n_clusters, keys, seed, gen, pool):

    def compute(W):
        T = sums.totals(W)
        if pool is None or len(engines) == 1:
            return [eng.values(W, T) for eng in engines]
        # the models side by side: one's NumPy steps (which release the GIL) beside the other's sparse products
        return list(pool.map(lambda eng: eng.values(W, T), engines))

    ones = np.ones((n_clusters, 1), dtype)
    stat = [{m: float(v[0]) for m, v in vals.items()} for vals in compute(ones)]
    reps = [{m: np.empty(n_boot) for m in metrics} for _ in engines]
    block = int(min(RESAMPLE_BLOCK, BLOCK_BYTES // max(1, n_clusters * np.dtype(dtype).itemsize)))
    block = max(1, min(n_boot, block - block % 16 if block >= 16 else block))  # 16s: the products' loops vectorize

    def weights(start):
        stop = min(n_boot, start + block)
        if seed is None:  # one stream, drawn in order
            return np.ascontiguousarray(poisson_counts(gen, (stop - start, n_clusters)).T, dtype=dtype)
        return hashed_counts(seed, np.arange(start, stop), keys).astype(dtype, copy=False)

    starts = list(range(0, n_boot, block))
    nxt = None
    for i, start in enumerate(starts):
        W = weights(start) if nxt is None else nxt.result()
        nxt = pool.submit(weights, starts[i + 1]) if pool is not None and i + 1 < len(starts) else None
        for out, vals in zip(reps, compute(W)):
            for m in metrics:
                out[m][start:start + W.shape[1]] = vals[m]
        del W
    return stat, reps, engines


#: Most ``n_boot x rows x models`` one clustered bootstrap may ask for (a few minutes on one core in memory:
#: about 1 ns each, with the hashed weights and the set-up; a bound on the work, checked before any starts).
MAX_RESAMPLED_ROWS = 10**10


def check_resampled_rows(n_boot, n_rows, n_models) -> None:
    """The named bound :data:`MAX_RESAMPLED_ROWS` on ``n_boot x rows x models``, before any work."""
    check_work(int(n_boot) * int(n_rows) * int(n_models), "n_boot", n_boot, limit=MAX_RESAMPLED_ROWS,
               what=f"row-resamples (n_boot x {int(n_rows):,} rows x {int(n_models)} model(s))",
               hint="pass a smaller `n_boot`, or bootstrap a sample of the clusters")


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


def assemble(stat, reps, jack, metrics, n_boot, n_clusters) -> LogBootstrap:
    """The :class:`LogBootstrap` of one or two models from their statistics, replicates and jackknife values.

    ``stat[i][m]`` is a float, ``reps[i][m]`` the replicates of model ``i``; ``jack`` is ``None`` when the
    jackknife over clusters was not computed: the acceleration is then ``nan`` and BCa is refused.
    """
    # warnings raised here, not in helpers: stacklevel 4 is the caller of clustered_bootstrap
    for i in range(len(stat)):
        undefined = [m for m in metrics if not np.isfinite(stat[i][m])]
        if undefined:
            warn_undefined(f"{', '.join(undefined)} of model {'ab'[i]} undefined on the data (one class present, no "
                           "click or no weight); the statistic and its resamples are nan", stacklevel=4)
    accel = {}
    for i in range(len(stat)):
        for m in metrics:
            j = None if jack is None else jack[i][m]
            bad = 0 if j is None else int(np.size(j) - np.isfinite(j).sum())
            if bad and np.isfinite(stat[i][m]):
                warn_undefined(f"{m} of model {'ab'[i]}: undefined without {bad} of {np.size(j)} clusters (a class "
                               "or every weight absent once the cluster is left out); those leave-one-cluster-out "
                               "values are left out of BCa's acceleration", stacklevel=4)
            accel[i, m] = float("nan") if j is None else jackknife_acceleration(j)
            if i == 1:
                accel["diff", m] = float("nan") if j is None else jackknife_acceleration(jack[1][m] - jack[0][m])

    def acc(i, m, diff=False):
        return accel["diff", m] if diff else accel[i, m]

    def results(i, label):
        return ModelResults(label, {
            m: BootstrapResult(stat[i][m], reps[i][m], acc(i, m), name=f"{m}, {label}",
                               n_clusters=n_clusters) for m in metrics})

    a = results(0, "a")
    b = diff = None
    if len(stat) == 2:
        b = results(1, "b")
        diff = ModelResults("b - a", {
            m: BootstrapResult(tied_difference(stat[1][m], stat[0][m]), tied_difference(reps[1][m], reps[0][m]),
                               acc(0, m, True), name=f"{m}, b - a", n_clusters=n_clusters, difference=True)
            for m in metrics})
    return LogBootstrap(a, b, diff, metrics, n_boot, n_clusters)


def check_metrics(metrics) -> tuple:
    """``metrics`` as a tuple of distinct names of :data:`METRICS` (one name or a sequence), in the order given."""
    if isinstance(metrics, str):
        metrics = (metrics,)
    else:
        try:
            metrics = tuple(metrics)
        except TypeError:  # None, a number: not a sequence of names
            raise ValueError(f"`metrics` must be a name or a sequence of names of {list(METRICS)}; "
                             f"got {metrics!r}") from None
    if not metrics:
        raise ValueError(f"`metrics` must name at least one of {list(METRICS)}; got none")
    for m in metrics:
        check_choice(m, "metrics", METRICS)
    return tuple(dict.fromkeys(metrics))
