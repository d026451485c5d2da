"""The declared-claims ledger: a row's kind, world and status follow from its declaration and its values only."""

import numpy as np
import pandas as pd
import pytest

from offline_eval_compendium import claims
from offline_eval_compendium.claims import Claim, Ledger, declare

EV = ("yi/table5.csv",)


def _table():
    return declare(
        Claim("yi-T2-*", "Table 2", "every printed cell", "printed", "equal at the printed precision", evidence=EV),
        Claim("yi-eq1", "eq. (1)", "RIG = 1 - H(p)/H(ctr)", "formula", "equal on random inputs", evidence=EV),
        Claim("yi-T5-gain", "Table 5", "model 2 gains offline", "claim", "AUC and RIG deltas > 0",
              world="synthetic: sponsored", control="model-2 without its over-estimation", evidence=EV),
        Claim("yi-T5-nocontrol", "Table 5", "a claim without a control", "claim", "x > 0",
              world="synthetic: sponsored", evidence=EV),
        Claim("yi-T5-auc", "Table 5", "AUC delta +8.6%", "prediction", "inside the interval",
              world="synthetic: sponsored", evidence=EV),
        Claim("yi-T5-rig", "Table 5", "RIG delta", "calibration", "fitted", world="synthetic: sponsored",
              evidence=EV),
        Claim("yi-fig1", "Fig. 1", "by construction", "check", "the knob gives it", world="ours", evidence=EV,
              revised="earlier: the gap on one seed; revised because one seed is an illustration"),
    )


def test_a_declaration_states_everything_before_the_result():
    with pytest.raises(ValueError, match="evidence"):
        Claim("a", "T", "q", "printed", "c")
    with pytest.raises(ValueError, match="kind"):
        Claim("a", "T", "q", "table", "c", evidence=EV)
    with pytest.raises(ValueError, match="world 'paper'"):
        Claim("a", "T", "q", "printed", "c", world="synthetic: w", evidence=EV)
    with pytest.raises(ValueError, match="synthetic or real"):
        Claim("a", "T", "q", "prediction", "c", evidence=EV)
    with pytest.raises(ValueError, match="world"):
        Claim("a", "T", "q", "claim", "c", world="my world", evidence=EV)
    with pytest.raises(ValueError, match="repeats ids"):
        declare(Claim("a", "T", "q", "printed", "c", evidence=EV), Claim("a", "T", "q", "printed", "c", evidence=EV))
    t = _table()
    assert t.find("yi-T2-a-auc").id == "yi-T2-*" and t.find("yi-eq1").kind == "formula"
    with pytest.raises(ValueError, match="exactly one"):
        t.find("yi-T9")
    assert list(t.frame().columns)[:3] == ["claim_id", "source", "quote"]


def test_rows_take_their_texts_from_the_declaration_and_fill_only_their_kind():
    led = Ledger("yi", "nb", claims=_table())
    led.printed("yi-T2-a", printed="0.84", value=0.8412, detail="cell a")
    row = led.frame().iloc[0]
    assert (row.kind, row.world, row.source, row.status) == ("printed", "paper", "Table 2", "exact")
    assert row.statement == "every printed cell (cell a)" and row.criterion.startswith("equal at the printed")
    with pytest.raises(ValueError, match="declared in the claims table"):
        led.printed("yi-T2-b", "Table 2", "s", printed="1", value=1)
    with pytest.raises(ValueError, match="synthetic world"):
        led.check("yi-T5-gain", holds=True)
    with pytest.raises(ValueError, match="`predict` fills only"):
        led.predict("yi-T5-gain", printed="1", values=[1, 2])
    with pytest.raises(ValueError, match="`calibration` fills only"):
        led.calibration("yi-T5-auc", printed="8.6", value=8.6, rtol=0.1)
    with pytest.raises(ValueError, match="claims table"):
        led.add("yi-x", "T", "s", paper_value="", reproduced_value="", criterion="c", status="holds")
    assert led.unfilled() == ["yi-eq1", "yi-T5-gain", "yi-T5-nocontrol", "yi-T5-auc", "yi-T5-rig", "yi-fig1"]


