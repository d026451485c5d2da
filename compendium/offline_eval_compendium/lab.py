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
``language_info`` the kernel would send), so the tab is not marked modified until the user edits.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m offline_eval_compendium.lab", description=__doc__.split("\n\n")[0])
    ap.add_argument("command", choices=["settings"], help="write Lab's settings and the project's kernelspec")
    ap.parse_args(argv)
    print(f"JupyterLab settings: {lab_settings()}; kernel: {KERNEL_NAME}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
