"""The estimate rule: statuses from an effect's interval beside its control, declared effects, the seeds a
status comes from, and the registry of confirmations (a declaration changed after its confirmation is
exploratory)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from offline_eval_compendium.claims import (COLUMNS, Claim, Effect, Ledger, SeedBlocks, declare, estimate_verdict,
                                            problems)
from offline_eval_compendium.claims import registry
from offline_eval_compendium.claims.estimates import Interval, seeds_to_decide

E = Effect("gap", ">", 0.1, "stated for the test")


def _s(values, start=0):
    return pd.Series(np.asarray(values, float), index=range(start, start + len(values)))


def _slow_verdict(x, c, delta):
    """The rule written out from the issue's words, on unrounded t-intervals (a reference for the fast one)."""
    from scipy.stats import t

    def ci(v):
        m, h = np.mean(v), t.ppf(0.975, len(v) - 1) * np.std(v, ddof=1) / np.sqrt(len(v))
        return m - h, m + h

    lo, hi = ci(x)
    dlo, dhi = ci(x - c)
    if hi < 0 or (-delta < lo and hi < delta):
        return "differs"
    if lo > 0 and dlo > 0:
        return "holds"
    if lo > 0 and (-delta < dlo and dhi < delta or dhi < 0):
        return "not tested"
    return "inconclusive"


def test_the_rule_agrees_with_its_words_on_random_sweeps():
    rng = np.random.default_rng(7)
    seen = set()
    for _ in range(3000):
        n = int(rng.integers(3, 40))
        x = rng.normal(rng.normal(0, 0.2), rng.uniform(0.001, 0.5), n)
        c = x - rng.normal(rng.normal(0, 0.2), rng.uniform(0.001, 0.5), n)
        fast = estimate_verdict(_s(x), _s(c), effect=E).status
        slow = _slow_verdict(x, c, 0.1)
        if fast != slow:  # only where a bound sits within display rounding of a boundary
            iv = [Interval.of(x), Interval.of(x - c)]
            assert min(abs(b - e) for i in iv for b in (i.low, i.high) for e in (0, 0.1, -0.1)) < 1e-5, (n, fast, slow)
        seen.add(fast)
    assert seen == {"holds", "differs", "not tested", "inconclusive"}


def test_no_share_of_seeds_decides():
    # 18 of 20 seeds positive, but a mean whose interval holds 0: inconclusive, never "holds in 90% of seeds"
    x = _s([0.01] * 18 + [-0.5, -0.4])
    v = estimate_verdict(x, x * 0, effect=E)
    assert v.status == "inconclusive" and v.seeds_needed > 20
    assert "seeds would be needed" in v.seeds_text()


def test_printed_value_band():
    e = Effect("delta", "=", 0.5, "half the printed magnitude", relative=True)
    x = _s(np.linspace(-0.11, -0.09, 20))
    assert estimate_verdict(x, printed=-0.1, effect=e).status == "within-tolerance"
    assert estimate_verdict(x + 0.2, printed=-0.1, effect=e).status == "differs"
    assert estimate_verdict(_s(np.linspace(-0.4, 0.2, 20)), printed=-0.1, effect=e).status == "inconclusive"
    # the control predicts the printed value as well: nothing discriminates
    assert estimate_verdict(x, x + 0.001, printed=-0.1, effect=e).status == "not tested"


def test_seeds_to_decide_shrinks_with_a_clearer_effect():
    a = seeds_to_decide(Interval(0.05, -0.01, 0.11, 0.13, 20), -0.1, 0.1, sign=True)
    b = seeds_to_decide(Interval(0.08, 0.02, 0.14, 0.13, 20), -0.1, 0.1, sign=True)
    assert a > b > 0


def _ledger(effect=E, control="the mechanism off"):
    table = declare(Claim("yi-x", "T1", "'x'", "claim", "the gap is positive", world="synthetic: w",
                          control=control, evidence=("yi/t.csv",), effect=effect))
    return Ledger("yi", "nb_test", claims=table, seeds=SeedBlocks("nb_test", 0, 5))


