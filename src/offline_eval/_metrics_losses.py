"""Calibration and loss metrics of predicted click probabilities behind :mod:`offline_eval.metrics` (yi Sections
2.2, 4.2-4.5): log loss, RIG, calibration ratio, prediction error and their per-quantile breakdown."""

from __future__ import annotations

import numpy as np

from ._classes import check_labels_1d, check_probability_matrix, encode_classes, ndim_of
from ._losses import LOG_LOSS_EPS, entropy, log_likelihood, pointwise_log_loss
from ._validation import (
    as_1d, asarray_named, check_aligned, check_binary, check_consistent_length, check_int, check_real, check_finite,
    floor_snapped, integer_weights, check_probability, check_row_weights, scale_weights, warn_undefined,
)

#: What a binary log loss's error says to do with more than two classes.
MULTICLASS_HINT = "for a multiclass log loss pass `y_prob` as the (n_samples, n_classes) probability matrix"


def _check_probs(y_true, y_prob, sample_weight, *, scale=True, pos_label=None, multiclass=None):
    check_aligned(y_true=y_true, y_prob=y_prob, sample_weight=sample_weight)
    y = check_binary(y_true, "y_true", pos_label=pos_label, multiclass=multiclass)
    p = check_probability(y_prob, "y_prob")
    check_consistent_length(y_true=y, y_prob=p)
    w = check_row_weights(sample_weight, len(y))
    return y, p, (scale_weights(w) if scale else w)


def weighted_mean(x, w):
    return float(np.mean(x)) if w is None else float(np.dot(w, x) / w.sum())


def log_loss(y_true, y_prob, *, sample_weight=None, eps=LOG_LOSS_EPS, pos_label=None, labels=None) -> float:
    """Mean log-loss (negative Bernoulli log-likelihood, or multinomial for a probability matrix), natural log.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Observed clicks: 0/1 or bool, or any two labels with ``pos_label``.  With a matrix ``y_prob``: any
        hashable class labels.
    y_prob : array-like of shape (n,) or (n, k)
        Predicted click probabilities (pClick, of the positive label), in [0, 1]; or a probability matrix,
        column ``j`` the probability of class ``j`` (the ``j``-th of the sorted classes, or of ``labels``), rows
        summing to 1 within scikit-learn's tolerance, ``sqrt(eps)`` of the input's float type relative (1.5e-8
        for float64); a matrix of other rows is refused, never normalised.
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (for example impression counts); not all zero.
    eps : float, default 1e-15
        Probabilities are clipped to ``[eps, 1 - eps]`` before taking logs, so
        a prediction of exactly 0 or 1 with the wrong label costs
        ``-log(eps)`` (34.5 nats) instead of infinity.  ``eps=0`` computes
        the unclipped loss, which is ``inf`` in that case.
    pos_label : str, int or bool, optional
        The label of the positives when ``y_true`` holds labels other than 0/1 (a 1-D ``y_prob``).
    labels : array-like of shape (k,), optional
        The classes of the columns of a matrix ``y_prob``, sorted (as scikit-learn's); needed when a class is
        absent from ``y_true``.  Default: the sorted distinct labels of ``y_true``.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        An invalid input, named: ``y_true`` with more than two classes and a 1-D ``y_prob`` (the error points to
        the matrix form), rows that do not sum to 1, labels not in ``labels``, an unsorted ``labels``, a
        ``labels`` of another length than ``y_prob``'s columns.

    Notes
    -----
    yi Section 2.2:

    .. math:: L(y|p) = -y \\log p - (1 - y) \\log(1 - p),

    averaged over the rows (weighted by ``sample_weight``).  For a probability matrix, the loss of row
    :math:`i` of class :math:`y_i` is :math:`-\\log p_{i, y_i}` (the probability given to its own class, clipped
    alike; with two columns, the binary loss).  Equal to ``sklearn.metrics.log_loss`` with the same clipping
    (scikit-learn clips at the float type's machine epsilon, and only warns where the rows do not sum to 1).

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Section 2.2.

    Examples
    --------
    One click predicted at 0.5 and one no-click predicted at 0.5 cost log 2 each:

    >>> round(log_loss([1, 0], [0.5, 0.5]), 6)
    0.693147
    >>> log_loss([1], [0.0], eps=0)
    inf

    Three classes: each row costs minus the log of the probability given to its own class,
    ``(-log 0.5 - log 0.25 - log 1) / 3 = log 8 / 3 = log 2``:

    >>> p = [[0.5, 0.25, 0.25], [0.5, 0.25, 0.25], [0.0, 0.0, 1.0]]
    >>> round(log_loss(["a", "b", "c"], p), 6)
    0.693147
    """
    if ndim_of(y_prob, "y_prob") == 2:
        return _matrix_log_loss(y_true, y_prob, sample_weight, eps, pos_label, labels)
    if labels is not None:
        raise ValueError("`labels` names the columns of a probability matrix `y_prob`; for a binary log loss of two "
                         "labels pass `pos_label`, the label of the positives")
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label, multiclass=MULTICLASS_HINT)
    return weighted_mean(pointwise_log_loss(y, p, check_real(eps, "eps", low=0, high=0.5, closed="left")), w)


