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
