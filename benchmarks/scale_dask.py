"""Logs bigger than memory: the metrics through Dask beside DuckDB, Polars and memory (``make bench-dask``; minutes).

``python benchmarks/scale_dask.py [--rows 1e8] [--table-rows 2e7] [--repeat 3] [--boot] [--out build/bench]``

1. Writes synthetic impression logs to Parquet (``--table-rows`` and ``--rows`` rows, in files of
   ``CHUNK`` rows), with the compendium's generators: a click drawn from a true CTR
   (``synth.sponsored.sample_ctr``), two models' pClick (``synth.sponsored.distorted_pclick``), once as the
   float64 a model writes and once rounded to 1e-6 as some production logs store a score, two classifiers'
   predictions with the truth (``synth.classifiers.two_model_world``) and a query id (clusters of 4 rows).
   The files are kept under ``--data`` (``build/``).
2. On the ``--table-rows`` files, float64 and rounded scores alike, per metric (AUC, log loss, calibration by
   decile) and for all the families at once: the in-memory path (pandas read + ``offline_eval.metrics``),
   ``ondask``'s functions, ``ondask.summarize`` (one pass), DuckDB SQL and Polars
   (``benchmarks/peers_logs.py``), interleaved, the median of ``--repeat`` runs each, with every value beside
   the in-memory one; then the in-memory AUC, ondask's AUC and ``summarize`` each alone in a fresh process
   for its peak resident memory; with ``--boot``, ``ondask.clustered_bootstrap`` (200 resamples, two models).
3. On the ``--rows`` files of float64 scores, in a fresh process (its peak resident memory is its own):
   every family in one pass, its time and peak memory, its values beside DuckDB's.
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
RESOLUTION_DECIMALS = 6
#: The bootstrap of the benchmark: resamples, and the opt-in rounding of the scores for the AUC's cells.
BOOT_RESAMPLES = 200
BOOT_RESOLUTION = 1e-4


def generate(path: Path, rows: int, seed: int = 0, decimals: int | None = 6) -> float:
    """Write ``rows`` rows of synthetic logs as Parquet files of ``CHUNK`` rows; returns the seconds.

    ``decimals``: the scores stored rounded to that many decimals, or ``None`` for float64 scores as a
    model writes them.  ``q`` is a query id, four consecutive rows each (``rows / 4`` clusters)."""
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
        p1 = sp.distorted_pclick(ctr, rng)
        p2 = sp.distorted_pclick(ctr, rng, low_shift=1.0)
        if decimals is not None:
            p1, p2 = np.round(p1, decimals), np.round(p2, decimals)
        b, c, g = cl.two_model_world(n, accuracy_b=acc_b, accuracy_c=acc_c, prior=prior, rng=rng)
        pd.DataFrame({"click": click, "p1": p1, "p2": p2, "b": b.astype(np.int8), "c": c.astype(np.int8),
                      "g": g.astype(np.int8), "q": (start + np.arange(n)) // 4}).to_parquet(
            path / f"part-{i:05d}.parquet", index=False)
    return time.perf_counter() - t0



HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
FAMILIES_ALL = dict(score=["p1", "p2"], joint=("b", "c", "g"))  # the four families, both models


def _ensure(path: Path, rows: int, decimals: int | None = RESOLUTION_DECIMALS) -> None:
    if not (path / "_done").exists():
        print(f"writing {rows:,} rows to {path} ...", flush=True)
        print(f"   {generate(path, rows, decimals=decimals):.1f} s", flush=True)
        (path / "_done").write_text("")


def data_path(root: Path, rows: int, decimals: int | None) -> Path:
    """Where the log of ``rows`` rows lives: scores rounded to ``decimals`` or float64 (``None``)."""
    return Path(root) / f"n{rows}-{'f64' if decimals is None else f'r{decimals}'}"


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


def _in_memory(path: str, cols, fn):
    """The in-memory path a user takes: pandas reads the columns, then the function of ``offline_eval``."""
    import pandas as pd

    df = pd.read_parquet(path, columns=list(cols))
    return fn(*(df[c].to_numpy() for c in cols))


def table(path: Path, repeat: int, per_family: bool = True) -> tuple[list, dict]:
    """Per metric, every path's median time (interleaved runs) and value."""
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
            "in memory (pandas read + roc_auc_score)": lambda: _in_memory(p, ("click", "p1"), metrics.roc_auc_score),
            "ondask roc_auc_score": lambda: ondask.roc_auc_score(p, "click", "p1"),
            "DuckDB SQL": lambda: peers.duckdb_auc(con, p),
            "Polars": lambda: peers.polars_auc(p)},
        "log loss": {
            "in memory (pandas read + log_loss)": lambda: _in_memory(p, ("click", "p1"), metrics.log_loss),
            "ondask log_loss": lambda: ondask.log_loss(p, "click", "p1"),
            "ondask one pass": lambda: ondask.summarize(p, "click", "p1", families=("losses",)).log_loss(),
            "DuckDB SQL": lambda: peers.duckdb_log_loss(con, p),
            "Polars": lambda: peers.polars_log_loss(p)},
        "calibration by decile": {
            "in memory (pandas read + quantile_breakdown)": lambda: dec(_in_memory(
                p, ("click", "p1"), lambda y, s: metrics.quantile_breakdown(y, s, n_quantiles=10))),
            "ondask one pass": lambda: dec(ondask.summarize(p, "click", "p1", families=("quantiles",)).quantile_breakdown()),
            "DuckDB SQL": lambda: peers.duckdb_deciles(con, p)},
        "four families (AUC x2, losses, deciles, joint counts)": {
            "ondask per family": lambda: ours_per_family(p),
            "ondask one pass": lambda: ours_one_pass(p),
            "DuckDB SQL": duck_all},
    }
    if not per_family:
        del plan["four families (AUC x2, losses, deciles, joint counts)"]["ondask per family"]
    times = {(m, k): [] for m, impls in plan.items() for k in impls}
    cpu = {(m, k): [] for m, impls in plan.items() for k in impls}
    values = {}
    for r in range(repeat):
        print(f"   repeat {r + 1}/{repeat} (load {load()})", flush=True)
        for m, impls in plan.items():
            for k, fn in impls.items():
                t0, c0 = time.perf_counter(), time.process_time()
                values[(m, k)] = fn()
                times[(m, k)].append(time.perf_counter() - t0)
                cpu[(m, k)].append(time.process_time() - c0)
                print(f"      {m} / {k}: {times[(m, k)][-1]:.2f} s, cpu {cpu[(m, k)][-1]:.2f} s", flush=True)
    ref = {m: values[(m, next(k for k in plan[m] if k.startswith("in memory")))] for m in ("AUC", "log loss",
                                                                                          "calibration by decile")}
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
        peers_t = [statistics.median(times[(m, k)]) for k in ("DuckDB SQL", "Polars") if k in impls]
        for k in impls:
            t = statistics.median(times[(m, k)])
            rows.append(dict(metric=m, path=k, seconds=t, cpu_seconds=statistics.median(cpu[(m, k)]),
                             runs=" ".join(f"{x:.2f}" for x in times[(m, k)]),
                             over_duckdb=(t / duck) if duck else None,
                             over_fastest_peer=(t / min(peers_t)) if peers_t else None,
                             max_rel_diff_vs_in_memory=agree(m, values[(m, k)])))
    four = statistics.median(times[("four families (AUC x2, losses, deciles, joint counts)", "ondask one pass")])
    auc = statistics.median(times[("AUC", "ondask roc_auc_score")])
    return rows, dict(one_pass_aucs=(one.roc_auc_score("p1"), one.roc_auc_score("p2")),
                      joint=int(one.joint.counts.sum()), four_over_one_auc=four / auc)


