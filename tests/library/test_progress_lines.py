"""The opt-in ``progress=`` of the long calls (issue 51): off by default, lines on stderr or to a callable, one a step,
the last always, and nothing computed changes."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pandas as pd
import pytest

import offline_eval as oe
from offline_eval import _progress, adaptive, logboot, ondask, ranking

dd = pytest.importorskip("dask.dataframe")

ENTRY_POINTS = [oe.metrics.bootstrap_ci, logboot.clustered_bootstrap, ranking.bootstrap_compare, adaptive.bootstrap_oam_accuracy,
                *(getattr(ondask, n) for n in ("clustered_bootstrap", "summarize", "score_counts", "roc_auc_score",
                                               "roc_curve", "loss_sums", "log_loss", "rig_score", "mean_squared_error",
                                               "calibration_ratio", "prediction_error", "quantile_breakdown",
                                               "joint_counts", "utility_sums", "reduce_partitions"))]

LINE = re.compile(r"^(\w+)\.(\w+): ([\d,]+)/([\d,]+) (resamples|tasks), [\d.]+ s(, ~[\d.]+ s left)?$")


def _log(n=4000, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.6, n)
    return pd.DataFrame({"click": (rng.random(n) < p).astype(int), "p": p, "p2": np.clip(p + rng.normal(0, 0.1, n),
                                                                                          0.01, 0.99),
                         "q": rng.integers(0, 200, n)})


@pytest.mark.parametrize("fn", ENTRY_POINTS, ids=lambda f: f"{f.__module__}.{f.__name__}")
def test_every_long_call_takes_progress_off_by_default_and_documents_it(fn):
    param = inspect.signature(fn).parameters["progress"]
    assert param.kind is inspect.Parameter.KEYWORD_ONLY and param.default is False
    assert "progress" in (fn.__doc__ or "")
    assert inspect.getsource(fn)  # the source is still found (the function, not the wrapper)


def _lines(text):
    return [line for line in text.splitlines() if line]


def test_off_by_default_nothing_is_printed(capsys):
    df = _log()
    oe.clustered_bootstrap(df.click, df.p, df.p2, groups=df.q, n_boot=200, rng=0)
    ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=4), "click", "p", groups="q", n_boot=50, rng=0)
    ondask.summarize(dd.from_pandas(df, npartitions=4), "click", "p")
    ranking.bootstrap_compare(df.p[:200], df.p[:200], df.p2[:200], measure="MAE", n_boot=50, rng=0)
    oe.metrics.bootstrap_ci(oe.metrics.log_loss, df.click[:300], df.p[:300], n_boot=30, rng=0)
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""


def test_true_prints_one_line_a_step_to_stderr_and_the_values_do_not_change(capsys):
    df = _log()
    quiet = oe.clustered_bootstrap(df.click, df.p, df.p2, groups=df.q, n_boot=1000, rng=0)
    loud = oe.clustered_bootstrap(df.click, df.p, df.p2, groups=df.q, n_boot=1000, rng=0, progress=True)
    out = capsys.readouterr()
    assert out.out == ""
    lines = _lines(out.err)
    assert 1 <= len(lines) <= _progress.LINES and all(LINE.match(x) for x in lines), lines
    assert lines[-1].startswith("logboot.clustered_bootstrap: 1,000/1,000 resamples") and "left" not in lines[-1]
    for m in quiet.metrics:
        for group in ("a", "b", "difference"):
            q, v = getattr(getattr(quiet, group), m), getattr(getattr(loud, group), m)
            assert q.replicates.tobytes() == v.replicates.tobytes() and q.statistic == v.statistic


def test_a_callable_receives_the_lines_of_each_entry_point():
    df = _log()
    ddf = dd.from_pandas(df, npartitions=4)
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 3, 1000)
    hb = np.where(rng.random(1000) < 0.7, truth, rng.integers(0, 3, 1000))
    hc = np.where(rng.random(1000) < 0.8, truth, rng.integers(0, 3, 1000))
    calls = {
        "logboot.clustered_bootstrap": lambda p: oe.clustered_bootstrap(df.click, df.p, groups=df.q, n_boot=100,
                                                                         rng=0, progress=p),
        "ondask.clustered_bootstrap": lambda p: ondask.clustered_bootstrap(ddf, "click", "p", "p2", groups="q",
                                                                           n_boot=64, rng=0, progress=p),
        "ondask.summarize": lambda p: ondask.summarize(ddf, "click", ["p", "p2"], progress=p),
        "ondask.log_loss": lambda p: ondask.log_loss(ddf, "click", "p", progress=p),
        "ranking.bootstrap_compare": lambda p: ranking.bootstrap_compare(df.p[:300], df.p[:300], df.p2[:300],
                                                                         measure="tau", n_boot=40, rng=0, progress=p),
        "metrics.bootstrap_ci": lambda p: oe.metrics.bootstrap_ci(oe.metrics.roc_auc_score, df.click[:500], df.p[:500],
                                                                  n_boot=40, rng=0, progress=p),
        "adaptive.bootstrap_oam_accuracy": lambda p: adaptive.bootstrap_oam_accuracy(
            hb[:300], hc[:300], truth[:300], hb, hc, n_boot=30, rng=0, progress=p),
    }
    for name, call in calls.items():
        lines = []
        call(lines.append)
        assert lines, name
        assert all(LINE.match(x) for x in lines), lines
        # a call that calls another reports under its own name only (ondask.log_loss -> loss_sums)
        assert {x.split(":")[0] for x in lines} == {name}, lines
        done, total = LINE.match(lines[-1]).group(3, 4)
        assert done == total


def test_the_dask_bootstrap_of_continuous_scores_reports_its_tasks_then_its_resamples():
    df = _log(3000)
    lines = []
    ondask.clustered_bootstrap(dd.from_pandas(df, npartitions=3), "click", "p", groups="q", n_boot=128, rng=0,
                               progress=lines.append)
    units = [LINE.match(x).group(5) for x in lines]
    assert "tasks" in units and units[-1] == "resamples", lines


def test_a_bad_progress_is_refused_by_name_before_any_work():
    df = _log(100)
    for bad in ("yes", 1, 0.5, None, [print]):
        with pytest.raises(TypeError, match="`progress` must be True, False or a callable"):
            oe.clustered_bootstrap(df.click, df.p, n_boot=10, rng=0, progress=bad)
        with pytest.raises(ValueError, match="`progress`"):  # an InputTypeError is a ValueError too
            ondask.log_loss(dd.from_pandas(df, npartitions=2), "click", "p", progress=bad)
    oe.clustered_bootstrap(df.click, df.p, n_boot=10, rng=0, progress=np.False_)


def test_a_step_is_a_tenth_of_a_pass_and_the_last_line_is_always_printed():
    lines = []
    with _progress.reporting(lines.append, "x.y"):
        c = _progress.counter(7, "resamples")
        for _ in range(7):
            c.advance()
    assert [LINE.match(x).group(3) for x in lines] == ["1", "2", "3", "4", "5", "6", "7"]
    lines.clear()
    with _progress.reporting(lines.append, "x.y"):
        c = _progress.counter(1000, "resamples")
        for _ in range(1000):
            c.advance()
    assert [LINE.match(x).group(3) for x in lines] == [f"{k:,}" for k in range(100, 1001, 100)]
    assert _progress.counter(10, "tasks").advance() is None  # no reporting call: a no-op


def test_the_row_bootstrap_reports_its_resamples_and_its_interval_does_not_change(capsys):
    df = _log(2000)
    quiet = oe.metrics.bootstrap_ci(oe.metrics.roc_auc_score, df.click, df.p, n_boot=300, rng=3)
    loud = oe.metrics.bootstrap_ci(oe.metrics.roc_auc_score, df.click, df.p, n_boot=300, rng=3, progress=True)
    lines = _lines(capsys.readouterr().err)
    assert 1 <= len(lines) <= _progress.LINES and all(LINE.match(x) for x in lines), lines
    assert lines[-1].startswith("metrics.bootstrap_ci: 300/300 resamples") and "left" not in lines[-1]
    assert quiet.replicates.tobytes() == loud.replicates.tobytes() and quiet.statistic == loud.statistic
