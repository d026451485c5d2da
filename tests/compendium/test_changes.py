"""`make run` ends by saying what changed against the committed outputs: ledger rows, table cells, figures."""

from pathlib import Path

import pandas as pd
import pytest

from offline_eval_compendium import claims, pipeline
from offline_eval_compendium import install as inst
from offline_eval_compendium.changes import run_changes, table_changes


def ledger_csv(rows):
    df = pd.DataFrame([{c: "" for c in claims.COLUMNS} | r for r in rows], columns=claims.COLUMNS)
    return df.to_csv(index=False, lineterminator="\n")


ROW = {"paper": "yi", "kind": "claim", "source": "Table 1", "statement": "s", "criterion": "c", "status": "holds",
       "reproduced_value": "0.5"}
BEFORE = {
    "yi/claims/yi_nb.csv": ledger_csv([ROW | {"claim_id": "yi-a"}, ROW | {"claim_id": "yi-b"},
                                       ROW | {"claim_id": "yi-gone"}]),
    "yi/claims/yi_nb.md": "ledger as markdown\n",
    "yi/t.csv": "name,x,y\nm1,0.123456,1\nm2,2,text\n",
    "yi/t.md": "table as markdown\n",
    "yi/fig.png": "png bytes",
    "yi/fig.pdf": "pdf bytes",
    "yi/fig.caption.txt": "a caption\n",
    "yi/old.csv": "a\n1\n",
}
AFTER = {
    "yi/claims/yi_nb.csv": ledger_csv([ROW | {"claim_id": "yi-a", "status": "differs"},
                                       ROW | {"claim_id": "yi-b", "reproduced_value": "0.6"},
                                       ROW | {"claim_id": "yi-new"}]),
    "yi/claims/yi_nb.md": "ledger as markdown, changed\n",
    "yi/t.csv": "name,x,y\nm1,0.123457,1.0\nm2,2,other\n",
    "yi/t.md": "table as markdown, changed\n",
    "yi/fig.png": "other png bytes",
    "yi/fig.pdf": "pdf bytes",
    "yi/fig.caption.txt": "another caption\n",
    "yi/new.csv": "a\n1\n",
}


def installed(root, files):
    stage = root.with_name(root.name + "_stage")
    for rel, text in files.items():
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        (stage / rel).write_text(text)
    inst.install(stage, root, "yi_nb")
    return root


def test_changes_name_ledger_rows_table_cells_and_figures(tmp_path):
    base = installed(tmp_path / "figures", BEFORE)
    out = installed(tmp_path / "outputs", AFTER)
    ch = run_changes(out, "yi_nb", baseline=base)
    assert dict(zip(ch.ledger["claim_id"], ch.ledger["change"])) == {
        "yi-a": "status", "yi-b": "value", "yi-new": "added", "yi-gone": "removed"}
    cells = ch.cells["yi/t.csv"]
    # 1 vs 1.0 is the same number; 0.123456 vs 0.123457 differs at the 6 digits the tables are written at
    assert cells.to_dict("records") == [
        {"row": "1 (m1)", "column": "x", "committed": "0.123456", "this run": "0.123457"},
        {"row": "2 (m2)", "column": "y", "committed": "text", "this run": "other"}]
    assert ch.figures == ["yi/fig.png"] and ch.other == ["yi/fig.caption.txt"]
    assert ch.added == ["yi/new.csv"] and ch.removed == ["yi/old.csv"]
    assert ch.counts() == ("4 ledger rows (1 status, 1 value, 1 added, 1 removed), 2 table cells in 1 table, "
                           "1 figure, 1 other file, 1 files added, 1 removed; 1 files unchanged")
    summary = ch.summary(where="runs/yi_nb/x/changes.md").splitlines()
    assert summary[0] == "1 status changed"
    assert summary[1].startswith(f"changes against {base}: 4 ledger rows")
    # one row a line, the status change first, every moved value whole
    assert summary[2:6] == ["  ledger  yi-a status holds -> differs", "          yi-b reproduced_value 0.5 -> 0.6",
                            "          yi-new added", "          yi-gone removed"]
    assert summary[6] == "  tables  yi/t.csv (2 cells)"
    assert summary[7] == "  figures yi/fig.png"
    assert summary[-1] == "  every change: runs/yi_nb/x/changes.md"
    md = ch.markdown({"seed": 7})
    assert md.startswith("# What changed: yi_nb (seed=7)")
    assert "**1 status changed**" in md
    for needle in ("yi-gone", "| 2 (m2) | y | text | other |", "- yi/fig.png", "- added: yi/new.csv"):
        assert needle in md


