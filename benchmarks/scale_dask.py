"""Logs bigger than memory: the metrics through Dask beside DuckDB and Polars (``make bench-dask``; minutes).

``python benchmarks/scale_dask.py [--rows 1e8] [--table-rows 2e7] [--repeat 3] [--out build/bench]``

1. Writes synthetic impression logs to Parquet (``--table-rows`` and ``--rows`` rows, in files of
   ``CHUNK`` rows), with the compendium's generators: a click drawn from a true CTR
   (``synth.sponsored.sample_ctr``), two models' pClick (``synth.sponsored.distorted_pclick``), stored
   at a resolution of 1e-6 as production logs store a score, and two classifiers' predictions with the
   truth (``synth.classifiers.two_model_world``).  The files are kept under ``--data`` (``build/``).
2. On the ``--table-rows`` files, per metric (AUC, log loss, calibration by decile) and for all the
   families at once: ``ondask``'s per-family functions, ``ondask.summarize`` (one pass), DuckDB SQL and
   Polars (``benchmarks/peers_logs.py``), interleaved, the median of ``--repeat`` runs each; the values
   of every path beside the in-memory functions of ``offline_eval.metrics`` on the same rows.
3. On the ``--rows`` files, in a fresh process (its peak resident memory is its own): every family in
   one pass, its time and peak memory, its values beside DuckDB's.
4. Writes ``scale_dask.md`` / ``.csv`` with the machine (CPU, cores, memory, load, versions).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
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



HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
FAMILIES_ALL = dict(score=["p1", "p2"], joint=("b", "c", "g"))  # the four families, both models


def _ensure(path: Path, rows: int) -> None:
    if not (path / "part-00000.parquet").exists():
        print(f"writing {rows:,} rows to {path} ...", flush=True)
        print(f"   {generate(path, rows):.1f} s", flush=True)


def machine() -> dict:
    """CPU model, cores, memory, load and the versions that the timings depend on."""
    import importlib.metadata as md

    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), platform.processor() or platform.machine())
    mem = next((int(line.split()[1]) / 2**20 for line in Path("/proc/meminfo").read_text().splitlines()
                if line.startswith("MemTotal")), float("nan"))
    vers = {}
    for pkg in ("numpy", "pandas", "dask", "pyarrow", "duckdb", "polars"):
        try:
            vers[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            vers[pkg] = "absent"
    return dict(cpu=cpu, cores=os.cpu_count(), memory_gib=round(mem, 1), python=platform.python_version(), **vers)


def load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def ours_one_pass(path: str, **kw):
    from offline_eval import ondask

    return ondask.summarize(path, "click", **FAMILIES_ALL, **kw)


def ours_per_family(path: str) -> dict:
    """The four families through today's per-family functions: one read of the data each (two for deciles)."""
    from offline_eval import ondask

    return dict(auc_1=ondask.roc_auc_score(path, "click", "p1"), auc_2=ondask.roc_auc_score(path, "click", "p2"),
                rig_1=ondask.rig_score(path, "click", "p1"),
                deciles=ondask.quantile_breakdown(path, "click", "p1", n_quantiles=10)["calibration_ratio"].tolist(),
                joint=int(ondask.joint_counts(path, "b", "c", "g").counts.sum()))


