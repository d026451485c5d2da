"""piovano: the toy example (Section II), the Section IV-A matrices, Table I, and eqs. (1)-(13) / Algorithm 1.

**Table I's world against its calibration targets (issue 48): the diagnosis.**

*What is fitted to what.*  The Table I world's only declared calibration targets are the printed online accuracies
(0.727 and 0.761, realised as 456/627 = 0.7273 and 477/627 = 0.7608).  Two knobs are solved for them: the rates at
which the baseline and the candidate are right where they disagree, ``b_B`` = 0.270 and ``b_C`` = 0.392.  The other
two, ``agree_correct`` = 0.9 and ``class_spread`` = 0.05 (the per-class accuracy where the models agree, a random
spread around it), were set, not fitted: no printed number was declared for them.

*What decides IndDis accuracy.*  OAM IndDis keeps each predicted class's offline precision, so Acc(IndDis) =
sum_k q_k P_k^(o): the live predicted-class shares ``q`` (the printed ``M_BC^(l)``'s row or column sums, fixed)
times the offline per-class precisions, and these are the printed ``M_BC^(o)`` mix of the cells' conditionals,
P_k^(o) = sum_j M^(o)(k, j) p(G = k | k, j) / sum_j M^(o)(k, j) (the offline set is drawn by cell from the live
set).  The class distributions are printed; what the world chooses is the conditional.  With every class near 0.9
where the models agree, a class whose offline row is mostly diagonal has a high precision: the baseline's C2 (8 of
its 10 offline items on the diagonal, P about 0.77) weighs 0.328 live against 0.10 offline, so IndDis rises above
the offline accuracy (expected 0.587, 0.596 [0.583, 0.610] over the seeds) where the paper prints it below (0.488
against 0.510: IndDis - Offline = -0.022 printed, +0.08 in the world); for the candidate +0.049 printed, -0.014 in
the world (0.564 against 0.669).  The ±50% band of the compendium's default (0.488: [0.244, 0.732]) held the control
world too (0.723), so all six accuracy cells read ``not tested``: pinned far too loosely to test anything.

*How far a family reaches.*  Every accuracy of Table I is, in expectation, linear in the cells' conditionals, so
its range over the worlds that reach the calibration targets is a linear programme.  With per-class agreement
accuracies free (the family below) E[Acc(IndDis)] spans [0.506, 0.671] for the baseline (the printed 0.488 below
it by 0.018) and [0.435, 0.682] for the candidate (0.669 inside); the offline accuracies span [0.384, 0.623] and
[0.459, 0.698] (0.510 and 0.620 inside).  Even the widest family the text admits, every (B, C) cell with its own
conditional, keeps E[Acc(IndDis)] of the baseline at 0.500 or more: 0.488 is out of reach in expectation of every
world whose offline set is drawn by cell from the live set with the live conditional (the paper's own sampling,
Section IV-A, and its assumption 2); only the offline draw's noise (100 items) comes near it.  OAM JointDis is
unbiased in every member (its expectation is the online accuracy over the covered live mass: [0.728, 0.730] and
[0.761, 0.763]), so the printed 0.695 and 0.774 (-0.032 and +0.013 from online) are the paper's draw, reachable by
noise only.

*The widening and the sentence that allows it.*  "The conditional probability of the ground-truth G with respect
the hypothesis H_B and H_C over the online data, i.e., p[G(d) = C_k | H_B(d) = C_i, H_C(d) = C_j], can be well
approximated by the same conditional probability over the offline data" (Section III, assumption 2): the paper's
mechanism is a conditional indexed by the classes, nothing ties it across classes, and "we report the standard
deviation across all classes between the real values of the recall/precision and the estimated ones" (Section
IV-A) says the per-class metrics differ.  So the per-class agreement accuracy ``a_k`` is free in [0, 1] (it was a
random 0.05 spread around a chosen 0.9) and ``b_B``, ``b_C`` stay solved for the printed online accuracies: the
accepted family (:mod:`._table1_family`).  No other printed number is declared to narrow it, so each accuracy cell
is predicted over the whole family, as yi's Table 5: its members minimising and maximising the cell's expectation
(``table1_family.csv``, 4 distinct members, all reaching the targets exactly) run on every seed beside the same
members with an unbiased offline set (the control).  The effect was first declared as the printed value's depth
inside the members' span (direction '>', delta 0.0005 from the printed precision) and ran on block 986905288-
986905307; a prediction's status must be within-tolerance, differs or not tested (the audit's rule), so it is
re-declared in that form on one more fresh block: on each seed the member value nearest the printed one (the
printed value clipped to the span), equal to the printed value within 0.0005 -- the same family and delta, the
printed value reached by a member on (nearly) every seed.  The std cells keep the fitted world and the ±50% band:
the family does not touch them.

*What the family gives* (the last renewed block; the depth form's results are in each row's ``revised``): the
baseline's offline and the candidate's offline accuracies are within tolerance (a member reaches 0.510 and 0.620
on all 20 seeds; the control's nearest members give 0.694 and 0.732); the baseline's IndDis differs (0.488 lies below every member on all
20 seeds, by 0.017 on average: the nearest member gives 0.505 [0.504, 0.506]); the baseline's JointDis differs (the
members reach 0.695 on 9 of 20 seeds only: nearest 0.708 [0.702, 0.714]); the candidate's IndDis (0.667 [0.665,
0.669] against 0.669) and JointDis (0.773 [0.771, 0.775] against 0.774, the control as close) are inconclusive.
Not done: a family for the std cells (their printed values would need the per-cell conditionals, a 45-dimensional
family the printed numbers do not pin).

Protocol.  The toy example and the Section IV-A matrices are recomputed from
the paper's printed inputs (world ``paper``): each printed ``M_BC^(o)`` cell of
the toy from its two printed ``M_BCG^(o)`` slices, each printed relative
difference from the two printed 5 x 5 matrices, Lemma 1 on both; the printed
live matrix is asked which live size M it is a distribution of (two readings of
the text: counts over the printed 627 items, or shares of simulated live data
of a size not printed).  Eqs. (1)-(13) and Algorithm 1, as
:mod:`offline_eval.adaptive` implements them, are checked against direct loops
we wrote on random inputs (:mod:`._equations`): checks of our code,
counted with our checks, not the paper's results.

Table I's data (627 paper titles, naive Bayes vs BERT) are not available, so
its mechanism is rebuilt (world ``synthetic: Table I world``): a live set of
627 items whose (B, C) cell counts are the printed ``M_BC^(l)``; ground truth
from a conditional ``p(G | B, C)`` solved so the online accuracies are the
printed ones (calibrations); an offline set of 100 items drawn by cell with
the printed ``M_BC^(o)`` counts.  Each claim of Table I declares its effect and
is judged by the estimate rule over the confirmation seeds, beside the control
world whose offline cells follow the live shares (no sampling bias,
:data:`CONTROL_T1`); each printed offline and OAM cell is a prediction, the
seeds' interval against the printed value's band.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ... import reference
from offline_eval.synth import check_rng
from offline_eval.adaptive import joint_distribution, metrics_from_joint, reweighted_joint
from ...claims import RENEWAL, Claim, Ledger, SeedBlocks, declare, matches_printed, seed_sweep
from ...reference import printed_decimals
from offline_eval.plotting import new_figure
from offline_eval.synth import classifiers as synth
from ._evaluation import (CONTROL_T1, MODELS, SECTION, TOY, evaluation_table, paper_table,
                              paper_online_accuracy, paper_sizes, printed_matrix, relative_difference,
                              rms_of_differences, std_of_differences, std_reading_evidence, sweep_row)
from ._sweep_claims import fill_predictions, fill_sweep_claims, prediction_claim, sweep_claims
from ._equations import equation_claims, equations_table, fill_equation_claims
from ._tried_worlds import tried_worlds_table as _tried_worlds
from ._table1_family import CELLS as FAMILY_CELLS, family_claims, family_rows, family_seed, table1_family

__all__ = ["CLAIMS", "SEEDS", "CONTROL_T1", "ILLUSTRATIVE_LIVE", "SECTION", "PiovanoMatricesTable1Run", "add_claims",
           "denominator_search", "equations_table", "matrices_figure", "matrices_table", "paper_table",
           "printed_matrix", "rms_of_differences", "run_experiment", "std_of_differences", "std_reading_evidence",
           "table1_experiment", "table1_sweep_row", "toy_table", "tried_worlds_table"]

T1_WORLD = "synthetic: Table I world (the printed matrices, a simulated truth)"
T1_CONTROL = "the offline set drawn by cell in the live shares (the sampling bias switched off)"
T1_SWEEPS = ("piovano/table1_seed_sweep.csv", "piovano/table1_seed_sweep_control.csv", "piovano/table1_tried.csv")
STD_TEXT = ("Proving the precision and recall for each class would have not been feasible in terms of space given "
            "the large number of classes, hence we report the standard deviation across all classes between the "
            "real values of the recall/precision and the estimated ones by the utilized evaluation method.")
LIVE_TEXT = ("After the splitting, the first dataset contains 627 samples for the overall online live traffic ... "
             "From the simulated live data of both datasets, we build the joint distributions of the hypothesis "
             "M_BC^(l)")

#: The seed blocks of every sweep, declared before any result: 20 seeds each (the sweep once ran on 50, a count
#: raised after a first result; the rule's 20 is declared here for both blocks), the development block from seed 0
#: (the seeds the claims were developed on) and a confirmation block no development run used (renewed when the
#: claims moved to the estimate rule: the earlier block stays on record).
SEEDS = SeedBlocks("piovano_matrices_table1", development=0).renewed(RENEWAL).renewed(
    "the Table I world widened to the family of per-class agreement accuracies the printed online accuracies accept; "
    "its six accuracy predictions judged over the family (the printed value's depth inside its span), their delta "
    "from the printed precision").renewed(
    "the six accuracy predictions re-declared in a prediction's printed-value form (the member value nearest the "
    "printed one, equal to it within the printed precision): the same family and delta")
#: The accuracy predictions' world: the whole family the printed online accuracies accept (:mod:`._table1_family`).
T1_FAMILY = ("synthetic: the Table I family (the printed matrices; per-class agreement accuracies free in [0, 1], the "
             "disagreement rates solved for the printed online accuracies)")
T1_FAMILY_CONTROL = ("the same members with the offline set drawn by cell in the live shares (the sampling bias "
                     "switched off)")
T1_FAMILY_EVIDENCE = ("piovano/table1_family.csv", "piovano/table1_family_sweep.csv",
                      "piovano/table1_family_sweep_control.csv")
#: The two readings of the printed live matrix (:func:`_live_matrix_row`).
LIVE_READINGS = ("counts over the printed M = 627 live items",
                 "shares of the simulated live data M_BC^(l) is built from, of a size not printed")

CLAIMS = declare(
    Claim("piovano-toy-mbc-*", TOY, "Note that the following relationship between M_BCG^(o) and M_BC^(o) holds: "
          "M_BC^(o)(i, j) = sum_k M_BCG^(o)(i, j, k) (each printed cell of the toy's M_BC^(o))", "printed",
          "each printed M_BC^(o) cell equals the sum of the two printed M_BCG^(o) slices",
          evidence=("piovano/toy.csv",)),
    Claim("piovano-toy-live-matrix", TOY, "Assume that the live traffic data have the following joint distribution "
          "matrix: M_BC^(l) = [the printed 2 x 2 matrix]. Few factors could drive M_BC^(l) to deviate from M_BC^(o)",
          "claim", "read literally (the printed M_BC^(l) is the toy's live matrix), the example is consistent: every "
          "weight of eq. (7) is 1 and the OAM of eqs. (8)-(13) equal the offline metrics of eqs. (1)-(6)",
          evidence=("piovano/toy.csv",)),
    Claim("piovano-toy-lemma1", TOY, "Lemma 1: sum_{i,j,k} M_BCG^(o)(i, j, k) M_BC^(l)(i, j) / M_BC^(o)(i, j) = 1",
          "formula", "|sum - 1| <= 1e-12 for the toy's printed M_BCG^(o) and an illustrative live matrix of ours",
          evidence=("piovano/toy.csv",)),
    Claim("piovano-reldiff-*", SECTION, "we show here the relative difference in percentage of the offline "
          "distribution compared to the online one (each printed cell)", "printed",
          "100 (M^(o) - M^(l)) / M^(l) from the two printed matrices (0 where both are 0)",
          evidence=("piovano/matrices.csv", "piovano/matrices.png")),
    Claim("piovano-live-matrix-627", SECTION, LIVE_TEXT, "printed",
          f"two readings of the text: ({LIVE_READINGS[0]}) every printed M_BC^(l) cell is round(100 c / 627, 2) for "
          f"an integer count c; ({LIVE_READINGS[1]}) the 25 cells sum to 100% within their rounding (+-0.125); "
          "ambiguous when only one fits",
          evidence=("piovano/live_matrix_denominators.csv",),
          revised="an erratum (the matrix is not a distribution of the printed 627 items); revised because the text "
                  "builds M_BC^(l) 'from the simulated live data', whose size it does not print, and 24 of the 25 "
                  "cells fit M = 4984: which sample the matrix counts is a reading, not a proven error"),
    Claim("piovano-offline-matrix-sums", SECTION, "From the first dataset we then random sample N = 100 data out of "
          "the 627 live data ... according to the respective M_BC^(o)", "claim",
          "every printed M_BC^(o) cell is an integer percent and the cells sum to 100%",
          evidence=("piovano/matrices.csv",)),
    Claim("piovano-lemma1-printed-matrices", SECTION, "The following lemma guarantees that the probabilities defined "
          "in the RHS of (7) sums to 1 ... Lemma 1 (for the paper's own Section IV-A matrices)", "check",
          "the re-weighted M_BCG^(o) of eq. (7) sums to 1 on the printed M_BC^(l), M_BC^(o): the lemma's condition "
          "(M_BC^(o) > 0 wherever M_BC^(l) > 0) checked on the paper's own example",
          evidence=("piovano/matrices.csv",),
          revised="a formula row counted an erratum; revised because a condition the paper's own example breaks is "
          "not a typo: a check that differs"),
    *equation_claims(),
    Claim("piovano-std-reading", SECTION, STD_TEXT, "formula",
          "two readings of 'std': the sd of the per-class differences d_k = est_k - online_k (ddof 0) and their root "
          "mean square (which keeps the bias). OAM IndDis keeps each predicted class's precision, so Acc(IndDis) - "
          "Acc(online) = sum_k q_k d_k of the precisions (q: the model's live predicted-class shares, printed for "
          "Table I as the sums of M_BC^(l)) and rms >= |Acc(IndDis) - Acc(online)| / sqrt(K sum_k q_k^2); a reading "
          "is excluded in a cell where the printed std. Prec. plus half its last digit is below its least value at "
          "the worst case of the printed rounding, and admitted where per-class precisions in [0, 1] meet every "
          "printed number of the row (a witness). Both readings shown; ambiguous when the printed cells admit one "
          "reading and exclude the other (the one that fits is then chosen because it fits), exact when both fit",
          evidence=("piovano/std_reading.csv",),
          revised="holds when the printed cells admit the sd reading wherever they decide and exclude the rms reading "
          "in at least one; revised because a reading chosen because it fits is ambiguous, not a claim that holds: "
          "the exclusion rests on one cell and on how IndDis re-weights"),
    Claim("piovano-T1-live-matrix-realised", "Table I", "the simulated live set has the printed M_BC^(l) "
          "(our construction)", "check", "every cell within one item (100/n_live %) of the printed share",
          world=T1_WORLD, evidence=("piovano/table1.csv",)),
    Claim("piovano-T1-offline-matrix-realised", "Table I", "the simulated offline set has the printed M_BC^(o) "
          "(our construction)", "check", "every cell equal to the printed share", world=T1_WORLD,
          evidence=("piovano/table1.csv",)),
    Claim("piovano-T1-online-acc-*", "Table I", "Table I: Online metrics, Acc. (the simulated truth's target)",
          "calibration", "the simulated truth's online accuracy within half a unit of the printed precision",
          world=T1_WORLD, evidence=("piovano/table1.csv",)),
    *sweep_claims("T1", "Table I", T1_WORLD, T1_CONTROL, T1_SWEEPS),
    *family_claims(T1_FAMILY, T1_FAMILY_CONTROL, T1_FAMILY_EVIDENCE),
    prediction_claim("T1", "Table I", T1_WORLD, T1_CONTROL, T1_SWEEPS + ("piovano/table1.csv",)),
)


# -- the toy example and the Section IV-A matrices ------------------------------------------------
def toy_table(ref: pd.DataFrame, illustrative_live=None) -> pd.DataFrame:
    """Metrics of the toy example: offline (eqs. 1-6) and OAM with the printed live matrix.

    ``illustrative_live`` (2 x 2) adds an OAM row for a live matrix of our own
    choosing (the printed one equals the offline one, see the notebook).
    """
    m_bc_o, _ = printed_matrix(ref, TOY, "M_BC^(o)")
    m_bcg = np.stack([printed_matrix(ref, TOY, f"M_BCG^(o)(:,:,C{k})")[0] for k in (1, 2)], axis=-1)
    m_bc_l, _ = printed_matrix(ref, TOY, "M_BC^(l)")
    cases = [("Offline (eqs. 1-6)", metrics_from_joint(m_bcg)),
             ("OAM, printed M_BC^(l) (eqs. 8-13)", metrics_from_joint(reweighted_joint(m_bcg, m_bc_l)[0]))]
    if illustrative_live is not None:
        cases.append(("OAM, illustrative M_BC^(l) (ours)", metrics_from_joint(reweighted_joint(m_bcg, illustrative_live)[0])))
    rows = []
    for label, res in cases:
        for model in MODELS:
            r = res.model(model)
            rows.append({"setting": label, "model": model, "Acc": r.accuracy, "Rec(C1)": r.recall[0], "Rec(C2)": r.recall[1],
                         "Prec(C1)": r.precision[0], "Prec(C2)": r.precision[1]})
    return pd.DataFrame(rows)


def matrices_table(ref: pd.DataFrame) -> pd.DataFrame:
    """Every cell of the Section IV-A matrices: live, offline, printed and recomputed relative difference."""
    live, live_s = printed_matrix(ref, SECTION, "M_BC^(l)")
    off, off_s = printed_matrix(ref, SECTION, "M_BC^(o)")
    rel, rel_s = printed_matrix(ref, SECTION, "relative difference")
    rec = relative_difference(off, live)
    rows = []
    k = live.shape[0]
    for i in range(k):
        for j in range(k):
            rows.append(dict(row=f"B=C{i + 1}", column=f"C=C{j + 1}", live_printed=live_s[i, j], offline_printed=off_s[i, j],
                             reldiff_printed=rel_s[i, j], reldiff_recomputed=rec[i, j],
                             matches=matches_printed(rec[i, j], rel_s[i, j]),
                             uncovered=bool(off[i, j] == 0 < live[i, j])))
    return pd.DataFrame(rows)


def denominator_search(percent, *, lo: int = 100, hi: int = 5000) -> pd.DataFrame:
    """Which cells of a printed percentage matrix are ``count / M`` for some integer count, per M.

    For each ``M`` in ``[lo, hi]`` and each cell, is there an integer ``c``
    with ``round(100 c / M, d) == printed`` (d = 2 decimals)?  Returns one row
    per M with the number of cells that fit.
    """
    p = np.asarray(percent, float).ravel()
    rows = []
    for m in range(lo, hi + 1):
        c = np.round(p / 100 * m)
        fits = np.zeros(p.size, bool)
        for dc in (-1, 0, 1):
            fits |= np.abs(np.round(100 * np.maximum(c + dc, 0) / m, 2) - p) < 1e-9
        rows.append(dict(M=m, cells_fitting=int(fits.sum()), cells=p.size))
    return pd.DataFrame(rows)


def matrices_figure(ref: pd.DataFrame):
    """Heat maps of the printed live and offline matrices and of the relative difference."""
    live, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    rel = relative_difference(off, live)
    fig, axes = new_figure(3, 1, width="double", height=2.4)
    for ax, mat, title, cmap in ((axes[0], live, "live $M_{BC}^{(l)}$ (%)", "Blues"), (axes[1], off, "offline $M_{BC}^{(o)}$ (%)", "Blues"),
                                 (axes[2], rel, "relative difference (%)", "RdBu_r")):
        vmax = np.abs(mat).max()
        ax.imshow(mat, cmap=cmap, vmin=-vmax if cmap == "RdBu_r" else 0, vmax=vmax)
        for (i, j), v in np.ndenumerate(mat):
            ax.text(j, i, f"{v:.0f}" if abs(v) >= 100 else f"{v:.1f}", ha="center", va="center", fontsize=5.5)
        ax.set_xticks(range(5), [f"C{j + 1}" for j in range(5)])
        ax.set_yticks(range(5), [f"C{i + 1}" for i in range(5)])
        ax.set_xlabel("candidate $H_C$")
        ax.set_title(title)
        ax.grid(False)
    axes[0].set_ylabel("baseline $H_B$")
    fig.tight_layout()
    return fig


def table1_experiment(seed, *, ref: pd.DataFrame, n_live: int | None = None, n_offline: int | None = None,
                      target_accuracy=None, agree_correct: float = 0.9, class_spread: float = 0.05,
                      offline_matrix: str = "printed"):
    """Table I analogue: the live set has the printed ``M_BC^(l)``, the offline set the printed ``M_BC^(o)``.

    The live (B, C) counts are the printed shares times ``n_live``,
    apportioned to integers (largest remainder); the truth follows
    :func:`offline_eval.synth.classifiers.truth_for_joint_counts`; the
    offline set takes ``n_offline * M_BC^(o)`` items of each cell without
    replacement.  ``None`` sizes and accuracies are the paper's (its 627 live
    and 100 offline items, its online accuracies; ``data/reference``).
    ``offline_matrix="live"`` is the control world: the offline cells follow
    the live shares (no sampling bias).  Returns ``(table, res, info)``.
    """
    if offline_matrix not in ("printed", "live"):
        raise ValueError(f"`offline_matrix` must be 'printed' or 'live'; got {offline_matrix!r}")
    sizes = paper_sizes(ref, "conference papers")
    n_live = sizes["live samples M"] if n_live is None else n_live
    n_offline = sizes["offline samples N"] if n_offline is None else n_offline
    target_accuracy = paper_online_accuracy(ref, "Table I") if target_accuracy is None else target_accuracy
    rng = check_rng(seed)
    live_pct, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off_pct = printed_matrix(ref, SECTION, "M_BC^(o)")[0] if offline_matrix == "printed" else live_pct
    k = live_pct.shape[0]
    live_counts = synth.apportion(live_pct, n_live)
    b, c, g = synth.truth_for_joint_counts(live_counts, target_accuracy=target_accuracy, agree_correct=agree_correct,
                                           class_spread=class_spread, rng=rng)
    off_counts = synth.apportion(off_pct, n_offline, capacity=live_counts)
    idx = synth.sample_by_cell(b, c, off_counts, n_classes=k, rng=rng)
    table, res = evaluation_table(b[idx], c[idx], g[idx], b, c, g, n_classes=k)
    info = dict(live_counts=live_counts, offline_counts=off_counts,
                live_share=joint_distribution(b, c, n_classes=k), offline_share=joint_distribution(b[idx], c[idx], n_classes=k))
    return table, res, info


def table1_sweep_row(seed, **kw) -> dict:
    table, res, _ = table1_experiment(seed, **kw)
    return sweep_row(table, res)


#: A world tried beside the Table I world: the models' accuracy where they agree spread more across classes
#: (more per-class bias for the offline set to reveal); quoted in the notes of the std claims.
T1_TRIED_WORLDS = {"class_spread 0.2": {"class_spread": 0.2}}
_STD_KEYS = ("joint_stdrec_below_offline", "joint_stdprec_below_offline", "joint_stdrec_below_inddis")


def tried_worlds_table(seeds, **kw) -> pd.DataFrame:
    """The Table I world (``kw``) and each of :data:`T1_TRIED_WORLDS` on ``seeds``: medians of the offline,
    IndDis and JointDis sd of recall of both models, and the share of seeds passing each std criterion."""
    return _tried_worlds(table1_sweep_row, seeds, {"Table I world": {}, **T1_TRIED_WORLDS},
                         names=lambda name, knobs: {"world": name, "class_spread": {**kw, **knobs}.get("class_spread")},
                         medians=[f"{m}_{st}_std_Rec" for m in MODELS for st in ("offline", "inddis", "joint")],
                         shares=_STD_KEYS, **kw)


def _tried_note(tried: pd.DataFrame, key: str, ref: pd.DataFrame) -> str:
    t = tried.set_index("world")
    printed = reference.lookup(ref, "Table I", "Offline metrics", "std. Rec.", panel="Candidate")
    parts = [f"{w}: {t.loc[w, key]} seeds" for w in t.index]
    return ("worlds tried (table1_tried.csv): " + "; ".join(parts) + f"; the candidate's offline sd of recall is "
            f"{t.iloc[0]['candidate_offline_std_Rec']:.3f} in the world against the printed {printed}: the world's "
            "per-class bias of the candidate is smaller than the paper's, so JointDis has little to improve on")


#: An illustrative live matrix of ours for the toy (the printed live matrix is the offline one): the confused
#: (B = C2, C = C1) cell rarer live, 0.05 instead of 0.15.
ILLUSTRATIVE_LIVE = np.array([[0.65, 0.05], [0.05, 0.25]])


@dataclasses.dataclass(frozen=True, kw_only=True)
class PiovanoMatricesTable1Run:
    """Everything the notebook shows and the ledger reads (:func:`run_experiment`); per seed block where keyed by
    block."""

    ref: pd.DataFrame  #: the printed numbers (``data/reference/piovano``)
    sizes: pd.Series  #: the printed sizes of the conference-paper data set
    target_accuracy: tuple  #: Table I's printed online accuracies, the world's targets
    illustrative_live: np.ndarray  #: :data:`ILLUSTRATIVE_LIVE`
    toy: pd.DataFrame  #: :func:`toy_table`
    matrices: pd.DataFrame  #: :func:`matrices_table`
    denominators: pd.DataFrame  #: :func:`denominator_search` of the printed live matrix
    std_reading: pd.DataFrame  #: :func:`std_reading_evidence`
    tab1: pd.DataFrame  #: one run of :func:`table1_experiment` at the development seed
    res1: dict
    info1: dict
    table1: pd.DataFrame  #: ``tab1`` beside the printed Table I
    sweeps: dict  #: block -> the Table I world's sweep
    controls: dict  #: block -> the control world's sweep
    sweep_means: pd.DataFrame  #: the development sweep's means over seeds
    tried: pd.DataFrame  #: :func:`tried_worlds_table` on the first half of the development seeds
    equations: pd.DataFrame  #: :func:`equations_table`
    family: pd.DataFrame  #: :func:`table1_family`: the accepted family's members (the ends of every accuracy cell)
    family_sweeps: dict  #: block -> each accuracy cell's span over the family's members on every seed
    family_controls: dict  #: block -> the same with the offline set in the live shares
    family_main: pd.DataFrame  #: the family's span on the main seed (one row)
    n_equation_draws: int
    agree_correct: float
    class_spread: float


def run_experiment(blocks: SeedBlocks, *, seed: int = 0, n_live: int | None = None, n_offline: int | None = None,
                   agree_correct: float = 0.9, class_spread: float = 0.05,
                   n_equation_draws: int = 20) -> PiovanoMatricesTable1Run:
    """The toy, the Section IV-A matrices, the std reading, Table I's world at ``seed`` and its sweeps and control
    sweeps on every block of ``blocks``, the tried worlds and the equations' checks."""
    ref = reference.load("piovano")
    sizes = reference.load("piovano", SECTION).query("panel == 'sizes' and row == 'conference papers'")
    target = tuple(reference.parse_printed(reference.lookup(ref, "Table I", "Online metrics", "Acc.", panel=m))
                   for m in ("Baseline", "Candidate"))
    toy = toy_table(ref, ILLUSTRATIVE_LIVE)
    mats = matrices_table(ref)
    search = denominator_search(printed_matrix(ref, SECTION, "M_BC^(l)")[0])
    reading = std_reading_evidence(ref)
    kw1 = dict(ref=ref, n_live=n_live, n_offline=n_offline, target_accuracy=target, agree_correct=agree_correct,
               class_spread=class_spread)
    tab1, res1, info1 = table1_experiment(seed, **kw1)
    sweeps = {b: seed_sweep(table1_sweep_row, blocks.seeds(b), **kw1) for b in blocks.BLOCKS}
    controls = {b: seed_sweep(table1_sweep_row, blocks.seeds(b), **kw1, **CONTROL_T1) for b in blocks.BLOCKS}
    means = sweeps["development"].drop(columns="seed").mean(numeric_only=True).to_frame("mean over seeds").T
    family, fam_kw, fam_control_kw = table1_family(ref, n_live=n_live, n_offline=n_offline, target_accuracy=target)
    family_sweeps = {b: seed_sweep(family_seed, blocks.seeds(b), members=family, **fam_kw) for b in blocks.BLOCKS}
    family_controls = {b: seed_sweep(family_seed, blocks.seeds(b), members=family, **fam_control_kw)
                       for b in blocks.BLOCKS}
    return PiovanoMatricesTable1Run(
        ref=ref, sizes=sizes.set_index("column")["value"], target_accuracy=target, illustrative_live=ILLUSTRATIVE_LIVE,
        toy=toy, matrices=mats, denominators=search, std_reading=reading, tab1=tab1, res1=res1, info1=info1,
        table1=tab1.merge(paper_table(ref, "Table I"), on=["model", "setting"]), sweeps=sweeps, controls=controls,
        sweep_means=means, tried=tried_worlds_table(range(seed, seed + max(blocks.n // 2, 2)), **kw1),
        equations=equations_table(seed, n_draws=n_equation_draws), family=family, family_sweeps=family_sweeps,
        family_controls=family_controls, family_main=pd.DataFrame([family_seed(seed, members=family, **fam_kw)]),
        n_equation_draws=n_equation_draws,
        agree_correct=agree_correct, class_spread=class_spread)


# -- the ledger ------------------------------------------------------------------------------------
def _toy_rows(ledger: Ledger, ref: pd.DataFrame, illustrative_live, toy: pd.DataFrame) -> None:
    m_bc_o, m_bc_o_txt = printed_matrix(ref, TOY, "M_BC^(o)")
    m_bcg = np.stack([printed_matrix(ref, TOY, f"M_BCG^(o)(:,:,C{k})")[0] for k in (1, 2)], axis=-1)
    m_bc_l, _ = printed_matrix(ref, TOY, "M_BC^(l)")
    for (i, j), printed in np.ndenumerate(m_bc_o_txt):
        ledger.printed(f"piovano-toy-mbc-B{i + 1}C{j + 1}", printed=printed, value=m_bcg[i, j].sum(),
                       detail=f"cell (C{i + 1}, C{j + 1})")
    diff = float(np.abs(m_bc_l - m_bc_o).max())
    t = toy.set_index(["setting", "model"]).drop(columns=[])
    oam = t.xs("OAM, printed M_BC^(l) (eqs. 8-13)", level="setting")
    off = t.xs("Offline (eqs. 1-6)", level="setting")
    same = float(np.nanmax(np.abs(oam.to_numpy(float) - off.to_numpy(float))))
    ledger.check("piovano-toy-live-matrix", holds=diff == 0 and same <= 1e-12,
                 paper_value="the printed M_BC^(l) and M_BC^(o)",
                 reproduced_value=f"max |M_BC^(l) - M_BC^(o)| = {diff:g}; max |OAM - offline| = {same:.2g}",
                 note="two readings, and the text does not settle which: (a) literal -- 'could deviate' speaks of the "
                      "general case and the printed live matrix is the toy's, equal to the offline one cell by cell, "
                      "so the example re-weights nothing (this row); (b) a copy of M_BC^(o) printed where a live "
                      "matrix with a rarer (B=C2, C=C1) cell was meant (the text goes on about over-sampling those "
                      "confused items offline) -- the intended matrix is not printed, so nothing can be recomputed. "
                      "An ambiguous reading, not counted as an erratum (it was one before); toy.csv adds an "
                      "illustrative live matrix of ours to show the re-weighting at work")
    w, _ = reweighted_joint(m_bcg, np.asarray(illustrative_live, dtype=float))
    ledger.check("piovano-toy-lemma1", holds=abs(w.sum() - 1) <= 1e-12, paper_value="the weights sum to one",
                 reproduced_value=f"{w.sum():.15f}")


def _matrix_rows(ledger: Ledger, ref: pd.DataFrame, mats: pd.DataFrame, search: pd.DataFrame) -> None:
    for _, r in mats.iterrows():
        ledger.printed(f"piovano-reldiff-{r['row'].replace('=', '')}{r['column'].replace('=', '')}",
                       printed=r["reldiff_printed"], value=r["reldiff_recomputed"],
                       detail=f"cell ({r['row']}, {r['column']})")
    sizes = {k: str(v) for k, v in paper_sizes(ref, "conference papers").items()}
    live_pct, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off_pct, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    at_m = search.set_index("M").loc[int(sizes["live samples M"]), "cells_fitting"]
    best = search.sort_values(["cells_fitting", "M"], ascending=[False, True]).head(5)
    m = sizes["live samples M"]
    n_best, m_best = int(best["cells_fitting"].iloc[0]), int(best["M"].iloc[0])
    total = float(live_pct.sum())
    ledger.readings("piovano-live-matrix-627", printed=f"M = {m}; the {live_pct.size} printed cells of M_BC^(l)",
                    readings={LIVE_READINGS[0]: f"{at_m}/25 cells fit M = {m}",
                              LIVE_READINGS[1]: f"the cells sum to {total:.2f}%; best M in 100..5000: {n_best}/25 "
                                                f"cells at M = {m_best}"},
                    fits={LIVE_READINGS[0]: bool(at_m == 25), LIVE_READINGS[1]: bool(abs(total - 100) <= 25 * 0.005)},
                    note=f"only {at_m} of the 25 printed cells equal round(100 c / {m}, 2) for an integer c (e.g. the "
                         f"first cell, {mats['live_printed'].iloc[0]}, lies between two such values); no M in "
                         f"100..5000 fits all 25 (best: {n_best}/25 at M = {m_best}); the text says the joint "
                         "distributions are built 'from the simulated live data', whose size it does not print, so "
                         "the matrix may count another sample than the 627 items: a reading, not a proven erratum. "
                         "The Table I world uses the printed shares apportioned to the printed M "
                         "(piovano-T1-live-matrix-realised)")
    ledger.check("piovano-offline-matrix-sums", holds=bool(np.allclose(off_pct, np.round(off_pct))
                                                           and off_pct.sum() == 100),
                 reproduced_value=f"sum {off_pct.sum():g}%")
    unc = mats[mats["uncovered"]]
    m_bcg_any = np.zeros((5, 5, 5))
    m_bcg_any[:, :, 0] = off_pct  # the truth split does not matter for the total mass
    w_sum = float(reweighted_joint(m_bcg_any, live_pct)[0].sum())
    ledger.check("piovano-lemma1-printed-matrices", holds=bool(abs(w_sum - 1) <= 1e-9), paper_value="sums to one (Lemma 1)",
                 reproduced_value=f"{w_sum:.4f}",
                 note=f"cells {', '.join('(' + r + ', ' + c + ')' for r, c in zip(unc['row'], unc['column']))} "
                            f"carry {live_pct[off_pct == 0].sum():.2f}% live mass and no offline sample (printed "
                            "relative difference -100%); the proof divides by M_BC^(o)(i, j) = 0, so the lemma needs "
                            "M_BC^(o) > 0 wherever M_BC^(l) > 0, a condition the paper's own matrices break. One "
                            "root: the OAM of Table I then cover only the covered live mass (uncovered_mass in "
                            "table1_seed_sweep.csv)")


def _std_reading_row(ledger: Ledger, reading: pd.DataFrame) -> None:
    decided = reading[reading["sd_admitted"].isin(["yes", "no witness found"])]
    excluded = decided[decided["rms_admitted"] == "excluded"]
    sd_ok = bool((decided["sd_admitted"] == "yes").all())
    cells = "; ".join(f"{r.table} {r.model}: printed {r.std_prec_inddis}, least rms {r.rms_least:.4f} "
                      f"({r.rms_admitted}), sd {'admitted' if r.sd_admitted == 'yes' else 'not shown admissible'}"
                      for r in decided.itertuples())

    def margin(r):  # how far the least rms lies beyond the printed value and its rounding
        printed = r.std_prec_inddis
        return r.rms_least - reference.parse_printed(printed) - 0.5 * 10.0 ** -reference.printed_decimals(printed)

    where = ", ".join(f"{r.table} ({r.model}, by {margin(r):.4f} beyond the rounding)" for r in excluded.itertuples())
    note = (f"the printed numbers support the sd of the per-class differences: in {where} the printed std. Prec. is "
            "below the least root mean square the printed accuracies allow (the whole evidence is that one cell), "
            "and a witness (std_reading.csv: per-class precisions online and offline) meets every printed number of "
            "the row under the sd reading. So the predictions use the sd reading and show the root mean square beside "
            "it. Table II's live shares are not printed, so its cells cannot decide, nor can any cell tell ddof 0 "
            "from 1; the bound assumes IndDis re-weights by each model's own predicted class (the printed std. Prec. "
            "of IndDis equal to Offline in all 4 cells says so) and takes the live shares as printed (the matrix is "
            "not k/627 in every cell, piovano-live-matrix-627)")
    ledger.readings("piovano-std-reading",
                    printed="; ".join(f"{r.table} {r.model}: std. Prec. {r.std_prec_inddis} (Offline and IndDis), "
                                      f"Acc. online {r.acc_online}, IndDis {r.acc_inddis}" for r in decided.itertuples()),
                    readings={"sd of the per-class differences": "admitted in every deciding cell" if sd_ok else
                              "not shown admissible in every deciding cell",
                              "their root mean square": f"excluded in {len(excluded)} cell(s): {cells}"},
                    fits={"sd of the per-class differences": sd_ok, "their root mean square": not len(excluded)},
                    note=(note + ". The sd reading is the one that fits, chosen because it fits: ambiguous, and every "
                          "std claim and prediction is judged under both readings (ambiguous where they disagree)")
                    if len(excluded) else "no printed cell excludes either reading")


def add_claims(ledger: Ledger, run: PiovanoMatricesTable1Run, *, block: str) -> None:
    """Fill every declared claim of :data:`CLAIMS` in seed block ``block`` of ``ledger`` from ``run``
    (:func:`run_experiment`)."""
    if block not in run.sweeps:
        raise ValueError(f"`block` must be one of {tuple(run.sweeps)}; got {block!r}")
    ledger = ledger.block(block)
    ref, toy, illustrative_live, mats, search = run.ref, run.toy, run.illustrative_live, run.matrices, run.denominators
    equations, n_draws, tab1, res1, info1 = run.equations, run.n_equation_draws, run.tab1, run.res1, run.info1
    sweep1, control1, reading, tried = run.sweeps[block], run.controls[block], run.std_reading, run.tried
    agree_correct, class_spread = run.agree_correct, run.class_spread
    _toy_rows(ledger, ref, illustrative_live, toy)
    _matrix_rows(ledger, ref, mats, search)
    fill_equation_claims(ledger, equations, n_draws=n_draws)
    _std_reading_row(ledger, reading)
    live_pct, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off_pct, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    m_live = int(np.asarray(info1["live_counts"]).sum())
    live_err_items = np.abs(info1["live_share"] * 100 - live_pct).max() / (100 / m_live)
    ledger.check("piovano-T1-live-matrix-realised", holds=bool(live_err_items <= 1 + 1e-9),
                 reproduced_value=f"max deviation {live_err_items:.2f} items",
                 note="the printed shares are not k/M (see piovano-live-matrix-627); counts by largest remainder")
    ledger.check("piovano-T1-offline-matrix-realised",
                 holds=bool(np.allclose(info1["offline_share"] * 100, off_pct, atol=1e-9)),
                 reproduced_value=f"max |diff| {np.abs(info1['offline_share'] * 100 - off_pct).max():.2g} pp")
    for model in MODELS:
        printed = reference.lookup(ref, "Table I", "Online metrics", "Acc.", panel=model.capitalize())
        ledger.calibration(f"piovano-T1-online-acc-{model}", printed=printed,
                           value=float(tab1.query("model == @model and setting == 'Online metrics'")["Acc"].iloc[0]),
                           atol=0.5 * 10.0 ** -printed_decimals(printed), detail=model,
                           note="the calibration target of the simulated truth (by construction), not a reproduction")
    note = (f"live truth simulated (agree_correct={agree_correct}, class_spread={class_spread}); uncovered live mass "
            f"{sweep1['uncovered_mass'].mean():.4f}; control: offline cells in the live shares")
    fill_sweep_claims(ledger, sweep1, control1, prefix="T1", what="Table I analogue (5 classes, printed matrices)",
                      ref=ref, source="Table I", note=note, main=sweep_row(tab1, res1),
                      notes={k: _tried_note(tried, k, ref) for k in _STD_KEYS})
    fill_predictions(ledger, sweep1, control1, ref, source="Table I", prefix="T1", main=tab1,
                     note="the printed matrices and the online accuracies are the inputs",
                     skip=[(m, s, "Acc") for m, s in FAMILY_CELLS])
    family_rows(ledger, run, block)

