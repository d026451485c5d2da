"""piovano: Table II (many classes), real classifiers on real data, and Fig. 1.

Protocol.  Table II's news headlines and its SVM / BERT models are not
available, so its mechanism is simulated (world ``synthetic: Table II world``):
a 41-class live set (Zipf prior, per-class accuracies whose prior-weighted
means are the printed online accuracies -- calibrations), and an offline set
drawn by (B, C) cell from a cell distribution "randomly generated from the
live one" (:func:`offline_eval.synth.classifiers.random_offline_joint`) whose
three knobs are first fitted to the paper's printed 5-class pair ``M^(l)``,
``M^(o)`` (a calibration, :func:`._evaluation.calibrate_offline_distortion`);
the distortion's strength (the disagreement boost) and the live models' error
correlation are then fitted to Table II's two printed offline accuracies
(:func:`calibrate_table2_world`, declared calibration rows), since the world
calibrated on Table I alone is far less distorted than Table II's offline set.
Every claim of Table II declares its effect (a gap between two estimates' errors,
per seed) and is judged by the estimate rule over the confirmation seeds, beside
the control world whose offline set is drawn without bias (:data:`CONTROL_RANDOM`);
every other printed offline and OAM cell is a prediction, the seeds' interval
against the printed value's band, beside the control's.  "The offline accuracy
under-estimates the online one" compares, in this world, four calibration
targets: a check of the calibration (:data:`T2_CALIBRATED`).

The same protocol runs on scikit-learn's handwritten digits (real images,
labels and models -- naive Bayes vs logistic regression -- with a simulated
offline bias of its own hand-set knobs).  Fig. 1's analogue shows the class
shares of the Table II world's live and offline sets; its offline set is
flatter by construction (the flattening knob was fitted to produce it), so
that row is a check of ours.

Diagnosis: the printed offline std cells are out of reach (issue 48).  The
offline std cells of Table II (baseline std. Rec. 0.319 and std. Prec. 0.363,
candidate 0.183 and 0.158) are predictions of this world, and every point of
the calibration grid (110 points) leaves them near 0.12-0.13 for the baseline
(at most 0.134 and 0.180): the distortion of :func:`random_offline_joint`
re-weights cells, and a per-cell log-normal factor averages out over the many
cells behind each class's recall and precision, so the per-class offline bias
has a common shift and little class-level spread.  The paper's text allows a
class-level dispersion of the offline set -- "the offline data are sampled
according to the Gaussian distribution while the online data are skewed and
heavy-tailed" (Section I, Fig. 1: the offline intent counts are drawn, not a
function of the live ones) and "we random generate another joint distribution
matrix" (Section IV-A, no family stated) -- so the widened families of
:data:`T2_DISPERSION_WORLDS` were evaluated on the calibration seeds, at the
calibrated knobs (:func:`dispersion_reach`, ``table2_dispersion.csv``): a
per-class log-normal factor ``exp(tau_B U_b + tau_C V_c)`` on the offline cells
(shared ``U = V``, the baseline's predicted class only, the candidate's only),
and per-class accuracies spread three times as wide (0.45).  Each raises
the offline std cells, but none reaches the printed row: the baseline's std.
Prec. stays at most 0.234 (printed 0.363) and its std. Rec. at most 0.248
(printed 0.319).  The baseline's precision on class k is spread by the factor
of the candidate's predicted class (its class-k items split between "the
candidate agrees" and "the candidate disagrees"), and that same factor spreads
the candidate's recall: the candidate's class factor at tau 3 gives the
baseline's std. Prec. 0.191 with the candidate's std. Rec. 0.350 (printed
0.183); the baseline's class factor at tau 3 gives the recall pattern (0.248
against 0.175) but std. Prec. 0.200 against 0.189 (printed 0.363 against
0.158).  Drawn by (B, C) cell, an offline class's items split between "only
the baseline right" and "only the candidate right", so the two models'
offline metrics are nearly complementary and their spreads move together; the
printed row (the baseline's spreads about twice the candidate's, in recall and
precision at once) needs a mechanism the paper does not describe (e.g. an
offline set drawn by true class, which would break the
``p(G | B, C)`` that eq. (7) assumes).  So the root is left as it is: the world
is not widened (a family that does not reach the targets would only move the
predictions), and the offline std rows and those that follow from them keep
the status the estimate rule gives them in this world (``differs``, or
``ambiguous`` where the root-mean-square reading disagrees), with this
diagnosis in their notes.
"""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pandas as pd

from ... import reference
from offline_eval.synth import check_rng
from ...io import format_float
from ...claims import RENEWAL, Claim, Effect, Ledger, SeedBlocks, declare, seed_sweep
from offline_eval.plotting import new_figure
from ._evaluation import (CONTROL_RANDOM, MODELS, SECTION, evaluation_table, offline_accuracy_note, offline_distortion,
                          paper_online_accuracy, paper_table, shared_by_seed, sweep_row)
