"""Atomic, deterministic output of tables and figures.

Every file is written to a temporary file in the destination folder and moved
into place with :func:`os.replace`, so a reader (or a crashed run) never sees
a half-written table next to good ones.  Tables are saved as CSV (full
precision, for machines) and Markdown (rounded at the edge, for write-ups);
figures as PNG and PDF without timestamps or software versions, so the same
inputs give the same bytes.
"""

from __future__ import annotations

import io as _io
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .paths import PAPERS, figures_root

__all__ = [
    "OutputDir",
    "atomic_write_bytes",
    "atomic_write_text",
    "figure_bytes",
    "to_markdown",
    "write_table",
]


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder + rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically."""
    return atomic_write_bytes(path, text.encode("utf-8"))


def _format_cell(value, floatfmt: str) -> str:
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return ""
    if isinstance(value, (float, np.floating)):
        return format(float(value), floatfmt)
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame, *, floatfmt: str | dict = ".4g") -> str:
    """Render ``df`` as a GitHub-flavoured Markdown table.

    ``floatfmt`` is a format spec for every float column, or a dict mapping
    column names to specs (columns not in the dict use ``".4g"``).
    """
    cols = [str(c) for c in df.columns]
    fmts = {c: (floatfmt.get(c, ".4g") if isinstance(floatfmt, dict) else floatfmt) for c in df.columns}
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_format_cell(v, fmts[c]) for v, c in zip(row, df.columns)) + " |")
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, stem: str | Path, *, floatfmt: str | dict = ".4g") -> tuple[Path, Path]:
    """Write ``df`` to ``<stem>.csv`` (full precision) and ``<stem>.md`` (rounded)."""
    stem = Path(stem)
    csv = df.to_csv(index=False, lineterminator="\n")
    p_csv = atomic_write_text(stem.with_suffix(".csv"), csv)
    p_md = atomic_write_text(stem.with_suffix(".md"), to_markdown(df, floatfmt=floatfmt))
    return p_csv, p_md


def figure_bytes(fig, fmt: str) -> bytes:
    """Render a matplotlib figure to bytes with no timestamp or version metadata."""
    if fmt == "png":
        metadata = {"Software": None}
    elif fmt == "pdf":
        metadata = {"Creator": None, "Producer": None, "CreationDate": None, "ModDate": None}
    elif fmt == "svg":
        metadata = {"Creator": None, "Date": None}
    else:
        raise ValueError(f"`fmt` must be 'png', 'pdf' or 'svg'; got {fmt!r}")
    buf = _io.BytesIO()
    fig.savefig(buf, format=fmt, metadata=metadata)
    return buf.getvalue()


class OutputDir:
    """Where one notebook writes its outputs for one paper.

    Parameters
    ----------
    paper : {"yi", "rosset", "piovano", "chapelle"}
        Short id of the paper; outputs go to ``<root>/<paper>/``.
    output_root : str or Path, optional
        Root folder; ``None`` means the compendium's ``figures/``.

    Examples
    --------
    >>> import tempfile, pandas as pd
    >>> out = OutputDir("yi", tempfile.mkdtemp())
    >>> [p.name for p in out.table(pd.DataFrame({"a": [1.5]}), "table9")]
    ['table9.csv', 'table9.md']
    """

    def __init__(self, paper: str, output_root: str | Path | None = None):
        if paper not in PAPERS:
            raise ValueError(f"`paper` must be one of {PAPERS}; got {paper!r}")
        self.paper = paper
        self.path = figures_root(output_root) / paper

    def table(self, df: pd.DataFrame, name: str, *, floatfmt: str | dict = ".4g") -> tuple[Path, Path]:
        """Save ``df`` as ``<name>.csv`` and ``<name>.md``."""
        return write_table(df, self.path / name, floatfmt=floatfmt)

    def figure(self, fig, name: str, *, formats=("png", "pdf")) -> list[Path]:
        """Save ``fig`` as ``<name>.png`` and ``<name>.pdf`` (deterministic bytes)."""
        return [atomic_write_bytes(self.path / f"{name}.{fmt}", figure_bytes(fig, fmt)) for fmt in formats]

    def claims(self, ledger) -> tuple[Path, Path]:
        """Save a :class:`offline_eval.claims.Ledger` as ``claims/<notebook>.csv/.md``."""
        if ledger.paper != self.paper:
            raise ValueError(f"`ledger` is for paper {ledger.paper!r}, not {self.paper!r}")
        return write_table(ledger.frame(), self.path / "claims" / ledger.notebook)
