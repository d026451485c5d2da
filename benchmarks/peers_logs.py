"""The peers on Parquet logs: DuckDB SQL and Polars, for the benchmarks only (the ``bench`` extra).

The library never imports them (``tests/library/test_ondask.py`` checks it).  Each function reads the same
Parquet files as :func:`offline_eval.ondask.summarize` and computes the same metric by the same
definition, so that the values can be compared, not only the times:

- AUC with ties counted 1/2, from the weight of positives and negatives per distinct score (a rank
  formulation: a positive outranks the negatives of lower scores and ties with those of its own score),
  ``AUC = (sum_v P_v N_{<v} + 1/2 sum_v P_v N_v) / (P N)``;
- log loss with the probabilities clipped to ``[eps, 1 - eps]``, ``eps = 1e-15``;
- calibration by decile as :func:`offline_eval.metrics.quantile_breakdown` bins it: every distinct score
  takes the bin ``min(floor(10 * rows below it / rows), 9)`` (integer arithmetic, so exact), and the
  ratio is ``sum p / sum clicks`` per bin.
"""

from __future__ import annotations

from pathlib import Path

EPS = 1e-15


def _glob(path) -> str:
    p = Path(path)
    return str(p / "*.parquet") if p.is_dir() else str(p)


# -- DuckDB -----------------------------------------------------------------------------------------------
def duckdb_connect(threads: int | None = None):
    import duckdb

    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


def duckdb_auc(con, path, label="click", score="p1") -> float:
    sql = f"""
    WITH g AS (
        SELECT {score} AS v, SUM({label})::DOUBLE AS pos, (COUNT(*) - SUM({label}))::DOUBLE AS neg
        FROM read_parquet('{_glob(path)}') GROUP BY {score}),
    c AS (SELECT pos, neg, SUM(neg) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - neg AS below
          FROM g)
    SELECT (SUM(pos * below) + 0.5 * SUM(pos * neg)) / (SUM(pos) * SUM(neg)) FROM c"""
    return float(con.execute(sql).fetchone()[0])


def duckdb_log_loss(con, path, label="click", score="p1") -> float:
    sql = f"""
    SELECT AVG(CASE WHEN {label} = 1 THEN -ln(greatest(least({score}, 1 - {EPS}), {EPS}))
                    ELSE -ln(1 - greatest(least({score}, 1 - {EPS}), {EPS})) END)
    FROM read_parquet('{_glob(path)}')"""
    return float(con.execute(sql).fetchone()[0])


def duckdb_deciles(con, path, label="click", score="p1", q=10) -> list:
    """Calibration ratio (sum p / sum clicks) per quantile bin, bins 1..q in order."""
    sql = f"""
    WITH g AS (SELECT {score} AS v, COUNT(*) AS n, SUM({label}) AS clicks, SUM({score}) AS sp
               FROM read_parquet('{_glob(path)}') GROUP BY {score}),
    c AS (SELECT *, SUM(n) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - n AS below,
                 SUM(n) OVER () AS total FROM g)
    SELECT least(({q} * below) // total, {q - 1}) AS bin, SUM(sp) / SUM(clicks) AS ratio
    FROM c GROUP BY bin ORDER BY bin"""
    return [float(r[1]) for r in con.execute(sql).fetchall()]


# -- Polars -----------------------------------------------------------------------------------------------
def polars_auc(path, label="click", score="p1") -> float:
    import polars as pl

    g = (pl.scan_parquet(_glob(path)).group_by(score)
         .agg(pos=pl.col(label).cast(pl.Float64).sum(), n=pl.len().cast(pl.Float64))
         .sort(score)
         .with_columns(neg=pl.col("n") - pl.col("pos"))
         .with_columns(below=pl.col("neg").cum_sum() - pl.col("neg"))
         .select(num=(pl.col("pos") * pl.col("below")).sum() + 0.5 * (pl.col("pos") * pl.col("neg")).sum(),
                 den=pl.col("pos").sum() * pl.col("neg").sum())
         .collect())
    return float(g["num"][0] / g["den"][0])


def polars_log_loss(path, label="click", score="p1") -> float:
    import polars as pl

    p = pl.col(score).clip(EPS, 1 - EPS)
    out = (pl.scan_parquet(_glob(path))
           .select(pl.when(pl.col(label) == 1).then(-p.log()).otherwise(-(1 - p).log()).mean().alias("ll"))
           .collect())
    return float(out["ll"][0])
