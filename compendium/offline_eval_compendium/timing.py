"""The notebooks' run times: one record per run into ``figures/``, and the table of the latest ones that
``pipeline ledger`` prints."""

from __future__ import annotations

import json
import time
from pathlib import Path

from .paths import BUILD_DIR


TIMING_DIR = BUILD_DIR / "timing"


def record_timing(name: str, *, started: float, seconds: float, timing_dir: str | Path | None = None) -> Path:
    """Write ``build/timing/<name>.json``: when a notebook's run into ``figures/`` started (epoch seconds) and how long it took."""
    folder = Path(timing_dir) if timing_dir else TIMING_DIR
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.json"
    path.write_text(json.dumps({"notebook": name, "started": round(started, 3), "seconds": round(seconds, 1)}) + "\n")
    return path


def timing_table(timing_dir: str | Path | None = None, *, now: float | None = None) -> list[str]:
    """The lines of the time table that ends ``make reproduce``, and mark the runs as reported.

    One line per notebook, longest first: the seconds of its last run into ``figures/``; the notebooks
    not run since the previous table (their outputs were up to date) marked ``earlier``.  Then the sum
    of this time's runs and the wall time from the first start to ``now`` (with ``-j2``, less than the sum).
    """
    folder = Path(timing_dir) if timing_dir else TIMING_DIR
    now = time.time() if now is None else now
    mark = folder / "reported"
    since = float(mark.read_text()) if mark.is_file() else 0.0
    runs = sorted((json.loads(p.read_text()) for p in folder.glob("*.json")) if folder.is_dir() else [],
                  key=lambda r: (-r["seconds"], r["notebook"]))
    if not runs:
        return []
    fresh = [r for r in runs if r["started"] >= since]
    width = max(len(r["notebook"]) for r in runs)
    lines = ["time per notebook (s):"]
    lines += [f"  {r['notebook']:<{width}}  {r['seconds']:>6.1f}" + ("" if r in fresh else "  (earlier; up to date)")
              for r in runs]
    if fresh:
        wall = max(r["started"] + r["seconds"] for r in fresh) - min(r["started"] for r in fresh)
        lines.append(f"  {'total':<{width}}  {sum(r['seconds'] for r in fresh):>6.1f}  "
                     f"({len(fresh)} notebook{'s' if len(fresh) != 1 else ''} run; {wall:.0f} s wall from the first start "
                     "to the last finish)")
    else:
        lines.append("  (no notebook run: every output up to date)")
    folder.mkdir(parents=True, exist_ok=True)
    mark.write_text(f"{now:.3f}\n")
    return lines
