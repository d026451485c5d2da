"""A row of weight 0 is as if dropped, in every quantile breakdown: in memory (`metrics.quantile_breakdown`), by
chunks (`mergeable.QuantileSums`) and over a whole log (`ondask.quantile_breakdown`, `ondask.summarize`).  A
zero-weight row once widened its bin's score range (`score_lo`, `score_hi`) in all of them."""

import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from offline_eval import mergeable, metrics, ondask


def _log(seed, n=600):
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 3, n).astype(float)  # a third of the rows weigh 0
    return pd.DataFrame({"y": rng.integers(0, 2, n), "p": rng.uniform(0.01, 0.99, n), "w": w,
                         "by": rng.normal(size=n)})


def _same(got, want):
    # the score range exactly; the sums to the last bits (zero weights add zeros, in another order)
    pd.testing.assert_frame_equal(got[["quantile", "score_lo", "score_hi"]].reset_index(drop=True),
                                  want[["quantile", "score_lo", "score_hi"]].reset_index(drop=True), check_dtype=False,
                                  rtol=0, atol=0)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False,
                                  rtol=1e-12, atol=0)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("by", [None, "by"])
def test_in_memory_and_by_chunks(seed, by):
    df = _log(seed)
    kept = df[df.w > 0]
    args = lambda d: dict(n_quantiles=7, sample_weight=d.w, **({} if by is None else {"by": d[by]}))  # noqa: E731
    want = metrics.quantile_breakdown(kept.y, kept.p, **args(kept))
    _same(metrics.quantile_breakdown(df.y, df.p, **args(df)), want)
    # by chunks, every chunk binned by the whole log's first pass
    score = df.p if by is None else df[by]
    first = mergeable.ScoreCounts.from_arrays(df.y, score, df.w)
    edges = mergeable.QuantileSums.edges(first, 7)
    parts = [mergeable.QuantileSums.from_arrays(edges, 7, c.y, c.p, None if by is None else c[by], c.w)
             for c in (df.iloc[k:k + 150] for k in range(0, len(df), 150))]
    merged = parts[0]
    for part in parts[1:]:
        merged = merged.merge(part)
    _same(merged.frame(), want)


@pytest.mark.parametrize("seed", range(3))
def test_over_a_whole_log(seed):
    df = _log(seed)
    kept = df[df.w > 0]
    log, log_kept = dd.from_pandas(df, npartitions=3), dd.from_pandas(kept, npartitions=2)
    want = metrics.quantile_breakdown(kept.y, kept.p, sample_weight=kept.w, n_quantiles=7)
    _same(ondask.quantile_breakdown(log, "y", "p", weight="w", n_quantiles=7), want)
    _same(ondask.summarize(log, "y", "p", weight="w", families=("quantiles",), n_quantiles=7).quantile_breakdown(),
          want)
    # rounded scores: the same rounding with and without the zero-weight rows
    rounded = dict(weight="w", families=("quantiles",), n_quantiles=7, resolution=1e-3)
    _same(ondask.summarize(log, "y", "p", **rounded).quantile_breakdown(),
          ondask.summarize(log_kept, "y", "p", **rounded).quantile_breakdown())


def test_a_bin_of_zero_weight_rows_only_is_not_shown():
    # the zero-weight rows hold the highest scores: no bin's range reaches them
    df = pd.DataFrame({"y": [0, 1, 0, 1, 1, 0], "p": [0.1, 0.2, 0.3, 0.4, 0.95, 0.99], "w": [1, 1, 1, 1, 0, 0.0]})
    got = ondask.summarize(dd.from_pandas(df, npartitions=2), "y", "p", weight="w", families=("quantiles",),
                           n_quantiles=2).quantile_breakdown()
    assert got["score_lo"].tolist() == [0.1, 0.3] and got["score_hi"].tolist() == [0.2, 0.4]
    want = metrics.quantile_breakdown(df.y, df.p, sample_weight=df.w, n_quantiles=2)
    _same(got, want)



@pytest.mark.parametrize("n_zero_clicks", [1, 2, 3, 4, 5, 8])
def test_a_ctr_that_rounds_to_zero_has_no_calibration_ratio_in_memory_by_chunks_and_on_dask(n_zero_clicks):
    # one click of weight 1e-323 (two of float64's smallest steps, 2 x 2**-1074) beside n weights of 1: the CTR is
    # 2/n steps, 0 in float64 from n = 4 on (half a step rounds to even, 0); where it is 0 every path says the ratio
    # is undefined (nan), where it is not every path divides by it
    n = n_zero_clicks
    df = pd.DataFrame({"y": [1] + [0] * n, "p": np.linspace(0.2, 0.3, n + 1), "w": [1e-323] + [1.0] * n})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", metrics.OfflineEvalWarning)
        want = metrics.calibration_ratio(df.y, df.p, sample_weight=df.w)
        table = metrics.quantile_breakdown(df.y, df.p, sample_weight=df.w, n_quantiles=1)["calibration_ratio"][0]
        chunks = mergeable.LossSums.from_arrays(df.y, df.p, df.w).calibration_ratio()
        log = ondask.calibration_ratio(dd.from_pandas(df, npartitions=2), "y", "p", weight="w")
    assert np.isnan(want) == (n >= 4)
    for got in (table, chunks, log):
        assert np.isnan(got) == np.isnan(want)
