"""The report's sources, without a browser: every table and figure of the papers has its section, every
ledger row lands on a paper page, the count tables work with either shape of ``claims``, and executed
notebooks show no local path."""

import json

import pandas as pd
import pytest

from offline_eval_compendium import claims, report, report_html
from offline_eval_compendium.paths import FIGURES_DIR, PROJ_ROOT
from offline_eval_compendium.report_papers import ITEMS, OTHER, assign

LEDGER = pd.read_csv(FIGURES_DIR / "claims.csv", dtype=str, keep_default_na=False)


@pytest.mark.parametrize("paper", list(ITEMS))
def test_every_ledger_row_has_its_section(paper):
    rows = LEDGER[LEDGER["paper"] == paper]
    items = assign(paper, rows["source"])
    lost = sorted({s for s, it in zip(rows["source"], items) if it is OTHER})
    assert not lost, f"ledger sources of {paper} that no section of its page claims: {lost}"


@pytest.mark.parametrize("paper", list(ITEMS))
def test_sections_name_outputs_that_exist_and_cover_the_printed_values(paper):
    for item in ITEMS[paper]:
        for stem in item.figures:
            assert (FIGURES_DIR / paper / f"{stem}.png").is_file(), (paper, item.label, stem)
        for stem in item.tables:
            assert (FIGURES_DIR / paper / f"{stem}.csv").is_file(), (paper, item.label, stem)
    files = sorted((PROJ_ROOT / "data" / "reference" / paper).glob("*.csv"))
    if not files:  # the cross-paper arena prints no numbers of its own
        return
    ref = pd.concat([pd.read_csv(f, dtype=str) for f in files])
    covered = {s for it in ITEMS[paper] for s in it.reference}
    assert set(ref["source"]) <= covered, f"printed values of {paper} in no section: {set(ref['source']) - covered}"


def test_every_table_and_figure_of_the_papers_has_a_section():
    """The tables and figures each paper prints (its transcription in data/reference and its captions)."""
    printed = {
        "yi": ["Table 1", "Table 2", "Table 3", "Table 4", "Figure 1", "Figure 2", "Table 5", "Table 6", "Figures 3-4"],
        "rosset": ["Figure 1", "Figure 2", "Figure 3", "Figure 4", "Table 1", "Table 2", "Figure 5"],
        "piovano": ["Fig. 1", "Table I", "Table II", "Table III"],
        "chapelle": ["Algorithm 1", "Figure 1", "Table 1", "Figure 2"],
    }
    for paper, labels in printed.items():
        assert [it.label for it in ITEMS[paper] if it.label in labels] == labels, paper


def test_count_tables_are_the_ledgers_three_tables():
    tables = report_html.count_tables(LEDGER)
    assert [t for t, _ in tables] == list(claims.COUNT_TABLES.values())
    assert all(isinstance(t, pd.DataFrame) for _, t in tables)


def test_ledger_html_shows_new_columns_and_statuses():
    df = LEDGER.head(3).copy()
    df["world"] = "synthetic: wallets"
    df["revised"] = ["", "was 80% of seeds; revised because the paper prints a z-score", ""]
    df.loc[df.index[2], "status"] = "not tested"
    out = report_html.ledger_html(df, "", filters=True)
    assert "revised because the paper prints a z-score" in out
    assert 'data-world="synthetic: wallets"' in out and "not tested" in out


def test_executed_notebooks_show_no_local_path(tmp_path):
    root = str(PROJ_ROOT)
    injected = {"cell_type": "code", "metadata": {"tags": ["injected-parameters"]}, "outputs": [],
                "source": f'# Parameters\noutput_root = "{root}/build/stage/x.abc123/outputs"\nseed = 7\n'}
    nb = {"cells": [injected, {"cell_type": "code", "metadata": {}, "source": "print(path)", "outputs": [
                         {"output_type": "stream", "name": "stdout", "text": f"{root}/build/stage/x.abc123/outputs/yi/t.csv"}]}],
          "metadata": {"papermill": {"input_path": f"{root}/build/notebooks/x.ipynb"}}}
    src = tmp_path / "x.ipynb"
    src.write_text(json.dumps(nb))
    report._executed_notebook(src, tmp_path / "y.ipynb")
    text = (tmp_path / "y.ipynb").read_text()
    assert root not in text and "build/stage" not in text
    assert "output_root" not in text and "seed = 7" in text and "figures/yi/t.csv" in text