def _matrix_log_loss(y_true, y_prob, sample_weight, eps, pos_label, labels) -> float:
    """:func:`log_loss` of a probability matrix: each row's ``-log p`` of its own class, through the one engine
    (``_losses.log_likelihood``, the same clipping as the binary loss)."""
    check_labels_1d(y_true, "y_true")
    if pos_label is not None:
        raise ValueError(f"`pos_label` is for a 1-D `y_prob`; the columns of a probability matrix are the classes "
                         f"of `labels`; got pos_label={pos_label!r}")
    check_aligned(y_true=y_true, y_prob=y_prob, sample_weight=sample_weight)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    given = asarray_named(y_prob, "y_prob").dtype
    # scikit-learn's tolerance: sqrt of the machine epsilon of the float type the probabilities came in
    rtol = float(np.sqrt(np.finfo(given if given.kind == "f" else np.float64).eps))
    p = check_probability_matrix(y_prob, "y_prob", rtol=rtol)
    codes, _ = encode_classes(y_true, p.shape[1], labels, score_name="y_prob")
    check_consistent_length(y_true=codes, y_prob=p)
    w = scale_weights(check_row_weights(sample_weight, len(codes)))
    own = p[np.arange(len(codes)), codes]
    return weighted_mean(-log_likelihood(own, True, eps), w)


def rig_score(y_true, y_prob, *, sample_weight=None, eps=LOG_LOSS_EPS, pos_label=None) -> float:
    """Relative information gain: 1 - log-loss / entropy of the data's CTR.

    Parameters
    ----------
    y_true, y_prob, sample_weight, eps, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        RIG (higher is better; 0 for the constant predictor ``p = CTR``, 1
        for a perfect one, negative for a model worse than the constant), or
        ``nan`` with an :class:`~offline_eval.OfflineEvalWarning` when the
        data hold only clicks or only no-clicks (zero entropy).

    Notes
    -----
    yi eq. (2), with :math:`\\gamma` the (weighted) CTR of the evaluation data:

    .. math::

        RIG = 1 - \\frac{\\overline{-c \\log p - (1 - c) \\log(1 - p)}}
                         {-\\gamma \\log \\gamma - (1 - \\gamma) \\log(1 - \\gamma)}

    The base of the logarithm cancels.  The numerator is :func:`log_loss`
    (same clipping ``eps``).

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Section 4.2, eq. (2).
    .. [2] T. Graepel et al., "Web-scale Bayesian click-through rate
       prediction for sponsored search advertising", ICML 2010.

    Examples
    --------
    Predicting the data's own CTR (0.25) for every row gains nothing:

    >>> rig_score([1, 0, 0, 0], [0.25] * 4)
    0.0
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    gamma = weighted_mean(y, w)
    # One class present is decided on the labels, not on the weighted mean: with weights, the mean of
    # all-ones labels can round to 0.9999999999999999, whose tiny entropy would give a huge negative RIG.
    present = y if w is None else y[w > 0]
    h = entropy(gamma) if present.min() != present.max() else 0.0
    if h == 0.0:
        warn_undefined(f"RIG is undefined when the data's CTR is {gamma:g} (zero entropy); returning nan")
        return float("nan")
    return float(1.0 - weighted_mean(pointwise_log_loss(y, p, eps), w) / h)


def calibration_ratio(y_true, y_prob, *, sample_weight=None, pos_label=None) -> float:
    """Average pClick over actual CTR (1 for a calibrated model).

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        The ratio, or ``nan`` with a warning when the data hold no click.

    Notes
    -----
    :math:`\\overline{p} / \\gamma`, the ratio yi print in Tables 2-4 and
    quote for Fig. 1 (1.02 for sponsored search, 0.86 for contextual ads).

    Examples
    --------
    >>> calibration_ratio([1, 0, 0, 0], [0.5, 0.1, 0.1, 0.3])
    1.0
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    return _ratio(weighted_mean(p, w), weighted_mean(y, w), "calibration ratio")


def prediction_error(y_true, y_prob, *, sample_weight=None, pos_label=None) -> float:
    """Prediction error: average pClick over actual CTR, minus one.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As in :func:`log_loss`.

    Returns
    -------
    float
        The relative error of the average prediction (0 for a model calibrated on average), or ``nan`` with a
        warning when the data hold no click.

    Notes
    -----
    yi Section 4.5: :math:`PE = \\overline{p} / \\gamma - 1`.  Zero for a
    model whose average prediction equals the CTR, even when individual
    predictions are poor (over- and under-estimates cancel).

    Examples
    --------
    >>> prediction_error([1, 0, 0, 0], [0.5, 0.25, 0.25, 0.5])
    0.5
    """
    y, p, w = _check_probs(y_true, y_prob, sample_weight, pos_label=pos_label)
    return _ratio(weighted_mean(p, w), weighted_mean(y, w), "prediction error") - 1.0


