"""No dead code: every function and class defined at the top of a module of the library (``src/``) or the compendium
(``compendium/``) is named somewhere besides its definition -- in the code, the tests, the notebooks, the benchmarks,
the tools or the documentation (issue 49 found ``auction.allocation.allocate_at_points`` and ``report._md_table``
defined and never called)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CODE = [ROOT / "src" / "offline_eval", ROOT / "compendium" / "offline_eval_compendium"]
#: Where a use may be: every text of the repository a name can be called or documented from.
CORPUS = ["src", "compendium", "tests", "notebooks", "benchmarks", "tools", "docs"]
SUFFIXES = {".py", ".md", ".toml", ".cfg", ".yaml", ".yml"}


def word_counts(folders, root: Path = ROOT) -> dict[str, int]:
    """How often each identifier-like word occurs in the texts of ``folders`` (and the Makefile) under ``root``."""
    counts: dict[str, int] = {}
    files = [p for f in folders for p in sorted((root / f).rglob("*"))
             if p.suffix in SUFFIXES and p.is_file() and p != Path(__file__).resolve()]  # this file names the dead
    for path in [*files, *[m for m in [root / "Makefile"] if m.exists()]]:
        for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", path.read_text(errors="replace")):
            counts[word] = counts.get(word, 0) + 1
    return counts


def unused_definitions(code_folders, counts, root: Path = ROOT) -> list[str]:
    """``path: name`` of each top-level function or class whose name appears nowhere but in its definition."""
    out = []
    for folder in code_folders:
        for path in sorted(folder.rglob("*.py")):
            for node in ast.parse(path.read_text()).body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and counts.get(node.name, 0) <= 1:
                    out.append(f"{path.relative_to(root)}: {node.name}")
    return out


def test_every_function_and_class_is_used_or_documented():
    assert unused_definitions(CODE, word_counts(CORPUS)) == []


def test_the_scan_finds_a_function_nothing_names(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def used():\n    pass\n\n\ndef dead():\n    return 1\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "m.md").write_text("Call `used()`.\n")
    counts = word_counts(["src", "docs"], tmp_path)
    assert unused_definitions([tmp_path / "src"], counts, tmp_path) == ["src/m.py: dead"]
