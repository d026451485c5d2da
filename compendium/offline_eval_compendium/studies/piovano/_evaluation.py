"""piovano, shared by its three studies: the printed matrices, the evaluation of one offline/live pair,
the offline-set generator's calibration and the seed-sweep rows (the claims they fill:
:mod:`._sweep_claims`).

"std" follows the paper's text (Section IV-A): "the standard deviation across
all classes between the real values of the recall/precision and the
estimated ones", read as ``std_k(est_k - online_k)`` (population std, ddof=0)
over the classes where both values are defined (:func:`std_of_differences`),
the reading the printed numbers support (:func:`std_reading_evidence`).  It is
blind to a shift common to all classes, so the accuracy error is reported
beside it, and so is the other reading, the root mean square of the same
differences (:func:`rms_of_differences`, which keeps that shift).
Printed numbers come from ``data/reference/piovano/``.
"""

from __future__ import annotations

import copy
import itertools
import warnings
from collections import OrderedDict
from contextlib import contextmanager
from typing import NamedTuple

import numpy as np
import pandas as pd

from ... import reference
from offline_eval import OfflineEvalWarning
from offline_eval.synth import check_rng
from offline_eval.adaptive import joint_distribution, metrics_from_joint, online_adaptive_metrics
from offline_eval.synth import classifiers as synth

MODELS = ("baseline", "candidate")
SETTINGS = ("Online metrics", "Offline metrics", "OAM IndDis", "OAM JointDis")
SECTION = "Section IV-A"
TOY = "Section II toy example"


