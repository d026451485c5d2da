"""The claims ledger: each published number or claim beside ours, with a status.

A notebook builds one :class:`Ledger`, adds a row per claim with one of the
helpers below (each states its criterion *before* looking at the result), and
saves it with :meth:`offline_eval.compendium.io.OutputDir.claims`.  ``make reproduce``
then gathers every notebook's claims into ``figures/<paper>/claims.csv`` and
``figures/claims.csv`` / ``figures/claims.md`` (:func:`gather`).

Kinds of row
------------
Every row says what it is (column ``kind``, :data:`KINDS`):

printed
    a printed cell recomputed from the paper's own printed inputs;
formula
    a formula, identity or derivation the paper states, checked numerically;
claim
    a qualitative or magnitude claim of the paper, reproduced on a synthetic
    (or public) world;
calibration
    a value the synthetic world was set to match: shown beside the paper,
    never counted as a reproduction;
check
    a check of ours (an identity of our code, a construction), not a claim
    of the paper.

The count tables put the paper's numbers and claims (``printed``,
``formula``, ``claim``) apart from calibrations and our checks.

Seed sweeps
-----------
One rule for every sweep (:func:`sweep_verdict`): a claim checked on
:data:`SWEEP_SEEDS` seeds holds when it holds in at least
:data:`SWEEP_MIN_SHARE` of them; the share is reported with its Wilson 95%
interval.  Where the paper's own uncertainty predicts how often a faithful
world passes (``expected_share``), the claim holds when the interval reaches
that share.  A claim on a synthetic world is also run on a *control* world
with the paper's mechanism switched off; when the control passes the same
criterion, the criterion does not discriminate and the claim is not
``holds`` (column ``control``).

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

import math
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from .io import atomic_write_text, format_float, to_csv, to_markdown, write_table
from .paths import PAPERS, figures_root
from .reference import parse_printed, printed_decimals

__all__ = [
    "COLUMNS",
    "KINDS",
    "REPRODUCTION_KINDS",
    "STATUSES",
    "SWEEP_MIN_SHARE",
    "SWEEP_SEEDS",
    "Ledger",
    "SweepVerdict",
    "compare",
    "count_table",
    "gather",
    "matches_printed",
    "seed_sweep",
    "sweep_verdict",
    "verdict",
    "wilson_interval",
]

COLUMNS = [
    "paper",
    "claim_id",
    "kind",
    "source",
    "statement",
    "paper_value",
    "reproduced_value",
    "criterion",
    "status",
    "control",
    "evidence",
    "note",
]
STATUSES = ("exact", "within-tolerance", "holds", "differs", "erratum")
KINDS = ("printed", "formula", "claim", "calibration", "check")
#: The kinds that are the paper's own numbers and claims (the rest are calibrations and our checks).
REPRODUCTION_KINDS = ("printed", "formula", "claim")

#: Default number of seeds of every seed sweep.
SWEEP_SEEDS = 20
#: A swept claim holds when it holds in at least this share of the seeds (the one sweep rule).
SWEEP_MIN_SHARE = 0.8
#: A magnitude reproduced on a synthetic world is within tolerance when within this fraction of the
#: printed value (a proportionate band: +-50% of +8.6% is 4.3-12.9%, of +0.2% is 0.1-0.3%).
SIZE_RTOL = 0.5
_Z95 = 1.959963984540054  # the 97.5% standard normal quantile


def wilson_interval(k: int, n: int, z: float = _Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion ``k / n`` (95% by default).

    Parameters
    ----------
    k : int
        Successes.
    n : int
        Trials.
    z : float, default 1.96
        Normal quantile of the interval's level.

    Examples
    --------
    >>> [round(x, 4) for x in wilson_interval(17, 20)]
    [0.6396, 0.9476]
    >>> wilson_interval(20, 20)[1]
    1.0
    """
    if not (isinstance(n, (int, np.integer)) and n > 0 and isinstance(k, (int, np.integer)) and 0 <= k <= n):
        raise ValueError(f"`k` and `n` must be integers with 0 <= k <= n and n > 0; got k={k!r}, n={n!r}")
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return (0.0 if k == 0 else max(0.0, mid - half), 1.0 if k == n else min(1.0, mid + half))


