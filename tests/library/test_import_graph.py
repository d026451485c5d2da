"""The import graph of the library (``src/``) and of the compendium (``compendium/``), read from the code alone.

No module may reach itself through its imports: a cycle makes the order of initialisation matter, and an import
inside a function only hides it until that function runs, so every import statement counts, at any depth
(``if TYPE_CHECKING:`` blocks excepted: they never run).  A face imports its engines, never the reverse.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: The packages whose modules are the graph's nodes, and the folder each lives in.
PACKAGES = {"offline_eval": ROOT / "src" / "offline_eval",
            "offline_eval_compendium": ROOT / "compendium" / "offline_eval_compendium"}

STUDIES = "offline_eval_compendium.studies."


def module_files(packages: dict[str, Path]) -> dict[str, Path]:
    """``dotted name -> file`` of every module of ``packages`` (a package by its ``__init__.py``)."""
    out = {}
    for name, folder in packages.items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            out[".".join((name, *parts[:-1]) if parts[-1] == "__init__" else (name, *parts))] = path
    return out


def _type_checking_only(tree: ast.AST) -> set[int]:
    """The ids of the statements under ``if TYPE_CHECKING:`` (never run, so no edge)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and ast.unparse(node.test).split(".")[-1] == "TYPE_CHECKING":
            skip |= {id(n) for stmt in node.body for n in ast.walk(stmt)}
    return skip


def imports_of(name: str, path: Path, modules: set[str]) -> set[str]:
    """The modules of ``modules`` that module ``name`` imports anywhere in its file.

    ``from pkg import x`` is an edge to ``pkg.x`` when that is a module, else to ``pkg``; relative imports are
    resolved against the module's package; imports of other packages are left out.
    """
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_only(tree)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - (node.level - 1)])
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module
            for alias in node.names:
                found.add(f"{target}.{alias.name}" if f"{target}.{alias.name}" in modules else target)
    return {m for m in found if m in modules and m != name}


def import_graph(packages: dict[str, Path] = PACKAGES) -> dict[str, set[str]]:
    files = module_files(packages)
    return {name: imports_of(name, path, set(files)) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm), each as a sorted tuple."""
    index, low, stack, on_stack, out = {}, {}, [], set(), set()

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.add(tuple(sorted(component)))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@functools.cache
def whole_graph() -> dict[str, set[str]]:
    return import_graph(PACKAGES)


def test_no_import_cycle_in_the_library():
    assert {c for c in cycles(whole_graph()) if c[0].startswith("offline_eval.")} == set()


def test_no_import_cycle_in_the_compendium():
    assert {c for c in cycles(whole_graph()) if c[0].startswith("offline_eval_compendium.")} == set()


def test_no_import_cycle_among_the_studies():
    # issue 49: yi_auction and yi_worlds imported each other, as did piovano's Table II modules, each cycle hidden by
    # an import inside a function; each paper's helpers are now its private modules, the dependencies one way
    assert {c for c in cycles(whole_graph()) if all(m.startswith(STUDIES) for m in c)} == set()


def _private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")[1:])


def faces() -> set[str]:
    """The library's faces: its public modules that list in their ``__all__`` a name defined in a private module
    (``metrics`` over ``_metrics_roc``, ``logboot`` over ``_logboot_run``)."""
    import importlib

    out = set()
    for name in whole_graph():
        if name.startswith("offline_eval.") and not _private(name):
            module = importlib.import_module(name)
            if any(_private(getattr(getattr(module, n), "__module__", None) or name) for n in getattr(module, "__all__", ())
                   if n != "OfflineEvalWarning" and getattr(getattr(module, n), "__module__", "").startswith("offline_eval")):
                out.add(name)
    return out


def test_no_engine_imports_a_face():
    # issue 49: the engines borrowed run_resamples, assemble, check_metrics, check_resampled_rows, draw_seed and
    # BLOCK_ELEMENTS from the logboot face, and LOG_LOSS_EPS and the accumulators from metrics and mergeable
    found = faces()
    assert {"offline_eval.metrics", "offline_eval.logboot", "offline_eval.mergeable", "offline_eval.ondask",
            "offline_eval.results"} <= found
    graph = whole_graph()
    offenders = sorted(f"{m} imports {f}" for m in graph if m.startswith("offline_eval.") and _private(m)
                       for f in graph[m] & found)
    assert offenders == []


def test_the_graph_sees_a_cycle_hidden_in_a_function(tmp_path):
    # the shape of _ondask_auc and _ondask_cells before issue 49: one import at the top, the other in a function
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "_a.py").write_text("def f():\n    from ._b import g\n    return g()\n")
    (pkg / "_b.py").write_text("from ._a import f\nfrom . import _c\n")
    (pkg / "_c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg._b import f\n")
    graph = import_graph({"pkg": pkg})
    assert graph == {"pkg": set(), "pkg._a": {"pkg._b"}, "pkg._b": {"pkg._a", "pkg._c"}, "pkg._c": set()}
    assert cycles(graph) == {("pkg._a", "pkg._b")}
