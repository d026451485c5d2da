"""The report's API reference: one page per public module of the library, each name under the module a user
imports it from, and the index table of every public name with its docstring's summary line."""

from __future__ import annotations

import re
from pathlib import Path

from .report_html import esc, raw_html


def rst_inline_html(text: str) -> str:
    """A docstring's summary line (reStructuredText inline markup) as HTML, for the API index table.

    ````x```` and ``:func:`x``` become code (``~a.b.c`` shows ``c``), ``:math:`x``` is typeset by MathJax,
    ```x``` is emphasis; everything else is escaped.
    """
    out, pos = [], 0
    token = re.compile(r"``(.+?)``|:(\w+):`(~?)([^`]+)`|`([^`]+)`")
    for m in token.finditer(text):
        out.append(esc(text[pos:m.start()]))
        literal, role, tilde, target, emph = m.groups()
        if literal is not None:
            out.append(f"<code>{esc(literal)}</code>")
        elif role == "math":
            out.append(f'<span class="math notranslate nohighlight">\\({esc(target)}\\)</span>')
        elif role is not None:
            shown = target.rsplit(".", 1)[-1] if tilde else target
            out.append(f"<code>{esc(shown)}</code>")
        else:
            out.append(f"<em>{esc(emph)}</em>")
        pos = m.end()
    out.append(esc(text[pos:]))
    return "".join(out)


#: Modules documented whole, beside the names of ``offline_eval.__all__``: the chunked and the Dask paths, and the
#: result types.
EXTRA_MODULES = ("offline_eval.mergeable", "offline_eval.ondask", "offline_eval.results")


def public_home(name: str, obj) -> str:
    """The public module a name is documented under: where it is defined unless that module is private
    (``offline_eval._bootstrap``), else the innermost public module whose ``__all__`` lists it
    (``ranking.coefficients`` before ``ranking``; ``results``, which gathers the result types, last), else the
    package."""
    import importlib
    import pkgutil

    import offline_eval

    mod = getattr(obj, "__module__", None) or "offline_eval"
    if not any(part.startswith("_") for part in mod.split(".")[1:]):
        return mod
    homes = []
    for info in pkgutil.walk_packages(offline_eval.__path__, "offline_eval."):
        if any(part.startswith("_") for part in info.name.split(".")[1:]) or info.name in EXTRA_MODULES:
            continue
        module = importlib.import_module(info.name)
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is obj:
            homes.append(info.name)
    homes = [h for h in homes if h != "offline_eval.results"] or homes
    return max(homes, key=lambda h: h.count(".")) if homes else "offline_eval"


def _autodoc(obj, target: str) -> tuple[list[str], str]:
    """The autodoc block of ``obj`` documented as ``target`` (a class with its members), and the summary line of its
    docstring for the index table."""
    import inspect

    directive = "autoclass" if inspect.isclass(obj) else "autofunction"
    opts = "   :members:\n   :no-index-entry:\n" if inspect.isclass(obj) else ""
    first = (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")
    return ["```{eval-rst}", f".. {directive}:: {target}", opts, "```", ""], first


def write_api(out: Path) -> None:
    """``api/index.md`` listing every public name, one page per public module with the docstrings (autodoc),
    and the modules of :data:`EXTRA_MODULES` whole."""
    import importlib
    import inspect

    import offline_eval

    names = [n for n in offline_eval.__all__ if not n.startswith("_")]
    by_module: dict[str, list[str]] = {}
    for n in names:
        by_module.setdefault(public_home(n, getattr(offline_eval, n)), []).append(n)
    (out / "api").mkdir()
    rows = []

    def intro(mod):
        first = (inspect.getdoc(importlib.import_module(mod)) or "").split("\n\n")[0]
        return ["```{eval-rst}", f"``{mod}``: " + first, "```", ""]

    for mod, members in sorted(by_module.items()):
        slug = mod.replace("offline_eval.", "").replace(".", "-") if mod != "offline_eval" else "package"
        title = mod.removeprefix("offline_eval.") if mod != "offline_eval" else "offline_eval"
        page = [f"# {title}", "", *intro(mod)]
        for n in members:
            block, first = _autodoc(getattr(offline_eval, n), f"offline_eval.{n}")
            page += block
            rows.append((n, f"{slug}.html#offline_eval.{n}", mod, first))
        (out / "api" / f"{slug}.md").write_text("\n".join(page))
    extra = []
    pages = {id(getattr(offline_eval, n)): (n, by_page) for by_page, members in by_module.items() for n in members}
    for mod in EXTRA_MODULES:
        module = importlib.import_module(mod)
        slug = mod.removeprefix("offline_eval.")
        page = [f"# {slug}", "", *intro(mod)]
        extra.append(slug)
        elsewhere = []
        for n in getattr(module, "__all__", ()):
            obj = getattr(module, n)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if mod == "offline_eval.results" and obj.__module__ != "offline_eval._results":
                # a result type gathered from the module that returns it: documented there, named here
                home = pages.get(id(obj), (None, public_home(n, obj)))[1]
                elsewhere.append(f"- `{n}` (`{home}`)")
                continue
            block, first = _autodoc(obj, f"{mod}.{n}")
            page += block
            rows.append((n, f"{slug}.html#{mod}.{n}", mod, first))
        if elsewhere:
            page += ["The result types of the other modules, importable from here too:", "", *elsewhere, ""]
        (out / "api" / f"{slug}.md").write_text("\n".join(page))
    table = ['<table class="oe-api oe-fit"><thead><tr><th>name</th><th>module</th><th>what it does</th></tr></thead><tbody>']
    for n, href, mod, first in sorted(rows, key=lambda r: (r[0].lower(), r[2])):
        table.append(f'<tr><td><a href="{esc(href)}"><code>{esc(n)}</code></a></td>'
                     f"<td><code>{esc(mod)}</code></td><td>{rst_inline_html(first)}</td></tr>")
    table.append("</tbody></table>")
    index = ["# API reference", "",
             f"Every public name of the library (`offline_eval.__all__`, {len(names)} names), importable as "
             "`from offline_eval import <name>`, with its numpydoc docstring: parameters, returns, raises and "
             "examples; and the modules `offline_eval.mergeable` (accumulators that chunks of a log fill and merge) "
             "and `offline_eval.ondask` (the same metrics on a Dask DataFrame or Parquet files), whole.", "",
             raw_html("".join(table)),
             "```{toctree}", ":hidden:", ":maxdepth: 1", ""]
    index += [mod.replace("offline_eval.", "").replace(".", "-") if mod != "offline_eval" else "package"
              for mod in sorted(by_module)] + extra + ["```", ""]
    (out / "api" / "index.md").write_text("\n".join(index))