from ._digits import digits_experiment, digits_sweep_row
from ._sweep_claims import fill_predictions, fill_sweep_claims, prediction_claim, sweep_claims
from ._table2_world import (T2_CALIBRATION_SEEDS, offline_row, online_metrics, table2_defaults, table2_live,
                            table2_offline)
from ._table2_dispersion import T2_DISPERSION_WORLDS, dispersion_reach, reach_note as _reach_note
from ._tried_worlds import tried_worlds_table as _tried_worlds

__all__ = ["CLAIMS", "SEEDS", "CONTROL_RANDOM", "PiovanoTable2DigitsRun", "add_claims", "add_distortion_calibration",
           "calibrate_table2_world", "digits_experiment", "digits_sweep_row", "dispersion_reach", "fig1_counts",
           "fig1_figure", "fig1_row", "offline_distortion", "override_knobs", "paper_online_accuracy", "paper_table",
           "run_experiment", "table2_experiment", "table2_sets", "table2_sweep_row", "table2_world",
           "tried_worlds_table"]

T2_WORLD = ("synthetic: Table II world (41 classes, the offline distortion's shape fitted to the printed 5-class pair, "
            "its strength and the models' error correlation to Table II's printed offline accuracies)")
DIGITS_WORLD = "synthetic: sklearn digits (real images, labels and models; a simulated offline bias)"
UNBIASED = "the offline set drawn without bias: sigma 0, no over-sampled disagreements, no flattening"
T2_SWEEPS = ("piovano/table2_seed_sweep.csv", "piovano/table2_seed_sweep_control.csv", "piovano/table2_tried.csv")
DIGITS_SWEEPS = ("piovano/digits_seed_sweep.csv", "piovano/digits_seed_sweep_control.csv", "piovano/digits.csv")
FIG1 = ("Figure 1 shows a natural language understanding (NLU) application on the distribution of utterance intent "
        "counts: the offline data are sampled according to the Gaussian distribution while the online data are "
        "skewed and heavy-tailed.")

#: The seed blocks of every sweep, declared before any result: 20 seeds each, the development block from seed 0
#: (the seeds the claims were developed on) and a confirmation block no development run used (renewed when the
#: claims moved to the estimate rule: the earlier block stays on record).
SEEDS = SeedBlocks("piovano_table2_digits", development=0).renewed(RENEWAL)
#: Why Table II's "offline under-estimates the accuracy" compares calibration targets in its world.
T2_CALIBRATED = ("its four accuracies are the world's calibration targets: the online ones the live set's "
                 "(piovano-T2-online-acc-*), the offline ones fitted to the printed ones (piovano-T2-calib-offline-acc-*)")

CLAIMS = declare(
    Claim("piovano-calib-offline-distortion", SECTION, "From the M_BC^(l) of each dataset, we random generate another "
          "joint distribution matrix which will correspond to the one of the offline test set M_BC^(o)", "calibration",
          "the generator's three knobs (sigma, boost, flatten) fitted by least squares to the printed 5-class pair; "
          "checked on what the fit did not use: the printed agreement mass trace(M^(o)) inside the 5-95% range of "
          "matrices the fitted generator draws from the printed M^(l)", world=T2_WORLD,
          evidence=("piovano/offline_distortion_calibration.csv",)),
    Claim("piovano-T2-calib-offline-acc-*", "Table II", "Table II: Offline metrics, Acc. (the world's calibration "
          "targets: the strength of its offline distortion)", "calibration",
          "the disagreement boost of the offline generator and the live models' error correlation fitted by an "
          "exhaustive grid search (calibrate_table2_world: least squared distance of the mean over 4 calibration "
          "seeds, 1000-1003, to the two printed offline accuracies); checked on the sweep's seeds, which the fit did "
          "not use: the printed value inside their 5-95% interval", world=T2_WORLD,
          evidence=("piovano/table2_calibration.csv", "piovano/table2_seed_sweep.csv")),
    Claim("piovano-T2-online-acc-*", "Table II", "Table II: Online metrics, Acc. (the simulated live set's target)",
          "calibration", "the simulated online accuracy (main seed) within 0.01 of the printed one (the generator "
          "hits it in expectation)", world=T2_WORLD, evidence=("piovano/table2.csv",)),
    *sweep_claims("T2", "Table II", T2_WORLD, UNBIASED, T2_SWEEPS, calibrated=T2_CALIBRATED),
    prediction_claim("T2", "Table II", T2_WORLD, UNBIASED, T2_SWEEPS + ("piovano/table2.csv", "piovano/table2_dispersion.csv")),
    *sweep_claims("digits", "Tables I-II (protocol)", DIGITS_WORLD, UNBIASED, DIGITS_SWEEPS),
    Claim("piovano-fig1-offline-flatter", "Fig. 1", FIG1, "check",
          "normalised entropy of the offline class shares above that of the live ones over the seeds; holds by "
          "construction: the flattening exponent of the offline generator was fitted to make the offline cells "
          "flatter than the live ones", world=T2_WORLD, control=UNBIASED,
          evidence=("piovano/fig1_seed_sweep.csv", "piovano/fig1.png", "piovano/fig1_class_counts.csv"),
          effect=Effect("normalised entropy of the offline class shares - that of the live ones", ">", 0.05,
                        "the stated default for a quantity on a probability's [0, 1] scale (DELTAS['share']): a "
                        "normalised entropy lies in [0, 1]")),
)


