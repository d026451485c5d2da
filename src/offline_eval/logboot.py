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

and both :math:`D = M w_b` and :math:`V = P w_b` are products of a sparse matrix built once (the rows'
weights by slot, or run, and cluster) with the vector :math:`w_b` of cluster weights: each resample
costs two sparse products over the n rows, a cumulative sum over the runs, and no sort.  Ties count one
half, as in :func:`offline_eval.metrics.roc_auc_score`; the value of every resample equals that
function's with the resample's row weights (up to the order of float sums; exactly, with integer weights).

**Intervals.**  Percentile, and BCa [1]_ (Efron's bias-corrected and accelerated interval) with the bias
correction :math:`z_0 = \\Phi^{-1}(\\#\\{\\theta^*_b < \\hat\\theta\\} / B)` (a replicate within
:data:`TIE_RTOL` of :math:`\\hat\\theta` counting one half) and the acceleration from the jackknife over
clusters (leave one cluster out; exact in O(n log n) for the AUC too).

**Memory.**  Resamples are processed in blocks of at most :data:`BLOCK_ELEMENTS` cells of their largest
array; the results do not depend on the block size (the Poisson draws are one stream).

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
from scipy import sparse
from scipy.special import ndtr, ndtri

from ._bootstrap import check_boot
from ._losses import pointwise_log_loss
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
    check_sample_weight,
    check_work,
    scale_weights,
    warn_undefined,
)
from .metrics import LOG_LOSS_EPS

__all__ = ["METRICS", "BootstrapResult", "ConfidenceInterval", "LogBootstrap", "ModelResults",
           "clustered_bootstrap"]

#: The metrics :func:`clustered_bootstrap` computes, by the name of the function of
#: :mod:`offline_eval.metrics` whose value each resample reproduces.
METRICS = ("roc_auc_score", "log_loss", "rig_score", "calibration_ratio")

#: At most this many float64 cells in the largest array of one block of resamples (32 MiB).
BLOCK_ELEMENTS = 1 << 22

#: A replicate within this relative distance of the statistic counts as tied with it in BCa's bias
#: correction: sums in another order can move a replicate equal to the statistic by a few ulps.
TIE_RTOL = 1e-12

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
        self.pvalue = _pvalue_zero(replicates) if difference else float("nan")

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
            q = _bca_quantiles(r, self.statistic, self.acceleration, alpha)
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
    Complexity: O(n log n) once (a sort per model), then O(n + G) per resample of G clusters; the work
    ``n_boot x rows x models`` is bounded by :data:`MAX_RESAMPLED_ROWS` (checked before any work; about a
    minute on one core).  A metric is computed from the two classes' weights summed apart (never a total
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
    w = check_sample_weight(sample_weight, n)
    if w is not None and not w.any():
        raise ValueError("`sample_weight` must not be all zero; got a total weight of 0")
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
    sums = _ClusterSums(y, ww, g, n_clusters)
    per_model = [_ModelEngine(y, s, ww, g, n_clusters, sums, metrics, eps) for s in scores]

    # the statistic: one resample with every cluster weight 1
    ones = np.ones((1, n_clusters))
    stat = [eng.values(ones) for eng in per_model]
    reps = [{m: np.empty(n_boot) for m in metrics} for _ in per_model]
    width = max([n_clusters] + [eng.width for eng in per_model])
    block = max(1, min(n_boot, BLOCK_ELEMENTS // max(width, 1)))
    for start in range(0, n_boot, block):
        stop = min(n_boot, start + block)
        if seed is None:
            W = poisson_weights(gen, (stop - start, n_clusters))
        else:
            W = hashed_poisson_weights(seed, np.arange(start, stop), keys)
        for eng, out in zip(per_model, reps):
            for m, v in eng.values(W).items():
                out[m][start:stop] = v
    jack = [eng.jackknife() for eng in per_model]
    return assemble([{m: v[0] for m, v in s.items()} for s in stat], reps, jack, metrics, n_boot, n_clusters)


#: Most ``n_boot x rows x models`` one clustered bootstrap may ask for (about a minute on one core in
#: memory; a bound on the work, checked before any starts).
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
            accel[i, m] = float("nan") if j is None else _acceleration(j)
            if i == 1:
                accel["diff", m] = float("nan") if j is None else _acceleration(jack[1][m] - jack[0][m])

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
            m: BootstrapResult(_difference(stat[1][m], stat[0][m]), _difference(reps[1][m], reps[0][m]),
                               acc(0, m, True), name=f"{m}, b - a", n_clusters=n_clusters, difference=True)
            for m in metrics})
    return LogBootstrap(a, b, diff, metrics, n_boot, n_clusters)


