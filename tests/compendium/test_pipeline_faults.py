"""The runner's bounds and records: declared parameter ranges, and the three faults of issue 35.

* a staging area on another filesystem than the run's folder (EXDEV) must not fail a run that installed;
* ``pipeline ledger`` must not record the inputs digest of inputs a notebook failed on;
* a failed recorded run says so in its ``run.yaml``.
"""

import errno
import os
from pathlib import Path

import pytest
import yaml

from offline_eval_compendium import parameters, pipeline
from offline_eval_compendium.paths import NOTEBOOKS_DIR, SMOKE_PARAMS_DIR
from offline_eval_compendium.parameters import NotebookError

NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.py"))

from toy_notebooks import FAILING, GOOD  # noqa: E402


# -- declared ranges of the size parameters ---------------------------------------------------------
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_size_parameter_declares_a_range_that_holds_its_default_and_smoke_values(path):
    defaults, ranges = pipeline.notebook_parameters(path), parameters.parameter_ranges(path)
    missing = [k for k in defaults if parameters.is_size_parameter(k) and k not in ranges]
    assert missing == [], f"size parameters without `# range: low..high` in the parameters cell: {missing}"
    assert set(ranges) <= set(defaults)
    pipeline.check_parameters(path, {})
    pipeline.check_parameters(path, yaml.safe_load((SMOKE_PARAMS_DIR / f"{path.stem}.yaml").read_text()) or {})
    for key, (low, high) in ranges.items():
        assert pipeline.check_parameters(path, {key: low})[key] == low
        assert pipeline.check_parameters(path, {key: high})[key] == high
        for outside in (high + 1, low - 1):
            if outside >= 1:  # below 1 the house rule for counts speaks first
                with pytest.raises(NotebookError, match=rf"`{key}` must lie in its declared range"):
                    pipeline.check_parameters(path, {key: outside})


def test_n_coverage_1e9_is_refused_before_anything_runs(capsys):
    nb = NOTEBOOKS_DIR / "rosset_measures.py"
    with pytest.raises(NotebookError, match=r"parameter `n_coverage` must lie in its declared range 20\.\.5_000 .* got 1000000000"):
        pipeline.check_parameters(nb, pipeline.parse_parameters([("n_coverage", "1e9")]))
    assert pipeline.main(["run", str(nb), "-p", "n_coverage", "1e9", "--output-root", "/nonexistent/never"]) == 2
    assert "`n_coverage` must lie in its declared range" in capsys.readouterr().err


def test_n_firms_2_is_refused_instead_of_a_broadcasting_error_in_cell_15():
    # rosset_measures' cell 15 (the breakdown panel) corrupts up to k_max labels: 2 firms broke it
    for stem in ("rosset_measures", "rosset_wallet"):
        with pytest.raises(NotebookError, match=rf"notebook {stem}: parameter `n_firms` must lie in its declared range"):
            pipeline.check_parameters(NOTEBOOKS_DIR / f"{stem}.py", {"n_firms": 2})


def test_a_range_is_read_from_its_own_line_only(tmp_path):
    nb = tmp_path / "yi_ranges.py"
    nb.write_text('# %% tags=["parameters"]\nseed = 0\nn_rows = 100  # rows; range: 10..1_000\n'
                  '# range: 1..2 (a comment line declares nothing)\nn_other = 5\nn_none = None  # range: 3..9\n'
                  'output_root = None\n')
    assert parameters.parameter_ranges(nb) == {"n_rows": (10, 1000), "n_none": (3, 9)}
    assert pipeline.check_parameters(nb, {"n_none": None})["n_none"] is None
    with pytest.raises(NotebookError, match=r"`n_none` must lie in its declared range 3\.\.9"):
        pipeline.check_parameters(nb, {"n_none": 10})


# -- the three pipeline faults ------------------------------------------------------------------------
@pytest.mark.notebook
def test_staging_on_another_filesystem_does_not_fail_a_recorded_run_after_its_install(tmp_path, monkeypatch):
    real = os.replace
    stage = pipeline.STAGE_DIR.resolve()

    def cross_device(src, dst, *a, **k):  # build/ on another filesystem: a rename out of it fails
        inside = lambda p: Path(p).resolve().is_relative_to(stage)  # noqa: E731
        if inside(src) != inside(Path(dst).parent):
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src), None, str(dst))
        return real(src, dst, *a, **k)

    monkeypatch.setattr(os, "replace", cross_device)
    monkeypatch.setattr(os, "rename", cross_device)
    nb = tmp_path / "yi_good.py"
    nb.write_text(GOOD)
    assert pipeline.main(["run", str(nb), "--record", str(tmp_path / "runs")]) == 0
    (run_dir,) = (tmp_path / "runs" / "yi_good").iterdir()
    assert (run_dir / "outputs" / "yi" / "half.csv").read_text() == "a\n1\n"
    assert (run_dir / "yi_good.ipynb").is_file() and not list(run_dir.glob(".*.tmp"))
    assert yaml.safe_load((run_dir / "run.yaml").read_text())["status"] == "succeeded"


@pytest.mark.notebook
def test_ledger_refuses_to_record_a_digest_after_a_notebook_failed(tmp_path, monkeypatch, capsys):
    from offline_eval_compendium import claims

    dest = tmp_path / "figures"
    nb = tmp_path / "yi_corrupt.py"
    nb.write_text(FAILING)
    with pytest.raises(NotebookError):
        pipeline.run(nb, {}, output_root=dest)
    monkeypatch.setattr(pipeline, "FIGURES_DIR", dest)

    def gather(*a, **k):
        raise AssertionError("the ledger gathered the claims after a notebook failed")

    monkeypatch.setattr(claims, "gather", gather)
    assert pipeline.main(["ledger"]) == 1
    err = capsys.readouterr().err
    assert "notebook yi_corrupt failed on the current inputs" in err and "RuntimeError: boom in cell three" in err
    assert "cell 4 of 4" in err
    assert not (dest / "manifest" / "reproduce.yaml").exists(), "no digest recorded"
    # once the notebook succeeds again, nothing stops the ledger
    nb.write_text(GOOD)
    pipeline.run(nb, {}, output_root=dest)
    assert pipeline.failed_runs(dest) == []


@pytest.mark.notebook
def test_a_failed_recorded_run_records_its_failure_in_run_yaml(tmp_path):
    nb = tmp_path / "yi_failing.py"
    nb.write_text(FAILING)
    assert pipeline.main(["run", str(nb), "--record", str(tmp_path / "runs")]) == 1
    (run_dir,) = (tmp_path / "runs" / "yi_failing").iterdir()
    record = yaml.safe_load((run_dir / "run.yaml").read_text())
    assert record["status"] == "failed"
    assert record["failed_cell"].startswith("cell 4 of 4 (In [4]")
    assert record["error"] == "RuntimeError: boom in cell three"
    assert pipeline.failed_runs(run_dir / "outputs") != []
