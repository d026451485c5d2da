"""The ledger's tables: the three count tables, the worlds table, the written verdict, and :func:`gather`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..io import atomic_write_text, to_csv, to_markdown, write_table
from ..paths import PAPERS, figures_root
from ..reference import parse_printed
from .audit import problems
from .schema import APART, COLUMNS, KINDS, REPRODUCTION_KINDS, STATUSES, UNCONFIRMED

#: The three count tables (:func:`count_tables`): their keys and titles.
COUNT_TABLES = {
    "recomputed": "The papers' printed numbers, formulas and claims, recomputed from their printed inputs",
    "worlds": "The papers' claims and predictions on synthetic (or real) worlds",
    "own": "Calibrations and our own checks",
}


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


def chance_text(df: pd.DataFrame) -> str:
    """How many of the estimate rule's ``holds`` the intervals' level lets through by chance.

    A row holds when two one-sided tests at 2.5% both reject (the world's effect beyond 0, and world minus
    control beyond 0), so a row whose world has no effect holds by chance with probability at most 2.5%;
    over ``m`` rows judged by the rule, at most ``0.025 m`` are expected to.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger.
    """
    judged = df[df["criterion"].str.contains("the estimate rule", regex=False)
                & ~df["kind"].isin(("check", "calibration"))]
    held = int(judged["status"].isin(("holds", "within-tolerance")).sum())
    return (f"The level, across the ledger: {len(judged)} claims and predictions are judged by intervals at 95% "
            f"(each side a one-sided test at 2.5%); a row whose world has no effect holds by chance with probability "
            f"at most 2.5%, so of the {held} that hold or are within tolerance, at most "
            f"{0.025 * len(judged):.1f} are expected by chance if none of the effects were real.")


def count_tables(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The three count tables of a ledger frame (:data:`COUNT_TABLES`).

    Each counts the confirmed statuses and their ``total``; after it, apart and never in the total, the
    ``exploratory`` and ``ambiguous`` rows and (worlds) the rows no confirmation block has judged yet.

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

    unconfirmed = (df["confirmation"] == UNCONFIRMED) if "confirmation" in df else pd.Series(False, index=df.index)

    def table(rows, statuses, apart):
        confirmed = rows[~rows["status"].isin(APART) & ~unconfirmed.loc[rows.index]]
        t = pd.crosstab(confirmed["paper"], confirmed["status"]).reindex(index=papers, columns=list(statuses),
                                                                         fill_value=0)
        t["total"] = t.sum(axis=1)
        for s in apart:
            rows_s = rows[unconfirmed.loc[rows.index]] if s == "unconfirmed" else rows[rows["status"] == s]
            t[s] = rows_s["paper"].value_counts().reindex(papers, fill_value=0)
        t.loc["all"] = t.sum(axis=0)
        return t.reset_index().rename(columns={"index": "paper"})

    confirmed_statuses = [s for s in STATUSES if s not in APART]
    rec = table(df[group == "recomputed"], [s for s in confirmed_statuses if s != "not tested"], APART)
    worlds = table(df[group == "worlds"], [s for s in confirmed_statuses if s not in ("exact", "erratum")],
                   (*APART, "unconfirmed"))
    own_rows = df[group == "own"]
    own = pd.crosstab(own_rows["paper"], [own_rows["kind"], own_rows["status"]])
    own.columns = [f"{k} {s}" for k, s in own.columns]
    cols = [f"{k} {s}" for k in ("calibration", "check") for s in STATUSES if f"{k} {s}" in own.columns]
    own = own.reindex(index=papers, columns=cols, fill_value=0)
    own.loc["all"] = own.sum(axis=0)
    return {"recomputed": rec, "worlds": worlds, "own": own.reset_index().rename(columns={"index": "paper"})}




def worlds_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each synthetic or real world of a ledger: what its knobs were fitted to, and what it predicts.

    One row per (paper, world) that has a calibration, a prediction or a
    claim: the calibration targets (``claim id = printed value``), the
    predictions by status (within tolerance of the printed value, differs,
    inconclusive, not tested: the estimate rule's), and the claims by status.

    Parameters
    ----------
    df : pandas.DataFrame
        A ledger (columns :data:`COLUMNS`).
    """
    rows = []
    synthetic = df[df["world"].astype(str).str.startswith(("synthetic:", "real:"))]
    count = lambda g, statuses: " / ".join(str(int((g["status"] == s).sum())) for s in statuses)  # noqa: E731
    for (paper, world), g in synthetic.groupby(["paper", "world"], sort=False):
        cal = g[g["kind"] == "calibration"]
        pred = g[g["kind"] == "prediction"]
        cl = g[g["kind"] == "claim"]
        if not (len(cal) or len(pred) or len(cl)):
            continue
        rows.append({
            "paper": paper, "world": world.split(": ", 1)[1],
            "calibrated on": "; ".join(f"{c.removeprefix(paper + '-')} = {v}"
                                       for c, v in zip(cal["claim_id"], cal["paper_value"])) or "–",
            "predictions": len(pred),
            "predictions within / differs / inconclusive / not tested":
                count(pred, ("within-tolerance", "differs", "inconclusive", "not tested")),
            "claims holds / differs / inconclusive / not tested":
                count(cl, ("holds", "differs", "inconclusive", "not tested")),
        })
    order = {p: i for i, p in enumerate(PAPERS)}
    # the counts before the long texts: a narrow screen shows them without scrolling
    out = pd.DataFrame(rows, columns=["paper", "predictions", "predictions within / differs / inconclusive / not tested",
                                      "claims holds / differs / inconclusive / not tested", "world", "calibrated on"])
    return out.sort_values("paper", key=lambda s: s.map(order), kind="stable").reset_index(drop=True)


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
    >>> from offline_eval_compendium.claims import Ledger
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
    arena = "paper" in df and len(df) and (df["paper"] == "arena").all()
    whose = ("the arena's claims (each paper's claim tested where its mechanism acts, beside a control)" if arena
             else "the paper's numbers and claims checked here")
    lines = [f"**Verdict.** Of {len(repro)} of {whose}, {len(ok)} {('holds' if len(ok) == 1 else 'hold') if arena else 'reproduce'}"
             + (f" ({parts})" if parts and not arena else "")
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


def _with_confirmation_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A notebook's ledger written before the seed blocks existed, with them: its sweeps unconfirmed."""
    if "confirmation" in df.columns:
        return df
    df = df.copy()
    swept = df["kind"].isin(("claim", "prediction")) & df["world"].str.startswith(("synthetic:", "real:"))
    df["seeds"], df["development"] = "", ""
    df["confirmation"] = [UNCONFIRMED if s else "" for s in swept]
    return df[COLUMNS]


def gather(output_root: str | Path | None = None) -> pd.DataFrame:
    """Collect every notebook's claims into the ledger files.

    Writes ``<root>/<paper>/claims.csv`` (all claims of that paper),
    ``<root>/claims.csv`` and ``<root>/claims.md`` (every paper, with the
    count tables of :func:`count_tables`).  Returns the combined frame.
    Refuses (``ValueError``) unknown statuses or kinds, repeated claim ids,
    evidence files that do not exist, and rows that break the ledger's rules
    (:func:`problems`: a kind that contradicts its value's origin, a
    synthetic status not from the estimate rule beside its control, a row without evidence).

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
        df = pd.concat([_with_confirmation_columns(pd.read_csv(f, dtype=str, keep_default_na=False))
                        for f in files], ignore_index=True)
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
        "worlds": "Kinds `prediction` (a printed cell predicted by a synthetic world) and `claim` (a claim of the "
                  "paper on a synthetic or real world). Each declares, before any run, the effect its sentence is about "
                  "(computed on every seed), its claimed direction or printed value, and the smallest effect that "
                  "matters (delta). Its status comes from the confirmation block of seeds no development run used, "
                  "the development result beside it: the effect's mean with its 95% t-interval over the seeds, and "
                  "the paired interval of world minus control (the paper's mechanism switched off on the same seeds). "
                  "`holds` (a prediction: `within-tolerance`): the interval lies beyond 0 as claimed (inside the "
                  "printed value's band) and world - control excludes 0; `differs`: it lies on the other side, inside "
                  "+-delta, or outside the band; `not tested`: no control discriminates. After the total, counted "
                  "apart: `inconclusive` (the seeds cannot decide; the row says how many would), `exploratory` "
                  "(changed after a confirmation result was seen), `ambiguous` (a reading chosen because it fits) "
                  "and `unconfirmed` (a notebook not yet given a confirmation block).",
        "own": "A `calibration` is a printed value the synthetic world's knobs were fitted to: shown beside the paper "
               "and never counted as a reproduction. A `check` is a check of ours (an identity of our code, anything "
               "that holds by construction).",
    }
    for key, title in COUNT_TABLES.items():
        md += [f"## {title}", "", explain[key], "", to_markdown(tables[key]), ""]
        if key == "worlds":
            md += [chance_text(all_claims), ""]
    md += ["## The worlds: what each was fitted to, what it predicts", "",
           "Each synthetic or real world, the printed values its knobs were fitted to (its calibrations), and the "
           "printed cells it predicts out of sample, by the estimate rule's status: within tolerance when the "
           "prediction's interval over the seeds lies inside the printed value's band. A world knob is never fitted "
           "to a number it then claims to reproduce.", "",
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