def check_metrics(metrics) -> tuple:
    """``metrics`` as a tuple of distinct names of :data:`METRICS` (one name or a sequence), in the order given."""
    metrics = (metrics,) if isinstance(metrics, str) else tuple(metrics)
    if not metrics:
        raise ValueError(f"`metrics` must name at least one of {list(METRICS)}; got none")
    for m in metrics:
        check_choice(m, "metrics", METRICS)
    return tuple(dict.fromkeys(metrics))


def _poisson_thresholds() -> np.ndarray:
    """``round(2^32 F(k))`` for the Poisson(1) CDF ``F``, in exact decimal arithmetic (no libm), below 2^32."""
    from decimal import Decimal, getcontext

    getcontext().prec = 50
    out, term, cdf, k = [], Decimal(-1).exp(), Decimal(0), 0
    while True:
        cdf += term
        t = int((cdf * 2**32).to_integral_value())
        if t >= 2**32:
            return np.array(out, dtype=np.uint32)
        out.append(t)
        k += 1
        term /= k


_POISSON_T = _poisson_thresholds()


def _poisson_table() -> np.ndarray:
    """``#{k : t_k <= u}`` for every ``u`` with the top 16 bits ``h``, where one count holds for the whole
    range ``[h 2^16, (h + 1) 2^16)``; 255 where a threshold falls inside it (at most one range per threshold)."""
    low = np.arange(1 << 16, dtype=np.uint64) << np.uint64(16)
    t = _POISSON_T.astype(np.uint64)
    k_low = np.searchsorted(t, low, side="right")
    k_high = np.searchsorted(t, low + np.uint64(0xFFFF), side="right")
    return np.where(k_low == k_high, k_low, 255).astype(np.uint8)


_POISSON_TABLE = _poisson_table()


def _poisson_of_uniform(u: np.ndarray) -> np.ndarray:
    """``#{k : u >= round(2^32 F(k))}`` of 32-bit uniforms, as float64: a table of the top 16 bits, and a
    binary search for the few ``u`` (about 13 in 65,536) whose 2^16-wide range holds a threshold.  Equal to
    counting the thresholds one by one, in two passes instead of one per threshold."""
    k = _POISSON_TABLE[u >> np.uint32(16)]
    odd = k == 255
    if odd.any():
        k[odd] = np.searchsorted(_POISSON_T, u[odd], side="right")
    return k.astype(np.float64)


def poisson_weights(gen: np.random.Generator, shape) -> np.ndarray:
    """Poisson(1) weights as float64, by inversion of one 32-bit uniform each.

    ``W = #{k : U >= round(2^32 F(k))}`` with ``U`` uniform on 0..2^32 - 1: each probability is
    Poisson(1)'s to within 2^-32, the thresholds are exact integers (the same weights on every machine),
    and it is several times faster than ``Generator.poisson``.  Drawn in C order from one stream, so
    blocks of rows drawn in turn equal one draw of all of them.

    Parameters
    ----------
    gen : numpy.random.Generator
    shape : tuple of int
    """
    return _poisson_of_uniform(gen.integers(0, 2**32, size=shape, dtype=np.uint32))


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix64(z: np.ndarray, *, inplace: bool = False) -> np.ndarray:
    """splitmix64's output function (Stafford's mix 13), elementwise on uint64: a bijection with full avalanche.

    ``inplace``: ``z`` is the caller's scratch array and is overwritten (one temporary instead of five)."""
    if not inplace:
        z = np.array(z, dtype=np.uint64)
    t = np.empty_like(z)
    with np.errstate(over="ignore"):
        for shift, mult in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
            np.right_shift(z, np.uint64(shift), out=t)
            np.bitwise_xor(z, t, out=z)
            np.multiply(z, np.uint64(mult), out=z)
        np.right_shift(z, np.uint64(31), out=t)
        np.bitwise_xor(z, t, out=z)
    return z