@contextmanager
def quiet_warnings():
    """Silence the expected undefined-class / uncovered-mass warnings (both are reported in the tables)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)
        yield


def shared_by_seed(func, *, maxsize: int):
    """``func(seed, *args, **kw) -> (rng, *arrays)`` computed once per integer seed and arguments.

    For a world that a claim and its control world (or two sweeps) share: the
    cache keeps the ``maxsize`` latest results, the arrays read-only, and
    hands out a fresh copy of ``rng`` in the state ``func`` left it, so the
    draws that follow are the same as on a first call.  A Generator or
    ``None`` seed, or an unhashable argument, is not cached.
    """
    cache: OrderedDict = OrderedDict()

    def shared(seed, *args, **kw):
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, (bool, np.bool_)):
            return func(seed, *args, **kw)
        key = (int(seed), args, tuple(sorted(kw.items())))
        try:
            hit = cache.get(key)
        except TypeError:  # an unhashable argument (an array of accuracies, ...)
            return func(seed, *args, **kw)
        if hit is None:
            rng, *arrays = func(seed, *args, **kw)
            for a in arrays:
                a.setflags(write=False)
            hit = cache[key] = (copy.deepcopy(rng), *arrays)
            if len(cache) > maxsize:
                cache.popitem(last=False)
        else:
            cache.move_to_end(key)
        return (copy.deepcopy(hit[0]), *hit[1:])

    shared.cache_clear = cache.clear
    return shared


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


def _differences(est, online) -> np.ndarray:
    d = np.asarray(est, dtype=float) - np.asarray(online, dtype=float)
    return d[np.isfinite(d)]


def std_of_differences(est, online) -> float:
    """The "std" of Tables I-II read as the spread of the per-class differences (the reading the printed numbers
    support, :func:`std_reading_evidence`).

    Notes
    -----
    ``sqrt(mean_k (d_k - mean_k d)^2)`` with ``d_k = est_k - online_k`` over
    the classes where both are defined (population standard deviation,
    ddof = 0).  A shift common to every class is invisible to it.

    >>> round(std_of_differences([0.5, 0.7, float("nan")], [0.4, 0.4, 0.3]), 6)
    0.1
    """
    d = _differences(est, online)
    return float(np.std(d)) if d.size else float("nan")


def rms_of_differences(est, online) -> float:
    """The other reading of the "std" of Tables I-II: the root mean square of the per-class differences.

    Notes
    -----
    ``sqrt(mean_k d_k^2)`` with ``d_k = est_k - online_k`` over the classes
    where both are defined; it keeps the bias:
    ``rms^2 = std^2 + mean(d)^2`` (:func:`std_of_differences`).

    >>> round(rms_of_differences([0.5, 0.7, float("nan")], [0.4, 0.4, 0.3]), 6)
    0.223607
    """
    d = _differences(est, online)
    return float(np.sqrt(np.mean(d * d))) if d.size else float("nan")


_std_diff = std_of_differences  # the name the tables used before the two readings were told apart


def evaluation_table(b_o, c_o, g_o, b_l, c_l, g_l, *, n_classes: int) -> tuple[pd.DataFrame, dict]:
    """Online / Offline / OAM IndDis / OAM JointDis metrics of both models (Tables I-II layout).

    Returns the table (``model, setting, Acc, std_Rec, std_Prec, Acc_error``)
    and the raw per-class results with the uncovered live mass.
    """
    k = n_classes
    with quiet_warnings():
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
            rows.append(dict(model=model, setting=setting, Acc=r.accuracy,
                             std_Rec=std_of_differences(r.recall, on.recall),
                             std_Prec=std_of_differences(r.precision, on.precision),
                             rms_Rec=rms_of_differences(r.recall, on.recall),
                             rms_Prec=rms_of_differences(r.precision, on.precision), Acc_error=r.accuracy - on.accuracy,
                             uncovered_mass=r.uncovered_mass))
    return pd.DataFrame(rows), res


def sweep_row(table: pd.DataFrame, res: dict) -> dict:
    """Flatten one evaluation into numbers and the per-seed outcome of every criterion of
    :data:`._sweep_claims.SWEEP_CRITERIA`."""
    t = {(r["model"], r["setting"]): r for r in table.to_dict("records")}  # plain dicts: no pandas per cell
    out = {}
    slug = {"Online metrics": "online", "Offline metrics": "offline", "OAM IndDis": "inddis", "OAM JointDis": "joint"}
    for (model, setting), r in t.items():
        for col in ("Acc", "std_Rec", "std_Prec", "rms_Rec", "rms_Prec"):
            out[f"{model}_{slug[setting]}_{col}"] = float(r[col])
    out["uncovered_mass"] = float(table["uncovered_mass"].max())

    def err(model, s):
        return abs(t[(model, s)]["Acc_error"])

    def both(f):
        return bool(all(f(m) for m in MODELS))

    out["joint_acc_beats_offline"] = both(lambda m: err(m, "OAM JointDis") < err(m, "Offline metrics"))
    out["joint_acc_beats_inddis"] = both(lambda m: err(m, "OAM JointDis") < err(m, "OAM IndDis"))
    for reading in ("std", "rms"):  # the sd reading decides; the rms reading is recorded beside it
        tail = "" if reading == "std" else "_rms"
        rec, prec = f"{reading}_Rec", f"{reading}_Prec"
        out["joint_stdrec_below_offline" + tail] = both(lambda m: t[(m, "OAM JointDis")][rec] < t[(m, "Offline metrics")][rec])
        out["joint_stdprec_below_offline" + tail] = both(lambda m: t[(m, "OAM JointDis")][prec] < t[(m, "Offline metrics")][prec])
        out["joint_stdrec_below_inddis" + tail] = both(lambda m: t[(m, "OAM JointDis")][rec] < t[(m, "OAM IndDis")][rec])
    out["inddis_prec_equals_offline"] = both(lambda m: np.nanmax(np.abs(res["OAM IndDis"].model(m).precision - res["Offline metrics"].model(m).precision), initial=0.0) <= 1e-12)
    out["offline_underestimates_acc"] = both(lambda m: t[(m, "Offline metrics")]["Acc_error"] < 0)
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




# -- which reading of "std" the printed numbers support --------------------------------------------
def _live_prediction_shares(ref: pd.DataFrame, model: str, *, pad: float = 0.0) -> list[np.ndarray]:
    """A model's live predicted-class shares from the printed ``M_BC^(l)`` (rows B, columns C), normalised;
    with ``pad`` > 0 every corner of the box each printed sum of 5 cells (each +- ``pad`` percent) allows."""
    live, _ = printed_matrix(ref, SECTION, "M_BC^(l)")
    sums = live.sum(axis=1 if model == "baseline" else 0)
    k = sums.size
    corners = itertools.product((-1.0, 1.0), repeat=k) if pad else [np.zeros(k)]
    return [(sums + k * pad * np.asarray(c)) / (sums + k * pad * np.asarray(c)).sum() for c in corners]


def _sd_witness(q_live, q_off, acc_online: float, acc_offline: float, acc_inddis: float, std: float):
    """Per-class precisions ``(P_online, P_offline)`` in [0, 1] meeting one model's printed Table I row under the
    sd reading, or None: ``sum q_live P_online = Acc(online)``, ``sum q_off P_offline = Acc(offline)``,
    ``sum q_live P_offline = Acc(IndDis)`` and the population sd of ``P_offline - P_online`` equal to the printed std.

    ``P_offline = c + [q_live; q_off]^T lambda`` (``c`` on a grid of 101 values) meets its two sums; the
    difference ``d = e + std z`` with ``e = Acc(IndDis) - Acc(online)`` and ``z`` a unit-sd direction orthogonal
    to 1 and ``q_live`` (an angle on a 1-degree grid) meets the sd and makes ``sum q_live P_online = Acc(online)``.
    The first grid point in [0, 1] is returned (a deterministic search).
    """
    k = q_live.size
    a = np.vstack([q_live, q_off])
    basis = np.linalg.svd(np.vstack([np.ones(k), q_live]))[2][2:]  # orthonormal, orthogonal to 1 and q_live
    e = acc_inddis - acc_online
    for c in np.linspace(0.0, 1.0, 101):
        lam = np.linalg.solve(a @ a.T, np.array([acc_inddis, acc_offline]) - a @ np.full(k, c))
        p_off = c + a.T @ lam
        if not ((p_off >= 0) & (p_off <= 1)).all():
            continue
        for deg in range(360):
            t = np.deg2rad(deg)
            z = np.cos(t) * basis[0] + np.sin(t) * basis[1] if len(basis) > 1 else basis[0]
            z = z / np.std(z)
            p_on = p_off - (e + std * z)
            if ((p_on >= 0) & (p_on <= 1)).all():
                return p_on, p_off
    return None


def std_reading_evidence(ref: pd.DataFrame) -> pd.DataFrame:
    """Which reading of the "std" of Tables I-II the printed numbers admit, cell by cell.

    OAM IndDis re-weights each model's items by the live over offline share of
    its own predicted class, so each predicted class keeps its offline
    precision (the printed std. Prec. of the IndDis and Offline rows are equal,
    8 of 8 cells) and ``Acc(IndDis) = sum_k q_k P_k^(o)`` with ``q`` the
    model's live predicted-class shares; as ``Acc(online) = sum_k q_k P_k^(l)``,

        ``Acc(IndDis) - Acc(online) = sum_k q_k d_k``,  ``d_k = P_k^(o) - P_k^(l)``.

    By Cauchy-Schwarz the root mean square of the ``d_k`` is then at least
    ``|Acc(IndDis) - Acc(online)| / sqrt(K sum_k q_k^2)``; the sd of the
    ``d_k`` has no such bound (a common shift is invisible to it).  Where the
    paper prints ``q`` (Table I: the row and column sums of ``M_BC^(l)``), the
    least root mean square is taken at the worst case of the printed rounding
    (each accuracy +- half its last digit, each printed share +- 0.005 percent)
    and set beside the printed std. Prec. plus half its last digit.  The sd
    reading is shown admissible by a witness: per-class precisions in [0, 1]
    meeting the printed online, offline and IndDis accuracies and the printed
    std. (:func:`_sd_witness`).  Table II's live shares are not printed: there
    the cell cannot decide.

    Returns one row per table and model: the printed numbers, ``rms_least``,
    ``rms_admitted`` (``excluded`` when the printed std. is below the least
    root mean square), ``sd_admitted`` and the witness.
    """
    rows = []
    off, _ = printed_matrix(ref, SECTION, "M_BC^(o)")
    for source in ("Table I", "Table II"):
        p = paper_table(ref, source).set_index(["model", "setting"])
        for model in MODELS:
            txt = {s: p.loc[(model, s)] for s in ("Online metrics", "Offline metrics", "OAM IndDis")}
            acc = {s: reference.parse_printed(v["paper_Acc"]) for s, v in txt.items()}
            std_txt = txt["OAM IndDis"]["paper_std_Prec"]
            half = 0.5 * 10.0 ** -reference.printed_decimals(std_txt)
            row = dict(table=source, model=model, acc_online=txt["Online metrics"]["paper_Acc"],
                       acc_offline=txt["Offline metrics"]["paper_Acc"], acc_inddis=txt["OAM IndDis"]["paper_Acc"],
                       std_prec_inddis=std_txt, std_prec_offline=txt["Offline metrics"]["paper_std_Prec"],
                       rms_least=np.nan, rms_admitted="undecided: live shares not printed",
                       sd_admitted="undecided: live shares not printed", witness_p_online="", witness_p_offline="")
            if source == "Table I":
                acc_half = sum(0.5 * 10.0 ** -reference.printed_decimals(txt[s]["paper_Acc"])
                               for s in ("Online metrics", "OAM IndDis"))
                e_least = max(abs(acc["OAM IndDis"] - acc["Online metrics"]) - acc_half, 0.0)
                k = off.shape[0]
                least = min(e_least / np.sqrt(k * float(np.sum(q * q)))
                            for q in _live_prediction_shares(ref, model, pad=0.005))
                q_live = _live_prediction_shares(ref, model)[0]
                q_off = off.sum(axis=1 if model == "baseline" else 0) / off.sum()
                wit = _sd_witness(q_live, q_off, acc["Online metrics"], acc["Offline metrics"], acc["OAM IndDis"],
                                  reference.parse_printed(std_txt))
                row.update(rms_least=least, rms_admitted="not excluded" if least <= reference.parse_printed(std_txt) + half
                           else "excluded", sd_admitted="yes" if wit is not None else "no witness found",
                           witness_p_online="" if wit is None else " ".join(f"{v:.3f}" for v in wit[0]),
                           witness_p_offline="" if wit is None else " ".join(f"{v:.3f}" for v in wit[1]))
            rows.append(row)
    return pd.DataFrame(rows)
