"""Validation helpers, the claims ledger, reference files and atomic output."""

import os

import numpy as np
import pandas as pd
import pytest

from offline_eval import OfflineEvalWarning
from offline_eval_compendium import reference
from offline_eval._validation import check_probability, check_rng, warn_undefined
from offline_eval_compendium.claims import COLUMNS, Ledger, gather, matches_printed, paired_seed_sweep, seed_sweep
from offline_eval_compendium.io import OutputDir, atomic_write_text, to_markdown
from offline_eval_compendium.paths import PAPERS, REFERENCE_DIR


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
    df = L.frame()
    assert list(df.columns) == COLUMNS
    assert df.loc[df.claim_id == "d", "criterion"].item() == "|ours - paper| <= rtol 0.1"
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


def test_paired_seed_sweep_is_two_seed_sweeps():
    world, control = paired_seed_sweep(lambda s: ({"x": s}, {"x": -s, "y": 1}), [2, 5], progress="pair")
    assert world.to_dict("list") == {"seed": [2, 5], "x": [2, 5]}
    assert control.to_dict("list") == {"seed": [2, 5], "x": [-2, -5], "y": [1, 1]}
    with pytest.raises(ValueError, match="`seeds` must not be empty"):
        paired_seed_sweep(lambda s: ({}, {}), [], progress="pair")


def test_gather_writes_ledger_with_counts(tmp_path):
    for paper, nb, status in [("yi", "a", "exact"), ("yi", "b", "erratum"), ("rosset", "c", "differs")]:
        out = OutputDir(paper, tmp_path)
        out.table(pd.DataFrame({"x": [1]}), "t")
        L = Ledger(paper, nb)
        L.add(f"{paper}-{nb}", "T", "s", paper_value=1, reproduced_value=1, criterion="c", status=status,
              kind="printed", world="paper", evidence=f"{paper}/t.csv", note="why" if status == "differs" else "")
        out.claims(L)
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


def test_gather_rejects_evidence_that_does_not_exist(tmp_path):
    out = OutputDir("yi", tmp_path)
    out.table(pd.DataFrame({"x": [1]}), "t1")
    L = Ledger("yi", "a")
    L.check("yi-ok", "T", "s", criterion="c", holds=True, evidence="yi/t1.csv")
    out.claims(L)
    gather(tmp_path)
    L.check("yi-missing", "T", "s", criterion="c", holds=True, evidence=("yi/t1.csv", "yi/nope.png"))
    with pytest.raises(ValueError, match="yi/nope.png"):
        out.claims(L)  # a notebook cannot save it
    (tmp_path / "yi" / "t1.csv").unlink()  # nor can an output vanish before the ledger is gathered
    with pytest.raises(ValueError, match="yi-ok.*yi/t1.csv"):
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


# -- the estimate rule's fills, kinds, controls --------------------------------------------------
from offline_eval_compendium import claims  # noqa: E402
from offline_eval_compendium.claims import Claim, Effect, declare  # noqa: E402

GAP = Effect("gap", ">", 0.1, "stated for the test")


def _claims(*ids):
    """A claims table of synthetic claims, each with the effect ``GAP``, without seed blocks."""
    return declare(*(Claim(i, "T", "'s'", "claim", "c", world="synthetic: w", control="the mechanism off",
                           evidence=("yi/t.csv",), effect=GAP) for i in ids))


def _on_seeds(values):
    return pd.Series(np.asarray(values, float), index=range(len(values)))


POSITIVE, NEGATIVE, ZERO = _on_seeds([1.0, 2.0] * 10), _on_seeds([-1.0, -2.0] * 10), _on_seeds([0.0] * 20)


def test_no_fill_method_decides_a_status_from_a_share_of_seeds():
    assert claims.SWEEP_SEEDS == 20
    for name in ("sweep", "predict"):
        assert not hasattr(Ledger, name), name
    for name in ("sweep_verdict", "SweepVerdict", "wilson_interval", "SWEEP_MIN_SHARE"):
        assert not hasattr(claims, name) and not hasattr(claims.rules, name), name


def test_a_control_that_shows_the_effect_too_leaves_the_claim_not_tested():
    L = Ledger("yi", "nb", claims=_claims("yi-a", "yi-b"))
    assert L.estimate("yi-a", world=POSITIVE, control=ZERO) == "holds"
    assert L.estimate("yi-b", world=POSITIVE, control=POSITIVE + 0.01) == "not tested"
    row = L.frame().iloc[1]
    assert "does not discriminate" in row["note"]
    assert row["control"].startswith("effect 1.51") and "mechanism off; world - control" in row["control"]


