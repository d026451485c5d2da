"""Run every benchmark (``make bench``): ``python benchmarks/run.py [--quick] [--only NAME] [--out DIR]``.

Discovers ``benchmarks/bench_*.py`` and times each module's ``cases(quick)``
(see ``harness.py``); prints a Markdown table of ratios and writes
``<out>/bench.csv`` and ``<out>/bench.md``.  Timings depend on the machine;
they are not part of ``make reproduce``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from harness import measure  # noqa: E402

from offline_eval_compendium.io import atomic_write_text, to_markdown  # noqa: E402


def load_modules(only=None):
    for path in sorted(HERE.glob("bench_*.py")):
        if only and only not in path.stem:
            continue
        spec = importlib.util.spec_from_file_location(path.stem, path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        yield path.stem, mod


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a check that every case runs)")
    ap.add_argument("--only", default=None, help="run only bench modules whose name contains this")
    ap.add_argument("--out", default=None, help="folder for bench.csv / bench.md")
    args = ap.parse_args(argv)
    rows = []
    plan = [(name, case) for name, mod in load_modules(args.only) for case in mod.cases(args.quick)]
    if not plan:
        print(f"no benchmark matches --only {args.only!r}", file=sys.stderr)
        return 2
    print(f"{len(plan)} cases{' (quick sizes)' if args.quick else ''}; `--quick` for small sizes, "
          "`--only NAME` for one module", flush=True)
    for i, (name, case) in enumerate(plan, 1):
        print(f"[{i}/{len(plan)}] [{name}] {case.name} (n={case.n:,}) ...", flush=True)
        row = measure(case)
        rows.append({"module": name, **row})
        print("   " + ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items() if k not in ("case", "note")), flush=True)
    df = pd.DataFrame(rows)
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.machine()) if Path("/proc/cpuinfo").exists() else platform.machine()
    load = "/".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    header = (
        f"# Benchmarks\n\nMachine: {cpu}, {os.cpu_count()} cores (load average 1/5/15 min at the end: {load}), "
        f"Python {platform.python_version()}, NumPy {np.__version__}. Times are medians of >= 3 runs (seconds); "
        "ratio = ours / peer; peak memory from tracemalloc (it does not see DuckDB's and Polars' own "
        "allocators).\n\n"
    )
    md = header + to_markdown(df, floatfmt=".3g")
    print()
    print(md)
    if args.out:
        out = Path(args.out)
        atomic_write_text(out / "bench.csv", df.to_csv(index=False, lineterminator="\n"))
        atomic_write_text(out / "bench.md", md)
    failed = df.get("meets")
    if failed is not None and (failed == False).any():  # noqa: E712
        print("some targets are not met (see the `meets` column)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
