"""HTML pieces of the report: status badges, the ledger table, tables of our outputs, the count tables.

Everything reads the ledger's kinds, statuses and columns from :mod:`offline_eval_compendium.claims`
(``KINDS``, ``STATUSES``, ``COLUMNS``): a column added to the ledger is shown without a change here.
"""

from __future__ import annotations

import html
from pathlib import Path

import pandas as pd

from . import claims

__all__ = ["badge", "count_tables", "frame_html", "ledger_html", "status_counts_html"]

# Colours of the statuses the report knows; any other status gets a neutral badge.
STATUS_CLASS = {"exact": "ok", "within-tolerance": "ok", "holds": "ok", "differs": "bad", "erratum": "warn",
                "not tested": "none", "exploratory": "none", "ambiguous": "none"}
BAD = ("differs", "erratum")
# The columns every row shows in its own cell; the others go to the row's details.
MAIN = ("claim_id", "kind", "source", "statement", "paper_value", "reproduced_value", "development", "status")
SHOWN = ("note", "revised")  # shown under the statement when non-empty


def esc(value) -> str:
    return html.escape(str(value))


def _both_sweeps(r: dict) -> str:
    """Our value: the confirmation sweep's (which gives the status) and, under it, the development sweep's."""
    ours = esc(r.get("reproduced_value", ""))
    dev = str(r.get("development", "")).strip()
    if not dev:
        return ours
    return (f'<div><b>confirmation</b> ({esc(r.get("confirmation", ""))}): {ours}</div>'
            f'<div class="oe-dev"><b>development</b> ({esc(r.get("seeds", ""))}): {esc(dev)}</div>')


def badge(status: str, count: int | None = None) -> str:
    """A status as a coloured badge, with a count when given."""
    cls = STATUS_CLASS.get(status, "none")
    n = "" if count is None else f" {count}"
    return f'<span class="oe-badge oe-{cls}">{esc(status)}{n}</span>'


def _evidence(value: str, link_prefix: str) -> str:
    return ", ".join(f'<a href="{link_prefix}figures/{esc(e)}">{esc(e)}</a>' for e in value.split("; ") if e)


