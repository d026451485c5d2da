"""What a recorded run changed against the committed outputs: ledger rows, table cells, figures.

``make run`` ends with :func:`run_changes`: the run's outputs (``runs/<notebook>/<time>/outputs/``) are
compared with the outputs of the same notebook committed under ``figures/`` (at git ``HEAD``; the
``figures/`` on disk when git has none), through the notebook's manifest
(``manifest/<notebook>.sha256``: a file whose SHA-256 is unchanged is byte-identical and not read).
A changed file is then judged by what it is:

- the notebook's **ledger rows** (``<paper>/claims/<notebook>.csv``): :func:`compare`,
  the rows whose status, kind, value or control moved, added or gone;
- **tables** (``.csv``): cell by cell, a number changed when it differs at the
  :data:`offline_eval_compendium.io.FLOAT_DIGITS` significant digits the tables are written at
  (anything else by its text); the ``.md`` copy of a table is its rendering and is not counted twice;
- **figures** (``.png``, ``.pdf``, ``.svg``) and every other file: by their bytes.

The complete list goes to ``changes.md`` in the run's folder; :meth:`Changes.summary` is the short
form printed at the end of the run (counts and the first few items).
"""

from __future__ import annotations

import csv
import hashlib
import io
import math
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
from offline_eval.display import format_count

from .io import FLOAT_DIGITS, to_markdown
from .paths import FIGURES_DIR, PROJ_ROOT

__all__ = ["COMPARED", "Changes", "compare", "run_changes", "table_changes"]

FIGURE_SUFFIXES = (".png", ".pdf", ".svg")
#: Items of each kind named in the printed summary (the file lists them all).
SHOWN = 3
#: Ledger rows named in the printed summary, each on a line of its own with its values whole.
LEDGER_SHOWN = 8


#: What :func:`compare` reports per row: the columns whose change it shows.
COMPARED = ("kind", "status", "reproduced_value", "control")


def compare(before: pd.DataFrame, after: pd.DataFrame) -> pd.DataFrame:
    """The rows of two ledgers that differ: what a change of code, world or parameter moved.

    Rows are matched on ``(paper, claim_id)``.  A row is reported when it is
    new, gone, or when any of :data:`COMPARED` differs (the ``statement``,
    ``criterion`` and ``note`` texts are not compared; a changed criterion
    shows as a changed value or status).

    Parameters
    ----------
    before, after : pandas.DataFrame
        Two ledgers (columns :data:`COLUMNS`), e.g. ``figures/claims.csv``
        of two commits.

    Returns
    -------
    pandas.DataFrame
        One row per changed claim, in ``after``'s order (gone rows last),
        with columns ``paper``, ``claim_id``, ``change`` (``"added"``,
        ``"removed"``, ``"status"`` when the status or kind moved, else
        ``"value"``) and ``<column>_before`` / ``<column>_after`` for each of
        :data:`COMPARED` (empty where the row does not exist).

    Examples
    --------
    >>> from offline_eval_compendium.claims import Ledger
    >>> a = Ledger("yi", "nb"); _ = a.check("c1", "T1", "s", criterion="x", holds=False)
    >>> b = Ledger("yi", "nb"); _ = b.check("c1", "T1", "s", criterion="x", holds=True)
    >>> compare(a.frame(), b.frame())[["claim_id", "change", "status_before", "status_after"]].to_dict("records")
    [{'claim_id': 'c1', 'change': 'status', 'status_before': 'differs', 'status_after': 'holds'}]
    """
    key = ["paper", "claim_id"]
    for name, df in (("before", before), ("after", after)):
        missing = [c for c in key + list(COMPARED) if c not in df.columns]
        if missing:
            raise ValueError(f"`{name}` is not a ledger: it has no column(s) {missing}")
        if df.duplicated(key).any():
            raise ValueError(f"`{name}` repeats (paper, claim_id) pairs: {df.loc[df.duplicated(key), 'claim_id'].tolist()[:5]}")
    cols = key + list(COMPARED)
    b = before[cols].astype(str).replace({"nan": ""})
    a = after[cols].astype(str).replace({"nan": ""})
    m = a.merge(b, on=key, how="outer", suffixes=("_after", "_before"), indicator=True, sort=False)
    order = {k: i for i, k in enumerate(zip(a["paper"], a["claim_id"]))}
    m["_order"] = [order.get(k, len(order)) for k in zip(m["paper"], m["claim_id"])]
    m = m.sort_values("_order", kind="stable")
    change = np.where(m["_merge"] == "left_only", "added", np.where(m["_merge"] == "right_only", "removed", ""))
    moved = (m["status_before"] != m["status_after"]) | (m["kind_before"] != m["kind_after"])
    valued = np.zeros(len(m), dtype=bool)
    for c in COMPARED:
        valued |= (m[f"{c}_before"] != m[f"{c}_after"]).to_numpy()
    change = np.where(change != "", change, np.where(moved, "status", np.where(valued, "value", "")))
    m["change"] = change
    out = m[m["change"] != ""]
    columns = key + ["change"] + [f"{c}_{w}" for c in COMPARED for w in ("before", "after")]
    return out[columns].fillna("").reset_index(drop=True)


