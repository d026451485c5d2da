"""piovano: the toy example, the Section IV-A matrices, Tables I-III and Theorem 2.

Each ``*_experiment(seed, ...)`` runs one seed and returns tables; each
``*_sweep_row(seed, ...)`` returns the flat dict :func:`offline_eval.compendium.claims.seed_sweep`
needs, with one boolean per qualitative claim (its criterion is fixed in
:data:`SWEEP_CRITERIA`).  Printed numbers come from ``data/reference/piovano/``.

"std" follows the paper's text (Section IV-A): "the standard deviation across
all classes between the real values of the recall/precision and the
estimated ones", i.e. ``std_k(est_k - online_k)`` (population std, ddof=0)
over the classes where both values are defined.  It is blind to a shift
common to all classes, so the accuracy error is reported beside it.
"""

from __future__ import annotations

import warnings
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import pandas as pd
from scipy import stats

from .. import reference
from ..._validation import OfflineEvalWarning, check_rng
from ...adaptive import joint_distribution, metrics_from_joint, online_adaptive_metrics, reweighted_joint
from ..claims import SIZE_RTOL, Ledger, matches_printed
from ...plotting import new_figure
from ...synth import classifiers as synth

__all__ = [
    "SETTINGS",
    "add_distortion_calibration",
    "releases_note",
    "calibrate_offline_distortion",
    "offline_distortion",
    "OfflineDistortion",
    "SWEEP_CRITERIA",
    "add_sweep_claims",
    "add_table_predictions",
    "offline_accuracy_note",
    "convergence_experiment",
    "convergence_figure",
    "convergence_summary",
    "convergence_sweep",
    "denominator_search",
    "digits_experiment",
    "evaluation_table",
    "matrices_figure",
    "matrices_table",
    "paper_table",
    "printed_matrix",
    "relative_difference",
    "releases_experiment",
    "sweep_row",
    "CONTROL_RANDOM",
    "CONTROL_RELEASES",
    "CONTROL_T1",
    "add_convergence_claims",
    "add_table3_claims",
    "table3_table",
    "add_printed_matrix_claims",
    "add_table1_run_claims",
    "add_toy_claims",
    "fig1_counts",
    "fig1_figure",
    "fig1_row",
    "paper_online_accuracy",
    "paper_sizes",
    "table1_experiment",
    "table2_sets",
    "table2_experiment",
    "toy_table",
]

MODELS = ("baseline", "candidate")
SETTINGS = ("Online metrics", "Offline metrics", "OAM IndDis", "OAM JointDis")
SECTION = "Section IV-A"
TOY = "Section II toy example"

# One boolean per seed and claim; each must hold for both models.
SWEEP_CRITERIA = {
    "joint_acc_beats_offline": "|Acc(OAM JointDis) - Acc(online)| < |Acc(offline) - Acc(online)| for both models",
    "joint_acc_beats_inddis": "|Acc(OAM JointDis) - Acc(online)| < |Acc(OAM IndDis) - Acc(online)| for both models",
    "joint_stdrec_below_offline": "std. Rec. of OAM JointDis < std. Rec. of offline, both models",
    "joint_stdprec_below_offline": "std. Prec. of OAM JointDis < std. Prec. of offline, both models",
    "joint_stdrec_below_inddis": "std. Rec. of OAM JointDis < std. Rec. of OAM IndDis, both models",
    "inddis_prec_equals_offline": "max_k |P_IndDis(k) - P_offline(k)| <= 1e-12 for both models",
    "offline_underestimates_acc": "Acc(offline) < Acc(online) for both models",
}


@contextmanager
def _quiet():
    """Silence the expected undefined-class / uncovered-mass warnings (both are reported in the tables)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        yield


# -- printed matrices --------------------------------------------------------------------------
def printed_matrix(ref: pd.DataFrame, source: str, panel: str) -> tuple[np.ndarray, np.ndarray]:
    """A printed K x K matrix: (numbers, the printed strings).  Rows B=C1.., columns C=C1.."""
    sel = ref[(ref["source"] == source) & (ref["panel"] == panel)]
    if sel.empty:
        raise ValueError(f"no printed matrix {panel!r} in {source!r}")
    k = int(round(np.sqrt(len(sel))))
    text = np.empty((k, k), dtype=object)
    for _, r in sel.iterrows():
        text[int(r["row"].split("C")[-1]) - 1, int(r["column"].split("C")[-1]) - 1] = r["value"]
    return np.vectorize(reference.parse_printed, otypes=[float])(text), text


def calibrate_offline_distortion(ref: pd.DataFrame) -> tuple[float, float, float, pd.DataFrame]:
    """The offline-set generator's knobs fitted to the paper's printed pair ``M^(l)``, ``M^(o)`` (Section IV-A).

    :func:`offline_eval.synth.classifiers.random_offline_joint` draws
    ``M^(o) ∝ M^(l)^flatten exp(sigma Z) boost^[i != j]``, so on the cells
    where both printed matrices are positive
    ``log M^(o) = a + flatten log M^(l) + log(boost) [i != j] + sigma Z``: an
    ordinary least-squares fit of the offline log-shares on an intercept, the
    live log-shares and the disagreement indicator gives ``flatten``,
    ``boost = exp(slope)`` and ``sigma`` = the residual standard deviation
    (``ddof = 3``).  Cells with a printed 0 are left out (the log is
    undefined).  The printed ``M^(o)`` is itself a sample of N = 100 items, so
    its counting noise is in ``sigma`` too (an upper bound on the generator's
    distortion).

    Returns ``(sigma, boost, flatten, cells)``, ``cells`` one row per printed
    cell with ``live, offline, disagreement, log_ratio, used``; the knobs
    rounded to 3 decimals (stated numbers, the same on every CPU).
    """
    live, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    k = live.shape[0]
    dis = ~np.eye(k, dtype=bool)
    used = (live > 0) & (off > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(used, np.log(off / np.where(live > 0, live, 1.0)), np.nan)
    log_live, log_off = np.log(live[used] / live.sum()), np.log(off[used] / off.sum())
    x = np.column_stack([np.ones(used.sum()), log_live, dis[used].astype(float)])
    coef, *_ = np.linalg.lstsq(x, log_off, rcond=None)
    resid = log_off - x @ coef
    sigma = float(np.sqrt(resid @ resid / (used.sum() - x.shape[1])))
    i, j = np.indices((k, k))
    cells = pd.DataFrame({"B": i.ravel() + 1, "C": j.ravel() + 1, "live": live.ravel(), "offline": off.ravel(),
                          "disagreement": dis.ravel(), "log_ratio": ratio.ravel(), "used": used.ravel()})
    return round(sigma, 3), round(float(np.exp(coef[2])), 3), round(float(coef[1]), 3), cells


class OfflineDistortion(NamedTuple):
    """The offline-set generator's knobs to use, and the fit they default to (:func:`offline_distortion`)."""

    sigma: float
    boost: float
    flatten: float
    sigma_fit: float
    boost_fit: float
    flatten_fit: float
    cells: pd.DataFrame

    def knobs(self) -> dict:
        """The knobs as keywords of :func:`offline_eval.synth.classifiers.random_offline_joint`."""
        return {"sigma": self.sigma, "disagreement_boost": self.boost, "flatten": self.flatten}


