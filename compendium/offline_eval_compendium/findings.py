"""What we found, first: a few sentences per paper, generated from the claims ledger.

Per paper, from ``figures/claims.csv`` and the ledger's three count tables (never added together):

* what the paper's printed inputs recompute: how many of its printed numbers, formulas and claims reproduce,
  and the errata of the paper (where they are);
* what its synthetic (or real) worlds give: how many claims and predictions hold, differ or are not tested,
  and why the differing ones differ: the first clause of the reason the ledger gives most often.

The same text opens the report's home page and the README (between the markers :data:`START` and
:data:`END`, rewritten by ``python -m offline_eval_compendium.findings --readme``, which
``make reproduce`` runs after the ledger); a test checks that the README's block is the committed
ledger's.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

import pandas as pd

from . import claims
from .paths import FIGURES_DIR, PAPERS, PROJ_ROOT

__all__ = ["END", "START", "findings", "markdown", "readme_block", "real_logs_which_when", "update_readme",
           "which_when"]

START = "<!-- findings: generated from figures/claims.csv by offline_eval_compendium.findings; do not edit -->"
END = "<!-- /findings -->"

NAMES = {"yi": "Yi et al. (KDD 2013)", "rosset": "Rosset et al. (ICDM 2005)", "piovano": "Piovano et al.",
         "chapelle": "Chapelle (WWW 2015)", "arena": "The four papers side by side"}
OK = ("exact", "within-tolerance", "holds")
#: Statuses the count tables count apart from the confirmed ones.
APART = claims.APART


#: Each paper's headline claims (the findings state the first), in plain words, with what a practitioner may take from them where they hold:
#: ``(claim id, what the paper claims, what it means when it holds)``.  The finding itself -- the status, the
#: effect with its interval, the control's -- is read from the ledger row.
HEADLINES = {
    "yi": [("yi-S7-simulated-reliable-sweep", "simulated metrics from an auction replay predict the online outcome "
            "more reliably than AUC or RIG", "replay the logged auctions with the new model before trusting an "
            "offline metric"),
           ("yi-T5-sweep", "a model can gain offline AUC and RIG and still lose clicks online (Table 5)",
            "an offline AUC or RIG gain is no licence to skip the A/B test when the new model over-estimates "
            "low click probabilities")],
    "rosset": [("rosset-t1-robustness", "ranking-based measures (Kendall's tau, Spearman's rho) are robust where "
                "RMSE and MAE are carried by a single outlying company", "judge a regression model on heavy-tailed "
                "targets by its ranking measures as well as its residuals"),
               ("rosset-fig3-top10", "the wallet model identifies the top customers well, up to the top 10%",
                "ranking curves show where in the ranking a model can be trusted")],
    "piovano": [("piovano-T1-joint-acc-beats-offline", "re-weighting the offline confusion matrix by the live "
                 "prediction distribution (JointDis) predicts online accuracy better than the offline metric",
                 "re-weight offline metrics by the predictions seen live when the offline test set is not "
                 "representative"),
                ("piovano-T1-joint-acc-beats-inddis", "the joint distribution of the two models' predictions beats "
                 "re-weighting each model independently (IndDis)", "re-weight on the joint distribution, not model "
                 "by model")],
    "chapelle": [("chapelle-table1-eu-best-r", "the expected utility correlates better with A/B results than MSE, "
                  "weighted MSE or the utility", "rank candidate bidders by expected utility"),
                 ("chapelle-fig1-interior", "the expected utility's best beta lies strictly between the two limits "
                  "(weighted MSE and the utility)", "tune beta rather than using either limit")],
    "arena": [("arena-yi-simulated-beats-auc-rig", "yi's replay predicts the expected online outcome better than AUC "
               "and RIG",
               "prefer the replay's simulated metrics in a sponsored-search auction"),
              ("arena-chapelle-eu-best", "chapelle's expected utility predicts the RTB outcome better than its "
               "rivals", "prefer the expected utility in real-time bidding")],
}
_EFFECT_TEXT = re.compile(r"^effect (\S+ \[[^\]]+\]) over (\d+) seeds")
_DIFF_TEXT = re.compile(r"world - control (\S+ \[[^\]]+\])")
_QUANTITY = re.compile(r"effect: ((?:(?!effect: ).)+?), claimed (above 0|below 0|equal to the printed value[^;]*?); "
                       r"delta = ([^ ;]+)")


#: The estimate rule's reasons for ``not tested`` (:func:`~offline_eval_compendium.claims.estimate_verdict`).
_UNTESTED = ("no control world", "world and control are equivalent", "the control world shows the effect more",
             "the control's intervals lie there too")


def headline(row) -> str:
    """One headline claim in words: what the paper claims, what we found (the status, the effect with its
    interval over the seeds, delta, world minus control, from the row), and what it means where it holds."""
    claim_id, paper, status = row["claim_id"], row["paper"], row["status"]
    claimed, meaning = next((c, m) for i, c, m in HEADLINES[paper] if i == claim_id)
    eff = _EFFECT_TEXT.match(row["reproduced_value"])
    diff = _DIFF_TEXT.search(row["control"])
    q = _QUANTITY.search(row["criterion"])
    found = ""
    if eff:
        found = (f"{eff.group(1)} over {eff.group(2)} seeds" + (f" (delta {q.group(3)})" if q else "")
                 + (f"; mechanism off, {diff.group(1)} less" if diff else ""))
    untested = next((c.strip() for c in str(row["note"]).split(";") if c.strip().startswith(_UNTESTED)),
                    "no control discriminates")
    verdicts = {
        "holds": f"holds, {found}. So {meaning}.",
        "within-tolerance": f"holds, {found}. So {meaning}.",
        "differs": f"does not hold in our world, {found}.",
        "not tested": f"not tested, {found}: {untested}.",
        "inconclusive": f"our seeds cannot decide, {found}: {_needed(row['note'])}.",
    }
    who = "The claim" if paper == "arena" else "The paper claims"
    return f"{who} that {claimed}: {verdicts.get(status, f'counted apart ({status}), {found}.')}"


def _needed(note: str) -> str:
    m = re.search(r"(about [\d,]+|more than [\d,]+) seeds would be needed to decide", note)
    return m.group(0) if m else "more seeds would be needed"


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k} {one if k == 1 else (many or one + 's')}"


def findings(ledger: pd.DataFrame, why=None) -> list[tuple[str, str]]:
    """``[(paper, text), ...]`` in the papers' order: one or two sentences per paper, in Markdown.

    ``why(paper)``, when given, is the link to the paper's reasons row by row, named after the differing rows.
    """
    out = []
    table = pd.Series([claims.table_of(k, w) for k, w in zip(ledger["kind"], ledger["world"])], index=ledger.index)
    for paper in [p for p in PAPERS if p in set(ledger["paper"])]:
        mine = ledger["paper"] == paper
        # the confirmed statuses, as the count tables count them; exploratory and ambiguous rows apart
        apart = ledger["status"].isin(APART) | (ledger.get("confirmation", "") == claims.UNCONFIRMED)
        rec, worlds = ledger[mine & (table == "recomputed") & ~apart], ledger[mine & (table == "worlds") & ~apart]
        set_apart = ledger[mine & apart]
        sentences = []
        by_id = ledger[mine].set_index("claim_id")
        for claim_id, _, _ in HEADLINES.get(paper, [])[:1]:  # the first: the findings fit a screen
            if claim_id in by_id.index:
                sentences.append(headline(by_id.loc[claim_id].to_dict() | {"claim_id": claim_id}))
        if len(rec):
            ok, errata = rec[rec["status"].isin(OK)], rec[rec["status"] == "erratum"]
            differs = rec[rec["status"] == "differs"]
            s = (f"From the paper's printed inputs, {len(ok)} of {_n(len(rec), 'number, formula or claim', 'numbers, formulas and claims')} "
                 "recompute")
            if len(errata):
                s += f"; {_n(len(errata), 'is an erratum', 'are errata')} of the paper"
            if len(differs):
                s += f"; {len(differs)} {'differs' if len(differs) == 1 else 'differ'}"
            sentences.append(s + ".")
        if len(worlds):
            ok = worlds[worlds["status"].isin(OK)]
            differs, untested = worlds[worlds["status"] == "differs"], worlds[worlds["status"] == "not tested"]
            what = "synthetic and real worlds" if worlds["world"].str.startswith("real:").any() else "synthetic worlds"
            s = (f"On {what}, {len(ok)} of {_n(len(worlds), 'claim or prediction', 'claims and predictions')} hold")
            if len(untested):
                s += f", {len(untested)} not tested"
            if len(differs):
                s += f", {len(differs)} differ"
                if why is not None:
                    s += f" ([why, row by row]({why(paper)}))"
            sentences.append(s + ".")
        if len(set_apart):
            kinds = set_apart["status"].where(~set_apart["status"].isin(OK + ("differs", "not tested", "erratum")),
                                              "unconfirmed").value_counts()
            sentences.append("Counted apart: " + ", ".join(f"{n} {k}" for k, n in kinds.items()) + ".")
        out.append((paper, " ".join(sentences)))
    return out


def markdown(ledger: pd.DataFrame, link, why=None) -> str:
    """The findings as a Markdown list; ``link(paper)`` gives the paper's link (or ``None``), ``why`` see :func:`findings`."""
    lines = []
    for paper, text in findings(ledger, why):
        href, base = link(paper), NAMES.get(paper, paper)
        name = f"[{base}]({href})" if href else base
        lines.append(f"- **{name}{'' if base.endswith('.') else '.'}** {text}")
    return "\n".join(lines) + "\n"


