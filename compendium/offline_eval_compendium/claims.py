"""The claims ledger: each published number or claim beside ours, with a status.

Claims are declared before the experiment, as data
--------------------------------------------------
Each study opens with its claims table (:func:`declare` of :class:`Claim` objects):
the id, where the paper states it, the paper's sentence quoted, the kind, the
criterion, the world it is checked on and the mechanism its control world
switches off, and the output files that will back it.  The notebook builds a
:class:`Ledger` on that table; the experiment code then *fills in values*
(:meth:`Ledger.printed`, :meth:`Ledger.sweep`, :meth:`Ledger.predict`, ...)
and the ledger alone decides the status, by the rule of the row's kind.  A
criterion changed after it was run keeps its earlier form in the declaration
(``revised``: the earlier criterion and the reason), and the row shows it.
``make reproduce`` gathers every notebook's rows into
``figures/<paper>/claims.csv`` and ``figures/claims.csv`` / ``claims.md``
(:func:`gather`).

Kinds of row
------------
Every row says what it is (column ``kind``, :data:`KINDS`), and where its
value comes from (column ``world``: ``paper`` for the paper's own printed
inputs, ``synthetic: <name>``, ``real: <name>``, or ``ours``):

printed
    a printed cell recomputed from the paper's own printed inputs (world ``paper``);
formula
    a formula, identity or derivation the paper states, checked numerically (world ``paper``);
prediction
    a printed cell predicted by a synthetic (or real) world: the seed sweep's
    interval beside the printed value;
claim
    a qualitative or magnitude claim of the paper, checked on the paper's
    printed inputs or on a synthetic or real world;
calibration
    a printed value the synthetic world's knobs were fitted to: shown beside
    the paper, never counted as a reproduction;
check
    a check of ours (an identity of our code, anything that holds by
    construction), not a claim of the paper.

The counts come as three tables (:func:`count_tables`): the papers' printed
numbers, formulas and claims recomputed from their printed inputs; the
papers' claims and predictions on synthetic or real worlds; calibrations and
our checks.

One path to a synthetic status
------------------------------
A claim on a synthetic world gets its status only from its seed sweep
(:meth:`Ledger.sweep`) beside its control world, the same world with the
paper's mechanism switched off.  One rule for every sweep
(:func:`sweep_verdict`): the claim passes on :data:`SWEEP_SEEDS` seeds when it
passes in at least :data:`SWEEP_MIN_SHARE` of them (or, where the paper's own
uncertainty predicts a share, when the Wilson 95% interval reaches it).  It
``holds`` when the sweep passes and the control fails; it ``differs`` when
the sweep fails; it is ``not tested`` when the sweep passes but no control
discriminates (the control passes too, or no control world exists for it).
A prediction (:meth:`Ledger.predict`) is ``within-tolerance`` when the printed
value lies in the seed sweep's 5-95% interval, ``differs`` when outside, and
``not tested`` when the interval is wider than the printed value itself (or
the control's interval holds it too): such an interval cannot exclude the
printed value.  A main-seed value is shown beside its sweep as an
illustration, never with a status of its own.

Statuses
--------
exact
    equal to the paper's value at its printed precision;
within-tolerance
    within a tolerance stated in the ``criterion`` column;
holds
    a qualitative claim that passes its stated criterion (on a synthetic
    world: its sweep passes and its control fails);
differs
    does not meet its criterion -- reported, never hidden, with a note saying why;
not tested
    a claim or prediction on a synthetic world that no control can
    discriminate, or whose interval is too wide to exclude the printed value;
erratum
    the paper's printed value is inconsistent with its own inputs; the
    ``note`` gives the evidence.
"""

from __future__ import annotations

import fnmatch
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd

from .io import atomic_write_text, format_float, to_csv, to_markdown, write_table
from .paths import PAPERS, figures_root
from .reference import parse_printed, printed_decimals

__all__ = [
    "COLUMNS",
    "Claim",
    "Claims",
    "count_tables",
    "declare",
    "problems",
    "uncited_files",
    "KINDS",
    "REPRODUCTION_KINDS",
    "STATUSES",
    "SWEEP_MIN_SHARE",
    "SWEEP_SEEDS",
    "Ledger",
    "SweepVerdict",
    "compare",
    "table_of",
    "gather",
    "matches_printed",
    "seed_sweep",
    "sweep_verdict",
    "verdict",
    "wilson_interval",
    "worlds_table",
]

