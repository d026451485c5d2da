"""Counterfactual (off-policy) estimates of a new policy's online value from a randomised log.

The question the four papers answer with offline metrics -- how will a new model do in the A/B test? -- is
answered today, where the log allows it, by counterfactual estimators: a share of traffic is served by a
*logging policy* that randomises (each logged action :math:`a_i` taken with a known probability
:math:`\\pi_0(a_i \\mid x_i) > 0`, its *propensity*), and the value of a *target policy* :math:`\\pi` is
estimated from the rewards :math:`r_i` of those rows, re-weighted by
:math:`w_i = \\pi(a_i \\mid x_i) / \\pi_0(a_i \\mid x_i)`.

:func:`ips_estimate`
    inverse propensity scoring, :math:`\\hat V_{IPS} = \\frac1n \\sum_i w_i r_i` (unbiased when every action
    the target policy takes has a positive propensity);
:func:`snips_estimate`
    self-normalised IPS, :math:`\\hat V_{SNIPS} = \\sum_i w_i r_i / \\sum_i w_i` (biased, consistent, far
    smaller variance when the weights are large);
:func:`dr_estimate`
    doubly robust, :math:`\\hat V_{DR} = \\frac1n \\sum_i \\big[\\hat q_\\pi(x_i) + w_i (r_i - \\hat q(x_i, a_i))\\big]`
    with a reward model :math:`\\hat q` (unbiased when either the propensities or the reward model are right).

These are the estimators of Open Bandit Pipeline (``obp.ope.InverseProbabilityWeighting``,
``SelfNormalizedInverseProbabilityWeighting``, ``DoublyRobust``; Saito et al., 2021) in the one-slot
case, on plain arrays: the caller gives, per logged row, the target policy's probability of the logged
action (``target_pscore``), the logging policy's (``logging_pscore``) and, for DR, the reward model's
prediction for the logged action (``reward_hat``) and its expectation under the target policy
(``target_reward_hat`` :math:`= \\sum_a \\pi(a \\mid x_i)\\, \\hat q(x_i, a)`).  A ranking served whole is
one action (its propensity the probability of the whole ranking).

Each returns a :class:`~offline_eval._results.NormalEstimate`: ``.statistic``, ``.standard_error`` (the
sample standard deviation of the per-row terms over :math:`\\sqrt n`; the delta method for SNIPS) and
``.confidence_interval(level)``, the normal interval.

References
----------
.. [1] Horvitz, D. G. and Thompson, D. J. (1952). A generalization of sampling without replacement from a
   finite universe. JASA 47(260).
.. [2] Swaminathan, A. and Joachims, T. (2015). The self-normalized estimator for counterfactual learning.
   NeurIPS.
.. [3] Dudik, M., Langford, J. and Li, L. (2011). Doubly robust policy evaluation and learning. ICML.
.. [4] Saito, Y., Aihara, S., Matsutani, M. and Narita, Y. (2021). Open Bandit Dataset and Pipeline.
   NeurIPS Datasets and Benchmarks.
"""

from __future__ import annotations

import math

import numpy as np

from ._results import NormalEstimate
from ._validation import (
    as_1d,
    check_aligned,
    check_consistent_length,
    check_finite,
    check_probability,
    check_real,
    warn_undefined,
)

__all__ = ["dr_estimate", "ips_estimate", "snips_estimate"]


def _weights(reward, target_pscore, logging_pscore, clip, **more):
    """The validated rewards, importance weights (as mantissas and exponents) and extra arrays of one call.

    The weight :math:`w_i = \\pi / \\pi_0` is returned as ``(wm, we)`` with :math:`w_i = wm_i 2^{we_i}`,
    ``wm`` in [0.25, 1) (or 0): a propensity of 5e-324 gives a weight beyond float64's range, which this
    form holds exactly to rounding.
    """
    check_aligned(reward=reward, target_pscore=target_pscore, logging_pscore=logging_pscore, **more)
    r = check_finite(as_1d(reward, "reward"), "reward")
    target = check_probability(target_pscore, "target_pscore")
    logging = check_probability(logging_pscore, "logging_pscore")
    extra = {k: check_finite(as_1d(v, k), k) for k, v in more.items()}
    check_consistent_length(reward=r, target_pscore=target, logging_pscore=logging, **extra)
    if (logging == 0).any():
        raise ValueError(f"`logging_pscore` must be > 0 on every logged row (a logged action had a chance to be "
                         f"logged); got {int((logging == 0).sum())} zero value(s)")
    if clip is not None:
        clip = check_real(clip, "clip", low=0, closed="neither")
    mt, et = np.frexp(target)
    ml, el = np.frexp(logging)
    wm = (mt / ml) / 2.0  # in (0.25, 1): the quotient of two mantissas in [0.5, 1), halved (exact)
    we = np.where(wm > 0, et.astype(np.int64) - el.astype(np.int64) + 1, 0)
    if clip is not None:
        # w > clip, decided without forming w: wm > clip 2^-we (an overflow there means w < clip, 0 that w > clip)
        with np.errstate(over="ignore"):
            over = wm > np.ldexp(clip, np.clip(-we, -2000, 2000).astype(np.int32))
        cm, ce = np.frexp(clip)
        wm, we = np.where(over, cm, wm), np.where(over, int(ce), we)
    return r, (wm, we), extra