def offline_distortion(ref: pd.DataFrame, sigma: float | None = None, boost: float | None = None,
                       flatten: float | None = None) -> OfflineDistortion:
    """The knobs of :func:`offline_eval.synth.classifiers.random_offline_joint` for the simulated worlds.

    ``None`` takes the value fitted to the printed 5-class matrices
    (:func:`calibrate_offline_distortion`); a number overrides it (the fit is
    kept alongside, for its calibration row).
    """
    sigma_fit, boost_fit, flatten_fit, cells = calibrate_offline_distortion(ref)

    def pick(value, fit):
        return fit if value is None else float(value)

    return OfflineDistortion(pick(sigma, sigma_fit), pick(boost, boost_fit), pick(flatten, flatten_fit),
                             sigma_fit, boost_fit, flatten_fit, cells)


def add_distortion_calibration(ledger: Ledger, sigma: float, boost: float, cells: pd.DataFrame, *, flatten: float = 1.0,
                               n_draws: int = 2000, rng=0) -> None:
    """The fitted offline-distortion knobs as a ``calibration`` row (:func:`calibrate_offline_distortion`).

    The row's check: the agreement mass ``trace(M^(o))`` of the printed
    offline matrix (0.38) lies inside the 5-95% range of ``n_draws`` matrices
    the fitted generator draws from the printed ``M^(l)`` (the fit used the
    log-shares cell by cell, not the trace, so the check can fail).
    """
    from ...synth.classifiers import random_offline_joint

    k = int(round(np.sqrt(len(cells))))
    live = cells["live"].to_numpy().reshape(k, k) / cells["live"].sum()
    printed = float(np.trace(cells["offline"].to_numpy().reshape(k, k)) / cells["offline"].sum())
    gen = check_rng(rng)
    draws = np.array([np.trace(random_offline_joint(live, sigma=sigma, disagreement_boost=boost, flatten=flatten, rng=gen))
                      for _ in range(n_draws)])
    lo, med, hi = np.quantile(draws, [0.05, 0.5, 0.95])
    used = cells[cells["used"]]
    ledger.add(
        "piovano-calib-offline-distortion", SECTION,
        "the offline cell distribution 'randomly generated from the live one': the generator's three knobs fitted to "
        "the printed 5-class M^(l) and M^(o)",
        paper_value=f"agreement mass of M^(o) {printed:.2f}",
        reproduced_value=(f"sigma {sigma:g}, boost {boost:g}, flatten {flatten:g}; agreement mass {med:.2f} "
                          f"[{lo:.2f}, {hi:.2f}]"),
        criterion=f"the printed agreement mass inside the 5-95% range of {n_draws} matrices drawn from M^(l) by the "
                  "fitted generator",
        status="within-tolerance" if lo <= printed <= hi else "differs", kind="calibration",
        evidence="piovano/offline_distortion_calibration.csv",
        note=(f"least squares of log M^(o) on log M^(l) and the disagreement indicator over the {len(used)} of "
              f"{len(cells)} cells positive in both (flatten = the slope on log M^(l), boost = exp(the indicator's), "
              "sigma = residual sd); M^(o) is a sample of 100 items, so its counting noise is in sigma (an upper "
              "bound); the flattening term (Section I: offline 'sampled according to the Gaussian distribution', "
              "online 'skewed and heavy-tailed') was added after the Table II world without it predicted offline "
              "accuracies far above the printed ones; it is fitted here, to Table I's pair, not to Table II "
              "(before: sigma 0.55, boost 4.37 without it; by hand sigma 1.0, boost 8)"),
    )


def relative_difference(offline, live) -> np.ndarray:
    """``100 (offline - live) / live`` per cell, in percent; 0 where both are 0 (the paper's convention).

    A cell with offline mass and no live mass would be ``+inf``.

    >>> relative_difference([[11.0, 0.0]], [[13.18, 0.0]]).round(2).tolist()
    [[-16.54, 0.0]]
    """
    o, ell = np.asarray(offline, float), np.asarray(live, float)
    out = np.zeros_like(o)
    pos = ell > 0
    out[pos] = 100.0 * (o[pos] - ell[pos]) / ell[pos]
    out[(ell == 0) & (o > 0)] = np.inf
    return out


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


# -- evaluation of one offline/live pair ----------------------------------------------------------
def _std_diff(est, online) -> float:
    d = np.asarray(est) - np.asarray(online)
    d = d[np.isfinite(d)]
    return float(np.std(d)) if d.size else float("nan")


def evaluation_table(b_o, c_o, g_o, b_l, c_l, g_l, *, n_classes: int) -> tuple[pd.DataFrame, dict]:
    """Online / Offline / OAM IndDis / OAM JointDis metrics of both models (Tables I-II layout).

    Returns the table (``model, setting, Acc, std_Rec, std_Prec, Acc_error``)
    and the raw per-class results with the uncovered live mass.
    """
    k = n_classes
    with _quiet():
        res = {
            "Online metrics": metrics_from_joint(joint_distribution(b_l, c_l, g_l, n_classes=k)),
            "Offline metrics": metrics_from_joint(joint_distribution(b_o, c_o, g_o, n_classes=k)),
            "OAM IndDis": online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l, n_classes=k, method="independent"),
            "OAM JointDis": online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l, n_classes=k, method="joint"),
        }
    rows = []
    for model in MODELS:
        on = res["Online metrics"].model(model)
        for setting in SETTINGS:
            r = res[setting].model(model)
            rows.append(dict(model=model, setting=setting, Acc=r.accuracy, std_Rec=_std_diff(r.recall, on.recall),
                             std_Prec=_std_diff(r.precision, on.precision), Acc_error=r.accuracy - on.accuracy,
                             uncovered_mass=r.uncovered_mass))
    return pd.DataFrame(rows), res