#: What the std claims of Table II gave in the worlds tried before (the notes of the rows that differ).
_BEFORE = ("in the world calibrated on Table I's pair alone (offline accuracies far above the printed: baseline 0.296 "
           "against {{printed}}) it held in {} of 20 seeds; calibrated on Table II's offline accuracies (this row) the "
           "world's offline sets are as distorted as the paper's, but the distortion shifts every class alike, so the "
           "sd of the offline differences stays about half the printed one (the offline std cells, predictions)")
T2_TRIED = {"joint_stdrec_below_offline": _BEFORE.format(16), "joint_stdprec_below_offline": _BEFORE.format(10),
            "joint_stdrec_below_inddis": _BEFORE.format(15)}
#: Worlds tried beside the calibrated one, each with offline accuracies near the printed ones: a larger random
#: distortion of every cell ("we random generate another joint distribution matrix"), which spreads the
#: per-class offline bias (:func:`tried_worlds_table`).
T2_TRIED_WORLDS = {"sigma 1.5, boost 8": {"sigma": 1.5, "disagreement_boost": 8.0},
                   "sigma 2.5, boost 16, error correlation 0.8": {"sigma": 2.5, "disagreement_boost": 16.0,
                                                                   "error_correlation": 0.8}}
_STD_KEYS = ("joint_stdrec_below_offline", "joint_stdprec_below_offline", "joint_stdrec_below_inddis")


def tried_worlds_table(seeds, *, calibrated: pd.DataFrame, **kw) -> pd.DataFrame:
    """The calibrated Table II world (its sweep ``calibrated``, on the world of ``kw``) and each of
    :data:`T2_TRIED_WORLDS` on ``seeds``: medians of the offline accuracies, of the offline and JointDis sd of
    recall and precision and of the uncovered live mass, and the share of seeds passing each std criterion."""
    return _tried_worlds(
        table2_sweep_row, seeds, {"calibrated": {}, **T2_TRIED_WORLDS}, given={"calibrated": calibrated},
        names=lambda name, knobs: {"world": name, **{k: kw.get(k) for k in ("sigma", "disagreement_boost",
                                                                             "error_correlation")}, **knobs},
        medians=("baseline_offline_Acc", "candidate_offline_Acc", "baseline_offline_std_Rec",
                 "baseline_offline_std_Prec", "baseline_joint_std_Rec", "baseline_joint_std_Prec", "uncovered_mass"),
        shares=_STD_KEYS, **kw)


def _tried_note(tried: pd.DataFrame, key: str) -> str:
    t = tried[tried["world"] != "calibrated"]
    return ("a larger random distortion of every cell (" + "; ".join(
        f"{r['world']}: offline sd of the baseline's recall {r['baseline_offline_std_Rec']:.2f}, JointDis's "
        f"{r['baseline_joint_std_Rec']:.2f}, uncovered live mass {r['uncovered_mass']:.2f}, {r[key]} seeds"
        for _, r in t.iterrows()) + ") spreads the per-class offline bias only by leaving live cells without offline "
        "items, which JointDis cannot re-weight (table2_tried.csv): the paper's pair (a large offline sd with a small "
        "JointDis sd) needs per-class bias with every live cell still sampled offline")


