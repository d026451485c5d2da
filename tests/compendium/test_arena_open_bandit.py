"""The Open Bandit study's data and estimates (``studies/arena/open_bandit.py``).

The vendored files are the ones the data README lists (by SHA-256); the logs are the sample's shape; the
evaluation policies' probabilities are distributions; our estimates equal Open Bandit Pipeline's on the same
files (``data/real/open_bandit/obp_estimates.csv``, written by ``make peers-obd``); the reward model and the
replay against slow references written here.
"""

import hashlib
import re

import numpy as np
import pytest

from offline_eval_compendium.studies.arena import open_bandit as O


@pytest.fixture(scope="module")
def logs():
    return O.load()


@pytest.fixture(scope="module")
def est(logs):
    return O.estimates(logs, O.load_action_dist(), O.load_replay_draws())


def test_vendored_files_are_the_ones_the_readme_lists():
    readme = (O.DATA / "README.md").read_text()
    listed = dict((name, sha) for sha, name in re.findall(r"^\s+([0-9a-f]{64})  (\S+)$", readme, flags=re.M))
    assert set(listed) == {p.name for p in O.DATA.iterdir() if p.name != "README.md"}
    for name, sha in listed.items():
        assert hashlib.sha256((O.DATA / name).read_bytes()).hexdigest() == sha, name


def test_logs_are_the_sample(logs):
    sizes = logs.groupby(["policy", "campaign"]).size()
    assert sizes.to_dict() == {(p, c): 10_000 for p in ("bts", "random") for c in O.CAMPAIGNS}
    assert set(logs["position"].unique()) == {0, 1, 2} and set(logs["click"].unique()) <= {0, 1}
    assert ((logs["propensity_score"] > 0) & (logs["propensity_score"] <= 1)).all()
    items = {"all": 80, "men": 34, "women": 46}
    for c, n in items.items():
        rnd = logs[(logs["policy"] == "random") & (logs["campaign"] == c)]
        assert rnd["item_id"].max() < n
        np.testing.assert_allclose(rnd["propensity_score"], 1 / n, rtol=1e-12)  # uniform logging


def test_action_distributions_are_distributions():
    for (policy, campaign), d in O.load_action_dist().items():
        np.testing.assert_allclose(d.sum(axis=0), 1.0, rtol=1e-12, err_msg=f"{policy} {campaign}")
        assert (d >= 0).all()
        if policy == "random":
            np.testing.assert_allclose(d, 1 / d.shape[0], rtol=1e-12)


def test_agrees_with_open_bandit_pipeline_to_1e10(est):
    obp, _ = O.load_obp()
    v = O.against_obp(est, obp)
    assert len(v) == 2 * 3 * 4 + 3  # four estimators both ways, the replay from the random logs
    assert not v[["gap", "on_policy_gap", "relative_ee_gap"]].isna().any().any()
    assert v["gap"].max() <= O.OBP_RTOL
    assert v["on_policy_gap"].max() <= O.OBP_RTOL
    assert v["relative_ee_gap"].max() <= O.OBP_RTOL


def test_reward_model_against_a_slow_reference():
    rng = np.random.default_rng(3)
    for _ in range(5):
        n_items, n = int(rng.integers(2, 9)), int(rng.integers(20, 300))
        a, k, r = rng.integers(0, n_items, n), rng.integers(0, 3, n), rng.binomial(1, 0.3, n)
        got = O.reward_model(a, k, r, n_items=n_items, prior=7.0)
        for j in range(n_items):
            for p in range(3):
                rate = r[k == p].mean()
                cell = (a == j) & (k == p)
                assert got[j, p] == pytest.approx((r[cell].sum() + 7.0 * rate) / (cell.sum() + 7.0), rel=1e-12)


def test_replay_is_the_mean_click_of_the_matched_rows(logs, est):
    draws = O.load_replay_draws()
    for c in O.CAMPAIGNS:
        rnd = logs[(logs["policy"] == "random") & (logs["campaign"] == c)]
        shown = draws.loc[draws["campaign"] == c, "bts_item"].to_numpy()
        clicks = [r for item, s, r in zip(rnd["item_id"], shown, rnd["click"]) if item == s]
        row = est[(est["estimator"] == "replay") & (est["logging"] == "random") & (est["campaign"] == c)]
        assert row["value"].iloc[0] == pytest.approx(sum(clicks) / len(clicks), rel=1e-12)
        assert row["matched"].iloc[0] == len(clicks)


def test_replay_is_not_defined_on_bts_logs(est):
    rows = est[(est["estimator"] == "replay") & (est["logging"] == "bts")]
    assert len(rows) == 3 and rows["value"].isna().all()


def test_bootstrap_is_reproducible_and_brackets_the_truth(logs):
    dists, draws = O.load_action_dist(), O.load_replay_draws()
    a = O.bootstrap(logs, dists, draws, n_boot=10, rng=1)
    b = O.bootstrap(logs, dists, draws, n_boot=10, rng=1)
    assert a.equals(b)
    assert (a["truth_low"] <= a["truth_high"]).all() and (a["error_low"] <= a["error_high"]).all()


def test_add_claims_refuses_a_seed_block_by_name():
    from offline_eval_compendium.claims import Ledger

    ledger = Ledger("arena", "arena_open_bandit", claims=O.CLAIMS)
    with pytest.raises(ValueError, match="`block`"):
        O.add_claims(ledger, None, block="confirmation")
