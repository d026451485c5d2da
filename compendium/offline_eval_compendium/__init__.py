"""The compendium: what reproduces the four papers with the library ``offline_eval``, apart from it.

A project of its own (``compendium/pyproject.toml``), installed from the repository's checkout by
``make venv``: it reads ``notebooks/`` and ``data/`` and writes ``figures/``.  ``pip install offline_eval``
gives the library alone (metrics, simulators, generators, with numpy, scipy and pandas); this package
depends on it and uses only its public names (``tests/compendium/test_package.py``); the library never
imports this one (``tests/library/test_api.py``).  Its own dependencies (papermill, jupytext, matplotlib,
scikit-learn, Dask) are declared in its ``pyproject.toml``; JupyterLab's in its extra ``lab``, the report's
in its extra ``report``.

``studies``     per notebook: its claims table, world and experiment, tables and figures, and ``add_claims``
``claims``      the claims ledger (declared claims, published value beside ours, kind, status, control)
``findings``    what we found, first: a few sentences per paper from the ledger (the report's home page, README)
``reference``   the papers' printed numbers (``data/reference/``) and our corrections of their typos
``io``          atomic, deterministic tables (six significant digits) and figures
``pipeline``    the command line: runs notebooks, gathers the ledger (``python -m offline_eval_compendium.pipeline``)
``parameters``  a notebook's parameters: its literal defaults, the ``-p`` overrides checked; ``NotebookError``
``execution``   one notebook executed through papermill, its progress relayed, a failure named by cell
``records``     a run's ``run.yaml`` and the digest of the inputs of ``figures/``
``timing``      the notebooks' run times and their table
``install``     all-or-nothing install of a notebook's outputs
``changes``     what a recorded run changed against the committed outputs (``make run``)
``machine``     pinned threads; running "as an older CPU computes"
``progress``    a notebook's progress lines (``[<notebook>] <step>: k/n seeds, elapsed, ~left``)
``report``      the static HTML report (``make report``); ``report_papers``: each paper's tables, figures
                and sections in its order; ``report_html``: the ledger and tables as HTML; ``report_api``: the
                library's API reference; ``report_run``: a recorded run shown in the report (``make report RUN=``)
``lab``         JupyterLab's settings, the project's kernel and contents manager (``make lab``)
``paths``       where the project's folders are
"""