# -- the offline-set generator calibrated on the printed 5-class pair --------------------------------
def add_distortion_calibration(ledger: Ledger, sigma: float, boost: float, cells: pd.DataFrame, *, flatten: float = 1.0,
                               n_draws: int = 2000, rng=0) -> None:
    """The fitted offline-distortion knobs as a ``calibration`` row (:func:`calibrate_offline_distortion`).

    The row's check: the agreement mass ``trace(M^(o))`` of the printed
    offline matrix (0.38) lies inside the 5-95% range of ``n_draws`` matrices
    the fitted generator draws from the printed ``M^(l)`` (the fit used the
    log-shares cell by cell, not the trace, so the check can fail).
    """
    from offline_eval.synth.classifiers import random_offline_joint

    k = int(round(np.sqrt(len(cells))))
    live = cells["live"].to_numpy().reshape(k, k) / cells["live"].sum()
    printed = float(np.trace(cells["offline"].to_numpy().reshape(k, k)) / cells["offline"].sum())
    gen = check_rng(rng)
    draws = np.array([np.trace(random_offline_joint(live, sigma=sigma, disagreement_boost=boost, flatten=flatten, rng=gen))
                      for _ in range(n_draws)])
    lo, med, hi = np.quantile(draws, [0.05, 0.5, 0.95])
    used = cells[cells["used"]]
    ledger.calibration(
        "piovano-calib-offline-distortion", printed=f"{printed:.2f}", value=(lo + hi) / 2, atol=(hi - lo) / 2,
        detail=f"agreement mass of the printed M^(o); the fitted knobs sigma {sigma:g}, boost {boost:g}, flatten "
               f"{flatten:g}",
        note=(f"the value is the midpoint of the 5-95% range [{lo:.2f}, {hi:.2f}] (median {med:.2f}) of the agreement "
              f"mass of {n_draws} matrices drawn from M^(l) by the fitted generator, the tolerance its half-width: "
              "within tolerance = the printed agreement mass inside that range; "
              f"least squares of log M^(o) on log M^(l) and the disagreement indicator over the {len(used)} of "
              f"{len(cells)} cells positive in both (flatten = the slope on log M^(l), boost = exp(the indicator's), "
              "sigma = residual sd); M^(o) is a sample of 100 items, so its counting noise is in sigma (an upper "
              "bound); the flattening term (Section I: offline 'sampled according to the Gaussian distribution', "
              "online 'skewed and heavy-tailed') was added after the Table II world without it predicted offline "
              "accuracies far above the printed ones; it is fitted here, to Table I's pair, not to Table II "
              "(before: sigma 0.55, boost 4.37 without it; by hand sigma 1.0, boost 8)"),
    )


def table2_sets(seed, *, n_live: int | None = None, n_offline: int | None = None, n_classes: int = 41,
                accuracy=None, accuracy_spread: float = 0.15, zipf_exponent: float = 1.0,
                sigma: float = 1.0, disagreement_boost: float = 8.0, flatten: float = 1.0,
                error_correlation: float = 0.5, shared_confusion: float = 0.5, ref: pd.DataFrame | None = None):
    """The Table II world: live ``(b, c, g)`` and the offline sample's row indices ``idx``.

    A many-class live set; the offline cell distribution is randomly generated
    from the live one (:func:`offline_eval.synth.classifiers.random_offline_joint`).
    ``None`` sizes and accuracies are the paper's (news headlines: its live
    and offline sizes, Table II's online accuracies; ``data/reference``).
    ``sigma=0, disagreement_boost=1, flatten=1`` (:data:`CONTROL_RANDOM`) is
    the control world: an offline set without sampling bias.
    ``error_correlation`` and ``shared_confusion`` set how the two models'
    errors relate in the live traffic (:func:`many_class_world`; the live
    joint of Table II is not printed; :func:`calibrate_table2_world` fits
    ``error_correlation`` with the offline knobs).  Returns ``(b, c, g, idx)``.
    """
    n_live, n_offline, accuracy = table2_defaults(ref, n_live, n_offline, accuracy)
    _, b, c, g, idx = _table2_sets(seed, n_live=n_live, n_offline=n_offline, n_classes=n_classes, accuracy=accuracy,
                                   accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent, sigma=sigma,
                                   disagreement_boost=disagreement_boost, flatten=flatten,
                                   error_correlation=error_correlation, shared_confusion=shared_confusion)
    return b, c, g, idx


def _table2_sets_draw(seed, *, n_live, n_offline, n_classes, accuracy, accuracy_spread, zipf_exponent, sigma,
                      disagreement_boost, flatten, error_correlation, shared_confusion):
    rng, b, c, g = table2_live(seed, n_live=n_live, n_classes=n_classes, accuracy=accuracy,
                                accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent,
                                error_correlation=error_correlation, shared_confusion=shared_confusion)
    idx = table2_offline(rng, b, c, n_offline=n_offline, n_classes=n_classes, sigma=sigma,
                          disagreement_boost=disagreement_boost, flatten=flatten)
    return rng, b, c, g, idx


#: The live and offline sets of the Table II world by seed and world: Fig. 1's sweeps count the classes of the
#: sets the Table II sweeps evaluated.
_table2_sets = shared_by_seed(_table2_sets_draw, maxsize=128)


