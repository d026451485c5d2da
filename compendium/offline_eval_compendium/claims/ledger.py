"""The :class:`Ledger`: one notebook's rows, filled from its declared claims by the rule of each kind."""

from __future__ import annotations

import pandas as pd

from ..io import format_float
from ..paths import PAPERS
from ..reference import parse_printed, printed_decimals
from .rules import SWEEP_MIN_SHARE, SeedBlocks, _interval, matches_printed, sweep_verdict, tolerance_too_wide
from .schema import COLUMNS, KINDS, STATUSES, UNCONFIRMED, Claims, _evidence_list, _fmt
from .tables import verdict

#: Which fill method may fill which kinds (a kind filled by another method contradicts its origin).
_METHOD_KINDS = {
    "printed": ("printed", "formula"),
    "erratum": ("printed", "formula"),
    "tolerance": ("printed", "formula"),
    "calibration": ("calibration",),
    "check": ("formula", "claim", "check"),
    "sweep": ("claim", "check"),
    "predict": ("prediction",),
    "readings": ("printed", "formula", "claim"),
    "judge": ("claim",),
    "add": KINDS,
}


def _twin(path: str) -> str:
    """The confirmation block's copy of a table a swept row cites: ``x/seed_sweep.csv`` -> ``x/seed_sweep_confirmation.csv``
    (cited where the notebook wrote one: :meth:`offline_eval_compendium.io.OutputDir.claims`)."""
    stem, dot, ext = path.rpartition(".")
    return f"{stem}_confirmation.{ext}" if dot and ext == "csv" else ""


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
    seeds : SeedBlocks, optional
        The notebook's seed blocks, declared before any result.  With them
        the ledger is filled once per block (:meth:`block`, development
        first, the confirmation once): every row a sweep fills takes its
        status from the confirmation block, its control beside it on the same
        seeds, and shows the development sweep beside it (:meth:`frame`).
        Without them, a claim or prediction on a synthetic or real world is
        recorded as unconfirmed (its ``confirmation`` :data:`UNCONFIRMED`).

    Examples
    --------
    >>> from offline_eval_compendium.claims import Claim, SeedBlocks, declare
    >>> table = declare(Claim("yi-x", "T1", "'x'", "claim", "c", world="synthetic: w", control="m off",
    ...                       evidence=("yi/t.csv",)))
    >>> led = Ledger("yi", "nb", claims=table, seeds=SeedBlocks("nb", 0, 5))
    >>> for name in led.blocks:
    ...     _ = led.block(name).sweep("yi-x", outcomes=[True] * 5, control=[False] * 5)
    >>> row = led.frame().iloc[0]
    >>> row["status"], row["seeds"], row["development"][:7]
    ('holds', '0-4 (5 seeds)', '5/5 see')
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

    def _check_count(self, claim_id, n, what):
        if self.seeds is not None and n != self.seeds.n:
            raise ValueError(f"{claim_id!r}: its {what} has {n} seeds; the notebook declares {self.seeds.n} for every "
                             "claim and its control")

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
            raise ValueError(f"{claim_id!r}: this ledger has a claims table; fill its rows with the fill methods")
        return self._add(claim_id, source, statement, paper_value=paper_value, reproduced_value=reproduced_value,
                         criterion=criterion, status=status, note=note, kind=kind, control=control,
                         evidence=_evidence_list(evidence), world=world, revised=revised)

    def _add(self, claim_id, source, statement, *, paper_value, reproduced_value, criterion, status, note, kind,
             control, evidence, world, revised):
        if self._blocks:
            raise ValueError(f"{claim_id!r}: a ledger with seed blocks is filled block by block (`block(name)`)")
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
        if method in ("sweep", "predict", "add") and self.claims is not None:
            self._swept.add(claim_id)
        decl = None if self.claims is None else self.claims.find(claim_id)
        if decl is not None and decl.revised_after_confirmation:
            values["note"] = "; ".join(x for x in (
                f"exploratory: changed after a confirmation result was seen (its sweeps give {status!r})",
                values.get("note", "")) if x)
            status = "exploratory"
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
        if tolerance_too_wide(bound, target):
            raise ValueError(f"{claim_id!r}: a tolerance of {bound:g} is as wide as the value {printed} it judges "
                             "(rules.tolerance_too_wide)")
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

    def readings(self, claim_id, *, printed: str, readings: dict, fits: dict | None = None, note="", evidence=(),
                 detail=""):
        """A printed value whose source the paper's text lets one read two ways: each reading's value beside it.

        ``exact`` when every reading gives the printed value; ``differs`` when none does; ``ambiguous`` when
        only some do: the reading that fits was chosen because it fits, which confirms nothing.

        Parameters
        ----------
        claim_id : str
            A declared ``printed``, ``formula`` or ``claim`` row.
        printed : str
            The printed cell.
        readings : dict of str to float
            Each reading's name and the value it gives (at least two).
        fits : dict of str to bool, optional
            Whether each reading fits, where that is not a number compared at the printed precision (the
            values of ``readings`` are then texts).
        note, evidence, detail
            As in :meth:`printed`.

        Examples
        --------
        >>> led = Ledger("yi", "nb")
        >>> led.readings("a", printed="0.12", readings={"rounded": 0.1249, "truncated": 0.1251})
        'ambiguous'
        """
        if len(readings) < 2:
            raise ValueError(f"`readings` must give at least two readings; got {list(readings)}")
        numeric = fits is None
        d = printed_decimals(printed) if numeric else 0
        fits = {k: matches_printed(v, printed) for k, v in readings.items()} if numeric else dict(fits)
        status = "exact" if all(fits.values()) else ("differs" if not any(fits.values()) else "ambiguous")
        value = "; ".join(f"{k}: {float(v):.{d + 2}f}" if numeric else f"{k}: {v}" for k, v in readings.items())
        why = ("" if status == "exact" else
               f"the printed value fits the reading(s) {[k for k, ok in fits.items() if ok]} and not "
               f"{[k for k, ok in fits.items() if not ok]}" if status == "ambiguous" else "no reading gives it")
        criterion = ((f"each reading equal to the printed value when rounded to its {d} decimal{'s' if d != 1 else ''}"
                      if numeric else "each reading against the printed values") + "; ambiguous when only some fit")
        if self.claims is None:
            return self._add(claim_id, "", claim_id, paper_value=printed, reproduced_value=value, criterion=criterion,
                             status=status, note="; ".join(x for x in (why, note) if x), kind="printed", control="",
                             evidence=_evidence_list(evidence), world="paper", revised="")
        return self._fill("readings", claim_id, None, None, kind="printed", evidence=evidence, detail=detail,
                          paper_value=printed, reproduced_value=value, criterion=criterion, status=status,
                          note="; ".join(x for x in (why, note) if x))

    def judge(self, claim_id, *, holds: bool, control_holds: bool | None, confirmation: str, reproduced_value="",
              control="", paper_value="", note="", evidence=(), detail=""):
        """A claim on real data, judged over everything it was not chosen on, beside its control.

        ``holds`` when the criterion holds and the control (the paper's mechanism absent) does not; ``not
        tested`` when both hold (the criterion does not discriminate) or there is no control; ``differs``
        when the criterion fails.

        Parameters
        ----------
        claim_id : str
            A declared ``claim`` on a ``real:`` world.
        holds : bool
            The criterion's outcome.
        control_holds : bool or None
            The same criterion on the control; None where there is none.
        confirmation : str
            What confirms it: the data or the declared rules it is judged over, none of them chosen on.
        reproduced_value, control, paper_value, note
            The row's texts.
        evidence, detail
            As in :meth:`printed`.
        """
        decl = None if self.claims is None else self.claims.find(claim_id)
        if decl is None or not decl.world.startswith("real:"):
            raise ValueError(f"{claim_id!r}: `judge` fills a declared claim on a real world")
        if not confirmation.strip():
            raise ValueError(f"{claim_id!r}: name what confirms the claim (`confirmation`)")
        notes = [note] if note else []
        if not holds:
            status = "differs"
        elif control_holds is None or control_holds:
            status = "not tested"
            notes.append("the control passes the same criterion: it does not discriminate" if control_holds else
                         "no control discriminates")
        else:
            status = "holds"
        self._fill("judge", claim_id, None, None, kind="claim", evidence=evidence, detail=detail,
                   paper_value=paper_value, reproduced_value=reproduced_value, criterion="", status=status,
                   note="; ".join(notes), control=control)
        self._rows[-1]["confirmation"] = confirmation
        return self._rows[-1]["status"]

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
              detail="", min_share=None, other_reading=None):
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
        other_reading : tuple, optional
            ``(name, outcomes, control)``: the same criterion under the paper's other reading of its text.
            When the two readings give different statuses the row is ``ambiguous``, both shown.
        """
        if min_share is not None and min_share != SWEEP_MIN_SHARE:
            raise ValueError(f"`min_share` is the one sweep rule's {SWEEP_MIN_SHARE}; got {min_share} "
                             "(pass `expected_share` where the paper's own uncertainty predicts a share)")
        declared = None if self.claims is None else self.claims.find(claim_id)
        v = sweep_verdict(outcomes, expected_share=expected_share)
        c = None if control is None else sweep_verdict(control, expected_share=expected_share)
        self._check_count(claim_id, v.n, "sweep")
        if c is not None:
            self._check_count(claim_id, c.n, "control")
        if declared is not None and declared.kind == "claim":
            if declared.control and c is None:
                raise ValueError(f"{claim_id!r} declares a control world ({declared.control}); give its `control` "
                                 "outcomes")
            if not declared.control and c is not None:
                raise ValueError(f"{claim_id!r} declares no control world; declare the mechanism it switches off")
        row_kind = kind if declared is None else declared.kind
        notes = [note] if note else []

        def decide(v, c):
            if not v.passes:
                return "differs", []
            if row_kind == "check" or (declared is None and c is None):
                return "holds", []
            if c is None:
                return "not tested", ["no control world switches the paper's mechanism off for this claim: nothing "
                                      "discriminates"]
            if c.passes:
                return "not tested", ["the control world (the paper's mechanism switched off) passes the same "
                                      "criterion: the criterion does not discriminate"]
            return "holds", []

        status, extra = decide(v, c)
        notes += extra
        if status in ("differs", "not tested") and why:
            notes.insert(len(notes) - (status == "not tested"), why() if callable(why) else why)
        if other_reading is not None:
            name, o_out, o_ctl = other_reading
            ov = sweep_verdict(o_out, expected_share=expected_share)
            oc = None if o_ctl is None else sweep_verdict(o_ctl, expected_share=expected_share)
            o_status = decide(ov, oc)[0]
            notes.append(f"under the other reading ({name}): {ov.k}/{ov.n} seeds"
                         + ("" if oc is None else f", control {oc.k}/{oc.n}") + f", {o_status}")
            if o_status != status:
                notes.insert(0, f"ambiguous: the paper admits two readings and they disagree (this one {status!r}, "
                                f"{name} {o_status!r})")
                status = "ambiguous"
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
                detail="", other_reading=None):
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
        other_reading : tuple, optional
            ``(name, values, control)``: the same cell under the paper's other reading of its text.  When the
            two readings give different statuses the row is ``ambiguous``, both intervals shown.
        """
        lo, med, hi, n = _interval(values, "values")
        self._check_count(claim_id, n, "sweep")
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
            self._check_count(claim_id, cn, "control")
            inside = clo <= target <= chi
            control_text = (f"median {format_float(cmed)}, 5-95% [{format_float(clo)}, {format_float(chi)}] over "
                            f"{cn} seeds, mechanism off: {'holds the printed value' if inside else 'excludes it'}")
            if status == "within-tolerance" and inside:
                status = "not tested"
                notes.append("the control world's interval holds the printed value too: nothing discriminates")
        if status != "within-tolerance" and why:
            notes.insert(len(notes) - (status == "not tested"), why() if callable(why) else why)
        if other_reading is not None:
            name, o_values, o_control = other_reading
            olo, omed, ohi, _ = _interval(o_values, "other_reading")
            o_status = ("differs" if not olo <= target <= ohi else "not tested" if ohi - olo > abs(target)
                        else "within-tolerance")
            if o_status == "within-tolerance" and o_control is not None:
                oclo, _, ochi, _ = _interval(o_control, "other_reading")
                o_status = "not tested" if oclo <= target <= ochi else o_status
            notes.append(f"under the other reading ({name}): median {format_float(omed)}, 5-95% "
                         f"[{format_float(olo)}, {format_float(ohi)}], {o_status}")
            if o_status != status:
                notes.insert(0, f"ambiguous: the paper admits two readings and they disagree (this one {status!r}, "
                                f"{name} {o_status!r})")
                status = "ambiguous"
        value = (f"median {format_float(med)}, 5-95% [{format_float(lo)}, {format_float(hi)}] over {n} seeds"
                 + ("" if main_seed is None else f"; main seed: {_fmt(main_seed)}"))
        return self._fill(
            "predict", claim_id, None, None, kind="prediction", evidence=evidence, detail=detail, paper_value=printed,
            reproduced_value=value, criterion="the printed value inside the seeds' 5-95% interval, which must be "
            "narrower than the printed value's magnitude", status=status, note="; ".join(notes), control=control_text,
        )

    # -- output --------------------------------------------------------------------
    def frame(self) -> pd.DataFrame:
        """The claims as a DataFrame with the ledger's :data:`COLUMNS`.

        With seed blocks, the confirmed rows: a row whose value a sweep gave (or whose value differs between
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
                ev = row["evidence"].split("; ")
                row["evidence"] = "; ".join(ev + [t for t in (_twin(e) for e in ev) if t and t not in ev])
            out.append(row)
        return out

    def _combined(self, rows: list[dict]) -> list[dict]:
        """One status per sentence: the rows a declaration's ``combine`` joins get the sentence's status."""
        if self.claims is None:
            return rows
        by_id = {r["claim_id"]: r for r in rows}
        rank = {s: i for i, s in enumerate(("differs", "not tested", "within-tolerance", "holds", "exact"))}
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