@dataclass(frozen=True)
class SweepVerdict:
    """The sweep rule applied to one claim (:func:`sweep_verdict`)."""

    k: int
    n: int
    low: float
    high: float
    passes: bool
    rule: str

    @property
    def share(self) -> float:
        return self.k / self.n

    def text(self) -> str:
        """``"17/20 seeds (85%, 95% CI 64-95%)"``."""
        return f"{self.k}/{self.n} seeds ({self.share:.0%}, 95% CI {100 * self.low:.0f}-{100 * self.high:.0f}%)"


def sweep_verdict(outcomes, *, expected_share: float | None = None) -> SweepVerdict:
    """The one sweep rule: does a claim hold on a seed sweep?

    Parameters
    ----------
    outcomes : array-like of bool
        One boolean per seed: does the criterion hold for that seed?
    expected_share : float, optional
        How often a world faithful to the paper passes, as the paper's own
        uncertainty predicts (e.g. a printed z-score).  Without it the claim
        passes when its share is at least :data:`SWEEP_MIN_SHARE` (compared
        exactly, in rational arithmetic); with it, when the Wilson 95%
        interval of the share reaches ``expected_share``.

    >>> sweep_verdict([True] * 16 + [False] * 4).passes
    True
    >>> sweep_verdict([True] * 15 + [False] * 5).passes
    False
    >>> sweep_verdict([True] * 10 + [False] * 10, expected_share=0.65).passes
    True
    """
    out = np.asarray(outcomes)
    if out.ndim != 1 or out.size == 0:
        raise ValueError(f"`outcomes` must be a non-empty 1-D array of booleans; got shape {out.shape}")
    if out.dtype != bool:
        raise ValueError(f"`outcomes` must be booleans; got dtype {out.dtype}")
    k, n = int(out.sum()), int(out.size)
    low, high = wilson_interval(k, n)
    if expected_share is None:
        passes = Fraction(k, n) >= Fraction(str(SWEEP_MIN_SHARE))
        rule = f"holds in >= {SWEEP_MIN_SHARE:.0%} of {n} seeds"
    else:
        if not 0 < expected_share < 1:
            raise ValueError(f"`expected_share` must be in (0, 1); got {expected_share!r}")
        passes = high >= expected_share
        rule = (f"the paper's own uncertainty predicts a faithful world passes in {expected_share:.0%} of seeds; "
                f"holds when the 95% interval of the share over {n} seeds reaches it")
    return SweepVerdict(k, n, low, high, bool(passes), rule)


