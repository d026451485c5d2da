"""JupyterLab for the compendium (``make lab``): the text notebooks open as notebooks, on the project's kernel.

``python -m offline_eval_compendium.lab settings`` (also ``pipeline lab-settings``) writes, in this venv:

* Lab's setting overrides (``share/jupyter/lab/settings/overrides.json``): ``.py`` files open with the
  Jupytext notebook viewer; the preferred kernel starts without asking; no news or update check (no
  pop-up, no request to a website);
* a kernelspec ``offline-eval`` whose interpreter is this venv's Python, given by its absolute path: jupytext
  gives a text notebook without kernel metadata (the notebooks keep none, by house rule) the kernel whose
  interpreter is the server's own, so that Lab neither asks "Select Kernel" nor has anything to change in
  the notebook's metadata when the kernel starts.

The notebook's metadata is then what the kernel reports (:class:`ContentsManager` fills in the
``language_info`` the kernel would send), so the tab is not marked modified until the user edits; and
saving a notebook whose cells nobody changed leaves its file byte-identical.
``make lab`` starts Lab with that contents manager.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

__all__ = ["KERNEL_NAME", "ContentsManager", "kernelspec", "lab_settings", "language_info", "main"]

KERNEL_NAME = "offline-eval"
DISPLAY_NAME = "Python 3 (offline-eval)"

OVERRIDES = {
    "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"python": "Jupytext Notebook"}},
    "@jupyterlab/notebook-extension:tracker": {"autoStartDefaultKernel": True},
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
}


def kernelspec(prefix: str | Path | None = None) -> Path:
    """Write the project's kernelspec (this interpreter, by absolute path) into ``<prefix>/share/jupyter/kernels``."""
    folder = Path(prefix or sys.prefix) / "share" / "jupyter" / "kernels" / KERNEL_NAME
    folder.mkdir(parents=True, exist_ok=True)
    spec = {"argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
            "display_name": DISPLAY_NAME, "language": "python", "metadata": {"debugger": True}}
    (folder / "kernel.json").write_text(json.dumps(spec, indent=1) + "\n")
    return folder / "kernel.json"


def lab_settings(prefix: str | Path | None = None) -> Path:
    """Write Lab's setting overrides and the project's kernelspec; returns the overrides file."""
    settings = Path(prefix or sys.prefix) / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    overrides = json.loads(settings.read_text()) if settings.exists() else {}
    for plugin, values in OVERRIDES.items():
        overrides.setdefault(plugin, {}).update(values)
    settings.write_text(json.dumps(overrides, indent=2) + "\n")
    kernelspec(prefix)
    return settings


def language_info() -> dict:
    """The ``language_info`` that ipykernel reports for this interpreter (what Lab writes on kernel start)."""
    from ipykernel.ipkernel import IPythonKernel

    info = dict(IPythonKernel.language_info)
    info["version"] = ".".join(str(v) for v in sys.version_info[:3])
    return info


def _contents_manager_base():
    from jupytext.async_contentsmanager import build_async_jupytext_contents_manager_class
    from jupyter_server.services.contents.largefilemanager import AsyncLargeFileManager

    return build_async_jupytext_contents_manager_class(AsyncLargeFileManager)


class ContentsManager(_contents_manager_base()):
    """Jupytext's contents manager, which gives a text notebook the project's kernel and its language info."""

    async def get(self, path, content=True, type=None, format=None, **kwargs):
        model = await super().get(path, content=content, type=type, format=format, **kwargs)
        if content and model.get("type") == "notebook" and not str(path).endswith(".ipynb"):
            meta = model["content"].metadata
            meta.setdefault("kernelspec", {"name": KERNEL_NAME, "display_name": DISPLAY_NAME, "language": "python"})
            meta.setdefault("language_info", language_info())
        return model

    async def save(self, model, path=""):
        """Save, except a text notebook whose cells are those of its file: the file is left byte-identical.

        A text notebook holds only its cells (type, source, tags; jupytext.toml filters all other metadata),
        so when Lab saves a notebook nobody edited (only the kernel's metadata or cell ids changed), there
        is nothing to write; rewriting would still change the file's bytes or time.
        """
        if (model.get("type") == "notebook" and model.get("content") is not None
                and not str(path).endswith(".ipynb")):
            try:
                current = await super().get(path, content=True, type="notebook")
            except Exception:  # noqa: BLE001 - a new or unreadable file: the ordinary save says why
                current = None
            if current is not None and _cells(current["content"]) == _cells(model["content"]):
                return await super().get(path, content=False)
        return await super().save(model, path)


def _cells(nb) -> list:
    """What a text notebook keeps of a notebook: each cell's type, source and tags."""
    cells = nb["cells"] if isinstance(nb, dict) else nb.cells
    out = []
    for c in cells:
        source = c["source"] if isinstance(c["source"], str) else "".join(c["source"])
        out.append((c["cell_type"], source, tuple(c.get("metadata", {}).get("tags", []))))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m offline_eval_compendium.lab", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["settings"], help="write Lab's settings and the project's kernelspec")
    ap.parse_args(argv)
    print(f"JupyterLab settings: {lab_settings()}; kernel: {KERNEL_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
