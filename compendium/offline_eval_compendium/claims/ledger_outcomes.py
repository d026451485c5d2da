"""The :class:`~offline_eval_compendium.claims.Ledger`'s fill methods for qualitative claims: checks, and claims
and predictions on a synthetic or real world by the estimate rule."""

from __future__ import annotations

from .schema import _fmt


class OutcomeFills:
    """The fill methods of qualitative claims (mixed into :class:`~offline_eval_compendium.claims.Ledger`, whose
    declared rows and rules they use): a check that holds or not, and a claim, prediction or check on a synthetic
    or real world by the estimate rule (:meth:`estimate`, :meth:`judge_intervals`)."""

    # -- qualitative ---------------------------------------------------------------
    def check(self, claim_id, source=None, statement=None, *, criterion: str = "", holds: bool, paper_value="",
              reproduced_value="", note="", kind="claim", control="", evidence=(), detail=""):
        """A claim on the paper's inputs, a formula, or a check of ours: ``holds`` or ``differs``.

        A claim on a synthetic world cannot be filled here: its status comes
        from the estimate rule over its seeds (:meth:`estimate`).

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

    # -- the estimate rule -----------------------------------------------------------
    def estimate(self, claim_id, *, world, control=None, printed: str | None = None, paper_value="", main_seed="",
                 note="", why="", evidence=(), detail="", other_reading=None):
        """A claim or prediction on a synthetic or real world, judged by its declared effect's interval over the
        block's seeds beside its control world (:func:`~.estimates.estimate_verdict`).

        The effect's values must carry the seeds they were computed on (a Series indexed by seed, or
        ``(frame, column)`` of a sweep's frame); with seed blocks they must be exactly the block's seeds,
        so a status can only come from the block it names.

        Parameters
        ----------
        claim_id : str
            A declared claim, prediction or check whose declaration gives its :class:`~.estimates.Effect`.
        world : pandas.Series or (DataFrame, str)
            The effect on every seed of the block.
        control : pandas.Series or (DataFrame, str), optional
            The same on the control world, on the same seeds; required when the claim declares a control.
        printed : str, optional
            The printed cell a prediction (direction ``"="``) is judged against.
        paper_value : str, default ""
            The paper's value as the row shows it (``printed`` by default).
        main_seed : str or float, default ""
            The main seed's value, shown as an illustration (no status of its own).
        note : str, default ""
        why : str or callable, default ""
            Why the claim may differ, be untested or undecided in this world: added to the note only then.
        evidence, detail
            As in :meth:`printed`.
        other_reading : tuple, optional
            ``(name, world, control)``: the same effect under the paper's other reading of its text.  When the
            two readings give different statuses the row is ``ambiguous``, both shown.
        """
        from ..reference import parse_printed
        from .estimates import as_seeded, estimate_verdict

        if self.claims is None:
            raise ValueError("`estimate` fills a declared claim: the ledger needs a claims table")
        decl = self.claims.find(claim_id)
        if decl.effect is None:
            raise ValueError(f"`claim_id` {claim_id!r} declares no effect: a status on a world comes from the declared effect, "
                             "its direction and the smallest effect that matters (Claim(effect=Effect(...)))")
        eff = decl.effect
        if (eff.direction == "=") != (printed is not None):
            raise ValueError(f"{claim_id!r}: `printed` is given for a printed value's effect (direction '=') "
                             "and only then")
        if decl.kind == "claim" and decl.control and control is None:
            raise ValueError(f"{claim_id!r} declares a control world ({decl.control}); give its `control` effect")
        if not decl.control and control is not None:
            raise ValueError(f"`control` is given, but {claim_id!r} declares no control world; declare the mechanism "
                             "it switches off")
        block = None if self.seeds is None or self._block is None else self.seeds.seeds(self._block)
        w = as_seeded(world, "world")
        c = None if control is None else as_seeded(control, "control")
        for name, s in (("world", w), ("control", c)):
            if s is not None and block is not None and tuple(s.index) != tuple(block):
                raise ValueError(f"`{name}` of {claim_id!r}: its effect was computed on seeds {_seed_span(s.index)}; the "
                                 f"{self._block} block is {self.seeds.text(self._block)}: a status comes only from "
                                 "the block it names")
        target = None if printed is None else parse_printed(printed)
        v = estimate_verdict(w, c, effect=eff, printed=target, check=decl.kind == "check", claim=decl.kind == "claim")
        status = v.status
        notes = [note] if note else []
        notes.append(v.reason)
        if status == "inconclusive":
            notes.append(v.seeds_text())
        if status not in ("holds", "within-tolerance") and why:
            notes.append(why() if callable(why) else why)
        if other_reading is not None:
            name, o_world, o_ctl = other_reading
            ow = as_seeded(o_world, "other_reading")
            oc = None if o_ctl is None else as_seeded(o_ctl, "other_reading")
            ov = estimate_verdict(ow, oc, effect=eff, printed=target, check=decl.kind == "check",
                                 claim=decl.kind == "claim")
            notes.append(f"under the other reading ({name}): {ov.text()}"
                         + (f"; {ov.control_text()}" if oc is not None else "") + f", {ov.status}")
            if ov.status != status:
                notes.insert(0, f"ambiguous: the paper admits two readings and they disagree (this one {status!r}, "
                                f"{name} {ov.status!r})")
                status = "ambiguous"
        value = v.text() + (f"; main seed: {_fmt(main_seed)}" if main_seed != "" else "")
        self._estimates[claim_id] = v
        return self._fill(
            "estimate", claim_id, None, None, kind=decl.kind, evidence=evidence, detail=detail,
            paper_value=paper_value or (printed or ""), reproduced_value=value,
            criterion=f"{eff.text(target)}; {ESTIMATE_RULE}", status=status, note="; ".join(notes),
            control=v.control_text(),
        )


    def judge_intervals(self, claim_id, *, intervals, control=None, confirmation: str, printed: str | None = None,
                        reproduced_value="", control_text="", paper_value="", note="", evidence=(), detail=""):
        """A claim on real data by the estimate rule, over the intervals the data's own resampling gave
        (:func:`~.estimates.band_verdict`): ``differs``, ``inconclusive``, ``not tested`` or ``holds``.

        Parameters
        ----------
        claim_id : str
            A declared ``claim`` on a ``real:`` world, with its :class:`~.estimates.Effect`.
        intervals, control : sequence of (estimate, low, high)
            The claim's measures with their intervals; the same on the control.
        confirmation : str
            What confirms it (the data it is judged over, none of it chosen on).
        printed : str, optional
            The value a direction ``"="`` effect is judged against.
        reproduced_value, control_text, paper_value, note, evidence, detail
            The row's texts, as in :meth:`judge`.
        """
        from ..reference import parse_printed
        from .estimates import band_verdict

        decl = None if self.claims is None else self.claims.find(claim_id)
        if decl is None or not decl.world.startswith("real:") or decl.effect is None:
            raise ValueError(f"{claim_id!r}: `judge_intervals` fills a declared claim on a real world with its effect")
        if not confirmation.strip():
            raise ValueError(f"{claim_id!r}: name what confirms the claim (`confirmation`)")
        target = None if printed is None else parse_printed(printed)
        status, reason = band_verdict(list(intervals), None if control is None else list(control),
                                      effect=decl.effect, printed=target)
        notes = [x for x in (note, reason) if x]
        self._fill("judge", claim_id, None, None, kind="claim", evidence=evidence, detail=detail,
                   paper_value=paper_value or (printed or ""), reproduced_value=reproduced_value,
                   criterion=f"{decl.effect.text(target)}; the estimate rule over the data's own intervals",
                   status=status, note="; ".join(notes), control=control_text)
        self._rows[-1]["confirmation"] = confirmation
        return self._rows[-1]["status"]


#: The estimate rule in one sentence, as the criterion column states it.
ESTIMATE_RULE = ("the estimate rule: 95% t-intervals over the block's seeds; holds when the effect's interval lies "
                 "beyond 0 in the claimed direction (a printed value: inside its band) and world - control excludes "
                 "0; differs when it lies on the other side, inside +-delta, or outside the band; not tested when "
                 "no control discriminates; inconclusive otherwise")


def _seed_span(index) -> str:
    s = [int(i) for i in index]
    return f"{s[0]}-{s[-1]} ({len(s)} seeds)" if s else "none"