def _power_of_two_scale(*arrays) -> int:
    """An exponent ``e`` with every ``|x| 2^-e`` in [0, 1/4]: differences and sums of three such stay finite."""
    top = max((float(np.max(np.abs(x))) for x in arrays if x.size), default=0.0)
    return int(np.frexp(top)[1]) + 2 if top > 0 else 0


def _terms(w, r, r_hat=None, q_pi=None):
    """The per-row terms :math:`q_\\pi + w (r - \\hat q)` as ``(t, e)``, :math:`t 2^e` exactly to rounding.

    The scale is chosen so that the largest term is near 1: no term, square or sum over- or underflows
    wherever the result itself is a float (a power of two scales exactly).
    """
    wm, we = w
    k = _power_of_two_scale(*(x for x in (r, r_hat, q_pi) if x is not None))
    diff = np.ldexp(r, -k) - (0.0 if r_hat is None else np.ldexp(r_hat, -k))  # |.| <= 1/2
    dm, de = np.frexp(wm * diff)
    de = de.astype(np.int64) + we
    base = np.ldexp(q_pi, -k) if q_pi is not None else None
    qm, qe = np.frexp(base) if base is not None else (None, None)
    tops = [de[dm != 0]] + ([qe[qm != 0].astype(np.int64)] if base is not None else [])
    tops = [t for t in tops if t.size]
    e = int(max(int(t.max()) for t in tops)) if tops else 0
    t = np.ldexp(dm, np.clip(de - e, -2200, 0).astype(np.int32))
    if base is not None:
        t = t + np.ldexp(qm, np.clip(qe.astype(np.int64) - e, -2200, 0).astype(np.int32))
    return t, e + k


def _unscale(x: float, e: int, what: str) -> float:
    """``x 2^e``; a warning where it leaves float64's range (the estimate exists but no float holds it)."""
    with np.errstate(over="ignore"):
        v = float(np.ldexp(x, e)) if x != 0 else 0.0
    if not math.isfinite(v) and math.isfinite(x):
        warn_undefined(f"{what} is beyond float64's range (about {x:.6g} * 2**{e}); returning {v}")
    return v


def _mean_estimate(t: np.ndarray, e: int, name: str) -> NormalEstimate:
    """The mean of the terms ``t 2^e`` and its standard error: exact sums (fsum) of terms near 1."""
    n = t.size
    mean = math.fsum(t.tolist()) / n
    value = _unscale(mean, e, f"{name}: the estimate")
    if n < 2:
        warn_undefined(f"{name}: one logged row gives no standard error; it is nan")
        return NormalEstimate(value, math.nan, name=name)
    sd = math.sqrt(math.fsum(((t - mean) ** 2).tolist()) / (n - 1))
    return NormalEstimate(value, _unscale(sd / math.sqrt(n), e, f"{name}: the standard error"), name=name)


def ips_estimate(reward, target_pscore, logging_pscore, *, clip=None) -> NormalEstimate:
    """Inverse propensity scoring: the target policy's value as the mean of re-weighted logged rewards.

    Parameters
    ----------
    reward : array-like of shape (n,)
        The reward of each logged row (a click, a profit), finite.
    target_pscore : array-like of shape (n,)
        :math:`\\pi(a_i \\mid x_i)`, the target policy's probability of the logged action, in [0, 1]
        (1 or 0 for a deterministic policy: it would or would not have taken the logged action).
    logging_pscore : array-like of shape (n,)
        :math:`\\pi_0(a_i \\mid x_i)`, the logging policy's probability of the logged action, in (0, 1].
    clip : float > 0, optional
        Largest importance weight kept (``w = min(w, clip)``, OBP's ``lambda_``); biased, less variance.

    Returns
    -------
    NormalEstimate
        ``.statistic`` :math:`\\frac1n \\sum_i w_i r_i`; ``.standard_error`` the sample standard deviation of
        :math:`w_i r_i` over :math:`\\sqrt n` (``nan`` with an ``OfflineEvalWarning`` for one row).

    Notes
    -----
    :math:`w_i = \\pi(a_i \\mid x_i) / \\pi_0(a_i \\mid x_i)`.  Unbiased for the target policy's expected
    reward per row when :math:`\\pi_0 > 0` wherever :math:`\\pi > 0` and nothing is clipped.  O(n).

    Examples
    --------
    Two actions logged uniformly (propensity 1/2); the target policy always takes action 1, logged on rows
    0 and 2 with rewards 1 and 0: :math:`(2 \\cdot 1 + 0 + 2 \\cdot 0 + 0) / 4 = 0.5`.

    >>> round(ips_estimate([1, 1, 0, 0], [1, 0, 1, 0], [0.5] * 4).statistic, 12)
    0.5
    """
    r, w, _ = _weights(reward, target_pscore, logging_pscore, clip)
    return _mean_estimate(*_terms(w, r), "ips")


