"""Each sweep is named in its progress lines (issue 51): ``make run`` once printed eight identical ``one_seed: 20/20
seeds`` lines; a step that ``claims.seed_sweep`` names by its function is now named by the caller of the sweep, from
the statement that runs it (what it is assigned to, its keys, its loop variables)."""

from __future__ import annotations

import pytest

from offline_eval_compendium import pipeline, progress
from offline_eval_compendium.claims import paired_seed_sweep, seed_sweep


def one_seed(seed, **kwargs):
    return {"x": seed}


def _lines(capsys):
    return [line.split(":")[0] for line in capsys.readouterr().err.splitlines()]


@pytest.fixture(autouse=True)
def _to_stderr(monkeypatch):
    monkeypatch.delenv(progress.ENV_FILE, raising=False)
    monkeypatch.delenv(progress.ENV_NAME, raising=False)


def test_a_sweep_is_named_by_what_it_is_assigned_to_and_its_keys(capsys):
    sweeps = {"sweep": {}, "control": {}}
    for b in ("development", "confirmation"):
        sweeps["sweep"][b] = seed_sweep(one_seed, [1, 2])
        sweeps["control"][b] = seed_sweep(one_seed, [1, 2],
                                          k=3)  # a statement over two lines
    assert _lines(capsys) == ["sweep development (one_seed)", "control development (one_seed)",
                              "sweep confirmation (one_seed)", "control confirmation (one_seed)"]
    control = {}
    for block in ("development",):
        control[block] = seed_sweep(one_seed, [1])
    assert _lines(capsys) == ["control development (one_seed)"]


def test_a_sweep_in_a_comprehension_is_named_by_its_loop_variables(capsys):
    controls = {b: seed_sweep(one_seed, [1]) for b in ("development", "confirmation")}
    worlds = {"gumbel": {"tau": 0.4}, "clayton": {"tau": 0.5}}
    earlier = {name: seed_sweep(one_seed, [1], **w) for name, w in worlds.items()}  # w: a dict, not a name
    assert len(controls) == len(earlier) == 2
    assert _lines(capsys) == ["controls development (one_seed)", "controls confirmation (one_seed)",
                              "earlier gumbel (one_seed)", "earlier clayton (one_seed)"]


def test_a_name_given_in_words_is_kept_and_an_unassigned_sweep_keeps_its_function(capsys):
    table2 = seed_sweep(one_seed, [1], progress="table2 control")
    for _ in range(1):
        seed_sweep(one_seed, [1])  # assigned to nothing: nothing to name it by
    paired_seed_sweep(lambda s: ({"x": s}, {"x": -s}), [1], progress="per_seed (a world and its control)")
    assert len(table2) == 1
    assert _lines(capsys) == ["table2 control", "one_seed", "per_seed (a world and its control)"]


def test_a_step_a_study_names_itself_is_printed_as_given(capsys):
    rows = list(progress.track([1, 2], "scores", unit="runs"))  # not behind a pass-through helper
    assert rows == [1, 2] and _lines(capsys) == ["scores"]


def test_the_name_never_stops_a_run(capsys, monkeypatch):
    import linecache

    monkeypatch.setattr(linecache, "getlines", lambda *a, **k: 1 / 0)
    control = {}
    control["development"] = seed_sweep(one_seed, [1])
    assert len(control["development"]) == 1 and _lines(capsys) == ["one_seed"]


def test_the_lines_change_no_result():
    quiet = seed_sweep(one_seed, [3, 1, 2], progress="x")
    named = {b: seed_sweep(one_seed, [3, 1, 2]) for b in ("development",)}
    assert quiet.equals(named["development"])


NOTEBOOK = '''# %% tags=["parameters"]
seed = 0
output_root = None

# %%
from offline_eval_compendium.claims import seed_sweep
sweeps = {"control": {}}
for b in ("development", "confirmation"):
    sweeps["control"][b] = seed_sweep(dict, range(2))
tails = {b: seed_sweep(dict, range(2)) for b in ("development",)}
'''


@pytest.mark.notebook
def test_a_kernels_sweeps_are_named_in_the_runners_stderr(tmp_path, capsys):
    nb = tmp_path / "rosset_names.py"
    nb.write_text(NOTEBOOK)
    pipeline.run(nb, {}, output_root=tmp_path / "figures")
    err = [line.split(":")[0] for line in capsys.readouterr().err.splitlines() if line.startswith("[rosset_names] ")]
    assert err == ["[rosset_names] control development (dict)", "[rosset_names] control confirmation (dict)",
                   "[rosset_names] tails development (dict)"], err
