"""The report in a real browser: every page loads, no broken link or image, no console error, no request
leaves the machine; tables fit their column at 1400 px and at 390 px, paper pages stay below
``MAX_SCREENS`` screens, math is typeset, every table and figure of the papers has its section with the
printed values and statuses, and the API page lists every public name.  The site shows one run: every
executed notebook's page shows the parameters of ``figures/manifest/reproduce.yaml``, and every footer names
that run; the home page fits about three screens; the API reference shows no raw reStructuredText.

Runs on the site ``make report`` built (``build/report/html``; ``OFFLINE_EVAL_REPORT`` points
elsewhere) in headless Chromium driven by playwright: one already on the machine (``$CHROMIUM``, on ``PATH``, or
Playwright's own; ``browsers.find_chromium``).  ``make test-report`` builds the site and runs this file with
``OFFLINE_EVAL_REQUIRE_REPORT=1``, so that a missing site or browser fails, saying how to get one, instead of
skipping.  ``make test`` runs the checks that need no browser
when the site has been built and skips the browser's (about two and a half minutes: ``make test-report`` runs
them, or ``OFFLINE_EVAL_REPORT_TEST=1``).  Screenshots of the home page and of one paper page are saved beside the site
(``build/report/screenshots/``): the home page, a paper page, a section of it and the ledger, at both widths.

Every character as written (issue 51): on every page, at 1400 and at 390 px, the text of every ledger row (its
statement, note, printed value, ours, the details) and of every verdict line that quotes a row is the ledger's
own text (``figures/claims.csv``), no ``<``, ``$`` or ``_`` lost; no row that ``differs`` shows ours as its
printed value.  A test plants such characters and such a row in a fixture and shows that the check fails on
them when they are rendered as MyST renders Markdown (dollar math, raw HTML) or unescaped.
"""

import ast
import functools
import re
import http.server
import os
import threading
import urllib.parse
from pathlib import Path

import pandas as pd
import pytest

import offline_eval
from offline_eval_compendium.paths import BUILD_DIR, FIGURES_DIR
from offline_eval_compendium.report_papers import ITEMS

from browsers import ChromiumNotFound, find_chromium

SITE = Path(os.environ.get("OFFLINE_EVAL_REPORT", BUILD_DIR / "report" / "html"))
REQUIRED = os.environ.get("OFFLINE_EVAL_REQUIRE_REPORT") == "1"
WIDE, NARROW = {"width": 1400, "height": 1000}, {"width": 390, "height": 844}
MAX_SCREENS = 15  # no paper page taller than 15 screens of 1000 px at 1400 px wide
HOME_SCREENS = 3.2  # the home page: what we found, the papers, the folded count tables (about three screens)
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]


def _skip_or_fail(reason):
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def server():
    if not (SITE / "index.html").is_file():
        _skip_or_fail(f"no report at {SITE}: run `make report`")
    handler = functools.partial(QuietHandler, directory=str(SITE))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def browser():
    if not (REQUIRED or os.environ.get("OFFLINE_EVAL_REPORT_TEST") == "1"):
        pytest.skip("the browser tests run in make test-report (or with OFFLINE_EVAL_REPORT_TEST=1)")
    playwright = pytest.importorskip("playwright.sync_api") if not REQUIRED else __import__(
        "playwright.sync_api", fromlist=["sync_playwright"])
    try:
        chromium, _ = find_chromium()
    except ChromiumNotFound as exc:
        _skip_or_fail(str(exc))
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=FLAGS, headless=True)
        yield b
        b.close()


def _internal(base, href):
    url = urllib.parse.urljoin(base, href)
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ("http", "https") and url.startswith(base.split("/", 3)[0] + "//" + parts.netloc), \
        urllib.parse.urlunsplit(parts._replace(fragment=""))


