"""The papers' published numbers, read from ``data/reference/``.

Every number a claim is checked against lives in a CSV under
``data/reference/<paper>/`` with its provenance, one printed cell per row:

``paper, source, panel, row, column, value``

``source`` is the table or figure as the paper names it (``"Table 2"``),
``panel`` is empty for single-panel tables, and ``value`` is the cell exactly
as printed (a string: ``"1,128,800"``, ``"0.9193"``, ``"8.6%"``).  Claims are
computed against these files, never against numbers typed into a notebook.

The files are read strictly (:func:`read_table`): a row with the wrong number
of fields, an unterminated quote, an empty or garbage line, a label with
stray spaces, a value that is not a printed number, a row of another paper or
a cell given twice is a :class:`ReferenceFileError` naming the file, the line
and what is wrong.  No line is skipped.
"""

from __future__ import annotations

import csv
import re
from decimal import Decimal, InvalidOperation
from pathlib import Path

import pandas as pd

from .paths import PAPERS, PROJ_ROOT, REFERENCE_DIR

__all__ = [
    "COLUMNS",
    "CORRECTION_COLUMNS",
    "ReferenceFileError",
    "load",
    "load_corrections",
    "lookup",
    "lookup_number",
    "parse_printed",
    "printed_decimals",
    "read_table",
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
    frames, seen = [], {}
    for f in files:
        df = read_table(f, COLUMNS, key=_CELL, paper=paper)
        # A cell given in two files of the paper is as ambiguous as one given twice in a file.
        for k, (key, line) in enumerate(zip(df[_CELL].itertuples(index=False, name=None), df.attrs["lines"])):
            if key in seen:
                raise ReferenceFileError(f"{_show(f)}, line {line}: the cell {_cell_text(key)} is also given in "
                                         f"{seen[key]}")
            seen[key] = f"{_show(f)}, line {line}"
        frames.append(df)
    df = pd.concat(frames, ignore_index=True)
    df.attrs = {}
    if source is not None:
        df = df[df["source"] == source].reset_index(drop=True)
        if df.empty:
            raise ValueError(f"`source` {source!r} not found in the reference files of {paper!r}")
    return df


CORRECTION_COLUMNS = ["erratum_id", "source", "panel", "row", "column", "printed", "corrected", "reason"]

_CELL = ["source", "panel", "row", "column"]
#: Columns that name a cell: a row without one, or with spaces around it, could never be looked up.
_LABELS = ("paper", "source", "row", "column", "erratum_id")
#: Columns that hold a printed number (or nothing, for a cell printed empty).
_NUMBERS = ("value", "printed", "corrected")


class ReferenceFileError(ValueError):
    """A file of ``data/reference/`` or ``data/corrections/`` is malformed; the message names the file and line."""


def _show(path: Path) -> str:
    try:
        return Path(path).resolve().relative_to(PROJ_ROOT).as_posix()
    except ValueError:
        return str(path)


def _cell_text(key) -> str:
    source, panel, row, column = key
    return f"source={source!r} panel={panel!r} row={row!r} column={column!r}"


def read_table(path: str | Path, columns: list[str], *, key: list[str] | None = None,
               paper: str | None = None) -> pd.DataFrame:
    """Read one reference or corrections CSV strictly: every line is a well-formed row, or an error.

    Unlike ``pandas.read_csv``, which skips blank lines, pads short rows and lets an unterminated quote
    swallow the rest of the file, every physical line must hold one row with exactly ``columns``.

    Parameters
    ----------
    path : str or Path
        The CSV file (UTF-8, a header line, then one row per line, ending with a newline).
    columns : list of str
        The header the file must have, in order.
    key : list of str, optional
        Columns that identify a row; a key given twice is an error naming both lines.
    paper : str, optional
        When given, the ``paper`` column of every row must equal it.

    Returns
    -------
    pandas.DataFrame
        The rows as strings; ``df.attrs["lines"]`` holds each row's line number in the file.

    Raises
    ------
    ReferenceFileError
        Naming the file, the line and what is wrong: an undecodable byte, the header, an empty line,
        a row with too few or too many fields (a truncated or garbage line), an unterminated quote, a
        label that is empty or has spaces around it, a value that is not a printed number, a row of
        another paper, a duplicated key, a last line without its newline (a truncated file).
    """
    path = Path(path)
    where = _show(path)
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ReferenceFileError(f"{where}, line {line}: not UTF-8 text (byte {raw[exc.start]:#04x})") from None
    if not text:
        raise ReferenceFileError(f"{where}: the file is empty; its first line must be the header {','.join(columns)}")
    if not text.endswith("\n"):
        last = text.count("\n") + 1
        raise ReferenceFileError(f"{where}, line {last}: the file does not end with a newline (cut short?): "
                                 f"{text.rsplit(chr(10), 1)[-1][:80]!r}")
    lines = text.split("\n")[:-1]
    reader = csv.reader(lines, strict=True)
    rows, numbers, seen = [], [], {}
    start = 1
    while True:
        try:
            fields = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise ReferenceFileError(f"{where}, line {start}: malformed CSV ({exc}); a quote opened here is never "
                                     f"closed or is followed by text: {lines[start - 1][:80]!r}") from None
        line, start = start, reader.line_num + 1
        if reader.line_num != line:
            raise ReferenceFileError(f"{where}, line {line}: a quoted field runs over {reader.line_num - line + 1} "
                                     f"lines (an unterminated quote?): {lines[line - 1][:80]!r}")
        if line == 1:
            if fields != list(columns):
                raise ReferenceFileError(f"{where}, line 1: the header must be {','.join(columns)}; got {lines[0][:120]!r}")
            continue
        if not "".join(fields).strip():
            raise ReferenceFileError(f"{where}, line {line}: an empty line (every line must be a row of "
                                     f"{len(columns)} fields)")
        if len(fields) != len(columns):
            raise ReferenceFileError(f"{where}, line {line}: {len(fields)} field(s), expected {len(columns)} "
                                     f"({','.join(columns)}); a truncated or garbage line: {lines[line - 1][:120]!r}")
        row = dict(zip(columns, fields))
        for name in columns:
            value = row[name]
            if "\r" in value or "\x00" in value:
                raise ReferenceFileError(f"{where}, line {line}: column `{name}` holds a control character: {value!r}")
            if name in _LABELS and (not value or value != value.strip()):
                what = "is empty" if not value else "has spaces around it"
                raise ReferenceFileError(f"{where}, line {line}: column `{name}` {what}: {value!r}")
            if name in _NUMBERS and value:
                try:
                    parse_printed(value)
                except ValueError:
                    raise ReferenceFileError(f"{where}, line {line}: column `{name}` is not a printed number: "
                                             f"{value!r}") from None
        if paper is not None and row["paper"] != paper:
            raise ReferenceFileError(f"{where}, line {line}: a row of paper {row['paper']!r} in the files of {paper!r}")
        if key:
            k = tuple(row[c] for c in key)
            if k in seen:
                raise ReferenceFileError(f"{where}, line {line}: the same {', '.join(key)} as line {seen[k]} "
                                         f"(a duplicated row): {lines[line - 1][:120]!r}")
            seen[k] = line
        rows.append(fields)
        numbers.append(line)
    df = pd.DataFrame(rows, columns=list(columns), dtype=str)
    df.attrs["lines"] = numbers
    return df


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
    df = read_table(path, CORRECTION_COLUMNS, key=_CELL)
    ref = load(paper)
    for (_, c), line in zip(df.iterrows(), df.attrs["lines"]):
        hit = ref[(ref["source"] == c["source"]) & (ref["panel"] == c["panel"]) & (ref["row"] == c["row"])
                  & (ref["column"] == c["column"])]
        if len(hit) != 1 or hit["value"].iloc[0] != c["printed"]:
            raise ReferenceFileError(f"{_show(path)}, line {line}: the printed value {c['printed']!r} is not the "
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
        raise ValueError(f"`source`, `row`, `column`: the reference cell of {paper!r} (data/reference/{paper}/): source={source!r} panel={panel!r} "
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
