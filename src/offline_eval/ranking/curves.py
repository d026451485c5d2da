"""The three ROC-like curves of rosset Section 3.2: correctly ranked pairs (Fig. 1), the AUC of every
cutoff of the response (Fig. 2) and the cumulative rank curve (Fig. 3)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._results import short_repr
from .._validation import warn_undefined
from ._pairs import average_ranks, check_pair, group_bounds, pair_counts

__all__ = ["CorrectPairsCurve", "CumulativeRankCurve", "CutoffAUC", "correct_pairs_curve", "cumulative_rank_curve",
           "cutoff_auc"]


# -- the three curves (Section 3.2) --------------------------------------------------------
class CorrectPairsCurve(NamedTuple):
    """Fig. 1: share of correctly ranked pairs per observation, by decreasing prediction."""

    rank: np.ndarray  # 1..n, position by decreasing prediction
    share: np.ndarray  # C_i / (n - 1)
    envelope: np.ndarray  # locally optimal share
    order: np.ndarray  # index of the observation at each rank

    def __repr__(self) -> str:
        return short_repr("CorrectPairsCurve", n_points=len(self[0]), fields=", ".join(self._fields))


def _max_prefix_by_threshold(y_seq: np.ndarray, allowed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct value t of ``y_seq``: max over allowed p of sum_{k<p} sign(y_seq[k] - t).

    Square-root decomposition over thresholds: within a block of about
    sqrt(n) consecutive distinct values only its members change sign, so the
    prefix sums are a fixed base plus a step function with one step per
    member; the maximum is taken per segment between members.
    O(n sqrt n) time, O(n) memory.
    """
    n = len(y_seq)
    vals = np.unique(y_seq)
    k = len(vals)
    block = max(int(np.sqrt(n)), 1)
    out = np.empty(k, dtype=np.float64)
    neg_inf = np.float64(-np.inf)
    for b0 in range(0, k, block):
        lo, hi = vals[b0], vals[min(b0 + block, k) - 1]
        base = np.where(y_seq < lo, -1.0, np.where(y_seq > hi, 1.0, 0.0))
        pref = np.concatenate(([0.0], np.cumsum(base)))
        pref[~allowed] = neg_inf
        members = np.flatnonzero((y_seq >= lo) & (y_seq <= hi))  # positions, increasing
        seg_max = np.maximum.reduceat(pref, np.concatenate(([0], members + 1)))
        thr = vals[b0 : b0 + block]
        steps = np.sign(y_seq[members][None, :] - thr[:, None])  # (thresholds, members)
        add = np.concatenate((np.zeros((len(thr), 1)), np.cumsum(steps, axis=1)), axis=1)
        out[b0 : b0 + block] = (seg_max[None, :] + add).max(axis=1)
    return vals, out


def correct_pairs_curve(y_true, y_pred) -> CorrectPairsCurve:
    """Fig. 1: percent of correctly ranked pairs involving each prediction.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 2

    Returns
    -------
    CorrectPairsCurve
        ``rank`` 1..n by decreasing prediction (ties by input order),
        ``share`` :math:`C_i/(n-1)` and ``envelope`` the locally optimal share
        at each rank, ``order`` the observation shown at each rank.

    Notes
    -----
    The mean of ``share`` (the area under the curve on a [0, 1] x-axis) is
    :math:`\\tilde\\tau`; the area above it is :math:`2T/(n(n-1))`.  The
    envelope is the best share observation i could reach if its prediction
    alone were moved anywhere, the others kept:
    :math:`\\max_p \\#\\{j \\text{ above } p: y_j > y_i\\} + \\#\\{j \\text{ below } p: y_j < y_i\\}`
    (plus one half per partner tied in truth), over the gaps p between the
    other predictions (between tied groups when predictions tie).  O(n log n)
    for the share, O(n^1.5) for the envelope.

    Examples
    --------
    >>> c = correct_pairs_curve([1, 3, 2], [1, 2, 3])
    >>> c.share.tolist(), c.envelope.tolist()
    ([0.5, 0.5, 1.0], [1.0, 1.0, 1.0])
    """
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        raise ValueError(f"`y_true` must have at least 2 observations for pairs; got {n}")
    c = pair_counts(y, m)
    C = (c.concordant + 0.5 * c.tied).astype(np.float64)
    order = np.argsort(-m, kind="stable")
    y_seq, m_seq = y[order], m[order]
    allowed = np.ones(n + 1, dtype=bool)
    allowed[1:-1] = m_seq[1:] != m_seq[:-1]
    vals, best = _max_prefix_by_threshold(y_seq, allowed)
    best_i = best[np.searchsorted(vals, y)]
    env = (c.ly + 0.5 * c.ey + best_i) / (n - 1.0)
    return CorrectPairsCurve(np.arange(1, n + 1), C[order] / (n - 1.0), env[order], order)


class CutoffAUC(NamedTuple):
    """Fig. 2: AUC of separating the top ``n_positive`` responses from the rest."""

    n_positive: np.ndarray  # i: size of the top class at each cutoff
    auc: np.ndarray  # AUC_i
    weight: np.ndarray  # i (n - i): pairs the cutoff separates
    x: np.ndarray  # right edge of each cutoff on the rescaled axis (cumulative weight share)

    def __repr__(self) -> str:
        return short_repr("CutoffAUC", n_points=len(self[0]), fields=", ".join(self._fields))


