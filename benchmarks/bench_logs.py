"""Metrics on Parquet logs: ``ondask.summarize`` (one family at a time) against DuckDB SQL, Polars and memory.

The same synthetic logs as ``make bench-dask`` (``scale_dask.generate``), at in-memory sizes, written once
under ``build/bench/logs``: scores rounded to 1e-6, and float64 scores as a model writes them (every value
exact: no ``resolution``).  Targets: within 1.5x of DuckDB and Polars; beside the in-memory path (pandas
reads the columns, then ``offline_eval.metrics``), at most its time.  DuckDB and Polars are the ``bench``
extra; ``--only logs`` runs this section alone.
"""

from pathlib import Path

from harness import Case

DATA = Path(__file__).resolve().parents[1] / "build" / "bench" / "logs"


def _files(n, decimals=6):
    import scale_dask

    path = DATA / (f"n{n}" if decimals == 6 else f"n{n}-f64")
    if not (path / "part-00000.parquet").exists():
        scale_dask.generate(path, n, decimals=decimals)
    return str(path)


def _in_memory(fn):
    def run(p):
        import pandas as pd

        df = pd.read_parquet(p, columns=["click", "p1"])
        return fn(df["click"].to_numpy(), df["p1"].to_numpy())
    return run


def _close(a, b):
    import numpy as np

    return bool(np.allclose(a, b, rtol=1e-9, atol=0))


def cases(quick):
    import peers_logs as peers

    from offline_eval import ondask

    con = peers.duckdb_connect()

    def ours(family, method):
        return lambda p: getattr(ondask.summarize(p, "click", "p1", families=(family,)), method)()

    def deciles(p):
        return ondask.summarize(p, "click", "p1", families=("quantiles",)).quantile_breakdown()["calibration_ratio"].tolist()

    from offline_eval import metrics

    out = []
    for n in ([10**5] if quick else [10**6, 10**7]):
        for decimals in (6, None):
            setup = (lambda n=n, d=decimals: (_files(n, d),))
            kind = "scores at 1e-6" if decimals == 6 else "float64 scores"
            common = dict(n=n, setup=setup, max_ratio=1.5, same=_close, note=f"Parquet files, {kind}, exact")
            mem = dict(common, max_ratio=1.0)
            out += [
                Case(name="auc on Parquet", ours=ours("auc", "roc_auc_score"), peer=lambda p: peers.duckdb_auc(con, p),
                     peer_name="DuckDB SQL (ties 1/2)", **common),
                Case(name="auc on Parquet", ours=ours("auc", "roc_auc_score"), peer=peers.polars_auc,
                     peer_name="Polars (ties 1/2)", **common),
                Case(name="auc on Parquet", ours=ours("auc", "roc_auc_score"), peer=_in_memory(metrics.roc_auc_score),
                     peer_name="in memory (pandas read + roc_auc_score)", **mem),
                Case(name="log loss on Parquet", ours=ours("losses", "log_loss"),
                     peer=lambda p: peers.duckdb_log_loss(con, p), peer_name="DuckDB SQL", **common),
                Case(name="log loss on Parquet", ours=ours("losses", "log_loss"), peer=peers.polars_log_loss,
                     peer_name="Polars", **common),
                Case(name="log loss on Parquet", ours=ours("losses", "log_loss"), peer=_in_memory(metrics.log_loss),
                     peer_name="in memory (pandas read + log_loss)", **mem),
                Case(name="calibration by decile on Parquet", ours=deciles, peer=lambda p: peers.duckdb_deciles(con, p),
                     peer_name="DuckDB SQL", **common),
            ]
    return out
