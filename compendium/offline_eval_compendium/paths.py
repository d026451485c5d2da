"""Every path of the compendium, built from the project root in one place."""

from __future__ import annotations

import os
from pathlib import Path


def _project_root() -> Path:
    """The repository this package works in: ``$OFFLINE_EVAL_ROOT``, else the checkout holding this file.

    The compendium is installed from its checkout (``make venv`` installs it in editable mode), so the
    folders it reads and writes (``notebooks/``, ``data/``, ``figures/``) sit above this file; the walk up
    looks for them rather than counting parents, and an install outside a checkout is refused by name.
    """
    env = os.environ.get("OFFLINE_EVAL_ROOT")
    if env:
        root = Path(env).resolve()
        if not (root / "notebooks").is_dir():
            raise RuntimeError(f"`OFFLINE_EVAL_ROOT` must be the repository root (with notebooks/); got {env!r}")
        return root
    for parent in Path(__file__).resolve().parents:
        if (parent / "notebooks").is_dir() and (parent / "data" / "reference").is_dir():
            return parent
    raise RuntimeError("offline_eval_compendium works inside its repository (it reads notebooks/ and data/); "
                       f"none found above {Path(__file__).resolve().parent}: install it from a checkout "
                       "(make venv) or set OFFLINE_EVAL_ROOT")


PROJ_ROOT = _project_root()
NOTEBOOKS_DIR = PROJ_ROOT / "notebooks"
SMOKE_PARAMS_DIR = NOTEBOOKS_DIR / "smoke"
DATA_DIR = PROJ_ROOT / "data"
REFERENCE_DIR = DATA_DIR / "reference"
FIGURES_DIR = PROJ_ROOT / "figures"
BUILD_DIR = PROJ_ROOT / "build"

PAPERS = ("yi", "rosset", "piovano", "chapelle", "arena")


def figures_root(output_root: str | Path | None = None) -> Path:
    """Root folder for tables, figures and claims.

    ``None`` (the notebooks' default) means the compendium's ``figures/``;
    the pipeline passes a staging folder so that a failing notebook never
    touches ``figures/``.
    """
    return FIGURES_DIR if output_root in (None, "") else Path(output_root)


def relative(p: str | Path) -> str:
    """``p`` relative to the project root, for messages and records; as given when it lies outside."""
    try:
        return str(Path(p).resolve().relative_to(PROJ_ROOT))
    except ValueError:
        return str(p)
