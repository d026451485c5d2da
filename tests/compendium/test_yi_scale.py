"""yi Tables 2-4 expanded to row-level logs partition by partition (studies.yi.production_scale)."""

import doctest

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("dask.dataframe")

from offline_eval_compendium import reference  # noqa: E402
from offline_eval_compendium.studies.yi import _bins as yi_tables  # noqa: E402
from offline_eval_compendium.studies.yi import production_scale as yi_scale  # noqa: E402

REF = reference.load("yi")


def test_doctests():
    assert doctest.testmod(yi_scale).failed == 0


@pytest.mark.parametrize("step", [1, 7, 1000, 10**7])
def test_partitions_concatenate_to_the_expanded_panel(step):
    counts = yi_scale.panel_counts(REF, "Table 2", "a")
    n = int(counts["# clicks"].sum() + counts["# no-clicks"].sum())
    bounds = list(range(0, min(n, 5000), step)) + [min(n, 5000)]
    parts = pd.concat([yi_scale.partition_rows(counts, a, b) for a, b in zip(bounds[:-1], bounds[1:])])
    y, s = yi_tables.expand_bins(counts["Avg pClick"], counts["# clicks"], counts["# no-clicks"])
    np.testing.assert_array_equal(parts["click"], y[:5000])
    np.testing.assert_array_equal(parts["pclick"], s[:5000])


def test_scale_tables_equal_the_binned_panel_at_any_factor():
    for factor in (1, 3):
        auc, per_bin, deciles = yi_scale.scale_tables(REF, tables=("Table 4",), panels=("a",), factor=factor,
                                                      rows_per_partition=400_000)
        assert auc["abs_diff"].max() <= 1e-12 and auc["rows"].iloc[0] == 1_130_000 * factor
        np.testing.assert_allclose(per_bin["ratio_dask"], per_bin["ratio_binned"], rtol=1e-12)
        assert deciles["weight"].sum() == 1_130_000 * factor
    with pytest.raises(ValueError, match="`factor`"):
        yi_scale.panel_counts(REF, "Table 2", "a", factor=1.5)


def test_the_run_fills_every_check_and_refuses_a_block():
    from offline_eval_compendium.claims import Ledger

    run = yi_scale.run_experiment(REF, tables=("Table 4",), panels=("a", "b"), rows_per_partition=400_000)
    assert list(run.auc["panel"]) == ["a", "b"] and set(run.deciles["panel"]) == {"a", "b"}
    ledger = Ledger("yi", "yi_production_scale", claims=yi_scale.CLAIMS)
    with pytest.raises(ValueError, match="`block` must be None"):
        yi_scale.add_claims(ledger, run, block="confirmation")
    yi_scale.add_claims(ledger, run, block=None)
    assert ledger.unfilled() == [] and (ledger.frame()["status"] == "holds").all()
