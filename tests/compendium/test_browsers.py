"""The browser tests find a Chromium already on the machine, or say exactly how to get one (issue 51): on fake
``PATH``s, fake Playwright caches and a fake ``$CHROMIUM``, nothing installed."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from browsers import ENV, NAMES, ChromiumNotFound, find_chromium, playwright_cache

HERE = Path(__file__).resolve().parent


def _exe(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\nexit 0\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


def _which(path_dirs):
    """``shutil.which`` on a fake ``PATH`` of these folders only."""
    return lambda name: shutil.which(name, path=os.pathsep.join(str(d) for d in path_dirs))


def _find(tmp_path, path_dirs=(), env=None, platform="linux", **kw):
    env = {} if env is None else env
    return find_chromium(env, which=_which(path_dirs), home=tmp_path / "home", platform=platform, **kw)


@pytest.mark.parametrize("name", NAMES)
def test_each_name_is_found_on_path(tmp_path, name):
    bin_ = tmp_path / "bin"
    exe = _exe(bin_ / name)
    assert _find(tmp_path, [bin_]) == (exe, f"PATH: {name}")


def test_path_is_read_in_order_and_a_non_executable_file_is_not_a_browser(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    (first / "chromium").parent.mkdir(parents=True)
    (first / "chromium").write_text("not executable")
    _exe(first / "google-chrome")
    _exe(second / "chromium")
    # chromium comes before google-chrome in NAMES: found in the second folder, the first's file being no program
    assert _find(tmp_path, [first, second]) == (second / "chromium", "PATH: chromium")


def test_the_env_variable_comes_first_and_a_wrong_one_is_an_error_not_a_fallback(tmp_path):
    bin_ = tmp_path / "bin"
    _exe(bin_ / "chromium")
    mine = _exe(tmp_path / "opt" / "my chrome" / "chrome")
    assert _find(tmp_path, [bin_], env={ENV: str(mine)}) == (mine, f"${ENV}")
    with pytest.raises(ChromiumNotFound, match=r"\$CHROMIUM is '.*nowhere', which is not an executable file"):
        _find(tmp_path, [bin_], env={ENV: str(tmp_path / "nowhere")})
    assert _find(tmp_path, [bin_], env={ENV: ""})[1] == "PATH: chromium"  # empty: unset


def test_playwrights_cache_is_found_newest_revision_first(tmp_path):
    cache = tmp_path / "home" / ".cache" / "ms-playwright"
    _exe(cache / "chromium-1091" / "chrome-linux" / "chrome")
    newest = _exe(cache / "chromium-1140" / "chrome-linux64" / "chrome")
    (cache / "chromium-1200").mkdir()  # an install cut short: no executable
    _exe(cache / "firefox-1400" / "firefox" / "firefox")
    path, how = _find(tmp_path)
    assert path == newest and how.startswith("Playwright's browsers")


def test_playwrights_browsers_path_and_other_systems(tmp_path):
    elsewhere = tmp_path / "pw"
    exe = _exe(elsewhere / "chromium-1100" / "chrome-linux" / "chrome")
    assert _find(tmp_path, env={"PLAYWRIGHT_BROWSERS_PATH": str(elsewhere)})[0] == exe
    mac = _exe(tmp_path / "home" / "Library" / "Caches" / "ms-playwright" / "chromium-1100" / "chrome-mac"
               / "Chromium.app" / "Contents" / "MacOS" / "Chromium")
    assert _find(tmp_path, platform="darwin", mac_apps=())[0] == mac
    assert playwright_cache({"LOCALAPPDATA": "C:/Users/me/AppData/Local"}, tmp_path, "win32") == Path(
        "C:/Users/me/AppData/Local/ms-playwright")


def test_the_mac_applications_come_last(tmp_path):
    app = _exe(tmp_path / "Applications" / "Google Chrome.app" / "Contents" / "MacOS" / "Google Chrome")
    assert _find(tmp_path, platform="darwin", mac_apps=(str(app),)) == (app, "/Applications")
    with pytest.raises(ChromiumNotFound):
        _find(tmp_path, platform="linux", mac_apps=(str(app),))  # not on Linux


def test_none_found_says_where_it_looked_and_how_to_get_one_on_each_system(tmp_path):
    with pytest.raises(ChromiumNotFound) as err:
        _find(tmp_path, [tmp_path / "empty"])
    text = str(err.value)
    for needle in ("$CHROMIUM is not set", "chromium, chromium-browser, google-chrome", ".cache/ms-playwright",
                   "Debian/Ubuntu:  sudo apt-get install chromium", "make browser",
                   "macOS:          brew install --cask chromium",
                   "pip install playwright && playwright install chromium",
                   ".venv/bin/python -m playwright install chromium", "CHROMIUM=/path/to/chromium make test-report"):
        assert needle in text, needle


def test_the_command_line_prints_the_browser_or_how_to_get_one(tmp_path):
    script = HERE / "browsers.py"
    env = {"PATH": str(tmp_path / "empty"), "HOME": str(tmp_path / "home")}
    missing = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True)
    assert missing.returncode == 1 and missing.stderr.startswith("ERROR: no Chromium found")
    exe = _exe(tmp_path / "bin" / "chromium-browser")
    found = subprocess.run([sys.executable, str(script)], env={**env, "PATH": str(exe.parent)}, capture_output=True,
                           text=True)
    assert found.returncode == 0 and found.stdout.strip() == f"browser tests: Chromium {exe} (PATH: chromium-browser)"


def test_make_test_report_does_not_install_a_browser():
    makefile = (HERE.parents[1] / "Makefile").read_text()
    rule = next(line for line in makefile.splitlines() if line.startswith("test-report:"))
    assert "browser" not in rule.split("##")[0].split(":", 1)[1], rule
    assert "browsers.py" in makefile.split("test-report:", 1)[1].split("\n\n")[0]
