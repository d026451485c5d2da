"""Every notebook: house rules, and a smoke run through papermill at small parameters.

The smoke run of the notebooks in :data:`CROSS_CPU` executes twice: once as this machine computes,
once as an older CPU computes (numpy forced to its baseline SIMD code, OpenBLAS to an older core's
kernel), and the two output trees must be the same bytes.  The other notebooks run once here; every
notebook is run both ways at full size by ``make check-figures`` (CI runs every notebook at full size as an
older CPU against the figures committed from this CPU), so ``make test`` keeps its cross-CPU check to one
notebook per simulation engine.
"""

import hashlib
import re

import jupytext
import pandas as pd
import pytest
import yaml

from offline_eval_compendium.claims import COLUMNS, STATUSES
from offline_eval_compendium.machine import baseline_cpu_env, pinned_threads_env
from offline_eval_compendium.paths import NOTEBOOKS_DIR, PAPERS, SMOKE_PARAMS_DIR
from offline_eval_compendium.pipeline import execute

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.py"))
IDS = [p.stem for p in NOTEBOOKS]
#: The notebooks run as an older CPU too in ``make test``: one per engine whose discrete decisions could
#: hinge on a float's last bit -- the GSP auction with reserves at quantiles (yi_offline_online), Algorithm 1
#: and the best beta (chapelle_auctions), rank measures with ties (rosset_measures), the confusion-matrix
#: calibration grid (piovano_matrices_table1).
CROSS_CPU = ("yi_offline_online", "chapelle_auctions", "rosset_measures", "piovano_matrices_table1")


def test_there_are_notebooks():
    assert NOTEBOOKS
    assert set(CROSS_CPU) <= set(IDS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_house_rules(path):
    nb = jupytext.read(path)
    assert path.stem.split("_")[0] in PAPERS, "a notebook's name starts with its paper id"
    assert nb.cells[0].cell_type == "markdown", "the first cell says what is reproduced"
    params = [c for c in nb.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1, "exactly one cell tagged `parameters`"
    names = set(re.findall(r"^(\w+)\s*=", params[0].source, flags=re.M))
    assert {"seed", "output_root"} <= names
    for line in params[0].source.splitlines():
        code = line.split("#")[0].strip()
        if code:
            value = code.split("=", 1)[1].strip()
            assert re.fullmatch(r"-?[\d_.eE+-]+|None|True|False|'[^']*'|\"[^\"]*\"|\[[^\]]*\]|\([^)]*\)", value), (
                f"parameters cell holds literal defaults only: {line!r}")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert not re.search(r"^\s*(def|class)\s", code, flags=re.M), "no function or class definitions in notebooks"
    assert "sys.path" not in code
    assert not re.search(r"np\.random\.(seed|rand|randn|randint|normal|uniform|choice|shuffle|permutation)\(", code)
    assert (SMOKE_PARAMS_DIR / f"{path.stem}.yaml").is_file(), "smoke parameters in notebooks/smoke/<name>.yaml"


def _digest(root):
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_notebook_smoke_run_and_its_bytes_on_another_cpu(path, tmp_path, monkeypatch):
    params = yaml.safe_load((SMOKE_PARAMS_DIR / f"{path.stem}.yaml").read_text()) or {}
    for name, value in pinned_threads_env().items():
        monkeypatch.setenv(name, value)
    for name in baseline_cpu_env():
        monkeypatch.delenv(name, raising=False)
    digests = []
    machines = ({}, baseline_cpu_env()) if path.stem in CROSS_CPU else ({},)
    for k, machine in enumerate(machines):
        for name, value in machine.items():  # the kernel is a child process: it inherits these
            monkeypatch.setenv(name, value)
        out = tmp_path / f"out{k}"
        execute(path, out, params, executed=tmp_path / f"executed{k}.ipynb")
        digests.append(_digest(out))
    changed = sorted(f for f in set(digests[0]) | set(digests[-1]) if digests[0].get(f) != digests[-1].get(f))
    assert not changed, f"the same seed must give the same bytes on another CPU ({baseline_cpu_env()}); changed: {changed}"
    paper = path.stem.split("_")[0]
    claims = pd.read_csv(tmp_path / "out0" / paper / "claims" / f"{path.stem}.csv", dtype=str, keep_default_na=False)
    assert list(claims.columns) == COLUMNS
    assert len(claims) > 0
    assert set(claims["status"]) <= set(STATUSES)
    assert not claims["claim_id"].duplicated().any()
    assert (claims["criterion"] != "").all()
    assert all(k.startswith(f"{paper}/") for k in digests[0]), "a notebook writes only under its paper's folder"


@pytest.mark.notebook
def test_the_your_own_data_guide_runs(tmp_path):
    """The guide (not a paper output) runs end to end on its own data frames."""
    executed = execute(NOTEBOOKS_DIR / "guide" / "your_own_data.py", tmp_path / "out", {"n_rows": 5000},
                       executed=tmp_path / "guide.ipynb")
    text = executed.read_text()
    assert "OAM (re-weighted)" in text and "Pearson r" in text
