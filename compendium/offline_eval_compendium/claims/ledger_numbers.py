"""The :class:`~offline_eval_compendium.claims.Ledger`'s fill methods for claims about a printed number."""

from __future__ import annotations

from ..reference import parse_printed, printed_decimals
from .rules import matches_printed, tolerance_too_wide
from .schema import _evidence_list


class NumberFills:
    """The fill methods of claims about a printed number (mixed into :class:`~offline_eval_compendium.claims.Ledger`,
    whose declared rows and rules they use): equal as printed, within a tolerance, calibrated, an erratum, one
    of several readings, or judged from a run with its control."""

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
            raise ValueError(f"`atol`/`rtol` of {claim_id!r}: a tolerance of {bound:g} is as wide as the value {printed} it judges "
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
        fitted to is a :meth:`calibration`, one a world predicts an :meth:`estimate`.

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
        >>> from offline_eval_compendium.claims import Ledger
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
