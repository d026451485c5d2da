"""A malformed reference or corrections file is an error naming the file, the line and what is wrong;
no line is ever skipped."""

import shutil

import pytest

from offline_eval_compendium import reference
from offline_eval_compendium.paths import DATA_DIR, PAPERS, REFERENCE_DIR
from offline_eval_compendium.reference import ReferenceFileError

HEADER = "paper,source,panel,row,column,value\n"
GOOD = HEADER + "rosset,Table 1,,RMSE,Entire Set,\"$3,872,481\"\nrosset,Table 1,,RMSE,%Change,49.8%\n"


def write(tmp_path, text, name="tables.csv"):
    folder = tmp_path / "rosset"
    folder.mkdir(exist_ok=True)
    (folder / name).write_bytes(text.encode() if isinstance(text, str) else text)
    return folder


def test_every_committed_reference_and_corrections_file_reads_strictly():
    papers = [p for p in PAPERS if (REFERENCE_DIR / p).is_dir()]  # the cross-paper arena prints no numbers
    assert {"yi", "rosset", "piovano", "chapelle"} <= set(papers)
    for paper in papers:
        df = reference.load(paper)
        assert len(df) == sum(len(f.read_text().splitlines()) - 1 for f in (REFERENCE_DIR / paper).glob("*.csv")), \
            f"{paper}: every line is a row"
        reference.load_corrections(paper)


def test_a_good_file_reads_every_row(tmp_path):
    df = reference.load("rosset", root=write(tmp_path, GOOD))
    assert df["value"].tolist() == ["$3,872,481", "49.8%"]


@pytest.mark.parametrize("text, message", [
    (GOOD + "rosset,Table 1,,RMSE,%Change,49.8%\n",
     r"line 4: the same source, panel, row, column as line 3 \(a duplicated row\)"),
    (GOOD + "rosset,Table 1,,RMSE,%Change,50.1%\n", r"line 4: the same source, panel, row, column as line 3"),
    (GOOD + "rosset,Table 1,,MAE\n", r"line 4: 4 field\(s\), expected 6 .* a truncated or garbage line: 'rosset,Table 1,,MAE'"),
    (GOOD + "this is not a row\n", r"line 4: 1 field\(s\), expected 6"),
    (GOOD + "\n" + "rosset,Table 1,,MAE,Entire Set,1\n", r"line 4: an empty line"),
    (GOOD + "# a comment\n", r"line 4: 1 field\(s\)"),
    (GOOD + "rosset,Table 1,,MAE,Entire Set,1,extra\n", r"line 4: 7 field\(s\), expected 6"),
    (GOOD + 'rosset,Table 1,,MAE,Entire Set,"568,281\nrosset,Table 1,,MAE,x,1\n', r"line 4: .*quote"),
    (GOOD + 'rosset,Table 1,,MAE,Entire Set,"568,281\n', r"line 4: malformed CSV"),
    (GOOD + "rosset,Table 1,,MAE,Entire Set,56x8\n", r"line 4: column `value` is not a printed number: '56x8'"),
    (GOOD + "rosset,Table 1,,MAE ,Entire Set,1\n", r"line 4: column `row` has spaces around it: 'MAE '"),
    (GOOD + "rosset,,,MAE,Entire Set,1\n", r"line 4: column `source` is empty"),
    (GOOD + "yi,Table 1,,MAE,Entire Set,1\n", r"line 4: a row of paper 'yi' in the files of 'rosset'"),
    (GOOD + "rosset,Table 1,,MAE,Entire Set,56", r"line 4: the file does not end with a newline \(cut short\?\): .*Entire Set,56"),
    ("paper,source,row,column,value\n", r"line 1: the header must be paper,source,panel,row,column,value"),
    ("", r"the file is empty"),
    (GOOD.encode() + b"rosset,Table 1,,MAE,Entire Set,\xff\n", r"line 4: not UTF-8 text \(byte 0xff\)"),
    (GOOD + "rosset,Table 1,,MAE,Entire\x00Set,1\n", r"line 4: column `column` holds a control character"),
])
def test_a_malformed_file_names_the_file_the_line_and_the_fault(tmp_path, text, message):
    folder = write(tmp_path, text)
    with pytest.raises(ReferenceFileError, match=message) as err:
        reference.load("rosset", root=folder)
    assert str(folder / "tables.csv") in str(err.value)


def test_a_cell_given_in_two_files_names_both(tmp_path):
    folder = write(tmp_path, GOOD)
    write(tmp_path, HEADER + "rosset,Table 1,,RMSE,%Change,49.8%\n", name="more.csv")
    with pytest.raises(ReferenceFileError, match=r"tables.csv, line 3: the cell .*'%Change' is also given in .*more.csv, line 2"):
        reference.load("rosset", root=folder)


def test_an_empty_value_is_a_cell_printed_empty(tmp_path):
    df = reference.load("rosset", root=write(tmp_path, GOOD + "rosset,Table 1,,MAE,Entire Set,\n"))
    assert df["value"].iloc[-1] == ""


def test_a_malformed_corrections_file_names_its_line(tmp_path):
    folder = tmp_path / "corrections"
    folder.mkdir()
    good = (DATA_DIR / "corrections" / "yi.csv").read_text()
    shutil.copy(DATA_DIR / "corrections" / "yi.csv", folder / "yi.csv")
    assert len(reference.load_corrections("yi", root=folder)) == len(good.splitlines()) - 1
    (folder / "yi.csv").write_text(good + good.splitlines()[1] + "\n")
    with pytest.raises(ReferenceFileError, match=rf"yi.csv, line {len(good.splitlines()) + 1}: the same source, panel, row, column as line 2"):
        reference.load_corrections("yi", root=folder)
    (folder / "yi.csv").write_text(good + "yi-T3-input-typo,Table 3,a\n")
    with pytest.raises(ReferenceFileError, match=r"3 field\(s\), expected 8"):
        reference.load_corrections("yi", root=folder)
