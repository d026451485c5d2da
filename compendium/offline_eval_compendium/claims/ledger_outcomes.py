"""The :class:`~offline_eval_compendium.claims.Ledger`'s fill methods for qualitative claims: checks, sweeps over
seeds beside a control world, and predictions."""

from __future__ import annotations

from ..io import format_float
from ..reference import parse_printed
from .rules import SWEEP_MIN_SHARE, _interval, sweep_verdict
from .schema import _fmt


class OutcomeFills:
    """The fill methods of qualitative claims (mixed into :class:`~offline_eval_compendium.claims.Ledger`, whose
    declared rows and rules they use): a check that holds or not, a sweep over seeds beside its control world,
    and a prediction of a printed value."""

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
            raise ValueError(f"{claim_id!r} declares no effect: a status on a world comes from the declared effect, "
                             "its direction and the smallest effect that matters (Claim(effect=Effect(...)))")
        eff = decl.effect
        if (eff.direction == "=") != (printed is not None):
            raise ValueError(f"{claim_id!r}: `printed` is given for a printed value's effect (direction '=') "
                             "and only then")
        if decl.kind == "claim" and decl.control and control is None:
            raise ValueError(f"{claim_id!r} declares a control world ({decl.control}); give its `control` effect")
        if not decl.control and control is not None:
            raise ValueError(f"{claim_id!r} declares no control world; declare the mechanism it switches off")
        block = None if self.seeds is None or self._block is None else self.seeds.seeds(self._block)
        w = as_seeded(world, "world")
        c = None if control is None else as_seeded(control, "control")
        for name, s in (("world", w), ("control", c)):
            if s is not None and block is not None and tuple(s.index) != tuple(block):
                raise ValueError(f"{claim_id!r}: its {name} effect was computed on seeds {_seed_span(s.index)}; the "
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