def test_every_page_loads_with_no_broken_link_image_or_console_error_and_fits_at_1400px(server, browser):
    """The crawl of every page, at 1400 px: what loads, what links, and the layout at that width (one visit of
    each page for both; the layout at 390 px is the next test's)."""
    page = _offline_page(browser, server, WIDE)
    errors, layout, heights, texts = [], [], {}, []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text} ({page.url})") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e} ({page.url})"))
    # A request cut short by the next navigation (net::ERR_ABORTED) is the crawler's doing, not the site's.
    page.on("requestfailed", lambda r: None if "ERR_ABORTED" in (r.failure or "") else errors.append(
        f"request failed: {r.url}: {r.failure} ({page.url})"))
    todo, seen, checked, problems = [server], set(), {}, []
    while todo:
        url = todo.pop()
        if url in seen:
            continue
        seen.add(url)
        response = page.goto(url, wait_until="load")
        if response is None or response.status != 200:
            problems.append(f"{url}: status {None if response is None else response.status}")
            continue
        broken = page.evaluate("Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)")
        problems += [f"{url}: broken image {src}" for src in broken]
        layout += [f"{url}: {b}" for b in page.evaluate(OVERFLOW_JS)]
        heights[url] = page.evaluate("document.documentElement.scrollHeight")
        texts += [f"{url}: {t}" for t in text_problems(page.evaluate(TEXT_JS), LEDGER)]
        for href in page.evaluate("Array.from(document.querySelectorAll('a[href]')).map(a => a.getAttribute('href'))"):
            if href.startswith(("mailto:", "javascript:")):
                continue
            internal, target = _internal(server, urllib.parse.urljoin(url, href))
            if not internal:
                problems.append(f"{url}: external link {href} (the report is offline)")
                continue
            if target not in checked:
                checked[target] = page.request.get(target).status
            if checked[target] != 200:
                problems.append(f"{url}: broken link {href} -> {checked[target]}")
            elif target.endswith(".html") or target.endswith("/"):
                todo.append(target)
    assert len(seen) >= 10, f"the site has its pages (home, four papers, ledger, notebooks); found {len(seen)}"
    assert set(_pages(server)) <= seen, f"pages no link reaches: {sorted(set(_pages(server)) - seen)}"
    assert not problems, "\n".join(problems[:30])
    assert not errors, "\n".join(errors[:30])
    assert not texts, "text not as written in figures/claims.csv:\n" + "\n".join(texts[:30])
    _assert_layout(page, layout, heights, server, WIDE)


def _shown(page, what="status"):
    return set(page.locator("table.oe-ledger tbody tr:visible").evaluate_all(f"rs => rs.map(r => r.dataset.{what})"))


def test_ledger_opens_on_what_differs_with_search_sort_and_filters_in_the_url(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server + "ledger.html", wait_until="load")
    assert _shown(page) == {"differs"}, "the ledger opens on the rows that differ"
    assert "the rows that differ" in page.locator("#oe-count").inner_text()
    page.locator("#oe-show-all").click()
    page.wait_for_load_state("load")
    total = page.locator("table.oe-ledger tbody tr").count()
    assert page.locator("#oe-count").inner_text().startswith(f"{total} of {total} rows"), "show all: every row"
    # text search, kept in the URL
    page.fill("#oe-search", "rosset-t1-model")
    hits = page.locator("table.oe-ledger tbody tr:visible")
    assert 0 < hits.count() < 10 and page.locator("tr[id='rosset-t1-model']").is_visible()
    assert all("rosset-t1-model" in t for t in hits.all_text_contents())
    assert "q=rosset-t1-model" in page.url
    # filters in the URL: a link opens on the same view
    page.goto(server + "ledger.html?paper=rosset&kind=printed", wait_until="load")
    assert _shown(page, "paper") == {"rosset"} and _shown(page, "kind") == {"printed"}
    assert page.locator("select[data-col=paper]").input_value() == "rosset"
    # sortable columns: by status, then descending
    page.goto(server + "ledger.html?all", wait_until="load")
    page.locator("th[data-sort=status]").click()
    first = page.locator("table.oe-ledger tbody tr:visible").first.get_attribute("data-status")
    page.locator("th[data-sort=status]").click()
    assert "sort=-status" in page.url
    last = page.locator("table.oe-ledger tbody tr:visible").first.get_attribute("data-status")
    assert first <= last and first != last
    # short world names in the menu, the long text on hover
    options = page.locator("select[data-col=world] option").evaluate_all("os => os.map(o => [o.text, o.title])")
    assert all(len(text) <= 40 for text, _ in options), [t for t, _ in options if len(t) > 40]
    assert any(len(title) > 60 for _, title in options)


