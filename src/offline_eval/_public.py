"""What a public module re-exports from its private engines keeps the ``__module__`` of where it is defined.

A public module (``metrics``) imports what its engines (``_metrics_roc``) define and lists it in its ``__all__``;
the names stay the engines' own, so ``inspect.getsource``, tracebacks and the doctests find the code where it is
(a class's source is looked up in the file its ``__module__`` names; issue 49), and the API reference documents
each name under the public module that lists it.  Rewriting ``__module__`` to the public module, as this module
once did, broke ``inspect.getsource`` for every class it touched and made the doctests depend on import order.
"""

from __future__ import annotations


def publish(namespace: dict, *private: str, also: tuple = ()) -> None:
    """Nothing: kept for the module that still calls it (``ranking.coefficients``), until it drops the
    call.  ``__module__`` is left as Python sets it.

    Parameters
    ----------
    namespace : dict
        The public module's ``globals()`` (unused).
    *private : str
        Full names of the private modules whose names the public module re-exports (unused).
    also : tuple of str, optional
        Public names of the module outside its ``__all__`` (unused).
    """
