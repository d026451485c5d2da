"""The public home of names defined in private modules.

A public module that re-exports an engine's names (``ondask`` those of ``_ondask_summary``) names itself
their ``__module__``, so that a repr, a pickle, the documentation, the doctests and the API tests see the
path a user imports them from, and the private module stays an implementation detail (as scipy does for
``_stats_py``).
"""

from __future__ import annotations


def publish(namespace: dict, *private: str, also: tuple = ()) -> None:
    """Make the module of ``namespace`` the ``__module__`` of the names of its ``__all__`` (and ``also``) defined
    in one of the modules ``private`` (and of the methods of such a class).

    Parameters
    ----------
    namespace : dict
        The public module's ``globals()`` (its ``__name__`` and ``__all__`` are read).
    *private : str
        Full names of the private modules whose functions and classes the public module re-exports.
    also : tuple of str, optional
        Public names of the module outside its ``__all__`` (helpers it documents) to treat alike.
    """
    home = namespace["__name__"]
    for name in (*namespace["__all__"], *also):
        obj = namespace.get(name)  # a name the module defines after the call is its own
        if not (isinstance(obj, type) or callable(obj)) or getattr(obj, "__module__", None) not in private:
            continue
        if isinstance(obj, type):
            # the methods too: doctest looks for a method's examples in the module its __module__ names
            for raw in vars(obj).values():
                for fn in (getattr(raw, "__func__", raw), getattr(raw, "fget", None), getattr(raw, "fset", None)):
                    if callable(fn) and getattr(fn, "__module__", None) in private:
                        fn.__module__ = home
        obj.__module__ = home