def _targets(tab, peaks, boots, extras):
    """The issue's targets, each a ratio to its bound, from this run's tables (``None`` without the table)."""
    import pandas as pd

    if not len(tab):
        return None

    def t(kind, metric, path, col="seconds"):
        row = tab[(tab["scores"] == kind) & (tab["metric"] == metric) & (tab["path"] == path)]
        return float(row[col].iloc[0]) if len(row) else float("nan")

    rows = []
    for kind in dict.fromkeys(tab["scores"]):
        def add(target, bound, num, den, num_cpu=None, den_cpu=None):
            ratio = num / den
            cpu = (num_cpu / den_cpu) if num_cpu is not None else float("nan")
            rows.append(dict(scores=kind, target=target, bound=bound, ratio=ratio, cpu_ratio=cpu,
                             met="yes" if ratio <= bound else "no"))

        auc = ("AUC", "ondask roc_auc_score")
        mem = ("AUC", "in memory (pandas read + roc_auc_score)")
        add("exact AUC / (in-memory read + AUC)", 1.0, t(kind, *auc), t(kind, *mem),
            t(kind, *auc, "cpu_seconds"), t(kind, *mem, "cpu_seconds"))
        fastest = min(("DuckDB SQL", "Polars"), key=lambda k: t(kind, "AUC", k))
        add(f"exact AUC / the faster peer's ({fastest})", 0.5, t(kind, *auc), t(kind, "AUC", fastest),
            t(kind, *auc, "cpu_seconds"), t(kind, "AUC", fastest, "cpu_seconds"))
        ll = ("log loss", "ondask log_loss")
        add("log loss / DuckDB's", 1.0, t(kind, *ll), t(kind, "log loss", "DuckDB SQL"),
            t(kind, *ll, "cpu_seconds"), t(kind, "log loss", "DuckDB SQL", "cpu_seconds"))
        if len(peaks):
            pk = peaks[peaks["scores"] == kind].set_index("path")["peak_rss_mb"]
            if "ondask AUC" in pk and "in memory AUC" in pk:
                add("peak memory of the AUC / in memory's", 1.0, pk["ondask AUC"], pk["in memory AUC"])
        if kind in extras:
            four = "four families (AUC x2, losses, deciles, joint counts)"
            add("summarize (two models, every family) / one exact AUC", 1.5, t(kind, four, "ondask one pass"),
                t(kind, *auc), t(kind, four, "ondask one pass", "cpu_seconds"), t(kind, *auc, "cpu_seconds"))
    for b in boots:
        if b.get("resolution") == "exact" and "seconds" in b and not b.get("refused"):
            rows.append(dict(scores=b["scores"], target=f"clustered bootstrap, {BOOT_RESAMPLES} resamples, exact "
                             "(seconds / 30 s)", bound=1.0, ratio=b["seconds"] / 30.0, cpu_ratio=float("nan"),
                             met="yes" if b["seconds"] <= 30.0 else "no"))
    return pd.DataFrame(rows)


