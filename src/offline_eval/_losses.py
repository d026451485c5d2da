"""The log loss's engine and the Bernoulli entropy, shared by :mod:`offline_eval.metrics`, :mod:`offline_eval.mergeable`,
:mod:`offline_eval.logboot` and :mod:`offline_eval.ondask` (a private module: the public functions are
``metrics.log_loss`` and ``metrics.rig_score``).

The clipping of the log loss has one default, :data:`LOG_LOSS_EPS`."""

from __future__ import annotations

import numpy as np

__all__ = ["LOG_LOSS_EPS", "entropy", "pointwise_log_loss"]

#: Default clipping of probabilities in the log loss and the RIG (:func:`offline_eval.metrics.log_loss`), the one
#: default of every function and accumulator with an ``eps``.
LOG_LOSS_EPS = 1e-15


def pointwise_log_loss(y: np.ndarray, p: np.ndarray, eps: float) -> np.ndarray:
    """``-log p`` where ``y == 1`` and ``-log(1 - p)`` elsewhere, with ``p`` clipped to ``[eps, 1 - eps]``.

    The clipping makes a confident wrong prediction cost ``-log(eps)``, not infinity; ``log1p`` keeps the
    precision of the small ``p`` of click data.
    """
    if eps > 0:
        p = np.clip(p, eps, 1.0 - eps)
    with np.errstate(divide="ignore"):
        return -np.where(y == 1, np.log(p), np.log1p(-p))


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
