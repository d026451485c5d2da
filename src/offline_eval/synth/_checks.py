"""The scalar checks every public generator makes at entry, derived from its signature.

A generator's keyword knobs are numbers with documented defaults; each one is checked here, by name, before
the generator's own domain checks (which compare it with a bound and would otherwise raise an unnamed
``TypeError`` for ``None`` or a string):

* a parameter whose default (or annotation) is an ``int`` takes an integer in int64's range (a Python int
  beyond it would wrap when it becomes a numpy size: ``zipf_prior(2**63)`` was an empty array), never a bool
  or a float; a size (``n`` or ``n_*``) is at most :data:`~offline_eval._validation.MAX_CELLS`, checked before
  any work;
* a parameter whose default (or annotation) is a ``float`` takes a finite real number, never a bool, ``None``
  or a string; ``inf`` only where the default is ``inf`` (its documented meaning: no such effect);
* a ``bool`` default takes ``True`` or ``False`` only.

And after the draw: finite parameters that make non-finite data (``sigma=1e300`` overflowing an ``exp``) are a
named error, never a silent ``nan`` or ``inf`` in the output.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import math
import threading
from collections.abc import Mapping, Set

import numpy as np

from .._validation import MAX_CELLS, InputTypeError, check_bool, check_int, check_work

_INT64 = (-(1 << 63), (1 << 63) - 1)

#: How deep in checked generators the current thread is: only the outermost checks the output, so that an
#: error names the arguments the caller gave (``theta``), not those of a generator it calls (``alpha``).
_depth = threading.local()


def _kind(p: inspect.Parameter) -> str | None:
    d, ann = p.default, str(p.annotation)
    if isinstance(d, (bool, np.bool_)) or ann == "bool":
        return "bool"
    if (isinstance(d, (int, np.integer)) and d is not inspect.Parameter.empty) or ann == "int":
        return "int"
    if isinstance(d, float) or ann == "float":
        return "float"
    return None


def _check_float(v, name: str, allow_inf: bool, allow_none: bool = False) -> None:
    ok = not isinstance(v, (bool, np.bool_)) and isinstance(v, (int, float, np.integer, np.floating))
    if ok:
        try:
            x = float(v)
        except OverflowError:
            x = math.inf
        ok = math.isfinite(x) or (allow_inf and x == math.inf)
    if not ok:
        name = f"{name}` must be None or" if allow_none else f"{name}` must be"
        kind = "None or a string" if v is None or isinstance(v, str) else repr(v)
        if isinstance(v, (bool, np.bool_)) or v is None or isinstance(v, (str, bytes)):
            raise InputTypeError(f"`{name} a finite real number{' (or inf)' if allow_inf else ''}; "
                                 f"got {v!r}")
        raise ValueError(f"`{name} a finite real number{' (or inf)' if allow_inf else ''} within "
                         f"float64's range; got {kind}")


def check_pair(v, name: str, *, what: str = "a pair (low, high)") -> tuple:
    """``v`` as a tuple of two finite real numbers (its own items, unconverted), or a named error.

    A list, tuple, 1-D array or any other iterable of two numbers is a pair; ``None``, a string, a mapping, a set
    (no order), a scalar or an iterable of another length is not, and neither is a pair holding a bool, ``None``,
    a string or a non-finite number.  The caller checks the domain (bounds, order) of the returned items.
    """
    if v is None or isinstance(v, (str, bytes, Mapping, Set)):
        raise InputTypeError(f"`{name}` must be {what} of two finite real numbers; got {v!r}")
    try:
        items = tuple(v)
    except TypeError:
        raise InputTypeError(f"`{name}` must be {what} of two finite real numbers; got {v!r}") from None
    if len(items) != 2:
        raise ValueError(f"`{name}` must be {what} of two finite real numbers; got {len(items)} item(s): {v!r}")
    for x in items:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
            raise InputTypeError(f"`{name}` must be {what} of two finite real numbers; got {v!r}")
        try:
            finite = math.isfinite(float(x))
        except OverflowError:  # an int beyond float64
            finite = False
        if not finite:
            raise ValueError(f"`{name}` must be {what} of two finite real numbers; got {v!r}")
    return items


def check_kwargs(kwargs, name: str, fn, *, skip=()) -> dict:
    """``kwargs`` (``None`` or a mapping) as a dict of keyword arguments of ``fn``, or a named error.

    Its keys must be strings naming keyword parameters of ``fn`` (those in ``skip``, which the caller passes
    itself, excepted); the values are left to ``fn``'s own checks.
    """
    if kwargs is None:
        return {}
    allowed = [p.name for p in inspect.signature(fn).parameters.values()
               if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in skip]
    if not isinstance(kwargs, Mapping):
        raise InputTypeError(f"`{name}` must be None or a dict of keyword arguments of {fn.__name__} "
                             f"({', '.join(allowed)}); got {type(kwargs).__name__} {kwargs!r}")
    bad = [k for k in kwargs if not isinstance(k, str) or k not in allowed]
    if bad:
        raise ValueError(f"`{name}` holds key(s) {bad!r} that are not keyword arguments of {fn.__name__}; "
                         f"the keys must be among {allowed}")
    return dict(kwargs)


def _plain(v) -> bool:
    """A number, or a short list, tuple or dict of numbers: a value a message can repeat."""
    if isinstance(v, (list, tuple)):
        return len(v) <= 8 and all(_plain(x) for x in v)
    if isinstance(v, dict):
        return len(v) <= 8 and all(isinstance(k, str) and _plain(x) for k, x in v.items())
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _differs(v, default) -> bool:
    """``v != default`` as one bool (a number against a tuple default compares element by element in numpy)."""
    try:
        return bool(v != default)
    except (TypeError, ValueError):
        return True


def _nonfinite(out) -> bool:
    if isinstance(out, np.ndarray):
        return out.dtype.kind == "f" and not np.isfinite(out).all()
    if isinstance(out, tuple):
        return any(_nonfinite(x) for x in out)
    if dataclasses.is_dataclass(out) and not isinstance(out, type):
        return any(_nonfinite(getattr(out, f.name)) for f in dataclasses.fields(out))
    if hasattr(out, "select_dtypes"):  # a DataFrame
        return not np.isfinite(out.select_dtypes("float").to_numpy()).all()
    return False


def checked(fn):
    """``fn`` with its scalar parameters checked by name at entry and its output checked for non-finite data."""
    sig = inspect.signature(fn)
    kinds = {p.name: k for p in sig.parameters.values() if (k := _kind(p)) is not None}
    inf_ok = {p.name for p in sig.parameters.values() if isinstance(p.default, float) and p.default == math.inf}
    none_ok = {p.name for p in sig.parameters.values() if p.default is None or "None" in str(p.annotation)}

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        for name, v in bound.arguments.items():
            kind = kinds.get(name)
            if v is None and name in none_ok:
                continue
            if kind == "bool":
                check_bool(v, name)
            elif kind == "int":
                if not (isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))):
                    raise InputTypeError(f"`{name}` must be an integer; got {v!r}")
                check_int(v, name, low=_INT64[0], high=_INT64[1])
                if name == "n" or name.startswith("n_"):
                    check_work(abs(int(v)), name, v, limit=MAX_CELLS, what="rows")
            elif kind == "float":
                _check_float(v, name, name in inf_ok, name in none_ok)
                if isinstance(v, (int, np.integer)):
                    bound.arguments[name] = float(v)  # 2**64 as a number, not an int numpy cannot hold
        given = ", ".join(f"`{k}`={v!r}" for k, v in bound.arguments.items()
                          if (kinds.get(k) in ("int", "float") or kinds.get(k) is None and _plain(v))
                          and _differs(v, sig.parameters[k].default))
        outer = getattr(_depth, "n", 0) == 0
        _depth.n = getattr(_depth, "n", 0) + 1
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                out = fn(*bound.args, **bound.kwargs)
        except (OverflowError, FloatingPointError, ValueError) as exc:
            if "`" in str(exc) or isinstance(exc, ValueError) and "NaN" not in str(exc):
                raise
            # an overflow inside the draw (exp of 1e300, a nan count): the parameters, not the code
            raise ValueError(f"{fn.__name__}: the parameters ({given or 'the defaults'}) overflow in the draw "
                             f"({type(exc).__name__}: {exc}); use values of a realistic size") from None
        finally:
            _depth.n -= 1
        if _nonfinite(out):
            if not outer:
                return out  # the outermost generator names its own arguments
            raise ValueError(f"{fn.__name__}: the parameters ({given or 'the defaults'}) make non-finite data "
                             f"(an overflow or 0/0 in the draw); use values of a realistic size")
        return out

    return wrapper


def check_all(namespace: dict, names) -> None:
    """Wrap the public functions ``names`` of a module's ``namespace`` with :func:`checked`."""
    for name in names:
        obj = namespace.get(name)
        if inspect.isfunction(obj):
            namespace[name] = checked(obj)
