"""The house rules of the notebooks, checked on their source.

* no jupytext header (``jupytext.toml`` strips it, so saving an unchanged notebook from JupyterLab does not
  change the file -- the round trip is tested through jupytext's own contents manager);
* every figure saved with ``out.figure`` carries a one-line caption (the report shows it);
* every notebook ends with the written verdict generated from its ledger;
* thin notebooks: no code cell but the parameters and the imports over 15 lines (claim logic lives in
  ``offline_eval_compendium.studies``).
"""

import ast
import asyncio
import shutil
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))
MAX_LINES = 15


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_jupytext_header(path):
    assert not path.read_text().startswith("# ---"), "jupytext header: jupytext.toml strips it on save"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_figure_has_a_caption(path):
    calls = [n for n in ast.walk(ast.parse(path.read_text()))
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "figure"
             and isinstance(n.func.value, ast.Name) and n.func.value.id == "out"]
    missing = [c.lineno for c in calls if not any(k.arg == "caption" for k in c.keywords)]
    assert missing == [], f"out.figure without caption= at lines {missing}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_ends_with_the_ledger_verdict(path):
    nb = jupytext.read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert "ledger.verdict()" in code[-1].source


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_code_cells_are_thin(path):
    nb = jupytext.read(path)
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    imports = [c for c in code if c.source.lstrip().startswith(("import ", "from "))][:1]
    long = [(nb.cells.index(c), len(c.source.splitlines())) for c in code
            if c not in params and c not in imports and len(c.source.splitlines()) > MAX_LINES]
    assert long == [], f"code cells over {MAX_LINES} lines (cell index, lines): {long}"


def test_saving_from_jupyterlab_does_not_change_the_file(tmp_path):
    """Open and save every notebook through jupytext's contents manager with the repository's config."""
    from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    shutil.copy(ROOT / "jupytext.toml", tmp_path / "jupytext.toml")
    for path in NOTEBOOKS:
        shutil.copy(path, tmp_path / path.name)
    cm = build_async_jupytext_contents_manager_class(AsyncLargeFileManager)(root_dir=str(tmp_path))

    async def roundtrip(name):
        model = await cm.get(name, content=True)
        # what JupyterLab adds when a kernel runs the notebook
        model["content"]["metadata"]["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        model["content"]["metadata"]["language_info"] = {"name": "python", "version": "3.11"}
        await cm.save(model, name)

    # the check is live: a file jupytext would write differently (here, a jupytext header) does change
    header = "# ---\n# jupyter:\n#   jupytext:\n#     text_representation:\n#       extension: .py\n" \
             "#       format_name: percent\n# ---\n\n"
    probe = tmp_path / "probe.py"
    probe.write_text(header + NOTEBOOKS[0].read_text())
    asyncio.run(roundtrip(probe.name))
    assert probe.read_text() != header + NOTEBOOKS[0].read_text()
    for path in NOTEBOOKS:
        asyncio.run(roundtrip(path.name))
        assert (tmp_path / path.name).read_text() == path.read_text(), f"{path.name} changed on save"