@pytest.mark.parametrize("k, kc, expected", [
    (20, 0, "holds"), (16, 15, "holds"), (15, 0, "differs"), (20, 16, "not tested"), (3, 20, "differs")])
def test_a_synthetic_status_comes_from_the_sweep_beside_its_control(k, kc, expected):
    led = Ledger("yi", "nb", claims=_table())
    outcomes, control = np.arange(20) < k, np.arange(20) < kc
    assert led.sweep("yi-T5-gain", outcomes=outcomes, control=control, main_seed="AUC +1.3%", why="w") == expected
    row = led.frame().iloc[0]
    assert row.reproduced_value.startswith(f"{k}/20 seeds") and row.reproduced_value.endswith("main seed: AUC +1.3%")
    assert row.control.endswith("passes" if kc >= 16 else "fails")
    assert claims.problems(led.frame()) == []


def test_a_claim_without_a_control_is_at_best_not_tested():
    led = Ledger("yi", "nb", claims=_table())
    assert led.sweep("yi-T5-nocontrol", outcomes=[True] * 20) == "not tested"
    assert "no control world" in led.frame().iloc[0].note
    assert led.sweep("yi-fig1", outcomes=[True] * 20) == "holds"  # a check of ours: no control needed
    with pytest.raises(ValueError, match="declares a control"):
        led.sweep("yi-T5-gain", outcomes=[True] * 20)
    with pytest.raises(ValueError, match="declares no control"):
        Ledger("yi", "nb", claims=_table()).sweep("yi-T5-nocontrol", outcomes=[True] * 20, control=[False] * 20)
    assert led.frame().iloc[1].revised.startswith("before the confirmation: earlier: the gap on one seed")


@pytest.mark.parametrize("values, printed, expected", [
    (np.linspace(8, 10, 20), "8.6", "within-tolerance"),
    (np.linspace(1, 2, 20), "8.6", "differs"),
    (np.linspace(0.07, 0.94, 20), "0.243", "not tested"),  # an interval wider than the value cannot exclude it
])
def test_a_prediction_is_the_printed_value_beside_the_seeds_interval(values, printed, expected):
    led = Ledger("yi", "nb", claims=_table())
    assert led.predict("yi-T5-auc", printed=printed, values=values, why="the reason") == expected
    row = led.frame().iloc[0]
    assert "5-95%" in row.reproduced_value and row.kind == "prediction"
    assert ("the reason" in row.note) == (expected != "within-tolerance")
    assert claims.problems(led.frame()) == []


def test_a_prediction_the_control_also_makes_is_not_tested():
    led = Ledger("yi", "nb", claims=_table())
    assert led.predict("yi-T5-auc", printed="8.6", values=np.linspace(8, 10, 20),
                       control=np.linspace(8.5, 9, 20)) == "not tested"
    assert led.frame().iloc[0].control.endswith("holds the printed value")


def test_the_interval_is_decided_on_the_written_digits():
    # the 5% quantile 8.6000000000000001 and 8.5999999999999999 are one written value: no status on the last bit
    led = Ledger("yi", "nb", claims=_table())
    vals = np.full(20, np.nextafter(8.6, 0))
    vals[-1] = 9.0
    assert led.predict("yi-T5-auc", printed="8.6", values=vals) == "within-tolerance"
    with pytest.raises(ValueError, match="finite"):
        led.predict("yi-T5-auc", printed="8.6", values=[1.0, np.nan])


def _row(**kw):
    base = dict(paper="yi", claim_id="x", kind="printed", world="paper", source="s", statement="s", paper_value="1",
                reproduced_value="1", criterion="c", status="exact", control="", evidence="yi/t.csv", note="",
                revised="")
    base.update(kw)
    return base