#: The declared optimiser of :func:`calibrate_table2_world`: its grid and its calibration seeds (apart from
#: the sweep's seeds 0-19).
T2_CALIBRATION_GRID = {"error_correlation": tuple(round(0.5 + 0.05 * i, 2) for i in range(10)),
                       "disagreement_boost": tuple(2.0 ** (i / 2) for i in range(2, 13))}
#: The printed cells the Table II world is calibrated on: the two accuracies of its Offline metrics row (the
#: strength of the offline distortion); the row's std cells stay predictions.
T2_CALIBRATION_CELLS = tuple((m, "Acc") for m in MODELS)


def calibrate_table2_world(ref: pd.DataFrame, *, sigma: float, flatten: float, n_classes: int = 41,
                           accuracy_spread: float = 0.15, zipf_exponent: float = 1.0, shared_confusion: float = 0.5,
                           grid=None, seeds=T2_CALIBRATION_SEEDS, n_live: int | None = None,
                           n_offline: int | None = None) -> tuple[dict, pd.DataFrame]:
    """The Table II world's knobs fitted to Table II's printed Offline accuracies (a declared calibration).

    The optimiser: an exhaustive search of :data:`T2_CALIBRATION_GRID` --
    ``error_correlation`` of the live models (how often the baseline is wrong
    where the candidate is, which bounds how low an offline set drawn by cell
    can take the baseline) and ``disagreement_boost`` of the offline generator
    (``sigma`` and ``flatten`` stay those fitted to Table I's printed pair) --
    on the calibration seeds :data:`T2_CALIBRATION_SEEDS` (none a sweep seed).
    The objective is the sum over :data:`T2_CALIBRATION_CELLS` (both models'
    offline Acc.) of the squared difference between the seeds' mean, as
    written at six significant digits, and the printed value, in exact
    rational arithmetic; the least objective wins, equal objectives by grid
    order, so no decision hinges on the last bits of a float.  The offline std
    cells are recorded per grid point (``*_std_*``) but not fitted.

    Returns the knobs (keywords of :func:`table2_sets`) and one row per grid
    point with its means and objective.
    """
    from fractions import Fraction

    grid = T2_CALIBRATION_GRID if grid is None else grid
    n_live, n_offline, accuracy = table2_defaults(ref, n_live, n_offline, None)
    target = {(m, c): Fraction(str(reference.parse_printed(reference.lookup(ref, "Table II", "Offline metrics", "Acc.",
                                                                            panel=m.capitalize()))))
              for m, c in T2_CALIBRATION_CELLS}
    cells = tuple((m, c) for m in MODELS for c in ("Acc", "std_Rec", "std_Prec"))
    rows, best = [], None
    for ec in grid["error_correlation"]:
        lives = [table2_live(s, n_live=n_live, n_classes=n_classes, accuracy=accuracy,
                              accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent, error_correlation=ec,
                              shared_confusion=shared_confusion) for s in seeds]
        online = [online_metrics(b, c, g, n_classes) for _, b, c, g in lives]  # the same for every boost
        for boost in grid["disagreement_boost"]:
            draws = []
            for (rng, b, c, g), on in zip(lives, online):
                idx = table2_offline(copy.deepcopy(rng), b, c, n_offline=n_offline, n_classes=n_classes,
                                      sigma=sigma, disagreement_boost=boost, flatten=flatten)
                draws.append(offline_row(b, c, g, idx, n_classes, on))
            means = {cell: format_float(float(np.mean([d[cell] for d in draws]))) for cell in cells}
            objective = sum((Fraction(means[cell]) - target[cell]) ** 2 for cell in T2_CALIBRATION_CELLS)
            row = {"error_correlation": ec, "disagreement_boost": boost,
                   **{f"{m}_offline_{c}": float(v) for (m, c), v in means.items()}, "objective": float(objective)}
            rows.append(row)
            if best is None or objective < best[0]:
                best = (objective, row)
    knobs = {"sigma": sigma, "flatten": flatten, "error_correlation": best[1]["error_correlation"],
             "disagreement_boost": best[1]["disagreement_boost"]}
    return knobs, pd.DataFrame(rows)


def table2_experiment(seed, *, n_classes: int = 41, **kw):
    """Table II analogue on the world of :func:`table2_sets` (same keywords): ``(table, res)``."""
    b, c, g, idx = table2_sets(seed, n_classes=n_classes, **kw)
    return evaluation_table(b[idx], c[idx], g[idx], b, c, g, n_classes=n_classes)