def matches_printed(value: float, printed: str) -> bool:
    """True when ``value`` rounds to ``printed`` at the printed number of decimals.

    The test is ``|value - printed| <= 0.5 * 10**-d`` (``d`` decimals shown),
    with a 1e-12 slack for binary floating point.

    Parameters
    ----------
    value : float
    printed : str

    Examples
    --------
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
    def add(self, claim_id, source, statement, *, paper_value, reproduced_value, criterion, status, note="",
            kind="claim", control="", evidence=()):
        """Add one claim row.

        ``status`` is one of :data:`STATUSES`, ``kind`` one of :data:`KINDS`;
        ``control`` is what the control world (the paper's mechanism switched
        off) gave; ``evidence`` names the output files that back the row
        (paths relative to the figures root, e.g. ``"yi/table5.csv"``; a
        string or a sequence of strings).

        Parameters
        ----------
        claim_id : str
            Unique id of the row (``<paper>-...``).
        source : str
            Where the paper states it (table, figure, section).
        statement : str
            The claim, in the paper's words where possible.
        paper_value, reproduced_value : str
            The paper's number or statement, and ours.
        criterion : str
            How the status was decided.
        status : str
            One of :data:`STATUSES`.
        note : str, default ""
        kind : {"printed", "formula", "claim", "calibration", "check"}
            What kind of row it is (see :data:`KINDS`).
        control : str, default ""
            The control world's outcome, where there is one.
        evidence : sequence of str, default ()
            Output files (under ``figures/``) that back the row; they must exist when the ledger is written.
        """
        if status not in STATUSES:
            raise ValueError(f"`status` must be one of {STATUSES}; got {status!r}")
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}; got {kind!r}")
        evidence = [evidence] if isinstance(evidence, str) else [str(e) for e in evidence]
        bad = [e for e in evidence if not e or e.startswith("/") or ".." in Path(e).parts or ";" in e]
        if bad:
            raise ValueError(f"`evidence` must be relative paths under the figures root; got {bad}")
        if any(r["claim_id"] == claim_id for r in self._rows):
            raise ValueError(f"`claim_id` {claim_id!r} is already in the ledger")
        if not criterion:
            raise ValueError("`criterion` must state how the claim is checked")
        self._rows.append(
            dict(
                paper=self.paper,
                claim_id=str(claim_id),
                kind=kind,
                source=str(source),
                statement=str(statement),
                paper_value=_fmt(paper_value),
                reproduced_value=_fmt(reproduced_value),
                criterion=str(criterion),
                status=status,
                control=_fmt(control),
                evidence="; ".join(evidence),
                note=str(note),
            )
        )
        return status

    # -- numbers -------------------------------------------------------------------
    def printed(self, claim_id, source, statement, *, printed: str, value: float, erratum_note: str | None = None, note="",
                kind="printed", evidence=()):
        """Compare ``value`` with a printed number at its printed precision.

        Status ``exact`` when they agree.  When they do not, the status is
        ``erratum`` if ``erratum_note`` gives evidence that the printed value
        contradicts the paper's own inputs, else ``differs``.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add`.
        printed : str
            The printed cell.
        value : float
            Our value, compared at the printed number of decimals.
        erratum_note : str, optional
            Why a mismatch is the paper's typo (the row is then an erratum).
        note : str, default ""
        kind
            As in :meth:`add`.
        evidence
            As in :meth:`add`.
        """
        d = printed_decimals(printed)
        ok = matches_printed(value, printed)
        status = "exact" if ok else ("erratum" if erratum_note else "differs")
        full_note = note if ok else "; ".join(x for x in (erratum_note, note) if x)
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=f"{float(value):.{d + 2}f}",
            criterion=f"equal when rounded to the printed {d} decimal{'s' if d != 1 else ''}",
            status=status, note=full_note, kind=kind, evidence=evidence,
        )

    def tolerance(self, claim_id, source, statement, *, printed: str, value: float, rtol=None, atol=None, note="",
                  kind="claim", evidence=()):
        """``within-tolerance`` if ``|value - printed| <= atol + rtol * |printed|``, else ``differs``.

        A value the world was set to match is ``kind="calibration"``.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add`.
        printed : str
        value : float
        rtol, atol : float, optional
            Relative and absolute tolerance.
        note : str, default ""
        kind
            As in :meth:`add`.
        evidence
            As in :meth:`add`.
        """
        if rtol is None and atol is None:
            raise ValueError("give `rtol` or `atol`")
        target = parse_printed(printed)
        bound = (atol or 0.0) + (rtol or 0.0) * abs(target)
        ok = abs(float(value) - target) <= bound
        parts = ([f"rtol {rtol:g}"] if rtol else []) + ([f"atol {atol:g}"] if atol else [])
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=value,
            criterion=f"|ours - paper| <= {' + '.join(parts)}",
            status="within-tolerance" if ok else "differs", note=note, kind=kind, evidence=evidence,
        )

    def erratum(self, claim_id, source, statement, *, printed: str, value, evidence: str, kind="printed", files=()):
        """Record a printed value (``kind="printed"``) or formula (``"formula"``) that contradicts the paper's own inputs.

        ``evidence`` is the argument, written to the note; ``files`` the outputs that back it.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add`.
        printed : str
            The printed value or formula.
        value
            The right value or formula.
        evidence : str
            The proof that the printed one is wrong.
        kind
            As in :meth:`add`.
        files : sequence of str, default ()
            Output files that back the row.
        """
        return self.add(
            claim_id, source, statement, paper_value=printed, reproduced_value=value,
            criterion="recomputed from the paper's own printed inputs", status="erratum", note=evidence,
            kind=kind, evidence=files,
        )

    # -- qualitative ---------------------------------------------------------------
    def check(self, claim_id, source, statement, *, criterion: str, holds: bool, paper_value="", reproduced_value="", note="",
              kind="claim", control="", evidence=()):
        """A qualitative claim (or a formula, or a check of ours): ``holds`` or ``differs`` by its stated ``criterion``.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add`.
        criterion : str
        holds : bool
        paper_value, reproduced_value : str, default ""
        note : str, default ""
        kind
            As in :meth:`add`.
        control : str, default ""
        evidence
            As in :meth:`add`.
        """
        return self.add(
            claim_id, source, statement, paper_value=paper_value, reproduced_value=reproduced_value,
            criterion=criterion, status="holds" if bool(holds) else "differs", note=note,
            kind=kind, control=control, evidence=evidence,
        )

    def sweep(self, claim_id, source, statement, *, outcomes, criterion: str, control=None, expected_share=None,
              paper_value="", note="", why="", kind="claim", evidence=(), min_share=None):
        """A claim checked on every seed of a sweep, by the one sweep rule (:func:`sweep_verdict`).

        ``outcomes`` holds one boolean per seed (does the criterion hold for
        that seed?).  ``control`` holds the same booleans on the control
        world, in which the mechanism the paper credits is switched off: when
        the control passes the rule too, the criterion does not discriminate
        and the claim is ``differs``, with a note saying so.
        ``min_share`` is accepted for compatibility and must equal
        :data:`SWEEP_MIN_SHARE` when given: there is one sweep rule.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add`.
        outcomes : array-like of bool
            The criterion's outcome on every seed.
        criterion : str
        control : array-like of bool, optional
            The same criterion on the control world (mechanism off); if it passes too, the row differs.
        expected_share : float, optional
            The share of seeds a faithful world passes, where the paper's uncertainty predicts one.
        paper_value : str, default ""
        note : str, default ""
        why : str or callable, default ""
            Why the claim may differ in this world: added to the note only when the row differs (a
            callable is called then, with no argument, and returns the text).
        kind
            As in :meth:`add`.
        evidence
            As in :meth:`add`.
        """
        if min_share is not None and min_share != SWEEP_MIN_SHARE:
            raise ValueError(f"`min_share` is the one sweep rule's {SWEEP_MIN_SHARE}; got {min_share} "
                             "(pass `expected_share` where the paper's own uncertainty predicts a share)")
        v = sweep_verdict(outcomes, expected_share=expected_share)
        c = None if control is None else sweep_verdict(control, expected_share=expected_share)
        undiscriminating = c is not None and c.passes and v.passes
        status = "holds" if v.passes and not undiscriminating else "differs"
        if status == "differs" and callable(why):
            why = why()
        notes = [n for n in (note, why if status == "differs" else "") if n]
        if undiscriminating:
            notes.append("the control world (the paper's mechanism switched off) passes the same criterion: "
                         "the criterion does not discriminate")
        control_text = "" if c is None else f"{c.text()}, mechanism off"
        return self.add(
            claim_id, source, statement, paper_value=paper_value, reproduced_value=v.text(),
            criterion=f"{criterion}; {v.rule}", status=status, note="; ".join(notes),
            kind=kind, control=control_text, evidence=evidence,
        )

    # -- output --------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The claims as a DataFrame with the ledger's :data:`COLUMNS`."""
        return pd.DataFrame(self._rows, columns=COLUMNS)

    def counts(self) -> dict:
        """Number of claims per status."""
        df = self.frame()
        return {s: int((df["status"] == s).sum()) for s in STATUSES}

    def verdict(self) -> str:
        """A short written verdict of this notebook's claims (:func:`verdict`)."""
        return verdict(self.frame())


