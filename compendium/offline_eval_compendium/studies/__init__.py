"""Per-paper glue: read the printed numbers, run the experiment, compare.

Each paper is a package (``studies/<paper>/``) holding one public module per notebook, named after the
notebook without its paper's prefix (``notebooks/yi_offline_online.py`` reads ``studies.yi.offline_online``),
and the private modules (``_<name>.py``) it is built on.  Every notebook's study has the same skeleton:

* ``CLAIMS``: the claims table, declared before any run;
* ``run_experiment(...) -> <Paper>Run``: every seed sweep, bootstrap and calibration, returned as a frozen
  dataclass built by keyword;
* ``add_claims(ledger, run, *, block)``: the run's rows in the ledger, judged on the confirmation block.
"""

from __future__ import annotations

import importlib
from pathlib import Path

HERE = Path(__file__).resolve().parent


def study_name(notebook: str) -> str:
    """The module that is ``notebook``'s study: ``studies.<paper>.<rest>``."""
    paper, _, rest = notebook.partition("_")
    if not paper or not rest:
        raise ValueError(f"`notebook` must be named <paper>_<name>; got {notebook!r}")
    return f"{__name__}.{paper}.{rest}"


def study_path(notebook: str) -> Path:
    """The file of ``notebook``'s study."""
    return HERE.joinpath(*study_name(notebook).split(".")[2:]).with_suffix(".py")


def study(notebook: str):
    """``notebook``'s study module, imported."""
    return importlib.import_module(study_name(notebook))