@dataclass
class Changes:
    """What one run changed against a baseline; see the module notes.

    Attributes
    ----------
    notebook, baseline : str
        The notebook, and what it was compared with (e.g. ``figures/ at commit 1a2b3c4``).
    ledger : pandas.DataFrame
        :func:`compare` of the notebook's ledger rows (empty: none moved).
    cells : dict
        ``{table path: DataFrame of changed cells (row, column, committed, this run)}``.
    shapes : dict
        ``{table path: "<rows> x <columns> -> <rows> x <columns>"}`` for tables whose shape or header changed.
    figures, other : list of str
        Changed figure files and other changed files (their paths under ``figures/``).
    added, removed : list of str
        Files this run wrote that the baseline has not, and the reverse.
    unchanged : int
        Files byte-identical to the baseline.
    """

    notebook: str
    baseline: str
    ledger: pd.DataFrame = field(default_factory=pd.DataFrame)
    cells: dict = field(default_factory=dict)
    shapes: dict = field(default_factory=dict)
    figures: list = field(default_factory=list)
    other: list = field(default_factory=list)
    added: list = field(default_factory=list)
    removed: list = field(default_factory=list)
    unchanged: int = 0
    missing_baseline: bool = False

    @property
    def n_cells(self) -> int:
        return sum(len(t) for t in self.cells.values())

    @property
    def tables(self) -> list:
        return sorted(set(self.cells) | set(self.shapes))

    def empty(self) -> bool:
        return not (len(self.ledger) or self.tables or self.figures or self.other or self.added or self.removed)

    def counts(self) -> str:
        """One line of counts: ``3 ledger rows (1 status, 2 value), 40 table cells in 2 tables, 1 figure, ...``."""
        if self.missing_baseline:
            return f"nothing to compare with: {self.baseline} has no outputs of {self.notebook}"
        if self.empty():
            return f"nothing changed ({self.unchanged} files byte-identical)"
        parts = []
        if len(self.ledger):
            by = self.ledger["change"].value_counts()
            kinds = ", ".join(f"{int(by[c])} {c}" for c in ("status", "value", "added", "removed") if c in by)
            parts.append(f"{_n(len(self.ledger), 'ledger row')} ({kinds})")
        if self.tables:
            parts.append(f"{_n(self.n_cells, 'table cell')} in {_n(len(self.tables), 'table')}")
        if self.figures:
            parts.append(_n(len(_figure_groups(self.figures)), "figure"))
        if self.other:
            parts.append(_n(len(self.other), "other file"))
        if self.added or self.removed:
            parts.append(f"{len(self.added)} files added, {len(self.removed)} removed")
        return ", ".join(parts) + f"; {self.unchanged} files unchanged"

    def n_status(self) -> int:
        """Ledger rows whose status (or kind) moved."""
        return int((self.ledger["change"] == "status").sum()) if len(self.ledger) else 0

    def headline(self) -> str:
        """``3 statuses changed`` or ``no status changed``: what a reader of a run asks first."""
        if self.missing_baseline:
            return "no comparison: " + self.counts()
        k = self.n_status()
        return f"{k} status{'es' if k != 1 else ''} changed" if k else "no status changed"

    def summary(self, where: str | None = None) -> str:
        """The short form printed by ``make run``: the headline (:meth:`headline`), the counts, the ledger rows
        that moved with their values whole (the status changes first; up to :data:`LEDGER_SHOWN`), then the
        first :data:`SHOWN` items of each other kind.

        Parameters
        ----------
        where : str, optional
            The path of the complete list (``changes.md``), named on the last line.
        """
        lines = [self.headline(), f"changes against {self.baseline}: {self.counts()}"]
        if len(self.ledger):
            # the rows whose status moved first; every moved value whole, one row a line
            rows = sorted(self.ledger.iterrows(), key=lambda ir: ir[1]["change"] != "status")
            items = [_ledger_item(r) for _, r in rows]
            shown = items[:LEDGER_SHOWN] + ([f"... (+{len(items) - LEDGER_SHOWN} more)"] if len(items) > LEDGER_SHOWN else [])
            lines += [("  ledger  " if i == 0 else "          ") + item for i, item in enumerate(shown)]
        if self.tables:
            lines.append("  tables  " + _first([f"{t} ({self._table_item(t)})" for t in self.tables]))
        if self.figures:
            lines.append("  figures " + _first(_figure_groups(self.figures)))
        if self.other:
            lines.append("  other   " + _first(self.other))
        if self.added or self.removed:
            lines.append("  files   " + _first([f"+{p}" for p in self.added] + [f"-{p}" for p in self.removed]))
        if where and not self.empty():
            lines.append(f"  every change: {where}")
        return "\n".join(lines)

    def _table_item(self, table: str) -> str:
        bits = []
        if table in self.shapes:
            bits.append(self.shapes[table])
        if table in self.cells:
            bits.append(_n(len(self.cells[table]), "cell"))
        return "; ".join(bits)

    def markdown(self, parameters: dict | None = None) -> str:
        """The complete list, as the ``changes.md`` of the run's folder.

        Parameters
        ----------
        parameters : dict, optional
            The parameters the run overrode, named in the heading.
        """
        given = ", ".join(f"{k}={v!r}" for k, v in (parameters or {}).items()) or "the defaults"
        out = [f"# What changed: {self.notebook} ({given})", "",
               f"Compared with {self.baseline}. Table cells are compared at the {FLOAT_DIGITS} significant digits "
               "the tables are written at; figures and other files by their bytes.", "",
               f"**{self.headline()}**; {self.counts()}.", ""]
        if self.missing_baseline:
            return "\n".join(out)
        out += [f"## Ledger rows ({len(self.ledger)})", ""]
        out += [to_markdown(self.ledger) if len(self.ledger) else "None moved.\n"]
        out += [f"## Table cells ({self.n_cells:,} in {len(self.tables)} tables)", ""]
        if not self.tables:
            out += ["None changed.", ""]
        else:
            out += [f"- {t}: {self._table_item(t)}" for t in self.tables] + [""]
        for t in self.tables:
            out += [f"### {t}", ""]
            if t in self.shapes:
                out += [f"Shape or header: {self.shapes[t]}.", ""]
            if t in self.cells:
                out += [to_markdown(self.cells[t])]
        out += [f"## Figures ({len(self.figures)} files)", ""]
        out += [f"- {p}" for p in self.figures] or ["None changed."]
        out += ["", f"## Other files ({len(self.other)})", ""]
        out += [f"- {p}" for p in self.other] or ["None changed."]
        if self.added or self.removed:
            out += ["", "## Files added or removed", ""]
            out += [f"- added: {p}" for p in self.added] + [f"- removed: {p}" for p in self.removed]
        out += ["", f"{self.unchanged} files byte-identical.", ""]
        return "\n".join(out)