def draw_seed(gen: np.random.Generator) -> int:
    """The 64-bit seed of :func:`hashed_poisson_weights`: one uint64 drawn from ``gen``."""
    return int(gen.integers(0, 2**64, dtype=np.uint64))


def cluster_keys(labels, name: str = "groups") -> np.ndarray:
    """The 64-bit key of each cluster label, as uint64: an integer is its own value (two's complement), a
    string the first 8 bytes (little-endian) of the BLAKE2b digest of its UTF-8 bytes.

    The key depends on the label alone (not on the other labels, their order or the machine), so every
    partition of a log computes the same key for the same cluster.  Two strings share a key with probability
    about ``G**2 / 2**65`` for ``G`` distinct strings; they then share their weights (and stay two clusters).

    Parameters
    ----------
    labels : array-like of shape (G,)
        Integers (or bools), or strings: not a mix, and not floats.
    name : str
        The argument named in errors.
    """
    import hashlib

    arr = np.asarray(labels)
    if arr.dtype.kind in "iub":
        return arr.astype(np.int64).view(np.uint64) if arr.dtype.kind != "u" else arr.astype(np.uint64)
    values = arr.tolist()
    if arr.dtype.kind in "UO" and all(isinstance(v, str) for v in values):
        return np.array([int.from_bytes(hashlib.blake2b(v.encode("utf-8"), digest_size=8).digest(), "little")
                         for v in values], dtype=np.uint64)
    if arr.dtype.kind == "O" and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values):
        return np.array([v % 2**64 for v in values], dtype=np.uint64)
    raise InputTypeError(f"`{name}` must hold integers or strings for hashed Poisson weights; got dtype "
                         f"{arr.dtype} (e.g. {values[:3]!r})")


def hashed_poisson_weights(seed: int, resamples, keys, *, by_cluster: bool = False) -> np.ndarray:
    """Poisson(1) weights of the clusters ``keys`` in the resamples ``resamples``, counter-based.

    The weight of cluster key ``g`` in resample ``b`` is ``#{k : U >= round(2^32 F(k))}``, the inversion of
    :func:`poisson_weights`, with the 32-bit uniform ``U`` the top half of

    ``mix(mix(g XOR mix(seed)) XOR mix(mix(seed) + (b + 1) * 0x9E3779B97F4A7C15))``

    (``mix`` splitmix64's output function, arithmetic mod 2^64).  It depends on ``(seed, b, g)`` alone, so the
    partitions of a log need no communication: a cluster split over partitions gets one weight, the same
    whatever the partitioning or the order of the rows, on any machine (integer arithmetic only).

    Parameters
    ----------
    seed : int in [0, 2^64)
    resamples : array-like of int, shape (B,)
        Resample numbers ``b``.
    keys : uint64 array of shape (G,)
        Cluster keys (:func:`cluster_keys`).
    by_cluster : bool, default False
        Return the transpose, shape (G, B), in C order (the same weights).

    Returns
    -------
    ndarray of float64, shape (B, G) (or (G, B))

    Examples
    --------
    >>> w = hashed_poisson_weights(7, np.arange(3), np.array([10, 11], dtype=np.uint64))
    >>> w.shape, bool((hashed_poisson_weights(7, [1], np.array([11], dtype=np.uint64)) == w[1:2, 1:]).all())
    ((3, 2), True)
    """
    s = _mix64(np.array([seed], dtype=np.uint64))
    kk = _mix64(np.asarray(keys, dtype=np.uint64) ^ s)
    with np.errstate(over="ignore"):
        bb = _mix64(s + (np.asarray(resamples, dtype=np.uint64) + np.uint64(1)) * _GOLDEN)
    x = kk[:, None] ^ bb[None, :] if by_cluster else bb[:, None] ^ kk[None, :]
    u = (_mix64(x, inplace=True) >> np.uint64(32)).astype(np.uint32)
    return _poisson_of_uniform(u)


