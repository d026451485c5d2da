"""A notebook's parameters, as the pipeline reads and checks them: the literal defaults of its ``parameters`` cell,
the overrides of ``-p`` refused unless they keep each default's kind and documented range, and the error every
step of the pipeline raises when a notebook fails or is refused (:class:`NotebookError`)."""

from __future__ import annotations

import math
import re
from pathlib import Path



class NotebookError(RuntimeError):
    """A notebook failed; the message names the notebook and the cell.

    ``cell`` and ``error`` (when known) say where and how, for the run's records (``run.yaml``, the failure
    marker that stops ``pipeline ledger``).
    """

    def __init__(self, message: str, *, cell: str | None = None, error: str | None = None):
        super().__init__(message)
        self.cell, self.error = cell, error


#: Parameters of every notebook that the pipeline sets itself and that ``-p`` may not.
PIPELINE_PARAMETERS = ("output_root",)


def parse_parameters(pairs) -> dict:
    """``[("seed", "7"), ("n", "1e5")]`` -> ``{"seed": 7, "n": 100000.0}``.

    Integers, then floats, then any YAML value (``true``, ``[1, 2]``, strings).
    """
    import yaml

    def convert(value: str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
        return yaml.safe_load(value)

    return {name: convert(value) for name, value in pairs}


def jupytext_module():
    """``jupytext``, imported without ``rfc3987_syntax``: nbformat's ``jsonschema`` imports that package when it
    is installed (JupyterLab's ``jupyter-events`` brings it) and it compiles some 35 Earley grammars at import,
    about 2 s of every process that reads a notebook, for an IRI format check no notebook schema uses.
    Hidden from this process only before ``jsonschema`` is first imported; ``jsonschema`` then goes without
    that check, as when the package is not installed (``make reproduce``'s own environment)."""
    import sys

    if "jsonschema" not in sys.modules:
        sys.modules.setdefault("rfc3987_syntax", None)  # an import of it raises ImportError, which jsonschema expects
    import jupytext

    return jupytext


def notebook_parameters(notebook: str | Path) -> dict:
    """The defaults of a text notebook's ``parameters`` cell, ``{name: value}`` (literals only, by house rule)."""
    import ast

    jupytext = jupytext_module()
    nb = jupytext.read(Path(notebook))
    cells = [c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise NotebookError(f"notebook {Path(notebook).stem} must have exactly one cell tagged `parameters`")
    out = {}
    for node in ast.parse(cells[0].source).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = ast.literal_eval(node.value)
    return out


def _kind(value) -> str:
    if value is None:
        return "any"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    return type(value).__name__


def check_parameters(notebook: str | Path, parameters: dict | None) -> dict:
    """Check names and types of ``parameters`` against the notebook's ``parameters`` cell; return the effective values.

    An unknown name is an error that lists the notebook's parameters (papermill would only warn and run
    with the defaults).  A value must have the type of its default: an integer where the default is an
    integer (``1e5`` is accepted when it is a whole number), a number where it is a float, ``true`` /
    ``false`` where it is a bool, a list where it is a list; a default of ``None`` accepts anything.

    Values follow the house conventions of the parameters cells, checked here before anything runs:
    a number must be finite; an integer whose default is positive (a count or a size) must be >= 1, one
    whose default is 0 (a seed) >= 0; a float whose default is positive must be >= 0; a parameter whose
    name says it is a share (``*quantile*``, ``*fraction*``, ``*share*``) must lie in [0, 1].
    A value must lie in the range its line of the parameters cell declares (``# range: low..high``,
    :func:`parameter_ranges`); every size parameter declares one, so no run is unbounded.
    Notebooks check anything further in their first cells, with messages naming the parameter.
    The pipeline's own parameters (:data:`PIPELINE_PARAMETERS`: ``output_root``) are refused.

    Parameters
    ----------
    notebook : str or Path
        The text notebook whose ``parameters`` cell gives the names, defaults and types.
    parameters : dict or None
        ``{name: value}`` as given (e.g. by :func:`parse_parameters`).
    """
    name = Path(notebook).stem
    defaults = notebook_parameters(notebook)
    given = dict(parameters or {})
    for key in PIPELINE_PARAMETERS:
        if key in given:
            raise NotebookError(
                f"notebook {name}: parameter `{key}` is set by the pipeline, not with -p (got {given[key]!r}): "
                "outputs are staged and installed all or nothing into figures/, or, with `make run`, kept in "
                "runs/<notebook>/<time>/outputs/; to install elsewhere pass --output-root DIR to the pipeline")
    unknown = sorted(set(given) - set(defaults))
    if unknown:
        listing = ", ".join(f"{k}={defaults[k]!r}" for k in defaults)
        raise NotebookError(f"notebook {name} has no parameter {', '.join(map(repr, unknown))}; "
                            f"its parameters (with defaults) are: {listing}")
    out = dict(defaults)
    for key, value in given.items():
        want, got = _kind(defaults[key]), _kind(value)
        if want == "int" and got == "float" and float(value).is_integer():
            value, got = int(value), "int"
        elif want == "float" and got == "int":
            value, got = float(value), "float"
        elif want in ("list", "tuple") and got in ("list", "tuple"):
            got = want
        if want != "any" and got != want:
            raise NotebookError(f"notebook {name}: parameter `{key}` must be {want} like its default "
                                f"{defaults[key]!r}; got {value!r} ({got})")
        problem = _value_problem(key, defaults[key], value) if got in ("int", "float") else None
        if problem:
            raise NotebookError(f"notebook {name}: parameter `{key}` {problem}; got {value!r} (default {defaults[key]!r})")
        out[key] = value
    _check_ranges(notebook, out)
    return out


def is_size_parameter(key: str) -> bool:
    """Whether a parameter is a size, which must declare a range: ``n``, ``n_*``, ``*_n_*``, ``*_n`` (``sweep_n_log``)."""
    return key == "n" or key.startswith("n_") or "_n_" in key or key.endswith("_n")


_RANGE = re.compile(r"\brange:\s*([0-9_.eE+-]+)\s*\.\.\s*([0-9_.eE+-]+)")


def parameter_ranges(notebook: str | Path) -> dict:
    """The ranges declared in a text notebook's ``parameters`` cell, ``{name: (low, high)}`` (both inclusive).

    A range is declared in the comment of the parameter's line, where a reader of the notebook sees it::

        n_firms = 500  # surveyed firms; range: 20..5_000

    ``low`` is what the notebook's code needs to run, ``high`` keeps a run within a few minutes on two
    cores.  :func:`check_parameters` refuses a value outside it (``None``, where that is the default,
    stays allowed).
    """
    import io
    import tokenize

    jupytext = jupytext_module()
    nb = jupytext.read(Path(notebook))
    cell = next(c for c in nb.cells if c.cell_type == "code" and "parameters" in c.metadata.get("tags", []))
    out, name = {}, None
    for tok in tokenize.generate_tokens(io.StringIO(cell.source).readline):
        if tok.type == tokenize.NAME and tok.start[1] == 0:
            name = tok.string
        elif tok.type == tokenize.COMMENT and name is not None and (m := _RANGE.search(tok.string)):
            low, high = (_number(x) for x in m.groups())
            if not low <= high:
                raise NotebookError(f"notebook {Path(notebook).stem}: the range of `{name}` is empty ({tok.string})")
            out[name] = (low, high)
        elif tok.type in (tokenize.NEWLINE, tokenize.NL):
            name = None  # a range belongs to the line of its parameter
    return out


def _number(text: str):
    import ast

    value = ast.literal_eval(text)
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise NotebookError(f"a declared range bound must be a number; got {text!r}")
    return value


def _check_ranges(notebook: str | Path, values: dict) -> None:
    """Refuse a value outside its declared range (:func:`parameter_ranges`), naming the parameter and the range."""
    for key, (low, high) in parameter_ranges(notebook).items():
        value = values.get(key)
        if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
            continue
        if not low <= value <= high:
            raise NotebookError(
                f"notebook {Path(notebook).stem}: parameter `{key}` must lie in its declared range "
                f"{low:_}..{high:_} (the notebook's parameters cell); got {value!r}")


def _value_problem(key: str, default, value) -> str | None:
    """What is wrong with a numeric parameter value by the house conventions (see :func:`check_parameters`)."""
    if not math.isfinite(value):
        return "must be a finite number"
    # a count of quantiles (`n_quantiles`) is a size, not a share
    if any(w in key for w in ("quantile", "fraction", "share")) and not is_size_parameter(key) and not 0 <= value <= 1:
        return "is a share and must lie in [0, 1]"
    if isinstance(default, int) and not isinstance(default, bool):
        if default > 0 and value < 1:
            return "is a count or a size and must be >= 1"
        if default == 0 and value < 0:
            return "must be >= 0"
    if isinstance(default, float) and default > 0 and value < 0:
        return "must be >= 0"
    return None