def test_ledger_filters_and_pages(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server, wait_until="load")
    assert "offline-eval" in page.title()
    page.goto(server + "papers/yi/fig1.html", wait_until="load")
    assert page.locator("img[src$='yi/fig1.png']").count() == 1, "the yi Figure 1 page shows the figure"
    page.goto(server + "ledger.html?all", wait_until="load")
    rows = page.locator("table.oe-ledger tbody tr")
    total = rows.count()
    assert total > 100
    assert 0 < page.locator("table.oe-ledger tbody tr:visible").count() <= 50, "one page of rows at a time"
    page.locator(".oe-pager button").nth(1).click()
    assert page.locator(".oe-pager button[aria-current=page]").inner_text() == "2"
    page.select_option("select[data-col=paper]", "rosset")
    visible = page.locator("table.oe-ledger tbody tr:visible")
    n_rosset = visible.count()
    assert 0 < n_rosset < total
    assert set(visible.evaluate_all("rs => rs.map(r => r.dataset.paper)")) == {"rosset"}
    page.select_option("select[data-col=status]", "differs")
    assert set(page.locator("table.oe-ledger tbody tr:visible").evaluate_all("rs => rs.map(r => r.dataset.status)")) <= {"differs"}
    page.select_option("select[data-col=paper]", "")
    page.select_option("select[data-col=status]", "")
    page.select_option("select[data-col=kind]", "calibration")
    assert set(page.locator("table.oe-ledger tbody tr:visible").evaluate_all("rs => rs.map(r => r.dataset.kind)")) <= {"calibration"}


def _offline_page(browser, server, viewport):
    """A page whose requests outside the test server are recorded (``page.outside``); the browser resolves no host
    but the test server's (:data:`FLAGS`), so such a request also fails.  A listener, not a route: routing every
    request through Python took half of each page's load."""
    page = browser.new_page(viewport=viewport)
    outside = []
    host = urllib.parse.urlsplit(server).netloc
    page.on("request", lambda r: None if urllib.parse.urlsplit(r.url).netloc == host or r.url.startswith(
        ("data:", "blob:")) else outside.append(r.url))
    page.outside = outside
    return page


def test_a_request_outside_the_machine_is_recorded_and_fails(server, browser):
    """The offline checks can fail: a page asking for outside files has them recorded, and none is fetched."""
    page = _offline_page(browser, server, WIDE)
    failed = []
    page.on("requestfailed", lambda r: failed.append(r.url))
    page.set_content('<img src="https://example.com/x.png"><script src="https://cdn.jsdelivr.net/x.js"></script>')
    page.wait_for_timeout(500)
    assert sorted(page.outside) == sorted(failed) == ["https://cdn.jsdelivr.net/x.js", "https://example.com/x.png"]


def _pages(server):
    pages = ["", "ledger.html", "api/index.html", "internals.html", "guide/your_own_data.html",
             "notebooks/rosset_wallet.html"]
    for paper, items in ITEMS.items():
        pages.append(f"papers/{paper}/index.html")
        pages += [f"papers/{paper}/{it.slug}.html" for it in items]
    return [server + p for p in pages]


# Elements wider than the viewport or than the article's column, unless they scroll inside a box of their own.
OVERFLOW_JS = """() => {
  const vw = document.documentElement.clientWidth;
  const col = document.querySelector('.bd-article') || document.body;
  const c = col.getBoundingClientRect();
  const scrolls = el => { for (let a = el.parentElement; a && a !== col; a = a.parentElement) {
      const s = getComputedStyle(a); if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) return true; }
    return false; };
  const bad = [];
  if (document.documentElement.scrollWidth > vw + 1) bad.push('page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + vw);
  for (const el of col.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || getComputedStyle(el).position === 'fixed') continue;
    if ((r.right > c.right + 1 || r.left < c.left - 1) && !scrolls(el))
      bad.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(r.width) + ' px in a ' + Math.round(c.width) + ' px column');
    if (bad.length > 5) break;
  }
  const side = document.querySelector('.bd-sidebar-primary');
  if (side && getComputedStyle(side).display !== 'none' && side.getBoundingClientRect().width > 0 && vw > 1000) {
    const s = side.getBoundingClientRect();
    if (s.right > c.left + 1) bad.push('the article runs under the sidebar');
  }
  return bad;
}"""