# -- engines -------------------------------------------------------------------------------------------
class _ClusterSums:
    """Per-cluster weight and clicks, shared by the models."""

    def __init__(self, y, w, g, n_clusters):
        self.g, self.n_clusters = g, n_clusters
        self.w = np.bincount(g, weights=w, minlength=n_clusters)
        self.wy = np.bincount(g, weights=w * y, minlength=n_clusters)
        # the negatives' weight summed directly, never as w - wy: a difference of totals loses the small class
        self.wn = np.bincount(g, weights=w * (1.0 - y), minlength=n_clusters)


class _ModelEngine:
    """Everything one model needs to give its metrics for any matrix of cluster weights."""

    def __init__(self, y, s, w, g, n_clusters, sums, metrics, eps):
        self.metrics, self.sums, self.n_clusters = metrics, sums, n_clusters
        self.y, self.s, self.w, self.g = y, s, w, g
        cols = [sums.w, sums.wy, sums.wn]
        if "log_loss" in metrics or "rig_score" in metrics:
            cols.append(np.bincount(g, weights=w * pointwise_log_loss(y, s, eps), minlength=n_clusters))
        else:
            cols.append(np.zeros(n_clusters))
        if "calibration_ratio" in metrics:
            cols.append(np.bincount(g, weights=w * s, minlength=n_clusters))
        else:
            cols.append(np.zeros(n_clusters))
        self.S = np.column_stack(cols)  # (G, 5): w, wy, wn, wloss, wp
        self.width = 0
        if "roc_auc_score" in metrics:
            self._auc_setup()

    # the AUC as a sparse product (module notes)
    def _auc_setup(self):
        y, s, w, g = self.y, self.s, self.w, self.g
        if 2 * y.sum() > len(y):  # the smaller class indexes the slots; AUC(y, s) = AUC(1 - y, -s)
            y, s = 1.0 - y, -s
        o = np.argsort(s, kind="stable")  # stable: every later sum in one order on any machine
        so, small, go, wo = s[o], y[o] == 1, g[o], w[o]
        first, end = _runs(so)
        # the positives' runs of equal scores k = 0..K-1; a larger-class row scoring between runs k - 1 and k
        # sits at slot 2k (outscored by Suf_k), one tied with run k at slot 2k + 1 (Suf_{k+1} + V_k / 2)
        run = np.cumsum(np.r_[True, so[1:] != so[:-1]]) - 1  # run of equal scores of each sorted row
        has_pos = np.bincount(run, weights=small) > 0
        pos_runs_before = np.concatenate(([0], np.cumsum(has_pos)))
        big = ~small
        slot = 2 * pos_runs_before[run[big]] + has_pos[run[big]]
        n_runs = int(pos_runs_before[-1])
        idx = np.int32 if self.n_clusters < 2**31 else np.int64
        self.M = sparse.csr_matrix((wo[big], go[big].astype(idx), np.searchsorted(slot, np.arange(2 * n_runs + 2))),
                                   shape=(2 * n_runs + 1, self.n_clusters))
        pr = pos_runs_before[run[small]]  # the run of each positive, nondecreasing
        self.P = sparse.csr_matrix((wo[small], go[small].astype(idx), np.searchsorted(pr, np.arange(n_runs + 1))),
                                   shape=(n_runs, self.n_clusters))
        self.width = 2 * n_runs + 1
        self._sorted = (so, small, go, wo, first, end)

    def _auc_numerator(self, W):
        num = np.empty(len(W))
        for b, wb in enumerate(W):
            V = self.P @ wb  # the positives' weight per run
            if not len(V):
                num[b] = 0.0
                continue
            suf = np.empty(len(V) + 1)  # Suf_k = sum_{l >= k} V_l, summed directly (never T - a prefix)
            suf[-1] = 0.0
            np.cumsum(V[::-1], out=suf[-2::-1])
            D = self.M @ wb  # the larger class's weight per slot
            De, Do = D[0::2], D[1::2]
            # sum_k De_k Suf_k + Do_k (Suf_{k+1} + V_k / 2): every term non-negative, nothing cancels
            # sums of products, not np.dot: a BLAS call per resample is slow on a busy machine (threads spin)
            num[b] = (De * suf).sum() + (Do * (suf[1:] + 0.5 * V)).sum()
        return num

    def values(self, W):
        T = W @ self.S  # (B, 4)
        return metrics_from_sums(self.metrics, *T.T, lambda: self._auc_numerator(W))

    # leave one cluster out, for BCa's acceleration
    def jackknife(self):
        # the sums without cluster g as the clusters before g plus those after it (no total less a part:
        # a class held by g alone leaves exactly 0, so the metric is undefined, not a leftover of rounding)
        G = self.S.shape[0]
        pre = np.zeros_like(self.S)
        np.cumsum(self.S[:-1], axis=0, out=pre[1:])
        suf = np.zeros_like(self.S)
        if G > 1:
            np.cumsum(self.S[:0:-1], axis=0, out=suf[G - 2::-1])
        T = pre + suf  # (G, 5)
        return metrics_from_sums(self.metrics, *T.T,
                                 lambda: _auc_leave_one_cluster_out(*self._sorted, self.n_clusters), clip_auc=False)


