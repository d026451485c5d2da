"""piovano Table II's real-data check: real classifiers on scikit-learn's handwritten digits.

Naive Bayes against logistic regression, trained on part of the images, the rest the live traffic, an offline set
drawn from it by (B, C) cell with a simulated bias (:func:`digits_experiment`); :mod:`.table2_digits` sweeps it.
"""

from __future__ import annotations

import numpy as np

from offline_eval.synth import check_rng
from offline_eval.adaptive import joint_distribution
from offline_eval.synth import classifiers as synth
from ._evaluation import evaluation_table, shared_by_seed, sweep_row

__all__ = ["digits_experiment", "digits_live", "digits_sweep_row"]


def _digits_fit(seed, train_fraction):
    """The digits world's live traffic ``(rng, b, c, g)``: the split and both models' predictions on the live
    images; ``rng`` is left where the offline draw starts."""
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB

    rng = check_rng(seed)
    x, y = load_digits(return_X_y=True)
    x = x / 16.0
    perm = rng.permutation(len(y))
    n_train = int(round(train_fraction * len(y)))
    tr, live = perm[:n_train], perm[n_train:]
    base = GaussianNB().fit(x[tr], y[tr])
    cand = LogisticRegression(max_iter=2000).fit(x[tr], y[tr])
    b, c, g = base.predict(x[live]).astype(np.int64), cand.predict(x[live]).astype(np.int64), y[live].astype(np.int64)
    return rng, b, c, g


#: The live traffic of the digits world by (seed, train_fraction): a seed's models are fitted once, as its sweep
#: and its control world (which changes only the offline draw) share them.
digits_live = shared_by_seed(_digits_fit, maxsize=64)


def digits_experiment(seed, *, train_fraction: float = 0.35, n_offline: int = 200, sigma: float = 1.0,
                      disagreement_boost: float = 4.0, flatten: float = 1.0):
    """Real classifiers on scikit-learn's bundled handwritten digits (1,797 images, 10 classes).

    Baseline: Gaussian naive Bayes; candidate: multinomial logistic
    regression; both trained on a random ``train_fraction`` of the images.
    The rest is the live traffic; the offline set (``n_offline`` items) is
    drawn from it by (B, C) cell with a random cell distribution
    (:func:`offline_eval.synth.classifiers.random_offline_joint`, with
    ``sigma``, ``disagreement_boost`` and ``flatten``).
    """
    rng, b, c, g = digits_live(seed, train_fraction)
    k = 10
    live_counts = joint_distribution(b, c, n_classes=k, normalize=False)
    m_o = synth.random_offline_joint(live_counts / len(b), sigma=sigma, disagreement_boost=disagreement_boost,
                                     flatten=flatten, rng=rng)
    off_counts = synth.apportion(m_o, n_offline, capacity=live_counts)
    idx = synth.sample_by_cell(b, c, off_counts, n_classes=k, rng=rng)
    table, res = evaluation_table(b[idx], c[idx], g[idx], b, c, g, n_classes=k)
    return table, res


def digits_sweep_row(seed, **kw) -> dict:
    return sweep_row(*digits_experiment(seed, **kw))
