"""yi Figs. 1-2: AUC and RIG depend on the data's distribution, not only on the model.

Fig. 1
    ROC curves of a sponsored-search and a contextual-ads click model.  The
    contextual data hold more poorly relevant (near-zero CTR) impressions --
    easy negatives -- so its model gets the higher AUC although it is the
    worse calibrated one (average pClick / actual CTR 0.86 against 1.02).
Fig. 2
    RIG and prediction error of one fixed model on data sets whose CTR
    differs only by their share of low-CTR impressions: RIG falls as the CTR
    rises, and PE is highest at low CTR where the model over-estimates.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import spearmanr

from ..metrics import auc, calibration_ratio, prediction_error, rig, roc_curve
from ..plotting import new_figure
from ..synth.sponsored import distorted_pclick, sample_ctr

__all__ = ["FIG1_DATASETS", "fig1_figure", "fig1_run", "fig2_figure", "fig2_run", "impressions", "per_seed"]

#: The two data sets of Fig. 1: share of poorly relevant impressions and the
#: model's calibration factor (yi quote avg pClick / actual CTR = 1.02 and 0.86).
FIG1_DATASETS = {
    "sponsored search": dict(junk_share=0.20, scale=1.02),
    "contextual ads": dict(junk_share=0.27, scale=0.86),
}


def impressions(n, rng, *, junk_share, scale=1.0, noise_sd=0.6, ctr_kwargs=None, model_kwargs=None):
    """``n`` impressions: true CTR from :func:`sample_ctr`, a click, and a model's pClick."""
    rng = np.random.default_rng(rng)
    ctr = sample_ctr(n, rng, junk_share=junk_share, **(ctr_kwargs or {}))
    y = (rng.random(n) < ctr).astype(np.int8)
    p = distorted_pclick(ctr, rng, noise_sd=noise_sd, scale=scale, **(model_kwargs or {}))
    return y, p


def fig1_run(seed, *, n=200_000, noise_sd=0.6, datasets=FIG1_DATASETS):
    """AUC, calibration ratio and ROC curve of each Fig. 1 data set."""
    rngs = np.random.default_rng(seed).spawn(len(datasets))
    out = {}
    for (name, kw), r in zip(datasets.items(), rngs):
        y, p = impressions(n, r, noise_sd=noise_sd, **kw)
        fpr, tpr, _ = roc_curve(y, p)
        out[name] = dict(auc=auc(y, p), calibration_ratio=calibration_ratio(y, p), ctr=float(y.mean()), fpr=fpr, tpr=tpr)
    return out


def fig1_figure(res, *, max_points=2000):
    """ROC curves of the Fig. 1 data sets, AUC and calibration in the legend."""
    fig, ax = new_figure(1, 1, width="single", height=3.0)
    for name, r in res.items():
        idx = np.unique(np.linspace(0, len(r["fpr"]) - 1, max_points).astype(int))
        ax.plot(r["fpr"][idx], r["tpr"][idx],
                label=f"{name}: AUC {r['auc']:.3f}, avg pClick / CTR {r['calibration_ratio']:.2f}")
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.8, ls=":")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title("Fig. 1: ROC of sponsored-search and contextual-ads models")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def fig2_run(seed, *, n=200_000, junk_shares=tuple(np.round(np.linspace(0.9, 0.0, 10), 3)), noise_sd=0.5,
             low_ctr=0.004, low_shift=1.0):
    """RIG and PE of one fixed model on data sets of increasing CTR (one row each)."""
    rngs = np.random.default_rng(seed).spawn(len(junk_shares))
    rows = []
    for js, r in zip(junk_shares, rngs):
        y, p = impressions(n, r, junk_share=float(js), noise_sd=noise_sd,
                           model_kwargs=dict(low_ctr=low_ctr, low_shift=low_shift))
        rows.append(dict(junk_share=float(js), ctr=float(y.mean()), rig=rig(y, p), prediction_error=prediction_error(y, p)))
    return pd.DataFrame(rows).sort_values("ctr", kind="stable").reset_index(drop=True)


def fig2_figure(df):
    """RIG (solid) and PE (dotted) against the data set's CTR, as yi Fig. 2."""
    fig, ax = new_figure(1, 1, width="single", height=2.5)
    ax.plot(df["ctr"], df["rig"], "-o", ms=3, label="RIG")
    ax.plot(df["ctr"], df["prediction_error"], ":s", ms=3, label="prediction error")
    ax.axhline(0, color="0.6", lw=0.6)
    ax.set_xlabel("CTR of the data set")
    ax.set_ylabel("score")
    ax.set_title("Fig. 2: RIG and PE of one model over data CTR")
    ax.legend()
    return fig


def per_seed(seed, *, n=200_000, n_fig2=100_000):
    """One seed of the sweep: Fig. 1 and Fig. 2 outcomes as a flat dict."""
    s1, s2 = np.random.default_rng(seed).spawn(2)
    f1 = fig1_run(s1, n=n)
    ss, cx = f1["sponsored search"], f1["contextual ads"]
    f2 = fig2_run(s2, n=n_fig2)
    rho = float(spearmanr(f2["ctr"], f2["rig"])[0])
    return dict(
        auc_sponsored=ss["auc"], auc_contextual=cx["auc"],
        auc_rel_diff_pct=100 * (cx["auc"] / ss["auc"] - 1),
        ratio_sponsored=ss["calibration_ratio"], ratio_contextual=cx["calibration_ratio"],
        fig1_holds=bool(cx["auc"] > ss["auc"] and abs(cx["calibration_ratio"] - 1) > abs(ss["calibration_ratio"] - 1)),
        fig2_spearman=rho,
        fig2_rig_falls=bool(rho <= -0.8),
        fig2_pe_low_over_high=float(f2["prediction_error"].iloc[0] - f2["prediction_error"].iloc[-1]),
        fig2_pe_higher_at_low_ctr=bool(f2["prediction_error"].iloc[0] > f2["prediction_error"].iloc[-1]),
    )