def test_a_claim_without_its_effect_is_refused():
    led = _ledger(effect=None)
    with pytest.raises(ValueError, match="declares no effect"):
        led.block("development").estimate("yi-x", world=_s([1] * 5), control=_s([0] * 5))


def test_effect_delta_must_be_declared_positive():
    with pytest.raises(ValueError, match="`delta`"):
        Effect("gap", ">", 0.0, "none")
    with pytest.raises(ValueError, match="`reason`"):
        Effect("gap", ">", 0.1, "")


def test_a_status_from_other_seeds_is_refused():
    led = _ledger()
    dev = led.block("development")
    dev.estimate("yi-x", world=_s([1, 2, 1, 2, 1]), control=_s([0] * 5))
    conf = led.block("confirmation")
    with pytest.raises(ValueError, match="a status comes only from the block it names"):
        conf.estimate("yi-x", world=_s([1, 2, 1, 2, 1]), control=_s([0] * 5))  # the development seeds again
    with pytest.raises(TypeError, match="carry the seeds"):
        conf.estimate("yi-x", world=[1, 2, 1, 2, 1], control=[0] * 5)


def _filled(led):
    first = led.seeds.confirmation
    led.block("development").estimate("yi-x", world=_s([1, 2, 1, 2, 1]), control=_s([0] * 5))
    led.block("confirmation").estimate("yi-x", world=_s([1, 2, 1, 2, 1], first), control=_s([0] * 5, first))
    return led.frame().iloc[0]


def test_a_declaration_changed_after_its_confirmation_is_exploratory(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "REGISTRY_DIR", tmp_path)
    led = _ledger()
    row = _filled(led)
    assert row["status"] == "holds" and problems(led.frame()) == []
    led.declarations().to_csv(registry.path_of("nb_test", tmp_path), index=False)
    assert _filled(_ledger())["status"] == "holds"  # the same declaration: confirmed
    changed = _filled(_ledger(effect=Effect("gap", ">", 0.2, "a wider delta, chosen later")))
    assert changed["status"] == "exploratory" and "after the confirmation" in changed["revised"]
    renewed = _ledger(effect=Effect("gap", ">", 0.2, "a wider delta, chosen later"))
    renewed.seeds = renewed.seeds.renewed("a new delta")
    for b in renewed._blocks.values():
        b.seeds = renewed.seeds
    row = _filled(renewed)
    assert row["status"] == "holds" and "superseded" in row["revised"]


def test_register_appends_and_never_rewrites(tmp_path):
    figs, reg = tmp_path / "figures", tmp_path / "reg"
    (figs / "yi" / "declarations").mkdir(parents=True)
    decl = figs / "yi" / "declarations" / "nb.csv"
    decl.write_text("claim_id,block,digest,status,value\nc,1-2 (2 seeds),aa,holds,v\n")
    assert registry.unregistered(figs, reg) == ["nb: c on block 1-2 (2 seeds)"]
    assert len(registry.register(figs, reg)) == 1 and registry.unregistered(figs, reg) == []
    decl.write_text("claim_id,block,digest,status,value\nc,1-2 (2 seeds),bb,differs,w\n")
    assert registry.register(figs, reg) == []
    assert registry.load("nb", reg)["digest"].tolist() == ["aa"]


def test_every_confirmation_run_is_on_record():
    assert registry.unregistered() == [], "run `make register` and commit data/confirmations/"


def test_a_printed_value_claim_without_control_is_at_best_not_tested():
    e = Effect("log ratio", "=", 0.29, "the declared band")
    x = _s(np.linspace(-0.05, 0.05, 20))
    assert estimate_verdict(x, printed=0.0, effect=e, claim=True).status == "not tested"
    assert estimate_verdict(x, x - 1, printed=0.0, effect=e, claim=True).status == "holds"
    assert estimate_verdict(x, printed=0.0, effect=e).status == "within-tolerance"  # a prediction of a printed cell


