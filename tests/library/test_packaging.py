"""The library's wheel holds the library alone and imports with numpy, scipy and pandas."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# What numpy, scipy and pandas bring with them; anything else imported by `import offline_eval` and its
# modules would be a dependency the wheel does not declare.
ALLOWED = {"numpy", "scipy", "pandas", "dateutil", "pytz", "tzdata", "six", "offline_eval"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--disable-pip-version-check", "--wheel-dir", str(out), str(ROOT)],
                   check=True, capture_output=True, text=True)
    (path,) = out.glob("offline_eval-*.whl")
    return path


@pytest.mark.slow
def test_the_wheel_holds_the_library_and_nothing_of_the_compendium(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    packages = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert packages == {"offline_eval"}
    assert "offline_eval/metrics.py" in names and "offline_eval/synth/rtb.py" in names
    assert not [n for n in names if "compendium" in n or "studies" in n]


@pytest.mark.slow
def test_the_installed_wheel_imports_with_numpy_scipy_and_pandas_alone(wheel, tmp_path):
    # the wheel unpacked into a folder of its own, imported with an import hook that refuses every
    # third-party package other than numpy, scipy, pandas and what they bring
    target = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(target)
    code = f"""
import sys, importlib.abc
sys.path = [{str(target)!r}] + [p for p in sys.path if 'site-packages' in p or 'lib/python' in p]
stdlib = set(sys.stdlib_module_names)
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split('.')[0]
        if top not in stdlib and top not in {sorted(ALLOWED)!r} and not top.startswith('_'):
            raise ImportError('the library imported ' + name)
sys.meta_path.insert(0, Refuse())
import offline_eval
assert offline_eval.__file__.startswith({str(target)!r}), offline_eval.__file__
import offline_eval.metrics, offline_eval.ranking, offline_eval.adaptive, offline_eval.bidding
import offline_eval.auction, offline_eval.logboot, offline_eval.mergeable, offline_eval.synth
for name in offline_eval.__all__:
    getattr(offline_eval, name)
print('ok', len(offline_eval.__all__))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")
