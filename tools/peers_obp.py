"""Open Bandit Pipeline's estimates on fixed logs, for the library's counterfactual estimators to match.

``make peers-obp`` (never part of ``make reproduce``): run by OBP's own environment
(``build/peers-obp-venv``, pins in ``tools/peers-obp-requirements.txt``; OBP needs PyTorch, which the
compendium never installs).  Draws ``N_CASES`` random logs (stochastic logging and target policies over a
few actions, a reward model), runs ``obp.ope.InverseProbabilityWeighting`` (plain and clipped),
``SelfNormalizedInverseProbabilityWeighting`` and ``DoublyRobust`` on each, and writes

- ``data/peers/open_bandit_pipeline/logs.csv``: per case and row the reward, the logging and target
  propensities of the logged action, and the reward model's value of the logged action and of the target
  policy (what :mod:`offline_eval.counterfactual` takes);
- ``data/peers/open_bandit_pipeline/estimates.csv``: per case and estimator, OBP's policy value;
- ``data/peers/open_bandit_pipeline/run.json``: OBP's version and the parameters.

Floats are written with ``repr`` (17 significant digits: the exact binary64 value), so the library's test
(``tests/library/test_counterfactual.py``) feeds it the very numbers OBP saw.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "data" / "peers" / "open_bandit_pipeline"
N_CASES = 12
CLIP = 3.0


def draw_log(rng, n, n_actions):
    """Contexts' logging and target policies, a logged action, its reward and a reward model."""
    logging = rng.dirichlet(np.ones(n_actions), size=n) * 0.8 + 0.2 / n_actions
    target = rng.dirichlet(np.full(n_actions, 0.4), size=n)
    action = np.array([rng.choice(n_actions, p=row) for row in logging])
    rows = np.arange(n)
    reward = rng.binomial(1, 0.1 + 0.8 * rng.uniform(size=n)).astype(float)
    q_hat = rng.uniform(0.0, 1.0, size=(n, n_actions))
    return dict(reward=reward, action=action, logging=logging, target=target, q_hat=q_hat,
                logging_pscore=logging[rows, action], target_pscore=target[rows, action],
                reward_hat=q_hat[rows, action], target_reward_hat=(target * q_hat).sum(axis=1))


def main() -> None:
    import obp
    from obp.ope import DoublyRobust, InverseProbabilityWeighting, SelfNormalizedInverseProbabilityWeighting

    rng = np.random.default_rng(20211)
    logs, estimates = [], []
    for case in range(N_CASES):
        n, n_actions = int(rng.integers(5, 400)), int(rng.integers(2, 6))
        d = draw_log(rng, n, n_actions)
        action_dist = d["target"][:, :, None]  # one slot (len_list = 1)
        common = dict(reward=d["reward"], action=d["action"], pscore=d["logging_pscore"], action_dist=action_dist,
                      position=np.zeros(n, dtype=int))
        values = {
            "ips": InverseProbabilityWeighting().estimate_policy_value(**common),
            "ips_clipped": InverseProbabilityWeighting(lambda_=CLIP).estimate_policy_value(**common),
            "snips": SelfNormalizedInverseProbabilityWeighting().estimate_policy_value(**common),
            "dr": DoublyRobust().estimate_policy_value(estimated_rewards_by_reg_model=d["q_hat"][:, :, None],
                                                       **common),
        }
        estimates += [dict(case=case, estimator=k, clip=CLIP if k == "ips_clipped" else "", value=repr(float(v)))
                      for k, v in values.items()]
        logs.append(pd.DataFrame({"case": case, "row": np.arange(n),
                                  **{k: [repr(float(x)) for x in d[k]] for k in
                                     ("reward", "logging_pscore", "target_pscore", "reward_hat",
                                      "target_reward_hat")}}))
    OUT.mkdir(parents=True, exist_ok=True)
    pd.concat(logs).to_csv(OUT / "logs.csv", index=False)
    pd.DataFrame(estimates).to_csv(OUT / "estimates.csv", index=False)
    (OUT / "run.json").write_text(json.dumps({"obp": obp.__version__, "cases": N_CASES, "clip": CLIP,
                                              "seed": 20211}, indent=2) + "\n")
    print(f"{N_CASES} logs and {len(estimates)} OBP estimates written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
