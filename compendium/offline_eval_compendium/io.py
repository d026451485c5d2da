"""Atomic, deterministic output of tables and figures.

Every file is written to a temporary file in the destination folder and moved
into place with :func:`os.replace`, so a reader (or a crashed run) never sees
a half-written table.  Tables are saved as CSV (for machines) and Markdown
(for write-ups); figures as PNG and PDF without timestamps or software
versions, so the same inputs give the same bytes.

Precision of tables
-------------------
Every float in a CSV is written with :data:`FLOAT_DIGITS` significant digits
(:func:`format_float`), the ledger's values too.  Why six: the papers print at
most four or five significant digits, so six keep a guard digit beyond any
printed value; and the last bits of a floating-point result change between
CPUs (numpy's SIMD dispatch, OpenBLAS kernels, glibc's FMA variants of
``exp``/``log``).  Measured between two dispatch levels, that noise is below
``1e-14`` relative for most values and reaches ``2.5e-11`` where two close
means are subtracted; at six digits a value then changes its last written
digit with probability about ``1e-5``, at full precision (17 digits) it
always does.  A float that is a whole number below ``2**53`` is written as an
integer (``10393400``, not ``1.03934e+07``), ``-0.0`` as ``0``.  Columns whose
true value is zero (identity gaps, errors against a reference) are noise at
any precision: studies report them against a stated tolerance instead.
"""

from __future__ import annotations

import io as _io
import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from .paths import BUILD_DIR, PAPERS

