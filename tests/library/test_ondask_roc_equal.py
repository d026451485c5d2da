"""``ondask.roc_curve`` equal to the in-memory ``roc_curve``, points and thresholds (issue 50, item 6)."""

import warnings

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")

from offline_eval import ondask  # noqa: E402
from offline_eval.metrics import roc_curve  # noqa: E402


@pytest.mark.parametrize("seed", range(12))
def test_points_and_thresholds_equal_in_memory_with_zero_weights(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    df = pd.DataFrame({"y": rng.integers(0, 2, n), "s": np.round(rng.random(n), int(rng.integers(1, 3))),
                       "w": rng.choice([0.0, 0.5, 1.0, 3.0], n)})
    df.loc[df.index[:2], "y"] = [0, 1]
    df.loc[df.index[:2], "w"] = 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = ondask.roc_curve(dd.from_pandas(df, npartitions=3), "y", "s", weight="w")
        want = roc_curve(df["y"].to_numpy(), df["s"].to_numpy(), sample_weight=df["w"].to_numpy())
    assert len(got) == 3
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_a_score_of_zero_weight_adds_no_point():
    df = pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.9, 0.5, 0.3], "w": [1.0, 1.0, 0.0, 1.0]})
    fpr, tpr, thr = ondask.roc_curve(dd.from_pandas(df, npartitions=2), "y", "s", weight="w")
    assert thr.tolist() == [np.inf, 0.9, 0.3, 0.1] and len(fpr) == len(tpr) == 4
