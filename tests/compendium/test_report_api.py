"""The report's API reference, from its sources (no Sphinx, no browser): a page for every public module of the
library, ``display`` among them, each function and class of their ``__all__`` documented once (two autodoc blocks
of one object describe it twice, an error under -W) and named on every other page that exports it; the index
lists every public name.  The layout at 390 px is checked in a browser by ``test_report_browser.py``."""

import importlib
import inspect
import re

import pytest

import offline_eval
from offline_eval_compendium import report_api


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    report_api.write_api(out)
    return out / "api"


def _targets(text: str) -> list[str]:
    return re.findall(r"^\.\. auto(?:function|class):: (\S+)$", text, re.M)


def test_every_public_module_has_its_page_display_among_them(api):
    modules = report_api.public_modules()
    assert {"offline_eval.display", "offline_eval.plotting", "offline_eval.synth", "offline_eval.auction.abtest",
            "offline_eval.results", "offline_eval.ondask", "offline_eval.mergeable"} <= set(modules)
    assert not [m for m in modules if any(p.startswith("_") for p in m.split(".")[1:])]
    pages = {p.stem for p in api.glob("*.md")} - {"index"}
    assert pages == {report_api._slug(m) for m in modules}
    index = (api / "index.md").read_text()
    for m in modules:
        assert f"\n{report_api._slug(m)}\n" in index, f"{m} not in the API reference's table of contents"


def test_each_function_and_class_is_documented_once_and_named_where_it_is_exported(api):
    documented = {}
    for page in api.glob("*.md"):
        for target in _targets(page.read_text()):
            assert target not in documented, f"{target} documented on {page.name} and {documented[target]}"
            documented[target] = page.name
    objects = {}
    for target in documented:
        mod, _, name = target.rpartition(".")
        obj = getattr(importlib.import_module(mod), name)
        # two names of the package for one class (an alias: autodoc shows "alias of ...") keep both anchors
        alias = mod == "offline_eval" and objects.get(id(obj), "").rpartition(".")[0] == "offline_eval"
        assert id(obj) not in objects or alias, f"{target} and {objects[id(obj)]} are one object, documented twice"
        objects.setdefault(id(obj), target)
    for mod in report_api.public_modules():
        module = importlib.import_module(mod)
        text = (api / f"{report_api._slug(mod)}.md").read_text()
        for n in getattr(module, "__all__", ()):
            obj = getattr(module, n)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)) or mod == "offline_eval":
                continue
            here = any(t.rsplit(".", 1)[1] == n for t in _targets(text))
            assert here or f":py:obj:`{n} <" in text, f"{mod}.{n}: neither documented nor named on its module's page"


def test_display_is_documented_whole(api):
    text = (api / "display.md").read_text()
    import offline_eval.display as display

    assert {t.rsplit(".", 1)[1] for t in _targets(text)} == set(display.__all__)


def test_the_index_lists_every_public_name(api):
    index = (api / "index.md").read_text()
    listed = set(re.findall(r"<code>([^<]+)</code></a>", index))
    assert {n for n in offline_eval.__all__ if not n.startswith("_")} <= listed
    assert {"format_pvalue", "reformat", "simulate_rtb", "use_style"} <= listed


def test_a_member_the_attributes_section_describes_is_not_described_again():
    from offline_eval.ranking.coefficients import TauResult

    assert "method" in report_api._attributes_section(TauResult)
    block, _ = report_api._autodoc(TauResult, "offline_eval.ranking.coefficients.TauResult")
    assert ":exclude-members:" in block[2] and "method" in block[2]
    assert report_api._attributes_section(report_api.public_home) == []  # a function: nothing to exclude


def test_a_name_keeps_its_home(api):
    # the package's names keep their anchors (offline_eval.roc_auc_score), the protocol's types stay on results
    from offline_eval.results import ConfidenceInterval

    assert report_api.public_home("ConfidenceInterval", ConfidenceInterval) == "offline_eval.results"
    assert "offline_eval.roc_auc_score" in _targets((api / "metrics.md").read_text())
    assert "offline_eval.display.format_pvalue" in _targets((api / "display.md").read_text())