def test_layout_fits_at_390px_with_nothing_from_outside(server, browser):
    """The pages of :func:`_pages` at a phone's width (at 1400 px every page is checked by the crawl above)."""
    page = _offline_page(browser, server, NARROW)
    problems, heights, texts = [], {}, []
    for url in _pages(server):
        page.goto(url, wait_until="load")
        problems += [f"{url}: {b}" for b in page.evaluate(OVERFLOW_JS)]
        heights[url] = page.evaluate("document.documentElement.scrollHeight")
        texts += [f"{url}: {t}" for t in text_problems(page.evaluate(TEXT_JS), LEDGER)]
    assert not texts, "text not as written in figures/claims.csv at 390 px:\n" + "\n".join(texts[:30])
    _assert_layout(page, problems, heights, server, NARROW)


def _assert_layout(page, problems, heights, server, viewport):
    """No element wider than its column, nothing requested from outside; at 1400 px, paper pages of at most
    :data:`MAX_SCREENS` screens and a home page of at most :data:`HOME_SCREENS`."""
    assert not problems, "\n".join(problems[:40])
    assert not page.outside, f"requests leaving the machine: {page.outside[:10]}"
    if viewport is WIDE:
        limit = MAX_SCREENS * viewport["height"]
        tall = {u: h for u, h in heights.items() if "/papers/" in u and h > limit}
        assert not tall, f"paper pages taller than {MAX_SCREENS} screens ({limit} px): {tall}"
        assert heights[server] <= HOME_SCREENS * viewport["height"], \
            f"the home page is {heights[server] / viewport['height']:.1f} screens at 1400 px (at most {HOME_SCREENS})"


def test_math_is_typeset_offline(server, browser):
    page = _offline_page(browser, server, WIDE)
    for url in ("papers/rosset/section2.html", "papers/rosset/section3-1.html", "api/ranking-coefficients.html"):
        page.goto(server + url, wait_until="load")
        page.wait_for_function("document.querySelectorAll('mjx-container').length > 0", timeout=20000)
        left = page.evaluate("""Array.from(document.querySelectorAll('.math')).filter(
            m => !m.querySelector('mjx-container')).length""")
        assert left == 0, f"{url}: {left} math elements not typeset"
        assert page.evaluate("document.querySelectorAll('mjx-merror').length") == 0, f"{url}: a MathJax error"
    assert not page.outside, f"requests leaving the machine: {page.outside}"


def test_every_table_and_figure_has_its_section_with_printed_values_and_status(server, browser):
    page = browser.new_page(viewport=WIDE)
    ids = set()
    for paper, items in ITEMS.items():
        page.goto(server + f"papers/{paper}/index.html", wait_until="load")
        listed = page.locator("table.oe-contents a").all_inner_texts()
        assert listed[:len(items)] == [it.label for it in items], f"{paper}: sections in the paper's order"
        for it in items:
            page.goto(server + f"papers/{paper}/{it.slug}.html", wait_until="load")
            assert it.label in page.locator("blockquote.oe-paper-caption").inner_text(), (paper, it.label)
            text = page.locator(".bd-article").inner_text()
            assert "printed values beside ours" in text, (paper, it.label)
            if page.locator("table.oe-ledger").count():
                heads = page.locator("table.oe-ledger").first.locator("th").all_inner_texts()
                assert heads == ["claim", "printed", "ours", "status"], heads
                n_rows = page.locator("table.oe-ledger tbody tr").count()
                assert page.locator("table.oe-ledger tbody tr .oe-badge").count() == n_rows, (paper, it.label)
                bad = page.locator("table.oe-ledger tbody tr.oe-diff").evaluate_all("rs => rs.map(r => r.dataset.status)")
                assert set(bad) <= {"differs", "erratum"}
            else:
                assert "prints no number" in text, (paper, it.label)
            for img in it.figures:
                assert page.locator(f"img[src$='{paper}/{img}.png']").count() == 1, (paper, it.label, img)
            ids |= set(page.locator("table.oe-ledger tbody tr").evaluate_all("rs => rs.map(r => r.id)"))
    page.goto(server + "ledger.html", wait_until="load")
    every = set(page.locator("table.oe-ledger tbody tr").evaluate_all("rs => rs.map(r => r.id)"))
    assert every - ids == set(), f"ledger rows on no paper page: {sorted(every - ids)[:10]}"


