"""Every path of the compendium, built from the project root in one place."""

from __future__ import annotations

from pathlib import Path

PROJ_ROOT = Path(__file__).resolve().parents[3]
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
