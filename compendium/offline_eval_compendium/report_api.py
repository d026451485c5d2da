"""The report's API reference: one page per public module of the library, each name under the module a user
imports it from, and the index table of every public name with its docstring's summary line."""

from __future__ import annotations

import functools
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


#: Modules that gather names defined elsewhere (the chunked and the Dask paths re-export the result types of
#: ``logboot``; ``results`` gathers every result type): a name they list is documented in the module that returns
#: it when there is one.
GATHERING = ("offline_eval.mergeable", "offline_eval.ondask", "offline_eval.results")


@functools.cache
def public_modules() -> tuple[str, ...]:
    """Every public module of the library, the package first: no part of its dotted name private."""
    import pkgutil

    import offline_eval

    return ("offline_eval",) + tuple(sorted(
        info.name for info in pkgutil.walk_packages(offline_eval.__path__, "offline_eval.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])))


def public_home(name: str, obj) -> str:
    """The public module a name is documented under: where it is defined unless that module is private
    (``offline_eval._bootstrap``), else the innermost public module whose ``__all__`` lists it, a module that
    gathers names (:data:`GATHERING`) only when no other lists it (``ranking.coefficients`` before ``ranking``,
    ``logboot`` before ``ondask``, ``results`` last), else the package."""
    import importlib

    mod = getattr(obj, "__module__", None) or "offline_eval"
    if mod == "offline_eval._results":  # the protocol's own types: documented with the protocol
        return "offline_eval.results"
    if not any(part.startswith("_") for part in mod.split(".")[1:]) and mod in public_modules():
        return mod
    homes = []
    for m in public_modules()[1:]:
        module = importlib.import_module(m)
        if name in getattr(module, "__all__", ()) and getattr(module, name, None) is obj:
            homes.append(m)
    homes = [h for h in homes if h not in GATHERING] or [h for h in homes if h != "offline_eval.results"] or homes
    return max(homes, key=lambda h: (h.count("."), [-ord(c) for c in h])) if homes else "offline_eval"


def _slug(mod: str) -> str:
    return mod.replace("offline_eval.", "").replace(".", "-") if mod != "offline_eval" else "package"


def _attributes_section(obj) -> list[str]:
    """The names a numpydoc docstring's ``Attributes`` section describes (``low, high : float`` gives two)."""
    import inspect

    doc = inspect.getdoc(obj) or ""
    m = re.search(r"^Attributes\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", doc, re.S | re.M)
    if not m:
        return []
    names = []
    for line in m.group(1).splitlines():
        if line and not line[0].isspace():
            names += [n.strip() for n in line.split(":")[0].split(",") if n.strip().isidentifier()]
    return names


def _autodoc(obj, target: str) -> tuple[list[str], str]:
    """The autodoc block of ``obj`` documented as ``target`` (a class with its members), and the summary line of its
    docstring for the index table."""
    import inspect

    directive = "autoclass" if inspect.isclass(obj) else "autofunction"
    opts = "   :members:\n   :no-index-entry:\n" if inspect.isclass(obj) else ""
    described = [m for m in _attributes_section(obj) if inspect.isclass(obj) and hasattr(obj, m)]
    if described:  # a member the docstring's Attributes section describes: described once, not twice
        opts += f"   :exclude-members: {', '.join(described)}\n"
    first = (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")
    return ["```{eval-rst}", f".. {directive}:: {target}", opts, "```", ""], first


def documented_names() -> dict[str, list[tuple[str, object, str]]]:
    """Per public module, the names documented on its page: ``(name, object, autodoc target)``, each function and
    class of the library's public modules once, on the page of its :func:`public_home`.

    A name of ``offline_eval.__all__`` keeps the package's target (``offline_eval.roc_auc_score``: the anchors the
    index and other pages link to); any other is documented under its module (``offline_eval.display.reformat``).
    Every object is documented once: two autodoc blocks of one object would describe it twice (an error under -W).
    """
    import importlib
    import inspect

    import offline_eval

    pages: dict[str, list] = {m: [] for m in public_modules()}
    seen, targets = set(), set()
    package_names = {n for n in offline_eval.__all__ if not n.startswith("_")}
    for n in sorted(package_names):
        obj = getattr(offline_eval, n)
        pages[public_home(n, obj)].append((n, obj, f"offline_eval.{n}"))
        seen.add(id(obj))
    for mod in public_modules()[1:]:
        module = importlib.import_module(mod)
        for n in getattr(module, "__all__", ()):
            obj = getattr(module, n, None)
            if id(obj) in seen or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            home = public_home(n, obj)
            seen.add(id(obj))
            if f"{home}.{n}" in targets:  # a checked wrapper of a function (functools.wraps): the function's page
                continue
            targets.add(f"{home}.{n}")
            pages[home].append((n, obj, f"{home}.{n}"))
    return pages


def write_api(out: Path) -> None:
    """``api/index.md`` listing every public name, and one page per public module: the docstrings (autodoc) of the
    names it is the home of, then the names it also exports, each linked to its page."""
    import importlib
    import inspect

    import offline_eval

    pages = documented_names()
    where = {id(obj): (_slug(mod), target) for mod, names in pages.items() for _, obj, target in names}
    by_target = {target: slug for slug, target in where.values()}
    (out / "api").mkdir()
    rows = []
    for mod in public_modules():
        module = importlib.import_module(mod)
        first = (inspect.getdoc(module) or "").split("\n\n")[0]
        page = [f"# {mod.removeprefix('offline_eval.')}", "", "```{eval-rst}", f"``{mod}``: " + first, "```", ""]
        for n, obj, target in pages[mod]:
            block, summary = _autodoc(obj, target)
            page += block
            rows.append((n, f"{_slug(mod)}.html#{target}", mod, summary))
        elsewhere = []
        if mod != "offline_eval":  # the package's names are the index itself
            for n in getattr(module, "__all__", ()):
                obj = getattr(module, n, None)
                if id(obj) not in where and callable(obj):  # a wrapper: documented as the function it wraps
                    home = public_home(n, obj)
                    if f"{home}.{n}" in by_target:
                        where[id(obj)] = (by_target[f"{home}.{n}"], f"{home}.{n}")
                if id(obj) in where and where[id(obj)][0] != _slug(mod):
                    slug, target = where[id(obj)]
                    elsewhere.append(f"- :py:obj:`{n} <{target}>` (``{slug.replace('-', '.')}``)")
        if elsewhere:
            page += ["Also importable from here, documented with the module that defines or returns it:", "",
                     "```{eval-rst}", *elsewhere, "```", ""]
        (out / "api" / f"{_slug(mod)}.md").write_text("\n".join(page))
    table = ['<table class="oe-api oe-fit"><thead><tr><th>name</th><th>module</th><th>what it does</th></tr></thead><tbody>']
    for n, href, mod, first in sorted(rows, key=lambda r: (r[0].lower(), r[2])):
        table.append(f'<tr><td><a href="{esc(href)}"><code>{esc(n)}</code></a></td>'
                     f"<td><code>{esc(mod)}</code></td><td>{rst_inline_html(first)}</td></tr>")
    table.append("</tbody></table>")
    names = [n for n in offline_eval.__all__ if not n.startswith("_")]
    index = ["# API reference", "",
             f"Every public name of the library: the {len(names)} names of `offline_eval.__all__`, importable as "
             "`from offline_eval import <name>`, and every public module whole (among them `offline_eval.display`, "
             "numbers for people; `offline_eval.mergeable`, accumulators that chunks of a log fill and merge; "
             "`offline_eval.ondask`, the same metrics on a Dask DataFrame or Parquet files; `offline_eval.synth`, "
             "the synthetic worlds), each with its numpydoc docstring: parameters, returns, raises and examples.", "",
             raw_html("".join(table)),
             "```{toctree}", ":hidden:", ":maxdepth: 1", ""]
    index += [_slug(m) for m in public_modules()] + ["```", ""]
    (out / "api" / "index.md").write_text("\n".join(index))