COLUMNS = [
    "paper",
    "claim_id",
    "kind",
    "world",
    "source",
    "statement",
    "paper_value",
    "reproduced_value",
    "criterion",
    "status",
    "control",
    "evidence",
    "note",
    "revised",
]
STATUSES = ("exact", "within-tolerance", "holds", "differs", "not tested", "erratum")
KINDS = ("printed", "formula", "prediction", "claim", "calibration", "check")
#: The kinds that are the paper's own numbers and claims (the rest are calibrations and our checks).
REPRODUCTION_KINDS = ("printed", "formula", "prediction", "claim")
#: The three count tables (:func:`count_tables`): their keys and titles.
COUNT_TABLES = {
    "recomputed": "The papers' printed numbers, formulas and claims, recomputed from their printed inputs",
    "worlds": "The papers' claims and predictions on synthetic (or real) worlds",
    "own": "Calibrations and our own checks",
}
#: Worlds a row's value can come from (column ``world``): the paper's printed inputs, ours, or a named world.
WORLD_PATTERN = re.compile(r"paper|ours|(synthetic|real): \S.*")

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


def _evidence_list(evidence) -> list[str]:
    evidence = [evidence] if isinstance(evidence, str) else [str(e) for e in evidence]
    bad = [e for e in evidence if not e or e.startswith("/") or ".." in Path(e).parts or ";" in e]
    if bad:
        raise ValueError(f"`evidence` must be relative paths under the figures root; got {bad}")
    return evidence


@dataclass(frozen=True)
class Claim:
    """One declared claim: what the paper says, how it will be checked, on which world, backed by which files.

    Parameters
    ----------
    id : str
        The row's id (``<paper>-<table or figure>-<what>``), or a family of
        rows: a pattern with ``*`` (``"yi-T2-*"``: every printed cell of Table 2).
    source : str
        Where the paper states it (table, figure, section, equation).
    quote : str
        The paper's sentence, quoted (or the printed cell it names).
    kind : str
        One of :data:`KINDS`.
    criterion : str
        How it is checked, stated before the result is seen.
    world : str, default "paper"
        Where the value comes from: ``"paper"`` (the paper's printed inputs),
        ``"ours"``, ``"synthetic: <name>"`` or ``"real: <name>"``.
    control : str, default ""
        The control world: which mechanism it switches off.  A claim on a
        synthetic world without one can at best be ``not tested``.
    evidence : tuple of str
        The output files (relative to ``figures/``) that will back the row.
    revised : str, default ""
        A criterion changed after it was run keeps its earlier form here: the
        earlier criterion and the reason it was revised.
    """

    id: str
    source: str
    quote: str
    kind: str
    criterion: str
    world: str = "paper"
    control: str = ""
    evidence: tuple = field(default=())
    revised: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"`kind` of {self.id!r} must be one of {KINDS}; got {self.kind!r}")
        if not WORLD_PATTERN.fullmatch(self.world):
            raise ValueError(f"`world` of {self.id!r} must be 'paper', 'ours', 'synthetic: <name>' or "
                             f"'real: <name>'; got {self.world!r}")
        if self.kind in ("printed", "formula") and self.world != "paper":
            raise ValueError(f"a {self.kind!r} row is recomputed from the paper's inputs (world 'paper'); "
                             f"{self.id!r} says {self.world!r}")
        if self.kind in ("prediction", "calibration") and not self.world.startswith(("synthetic:", "real:")):
            raise ValueError(f"a {self.kind!r} row belongs to a synthetic or real world; {self.id!r} says {self.world!r}")
        if not (self.id and self.source and self.quote and self.criterion):
            raise ValueError(f"claim {self.id!r} must give `id`, `source`, `quote` and `criterion`")
        object.__setattr__(self, "evidence", tuple(_evidence_list(self.evidence)))
        if not self.evidence:
            raise ValueError(f"claim {self.id!r} must name the output files that will back it (`evidence`)")

    @property
    def synthetic(self) -> bool:
        """True for a claim or prediction on a synthetic world (its status comes from the sweep)."""
        return self.kind in ("claim", "prediction") and self.world.startswith("synthetic:")

    def matches(self, claim_id: str) -> bool:
        """Does ``claim_id`` belong to this declaration (equal, or matching its ``*`` pattern)?

        Parameters
        ----------
        claim_id : str
        """
        return claim_id == self.id or ("*" in self.id and fnmatch.fnmatchcase(claim_id, self.id))


class Claims(tuple):
    """A study's claims table: the :class:`Claim` objects it declares, in the paper's order (:func:`declare`)."""

    def find(self, claim_id: str) -> Claim:
        """The declaration of ``claim_id``: the claim of that id, else the one pattern it matches.

        Parameters
        ----------
        claim_id : str
        """
        exact = [c for c in self if c.id == claim_id]
        if exact:
            return exact[0]
        found = [c for c in self if c.matches(claim_id)]
        if len(found) != 1:
            raise ValueError(f"`claim_id` {claim_id!r} must match exactly one declared claim; "
                             f"it matches {[c.id for c in found]}")
        return found[0]

    def frame(self) -> pd.DataFrame:
        """The table as the notebook shows it: id, source, quote, kind, world, criterion, control, evidence."""
        return pd.DataFrame([dict(claim_id=c.id, source=c.source, quote=c.quote, kind=c.kind, world=c.world,
                                  criterion=c.criterion + (f" (revised; earlier: {c.revised})" if c.revised else ""),
                                  control=c.control, evidence="; ".join(c.evidence)) for c in self])

    def __add__(self, other):
        return declare(*self, *other)