def cutoff_auc(y_true, y_pred) -> CutoffAUC:
    """Fig. 2: the AUC of every cutoff of the responses, on the axis rescaled by i (n - i).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)

    Returns
    -------
    CutoffAUC
        For every cutoff between distinct responses (``n - 1`` cutoffs
        without ties), from the top: the size ``i`` of class 1
        (:math:`c^{(i)}(y_j) = 1` iff :math:`y_j` is among the ``i`` largest),
        :math:`AUC_i` (ties in prediction count one half), the weight
        :math:`i(n-i)` and the right edge ``x`` of the cutoff on the rescaled
        axis, :math:`\\sum_{k \\le i} k(n-k) / \\sum_k k(n-k)`.

    Notes
    -----
    A pair is separated by exactly as many cutoffs as its distance in truth
    rank, so without ties :math:`\\sum_i (1 - AUC_i)\\, i(n-i) = R` and the
    area :math:`\\sum_i AUC_i \\Delta x_i = \\tilde\\rho` (Section 3.2).  The
    paper prints the cutoffs as :math:`1 < i < n`; the identity needs all
    :math:`n - 1` of them, :math:`1 \\le i \\le n - 1`, as its own text says
    ("n - 1 classification results").

    Moving the cutoff past one observation removes its pairs with the
    responses above it and adds those with the responses below, so all
    cutoffs come from the per-observation counts of one O(n log n) pass.

    Examples
    --------
    >>> r = cutoff_auc([1, 3, 2], [1, 2, 3])
    >>> r.n_positive.tolist(), r.auc.tolist(), r.weight.tolist()
    ([1, 2], [0.5, 1.0], [2, 2])
    """
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 2:
        raise ValueError(f"`y_true` must have at least 2 observations for a cutoff; got {n}")
    c = pair_counts(y, m)
    up_left = c.gy - c.B - c.e_m_ygt  # higher truth, lower prediction
    low_right = c.ly - c.A - c.e_m_ylt  # lower truth, higher prediction
    delta = (low_right + 0.5 * c.e_m_ylt) - (up_left + 0.5 * c.e_m_ygt)
    order = np.argsort(-y, kind="stable")
    wrong = np.cumsum(np.asarray(delta, dtype=np.float64)[order])
    ys = y[order]
    ends = np.flatnonzero(ys[1:] != ys[:-1])  # last index of each group but the last
    i = (ends + 1).astype(np.int64)
    weight = i * (n - i)
    if len(i) == 0:
        warn_undefined("`y_true` is constant: no cutoff separates it")
        empty = np.zeros(0)
        return CutoffAUC(i, empty, weight, empty)
    auc = 1.0 - wrong[ends] / weight
    total = weight.sum()
    return CutoffAUC(i, auc, weight, np.cumsum(weight) / total)


class CumulativeRankCurve(NamedTuple):
    """Fig. 3: cumulative inverse rank of the truth by decreasing prediction (shares of the total)."""

    x: np.ndarray  # i / n, i = 0..n
    model: np.ndarray  # p_i / p_n
    optimal: np.ndarray
    worst: np.ndarray

    def __repr__(self) -> str:
        return short_repr("CumulativeRankCurve", n_points=len(self[0]), fields=", ".join(self._fields))


def cumulative_rank_curve(y_true, y_pred) -> CumulativeRankCurve:
    """Fig. 3: the lift-like curve of the cumulative inverse rank of the truth.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Responses and predictions (finite).

    Returns
    -------
    CumulativeRankCurve
        At ``x = i / n`` (``i = 0..n``), with observations in decreasing
        prediction: ``model`` :math:`p_i = \\sum_{j \\le i} (n - s_j + 1)`, the
        ``optimal`` :math:`\\sum_{j \\le i} (n - j + 1)` and the ``worst``
        :math:`\\sum_{j \\le i} j`, each divided by :math:`n(n+1)/2`.

    Notes
    -----
    :math:`n - s_j + 1` is the ascending rank of :math:`y_j`; with ties,
    average ranks, and predictions tied with each other share their mean (the
    curve is linear across a tied group).  The paper gives the area as
    :math:`\\sum_i (n-i)(n-s_i)` "equal to :math:`n^3 - n^2 - n - R + \\sum_i i^2`";
    the sum actually equals :math:`\\sum_i i^2 - R - n^2` (the printed form is
    :math:`n^3 - n` too large), and the area under the plotted points
    :math:`\\sum_{i=1}^n p_i` is :math:`\\sum_i i^2 - R` (tests pin both).

    Examples
    --------
    >>> c = cumulative_rank_curve([1, 3, 2], [1, 2, 3])
    >>> (c.model * 6).round(6).tolist(), (c.optimal * 6).round(6).tolist()
    ([0.0, 2.0, 5.0, 6.0], [0.0, 3.0, 5.0, 6.0])
    """
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    inv_rank = average_ranks(y)
    order = np.argsort(-m, kind="stable")
    v = inv_rank[order]
    ms = m[order]
    first, end = group_bounds([ms])
    if (end - first > 1).any():  # tied predictions share the mean inverse rank of their group
        cs = np.concatenate(([0.0], np.cumsum(v)))
        v = (cs[end] - cs[first]) / (end - first)
    total = n * (n + 1) / 2.0
    j = np.arange(1, n + 1, dtype=np.float64)
    zero = np.zeros(1)
    return CumulativeRankCurve(
        np.arange(n + 1) / n,
        np.concatenate((zero, np.cumsum(v))) / total,
        np.concatenate((zero, np.cumsum(n - j + 1))) / total,
        np.concatenate((zero, np.cumsum(j))) / total,
    )