def _executed(folder, name, parameters, digest):
    folder.mkdir(parents=True, exist_ok=True)
    nb = {"cells": [], "metadata": {"offline_eval": {"parameters": {**parameters, "output_root": "/x"},
                                                     "inputs_sha256": digest, "git_commit": "c0ffee" * 6,
                                                     "git_dirty": False}}}
    (folder / f"{name}.ipynb").write_text(json.dumps(nb))


def test_the_report_publishes_one_run_and_refuses_others(tmp_path):
    import yaml

    figures, executed = tmp_path / "figures", tmp_path / "executed"
    (figures / "manifest").mkdir(parents=True)
    (figures / "manifest" / "reproduce.yaml").write_text(yaml.safe_dump(
        {"command": "make reproduce", "inputs": {"sha256": "a" * 64},
         "notebooks": {"rosset_wallet": {"seed": 0, "n_firms": 500}, "yi_auc_anomalies": {"seed": 0}}}))
    _executed(executed, "rosset_wallet", {"seed": 0, "n_firms": 500}, "a" * 64)
    _executed(executed, "yi_auc_anomalies", {"seed": 0}, "a" * 64)
    run = report.one_run(executed, figures, ["rosset_wallet", "yi_auc_anomalies"])
    assert run["inputs_sha256"] == "a" * 64 and run["commits"] == ["c0ffee" * 6]
    assert "c0ffee" in report.footer(run) and "aaaaaaaaaaaa" in report.footer(run)
    # `make run NB=rosset_wallet ARGS="-p seed 7"` or a smoke run of 120 firms: refused, saying which and why
    _executed(executed, "rosset_wallet", {"seed": 7, "n_firms": 120}, "a" * 64)
    with pytest.raises(report.OtherRunError, match=r"rosset_wallet: executed with other parameters: "
                                                   r"n_firms=120 \(committed 500\), seed=7 \(committed 0\)"):
        report.one_run(executed, figures, ["rosset_wallet", "yi_auc_anomalies"])
    # a notebook executed from other code or data
    _executed(executed, "rosset_wallet", {"seed": 0, "n_firms": 500}, "b" * 64)
    with pytest.raises(report.OtherRunError, match=r"rosset_wallet: executed from other inputs"):
        report.one_run(executed, figures, ["rosset_wallet"])
    # a notebook with no record of its run
    (executed / "rosset_wallet.ipynb").write_text(json.dumps({"cells": [], "metadata": {}}))
    with pytest.raises(report.OtherRunError, match=r"rosset_wallet: no record of its run"):
        report.one_run(executed, figures, ["rosset_wallet"])


def test_the_readme_opens_on_the_committed_ledgers_findings():
    from offline_eval_compendium import findings

    text = (PROJ_ROOT / "README.md").read_text()
    assert findings.readme_block(LEDGER) in text, "README's findings are not the ledger's: make reproduce rewrites them"
    assert text.index(findings.START) < text.index("## Two commands")


def test_findings_follow_the_count_tables_never_adding_them():
    from offline_eval_compendium import findings

    text = dict(findings.findings(LEDGER))
    tables = claims.count_tables(LEDGER)
    for paper, sentence in text.items():
        rec = tables["recomputed"].set_index("paper").loc[paper, "total"]
        worlds = tables["worlds"].set_index("paper").loc[paper, "total"]
        if rec:
            assert f"of {rec} number" in sentence, (paper, sentence)
        assert f"of {worlds} claim" in sentence, (paper, sentence)
        if rec and worlds:
            assert f"of {rec + worlds} " not in sentence


def test_ledger_values_read_as_numbers_for_people():
    assert "-38.9% [-49.8,\u00a0-28.6]" in report_html.value_html(
        "median -38.9241, 5-95% [-49.7584, -28.6439] over 20 seeds; main seed: -43.1573", "-9.96%")
    assert ">3,775,592<" in report_html.value_html("3775592.00", "3,872,481")
    assert ">11<" in report_html.value_html("11.00", "11")
    assert 'title="3775592.00"' in report_html.value_html("3775592.00", "3,872,481"), "the ledger's text on hover"
    assert report_html.math_html("p_i^2 and M_BC^(o) in table1_tried.csv") == \
        "p<sub>i</sub><sup>2</sup> and M<sub>BC</sub><sup>(o)</sup> in table1_tried.csv"


def test_api_summaries_render_their_markup():
    out = report.rst_inline_html("Compute ``objective`` with :func:`~offline_eval.metrics.roc_auc_score` "
                                 "and :math:`\\alpha^2`.")
    assert out == ('Compute <code>objective</code> with <code>roc_auc_score</code> and '
                   '<span class="math notranslate nohighlight">\\(\\alpha^2\\)</span>.')