def peak_child(path: str, which: str) -> dict:
    """One path once in a fresh process: its seconds and its peak resident memory (its own ``VmHWM``)."""
    from offline_eval import metrics, ondask

    fns = {"in memory AUC": lambda: _in_memory(path, ("click", "p1"), metrics.roc_auc_score),
           "ondask AUC": lambda: ondask.roc_auc_score(path, "click", "p1"),
           "ondask summarize, two models, every family": lambda: ours_one_pass(path).roc_auc_score("p1")}
    t0 = time.perf_counter()
    value = fns[which]()
    return dict(seconds=time.perf_counter() - t0, peak_rss_mb=peak_rss_mb(), value=value)


def boot_child(path: str, resolution) -> dict:
    """The clustered bootstrap of a log: 200 resamples of AUC, log loss and RIG of two models, clusters ``q``."""
    from offline_eval import ondask

    t0 = time.perf_counter()
    try:
        res = ondask.clustered_bootstrap(path, "click", "p1", "p2", groups="q", n_boot=BOOT_RESAMPLES,
                                         resolution=resolution, rng=0)
    except ValueError as exc:  # refused before the pass, with the bound named
        return dict(seconds=time.perf_counter() - t0, peak_rss_mb=peak_rss_mb(), refused=str(exc)[:160])
    return dict(seconds=time.perf_counter() - t0, peak_rss_mb=peak_rss_mb(), n_clusters=res.n_clusters,
                auc_1=res.a.roc_auc_score.statistic, auc_se=res.a.roc_auc_score.standard_error)


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
    ap.add_argument("--table-rows", type=float, default=2e7, help="rows of the per-metric table beside the peers (0: skip it)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--boot", action="store_true", help="also the clustered bootstrap on the table's rows (minutes)")
    ap.add_argument("--no-per-family", action="store_true", help="skip the four families through the per-family functions")
    ap.add_argument("--data", default="build/bench/logs", help="where the Parquet logs go")
    ap.add_argument("--out", default="build/bench")
    args = ap.parse_args(argv)
    import pandas as pd

    import peers_logs as peers
    from offline_eval_compendium.io import atomic_write_text, to_markdown

    small, big = int(args.table_rows), int(args.rows)
    info = machine()
    load_before = load()
    tabs, peaks, boots, notes, extras = [], [], [], [], {}
    for decimals in ((None, RESOLUTION_DECIMALS) if small else ()):
        kind = "float64" if decimals is None else f"rounded to 1e-{decimals}"
        spath = data_path(args.data, small, decimals)
        _ensure(spath, small, decimals)
        print(f"per-metric table on {small:,} rows, scores {kind} ...", flush=True)
        rows, extra = table(spath, args.repeat, per_family=not args.no_per_family)
        extras[kind] = extra
        tabs.append(pd.DataFrame(rows).assign(scores=kind))
        notes.append(f"{kind}: `summarize` of two models, every family, took {extra['four_over_one_auc']:.2f}x one "
                     "exact AUC (`ondask roc_auc_score`).")
        print(to_markdown(tabs[-1], floatfmt=".3g"), flush=True)
        for which in ("in memory AUC", "ondask AUC", "ondask summarize, two models, every family"):
            r = child("peak_child", str(spath), which)
            peaks.append(dict(scores=kind, path=which, seconds=r["seconds"], peak_rss_mb=r["peak_rss_mb"],
                              value=r["value"], load=load()))
            print(f"   {peaks[-1]}", flush=True)
        if args.boot:
            for res in ((None, BOOT_RESOLUTION) if decimals is None else (None,)):
                r = child("boot_child", str(spath), res)
                boots.append(dict(scores=kind, resolution="exact" if res is None else res, load=load(), **r))
                print(f"   {boots[-1]}", flush=True)
    tab = pd.concat(tabs, ignore_index=True) if tabs else pd.DataFrame()
    big_md, big_row = "", None
    if big:
        bpath = data_path(args.data, big, None)
        _ensure(bpath, big, None)
        print(f"one pass on {big:,} rows of float64 scores (fresh process, load {load()}) ...", flush=True)
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
                       duckdb_auc_logloss_deciles_s=t_duck, max_rel_diff_vs_duckdb=diff)
        print(f"   {big_row}", flush=True)
        big_md = (f"\n\n## Every family in one pass on {big:,} rows of float64 scores\n\n`ondask.summarize(path, "
                  f"'click', ['p1', 'p2'], joint=('b', 'c', 'g'))`: AUC/ROC, losses and RIG, calibration by decile of both "
                  f"models and the joint counts, exact (no weights: from each score range's sorted scores); each run in a fresh process "
                  f"(seconds: the median of the runs; peak memory: the largest of their maximum resident sets, "
                  f"`peaks_mb` lists them). The values beside DuckDB's on the same files (AUC, log loss, deciles of p1; "
                  f"DuckDB's three queries took the time in `duckdb_auc_logloss_deciles_s`).\n\n"
                  + to_markdown(pd.DataFrame([big_row]), floatfmt=".4g"))
    load_after = load()
    targets = _targets(tab, pd.DataFrame(peaks), boots, extras)
    targets_md = "" if targets is None else (
        "\n\n## The targets, from this run\n\nEach target of the issue that set them, computed from the tables "
        "below (wall seconds, the median of the runs; `cpu_ratio`: the same ratio of CPU seconds, less sensitive "
        "to other work on the machine). The issue states them for float64 scores; the rounded scores' rows are "
        "beside them for comparison.\n\n" + to_markdown(targets, floatfmt=".3g"))
    peak_md = ("\n\n## Peak memory, each path alone in a fresh process\n\nThe maximum resident set (`VmHWM`) of a "
               "process that imports the library and runs one path once on the same files (the in-memory path: pandas "
               "reads `click` and `p1`, then `offline_eval.roc_auc_score`).\n\n"
               + to_markdown(pd.DataFrame(peaks), floatfmt=".4g"))
    boot_md = "" if not boots else (
        f"\n\n## The clustered bootstrap of the log\n\n`ondask.clustered_bootstrap(path, 'click', 'p1', 'p2', "
        f"groups='q', n_boot={BOOT_RESAMPLES})`: AUC, log loss and RIG of both models and B - A, {small // 4:,} query "
        "clusters of 4 rows, in a fresh process. Exact (the default): scores whose per-bin sums would exceed their "
        "bound (continuous scores, and here the 1e-6 grid too) take every row into one task and the in-memory "
        "engine; a refusal before the pass would be quoted. `resolution` is the opt-in rounding of the scores "
        "for the AUC's per-bin sums in one pass.\n\n" + to_markdown(pd.DataFrame(boots), floatfmt=".4g"))
    md = (f"# Metrics on Parquet logs: ondask beside DuckDB, Polars and the in-memory path\n\n"
          f"Machine: {info['cpu']}, {info['cores']} cores, {info['memory_gib']} GiB; shared with other work "
          f"(load average 1/5/15 min: {load_before} before, {load_after} after). Python {info['python']}, "
          + ", ".join(f"{k} {info[k]}" for k in ("numpy", "pandas", "dask", "pyarrow", "duckdb", "polars"))
          + ".\n\n"
          f"## Per metric on {small:,} rows, float64 scores and scores rounded to 1e-{RESOLUTION_DECIMALS}\n\n"
          f"Seconds: the median of {args.repeat} runs, every path interleaved in each run (`runs` lists them); "
          "`cpu_seconds`: the process's CPU time over its threads (DuckDB's and Polars' included), less sensitive "
          "than wall time to other work on the machine. "
          "Every ondask value is exact (no `resolution`). `in memory`: pandas reads the two columns, then the "
          "function of `offline_eval.metrics`; `ondask one pass`: `summarize(..., families=(f,))` (the "
          "four-families row: every family of both models and the joint counts, one read). DuckDB and Polars use "
          "every core, ondask Dask's threads on every core. `max_rel_diff_vs_in_memory`: the largest relative "
          "difference of the value(s) from the in-memory path's. " + " ".join(notes) + "\n\n"
          + (to_markdown(tab, floatfmt=".3g") if len(tab) else "(not run: `--table-rows 0`)")
          + targets_md + (peak_md if peaks else "") + boot_md + big_md + "\n")
    print(md)
    out = Path(args.out)
    atomic_write_text(out / "scale_dask.md", md)
    atomic_write_text(out / "scale_dask.csv", tab.assign(rows=small).to_csv(index=False, lineterminator="\n"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
