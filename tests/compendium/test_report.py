"""The report's sources, without a browser: every table and figure of the papers has its section, every
ledger row lands on a paper page, the count tables work with either shape of ``claims``, and executed
notebooks show no local path."""

import json
import re

import pandas as pd
import pytest

from offline_eval_compendium import claims, report, report_api, report_html
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
    shown = report_html.text_html("p_i^2 and M_BC^(o) in table1_tried.csv")
    assert re.sub(r'<span class="oe-tex">[^<]*</span>', "", shown) == \
        "p<sub>i</sub><sup>2</sup> and M<sub>BC</sub><sup>(o)</sup> in table1_tried.csv"
    assert re.sub(r"<[^>]+>", "", shown) == "p_i^2 and M_BC^(o) in table1_tried.csv", "the marks kept in the text"


def _text(out: str) -> str:
    import html

    return html.unescape(re.sub(r"<[^>]+>", "", out))


def test_text_from_figures_is_escaped_never_markdown_or_math():
    """Regression (issue 51): a note's dollar amounts typeset as math, a formula's ``<`` read as a tag."""
    note = "Entire Set $3,872,481 and Excl. One $1,940,415; sum_{j<i} 1{y_i > y_j} + sum_{j>i} -- 'x'"
    assert _text(report_html.text_html(note)) == note
    assert _text(report_html.md_html(f"- `id` (Table 1): {note}. *Why:* it")).strip() == f"id (Table 1): {note}. Why: it"
    assert "&lt;i" in report_html.md_html(note) and "<i}" not in report_html.md_html(note)
    block = report_html.raw_html("a ``` b")
    assert block.startswith("````{raw} html") and block.rstrip().endswith("\n````"), "no text closes the block"


def test_a_differing_value_never_reads_as_the_printed_one():
    """Regression (issue 51): ours at the printed value's digits can round to the printed value itself."""
    assert ">0.1478<" in report_html.value_html("0.14783", "0.148", status="differs")
    assert ">0.148<" in report_html.value_html("0.14783", "0.148", status="holds")
    # digits are matched to a printed number only, not to the "1" of "(Lemma 1)"
    assert ">0.9968<" in report_html.value_html("0.9968", "sums to one (Lemma 1)", status="differs")
    assert report_html.hides_difference("0.14778", "0.148 to 0.148 (one-sided; two-sided 0.296)")
    assert report_html.hides_difference("0.148", "0.148") and not report_html.hides_difference("0.148", "0.1478")


def test_the_which_when_matrix_reads_the_files_columns_as_they_are():
    df = pd.DataFrame({"mechanism": ["m1", "m2"], "world": ["W", "W"], "added": ["x", ""],
                       "est A": ["best (0.81) | off: = best (-0.02)", "worse (-0.30) | off: best (0.70)"],
                       "est B": ["= best (-0.05) | off: best (0.75)", "best (0.60) | off: n/a"]})
    out = report_html.which_when_html(df)
    assert len(re.findall(r'class="oe-ww [^"]*oe-ww-best"', out)) == 4 * 2, "each side's best, in the matrix and the cards"
    assert 'title="= best (-0.05)"' in out and "oe-ww-worse" in out and "oe-ww-na" in out
    assert "added: x" in _text(out), "a column added to the file is shown under its mechanism"
    # the equivalence-tested form: a tie is tied, an undecided gap is neither tied nor worse
    eq = report_html.which_when_html(pd.DataFrame({"mechanism": ["m"], "world": ["W"], "answer": ["trust A over B"],
                                                   "est A": ["tie (-0.02) | off: inconclusive (-0.09)"]}))
    assert 'class="oe-ww oe-ww-tied" title="tie (-0.02)"' in eq and "oe-ww-other" in eq and "oe-ww-worse" not in eq
    assert "answer: trust A over B" in _text(eq)


def test_the_findings_which_when_counts_ties_by_equivalence_and_never_an_inconclusive_gap(tmp_path):
    from offline_eval_compendium import findings
    path = tmp_path / "which_when.csv"
    pd.DataFrame({"mechanism": ["m"], "world": ["W"], "A": ["best (0.8) | off: inconclusive (-0.1)"],
                  "B": ["tie (-0.01) | off: best (0.7)"], "answer": ["trust A over B"]}).to_csv(path, index=False)
    assert "| m | W | trust A over B | A, B | B |" in findings.which_when(path)


def test_the_which_when_answer_has_a_row_for_the_real_logs(tmp_path):
    """The Open Bandit study's outputs give the real logs' row: an estimator within +-10% in every pair, one whose
    interval excludes 0, one undecided; the answer says what the sample can decide; the report's matrix shows it."""
    from offline_eval_compendium import findings
    arena = tmp_path / "arena"
    arena.mkdir()
    pd.DataFrame({"mechanism": ["m"], "world": ["W"], "A": ["best (0.8) | off: best (0.7)"],
                  "answer": ["trust A"]}).to_csv(arena / "which_when.csv", index=False)
    est = pd.DataFrame({"direction": ["random -> bts", "bts -> random"] * 3, "campaign": "all",
                        "estimator": ["ips", "ips", "dm", "dm", "dr", "dr"],
                        "relative_error": [0.01, -0.02, 0.3, 0.1, 0.2, -0.3],
                        "error_low": [-0.05, -0.08, 0.05, -0.2, -0.4, -0.9],
                        "error_high": [0.06, 0.04, 0.6, 0.5, 0.9, 0.4]})
    est.to_csv(arena / "open_bandit_estimates.csv", index=False)
    pd.DataFrame({"policy": ["random"], "campaign": ["all"], "rows": [10_000], "relative_half_width": [0.3],
                  "rows_for_target": [90_000]}).to_csv(arena / "open_bandit_resolution.csv", index=False)
    row = findings.real_logs_which_when(tmp_path).iloc[0]
    assert row["IPS"].startswith("within +-10% (2/2") and row["direct method"].startswith("differs")
    assert row["DR"].startswith("inconclusive") and "replay" not in row
    assert "90,000 rows per log" in row["answer"] and "+-30%" in row["answer"]
    text = findings.which_when(arena / "which_when.csv")
    assert "| real logs: each Open Bandit policy from the other's logs" in text and "| real | " in text
    assert text.rstrip().endswith("| IPS | n/a |")
    html = report._which_when(tmp_path, "../")
    assert "real world" in html and 'title="within +-10% (2/2' in html


def test_api_summaries_render_their_markup():
    out = report_api.rst_inline_html("Compute ``objective`` with :func:`~offline_eval.metrics.roc_auc_score` "
                                 "and :math:`\\alpha^2`.")
    assert out == ('Compute <code>objective</code> with <code>roc_auc_score</code> and '
                   '<span class="math notranslate nohighlight">\\(\\alpha^2\\)</span>.')


def test_the_readme_stays_a_front_page():
    # details belong in docs/ and the report: the README opens on the findings and the two commands
    text = (PROJ_ROOT / "README.md").read_text()
    assert len(text) < 15_000, len(text)


def test_an_estimate_reads_as_its_interval_with_what_it_is_below():
    from offline_eval_compendium import report_html

    out = report_html.value_html("effect 0.514 [0.504, 0.524] over 20 seeds; detectable at 80% power: 0.0123; "
                                 "main seed: 0.5", "0.510", status="not tested")
    assert ">0.514 [0.504,\u00a00.524]</span>" in out
    assert "mean, 95% interval over 20 seeds; detectable at 80% power 0.0123; main seed 0.5" in out
    assert 'title="effect 0.514 [0.504, 0.524] over 20 seeds; detectable' in out  # the ledger's text on hover
