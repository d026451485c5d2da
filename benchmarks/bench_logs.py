"""Metrics on Parquet logs: ``ondask.summarize`` (one family at a time) against DuckDB SQL and Polars.

The same synthetic logs as ``make bench-dask`` (``scale_dask.generate``: scores at 1e-6), at in-memory
sizes, written once under ``build/bench/logs``.  Target: within 1.5x of DuckDB.  DuckDB and Polars are
the ``bench`` extra; ``--only logs`` runs this section alone.
"""

from pathlib import Path

from harness import Case

DATA = Path(__file__).resolve().parents[1] / "build" / "bench" / "logs"


def _files(n):
    import scale_dask

    path = DATA / f"n{n}"
    if not (path / "part-00000.parquet").exists():
        scale_dask.generate(path, n)
    return str(path)


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

    out = []
    for n in ([10**5] if quick else [10**6, 10**7]):
        setup = (lambda n=n: (_files(n),))
        common = dict(n=n, setup=setup, max_ratio=1.5, same=_close, note="Parquet files, scores at 1e-6")
        out += [
            Case(name="auc on Parquet", ours=ours("auc", "roc_auc_score"), peer=lambda p: peers.duckdb_auc(con, p),
                 peer_name="DuckDB SQL (ties 1/2)", **common),
            Case(name="auc on Parquet", ours=ours("auc", "roc_auc_score"), peer=peers.polars_auc,
                 peer_name="Polars (ties 1/2)", **common),
            Case(name="log loss on Parquet", ours=ours("losses", "log_loss"),
                 peer=lambda p: peers.duckdb_log_loss(con, p), peer_name="DuckDB SQL", **common),
            Case(name="log loss on Parquet", ours=ours("losses", "log_loss"), peer=peers.polars_log_loss,
                 peer_name="Polars", **common),
            Case(name="calibration by decile on Parquet", ours=deciles, peer=lambda p: peers.duckdb_deciles(con, p),
                 peer_name="DuckDB SQL", **common),
        ]
    return out