def _ratio(avg_p, gamma, what):
    if gamma == 0.0:
        warn_undefined(f"{what} is undefined when the data hold no click (CTR 0); returning nan", stacklevel=4)
        return float("nan")
    return float(avg_p / gamma)


def _equal_weight_bins(s, wsc, q):
    """The bins of :func:`quantile_breakdown` for equal weights, without sorting the scores.

    With equal weights the rows' weights in sorted order are ``wsc`` itself, so the bin of sorted position
    ``r`` is the same float expression of ``r`` alone, non-decreasing in ``r``.  A row's bin is that of the
    first row of its tie group, at position ``c`` = the number of rows with a lower score; so it holds bin
    ``k`` or higher when ``c >= m_k`` (``m_k`` the first position of bin ``k``), that is when its score
    exceeds the ``m_k``-th smallest score.  Those order statistics come from a partial sort.
    """
    n = len(s)
    cum_before = np.cumsum(wsc) - wsc
    bins_at = np.minimum(floor_snapped(q * cum_before / wsc.sum(), n, exact=True).astype(np.int64), q - 1)
    first = np.searchsorted(bins_at, np.arange(1, q), side="left")  # m_k for k = 1..q-1 (n: no such row)
    inner = (first > 0) & (first < n)
    thresholds = np.full(q - 1, np.inf)  # bin k >= 1 holds the rows with a score above thresholds[k - 1]
    if inner.any():
        thresholds[inner] = np.partition(s, np.unique(first[inner] - 1))[first[inner] - 1]
    thresholds[first == 0] = -np.inf
    return np.searchsorted(thresholds, s, side="left").astype(np.int64)


