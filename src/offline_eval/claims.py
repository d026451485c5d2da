"""The claims ledger: each published number or claim beside ours, with a status.

A notebook builds one :class:`Ledger`, adds a row per claim with one of the
helpers below (each states its criterion *before* looking at the result), and
saves it with :meth:`offline_eval.io.OutputDir.claims`.  ``make reproduce``
then gathers every notebook's claims into ``figures/<paper>/claims.csv`` and
``figures/claims.csv`` / ``figures/claims.md`` (:func:`gather`).

Statuses
--------
exact
    equal to the paper's value at its printed precision;
within-tolerance
    within a tolerance stated in the ``criterion`` column;
holds
    a qualitative claim that passes its stated criterion (for seed sweeps: in
    at least the stated share of seeds);
differs
    does not meet its criterion -- reported, never hidden;
erratum
    the paper's printed value is inconsistent with its own inputs; the
    ``note`` gives the evidence.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .io import atomic_write_text, format_float, to_csv, to_markdown, write_table
from .paths import PAPERS, figures_root
from .reference import parse_printed, printed_decimals

__all__ = ["COLUMNS", "STATUSES", "Ledger", "gather", "matches_printed", "seed_sweep"]

COLUMNS = [
    "paper",
    "claim_id",
    "source",
    "statement",
    "paper_value",
    "reproduced_value",
    "criterion",
    "status",
    "note",
]
STATUSES = ("exact", "within-tolerance", "holds", "differs", "erratum")


def matches_printed(value: float, printed: str) -> bool:
    """True when ``value`` rounds to ``printed`` at the printed number of decimals.

    The test is ``|value - printed| <= 0.5 * 10**-d`` (``d`` decimals shown),
    with a 1e-12 slack for binary floating point.

    >>> matches_printed(0.91934, "0.9193"), matches_printed(0.91936, "0.9193")
    (True, False)
    """
    d = printed_decimals(printed)
    return bool(abs(float(value) - parse_printed(printed)) <= 0.5 * 10.0**-d + 1e-12)


def _fmt(value) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    v = float(value)
    return "nan" if np.isnan(v) else format_float(v)


class Ledger:
    """Claims of one notebook about one paper.

    Parameters
    ----------
    paper : str
        Short id of the paper (``"yi"``, ``"rosset"``, ``"piovano"``, ``"chapelle"``).
    notebook : str
        Name of the notebook writing the claims (its file stem); the claims
        are saved as ``figures/<paper>/claims/<notebook>.csv``.
    """

    def __init__(self, paper: str, notebook: str):
        if paper not in PAPERS:
            raise ValueError(f"`paper` must be one of {PAPERS}; got {paper!r}")
        if not notebook or "/" in notebook:
            raise ValueError(f"`notebook` must be a file stem; got {notebook!r}")
        self.paper = paper
        self.notebook = notebook
        self._rows: list[dict] = []

    # -- generic ------------------------------------------------------------------
    def add(self, claim_id, source, statement, *, paper_value, reproduced_value, criterion, status, note=""):
        """Add one claim row; ``status`` must be one of :data:`STATUSES`."""
        if status not in STATUSES:
            raise ValueError(f"`status` must be one of {STATUSES}; got {status!r}")
        if any(r["claim_id"] == claim_id for r in self._rows):
            raise ValueError(f"`claim_id` {claim_id!r} is already in the ledger")
        if not criterion:
            raise ValueError("`criterion` must state how the claim is checked")
        self._rows.append(
            dict(
                paper=self.paper,
                claim_id=str(claim_id),
                source=str(source),
                statement=str(statement),
                paper_value=_fmt(paper_value),
                reproduced_value=_fmt(reproduced_value),
                criterion=str(criterion),
                status=status,
                note=str(note),
            )
        )
        return status

    # -- numbers -------------------------------------------------------------------
    def printed(self, claim_id, source, statement, *, printed: str, value: float, erratum_note: str | None = None, note=""):
        """Compare ``value`` with a printed number at its printed precision.

        Status ``exact`` when they agree.  When they do not, the status is
        ``erratum`` if ``erratum_note`` gives evidence that the printed value
        contradicts the paper's own inputs, else ``differs``.
        """
        d = printed_decimals(printed)
        ok = matches_printed(value, printed)
        status = "exact" if ok else ("erratum" if erratum_note else "differs")
        full_note = note if ok else "; ".join(x for x in (erratum_note, note) if x)
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=f"{float(value):.{d + 2}f}",
            criterion=f"equal when rounded to the printed {d} decimal{'s' if d != 1 else ''}",
            status=status, note=full_note,
        )

    def tolerance(self, claim_id, source, statement, *, printed: str, value: float, rtol=None, atol=None, note=""):
        """``within-tolerance`` if ``|value - printed| <= atol + rtol * |printed|``, else ``differs``."""
        if rtol is None and atol is None:
            raise ValueError("give `rtol` or `atol`")
        target = parse_printed(printed)
        bound = (atol or 0.0) + (rtol or 0.0) * abs(target)
        ok = abs(float(value) - target) <= bound
        parts = ([f"rtol {rtol:g}"] if rtol else []) + ([f"atol {atol:g}"] if atol else [])
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=value,
            criterion=f"|ours - paper| <= {' + '.join(parts)}",
            status="within-tolerance" if ok else "differs", note=note,
        )

    def erratum(self, claim_id, source, statement, *, printed: str, value, evidence: str):
        """Record a printed value that contradicts the paper's own inputs."""
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=value,
            criterion="recomputed from the paper's own printed inputs", status="erratum", note=evidence,
        )

    # -- qualitative ---------------------------------------------------------------
    def check(self, claim_id, source, statement, *, criterion: str, holds: bool, paper_value="", reproduced_value="", note=""):
        """A qualitative claim: ``holds`` or ``differs`` by its stated ``criterion``."""
        return self.add(
            claim_id, source, statement, paper_value=paper_value, reproduced_value=reproduced_value,
            criterion=criterion, status="holds" if bool(holds) else "differs", note=note,
        )

    def sweep(self, claim_id, source, statement, *, outcomes, criterion: str, min_share: float = 0.9, paper_value="", note=""):
        """A claim checked on every seed of a sweep.

        ``outcomes`` holds one boolean per seed (does the criterion hold for
        that seed?).  The claim ``holds`` when the share of seeds where it
        holds is at least ``min_share`` (stated in the ledger's criterion).
        """
        outcomes = np.asarray(outcomes, dtype=bool)
        if outcomes.ndim != 1 or outcomes.size == 0:
            raise ValueError(f"`outcomes` must be a non-empty 1-D array of booleans; got shape {outcomes.shape}")
        if not 0 < min_share <= 1:
            raise ValueError(f"`min_share` must be in (0, 1]; got {min_share}")
        k, n = int(outcomes.sum()), outcomes.size
        return self.add(
            claim_id, source, statement, paper_value=paper_value, reproduced_value=f"{k}/{n} seeds",
            criterion=f"{criterion}; holds in >= {min_share:.0%} of {n} seeds",
            status="holds" if k >= min_share * n - 1e-9 else "differs", note=note,
        )

    # -- output --------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The claims as a DataFrame with the ledger's :data:`COLUMNS`."""
        return pd.DataFrame(self._rows, columns=COLUMNS)

    def counts(self) -> dict:
        """Number of claims per status."""
        df = self.frame()
        return {s: int((df["status"] == s).sum()) for s in STATUSES}