def fig1_counts(seed, *, n_classes: int = 41, **kw) -> pd.DataFrame:
    """Fig. 1 analogue: per class, the live and offline item counts of the Table II world.

    Takes :func:`table2_sets`'s keywords; classes are ordered by live
    count (largest first).  Columns ``class, live, offline, live_share,
    offline_share``.
    """
    b, c, g, idx = table2_sets(seed, n_classes=n_classes, **kw)
    live = np.bincount(g, minlength=n_classes)
    off = np.bincount(g[idx], minlength=n_classes)
    order = np.argsort(-live, kind="stable")
    df = pd.DataFrame({"class": order, "live": live[order], "offline": off[order]})
    return df.assign(live_share=df["live"] / df["live"].sum(), offline_share=df["offline"] / df["offline"].sum())


def _entropy(share) -> float:
    p = np.asarray(share, dtype=float)
    p = p[p > 0]
    return float(-(p * np.log(p)).sum() / np.log(len(share)))


def fig1_row(seed, **kw) -> dict:
    """One seed of the Fig. 1 claim: normalised entropies of the live and offline class distributions."""
    df = fig1_counts(seed, **kw)
    h_live, h_off = _entropy(df["live_share"]), _entropy(df["offline_share"])
    return dict(entropy_live=h_live, entropy_offline=h_off, offline_flatter=bool(h_off > h_live))


def fig1_figure(df: pd.DataFrame):
    """Fig. 1 analogue: class shares of the live traffic and of the offline set, classes by live frequency."""
    fig, ax = new_figure(1, 1, width="single", height=2.5)
    x = np.arange(1, len(df) + 1)
    ax.bar(x - 0.2, 100 * df["live_share"], width=0.4, label="online (live)", color="0.3")
    ax.bar(x + 0.2, 100 * df["offline_share"], width=0.4, label="offline", color="C1")
    ax.set_xlabel("class (intent), by decreasing online count")
    ax.set_ylabel("% of items")
    ax.set_title("Fig. 1: offline vs online class distribution")
    ax.legend()
    return fig


def table2_sweep_row(seed, **kw) -> dict:
    return sweep_row(*table2_experiment(seed, **kw))


# -- the run ---------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, kw_only=True)
class PiovanoTable2DigitsRun:
    """Everything the notebook shows and the ledger reads (:func:`run_experiment`); per seed block where keyed by
    block."""

    ref: pd.DataFrame  #: the printed numbers (``data/reference/piovano``)
    distortion: object  #: the offline distortion fitted to the printed 5-class pair (:func:`offline_distortion`)
    knobs: dict  #: the Table II world's knobs (:func:`table2_world`)
    calibration: pd.DataFrame  #: the calibration grid (:func:`calibrate_table2_world`)
    world: dict  #: the keywords of :func:`table2_experiment` (the calibrated world)
    digits_world: dict  #: the keywords of :func:`digits_experiment`
    tab2: pd.DataFrame  #: one run of the Table II world at the development seed
    res2: dict
    table2: pd.DataFrame  #: ``tab2`` beside the printed Table II
    sweeps: dict  #: block -> the Table II world's sweep
    controls: dict  #: block -> its control world's sweep
    sweep_means: pd.DataFrame  #: the development sweep's means over seeds
    tried: pd.DataFrame  #: :func:`tried_worlds_table` on the first half of the development seeds
    reach: pd.DataFrame  #: :func:`dispersion_reach`
    digits: pd.DataFrame  #: one run of the digits world at the development seed
    digits_res: dict
    digits_sweeps: dict  #: block -> the digits world's sweep
    digits_controls: dict  #: block -> its control world's sweep
    digits_means: pd.DataFrame  #: the development digits sweep's means over seeds
    fig1: pd.DataFrame  #: :func:`fig1_counts` at the development seed
    fig1_sweeps: dict  #: block -> Fig. 1's sweep
    fig1_controls: dict  #: block -> Fig. 1's control sweep
    fig1_tables: dict  #: block -> both, one table with a ``world`` column


def _means(sweep: pd.DataFrame) -> pd.DataFrame:
    return sweep.drop(columns="seed").mean(numeric_only=True).to_frame("mean over seeds").T