def test_api_page_lists_every_public_name(server, browser):
    page = browser.new_page(viewport=WIDE)
    page.goto(server + "api/index.html", wait_until="load")
    listed = set(page.locator("table.oe-api code").all_inner_texts())
    public = {n for n in offline_eval.__all__ if not n.startswith("_")}
    assert public <= listed, f"missing from the API page: {sorted(public - listed)}"
    for href in page.locator("table.oe-api a").evaluate_all("as => as.map(a => a.href)")[:60]:
        target = href.split("#")[1]
        page.goto(href, wait_until="load")
        assert page.locator(f"[id='{target}']").count() == 1, f"{href}: no documented object"
        break
    page.goto(server + "api/metrics.html", wait_until="load")
    assert page.locator("dl.py.function").count() >= 5, "the functions carry their docstrings"
    assert "Parameters" in page.locator(".bd-article").inner_text()


def test_api_pages_fit_at_390px_and_every_public_module_has_one(server, browser):
    """Every page of the API reference at a phone's width: signatures wrap (long names and defaults inside the
    column), parameter lists stack; and a page per public module of the library (``display`` among them)."""
    from offline_eval_compendium.report_api import _slug, public_modules

    pages = sorted(p.name for p in (SITE / "api").glob("*.html"))
    missing = {f"{_slug(m)}.html" for m in public_modules()} - set(pages)
    assert not missing, f"public modules without an API page: {sorted(missing)}"
    page = _offline_page(browser, server, NARROW)
    problems = []
    for name in pages:
        page.goto(server + "api/" + name, wait_until="load")
        problems += [f"api/{name}: {b}" for b in page.evaluate(OVERFLOW_JS)]
    assert not problems, "\n".join(problems[:40])
    page.goto(server + "api/display.html", wait_until="load")
    assert page.locator("[id='offline_eval.display.format_pvalue']").count() == 1


def _assignments(code: str) -> dict:
    out = {}
    for node in ast.parse(code).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def test_every_page_shows_the_committed_run(server, browser):
    """A notebook page whose parameters are not the committed run's fails (a smoke run, a make run)."""
    import yaml

    manifest = yaml.safe_load((FIGURES_DIR / "manifest" / "reproduce.yaml").read_text())
    digest = manifest["inputs"]["sha256"][:12]
    page = browser.new_page(viewport=WIDE)
    wrong = []
    for name, committed in manifest["notebooks"].items():
        page.goto(server + f"notebooks/{name}.html", wait_until="load")
        shown = {}
        for sel in (".tag_parameters .cell_input pre", ".tag_injected-parameters .cell_input pre"):
            for code in page.locator(sel).all_text_contents():
                shown.update(_assignments(code))
        shown.pop("output_root", None)
        assert shown, f"{name}: no parameters cell on its page"
        if shown != committed:
            wrong.append(f"{name}: " + ", ".join(f"{k}={shown.get(k)!r} (committed {committed.get(k)!r})"
                                                 for k in sorted(set(shown) | set(committed))
                                                 if shown.get(k) != committed.get(k)))
        assert digest in page.locator(".oe-footer-run").inner_text(), f"{name}: the footer names another run"
    assert not wrong, "pages showing another run's parameters:\n" + "\n".join(wrong)
    page.goto(server, wait_until="load")
    assert digest in page.locator(".oe-footer-run").inner_text() and "Built at commit" in page.locator(".oe-footer-run").inner_text()