@pytest.mark.parametrize("row, message", [
    (_row(evidence=""), "names no evidence"),
    (_row(world="synthetic: w"), "printed inputs"),
    (_row(reproduced_value="16/20 seeds"), "seed sweep"),
    (_row(kind="prediction", world="synthetic: w", reproduced_value="1.2"), "interval"),
    (_row(kind="calibration", status="within-tolerance"), "calibration belongs"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="20/20 seeds (100%)", status="holds"),
     "without a control that fails"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="20/20 seeds (100%)", status="holds",
          control="20/20 seeds, mechanism off: passes"), "without a control that fails"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="12/20 seeds (60%)", status="holds",
          control="0/20 seeds, mechanism off: fails"), "contradicts its sweep"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="AUC +1%", status="holds"), "from a seed sweep"),
    (_row(status="not tested", note="n"), "not tested"),
    (_row(status="differs"), "without a note"),
])
def test_problems_names_each_row_whose_kind_contradicts_its_origin(row, message):
    found = claims.problems(pd.DataFrame([row], columns=claims.COLUMNS))
    assert any(message in p for p in found), found


def test_every_output_is_cited_or_supports_a_cited_one(tmp_path):
    for name in ("fig1.png", "fig1.pdf", "fig1.caption.txt", "table1.csv", "table1.md", "extra.csv",
                 "claims/nb.csv", "claims.md"):
        (tmp_path / "yi" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "yi" / name).write_text("x")
    df = pd.DataFrame([_row(evidence="yi/fig1.png; yi/table1.csv")], columns=claims.COLUMNS)
    assert claims.uncited_files(df, tmp_path) == ["yi/extra.csv"]


def test_three_count_tables_never_add_a_prediction_to_the_printed_counts():
    rows = [_row(claim_id="a"), _row(claim_id="b", kind="formula", status="holds"),
            _row(claim_id="c", kind="prediction", world="synthetic: w", status="not tested"),
            _row(claim_id="d", kind="claim", world="synthetic: w", status="holds"),
            _row(claim_id="e", kind="claim", world="paper", status="holds"),
            _row(claim_id="f", kind="calibration", world="synthetic: w", status="within-tolerance"),
            _row(claim_id="g", kind="check", world="ours", status="holds")]
    t = claims.count_tables(pd.DataFrame(rows, columns=claims.COLUMNS))
    assert set(t) == set(claims.COUNT_TABLES)
    rec, worlds, own = (t[k].set_index("paper") for k in ("recomputed", "worlds", "own"))
    assert rec.loc["yi", "total"] == 3 and rec.loc["yi", "exact"] == 1 and "not tested" not in rec.columns
    assert worlds.loc["yi", "total"] == 2 and worlds.loc["yi", "not tested"] == 1 and "exact" not in worlds.columns
    assert own.loc["yi", "calibration within-tolerance"] == 1 and own.loc["yi", "check holds"] == 1


def test_gather_refuses_a_ledger_that_breaks_its_rules(tmp_path):
    (tmp_path / "yi" / "claims").mkdir(parents=True)
    (tmp_path / "yi" / "t.csv").write_text("x\n")
    good = _row(evidence="yi/t.csv")
    bad = _row(claim_id="y", kind="prediction", world="synthetic: w", reproduced_value="1.2", evidence="yi/t.csv",
               status="within-tolerance")
    pd.DataFrame([good], columns=claims.COLUMNS).to_csv(tmp_path / "yi" / "claims" / "nb.csv", index=False)
    assert len(claims.gather(tmp_path)) == 1
    pd.DataFrame([good, bad], columns=claims.COLUMNS).to_csv(tmp_path / "yi" / "claims" / "nb.csv", index=False)
    with pytest.raises(ValueError, match="yi/y: a prediction is a seed sweep's interval"):
        claims.gather(tmp_path)
