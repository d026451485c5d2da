"""offline_eval: offline vs online evaluation of predictive models.

The library behind the compendium that reproduces four papers on the subject (see the project's README).
The main functions are importable from the package itself (``from offline_eval import roc_auc_score, kendall_tau``);
they load their module on first use, so ``import offline_eval`` stays cheap.

Metrics and tools, for one's own data
-------------------------------------
``metrics``     AUC and ROC (also from binned counts), log loss, RIG, calibration ratio, prediction error,
                the per-quantile breakdown (yi); MSE, RMSE, NMSE, MAE, MAD for clicks or any response
                (yi, rosset); bootstrap confidence intervals of any of them
``ranking``     Kendall's tau and Spearman's rho as pair counts in O(n log n), the variance and confidence
                interval of tau, Figs. 1-3 curves, leave-one-out influence, paired bootstrap (rosset)
``adaptive``    the online adaptive metrics: joint distributions and their re-weighting (piovano)
``bidding``     utility, weighted MSE and the expected utility of a bidder; Algorithm 1 (chapelle)
``auction``     vectorised GSP auctions, A/B tests and the replay of logged auctions (yi)
``logboot``     the clustered Poisson bootstrap of a log: several metrics of one or two models and their paired
                differences from the same resamples, percentile and BCa intervals
``mergeable``   accumulators of the metric families that chunks of a log fill and merge
``ondask``      the same metrics on a Dask DataFrame or a Parquet path (optional extra ``dask``)
``counterfactual`` off-policy estimates of a new policy's online value from a randomised log: IPS, SNIPS and
                doubly robust, with standard errors
``results``     the result types: ``Result`` (the protocol every result with an interval or a p-value follows),
                ``ConfidenceInterval``, ``NormalEstimate`` and every type that extends ``Result``

Synthetic worlds
----------------
``synth``       synthetic-data generators that model each paper's mechanism (sponsored search, RTB, IT wallets,
                classifiers)
``plotting``    the figure style (needs matplotlib, extra ``plot``)
``display``     numbers for people: significant digits matched to a printed value, thousands separators,
                percentages, compact intervals, p-values at a resampling floor as bounds

The compendium
--------------
The machinery that reproduces the papers (the studies, the claims ledger, the papers' printed numbers, the
notebook pipeline, the report) is a package of its own, ``offline_eval_compendium``, in the repository's
``compendium/`` folder; it is not part of this library's wheel, and it uses only this library's public names.
"""

from __future__ import annotations

import importlib

from ._validation import OfflineEvalWarning

__version__ = "0.1.0"

#: Public name -> module that defines it (loaded on first access).
_EXPORTS = {
    **{name: "metrics" for name in (
        "BootstrapCI", "bootstrap_ci", "calibration_ratio", "log_loss", "mean_absolute_error", "mean_squared_error",
        "median_absolute_error", "normalized_mean_squared_error", "prediction_error", "quantile_breakdown",
        "rig_score", "roc_auc_score", "roc_auc_score_from_counts", "roc_curve", "roc_curve_from_counts",
        "root_mean_squared_error")},
    **{name: "ranking" for name in (
        "bootstrap_compare", "correct_pairs_curve", "cumulative_rank_curve", "cutoff_auc", "kendall_tau",
        "kendall_tau_test", "leave_one_out", "most_influential", "spearman_rho", "spearman_rho_test", "tau_confidence_interval",
        "tau_variance")},
    **{name: "adaptive" for name in (
        "bootstrap_oam_accuracy", "joint_distribution", "metrics_from_joint", "online_adaptive_metrics",
        "reweighted_joint")},
    **{name: "bidding" for name in (
        "ab_test_correlation", "expected_utility", "utility", "weighted_mean_squared_error")},
    **{name: "logboot" for name in ("BootstrapResult", "LogBootstrap", "clustered_bootstrap")},
    **{name: "counterfactual" for name in ("dr_estimate", "ips_estimate", "snips_estimate")},
    **{name: "auction" for name in (
        "ClickLog", "OperatingPoint", "PageViews", "allocate", "best_operating_point",
        "cross_validate_min_impressions", "simulate", "sweep_operating_points")},
}

__all__ = sorted(["OfflineEvalWarning", "__version__", *_EXPORTS])


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'offline_eval' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
