"""The one figure style of the compendium (two-column-paper sizes).

No backend is chosen on import, so figures show inline in JupyterLab; saved files are rendered by
:func:`offline_eval_compendium.io.figure_bytes` (Agg for PNG, matplotlib's own PDF/SVG writers) whatever the
backend, so their bytes do not depend on it.
"""

from __future__ import annotations

import os

import matplotlib.pyplot as plt

__all__ = ["COLUMN_WIDTH", "PAGE_WIDTH", "STYLE", "new_figure", "use_style"]

# Widths of one column and of the full page of a two-column paper (inches).
COLUMN_WIDTH = 3.4
PAGE_WIDTH = 7.0

STYLE = {
    "figure.dpi": 100,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "savefig.pad_inches": 0.02,
    "font.family": "DejaVu Sans",
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "lines.linewidth": 1.2,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "pdf.fonttype": 42,
    "svg.hashsalt": "offline-eval",
    "path.simplify": False,
}


def use_style() -> None:
    """Apply the compendium style and pin the metadata that would vary between runs."""
    os.environ.setdefault("SOURCE_DATE_EPOCH", "0")
    plt.rcParams.update(STYLE)


def new_figure(ncols: int = 1, nrows: int = 1, *, width: str | float = "single", height: float | None = None, **kwargs):
    """``plt.subplots`` at a paper size: ``width`` is ``"single"``, ``"double"`` or inches."""
    use_style()
    w = {"single": COLUMN_WIDTH, "double": PAGE_WIDTH}.get(width, width)
    if not isinstance(w, (int, float)):
        raise ValueError(f"`width` must be 'single', 'double' or a number of inches; got {width!r}")
    h = height if height is not None else 0.75 * w / max(ncols, 1) * nrows + 0.3
    return plt.subplots(nrows, ncols, figsize=(w, h), **kwargs)
