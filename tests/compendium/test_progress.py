"""Progress lines: their form, the relay from the kernel to the make log, and the time table."""

import json

import pytest

from offline_eval_compendium import execution, pipeline, progress, timing
from offline_eval_compendium.claims import seed_sweep


def test_progress_line_counts_elapsed_and_estimate_left():
    t = iter([0.0, 4.0, 8.0])
    p = progress.Progress("sweep", 4, every=0, clock=lambda: next(t))
    assert p.line(1) == "sweep: 1/4 seeds, 4.0 s, ~12 s left"
    assert p.line(4) == "sweep: 4/4 seeds, 8.0 s"  # done: no estimate


def test_a_step_prints_at_most_every_interval_and_always_its_last_line(monkeypatch, capsys):
    monkeypatch.delenv(progress.ENV_FILE, raising=False)
    monkeypatch.setenv(progress.ENV_NAME, "nb")
    t = iter([0.0, 1.0, 2.0, 12.0, 13.0])
    p = progress.Progress("grid", 4, unit="points", every=10, clock=lambda: next(t))
    for _ in range(4):
        p.advance()
    assert capsys.readouterr().err.splitlines() == ["[nb] grid: 3/4 points, 12 s, ~4.0 s left",
                                                   "[nb] grid: 4/4 points, 13 s"]


def test_seed_sweep_reports_to_the_file_the_pipeline_names(tmp_path, monkeypatch):
    log = tmp_path / "progress.log"
    monkeypatch.setenv(progress.ENV_FILE, str(log))
    monkeypatch.setenv(progress.ENV_NAME, "nb")
    df = seed_sweep(lambda seed, k: {"x": seed * k}, range(3), k=2, progress="sweep")
    assert df["x"].tolist() == [0, 2, 4]
    assert log.read_text().splitlines()[-1].startswith("[nb] sweep: 3/3 seeds, ")


NOTEBOOK = '''# %% tags=["parameters"]
seed = 0
output_root = None

# %%
from offline_eval_compendium.claims import seed_sweep
from offline_eval_compendium.progress import say
say("calibration: starting")
_ = seed_sweep(lambda seed: {"x": seed}, range(2), progress="sweep")
'''


@pytest.mark.notebook
def test_kernel_progress_reaches_the_runners_stderr_and_not_the_notebook(tmp_path, capsys):
    nb = tmp_path / "yi_progress.py"
    nb.write_text(NOTEBOOK)
    pipeline.run(nb, {}, output_root=tmp_path / "figures")
    err = capsys.readouterr().err.splitlines()
    assert "[yi_progress] calibration: starting" in err
    assert any(line.startswith("[yi_progress] sweep: 2/2 seeds, ") for line in err)
    import json as _json
    executed = pipeline.executed_dir(tmp_path / "figures") / "yi_progress.ipynb"  # a test run: not build/executed
    cells = _json.loads(executed.read_text())["cells"]
    assert not [o for c in cells for o in c.get("outputs", [])], "the progress lines stay out of the notebook"
    assert progress.ENV_FILE not in __import__("os").environ


def test_relay_passes_whole_lines_and_the_rest_on_close(tmp_path):
    import io

    out = io.StringIO()
    relay = execution._Relay(tmp_path / "p.log", stream=out, poll=60)
    with open(relay.path, "a") as f:
        f.write("one\ntw")
    relay._pump()
    assert out.getvalue() == "one\n"
    relay.close()
    assert out.getvalue() == "one\ntw\n"


def test_time_table_lists_the_runs_longest_first_and_marks_earlier_ones(tmp_path):
    timing.record_timing("old", started=50.0, seconds=3.0, timing_dir=tmp_path)
    (tmp_path / "reported").write_text("99\n")
    timing.record_timing("a", started=100.0, seconds=12.5, timing_dir=tmp_path)
    timing.record_timing("b", started=101.0, seconds=40.0, timing_dir=tmp_path)
    lines = timing.timing_table(tmp_path, now=150.0)
    assert lines[1].split() == ["b", "40.0"] and lines[2].split() == ["a", "12.5"]
    assert "earlier" in lines[3] and lines[3].split()[0] == "old"
    assert lines[4].split()[:2] == ["total", "52.5"] and "41 s wall" in lines[4]
    assert json.loads((tmp_path / "a.json").read_text())["seconds"] == 12.5
    # the next table, with nothing run since, says so
    assert timing.timing_table(tmp_path, now=160.0)[-1].strip().startswith("(no notebook run")