def metrics_from_sums(metrics, tw, twy, twn, tloss, twp, auc_numerator, *, clip_auc=True) -> dict:
    """Each metric from the summed weight, clicks, non-clicks, log loss and predictions of every resample (arrays).

    ``auc_numerator()`` gives the AUC's weighted count of correctly ordered pairs (ties one half); it is
    called only when the AUC is asked for.  A metric is ``nan`` where it is undefined (no weight, no click,
    one class): the weights of the two classes are summed apart (``twn`` is never ``tw - twy``), so a class
    is absent exactly when its sum is 0.  Shared by the in-memory and the one-pass
    (:mod:`offline_eval.ondask`) bootstraps.
    """
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        tw_ok = np.where(tw > 0, tw, np.nan)
        both = (twy > 0) & (twn > 0)
        for m in metrics:
            if m == "log_loss":
                out[m] = tloss / tw_ok
            elif m == "rig_score":
                g1, g0 = twy / tw_ok, twn / tw_ok  # the CTR and its complement, each from its own sum
                h = -(np.where(twy > 0, g1 * np.log(g1), 0.0) + np.where(twn > 0, g0 * np.log(g0), 0.0))
                out[m] = np.where(both, 1.0 - (tloss / tw_ok) / np.where(both, h, 1.0), np.nan)
            elif m == "calibration_ratio":
                out[m] = np.where(twy > 0, twp / np.where(twy > 0, twy, 1.0), np.nan)
            elif m == "roc_auc_score":
                den = twy * twn
                ratio = auc_numerator() / np.where(den > 0, den, 1.0)
                out[m] = np.where(den > 0, np.clip(ratio, 0.0, 1.0) if clip_auc else ratio, np.nan)
    return out


def _runs(x):
    """For each position of the sorted ``x``: the first index of its run of equal values and the run's end."""
    n = len(x)
    new = np.r_[True, x[1:] != x[:-1]]
    first = np.maximum.accumulate(np.where(new, np.arange(n), 0))
    starts = np.flatnonzero(new)
    end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))
    return first, end


def _stable_order(keys, n_keys):
    """``np.argsort(keys, kind="stable")`` for integer keys in ``[0, n_keys)``, by radix passes of 16 bits
    (numpy's stable sort is a radix sort for 16-bit integers, a merge sort above)."""
    if n_keys <= 1 << 16:
        return np.argsort(keys.astype(np.uint16), kind="stable")
    order = np.arange(len(keys))
    shift = 0
    while (n_keys - 1) >> shift:
        digit = ((keys[order] >> shift) & 0xFFFF).astype(np.uint16)
        order = order[np.argsort(digit, kind="stable")]
        shift += 16
    return order


