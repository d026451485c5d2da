"""JupyterLab in headless Chromium: every notebook, the guide too, opens on the project's kernel with no dialog
or pop-up, and its tab is not marked modified until the user edits.

Starts ``jupyter lab`` as ``make lab`` does (the settings of :mod:`offline_eval_compendium.lab`, its contents
manager), with user settings and workspaces in a temporary folder, on a free local port.  The notebooks open
five at a time in one browser context (Lab's scripts fetched once): about a minute on two cores.  It runs in
``make test-report`` (``OFFLINE_EVAL_REQUIRE_REPORT=1``: a missing browser fails) or with
``OFFLINE_EVAL_LAB_TEST=1``, and skips in ``make test``.
"""

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from offline_eval_compendium import lab
from offline_eval_compendium.paths import NOTEBOOKS_DIR, PROJ_ROOT

from browsers import ChromiumNotFound, find_chromium

REQUIRED = os.environ.get("OFFLINE_EVAL_REQUIRE_REPORT") == "1"
FLAGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
TOKEN = "offline-eval-lab-test"
KERNEL_NAME_CSS = ".jp-NotebookPanel-toolbar .jp-KernelName, .jp-NotebookPanel-toolbar [data-jp-item-name=kernelName]"
SHOTS = PROJ_ROOT / "build" / "report" / "screenshots"
NOTEBOOKS = sorted(p.relative_to(PROJ_ROOT).as_posix() for p in [*NOTEBOOKS_DIR.glob("*.py"), *NOTEBOOKS_DIR.glob("guide/*.py")])


def _skip_or_fail(reason):
    if REQUIRED:
        pytest.fail(reason)
    pytest.skip(reason)


def _chromium():
    """The Chromium found on the machine (``browsers.find_chromium``); else skip, or fail with how to get one."""
    try:
        return find_chromium()[0]
    except ChromiumNotFound as exc:
        _skip_or_fail(str(exc))


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    if not (REQUIRED or os.environ.get("OFFLINE_EVAL_LAB_TEST") == "1"):
        pytest.skip("the Lab test runs in make test-report (or with OFFLINE_EVAL_LAB_TEST=1)")
    _chromium()
    lab.lab_settings()
    tmp = tmp_path_factory.mktemp("lab")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(tmp / "settings"),
           "JUPYTERLAB_WORKSPACES_DIR": str(tmp / "workspaces"), "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")}
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", f"--port={port}", "--ServerApp.ip=127.0.0.1",
           f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={PROJ_ROOT}",
           "--ServerApp.contents_manager_class=offline_eval_compendium.lab.ContentsManager",
           "--LabApp.news_url=", "--allow-root"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(tmp / "lab.log", "w"))
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail("jupyter lab did not start:\n" + (tmp / "lab.log").read_text()[-3000:])
            time.sleep(0.5)
    yield base
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


@pytest.fixture(scope="module")
def browser_context():
    if REQUIRED:
        from playwright.sync_api import sync_playwright
    else:
        sync_playwright = pytest.importorskip("playwright.sync_api").sync_playwright
    chromium = _chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(chromium), args=FLAGS, headless=True)
        # one context for every page, as one browser of a user: Lab's scripts are fetched once, then cached
        context = b.new_context(viewport={"width": 1400, "height": 900})
        yield context
        context.close()
        b.close()


#: Notebooks open at once, each page in a workspace of its own (pages of one workspace would share its state).
BATCH = 5


def _open(context, base, nb, index):
    """A page that starts loading ``nb``: the first notebook through the URL a user follows (the default
    workspace), the others through the same tree URL inside a named workspace."""
    page = context.new_page()
    outside = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((base, "data:", "blob:")) else None)
    where = "lab" if index == 0 else f"lab/workspaces/test-{index}"
    page.goto(f"{base}/{where}/tree/{nb}?reset&token={TOKEN}", wait_until="commit")
    return page, outside


def _wait_until_ready(page):
    page.wait_for_load_state("load")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=60000)
    # the kernel has started and is idle: the toolbar names it and no dialog is up
    try:
        page.wait_for_function("""() => {
            const k = document.querySelector('%s');
            const s = document.querySelector('.jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator');
            return k && k.textContent.includes('offline-eval') && (!s || s.getAttribute('data-status') === 'idle');
        }""" % KERNEL_NAME_CSS, timeout=60000)
    except Exception:
        pass


def _problems(nb, page, outside):
    problems = []
    kernel = page.evaluate(f"() => {{ const k = document.querySelector('{KERNEL_NAME_CSS}'); "
                           "return k ? k.textContent.trim() : null; }")
    dialogs = page.locator(".jp-Dialog").all_inner_texts()
    toasts = page.locator(".Toastify__toast").all_inner_texts()
    dirty = page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty, .lm-TabBar-tab.lm-mod-current.jp-mod-dirty").count()
    title = page.locator(".lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel").all_inner_texts()
    if nb.endswith(("guide/your_own_data.py", "rosset_wallet.py")):
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SHOTS / f"lab_{Path(nb).stem}.png"))
    if dialogs:
        problems.append(f"{nb}: dialog {dialogs}")
    if toasts:
        problems.append(f"{nb}: pop-up {toasts}")
    if dirty:
        problems.append(f"{nb}: tab {title} marked modified on open")
    if not kernel or "offline-eval" not in kernel:
        problems.append(f"{nb}: kernel {kernel!r}, not the project's")
    if outside:
        problems.append(f"{nb}: requests outside the machine {outside[:3]}")
    return problems


def test_every_notebook_opens_on_the_project_kernel_with_no_dialog_and_an_unmodified_tab(lab_server, browser_context):
    problems = []
    for lo in range(0, len(NOTEBOOKS), BATCH):
        pages = [(nb, *_open(browser_context, lab_server, nb, lo + i)) for i, nb in enumerate(NOTEBOOKS[lo:lo + BATCH])]
        for _, page, _ in pages:
            _wait_until_ready(page)
        pages[0][1].wait_for_timeout(1500)  # a dialog or pop-up that comes late has come
        for nb, page, outside in pages:
            problems += _problems(nb, page, outside)
            # an edit marks it modified (so the check above can see a modified tab)
            if nb == NOTEBOOKS[0]:
                page.locator(".jp-CodeCell .cm-content").first.click()
                page.keyboard.type("# edit ")
                page.wait_for_timeout(800)
                if not page.locator(".lm-TabBar-tab.jp-mod-dirty").count():
                    problems.append(f"{nb}: an edit does not mark the tab modified (the test cannot see it)")
            page.close()
    assert not problems, "\n".join(problems)
