"""The declared-claims ledger: a row's kind, world and status follow from its declaration and its values only."""

import numpy as np
import pandas as pd
import pytest

from offline_eval_compendium import claims
from offline_eval_compendium.claims import Claim, Effect, Ledger, declare

EV = ("yi/table5.csv",)
GAIN = Effect("AUC(model 2) - AUC(model 1)", ">", 0.1, "stated for the test")
AUC = Effect("AUC delta", "=", 0.5, "+-50% of the printed magnitude", relative=True)


def _s(values):
    """The effect on seeds 0, 1, ... (a ledger without seed blocks)."""
    return pd.Series(np.asarray(values, float), index=range(len(values)))


def _table():
    return declare(
        Claim("yi-T2-*", "Table 2", "every printed cell", "printed", "equal at the printed precision", evidence=EV),
        Claim("yi-eq1", "eq. (1)", "RIG = 1 - H(p)/H(ctr)", "formula", "equal on random inputs", evidence=EV),
        Claim("yi-T5-gain", "Table 5", "model 2 gains offline", "claim", "AUC and RIG deltas > 0",
              world="synthetic: sponsored", control="model-2 without its over-estimation", evidence=EV, effect=GAIN),
        Claim("yi-T5-nocontrol", "Table 5", "a claim without a control", "claim", "x > 0",
              world="synthetic: sponsored", evidence=EV, effect=GAIN),
        Claim("yi-T5-auc", "Table 5", "AUC delta +8.6%", "prediction", "inside the band",
              world="synthetic: sponsored", control="model-2 without its over-estimation", evidence=EV, effect=AUC),
        Claim("yi-T5-rig", "Table 5", "RIG delta", "calibration", "fitted", world="synthetic: sponsored",
              evidence=EV),
        Claim("yi-fig1", "Fig. 1", "by construction", "check", "the knob gives it", world="ours", evidence=EV,
              revised="earlier: the gap on one seed; revised because one seed is an illustration", effect=GAIN),
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
    with pytest.raises(ValueError, match="`check` fills only"):
        led.check("yi-T5-auc", holds=True)
    with pytest.raises(ValueError, match="`calibration` fills only"):
        led.calibration("yi-T5-auc", printed="8.6", value=8.6, rtol=0.1)
    with pytest.raises(ValueError, match="claims table"):
        led.add("yi-x", "T", "s", paper_value="", reproduced_value="", criterion="c", status="holds")
    assert led.unfilled() == ["yi-eq1", "yi-T5-gain", "yi-T5-nocontrol", "yi-T5-auc", "yi-T5-rig", "yi-fig1"]


@pytest.mark.parametrize("world, control, expected", [
    ([1.0, 2.0] * 10, [0.0] * 20, "holds"),
    ([1.0, 2.0] * 10, [0.9, 2.1] * 10, "not tested"),  # the control shows the effect as well
    ([-1.0, -2.0] * 10, [0.0] * 20, "differs"),
    ([0.01, 0.02] * 10, [0.0] * 20, "differs"),  # inside +-delta: negligible
    ([1.0, -0.8] * 10, [0.0] * 20, "inconclusive")])
def test_a_synthetic_status_comes_from_the_estimate_beside_its_control(world, control, expected):
    led = Ledger("yi", "nb", claims=_table())
    assert led.estimate("yi-T5-gain", world=_s(world), control=_s(control), main_seed="AUC +1.3%",
                        why="w") == expected
    row = led.frame().iloc[0]
    assert row.reproduced_value.startswith("effect ") and "over 20 seeds" in row.reproduced_value
    assert row.reproduced_value.endswith("main seed: AUC +1.3%")
    assert row.control.startswith("effect ") and "mechanism off; world - control" in row.control
    assert row.criterion.startswith("AUC and RIG deltas > 0; effect: AUC(model 2) - AUC(model 1), claimed above 0")
    assert claims.problems(led.frame()) == []


def test_a_claim_without_a_control_is_at_best_not_tested():
    led = Ledger("yi", "nb", claims=_table())
    assert led.estimate("yi-T5-nocontrol", world=_s([1.0, 2.0] * 10)) == "not tested"
    assert "no control world" in led.frame().iloc[0].note
    assert led.estimate("yi-fig1", world=_s([1.0, 2.0] * 10)) == "holds"  # a check of ours: no control needed
    with pytest.raises(ValueError, match="declares a control"):
        led.estimate("yi-T5-gain", world=_s([1.0, 2.0] * 10))
    with pytest.raises(ValueError, match="declares no control"):
        Ledger("yi", "nb", claims=_table()).estimate("yi-T5-nocontrol", world=_s([1.0] * 20), control=_s([0.0] * 20))
    assert led.frame().iloc[1].revised.startswith("before the confirmation: earlier: the gap on one seed")


@pytest.mark.parametrize("values, printed, expected", [
    (np.linspace(8, 10, 20), "8.6", "within-tolerance"),
    (np.linspace(1, 2, 20), "8.6", "differs"),
    (np.linspace(0.2, 0.5, 20), "0.243", "inconclusive"),  # an interval across the band's edge cannot decide
])
def test_a_prediction_is_the_printed_value_beside_the_seeds_interval(values, printed, expected):
    led = Ledger("yi", "nb", claims=_table())
    assert led.estimate("yi-T5-auc", printed=printed, world=_s(values), why="the reason") == expected
    row = led.frame().iloc[0]
    assert row.reproduced_value.startswith("effect ") and "over 20 seeds" in row.reproduced_value
    assert row.kind == "prediction" and row.paper_value == printed
    assert ("the reason" in row.note) == (expected != "within-tolerance")
    assert claims.problems(led.frame()) == []


def test_a_prediction_the_control_also_makes_is_not_tested():
    led = Ledger("yi", "nb", claims=_table())
    assert led.estimate("yi-T5-auc", printed="8.6", world=_s(np.linspace(8, 10, 20)),
                        control=_s(np.linspace(8.5, 9.5, 20))) == "not tested"
    row = led.frame().iloc[0]
    assert "the control predicts the printed value as well" in row.note and "mechanism off" in row.control


def test_the_interval_is_decided_on_the_written_digits():
    # a mean of 4.299999999999999 and the band's edge 4.3 (8.6 - 50%) are one written value: no status on the last bit
    led = Ledger("yi", "nb", claims=_table())
    vals = np.full(20, np.nextafter(4.3, 0))
    assert vals.mean() < 4.3
    assert led.estimate("yi-T5-auc", printed="8.6", world=_s(vals)) == "within-tolerance"
    with pytest.raises(ValueError, match="finite"):
        Ledger("yi", "nb", claims=_table()).estimate("yi-T5-auc", printed="8.6", world=_s([1.0, np.nan]))


#: The criterion of a row judged by the estimate rule, as the ledger writes it.
ESTIMATE = "effect: gap, claimed above 0; delta = 0.1 (stated); the estimate rule"


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
    (_row(kind="claim", world="synthetic: w", reproduced_value="20/20 seeds (100%)", status="holds",
          control="0/20 seeds, mechanism off: fails"), "never from a share of seeds"),
    (_row(kind="prediction", world="synthetic: w", reproduced_value="median 1, 5-95% [0.9, 1.1] over 20 seeds",
          status="within-tolerance"), "never from a share of seeds"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="AUC +1%", status="holds",
          criterion=f"c; {ESTIMATE}"), "shows its effect's interval"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="effect 0.5 [-0.1, 1.1] over 20 seeds", status="holds",
          criterion=f"c; {ESTIMATE}", control="effect 0 [0, 0] over 20 seeds, mechanism off; world - control "
          "0.5 [0.1, 0.9]"), "does not lie beyond 0 as claimed"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="effect 0.5 [0.1, 0.9] over 20 seeds", status="holds",
          criterion=f"c; {ESTIMATE}"), "without a world - control interval"),
    (_row(kind="claim", world="synthetic: w", reproduced_value="effect 0.5 [-0.1, 1.1] over 20 seeds",
          status="inconclusive", criterion=f"c; {ESTIMATE}"), "how many seeds"),
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
