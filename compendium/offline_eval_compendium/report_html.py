"""HTML pieces of the report: status badges, the ledger table, tables of our outputs, the count tables.

Everything reads the ledger's kinds, statuses and columns from :mod:`offline_eval_compendium.claims`
(``KINDS``, ``STATUSES``, ``COLUMNS``): a column added to the ledger is shown without a change here.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
from offline_eval.display import format_interval, reformat, significant_digits

from . import claims

__all__ = ["badge", "count_tables", "frame_html", "ledger_html", "short_world", "status_counts_html", "worlds_html"]

# Colours of the statuses the report knows; any other status gets a neutral badge.
STATUS_CLASS = {"exact": "ok", "within-tolerance": "ok", "holds": "ok", "differs": "bad", "erratum": "warn",
                "not tested": "none", "exploratory": "none", "ambiguous": "none",
                "inconclusive": "none"}
BAD = ("differs", "erratum")
# The columns every row shows in its own cell; the others go to the row's details.
MAIN = ("claim_id", "kind", "source", "statement", "paper_value", "reproduced_value", "development", "status")
SHOWN = ("note", "revised")  # shown under the statement when non-empty


def esc(value) -> str:
    return html.escape(str(value))


def raw_html(text: str) -> str:
    """``text`` as a MyST block of raw HTML (a page of the report is Markdown around such blocks)."""
    return "```{raw} html\n" + text + "\n```\n"


def _both_sweeps(r: dict) -> str:
    """Our value: the confirmation sweep's (which gives the status) and, under it, the development sweep's."""
    ours = value_html(r.get("reproduced_value", ""), r.get("paper_value", ""))
    dev = str(r.get("development", "")).strip()
    if not dev:
        return ours
    return (f'<div><b>confirmation</b> ({esc(r.get("confirmation", ""))}): {ours}</div>'
            f'<div class="oe-dev"><b>development</b> ({esc(r.get("seeds", ""))}): '
            f'{value_html(dev, r.get("paper_value", ""))}</div>')


def badge(status: str, count: int | None = None) -> str:
    """A status as a coloured badge, with a count when given."""
    cls = STATUS_CLASS.get(status, "none")
    n = "" if count is None else f" {count}"
    return f'<span class="oe-badge oe-{cls}">{esc(status)}{n}</span>'


_PREDICTION = re.compile(r"^median (\S+), 5-95% \[([^,\]]+), ([^\]]+)\] over (\d+) seeds(?:; main seed: (.*))?$")
_BARE = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?$")
_SUP = re.compile(r"(?<=[\w)\]}])\^(\{[^}]*\}|\([^)]*\)|-?[\w.]+)")
_SUB = re.compile(r"(?<![\w])((?:sum|[A-Za-z]))_(\{[^}]*\}|[A-Za-z0-9]+)")


def math_html(text: str) -> str:
    """Escaped text with the ledger's ASCII math set as HTML: ``p_i^2`` as p<sub>i</sub><sup>2</sup>.

    A subscript only after a one-letter name (or ``sum``), so that file names (``table1_tried.csv``) and
    ids keep their underscores; braces and parentheses group (``b_{i+1}``, ``M_BC^(o)``, ``10^-3``).
    """
    out = _SUP.sub(lambda m: f"<sup>{m.group(1)[1:-1] if m.group(1).startswith('{') else m.group(1)}</sup>", esc(text))
    return _SUB.sub(lambda m: f"{m.group(1)}<sub>{m.group(2).strip('{}')}</sub>", out)


def value_html(reproduced: str, printed: str = "") -> str:
    """Our value as a person reads it, beside the printed one (:mod:`offline_eval.display`).

    Digits matched to the printed value's, thousands separators, counts as integers; a prediction's seed
    interval compact (``-38.9% [-49.8, -28.6]``), what it is (median, 5-95% of the seeds, the main seed) in a
    smaller line below; a bare number beside a printed percentage carries the ``%``.  The ledger's own text
    stays on hover (``title``).
    """
    text = str(reproduced)
    if not text.strip():
        return ""
    unit = "%" if str(printed).strip().endswith("%") else ""
    digits = significant_digits(printed) if str(printed).strip() else 4
    m = _PREDICTION.match(text)
    try:
        if m:
            med, lo, hi, n, main = m.groups()
            # a narrow column may break the line after the estimate, never inside the interval
            head = format_interval(float(med), float(lo), float(hi), digits=digits, unit=unit).replace(", ", ",\u00a0")
            sub = f"median, 5-95% of {n} seeds" + (f"; main seed {reformat(main, digits=digits)}" if main else "")
            return f'<span class="oe-iv" title="{esc(text)}">{esc(head)}</span><div class="oe-sub">{math_html(sub)}</div>'
    except ValueError:
        pass
    shown = reformat(text, digits=digits)
    if unit and _BARE.match(text.strip()):
        shown += unit
    return shown if shown == text else f'<span title="{esc(text)}">{math_html(shown)}</span>'


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
            opts = "".join(f'<option value="{esc(v)}" title="{esc(v)}">{esc(short_world(v) if col == "world" else v)}'
                           "</option>" for v in values)
            out.append(f'<label>{col} <select class="oe-filter" data-col="{col}" aria-label="filter by {col}">'
                       f'<option value="">all</option>{opts}</select></label> ')
        out.append('<label>search <input type="search" id="oe-search" placeholder="id, statement, value..." '
                   'aria-label="search the ledger"></label> <span id="oe-count"></span></div>')
    attrs = f' data-page-size="{page_size}"' if page_size else ""
    out.append(f'<table class="oe-ledger oe-fit"{attrs}><colgroup><col class="oe-c-claim"><col class="oe-c-val">'
               '<col class="oe-c-val"><col class="oe-c-status"></colgroup>'
               '<thead><tr><th data-sort="claim">claim</th><th data-sort="printed">printed</th>'
               '<th data-sort="ours">ours</th><th data-sort="status">status</th></tr></thead><tbody>')
    for r in df.to_dict("records"):
        status = str(r.get("status", ""))
        where = f'{esc(r.get("paper", ""))} · ' if show_paper else ""
        head = (f'<div class="oe-id">{where}<code>{esc(r.get("claim_id", ""))}</code> · {esc(r.get("kind", ""))} · '
                f'{esc(r.get("source", ""))}</div><div>{math_html(r.get("statement", ""))}</div>')
        for c in SHOWN:
            if c in r and str(r[c]).strip():
                head += f'<div class="oe-{c}"><b>{c}:</b> {math_html(r[c])}</div>'
        details = []
        for c in extra:
            v = str(r.get(c, ""))
            if not v.strip():
                continue
            shown = (_evidence(v, link_prefix) if c == "evidence" else
                     f'<span title="{esc(v)}">{esc(short_world(v))}</span>' if c == "world" else math_html(v))
            details.append(f"<div><b>{esc(c)}{'' if c in known else ' (new column)'}:</b> {shown}</div>")
        if details:
            head += f'<details class="oe-more"><summary>criterion and evidence</summary>{"".join(details)}</details>'
        cls = ' class="oe-diff"' if status in BAD else ""
        data = "".join(f' data-{c}="{esc(r.get(c, ""))}"' for c in ("paper", "kind", "status", "world") if c in r)
        out.append(f'<tr{cls}{data} id="{esc(r.get("claim_id", ""))}"><td>{head}</td>'
                   f'<td class="oe-num" data-label="printed">{math_html(r.get("paper_value", ""))}</td>'
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


def short_world(world: str, width: int = 36) -> str:
    """A world's name for a cell or a menu: its kind and the name before the parenthesis, cut at ``width``."""
    text = str(world)
    head = text.split(" (")[0]
    return head if len(head) <= width else head[: width - 1].rsplit(" ", 1)[0] + "…"


def worlds_html(df: pd.DataFrame) -> str:
    """The worlds table (:func:`offline_eval_compendium.claims.worlds_table`) fitted to its column: short world
    names with the long text on hover, the calibration targets wrapped."""
    cols = list(df.columns)
    head = "".join(f"<th>{esc(c)}</th>" for c in cols)
    body = []
    for r in df.to_dict("records"):
        cells = []
        for c in cols:
            v = str(r[c])
            if c == "world":
                cells.append(f'<td data-label="{esc(c)}"><span title="{esc(v)}">{esc(short_world(v))}</span></td>')
            else:
                cells.append(f'<td data-label="{esc(c)}">{esc(v)}</td>')
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f'<table class="oe-fit oe-worlds"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table>'


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