def _auc_leave_one_cluster_out(so, small, go, wo, run_first, run_end, G):
    """The AUC numerator without each cluster, from the rows sorted by score (runs of equal scores given).

    ``num_(-g) = num - (pairs with the positive in g) - (pairs with the negative in g) + (pairs with both in g)``,
    a pair weighing ``w_i w_j`` (one half when tied); ``small`` marks the positives.
    """
    big = ~small
    cn = np.concatenate(([0.0], np.cumsum(wo * big)))
    cpw = np.concatenate(([0.0], np.cumsum(wo * small)))
    nb = cn[run_first] + 0.5 * (cn[run_end] - cn[run_first])  # negatives below, ties one half
    pa = cpw[-1] - cpw[run_end] + 0.5 * (cpw[run_end] - cpw[run_first])  # positives above, ties one half
    num = float(np.sum(wo[small] * nb[small]))
    by_pos = np.bincount(go[small], weights=wo[small] * nb[small], minlength=G)
    by_neg = np.bincount(go[big], weights=wo[big] * pa[big], minlength=G)
    # pairs inside each cluster: the same runs within the rows ordered by (cluster, score)
    o = _stable_order(go, G)
    g2, s2, w2, small2 = go[o], so[o], wo[o], small[o]
    n = len(o)
    idx = np.arange(n)
    new_g = np.r_[True, g2[1:] != g2[:-1]]
    new_run = new_g | np.r_[True, s2[1:] != s2[:-1]]
    g_first = np.maximum.accumulate(np.where(new_g, idx, 0))
    first = np.maximum.accumulate(np.where(new_run, idx, 0))
    starts = np.flatnonzero(new_run)
    end = np.repeat(np.append(starts[1:], n), np.diff(np.append(starts, n)))
    cn2 = np.concatenate(([0.0], np.cumsum(w2 * ~small2)))
    inside = cn2[first] - cn2[g_first] + 0.5 * (cn2[end] - cn2[first])
    within = np.bincount(g2[small2], weights=w2[small2] * inside[small2], minlength=G)
    return num - by_pos - by_neg + within


# -- intervals and p-values ------------------------------------------------------------------------
def _acceleration(jack):
    """BCa's acceleration from the jackknife values (Efron & Tibshirani eq. 14.15); 0 when undefined."""
    j = jack[np.isfinite(jack)]
    if len(j) < 3:
        return 0.0
    d = j.mean() - j
    ss = float(np.sum(d * d))
    return float(np.sum(d**3) / (6.0 * ss**1.5)) if ss > 0 else 0.0


def _bca_quantiles(r, theta, acc, alpha):
    """BCa's two quantile levels (Efron & Tibshirani eq. 14.10), or ``None`` when the bias correction is infinite."""
    tol = TIE_RTOL * max(abs(theta), 1e-300)
    below = np.sum(r < theta - tol) + 0.5 * np.sum(np.abs(r - theta) <= tol)
    frac = below / len(r)
    if frac <= 0 or frac >= 1:
        return None
    z0 = float(ndtri(frac))
    z = ndtri(np.array([alpha, 1.0 - alpha]))
    return ndtr(z0 + (z0 + z) / (1.0 - acc * (z0 + z)))


def _difference(b, a):
    """``b - a``, exactly 0 where ``|b - a| <= TIE_RTOL * max(|a|, |b|)``: two metrics equal but for the order of
    their sums (a replicate of -2e-16) are equal, so that no p-value's side of 0 hinges on the last bits."""
    b, a = np.asarray(b, dtype=np.float64), np.asarray(a, dtype=np.float64)
    d = b - a
    with np.errstate(invalid="ignore"):
        tied = np.abs(d) <= TIE_RTOL * np.maximum(np.abs(a), np.abs(b))
    d = np.where(tied, 0.0, d)
    return float(d) if d.ndim == 0 else d


def _pvalue_zero(r):
    """Two-sided bootstrap p-value of 0: twice the smaller share of replicates on one side of 0, with +1 corrections.

    The smallest ``1 - level`` at which the percentile interval excludes 0, never below ``2 / (B + 1)``.
    """
    r = r[np.isfinite(r)]
    if len(r) == 0:
        return float("nan")
    k = min(int(np.sum(r <= 0)), int(np.sum(r >= 0)))
    return float(min(1.0, 2.0 * (k + 1) / (len(r) + 1)))