RAW_RST = ("``", ":func:`", ":class:`", ":math:`", ":meth:`", ":mod:`", ":attr:`", ":data:`")


def test_api_reference_renders_its_markup_and_lists_public_modules_only(server):
    api = SITE / "api"
    raw = [f"{p.name}: {tok}" for p in sorted(api.glob("*.html")) for tok in RAW_RST
           if tok in _visible_text(p.read_text())]
    assert not raw, f"raw reStructuredText in the API reference: {raw[:20]}"
    pages = {p.stem for p in api.glob("*.html")}
    assert {"ondask", "mergeable"} <= pages
    assert not {p for p in pages if p.startswith("_") or p in ("bootstrap", "validation")}, sorted(pages)
    assert not (SITE / ".doctrees").exists() and not list(SITE.rglob("*.doctree")), "build internals inside html/"


def _visible_text(html: str) -> str:
    """The text of a page outside tags, scripts and the search index."""
    import re

    html = re.sub(r"(?s)<(script|style)\b.*?</\1>", "", html)
    return re.sub(r"<[^>]+>", " ", html)


def test_screenshots_at_both_widths(server, browser):
    shots = SITE.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("", WIDE), ("_390", NARROW)):
        page = browser.new_page(viewport=viewport)
        for stem, url in (("home", ""), ("paper_yi", "papers/yi/index.html"), ("paper_yi_table2", "papers/yi/table2.html"),
                          ("paper_rosset_section2", "papers/rosset/section2.html"), ("ledger", "ledger.html"),
                          ("api", "api/index.html"), ("arena_which_when", "papers/arena/which_when.html"),
                          ("rosset_table2", "papers/rosset/table2.html"), ("chapelle_table1", "papers/chapelle/table1.html")):
            page.goto(server + url, wait_until="load")
            page.wait_for_timeout(300)
            page.screenshot(path=str(shots / f"{stem}{name}.png"), full_page=False)


# -- every character as written ------------------------------------------------------------------------------
LEDGER = pd.read_csv(FIGURES_DIR / "claims.csv", dtype=str, keep_default_na=False) if (
    FIGURES_DIR / "claims.csv").is_file() else pd.DataFrame(columns=["claim_id"])

# What the page shows of each ledger row, and each line of a verdict or finding that names a row by its id.
TEXT_JS = """() => {
  const txt = el => el ? el.textContent : null;
  const top = td => td ? Array.from(td.querySelectorAll('.oe-val')).filter(v => !v.parentElement.closest('.oe-val'))
      .map(v => ({src: v.title || v.textContent, shown: v.textContent})) : [];
  const rows = Array.from(document.querySelectorAll('table.oe-ledger tbody tr[id]')).map(tr => {
    const d = {};
    tr.querySelectorAll('div[data-col]').forEach(div => {
      const t = div.querySelector('.oe-text'); const w = t && t.querySelector('span[title]');
      d[div.dataset.col] = div.dataset.col === 'world' && w ? w.title : txt(t); });
    return {id: tr.id, statement: txt(tr.querySelector('.oe-statement')),
            note: txt(tr.querySelector('.oe-note .oe-text')), revised: txt(tr.querySelector('.oe-revised .oe-text')),
            printed: txt(tr.querySelector('td[data-label=printed]')), ours: top(tr.querySelector('td[data-label=ours]')),
            details: d, status: tr.dataset.status};
  });
  const lines = Array.from(document.querySelectorAll('.bd-article li, .oe-fixture li')).filter(li => li.querySelector(':scope > code'))
      .map(li => ({id: li.querySelector(':scope > code').textContent, text: li.textContent}));
  return {rows, lines};
}"""

# Rows whose ledger text itself shows ours at fewer digits than the paper prints (the report cannot show digits
# the ledger does not have): each is a fault of its study, listed so that a new one fails and a fixed one is removed.
LEDGER_HIDES: dict[str, str] = {}
_NUM = re.compile(r"[-+]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+]?\d+)?")


def _norm(text) -> str:
    return re.sub(r"\s+", " ", str(text).replace("\u00a0", " ")).strip()


