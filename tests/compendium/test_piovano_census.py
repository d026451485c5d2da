"""The census study's data, chunks, offline sets and peer outputs (``studies/piovano/census_shift.py``).

The vendored files are the ones the data README lists (by SHA-256); the chunks and offline sets are the
declared rules, checked against slow references written here; CBPE's per-class values, derived from its
estimated confusion matrix, agree with the metrics CBPE itself reported.
"""

import hashlib
import importlib.util
import re

import numpy as np
import pandas as pd
import pytest

from offline_eval_compendium.paths import PROJ_ROOT
from offline_eval_compendium.studies.piovano import _census_data as D
from offline_eval_compendium.studies.piovano import census_shift as P


@pytest.fixture(scope="module")
def data():
    return P.load()


def test_vendored_files_are_the_ones_the_readme_lists():
    readme = (P.DATA / "README.md").read_text()
    listed = dict((name, sha) for sha, name in re.findall(r"^\s+([0-9a-f]{64})  (\S+)$", readme, flags=re.M))
    assert set(listed) == {p.name for p in P.DATA.iterdir() if p.name != "README.md"}
    for name, sha in listed.items():
        assert hashlib.sha256((P.DATA / name).read_bytes()).hexdigest() == sha, name


def test_vendored_table_has_every_person_once(data):
    assert list(data.columns) == list(D.COLUMNS)
    assert data.groupby("year").size().to_dict() == {2015: 68785, 2016: 69126, 2017: 69635, 2018: 70131}
    assert data["id"].is_unique
    assert set(data[D.LABEL].unique()) <= {0, 1} and set(data[D.PREDICTION].unique()) <= {0, 1}
    # the deployed model's prediction is its probability thresholded at 0.5
    assert ((data[D.PROBABILITY] >= 0.5).astype(int) == data[D.PREDICTION]).mean() > 0.999