def _n(k: int, what: str) -> str:
    return f"{format_count(k)} {what}{'' if k == 1 else 's'}"


def _first(items: list, shown: int = SHOWN) -> str:
    more = len(items) - shown
    return "; ".join(items[:shown]) + (f"; ... (+{more} more)" if more > 0 else "")


def _short(text: str, width: int = 28) -> str:
    text = str(text)
    return text if len(text) <= width else text[: width - 3] + "..."


def _ledger_item(row) -> str:
    if row["change"] in ("added", "removed"):
        return f"{row['claim_id']} {row['change']}"
    moved = [c[: -len("_before")] for c in row.index if c.endswith("_before")
             and row[c] != row.get(c[: -len("_before")] + "_after")]
    return f"{row['claim_id']} " + "; ".join(
        f"{c} {row[c + '_before'] or '-'} -> {row[c + '_after'] or '-'}" for c in moved)


def _figure_groups(paths: list) -> list:
    """``a/fig1.png``, ``a/fig1.pdf`` -> ``a/fig1.{pdf,png}``: one figure saved in several formats."""
    groups: dict = {}
    for p in paths:
        stem, dot, ext = p.rpartition(".")
        groups.setdefault(stem, []).append(ext)
    return [f"{s}.{e[0]}" if len(e) == 1 else f"{s}.{{{','.join(sorted(e))}}}" for s, e in groups.items()]


