"""The ledger's schema: its columns, kinds and statuses, and the claims a study declares (:class:`Claim`, :func:`declare`)."""

from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import format_float
from .estimates import Effect, declaration_digest

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
    "seeds",
    "confirmation",
    "development",
]
#: The statuses a row can earn (the first six) and the two counted apart from them.
STATUSES = ("exact", "within-tolerance", "holds", "differs", "not tested", "erratum", "exploratory", "ambiguous",
            "inconclusive")
#: Statuses counted apart in the count tables: neither is a confirmed reproduction nor a confirmed failure.
#: ``exploratory``: a criterion, world, reading, rule or seed count changed after a confirmation result was
#: seen; ``ambiguous``: the paper's text admits two readings and only the one that was chosen fits.
APART = ("exploratory", "ambiguous", "inconclusive")
#: The ``confirmation`` of a row developed and judged on one block only (a notebook not yet given a
#: confirmation block): its status is shown, and counted apart as unconfirmed.
UNCONFIRMED = "none yet"
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
        A criterion changed after it was run, before any confirmation result
        was seen, keeps its earlier form here: the earlier criterion and the
        reason it was revised (the row says "before the confirmation").
    revised_after_confirmation : str, default ""
        A criterion, world, reading, rule or seed count changed after a
        confirmation result was seen: the earlier form and the reason.  The
        row's status is then ``exploratory``, whatever its seeds give.
    effect : Effect, optional
        The real-valued quantity a claim or prediction on a synthetic or real world is about, its claimed
        direction (or printed value) and the smallest effect that matters, declared before any run: its
        status then comes from the estimate rule (:func:`~.estimates.estimate_verdict`).
    combine : str, default ""
        Where the paper's one sentence is measured two ways (Pearson and
        Kendall, two models), declared on each of its rows before the run:
        ``"both: <id>, <id>"`` (the sentence holds when every row holds; each
        row shows the weakest status) or ``"primary: <id>"`` (the sentence's
        status is that row's; the others show it too, their own result in
        the note).
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
    revised_after_confirmation: str = ""
    combine: str = ""
    effect: Effect | None = None

    def __post_init__(self):
        if self.effect is not None and not isinstance(self.effect, Effect):
            raise TypeError(f"`effect` of {self.id!r} must be an Effect; got {type(self.effect).__name__}")
        if self.effect is not None and self.kind not in ("claim", "prediction", "check"):
            raise ValueError(f"`effect` of {self.id!r}: only a claim, prediction or check on a world is judged by "
                             f"an effect; it is a {self.kind!r}")
        if self.combine and not re.fullmatch(r"(both|primary): \S.*", self.combine):
            raise ValueError(f"`combine` of {self.id!r} must be 'both: <ids>' or 'primary: <id>'; got {self.combine!r}")
        if self.kind not in KINDS:
            raise ValueError(f"`kind` of {self.id!r} must be one of {KINDS}; got {self.kind!r}")
        if not WORLD_PATTERN.fullmatch(self.world):
            raise ValueError(f"`world` of {self.id!r} must be 'paper', 'ours', 'synthetic: <name>' or "
                             f"'real: <name>'; got {self.world!r}")
        if self.kind in ("printed", "formula") and self.world != "paper":
            raise ValueError(f"`world`: a {self.kind!r} row is recomputed from the paper's inputs (world 'paper'); "
                             f"{self.id!r} says {self.world!r}")
        if self.kind in ("prediction", "calibration") and not self.world.startswith(("synthetic:", "real:")):
            raise ValueError(f"`world`: a {self.kind!r} row belongs to a synthetic or real world; {self.id!r} says "
                             f"{self.world!r}")
        if not (self.id and self.source and self.quote and self.criterion):
            raise ValueError(f"claim {self.id!r} must give `id`, `source`, `quote` and `criterion`")
        object.__setattr__(self, "evidence", tuple(_evidence_list(self.evidence)))
        if not self.evidence:
            raise ValueError(f"claim {self.id!r} must name the output files that will back it (`evidence`)")

    @property
    def synthetic(self) -> bool:
        """True for a claim or prediction on a synthetic world (its status comes from the estimate rule)."""
        return self.kind in ("claim", "prediction") and self.world.startswith("synthetic:")

    def record(self) -> dict:
        """The declaration as plain data: every field a confirmation depends on (for :attr:`digest`)."""
        return dict(id=self.id, source=self.source, quote=self.quote, kind=self.kind, criterion=self.criterion,
                    world=self.world, control=self.control, combine=self.combine,
                    effect=None if self.effect is None else self.effect.record())

    @property
    def digest(self) -> str:
        """A short digest of the declaration (:func:`~.estimates.declaration_digest` of :meth:`record`)."""
        return declaration_digest(self.record())

    @property
    def revision_text(self) -> str:
        """The ``revised`` column: each earlier form, and whether it came before or after the confirmation."""
        return "; ".join(x for x in (
            f"before the confirmation: {self.revised}" if self.revised else "",
            f"after the confirmation (exploratory): {self.revised_after_confirmation}"
            if self.revised_after_confirmation else "") if x)

    @property
    def members(self) -> tuple[str, ...]:
        """The ids of the rows of one sentence (:attr:`combine`), this one included."""
        if not self.combine:
            return (self.id,)
        ids = [x.strip() for x in self.combine.split(":", 1)[1].split(",")]
        return tuple(dict.fromkeys([self.id, *ids]))

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
                                  criterion=c.criterion + (f" (revised; {c.revision_text})" if c.revision_text else ""),
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
        raise ValueError(f"`claims` repeats ids: {dup}")
    return Claims(claims)
