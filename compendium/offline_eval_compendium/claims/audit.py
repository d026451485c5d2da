"""The ledger's audit: rows that break its rules (:func:`problems`), output files no row cites."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from ..paths import PAPERS, figures_root
from ..reference import parse_printed
from .rules import tolerance_too_wide
from .schema import APART, COLUMNS, UNCONFIRMED

_OVER = re.compile(r"over (\d+) seeds")
_BLOCK = re.compile(r"^(\d+)-(\d+) \((\d+) seeds\)$")
_NUM = r"(-?[0-9.,]+(?:e[+-]?\d+)?|-?inf|nan)"
_EFFECT = re.compile(rf"^effect {_NUM} \[{_NUM}, {_NUM}\] over (\d+) seeds")
_DIFF = re.compile(rf"world - control {_NUM} \[{_NUM}, {_NUM}\]")
_TOLERANCE = re.compile(r"\|ours - paper\| <= (?:rtol ([0-9.e+-]+))?(?: \+ )?(?:atol ([0-9.e+-]+))?$")


def _sweep_counts(text: str) -> list[int]:
    """The seed counts a row's value or control names (``over 20 seeds``)."""
    return [int(x) for x in _OVER.findall(text)]


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _estimate_problems(r, where) -> list[str]:
    """The estimate rule's consistency, read back from the row as shown (bounds rounded for display, so the
    comparisons are not strict): the status agrees with the effect's interval and the control's."""
    out = []
    m = _EFFECT.match(r.reproduced_value)
    if not m:
        return [f"{where}: a row judged by the estimate rule shows its effect's interval over seeds"]
    _, lo, hi = (_number(m.group(i)) for i in (1, 2, 3))
    d = _DIFF.search(r.control)
    dlo, dhi = (None, None) if not d else (_number(d.group(2)), _number(d.group(3)))
    sign = 1 if "claimed above 0" in r.criterion else -1 if "claimed below 0" in r.criterion else 0
    if r.status == "holds" and sign:
        if (lo < 0) if sign > 0 else (hi > 0):
            out.append(f"{where}: holds while its interval [{lo}, {hi}] does not lie beyond 0 as claimed")
        if r.kind == "claim" and (d is None or ((dlo < 0) if sign > 0 else (dhi > 0))):
            out.append(f"{where}: holds without a world - control interval beyond 0 in the claimed direction")
    if r.status == "inconclusive" and "seeds would be needed" not in r.note:
        out.append(f"{where}: an inconclusive row says how many seeds it would take")
    if r.status == "not tested" and r.kind == "claim" and d is not None and sign \
            and ((dlo > 0) if sign > 0 else (dhi < 0)) and ((lo > 0) if sign > 0 else (hi < 0)):
        out.append(f"{where}: not tested although world - control lies beyond 0 as claimed")
    return out


def _confirmation_problems(r, where) -> list[str]:
    """The confirmation rules of a claim or prediction on a synthetic or real world."""
    out = []
    if r.confirmation == UNCONFIRMED:
        return out
    if r.world.startswith("real:"):
        if not r.confirmation.strip():
            out.append(f"{where}: a real-data status must name the data it was confirmed on (`confirmation`)")
        return out
    conf, dev = _BLOCK.match(r.confirmation), _BLOCK.match(r.seeds)
    if not (conf and dev and r.development.strip()):
        out.append(f"{where}: a synthetic status must come from a confirmation sweep on its declared block "
                   f"(seeds {r.seeds!r}, confirmation {r.confirmation!r}, development {r.development[:30]!r})")
        return out
    n = int(conf.group(3))
    if int(dev.group(3)) != n:
        out.append(f"{where}: its development and confirmation blocks have different counts")
    if not (int(conf.group(2)) < int(dev.group(1)) or int(dev.group(2)) < int(conf.group(1))):
        out.append(f"{where}: its confirmation block overlaps its development block")
    counts = _sweep_counts(r.reproduced_value) + _sweep_counts(r.control)
    if not counts or any(k != n for k in counts):
        out.append(f"{where}: the claim and its control must run on the confirmation block's {n} seeds; "
                   f"they name {counts}")
    return out


