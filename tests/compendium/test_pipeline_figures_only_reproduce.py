"""Runs into figures/ only as `make reproduce` makes them (issue 50, item 5): a parameterised run without a
record folder is refused, a repeated `-p` is refused, and a second run of a notebook into figures/ while one is
under way is refused.  None of these cases executes a notebook."""

import os

from offline_eval_compendium import pipeline


def test_a_parameterised_run_does_not_install_into_figures(capsys):
    assert pipeline.main(["run", "rosset_measures", "-p", "seed", "7"]) == 2
    err = capsys.readouterr().err
    assert "does not install into figures/" in err and "make run NB=rosset_measures" in err


def test_a_repeated_parameter_is_refused(capsys, tmp_path):
    args = ["run", "rosset_measures", "-p", "seed", "7", "-p", "seed", "8", "--record", str(tmp_path)]
    assert pipeline.main(args) == 2
    assert "`-p` names seed more than once" in capsys.readouterr().err
    assert not any(tmp_path.iterdir())  # refused before a run folder is made


def test_a_second_run_into_figures_is_refused_while_one_holds_it(capsys):
    fd = pipeline._hold_figures_run("rosset_measures")
    assert fd is not None
    try:
        assert pipeline.main(["run", "rosset_measures"]) == 2
        assert "another run of rosset_measures into figures/ is under way" in capsys.readouterr().err
    finally:
        os.close(fd)
    again = pipeline._hold_figures_run("rosset_measures")  # released: the next run may go
    assert again is not None
    os.close(again)