def sweep_row(table: pd.DataFrame, res: dict) -> dict:
    """Flatten one evaluation into numbers and the per-seed outcome of every :data:`SWEEP_CRITERIA`."""
    t = table.set_index(["model", "setting"])
    out = {}
    slug = {"Online metrics": "online", "Offline metrics": "offline", "OAM IndDis": "inddis", "OAM JointDis": "joint"}
    for (model, setting), r in t.iterrows():
        for col in ("Acc", "std_Rec", "std_Prec"):
            out[f"{model}_{slug[setting]}_{col}"] = float(r[col])
    out["uncovered_mass"] = float(t["uncovered_mass"].max())

    def err(model, s):
        return abs(t.loc[(model, s), "Acc_error"])

    def both(f):
        return bool(all(f(m) for m in MODELS))

    out["joint_acc_beats_offline"] = both(lambda m: err(m, "OAM JointDis") < err(m, "Offline metrics"))
    out["joint_acc_beats_inddis"] = both(lambda m: err(m, "OAM JointDis") < err(m, "OAM IndDis"))
    out["joint_stdrec_below_offline"] = both(lambda m: t.loc[(m, "OAM JointDis"), "std_Rec"] < t.loc[(m, "Offline metrics"), "std_Rec"])
    out["joint_stdprec_below_offline"] = both(lambda m: t.loc[(m, "OAM JointDis"), "std_Prec"] < t.loc[(m, "Offline metrics"), "std_Prec"])
    out["joint_stdrec_below_inddis"] = both(lambda m: t.loc[(m, "OAM JointDis"), "std_Rec"] < t.loc[(m, "OAM IndDis"), "std_Rec"])
    out["inddis_prec_equals_offline"] = both(lambda m: np.nanmax(np.abs(res["OAM IndDis"].model(m).precision - res["Offline metrics"].model(m).precision), initial=0.0) <= 1e-12)
    out["offline_underestimates_acc"] = both(lambda m: t.loc[(m, "Offline metrics"), "Acc_error"] < 0)
    return out


def paper_table(ref: pd.DataFrame, source: str) -> pd.DataFrame:
    """The printed Table I or II in the layout of :func:`evaluation_table` (strings as printed)."""
    sel = ref[ref["source"] == source]
    wide = sel.pivot_table(index=["panel", "row"], columns="column", values="value", aggfunc="first")
    rows = []
    for model in MODELS:
        for setting in SETTINGS:
            r = wide.loc[(model.capitalize(), setting)]
            rows.append(dict(model=model, setting=setting, paper_Acc=r["Acc."], paper_std_Rec=r["std. Rec."], paper_std_Prec=r["std. Prec."]))
    return pd.DataFrame(rows)


def _paper_outcome(ref, source, claim) -> str:
    """The paper's own numbers for one sweep claim, as a short string."""
    p = paper_table(ref, source).set_index(["model", "setting"]).map(reference.parse_printed)
    parts = []
    for m in MODELS:
        on = p.loc[(m, "Online metrics"), "paper_Acc"]
        if claim in ("joint_acc_beats_offline", "joint_acc_beats_inddis", "offline_underestimates_acc"):
            other = "Offline metrics" if claim != "joint_acc_beats_inddis" else "OAM IndDis"
            parts.append(f"{m[0].upper()}: JointDis {p.loc[(m, 'OAM JointDis'), 'paper_Acc']:.3f}, "
                         f"{'offline' if other == 'Offline metrics' else 'IndDis'} {p.loc[(m, other), 'paper_Acc']:.3f}, online {on:.3f}")
        else:
            col = "paper_std_Rec" if "stdrec" in claim else "paper_std_Prec"
            other = "OAM IndDis" if claim.endswith("inddis") or claim.startswith("inddis") else "Offline metrics"
            first = "OAM IndDis" if claim.startswith("inddis") else "OAM JointDis"
            parts.append(f"{m[0].upper()}: {p.loc[(m, first), col]:.3f} vs {p.loc[(m, other), col]:.3f}")
    return "; ".join(parts)


def add_sweep_claims(ledger: Ledger, sweep: pd.DataFrame, *, prefix: str, source: str, what: str, ref=None,
                     note: str = "", control: pd.DataFrame | None = None, evidence=()) -> None:
    """One ledger row per :data:`SWEEP_CRITERIA` key present in ``sweep``.

    ``control`` is the same sweep on the control world, whose offline set is
    drawn without bias (:data:`CONTROL_T1`, :data:`CONTROL_RANDOM`): the
    paper's mechanism, a biased offline sample, switched off.
    """
    statements = {
        "joint_acc_beats_offline": "OAM JointDis accuracy is closer to the online accuracy than the offline accuracy",
        "joint_acc_beats_inddis": "OAM JointDis accuracy is closer to the online accuracy than OAM IndDis",
        "joint_stdrec_below_offline": "OAM JointDis recalls are closer to the online ones (lower std. Rec.) than offline",
        "joint_stdprec_below_offline": "OAM JointDis precisions are closer to the online ones (lower std. Prec.) than offline",
        "joint_stdrec_below_inddis": "OAM JointDis recalls are closer to the online ones (lower std. Rec.) than OAM IndDis",
        "inddis_prec_equals_offline": "OAM IndDis leaves the precision unchanged (its std. Prec. equals the offline one)",
        "offline_underestimates_acc": "The biased offline set underestimates both models' accuracy",
    }
    for key, criterion in SWEEP_CRITERIA.items():
        if key not in sweep:
            continue
        paper_value = _paper_outcome(ref, source, key) if ref is not None and source in ("Table I", "Table II") else ""
        claim_id, outcomes = f"piovano-{prefix}-{key.replace('_', '-')}", sweep[key].to_numpy(bool)
        if key == "inddis_prec_equals_offline":
            # an identity of eq. (5) (IndDis re-weights within a true class, so each predicted class keeps its
            # precision): a check of ours that must hold on every seed, not a claim judged by the sweep rule
            ledger.check(claim_id, source, f"{what}: {statements[key]}", kind="check", holds=bool(outcomes.all()),
                         criterion=f"{criterion}, on every seed", paper_value=paper_value,
                         reproduced_value=f"{int(outcomes.sum())}/{outcomes.size} seeds", note=note, evidence=evidence)
            continue
        ledger.sweep(claim_id, source, f"{what}: {statements[key]}",
                     outcomes=outcomes, criterion=criterion, paper_value=paper_value, note=note, evidence=evidence,
                     control=None if control is None else control[key].to_numpy(bool))


