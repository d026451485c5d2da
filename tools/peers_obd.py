"""Vendor the Open Bandit Dataset's small sample and Open Bandit Pipeline's estimates on it: ``make peers-obd``.

Never part of ``make reproduce``.  Run by OBP's own environment (``build/peers-obp-venv``, pins in
``tools/peers-obp-requirements.txt``, the same as ``make peers-obp``):

1. ``pip download obp==0.5.7 --no-binary :all:`` (the source distribution, into ``build/peers/``), its SHA-256
   checked, and the sample's twelve files (``obp/dataset/obd/{random,bts}/{all,men,women}/``) and the
   Thompson-sampling prior (``obp/policy/conf/prior_bts.yaml``) read from it, each checked against
   :data:`ORIGINALS`;
2. each (policy, campaign) log loaded by OBP's own loader (``obp.dataset.OpenBanditDataset.load_raw_data``:
   sorted by timestamp, positions 0-2; its user-feature encoding, unused, skipped) and written, the columns the study uses, to ``logs.csv.gz``;
3. each evaluation policy's action distribution as OBP computes it (``BernoulliTS(is_zozotown_prior=True)``
   and ``Random``, ``compute_batch_action_dist``, seed :data:`SEED`, :data:`N_SIM` simulated rankings) to
   ``action_dist.csv``; one ranking drawn by the same Thompson sampler per row of the random logs (seed
   :data:`REPLAY_SEED`), the item it shows at the row's position, to ``replay_draws.csv.gz``;
4. OBP's estimates of each policy's click rate on the other policy's logs (IPW, SNIPW, DM and DR with the
   reward model :func:`reward_model`, the replay method where the logging policy is uniform), its on-policy
   click rates (``calc_on_policy_policy_value_estimate``) and relative errors (``relative-ee``) to
   ``obp_estimates.csv``; versions and parameters to ``run.json``.

Floats are written with ``repr`` (the exact binary64 value) and gzip without a time stamp, so a second run
gives the same bytes and the study's test feeds its estimators the numbers OBP saw.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import subprocess
import sys
import tarfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "real" / "open_bandit"
WORK = ROOT / "build" / "peers"
OBP = "0.5.7"
SDIST = f"obp-{OBP}.tar.gz"
SDIST_SHA256 = "3060d67fedfcfadf1e7a6f2608987f74412b5eb74d2c567edeb147595c68f2a0"
POLICIES = ("random", "bts")
CAMPAIGNS = ("all", "men", "women")
#: Seeds and sizes of the simulations OBP runs for the evaluation policies (declared before the run).
SEED, REPLAY_SEED, N_SIM = 12345, 20210, 100_000
#: The reward model's shrinkage: a cell (item, position) counts as this many impressions at the position's mean.
PRIOR_IMPRESSIONS = 100.0
ORIGINALS = {  # the files inside the sdist (under obp-0.5.7/) and their SHA-256 (also in the data README)
    "obp/dataset/obd/bts/all/all.csv":
        "0ad874e4dbf6902f0845dd478ad8dde5ef6903583d3ffaace78411bdad064106",
    "obp/dataset/obd/bts/all/item_context.csv":
        "5d4359ba1cfa3ae88f0f1bae66bd633859fe6323817183632ee57b83539d9153",
    "obp/dataset/obd/bts/men/item_context.csv":
        "3b411ed6b0471316321a6b93f4f756bb25888eac6218cd71d0b603d41d85732d",
    "obp/dataset/obd/bts/men/men.csv":
        "db6d1f7ed2d591ba521533e45286d4c1fba7fe57a8ad2e80342210335f43c527",
    "obp/dataset/obd/bts/women/item_context.csv":
        "a56295bad066a558eb783055afd9279f5f4e209a4776eafc22151c53f0ac89d4",
    "obp/dataset/obd/bts/women/women.csv":
        "e5d1b49a39b608585a2f3014a3f54970430cd37a495c1b73fceb85cdf428a5b8",
    "obp/dataset/obd/random/all/all.csv":
        "7168295b6e0a9eabcf3392320a5dd434e542b68e705d5cd9491499af589812f1",
    "obp/dataset/obd/random/all/item_context.csv":
        "eba04cc23d5f130a93ff174c5392986882b94c3839433cb8143870eaa6221358",
    "obp/dataset/obd/random/men/item_context.csv":
        "6d855c2b7e917d0448d71bbe62c023147495882c0fdc8c41e86fef86abf9fe09",
    "obp/dataset/obd/random/men/men.csv":
        "ede6d08c6877f99cd3770f7d09e26c738e6aa6de4445ccccfb1356ba5d06b1eb",
    "obp/dataset/obd/random/women/item_context.csv":
        "b1ca4905f97703d196004f2ad4552c1e90c2afad8b50688d333b0d2dc0b33147",
    "obp/dataset/obd/random/women/women.csv":
        "e65f3bd3beb17664fa69cc129bf7bf852a775f8ffa630506e505fc905315bb34",
    "obp/policy/conf/prior_bts.yaml":
        "81a54fbdc184021ccc62ab97de81ec35461c032e3d7f99ccaa0a9745f732d251",
}


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_sdist() -> Path:
    WORK.mkdir(parents=True, exist_ok=True)
    path = WORK / SDIST
    if not path.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", f"obp=={OBP}", "--no-deps", "--no-binary", ":all:",
                        "--ignore-requires-python", "--disable-pip-version-check", "-d", str(WORK)], check=True)
    got = sha256(path.read_bytes())
    if got != SDIST_SHA256:
        raise SystemExit(f"{path}: SHA-256 {got}, expected {SDIST_SHA256}")
    return path


def extract(path: Path) -> Path:
    """The sample and the prior, from the sdist into build/peers/obp-0.5.7/, each checked by SHA-256."""
    dest = WORK / f"obp-{OBP}"
    found = {}
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            name = m.name.split("/", 1)[1] if "/" in m.name else ""
            if m.isfile() and (name.startswith("obp/dataset/obd/") or name == "obp/policy/conf/prior_bts.yaml"):
                data = tar.extractfile(m).read()
                found[name] = sha256(data)
                (dest / name).parent.mkdir(parents=True, exist_ok=True)
                (dest / name).write_bytes(data)
    if found != ORIGINALS:
        bad = sorted(set(found.items()) ^ set(ORIGINALS.items()))
        raise SystemExit(f"the sdist's files differ from ORIGINALS: {bad}")
    return dest


def reward_model(logs: pd.DataFrame, n_actions: int, len_list: int) -> np.ndarray:
    """q_hat[a, k]: the click rate of item ``a`` at position ``k`` in ``logs``, shrunk towards the position's
    click rate by :data:`PRIOR_IMPRESSIONS` impressions (a context-free model: both policies are)."""
    a, k, r = (logs[c].to_numpy() for c in ("item_id", "position", "click"))
    n = np.zeros((n_actions, len_list))
    c = np.zeros((n_actions, len_list))
    np.add.at(n, (a, k), 1.0)
    np.add.at(c, (a, k), r.astype(float))
    pos_rate = c.sum(axis=0) / n.sum(axis=0)
    return (c + PRIOR_IMPRESSIONS * pos_rate) / (n + PRIOR_IMPRESSIONS)


def gz_csv(frame: pd.DataFrame, path: Path) -> None:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as g:
        g.write(frame.to_csv(index=False, lineterminator="\n").encode())
    path.write_bytes(buf.getvalue())


def main() -> None:
    import obp
    from obp.dataset import OpenBanditDataset
    from obp.ope import (DirectMethod, DoublyRobust, InverseProbabilityWeighting, ReplayMethod,
                         SelfNormalizedInverseProbabilityWeighting)
    from obp.policy import BernoulliTS, Random

    class Sample(OpenBanditDataset):
        """OBP's loader (``load_raw_data``: sorted by timestamp, positions 0-2) without its feature engineering,
        which the estimates do not use and which fails on pandas 3 (``DataFrame.drop(columns=..., axis=1)``);
        OBP's docstring invites overriding ``pre_process``."""

        def pre_process(self) -> None:
            self.context = np.zeros((len(self.data), 1))
            self.action_context = np.zeros((len(self.item_context), 1))

    src = extract(fetch_sdist())
    obd = src / "obp" / "dataset" / "obd"
    data, logs = {}, []
    for policy in POLICIES:
        for campaign in CAMPAIGNS:
            ds = Sample(behavior_policy=policy, campaign=campaign, data_path=obd)
            fb = ds.obtain_batch_bandit_feedback()
            data[policy, campaign] = (ds, fb)
            logs.append(pd.DataFrame({"policy": policy, "campaign": campaign, "row": ds.data.index.to_numpy(),
                                      "item_id": fb["action"], "position": fb["position"], "click": fb["reward"],
                                      "propensity_score": [repr(float(p)) for p in fb["pscore"]]}))
    OUT.mkdir(parents=True, exist_ok=True)
    gz_csv(pd.concat(logs, ignore_index=True), OUT / "logs.csv.gz")

    dists, draws, estimates = [], [], []
    for campaign in CAMPAIGNS:
        n_actions, len_list = data["random", campaign][0].n_actions, data["random", campaign][0].len_list
        policies = {
            "bts": BernoulliTS(n_actions=n_actions, len_list=len_list, is_zozotown_prior=True, campaign=campaign,
                               random_state=SEED).compute_batch_action_dist(n_rounds=1, n_sim=N_SIM)[0],
            "random": Random(n_actions=n_actions, len_list=len_list).compute_batch_action_dist(n_rounds=1)[0],
        }
        for name, dist in policies.items():
            dists += [dict(evaluation_policy=name, campaign=campaign, item_id=a, position=k,
                           probability=repr(float(dist[a, k]))) for a in range(n_actions) for k in range(len_list)]
        # the replay: one ranking of the Thompson sampler per row of the random logs
        fb_random = data["random", campaign][1]
        sampler = BernoulliTS(n_actions=n_actions, len_list=len_list, is_zozotown_prior=True, campaign=campaign,
                              random_state=REPLAY_SEED)
        rankings = np.array([sampler.select_action() for _ in fb_random["position"]])
        shown = rankings[np.arange(len(rankings)), fb_random["position"]]
        draws.append(pd.DataFrame({"campaign": campaign, "row": data["random", campaign][0].data.index.to_numpy(),
                                   "bts_item": shown}))
        for logging, target in (("random", "bts"), ("bts", "random")):
            ds, fb = data[logging, campaign]
            n = fb["n_rounds"]
            action_dist = np.tile(policies[target], (n, 1, 1))
            frame = pd.DataFrame({"item_id": fb["action"], "position": fb["position"], "click": fb["reward"]})
            q_hat = np.tile(reward_model(frame, n_actions, len_list), (n, 1, 1))
            common = dict(reward=fb["reward"], action=fb["action"], position=fb["position"], action_dist=action_dist)
            values = {
                "ips": InverseProbabilityWeighting().estimate_policy_value(pscore=fb["pscore"], **common),
                "snips": SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(pscore=fb["pscore"],
                                                                                          **common),
                "dm": DirectMethod().estimate_policy_value(action_dist=action_dist, position=fb["position"],
                                                           estimated_rewards_by_reg_model=q_hat),
                "dr": DoublyRobust().estimate_policy_value(pscore=fb["pscore"], estimated_rewards_by_reg_model=q_hat,
                                                           **common),
            }
            if logging == "random":  # the replay needs uniform logging: a deterministic target per row, drawn
                one_hot = np.zeros_like(action_dist)
                for k in range(len_list):  # the whole drawn ranking: OBP checks a distribution per position
                    one_hot[np.arange(n), rankings[:, k], k] = 1.0
                values["replay"] = ReplayMethod().estimate_policy_value(
                    reward=fb["reward"], action=fb["action"], position=fb["position"], action_dist=one_hot)
            truth = Sample.calc_on_policy_policy_value_estimate(behavior_policy=target, campaign=campaign,
                                                                            data_path=obd)
            for est, v in values.items():
                estimates.append(dict(logging=logging, evaluation=target, campaign=campaign, estimator=est,
                                      value=repr(float(v)), on_policy=repr(float(truth)),
                                      relative_ee=repr(float(abs((v - truth) / truth)))))
    pd.DataFrame(dists).to_csv(OUT / "action_dist.csv", index=False, lineterminator="\n")
    gz_csv(pd.concat(draws, ignore_index=True), OUT / "replay_draws.csv.gz")
    pd.DataFrame(estimates).to_csv(OUT / "obp_estimates.csv", index=False, lineterminator="\n")
    (OUT / "run.json").write_text(json.dumps({
        "obp": obp.__version__, "sdist": SDIST, "sdist_sha256": SDIST_SHA256, "action_dist_seed": SEED,
        "n_sim": N_SIM, "replay_seed": REPLAY_SEED, "reward_model_prior_impressions": PRIOR_IMPRESSIONS,
        "numpy": np.__version__, "pandas": pd.__version__}, indent=2, sort_keys=True) + "\n")
    print(f"the sample, action distributions, replay draws and {len(estimates)} OBP estimates written to "
          f"{OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