#: The relative error within which an estimate of a real log's click rate counts as right (the Open Bandit study's
#: declared delta, ``studies.arena.open_bandit.RELATIVE_DELTA``: +-10%).
REAL_DELTA = 0.10
REAL_LABELS = {"ips": "IPS", "snips": "SNIPS", "dr": "DR", "dm": "direct method", "replay": "replay"}


def real_logs_which_when(figures: str | Path | None = None) -> pd.DataFrame:
    """The real logs' row of the arena's "which estimate to trust when" (the Open Bandit study's outputs
    ``figures/arena/open_bandit_estimates.csv`` and ``open_bandit_resolution.csv``; empty when absent).

    One row, mechanism "each policy from the other's logs", world "real"; per estimator a cell ``<verdict> (<what
    decides it>) | off: n/a`` (the real logs have no switched-off world): ``within +-10%`` where every (direction,
    campaign) interval of its relative error lies inside +-:data:`REAL_DELTA`, ``differs`` where an interval excludes
    0, else ``inconclusive``; ``answer`` what the sample can decide and the rows it would take."""
    base = Path(figures) if figures else FIGURES_DIR
    est_path, res_path = base / "arena" / "open_bandit_estimates.csv", base / "arena" / "open_bandit_resolution.csv"
    if not (est_path.is_file() and res_path.is_file()):
        return pd.DataFrame()
    est, res = pd.read_csv(est_path), pd.read_csv(res_path)
    row = {"mechanism": "real logs: each Open Bandit policy from the other's logs (random -> BTS, BTS -> random)",
           "world": "real"}
    decided = []
    for key, label in REAL_LABELS.items():
        part = est[(est["estimator"] == key) & est["error_low"].notna()]
        if part.empty:
            continue
        lo, hi = part["error_low"], part["error_high"]
        inside, excludes = int(((lo > -REAL_DELTA) & (hi < REAL_DELTA)).sum()), int(((lo > 0) | (hi < 0)).sum())
        verdict = ("within +-10%" if inside == len(part) else "differs" if excludes else "inconclusive")
        decided += [f"{label} {verdict} ({inside if verdict.startswith('within') else excludes}/{len(part)} pairs)"] * (
            verdict != "inconclusive")
        row[label] = (f"{verdict} ({inside}/{len(part)} intervals within +-{REAL_DELTA:.0%}, {excludes} exclude 0; "
                      f"errors {part['relative_error'].min():+.2f} to {part['relative_error'].max():+.2f}) | off: n/a")
    widths = res["relative_half_width"]
    row["answer"] = (
        ("" if not decided else f"{'; '.join(decided)}; ") + "the others cannot be told from the truth: "
        + f"the on-policy click rates' own 95% intervals are +-{widths.min():.0%} to +-{widths.max():.0%} on "
        f"{int(res['rows'].min()):,} rows per log; about {int(res['rows_for_target'].max()):,} rows per log would "
        f"pin them to +-{REAL_DELTA:.0%} (the paper's full data, about 26 million rows, can)")
    return pd.DataFrame([row])