def test_kind_and_evidence_are_checked():
    L = Ledger("yi", "nb")
    with pytest.raises(ValueError, match="`kind` must be one of"):
        L.check("a", "T", "s", criterion="c", holds=True, kind="reproduction")
    with pytest.raises(ValueError, match="`evidence` must be relative paths"):
        L.check("a", "T", "s", criterion="c", holds=True, evidence="/etc/passwd")
    L.check("a", "T", "s", criterion="c", holds=True, kind="check", evidence=["yi/table5.csv", "yi/fig3.png"])
    assert L.frame()["evidence"].iloc[0] == "yi/table5.csv; yi/fig3.png"


def test_count_tables_keep_calibrations_and_checks_apart():
    L = Ledger("yi", "nb")
    L.check("a", "T", "s", criterion="c", holds=True)
    L.tolerance("b", "T", "s", printed="1.02", value=1.01, rtol=0.05, kind="calibration")
    L.check("c", "T", "s", criterion="c", holds=True, kind="check")
    tables = claims.count_tables(L.frame())
    assert tables["recomputed"].set_index("paper").loc["yi", "total"] == 1
    own = tables["own"].set_index("paper")
    assert own.loc["yi", "calibration within-tolerance"] == 1 and own.loc["yi", "check holds"] == 1
    assert "1 calibration" in L.verdict()


# -- tables at a stated precision --------------------------------------------------------------
from offline_eval_compendium import io as oio  # noqa: E402


def test_tables_hide_last_bit_noise(tmp_path):
    # the same table computed on two CPUs: every float one ulp apart, plus a -0.0 / 0.0 pair
    rng = np.random.default_rng(0)
    x = rng.lognormal(size=200) * 10.0 ** rng.integers(-8, 8, 200)
    a = pd.DataFrame({"x": x, "z": [0.0] * 200, "n": np.arange(200), "s": ["a"] * 200})
    b = a.assign(x=np.nextafter(x, np.inf), z=[-0.0] * 200)
    oio.write_table(a, tmp_path / "a")
    oio.write_table(b, tmp_path / "b")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert (tmp_path / "a.md").read_bytes() == (tmp_path / "b.md").read_bytes()
    # and the stated precision: six significant digits, whole numbers as integers
    first = (tmp_path / "a.csv").read_text().splitlines()[1].split(",")
    assert len(first[0].replace(".", "").replace("-", "").split("e")[0].lstrip("0")) <= oio.FLOAT_DIGITS


def test_format_float_rules():
    assert oio.FLOAT_DIGITS == 6
    assert oio.format_float(123456789.0) == "123456789" and oio.format_float(1234567.5) == "1.23457e+06"
    assert oio.format_float(-0.0) == "0" and oio.format_float(float("nan")) == ""
    assert oio.to_csv(pd.DataFrame({"a": [0.1 + 0.2], "b": [object()]}).assign(b=[0.30000000000000004])) == "a,b\n0.3,0.3\n"


def test_a_notebook_run_by_hand_writes_under_build_not_figures():
    from offline_eval_compendium.paths import BUILD_DIR, FIGURES_DIR

    out = OutputDir("yi", None)
    assert out.path == BUILD_DIR / "lab" / "yi"
    assert FIGURES_DIR not in out.path.parents
    assert OutputDir("yi", FIGURES_DIR).path == FIGURES_DIR / "yi"


# -- comparing two ledgers -----------------------------------------------------------------------

def _random_ledger(rng, n):
    rows = [dict(paper=str(rng.choice(PAPERS)), claim_id=f"c{i}", kind=str(rng.choice(claims.KINDS)), source="s",
                 statement="x", paper_value="", reproduced_value=str(rng.integers(3)), criterion="k",
                 status=str(rng.choice(claims.STATUSES)), control=str(rng.choice(["", "1/20"])), evidence="",
                 note="") for i in range(n)]
    return pd.DataFrame(rows, columns=COLUMNS)


def _compare_reference(before, after):
    """Row by row: the obviously-right version of claims.compare."""
    b = {(r.paper, r.claim_id): r for r in before.itertuples()}
    a = {(r.paper, r.claim_id): r for r in after.itertuples()}
    out = {}
    for k, r in a.items():
        if k not in b:
            out[k] = "added"
        elif r.status != b[k].status or r.kind != b[k].kind:
            out[k] = "status"
        elif any(getattr(r, c) != getattr(b[k], c) for c in claims.COMPARED):
            out[k] = "value"
    out.update({k: "removed" for k in b if k not in a})
    return out