@pytest.mark.parametrize("n, size", [(1, 5), (4, 5), (5, 5), (11, 5), (69126, 5000), (70131, 5000), (9999, 100)])
def test_chunk_index_against_a_slow_reference(n, size):
    idx = D.chunk_index(n, size)
    k = max(1, n // size)
    counts = np.bincount(idx, minlength=k)
    assert len(counts) == k and counts.max() - counts.min() <= 1 and counts.sum() == n
    assert np.all(np.diff(idx) >= 0)  # consecutive rows
    assert [r * k // n for r in range(n)] == idx.tolist()


def test_chunk_size_must_be_a_positive_integer():
    with pytest.raises(ValueError, match="`chunk_size` must be a positive integer"):
        D.chunk_index(10, 0)


def test_offline_sets_follow_the_declared_rule(data):
    y15 = data[data["year"] == 2015].reset_index(drop=True)
    assert D.offline_mask(y15, "representative").all()
    mask = D.offline_mask(y15, "nonrepresentative")
    slow = [(25 <= a < 65) or i % 4 == 0 for a, i in zip(y15["AGEP"], y15["id"])]
    assert mask.tolist() == slow
    with pytest.raises(ValueError, match="`which` must be one of"):
        D.offline_mask(y15, "other")


@pytest.mark.parametrize("which", D.OFFLINE_SETS)
def test_cbpe_outputs_cover_our_periods_and_agree_with_themselves(data, which):
    cbpe, run = P.load_cbpe(which)
    assert run["version"] == "0.13.1" and run["chunk_size"] == D.CHUNK_SIZE
    live = D.live_periods(data[data["year"] != 2015])
    ours = {**{str(y): int(n) for y, n in live.groupby("year").size().items()},
            **live.groupby("chunk").size().to_dict()}
    assert dict(zip(cbpe["period"], cbpe["n"])) == ours
    tp, fp, fn, tn = (cbpe[k] for k in ("true_positive", "false_positive", "false_negative", "true_negative"))
    np.testing.assert_allclose(tp + fp + fn + tn, cbpe["n"], rtol=1e-8)
    np.testing.assert_allclose((tp + tn) / cbpe["n"], cbpe["accuracy"], atol=1e-8)
    np.testing.assert_allclose(tp / (tp + fp), cbpe["precision"], atol=1e-8)
    np.testing.assert_allclose(tp / (tp + fn), cbpe["recall"], atol=1e-8)
    np.testing.assert_allclose(tn / (tn + fp), cbpe["specificity"], atol=1e-8)


def test_a_chunk_size_without_peer_outputs_is_an_error_naming_it(data):
    c = data[D.PREDICTION].to_numpy(np.int64)
    with pytest.raises(ValueError, match="committed peer run has chunks of 5000; got `chunk_size` 3000"):
        P.estimates(data, c, "representative", chunk_size=3000)


def test_estimates_realized_values_and_the_inddis_precision_identity(data):
    c, info = P.second_model(data, depth=2)
    # the second model sees the offline set alone: the non-representative sub-sample of 2015, not all of it
    y15 = data[data["year"] == D.OFFLINE_YEAR].reset_index(drop=True)
    assert info["train_rows"] == int(D.offline_mask(y15, "nonrepresentative").sum()) < 68785
    assert P.second_model(data, depth=2, which="representative")[1]["train_rows"] == 68785
    est = P.estimates(data, c, "nonrepresentative")
    years = est[(est["level"] == "year") & (est["metric"] == "accuracy") & (est["estimator"] == "offline")]
    for _, r in years.iterrows():  # realized accuracy by a direct count
        live = data[data["year"] == int(r["period"])]
        assert r["realized"] == pytest.approx((live[D.PREDICTION] == live[D.LABEL]).mean(), abs=1e-12)
    prec = est[est["metric"].str.startswith("precision") & est["estimator"].isin(["offline", "IndDis"])]
    wide = prec.pivot_table(index=["period", "metric"], columns="estimator", values="value")
    assert (wide["IndDis"] - wide["offline"]).abs().max() <= 1e-12
    np.testing.assert_allclose(est["error"], est["value"] - est["realized"])


def test_the_peer_script_cuts_the_data_with_the_same_rules():
    spec = importlib.util.spec_from_file_location("peers", PROJ_ROOT / "tools" / "peers.py")
    peers = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peers)
    rules = peers._rules()
    assert (rules.COLUMNS, rules.CHUNK_SIZE, rules.NONREPRESENTATIVE_RULE) == (D.COLUMNS, D.CHUNK_SIZE,
                                                                             D.NONREPRESENTATIVE_RULE)
    readme = (P.DATA / "README.md").read_text()
    for name, sha in peers.ORIGINALS.items():
        assert f"`{name}` | `{sha}`" in readme


def test_the_bootstrap_arithmetic_gives_the_estimators_of_the_library(data):
    # the whole-pipeline bootstrap's vectorised metrics, fed this run's offline counts and live chunks, equal the
    # library's online_adaptive_metrics per chunk (P.estimates) for the offline value, IndDis and JointDis
    for which in D.OFFLINE_SETS:
        c, _ = P.second_model(data, depth=3, which=which)
        ch = P.estimates(data, c, which).query("level == 'chunk'")
        y15 = (data["year"] == D.OFFLINE_YEAR).to_numpy()
        off = np.flatnonzero(y15)[D.offline_mask(data[y15].reset_index(drop=True), which)]
        b, g = data[D.PREDICTION].to_numpy(np.int64), data[D.LABEL].to_numpy(np.int64)
        m_o = np.bincount(b[off] * 4 + c[off] * 2 + g[off], minlength=8).reshape(2, 2, 2).astype(float)
        rows = np.flatnonzero(~y15)
        chunks, inv = np.unique(D.live_periods(data[~y15])["chunk"].to_numpy(), return_inverse=True)
        live_bc = np.bincount(inv.ravel() * 4 + b[rows] * 2 + c[rows], minlength=4 * len(chunks)).reshape(-1, 2, 2)
        got = P._estimator_metrics(m_o, live_bc.astype(float))
        for k, e in enumerate(("offline", "IndDis", "JointDis")):
            want = ch[ch["estimator"] == e].pivot(index="period", columns="metric", values="value")
            np.testing.assert_allclose(got[:, k], want.loc[list(chunks), list(P.METRICS)].to_numpy(), rtol=0, atol=1e-12)


def test_the_weighted_refit_is_the_fit_on_the_drawn_persons(data):
    # one resample's tree, fitted on distinct profiles weighted by draws, predicts as the tree fitted on the
    # drawn persons themselves (each row repeated as often as drawn)
    from sklearn.tree import DecisionTreeClassifier

    y15 = data[data["year"] == D.OFFLINE_YEAR].reset_index(drop=True)
    x = y15[list(D.FEATURES)].to_numpy(np.float64)[:3000]
    y = y15[D.LABEL].to_numpy()[:3000]
    drawn = np.bincount(np.random.default_rng(5).integers(0, 3000, 3000), minlength=3000)
    rows = np.repeat(np.arange(3000), drawn)
    by_rows = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x[rows], y[rows])
    by_weight = DecisionTreeClassifier(max_depth=3, random_state=0).fit(x[drawn > 0], y[drawn > 0],
                                                                          sample_weight=drawn[drawn > 0])
    np.testing.assert_array_equal(by_rows.predict(x), by_weight.predict(x))