def quantile_breakdown(y_true, y_prob, *, n_quantiles=10, by=None, sample_weight=None, eps=LOG_LOSS_EPS,
                       pos_label=None):
    """The metrics of :func:`log_loss` & co. per quantile of predicted score.

    Parameters
    ----------
    y_true, y_prob : array-like of shape (n,)
        Clicks and predicted click probabilities.
    n_quantiles : int, default 10
        Number of equal-weight quantile bins of the score.
    by : array-like of shape (n,), optional
        The score that defines the quantiles (default ``y_prob``).  Pass the
        baseline's pClick to break two models down on the same rows (yi
        Figs. 3-4).
    sample_weight : array-like of shape (n,), optional
        Non-negative weights (not all zero).  Only their ratios matter: every column but ``weight`` and
        ``clicks`` (the totals as given) is the same for weights rescaled by a power of two, 5e-324 or 1e308.
    eps : float, default 1e-15
        Clipping of :func:`log_loss`.
    pos_label : str, int or bool, optional
        As in :func:`log_loss`.

    Returns
    -------
    pandas.DataFrame
        One row per non-empty bin, lowest scores first, with columns
        ``quantile`` (1-based), ``score_lo``, ``score_hi`` (range of ``by``
        in the bin), ``weight``, ``clicks``, ``ctr``, ``avg_pclick``,
        ``log_loss`` (mean in the bin), ``log_loss_share`` (the bin's share
        of the total summed log-loss; sums to 1), ``rig``, ``mse``, ``mae``,
        ``prediction_error``, ``calibration_ratio``.  Metrics undefined in a
        bin (no click, or only clicks) are ``nan``, with one warning.

    Notes
    -----
    Rows are sorted by ``by`` (stable) and row *i* goes to bin
    :math:`\\lfloor q \\cdot W_{<i} / W \\rfloor`, with :math:`W_{<i}` the
    weight before it.  **Tie rule:** rows with equal ``by`` all go to the
    bin of the first of them, so a bin never splits a tie (bins may then be
    unequal or empty; empty bins are left out).  Each bin's metrics are the
    functions of this module on the bin's rows; ``log_loss_share`` is
    :math:`\\sum_{i \\in bin} w_i L_i / \\sum_i w_i L_i` (yi Fig. 3).

    Examples
    --------
    >>> t = quantile_breakdown([0, 1, 0, 1], [0.1, 0.2, 0.6, 0.9], n_quantiles=2)
    >>> t[["quantile", "clicks", "ctr", "avg_pclick"]].to_dict("list")
    {'quantile': [1, 2], 'clicks': [1.0, 1.0], 'ctr': [0.5, 0.5], 'avg_pclick': [0.15000000000000002, 0.75]}
    """
    import pandas as pd

    # `weight` and `clicks` are reported as given; every ratio is computed from power-of-two-rescaled weights
    y, p, w = _check_probs(y_true, y_prob, sample_weight, scale=False, pos_label=pos_label)
    eps = check_real(eps, "eps", low=0, high=0.5, closed="left")
    check_int(n_quantiles, "n_quantiles", low=1)
    if n_quantiles > max(len(y), 1000):  # per-bin arrays: memory bounded by the data, not by the argument
        raise ValueError(f"`n_quantiles` must be at most max(rows, 1000) = {max(len(y), 1000)}; got {n_quantiles}")
    if by is None:
        s = p
    else:
        check_aligned(y_true=y_true, by=by)
        s = check_finite(as_1d(by, "by"), "by")
        check_consistent_length(y_true=y, by=s)
    wt = np.ones(len(y)) if w is None else w
    # The bins from power-of-two-rescaled weights (no overflow at 1e308, the same bits otherwise), and a
    # boundary that is an integer in exact arithmetic stays one at any weight scale (floor_snapped).
    wsc = scale_weights(wt)  # every total below from these: 5e-324 or 1e308 weights neither vanish nor overflow
    q = int(n_quantiles)
    if w is None and len(s) > 0:
        b = _equal_weight_bins(s, wsc, q)
    else:
        order = np.argsort(s, kind="stable")
        s_sorted = s[order]
        ws = wsc[order]
        cum_before = np.cumsum(ws) - ws
        bins_sorted = np.minimum(floor_snapped(q * cum_before / ws.sum(), len(ws), exact=integer_weights(w)).astype(np.int64),
                                 q - 1)
        # tie rule: a tie group takes the bin of its first row
        first_of_group = np.r_[0, np.flatnonzero(np.diff(s_sorted)) + 1]
        group_len = np.diff(np.r_[first_of_group, len(s_sorted)])
        bins_sorted = np.repeat(bins_sorted[first_of_group], group_len)
        b = np.empty(len(y), dtype=np.int64)
        b[order] = bins_sorted

    loss = pointwise_log_loss(y, p, eps)

    def total(x):
        return np.bincount(b, weights=wsc * x, minlength=q)

    wsum = np.bincount(b, weights=wsc, minlength=q)
    clicks = total(y.astype(np.float64))
    psum = total(p)
    lsum = total(loss)
    sqsum = total((y - p) ** 2)
    abssum = total(np.abs(y - p))
    lo = np.full(q, np.nan)
    hi = np.full(q, np.nan)
    held = wt > 0  # a row of weight 0 is as if dropped: it widens no bin's range
    np.fmin.at(lo, b[held], s[held])
    np.fmax.at(hi, b[held], s[held])
    keep = wsum > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ctr = clicks / wsum
        avg_p = psum / wsum
        ll = lsum / wsum
        # a bin with one class has zero entropy, whatever its weighted CTR rounds to (see rig_score)
        pos_rows = np.bincount(b, weights=((wt > 0) & (y == 1)).astype(np.float64), minlength=q)
        neg_rows = np.bincount(b, weights=((wt > 0) & (y == 0)).astype(np.float64), minlength=q)
        h = np.array([entropy(g) if a > 0 and z > 0 else 0.0 for g, a, z in zip(ctr, pos_rows, neg_rows)])
        rig_b = np.where(h > 0, 1.0 - ll / np.where(h > 0, h, 1.0), np.nan)
        # undefined where the CTR is 0, as calibration_ratio (a click of weight 1e-323 beside weights of 1 rounds it to 0)
        cal = np.where(ctr > 0, avg_p / np.where(ctr > 0, ctr, 1.0), np.nan)
        total_loss = lsum.sum()
        share = lsum / total_loss if total_loss > 0 else np.full(q, np.nan)
    out = pd.DataFrame(
        {
            "quantile": np.arange(1, q + 1),
            "score_lo": lo,
            "score_hi": hi,
            "weight": np.bincount(b, weights=wt, minlength=q),  # as given, not rescaled
            "clicks": np.bincount(b, weights=wt * y, minlength=q),
            "ctr": ctr,
            "avg_pclick": avg_p,
            "log_loss": ll,
            "log_loss_share": share,
            "rig": rig_b,
            "mse": sqsum / np.where(keep, wsum, 1.0),
            "mae": abssum / np.where(keep, wsum, 1.0),
            "prediction_error": cal - 1.0,
            "calibration_ratio": cal,
        }
    )[keep].reset_index(drop=True)
    if out["rig"].isna().any() or out["calibration_ratio"].isna().any():
        warn_undefined(
            f"{int(out['calibration_ratio'].isna().sum())} bin(s) hold no click and "
            f"{int(out['rig'].isna().sum())} bin(s) have zero entropy: their undefined metrics are nan"
        )
    return out
