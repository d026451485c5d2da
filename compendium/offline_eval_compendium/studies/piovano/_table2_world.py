"""The Table II world's draws that Table II's study and its dispersion diagnosis share.

The live traffic (:func:`table2_live`, drawn once per seed and world), the offline draw by (B, C) cell from a
distorted copy of the live cells (:func:`table2_offline`), the paper's sizes (:func:`table2_defaults`), one draw's
Offline metrics row (:func:`offline_row`) and the calibration seeds (:data:`T2_CALIBRATION_SEEDS`).
:mod:`.table2_digits` and :mod:`._table2_dispersion` both import them from here.
"""

from __future__ import annotations

from ... import reference
from offline_eval.synth import check_rng
from offline_eval.adaptive import joint_distribution, metrics_from_joint
from offline_eval.synth import classifiers as synth
from ._evaluation import (MODELS, many_class_world, paper_online_accuracy, paper_sizes, quiet_warnings,
                          shared_by_seed, std_of_differences)

__all__ = ["T2_CALIBRATION_SEEDS", "offline_row", "online_metrics", "table2_defaults", "table2_live",
           "table2_offline"]

#: The calibration seeds of :func:`.table2_digits.calibrate_table2_world` and of the dispersion diagnosis
#: (apart from the sweep's seeds 0-19).
T2_CALIBRATION_SEEDS = (1000, 1001, 1002, 1003)


def _live_draw(seed, *, n_live, n_classes, accuracy, accuracy_spread, zipf_exponent, error_correlation,
               shared_confusion):
    """The Table II world's live traffic ``(rng, b, c, g)``; ``rng`` is left where the offline draw starts."""
    rng = check_rng(seed)
    b, c, g = many_class_world(None, n_live=n_live, n_classes=n_classes, accuracy=accuracy,
                               accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent,
                               error_correlation=error_correlation, shared_confusion=shared_confusion, rng=rng)
    return rng, b, c, g


#: The live traffic of the Table II world, drawn once per seed and world: the sweep, its control world (which
#: changes only the offline draw), the tried worlds and Fig. 1's sweeps share it.
table2_live = shared_by_seed(_live_draw, maxsize=96)


def table2_offline(rng, b, c, *, n_offline, n_classes, sigma, disagreement_boost, flatten):
    """The offline sample's row indices, drawn by (B, C) cell from a distorted copy of the live cells."""
    live_counts = joint_distribution(b, c, n_classes=n_classes, normalize=False)
    m_l = live_counts / len(b)  # joint_distribution's normalisation, without a second count
    m_o = synth.random_offline_joint(m_l, sigma=sigma, disagreement_boost=disagreement_boost, flatten=flatten, rng=rng)
    off_counts = synth.apportion(m_o, n_offline, capacity=live_counts)
    return synth.sample_by_cell(b, c, off_counts, n_classes=n_classes, rng=rng)


def table2_defaults(ref, n_live, n_offline, accuracy):
    """The sizes and online accuracies of the Table II world: each ``None`` the paper's (news headlines)."""
    if n_live is None or n_offline is None or accuracy is None:
        ref = reference.load("piovano") if ref is None else ref
        sizes = paper_sizes(ref, "news headlines")
        n_live = sizes["live samples M"] if n_live is None else n_live
        n_offline = sizes["offline samples N"] if n_offline is None else n_offline
        accuracy = paper_online_accuracy(ref, "Table II") if accuracy is None else accuracy
    return n_live, n_offline, accuracy



def online_metrics(b, c, g, n_classes):
    with quiet_warnings():
        return metrics_from_joint(joint_distribution(b, c, g, n_classes=n_classes))


def offline_row(b, c, g, idx, n_classes, on=None) -> dict:
    """The Offline metrics row of both models (Acc, sd of recall and precision differences) of one draw;
    ``on``: the live set's metrics (:func:`online_metrics`), when already computed."""
    on = online_metrics(b, c, g, n_classes) if on is None else on
    with quiet_warnings():
        off = metrics_from_joint(joint_distribution(b[idx], c[idx], g[idx], n_classes=n_classes))
    out = {}
    for m in MODELS:
        o, l = off.model(m), on.model(m)
        out.update({(m, "Acc"): o.accuracy, (m, "std_Rec"): std_of_differences(o.recall, l.recall),
                    (m, "std_Prec"): std_of_differences(o.precision, l.precision)})
    return out