def table(path: Path, repeat: int) -> tuple[list, dict]:
    """Per metric, every path's median time (interleaved runs) and value."""
    import pandas as pd
    import pyarrow.parquet as pq

    import peers_logs as peers
    from offline_eval import metrics, ondask

    p = str(path)
    con = peers.duckdb_connect()

    def duck_all():
        return dict(auc_1=peers.duckdb_auc(con, p, score="p1"), auc_2=peers.duckdb_auc(con, p, score="p2"),
                    log_loss_1=peers.duckdb_log_loss(con, p), deciles=peers.duckdb_deciles(con, p),
                    joint=int(con.execute(f"SELECT SUM(n) FROM (SELECT b, c, g, COUNT(*) AS n FROM "
                                          f"read_parquet('{peers._glob(p)}') GROUP BY ALL)").fetchone()[0]))

    def dec(df):
        return df["calibration_ratio"].tolist()

    plan = {
        "read click, p1 (pyarrow)": {"read": lambda: pq.read_table(p, columns=["click", "p1"]).num_rows},
        "AUC": {
            "ondask per family": lambda: ondask.roc_auc_score(p, "click", "p1"),
            "ondask one pass": lambda: ondask.summarize(p, "click", "p1", families=("auc",)).roc_auc_score(),
            "DuckDB SQL": lambda: peers.duckdb_auc(con, p),
            "Polars": lambda: peers.polars_auc(p)},
        "log loss": {
            "ondask per family": lambda: ondask.log_loss(p, "click", "p1"),
            "ondask one pass": lambda: ondask.summarize(p, "click", "p1", families=("losses",)).log_loss(),
            "DuckDB SQL": lambda: peers.duckdb_log_loss(con, p),
            "Polars": lambda: peers.polars_log_loss(p)},
        "calibration by decile": {
            "ondask per family": lambda: dec(ondask.quantile_breakdown(p, "click", "p1", n_quantiles=10)),
            "ondask one pass": lambda: dec(ondask.summarize(p, "click", "p1", families=("quantiles",)).quantile_breakdown()),
            "DuckDB SQL": lambda: peers.duckdb_deciles(con, p)},
        "four families (AUC x2, losses, deciles, joint counts)": {
            "ondask per family": lambda: ours_per_family(p),
            "ondask one pass": lambda: ours_one_pass(p),
            "DuckDB SQL": duck_all},
    }
    times = {(m, k): [] for m, impls in plan.items() for k in impls}
    values = {}
    for r in range(repeat):
        print(f"   repeat {r + 1}/{repeat} (load {load()})", flush=True)
        for m, impls in plan.items():
            for k, fn in impls.items():
                t0 = time.perf_counter()
                values[(m, k)] = fn()
                times[(m, k)].append(time.perf_counter() - t0)
    # the in-memory functions on the same rows: the reference values
    df = pd.read_parquet(p, columns=["click", "p1"])
    y, s1 = df["click"].to_numpy(), df["p1"].to_numpy()
    t0 = time.perf_counter()
    ref = {"AUC": metrics.roc_auc_score(y, s1), "log loss": metrics.log_loss(y, s1),
           "calibration by decile": dec(metrics.quantile_breakdown(y, s1, n_quantiles=10))}
    t_mem = time.perf_counter() - t0
    del df, y, s1
    one = values[("four families (AUC x2, losses, deciles, joint counts)", "ondask one pass")]
    ref_all = dict(auc_1=ref["AUC"], log_loss_1=ref["log loss"], deciles=ref["calibration by decile"])

    def agree(m, v):
        if m == "read click, p1 (pyarrow)":
            return ""
        if m.startswith("four"):
            v = dict(auc_1=one.roc_auc_score("p1"), log_loss_1=one.log_loss("p1"),
                     deciles=one.quantile_breakdown("p1")["calibration_ratio"].tolist()) if isinstance(v, ondask.Summary) \
                else dict(auc_1=v["auc_1"], log_loss_1=v.get("log_loss_1"), deciles=v["deciles"])
            pairs = [(v[k], ref_all[k]) for k in ref_all if v.get(k) is not None]
        else:
            pairs = [(v, ref[m])]
        worst = max(float(np.max(np.abs(np.asarray(a, float) / np.asarray(b, float) - 1))) for a, b in pairs)
        return f"{worst:.1e}"

    rows = []
    for m, impls in plan.items():
        duck = statistics.median(times[(m, "DuckDB SQL")]) if "DuckDB SQL" in impls else None
        for k in impls:
            t = statistics.median(times[(m, k)])
            rows.append(dict(metric=m, path=k, seconds=t, runs=" ".join(f"{x:.2f}" for x in times[(m, k)]),
                             over_duckdb=(t / duck) if duck else None,
                             max_rel_diff_vs_in_memory=agree(m, values[(m, k)])))
    return rows, dict(in_memory_seconds=t_mem, one_pass_aucs=(one.roc_auc_score("p1"), one.roc_auc_score("p2")),
                      joint=int(one.joint.counts.sum()))


def peak_rss_mb() -> float:
    """This process's peak resident memory: ``VmHWM`` of ``/proc/self/status`` where there is one.

    ``getrusage``'s ``ru_maxrss`` is not used on Linux: it keeps the peak of the process image before
    ``exec``, i.e. of the parent that forked this process (the benchmark's own, gigabytes).
    """
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def big_child(path: str, repeat: int) -> dict:
    """Every family in one pass on ``path``, ``repeat`` times (median); run in a fresh process."""
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        s = ours_one_pass(path)
        times.append(time.perf_counter() - t0)
    return dict(seconds=statistics.median(times), runs=times, peak_rss_mb=peak_rss_mb(),
                rows=s.rows, auc_1=s.roc_auc_score("p1"), auc_2=s.roc_auc_score("p2"), log_loss_1=s.log_loss("p1"),
                deciles=s.quantile_breakdown("p1")["calibration_ratio"].tolist(), joint=int(s.joint.counts.sum()))


