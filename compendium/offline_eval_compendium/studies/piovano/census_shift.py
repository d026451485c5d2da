"""piovano on real data: the online adaptive metrics on a real distribution shift, beside NannyML's CBPE.

Protocol (world ``real: ACS employment MA 2015-2018``; data and peer in ``data/real/census_ma/``):

1. The data: US Census ACS persons of Massachusetts, 2015-2018, with the deployed model's prediction
   (a LightGBM model NannyML trained on 2014 -- the *baseline* B) and the true label, "employed".
2. The offline test set is 2015 -- either all of it (the *representative* set, the control: re-weighting
   should change nothing) or the declared sub-sample :data:`._census_data.NONREPRESENTATIVE_RULE` (working
   age over-sampled: the paper's offline set "not representative of the online live data").
3. Live traffic: each later year, and each chunk of about :data:`._census_data.CHUNK_SIZE` persons within
   a year.  Its labels are hidden from every estimator and used only to score them.
4. The second model piovano's joint re-weighting needs (the *candidate* C): a declared, simple
   scikit-learn model -- a depth-``tree_depth`` decision tree on :data:`._census_data.FEATURES`, trained
   on the offline set alone (features and labels), one tree per offline set and per rule.
5. Per period, B's accuracy, precision and recall of both classes by five estimators: the raw offline
   value, OAM IndDis and OAM JointDis (:func:`offline_eval.adaptive.online_adaptive_metrics`), CBPE
   (NannyML 0.13.1, fitted on the same offline set; committed outputs of ``make peers``), and the
   realized value.  Their errors per chunk, and mean absolute errors with intervals from a bootstrap of
   the whole pipeline (:func:`pipeline_bootstrap`: the offline draw, the second model's fit, and the live
   chunks resampled within their year; :func:`bootstrap_errors`).
6. Every declared sub-sampling rule: the same estimators under each (no peer run for the others); the
   claims that depend on the rule are judged over all of them, since the study's rule was chosen after
   looking at them.
7. The ledger (:func:`add_claims`), by the criteria of :data:`CLAIMS`, declared before the run.
"""

from __future__ import annotations

import json
import warnings
import dataclasses
from dataclasses import dataclass

import numpy as np
import pandas as pd

from offline_eval import OfflineEvalWarning
from offline_eval.synth import check_rng
from offline_eval.adaptive import joint_distribution, metrics_from_joint, online_adaptive_metrics
from offline_eval.plotting import new_figure
from ...claims import Claim, Ledger, declare
from ...paths import DATA_DIR
from ...progress import track
from . import _census_data as D
from ._census_data import LABEL, NONREPRESENTATIVE_RULE, OFFLINE_SETS, PREDICTION

__all__ = ["CLAIMS", "DATA", "ESTIMATORS", "LABEL", "METRICS", "NONREPRESENTATIVE_RULE", "OFFLINE_SETS", "PREDICTION",
           "RULES", "WORLD", "PipelineBootstrap", "PiovanoCensusShiftRun", "add_claims", "bootstrap_errors",
           "error_figure", "estimates", "load", "load_cbpe", "paired_difference", "period_table", "pipeline_bootstrap",
           "rule_sensitivity", "run_experiment", "run_summary", "second_model"]

DATA = DATA_DIR / "real" / "census_ma"
WORLD = "real: ACS employment MA 2015-2018"
METRICS = ("accuracy", "precision_0", "precision_1", "recall_0", "recall_1")
ESTIMATORS = ("offline", "IndDis", "JointDis", "CBPE")
REPRESENTATIVE = ("the representative offline set: all of 2015 (the offline cells already match live traffic up to "
                  "the real yearly drift, so there is little for re-weighting to correct)")
FILES = dict(periods="piovano/census_shift_periods.csv", chunks="piovano/census_shift_chunks.csv",
             errors="piovano/census_shift_errors.csv", figure="piovano/census_shift_errors.png",
             rules="piovano/census_shift_rules.csv")
MEAN_ERR = ("mean over the five metrics (accuracy, precision and recall of both classes) and over the live chunks "
            "of 2016-2018 of |estimate - realized|")

