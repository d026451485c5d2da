"""The compendium's machinery: what reproduces the four papers, apart from the library.

``pip install offline_eval`` gives the library (metrics, simulators, generators) with numpy, scipy and
pandas; this subpackage needs the extra ``compendium`` (papermill, jupytext, JupyterLab, matplotlib) and,
for the report, ``report``.  The library never imports it (``tests/test_api.py``).

``studies``     per notebook: its claims table, world and experiment, tables and figures, and ``add_claims``
``claims``      the claims ledger (declared claims, published value beside ours, kind, status, control)
``reference``   the papers' printed numbers (``data/reference/``) and our corrections of their typos
``io``          atomic, deterministic tables (six significant digits) and figures
``pipeline``    notebook execution through papermill (``python -m offline_eval.compendium.pipeline``)
``install``     all-or-nothing install of a notebook's outputs
``changes``     what a recorded run changed against the committed outputs (``make run``)
``changes``     what a recorded run changed against the committed outputs (``make run``)
``machine``     pinned threads; running "as an older CPU computes"
``report``      the static HTML report (``make report``); ``report_papers``: each paper's tables, figures
                and sections in its order; ``report_html``: the ledger and tables as HTML
``lab``         JupyterLab's settings, the project's kernel and contents manager (``make lab``)
``paths``       where the project's folders are
"""