def test_each_row_states_what_its_seeds_can_detect():
    x = _s(np.linspace(0.5, 1.5, 20))
    v = estimate_verdict(x, x * 0, effect=E)
    assert "detectable at 80% power" in v.text() and v.detectable > 0
    assert estimate_verdict(x, x * 0 + 0.5, effect=E).detectable == v.detectable  # the paired difference's spread


def test_the_audit_refuses_a_status_from_a_share_of_seeds():
    # a row as the share-of-seeds rule wrote it: a pass count, a threshold criterion, its blocks beside it
    row = dict.fromkeys(COLUMNS, "")
    row.update(paper="yi", claim_id="yi-x", kind="claim", world="synthetic: w", source="T1", statement="'x'",
               reproduced_value="18/20 seeds (90%, 95% CI 70-97%)", criterion="holds on most seeds; holds in >= 80% "
               "of 20 seeds", status="holds", control="0/20 seeds (0%, 95% CI 0-16%), mechanism off: fails",
               evidence="yi/t.csv", seeds="0-19 (20 seeds)", confirmation="1000000-1000019 (20 seeds)",
               development="20/20 seeds (100%, 95% CI 84-100%) -> holds")
    shares = pd.DataFrame([row, {**row, "claim_id": "yi-p", "kind": "prediction", "status": "within-tolerance"}],
                          columns=COLUMNS)
    refused = [p.split(":")[0] for p in problems(shares) if "never from a share of seeds" in p]
    assert refused == ["yi/yi-x", "yi/yi-p"]
    # a row changed after its confirmation is counted apart, whatever rule wrote it
    assert not any("never from a share of seeds" in p for p in problems(shares.assign(
        status="exploratory", revised="after the confirmation: an earlier criterion")))
    assert not any("never from a share of seeds" in p for p in problems(_ledger_filled()))


def _ledger_filled():
    led = _ledger()
    _filled(led)
    return led.frame()


def test_a_real_data_claim_needs_equivalence_not_an_interval_holding_zero():
    e = Effect("relative error", "=", 0.1, "stated for the test")
    table = declare(Claim("arena-x", "Abstract", "'x'", "claim", "agrees", world="real: logs",
                          control="no propensities", evidence=("arena/t.csv",), effect=e))

    def status(intervals, control):
        led = Ledger("arena", "nb_test", claims=table)
        return led.judge_intervals("arena-x", intervals=intervals, control=control, printed="0",
                                   confirmation="all the data")

    wide = [(0.1, -0.6, 0.9)]  # holds 0, but says nothing about agreement
    assert status(wide, [(0.4, 0.2, 0.6)]) == "inconclusive"
    assert status([(0.01, -0.05, 0.08)], [(0.4, 0.2, 0.6)]) == "holds"
    assert status([(0.01, -0.05, 0.08)], [(0.0, -0.05, 0.05)]) == "not tested"
    assert status([(0.5, 0.3, 0.7)], None) == "differs"


def test_one_sentence_measured_two_ways_differs_when_either_differs():
    e = Effect("gap", ">", 0.1, "stated for the test")
    table = declare(Claim("yi-a", "T1", "'x'", "claim", "c", world="synthetic: w", control="off",
                          evidence=("yi/t.csv",), effect=e, combine="both: yi-b"),
                    Claim("yi-b", "T1", "'x'", "claim", "c", world="synthetic: w", control="off",
                          evidence=("yi/t.csv",), effect=e, combine="both: yi-a"))
    led = Ledger("yi", "nb_test", claims=table, seeds=SeedBlocks("nb_test", 0, 5))
    for b in led.blocks:
        s = led.seeds.seeds(b)
        led.block(b).estimate("yi-a", world=pd.Series([-1.0, -2, -1, -2, -1], index=s), control=pd.Series(0.0, index=s))
        led.block(b).estimate("yi-b", world=pd.Series([0.3, -0.2, 0.4, -0.1, 0.2], index=s),
                              control=pd.Series(0.0, index=s))
    statuses = led.frame().set_index("claim_id")["status"]
    assert (statuses == "differs").all()