def child(fn: str, *args) -> dict:
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); import scale_dask as s; "
            f"print(json.dumps(s.{fn}(*{args!r})))")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if res.returncode:
        sys.stderr.write(res.stderr)
        res.check_returncode()
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=float, default=1e8, help="rows of the one-pass run (0: skip it)")
    ap.add_argument("--table-rows", type=float, default=2e7, help="rows of the per-metric table beside the peers")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--data", default="build/bench/logs", help="where the Parquet logs go")
    ap.add_argument("--out", default="build/bench")
    args = ap.parse_args(argv)
    import pandas as pd

    import peers_logs as peers
    from offline_eval_compendium.io import atomic_write_text, to_markdown

    small, big = int(args.table_rows), int(args.rows)
    info = machine()
    load_before = load()
    spath = Path(args.data) / f"n{small}"
    _ensure(spath, small)
    print(f"per-metric table on {small:,} rows ...", flush=True)
    rows, extra = table(spath, args.repeat)
    tab = pd.DataFrame(rows)
    print(to_markdown(tab, floatfmt=".3g"), flush=True)
    big_md, big_row = "", None
    if big:
        bpath = Path(args.data) / f"n{big}"
        _ensure(bpath, big)
        print(f"one pass on {big:,} rows (fresh process, load {load()}) ...", flush=True)
        runs = [child("big_child", str(bpath), 1) for _ in range(args.repeat)]  # a fresh process each: its own peak
        b = dict(runs[-1], seconds=statistics.median(r["seconds"] for r in runs), runs=[r["seconds"] for r in runs],
                 peak_rss_mb=max(r["peak_rss_mb"] for r in runs), peaks=[r["peak_rss_mb"] for r in runs])
        con = peers.duckdb_connect()
        t0 = time.perf_counter()
        d_auc, d_ll, d_dec = peers.duckdb_auc(con, bpath), peers.duckdb_log_loss(con, bpath), peers.duckdb_deciles(con, bpath)
        t_duck = time.perf_counter() - t0
        diff = max(abs(b["auc_1"] / d_auc - 1), abs(b["log_loss_1"] / d_ll - 1),
                   float(np.max(np.abs(np.array(b["deciles"]) / np.array(d_dec) - 1))))
        size_mb = sum(f.stat().st_size for f in bpath.glob("*.parquet")) / 2**20
        big_row = dict(rows=big, seconds=b["seconds"], runs=" ".join(f"{x:.1f}" for x in b["runs"]),
                       rows_per_s=big / b["seconds"], peak_rss_mb=b["peak_rss_mb"],
                       peaks_mb=" ".join(f"{x:.0f}" for x in b["peaks"]), parquet_mb=size_mb,
                       duckdb_auc_logloss_deciles_s=t_duck, max_rel_diff_vs_duckdb=diff,
                       meets_30s=b["seconds"] <= 30, meets_1gb=b["peak_rss_mb"] < 1024)
        print(f"   {big_row}", flush=True)
        big_md = (f"\n\n## Every family in one pass on {big:,} rows\n\n`ondask.summarize(path, 'click', ['p1', 'p2'], "
                  f"joint=('b', 'c', 'g'))`: AUC/ROC, losses and RIG, calibration by decile of both models and the joint "
                  f"counts; each run in a fresh process (seconds: the median of the runs; peak memory: the largest of their "
                  f"maximum resident sets, `peaks_mb` lists them). Targets: at most 30 s, below 1 GB. "
                  f"The values beside DuckDB's on the same files (AUC, log loss, deciles of p1; DuckDB's three queries "
                  f"took the time in `duckdb_auc_logloss_deciles_s`).\n\n"
                  + to_markdown(pd.DataFrame([big_row]), floatfmt=".4g"))
    load_after = load()
    md = (f"# Metrics on Parquet logs: ondask beside DuckDB and Polars\n\n"
          f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; shared with other work "
          f"(load average 1/5/15 min: {load_before} before, {load_after} after). Python {info['python']}, "
          + ", ".join(f"{k} {info[k]}" for k in ("numpy", "pandas", "dask", "pyarrow", "duckdb", "polars"))
          + f". Scores stored at a resolution of {RESOLUTION:g} (exact AUC and deciles).\n\n"
          f"## Per metric on {small:,} rows\n\nSeconds: the median of {args.repeat} runs, every path interleaved in "
          "each run (`runs` lists them). `ondask per family`: today's functions (`roc_auc_score`, `log_loss`, "
          "`quantile_breakdown`: two passes), one read each; `ondask one pass`: `summarize(..., families=(f,))` "
          "(the four-families row: every family of both models and the joint counts, one read). DuckDB and Polars "
          "use every core, ondask Dask's threads on every core. `max_rel_diff_vs_in_memory`: the largest relative "
          "difference of the value(s) from `offline_eval.metrics` on the same rows in memory (AUC, log loss, "
          f"calibration ratio per decile of p1; {extra['in_memory_seconds']:.1f} s in memory). "
          "Target: each family within 1.5x of DuckDB (`over_duckdb` <= 1.5).\n\n"
          + to_markdown(tab, floatfmt=".3g") + big_md + "\n")
    print(md)
    out = Path(args.out)
    atomic_write_text(out / "scale_dask.md", md)
    tab2 = tab.assign(rows=small)
    if big_row:
        tab2 = pd.concat([tab2, pd.DataFrame([dict(metric="four families, one pass", path="ondask one pass",
                                                   **{k: v for k, v in big_row.items()})])], ignore_index=True)
    atomic_write_text(out / "scale_dask.csv", tab2.to_csv(index=False, lineterminator="\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
