"""A recorded run in the report (``make report RUN=runs/<notebook>/<time>``): the run checked, ``figures/`` and the
executed notebooks as that run has them, and every page marked as the run's.

:func:`recorded_run` checks a folder ``make run`` wrote and refuses anything else, saying why
(:class:`NotARecordedRun`); :func:`run_view` lays the run's outputs over a copy of ``figures/``;
:func:`mark_recorded_run` adds the banner and the page ``run`` to the site's sources.  Used by
:mod:`offline_eval_compendium.report`; nothing under ``figures/``, ``build/executed/`` or ``runs/`` changes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from . import claims
from .paths import BUILD_DIR, FIGURES_DIR, NOTEBOOKS_DIR, PROJ_ROOT, relative
from .pipeline import EXECUTED_DIR
from .report_html import esc, raw_html

__all__ = ["NotARecordedRun", "RUNS_DIR", "mark_recorded_run", "recorded_run", "run_sentence", "run_view"]


class NotARecordedRun(ValueError):
    """A path given as a recorded run (``make report RUN=...``) that is not one; the message says why and which are."""


#: Where ``make run`` records its runs (``runs/<notebook>/<time>/``).
RUNS_DIR = PROJ_ROOT / "runs"


def _recorded_runs(runs: Path) -> list[str]:
    found = sorted(p.parent for p in runs.glob("*/*/run.yaml"))
    return [relative(p) for p in found]


def recorded_run(run_dir: str | Path, *, runs: Path | None = None) -> dict:
    """The recorded run in ``run_dir`` (``runs/<notebook>/<time>``, written by ``make run``), checked.

    Returns ``{"dir", "shown", "notebook", "record", "changes"}`` (``record``: its ``run.yaml``; ``changes``: the
    path of its ``changes.md``, or ``None``).  Raises :class:`NotARecordedRun`, saying why and listing the
    recorded runs there are, when ``run_dir`` is not a folder holding a successful run's ``run.yaml``, executed
    notebook and outputs of one of the notebooks.
    """
    import yaml

    runs = RUNS_DIR if runs is None else Path(runs)
    path = Path(run_dir)
    there = _recorded_runs(runs)
    hint = ("; the recorded runs are: " + ", ".join(there) if there else
            f"; there is none in {relative(runs)} (make run NB=<notebook> ARGS=\"-p name value\" records one)")

    def refuse(why: str):
        raise NotARecordedRun(f"`RUN` must be a recorded run's folder, runs/<notebook>/<time> (written by make run); "
                              f"{run_dir!s} {why}{hint}")

    if not path.is_dir():
        refuse("is not a folder")
    yaml_path = path / "run.yaml"
    if not yaml_path.is_file():
        refuse("has no run.yaml (a folder make run writes holds run.yaml, outputs/ and the executed notebook)")
    try:
        record = yaml.safe_load(yaml_path.read_text())
    except yaml.YAMLError as exc:
        refuse(f"has a run.yaml that does not parse ({type(exc).__name__})")
    if not isinstance(record, dict) or not isinstance(record.get("notebook"), str):
        refuse("has a run.yaml without the notebook it ran")
    name = record["notebook"]
    if record.get("status") != "succeeded":
        refuse(f"is a run of {name} that {record.get('status', 'did not finish')}"
               + (f" in cell {record['failed_cell']}" if record.get("failed_cell") is not None else "")
               + ": it has no outputs to show")
    if not (NOTEBOOKS_DIR / f"{name}.py").is_file():
        refuse(f"is a run of {name}, which is not one of the notebooks whose outputs the report shows")
    if not (path / "outputs").is_dir() or not (path / f"{name}.ipynb").is_file():
        refuse(f"lacks its outputs/ or its executed notebook {name}.ipynb")
    changes = path / "changes.md"
    return {"dir": path, "shown": relative(path), "notebook": name, "record": record,
            "changes": changes if changes.is_file() else None}


def run_view(run_dir: str | Path, *, figures: Path | None = None, executed: Path | None = None,
             dest: Path | None = None, runs: Path | None = None) -> tuple[Path, Path, dict]:
    """``figures/`` and the executed notebooks as the recorded run in ``run_dir`` has them: its notebook's outputs,
    ledger rows and executed notebook instead of those of ``make reproduce``, every other notebook's as they are.

    Writes under ``dest`` (default ``build/report-run/view``, emptied first) a copy of ``figures`` without the
    files the notebook's manifest lists, the run's ``outputs/`` over it, the ledger gathered again
    (:func:`offline_eval_compendium.claims.gather`), and the executed notebooks with the run's in its place.
    Returns ``(figures, executed, recorded)``, the last for :func:`offline_eval_compendium.report.write_sources`.  Nothing under ``figures/``,
    ``build/executed/`` or ``runs/`` changes.
    """
    recorded = recorded_run(run_dir, runs=runs)
    figures = FIGURES_DIR if figures is None else Path(figures)
    executed = EXECUTED_DIR if executed is None else Path(executed)
    dest = BUILD_DIR / "report-run" / "view" if dest is None else Path(dest)
    if dest.exists():
        shutil.rmtree(dest)
    name = recorded["notebook"]
    view, exe = dest / "figures", dest / "executed"
    shutil.copytree(figures, view)
    manifest = view / "manifest" / f"{name}.sha256"
    if manifest.is_file():  # the files make reproduce's run of the notebook wrote: the run's replace them
        for line in manifest.read_text().splitlines():
            parts = line.split(None, 1)
            if len(parts) == 2:
                (view / parts[1].strip()).unlink(missing_ok=True)
    shutil.copytree(recorded["dir"] / "outputs", view, dirs_exist_ok=True)
    claims.gather(view)
    shutil.copytree(executed, exe)
    shutil.copy2(recorded["dir"] / f"{name}.ipynb", exe / f"{name}.ipynb")
    return view, exe, recorded


def run_sentence(recorded: dict, changes_href: str) -> str:
    """The banner's words: which recorded run this site shows, and where what it changed is (HTML)."""
    rec = recorded["record"]
    given = {k: rec.get("parameters", {}).get(k) for k in rec.get("overridden", [])}
    params = ", ".join(f"{k}={v!r}" for k, v in given.items()) or "the committed parameters"
    changes = (f'what it changed against <code>figures/</code>: <a href="{esc(changes_href)}">'
               f'{esc(recorded["shown"])}/changes.md</a>' if recorded["changes"] is not None
               else "it has no changes.md (make run writes one after a successful run)")
    return (f'A recorded run, not <code>figures/</code>: <code>{esc(recorded["notebook"])}</code> as run by '
            f'<code>make run</code> in <code>{esc(recorded["shown"])}</code> ({esc(params)}); its outputs, ledger '
            f"rows and executed notebook stand in for those of <code>make reproduce</code>; {changes}.")


