"""Rules of the claims ledger that the code must keep.

No printed number typed into code; no committed row that differs without a note saying why.
"""

import ast

import pytest

from offline_eval_compendium.paths import NOTEBOOKS_DIR, PROJ_ROOT

STUDIES_DIR = PROJ_ROOT / "compendium" / "offline_eval_compendium" / "studies"
assert STUDIES_DIR.is_dir(), STUDIES_DIR
FILES = sorted(NOTEBOOKS_DIR.glob("*.py")) + sorted(STUDIES_DIR.rglob("*.py"))


def _numeric_text(value) -> bool:
    """A number, or a string that reads as one (``"8.6%"``, ``"-0.0373"``, ``"9,999,000"``)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return True
    if isinstance(value, str):
        t = value.strip().replace(",", "").replace("%", "").replace("$", "").replace("+", "")
        try:
            float(t)
            return True
        except ValueError:
            return False
    return False


def literal_paper_values(source: str):
    """(line, text) of every ``paper_value=`` keyword given a numeric literal, also inside an f-string."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.keyword) and node.arg == "paper_value":
            v = node.value
            if isinstance(v, ast.Constant) and _numeric_text(v.value):
                found.append((v.lineno, repr(v.value)))
            elif isinstance(v, ast.JoinedStr) and any(
                    isinstance(p, ast.Constant) and any(ch.isdigit() for ch in str(p.value)) for p in v.values):
                found.append((v.lineno, ast.unparse(v)))
            elif isinstance(v, ast.UnaryOp) and isinstance(v.operand, ast.Constant):
                found.append((v.lineno, ast.unparse(v)))
    return found


def test_the_rule_catches_typed_numbers():
    assert literal_paper_values('ledger.check("a", paper_value=8.6)') == [(1, "8.6")]
    assert literal_paper_values('ledger.check("a", paper_value="8.6%")') == [(1, "'8.6%'")]
    assert literal_paper_values('ledger.check("a", paper_value=f"{x} vs 0.44")')
    assert literal_paper_values('ledger.check("a", paper_value=-1)')
    assert not literal_paper_values('ledger.check("a", paper_value=ref_value("T5", "AUC"))')
    assert not literal_paper_values('ledger.check("a", paper_value="identity")')


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_no_printed_number_typed_into_code(path):
    found = literal_paper_values(path.read_text())
    assert not found, f"{path.name}: paper values typed into code (read them from data/reference/): {found}"


def test_every_committed_row_that_differs_says_why():
    import pandas as pd

    ledger = pd.read_csv(PROJ_ROOT / "figures" / "claims.csv", dtype=str, keep_default_na=False)
    assert (ledger["status"] == "differs").any()
    silent = ledger.loc[(ledger["status"] == "differs") & (ledger["note"].str.strip() == ""), "claim_id"]
    assert silent.empty, f"rows that differ without a note saying why: {silent.tolist()}"


def test_the_verdict_quotes_why_a_row_differs():
    from offline_eval_compendium.claims import Ledger, verdict

    led = Ledger("yi", "nb")
    led.check("yi-a", "T1", "a claim", criterion="c", holds=False, note="the world has one model, the paper two")
    led.check("yi-b", "T1", "another", criterion="c", holds=True, note="a note of a row that holds")
    text = led.verdict()
    assert "`yi-a` (T1): a claim -- paper -, ours -. *Why:* the world has one model, the paper two" in text
    assert "a note of a row that holds" not in text
    short = verdict(led.frame(), why=False)  # the report's index: the list without the reasons
    assert "`yi-a` (T1): a claim" in short and "*Why:*" not in short