def run_experiment(blocks: SeedBlocks, *, seed: int = 0, n_live=None, n_offline=None, n_classes: int = 41,
                   zipf_exponent: float = 1.0, accuracy_spread: float = 0.15, sigma=None, disagreement_boost=None,
                   flatten=None, error_correlation=None, n_calibration_seeds: int = 4, train_fraction: float = 0.35,
                   n_offline_digits: int = 200, digits_sigma: float = 1.0,
                   digits_boost: float = 4.0) -> PiovanoTable2DigitsRun:
    """Table II's world calibrated as declared (:func:`table2_world`), one run at ``seed``, its sweeps and control
    sweeps on every block of ``blocks``, the tried worlds, the dispersion diagnosis, the digits world and Fig. 1."""
    ref = reference.load("piovano")
    sizes = dict(n_live=n_live, n_offline=n_offline, n_classes=n_classes)
    dist, knobs, grid, kw2 = table2_world(
        ref, sigma=sigma, flatten=flatten, disagreement_boost=disagreement_boost, error_correlation=error_correlation,
        n_calibration_seeds=n_calibration_seeds, **sizes, accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent)
    kwd = dict(train_fraction=train_fraction, n_offline=n_offline_digits, sigma=digits_sigma,
               disagreement_boost=digits_boost)
    tab2, res2 = table2_experiment(seed, **kw2)
    sweeps = {b: seed_sweep(table2_sweep_row, blocks.seeds(b), **kw2) for b in blocks.BLOCKS}
    controls = {b: seed_sweep(table2_sweep_row, blocks.seeds(b), **{**kw2, **CONTROL_RANDOM}) for b in blocks.BLOCKS}
    tried = tried_worlds_table(range(seed, seed + max(blocks.n // 2, 2)), calibrated=sweeps["development"], **kw2)
    reach = dispersion_reach(ref, knobs=knobs, **sizes, accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent)
    tabd, resd = digits_experiment(seed, **kwd)
    sweepd = {b: seed_sweep(digits_sweep_row, blocks.seeds(b), **kwd) for b in blocks.BLOCKS}
    controld = {b: seed_sweep(digits_sweep_row, blocks.seeds(b), **{**kwd, **CONTROL_RANDOM}) for b in blocks.BLOCKS}
    f1 = fig1_counts(seed, **kw2)
    fig1_sweep = {b: seed_sweep(fig1_row, blocks.seeds(b), **kw2) for b in blocks.BLOCKS}
    fig1_control = {b: seed_sweep(fig1_row, blocks.seeds(b), **{**kw2, **CONTROL_RANDOM}) for b in blocks.BLOCKS}
    fig1_tables = {b: pd.concat([fig1_sweep[b].assign(world="biased offline set"),
                                 fig1_control[b].assign(world="control")]) for b in blocks.BLOCKS}
    return PiovanoTable2DigitsRun(
        ref=ref, distortion=dist, knobs=knobs, calibration=grid, world=kw2, digits_world=kwd, tab2=tab2, res2=res2,
        table2=tab2.merge(paper_table(ref, "Table II"), on=["model", "setting"]), sweeps=sweeps, controls=controls,
        sweep_means=_means(sweeps["development"]), tried=tried, reach=reach, digits=tabd, digits_res=resd,
        digits_sweeps=sweepd, digits_controls=controld, digits_means=_means(sweepd["development"]), fig1=f1,
        fig1_sweeps=fig1_sweep, fig1_controls=fig1_control, fig1_tables=fig1_tables)


# -- the ledger ------------------------------------------------------------------------------------
def add_claims(ledger: Ledger, run: PiovanoTable2DigitsRun, *, block: str) -> None:
    """Fill every declared claim of :data:`CLAIMS` in seed block ``block`` of ``ledger`` from ``run``
    (:func:`run_experiment`)."""
    if block not in run.sweeps:
        raise ValueError(f"`block` must be one of {tuple(run.sweeps)}; got {block!r}")
    ledger = ledger.block(block)
    ref, dist, tab2, res2, tabd, resd = run.ref, run.distortion, run.tab2, run.res2, run.digits, run.digits_res
    sweep2, control2, sweepd, controld = (run.sweeps[block], run.controls[block], run.digits_sweeps[block],
                                          run.digits_controls[block])
    fig1_sweep, fig1_control = run.fig1_sweeps[block], run.fig1_controls[block]
    n_classes, knobs, calib_grid = run.world["n_classes"], run.knobs, run.calibration
    tried, reach = run.tried, run.reach
    add_distortion_calibration(ledger, dist.sigma_fit, dist.boost_fit, dist.cells, flatten=dist.flatten_fit)
    for model in MODELS:
        ledger.calibration(f"piovano-T2-online-acc-{model}",
                           printed=reference.lookup(ref, "Table II", "Online metrics", "Acc.", panel=model.capitalize()),
                           value=float(tab2.query("model == @model and setting == 'Online metrics'")["Acc"].iloc[0]),
                           atol=0.01, detail=model,
                           note="the generator's calibration target (in expectation), not an independent reproduction")
    printed_b = reference.lookup(ref, "Table II", "Offline metrics", "Acc.", panel="Baseline")
    fill_sweep_claims(ledger, sweep2, control2, prefix="T2", what=f"Table II analogue ({n_classes} classes)", ref=ref,
                      source="Table II", main=sweep_row(tab2, res2),
                      notes={k: f"{v.replace('{printed}', printed_b)}; {_tried_note(tried, k)}{_reach_note(reach)}"
                             for k, v in T2_TRIED.items()},
                      note=f"simulated live set, calibrated on Table II's offline accuracies; uncovered live mass "
                           f"{sweep2['uncovered_mass'].mean():.3f} on average; "
                           + offline_accuracy_note(sweep2, ref, "Table II"))
    for model in MODELS:
        lo, hi = np.quantile(sweep2[f"{model}_offline_Acc"].to_numpy(float), [0.05, 0.95])
        lo, hi = float(format_float(float(lo))), float(format_float(float(hi)))
        ledger.calibration(f"piovano-T2-calib-offline-acc-{model}",
                           printed=reference.lookup(ref, "Table II", "Offline metrics", "Acc.", panel=model.capitalize()),
                           value=(lo + hi) / 2, atol=(hi - lo) / 2, detail=model,
                           note=f"the value is the midpoint of the sweep seeds' 5-95% interval [{lo:g}, {hi:g}], the "
                                f"tolerance its half-width; fitted: error correlation {knobs['error_correlation']:g}, "
                                f"disagreement boost {knobs['disagreement_boost']:.4g} (sigma {knobs['sigma']:g} and "
                                f"flatten {knobs['flatten']:g} from Table I's pair); the world calibrated on Table I "
                                "alone gave offline accuracies far above the printed ones (baseline 0.296): Table "
                                "II's offline set is more distorted; a calibration, not a reproduction")
    grid_reach = ", ".join(f"{m} {label} {calib_grid[f'{m}_offline_{col}'].max():.3f} (printed "
                      f"{reference.lookup(ref, 'Table II', 'Offline metrics', label, panel=m.capitalize())})"
                      for m in MODELS for col, label in (("std_Rec", "std. Rec."), ("std_Prec", "std. Prec.")))
    fill_predictions(ledger, sweep2, control2, ref, source="Table II", prefix="T2", main=tab2,
                     skip={(m, "offline", "Acc") for m in MODELS},
                     note="the offline accuracies (calibration) and the online accuracies are the world's targets; "
                          f"over the whole calibration grid the offline std cells reach at most: {grid_reach}"
                          + _reach_note(reach))
    fill_sweep_claims(ledger, sweepd, controld, prefix="digits",
                      what="Real models on real data (sklearn digits: naive Bayes vs logistic regression)",
                      main=sweep_row(tabd, resd),
                      note=f"new train/live split, models and offline draw per seed; uncovered live mass "
                           f"{sweepd['uncovered_mass'].mean():.3f} on average")
    ledger.estimate("piovano-fig1-offline-flatter", world=_flatter(fig1_sweep), control=_flatter(fig1_control),
                    main_seed=bool(fig1_sweep["offline_flatter"].iloc[0]),
                    note="a check of ours, not a reproduction: the flattening knob was set (fitted to Table I's pair) "
                         "to produce a flatter offline set; the paper's own Fig. 1 data are not given")


def _flatter(sweep: pd.DataFrame) -> pd.Series:
    """Fig. 1's effect on each seed: the offline set's normalised entropy minus the live set's."""
    return pd.Series((sweep["entropy_offline"] - sweep["entropy_live"]).to_numpy(float),
                     index=sweep["seed"].to_numpy(int))


def override_knobs(knobs: dict, **given) -> dict:
    """The calibrated knobs of :func:`calibrate_table2_world`, with any knob given (not None) in its place."""
    return {**knobs, **{k: float(v) for k, v in given.items() if v is not None}}


def table2_world(ref: pd.DataFrame, *, sigma, flatten, disagreement_boost, error_correlation, n_calibration_seeds: int,
                 **world):
    """Table II's world, calibrated as declared: the distortion's shape (``sigma``, ``flatten``) fitted to Table I's
    printed pair, its strength and the models' error correlation to Table II's printed offline accuracies
    (:func:`calibrate_table2_world`, on seeds 1000.. apart from the sweep's); a knob given (not None) is used as
    given.  ``world`` holds the sizes (``n_live``, ``n_offline``, ``n_classes``, ``accuracy_spread``,
    ``zipf_exponent``).  Returns ``(dist, knobs, calibration_grid, kw)``: ``kw`` the keyword arguments of
    :func:`table2_experiment` and :func:`table2_sweep_row`."""
    dist = offline_distortion(ref, sigma, None, flatten)
    knobs, grid = calibrate_table2_world(ref, sigma=dist.sigma, flatten=dist.flatten,
                                         seeds=range(1000, 1000 + n_calibration_seeds), **world)
    knobs = override_knobs(knobs, disagreement_boost=disagreement_boost, error_correlation=error_correlation)
    return dist, knobs, grid, dict(ref=ref, accuracy=paper_online_accuracy(ref, "Table II"), **world, **knobs)