def _number(text: str):
    try:
        x = float(text)
    except ValueError:
        return None
    return x


def _same_cell(a: str, b: str) -> bool:
    if a == b:
        return True
    x, y = _number(a), _number(b)
    if x is None or y is None:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    # The tables are written at FLOAT_DIGITS significant digits: a difference below them is not a change.
    return f"{x:.{FLOAT_DIGITS - 1}e}" == f"{y:.{FLOAT_DIGITS - 1}e}"


def _rows(data: bytes) -> list:
    return list(csv.reader(io.StringIO(data.decode("utf-8", errors="replace"))))


def table_changes(before: bytes, after: bytes) -> tuple[pd.DataFrame, str | None]:
    """The cells of a CSV table that changed beyond the precision it is written at.

    Columns are matched by name and rows by position (a run with other parameters keeps a table's
    layout); a cell is named by its row number (from 1, after the header), the row's first cell,
    and its column.

    Parameters
    ----------
    before, after : bytes
        The committed table and this run's, as CSV bytes.

    Returns
    -------
    (pandas.DataFrame, str or None)
        The changed cells (``row``, ``column``, ``committed``, ``this run``), and a note
        ``"<rows> x <cols> -> <rows> x <cols>"`` when the shape or header changed (else None).
    """
    b, a = _rows(before), _rows(after)
    hb, ha = (b[0] if b else []), (a[0] if a else [])
    shape = None
    if hb != ha or len(b) != len(a):
        shape = f"{max(len(b) - 1, 0)} x {len(hb)} -> {max(len(a) - 1, 0)} x {len(ha)}"
        if hb != ha:
            gone, new = [c for c in hb if c not in ha], [c for c in ha if c not in hb]
            shape += "".join([f", columns gone: {gone}" if gone else "", f", new columns: {new}" if new else ""])
    common = [c for c in ha if c in hb]
    ib, ia = {c: hb.index(c) for c in common}, {c: ha.index(c) for c in common}
    out = []
    for k in range(1, min(len(a), len(b))):
        rb, ra = b[k], a[k]
        label = ra[0] if ra else ""
        for c in common:
            x = rb[ib[c]] if ib[c] < len(rb) else ""
            y = ra[ia[c]] if ia[c] < len(ra) else ""
            if not _same_cell(x, y):
                out.append({"row": f"{k} ({_short(label, 40)})" if ia[c] else str(k), "column": c,
                            "committed": x, "this run": y})
    return pd.DataFrame(out, columns=["row", "column", "committed", "this run"], dtype=str), shape


class _Baseline:
    """The committed outputs: ``figures/`` at a git revision, or a folder laid out like ``figures/``."""

    def __init__(self, folder: Path | None, revision: str | None):
        self.folder, self.revision = folder, revision
        if revision is not None:
            short = _git("rev-parse", "--short", revision)
            self.label = f"figures/ at commit {short or revision}"
        else:
            self.label = _rel(folder) if folder == FIGURES_DIR else str(folder)
            self.label = f"{self.label}/ (on disk)" if folder == FIGURES_DIR else self.label

    def read(self, rel: str) -> bytes | None:
        if self.revision is None:
            p = self.folder / rel
            return p.read_bytes() if p.is_file() else None
        figures = FIGURES_DIR.relative_to(PROJ_ROOT).as_posix()
        proc = subprocess.run(["git", "show", f"{self.revision}:{figures}/{rel}"], cwd=PROJ_ROOT,
                              capture_output=True)
        return proc.stdout if proc.returncode == 0 else None