CLAIMS = declare(
    Claim("piovano-census-realized-accuracy", "Real data: the realized values", "the deployed model's realized "
          "accuracy for 2015-2018, measured by hand on the original files", "check", "the deployed model's accuracy on each year, from the vendored "
          "file, equal to the hand-measured values at 4 decimals (the vendored data are the originals)", world=WORLD,
          evidence=(FILES["periods"],)),
    Claim("piovano-census-joint-closes-gap", "Section IV-B (Tables I-II), on real data", "by applying the proposed approach, we "
          "obtain metrics which are much closer to the real value compared to before re-weighting", "claim",
          "under every declared non-representative sub-sampling rule (RULES) and in every live year 2016-2018, the "
          "mean over the five metrics of |estimate - realized| of OAM JointDis at most half that of the raw offline "
          "value (the second model fitted on each rule's offline set alone)", world=WORLD, control=REPRESENTATIVE,
          evidence=(FILES["errors"], FILES["chunks"], FILES["figure"], FILES["rules"]),
          revised=f"on the study's non-representative offline set alone: the {MEAN_ERR} of OAM JointDis at most half "
          "that of the raw offline value, with the 95% percentile-bootstrap interval over chunks of the per-chunk "
          "difference above 0; revised because that rule was chosen among the declared ones after looking at them, "
          "so the claim is judged over every declared rule"),
    Claim("piovano-census-joint-beats-inddis", "Section III-A, on real data", "the proposed online adaptive method largely "
          "outperforms considering each model with independent distribution", "claim",
          f"on the non-representative offline set: the {MEAN_ERR} of JointDis below that of IndDis, with the 95% "
          "percentile interval of the difference (IndDis error - JointDis error) above 0, the interval from a "
          "bootstrap of the whole pipeline (offline draw, second model's fit, live chunks within their year); the "
          "same criterion on the representative set is its control", world=WORLD, control=REPRESENTATIVE,
          evidence=(FILES["errors"], FILES["chunks"]),
          revised="the same criterion, counted holds although the representative set passed it too; revised because "
          "a control that passes leaves the claim not tested",
          revised_after_confirmation="the interval was a percentile bootstrap over the live chunks alone, the offline "
          "draw and the second model's fit held fixed (claim [0.0012, 0.0096], control [0.0015, 0.0081]: not "
          "tested); revised to the whole pipeline's interval, which a referee asked for, after that result was "
          "seen, and no live year the change was not made on is left to confirm it"),
    Claim("piovano-census-representative-unchanged", "Section I, on real data", "it is critical that the offline test data are "
          "representative of the online live data in terms of distribution to reflect the real performance",
          "check", "the control: on the representative offline set (all of 2015) neither re-weighting moves any "
          "of the five metrics of any live year by more than 0.01 from the offline value", world=WORLD,
          evidence=(FILES["periods"],)),
    Claim("piovano-census-inddis-precision", "Section III-A, on real data", "re-weighting each model by its own hypothesis "
          "marginal leaves its precision unchanged", "check", "max |IndDis precision - offline precision| <= 1e-12 "
          "over both classes, every period and both offline sets (an identity of eqs. 3 and 7)", world=WORLD,
          evidence=(FILES["periods"], FILES["chunks"])),
    Claim("piovano-census-joint-vs-cbpe", "Real data: NannyML CBPE, the peer", "NannyML's CBPE estimates a classifier's performance "
          "on unlabelled live data from its calibrated probabilities", "check",
          f"a comparison of ours, not a claim of the paper: on the non-representative offline set the {MEAN_ERR} "
          "of JointDis at most that of CBPE (the representative set's comparison in the note)", world=WORLD,
          evidence=(FILES["errors"], FILES["chunks"], FILES["figure"])),
)

#: Other declared sub-sampling rules of 2015 for the sensitivity table (functions of features and id only).
RULES = {
    "representative (all of 2015)": lambda d: np.ones(len(d), dtype=bool),
    "working age over-sampled (the rule of the study)": lambda d: D.offline_mask(d, "nonrepresentative"),
    "under 25 over-sampled": lambda d: (d["AGEP"].to_numpy() < 25) | (d["id"].to_numpy() % 4 == 0),
    "50 and over over-sampled": lambda d: (d["AGEP"].to_numpy() >= 50) | (d["id"].to_numpy() % 4 == 0),
    "bachelor's degree or more over-sampled": lambda d: (d["SCHL"].to_numpy() >= 21) | (d["id"].to_numpy() % 4 == 0),
    "uncertain scores over-sampled (|p - 0.5| < 0.25)":
        lambda d: (np.abs(d[D.PROBABILITY].to_numpy() - 0.5) < 0.25) | (d["id"].to_numpy() % 4 == 0),
    "disagreements of B and C over-sampled (Section II-C)":
        lambda d: (d[D.PREDICTION].to_numpy() != d["candidate"].to_numpy()) | (d["id"].to_numpy() % 4 == 0),
}


# -- 1. the data ---------------------------------------------------------------------------------------------
def load(data_dir=DATA) -> pd.DataFrame:
    """The vendored table (2015-2018, one row per person), sorted by year then id."""
    df = pd.read_parquet(data_dir / D.DATA_FILE)
    missing = sorted(set(D.COLUMNS) - set(df.columns))
    if missing:
        raise ValueError(f"{data_dir / D.DATA_FILE}: columns {missing} missing (re-create it with `make peers`)")
    return df.sort_values(["year", "id"], kind="stable").reset_index(drop=True)


def load_cbpe(which: str, data_dir=DATA) -> tuple[pd.DataFrame, dict]:
    """CBPE's committed estimates for the offline set ``which`` and the run's record (version, parameters)."""
    run = json.loads((data_dir / "cbpe_run.json").read_text())
    return pd.read_csv(data_dir / f"cbpe_{which}.csv", dtype={"period": str}), run


