"""The compendium as a package of its own: its docstring, its use of the library's public names only."""

import ast
from pathlib import Path

import pytest

import offline_eval_compendium
from offline_eval_compendium.paths import PROJ_ROOT

PACKAGE = Path(offline_eval_compendium.__file__).parent


def test_package_docstring_names_every_module():
    modules = {p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_")} | {"studies", "claims"}
    modules = {m for m in modules if (PACKAGE / f"{m}.py").exists() or (PACKAGE / m).is_dir()}
    assert [m for m in sorted(modules) if f"``{m}``" not in offline_eval_compendium.__doc__] == []


@pytest.mark.parametrize("module_name", ["reference", "claims", "io"])
def test_the_tools_a_researcher_adding_a_notebook_uses_document_every_parameter(module_name):
    import importlib
    import inspect

    module = importlib.import_module(f"offline_eval_compendium.{module_name}")
    undocumented = []
    for name in getattr(module, "__all__", []):
        obj = getattr(module, name)
        methods = [obj] if inspect.isfunction(obj) else [
            getattr(v, "__func__", v) for k, v in vars(obj).items() if not k.startswith("_")] \
            if inspect.isclass(obj) else []
        for fn in (m for m in methods if inspect.isfunction(m)):
            doc = inspect.getdoc(fn) or ""
            undocumented += [f"{name}.{fn.__name__}({p})" for p in inspect.signature(fn).parameters
                             if p not in ("self", "cls") and p not in doc]
    assert undocumented == []


def _private_library_imports(path: Path, root: Path = PROJ_ROOT) -> list[str]:
    """``offline_eval`` names a file imports whose dotted path has a part starting with an underscore, and the
    underscored attributes it reads from an imported library module (``bd._BLOCK`` after ``from offline_eval
    import bidding as bd``)."""
    found, modules = [], {}
    tree = ast.parse(path.read_text(), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] == "offline_eval":
            names = [f"{node.module}.{a.name}" for a in node.names]
            modules.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names if a.name.split(".")[0] == "offline_eval"]
            modules.update({a.asname: a.name for a in node.names if a.asname and a.name in names})
        else:
            continue
        found += [f"{path.relative_to(root)}:{node.lineno}: {n}" for n in names
                  if any(part.startswith("_") and part != "__version__" for part in n.split(".")[1:])]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules \
                and node.attr.startswith("_") and not node.attr.startswith("__"):
            found.append(f"{path.relative_to(root)}:{node.lineno}: {modules[node.value.id]}.{node.attr}")
    return found


def test_the_compendium_and_the_notebooks_import_only_public_library_names():
    files = sorted(PACKAGE.rglob("*.py")) + sorted((PROJ_ROOT / "notebooks").rglob("*.py"))
    assert len(files) > 30
    assert [hit for f in files for hit in _private_library_imports(f)] == []


def test_the_private_import_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("from offline_eval._validation import check_rng\nimport offline_eval.ranking._pairs\n"
                   "from offline_eval.metrics import roc_auc_score\nfrom offline_eval import bidding as bd\n"
                   "n = bd._BLOCK + bd.EU_BLOCK\n")
    hits = [h.split(": ")[1] for h in _private_library_imports(bad, tmp_path)]
    assert hits == ["offline_eval._validation.check_rng", "offline_eval.ranking._pairs", "offline_eval.bidding._BLOCK"]


def test_a_non_numeric_reference_cell_names_the_cell():
    from offline_eval_compendium import reference

    ref = reference.load("rosset")
    assert reference.lookup_number(ref, "Table 2", "tau", "p-value") == 0.00007
    ref.loc[(ref["source"] == "Table 2") & (ref["row"] == "tau") & (ref["column"] == "p-value"), "value"] = "n/a"
    with pytest.raises(ValueError, match=r"data/reference/rosset/.*source='Table 2'.*row='tau' column='p-value' holds 'n/a'"):
        reference.lookup_number(ref, "Table 2", "tau", "p-value")




def _compile_warnings(paths):
    """Each file's warnings when compiled (an invalid escape such as ``"\\m"`` in a docstring is one)."""
    import warnings

    found = []
    for path in paths:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compile(path.read_text(encoding="utf-8"), str(path), "exec")
        found += [f"{path.relative_to(PROJ_ROOT) if path.is_relative_to(PROJ_ROOT) else path.name}:{w.lineno}: "
                  f"{w.category.__name__}: {w.message}" for w in caught]
    return found


def test_every_source_file_compiles_with_no_warning():
    files = [p for d in ("src", "compendium", "notebooks", "tests", "tools") if (PROJ_ROOT / d).is_dir()
             for p in sorted((PROJ_ROOT / d).rglob("*.py")) if "__pycache__" not in p.parts]
    assert len(files) > 100
    assert _compile_warnings(files) == []


def test_the_compile_warning_check_can_fail(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text('"""A docstring with :math:`\\mathrm{x}`."""\n')
    # DeprecationWarning up to Python 3.11, SyntaxWarning from 3.12
    [hit] = _compile_warnings([bad])
    assert hit.endswith("Warning: invalid escape sequence '\\m'"), hit
