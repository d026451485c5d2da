"""Saving a notebook nobody edited in Lab leaves its text file byte-identical (issue 34); an edit is written."""

import asyncio
import json
import os
import shutil

from offline_eval_compendium.lab import ContentsManager
from offline_eval_compendium.paths import NOTEBOOKS_DIR, PROJ_ROOT


def test_saving_an_unchanged_notebook_leaves_its_file_byte_identical(tmp_path):
    shutil.copy(NOTEBOOKS_DIR / "rosset_measures.py", tmp_path)
    shutil.copy(PROJ_ROOT / "jupytext.toml", tmp_path)
    path = tmp_path / "rosset_measures.py"
    before, mtime = path.read_bytes(), os.stat(path).st_mtime_ns

    async def run():
        cm = ContentsManager(root_dir=str(tmp_path))
        model = await cm.get("rosset_measures.py", content=True, type="notebook")
        # what Lab sends back: JSON with cell ids, trust flags and the running kernel's own metadata
        content = json.loads(json.dumps(model["content"]))
        content["metadata"]["kernelspec"]["display_name"] = "Python 3 (ipykernel)"
        content["metadata"]["language_info"]["codemirror_mode"] = {"name": "ipython", "version": 3}
        for i, cell in enumerate(content["cells"]):
            cell["id"] = f"cell-{i}"
            cell.setdefault("metadata", {})["trusted"] = True
        await cm.save({"type": "notebook", "format": "json", "content": content}, "rosset_measures.py")
        assert path.read_bytes() == before and os.stat(path).st_mtime_ns == mtime
        content["cells"][2]["source"] += "\n# an edit"
        await cm.save({"type": "notebook", "format": "json", "content": content}, "rosset_measures.py")
        assert b"# an edit" in path.read_bytes()

    asyncio.run(run())