def which_when(path: str | Path | None = None) -> str:
    """The arena's "which estimate to trust when", compact: per mechanism, the pre-registered contrast's answer and
    the estimates best or tied with the best where it acts and where it is switched off (from
    ``figures/arena/which_when.csv``; "" when it is absent).  An estimate is a column whose cells read
    ``<where it acts> | off: <where it is off>``; the other columns are the contrasts and the answer."""
    path = Path(path) if path else FIGURES_DIR / "arena" / "which_when.csv"
    if not path.is_file():
        return ""
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    estimates = [c for c in table.columns[2:] if table[c].str.contains(" | off: ", regex=False).any()]
    lines = ["| mechanism | world | the answer (pre-registered contrast) | best or tied where it acts | "
             "... and where it is switched off |", "|---|---|---|---|---|"]
    for _, row in table.iterrows():
        acts, off = [], []
        for col in estimates:
            on_side, _, off_side = row[col].partition(" | off: ")
            acts += [col] if on_side.startswith(("best", "tie")) else []
            off += [col] if off_side.startswith(("best", "tie")) else []
        answer = row["answer"] if "answer" in table.columns else ""
        lines.append(f"| {row['mechanism']} | {row['world']} | {answer} | {', '.join(acts)} | {', '.join(off)} |")
    for _, row in real_logs_which_when(path.parent.parent).iterrows():
        good = [c for c in REAL_LABELS.values() if c in row and str(row[c]).startswith("within")]
        lines.append(f"| {row['mechanism']} | {row['world']} | {row['answer']} | {', '.join(good) or 'none'} | n/a |")
    return ("\n### Which offline estimate to trust when (the arena)\n\nPer-seed differences of Spearman correlations "
            "with the expected online outcome (no A/B noise) against the estimate chosen best on the development "
            "block, on the confirmation block, Holm over every cell; a tie only within +-0.05 by two one-sided tests "
            "([`figures/arena/which_when.md`](figures/arena/which_when.md) has every estimate's gap, the "
            "pre-registered contrasts and the seeds a decision would take). The real logs' row (the Open Bandit Dataset's "
            "10,000-round sample) judges each estimator's relative error against the on-policy click rate within +-10%: "
            "[`figures/arena/open_bandit_estimates.md`](figures/arena/open_bandit_estimates.md).\n\n"
            + "\n".join(lines) + "\n")


