"""offline_eval: offline vs online evaluation of predictive models.

The library behind the compendium that reproduces four papers on the subject
(see the project's README).  Submodules:

``metrics``    AUC, ROC and the other offline metrics of binary predictions
``claims``     the claims ledger (published value beside reproduced value)
``reference``  the papers' printed numbers, from ``data/reference/``
``io``         atomic, deterministic tables and figures
``plotting``   the figure style
``pipeline``   notebook execution through papermill (``python -m offline_eval.pipeline``)
"""

from ._validation import OfflineEvalWarning

__all__ = ["OfflineEvalWarning", "__version__"]
__version__ = "0.1.0"