def seed_sweep(func, seeds, **kwargs) -> pd.DataFrame:
    """Run ``func(seed=s, **kwargs)`` for every seed; one row per seed.

    ``func`` returns a flat dict (numbers and booleans); the result has a
    ``seed`` column followed by the dict's keys.
    """
    rows = []
    for s in seeds:
        out = dict(func(seed=int(s), **kwargs))
        rows.append({"seed": int(s), **out})
    if not rows:
        raise ValueError("`seeds` must not be empty")
    return pd.DataFrame(rows)


def gather(output_root: str | Path | None = None) -> pd.DataFrame:
    """Collect every notebook's claims into the ledger files.

    Writes ``<root>/<paper>/claims.csv`` (all claims of that paper),
    ``<root>/claims.csv`` and ``<root>/claims.md`` (every paper, with a count
    per status).  Returns the combined frame.
    """
    root = figures_root(output_root)
    frames = []
    for paper in PAPERS:
        files = sorted((root / paper / "claims").glob("*.csv"))
        if not files:
            continue
        df = pd.concat([pd.read_csv(f, dtype=str, keep_default_na=False) for f in files], ignore_index=True)
        if list(df.columns) != COLUMNS:
            raise ValueError(f"claims files of {paper!r} must have columns {COLUMNS}")
        bad = ~df["status"].isin(STATUSES)
        if bad.any():
            raise ValueError(f"claims of {paper!r} have unknown statuses: {sorted(set(df['status'][bad]))}")
        dup = df["claim_id"][df["claim_id"].duplicated()]
        if len(dup):
            raise ValueError(f"claims of {paper!r} repeat claim ids: {sorted(set(dup))}")
        write_table(df, root / paper / "claims")
        frames.append(df)
    all_claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    atomic_write_text(root / "claims.csv", to_csv(all_claims))
    counts = pd.crosstab(all_claims["paper"], all_claims["status"]).reindex(
        index=[p for p in PAPERS if p in set(all_claims["paper"])], columns=list(STATUSES), fill_value=0
    )
    counts["total"] = counts.sum(axis=1)
    counts.loc["all"] = counts.sum(axis=0)
    md = ["# Claims ledger", "", "Each published number or claim beside the compendium's, with its status.", "",
          "## Count per status", "", to_markdown(counts.reset_index().rename(columns={"index": "paper"})), ""]
    flagged = all_claims[all_claims["status"].isin(["differs", "erratum"])]
    if len(flagged):
        md += ["## Claims that differ, and errata in the papers", "",
               to_markdown(flagged[["claim_id", "statement", "paper_value", "reproduced_value", "status", "note"]]), ""]
    for paper, df in all_claims.groupby("paper", sort=False):
        md += [f"## {paper}", "", to_markdown(df.drop(columns="paper")), ""]
    atomic_write_text(root / "claims.md", "\n".join(md))
    return all_claims
