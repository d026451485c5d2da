"""The :class:`Ledger`: one notebook's rows, filled from its declared claims by the rule of each kind."""

from __future__ import annotations

import pandas as pd

from ..paths import PAPERS
from .rules import SeedBlocks
from .schema import COLUMNS, KINDS, STATUSES, UNCONFIRMED, Claims, _evidence_list, _fmt
from .tables import verdict
from .ledger_numbers import NumberFills
from .ledger_outcomes import OutcomeFills

#: Which fill method may fill which kinds (a kind filled by another method contradicts its origin).
_METHOD_KINDS = {
    "printed": ("printed", "formula"),
    "erratum": ("printed", "formula"),
    "tolerance": ("printed", "formula"),
    "calibration": ("calibration",),
    "check": ("formula", "claim", "check"),
    "estimate": ("claim", "prediction", "check"),
    "readings": ("printed", "formula", "claim"),
    "judge": ("claim",),
    "add": KINDS,
}


def _twin(path: str) -> str:
    """The confirmation block's copy of a table a swept row cites: ``x/seed_sweep.csv`` -> ``x/seed_sweep_confirmation.csv``
    (cited where the notebook wrote one: :meth:`offline_eval_compendium.io.OutputDir.claims`)."""
    stem, dot, ext = path.rpartition(".")
    return f"{stem}_confirmation.{ext}" if dot and ext == "csv" else ""


