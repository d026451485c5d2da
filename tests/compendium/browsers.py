"""A Chromium for the browser tests (``make test-report``): one already on the machine, found, never installed.

Looked for, in this order:

1. ``$CHROMIUM``: the path of a Chromium or Chrome executable (``CHROMIUM=/path/to/chrome make test-report``);
   set but not an executable file, it is an error that says so (never a silent fallback to another browser);
2. on ``PATH``: ``chromium``, ``chromium-browser``, ``google-chrome``, ``google-chrome-stable``, ``chrome``;
3. Playwright's own browsers (``playwright install chromium``): ``$PLAYWRIGHT_BROWSERS_PATH``, else its cache
   (``~/.cache/ms-playwright`` on Linux, ``~/Library/Caches/ms-playwright`` on macOS,
   ``%LOCALAPPDATA%\\ms-playwright`` on Windows), the newest revision first;
4. on macOS, the applications: ``/Applications/Chromium.app``, ``/Applications/Google Chrome.app``.

None found: :class:`ChromiumNotFound`, whose message says where it looked and exactly how to get one on
Debian/Ubuntu, macOS, or anywhere with pip.  ``python tests/compendium/browsers.py`` prints the one found (exit 0)
or that message (exit 1); ``make test-report`` runs it first.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

__all__ = ["ENV", "NAMES", "ChromiumNotFound", "find_chromium", "how_to_get_one"]

#: The variable naming a Chromium executable.
ENV = "CHROMIUM"
#: The executables looked for on ``PATH``, in order.
NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

#: Inside a Playwright browser folder (``chromium-<revision>``), the executable, by platform.
_PLAYWRIGHT_EXES = {
    "linux": ("chrome-linux/chrome", "chrome-linux64/chrome"),
    "darwin": ("chrome-mac/Chromium.app/Contents/MacOS/Chromium",
               "chrome-mac-arm64/Chromium.app/Contents/MacOS/Chromium",
               "chrome-mac/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing",
               "chrome-mac-arm64/Google Chrome for Testing.app/Contents/MacOS/Google Chrome for Testing"),
    "win32": ("chrome-win/chrome.exe", "chrome-win64/chrome.exe"),
}
_MAC_APPS = ("/Applications/Chromium.app/Contents/MacOS/Chromium",
             "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome")


class ChromiumNotFound(RuntimeError):
    """No Chromium on the machine (or ``$CHROMIUM`` names none); the message says how to get one."""


def _platform(platform: str) -> str:
    return "linux" if platform.startswith("linux") else platform


def playwright_cache(env=None, home: Path | None = None, platform: str = sys.platform) -> Path:
    """Where ``playwright install`` puts its browsers."""
    env = os.environ if env is None else env
    if env.get("PLAYWRIGHT_BROWSERS_PATH") not in (None, "", "0"):
        return Path(env["PLAYWRIGHT_BROWSERS_PATH"]).expanduser()
    home = Path.home() if home is None else Path(home)
    plat = _platform(platform)
    if plat == "darwin":
        return home / "Library" / "Caches" / "ms-playwright"
    if plat == "win32":
        return Path(env.get("LOCALAPPDATA", home / "AppData" / "Local")) / "ms-playwright"
    return Path(env.get("XDG_CACHE_HOME") or home / ".cache") / "ms-playwright"


def _executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _from_playwright(cache: Path, platform: str) -> Path | None:
    if not cache.is_dir():
        return None

    def revision(folder: Path) -> int:
        m = re.search(r"-(\d+)$", folder.name)
        return int(m.group(1)) if m else -1

    folders = sorted((f for f in cache.glob("chromium-*") if f.is_dir()), key=revision, reverse=True)
    for folder in folders:
        for rel in _PLAYWRIGHT_EXES.get(_platform(platform), ()):
            exe = folder / rel
            if _executable(exe):
                return exe
    return None


def find_chromium(env=None, *, which=shutil.which, home: Path | None = None, platform: str = sys.platform,
                  mac_apps=_MAC_APPS) -> tuple[Path, str]:
    """The Chromium to drive and where it was found (``"$CHROMIUM"``, ``"PATH: chromium"``, ``"Playwright's
    browsers"``, ``"/Applications"``); :class:`ChromiumNotFound` when there is none.

    Parameters
    ----------
    env : mapping, default os.environ
    which : callable, default shutil.which
        ``which(name) -> path or None`` (it reads ``PATH``).
    home : Path, optional
        The home folder (for Playwright's cache); default ``Path.home()``.
    platform : str, default sys.platform
    mac_apps : sequence of str
        The macOS applications looked at last.
    """
    env = os.environ if env is None else env
    given = env.get(ENV)
    if given:
        path = Path(given).expanduser()
        if not _executable(path):
            raise ChromiumNotFound(f"${ENV} is {given!r}, which is not an executable file; point it at a Chromium or "
                                   f"Chrome executable, or unset it to look for one.\n{how_to_get_one(env, home, platform)}")
        return path, f"${ENV}"
    for name in NAMES:
        found = which(name)
        if found:
            return Path(found), f"PATH: {name}"
    cache = playwright_cache(env, home, platform)
    exe = _from_playwright(cache, platform)
    if exe is not None:
        return exe, f"Playwright's browsers ({cache})"
    if _platform(platform) == "darwin":
        for app in mac_apps:
            if _executable(Path(app)):
                return Path(app), "/Applications"
    raise ChromiumNotFound(f"no Chromium found: ${ENV} is not set, none of {', '.join(NAMES)} is on PATH, and "
                           f"Playwright has none in {cache}.\n{how_to_get_one(env, home, platform)}")


def how_to_get_one(env=None, home: Path | None = None, platform: str = sys.platform) -> str:
    """How to get a Chromium the browser tests find, per system (nothing here installs it)."""
    return (
        "The browser tests need a Chromium (any recent one); get one of these, then run `make test-report` again:\n"
        "  Debian/Ubuntu:  sudo apt-get install chromium          (Ubuntu: sudo snap install chromium;\n"
        "                  or `make browser`, which runs that apt-get)\n"
        "  macOS:          brew install --cask chromium            (or Google Chrome, found in /Applications)\n"
        "  anywhere:       pip install playwright && playwright install chromium\n"
        "                  (with this venv: .venv/bin/python -m playwright install chromium; it goes to "
        f"{playwright_cache(env, home, platform)})\n"
        f"  or one already there: {ENV}=/path/to/chromium make test-report")


def main() -> int:
    try:
        path, how = find_chromium()
    except ChromiumNotFound as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return 1
    print(f"browser tests: Chromium {path} ({how})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
