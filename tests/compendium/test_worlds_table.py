"""The worlds table: each synthetic or real world, what its knobs were fitted to, and what it predicts.

:func:`claims.worlds_table` is checked against a row-by-row count on a small ledger written here, and the
committed ledger's copy against the ledger (the README points to it).
"""

import pandas as pd
import pytest

from offline_eval_compendium import claims
from offline_eval_compendium.io import to_markdown
from offline_eval_compendium.paths import FIGURES_DIR, PROJ_ROOT


def _row(**kw):
    row = dict.fromkeys(claims.COLUMNS, "")
    row.update(kw)
    return row


def _toy():
    w = "synthetic: toy world (one knob)"
    return pd.DataFrame([
        _row(paper="yi", claim_id="yi-a", kind="calibration", world=w, paper_value="19.5%", status="within-tolerance"),
        _row(paper="yi", claim_id="yi-b", kind="prediction", world=w, paper_value="8.6%",
             reproduced_value="median 1.02, 5-95% [0.74, 1.28] over 20 seeds", status="differs"),
        _row(paper="yi", claim_id="yi-c", kind="prediction", world=w, paper_value="-9.96%",
             reproduced_value="median -10, 5-95% [-12.5, -9.96] over 20 seeds; main seed: -11", status="within-tolerance"),
        _row(paper="yi", claim_id="yi-d", kind="prediction", world=w, paper_value="0.2%",
             reproduced_value="median 0.3, 5-95% [-1, 2] over 20 seeds", status="not tested"),
        _row(paper="yi", claim_id="yi-e", kind="claim", world=w, status="holds"),
        _row(paper="yi", claim_id="yi-f", kind="claim", world=w, status="not tested"),
        _row(paper="yi", claim_id="yi-g", kind="printed", world="paper", status="exact"),
        _row(paper="rosset", claim_id="rosset-a", kind="check", world="synthetic: checks only", status="holds"),
    ])


def test_counts_a_toy_ledger_row_by_row():
    t = claims.worlds_table(_toy())
    assert list(t["world"]) == ["toy world (one knob)"]  # a world with checks only has no row
    row = t.iloc[0]
    assert row["calibrated on"] == "a = 19.5%"
    assert row["predictions"] == 3
    assert row["predictions within / differs / inconclusive / not tested"] == "1 / 1 / 0 / 1"
    assert row["claims holds / differs / inconclusive / not tested"] == "1 / 0 / 0 / 1"


def test_the_committed_ledger_and_the_readme_show_the_same_worlds_table():
    df = pd.read_csv(FIGURES_DIR / "claims.csv", dtype=str, keep_default_na=False)
    table = to_markdown(claims.worlds_table(df))
    assert table in (FIGURES_DIR / "claims.md").read_text()
    readme = (PROJ_ROOT / "README.md").read_text()
    assert "[`figures/claims.md`](figures/claims.md), with the" in readme and "worlds table" in readme