def ledger_html(df: pd.DataFrame, link_prefix: str, *, filters: bool = False, page_size: int = 0,
                show_paper: bool = False) -> str:
    """Ledger rows as a table that fits its column: the claim, printed, ours, status; the rest in details.

    ``link_prefix`` leads from the page to the site's root (evidence files link to
    ``<link_prefix>figures/<file>``).  ``filters`` adds the paper/kind/status selectors (and ``world`` when
    the ledger has that column); ``page_size`` > 0 shows that many rows at a time with page buttons.
    """
    columns = [c for c in df.columns]
    known = set(getattr(claims, "COLUMNS", columns))
    extra = [c for c in columns if c not in MAIN and c not in SHOWN and c != "paper"]
    out = []
    if filters:
        out.append('<div class="oe-filters">')
        selectors = [("paper", [p for p in dict.fromkeys(df["paper"])]), ("kind", list(claims.KINDS)),
                     ("status", list(claims.STATUSES))]
        if "world" in columns:
            selectors.append(("world", sorted(v for v in set(df["world"]) if v)))
        for col, values in selectors:
            values += sorted(v for v in set(df[col]) if v and v not in values)  # values not (yet) in claims
            opts = "".join(f'<option value="{esc(v)}">{esc(v)}</option>' for v in values)
            out.append(f'<label>{col} <select class="oe-filter" data-col="{col}" aria-label="filter by {col}">'
                       f'<option value="">all</option>{opts}</select></label> ')
        out.append('<span id="oe-count"></span></div>')
    attrs = f' data-page-size="{page_size}"' if page_size else ""
    out.append(f'<table class="oe-ledger oe-fit"{attrs}><colgroup><col class="oe-c-claim"><col class="oe-c-val">'
               '<col class="oe-c-val"><col class="oe-c-status"></colgroup>'
               "<thead><tr><th>claim</th><th>printed</th><th>ours</th><th>status</th></tr></thead><tbody>")
    for r in df.to_dict("records"):
        status = str(r.get("status", ""))
        where = f'{esc(r.get("paper", ""))} · ' if show_paper else ""
        head = (f'<div class="oe-id">{where}<code>{esc(r.get("claim_id", ""))}</code> · {esc(r.get("kind", ""))} · '
                f'{esc(r.get("source", ""))}</div><div>{esc(r.get("statement", ""))}</div>')
        for c in SHOWN:
            if c in r and str(r[c]).strip():
                head += f'<div class="oe-{c}"><b>{c}:</b> {esc(r[c])}</div>'
        details = []
        for c in extra:
            v = str(r.get(c, ""))
            if not v.strip():
                continue
            shown = _evidence(v, link_prefix) if c == "evidence" else esc(v)
            details.append(f"<div><b>{esc(c)}{'' if c in known else ' (new column)'}:</b> {shown}</div>")
        if details:
            head += f'<details class="oe-more"><summary>criterion and evidence</summary>{"".join(details)}</details>'
        cls = ' class="oe-diff"' if status in BAD else ""
        data = "".join(f' data-{c}="{esc(r.get(c, ""))}"' for c in ("paper", "kind", "status", "world") if c in r)
        out.append(f'<tr{cls}{data} id="{esc(r.get("claim_id", ""))}"><td>{head}</td>'
                   f'<td class="oe-num" data-label="printed">{esc(r.get("paper_value", ""))}</td>'
                   f'<td class="oe-num" data-label="ours">{_both_sweeps(r)}</td>'
                   f'<td data-label="status">{badge(status)}</td></tr>')
    out.append("</tbody></table>")
    if page_size:
        out.append('<nav class="oe-pager" aria-label="ledger pages"></nav>')
    return "\n".join(out)


def frame_html(df: pd.DataFrame, *, max_rows: int | None = None, csv_href: str | None = None,
               caption: str | None = None) -> str:
    """A data frame as an HTML table scrolling inside its own box; only the first ``max_rows`` rows when longer."""
    n = len(df)
    shown = df if max_rows is None or n <= max_rows else df.head(max_rows)
    head = "".join(f"<th>{esc(c)}</th>" for c in shown.columns)
    body = "".join("<tr>" + "".join(f"<td>{esc(v)}</td>" for v in row) + "</tr>"
                   for row in shown.itertuples(index=False))
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    note = ""
    if len(shown) < n:
        note = f'<p class="oe-more-rows">The first {len(shown)} of {n} rows'
        note += f'; all of them: <a href="{esc(csv_href)}">CSV</a>.</p>' if csv_href else ".</p>"
    elif csv_href:
        note = f'<p class="oe-more-rows"><a href="{esc(csv_href)}">CSV</a></p>'
    return (f'<div class="oe-scroll"><table class="oe-table">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>{note}")


def collapsed(summary: str, inner: str, *, open_: bool = False) -> str:
    return f'<details class="oe-collapse"{" open" if open_ else ""}><summary>{summary}</summary>{inner}</details>'


def csv_frame(path: Path) -> pd.DataFrame:
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def status_counts_html(statuses) -> str:
    """Badges with counts, ``holds 3 · differs 1``, in the order of ``claims.STATUSES``."""
    counts = pd.Series(list(statuses), dtype=object).value_counts()
    order = [s for s in claims.STATUSES if s in counts] + [s for s in counts.index if s not in claims.STATUSES]
    return " ".join(badge(s, int(counts[s])) for s in order) or '<span class="oe-muted">no ledger row</span>'


def count_tables(ledger: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """The ledger's three count tables (:func:`offline_eval_compendium.claims.count_tables`) with their titles."""
    return [(claims.COUNT_TABLES[k], t) for k, t in claims.count_tables(ledger).items()]