def add_table_predictions(ledger: Ledger, sweep: pd.DataFrame, ref: pd.DataFrame, *, source: str, prefix: str,
                          note: str = "", evidence=()) -> None:
    """Every printed offline and OAM cell of Table I or II beside the 5-95% interval of the seed sweep.

    The worlds were calibrated on other numbers (the printed 5-class pair, the
    online accuracies), so these cells are out-of-sample predictions: a row
    is ``within-tolerance`` when the printed value lies inside the seeds'
    5-95% interval and ``differs`` otherwise.  Rows
    ``piovano-<prefix>-pred-<model>-<setting>-<metric>``.
    """
    paper = paper_table(ref, source).set_index(["model", "setting"])
    slug = {"Offline metrics": "offline", "OAM IndDis": "inddis", "OAM JointDis": "joint"}
    for model in MODELS:
        for setting, short in slug.items():
            for col, printed_col, label in (("Acc", "paper_Acc", "Acc."), ("std_Rec", "paper_std_Rec", "std. Rec."),
                                            ("std_Prec", "paper_std_Prec", "std. Prec.")):
                x = sweep[f"{model}_{short}_{col}"].to_numpy(float)
                lo, hi = (float(q) for q in np.quantile(x, [0.05, 0.95]))
                printed = paper.loc[(model, setting), printed_col]
                inside = lo <= reference.parse_printed(printed) <= hi
                ledger.add(
                    f"piovano-{prefix}-pred-{model}-{short}-{col.lower().replace('_', '')}", source,
                    f"{source}: {label} of the {model}, {setting}",
                    paper_value=printed, reproduced_value=f"{np.median(x):.3f} [{lo:.3f}, {hi:.3f}]",
                    criterion="the printed cell lies inside the 5-95% interval of the seed sweep (median [5%, 95%])",
                    status="within-tolerance" if inside else "differs", kind="printed", evidence=evidence,
                    note="a prediction of the synthetic world" + (f"; {note}" if note else ""),
                )


def offline_accuracy_note(sweep: pd.DataFrame, ref: pd.DataFrame, source: str) -> str:
    """How distorted the world's offline sets are beside the paper's: the seeds' median offline accuracy of each
    model against the printed one (for the notes of the claims that hinge on the distortion)."""
    parts, above = [], []
    for model in MODELS:
        printed = reference.lookup(ref, source, "Offline metrics", "Acc.", panel=model.capitalize())
        median = float(sweep[f"{model}_offline_Acc"].median())
        parts.append(f"{model} {median:.3f} (printed {printed})")
        above.append(median > reference.parse_printed(printed))
    verdict = ("; the world's offline sets are less distorted than the paper's draw" if all(above) else
               "; the world's offline sets are more distorted than the paper's draw" if not any(above) else "")
    return "offline accuracy, median over the seeds: " + ", ".join(parts) + verdict


# -- Table I analogue ------------------------------------------------------------------------------
def paper_sizes(ref: pd.DataFrame, dataset: str) -> dict:
    """The printed sizes of one of the paper's data sets (``"conference papers"``, ``"news headlines"``)."""
    sel = ref[(ref["source"] == SECTION) & (ref["panel"] == "sizes") & (ref["row"] == dataset)]
    return {c: int(reference.parse_printed(v)) for c, v in zip(sel["column"], sel["value"])}


def paper_online_accuracy(ref: pd.DataFrame, table: str) -> tuple[float, float]:
    """The printed online accuracies of the baseline and the candidate of Table I or II."""
    return tuple(reference.parse_printed(reference.lookup(ref, table, "Online metrics", "Acc.", panel=m))
                 for m in ("Baseline", "Candidate"))


#: The control worlds: an offline set drawn without bias (its cell distribution is the live one).
CONTROL_T1 = {"offline_matrix": "live"}
CONTROL_RANDOM = {"sigma": 0.0, "disagreement_boost": 1.0, "flatten": 1.0}



def add_toy_claims(ledger: Ledger, ref: pd.DataFrame, illustrative_live) -> None:
    """The Section II toy example: M_BC^(o) from M_BCG^(o), the toy live matrix (an erratum), Lemma 1."""
    m_bc_o, m_bc_o_txt = printed_matrix(ref, TOY, "M_BC^(o)")
    m_bcg = np.stack([printed_matrix(ref, TOY, f"M_BCG^(o)(:,:,C{k})")[0] for k in (1, 2)], axis=-1)
    m_bc_l, _ = printed_matrix(ref, TOY, "M_BC^(l)")
    for (i, j), printed in np.ndenumerate(m_bc_o_txt):
        ledger.printed(f"piovano-toy-mbc-B{i + 1}C{j + 1}", TOY, f"M_BC^(o)(C{i + 1}, C{j + 1}) = sum_k M_BCG^(o)(C{i + 1}, C{j + 1}, k)",
                       printed=printed, value=m_bcg[i, j].sum())
    diff = float(np.abs(m_bc_l - m_bc_o).max())
    ledger.erratum("piovano-toy-live-matrix", TOY,
                   "The toy live matrix M_BC^(l) deviates from M_BC^(o) by over-sampling offline the items C hypothesises as C1 and B as C2",
                   printed=f"M_BC^(l) = {printed_matrix(ref, TOY, 'M_BC^(l)')[0].tolist()}", value=f"max |M_BC^(l) - M_BC^(o)| = {diff:g}",
                   evidence="the printed M_BC^(l) equals the printed M_BC^(o) cell by cell, so the (B=C2, C=C1) cell the text "
                            "says is over-sampled offline has 0.15 in both; every eq. (7) weight is 1 and OAM = offline")
    illustrative_live = np.asarray(illustrative_live, dtype=float)
    w, _ = reweighted_joint(m_bcg, illustrative_live)
    ledger.check("piovano-toy-lemma1", TOY, "Lemma 1: the re-weighted M_BCG^(o) of eq. (7) sums to 1 (toy, illustrative live matrix)",
                 criterion="|sum - 1| <= 1e-12", holds=abs(w.sum() - 1) <= 1e-12, paper_value="the weights sum to one",
                 reproduced_value=f"{w.sum():.15f}", kind="formula")


