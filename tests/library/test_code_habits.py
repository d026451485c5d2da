"""The length habits the library keeps, held for the compendium too (docs/internals.md, "Code habits").

A function's body (its docstring aside) is at most 100 lines, and a module at most 600 in the compendium's studies
(tests/compendium/test_ledger_structure.py); a longer one holds more than one step and is split by step.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TREES = {"library": ROOT / "src" / "offline_eval", "compendium": ROOT / "compendium" / "offline_eval_compendium"}
MAX_FUNCTION_LINES = 100


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> list[tuple[str, int]]:
    """``(name, body lines)`` of every function in ``source`` whose body, docstring aside, exceeds ``limit``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            documented = isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str)
            first = body[1] if documented and len(body) > 1 else body[0]
            lines = node.end_lineno - first.lineno + 1
            if lines > limit:
                out.append((node.name, lines))
    return out


@pytest.mark.parametrize("tree", sorted(TREES))
def test_no_function_is_longer_than_the_habit(tree):
    found = {str(p.relative_to(ROOT)): long_functions(p.read_text()) for p in sorted(TREES[tree].rglob("*.py"))}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_measure_counts_the_body_without_its_docstring():
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    assert long_functions(f'def f():\n    """Doc\n\n    more."""\n{body}\n') == []
    assert long_functions(f"def f():\n{body}\n    return 0\n") == [("f", MAX_FUNCTION_LINES + 1)]
