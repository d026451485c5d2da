"""yi Tables 1-4: every printed cell recomputed; the inconsistencies are asserted, not skipped."""

import numpy as np
import pytest

from offline_eval.compendium import reference
from offline_eval.compendium.claims import Ledger
from offline_eval.compendium.studies import yi_tables as Y


@pytest.fixture(scope="module")
def ref():
    return reference.load("yi")


def test_reference_file_has_every_printed_cell(ref):
    # 3 tables x 2 panels x 5 bins x 8 columns, plus the totals rows
    bins = ref[ref["source"].isin(Y.ANOMALY_TABLES) & ref["row"].str.startswith("bin")]
    assert len(bins) == 3 * 2 * 5 * 8
    assert set(ref[ref["source"] == "Table 1"]["column"]) == set(Y.SURVEY_METRICS) | {"Total"}


def test_printed_aucs_are_reproduced(ref):
    for table in Y.ANOMALY_TABLES:
        for panel in "ab":
            _, totals = Y.recompute_panel(ref, table, panel)
            assert f"{totals['AUC']:.4f}" == reference.lookup(ref, table, "total", "AUC", panel)


def test_trapezoid_typo_in_bin5_of_tables_2_and_4(ref):
    # The paper prints 0.8499; (1 - 0.1142)(1 + 0.9167)/2 = 0.8489, and only 0.8489 makes the
    # printed trapezoids sum to the printed AUC 0.9193.
    for table, panel in [("Table 2", "a"), ("Table 4", "a"), ("Table 4", "b")]:
        tab, totals = Y.recompute_panel(ref, table, panel)
        assert reference.lookup(ref, table, "bin 5", "Trapezoid", panel) == "0.8499"
        assert round(tab["Trapezoid"].iloc[4], 4) == 0.8489
        printed = [reference.parse_printed(reference.lookup(ref, table, f"bin {k}", "Trapezoid", panel)) for k in range(1, 6)]
        assert round(sum(printed), 4) == 0.9203 != 0.9193
        assert round(sum(printed) - 0.0010, 4) == round(totals["AUC"], 4)


def test_table3_noclick_total_does_not_add_up(ref):
    for panel in "ab":
        tab, totals = Y.recompute_panel(ref, "Table 3", panel)
        assert totals["# no-clicks"] == 10_393_400
        assert reference.lookup(ref, "Table 3", "total", "# no-clicks", panel) == "10,392,500"


def test_table3_typo_is_the_9999900_bin(ref):
    h = Y.input_hypotheses(ref, "Table 3", "a", "bin 5", "# no-clicks", ["9,999,900", "9,999,000"])
    assert h.set_index("value")["n_inconsistent"].to_dict() == {"9,999,900": 2, "9,999,000": 0}


def test_exactly_these_cells_are_errata(ref):
    ledger = Ledger("yi", "test")
    for table in Y.ANOMALY_TABLES:
        Y.compare_anomaly_table(ref, table, ledger)
    df = ledger.frame()
    errata = sorted(df.loc[df["status"] == "erratum", "claim_id"])
    assert errata == sorted([
        "yi-T2a-bin5-trapezoid", "yi-T3a-bin5-trapezoid", "yi-T3a-total-noclicks",
        "yi-T3b-total-noclicks", "yi-T4a-bin5-trapezoid", "yi-T4b-bin5-trapezoid",
    ])
    assert set(df["status"]) == {"exact", "erratum"}


def test_survey_table1_only_online_advertising_subcategories_disagree(ref):
    checks = Y.survey_checks(ref)
    bad = checks[~checks["adds_up"]]
    assert [(r.area, r.column, r.printed, r.recomputed) for r in bad.itertuples()] == [
        ("Online Advertising", "NDCG", 0, 1),
        ("Online Advertising", "IR", 1, 2),
    ]
    # the grand total is 70 papers and every row/column total adds up
    assert checks.query("check != 'sub-category sum'")["adds_up"].all()
    assert checks.query("area == 'Total' and column == 'Total'")["recomputed"].tolist() == [70, 70]


def test_anomalies_hold(ref):
    ledger = Ledger("yi", "test")
    Y.add_anomaly_claims(ledger, ref)
    assert ledger.counts()["holds"] == 3


def test_expand_bins_row_counts_and_auc(ref):
    n, a_rows, a_bins = Y.row_level_auc(ref, "Table 2", "a")
    assert n == 1_130_000
    assert abs(a_rows - a_bins) <= 1e-12


def test_binned_table_columns_by_hand():
    t = Y.binned_roc_table([0.5, 0.1], [3, 1], [1, 3])
    np.testing.assert_allclose(t["Actual CTR"], [0.75, 0.25])
    np.testing.assert_allclose(t["TPR"], [0.75, 1.0])
    np.testing.assert_allclose(t["FPR"], [0.25, 1.0])
    np.testing.assert_allclose(t["Avg pClick / Actual CTR"], [0.5 / 0.75, 0.4])


def test_one_root_erratum_for_the_table3_typo_and_its_consequences_linked(ref):
    corrections = reference.load_corrections("yi")
    ledger = Ledger("yi", "test")
    cells = {t: Y.compare_anomaly_table(ref, t, ledger, corrections) for t in Y.ANOMALY_TABLES}
    Y.add_input_errata(ledger, ref, corrections, cells)
    df = ledger.frame().set_index("claim_id")
    errata = sorted(df.index[df["status"] == "erratum"])
    # the typo is counted once; the three derived cells it broke are reproduced from the corrected input
    assert errata == sorted(["yi-T3-input-typo", "yi-T2a-bin5-trapezoid", "yi-T4a-bin5-trapezoid", "yi-T4b-bin5-trapezoid"])
    for cid in ("yi-T3a-bin5-trapezoid", "yi-T3a-total-noclicks", "yi-T3b-total-noclicks"):
        assert df.loc[cid, "status"] == "exact" and "yi-T3-input-typo" in df.loc[cid, "note"]
        assert cid.replace("yi-T3", "Table 3 ").split("-")[0] in df.loc["yi-T3-input-typo", "note"]
    assert "3 inconsistent derived cells with the printed input, 0 with the corrected one" in df.loc["yi-T3-input-typo", "note"]
    # the printed cells stay as printed in data/reference
    assert reference.lookup(ref, "Table 3", "bin 5", "# no-clicks", "a") == "9,999,900"


def test_corrections_must_name_the_printed_value(tmp_path):
    (tmp_path / "yi.csv").write_text(",".join(reference.CORRECTION_COLUMNS) + "\n"
                                     'yi-x,Table 3,a,bin 5,# no-clicks,"9,999,999","9,999,000",typo\n')
    with pytest.raises(ValueError, match="line 2.*9,999,999"):
        reference.load_corrections("yi", root=tmp_path)
    assert reference.load_corrections("rosset").empty


def test_panel_tables_carry_the_total_row(ref):
    t = Y.panel_table(ref, "Table 2")
    total = t[t["row"] == "total"].set_index("panel")
    for panel in "ab":
        assert total.loc[panel, "AUC"] == pytest.approx(Y.recompute_panel(ref, "Table 2", panel)[1]["AUC"])
        printed_auc = reference.parse_printed(reference.lookup(ref, "Table 2", "total", "AUC", panel))
        assert round(total.loc[panel, "AUC"], 4) == printed_auc
        assert total.loc[panel, "# clicks"] == t[(t["panel"] == panel) & (t["row"] != "total")]["# clicks"].sum()