class Ledger(NumberFills, OutcomeFills):
    """Claims of one notebook about one paper.

    The fill methods of each family of claims live beside it: :class:`~.ledger_numbers.NumberFills`
    (:meth:`printed`, :meth:`tolerance`, :meth:`calibration`, :meth:`erratum`, :meth:`readings`, :meth:`judge`)
    and :class:`~.ledger_outcomes.OutcomeFills` (:meth:`check`, :meth:`estimate`, :meth:`judge_intervals`).

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
    seeds : SeedBlocks, optional
        The notebook's seed blocks, declared before any result.  With them
        the ledger is filled once per block (:meth:`block`, development
        first, the confirmation once): every row the estimate rule fills
        (:meth:`estimate`) takes its status from the confirmation block, its
        control beside it on the same seeds, and shows the development
        block's result beside it (:meth:`frame`).
        Without them, a claim or prediction on a synthetic or real world is
        recorded as unconfirmed (its ``confirmation`` :data:`UNCONFIRMED`).

    Examples
    --------
    >>> import pandas as pd
    >>> from offline_eval_compendium.claims import Claim, Effect, SeedBlocks, declare
    >>> table = declare(Claim("yi-x", "T1", "'x'", "claim", "c", world="synthetic: w", control="m off",
    ...                       evidence=("yi/t.csv",), effect=Effect("gap", ">", 0.1, "stated")))
    >>> led = Ledger("yi", "nb", claims=table, seeds=SeedBlocks("nb", 0, 5))
    >>> for name in led.blocks:
    ...     seeds = led.seeds.seeds(name)
    ...     _ = led.block(name).estimate("yi-x", world=pd.Series([1.0, 2, 1, 2, 1], index=seeds),
    ...                                  control=pd.Series(0.0, index=seeds))
    >>> row = led.frame().iloc[0]
    >>> row["status"], row["seeds"], row["development"][:7]
    ('holds', '0-4 (5 seeds)', 'effect ')
    """

    def __init__(self, paper: str, notebook: str, claims: Claims | None = None, *, seeds: SeedBlocks | None = None,
                 _block: str | None = None):
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
        self._swept: set[str] = set()
        self._estimates: dict = {}
        self._records = None
        self._digests: dict = {}
        if seeds is not None and not isinstance(seeds, SeedBlocks):
            raise TypeError(f"`seeds` must be SeedBlocks; got {type(seeds).__name__}")
        if seeds is not None and claims is None:
            raise ValueError("`seeds` need a claims table: a confirmation confirms declared claims")
        self.seeds = seeds
        self._block = _block
        self._blocks = {} if seeds is None or _block else {
            b: Ledger(paper, notebook, claims, seeds=seeds, _block=b) for b in SeedBlocks.BLOCKS}

    # -- seed blocks -----------------------------------------------------------------
    @property
    def blocks(self) -> tuple[str, ...]:
        """The seed blocks to fill, in order: ``("development", "confirmation")`` (none without ``seeds``)."""
        return tuple(self._blocks)

    def block(self, name: str) -> "Ledger":
        """The ledger of one seed block: fill it with the block's sweeps (its seeds: ``seeds.seeds(name)``).

        Parameters
        ----------
        name : str
            ``"development"`` or ``"confirmation"``.
        """
        if name not in self._blocks:
            raise ValueError(f"`name` must be one of {self.blocks}; got {name!r}")
        if name == "confirmation" and not self._blocks["development"]._rows:
            raise ValueError("fill the development block first: the confirmation runs the frozen criteria once")
        return self._blocks[name]

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
            raise ValueError(f"{claim_id!r} is a claim on a synthetic world: its status comes from the estimate "
                             "rule over its seeds beside its control (`estimate`), never from one run")
        ev = list(decl.evidence) + [e for e in _evidence_list(evidence) if e not in decl.evidence]
        stmt = decl.quote + (f" ({detail})" if detail else "")
        return (decl.source, stmt, decl.kind, decl.world, decl.control, ev, decl.revision_text, decl.criterion)

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
            raise ValueError(f"`source` of {claim_id!r}: this ledger has a claims table; fill its rows with the fill "
                             "methods")
        return self._add(claim_id, source, statement, paper_value=paper_value, reproduced_value=reproduced_value,
                         criterion=criterion, status=status, note=note, kind=kind, control=control,
                         evidence=_evidence_list(evidence), world=world, revised=revised)

    def _add(self, claim_id, source, statement, *, paper_value, reproduced_value, criterion, status, note, kind,
             control, evidence, world, revised):
        if self._blocks:
            raise ValueError(f"`claim_id` {claim_id!r}: a ledger with seed blocks is filled block by block "
                             "(`block(name)`)")
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
                seeds="",
                confirmation="",
                development="",
            )
        )
        return status

    def _fill(self, method, claim_id, source, statement, *, kind, evidence, detail, criterion, status, control="",
              **values):
        src, stmt, kind, world, control_world, ev, revised, declared = self._declared(
            method, claim_id, source, statement, kind, evidence, detail)
        full = "; ".join(x for x in (declared, criterion) if x)
        if method == "estimate":
            self._swept.add(claim_id)
        decl = None if self.claims is None else self.claims.find(claim_id)
        if decl is not None and decl.revised_after_confirmation:
            values["note"] = "; ".join(x for x in (
                f"exploratory: changed after a confirmation result was seen (its sweeps give {status!r})",
                values.get("note", "")) if x)
            status = "exploratory"
        return self._add(claim_id, src, stmt, criterion=full, status=status, kind=kind, control=control,
                         evidence=ev, world=world, revised=revised, **values)

    # -- output --------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The claims as a DataFrame with the ledger's :data:`COLUMNS`.

        With seed blocks, the confirmed rows: a row the estimate rule filled (or whose value differs between
        the blocks) is the confirmation block's, with both blocks named (``seeds``: the development block,
        ``confirmation``) and the development result beside it (``development``); every other row must be
        the same in both blocks.  Rows of one sentence measured two ways get one status (``combine``).
        """
        if self._blocks:
            rows = self._confirmed_rows()
        else:
            rows = [dict(r) for r in self._rows]
            if self._block is None:
                for r in rows:
                    if r["claim_id"] in self._swept and r["kind"] in ("claim", "prediction") \
                            and r["world"].startswith(("synthetic:", "real:")):
                        r["confirmation"] = UNCONFIRMED
        return pd.DataFrame(self._combined(rows), columns=COLUMNS)

    def _confirmed_rows(self) -> list[dict]:
        dev_ledger, conf_ledger = self._blocks["development"], self._blocks["confirmation"]
        dev = {r["claim_id"]: r for r in dev_ledger._rows}
        conf = conf_ledger._rows
        if not conf:
            raise ValueError(f"{self.notebook}: the confirmation block is not filled; a status comes from it")
        if [r["claim_id"] for r in conf] != list(dev):
            raise ValueError(f"{self.notebook}: the two seed blocks fill different rows: "
                             f"{sorted(set(dev) ^ {r['claim_id'] for r in conf})[:5]}")
        compared = ("reproduced_value", "status", "control", "note", "paper_value", "kind", "criterion")
        out = []
        for r in conf:
            d, row = dev[r["claim_id"]], dict(r)
            swept = r["claim_id"] in conf_ledger._swept or any(r[c] != d[c] for c in compared)
            if swept:
                row["seeds"] = self.seeds.text("development")
                row["confirmation"] = self.seeds.text("confirmation")
                row["development"] = (d["reproduced_value"] + (f"; control: {d['control']}" if d["control"] else "")
                                      + f" -> {d['status']}")
                if d["status"] != r["status"]:
                    row["note"] = "; ".join(x for x in (
                        f"the confirmation sweep gives {r['status']!r} where the development sweep gave "
                        f"{d['status']!r}: the status is the confirmation's", r["note"]) if x)
                if r["claim_id"] in conf_ledger._estimates:
                    self._on_record(row)
                    self._sized(row, dev_ledger._estimates.get(r["claim_id"]))
                ev = row["evidence"].split("; ")
                row["evidence"] = "; ".join(ev + [t for t in (_twin(e) for e in ev) if t and t not in ev])
            out.append(row)
        return out

    def _on_record(self, row: dict) -> None:
        """An estimate row against the registry (:mod:`~.registry`): the superseded runs shown, and
        ``exploratory`` when the declaration changed after its block's confirmation first ran."""
        from . import registry

        if self._records is None:
            self._records = registry.load(self.notebook)
        decl = self.claims.find(row["claim_id"])
        state, superseded = registry.judge(self._records, row["claim_id"], row["confirmation"], decl.digest)
        self._digests[row["claim_id"]] = (row["confirmation"], decl.digest, row["status"], row["reproduced_value"])
        row["revised"] = "; ".join(x for x in (row["revised"], self.seeds.superseded_text(), superseded) if x)
        if state == "changed":
            row["revised"] = "; ".join(x for x in (row["revised"], (
                "after the confirmation (exploratory): the declaration (criterion, effect, delta, world, control) "
                f"differs from the one recorded when block {row['confirmation']} first ran; declare a new block")) if x)
            row["note"] = "; ".join(x for x in (
                f"exploratory: its declaration changed after its confirmation ran (the block gives {row['status']!r})",
                row["note"]) if x)
            row["status"] = "exploratory"

    def _sized(self, row: dict, dev) -> None:
        """The seeds the development block's spread asks of the confirmation, for a 95% half-width of delta."""
        from .estimates import seeds_for_half_width

        if dev is None:
            return
        decl = self.claims.find(row["claim_id"])
        half = (dev.band[1] - dev.band[0]) / 2
        need = seeds_for_half_width(dev.deciding, half)
        has = self.seeds.n
        text = (f"the development block's spread asks for {need} seeds for a 95% half-width of delta "
                f"({decl.effect.delta:g}{' of the printed magnitude' if decl.effect.relative else ''}); the "
                f"confirmation block has {has}" + ("" if need <= has else ", the notebook's declared size"))
        row["note"] = "; ".join(x for x in (row["note"], text) if x)

    def declarations(self) -> pd.DataFrame:
        """The estimate rows' declarations on their confirmation block: claim, block, digest, status, value
        (``<paper>/declarations/<notebook>.csv``, which ``make register`` appends to the registry)."""
        from . import registry

        self.frame()
        rows = [dict(claim_id=k, block=b, digest=d, status=s, value=v) for k, (b, d, s, v) in self._digests.items()]
        return pd.DataFrame(rows, columns=registry.COLUMNS)

    def _combined(self, rows: list[dict]) -> list[dict]:
        """One status per sentence: the rows a declaration's ``combine`` joins get the sentence's status."""
        if self.claims is None:
            return rows
        by_id = {r["claim_id"]: r for r in rows}
        rank = {s: i for i, s in enumerate(("differs", "inconclusive", "not tested", "within-tolerance", "holds",
                                            "exact"))}
        for decl in self.claims:
            if not decl.combine or decl.id not in by_id:
                continue
            members = [by_id[i] for i in decl.members if i in by_id]
            if len(members) != len(decl.members):
                raise ValueError(f"{decl.id!r} combines {decl.members}; rows missing: "
                                 f"{[i for i in decl.members if i not in by_id]}")
            how, named = decl.combine.split(":", 1)
            if how == "both":
                status = min((m["status"] for m in members), key=lambda x: rank.get(x, -1))
                why = f"one sentence measured {len(members)} ways, declared to hold only when every one holds"
            else:
                status = by_id[named.strip()]["status"]
                why = f"one sentence; its declared primary measure is {named.strip()}"
            for m in members:
                if m["status"] != status:
                    m["note"] = "; ".join(x for x in (f"{why}: the sentence is {status!r} (this measure alone: "
                                                      f"{m['status']!r})", m["note"]) if x)
                    m["status"] = status
                elif why not in m["note"]:
                    m["note"] = "; ".join(x for x in (why, m["note"]) if x)
        return rows

    def unfilled(self) -> list[str]:
        """The declared claims (ids or patterns) that no row fills: a notebook must fill them all."""
        if self.claims is None:
            return []
        if self._blocks:
            return sorted({i for b in self._blocks.values() for i in b.unfilled()})
        ids = [r["claim_id"] for r in self._rows]
        return [c.id for c in self.claims if not any(c.matches(i) for i in ids)]

    def counts(self) -> dict:
        """Number of claims per status."""
        df = self.frame()
        return {s: int((df["status"] == s).sum()) for s in STATUSES}

    def verdict(self) -> str:
        """A short written verdict of this notebook's claims (:func:`verdict`)."""
        return verdict(self.frame())