@pytest.mark.parametrize("seed", range(5))
def test_compare_matches_a_row_by_row_reference(seed):
    rng = np.random.default_rng(1000 + seed)
    before = _random_ledger(rng, 40)
    after = _random_ledger(rng, 40)
    after["paper"] = before["paper"]  # the same claims, different outcomes
    after = after.drop(index=rng.choice(40, 5, replace=False))
    extra = _random_ledger(rng, 3).assign(claim_id=lambda d: "new" + d["claim_id"])
    after = pd.concat([after, extra], ignore_index=True)
    got = claims.compare(before, after)
    assert dict(zip(zip(got["paper"], got["claim_id"]), got["change"])) == _compare_reference(before, after)
    change = list(got["change"])
    assert "removed" in change and change == sorted(change, key=lambda c: c == "removed")  # gone rows last
    assert claims.compare(after, after).empty


def test_compare_refuses_what_is_not_a_ledger():
    led = _random_ledger(np.random.default_rng(7), 4)
    with pytest.raises(ValueError, match="`before` is not a ledger.*status"):
        claims.compare(led.drop(columns="status"), led)
    with pytest.raises(ValueError, match="`after` repeats"):
        claims.compare(led, pd.concat([led, led.iloc[:1]]))


def test_pipeline_compare_reads_files_and_git_revisions(tmp_path, capsys):
    from offline_eval_compendium import pipeline

    led = _random_ledger(np.random.default_rng(11), 6)
    changed = led.copy()
    changed.loc[0, "status"] = "holds" if led.loc[0, "status"] != "holds" else "differs"
    changed.loc[1, "reproduced_value"] = "changed"
    (tmp_path / "a.csv").write_text(led.to_csv(index=False))
    (tmp_path / "b.csv").write_text(changed.to_csv(index=False))
    assert pipeline.main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv")]) == 0
    out = capsys.readouterr().out
    assert "2 rows changed (1 status, 1 value, 0 added, 0 removed)" in out and "| c0 |" in out
    assert pipeline.main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--status-only"]) == 0
    assert "1 row changed (1 status, 0 value" in capsys.readouterr().out
    assert pipeline.main(["compare", "HEAD", "HEAD"]) == 0
    assert "(no row changed)" in capsys.readouterr().out
    assert pipeline.main(["compare", "no-such-revision-xyz"]) == 2
    assert "neither a ledger file nor a git revision" in capsys.readouterr().err
    assert pipeline.main(["compare", "HEAD", "HEAD", "--kind", "claims"]) == 2
    assert "--kind must be one of" in capsys.readouterr().err


def test_estimate_adds_why_to_the_note_only_when_the_row_does_not_hold():
    L = Ledger("yi", "t", claims=_claims("yi-a", "yi-b", "yi-c", "yi-d", "yi-e"))
    L.estimate("yi-a", world=POSITIVE, control=ZERO, note="n", why="the reason")
    L.estimate("yi-b", world=NEGATIVE, control=ZERO, note="n", why="the reason")
    L.estimate("yi-c", world=POSITIVE, control=POSITIVE, why="the reason")
    L.estimate("yi-d", world=POSITIVE, control=ZERO, why=lambda: 1 / 0)  # not called: the row holds
    L.estimate("yi-e", world=NEGATIVE, control=ZERO, why=lambda: "computed when it differs")
    rows = L.frame().set_index("claim_id")
    assert rows["status"].tolist() == ["holds", "differs", "not tested", "holds", "differs"]
    notes = rows["note"]
    assert notes["yi-a"] == "n; the world's interval lies beyond 0 in the claimed direction and the world - control " \
                            "interval excludes 0 in the same direction" and notes["yi-d"] == notes["yi-a"][3:]
    assert notes["yi-b"] == "n; the world's interval lies on the other side of 0; the reason"
    assert notes["yi-c"].endswith("the criterion does not discriminate; the reason")
    assert notes["yi-e"].endswith("; computed when it differs")


def test_worker_count_reads_its_variable_and_refuses_a_bad_one(monkeypatch):
    from offline_eval_compendium.machine import WORKERS_ENV, worker_count

    monkeypatch.setenv(WORKERS_ENV, "3")
    assert worker_count() == 3
    monkeypatch.delenv(WORKERS_ENV)
    assert worker_count() == len(os.sched_getaffinity(0))
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(WORKERS_ENV, bad)
        with pytest.raises(ValueError, match=WORKERS_ENV):
            worker_count()


def test_map_in_workers_takes_its_default_from_worker_count(monkeypatch):
    from offline_eval_compendium import machine

    seen = []
    monkeypatch.setattr(machine, "worker_count", lambda: seen.append("asked") or 1)
    assert list(machine.map_in_workers(abs, [-1, -2])) == [1, 2]
    assert list(machine.map_in_workers(abs, [-3], workers=2)) == [3]
    assert seen == ["asked"]