def test_pipeline_bootstrap_moves_what_each_stage_moves(data):
    boot = P.pipeline_bootstrap(data, "nonrepresentative", depth=2, n_boot=6, rng=3)
    assert boot.abs_error.shape == (6, len(boot.chunks), len(P.ESTIMATORS), len(P.METRICS))
    np.testing.assert_allclose(boot.chunk_weight.sum(axis=1), 1.0)
    # the chunk draw is within each year: every resample keeps each year's number of chunks
    years = np.array([int(c[:4]) for c in boot.chunks])
    for y in D.LIVE_YEARS:
        np.testing.assert_allclose(boot.chunk_weight[:, years == y].sum(axis=1), (years == y).mean())
    # the offline draw moves the offline value; CBPE's committed estimates are the same in every resample
    off = boot.abs_error[:, :, P.ESTIMATORS.index("offline")]
    assert np.ptp(off, axis=0).max() > 0
    assert np.ptp(boot.abs_error[:, :, P.ESTIMATORS.index("CBPE")], axis=0).max() == 0
    again = P.pipeline_bootstrap(data, "nonrepresentative", depth=2, n_boot=6, rng=3)
    np.testing.assert_array_equal(boot.abs_error, again.abs_error)
    with pytest.raises(ValueError, match="`n_boot`"):
        P.pipeline_bootstrap(data, "nonrepresentative", n_boot=0)


def test_bootstrap_errors_value_is_the_runs_and_the_interval_the_resamples():
    chunks = tuple(f"p{i}" for i in range(10))
    rows = [dict(offline_set="s", level="chunk", period=p, metric=m, estimator=e, error=(i % 3 - 1) * 0.01 * (k + 1))
            for i, p in enumerate(chunks) for m in P.METRICS for k, e in enumerate(P.ESTIMATORS)]
    gen = np.random.default_rng(1)
    abs_error = gen.uniform(0, 0.02, (200, 10, len(P.ESTIMATORS), len(P.METRICS)))
    weight = np.full((200, 10), 0.1)
    boot = P.PipelineBootstrap("s", chunks, abs_error, weight, 200)
    err = P.bootstrap_errors(pd.DataFrame(rows), {"s": boot})
    allm = err[err["metric"] == "all"].set_index("estimator")
    # |error| of the offline estimator is 0.01 on the 7 chunks with i % 3 != 1, 0 on the other 3
    assert allm.loc["offline", "mean_abs_error"] == pytest.approx(0.007)
    reps = abs_error[:, :, 0].mean(axis=2).mean(axis=1)
    assert allm.loc["offline", "low"] == pytest.approx(np.percentile(reps, 2.5))
    assert allm.loc["offline", "high"] == pytest.approx(np.percentile(reps, 97.5))


def test_add_claims_refuses_a_seed_block():
    # the census study has no seed blocks: a block would be a mistake, named before the run is read
    from offline_eval_compendium.claims import Ledger

    ledger = Ledger("piovano", "piovano_census_shift", claims=P.CLAIMS)
    with pytest.raises(ValueError, match="`block` must be None"):
        P.add_claims(ledger, None, block="confirmation")