def add_printed_matrix_claims(ledger: Ledger, ref: pd.DataFrame, mats: pd.DataFrame) -> pd.DataFrame:
    """The printed Table I matrices: which live size M they fit (an erratum), the offline N, Lemma 1 on them.

    Returns the denominator search (:func:`denominator_search`).
    """
    sizes = {k: str(v) for k, v in paper_sizes(ref, "conference papers").items()}
    live_pct, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off_pct, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    search = denominator_search(live_pct)
    at_627 = search.set_index("M").loc[int(sizes["live samples M"]), "cells_fitting"]
    best = search.sort_values(["cells_fitting", "M"], ascending=[False, True]).head(5)
    ledger.erratum("piovano-live-matrix-627", SECTION, "M_BC^(l) is the joint distribution of the 627 live samples (counts / 627)",
                   printed=f"M = {sizes['live samples M']}", value=f"{at_627}/25 cells fit M = {sizes['live samples M']}",
                   evidence=f"only {at_627} of the 25 printed cells equal round(100 c / 627, 2) for an integer c (e.g. 13.18% would be "
                            f"82.64 items: 82/627 = 13.08%, 83/627 = 13.24%); no M in 100..5000 fits all 25 (best: "
                            f"{int(best['cells_fitting'].iloc[0])}/25 at M = {int(best['M'].iloc[0])}); the matrix sums to "
                            f"{live_pct.sum():.2f}%. We use the printed shares apportioned to 627 items")
    ledger.check("piovano-offline-matrix-sums", SECTION, "The printed offline matrix is a distribution of N = 100 items",
                 criterion="every cell is an integer percent and the cells sum to 100%",
                 holds=bool(np.allclose(off_pct, np.round(off_pct)) and off_pct.sum() == 100), reproduced_value=f"sum {off_pct.sum():g}%")
    unc = mats[mats["uncovered"]]
    m_bcg_any = np.zeros((5, 5, 5))
    m_bcg_any[:, :, 0] = off_pct  # the truth split does not matter for the total mass
    w_sum = float(reweighted_joint(m_bcg_any, live_pct)[0].sum())
    ledger.erratum("piovano-lemma1-printed-matrices", SECTION,
                   "Lemma 1: the re-weighted M_BCG^(o) sums to 1 (for the paper's own Table I matrices)",
                   printed="sums to one (Lemma 1)", value=f"{w_sum:.4f}",
                   evidence=f"cells {', '.join('(' + r + ', ' + c + ')' for r, c in zip(unc['row'], unc['column']))} carry "
                            f"{live_pct[off_pct == 0].sum():.2f}% live mass and no offline sample (printed relative difference -100%); "
                            "the proof divides by M_BC^(o)(i, j) = 0, so the lemma needs M_BC^(o) > 0 wherever M_BC^(l) > 0")
    return search


def add_table1_run_claims(ledger: Ledger, ref: pd.DataFrame, tab1: pd.DataFrame, info1: dict) -> None:
    """One Table I run: the simulated sets have the printed matrices (checks), the online accuracies (calibrations)."""
    live_pct, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    off_pct, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    m_live = int(np.asarray(info1["live_counts"]).sum())
    live_err_items = np.abs(info1["live_share"] * 100 - live_pct).max() / (100 / m_live)
    ledger.check("piovano-T1-live-matrix-realised", "Table I", "The simulated live set has the printed M_BC^(l)",
                 criterion="every cell within one item (100/n_live %) of the printed share",
                 holds=bool(live_err_items <= 1 + 1e-9), reproduced_value=f"max deviation {live_err_items:.2f} items",
                 note="the printed shares are not k/M (see piovano-live-matrix-627); counts by largest remainder",
                 kind="check", evidence="piovano/table1.csv")
    ledger.check("piovano-T1-offline-matrix-realised", "Table I", "The simulated offline set has the printed M_BC^(o)",
                 criterion="every cell equal to the printed share",
                 holds=bool(np.allclose(info1["offline_share"] * 100, off_pct, atol=1e-9)),
                 reproduced_value=f"max |diff| {np.abs(info1['offline_share'] * 100 - off_pct).max():.2g} pp",
                 kind="check", evidence="piovano/table1.csv")
    for model in ("baseline", "candidate"):
        acc = float(tab1.query("model == @model and setting == 'Online metrics'")["Acc"].iloc[0])
        ledger.printed(f"piovano-T1-online-acc-{model}", "Table I", f"online accuracy of the {model}",
                       printed=reference.lookup(ref, "Table I", "Online metrics", "Acc.", panel=model.capitalize()), value=acc,
                       note="calibration target of the simulated truth (by construction), not an independent reproduction",
                       kind="calibration", evidence="piovano/table1.csv")


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


