"""``make report RUN=runs/<notebook>/<time>`` (issue 51): the report of a recorded run (``make run``) instead of
``figures/`` for its notebook, marked as such on every page, and refused, saying why, for a path that is not one."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from offline_eval_compendium import report, report_run
from offline_eval_compendium.paths import FIGURES_DIR, PROJ_ROOT

NB = "rosset_measures"


def _record(run: Path, **over) -> Path:
    rec = {"notebook": NB, "status": "succeeded", "parameters": {"seed": 0, "n_coverage": 200},
           "overridden": ["n_coverage"], "git_commit": "0123456789abcdef", **over}
    run.mkdir(parents=True, exist_ok=True)
    (run / "run.yaml").write_text(yaml.safe_dump(rec, sort_keys=False))
    return run


def _recorded(tmp_path, name="20261129-010203", outputs=True) -> Path:
    run = _record(tmp_path / "runs" / NB / name)
    if outputs:
        (run / "outputs").mkdir()
        (run / f"{NB}.ipynb").write_text(json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
        (run / "changes.md").write_text("# What changed: rosset_measures\n\n| row | committed | this run |\n|:--|:--|:--|\n"
                                        "| 1 | 1000 | 200 |\n\nA `<` and a $ stay characters.\n")
    return run


# -- refused, saying why -----------------------------------------------------------------------------------------------
def test_a_path_that_is_not_a_recorded_run_is_refused_with_the_runs_there_are(tmp_path):
    good = _recorded(tmp_path)
    runs = tmp_path / "runs"
    cases = {
        tmp_path / "nowhere": "is not a folder",
        _record(tmp_path / "runs" / NB / "x").parent.parent / "other": "is not a folder",
        tmp_path: "has no run.yaml",
        _record(tmp_path / "failed", status="failed", failed_cell=7): "that failed in cell 7: it has no outputs",
        _record(tmp_path / "guide", notebook="your_own_data"): "not one of the notebooks whose outputs the report shows",
        _record(tmp_path / "bare"): "lacks its outputs/ or its executed notebook rosset_measures.ipynb",
    }
    (tmp_path / "garbled").mkdir()
    (tmp_path / "garbled" / "run.yaml").write_text("notebook: [unclosed")
    cases[tmp_path / "garbled"] = "has a run.yaml that does not parse"
    for path, why in cases.items():
        with pytest.raises(report_run.NotARecordedRun) as err:
            report_run.recorded_run(path, runs=runs)
        text = str(err.value)
        assert text.startswith("`RUN` must be a recorded run's folder, runs/<notebook>/<time> (written by make run)")
        assert why in text, (why, text)
        assert "the recorded runs are: " in text and good.name in text
    with pytest.raises(report_run.NotARecordedRun, match="there is none in .*make run NB=<notebook>"):
        report_run.recorded_run(tmp_path / "nowhere", runs=tmp_path / "empty")
    got = report_run.recorded_run(good, runs=runs)
    assert got["notebook"] == NB and got["changes"] == good / "changes.md" and got["record"]["overridden"] == ["n_coverage"]


def test_the_command_line_refuses_by_name_and_exits_1(tmp_path, capsys):
    assert report.main(["--run", str(tmp_path / "nowhere"), "--out", str(tmp_path / "site")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("ERROR: `RUN` must be a recorded run's folder") and "is not a folder" in err
    assert not (tmp_path / "site").exists()


def test_make_report_passes_run_and_writes_apart_from_the_figures_report():
    out = subprocess.run(["make", "-n", "-W", "figures/claims.csv", "report", "RUN=runs/x/y"], cwd=PROJ_ROOT,
                         capture_output=True, text=True).stdout
    assert '-m offline_eval_compendium.report --run "runs/x/y" --out build/report-run' in out
    plain = subprocess.run(["make", "-n", "report"], cwd=PROJ_ROOT, capture_output=True, text=True).stdout
    assert "--out build/report" in plain and "--run" not in plain


# -- the run's outputs in place of figures/' -------------------------------------------------------------------------
def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.skipif(not (FIGURES_DIR / "manifest" / f"{NB}.sha256").is_file(), reason="no committed outputs")
def test_the_view_puts_the_runs_outputs_ledger_and_notebook_in_place_of_figures(tmp_path):
    # the committed figures/ (the working tree's may be mid-way through a reproduction)
    base = tmp_path / "committed"
    base.mkdir()
    archive = subprocess.run(["git", "archive", "HEAD", "figures"], cwd=PROJ_ROOT, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive.stdout, check=True)
    base = base / "figures"
    run = _recorded(tmp_path)
    listed = [line.split(None, 1)[1].strip() for line in
              (base / "manifest" / f"{NB}.sha256").read_text().splitlines() if line.strip()]
    for rel in listed:  # the run writes what make reproduce wrote, but for one file, and one file less
        src = base / rel
        (run / "outputs" / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, run / "outputs" / rel)
    claims_rel = next(r for r in listed if r.endswith(f"claims/{NB}.csv"))
    dropped = next(r for r in listed if r.endswith(".md") and "claims" not in r)
    (run / "outputs" / dropped).unlink()
    import pandas as pd

    df = pd.read_csv(run / "outputs" / claims_rel, dtype=str, keep_default_na=False)
    df.loc[0, "reproduced_value"] = "a value only this run has"
    df.to_csv(run / "outputs" / claims_rel, index=False)
    executed = tmp_path / "executed"
    (executed / "guide").mkdir(parents=True)
    for n in (NB, "rosset_wallet"):
        (executed / f"{n}.ipynb").write_text(json.dumps({"cells": [], "metadata": {"from": "make reproduce"}}))
    before = _sha(base / "claims.csv")
    figures, exe, recorded = report_run.run_view(run, figures=base, executed=executed, dest=tmp_path / "view",
                                             runs=tmp_path / "runs")
    assert _sha(base / "claims.csv") == before and (base / dropped).is_file()  # figures/ untouched
    assert not (figures / dropped).exists()  # what the run no longer writes is gone from the view
    ledger = pd.read_csv(figures / "claims.csv", dtype=str, keep_default_na=False)
    row = ledger[ledger["claim_id"] == df.loc[0, "claim_id"]].iloc[0]
    assert row["reproduced_value"] == "a value only this run has"
    assert len(ledger) == len(pd.read_csv(base / "claims.csv", dtype=str))  # every other notebook's rows
    assert json.loads((exe / f"{NB}.ipynb").read_text())["metadata"] == {}  # the run's executed notebook
    assert json.loads((exe / "rosset_wallet.ipynb").read_text())["metadata"] == {"from": "make reproduce"}
    assert recorded["notebook"] == NB


# -- marked on every page --------------------------------------------------------------------------------------------
def test_every_page_carries_a_banner_naming_the_run_and_its_changes(tmp_path):
    # a real Sphinx build: it needs the report group (make report / make test-report install it)
    pytest.importorskip("sphinx")
    pytest.importorskip("myst_parser")
    recorded = report_run.recorded_run(_recorded(tmp_path), runs=tmp_path / "runs")
    src = tmp_path / "src"
    (src / "papers" / "rosset").mkdir(parents=True)
    (src / "_extra").mkdir()
    (src / "conf.py").write_text(report.CONF.replace('extensions = ["myst_nb", "sphinx.ext.autodoc", '
                                                     '"sphinx.ext.napoleon", "sphinx-mathjax-offline"]',
                                                     'extensions = ["myst_parser"]')
                                 .replace('html_css_files = ["oe.css"]\nhtml_js_files = ["oe.js"]\n', "")
                                 .replace('html_favicon = "favicon.png"\n', "")
                                 .replace('html_static_path = ["_static"]\n', "")
                                 .replace('nb_execution_mode = "off"\n', ""))
    report_run.mark_recorded_run(src, recorded)
    (src / "index.md").write_text("# Home\n\n```{toctree}\npapers/rosset/index\nrun\n```\n")
    (src / "papers" / "rosset" / "index.md").write_text("# Rosset\n\n```{toctree}\ntable2\n```\n")
    (src / "papers" / "rosset" / "table2.md").write_text("# Table 2\n\nText.\n")
    html = tmp_path / "html"
    subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", "-W", "-d", str(tmp_path / "doctrees"),
                    str(src), str(html)], check=True)
    pages = {"index.html": "run.html", "run.html": "#", "papers/rosset/index.html": "../../run.html",
             "papers/rosset/table2.html": "../../run.html"}
    for page, href in pages.items():
        text = (html / page).read_text()
        assert text.count('class="bd-header-announcement oe-run-banner"') == 1, page
        banner = text.split("oe-run-banner", 1)[1].split("</aside>", 1)[0]
        assert f"<code>{recorded['shown']}</code>" in banner and "A recorded run, not <code>figures/</code>" in banner
        assert "(n_coverage=200)" in banner and f"{recorded['shown']}/changes.md</a>" in banner
        assert f'href="{href}' in banner, (page, banner)
    run_page = (html / "run.html").read_text()
    assert "<th" in run_page and "1000" in run_page  # changes.md's table as a table
    assert "A `<` and a $ stay characters" not in run_page and "&lt;</code> and a $ stay characters" in run_page
    assert "git_commit: 0123456789abcdef" in run_page  # its run.yaml


def test_the_footer_names_the_run_shown_beside_the_reproduction(tmp_path):
    recorded = report_run.recorded_run(_recorded(tmp_path), runs=tmp_path / "runs")
    text = report.footer({"commits": ["abc"], "dirty": False, "inputs_sha256": "f" * 64}, recorded)
    assert f"except <code>{NB}</code>, shown from the recorded run <code>{recorded['shown']}</code>" in text
    assert "at commit <code>0123456789</code>" in text
    assert "except" not in report.footer({"commits": ["abc"], "dirty": False, "inputs_sha256": "f" * 64})
