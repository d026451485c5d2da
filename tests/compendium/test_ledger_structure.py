"""The ledger a referee can trust row by row: claims declared first, one path to every synthetic status.

Each notebook has its study (the same name under ``offline_eval_compendium.studies``) that opens with its
claims table (``CLAIMS``) and ends with ``add_claims``; the committed rows fill exactly the declared claims;
no row's kind contradicts where its value came from (:func:`claims.problems`); every output file under
``figures/`` is cited by a row or supports a cited one.
"""

import ast
import re

import pandas as pd
import pytest

from offline_eval_compendium import claims
from offline_eval_compendium.paths import FIGURES_DIR, NOTEBOOKS_DIR, PROJ_ROOT
from offline_eval_compendium.studies import study as study_module, study_path

STUDIES_DIR = PROJ_ROOT / "compendium" / "offline_eval_compendium" / "studies"
NOTEBOOKS = sorted(p.stem for p in NOTEBOOKS_DIR.glob("*.py"))
#: Longest a study may be: one notebook's claims, world, experiment, tables and figures.
MAX_STUDY_LINES = 600


def _ledger(path=FIGURES_DIR / "claims.csv"):
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_studies_mirror_notebooks_one_to_one():
    # every notebook has its study in its paper's package; nothing but the packages' index lies beside them
    assert [n for n in NOTEBOOKS if not study_path(n).is_file()] == []
    papers = {n.split("_")[0] for n in NOTEBOOKS}
    assert [p.name for p in STUDIES_DIR.glob("*.py")] == ["__init__.py"]
    assert [p.name for p in STUDIES_DIR.iterdir() if p.is_dir() and p.name != "__pycache__" and p.name not in papers] == []
    # in a paper's package, every public module is a notebook's study; its helpers are private
    public = sorted(f"{p.parent.name}_{p.stem}" for p in STUDIES_DIR.glob("*/*.py") if not p.stem.startswith("_"))
    assert [s for s in public if s not in NOTEBOOKS] == []


@pytest.mark.parametrize("path", sorted(STUDIES_DIR.rglob("*.py")), ids=lambda p: str(p.relative_to(STUDIES_DIR)))
def test_no_study_is_longer_than_a_notebook_needs(path):
    assert len(path.read_text().splitlines()) <= MAX_STUDY_LINES


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_each_study_declares_its_claims_and_fills_them(notebook):
    study = study_module(notebook)
    assert isinstance(study.CLAIMS, claims.Claims) and len(study.CLAIMS)
    assert callable(study.add_claims)
    paper = notebook.split("_")[0]
    rows = _ledger(FIGURES_DIR / paper / "claims" / f"{notebook}.csv")
    undeclared, contradicted = [], []
    for r in rows.itertuples():
        try:
            decl = study.CLAIMS.find(r.claim_id)
        except ValueError:
            undeclared.append(r.claim_id)
            continue
        seeds = getattr(study, "SEEDS", None)
        renewed = "; ".join(x for x in (decl.revision_text, seeds.superseded_text() if seeds else "") if x)
        if (r.kind, r.world, r.source) != (decl.kind, decl.world, decl.source) \
                or not (r.revised == decl.revision_text or r.revised.startswith(renewed)):
            contradicted.append(r.claim_id)
    assert undeclared == [] and contradicted == []
    unfilled = [c.id for c in study.CLAIMS if not any(c.matches(i) for i in rows["claim_id"])]
    assert unfilled == []


@pytest.mark.parametrize("path", sorted(STUDIES_DIR.rglob("*.py")), ids=lambda p: str(p.relative_to(STUDIES_DIR)))
def test_the_experiment_code_never_decides_a_status(path):
    # a study fills values through the declared fill methods; it never writes a row or a status itself
    offenders = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add":
            if isinstance(node.func.value, ast.Name) and node.func.value.id in ("ledger", "led"):
                offenders.append(node.lineno)
        if isinstance(node, ast.keyword) and node.arg == "status":
            offenders.append(node.value.lineno)
    assert offenders == []


def test_the_committed_ledger_keeps_the_rules():
    assert claims.problems(_ledger()) == []


def test_every_output_file_is_cited():
    assert claims.uncited_files(_ledger()) == []


def test_the_readme_states_the_ledgers_three_count_tables():
    t = {k: v.set_index("paper").loc["all"] for k, v in claims.count_tables(_ledger()).items()}
    readme = (PROJ_ROOT / "README.md").read_text()

    def cells(total, statuses):
        return " | ".join(str(int(total[s])) if s in total.index else "–" for s in statuses)

    order = ("exact", "within-tolerance", "holds", "differs", "not tested", "erratum")
    apart = ("inconclusive", "exploratory", "ambiguous", "unconfirmed")  # counted apart, never in the total
    rec, worlds, own = t["recomputed"], t["worlds"], t["own"]
    assert (f"recomputed from their printed inputs ({int(rec['total'])}) | {cells(rec, order)} | "
            f"{cells(rec, apart)} |") in readme
    assert (f"synthetic (or real) worlds ({int(worlds['total'])}) | {cells(worlds, order)} | "
            f"{cells(worlds, apart)} |") in readme
    n_cal = int(sum(v for k, v in own.items() if k.startswith("calibration")))
    n_chk = int(sum(v for k, v in own.items() if k.startswith("check")))
    by_status = {s: sum(int(v) for k, v in own.items() if k.endswith(" " + s)) for s in order + apart}
    row = " | ".join(str(by_status[s]) if by_status[s] else "–" for s in order + apart)
    assert f"calibrations ({n_cal}) and checks of ours ({n_chk}) | {row} |" in readme


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_a_notebook_reads_only_its_own_study(notebook):
    # the study's private modules (``_<paper>_*``) are its own; a notebook sees what its study exports
    text = (NOTEBOOKS_DIR / f"{notebook}.py").read_text()
    assert not re.search(r"studies(\.\w+)*\._|studies(\.\w+)* import _", text)
