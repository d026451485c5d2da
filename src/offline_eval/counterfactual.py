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
    scale_weights,
    warn_undefined,
)

__all__ = ["dr_estimate", "ips_estimate", "snips_estimate"]


def _weights(reward, target_pscore, logging_pscore, clip, **more):
    """The validated rewards, importance weights and extra arrays of one call."""
    check_aligned(reward=reward, target_pscore=target_pscore, logging_pscore=logging_pscore, **more)
    r = check_finite(as_1d(reward, "reward"), "reward")
    target = check_probability(target_pscore, "target_pscore")
    logging = check_probability(logging_pscore, "logging_pscore")
    extra = {k: check_finite(as_1d(v, k), k) for k, v in more.items()}
    check_consistent_length(reward=r, target_pscore=target, logging_pscore=logging, **extra)
    if (logging == 0).any():
        raise ValueError(f"`logging_pscore` must be > 0 on every logged row (a logged action had a chance to be "
                         f"logged); got {int((logging == 0).sum())} zero value(s)")
    w = target / logging
    if clip is not None:
        clip = check_real(clip, "clip", low=0, closed="neither")
        w = np.minimum(w, clip)
    return r, w, extra


def _mean_estimate(terms: np.ndarray, name: str) -> NormalEstimate:
    n = terms.size
    value = math.fsum(terms.tolist()) / n
    if n < 2:
        warn_undefined(f"{name}: one logged row gives no standard error; it is nan", stacklevel=4)
        return NormalEstimate(value, math.nan, name=name)
    sd = math.sqrt(math.fsum(((terms - value) ** 2).tolist()) / (n - 1))
    return NormalEstimate(value, sd / math.sqrt(n), name=name)


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
    return _mean_estimate(w * r, "ips")


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
    under- or overflows). O(n).

    Examples
    --------
    >>> round(snips_estimate([1, 1, 0, 0], [1, 0, 1, 0], [0.5] * 4).statistic, 12)  # (2 + 0) / (2 + 2)
    0.5
    """
    r, w, _ = _weights(reward, target_pscore, logging_pscore, clip)
    w = scale_weights(w)
    total = math.fsum(w.tolist())
    if total == 0.0:
        warn_undefined("snips: every importance weight is 0 (the target policy takes none of the logged "
                       "actions); the estimate is nan", stacklevel=3)
        return NormalEstimate(math.nan, math.nan, name="snips")
    value = math.fsum((w * r).tolist()) / total
    se = math.sqrt(math.fsum(((w * (r - value)) ** 2).tolist())) / total
    return NormalEstimate(value, se, name="snips")


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
    return _mean_estimate(extra["target_reward_hat"] + w * (r - extra["reward_hat"]), "dr")
