"""A fuzz of the public API: every public function of the library's modules called with well-formed and
malformed arguments; an error that names no argument (no backticked name) is a crash, and a result that
contradicts a stated invariant is a silent wrong answer.

``run(cases, seed)`` returns the counts; ``python tests/library/fuzz_public_api.py 20000`` runs a bigger fuzz.
"""

from __future__ import annotations

import inspect
import math
import re
import signal
import sys
import warnings

import numpy as np

MODULES = ["offline_eval.metrics", "offline_eval.ranking", "offline_eval.counterfactual", "offline_eval.display",
           "offline_eval.synth.classifiers", "offline_eval.synth.rtb", "offline_eval.synth.sponsored",
           "offline_eval.synth.wallet", "offline_eval.logboot", "offline_eval.mergeable", "offline_eval.adaptive",
           "offline_eval.bidding"]
SKIP = {"sample_page_views", "serve", "ab_test", "ab_tests", "resize_ab", "without_exploration", "expected_ab",
        "gumbel_normal_scores", "positive_stable"}  # need a world or a Generator built first


def _values(rng, n):
    """Candidate argument values: arrays of several kinds and lengths, scalars, and malformed inputs."""
    good = [rng.random(n), rng.integers(0, 2, n), rng.integers(0, 2, n).astype(float), rng.normal(size=n),
            np.round(rng.random(n), 1), np.full(n, 0.5), rng.random(n) * 1e200, rng.random(n) * 1e-300]
    bad = [None, "a", True, float("nan"), float("inf"), -1, 0, 2**63, 1e999, [1, "a"], np.array([]),
           np.array([[1.0, 2.0]]), np.r_[rng.random(n - 1), np.nan] if n > 1 else np.array([np.nan]), pd_na()]
    scalars = [0.5, 1, 3, 0.05, 0.95, 10, 2.5]
    return good, bad, scalars


def pd_na():
    import pandas as pd

    return pd.NA


def _functions():
    import importlib

    out = []
    for mod_name in MODULES:
        mod = importlib.import_module(mod_name)
        for name in getattr(mod, "__all__", []):
            f = getattr(mod, name, None)
            if inspect.isfunction(f) and name not in SKIP:
                out.append((mod_name, name, f))
    return out


class _Timeout(Exception):
    pass


def _invariants(name, args, out):
    """A stated invariant the output breaks, or None."""
    vals = [out] if not isinstance(out, tuple) else list(out)
    if name in ("roc_auc_score", "kendall_tau", "spearman_rho") and isinstance(out, float) and not math.isnan(out):
        lo = 0.0 if name == "roc_auc_score" else -1.0
        if not lo - 1e-12 <= out <= 1 + 1e-12:
            return f"{name} = {out} outside its range"
    if name == "kendall_tau_test" and np.isfinite(out.statistic):
        low, high = out.confidence_interval()
        if not low <= out.statistic <= high or ((low > 0 or high < 0) and not out.pvalue_two_sided < 0.05):
            return f"tau interval [{low}, {high}] against p {out.pvalue_two_sided}"
    if name == "reformat" and isinstance(args[0], str) and re.fullmatch(r"[\d, \[\]]*", args[0]) and out != args[0]:
        return f"reformat changed {args[0]!r} to {out!r}"
    return None


def run(cases: int, seed: int = 0, time_limit: float = 1.0) -> dict:
    rng = np.random.default_rng(seed)
    funcs = _functions()
    counts = {"cases": 0, "ok": 0, "named_errors": 0, "unnamed_errors": 0, "silent_wrong": 0, "timeouts": 0}
    examples = {"unnamed_errors": [], "silent_wrong": []}
    use_alarm = hasattr(signal, "SIGALRM")
    if use_alarm:
        def handler(*_):
            raise _Timeout()
        old = signal.signal(signal.SIGALRM, handler)
    try:
        for i in range(cases):
            mod, name, f = funcs[i % len(funcs)]
            params = [p for p in inspect.signature(f).parameters.values()
                      if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
            n = int(rng.integers(1, 40))
            good, bad, scalars = _values(rng, n)
            args = []
            for p in params:
                if name in ("reformat", "significant_digits"):
                    args.append(rng.choice(["ids [1,2] and 10,20,30", "x = 1e999", "007 and 3.14159 and 12345",
                                            "median -38.9241 over 20 seeds", "1,234,567"]))
                elif rng.random() < 0.15:
                    args.append(bad[int(rng.integers(len(bad)))])
                elif p.name in ("n", "n_classes", "total", "mean", "x", "p", "share", "estimate", "low", "high"):
                    args.append(scalars[int(rng.integers(len(scalars)))])
                else:
                    args.append(good[int(rng.integers(len(good)))])
            kwargs = {}
            for p in inspect.signature(f).parameters.values():
                if p.kind == p.KEYWORD_ONLY and p.default is p.empty:  # required options: a plausible value
                    kwargs[p.name] = {"measure": "tau", "n_classes": 2, "beta": 1.0}.get(
                        p.name, scalars[int(rng.integers(len(scalars)))])
            kw = [p for p in inspect.signature(f).parameters.values() if p.kind == p.KEYWORD_ONLY and p.default is not p.empty]
            if kw and rng.random() < 0.3:
                p = kw[int(rng.integers(len(kw)))]
                kwargs[p.name] = bad[int(rng.integers(len(bad)))]
            counts["cases"] += 1
            try:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, time_limit)
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    out = f(*args, **kwargs)
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                problem = _invariants(name, args, out)
                if problem:
                    counts["silent_wrong"] += 1
                    examples["silent_wrong"].append(f"{mod}.{name}: {problem}")
                else:
                    counts["ok"] += 1
            except _Timeout:
                counts["timeouts"] += 1
            except (ValueError, TypeError) as exc:
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                if re.search(r"`[A-Za-z_][\w.]*`", str(exc)):
                    counts["named_errors"] += 1
                else:
                    counts["unnamed_errors"] += 1
                    examples["unnamed_errors"].append(f"{mod}.{name}: {type(exc).__name__}: {str(exc)[:120]}")
            except Exception as exc:  # noqa: BLE001 - any other exception is a crash
                if use_alarm:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                counts["unnamed_errors"] += 1
                examples["unnamed_errors"].append(f"{mod}.{name}: {type(exc).__name__}: {str(exc)[:120]}")
    finally:
        if use_alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old)
    counts["examples"] = {k: v[:10] for k, v in examples.items()}
    return counts


if __name__ == "__main__":
    print(run(int(sys.argv[1]) if len(sys.argv) > 1 else 5000, int(sys.argv[2]) if len(sys.argv) > 2 else 0))
