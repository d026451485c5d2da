"""The notebook runner: a failing notebook names its cell and leaves no output behind."""

import pytest

from offline_eval import pipeline
from offline_eval.pipeline import NotebookError

FAILING = '''# %% [markdown]
# A notebook that writes one table, then fails.

# %% tags=["parameters"]
seed = 0
output_root = None

# %%
import pandas as pd
from offline_eval.io import OutputDir
OutputDir("yi", output_root).table(pd.DataFrame({"a": [1]}), "half")

# %%
raise RuntimeError("boom in cell three")
'''

GOOD = FAILING.rsplit("# %%", 1)[0]


@pytest.mark.notebook
def test_failing_notebook_names_cell_and_installs_nothing(tmp_path, capsys):
    nb = tmp_path / "yi_failing.py"
    nb.write_text(FAILING)
    dest = tmp_path / "figures"
    with pytest.raises(NotebookError, match=r"notebook yi_failing failed in cell 4 of 4 \(In \[4\], yi_failing.py line 14\): RuntimeError: boom in cell three"):
        pipeline.run(nb, {}, output_root=dest)
    assert not any(p.is_file() for p in dest.rglob("*")), "nothing is installed from a failing notebook"
    assert pipeline.main(["run", str(nb), "--output-root", str(dest)]) == 1
    assert "yi_failing failed in cell 4" in capsys.readouterr().err


@pytest.mark.notebook
def test_successful_notebook_installs_outputs_and_takes_parameters(tmp_path):
    nb = tmp_path / "yi_good.py"
    nb.write_text(GOOD.replace('{"a": [1]}', '{"a": [seed]}'))
    dest = tmp_path / "figures"
    written = pipeline.run(nb, pipeline.parse_parameters([("seed", "7")]), output_root=dest)
    assert sorted(p.name for p in written) == ["half.csv", "half.md"]
    assert (dest / "yi" / "half.csv").read_text() == "a\n7\n"


def test_parse_parameters_uses_yaml_scalars():
    assert pipeline.parse_parameters([("n", "1e5"), ("seed", "3"), ("name", "x"), ("flag", "true")]) == {
        "n": 1e5, "seed": 3, "name": "x", "flag": True}
