"""The log loss's engine and the Bernoulli entropy, shared by :mod:`offline_eval.metrics`, :mod:`offline_eval.mergeable`,
:mod:`offline_eval.logboot` and :mod:`offline_eval.ondask` (a private module: the public functions are
``metrics.log_loss`` and ``metrics.rig_score``).

The log loss of a row is computed here and nowhere else (:func:`log_likelihood`, which every path calls: rows,
cells of one score, the sorted scores of one class), and its clipping has one default, :data:`LOG_LOSS_EPS`."""

from __future__ import annotations

import numpy as np

__all__ = ["LOG_LOSS_EPS", "entropy", "log_likelihood", "pointwise_log_loss"]

#: Default clipping of probabilities in the log loss and the RIG (:func:`offline_eval.metrics.log_loss`), the one
#: default of every function and accumulator with an ``eps``.
LOG_LOSS_EPS = 1e-15


def log_likelihood(p: np.ndarray, positive: bool, eps: float, *, where=None) -> np.ndarray:
    """``log p`` (``positive``: a click) or ``log(1 - p)`` of each probability, ``p`` clipped to ``[eps, 1 - eps]``
    when ``eps > 0``: the log loss of each row of one class, negated.

    The clipping makes a confident wrong prediction cost ``-log(eps)``, not infinity; ``log1p`` keeps the
    precision of the small ``p`` of click data.  ``where``: a mask; only there is the log taken (0 elsewhere), so
    that a ``p`` of 0 or 1 in a cell without rows of that class gives no infinity.
    """
    if eps > 0:
        p = np.clip(p, eps, 1.0 - eps)
    log = np.log if positive else (lambda x, **kw: np.log1p(np.negative(x), **kw))
    with np.errstate(divide="ignore"):
        return log(p) if where is None else log(p, where=where, out=np.zeros_like(p))


def pointwise_log_loss(y: np.ndarray, p: np.ndarray, eps: float) -> np.ndarray:
    """``-log p`` where ``y == 1`` and ``-log(1 - p)`` elsewhere, with ``p`` clipped to ``[eps, 1 - eps]``
    (:func:`log_likelihood` of each class)."""
    return -np.where(y == 1, log_likelihood(p, True, eps), log_likelihood(p, False, eps))


def entropies(gamma: np.ndarray) -> np.ndarray:
    """Bernoulli entropy (nats), elementwise; ``nan`` where it is 0 (at 0 and 1: a RIG is then undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -gamma * np.log(gamma) - (1.0 - gamma) * np.log1p(-gamma)
    return np.where((gamma > 0) & (gamma < 1), h, np.nan)


def entropy(gamma: float) -> float:
    """Entropy (nats) of a Bernoulli(``gamma``): 0 at 0 and 1."""
    if gamma <= 0.0 or gamma >= 1.0:
        return 0.0
    return float(-gamma * np.log(gamma) - (1.0 - gamma) * np.log1p(-gamma))