__all__ = [
    "FLOAT_DIGITS",
    "OutputDir",
    "atomic_write_bytes",
    "atomic_write_text",
    "below_tolerance",
    "figure_bytes",
    "format_float",
    "to_csv",
    "to_markdown",
    "write_table",
]


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (temp file in the same folder + rename).

    Parameters
    ----------
    path : str or Path
    data : bytes
    """
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
    """Write ``text`` (UTF-8, ``\\n`` line ends) to ``path`` atomically.

    Parameters
    ----------
    path : str or Path
    text : str
    """
    return atomic_write_bytes(path, text.encode("utf-8"))


#: Significant digits of every float written to a CSV table or the ledger (see the module notes).
FLOAT_DIGITS = 6

_EXACT_INT = float(2**53)


def format_float(value, digits: int = FLOAT_DIGITS) -> str:
    """A float as text at ``digits`` significant digits; whole numbers below 2**53 as integers.

    ``nan`` is the empty string (pandas' missing value), infinities are
    ``inf``/``-inf``.

    Parameters
    ----------
    value : float
    digits : int, default 6

    Examples
    --------
    >>> format_float(0.1 + 0.2), format_float(10393400.0), format_float(-0.0), format_float(2.5e-11)
    ('0.3', '10393400', '0', '2.5e-11')
    >>> format_float(1 / 3, 3), format_float(float("nan")), format_float(float("-inf"))
    ('0.333', '', '-inf')
    """
    v = float(value)
    if np.isnan(v):
        return ""
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v.is_integer() and abs(v) < _EXACT_INT:
        return str(int(v))
    return format(v, f".{int(digits)}g")


def below_tolerance(values, tol: float) -> pd.Series:
    """Values whose true size is zero, as a machine can show them: ``"< tol"`` below ``tol``.

    An identity's gap or an error against a reference is rounding noise when
    it is below ``tol``, and noise differs between CPUs in every digit; such a
    column is written as the text ``"< tol"`` for those rows and as the value
    (at :data:`FLOAT_DIGITS` digits) for the others.

    Parameters
    ----------
    values : array-like of float
    tol : float
        Values whose magnitude is below it are shown as ``"< tol"``.

    Examples
    --------
    >>> below_tolerance([3e-17, 0.0, 0.25], 1e-12).tolist()
    ['< 1e-12', '< 1e-12', 0.25]
    """
    tol = float(tol)
    if not tol > 0:
        raise ValueError(f"`tol` must be positive; got {tol!r}")
    x = np.abs(np.asarray(values, dtype=np.float64))
    return pd.Series([f"< {tol:g}" if v < tol else float(v) for v in x], dtype=object)


def _csv_frame(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every float (in float or object columns) replaced by :func:`format_float` text."""
    out = df.copy()
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_float_dtype(col):
            out[c] = [format_float(v) for v in col.to_numpy()]
        elif col.dtype == object:
            out[c] = [format_float(v) if isinstance(v, (float, np.floating)) else v for v in col]
    return out


def to_csv(df: pd.DataFrame) -> str:
    """``df`` as CSV text (no index, ``\\n`` line ends, floats at :data:`FLOAT_DIGITS` digits).

    Parameters
    ----------
    df : pandas.DataFrame
    """
    return _csv_frame(df).to_csv(index=False, lineterminator="\n")


def _format_cell(value, floatfmt: str) -> str:
    if value is None or value is pd.NA or (isinstance(value, (float, np.floating)) and np.isnan(value)):
        return ""
    if isinstance(value, (float, np.floating)):
        text = format(float(value), floatfmt)
        # "-0.000": a negative value that rounds to zero is written without its sign
        return text[1:] if text.startswith("-") and float(text) == 0 else text
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    return str(value).replace("|", "\\|").replace("\n", " ")


def to_markdown(df: pd.DataFrame, *, floatfmt: str | dict = ".4g") -> str:
    """Render ``df`` as a GitHub-flavoured Markdown table.

    ``floatfmt`` is a format spec for every float column, or a dict mapping
    column names to specs (columns not in the dict use ``".4g"``).

    Parameters
    ----------
    df : pandas.DataFrame
    floatfmt : str or dict, default ".4g"
    """
    cols = [str(c) for c in df.columns]
    fmts = {c: (floatfmt.get(c, ".4g") if isinstance(floatfmt, dict) else floatfmt) for c in df.columns}
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---:" if n else ":---" for n in numeric) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_format_cell(v, fmts[c]) for v, c in zip(row, df.columns)) + " |")
    return "\n".join(lines) + "\n"


def write_table(df: pd.DataFrame, stem: str | Path, *, floatfmt: str | dict = ".4g") -> tuple[Path, Path]:
    """Write ``df`` to ``<stem>.csv`` (:data:`FLOAT_DIGITS` digits) and ``<stem>.md`` (``floatfmt``).

    Parameters
    ----------
    df : pandas.DataFrame
    stem : str or Path
        Path without suffix.
    floatfmt : str or dict, default ".4g"
    """
    stem = Path(stem)
    p_csv = atomic_write_text(stem.with_suffix(".csv"), to_csv(df))
    p_md = atomic_write_text(stem.with_suffix(".md"), to_markdown(df, floatfmt=floatfmt))
    return p_csv, p_md


def figure_bytes(fig, fmt: str) -> bytes:
    """Render a matplotlib figure to bytes with no timestamp or version metadata.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    fmt : str
        ``"png"``, ``"pdf"`` or ``"svg"``.
    """
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
        Root folder.  ``None`` (a notebook's default, i.e. a run by hand in JupyterLab) means
        ``build/lab/``, so that the committed ``figures/`` change only through ``make reproduce``
        (the pipeline always passes its own folder); pass the path of ``figures/`` to write there.

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
        self.path = (BUILD_DIR / "lab" if output_root in (None, "") else Path(output_root)) / paper

    def table(self, df: pd.DataFrame, name: str, *, floatfmt: str | dict = ".4g") -> tuple[Path, Path]:
        """Save ``df`` as ``<name>.csv`` and ``<name>.md``.

        Parameters
        ----------
        df : pandas.DataFrame
        name : str
            File stem under the paper's folder.
        floatfmt : str or dict, default ".4g"
            Float format of the Markdown copy (per column with a dict); the CSV has :data:`FLOAT_DIGITS` digits.
        """
        return write_table(df, self.path / name, floatfmt=floatfmt)

    def figure(self, fig, name: str, *, caption: str | None = None, formats=("png", "pdf")) -> list[Path]:
        """Save ``fig`` as ``<name>.png`` and ``<name>.pdf`` (deterministic bytes), and its caption.

        ``caption`` is one line saying what the figure reproduces (with the
        paper's figure number, e.g. ``"yi Fig. 3: ..."``); it is written to
        ``<name>.caption.txt`` beside the figure, where the report reads it.

        Parameters
        ----------
        fig : matplotlib.figure.Figure
        name : str
        caption : str, optional
            One line naming the paper's figure; written to ``<name>.caption.txt``.
        formats : tuple of str, default ("png", "pdf")
        """
        paths = [atomic_write_bytes(self.path / f"{name}.{fmt}", figure_bytes(fig, fmt)) for fmt in formats]
        if caption is not None:
            text = " ".join(str(caption).split())
            if not text:
                raise ValueError("`caption` must not be empty")
            paths.append(atomic_write_text(self.path / f"{name}.caption.txt", text + "\n"))
        return paths

    def claims(self, ledger) -> tuple[Path, Path]:
        """Save a :class:`offline_eval_compendium.claims.Ledger` as ``claims/<notebook>.csv/.md``.

        Parameters
        ----------
        ledger : offline_eval_compendium.claims.Ledger
        """
        if ledger.paper != self.paper:
            raise ValueError(f"`ledger` is for paper {ledger.paper!r}, not {self.paper!r}")
        frame = ledger.frame()
        root = self.path.parent
        # a swept row cites the confirmation block's copy of each sweep table it cites, where the notebook wrote one
        frame["evidence"] = ["; ".join(e for e in ev.split("; ") if not e.endswith("_confirmation.csv")
                                       or (root / e).is_file()) for ev in frame["evidence"]]
        missing = sorted({e for ev in frame["evidence"] for e in ev.split("; ") if e and not (root / e).is_file()})
        if missing:
            raise ValueError(f"claims name evidence that is not among the outputs under {root}: {missing} "
                             "(save tables and figures before the claims)")
        decl = ledger.declarations()
        if len(decl):
            atomic_write_text(self.path / "declarations" / f"{ledger.notebook}.csv", to_csv(decl))
        return write_table(frame, self.path / "claims" / ledger.notebook)