def _git(*args) -> str:
    try:
        return subprocess.run(["git", *args], cwd=PROJ_ROOT, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _rel(p: Path) -> str:
    try:
        return Path(p).resolve().relative_to(PROJ_ROOT).as_posix()
    except ValueError:
        return str(p)


def _manifest(data: bytes | None) -> dict | None:
    if data is None:
        return None
    out = {}
    for line in data.decode().splitlines():
        if line.strip():
            digest, rel = line.split("  ", 1)
            out[rel] = digest
    return out


def _ledger(data: bytes) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)


def run_changes(outputs: str | Path, notebook: str, *, baseline: str | Path | None = None) -> Changes:
    """Compare one run's outputs with the committed outputs of the same notebook.

    Parameters
    ----------
    outputs : str or Path
        The run's output folder, laid out like ``figures/`` (with ``manifest/<notebook>.sha256``).
    notebook : str
        The notebook's name (``rosset_wallet``).
    baseline : str or Path, optional
        What to compare with: a folder laid out like ``figures/``, or a git revision whose
        ``figures/`` is read (``"HEAD"``).  Default: ``HEAD``, or ``figures/`` on disk when git has no
        manifest of the notebook there (no git, or outputs not committed yet).

    Returns
    -------
    Changes
    """
    outputs = Path(outputs)
    mine = _manifest((outputs / "manifest" / f"{notebook}.sha256").read_bytes()
                     if (outputs / "manifest" / f"{notebook}.sha256").is_file() else None)
    if mine is None:
        raise ValueError(f"`outputs` {outputs} has no manifest/{notebook}.sha256: not the outputs of a run of {notebook}")
    if baseline is None:
        base = _Baseline(None, "HEAD")
        if _manifest(base.read(f"manifest/{notebook}.sha256")) is None:
            base = _Baseline(FIGURES_DIR, None)
    elif Path(baseline).is_dir():
        base = _Baseline(Path(baseline), None)
    else:
        base = _Baseline(None, str(baseline))
    theirs = _manifest(base.read(f"manifest/{notebook}.sha256"))
    ch = Changes(notebook, base.label)
    if theirs is None:
        ch.missing_baseline = True
        return ch
    ch.added = sorted(set(mine) - set(theirs))
    ch.removed = sorted(set(theirs) - set(mine))
    changed = sorted(rel for rel in set(mine) & set(theirs) if mine[rel] != theirs[rel])
    ch.unchanged = len(set(mine) & set(theirs)) - len(changed)
    tables = {rel for rel in mine if rel.endswith(".csv")}
    for rel in changed:
        if rel.endswith(".md") and rel[:-3] + ".csv" in tables:
            continue  # the Markdown rendering of a table: its cells are counted once, from the CSV
        new = (outputs / rel).read_bytes()
        old = base.read(rel)
        if old is None or hashlib.sha256(new).hexdigest() != mine[rel]:
            ch.other.append(rel)  # cannot happen with a consistent manifest; reported, not hidden
            continue
        if rel == _ledger_path(rel, notebook):
            ch.ledger = compare(_ledger(old), _ledger(new))
        elif rel.endswith(".csv"):
            cells, shape = table_changes(old, new)
            if len(cells):
                ch.cells[rel] = cells
            if shape:
                ch.shapes[rel] = shape
            if not len(cells) and not shape:
                ch.unchanged += 1  # differs only below the written precision (cannot happen at fixed digits)
        elif rel.endswith(FIGURE_SUFFIXES):
            ch.figures.append(rel)
        else:
            ch.other.append(rel)
    if ch.ledger.empty:
        ch.ledger = pd.DataFrame(columns=["paper", "claim_id", "change"])
    return ch


def _ledger_path(rel: str, notebook: str) -> str | None:
    parts = rel.split("/")
    return rel if len(parts) == 3 and parts[1] == "claims" and parts[2] == f"{notebook}.csv" else None
