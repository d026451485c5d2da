"""The papers' published numbers, read from ``data/reference/``.

Every number a claim is checked against lives in a CSV under
``data/reference/<paper>/`` with its provenance, one printed cell per row:

``paper, source, panel, row, column, value``

``source`` is the table or figure as the paper names it (``"Table 2"``),
``panel`` is empty for single-panel tables, and ``value`` is the cell exactly
as printed (a string: ``"1,128,800"``, ``"0.9193"``, ``"8.6%"``).  Claims are
computed against these files, never against numbers typed into a notebook.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pandas as pd

from .paths import PAPERS, REFERENCE_DIR

__all__ = [
    "COLUMNS",
    "CORRECTION_COLUMNS",
    "load",
    "load_corrections",
    "lookup",
    "lookup_number",
    "parse_printed",
    "printed_decimals",
]

COLUMNS = ["paper", "source", "panel", "row", "column", "value"]


def load(paper: str, source: str | None = None, *, root: str | Path | None = None) -> pd.DataFrame:
    """All printed cells of ``paper`` (optionally of one ``source``), as strings.

    Parameters
    ----------
    paper : str
        ``"yi"``, ``"rosset"``, ``"piovano"`` or ``"chapelle"``.
    source : str, optional
        One table or section of the paper (its ``source`` column).
    root : str or Path, optional
        The ``data/`` folder to read (default: the project's).
    """
    if paper not in PAPERS:
        raise ValueError(f"`paper` must be one of {PAPERS}; got {paper!r}")
    folder = Path(root) if root is not None else REFERENCE_DIR / paper
    files = sorted(folder.glob("*.csv"))
    if not files:
        raise ValueError(f"`paper` {paper!r} has no reference files in {folder}")
    frames = []
    for f in files:
        df = pd.read_csv(f, dtype=str, keep_default_na=False)
        if list(df.columns) != COLUMNS:
            raise ValueError(f"reference file {f.name} must have columns {COLUMNS}; got {list(df.columns)}")
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    if source is not None:
        df = df[df["source"] == source].reset_index(drop=True)
        if df.empty:
            raise ValueError(f"`source` {source!r} not found in the reference files of {paper!r}")
    return df


CORRECTION_COLUMNS = ["erratum_id", "source", "panel", "row", "column", "printed", "corrected", "reason"]


def load_corrections(paper: str, *, root: str | Path | None = None) -> pd.DataFrame:
    """Our corrections of printed *inputs* that are typos (``data/corrections/<paper>.csv``), as strings.

    One row per corrected cell: where it is (``source, panel, row, column``),
    the value as printed, the corrected value, and the id of the ledger's
    erratum row that proves it (``erratum_id``; several cells can share one
    root erratum).  The printed values stay untouched in ``data/reference/``;
    a study that recomputes from corrected inputs says so in its ledger rows.
    A paper without corrections gives an empty frame.

    Parameters
    ----------
    paper : str
    root : str or Path, optional
        The ``data/`` folder to read (default: the project's).
    """
    if paper not in PAPERS:
        raise ValueError(f"`paper` must be one of {PAPERS}; got {paper!r}")
    path = (Path(root) if root is not None else REFERENCE_DIR.parent / "corrections") / f"{paper}.csv"
    if not path.exists():
        return pd.DataFrame(columns=CORRECTION_COLUMNS)
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    if list(df.columns) != CORRECTION_COLUMNS:
        raise ValueError(f"corrections file {path} must have columns {CORRECTION_COLUMNS}; got {list(df.columns)}")
    ref = load(paper)
    for k, c in df.iterrows():
        hit = ref[(ref["source"] == c["source"]) & (ref["panel"] == c["panel"]) & (ref["row"] == c["row"])
                  & (ref["column"] == c["column"])]
        if len(hit) != 1 or hit["value"].iloc[0] != c["printed"]:
            raise ValueError(f"corrections file {path}, row {k + 2}: the printed value {c['printed']!r} is not the "
                             f"reference cell {c['source']!r} panel={c['panel']!r} {c['row']!r} {c['column']!r}")
    return df


def lookup(ref: pd.DataFrame, source: str, row: str, column: str, panel: str = "") -> str:
    """The printed value of one cell; raises ``KeyError`` if absent or ambiguous.

    Parameters
    ----------
    ref : pandas.DataFrame
        From :func:`load`.
    source, row, column : str
        The cell's table (or section), row and column as ``data/reference`` names them.
    panel : str, default ""
        The panel, for tables printed in panels.
    """
    hit = ref[(ref["source"] == source) & (ref["panel"] == panel) & (ref["row"] == row) & (ref["column"] == column)]
    if len(hit) != 1:
        raise KeyError(f"{len(hit)} reference cells for {source!r} panel={panel!r} row={row!r} column={column!r}")
    return hit["value"].iloc[0]


def lookup_number(ref: pd.DataFrame, source: str, row: str, column: str, panel: str = "") -> float:
    """The numeric value of one printed cell (:func:`lookup` then :func:`parse_printed`).

    A cell that is not a number is an error naming the paper, the cell and the text, so that it can be
    found in ``data/reference/<paper>/``.

    Parameters
    ----------
    ref, source, row, column, panel
        As in :func:`lookup`.
    """
    text = lookup(ref, source, row, column, panel)
    try:
        return parse_printed(text)
    except ValueError:
        paper = ref["paper"].iloc[0] if len(ref) else "?"
        raise ValueError(f"reference cell of {paper!r} (data/reference/{paper}/): source={source!r} panel={panel!r} "
                         f"row={row!r} column={column!r} holds {text!r}, not a number") from None


def _clean(printed: str) -> str:
    # Thousands separators, a currency sign, and transcription noise such as stray spaces ("0.0200 00").
    return re.sub(r"[,\s$]", "", str(printed))


def parse_printed(printed: str) -> float:
    """Numeric value of a printed cell: ``"1,128,800"`` -> 1128800.0, ``"8.6%"`` -> 8.6, ``"$3,872"`` -> 3872.0.

    Parameters
    ----------
    printed : str
        The cell as printed (thousands separators, ``%``, ``$`` and ``<`` are read).
    """
    s = _clean(printed).rstrip("%")
    try:
        return float(Decimal(s))
    except InvalidOperation:
        raise ValueError(f"`printed` is not a number: {printed!r}") from None


def printed_decimals(printed: str) -> int:
    """Number of decimals shown in a printed cell (``"0.9193"`` -> 4, ``"1,200"`` -> 0).

    Parameters
    ----------
    printed : str
    """
    s = _clean(printed).rstrip("%")
    return len(s.split(".", 1)[1]) if "." in s else 0