# -- Table II analogue -----------------------------------------------------------------------------
def many_class_world(seed, *, n_live: int, n_classes: int, accuracy=(0.56, 0.752), accuracy_spread: float = 0.15,
                     zipf_exponent: float = 1.0, error_correlation: float = 0.5, shared_confusion: float = 0.5, rng=None):
    """Live traffic of a many-class problem (the news-headline analogue) and the per-class accuracies.

    ``error_correlation`` (hard items are hard for both models) and
    ``shared_confusion`` (when both are wrong, how often the candidate makes
    the baseline's mistake) go to
    :func:`offline_eval.synth.classifiers.two_model_world`.
    """
    rng = check_rng(seed if rng is None else rng)
    prior = synth.zipf_prior(n_classes, zipf_exponent)
    acc_b = synth.class_accuracies(accuracy[0], prior, spread=accuracy_spread, rng=rng)
    acc_c = synth.class_accuracies(accuracy[1], prior, spread=accuracy_spread, rng=rng)
    return synth.two_model_world(n_live, accuracy_b=acc_b, accuracy_c=acc_c, prior=prior,
                                 error_correlation=error_correlation, shared_confusion=shared_confusion, rng=rng)


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
    errors relate in the live traffic (:func:`many_class_world`; hand-set,
    the live joint of Table II is not printed).  Returns ``(b, c, g, idx)``.
    """
    if n_live is None or n_offline is None or accuracy is None:
        ref = reference.load("piovano") if ref is None else ref
        sizes = paper_sizes(ref, "news headlines")
        n_live = sizes["live samples M"] if n_live is None else n_live
        n_offline = sizes["offline samples N"] if n_offline is None else n_offline
        accuracy = paper_online_accuracy(ref, "Table II") if accuracy is None else accuracy
    rng = check_rng(seed)
    b, c, g = many_class_world(None, n_live=n_live, n_classes=n_classes, accuracy=accuracy,
                               accuracy_spread=accuracy_spread, zipf_exponent=zipf_exponent,
                               error_correlation=error_correlation, shared_confusion=shared_confusion, rng=rng)
    m_l = joint_distribution(b, c, n_classes=n_classes)
    m_o = synth.random_offline_joint(m_l, sigma=sigma, disagreement_boost=disagreement_boost, flatten=flatten, rng=rng)
    live_counts = joint_distribution(b, c, n_classes=n_classes, normalize=False)
    off_counts = synth.apportion(m_o, n_offline, capacity=live_counts)
    idx = synth.sample_by_cell(b, c, off_counts, n_classes=n_classes, rng=rng)
    return b, c, g, idx


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


# -- real models on real data ----------------------------------------------------------------------
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
    k = 10
    m_l = joint_distribution(b, c, n_classes=k)
    m_o = synth.random_offline_joint(m_l, sigma=sigma, disagreement_boost=disagreement_boost, flatten=flatten, rng=rng)
    off_counts = synth.apportion(m_o, n_offline, capacity=joint_distribution(b, c, n_classes=k, normalize=False))
    idx = synth.sample_by_cell(b, c, off_counts, n_classes=k, rng=rng)
    table, res = evaluation_table(b[idx], c[idx], g[idx], b, c, g, n_classes=k)
    return table, res


def digits_sweep_row(seed, **kw) -> dict:
    return sweep_row(*digits_experiment(seed, **kw))


# -- Table III analogue: model releases ----------------------------------------------------------
def releases_experiment(seed, *, n_releases: int = 12, n_live: int = 20_000, n_offline: int = 1_000, n_classes: int = 8,
                        domains=(("Music", 0), ("Video", 1)), zipf_exponent: float = 0.8, start_accuracy: float = 0.8,
                        step: float = 0.04, sigma: float = 1.0, boost_range=(1.0, 8.0),
                        flatten: float = 1.0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A sequence of releases, each evaluated on its own, differently biased, offline set.

    Release r's candidate is model r; its baseline is model r-1 (in
    production).  Per-class accuracies follow a random walk (``step``).  Live
    traffic is redrawn per release from a fixed prior and confusion matrix;
    the offline set of release r is drawn from it by (B, C) cell with a
    random cell distribution whose disagreement boost is uniform in
    ``boost_range`` -- a different bias per release -- and whose flattening
    exponent is ``flatten``.  For each domain the
    recall-type metric (1 - NLUER) is the candidate's recall and the
    precision-type metric (1 - friction) its precision.

    Returns the per-release metrics and the correlations across releases
    (Pearson, offline vs online and OAM vs online) with the relative
    improvement ``(r_OAM - r_offline) / |r_offline|``.
    """
    rng = check_rng(seed)
    prior = synth.zipf_prior(n_classes, zipf_exponent)
    confusion = synth.random_confusion(n_classes, 0.3, rng=rng)
    acc = [np.clip(start_accuracy + 0.05 * rng.standard_normal(n_classes), 0.3, 0.98)]
    for _ in range(n_releases):
        acc.append(np.clip(acc[-1] + step * rng.standard_normal(n_classes), 0.3, 0.98))
    rows = []
    for r in range(1, n_releases + 1):
        b, c, g = synth.two_model_world(n_live, accuracy_b=acc[r - 1], accuracy_c=acc[r], prior=prior, confusion=confusion, rng=rng)
        m_l = joint_distribution(b, c, n_classes=n_classes)
        m_o = synth.random_offline_joint(m_l, sigma=sigma, disagreement_boost=rng.uniform(*boost_range), flatten=flatten,
                                         rng=rng)
        off_counts = synth.apportion(m_o, n_offline, capacity=joint_distribution(b, c, n_classes=n_classes, normalize=False))
        idx = synth.sample_by_cell(b, c, off_counts, n_classes=n_classes, rng=rng)
        with _quiet():
            on = metrics_from_joint(joint_distribution(b, c, g, n_classes=n_classes)).candidate
            off = metrics_from_joint(joint_distribution(b[idx], c[idx], g[idx], n_classes=n_classes)).candidate
            oam = online_adaptive_metrics(b[idx], c[idx], g[idx], b, c, n_classes=n_classes).candidate
        for name, d in domains:
            for metric, key in (("NLUER", "recall"), ("Friction", "precision")):
                rows.append(dict(release=r, domain=name, metric=metric, online=getattr(on, key)[d], offline=getattr(off, key)[d], oam=getattr(oam, key)[d]))
    per_release = pd.DataFrame(rows)
    corr = []
    for (metric, domain), grp in per_release.groupby(["metric", "domain"], sort=False):
        ok = grp[["online", "offline", "oam"]].notna().all(axis=1)
        r_off = stats.pearsonr(grp.loc[ok, "offline"], grp.loc[ok, "online"])[0]
        r_oam = stats.pearsonr(grp.loc[ok, "oam"], grp.loc[ok, "online"])[0]
        corr.append(dict(metric=metric, domain=domain, corr_offline=float(r_off), corr_oam=float(r_oam),
                         rel_improvement_pct=float(100 * (r_oam - r_off) / abs(r_off))))
    return per_release, pd.DataFrame(corr)


