"""Tests that cannot fail, found before they pass: a comparison with a peer that compares the library with itself.

A test module that imports ``roc_auc_score`` from ``sklearn.metrics`` and then from ``offline_eval.metrics``
holds the library's function under that name, so ``roc_auc_score(y, s) - roc_auc_score(y, s)`` passes whatever
the library computes (issue 49: 45 such cases in ``test_metrics.py``). A peer's name comes in under a prefix of its
own (``sk_roc_auc_score``, ``sp_kendalltau``), and this test fails on any module that binds one name from both.
"""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]

#: The packages the library is compared with (scikit-learn, scipy).
PEERS = ("sklearn", "scipy")
OURS = ("offline_eval",)


def bound_names(tree: ast.AST):
    """``(name, module, line)`` for every name an import statement binds, at any depth (a function's own imports
    included: they shadow the module's names just as well)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.asname or alias.name.split(".")[0], alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for alias in node.names:
                yield alias.asname or alias.name, node.module, node.lineno


def names_from_peer_and_ours(source: str) -> list[str]:
    """The names bound both from a peer (:data:`PEERS`) and from the library, each with where, one per line."""
    seen: dict[str, dict[str, list[str]]] = {}
    for name, module, line in bound_names(ast.parse(source)):
        top = module.split(".")[0]
        side = "peer" if top in PEERS else "ours" if top in OURS else None
        if side:
            seen.setdefault(name, {}).setdefault(side, []).append(f"{module} (line {line})")
    return [f"{name}: {' and '.join(where['peer'] + where['ours'])}"
            for name, where in sorted(seen.items()) if len(where) == 2]


def test_no_test_module_binds_one_name_from_a_peer_and_from_the_library():
    offenders = [f"{path.relative_to(TESTS)}: {clash}" for path in sorted(TESTS.rglob("*.py"))
                 for clash in names_from_peer_and_ours(path.read_text())]
    assert offenders == [], "import the peer's name under a prefix of its own (sk_, sp_):\n" + "\n".join(offenders)


def test_the_scan_finds_the_shadowed_peer_of_issue_49():
    # the imports of test_metrics.py before the fix: sklearn's roc_auc_score, then the library's under its name
    before = ("from sklearn.metrics import roc_auc_score\n"
              "from offline_eval.metrics import roc_auc_score, roc_curve\n")
    assert names_from_peer_and_ours(before) == [
        "roc_auc_score: sklearn.metrics (line 1) and offline_eval.metrics (line 2)"]
    # a function's own import shadows as well; a module imported whole under one name too
    inside = "import scipy.stats as stats\ndef f():\n    from offline_eval import stats\n"
    assert names_from_peer_and_ours(inside) == ["stats: scipy.stats (line 1) and offline_eval (line 3)"]
    assert names_from_peer_and_ours("from sklearn.metrics import roc_auc_score as sk_roc_auc_score\n"
                                    "from offline_eval.metrics import roc_auc_score\n") == []