def _reads_as(printed: str, ours: str) -> bool:
    """Does ``ours`` read as ``printed``?  The same string (units and separators aside), or a printed number
    whose rounding to each of ours' leading numbers' decimals gives that number, ours having fewer decimals."""
    p, o = _norm(printed), _norm(ours)
    bare = lambda t: re.sub(r"[\s,$%]", "", t)  # noqa: E731
    if p and bare(p) == bare(o):
        return True
    if not re.fullmatch(r"\$?[-+]?[\d,]*\.?\d+%?", p):
        return False
    value, decimals = float(re.sub(r"[$,%]", "", p)), len(p.rstrip("%").partition(".")[2])
    head = _NUM.findall(re.split(r"\s*[(\[;]", o)[0])
    return bool(head) and all("." in t and "e" not in t.lower() and len(t.partition(".")[2]) < decimals
                              and round(value, len(t.partition(".")[2])) == float(t.replace(",", "")) for t in head)


def text_problems(shown: dict, ledger: pd.DataFrame) -> list[str]:
    """Where the page's text of a ledger row, or of a line quoting it, is not the ledger's, character for character;
    and the ``differs`` rows whose ours, as shown, reads as the printed value."""
    by_id = {r["claim_id"]: r for r in ledger.to_dict("records")}
    out = []
    for row in shown["rows"]:
        r = by_id.get(row["id"])
        if r is None:
            out.append(f"{row['id']}: a row not in the ledger")
            continue
        for col in ("statement", "note"):  # the revisions are in the row's details, checked below
            want = _norm(r.get(col, ""))
            if want and _norm(row[col]) != want:
                out.append(f"{row['id']} {col}: shown {_norm(row[col])!r}, written {want!r}")
        if _norm(row["printed"]) != _norm(r["paper_value"]):
            out.append(f"{row['id']} printed: shown {_norm(row['printed'])!r}, written {_norm(r['paper_value'])!r}")
        srcs = [_norm(v["src"]) for v in row["ours"]]
        for col in ("reproduced_value", "development"):
            if _norm(r.get(col, "")) and _norm(r[col]) not in srcs:
                out.append(f"{row['id']} {col}: written {_norm(r[col])!r}, on the page {srcs!r}")
        for col, text in row["details"].items():
            want = ", ".join(e for e in str(r.get(col, "")).split("; ") if e) if col == "evidence" else r.get(col, "")
            if _norm(text) != _norm(want):
                out.append(f"{row['id']} {col}: shown {_norm(text)!r}, written {_norm(want)!r}")
        if row["status"] == "differs" and row["ours"] and _reads_as(r["paper_value"], row["ours"][0]["shown"]):
            if not _reads_as(r["paper_value"], row["ours"][0]["src"]):
                out.append(f"{row['id']} differs, yet ours is shown as {_norm(row['ours'][0]['shown'])!r} beside the "
                           f"printed {_norm(r['paper_value'])!r} (the ledger has {_norm(row['ours'][0]['src'])!r})")
            elif row["id"] not in LEDGER_HIDES:
                out.append(f"{row['id']} differs, yet its ledger text {_norm(row['ours'][0]['src'])!r} reads as the "
                           f"printed {_norm(r['paper_value'])!r}: its study must write the digits that differ")
    for line in shown["lines"]:
        r = by_id.get(line["id"])
        if r is None:
            continue
        text = _norm(line["text"])
        for col in ("statement", "paper_value", "reproduced_value") + (("note",) if "Why:" in text else ()):
            if _norm(r.get(col, "")) and _norm(r[col]) not in text:
                out.append(f"{line['id']} quoted: its {col} {_norm(r[col])!r} is not in {text!r}")
    return out


def test_ledger_hides_lists_only_rows_that_still_hide():
    """A row fixed in its study leaves :data:`LEDGER_HIDES` (the list stays the list of faults)."""
    by_id = LEDGER.set_index("claim_id") if len(LEDGER) else None
    if by_id is None:
        pytest.skip("no ledger")
    for cid in LEDGER_HIDES:
        assert cid in by_id.index and by_id.loc[cid, "status"] == "differs" and _reads_as(
            by_id.loc[cid, "paper_value"], by_id.loc[cid, "reproduced_value"]), f"{cid} no longer hides: remove it"


