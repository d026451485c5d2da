"""Every ``ValueError``/``TypeError`` the compendium raises names what is wrong, as the library's do.

A raise names the argument at fault in backticks (``"`world` of ..."``) or the environment variable
(``$OFFLINE_EVAL_WORKERS``).  The few raises that report a state rather than an argument -- a data file on disk
that lacks its columns, a ledger filled out of order, outputs that do not match -- are listed below with that
reason; a new raise that names nothing fails.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "compendium" / "offline_eval_compendium"
NAMES = re.compile(r"`[\w.{}\[\]'\"/]+`|\$\{?\w")

#: ``(module, function)``: raises about a state, not an argument, and why.
STATES = {
    ("claims/ledger.py", "_combined"): "a combined row's member rows are missing from the ledger",
    ("claims/ledger.py", "_confirmed_rows"): "the blocks were filled unevenly",
    ("claims/ledger.py", "block"): "the blocks are filled out of order",
    ("claims/registry.py", "load"): "a registry file on disk lacks its columns",
    ("claims/tables.py", "gather"): "the notebooks' claims files on disk break the ledger's rules",
    ("io.py", "claims"): "the claims cite outputs that were not written",
    ("report.py", "write_sources"): "the ledger file on disk lacks its columns",
    ("studies/arena/open_bandit.py", "_shown"): "the vendored logs are not aligned",
    ("studies/arena/open_bandit.py", "against_obp"): "OBP's vendored estimates name a case we do not compute",
    ("studies/arena/open_bandit.py", "load"): "the vendored logs lack their columns",
    ("studies/piovano/_evaluation.py", "printed_matrix"): "data/reference/ lacks a printed matrix",
    ("studies/piovano/census_shift.py", "estimates"): "the vendored CBPE estimates disagree with our periods",
    ("studies/piovano/census_shift.py", "load"): "the vendored census file lacks its columns",
}


def unnamed_raises(source: str) -> set[str]:
    """Functions of ``source`` holding a ``raise ValueError/TypeError(...)`` whose message names nothing."""
    out = set()
    for fn in ast.walk(ast.parse(source)):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) \
                        and getattr(node.exc.func, "id", "") in ("ValueError", "TypeError") \
                        and not NAMES.search(ast.get_source_segment(source, node.exc) or ""):
                    out.add(fn.name)
    return out


def test_every_raise_names_its_argument_or_is_a_listed_state():
    found = {(p.relative_to(ROOT).as_posix(), f) for p in sorted(ROOT.rglob("*.py")) for f in unnamed_raises(p.read_text())}
    assert found - set(STATES) == set()
    assert set(STATES) - found == set(), "a listed state no longer raises unnamed: remove it from STATES"


def test_the_rule_tells_a_named_raise_from_an_unnamed_one():
    assert unnamed_raises('def f(x):\n    raise ValueError(f"`x` must be positive; got {x}")\n') == set()
    assert unnamed_raises('def f():\n    raise ValueError(f"${WORKERS_ENV} must be whole")\n') == set()
    assert unnamed_raises('def g(x):\n    raise TypeError("must be positive")\n') == {"g"}