def releases_sweep_row(seed, **kw) -> dict:
    _, corr = releases_experiment(seed, **kw)
    out = {}
    for _, r in corr.iterrows():
        tag = f"{r['metric']}_{r['domain']}"
        out[f"{tag}_corr_offline"] = r["corr_offline"]
        out[f"{tag}_corr_oam"] = r["corr_oam"]
        out[f"{tag}_rel_improvement_pct"] = r["rel_improvement_pct"]
        out[f"{tag}_improves"] = bool(r["corr_oam"] > r["corr_offline"])
    return out



#: Table III's control world: each release's offline set drawn without bias.
CONTROL_RELEASES = {"sigma": 0.0, "boost_range": (1.0, 1.0), "flatten": 1.0}


def table3_table(corr: pd.DataFrame, sweep3: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """Table III analogue: one run's correlations, their medians over the sweep and the printed improvement."""
    printed3 = ref[ref["source"] == "Table III"].rename(columns={"panel": "metric", "row": "domain", "value": "paper_rel_improvement"})
    table3 = corr.rename(columns={"corr_offline": "corr_offline_seed", "corr_oam": "corr_oam_seed", "rel_improvement_pct": "rel_improvement_pct_seed"})
    for stat in ("corr_offline", "corr_oam", "rel_improvement_pct"):
        table3[f"{stat}_median"] = [float(sweep3[f"{m}_{d}_{stat}"].median()) for m, d in zip(table3["metric"], table3["domain"])]
    table3 = table3.merge(printed3[["metric", "domain", "paper_rel_improvement"]], on=["metric", "domain"])
    return table3


def releases_note(sweep3: pd.DataFrame, control3: pd.DataFrame, tag: str) -> str:
    """Why a Table III cell's sweep may fail: the OAM's gain in r beside the seeds' spread of r, and the control."""
    off, oam = sweep3[f"{tag}_corr_offline"].to_numpy(float), sweep3[f"{tag}_corr_oam"].to_numpy(float)
    gain = np.nanmedian(oam - off)
    lo, hi = np.nanquantile(off, [0.05, 0.95])
    k, n = int(control3[f"{tag}_improves"].sum()), len(control3)
    return (f"the OAM's median gain in r, {gain:+.2f}, is small beside the spread of r(offline, online) over the seeds "
            f"(5-95%: [{lo:.2f}, {hi:.2f}]), and the control world's unbiased offline sets 'improve' in {k}/{n} seeds: "
            "one seed's correlation over its releases cannot separate them; the paper gives neither its "
            "number of releases nor an interval for its one run")


def add_table3_claims(ledger: Ledger, table3: pd.DataFrame, sweep3: pd.DataFrame, control3: pd.DataFrame) -> None:
    """One sweep row per Table III cell, beside the control world (:data:`CONTROL_RELEASES`)."""
    for _, r in table3.iterrows():
        tag = f"{r['metric']}_{r['domain']}"
        ledger.sweep(f"piovano-T3-{r['metric'].lower()}-{r['domain'].lower()}", "Table III",
                     f"OAM raise the correlation across releases between offline and online {r['metric']} ({r['domain']})",
                     outcomes=sweep3[f"{tag}_improves"].to_numpy(bool), paper_value=r["paper_rel_improvement"],
                     control=control3[f"{tag}_improves"].to_numpy(bool),
                     evidence=("piovano/table3.csv", "piovano/table3_seed_sweep.csv", "piovano/table3_seed_sweep_control.csv"),
                     criterion="Pearson r(OAM, online) > r(offline, online) across the releases of a seed",
                     note=f"median relative improvement {r['rel_improvement_pct_median']:.1f}% "
                          f"(median r {r['corr_offline_median']:.2f} -> {r['corr_oam_median']:.2f}); simulated releases",
                     why=releases_note(sweep3, control3, tag))
        x = sweep3[f"{tag}_rel_improvement_pct"].to_numpy(float)
        x = x[np.isfinite(x)]
        lo, med, hi = (float(q) for q in np.quantile(x, [0.05, 0.5, 0.95]))
        # the ratio explodes where r_offline is near 0, so the seeds' 5-95% range is too wide to test
        # against; the median is held to the magnitude rule of the synthetic worlds (+-50% of the printed)
        ledger.tolerance(f"piovano-T3-{r['metric'].lower()}-{r['domain'].lower()}-size", "Table III",
                         f"median over the seeds of the relative improvement, {r['metric']} ({r['domain']}) (%)",
                         printed=r["paper_rel_improvement"], value=round(med, 1), rtol=SIZE_RTOL, kind="printed",
                         evidence=("piovano/table3.csv", "piovano/table3_seed_sweep.csv"),
                         note=("a prediction of the world whose offline bias was fitted to the printed 5-class "
                               f"matrices; 5-95% over the {len(x)} seeds with a defined improvement: "
                               f"[{lo:.1f}, {hi:.1f}]"))


def add_convergence_claims(ledger: Ledger, summary: pd.DataFrame, conv: pd.DataFrame, sizes) -> None:
    """Theorem 2 and Section III-A on the convergence sweep: the N^-1/2 rate, JointDis against IndDis."""
    slope = loglog_slope(summary)
    big = summary[summary["N"] == max(sizes)].set_index("method")
    per_seed = conv[conv["N"] == max(sizes)].pivot(index="seed", columns="method", values="acc_error")
    ledger.check("piovano-thm2-rate", "Theorem 2", "OAM JointDis converges to the online accuracy as N grows",
                 criterion="least-squares slope of log(mean |accuracy error|) on log N over the grid within [-0.7, -0.3] (N^-1/2 rate)",
                 holds=-0.7 <= slope <= -0.3, paper_value="-> 0 as N -> inf", reproduced_value=f"slope {slope:.3f}",
                 kind="formula", evidence="piovano/convergence.csv")
    ledger.sweep("piovano-thm2-joint-beats-inddis-maxN", "Section III-A", f"At N = {max(sizes):,}, JointDis beats IndDis on accuracy",
                 outcomes=(per_seed["OAM JointDis"] < per_seed["OAM IndDis"]).to_numpy(),
                 criterion=f"|accuracy error| of JointDis < IndDis at N = {max(sizes):,}")
    ratio = big.loc["OAM IndDis", "acc_error"] / big.loc["OAM JointDis", "acc_error"]
    ledger.check("piovano-thm2-inddis-biased", "Section III-A", "IndDis does not converge: its error stays at the bias of the joint sampling",
                 criterion=f"mean |accuracy error| of IndDis > 5 x JointDis at N = {max(sizes):,}",
                 holds=ratio > 5, reproduced_value=f"IndDis / JointDis = {ratio:.1f}")
    ge1000 = summary[summary["N"] >= 1000].pivot(index="N", columns="method", values="acc_error")
    ledger.check("piovano-thm2-joint-beats-inddis-all-N", "Section III-A", "JointDis is closer than IndDis at every N >= 1,000 (mean over seeds)",
                 criterion="mean |accuracy error| of JointDis < IndDis at every N >= 1000 of the grid",
                 holds=bool((ge1000["OAM JointDis"] < ge1000["OAM IndDis"]).all()),
                 reproduced_value=f"{int((ge1000['OAM JointDis'] < ge1000['OAM IndDis']).sum())}/{len(ge1000)} sizes")

# -- Theorem 2: convergence in N -------------------------------------------------------------------
def convergence_experiment(seed, *, sizes=(50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000),
                           n_live: int = 100_000, n_classes: int = 10, accuracy=(0.6, 0.75), sigma: float = 1.0,
                           disagreement_boost: float = 4.0) -> pd.DataFrame:
    """Error of the offline, IndDis and JointDis estimates against the offline size N.

    One live set and one biased cell distribution per seed; for each N the
    offline set has ``Multinomial(N, M^(o))`` items per cell, drawn with
    replacement from the live items of that cell (so the conditional
    ``p(G | B, C)`` is the live one and Theorem 2 applies).  Errors:
    ``|Acc_hat - Acc|`` and the mean over classes of ``|R_hat(k) - R(k)|`` and
    ``|P_hat(k) - P(k)|``, averaged over the two models; plus the uncovered
    live mass.
    """
    rng = check_rng(seed)
    b, c, g = many_class_world(None, n_live=n_live, n_classes=n_classes, accuracy=accuracy, rng=rng)
    k = n_classes
    m_l = joint_distribution(b, c, n_classes=k)
    m_o = synth.random_offline_joint(m_l, sigma=sigma, disagreement_boost=disagreement_boost, rng=rng)
    rows = []
    with _quiet():
        online = metrics_from_joint(joint_distribution(b, c, g, n_classes=k))
        for n in sizes:
            counts = rng.multinomial(int(n), m_o.ravel()).reshape(k, k)
            idx = synth.sample_by_cell(b, c, counts, n_classes=k, replace=True, rng=rng)
            ests = {"Offline": metrics_from_joint(joint_distribution(b[idx], c[idx], g[idx], n_classes=k))}
            for label, method in (("OAM IndDis", "independent"), ("OAM JointDis", "joint")):
                ests[label] = online_adaptive_metrics(b[idx], c[idx], g[idx], b, c, n_classes=k, method=method)
            for label, est in ests.items():
                row = dict(N=int(n), method=label, uncovered_mass=float(est.uncovered_mass))
                for metric, key in (("acc_error", "accuracy"), ("rec_error", "recall"), ("prec_error", "precision")):
                    errs = [np.nanmean(np.abs(np.asarray(getattr(est.model(m), key)) - np.asarray(getattr(online.model(m), key)))) for m in MODELS]
                    row[metric] = float(np.mean(errs))
                rows.append(row)
    return pd.DataFrame(rows)


def convergence_sweep(seeds, **kw) -> pd.DataFrame:
    """:func:`convergence_experiment` for every seed, stacked (one row per seed, N and method)."""
    frames = [convergence_experiment(int(s), **kw).assign(seed=int(s)) for s in seeds]
    df = pd.concat(frames, ignore_index=True)
    return df[["seed"] + [c for c in df.columns if c != "seed"]]


def convergence_summary(sweep: pd.DataFrame) -> pd.DataFrame:
    """Mean and standard error over seeds of each error, per N and method; share of seeds JointDis beats IndDis."""
    g = sweep.groupby(["N", "method"], sort=True)
    summ = g[["acc_error", "rec_error", "prec_error", "uncovered_mass"]].mean()
    sem = g[["acc_error", "rec_error"]].sem().add_suffix("_sem")
    out = summ.join(sem).reset_index()
    wide = sweep.pivot_table(index=["seed", "N"], columns="method", values="acc_error")
    share = (wide["OAM JointDis"] < wide["OAM IndDis"]).groupby(level="N").mean()
    out["share_joint_beats_inddis_acc"] = out["N"].map(share)
    return out


def loglog_slope(summary: pd.DataFrame, method: str = "OAM JointDis", metric: str = "acc_error") -> float:
    """Least-squares slope of log(mean error) against log(N)."""
    s = summary[summary["method"] == method]
    return float(np.polyfit(np.log(s["N"]), np.log(s[metric]), 1)[0])


def convergence_figure(summary: pd.DataFrame):
    """Log-log error against N: offline, OAM IndDis, OAM JointDis, with an N^-1/2 guide."""
    fig, axes = new_figure(3, 1, width="double", height=2.3)
    styles = {"Offline": dict(color="0.5", marker="s"), "OAM IndDis": dict(color="tab:orange", marker="^"),
              "OAM JointDis": dict(color="tab:blue", marker="o")}
    for ax, (metric, title) in zip(axes, (("acc_error", "|accuracy error|"), ("rec_error", "mean |recall error|"),
                                          ("prec_error", "mean |precision error|"))):
        for method, st in styles.items():
            s = summary[summary["method"] == method]
            ax.plot(s["N"], s[metric], ms=3, label=method, **st)
        j = summary[summary["method"] == "OAM JointDis"]
        n0, e0 = j["N"].iloc[0], j[metric].iloc[0]
        ax.plot(j["N"], e0 * np.sqrt(n0 / j["N"]), color="k", lw=0.8, ls=":", label=r"$\propto N^{-1/2}$")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("offline size N")
        ax.set_title(title)
    axes[0].set_ylabel("mean over seeds")
    axes[0].legend(loc="lower left")
    fig.tight_layout()
    return fig