def seed_sweep(func, seeds, **kwargs) -> pd.DataFrame:
    """Run ``func(seed=s, **kwargs)`` for every seed; one row per seed.

    ``func`` returns a flat dict (numbers and booleans); the result has a
    ``seed`` column followed by the dict's keys.

    Parameters
    ----------
    func : callable
        ``func(seed=s, **kwargs) -> dict``.
    seeds : iterable of int
    **kwargs
        Passed to every call.
    """
    rows = []
    for s in seeds:
        out = dict(func(seed=int(s), **kwargs))
        rows.append({"seed": int(s), **out})
    if not rows:
        raise ValueError("`seeds` must not be empty")
    return pd.DataFrame(rows)


def count_table(df: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Two count tables of a ledger frame: the papers' numbers and claims, and the rest.

    Returns ``(reproduction, other)``: per paper, the number of rows of the
    kinds in :data:`REPRODUCTION_KINDS` per status (with a total); and per
    paper, the number of calibrations and of our checks per status.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    papers = [p for p in PAPERS if p in set(df["paper"])]

    def table(rows, index_name):
        t = pd.crosstab(rows["paper"], rows["status"]).reindex(index=papers, columns=list(STATUSES), fill_value=0)
        t["total"] = t.sum(axis=1)
        t.loc["all"] = t.sum(axis=0)
        return t.reset_index().rename(columns={"index": index_name, "paper": index_name})

    repro = table(df[df["kind"].isin(REPRODUCTION_KINDS)], "paper")
    other_rows = df[~df["kind"].isin(REPRODUCTION_KINDS)]
    other = pd.crosstab(other_rows["paper"], other_rows["kind"]).reindex(
        index=papers, columns=[k for k in KINDS if k not in REPRODUCTION_KINDS], fill_value=0)
    other.loc["all"] = other.sum(axis=0)
    return repro, other.reset_index().rename(columns={"index": "paper"})


def verdict(df: pd.DataFrame, *, why: bool = True) -> str:
    """A short written verdict of a ledger frame, in Markdown: what reproduced, what differs, which errata.

    Parameters
    ----------
    df : pandas.DataFrame
        Ledger rows (one paper's, or all).
    why : bool, default True
        Quote each differing row's note (the reason it differs).

    Examples
    --------
    >>> led = Ledger("yi", "nb")
    >>> _ = led.check("a", "T1", "one claim", criterion="c", holds=True)
    >>> print(verdict(led.frame()))
    **Verdict.** Of 1 of the paper's numbers and claims checked here, 1 reproduce (1 holds); none differs; no erratum.
    """
    repro = df[df["kind"].isin(REPRODUCTION_KINDS)]
    ok = repro[repro["status"].isin(["exact", "within-tolerance", "holds"])]
    parts = ", ".join(f"{int((ok['status'] == s).sum())} {s}" for s in ("exact", "within-tolerance", "holds")
                      if (ok["status"] == s).any())
    differs, errata = repro[repro["status"] == "differs"], repro[repro["status"] == "erratum"]
    lines = [f"**Verdict.** Of {len(repro)} of the paper's numbers and claims checked here, {len(ok)} reproduce"
             + (f" ({parts})" if parts else "")
             + f"; {len(differs) or 'none'} {'differ' if len(differs) > 1 else 'differs'}"
             + ("; no erratum" if not len(errata) else f"; {len(errata)} errat{'a' if len(errata) > 1 else 'um'} in "
                "the paper (a printed value or formula that contradicts the paper's own inputs)") + "."]
    rest = df[~df["kind"].isin(REPRODUCTION_KINDS)]
    if len(rest):
        n_cal, n_chk = int((rest["kind"] == "calibration").sum()), int((rest["kind"] == "check").sum())
        lines.append(f"Apart from these: {n_cal} calibration{'s' if n_cal != 1 else ''} (values the synthetic world "
                     f"was set to match, not reproductions) and {n_chk} check{'s' if n_chk != 1 else ''} of ours.")
    for title, rows in (("Differs", differs), ("Errata", errata)):
        if len(rows):
            lines.append("")
            lines.append(f"*{title}:*")
            lines += [f"- `{r.claim_id}` ({r.source}): {r.statement} -- paper {r.paper_value or '-'}, ours "
                      f"{r.reproduced_value or '-'}" + (f". *Why:* {r.note}" if why and title == "Differs" and r.note else "")
                      for r in rows.itertuples()]
    return "\n".join(lines)


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


def gather(output_root: str | Path | None = None) -> pd.DataFrame:
    """Collect every notebook's claims into the ledger files.

    Writes ``<root>/<paper>/claims.csv`` (all claims of that paper),
    ``<root>/claims.csv`` and ``<root>/claims.md`` (every paper, with the
    count tables of :func:`count_table`).  Returns the combined frame.
    Refuses (``ValueError``) unknown statuses or kinds, repeated claim ids
    and evidence files that do not exist.

    Parameters
    ----------
    output_root : str or Path, optional
        The root the notebooks wrote to (default ``figures/``).
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
        bad = ~df["kind"].isin(KINDS)
        if bad.any():
            raise ValueError(f"claims of {paper!r} have unknown kinds: {sorted(set(df['kind'][bad]))}")
        dup = df["claim_id"][df["claim_id"].duplicated()]
        if len(dup):
            raise ValueError(f"claims of {paper!r} repeat claim ids: {sorted(set(dup))}")
        missing = [(cid, e) for cid, ev in zip(df["claim_id"], df["evidence"]) for e in ev.split("; ")
                   if e and not (root / e).is_file()]
        if missing:
            raise ValueError(f"claims of {paper!r} name evidence files that do not exist under {root}: {missing[:5]}")
        write_table(df, root / paper / "claims")
        frames.append(df)
    all_claims = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    atomic_write_text(root / "claims.csv", to_csv(all_claims))
    repro, other = count_table(all_claims)
    md = ["# Claims ledger", "",
          "Each published number or claim beside the compendium's, with its kind, status and evidence.", "",
          "## The papers' numbers and claims, per status", "",
          "Kinds `printed` (a printed cell recomputed from the paper's inputs), `formula` (a formula or identity "
          "of the paper, checked numerically) and `claim` (a claim of the paper reproduced on a synthetic world).", "",
          to_markdown(repro), "",
          "## Calibrations and our own checks", "",
          "A `calibration` is a value the synthetic world was set to match: it is shown beside the paper and never "
          "counted as a reproduction. A `check` is a check of ours (an identity of our code, a construction).", "",
          to_markdown(other), ""]
    flagged = all_claims[all_claims["status"].isin(["differs", "erratum"])
                         & all_claims["kind"].isin(REPRODUCTION_KINDS)]
    if len(flagged):
        md += ["## Claims that differ, and errata in the papers", "",
               to_markdown(flagged[["claim_id", "kind", "statement", "paper_value", "reproduced_value", "status",
                                    "control", "note"]]), ""]
    for paper, df in all_claims.groupby("paper", sort=False):
        md += [f"## {paper}", "", to_markdown(df.drop(columns="paper")), ""]
    atomic_write_text(root / "claims.md", "\n".join(md))
    return all_claims
