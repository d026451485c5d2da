"""Issue 35: every undefined result warns with OfflineEvalWarning attributed to the caller's line.

Before, each call site counted its frames (``stacklevel=3``, ``4``...), and a public function calling another
(``spearman_rho_test`` -> ``spearman_rho``, ``bootstrap_oam_accuracy`` -> ``online_adaptive_metrics``), a helper
or a generator expression pointed the warning into the library (``coefficients.py``, ``adaptive.py``).
"""

import warnings

import pytest

from offline_eval import OfflineEvalWarning, adaptive, bidding, metrics, ranking

CASES = {
    "roc_auc_score one class": lambda: metrics.roc_auc_score([1, 1, 1], [0.1, 0.2, 0.3]),
    "rig_score one class": lambda: metrics.rig_score([1, 1, 1], [0.1, 0.2, 0.3]),
    "calibration_ratio no click": lambda: metrics.calibration_ratio([0, 0, 0], [0.1, 0.2, 0.3]),
    "normalized_mean_squared_error constant": lambda: metrics.normalized_mean_squared_error([1.0] * 3, [0.1, 0.2, 0.3]),
    "quantile_breakdown one-class bins": lambda: metrics.quantile_breakdown([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4], n_quantiles=2),
    "bootstrap_ci undefined resamples": lambda: metrics.bootstrap_ci(metrics.roc_auc_score, [0, 1, 1, 1, 1, 1],
                                                                     [0.1, 0.2, 0.3, 0.4, 0.5, 0.6], n_boot=50, rng=0),
    "kendall_tau constant": lambda: ranking.kendall_tau([1.0] * 3, [1.0, 2.0, 3.0]),
    "tau_variance n=2": lambda: ranking.tau_variance([1.0, 2.0], [1.0, 2.0]),
    "tau_confidence_interval tau-b constant": lambda: ranking.tau_confidence_interval([1.0] * 3, [1.0, 2.0, 3.0],
                                                                                       variant="b"),
    "kendall_tau_test tau-a constant": lambda: ranking.kendall_tau_test([1.0] * 3, [1.0, 2.0, 3.0], variant="a"),
    "spearman_rho_test constant": lambda: ranking.spearman_rho_test([1.0] * 3, [1.0, 2.0, 3.0]),
    "leave_one_out tau constant": lambda: ranking.leave_one_out([1.0] * 3, [1.0, 2.0, 3.0], measure="tau"),
    "bootstrap_compare no spread": lambda: ranking.bootstrap_compare([1.0, 2, 3], [1.0, 2, 3], [1.0, 2, 3],
                                                                     measure="MAE", n_boot=10, rng=0),
    "ab_test_correlation constant": lambda: bidding.ab_test_correlation([1.0] * 3, [1.0, 2, 3], [0.0] * 3, n_trials=3,
                                                                        rng=0),
    "online_adaptive_metrics uncovered": lambda: adaptive.online_adaptive_metrics([0, 0], [0, 0], [0, 1], [1, 1], [1, 1]),
    "bootstrap_oam_accuracy uncovered": lambda: adaptive.bootstrap_oam_accuracy([0, 0, 1], [0, 0, 1], [0, 1, 1],
                                                                                [1, 1], [1, 1], n_boot=20, rng=0),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_warning_points_at_the_callers_line(case):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        CASES[case]()
    ours = [w for w in caught if issubclass(w.category, OfflineEvalWarning)]
    assert ours, "no OfflineEvalWarning"
    assert {w.filename for w in ours} == {__file__}, [(w.filename, w.lineno, str(w.message)) for w in ours]
    assert not [w for w in caught if issubclass(w.category, RuntimeWarning)], "numpy's RuntimeWarning leaked"
