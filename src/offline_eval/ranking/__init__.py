"""Ranking-based evaluation of regression models (Rosset, Perlich & Zadrozny, ICDM 2005).

A regression model is judged by how well its predictions *order* the test
responses: Kendall's tau and Spearman's rho through the paper's statistics T
and R (eqs. 2-5), the sample variance and confidence interval of tau (eq. 6),
the three ROC-like curves of Section 3.2 (Figs. 1-3), the exact
leave-one-out influence of every observation on each measure (Section 5.2) and
a bootstrap comparison of two models (Section 5.3).

Modules
-------
``coefficients``  T, R, Kendall's tau, Spearman's rho, the variance and interval of tau (eqs. 2-6),
                  :data:`MEASURES`
``curves``        the three curves of Section 3.2 (Figs. 1-3)
``influence``     exact leave-one-out values and the most influential observation (Section 5.2)
``bootstrap``     the paired bootstrap comparison of two models (Section 5.3)
``_pairs``        the pair-count engine they share (private)

Every public name is importable from ``offline_eval.ranking`` itself.  The residual measures of
Tables 1-2 (RMSE, MAE, MAD) are :mod:`offline_eval.metrics`'s ``root_mean_squared_error``,
``mean_absolute_error`` and ``median_absolute_error``.

Conventions
-----------
``y_true`` are the responses, ``y_pred`` the model's predictions; a pair of
observations is *concordant* when both order it the same way, *discordant*
when they order it oppositely and *tied* when either has equal values.  The
paper assumes no ties (its footnote 2).  Where ties matter this module counts
a tied pair as one half correctly ranked (as the AUC does), so that
``tau_tilde = 1 - 2 T / (n (n - 1))`` is the share of correctly ranked pairs;
:func:`kendall_tau` returns tau-b and :func:`spearman_rho` the Pearson
correlation of average ranks, both equal to :mod:`scipy.stats` with and
without ties.  Without ties every variant coincides with the paper's.

Complexity
----------
Every per-observation count is obtained from one O(n log n) pass: the number
of observations ranked below by both truth and prediction is a "count smaller
before" over a permutation, computed by a vectorised radix partition (a
wavelet matrix, one stable partition per bit of the rank) with an O(n * 16)
brute force for the last four bits.  :func:`concordance_counts`,
:func:`kendall_tau`, :func:`tau_variance`, :func:`cutoff_auc` and
:func:`leave_one_out` are therefore O(n log n); the locally optimal envelope
of Fig. 1 is O(n^1.5) (:func:`correct_pairs_curve`).

References
----------
.. [1] S. Rosset, C. Perlich, B. Zadrozny, "Ranking-Based Evaluation of
   Regression Models", ICDM 2005.
.. [2] M. Kendall, J. D. Gibbons, *Rank Correlation Methods*, 1990.
.. [3] G. E. Noether, *Elements of Nonparametric Statistics*, 1967.
"""


from __future__ import annotations

from .bootstrap import BootstrapComparison, bootstrap_compare
from .coefficients import (
    MEASURES,
    RhoResult,
    TauResult,
    concordance_counts,
    kendall_tau,
    kendall_tau_test,
    r_statistic,
    spearman_rho,
    spearman_rho_test,
    t_statistic,
    tau_confidence_interval,
    tau_variance,
    tau_variance_from_concordance,
)
from .curves import (
    CorrectPairsCurve,
    CumulativeRankCurve,
    CutoffAUC,
    correct_pairs_curve,
    cumulative_rank_curve,
    cutoff_auc,
)
from .influence import Influence, leave_one_out, most_influential

__all__ = [
    "MEASURES",
    "BootstrapComparison",
    "CorrectPairsCurve",
    "CumulativeRankCurve",
    "CutoffAUC",
    "Influence",
    "RhoResult",
    "TauResult",
    "bootstrap_compare",
    "concordance_counts",
    "correct_pairs_curve",
    "cumulative_rank_curve",
    "cutoff_auc",
    "kendall_tau",
    "kendall_tau_test",
    "leave_one_out",
    "most_influential",
    "r_statistic",
    "spearman_rho",
    "spearman_rho_test",
    "t_statistic",
    "tau_confidence_interval",
    "tau_variance",
    "tau_variance_from_concordance",
]
