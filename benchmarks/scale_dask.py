"""Logs bigger than memory: the metrics through Dask at 10^8 rows (``make bench-dask``; opt-in, minutes).

``python benchmarks/scale_dask.py [--rows 1e8] [--in-memory-rows 2e7] [--out build/bench]``

1. Writes ``--rows`` rows of synthetic impression logs to Parquet, in chunks, with the compendium's
   generators: a click drawn from a true CTR (``synth.sponsored.sample_ctr``), two models' pClick
   (``synth.sponsored.distorted_pclick``), stored at a resolution of 1e-6 as production logs store a
   score, and two classifiers' predictions with the truth (``synth.classifiers.two_model_world``).
2. In a fresh process (so that the generation does not count), computes through Dask on this
   machine's cores: AUC of both models, log loss / RIG, calibration by decile (two passes), and the
   online adaptive metrics' joint counts -- rows per second and the peak resident memory.
3. The same metrics in memory (NumPy) on the largest size given by ``--in-memory-rows``, through Dask
   on that size too: the ratio of the two paths.
4. Writes ``scale_dask.md`` / ``.csv`` with an extrapolation to 10^9 and 10^10 rows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

CHUNK = 5_000_000
RESOLUTION = 1e-6


def generate(path: Path, rows: int, seed: int = 0) -> float:
    """Write ``rows`` rows of synthetic logs as Parquet files of ``CHUNK`` rows; returns the seconds."""
    import pandas as pd

    from offline_eval.synth import classifiers as cl
    from offline_eval.synth import sponsored as sp

    t0 = time.perf_counter()
    path.mkdir(parents=True, exist_ok=True)
    root = np.random.default_rng(seed)
    prior = cl.zipf_prior(10)
    acc_b, acc_c = cl.class_accuracies(0.7, prior, rng=1), cl.class_accuracies(0.75, prior, rng=2)
    for i, start in enumerate(range(0, rows, CHUNK)):
        n = min(CHUNK, rows - start)
        rng = np.random.default_rng(root.integers(2**63))
        ctr = sp.sample_ctr(n, rng)
        click = (rng.random(n) < ctr).astype(np.int8)
        p1 = np.round(sp.distorted_pclick(ctr, rng), 6)
        p2 = np.round(sp.distorted_pclick(ctr, rng, low_shift=1.0), 6)
        b, c, g = cl.two_model_world(n, accuracy_b=acc_b, accuracy_c=acc_c, prior=prior, rng=rng)
        pd.DataFrame({"click": click, "p1": p1, "p2": p2, "b": b.astype(np.int8), "c": c.astype(np.int8),
                      "g": g.astype(np.int8)}).to_parquet(path / f"part-{i:05d}.parquet", index=False)
    return time.perf_counter() - t0


def run_metrics(source, in_memory: bool) -> dict:
    """The four metric families on ``source`` (a Parquet folder); timings in seconds."""
    import dask.dataframe as dd
    import pandas as pd

    from offline_eval import adaptive, metrics, ondask

    out = {}
    if in_memory:
        df = pd.read_parquet(source)
        t0 = time.perf_counter()
        y, p1, p2 = df["click"].to_numpy(), df["p1"].to_numpy(), df["p2"].to_numpy()
        out["auc_1"], out["auc_2"] = metrics.roc_auc_score(y, p1), metrics.roc_auc_score(y, p2)
        out["rig_1"] = metrics.rig_score(y, p1)
        out["deciles"] = metrics.quantile_breakdown(y, p1, n_quantiles=10)["calibration_ratio"].round(9).tolist()
        out["joint"] = int(adaptive.joint_distribution(df["b"], df["c"], df["g"], n_classes=10, normalize=False).sum())
    else:
        ddf = dd.read_parquet(source)
        t0 = time.perf_counter()
        out["auc_1"], out["auc_2"] = ondask.roc_auc_score(ddf, "click", "p1"), ondask.roc_auc_score(ddf, "click", "p2")
        out["rig_1"] = ondask.rig_score(ddf, "click", "p1")
        out["deciles"] = ondask.quantile_breakdown(ddf, "click", "p1", n_quantiles=10)["calibration_ratio"].round(9).tolist()
        out["joint"] = int(ondask.joint_counts(ddf, "b", "c", "g").counts.sum())
    out["seconds"] = time.perf_counter() - t0
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def child(source: str, in_memory: bool) -> dict:
    """Run :func:`run_metrics` in a fresh interpreter, so its peak memory is its own."""
    code = (f"import json, sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import scale_dask as s; "
            f"print(json.dumps(s.run_metrics({source!r}, {in_memory!r})))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e8)
    ap.add_argument("--in-memory-rows", type=float, default=2e7, help="largest size run in memory too")
    ap.add_argument("--data", default="build/bench/logs", help="where the Parquet logs go")
    ap.add_argument("--out", default="build/bench")
    args = ap.parse_args(argv)
    import pandas as pd

    from offline_eval.compendium.io import atomic_write_text, to_markdown

    rows, small = int(args.rows), int(min(args.in_memory_rows, args.rows))
    rows_out = []
    for n, in_memory_too in ((small, True), (rows, False)) if small < rows else ((rows, True),):
        path = Path(args.data) / f"n{n}"
        if not (path / "part-00000.parquet").exists():
            print(f"writing {n:,} rows to {path} ...", flush=True)
            secs = generate(path, n)
            print(f"   {secs:.1f} s", flush=True)
        size_mb = sum(f.stat().st_size for f in path.glob("*.parquet")) / 2**20
        raw_mb = n * (1 + 8 + 8 + 3) / 2**20
        print(f"dask on {n:,} rows ...", flush=True)
        d = child(str(path), False)
        row = dict(rows=n, path="dask", seconds=d["seconds"], rows_per_s=n / d["seconds"], peak_rss_mb=d["peak_rss_mb"],
                   data_in_memory_mb=raw_mb, parquet_mb=size_mb)
        print(f"   {row}", flush=True)
        rows_out.append(row)
        if in_memory_too:
            print(f"in memory on {n:,} rows ...", flush=True)
            m = child(str(path), True)
            same = (abs(m["auc_1"] - d["auc_1"]) <= 1e-12 and m["joint"] == d["joint"]
                    and np.allclose(m["deciles"], d["deciles"], rtol=1e-9))
            rows_out.append(dict(rows=n, path="numpy in memory", seconds=m["seconds"], rows_per_s=n / m["seconds"],
                                 peak_rss_mb=m["peak_rss_mb"], data_in_memory_mb=raw_mb, parquet_mb=size_mb,
                                 same_values=same, dask_over_numpy=d["seconds"] / m["seconds"]))
            print(f"   {rows_out[-1]}", flush=True)
    df = pd.DataFrame(rows_out)
    big = df[df["path"] == "dask"].iloc[-1]
    rate = big["rows_per_s"]
    cores = os.cpu_count()
    per_core = rate / cores
    extra = "\n".join(
        f"- 10^{e} rows: {10**e / rate / 60:.1f} min on these {cores} cores; a 10-minute answer needs "
        f"{int(np.ceil(10**e / per_core / 600))} cores ({int(np.ceil(10**e / per_core / 600 / 16))} workers of 16 cores), "
        f"reading {10**e * big['parquet_mb'] / big['rows'] / 1024:.0f} GiB of Parquet; each worker holds one partition "
        "and the accumulators at a time"
        for e in (9, 10))
    md = (f"# Metrics through Dask\n\nMachine: {platform.machine()}, {cores} cores. Scores stored at a resolution of "
          f"{RESOLUTION:g}, so AUC and the deciles are exact. Peak memory is the computing process's maximum "
          f"resident set (the data are read from Parquet, partition by partition).\n\n"
          + to_markdown(df, floatfmt=".4g") + "\n\nExtrapolation at the measured rate (linear in rows; the "
          "accumulators' size does not grow with the rows at a fixed score resolution):\n\n" + extra + "\n")
    print(md)
    out = Path(args.out)
    atomic_write_text(out / "scale_dask.md", md)
    atomic_write_text(out / "scale_dask.csv", df.to_csv(index=False, lineterminator="\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