def test_the_summary_stays_short_and_the_file_complete(tmp_path):
    rows = "".join(f"r{k},{k}\n" for k in range(50))
    base = installed(tmp_path / "figures", {f"yi/t{k}.csv": "name,x\n" + rows for k in range(6)})
    out = installed(tmp_path / "outputs", {f"yi/t{k}.csv": "name,x\n" + rows.replace(",", ",1") for k in range(6)})
    ch = run_changes(out, "yi_nb", baseline=base)
    assert ch.n_cells == 6 * 50
    summary = ch.summary()
    assert summary.splitlines()[0] == "no status changed"
    assert summary.splitlines()[2] == "  tables  yi/t0.csv (50 cells); yi/t1.csv (50 cells); yi/t2.csv (50 cells); ... (+3 more)"
    assert len(summary.splitlines()) == 3
    assert sum(1 for line in ch.markdown().splitlines() if line.startswith("| ") and " (r" in line) == 300


def test_nothing_changed_and_nothing_to_compare_with(tmp_path):
    base = installed(tmp_path / "figures", BEFORE)
    out = installed(tmp_path / "outputs", BEFORE)
    assert run_changes(out, "yi_nb", baseline=base).counts() == "nothing changed (8 files byte-identical)"
    empty = tmp_path / "empty"
    empty.mkdir()
    ch = run_changes(out, "yi_nb", baseline=empty)
    assert ch.missing_baseline and "has no outputs of yi_nb" in ch.summary()
    with pytest.raises(ValueError, match="`outputs` .* has no manifest/other_nb.sha256"):
        run_changes(out, "other_nb", baseline=base)


def test_table_changes_reports_a_new_shape():
    cells, shape = table_changes(b"a,b\n1,2\n", b"a,c\n1,2\n3,4\n")
    assert shape == "1 x 2 -> 2 x 2, columns gone: ['b'], new columns: ['c']" and cells.empty


def test_committed_outputs_compared_with_themselves_show_no_change():
    ch = run_changes(pipeline.FIGURES_DIR, "rosset_measures", baseline=pipeline.FIGURES_DIR)
    assert ch.counts() == f"nothing changed ({ch.unchanged} files byte-identical)" and ch.unchanged > 10
    # by default the baseline is figures/ at git HEAD (figures/ on disk without git)
    assert run_changes(pipeline.FIGURES_DIR, "rosset_measures").baseline.startswith("figures/")


GOOD = '''# %% [markdown]
# A notebook that writes one table.

# %% tags=["parameters"]
seed = 0
output_root = None

# %%
import pandas as pd
from offline_eval_compendium.io import OutputDir
OutputDir("yi", output_root).table(pd.DataFrame({"a": [seed], "b": [1]}), "half")
'''


@pytest.mark.notebook
def test_make_run_ends_with_what_changed(tmp_path, capsys):
    nb = tmp_path / "yi_small.py"
    nb.write_text(GOOD)
    base = tmp_path / "figures"
    pipeline.run(nb, {"seed": 5}, output_root=base)
    runs = tmp_path / "runs"
    assert pipeline.main(["run", str(nb), "-p", "seed", "6", "--record", str(runs)]) == 0
    out = capsys.readouterr().out
    assert "nothing to compare with" in out, "yi_small has no committed outputs"
    (run_dir,) = (runs / "yi_small").iterdir()
    assert (run_dir / "changes.md").is_file()
    assert pipeline.main(["changes", str(run_dir), "--against", str(base)]) == 0
    out = capsys.readouterr().out
    assert "[yi_small] changes against" in out and "1 table cell in 1 table" in out
    assert "  tables  yi/half.csv (1 cell)" in out
    assert (run_dir / "changes.md").read_text().startswith("# What changed: yi_small (seed=6)")
    assert "| 1 | a | 5 | 6 |" in (run_dir / "changes.md").read_text()
    assert pipeline.main(["changes", str(tmp_path)]) == 2


@pytest.mark.notebook
def test_a_real_notebook_with_other_parameters_says_what_moved(tmp_path, capsys):
    # rosset_measures at its smoke size against its committed outputs (git HEAD)
    runs = tmp_path / "runs"
    args = ["run", "rosset_measures", "-p", "n_firms", "120", "-p", "k_max", "3", "--record", str(runs)]
    assert pipeline.main(args) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("[rosset_measures] ")]
    head = next(line for line in lines if "changes against figures/" in line)
    assert "table cells in" in head and "figure" in head
    assert any(line.startswith("[rosset_measures]   tables  rosset/") for line in lines)
    assert any(line.startswith("[rosset_measures]   figures rosset/") for line in lines)
    (run_dir,) = (runs / "rosset_measures").iterdir()
    md = (run_dir / "changes.md").read_text()
    assert md.startswith("# What changed: rosset_measures (n_firms=120, k_max=3)") and "## Table cells" in md
