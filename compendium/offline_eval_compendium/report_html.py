"""HTML pieces of the report: status badges, the ledger table, tables of our outputs, the count tables.

Everything reads the ledger's kinds, statuses and columns from :mod:`offline_eval_compendium.claims`
(``KINDS``, ``STATUSES``, ``COLUMNS``): a column added to the ledger is shown without a change here.

Every character as written: all text that comes from ``figures/`` (the ledger, our tables, the verdicts and
findings that quote them) reaches the page through :func:`text_html` and nothing else: HTML-escaped, never
read as Markdown or as math (a ``$`` is a dollar sign, a ``<`` a less-than sign), its ASCII sub- and
superscripts set as ``<sub>``/``<sup>`` with the ``_``/``^`` and braces kept in the text at zero size, so that
the page's text (what a reader copies, what a test reads) is the source's, character for character.  The
Markdown we write around such text (a verdict's emphasis, a finding's link) is rendered by :func:`md_html`,
whose only way to emit text is :func:`text_html`.  Every raw block sits in a ``tex2jax_ignore`` box, so
MathJax typesets only the formulas we wrote as math.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd
from markdown_it import MarkdownIt
from offline_eval.display import format_interval, reformat, significant_digits

from . import claims

__all__ = ["badge", "count_tables", "frame_html", "ledger_html", "md_html", "short_world", "status_counts_html",
           "text_html", "which_when_html", "worlds_html"]

# Colours of the statuses the report knows; any other status gets a neutral badge.
STATUS_CLASS = {"exact": "ok", "within-tolerance": "ok", "holds": "ok", "differs": "bad", "erratum": "warn",
                "not tested": "none", "exploratory": "none", "ambiguous": "none",
                "inconclusive": "none"}
BAD = ("differs", "erratum")
# The columns every row shows in its own cell; the others go to the row's details.
MAIN = ("claim_id", "kind", "source", "statement", "paper_value", "reproduced_value", "development", "status")
SHOWN = ("note",)  # shown under the statement when non-empty; the revisions go to the row's details


def esc(value) -> str:
    return html.escape(str(value))


def raw_html(text: str) -> str:
    """``text`` as a MyST block of raw HTML (a page of the report is Markdown around such blocks), in a box
    MathJax leaves alone (the formulas we write are MyST math, outside such blocks)."""
    # a fence longer than any run of backticks in the text, so that no text closes the block
    fence = "`" * max([3] + [len(run) + 1 for run in re.findall(r"`+", text)])
    return f'{fence}{{raw}} html\n<div class="tex2jax_ignore mathjax_ignore">{text}</div>\n{fence}\n'


_ARROW = re.compile(r"^(.*?) -> (\S[^>]*)$")


def _both_sweeps(r: dict) -> str:
    """Our value: the confirmation sweep's (which gives the status) and, under it, the development sweep's, its
    status (the text after ``->``) apart."""
    status = str(r.get("status", ""))
    ours = value_html(r.get("reproduced_value", ""), r.get("paper_value", ""), status=status)
    dev = str(r.get("development", "")).strip()
    if not dev:
        return ours
    m = _ARROW.match(dev)
    dev_html = value_html(dev, r.get("paper_value", ""))
    if m:
        shown = value_html(m.group(1), r.get("paper_value", ""), what=False)
        dev_html = (f'<span class="oe-val" title="{esc(dev)}">{shown}'
                    f'<span class="oe-arrow"> -&gt; {esc(m.group(2))}</span></span>')
    return (f'<div class="oe-conf"><b>confirmation</b> <span class="oe-seeds">({text_html(r.get("confirmation", ""))})'
            f'</span>: {ours}</div><div class="oe-dev"><b>development</b> <span class="oe-seeds">'
            f'({text_html(r.get("seeds", ""))})</span>: {dev_html}</div>')


def badge(status: str, count: int | None = None) -> str:
    """A status as a coloured badge, with a count when given."""
    cls = STATUS_CLASS.get(status, "none")
    n = "" if count is None else f" {count}"
    return f'<span class="oe-badge oe-{cls}">{esc(status)}{n}</span>'


_PREDICTION = re.compile(r"^median (\S+), 5-95% \[([^,\]]+), ([^\]]+)\] over (\d+) seeds(?:; main seed: (.*))?$")
#: The estimate rule's value (:meth:`~offline_eval_compendium.claims.Ledger.estimate`): its interval over the seeds.
_ESTIMATE = re.compile(r"^effect (\S+ \[[^\]]+\]) over (\d+) seeds(?:; detectable at 80% power: ([^;]+))?"
                       r"(?:; main seed: (.*))?$")
_BARE = re.compile(r"^[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?$")
# A printed value that is a number (``$3,872,481``, ``-9.96%``, ``0.14778``): only then are ours' digits matched to it.
_PRINTED_NUMBER = re.compile(r"^\$?[-+−]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?%?$")
_NUMBER = re.compile(r"[-+−]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")
# ASCII math in the ledger's text: a subscript after a one-letter name (or ``sum``), so that file names
# (``table1_tried.csv``) and ids keep their underscores; a superscript after a name, a digit or a bracket.
_MATH = re.compile(r"(?P<base>(?<![\w])(?:sum|[A-Za-z]))_(?P<sub>\{[^}]*\}|[A-Za-z0-9]+)"
                   r"|(?<=[\w)\]}])\^(?P<sup>\{[^}]*\}|\([^)]*\)|-?[\w.]+)")


def _script(tag: str, mark: str, arg: str) -> str:
    """``_{i+1}`` as ``<sub>i+1</sub>``, the ``_{`` and ``}`` kept in the text at zero size (``.oe-tex``)."""
    if arg.startswith("{"):
        return (f'<span class="oe-tex">{mark}{{</span><{tag}>{esc(arg[1:-1])}</{tag}>'
                f'<span class="oe-tex">}}</span>')
    return f'<span class="oe-tex">{mark}</span><{tag}>{esc(arg)}</{tag}>'


def text_html(text) -> str:
    """Text from ``figures/`` as HTML whose text is ``text``, character for character: the report's one way in.

    Escaped (``<``, ``&``, quotes), nothing read as Markdown or math; the ledger's ASCII math set as HTML,
    ``p_i^2`` as p<sub>i</sub><sup>2</sup>, the marks kept at zero size (a reader copying the line gets
    ``p_i^2``).  A subscript only after a one-letter name (or ``sum``); braces and parentheses group
    (``b_{i+1}``, ``M_BC^(o)``, ``10^-3``).
    """
    text = str(text)
    out, pos = [], 0
    for m in _MATH.finditer(text):
        out.append(esc(text[pos:m.start()]))
        if m.group("sub") is not None:
            out.append(esc(m.group("base")) + _script("sub", "_", m.group("sub")))
        else:
            out.append(_script("sup", "^", m.group("sup")))
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


math_html = text_html  # the name of earlier releases

_MD = MarkdownIt("commonmark", {"html": False, "typographer": False})
_MD.add_render_rule("text", lambda self, tokens, idx, options, env: text_html(tokens[idx].content))


def md_html(markdown: str) -> str:
    """Markdown we write around text from ``figures/`` (a verdict, the findings) as HTML.

    CommonMark with raw HTML off and no math: a ``<`` or ``$`` in the quoted text stays a character; every
    piece of text goes through :func:`text_html`.
    """
    return _MD.render(str(markdown))


def _numbers(text: str) -> list[str]:
    return [m.group(0) for m in _NUMBER.finditer(text)]


def _decimals(token: str) -> int | None:
    t = token.replace(",", "")
    if "e" in t.lower() or "." not in t:
        return None  # an integer is written exactly; an exponent says its own precision
    return len(t.split(".")[1])


def hides_difference(printed: str, shown: str) -> bool:
    """Does ``shown`` (our value as displayed) read as the printed value?  The same string, or every number of
    its head (before a parenthesis, a bracket or a semicolon) the printed number rounded to that number's
    decimals, with fewer decimals than printed (``0.148`` beside ``0.14778``)."""
    p, o = str(printed).strip(), str(shown).strip()
    norm = lambda t: re.sub(r"[\s,$%\u00a0]", "", t).replace("−", "-")  # noqa: E731
    if p and norm(p) == norm(o):
        return True
    if not _PRINTED_NUMBER.match(p):
        return False
    pn = _numbers(p.replace("$", ""))[0].replace(",", "").replace("−", "-")
    head = _numbers(re.split(r"\s*[(\[;]", o)[0])
    dp = _decimals(pn) or 0
    if not head:
        return False
    for tok in head:
        d = _decimals(tok)
        if d is None or d >= dp or round(float(pn), d) != float(tok.replace(",", "").replace("−", "-")):
            return False
    return True


def _lines(text: str) -> str:
    """A long value of several parts (``19/20 seeds (95%, ...); main seed: p = ...``) a part a line; the ``; `` kept."""
    parts, depth, start, text = [], 0, 0, str(text)
    for i, ch in enumerate(text):
        depth += ch in "([{" and 1 or (ch in ")]}" and -1 or 0)
        if depth == 0 and text.startswith("; ", i):
            parts.append(text[start:i])
            start = i + 2
    parts.append(text[start:])
    if len(parts) == 1:
        return text_html(text)
    return "".join(f'<span class="oe-part">{text_html(p + ("; " if i < len(parts) - 1 else ""))}</span>'
                   for i, p in enumerate(parts))


def value_html(reproduced: str, printed: str = "", *, status: str = "", what: bool = True) -> str:
    """Our value as a person reads it, beside the printed one (:mod:`offline_eval.display`).

    Digits matched to the printed value's when it is a number, thousands separators, counts as integers; a
    prediction's seed interval compact (``-38.9% [-49.8, -28.6]``), what it is (median, 5-95% of the seeds,
    the main seed) in a smaller line below; a bare number beside a printed percentage carries the ``%``; a
    value of several parts a part a line; an estimate's interval, what it is below it unless ``what`` is false
    (the development block's line).  A row that ``differs`` never reads as its printed value: while the
    shown value rounds to the printed one, it gets more digits (as many as the ledger's text has).  The
    ledger's own text stays on hover (``title``).
    """
    text = str(reproduced)
    if not text.strip():
        return ""
    p = str(printed).strip()
    unit = "%" if p.endswith("%") else ""
    digits = significant_digits(p) if _PRINTED_NUMBER.match(p) else 4
    m = _PREDICTION.match(text)
    if m:
        med, lo, hi, n, main = m.groups()
        try:
            for d in range(digits, 18):
                # a narrow column may break the line after the estimate, never inside the interval
                head = format_interval(float(med), float(lo), float(hi), digits=d, unit=unit)
                if status not in BAD or not hides_difference(p, head) or d >= len(re.sub(r"\D", "", med)):
                    break
            sub = f"median, 5-95% of {n} seeds" + (f"; main seed {reformat(main, digits=d)}" if main else "")
            head = head.replace(", ", ",\u00a0")
            return (f'<span class="oe-val oe-iv" title="{esc(text)}">{esc(head)}</span>'
                    f'<div class="oe-sub">{text_html(sub)}</div>')
        except ValueError:
            pass
    e = _ESTIMATE.match(text)
    if e:
        iv, n, detectable, main = e.groups()
        sub = (f"mean, 95% interval over {n} seeds" + (f"; detectable at 80% power {detectable}" if detectable else "")
               + (f"; main seed {main}" if main else ""))
        iv = iv.replace(", ", ",\u00a0")  # a narrow column breaks the line after the estimate, not inside
        if not what:  # the development block's line: the interval alone, what it is said once above
            return f'<span class="oe-val oe-iv" title="{esc(text)}">{esc(iv)}</span>'
        return (f'<span class="oe-val oe-iv" title="{esc(text)}">{esc(iv)}</span>'
                f'<div class="oe-sub">{text_html(sub)}</div>')
    shown = reformat(text, digits=digits)
    while status in BAD and hides_difference(p, shown) and digits < 17:
        digits += 1
        more = reformat(text, digits=digits)
        if more == shown and digits >= len(re.sub(r"\D", "", text)):
            break
        shown = more
    if unit and _BARE.match(text.strip()):
        shown += unit
    if shown == text:
        return f'<span class="oe-val">{_lines(text)}</span>'
    return f'<span class="oe-val" title="{esc(text)}">{_lines(shown)}</span>'


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
                f'{text_html(r.get("source", ""))}</div><div class="oe-statement">{text_html(r.get("statement", ""))}</div>')
        for c in SHOWN:
            if c in r and str(r[c]).strip():
                head += f'<div class="oe-{c}"><b>{c}:</b> <span class="oe-text">{text_html(r[c])}</span></div>'
        details = []
        for c in extra:
            v = str(r.get(c, ""))
            if not v.strip():
                continue
            shown = (_evidence(v, link_prefix) if c == "evidence" else
                     f'<span title="{esc(v)}">{esc(short_world(v))}</span>' if c == "world" else text_html(v))
            details.append(f'<div data-col="{esc(c)}"><b>{esc(c)}{"" if c in known else " (new column)"}:</b> '
                           f'<span class="oe-text">{shown}</span></div>')
        if details:
            revised = ", revisions" if str(r.get("revised", "")).strip() else ""
            head += (f'<details class="oe-more"><summary>criterion{revised}'
                     f' and evidence</summary>{"".join(details)}</details>')
        cls = ' class="oe-diff"' if status in BAD else ""
        data = "".join(f' data-{c}="{esc(r.get(c, ""))}"' for c in ("paper", "kind", "status", "world") if c in r)
        out.append(f'<tr{cls}{data} id="{esc(r.get("claim_id", ""))}"><td>{head}</td>'
                   f'<td class="oe-num" data-label="printed">{text_html(r.get("paper_value", ""))}</td>'
                   f'<td class="oe-num" data-label="ours">{_both_sweeps(r)}</td>'
                   f'<td data-label="status">{badge(status)}</td></tr>')
    out.append("</tbody></table>")
    if page_size:
        out.append('<nav class="oe-pager" aria-label="ledger pages"></nav>')
    return "\n".join(out)


_FLOAT = re.compile(r"^[-+]?(?:\d+\.\d*|\.\d+|\d+(?:\.\d*)?[eE][-+]?\d+)$")
_INT = re.compile(r"^[-+]?\d+$")


def _number_columns(df: pd.DataFrame) -> set:
    """The columns of numbers a reader should read through :mod:`offline_eval.display`: some cell a float
    (``2.23664e+06``, ``0.066247``), every cell a number or empty (a column of seeds or years, all integers,
    stays as written)."""
    out = set()
    for c in df.columns:
        vals = [str(v).strip() for v in df[c] if str(v).strip()]
        if vals and any(_FLOAT.match(v) for v in vals) and all(_FLOAT.match(v) or _INT.match(v) for v in vals):
            out.add(c)
    return out


def cell_html(value, *, digits: int | None = None, number: bool = False) -> str:
    """One cell of a table of ours: a number through :func:`offline_eval.display.reformat` (``2.23664e+06`` as
    ``2,236,640``; at ``digits`` significant digits when given, those of a printed cell it stands beside), the
    CSV's text on hover; any other text through :func:`text_html`."""
    text = str(value)
    if number and text.strip():
        shown = reformat(text, digits=digits) if digits else reformat(text, digits=max(significant_digits(text), 1))
        if shown != text:
            return f'<span class="oe-val" title="{esc(text)}">{esc(shown)}</span>'
    return text_html(text)


def frame_html(df: pd.DataFrame, *, max_rows: int | None = None, csv_href: str | None = None,
               caption: str | None = None, digits=None, as_written: bool = False) -> str:
    """A data frame as an HTML table scrolling inside its own box; only the first ``max_rows`` rows when longer.

    Columns of numbers read through :func:`cell_html`; ``digits(row_label, column)`` may give a cell's digits
    (those of the printed cell beside it), else the CSV's own.  ``as_written``: every cell as it is (a paper's
    printed cells).
    """
    n = len(df)
    shown = df if max_rows is None or n <= max_rows else df.head(max_rows)
    numbers = set() if as_written else _number_columns(shown)
    cols = list(shown.columns)
    head = "".join(f"<th>{text_html(c)}</th>" for c in cols)
    body = []
    for row in shown.itertuples(index=False):
        label = str(row[0]) if len(row) else ""
        cells = []
        for c, v in zip(cols, row):
            if c in numbers:
                cells.append(f'<td class="oe-n">{cell_html(v, number=True, digits=digits(label, c) if digits else None)}</td>')
            else:
                cells.append(f"<td>{text_html(v)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    cap = f"<caption>{text_html(caption)}</caption>" if caption else ""
    note = ""
    if len(shown) < n:
        note = f'<p class="oe-more-rows">The first {len(shown)} of {n} rows'
        note += f'; all of them: <a href="{esc(csv_href)}">CSV</a>.</p>' if csv_href else ".</p>"
    elif csv_href:
        note = f'<p class="oe-more-rows"><a href="{esc(csv_href)}">CSV</a></p>'
    return (f'<div class="oe-scroll"><table class="oe-table">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>{note}")


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
                cells.append(f'<td data-label="{esc(c)}">{text_html(v)}</td>')
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


# -- the arena's "which estimate to trust when" as a matrix ------------------------------------------------
_OFF = " | off: "
_SIDE = re.compile(r"^\s*(?P<verdict>[^()]*?)\s*(?:\((?P<num>[^()]*)\))?\s*$")
WW_CLASS = (("best", "best"), ("=", "tied"), ("tie", "tied"), ("worse", "worse"), ("n/a", "na"))
WW_WORD = {"best": "best", "tied": "tied", "worse": "worse", "na": "n/a"}


def _ww_side(text: str) -> tuple[str, str, str]:
    """One side of a which-when cell (``= best (-0.05)``) as (class, word, number as displayed)."""
    m = _SIDE.match(text)
    verdict, num = (m.group("verdict"), m.group("num") or "") if m else (text, "")
    cls = next((c for start, c in WW_CLASS if verdict.strip().lower().startswith(start)), "other")
    return cls, WW_WORD.get(cls, verdict.strip()), num.strip()  # the number as the file writes it (-0.00 too)


def _ww_cell(text: str) -> str:
    text = str(text)
    if not text.strip():
        return '<td class="oe-ww oe-ww-none"></td>'
    cls, word, num = _ww_side(text)
    return (f'<td class="oe-ww oe-ww-{cls}" title="{esc(text)}"><span class="oe-ww-word">{text_html(word)}</span>'
            + (f' <span class="oe-ww-num">{esc(num)}</span>' if num else "") + "</td>")


def which_when_html(df: pd.DataFrame) -> str:
    """The arena's which-estimate-when table (``figures/arena/which_when.csv``) as a matrix a person reads.

    Per world, rows the estimates, columns the mechanisms, each with where it acts and where it is switched
    off side by side; a cell says best, tied (with the best) or worse, and its number as the CSV gives it.  On
    a phone, one card per mechanism (estimate, acts, off).  Read from the file's columns as they are: the key
    is ``mechanism`` (else the first column), the groups ``world`` when present; an estimate column is one
    whose cells read ``<where it acts> | off: <switched off>``; any other column is shown under its mechanism.
    """
    cols = [str(c) for c in df.columns]
    key = "mechanism" if "mechanism" in cols else cols[0]
    group = "world" if "world" in cols and key != "world" else None
    est = [c for c in cols if c not in (key, group) and df[c].astype(str).str.contains(_OFF, regex=False).any()]
    extra = [c for c in cols if c not in (key, group) and c not in est]
    groups = list(dict.fromkeys(df[group])) if group else [None]
    out = []
    for g in groups:
        rows = df[df[group] == g] if group else df
        mine = [c for c in est if rows[c].astype(str).str.strip().ne("").any()]
        mechs = [str(m) for m in rows[key]]
        sides = {(str(r[key]), c): (str(r[c]).partition(_OFF)[0], str(r[c]).partition(_OFF)[2])
                 for r in rows.to_dict("records") for c in mine}
        notes = {str(r[key]): " · ".join(f"{c}: {r[c]}" for c in extra if str(r[c]).strip())
                 for r in rows.to_dict("records")}
        title = f"{g} world" if g is not None else "All worlds"
        out.append(f'<section class="oe-ww-world"><h3>{text_html(title)}</h3>')
        # the matrix (wide screens)
        head1 = "".join(f'<th colspan="2" scope="colgroup" class="oe-ww-mech">{text_html(m)}'
                        + (f'<div class="oe-sub">{text_html(notes[m])}</div>' if notes[m] else "") + "</th>"
                        for m in mechs)
        head2 = "".join('<th scope="col" class="oe-ww-on">acts</th><th scope="col" class="oe-ww-off">off</th>'
                        for _ in mechs)
        body = "".join(f'<tr><th scope="row">{text_html(c)}</th>'
                       + "".join(_ww_cell(sides[m, c][0]) + _ww_cell(sides[m, c][1]).replace(
                           'class="oe-ww ', 'class="oe-ww oe-ww-offside ', 1) for m in mechs) + "</tr>" for c in mine)
        out.append(f'<div class="oe-scroll oe-ww-wide"><table class="oe-ww-matrix"><thead><tr>'
                   f'<th rowspan="2" scope="col" class="oe-ww-est">estimate</th>{head1}</tr><tr>{head2}</tr></thead>'
                   f"<tbody>{body}</tbody></table></div>")
        # the cards (phones)
        cards = []
        for m in mechs:
            trs = "".join(f'<tr><th scope="row">{text_html(c)}</th>{_ww_cell(sides[m, c][0])}{_ww_cell(sides[m, c][1])}</tr>'
                          for c in mine)
            cards.append(f'<div class="oe-ww-card"><div class="oe-ww-card-head">{text_html(m)}'
                         + (f'<div class="oe-sub">{text_html(notes[m])}</div>' if notes[m] else "")
                         + '</div><table class="oe-ww-small"><thead><tr><th scope="col">estimate</th>'
                         f'<th scope="col">acts</th><th scope="col">off</th></tr></thead><tbody>{trs}</tbody></table></div>')
        out.append(f'<div class="oe-ww-cards">{"".join(cards)}</div></section>')
    return "".join(out)