def snips_estimate(reward, target_pscore, logging_pscore, *, clip=None) -> NormalEstimate:
    """Self-normalised inverse propensity scoring: :math:`\\sum_i w_i r_i / \\sum_i w_i`.

    Parameters
    ----------
    reward : array-like of shape (n,)
        The reward of each logged row, finite.
    target_pscore : array-like of shape (n,)
        :math:`\\pi(a_i \\mid x_i)` in [0, 1].
    logging_pscore : array-like of shape (n,)
        :math:`\\pi_0(a_i \\mid x_i)` in (0, 1].
    clip : float > 0, optional
        Largest importance weight kept.

    Returns
    -------
    NormalEstimate
        ``.standard_error`` by the delta method,
        :math:`\\sqrt{\\sum_i w_i^2 (r_i - \\hat V)^2} / \\sum_i w_i`.  ``nan`` with an ``OfflineEvalWarning``
        when every weight is 0 (the target policy takes no logged action).

    Notes
    -----
    Invariant to the weights' scale (they are rescaled by a power of two before summing, so no weight
    under- or overflows, even for a propensity of 5e-324). Undefined (``nan`` with a warning): the estimate
    when every weight is 0, the standard error when fewer than two rows carry weight (n = 1 among them, as
    for IPS and DR). O(n).

    Examples
    --------
    >>> round(snips_estimate([1, 1, 0, 0], [1, 0, 1, 0], [0.5] * 4).statistic, 12)  # (2 + 0) / (2 + 2)
    0.5
    """
    r, (wm, we), _ = _weights(reward, target_pscore, logging_pscore, clip)
    live = wm > 0
    if not live.any():
        warn_undefined("snips: every importance weight is 0 (the target policy takes none of the logged "
                       "actions); the estimate is nan")
        return NormalEstimate(math.nan, math.nan, name="snips")
    # the weights scaled by one power of two (the largest in [0.25, 1)), the rewards by another (all <= 1/4):
    # the ratio and its standard error are the same at any weight scale, and nothing under- or overflows
    w = np.ldexp(wm, np.clip(we - int(we[live].max()), -2200, 0).astype(np.int32))
    k = _power_of_two_scale(r)
    rs = np.ldexp(r, -k)
    total = math.fsum(w.tolist())
    value = math.fsum((w * rs).tolist()) / total
    estimate = _unscale(value, k, "snips: the estimate")
    if int(np.count_nonzero(w)) < 2:
        warn_undefined("snips: fewer than two logged rows carry weight (the target policy takes the logged action "
                       "on at most one); the standard error is nan")
        return NormalEstimate(estimate, math.nan, name="snips")
    se = math.sqrt(math.fsum(((w * (rs - value)) ** 2).tolist())) / total
    return NormalEstimate(estimate, _unscale(se, k, "snips: the standard error"), name="snips")


def dr_estimate(reward, target_pscore, logging_pscore, reward_hat, target_reward_hat, *, clip=None) -> NormalEstimate:
    """Doubly robust: the reward model's value of the target policy, corrected by re-weighted residuals.

    Parameters
    ----------
    reward : array-like of shape (n,)
        The reward of each logged row, finite.
    target_pscore : array-like of shape (n,)
        :math:`\\pi(a_i \\mid x_i)` in [0, 1].
    logging_pscore : array-like of shape (n,)
        :math:`\\pi_0(a_i \\mid x_i)` in (0, 1].
    reward_hat : array-like of shape (n,)
        :math:`\\hat q(x_i, a_i)`, the reward model's prediction for the logged action.
    target_reward_hat : array-like of shape (n,)
        :math:`\\hat q_\\pi(x_i) = \\sum_a \\pi(a \\mid x_i)\\, \\hat q(x_i, a)`, the reward model's expected
        reward of the target policy's choice in context :math:`x_i`.
    clip : float > 0, optional
        Largest importance weight kept.

    Returns
    -------
    NormalEstimate
        ``.statistic`` the mean of :math:`d_i = \\hat q_\\pi(x_i) + w_i (r_i - \\hat q(x_i, a_i))`;
        ``.standard_error`` their sample standard deviation over :math:`\\sqrt n`.

    Notes
    -----
    Unbiased when the propensities are right, whatever the reward model; with a perfect reward model
    (:math:`\\hat q = E[r \\mid x, a]`) the correction has mean 0 and the variance is that of the model's
    value alone. With ``reward_hat = target_reward_hat = 0`` it is :func:`ips_estimate`. O(n).

    Examples
    --------
    A reward model that predicts 0.5 everywhere: :math:`0.5 + (2 (1 - 0.5) + 0 + 2 (0 - 0.5) + 0) / 4 = 0.5`.

    >>> round(dr_estimate([1, 1, 0, 0], [1, 0, 1, 0], [0.5] * 4, [0.5] * 4, [0.5] * 4).statistic, 12)
    0.5
    """
    r, w, extra = _weights(reward, target_pscore, logging_pscore, clip, reward_hat=reward_hat,
                           target_reward_hat=target_reward_hat)
    return _mean_estimate(*_terms(w, r, extra["reward_hat"], extra["target_reward_hat"]), "dr")
