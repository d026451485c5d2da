"""The result types: the protocol every result with an interval or a p-value follows, and each type that follows it.

Every function of the library that returns an interval or a p-value returns a :class:`Result` (as scipy's
``SignificanceResult`` and ``BootstrapResult``): ``.statistic`` and ``.standard_error`` (floats),
``.pvalue`` (``nan`` where the result tests nothing), ``.confidence_interval(level=0.95)`` (a
:class:`ConfidenceInterval`), ``.method`` (how the interval is made) and a one-line repr.  This module gathers
them, so a result can be checked or annotated without knowing which module made it::

    from offline_eval.results import NormalEstimate, Result
    isinstance(ab.cy_delta, NormalEstimate)   # ab = auction.compare_click_yields(control, treatment)

=======================  ===============================================================================
``Result``               the base every result type extends (the protocol)
``ConfidenceInterval``   ``(low, high)``, the one interval type
``NormalEstimate``       a float with its standard error and normal interval: the click yields and deltas
                         of :mod:`offline_eval.auction`, the estimates of :mod:`offline_eval.counterfactual`
``BootstrapResult``      every bootstrap: :func:`offline_eval.metrics.bootstrap_ci`, each of
                         ``adaptive.AdaptiveAccuracyCI``'s two, each metric and difference of
                         :func:`offline_eval.logboot.clustered_bootstrap` and
                         :func:`offline_eval.ondask.clustered_bootstrap`; its interval by
                         ``confidence_interval(level=0.95, method=...)``, ``"percentile"``, ``"basic"`` or ``"bca"``
                         (where the bootstrap computed BCa's acceleration), as ``scipy.stats.bootstrap``
``BootstrapComparison``  :func:`offline_eval.ranking.bootstrap_compare`: rosset's comparison of two models, its
                         normal interval by default (``method="percentile"`` or ``"basic"`` from its differences)
``TauResult``            :func:`offline_eval.ranking.kendall_tau_test`
``RhoResult``            :func:`offline_eval.ranking.spearman_rho_test`
=======================  ===============================================================================

Each type is also importable from the module that returns it, as before (``offline_eval.logboot.BootstrapResult``);
``BootstrapCI``, the row bootstrap's type before every bootstrap returned :class:`BootstrapResult`, is that type
under its old name.
The types load on first use, so importing this module is cheap.
"""

from __future__ import annotations

import importlib

#: Result type -> the module that defines it (loaded on first access).
_TYPES = {
    "ConfidenceInterval": "_results",
    "NormalEstimate": "_results",
    "Result": "_results",
    "BootstrapComparison": "ranking.bootstrap",
    "BootstrapResult": "_bootstrap",
    "RhoResult": "ranking",
    "TauResult": "ranking",
}

#: Old names of the types above, importable as before (not listed in ``__all__``).
_ALIASES = {"BootstrapCI": "_bootstrap"}

__all__ = sorted(_TYPES)


def __getattr__(name: str):
    module = _TYPES.get(name) or _ALIASES.get(name)
    if module is None:
        raise AttributeError(f"module 'offline_eval.results' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"offline_eval.{module}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