def declare(*claims: Claim) -> Claims:
    """A study's claims table, declared before the experiment.

    Parameters
    ----------
    *claims : Claim
        The declarations, in the paper's order; ids must be unique.

    Examples
    --------
    >>> table = declare(Claim("yi-T2-*", "Table 2", "every printed AUC cell", "printed",
    ...                       "equal at the printed precision", evidence=("yi/table2.csv",)))
    >>> table.find("yi-T2-a-auc").source
    'Table 2'
    """
    ids = [c.id for c in claims]
    if not all(isinstance(c, Claim) for c in claims):
        raise TypeError("`claims` must be Claim objects")
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"claims table repeats ids: {dup}")
    return Claims(claims)


#: Which fill method may fill which kinds (a kind filled by another method contradicts its origin).
_METHOD_KINDS = {
    "printed": ("printed", "formula"),
    "erratum": ("printed", "formula"),
    "tolerance": ("printed", "formula"),
    "calibration": ("calibration",),
    "check": ("formula", "claim", "check"),
    "sweep": ("claim", "check"),
    "predict": ("prediction",),
    "add": KINDS,
}


class Ledger:
    """Claims of one notebook about one paper.

    Parameters
    ----------
    paper : str
        Short id of the paper (``"yi"``, ``"rosset"``, ``"piovano"``, ``"chapelle"``).
    notebook : str
        Name of the notebook writing the claims (its file stem); the claims
        are saved as ``figures/<paper>/claims/<notebook>.csv``.
    claims : Claims, optional
        The notebook's claims table (:func:`declare`).  With it, every row is
        filled from its declaration: the fill methods take the claim's id and
        its values only, and the source, statement, kind, world, criterion,
        control and evidence come from the table.
    """

    def __init__(self, paper: str, notebook: str, claims: Claims | None = None):
        if paper not in PAPERS:
            raise ValueError(f"`paper` must be one of {PAPERS}; got {paper!r}")
        if not notebook or "/" in notebook:
            raise ValueError(f"`notebook` must be a file stem; got {notebook!r}")
        if claims is not None and not isinstance(claims, Claims):
            raise TypeError(f"`claims` must be a claims table from declare(); got {type(claims).__name__}")
        self.paper = paper
        self.notebook = notebook
        self.claims = claims
        self._rows: list[dict] = []

    def _declared(self, method, claim_id, source, statement, kind, evidence, detail=""):
        """(source, statement, kind, world, control, evidence, revised, criterion prefix) of a row."""
        if self.claims is None:
            if source is None or statement is None:
                raise ValueError("`source` and `statement` are needed when the ledger has no claims table")
            return (source, statement, kind, "", "", _evidence_list(evidence), "", "")
        if source is not None or statement is not None:
            raise ValueError(f"{claim_id!r}: `source` and `statement` are declared in the claims table, "
                             "not given when filling")
        decl = self.claims.find(claim_id)
        if decl.kind not in _METHOD_KINDS[method]:
            raise ValueError(f"{claim_id!r} is declared a {decl.kind!r}; `{method}` fills only "
                             f"{_METHOD_KINDS[method]} (a {decl.kind!r} gets its status another way)")
        if method in ("check", "tolerance") and decl.synthetic:
            raise ValueError(f"{claim_id!r} is a claim on a synthetic world: its status comes from its sweep "
                             "beside its control (`sweep`), never from one run")
        ev = list(decl.evidence) + [e for e in _evidence_list(evidence) if e not in decl.evidence]
        stmt = decl.quote + (f" ({detail})" if detail else "")
        return (decl.source, stmt, decl.kind, decl.world, decl.control, ev, decl.revised, decl.criterion)

    # -- generic ------------------------------------------------------------------
    def add(self, claim_id, source=None, statement=None, *, paper_value, reproduced_value, criterion, status,
            note="", kind="claim", control="", evidence=(), world="", revised=""):
        """Add one row as given (a ledger without a claims table; the declared path uses the fill methods).

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
        kind : str, default "claim"
            What kind of row it is (see :data:`KINDS`).
        control : str, default ""
            The control world's outcome, where there is one.
        evidence : sequence of str, default ()
            Output files (under ``figures/``) that back the row; they must exist when the ledger is written.
        world : str, default ""
            Where the value comes from (see :class:`Claim`).
        revised : str, default ""
            The earlier criterion and why it was revised.
        """
        if self.claims is not None and source is not None:
            raise ValueError(f"{claim_id!r}: this ledger has a claims table; fill its rows with the fill methods")
        return self._add(claim_id, source, statement, paper_value=paper_value, reproduced_value=reproduced_value,
                         criterion=criterion, status=status, note=note, kind=kind, control=control,
                         evidence=_evidence_list(evidence), world=world, revised=revised)

    def _add(self, claim_id, source, statement, *, paper_value, reproduced_value, criterion, status, note, kind,
             control, evidence, world, revised):
        if status not in STATUSES:
            raise ValueError(f"`status` must be one of {STATUSES}; got {status!r}")
        if kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}; got {kind!r}")
        if any(r["claim_id"] == claim_id for r in self._rows):
            raise ValueError(f"`claim_id` {claim_id!r} is already in the ledger")
        if not criterion:
            raise ValueError("`criterion` must state how the claim is checked")
        if source is None or statement is None:
            raise ValueError("`source` and `statement` must be given")
        self._rows.append(
            dict(
                paper=self.paper,
                claim_id=str(claim_id),
                kind=kind,
                world=str(world),
                source=str(source),
                statement=str(statement),
                paper_value=_fmt(paper_value),
                reproduced_value=_fmt(reproduced_value),
                criterion=str(criterion),
                status=status,
                control=_fmt(control),
                evidence="; ".join(evidence),
                note=str(note),
                revised=str(revised),
            )
        )
        return status

    def _fill(self, method, claim_id, source, statement, *, kind, evidence, detail, criterion, status, control="",
              **values):
        src, stmt, kind, world, control_world, ev, revised, declared = self._declared(
            method, claim_id, source, statement, kind, evidence, detail)
        full = "; ".join(x for x in (declared, criterion) if x)
        return self._add(claim_id, src, stmt, criterion=full, status=status, kind=kind, control=control,
                         evidence=ev, world=world, revised=revised, **values)

    # -- numbers -------------------------------------------------------------------
    def printed(self, claim_id, source=None, statement=None, *, printed: str, value: float,
                erratum_note: str | None = None, note="", kind="printed", evidence=(), detail=""):
        """Compare ``value`` with a printed number at its printed precision.

        Status ``exact`` when they agree.  When they do not, the status is
        ``erratum`` if ``erratum_note`` gives evidence that the printed value
        contradicts the paper's own inputs, else ``differs``.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`add` (``source`` and ``statement`` come from the claims table when the ledger has one).
        printed : str
            The printed cell.
        value : float
            Our value, compared at the printed number of decimals.
        erratum_note : str, optional
            Why a mismatch is the paper's typo (the row is then an erratum).
        note : str, default ""
        kind
            As in :meth:`add` (from the claims table when the ledger has one).
        evidence
            As in :meth:`add`; added to the declared evidence.
        detail : str, default ""
            Which member of a declared family (added to the declared quote).
        """
        d = printed_decimals(printed)
        ok = matches_printed(value, printed)
        status = "exact" if ok else ("erratum" if erratum_note else "differs")
        full_note = note if ok else "; ".join(x for x in (erratum_note, note) if x)
        return self._fill(
            "printed", claim_id, source, statement, kind=kind, evidence=evidence, detail=detail,
            paper_value=printed, reproduced_value=f"{float(value):.{d + 2}f}",
            criterion=f"equal when rounded to the printed {d} decimal{'s' if d != 1 else ''}",
            status=status, note=full_note,
        )

    def _within(self, method, claim_id, source, statement, *, printed, value, rtol, atol, note, kind, evidence,
                detail):
        if rtol is None and atol is None:
            raise ValueError("give `rtol` or `atol`")
        target = parse_printed(printed)
        bound = (atol or 0.0) + (rtol or 0.0) * abs(target)
        ok = abs(float(value) - target) <= bound
        parts = ([f"rtol {rtol:g}"] if rtol else []) + ([f"atol {atol:g}"] if atol else [])
        return self._fill(
            method, claim_id, source, statement, kind=kind, evidence=evidence, detail=detail,
            paper_value=printed, reproduced_value=value, criterion=f"|ours - paper| <= {' + '.join(parts)}",
            status="within-tolerance" if ok else "differs", note=note,
        )

    def tolerance(self, claim_id, source=None, statement=None, *, printed: str, value: float, rtol=None, atol=None,
                  note="", kind="claim", evidence=(), detail=""):
        """``within-tolerance`` if ``|value - printed| <= atol + rtol * |printed|``, else ``differs``.

        For a value recomputed from the paper's inputs; a value the world was
        fitted to is a :meth:`calibration`, one a world predicts a :meth:`predict`.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`printed`.
        printed : str
        value : float
        rtol, atol : float, optional
            Relative and absolute tolerance.
        note : str, default ""
        kind, evidence, detail
            As in :meth:`printed`.
        """
        return self._within("tolerance" if self.claims is not None else "add", claim_id, source, statement,
                            printed=printed, value=value, rtol=rtol, atol=atol, note=note, kind=kind,
                            evidence=evidence, detail=detail)

    def calibration(self, claim_id, *, printed: str, value: float, rtol=None, atol=None, note="", evidence=(),
                    detail=""):
        """A printed value the world's knobs were fitted to: ``within-tolerance`` when the fit reaches it.

        Parameters
        ----------
        claim_id : str
            A declared claim of kind ``calibration``.
        printed : str
        value : float
            The fitted world's value.
        rtol, atol : float, optional
        note, evidence, detail
            As in :meth:`printed`.
        """
        return self._within("calibration", claim_id, None, None, printed=printed, value=value, rtol=rtol,
                            atol=atol, note=note, kind="calibration", evidence=evidence, detail=detail)

    def erratum(self, claim_id, source=None, statement=None, *, printed: str, value, evidence: str, kind="printed",
                files=(), detail=""):
        """Record a printed value (``kind="printed"``) or formula (``"formula"``) that contradicts the paper's own inputs.

        ``evidence`` is the argument, written to the note; ``files`` the outputs that back it.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`printed`.
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
        detail : str, default ""
        """
        return self._fill(
            "erratum", claim_id, source, statement, kind=kind, evidence=files, detail=detail,
            paper_value=printed, reproduced_value=value,
            criterion="recomputed from the paper's own printed inputs", status="erratum", note=evidence,
        )

    # -- qualitative ---------------------------------------------------------------
    def check(self, claim_id, source=None, statement=None, *, criterion: str = "", holds: bool, paper_value="",
              reproduced_value="", note="", kind="claim", control="", evidence=(), detail=""):
        """A claim on the paper's inputs, a formula, or a check of ours: ``holds`` or ``differs``.

        A claim on a synthetic world cannot be filled here: its status comes
        from its sweep (:meth:`sweep`).

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`printed`.
        criterion : str, default ""
            Added to the declared criterion (required without a claims table).
        holds : bool
        paper_value, reproduced_value : str, default ""
        note : str, default ""
        kind
            As in :meth:`add`.
        control : str, default ""
        evidence, detail
            As in :meth:`printed`.
        """
        return self._fill(
            "check" if self.claims is not None else "add", claim_id, source, statement, kind=kind,
            evidence=evidence, detail=detail, paper_value=paper_value, reproduced_value=reproduced_value,
            criterion=criterion, status="holds" if bool(holds) else "differs", note=note, control=control,
        )

    def sweep(self, claim_id, source=None, statement=None, *, outcomes, criterion: str = "", control=None,
              expected_share=None, paper_value="", note="", why="", kind="claim", evidence=(), main_seed="",
              detail="", min_share=None):
        """A claim checked on every seed of a sweep, beside its control world: the one path to a synthetic status.

        ``outcomes`` holds one boolean per seed (does the criterion hold for
        that seed?); ``control`` the same booleans on the control world, in
        which the mechanism the paper credits is switched off.  The claim
        ``holds`` when its sweep passes the one sweep rule
        (:func:`sweep_verdict`) and its control does not; ``differs`` when its
        sweep fails; ``not tested`` when the sweep passes but no control
        discriminates (the control passes too, or the claim has none).  A row
        of kind ``check`` (a construction of ours) holds when its sweep passes.

        Parameters
        ----------
        claim_id, source, statement
            As in :meth:`printed`.
        outcomes : array-like of bool
            The criterion's outcome on every seed.
        criterion : str, default ""
            Added to the declared criterion (required without a claims table).
        control : array-like of bool, optional
            The same criterion on the control world (mechanism off); required when the claim declares one.
        expected_share : float, optional
            The share of seeds a faithful world passes, where the paper's uncertainty predicts one.
        paper_value : str, default ""
        note : str, default ""
        why : str or callable, default ""
            Why the claim may differ or be untested in this world: added to the note only then (a
            callable is called then, with no argument, and returns the text).
        kind
            As in :meth:`add`.
        evidence
            As in :meth:`printed`.
        main_seed : str, default ""
            The main seed's value, shown beside the sweep as an illustration (no status of its own).
        detail : str, default ""
        min_share : float, optional
            Accepted for compatibility; must equal :data:`SWEEP_MIN_SHARE` (there is one sweep rule).
        """
        if min_share is not None and min_share != SWEEP_MIN_SHARE:
            raise ValueError(f"`min_share` is the one sweep rule's {SWEEP_MIN_SHARE}; got {min_share} "
                             "(pass `expected_share` where the paper's own uncertainty predicts a share)")
        declared = None if self.claims is None else self.claims.find(claim_id)
        v = sweep_verdict(outcomes, expected_share=expected_share)
        c = None if control is None else sweep_verdict(control, expected_share=expected_share)
        if declared is not None and declared.kind == "claim":
            if declared.control and c is None:
                raise ValueError(f"{claim_id!r} declares a control world ({declared.control}); give its `control` "
                                 "outcomes")
            if not declared.control and c is not None:
                raise ValueError(f"{claim_id!r} declares no control world; declare the mechanism it switches off")
        row_kind = kind if declared is None else declared.kind
        notes = [note] if note else []
        if not v.passes:
            status = "differs"
        elif row_kind == "check" or (declared is None and c is None):
            status = "holds"
        elif c is None:
            status = "not tested"
            notes.append("no control world switches the paper's mechanism off for this claim: nothing "
                         "discriminates")
        elif c.passes:
            status = "not tested"
            notes.append("the control world (the paper's mechanism switched off) passes the same criterion: "
                         "the criterion does not discriminate")
        else:
            status = "holds"
        if status in ("differs", "not tested") and why:
            notes.insert(len(notes) - (status == "not tested"), why() if callable(why) else why)
        if declared is None and status == "not tested":
            status = "differs"  # a ledger without a claims table keeps the earlier two statuses
        control_text = "" if c is None else f"{c.text()}, mechanism off: {'passes' if c.passes else 'fails'}"
        value = v.text() + (f"; main seed: {_fmt(main_seed)}" if main_seed != "" else "")
        return self._fill(
            "sweep" if declared is not None else "add", claim_id, source, statement, kind=kind, evidence=evidence,
            detail=detail, paper_value=paper_value, reproduced_value=value, criterion=f"{criterion}; {v.rule}"
            if criterion else v.rule, status=status, note="; ".join(notes), control=control_text,
        )

    def predict(self, claim_id, *, printed: str, values, control=None, main_seed=None, note="", why="", evidence=(),
                detail=""):
        """A printed cell predicted by a synthetic world: the printed value beside the seed sweep's 5-95% interval.

        ``within-tolerance`` when the printed value lies in the interval;
        ``differs`` when it lies outside; ``not tested`` when the interval is
        wider than the printed value's magnitude (it cannot exclude the
        printed value) or when the control world's interval holds it too.
        The interval's ends are compared as written (six significant digits),
        so no status hinges on the last bits of a float.

        Parameters
        ----------
        claim_id : str
            A declared claim of kind ``prediction``.
        printed : str
            The printed cell.
        values : array-like of float
            The world's value on every seed of the sweep.
        control : array-like of float, optional
            The same on the control world.
        main_seed : float, optional
            The main seed's value, shown as an illustration.
        note : str, default ""
        why : str or callable, default ""
            Added to the note when the row differs or is not tested.
        evidence, detail
            As in :meth:`printed`.
        """
        lo, med, hi, n = _interval(values, "values")
        target = parse_printed(printed)
        notes = [note] if note else []
        if not lo <= target <= hi:
            status = "differs"
        elif hi - lo > abs(target):
            status = "not tested"
            notes.append(f"the seeds' 5-95% interval ({format_float(hi - lo)} wide) is wider than the printed value: "
                         "it cannot exclude it")
        else:
            status = "within-tolerance"
        control_text = ""
        if control is not None:
            clo, cmed, chi, cn = _interval(control, "control")
            inside = clo <= target <= chi
            control_text = (f"median {format_float(cmed)}, 5-95% [{format_float(clo)}, {format_float(chi)}] over "
                            f"{cn} seeds, mechanism off: {'holds the printed value' if inside else 'excludes it'}")
            if status == "within-tolerance" and inside:
                status = "not tested"
                notes.append("the control world's interval holds the printed value too: nothing discriminates")
        if status != "within-tolerance" and why:
            notes.insert(len(notes) - (status == "not tested"), why() if callable(why) else why)
        value = (f"median {format_float(med)}, 5-95% [{format_float(lo)}, {format_float(hi)}] over {n} seeds"
                 + ("" if main_seed is None else f"; main seed: {_fmt(main_seed)}"))
        return self._fill(
            "predict", claim_id, None, None, kind="prediction", evidence=evidence, detail=detail, paper_value=printed,
            reproduced_value=value, criterion="the printed value inside the seeds' 5-95% interval, which must be "
            "narrower than the printed value's magnitude", status=status, note="; ".join(notes), control=control_text,
        )

    # -- output --------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The claims as a DataFrame with the ledger's :data:`COLUMNS`."""
        return pd.DataFrame(self._rows, columns=COLUMNS)

    def unfilled(self) -> list[str]:
        """The declared claims (ids or patterns) that no row fills: a notebook must fill them all."""
        if self.claims is None:
            return []
        ids = [r["claim_id"] for r in self._rows]
        return [c.id for c in self.claims if not any(c.matches(i) for i in ids)]

    def counts(self) -> dict:
        """Number of claims per status."""
        df = self.frame()
        return {s: int((df["status"] == s).sum()) for s in STATUSES}

    def verdict(self) -> str:
        """A short written verdict of this notebook's claims (:func:`verdict`)."""
        return verdict(self.frame())