# -- 4. the second model -------------------------------------------------------------------------------------
def second_model(df: pd.DataFrame, *, depth: int = 4, seed: int = 0, which: str | None = "nonrepresentative",
                 rule=None) -> tuple[np.ndarray, dict]:
    """C's predictions on every row: a depth-``depth`` decision tree on :data:`FEATURES`, trained on the offline
    set alone (``which`` of :data:`OFFLINE_SETS`, or the rows of 2015 a ``rule`` of :data:`RULES` keeps)."""
    from sklearn.tree import DecisionTreeClassifier

    x = df[list(D.FEATURES)].to_numpy(np.float64)
    train = (df["year"] == D.OFFLINE_YEAR).to_numpy().copy()
    y15 = df[train]
    keep = rule(y15) if rule is not None else D.offline_mask(y15.reset_index(drop=True), which)
    train[np.flatnonzero(train)[~np.asarray(keep, dtype=bool)]] = False
    tree = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(x[train], df[D.LABEL].to_numpy()[train])
    c = tree.predict(x).astype(np.int64)
    b, g = df[D.PREDICTION].to_numpy(np.int64), df[D.LABEL].to_numpy(np.int64)
    info = dict(model=f"DecisionTreeClassifier(max_depth={depth}, random_state={seed})", features=", ".join(D.FEATURES),
                train_rows=int(train.sum()), accuracy_2015=float((c == g)[train].mean()),
                agreement_with_deployed=float((c == b).mean()))
    return c, info


# -- 5. the estimators ---------------------------------------------------------------------------------------
def _as_row(m) -> dict:
    return dict(accuracy=float(m.accuracy), precision_0=float(m.precision[0]), precision_1=float(m.precision[1]),
                recall_0=float(m.recall[0]), recall_1=float(m.recall[1]))


def _cbpe_row(r) -> dict:
    tp, fp, fn, tn = (float(r[k]) for k in ("true_positive", "false_positive", "false_negative", "true_negative"))
    return dict(accuracy=(tp + tn) / (tp + fp + fn + tn), precision_0=tn / (tn + fn), precision_1=tp / (tp + fp),
                recall_0=tn / (tn + fp), recall_1=tp / (tp + fn))


def estimates(df: pd.DataFrame, candidate: np.ndarray, which: str, *, chunk_size: int = D.CHUNK_SIZE,
              data_dir=DATA) -> pd.DataFrame:
    """Every estimator's value and the realized one, per live period (year and chunk), for one offline set.

    Long format: ``offline_set, level, period, n, metric, estimator, value, realized, error``
    (``error = value - realized``).  CBPE's per-class values come from its estimated confusion matrix.
    """
    df = df.assign(candidate=candidate)
    offline = df[df["year"] == D.OFFLINE_YEAR].reset_index(drop=True)
    off = offline[D.offline_mask(offline, which)]
    b_o, c_o, g_o = (off[k].to_numpy(np.int64) for k in (D.PREDICTION, "candidate", D.LABEL))
    live = D.live_periods(df[df["year"] != D.OFFLINE_YEAR], chunk_size)
    cbpe, _ = load_cbpe(which, data_dir)
    cbpe = cbpe.set_index("period")
    periods = [("year", str(y), live[live["year"] == y]) for y in D.LIVE_YEARS]
    periods += [("chunk", c, rows) for c, rows in live.groupby("chunk", sort=True)]
    missing = sorted(p for _, p, _ in periods if p not in cbpe.index)
    if missing:
        raise ValueError(f"no CBPE estimate for periods {missing[:3]}...: the committed peer run has chunks of "
                         f"{D.CHUNK_SIZE}; got `chunk_size` {chunk_size}")
    offline_row = _as_row(metrics_from_joint(joint_distribution(b_o, c_o, g_o, n_classes=2)).baseline)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # no cell is uncovered here; undefined cells are nan
        for level, period, rows in periods:
            b_l, c_l, g_l = (rows[k].to_numpy(np.int64) for k in (D.PREDICTION, "candidate", D.LABEL))
            if int(cbpe.loc[period, "n"]) != len(rows):
                raise ValueError(f"CBPE's period {period} has {cbpe.loc[period, 'n']} rows, ours {len(rows)}")
            realized = _as_row(metrics_from_joint(joint_distribution(b_l, c_l, g_l, n_classes=2)).baseline)
            vals = {"offline": offline_row, "CBPE": _cbpe_row(cbpe.loc[period])}
            for name, method in (("IndDis", "independent"), ("JointDis", "joint")):
                vals[name] = _as_row(online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l, n_classes=2, method=method).baseline)
            for est in ESTIMATORS:
                for m in METRICS:
                    out.append(dict(offline_set=which, level=level, period=period, n=len(rows), metric=m, estimator=est,
                                    value=vals[est][m], realized=realized[m], error=vals[est][m] - realized[m]))
    return pd.DataFrame(out)


# -- 5b. intervals: a bootstrap of the whole pipeline ------------------------------------------------------------
@dataclass(frozen=True)
class PipelineBootstrap:
    """Resamples of the whole census pipeline for one offline set (:func:`pipeline_bootstrap`).

    ``abs_error[r, j, e, m]`` is |estimate - realized| of estimator ``ESTIMATORS[e]`` and metric ``METRICS[m]`` on
    live chunk ``chunks[j]`` in resample ``r`` (the offline draw and the second model of that resample);
    ``chunk_weight[r, j]`` is how often resample ``r`` draws chunk ``j``, over the number of chunks.
    """

    which: str
    chunks: tuple
    abs_error: np.ndarray
    chunk_weight: np.ndarray
    n_boot: int
    method: str = ("percentile bootstrap of the whole pipeline: the offline set's persons resampled with replacement, "
                   "the second model refitted on each resample, the live chunks resampled with replacement within "
                   "their year (a year's chunks share its drift); CBPE's committed estimates are not refitted")

    def replicates(self, estimator: str, metric: str = "all") -> np.ndarray:
        """Mean over the resampled chunks of |error|, one value per resample."""
        a = self.abs_error[:, :, ESTIMATORS.index(estimator)]
        a = a.mean(axis=2) if metric == "all" else a[:, :, METRICS.index(metric)]
        return (a * self.chunk_weight).sum(axis=1)


