"""The yi study modules: determinism, the mechanism at small scale, and the table builders."""

import warnings

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning, reference
from offline_eval.studies import yi_auction, yi_metrics

SMALL = dict(n_queries=200, n_log=8000, n_ab=20_000, alphas=(1.0,), mainline_quantiles=(0.5, 0.6))


@pytest.fixture(scope="module")
def exp():
    return yi_auction.run(0, **SMALL)


def test_run_is_reproducible(exp):
    again = yi_auction.run(0, **SMALL)
    assert again.offline == exp.offline and again.online_base == exp.online_base and again.simulated == exp.simulated
    other = yi_auction.run(1, **SMALL)
    assert other.offline != exp.offline


def test_per_seed_is_reproducible_and_flat():
    kw = dict(n_queries=150, n_log=5000, n_ab=10_000, alphas=(1.0,), mainline_quantiles=(0.6,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OfflineEvalWarning)  # tiny logs: the lowest bins may hold no click
        a = yi_auction.per_seed(3, **kw)
        b = yi_auction.per_seed(3, **kw)
    assert a == b
    assert all(np.isscalar(v) for v in a.values())


def test_agreement_rule():
    assert yi_auction.agrees(-0.10, -0.12)
    assert not yi_auction.agrees(0.01, -0.12)  # wrong sign
    assert not yi_auction.agrees(-0.30, -0.12)  # 18 pp off > 3 pp + 3 pp
    assert yi_auction.agrees(-0.14, -0.10)  # 4 pp <= 3 + 2.5


def test_model_2_overestimates_the_low_range(exp):
    low = exp.world.ctr < 0.001
    high = exp.world.ctr > 0.05
    assert np.median(exp.p2[low] / exp.world.ctr[low]) > 10
    assert np.median(exp.p2[high] / exp.world.ctr[high]) < 1.3


def test_tables_have_the_papers_columns(exp):
    ref = reference.load("yi")
    t5p = {c: reference.lookup(ref, "Table 5", "model-2 metrics", c) for c in ("AUC", "RIG", "CY", "Mainline CY")}
    t5 = yi_auction.table5(exp, t5p)
    assert t5["metric"].tolist() == ["AUC", "RIG", "CY", "Mainline CY"]
    assert t5.loc[t5["metric"] == "CY", "reproduced_pct"].item() == pytest.approx(100 * exp.online_base["cy_delta"])
    t6p = {c: reference.lookup(ref, "Table 6", "model-2 metrics", c) for c in
           ("offline AUC", "offline RIG", "simulated CY", "simulated Mainline CY", "online CY", "online Mainline CY")}
    t6 = yi_auction.table6(exp, t6p)
    assert len(t6) == 3 and t6.loc[0, "online CY"] == 39.0
    assert t6.loc[1, "simulated CY"] == pytest.approx(100 * exp.simulated["cy_delta"])


def test_breakdown_uses_model_1_quantiles(exp):
    bd = yi_auction.breakdown(exp, n_quantiles=5)
    w = bd.pivot(index="quantile", columns="model", values="weight")
    np.testing.assert_array_equal(w["model-1"], w["model-2"])  # same rows in each bin
    for _, t in bd.groupby("model"):
        assert t["log_loss_share"].sum() == pytest.approx(1.0)


def test_figures_are_deterministic(exp):
    from offline_eval.io import figure_bytes

    bd = yi_auction.breakdown(exp, n_quantiles=5)
    assert figure_bytes(yi_auction.fig4_figure(bd), "png") == figure_bytes(yi_auction.fig4_figure(bd), "png")


def test_fig1_contextual_has_higher_auc_and_worse_calibration():
    r = yi_metrics.fig1_run(0, n=100_000)
    ss, cx = r["sponsored search"], r["contextual ads"]
    assert cx["auc"] > ss["auc"]
    assert abs(cx["calibration_ratio"] - 0.86) < 0.05 and abs(ss["calibration_ratio"] - 1.02) < 0.05


def test_fig2_rig_falls_with_ctr():
    df = yi_metrics.fig2_run(0, n=50_000)
    assert isinstance(df, pd.DataFrame) and (np.diff(df["ctr"]) >= 0).all()
    assert df["rig"].iloc[0] > df["rig"].iloc[-1]
    assert df["prediction_error"].iloc[0] > df["prediction_error"].iloc[-1]