def _interval(values, name) -> tuple[float, float, float, int]:
    """(5%, 50%, 95%) quantiles of a seed sweep's values, each as written at six significant digits."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or x.size < 2:
        raise ValueError(f"`{name}` must be a 1-D array of at least two seeds' values; got shape {x.shape}")
    if not np.isfinite(x).all():
        raise ValueError(f"`{name}` must be finite; got {int((~np.isfinite(x)).sum())} non-finite values")
    q = np.quantile(x, [0.05, 0.5, 0.95])
    lo, med, hi = (float(format_float(float(v))) for v in q)
    return lo, med, hi, int(x.size)


def seed_sweep(func, seeds, *, progress: str | None = None, **kwargs) -> pd.DataFrame:
    """Run ``func(seed=s, **kwargs)`` for every seed; one row per seed.

    ``func`` returns a flat dict (numbers and booleans); the result has a
    ``seed`` column followed by the dict's keys.

    Parameters
    ----------
    func : callable
        ``func(seed=s, **kwargs) -> dict``.
    seeds : iterable of int
    progress : str, optional
        The step's name in the progress lines (:mod:`offline_eval_compendium.progress`);
        default ``func``'s name.
    **kwargs
        Passed to every call.
    """
    from .progress import track

    seeds = [int(s) for s in seeds]
    rows = []
    for s in track(seeds, progress or getattr(func, "__name__", "sweep")):
        out = dict(func(seed=s, **kwargs))
        rows.append({"seed": s, **out})
    if not rows:
        raise ValueError("`seeds` must not be empty")
    return pd.DataFrame(rows)


def table_of(kind: str, world: str) -> str:
    """Which count table a row belongs to (a key of :data:`COUNT_TABLES`).

    Parameters
    ----------
    kind : str
    world : str
    """
    if kind in ("calibration", "check"):
        return "own"
    if kind in ("prediction",) or str(world).startswith(("synthetic:", "real:")):
        return "worlds"
    return "recomputed"


def count_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The three count tables of a ledger frame (:data:`COUNT_TABLES`).

    ``"recomputed"``: per paper and status, the printed numbers, formulas and
    claims recomputed from the papers' printed inputs; ``"worlds"``: per paper
    and status (``not tested`` included), the claims and predictions on
    synthetic or real worlds; ``"own"``: per paper, the calibrations and our
    checks.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    papers = [p for p in PAPERS if p in set(df["paper"])]
    group = [table_of(k, w) for k, w in zip(df["kind"], df["world"] if "world" in df else [""] * len(df))]
    group = pd.Series(group, index=df.index, dtype=object)

    def table(rows, statuses):
        t = pd.crosstab(rows["paper"], rows["status"]).reindex(index=papers, columns=list(statuses), fill_value=0)
        t["total"] = t.sum(axis=1)
        t.loc["all"] = t.sum(axis=0)
        return t.reset_index().rename(columns={"index": "paper"})

    rec = table(df[group == "recomputed"], [s for s in STATUSES if s != "not tested"])
    worlds = table(df[group == "worlds"], [s for s in STATUSES if s not in ("exact", "erratum")])
    own_rows = df[group == "own"]
    own = pd.crosstab(own_rows["paper"], [own_rows["kind"], own_rows["status"]])
    own.columns = [f"{k} {s}" for k, s in own.columns]
    cols = [f"{k} {s}" for k in ("calibration", "check") for s in STATUSES if f"{k} {s}" in own.columns]
    own = own.reindex(index=papers, columns=cols, fill_value=0)
    own.loc["all"] = own.sum(axis=0)
    return {"recomputed": rec, "worlds": worlds, "own": own.reset_index().rename(columns={"index": "paper"})}


_PREDICTED = re.compile(r"5-95% \[([^,\]]+), ([^\]]+)\]")


def prediction_inside(paper_value: str, reproduced_value: str) -> bool:
    """Whether a prediction row's printed value lies inside its seeds' 5-95% interval (as written in the row).

    Parameters
    ----------
    paper_value : str
        The printed cell.
    reproduced_value : str
        The row's value, ``"median m, 5-95% [lo, hi] over n seeds..."`` (:meth:`Ledger.predict`).
    """
    m = _PREDICTED.search(reproduced_value)
    if m is None:
        raise ValueError(f"`reproduced_value` holds no 5-95% interval: {reproduced_value!r}")
    lo, hi = float(m.group(1)), float(m.group(2))
    return lo <= parse_printed(paper_value) <= hi


def worlds_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each synthetic or real world of a ledger: what its knobs were fitted to, and what it predicts.

    One row per (paper, world) that has a calibration, a prediction or a
    claim: the calibration targets (``claim id = printed value``), the number
    of predictions and how many of them hold the printed value inside the
    seeds' 5-95% interval (:func:`prediction_inside`, whatever their status:
    a `not tested` prediction may hold it in too wide an interval), and the
    claims by status.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    rows = []
    synthetic = df[df["world"].astype(str).str.startswith(("synthetic:", "real:"))]
    for (paper, world), g in synthetic.groupby(["paper", "world"], sort=False):
        cal = g[g["kind"] == "calibration"]
        pred = g[g["kind"] == "prediction"]
        cl = g[g["kind"] == "claim"]
        if not (len(cal) or len(pred) or len(cl)):
            continue
        inside = sum(prediction_inside(p, v) for p, v in zip(pred["paper_value"], pred["reproduced_value"]))
        rows.append({
            "paper": paper, "world": world.split(": ", 1)[1],
            "calibrated on": "; ".join(f"{c.removeprefix(paper + '-')} = {v}"
                                       for c, v in zip(cal["claim_id"], cal["paper_value"])) or "–",
            "predictions": len(pred), "inside the seeds' interval": int(inside),
            "claims holds / differs / not tested": " / ".join(
                str(int((cl["status"] == s).sum())) for s in ("holds", "differs", "not tested")),
        })
    order = {p: i for i, p in enumerate(PAPERS)}
    # the counts before the long texts: a narrow screen shows them without scrolling
    out = pd.DataFrame(rows, columns=["paper", "predictions", "inside the seeds' interval",
                                      "claims holds / differs / not tested", "world", "calibrated on"])
    return out.sort_values("paper", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


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
    untested = repro[repro["status"] == "not tested"]
    lines = [f"**Verdict.** Of {len(repro)} of the paper's numbers and claims checked here, {len(ok)} reproduce"
             + (f" ({parts})" if parts else "")
             + f"; {len(differs) or 'none'} {'differ' if len(differs) > 1 else 'differs'}"
             + (f"; {len(untested)} not tested (no control discriminates, or the interval cannot exclude the "
                "printed value)" if len(untested) else "")
             + ("; no erratum" if not len(errata) else f"; {len(errata)} errat{'a' if len(errata) > 1 else 'um'} in "
                "the paper (a printed value or formula that contradicts the paper's own inputs)") + "."]
    rest = df[~df["kind"].isin(REPRODUCTION_KINDS)]
    if len(rest):
        n_cal, n_chk = int((rest["kind"] == "calibration").sum()), int((rest["kind"] == "check").sum())
        lines.append(f"Apart from these: {n_cal} calibration{'s' if n_cal != 1 else ''} (values the synthetic world "
                     f"was set to match, not reproductions) and {n_chk} check{'s' if n_chk != 1 else ''} of ours.")
    for title, rows in (("Differs", differs), ("Not tested", untested), ("Errata", errata)):
        if len(rows):
            lines.append("")
            lines.append(f"*{title}:*")
            lines += [f"- `{r.claim_id}` ({r.source}): {r.statement} -- paper {r.paper_value or '-'}, ours "
                      f"{r.reproduced_value or '-'}" + (f". *Why:* {r.note}" if why and title != "Errata" and r.note else "")
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
    count tables of :func:`count_tables`).  Returns the combined frame.
    Refuses (``ValueError``) unknown statuses or kinds, repeated claim ids,
    evidence files that do not exist, and rows that break the ledger's rules
    (:func:`problems`: a kind that contradicts its value's origin, a
    synthetic status not from its sweep and control, a row without evidence).

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
    found = problems(all_claims)
    if found:
        raise ValueError(f"the ledger breaks {len(found)} of its rules (claims.problems): " + "; ".join(found[:10]))
    atomic_write_text(root / "claims.csv", to_csv(all_claims))
    tables = count_tables(all_claims)
    md = ["# Claims ledger", "",
          "Each published number or claim beside the compendium's, with its kind, the world its value comes from, "
          "its status and evidence. The counts come in three tables that are never added together.", ""]
    explain = {
        "recomputed": "Kinds `printed` (a printed cell recomputed from the paper's inputs), `formula` (a formula or "
                      "identity of the paper, checked numerically) and `claim` checked on the paper's printed inputs.",
        "worlds": "Kinds `prediction` (a printed cell predicted by a synthetic world: the printed value beside the "
                  "seeds' 5-95% interval) and `claim` (a claim of the paper on a synthetic or real world: its 20-seed "
                  "sweep beside a control world with the paper's mechanism switched off). `not tested`: no control "
                  "discriminates, or the interval is too wide to exclude the printed value.",
        "own": "A `calibration` is a printed value the synthetic world's knobs were fitted to: shown beside the paper "
               "and never counted as a reproduction. A `check` is a check of ours (an identity of our code, anything "
               "that holds by construction).",
    }
    for key, title in COUNT_TABLES.items():
        md += [f"## {title}", "", explain[key], "", to_markdown(tables[key]), ""]
    md += ["## The worlds: what each was fitted to, what it predicts", "",
           "Each synthetic or real world, the printed values its knobs were fitted to (its calibrations), and the "
           "printed cells it predicts out of sample: how many hold the printed value inside the seeds' 5-95% "
           "interval. A world knob is never fitted to a number it then claims to reproduce.", "",
           to_markdown(worlds_table(all_claims)), ""]
    flagged = all_claims[all_claims["status"].isin(["differs", "not tested", "erratum"])
                         & all_claims["kind"].isin(REPRODUCTION_KINDS)]
    if len(flagged):
        md += ["## Claims that differ or are not tested, and errata in the papers", "",
               to_markdown(flagged[["claim_id", "kind", "statement", "paper_value", "reproduced_value", "status",
                                    "control", "note"]]), ""]
    for paper, df in all_claims.groupby("paper", sort=False):
        md += [f"## {paper}", "", to_markdown(df.drop(columns="paper")), ""]
    atomic_write_text(root / "claims.md", "\n".join(md))
    return all_claims
