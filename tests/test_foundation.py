"""Validation helpers, the claims ledger, reference files and atomic output."""

import os

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning, reference
from offline_eval._validation import check_probability, check_rng, warn_undefined
from offline_eval.claims import COLUMNS, Ledger, gather, matches_printed, seed_sweep
from offline_eval.io import OutputDir, atomic_write_text, to_markdown
from offline_eval.paths import PAPERS, REFERENCE_DIR


def test_check_probability_messages():
    with pytest.raises(ValueError, match=r"`p` must lie in \[0, 1\]; got 2 values outside"):
        check_probability([0.5, 1.5, -0.1], "p")
    assert check_probability([0, 1], "p").dtype == np.float64


def test_check_rng():
    assert check_rng(3).random() == np.random.default_rng(3).random()
    g = np.random.default_rng(1)
    assert check_rng(g) is g
    with pytest.raises(ValueError, match="`rng`"):
        check_rng("seed")
    with pytest.raises(ValueError, match="non-negative"):
        check_rng(-1)


def test_warning_class():
    with pytest.warns(OfflineEvalWarning, match="undefined"):
        warn_undefined("undefined here")


@pytest.mark.parametrize("value, printed, ok", [
    (0.91934, "0.9193", True), (0.91936, "0.9193", False), (1128800, "1,128,800", True),
    (10393400, "10,392,500", False), (9.9991, "10.0", True), (0.00001, "0.000010", True),
    (0.0200, "0.0200 00", True), (8.64, "8.6%", True),
])
def test_matches_printed(value, printed, ok):
    assert matches_printed(value, printed) is ok


def test_ledger_statuses_and_criteria():
    L = Ledger("yi", "nb")
    assert L.printed("a", "T", "s", printed="0.9193", value=0.91932) == "exact"
    assert L.printed("b", "T", "s", printed="0.8499", value=0.8489, erratum_note="evidence") == "erratum"
    assert L.printed("c", "T", "s", printed="0.8499", value=0.8489) == "differs"
    assert L.tolerance("d", "T", "s", printed="0.00103", value=0.00097, rtol=0.1) == "within-tolerance"
    assert L.tolerance("e", "T", "s", printed="0.00103", value=0.0005, rtol=0.1) == "differs"
    assert L.check("f", "T", "s", criterion="x > y", holds=False) == "differs"
    assert L.sweep("g", "T", "s", outcomes=[True] * 18 + [False] * 2, criterion="c", min_share=0.9) == "holds"
    assert L.sweep("h", "T", "s", outcomes=[True] * 17 + [False] * 3, criterion="c", min_share=0.9) == "differs"
    df = L.frame()
    assert list(df.columns) == COLUMNS
    assert df.loc[df.claim_id == "g", "reproduced_value"].item() == "18/20 seeds"
    assert (df["criterion"] != "").all()
    with pytest.raises(ValueError, match="already in the ledger"):
        L.check("a", "T", "s", criterion="c", holds=True)
    with pytest.raises(ValueError, match="`status`"):
        L.add("z", "T", "s", paper_value=1, reproduced_value=1, criterion="c", status="ok")
    with pytest.raises(ValueError, match="`paper`"):
        Ledger("nope", "nb")


def test_seed_sweep():
    df = seed_sweep(lambda seed, k: {"x": seed * k, "ok": seed % 2 == 0}, range(4), k=3)
    assert df["x"].tolist() == [0, 3, 6, 9] and df["ok"].sum() == 2


def test_gather_writes_ledger_with_counts(tmp_path):
    for paper, nb, status in [("yi", "a", "exact"), ("yi", "b", "erratum"), ("rosset", "c", "differs")]:
        L = Ledger(paper, nb)
        L.add(f"{paper}-{nb}", "T", "s", paper_value=1, reproduced_value=1, criterion="c", status=status)
        OutputDir(paper, tmp_path).claims(L)
    df = gather(tmp_path)
    assert len(df) == 3
    assert (tmp_path / "yi" / "claims.csv").exists() and (tmp_path / "claims.csv").exists()
    md = (tmp_path / "claims.md").read_text()
    assert "| all | 1 | 0 | 0 | 1 | 1 | 3 |" in md


def test_gather_rejects_duplicate_claim_ids(tmp_path):
    for nb in ("a", "b"):
        L = Ledger("yi", nb)
        L.check("yi-same", "T", "s", criterion="c", holds=True)
        OutputDir("yi", tmp_path).claims(L)
    with pytest.raises(ValueError, match="repeat claim ids"):
        gather(tmp_path)


def test_atomic_write_leaves_no_temp_files_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "t.csv"
    atomic_write_text(target, "old\n")

    def boom(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(target, "new\n")
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.csv"]


def test_figure_bytes_are_deterministic(tmp_path):
    from offline_eval.plotting import new_figure

    digests = []
    for k in range(2):
        fig, ax = new_figure()
        ax.plot([0, 1], [0, 1])
        paths = OutputDir("yi", tmp_path / str(k)).figure(fig, "f")
        digests.append([p.read_bytes() for p in paths])
    assert digests[0] == digests[1]
    assert b"CreationDate" not in digests[0][1] and b"Matplotlib" not in digests[0][1]


def test_to_markdown_formats():
    md = to_markdown(pd.DataFrame({"a": [1.23456, np.nan], "b": ["x|y", None], "c": [True, False]}), floatfmt=".2f")
    assert md.splitlines()[2] == "| 1.23 | x\\|y | yes |"
    assert md.splitlines()[3] == "|  |  | no |"


def test_every_reference_file_has_provenance_columns():
    for paper in PAPERS:
        for f in sorted((REFERENCE_DIR / paper).glob("*.csv")):
            df = pd.read_csv(f, dtype=str, keep_default_na=False)
            assert list(df.columns) == reference.COLUMNS, f
            assert (df["paper"] == paper).all(), f
            assert (df["source"] != "").all() and (df["value"] != "").any(), f


def test_reference_parsing():
    assert reference.parse_printed("1,128,800") == 1128800
    assert reference.printed_decimals("0.0200 00") == 6
    with pytest.raises(ValueError, match="not a number"):
        reference.parse_printed("n/a")
    with pytest.raises(ValueError, match="`paper`"):
        reference.load("nature")
