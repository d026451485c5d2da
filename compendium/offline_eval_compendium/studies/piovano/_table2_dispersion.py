"""piovano Table II: why the printed offline std cells are out of reach of the world's widened families.

The diagnosis of :mod:`.table2_digits` (its docstring states it with the numbers): the families the
paper's text allows -- a class-level dispersion of the offline cells (Section I, Fig. 1: "the offline data are
sampled according to the Gaussian distribution while the online data are skewed and heavy-tailed"; Section IV-A:
"we random generate another joint distribution matrix") and a wider per-class accuracy spread -- evaluated at
the calibrated knobs on the calibration seeds, beside the printed Offline metrics row.  No family is chosen here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import reference
from ...io import format_float
from offline_eval.adaptive import joint_distribution
from offline_eval.synth import classifiers as synth
from ._evaluation import MODELS
from ._table2_world import T2_CALIBRATION_SEEDS, offline_row, table2_defaults, table2_live, table2_offline

__all__ = ["T2_DISPERSION_WORLDS", "dispersion_reach", "reach_note"]


#: The widened families tried against Table II's printed offline std cells (the diagnosis of the module's
#: docstring), each at the calibrated knobs on the calibration seeds: ``tau_b`` and ``tau_c`` the sd of a per-class
#: log-normal factor on the offline cells of the baseline's and the candidate's predicted class (``shared``: one
#: factor per class for both), ``accuracy_spread`` the per-class spread of the live models' accuracies.
T2_DISPERSION_WORLDS = {
    "calibrated": {},
    "class factor shared, tau 1": {"tau_b": 1.0, "tau_c": 1.0, "shared": True},
    "class factor shared, tau 2": {"tau_b": 2.0, "tau_c": 2.0, "shared": True},
    "baseline's class factor, tau 3": {"tau_b": 3.0},
    "candidate's class factor, tau 3": {"tau_c": 3.0},
    "both class factors, tau 3": {"tau_b": 3.0, "tau_c": 3.0},
    "per-class accuracy spread 0.45": {"accuracy_spread": 0.45},
}
_OFFLINE_CELLS = tuple((m, c) for m in MODELS for c in ("Acc", "std_Rec", "std_Prec"))


def _dispersed_offline(rng, b, c, *, n_offline, n_classes, sigma, disagreement_boost, flatten, tau_b=0.0, tau_c=0.0,
                       shared=False):
    """:func:`._table2_world.table2_offline` with a per-class log-normal factor ``exp(tau_b U_b + tau_c V_c)`` on the offline
    cells (``U``, ``V`` standard normal per class, drawn after the cell factors; ``shared``: ``V = U``)."""
    live_counts = joint_distribution(b, c, n_classes=n_classes, normalize=False)
    m_o = synth.random_offline_joint(live_counts / len(b), sigma=sigma, disagreement_boost=disagreement_boost,
                                     flatten=flatten, rng=rng)
    u = rng.standard_normal(n_classes)
    v = u if shared else rng.standard_normal(n_classes)
    m_o = m_o * np.exp(tau_b * u[:, None] + tau_c * v[None, :])
    off_counts = synth.apportion(m_o / m_o.sum(), n_offline, capacity=live_counts)
    return synth.sample_by_cell(b, c, off_counts, n_classes=n_classes, rng=rng)


def dispersion_reach(ref: pd.DataFrame, *, knobs: dict, seeds=None, n_classes: int = 41,
                     accuracy_spread: float = 0.15, zipf_exponent: float = 1.0, shared_confusion: float = 0.5,
                     n_live: int | None = None, n_offline: int | None = None, **_) -> pd.DataFrame:
    """The Offline metrics row of Table II (both models' Acc, std. Rec., std. Prec.) in each widened family of
    :data:`T2_DISPERSION_WORLDS`, at the calibrated ``knobs`` (:func:`calibrate_table2_world`), the mean over
    the calibration ``seeds`` (none a sweep seed); the printed row last.  A diagnosis, not a calibration: no
    family is chosen from it."""
    seeds = T2_CALIBRATION_SEEDS if seeds is None else seeds
    n_live, n_offline, accuracy = table2_defaults(ref, n_live, n_offline, None)
    rows = []
    for name, fam in T2_DISPERSION_WORLDS.items():
        spread = fam.get("accuracy_spread", accuracy_spread)
        offline = {k: fam[k] for k in ("tau_b", "tau_c", "shared") if k in fam}
        draws = []
        for s in seeds:
            rng, b, c, g = table2_live(s, n_live=n_live, n_classes=n_classes, accuracy=accuracy,
                                        accuracy_spread=spread, zipf_exponent=zipf_exponent,
                                        error_correlation=knobs["error_correlation"],
                                        shared_confusion=shared_confusion)
            kw = dict(n_offline=n_offline, n_classes=n_classes, sigma=knobs["sigma"],
                      disagreement_boost=knobs["disagreement_boost"], flatten=knobs["flatten"])
            idx = _dispersed_offline(rng, b, c, **kw, **offline) if offline else table2_offline(rng, b, c, **kw)
            draws.append(offline_row(b, c, g, idx, n_classes))
        rows.append({"world": name, **{f"{m}_offline_{col}": float(format_float(float(np.mean([d[(m, col)] for d in draws]))))
                                       for m, col in _OFFLINE_CELLS}})
    label = {"Acc": "Acc.", "std_Rec": "std. Rec.", "std_Prec": "std. Prec."}
    rows.append({"world": "printed (Table II)", **{
        f"{m}_offline_{col}": reference.parse_printed(reference.lookup(ref, "Table II", "Offline metrics", label[col],
                                                                       panel=m.capitalize()))
        for m, col in _OFFLINE_CELLS}})
    return pd.DataFrame(rows)


def reach_note(reach: pd.DataFrame | None) -> str:
    if reach is None:
        return ""
    fam = reach[reach["world"] != "printed (Table II)"]
    printed = reach[reach["world"] == "printed (Table II)"].iloc[0]
    cols = [f"{m}_offline_{c}" for m in MODELS for c in ("std_Rec", "std_Prec")]
    return ("; out of reach of the widened families too (class-level dispersion of the offline cells, per-class "
            "accuracy spread; table2_dispersion.csv, calibration seeds): at most " + ", ".join(
                f"{col.replace('_offline_std_', ' std. ')}. {fam[col].max():.3f} (printed {printed[col]:g})" for col in cols)
            + "; a class factor that spreads the baseline's precision spreads the candidate's recall with it, while the "
              "printed baseline's spreads are about twice the candidate's: the world is not widened (the module's "
              "diagnosis)")
