"""The findings' headline sentences: every number they state is the ledger's, every headline row exists."""

from __future__ import annotations

import re

import pandas as pd

from offline_eval_compendium import findings
from offline_eval_compendium.paths import FIGURES_DIR

LEDGER = pd.read_csv(FIGURES_DIR / "claims.csv", dtype=str, keep_default_na=False)


def test_every_headline_row_is_in_the_ledger():
    ids = set(LEDGER["claim_id"])
    assert [i for rows in findings.HEADLINES.values() for i, _, _ in rows if i not in ids] == []


def test_each_headline_states_the_ledgers_numbers():
    rows = LEDGER.set_index("claim_id")
    for paper, heads in findings.HEADLINES.items():
        for claim_id, _, _ in heads:
            row = rows.loc[claim_id].to_dict() | {"claim_id": claim_id}
            text = findings.headline(row)
            intervals = re.findall(r"-?[0-9.,]+ \[[^\]]+\]", text)
            assert intervals, (claim_id, text)
            for iv in intervals:
                assert iv in row["reproduced_value"] or iv in row["control"], (claim_id, iv)
            assert {"holds": ": holds, ", "differs": "does not hold", "inconclusive": "cannot decide",
                    "not tested": "not tested"}.get(row["status"], "") in text


def test_a_headline_says_what_a_status_means():
    row = dict(claim_id="yi-T5-sweep", paper="yi", status="inconclusive",
               reproduced_value="effect 0.1 [-0.2, 0.4] over 20 seeds; detectable at 80% power: 0.3",
               control="effect 0 [-0.1, 0.1] over 20 seeds, mechanism off; world - control 0.1 [-0.2, 0.4]",
               criterion="effect: a gap, claimed above 0; delta = 0.05 (stated)",
               note="undecided; about 75 seeds would be needed to decide (the observed spread)")
    text = findings.headline(row)
    assert "cannot decide" in text and "about 75 seeds" in text and "0.1 [-0.2, 0.4]" in text
    assert "So " not in text  # no advice drawn from an undecided claim