def _baseline_metrics(m_bg: np.ndarray) -> np.ndarray:
    """Accuracy, precision_0, precision_1, recall_0, recall_1 of B from ``(..., 2, 2)`` masses over (B, G)
    (eqs. 1, 3, 5 with the candidate summed out); ``nan`` where a ratio is 0/0."""
    diag = np.diagonal(m_bg, axis1=-2, axis2=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        acc = diag.sum(axis=-1) / m_bg.sum(axis=(-2, -1))
        prec = diag / m_bg.sum(axis=-1)
        rec = diag / m_bg.sum(axis=-2)
    return np.stack([acc, prec[..., 0], prec[..., 1], rec[..., 0], rec[..., 1]], axis=-1)


def _estimator_metrics(m_o: np.ndarray, live_bc: np.ndarray) -> np.ndarray:
    """B's offline, IndDis and JointDis metrics (eqs. 1-7 of the two-class case) from the offline masses ``m_o``
    (2, 2, 2) over (B, C, G) and each chunk's live masses ``live_bc`` (n, 2, 2) over (B, C): shape (n, 3, 5)."""
    o_bc = m_o.sum(axis=2)
    o_bg = m_o.sum(axis=1)
    ell = live_bc / live_bc.sum(axis=(1, 2), keepdims=True)
    o_b = o_bc.sum(axis=1) / o_bc.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        w_ind = np.where(o_b > 0, ell.sum(axis=2) / o_b, 0.0)  # (n, 2): each B class's live over offline share
        w_joint = np.where(o_bc > 0, ell / (o_bc / o_bc.sum()), 0.0)  # (n, 2, 2): each (B, C) cell's
    ind = o_bg[None] * w_ind[:, :, None]
    joint = (m_o[None] * w_joint[..., None]).sum(axis=2)
    n = len(live_bc)
    return np.stack([np.broadcast_to(_baseline_metrics(o_bg), (n, 5)), _baseline_metrics(ind),
                     _baseline_metrics(joint)], axis=1)


def pipeline_bootstrap(df: pd.DataFrame, which: str, *, depth: int = 4, seed: int = 0, chunk_size: int = D.CHUNK_SIZE,
                       n_boot: int = 200, rng=0, data_dir=DATA) -> PipelineBootstrap:
    """Resample the whole pipeline of offline set ``which``: the offline draw, the second model's fit, the live chunks.

    Each resample draws the offline set's persons with replacement, refits the second model
    (:func:`second_model`'s tree, each person weighted by how often it was drawn), scores every person with it,
    recomputes the offline value, IndDis and JointDis on every live chunk, and draws the live chunks with
    replacement within their year.  The realized values and CBPE's committed estimates depend on neither the
    offline draw nor the second model, so they vary with the chunk draw alone.

    The tree is fitted on the distinct (features, label) rows of the offline set with the number of draws as
    sample weight, which is the fit on the drawn persons.  ``n_boot`` resamples; ``rng`` seeds the draws.
    """
    from sklearn.tree import DecisionTreeClassifier

    if not (isinstance(n_boot, (int, np.integer)) and 1 <= n_boot <= 100_000):
        raise ValueError(f"`n_boot` must be an integer in [1, 100000]; got {n_boot!r}")
    gen = check_rng(rng)
    x_all = df[list(D.FEATURES)].to_numpy(np.float64)
    key = np.zeros(len(df), dtype=np.int64)  # one integer per distinct profile (mixed radix of the codes)
    for col in x_all.T:
        vals, code = np.unique(col, return_inverse=True)
        key = key * len(vals) + code.ravel()
    _, first, x_inv = np.unique(key, return_index=True, return_inverse=True)
    x_u, x_inv = x_all[first], x_inv.ravel()  # the tree scores each distinct profile once
    b_all, g_all = df[D.PREDICTION].to_numpy(np.int64), df[D.LABEL].to_numpy(np.int64)
    y15 = (df["year"] == D.OFFLINE_YEAR).to_numpy()
    off_rows = np.flatnonzero(y15)[D.offline_mask(df[y15].reset_index(drop=True), which)]
    profile, p_inv = np.unique(x_inv[off_rows] * 2 + g_all[off_rows], return_inverse=True)
    p_inv = p_inv.ravel()
    live = D.live_periods(df[~y15], chunk_size)
    live_rows = np.flatnonzero(~y15)  # df is sorted by year then id (:func:`load`), as live_periods sorts
    chunks, chunk_of = np.unique(live["chunk"].to_numpy(), return_inverse=True)
    chunk_of = chunk_of.ravel()
    year_of_chunk = np.array([int(c.split("-")[0]) for c in chunks])
    realized = _baseline_metrics(np.bincount(chunk_of * 4 + b_all[live_rows] * 2 + g_all[live_rows],
                                             minlength=4 * len(chunks)).reshape(-1, 2, 2).astype(np.float64))
    cbpe = load_cbpe(which, data_dir)[0].set_index("period")
    cbpe_err = np.abs(np.array([[_cbpe_row(cbpe.loc[c])[m] for m in METRICS] for c in chunks]) - realized)
    abs_error = np.empty((n_boot, len(chunks), len(ESTIMATORS), len(METRICS)))
    weight = np.zeros((n_boot, len(chunks)))
    # what a resample does not change, once: the cells' codes less the second model's answer, the profiles
    off_code, off_prof = b_all[off_rows] * 4 + g_all[off_rows], x_inv[off_rows]
    live_code, live_prof = chunk_of * 4 + b_all[live_rows] * 2, x_inv[live_rows]
    own_chunks = [np.flatnonzero(year_of_chunk == year) for year in D.LIVE_YEARS]
    for r in track(range(n_boot), f"whole-pipeline bootstrap ({which})", unit="resamples"):
        drawn = np.bincount(gen.integers(0, len(off_rows), len(off_rows)), minlength=len(off_rows))
        w = np.bincount(p_inv, weights=drawn, minlength=len(profile))
        fit = w > 0
        tree = DecisionTreeClassifier(max_depth=depth, random_state=seed)
        tree.fit(x_u[profile[fit] // 2], profile[fit] % 2, sample_weight=w[fit])
        c_u = tree.predict(x_u).astype(np.int64)  # per distinct profile
        m_o = np.bincount(off_code + c_u[off_prof] * 2, weights=drawn, minlength=8).reshape(2, 2, 2)
        live_bc = np.bincount(live_code + c_u[live_prof], minlength=4 * len(chunks)).reshape(-1, 2, 2).astype(np.float64)
        abs_error[r, :, :3] = np.abs(_estimator_metrics(m_o, live_bc) - realized[:, None, :])
        abs_error[r, :, 3] = cbpe_err
        for own in own_chunks:
            np.add.at(weight[r], own[gen.integers(0, len(own), len(own))], 1.0)
    return PipelineBootstrap(which, tuple(chunks), abs_error, weight / len(chunks), int(n_boot))


def period_table(est: pd.DataFrame) -> pd.DataFrame:
    """Per offline set and live year: the realized value and each estimator's value and error, one row per metric."""
    y = est[est["level"] == "year"]
    wide = y.pivot_table(index=["offline_set", "period", "metric"], columns="estimator", values="value", sort=False)
    real = y.groupby(["offline_set", "period", "metric"], sort=False)["realized"].first()
    tab = wide[list(ESTIMATORS)].assign(realized=real)
    for e in ESTIMATORS:
        tab[f"err_{e}"] = tab[e] - tab["realized"]
    return tab.reset_index().rename(columns={"period": "year"})


def bootstrap_errors(est: pd.DataFrame, boots: dict, *, level: float = 0.95) -> pd.DataFrame:
    """Mean absolute error over the live chunks, per offline set, estimator and metric (and ``all`` metrics).

    The value is this run's; the interval is the percentile interval of the whole-pipeline resamples
    ``boots[offline_set]`` (:func:`pipeline_bootstrap`; the same resamples for every estimator, so differences are
    paired).  Columns ``offline_set, estimator, metric, n_chunks, mean_abs_error, low, high, mean_error, n_boot``.
    """
    ch = est[est["level"] == "chunk"].assign(abs_error=lambda d: d["error"].abs())
    rows = []
    for which, part in ch.groupby("offline_set", sort=False):
        boot = boots[which]
        for e in ESTIMATORS:
            sub = part[part["estimator"] == e]
            mat = sub.pivot(index="period", columns="metric", values="abs_error").loc[list(boot.chunks), list(METRICS)]
            signed = sub.pivot(index="period", columns="metric", values="error").loc[list(boot.chunks), list(METRICS)]
            for m in (*METRICS, "all"):
                x = mat.mean(axis=1).to_numpy() if m == "all" else mat[m].to_numpy()
                s = signed.mean(axis=1).to_numpy() if m == "all" else signed[m].to_numpy()
                lo, hi = np.percentile(boot.replicates(e, m), [50 * (1 - level), 50 * (1 + level)])
                rows.append(dict(offline_set=which, estimator=e, metric=m, n_chunks=len(boot.chunks),
                                 mean_abs_error=float(x.mean()), low=float(lo), high=float(hi), mean_error=float(s.mean()),
                                 n_boot=boot.n_boot))
    return pd.DataFrame(rows)


def paired_difference(est: pd.DataFrame, boot: PipelineBootstrap, worse: str, better: str, *,
                      level: float = 0.95) -> tuple[float, float, float]:
    """Mean over chunks of (|error of ``worse``| - |error of ``better``|), mean over the five metrics, and the
    percentile interval of the whole-pipeline resamples ``boot``: ``(mean, low, high)``."""
    ch = est[(est["level"] == "chunk") & (est["offline_set"] == boot.which)]
    per = ch.assign(a=ch["error"].abs()).groupby(["estimator", "period"])["a"].mean()
    d = (per.loc[worse] - per.loc[better]).sort_index().to_numpy()
    reps = boot.replicates(worse) - boot.replicates(better)
    lo, hi = np.percentile(reps, [50 * (1 - level), 50 * (1 + level)])
    return float(d.mean()), float(lo), float(hi)


# -- 6. sensitivity to the sub-sampling rule ------------------------------------------------------------------
def rule_sensitivity(df: pd.DataFrame, *, depth: int = 4, seed: int = 0) -> pd.DataFrame:
    """Per declared rule of :data:`RULES` and live year: offline size, and the mean over the five metrics of
    |estimate - realized| of the offline value, IndDis and JointDis (CBPE was run for the study's two sets only);
    the second model fitted on each rule's offline set alone (:func:`second_model`)."""
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        for name, rule in RULES.items():
            df = df.assign(candidate=second_model(df, depth=depth, seed=seed, rule=rule)[0])
            offline = df[df["year"] == D.OFFLINE_YEAR].reset_index(drop=True)
            off = offline[rule(offline)]
            b_o, c_o, g_o = (off[k].to_numpy(np.int64) for k in (D.PREDICTION, "candidate", D.LABEL))
            o = _as_row(metrics_from_joint(joint_distribution(b_o, c_o, g_o, n_classes=2)).baseline)
            for year in D.LIVE_YEARS:
                live = df[df["year"] == year]
                b_l, c_l, g_l = (live[k].to_numpy(np.int64) for k in (D.PREDICTION, "candidate", D.LABEL))
                r = _as_row(metrics_from_joint(joint_distribution(b_l, c_l, g_l, n_classes=2)).baseline)
                vals = {"offline": o}
                for e, method in (("IndDis", "independent"), ("JointDis", "joint")):
                    vals[e] = _as_row(online_adaptive_metrics(b_o, c_o, g_o, b_l, c_l, n_classes=2, method=method).baseline)
                row = dict(rule=name, offline_size=len(off), year=year)
                for e, v in vals.items():
                    row[f"mae_{e}"] = float(np.mean([abs(v[m] - r[m]) for m in METRICS]))
                row["joint_closes_share"] = 1 - row["mae_JointDis"] / row["mae_offline"]
                rows.append(row)
    return pd.DataFrame(rows)


# -- tables and figures ---------------------------------------------------------------------------------------
def error_figure(errors: pd.DataFrame):
    """Mean |estimate - realized| over live chunks per metric and estimator, with 95% bootstrap intervals."""
    sets = ("nonrepresentative", "representative")
    fig, axes = new_figure(2, 1, width="double", height=2.6, sharey=True)
    x = np.arange(len(METRICS) + 1)
    for ax, which in zip(axes, sets):
        part = errors[errors["offline_set"] == which]
        for k, e in enumerate(ESTIMATORS):
            r = part[part["estimator"] == e].set_index("metric").loc[[*METRICS, "all"]]
            pos = x + (k - 1.5) * 0.2
            ax.bar(pos, r["mean_abs_error"], width=0.2, color=f"C{k}", label=e)
            ax.errorbar(pos, r["mean_abs_error"], yerr=[r["mean_abs_error"] - r["low"], r["high"] - r["mean_abs_error"]],
                        fmt="none", ecolor="0.2", elinewidth=0.8, capsize=1.5)
        ax.set_xticks(x, [m.replace("_", " ") for m in METRICS] + ["mean"], rotation=20)
        ax.set_title(f"offline set: {which.replace('nonrep', 'non-rep')} 2015 sample")
    axes[0].set_ylabel("mean |estimate - realized| over chunks")
    axes[0].legend(ncols=2, loc="upper left")
    return fig


def run_summary(periods: pd.DataFrame, errors: pd.DataFrame, rules: pd.DataFrame) -> str:
    """What the run shows, in Markdown, every number read from the run's own tables (nothing typed)."""
    def yearly(which, est):
        p = periods[periods["offline_set"] == which]
        per_year = p.groupby("year")[f"err_{est}"].apply(lambda e: e.abs().mean())
        return f"{per_year.min():.3f}-{per_year.max():.3f}"

    acc = periods[(periods["offline_set"] == "representative") & (periods["metric"] == "accuracy")]
    lines = ["**What the run shows** (every number from this run's tables).", "",
             "- Realized accuracy of the deployed model, " + ", ".join(
                 f"{r.year}: {r.realized:.4f}" for r in acc.itertuples()) + "."]
    for which in ("nonrepresentative", "representative"):
        lines.append(f"- {which.replace('nonrep', 'non-rep').capitalize()} offline set, mean |error| over the five "
                     "metrics per live year: " + ", ".join(f"{e} {yearly(which, e)}" for e in ESTIMATORS)
                     + "; per chunk " + ", ".join(f"{e} {_mae(errors, which, e):.4f}" for e in ESTIMATORS) + ".")
    share = rules.groupby("rule", sort=False)["joint_closes_share"].agg(["min", "max"])
    lines.append("- Share of the offline value's error JointDis closes, per declared rule (least and most over the "
                 "live years): " + "; ".join(f"{k}: {r['min']:.0%}-{r['max']:.0%}" for k, r in share.iterrows()) + ".")
    return "\n".join(lines)


# -- the run ---------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, kw_only=True)
class PiovanoCensusShiftRun:
    """Everything the census notebook shows and the ledger reads (:func:`run_experiment`)."""

    data: pd.DataFrame  #: the vendored table (:func:`load`)
    years: pd.DataFrame  #: persons, employment, the deployed model's prediction and age per year
    models: dict  #: offline set -> (the second model's predictions, its record) (:func:`second_model`)
    models_table: pd.DataFrame  #: the second models and the peer's run, one column per offline set
    estimates: pd.DataFrame  #: every estimator per live period and offline set (:func:`estimates`)
    periods: pd.DataFrame  #: per live year (:func:`period_table`)
    chunks: pd.DataFrame  #: the chunk rows of ``estimates``
    boots: dict  #: offline set -> :class:`PipelineBootstrap`
    errors: pd.DataFrame  #: mean |error| over chunks with the whole pipeline's intervals (:func:`bootstrap_errors`)
    rules: pd.DataFrame  #: every declared sub-sampling rule per live year (:func:`rule_sensitivity`)
    rule_means: pd.DataFrame  #: ``rules``' mean errors and share closed per rule
    summary: str  #: what the run shows, in Markdown (:func:`run_summary`)


def run_experiment(*, seed: int = 0, chunk_size: int = D.CHUNK_SIZE, tree_depth: int = 4, n_boot: int = 400,
                   data_dir=DATA) -> PiovanoCensusShiftRun:
    """The census study: the data, the second models, every estimator per period, the whole pipeline's bootstrap
    (``n_boot`` resamples seeded by ``seed``) and the sensitivity to the sub-sampling rule."""
    df = load(data_dir)
    years = df.groupby("year").agg(persons=("id", "size"), employed=(LABEL, "mean"), predicted=(PREDICTION, "mean"),
                                   age=("AGEP", "mean"))
    models = {which: second_model(df, depth=tree_depth, seed=seed, which=which) for which in OFFLINE_SETS}
    _, cbpe_run = load_cbpe("representative", data_dir)
    peer = f"{cbpe_run['peer']} {cbpe_run['version']} {cbpe_run['estimator']}"
    models_table = pd.DataFrame({which: {**info, "peer": peer, "non-representative rule": NONREPRESENTATIVE_RULE}
                                 for which, (_, info) in models.items()})
    est = pd.concat([estimates(df, models[which][0], which, chunk_size=chunk_size, data_dir=data_dir)
                     for which in OFFLINE_SETS], ignore_index=True)
    periods = period_table(est)
    boots = {which: pipeline_bootstrap(df, which, depth=tree_depth, seed=seed, chunk_size=chunk_size, n_boot=n_boot,
                                       rng=seed, data_dir=data_dir) for which in OFFLINE_SETS}
    errors = bootstrap_errors(est, boots)
    rules = rule_sensitivity(df, depth=tree_depth, seed=seed)
    rule_means = rules.groupby("rule", sort=False)[["mae_offline", "mae_IndDis", "mae_JointDis",
                                                     "joint_closes_share"]].mean()
    return PiovanoCensusShiftRun(data=df, years=years, models=models, models_table=models_table, estimates=est,
                                 periods=periods, chunks=est[est["level"] == "chunk"], boots=boots, errors=errors,
                                 rules=rules, rule_means=rule_means, summary=run_summary(periods, errors, rules))


# -- 7. the ledger ---------------------------------------------------------------------------------------------
def _mae(errors: pd.DataFrame, which: str, est: str, metric: str = "all") -> float:
    r = errors[(errors["offline_set"] == which) & (errors["estimator"] == est) & (errors["metric"] == metric)]
    return float(r["mean_abs_error"].iloc[0])


def add_claims(ledger: Ledger, run: PiovanoCensusShiftRun, *, block=None) -> None:
    """Fill every declared claim of :data:`CLAIMS` from ``run`` (:func:`run_experiment`); the study has no seed
    blocks, so ``block`` is ``None``."""
    if block is not None:
        raise ValueError(f"`block` must be None (the census study has no seed blocks); got {block!r}")
    df, est, periods, errors, rules, boots = run.data, run.estimates, run.periods, run.errors, run.rules, run.boots
    y15 = df[df["year"] == D.OFFLINE_YEAR]
    realized_2015 = float((y15[D.PREDICTION] == y15[D.LABEL]).mean())
    acc = periods[(periods["metric"] == "accuracy") & (periods["offline_set"] == "representative")]
    got = [realized_2015] + [float(acc.loc[acc["year"] == str(y), "realized"].iloc[0]) for y in D.LIVE_YEARS]
    by_hand = (0.8272, 0.8253, 0.8292, 0.8282)  # measured by hand on the original files (issue 27), not the paper's
    ledger.check("piovano-census-realized-accuracy", holds=all(round(g, 4) == p for g, p in zip(got, by_hand)),
                 reproduced_value=", ".join(f"{g:.4f}" for g in got) + " (by hand: "
                 + ", ".join(f"{p:.4f}" for p in by_hand) + ")",
                 note="a check of the vendored data against the hand measurement, not a claim of the paper (the "
                      "paper prints no census value)")
    nr, rep = "nonrepresentative", "representative"
    off, ind, joint, cbpe = (_mae(errors, nr, e) for e in ESTIMATORS)
    d, lo, hi = paired_difference(est, boots[nr], "offline", "JointDis")
    c_off, c_ind, c_joint = (_mae(errors, rep, e) for e in ("offline", "IndDis", "JointDis"))
    nonrep_rules = rules[~rules["rule"].str.startswith("representative")]
    closes = nonrep_rules.groupby("rule", sort=False)["joint_closes_share"].min()
    rep_closes = float(rules.loc[rules["rule"].str.startswith("representative"), "joint_closes_share"].min())
    ledger.judge("piovano-census-joint-closes-gap", holds=bool((closes >= 0.5).all()), control_holds=rep_closes >= 0.5,
                 confirmation=f"every declared non-representative rule ({len(closes)}) and every live year "
                              f"({', '.join(map(str, D.LIVE_YEARS))}); no rule chosen",
                 reproduced_value="least share of the offline error JointDis closes in a live year, per rule: "
                 + "; ".join(f"{k}: {v:.0%}" for k, v in closes.items()),
                 control=f"representative set: least share closed {rep_closes:.0%}: the criterion "
                         f"{'passes' if rep_closes >= 0.5 else 'fails'}",
                 note=f"the study's own rule on chunks: offline {off:.4f}, JointDis {joint:.4f} "
                      f"({1 - joint / off:.0%} closed), difference {d:.4f}, 95% CI [{lo:.4f}, {hi:.4f}] (whole pipeline); "
                      "the size of the gain depends on the rule")
    yr = {(w, e): float(periods.loc[periods["offline_set"] == w, f"err_{e}"].abs().mean()) for w in (nr, rep)
          for e in ESTIMATORS}
    d2, lo2, hi2 = paired_difference(est, boots[nr], "IndDis", "JointDis")
    c_d2, c_lo2, c_hi2 = paired_difference(est, boots[rep], "IndDis", "JointDis")
    ledger.judge("piovano-census-joint-beats-inddis", holds=bool(joint < ind and lo2 > 0),
                 control_holds=bool(c_joint < c_ind and c_lo2 > 0),
                 confirmation="every live chunk of 2016-2018 (the claim's criterion was not chosen on them)",
                 reproduced_value=f"mean |error| IndDis {ind:.4f}, JointDis {joint:.4f}; difference {d2:.4f}, "
                 f"95% CI [{lo2:.4f}, {hi2:.4f}] (whole-pipeline bootstrap, {boots[nr].n_boot} resamples)",
                 control=f"representative set: IndDis {c_ind:.4f}, JointDis {c_joint:.4f}, difference 95% CI "
                         f"[{c_lo2:.4f}, {c_hi2:.4f}]: the criterion {'passes' if c_joint < c_ind and c_lo2 > 0 else 'fails'}",
                 note="with two classes IndDis re-weights two cells and JointDis four; 'largely' is not tested, only the "
                      "direction and its interval. Per chunk JointDis also beats IndDis on the representative set (it "
                      "follows each chunk's mix of four cells), so the chunk criterion does not isolate the correction of "
                      "the sampling bias; per year it does: mean |error| over the five metrics and three years, "
                      f"non-representative IndDis {yr[(nr, 'IndDis')]:.4f} vs JointDis {yr[(nr, 'JointDis')]:.4f}, "
                      f"representative IndDis {yr[(rep, 'IndDis')]:.4f} vs JointDis {yr[(rep, 'JointDis')]:.4f}")
    y = periods[periods["offline_set"] == rep]
    move = float(np.max(np.abs(y[["IndDis", "JointDis"]].to_numpy() - y[["offline"]].to_numpy())))
    ledger.check("piovano-census-representative-unchanged", holds=move <= 0.01,
                 reproduced_value=f"largest |re-weighted - offline| {move:.4f}",
                 note="" if move <= 0.01 else "the real yearly drift moves the re-weighted values by more than 0.01")
    prec = est[(est["metric"].str.startswith("precision")) & (est["estimator"].isin(["offline", "IndDis"]))]
    wide = prec.pivot_table(index=["offline_set", "period", "metric"], columns="estimator", values="value")
    gap = float((wide["IndDis"] - wide["offline"]).abs().max())
    # the gap is rounding noise (0 or a few 1e-16, CPU-dependent): written as the bound it meets, not its last bits
    ledger.check("piovano-census-inddis-precision", holds=gap <= 1e-12,
                 reproduced_value="max |IndDis - offline| <= 1e-12" if gap <= 1e-12 else f"{gap:.3g}",
                 note="" if gap <= 1e-12 else "IndDis moves the precision: the identity fails")
    c_cbpe = _mae(errors, rep, "CBPE")
    ledger.check("piovano-census-joint-vs-cbpe", holds=joint <= cbpe,
                 reproduced_value=f"non-representative: JointDis {joint:.4f}, CBPE {cbpe:.4f}, offline {off:.4f}, "
                 f"IndDis {ind:.4f}; representative: JointDis {c_joint:.4f}, CBPE {c_cbpe:.4f}, offline {c_off:.4f}",
                 note="CBPE needs only the deployed model's calibrated probabilities; JointDis needs a second model and "
                      "the offline labels. Per year (mean |error| over five metrics and three years): non-representative "
                      f"offline {yr[(nr, 'offline')]:.4f}, IndDis {yr[(nr, 'IndDis')]:.4f}, JointDis "
                      f"{yr[(nr, 'JointDis')]:.4f}, CBPE {yr[(nr, 'CBPE')]:.4f}. The sub-sample is drawn on a feature (age) "
                      "the deployed model sees, so p(employed | score) barely changes and CBPE's calibration, fitted "
                      "on the biased set, still holds; JointDis assumes p(label | both models' predictions) unchanged, "
                      "a coarser partition (four cells) that age still shifts. " + ("JointDis is at least as close as CBPE here" if joint <= cbpe else
                                                "CBPE is closer than JointDis on these data"))
