"""The report in a real browser: every page loads, no broken link or image, no console error.

Runs on the site ``make report`` built (``build/report/html``; ``OFFLINE_EVAL_REPORT`` points
elsewhere) in headless Chromium (Debian's ``chromium``) driven by playwright.  ``make test-report``
installs the browser, builds the site and runs this file with ``OFFLINE_EVAL_REQUIRE_REPORT=1``, so
that a missing site or browser fails instead of skipping; in ``make test`` it skips when the site has
not been built.  Screenshots of the home page and of one paper page are saved beside the site
(``build/report/screenshots/``).
"""

import functools
import http.server
import os
import shutil
import threading
import urllib.parse
from pathlib import Path

import pytest

from offline_eval.compendium.paths import BUILD_DIR

SITE = Path(os.environ.get("OFFLINE_EVAL_REPORT", BUILD_DIR / "report" / "html"))
REQUIRED = os.environ.get("OFFLINE_EVAL_REQUIRE_REPORT") == "1"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


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
    playwright = pytest.importorskip("playwright.sync_api") if not REQUIRED else __import__(
        "playwright.sync_api", fromlist=["sync_playwright"])
    if not CHROMIUM:
        _skip_or_fail("Debian's chromium is not installed (make test-report installs it)")
    with playwright.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield b
        b.close()


def _internal(base, href):
    url = urllib.parse.urljoin(base, href)
    parts = urllib.parse.urlsplit(url)
    return parts.scheme in ("http", "https") and url.startswith(base.split("/", 3)[0] + "//" + parts.netloc), \
        urllib.parse.urlunsplit(parts._replace(fragment=""))


def test_every_page_loads_with_no_broken_link_image_or_console_error(server, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
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
    assert not problems, "\n".join(problems[:30])
    assert not errors, "\n".join(errors[:30])


def test_ledger_filters_and_screenshots(server, browser):
    shots = SITE.parent / "screenshots"
    shots.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(server, wait_until="load")
    assert "offline-eval" in page.title()
    page.screenshot(path=str(shots / "home.png"), full_page=False)
    page.goto(server + "papers/yi.html", wait_until="load")
    assert page.locator("img").count() >= 3, "the yi page shows its figures"
    page.screenshot(path=str(shots / "paper_yi.png"), full_page=False)
    page.goto(server + "ledger.html", wait_until="load")
    rows = page.locator("table.oe-ledger tbody tr")
    total = rows.count()
    assert total > 100
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
    page.screenshot(path=str(shots / "ledger.png"), full_page=False)
