"""No printed number typed into code: every `paper_value` / `printed` of a ledger row reads data/reference/.

The rule the README states ("every printed value comes from data/reference/"), checked on the source
of the notebooks and the study modules: a numeric literal, or a string literal holding a number (two or
more digits, a decimal point or a percent sign), passed as `paper_value=` or `printed=` -- other than as an
argument of a call (a lookup key such as "Table 2") or a format specification -- fails.
"""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "notebooks").glob("*.py")) + sorted((ROOT / "compendium" / "offline_eval_compendium" / "studies").rglob("*.py"))
NUMBER = re.compile(r"\d\s*[.%]|\d{2,}|[.%]\s*\d")
KEYWORDS = ("paper_value", "printed")


def _typed_numbers(node):
    """Literal numbers in ``node`` outside call arguments and format specs."""
    found = []

    def visit(n):
        if isinstance(n, ast.Call):
            visit(n.func)  # the call's arguments are lookup keys, not values
            return
        if isinstance(n, ast.Subscript):
            visit(n.value)  # an index is not a value
            return
        if isinstance(n, ast.FormattedValue):
            visit(n.value)  # skip the format spec
            return
        if isinstance(n, ast.Constant):
            v = n.value
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                found.append(repr(v))
            elif isinstance(v, str) and NUMBER.search(v):
                found.append(repr(v))
            return
        for child in ast.iter_child_nodes(n):
            visit(child)

    visit(node)
    return found


def typed_paper_values(source: str):
    """(line, keyword, literals) for each ``paper_value=`` / ``printed=`` holding a typed number."""
    out = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, ast.Call):
            for kw in n.keywords:
                if kw.arg in KEYWORDS:
                    lits = _typed_numbers(kw.value)
                    if lits:
                        out.append((n.lineno, kw.arg, lits))
    return out


def test_the_rule_catches_typed_numbers_and_spares_lookups():
    bad = 'ledger.add("x", paper_value="0.14778, 0.22663")\nledger.check("y", paper_value=49.8)\n' \
          'ledger.estimate("z", paper_value=f"at most {v:.2f} vs 2.05%")'
    assert [(line, kw) for line, kw, _ in typed_paper_values(bad)] == [(1, "paper_value"), (2, "paper_value"), (3, "paper_value")]
    good = 'ledger.add("x", paper_value=reference.lookup(ref, "Table 2", "tau", "p-value"))\n' \
           'ledger.add("y", paper_value=f"{a} vs {b:.3f}", printed=cell("Table 1", m, "%Change"))\n' \
           'ledger.add("z", paper_value="identity")'
    assert typed_paper_values(good) == []


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_printed_number_typed_into_code(path):
    assert typed_paper_values(path.read_text()) == [], f"{path.relative_to(ROOT)}: printed numbers typed into code"