def _planted() -> pd.DataFrame:
    from offline_eval_compendium import claims

    base = {c: "" for c in claims.COLUMNS}
    rows = [
        {**base, "paper": "rosset", "claim_id": "plant-dollar", "kind": "printed", "world": "paper", "source": "Table 1",
         "statement": "RMSE %Change '49.8%'", "paper_value": "49.8%", "reproduced_value": "49.892", "status": "differs",
         "criterion": "equal when rounded", "evidence": "rosset/table1.csv",
         "note": "Entire Set $3,872,481 and Excl. One $1,940,415 give 49.892%"},
        {**base, "paper": "rosset", "claim_id": "plant-less-than", "kind": "formula", "world": "paper",
         "source": "Section 3.1", "statement": "'C_i = sum_{j<i} 1{y_i > y_j} + sum_{j>i} 1{y_i < y_j}'",
         "paper_value": "sum_{j<i} 1{y_i > y_j}", "reproduced_value": "sum_{j<i} 1{y_i < y_j}", "status": "erratum",
         "criterion": "recomputed", "evidence": "rosset/identities.csv"},
        {**base, "paper": "rosset", "claim_id": "plant-equal", "kind": "printed", "world": "paper", "source": "Table 2",
         "statement": "a p-value", "paper_value": "0.148", "reproduced_value": "0.148", "status": "differs",
         "criterion": "exact", "evidence": "rosset/table2.csv", "note": "planted: the same string on both sides"},
    ]
    return pd.DataFrame(rows, columns=claims.COLUMNS)


def _fixture_html(ledger: pd.DataFrame, *, myst: bool = False, unescaped: bool = False) -> str:
    """The planted rows as the report renders them (its ledger table and a paper's verdict); ``myst``: the verdict
    through MyST's own Markdown (dollar math and raw HTML on, as the report's pages had it); ``unescaped``: the
    ledger table with HTML escaping switched off."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    from offline_eval_compendium import claims, report_html

    verdict = claims.verdict(ledger)
    if myst:
        prose = MarkdownIt("commonmark", {"html": True}).use(dollarmath_plugin).render(verdict)
    else:
        prose = report_html.md_html(verdict)
    if unescaped:
        saved, report_html.esc = report_html.esc, str
        try:
            table = report_html.ledger_html(ledger, "")
        finally:
            report_html.esc = saved
    else:
        table = report_html.ledger_html(ledger, "")
    return f'<div class="oe-fixture">{prose}{table}</div>'


def test_the_text_check_fails_on_planted_dollar_less_than_and_equal_strings(browser):
    """The check of every page, on a fixture: planted ``$`` amounts and ``<`` pass as the report renders them; the
    ``$`` fail as MyST's Markdown renders them (dollar math), the ``<`` as HTML left unescaped renders them (as the
    ours column did when reformatting changed nothing); a ``differs`` row showing the same string fails always."""
    ledger = _planted()
    page = browser.new_page(viewport=NARROW)
    found = {}
    for name, kw in (("report", {}), ("myst", {"myst": True}), ("unescaped", {"unescaped": True})):
        page.set_content(_fixture_html(ledger, **kw))
        found[name] = text_problems(page.evaluate(TEXT_JS), ledger)
    assert found["report"] and all(p.startswith("plant-equal differs") for p in found["report"]), found["report"]
    myst = "\n".join(found["myst"])
    assert "plant-dollar quoted: its note 'Entire Set $3,872,481" in myst, myst  # the amounts typeset as math
    unescaped = "\n".join(found["unescaped"])  # the browser reads "<i} 1{y_i > ..." as a tag and drops it
    assert "plant-less-than statement" in unescaped and "plant-less-than printed" in unescaped, unescaped
    assert "plant-less-than reproduced_value" in unescaped, unescaped
    for problems in found.values():
        assert any(p.startswith("plant-equal differs") for p in problems)