_BANNER = ('<aside class="bd-header-announcement oe-run-banner" aria-label="A recorded run">'
           '<div class="bd-header-announcement__content">{text}</div></aside>\n')


def mark_recorded_run(out: Path, recorded: dict) -> None:
    """Mark every page of the site as the recorded run's: a banner atop each page (the theme's announcement, its
    link made relative to each page by Sphinx's ``pathto``) and a page ``run`` with its run.yaml and changes.md."""
    templates = out / "_templates" / "sections"
    templates.mkdir(parents=True)
    text = run_sentence(recorded, "@@RUN_PAGE@@").replace("{", "&#123;").replace("}", "&#125;")
    (templates / "announcement.html").write_text(
        _BANNER.format(text=text).replace("@@RUN_PAGE@@", "{{ pathto('run') }}"))
    with (out / "conf.py").open("a") as f:
        f.write('templates_path = ["_templates"]\n')
    import yaml

    rec = yaml.safe_dump(recorded["record"], sort_keys=False, width=10_000)
    # changes.md's tables as tables; its text as written (no raw HTML, no math: a `<` or `$` stays a character)
    from markdown_it import MarkdownIt

    render = MarkdownIt("commonmark", {"html": False, "typographer": False}).enable("table").render
    changes = (render(recorded["changes"].read_text()) if recorded["changes"] is not None
               else "<p>This run has no changes.md.</p>")
    (out / "run.md").write_text("\n".join([
        "# This recorded run", "",
        raw_html(f"<p>{run_sentence(recorded, '#what-it-changed')}</p>"), "",
        "## Its record (run.yaml)", "",
        raw_html(f"<pre>{esc(rec)}</pre>"), "",
        "## What it changed", "",
        raw_html(f'<div class="oe-run-changes">{changes}</div>'), ""]))
