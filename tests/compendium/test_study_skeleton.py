"""Every study has one skeleton and every notebook only shows its study's run.

* the study: ``run_experiment(...)`` returns a frozen dataclass (its annotation says which) that holds every
  seed sweep, bootstrap and calibration; ``add_claims(ledger, run, *, block)`` fills the ledger from it;
* the notebook: calls ``run_experiment`` once, never ``seed_sweep``; each code cell but the parameters and the
  imports is at most 8 lines (one result shown and saved per cell).
"""

import dataclasses
import inspect
import typing

import jupytext
import pytest

from offline_eval_compendium.paths import NOTEBOOKS_DIR
from offline_eval_compendium.studies import study

NOTEBOOKS = sorted(p.stem for p in NOTEBOOKS_DIR.glob("*.py"))
MAX_CELL_LINES = 8

#: Notebooks whose study is still being reshaped to the skeleton; each leaves this set when it is.
PENDING: set[str] = set()
SHAPED = [n for n in NOTEBOOKS if n not in PENDING]


def _code_cells(notebook):
    nb = jupytext.read(NOTEBOOKS_DIR / f"{notebook}.py")
    code = [c for c in nb.cells if c.cell_type == "code"]
    params = [c for c in code if "parameters" in c.metadata.get("tags", [])]
    imports = [c for c in code if c.source.lstrip().startswith(("import ", "from "))][:1]
    return code, [c for c in code if c not in params and c not in imports]


def test_pending_names_only_notebooks():
    assert PENDING <= set(NOTEBOOKS)


@pytest.mark.parametrize("notebook", SHAPED)
def test_the_study_returns_a_frozen_run_built_by_keyword(notebook):
    s = study(notebook)
    run_type = typing.get_type_hints(s.run_experiment)["return"]
    assert dataclasses.is_dataclass(run_type) and run_type.__dataclass_params__.frozen
    assert getattr(run_type.__dataclass_params__, "kw_only", False) or all(f.kw_only for f in dataclasses.fields(run_type))


@pytest.mark.parametrize("notebook", SHAPED)
def test_add_claims_takes_the_ledger_the_run_and_the_block(notebook):
    params = list(inspect.signature(study(notebook).add_claims).parameters.values())
    assert [(p.name, p.kind) for p in params] == [
        ("ledger", inspect.Parameter.POSITIONAL_OR_KEYWORD), ("run", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        ("block", inspect.Parameter.KEYWORD_ONLY)]


def _problems(code, body):
    """What breaks the notebook's half of the skeleton, given its code cells' sources and its body's."""
    text = "\n".join(code)
    out = ["calls seed_sweep"] * ("seed_sweep(" in text)
    out += [f"calls run_experiment {text.count('run_experiment(')} times"] * (text.count("run_experiment(") != 1)
    out += ["does not call add_claims(ledger, run, block=...)"] * ("add_claims(ledger, run, block=" not in text)
    out += [f"body cell {i} has {len(c.splitlines())} lines" for i, c in enumerate(body)
            if len(c.splitlines()) > MAX_CELL_LINES]
    return out


@pytest.mark.parametrize("notebook", SHAPED)
def test_the_notebook_shows_its_run_in_short_cells(notebook):
    code, body = _code_cells(notebook)
    assert _problems([c.source for c in code], [c.source for c in body]) == []


def test_the_notebook_rule_catches_each_breach():
    good = ["run = S.run_experiment(blocks)", "S.add_claims(ledger, run, block=B)"]
    assert _problems(good, good) == []
    long_cell = "\n".join(f"x{i} = {i}" for i in range(MAX_CELL_LINES + 1))
    assert _problems(good + [long_cell], good + [long_cell]) == ["body cell 2 has 9 lines"]
    assert _problems(good + ["s = seed_sweep(f, seeds)"], good) == ["calls seed_sweep"]
    assert _problems(good[1:], good[1:]) == ["calls run_experiment 0 times"]
    assert _problems(good[:1], good[:1]) == ["does not call add_claims(ledger, run, block=...)"]
