"""The ledger's audit: rows that break its rules (:func:`problems`), output files no row cites."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import pandas as pd

from ..paths import PAPERS, figures_root
from .rules import SWEEP_MIN_SHARE

_SEEDS = re.compile(r"^(\d+)/(\d+) seeds")


def problems(df: pd.DataFrame) -> list[str]:
    """Rows whose kind contradicts where their value came from, or whose status is not their kind's rule's.

    The rules (one line each in the result, naming the row):

    - ``printed`` and ``formula`` rows come from the paper's inputs (world ``paper``);
    - a ``prediction`` is a seed sweep's interval on a synthetic or real world, ``within-tolerance``,
      ``differs`` or ``not tested``;
    - a ``claim`` on a synthetic world is its sweep beside its control: ``holds`` only when the sweep
      passes and the control fails, ``not tested`` only when a control passes or none exists;
    - a ``calibration`` belongs to a synthetic or real world;
    - ``not tested`` only for claims and predictions on a synthetic or real world;
    - every row names its evidence; a row that differs or is not tested says why.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    out = []
    for r in df.itertuples(index=False):
        where = f"{r.paper}/{r.claim_id}"
        world = getattr(r, "world", "")
        synthetic = world.startswith(("synthetic:", "real:"))
        if not r.evidence.strip():
            out.append(f"{where}: names no evidence")
        if r.status in ("differs", "not tested") and not r.note.strip():
            out.append(f"{where}: {r.status} without a note saying why")
        if r.kind in ("printed", "formula") and world != "paper":
            out.append(f"{where}: a {r.kind} row must come from the paper's printed inputs (world 'paper'), not {world!r}")
        if r.kind == "printed" and "seeds" in r.reproduced_value:
            out.append(f"{where}: a printed row carries a seed sweep (a prediction, not a printed cell)")
        if r.kind == "prediction" and (not synthetic or " seeds" not in r.reproduced_value
                                       or r.status not in ("within-tolerance", "differs", "not tested")):
            out.append(f"{where}: a prediction is a seed sweep's interval on a synthetic or real world")
        if r.kind == "calibration" and not synthetic:
            out.append(f"{where}: a calibration belongs to a synthetic or real world")
        if r.status == "not tested" and not (r.kind in ("claim", "prediction") and synthetic):
            out.append(f"{where}: `not tested` is for claims and predictions on a synthetic or real world")
        if r.kind == "claim" and world.startswith("synthetic:"):
            m = _SEEDS.match(r.reproduced_value)
            if not m:
                out.append(f"{where}: a claim on a synthetic world gets its status from a seed sweep")
                continue
            control_fails = r.control.endswith("mechanism off: fails")
            control_passes = r.control.endswith("mechanism off: passes")
            if r.status == "holds" and not control_fails:
                out.append(f"{where}: holds without a control that fails")
            if r.status == "not tested" and not (control_passes or not r.control):
                out.append(f"{where}: not tested although its control fails")
            if r.status not in ("holds", "differs", "not tested"):
                out.append(f"{where}: a synthetic claim's status is holds, differs or not tested; got {r.status!r}")
            k, n = int(m.group(1)), int(m.group(2))
            if "paper's own uncertainty" not in r.criterion:
                passes = Fraction(k, n) >= Fraction(str(SWEEP_MIN_SHARE))
                if passes == (r.status == "differs"):
                    out.append(f"{where}: status {r.status!r} contradicts its sweep {k}/{n}")
    return out


#: Files under a paper's folder that are the ledger itself, not evidence.
_LEDGER_FILES = ("claims", "claims.csv", "claims.md")


def _stem(path: str) -> str:
    name = path
    for suffix in (".caption.txt", ".csv", ".md", ".png", ".pdf", ".svg", ".txt"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def uncited_files(df: pd.DataFrame, output_root: str | Path | None = None) -> list[str]:
    """Files under the papers' output folders cited by no ledger row, nor supporting a cited one.

    A file supports a cited one when it is its other form: the ``.md`` of a
    cited ``.csv``, the ``.pdf`` and ``.caption.txt`` of a cited ``.png``.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    output_root : str or Path, optional
        The figures root (default ``figures/``).
    """
    root = figures_root(output_root)
    cited = {e for ev in df["evidence"] for e in ev.split("; ") if e}
    stems = {_stem(e) for e in cited}
    out = []
    for paper in PAPERS:
        folder = root / paper
        if not folder.is_dir():
            continue
        for f in sorted(folder.rglob("*")):
            rel = f.relative_to(root).as_posix()
            if not f.is_file() or f.relative_to(folder).parts[0] in _LEDGER_FILES:
                continue
            if rel not in cited and _stem(rel) not in stems:
                out.append(rel)
    return out