def problems(df: pd.DataFrame) -> list[str]:
    """Rows whose kind contradicts where their value came from, or whose status is not their kind's rule's.

    The rules (one line each in the result, naming the row):

    - ``printed`` and ``formula`` rows come from the paper's inputs (world ``paper``);
    - a ``prediction`` is a seed sweep's interval on a synthetic or real world, ``within-tolerance``,
      ``differs`` or ``not tested``;
    - a ``claim`` or ``prediction`` on a synthetic world takes its status from the estimate rule (its
      declared effect's interval beside the control's), never from a share of seeds: ``holds`` only when
      its interval lies beyond 0 as claimed and world - control excludes 0, ``inconclusive`` only with the
      seeds it would take;
    - a ``calibration`` belongs to a synthetic or real world;
    - ``not tested`` only for claims and predictions on a synthetic or real world;
    - every row names its evidence; a row that differs or is not tested says why;
    - a claim or prediction on a synthetic world gets its status from the estimate rule on its declared
      confirmation block (``seeds``, ``confirmation``, the ``development`` result beside it), the claim and its
      control on that block's count of seeds; a real-data one names what confirmed it; a row of a
      notebook not yet given a confirmation block says so (``confirmation`` :data:`UNCONFIRMED`);
    - a row revised after its confirmation is ``exploratory``, and only such a row;
    - an ``ambiguous`` row shows each reading's value and says which fits;
    - a tolerance is narrower than the value it judges (:func:`~offline_eval_compendium.claims.rules.tolerance_too_wide`).

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    out = []
    df = df.reindex(columns=list(dict.fromkeys([*df.columns, *COLUMNS]))).astype(object).fillna("")
    for r in df.itertuples(index=False):
        where = f"{r.paper}/{r.claim_id}"
        world = getattr(r, "world", "")
        synthetic = world.startswith(("synthetic:", "real:"))
        after = "after the confirmation" in r.revised
        if after != (r.status == "exploratory"):
            out.append(f"{where}: a row revised after its confirmation is exploratory, and only such a row; "
                       f"got {r.status!r}")
        if r.status == "ambiguous" and not (r.note.strip() and ";" in r.reproduced_value):
            out.append(f"{where}: an ambiguous row shows every reading's value and says which fits")
        tol = _TOLERANCE.search(r.criterion)
        if tol and (tol.group(1) or tol.group(2)):
            try:
                target = parse_printed(r.paper_value)
            except ValueError:
                target = None
            if target is None or tolerance_too_wide(float(tol.group(2) or 0) + float(tol.group(1) or 0) * abs(target),
                                                    target):
                out.append(f"{where}: its tolerance is at least as wide as the value {r.paper_value!r} it judges")
        if r.kind in ("claim", "prediction") and synthetic and r.status not in APART:
            out += _confirmation_problems(r, where)
        if not r.evidence.strip():
            out.append(f"{where}: names no evidence")
        if r.status in ("differs", "not tested") and not r.note.strip():
            out.append(f"{where}: {r.status} without a note saying why")
        if r.kind in ("printed", "formula") and world != "paper":
            out.append(f"{where}: a {r.kind} row must come from the paper's printed inputs (world 'paper'), not {world!r}")
        if r.kind == "printed" and "seeds" in r.reproduced_value:
            out.append(f"{where}: a printed row carries a seed sweep (a prediction, not a printed cell)")
        if r.kind == "prediction" and (not synthetic or " seeds" not in r.reproduced_value
                                       or r.status not in ("within-tolerance", "differs", "not tested", *APART)):
            out.append(f"{where}: a prediction is a seed sweep's interval on a synthetic or real world")
        if r.kind == "calibration" and not synthetic:
            out.append(f"{where}: a calibration belongs to a synthetic or real world")
        if r.status == "not tested" and not (r.kind in ("claim", "prediction") and synthetic):
            out.append(f"{where}: `not tested` is for claims and predictions on a synthetic or real world")
        if r.kind in ("claim", "prediction") and world.startswith("synthetic:") and r.status != "exploratory" \
                and "the estimate rule" not in r.criterion:
            out.append(f"{where}: a synthetic status comes from the estimate rule (a declared effect and delta, "
                       "intervals beside the control), never from a share of seeds passing a threshold")
        if "the estimate rule" in r.criterion and r.kind in ("claim", "prediction", "check") \
                and world.startswith("synthetic:"):
            out += _estimate_problems(r, where)
    return out


#: Files under a paper's folder that are the ledger itself, not evidence.
_LEDGER_FILES = ("claims", "claims.csv", "claims.md", "declarations")


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