def readme_block(ledger: pd.DataFrame) -> str:
    """The README's block, between :data:`START` and :data:`END`."""
    body = markdown(ledger, lambda p: f"figures/{p}/claims.csv")
    return (f"{START}\n## What we found\n\nGenerated from the claims ledger ([`figures/claims.md`](figures/claims.md)); "
            "the counts follow its three tables, never added together.\n\n" + body + which_when() + END)


def update_readme(readme: str | Path | None = None, ledger_csv: str | Path | None = None) -> bool:
    """Rewrite the README's findings block from the ledger; whether the file changed.

    The block goes where the markers are; a README without them gets it before its first ``## `` section.
    """
    readme = Path(readme) if readme else PROJ_ROOT / "README.md"
    ledger = pd.read_csv(Path(ledger_csv) if ledger_csv else FIGURES_DIR / "claims.csv", dtype=str,
                         keep_default_na=False)
    text = readme.read_text()
    block = readme_block(ledger)
    if START in text and END in text:
        new = text[: text.index(START)] + block + text[text.index(END) + len(END):]
    else:
        at = text.index("\n## ") + 1 if "\n## " in text else len(text)
        new = text[:at] + block + "\n\n" + text[at:]
    if new == text:
        return False
    from .io import atomic_write_text

    atomic_write_text(readme, new)
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m offline_eval_compendium.findings", description=__doc__.split("\n\n")[0])
    ap.add_argument("--readme", action="store_true", help="rewrite README.md's findings block")
    args = ap.parse_args(argv)
    ledger = pd.read_csv(FIGURES_DIR / "claims.csv", dtype=str, keep_default_na=False)
    if args.readme:
        print(f"README.md findings {'updated' if update_readme() else 'unchanged'}")
    else:
        print(markdown(ledger, lambda p: None))
    return 0


if __name__ == "__main__":
    sys.exit(main())
