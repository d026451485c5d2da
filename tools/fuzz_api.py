"""Fuzz the whole public API: random valid inputs against independent oracles, random invalid inputs against
the rule "a right value, nan with OfflineEvalWarning, or a ValueError/TypeError naming the argument".

    python tools/fuzz_api.py [--seed 0] [--rounds 40] [--dask-every 25] [--timeout 20]

Every public callable is reached through the example calls of ``tests/library/test_public_api_properties.py`` (the
registry that test keeps complete), perturbed at random: a masked array, complex numbers or numeric strings, a
NaN, one row fewer, a pandas input on another order of the same index, a flag given as a string or an int,
``True`` as a seed, weights rescaled by a random power of two.  The metric families are also fuzzed on random
valid data against scikit-learn, scipy and brute force, and in memory against the mergeable accumulators (random
chunks, random merge order) and Dask.  Prints the counts: cases, silent wrong answers, crashes (an exception
other than a named ValueError/TypeError), hangs (over ``--timeout`` seconds).
"""

from __future__ import annotations

import argparse
import collections
import importlib.util
import math
import signal
import sys
import traceback
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]


def _load_registry():
    spec = importlib.util.spec_from_file_location("api_props", ROOT / "tests" / "library" / "test_public_api_properties.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["api_props"] = mod
    spec.loader.exec_module(mod)
    return mod


class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


class Tally:
    """Verdicts (ok, silent, crash, hang) and, for the report, what the library did (value, named error, nan with
    the warning)."""

    def __init__(self):
        self.counts = collections.Counter()
        self.outcomes = collections.Counter()
        self.examples = collections.defaultdict(list)

    def add(self, kind, where, detail="", outcome=None):
        self.counts[kind] += 1
        if outcome is not None:
            self.outcomes[outcome] += 1
        if kind != "ok" and len(self.examples[kind]) < 12:
            self.examples[kind].append(f"{where}: {detail}"[:300])


def outcome(f, timeout, *args, **kwargs):
    """("value", x) | ("nan-warned", None) | ("nan-silent", None) | ("named", exc) | ("crash", text) | ("hang", None)."""
    from offline_eval import OfflineEvalWarning

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = f(*args, **kwargs)
    except Hang:
        return ("hang", None)
    except (ValueError, TypeError) as exc:
        if "`" in str(exc):
            return ("named", exc)
        return ("crash", f"{type(exc).__name__}: {exc}")
    except MemoryError:
        return ("hang", "MemoryError (a blow-up)")
    except Exception as exc:  # noqa: BLE001 - the point is to count them
        return ("crash", f"{type(exc).__name__}: {exc} @ {traceback.extract_tb(exc.__traceback__)[-1][:3]}")
    finally:
        signal.alarm(0)
    warned = any(issubclass(w.category, OfflineEvalWarning) for w in caught)
    numpy_warned = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    if _has_nan(x):
        return ("nan-warned" if warned else "nan-silent", numpy_warned or None)
    return ("value", x)


def _has_nan(x) -> bool:
    """A float nan, or a result record (NamedTuple, object with .statistic/.pvalue) holding one.

    A ``Result``'s p-value is ``nan`` by the protocol where it tests nothing; only its statistic counts then.
    """
    from offline_eval._results import Result

    if isinstance(x, float):
        return math.isnan(x)
    attrs = ("statistic",) if isinstance(x, Result) else ("statistic", "pvalue")
    for attr in attrs:
        v = getattr(x, attr, None)
        if isinstance(v, float) and math.isnan(v):
            return True
    return False


# -- invalid and rescaled inputs over every public callable --------------------------------------------------------
def fuzz_registry(reg, rng, tally, timeout, rounds):
    keys = sorted(reg.EXAMPLES)
    for _ in range(rounds):
        for key in keys:
            ex = reg.EXAMPLES[key]
            try:
                fn, sig, ba = reg._prepare(key)
            except Exception as exc:  # noqa: BLE001
                tally.add("crash", key, f"example build: {exc}")
                continue
            arrays = reg._arrays(ba, ex)
            flags = [p.name for p in sig.parameters.values() if isinstance(p.default, bool)]
            kinds = ["mask", "complex", "str", "nan", "short", "reindex", "flag", "seed", "scale", "none", "ragged",
                     "na", "wrap", "const", "tiny"]
            kind = kinds[rng.integers(len(kinds))]
            if kind in ("na", "wrap") and not _pool(kind, arrays, ba, ex):
                kind = "none"
            if kind in ("mask", "complex", "str", "nan", "short", "reindex", "none", "ragged", "const") and not arrays:
                kind = "flag"
            if kind == "tiny":
                kind = "scale" if ex.scale else "const"
                tiny = True
            else:
                tiny = False
            if kind == "flag" and not flags:
                kind = "seed"
            if kind == "seed" and "rng" not in sig.parameters:
                kind = "scale"
            if kind == "scale" and not ex.scale:
                tally.add("ok", key)
                continue
            if kind in ("na", "wrap"):
                pool = _pool(kind, arrays, ba, ex)
                name = pool[rng.integers(len(pool))]
            else:
                name = arrays[rng.integers(len(arrays))] if arrays else None
            where = f"{key} [{kind} {name or ''}]"
            if kind == "scale":
                if tiny:  # equal weights at the bottom or the top of the floats: the unweighted answer
                    for nm in ex.scale[0]:
                        ba.arguments[nm] = np.ones_like(ba.arguments[nm], dtype=np.float64)
                base = outcome(fn, timeout, *ba.args, **ba.kwargs)
                fn, _, ba = reg._prepare(key)
                if tiny:
                    w = [5e-324, 2.0**-1060, 2.0**1020][rng.integers(3)]
                    for nm in ex.scale[0]:
                        ba.arguments[nm] = np.full(np.shape(ba.arguments[nm]), w)
                    where, power = where.replace("[scale", "[tiny"), f"equal weights {w:g}"
                else:
                    power = int(rng.integers(-1000, 1001))
                    for nm in ex.scale[0]:
                        ba.arguments[nm] = np.ldexp(ba.arguments[nm], power)
                got = outcome(fn, timeout, *ba.args, **ba.kwargs)
                project = ex.project or (lambda x: x)
                ok = base[0] == got[0] and (base[0] != "value" or reg._same(project(got[1]), project(base[1]), rel=1e-9))
                tally.add("ok" if ok else "silent", where, f"{power}: {got[0]} vs {base[0]}", outcome=got[0])
                continue
            if kind == "const":
                # constant data: a value, or nan with the warning; never numpy's RuntimeWarning alone or a crash
                for nm in reg._arrays(ba, ex, ndim=(1,)):
                    v = ba.arguments[nm]
                    if nm not in ex.labels and v.dtype.kind == "f":
                        ba.arguments[nm] = np.full(v.shape, v.flat[0])
                got = outcome(fn, timeout, *ba.args, **ba.kwargs)
                if got[0] in ("crash", "hang"):
                    tally.add(got[0], where, str(got[1]), outcome=got[0])
                elif got[0] == "nan-silent" or (got[0] == "nan-warned" and got[1]):
                    tally.add("silent", where, f"{got[0]} {got[1] or ''}", outcome=got[0])
                else:
                    tally.add("ok", where, outcome=got[0])
                continue
            if kind == "flag":
                name = flags[rng.integers(len(flags))]
                ba.arguments[name] = ["False", "no", 1, 0, None][rng.integers(5)]
                where = f"{key} [flag {name}={ba.arguments[name]!r}]"
            elif kind == "seed":
                name = "rng"
                ba.arguments["rng"] = True
            else:
                v = ba.arguments[name]
                if kind == "none":
                    ba.arguments[name] = None
                    if sig.parameters[name].default is None:
                        # an optional array: None is its default, any answer is legal
                        got = outcome(fn, timeout, *ba.args, **ba.kwargs)
                        tally.add("ok" if got[0] not in ("crash", "hang") else got[0], where, str(got[1]),
                                  outcome=got[0])
                        continue
                elif kind == "ragged":
                    ba.arguments[name] = [v.tolist(), v.tolist()[:-1]] if v.ndim == 1 else [row[:-1] for row in v.tolist()[:1]] + v.tolist()[1:]
                elif kind == "na":
                    bad = v.astype(object)
                    bad.flat[rng.integers(bad.size)] = pd.NA
                    ba.arguments[name] = bad
                elif kind == "wrap":
                    big = v.astype(np.uint64) if v.dtype.kind in "iub" else v.astype(np.float64)
                    big.flat[rng.integers(big.size)] = np.uint64(2**64 - 1) if big.dtype.kind == "u" else 1e19
                    ba.arguments[name] = big
                elif kind == "mask":
                    ba.arguments[name] = np.ma.array(v, mask=rng.random(v.shape) < 0.5)
                elif kind == "complex":
                    ba.arguments[name] = v + 1j
                elif kind == "str":
                    if name in ex.labels:
                        tally.add("ok", where)
                        continue
                    ba.arguments[name] = v.astype(str)
                elif kind == "nan":
                    bad = v.astype(np.float64)
                    bad.flat[rng.integers(bad.size)] = np.nan
                    ba.arguments[name] = bad
                elif kind == "short":
                    paired = [k for k in reg._arrays(ba, ex, ndim=(1,)) if len(ba.arguments[k]) == len(v)]
                    if ex.unpaired or v.ndim != 1 or len(paired) < 2:
                        tally.add("ok", where)
                        continue
                    ba.arguments[name] = v[:-1]
                elif kind == "reindex":
                    one_d = [k for k in reg._arrays(ba, ex, ndim=(1,)) if len(ba.arguments[k]) == len(v)]
                    if ex.unpaired or v.ndim != 1 or len(one_d) < 2:
                        tally.add("ok", where)
                        continue
                    expected = outcome(fn, timeout, *ba.args, **ba.kwargs)
                    fn, _, ba = reg._prepare(key)
                    for k in one_d:
                        ba.arguments[k] = pd.Series(ba.arguments[k])
                    ba.arguments[name] = ba.arguments[name].iloc[rng.permutation(len(v))]
                    got = outcome(fn, timeout, *ba.args, **ba.kwargs)
                    if got[0] == "named":
                        tally.add("ok", where)
                    elif got[0] in ("crash", "hang"):
                        tally.add(got[0], where, str(got[1]))
                    elif expected[0] == "value" and got[0] == "value" and reg._same(got[1], expected[1]):
                        tally.add("ok", where)  # aligned: the same answer
                    else:
                        tally.add("silent", where, f"{got[0]}")
                    continue
            got = outcome(fn, timeout, *ba.args, **ba.kwargs)
            if got[0] == "named":
                if kind in ("flag", "seed") and not isinstance(got[1], TypeError):
                    tally.add("silent", where, f"a ValueError, not a TypeError: {got[1]}", outcome=got[0])
                elif f"`{name}" not in str(got[1]) and kind not in ("short",):
                    tally.add("crash", where, f"the error does not name `{name}`: {got[1]}", outcome="unnamed")
                else:
                    tally.add("ok", where, outcome=got[0])
            elif got[0] in ("crash", "hang"):
                tally.add(got[0], where, str(got[1]), outcome=got[0])
            elif kind == "nan" and got[0] == "nan-warned":
                tally.add("ok", where, outcome=got[0])
            else:
                tally.add("silent", where, f"accepted: {got[0]}", outcome=got[0])


def _pool(kind, arrays, ba, ex):
    """The arguments a kind of mutation applies to: a missing label (pd.NA) to any label or code array; a code
    beyond int64 (1e19, 2**64 - 1) to class codes (hypotheses and truths; a cluster key of 1e19 is legal)."""
    if kind == "na":
        return [a for a in arrays if a in ex.labels or _codes(ba.arguments[a])]
    return [a for a in arrays if _codes(ba.arguments[a]) and a.startswith(("hyp", "truth"))]


def _codes(v) -> bool:
    """True for an array of non-negative integer class codes (where a wrapped code would be another class)."""
    return isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "iu" and v.size > 0 and v.min() >= 0 \
        and v.max() < 64


# -- valid inputs against oracles; memory vs mergeable vs Dask -------------------------------------------------------
def _data(rng):
    n = int(rng.integers(1, 120))
    y = rng.integers(0, 2, n)
    p = rng.uniform(0, 1, n).round(int(rng.integers(1, 6)))  # ties at low precision
    w = rng.uniform(0, 3, n) if rng.random() < 0.6 else None
    if w is not None and rng.random() < 0.3:
        w *= 10.0 ** rng.uniform(-300, 300)
    return y, p, w


def _ll(y, p, w, eps=1e-15):
    q = np.clip(p, eps, 1 - eps)
    loss = -(y * np.log(q) + (1 - y) * np.log1p(-q))
    return float(np.average(loss, weights=w))


def _auc_brute(y, s, w):
    w = np.ones(len(y)) if w is None else w
    pos, neg = y == 1, y == 0
    num = 0.0
    for i in np.flatnonzero(pos):
        num += w[i] * (np.sum(w[neg] * (s[neg] < s[i])) + 0.5 * np.sum(w[neg] * (s[neg] == s[i])))
    return num / (w[pos].sum() * w[neg].sum())


def fuzz_metrics(rng, tally, timeout, rounds, dask_every):
    from scipy import stats
    from sklearn import metrics as skm

    from offline_eval import bidding, mergeable, metrics, ondask, ranking

    for r in range(rounds):
        y, p, w = _data(rng)
        wn = None if w is None else w / w.max() if w.max() > 0 else w
        chunks = np.array_split(rng.permutation(len(y)), int(rng.integers(1, 5)))

        def merged(cls):
            parts = [cls.from_arrays(y[c], p[c], None if w is None else w[c]) for c in chunks]
            rng.shuffle(parts)
            out = parts[0]
            for part in parts[1:]:
                out = out.merge(part)
            return out

        checks = {
            "roc_auc_score": (metrics.roc_auc_score, lambda: skm.roc_auc_score(y, p, sample_weight=wn),
                              lambda: merged(mergeable.ScoreCounts).roc_auc_score(), "roc_auc_score"),
            "log_loss": (metrics.log_loss, lambda: _ll(y, p, wn), lambda: merged(mergeable.LossSums).log_loss(), "log_loss"),
            "mean_squared_error": (metrics.mean_squared_error, lambda: skm.mean_squared_error(y, p, sample_weight=wn),
                                   lambda: merged(mergeable.LossSums).mean_squared_error(), "mean_squared_error"),
            "calibration_ratio": (metrics.calibration_ratio, lambda: np.average(p, weights=wn) / np.average(y, weights=wn),
                                  lambda: merged(mergeable.LossSums).calibration_ratio(), "calibration_ratio"),
            "rig_score": (metrics.rig_score, None, lambda: merged(mergeable.LossSums).rig_score(), "rig_score"),
        }
        for name, (mem_f, oracle, merge_f, dask_name) in checks.items():
            where = f"{name} n={len(y)} w={'none' if w is None else f'{w.max():.3g}'}"
            mem = outcome(mem_f, timeout, y, p, sample_weight=w)
            if mem[0] in ("crash", "hang", "nan-silent"):
                tally.add("crash" if mem[0] == "crash" else ("hang" if mem[0] == "hang" else "silent"), where, str(mem[1]))
                continue
            if mem[0] == "value" and oracle is not None:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        ref = float(oracle())
                    except Exception:  # noqa: BLE001 - the oracle's own limits
                        ref = None
                if ref is not None and np.isfinite(ref) and not math.isclose(mem[1], ref, rel_tol=1e-9, abs_tol=1e-12):
                    tally.add("silent", where, f"memory {mem[1]!r} vs oracle {ref!r}")
                    continue
            if name == "roc_auc_score" and mem[0] == "value" and len(y) <= 60:
                ref = _auc_brute(y, p, wn)
                if not math.isclose(mem[1], ref, rel_tol=1e-9, abs_tol=1e-12):
                    tally.add("silent", where, f"memory {mem[1]!r} vs brute force {ref!r}")
                    continue
            mg = outcome(merge_f, timeout)
            same = (mem[0] == mg[0] and (mem[0] != "value" or math.isclose(mem[1], mg[1], rel_tol=1e-9, abs_tol=1e-12))
                    or (mem[0] == "named" and mg[0] == "nan-warned"))  # an accumulator warns where memory raises
            if not same:
                tally.add("silent" if mg[0] in ("value", "nan-silent") else mg[0], where + " [mergeable]", f"{mg} vs {mem}")
                continue
            if dask_every and r % dask_every == 0:
                import dask.dataframe as dd

                df = pd.DataFrame({"y": y, "p": p, **({"w": w} if w is not None else {})})
                dk = outcome(getattr(ondask, dask_name), timeout, dd.from_pandas(df, npartitions=len(chunks)), "y", "p",
                             weight=None if w is None else "w")
                same = mem[0] == dk[0] and (mem[0] != "value" or math.isclose(mem[1], dk[1], rel_tol=1e-9, abs_tol=1e-12))
                if not same:
                    tally.add("silent" if dk[0] in ("value", "nan-silent") else dk[0], where + " [dask]", f"{dk} vs {mem}")
                    continue
            tally.add("ok", where)
        # quantiles: memory vs the two mergeable passes
        q = int(rng.integers(1, 8))
        mem = outcome(metrics.quantile_breakdown, timeout, y, p, n_quantiles=q, sample_weight=w)
        if mem[0] == "value":
            def two_pass():
                first = merged(mergeable.ScoreCounts)
                edges = mergeable.QuantileSums.edges(first, q)
                parts = [mergeable.QuantileSums.from_arrays(edges, q, y[c], p[c], None, None if w is None else w[c])
                         for c in chunks]
                out = parts[0]
                for part in parts[1:]:
                    out = out.merge(part)
                return out.frame()
            mg = outcome(two_pass, timeout)
            ok = mg[0] == "value" and mg[1]["quantile"].tolist() == mem[1]["quantile"].tolist() and np.allclose(
                mg[1]["log_loss"], mem[1]["log_loss"], rtol=1e-9)
            tally.add("ok" if ok else "silent", f"quantile_breakdown q={q}", f"{mg[0]}")
        # ranking against scipy
        x, z = rng.normal(size=len(y)).round(1), rng.normal(size=len(y)).round(1)
        if len(y) >= 2:
            for name, ours, theirs in (("kendall_tau", ranking.kendall_tau, lambda: stats.kendalltau(x, z)[0]),
                                       ("spearman_rho", ranking.spearman_rho, lambda: stats.spearmanr(x, z)[0])):
                got = outcome(ours, timeout, x, z)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ref = float(theirs())
                ok = (got[0] == "value" and math.isclose(got[1], ref, rel_tol=1e-9, abs_tol=1e-12)) or (
                    got[0] == "nan-warned" and not np.isfinite(ref))
                tally.add("ok" if ok else "silent", f"{name} n={len(y)}", f"{got} vs {ref}")
        # bidding against brute force
        v, c = rng.uniform(0, 3, len(y)), rng.uniform(0, 1, len(y))
        got = outcome(bidding.utility, timeout, y, v, p, c)
        ref = sum((y[i] * v[i] - c[i]) for i in range(len(y)) if p[i] * v[i] > c[i])
        tally.add("ok" if got[0] == "value" and math.isclose(got[1], ref, rel_tol=1e-9, abs_tol=1e-9) else "silent",
                  "utility", f"{got} vs {ref}")


def fuzz_work_sizes(tally, timeout):
    """Requests whose size the inputs do not justify: a named error, quickly."""
    from offline_eval import adaptive, bidding, metrics, mergeable, ranking  # noqa: F401

    cases = {
        "bootstrap_ci n_boot=1e9": lambda: metrics.bootstrap_ci(metrics.log_loss, [0, 1], [.1, .2], n_boot=10**9),
        "bootstrap_compare n_boot=1e9": lambda: ranking.bootstrap_compare([1., 2, 3], [1., 2, 3], [3., 2, 1], measure="MAE",
                                                                          n_boot=10**9),
        "joint_distribution n_classes=1e6": lambda: adaptive.joint_distribution([0, 1], [0, 1], n_classes=10**6),
        "JointCounts.dense 1e6": lambda: mergeable.JointCounts.from_arrays([0, 1], [0, 1]).dense(10**6),
        "ab_test_correlation n_trials huge": lambda: bidding.ab_test_correlation(np.arange(3.), np.arange(3.), np.ones(3),
                                                                                 n_trials=10**9),
        "quantile_breakdown n_quantiles=1e12": lambda: metrics.quantile_breakdown([0, 1], [.1, .2], n_quantiles=10**12),
        "kendall_tau_test exact n=3000": lambda: ranking.kendall_tau_test(np.arange(3000.), np.arange(3000.)[::-1],
                                                                          method="exact"),
        "bootstrap_ci n_boot=1e6": lambda: metrics.bootstrap_ci(metrics.log_loss, [0, 1] * 50, [.1, .2] * 50,
                                                                n_boot=10**6),
        "bootstrap_compare n_boot=1e6": lambda: ranking.bootstrap_compare(np.arange(100.), np.arange(100.),
                                                                          np.arange(100.)[::-1], measure="MAE",
                                                                          n_boot=10**6),
        "bootstrap_oam_accuracy n_boot=1e6": lambda: adaptive.bootstrap_oam_accuracy([0, 1] * 50, [0, 1] * 50,
                                                                                     [0, 1] * 50, [0, 1], [0, 1],
                                                                                     n_boot=10**6),
        "ab_test_correlation n_trials=1e6": lambda: bidding.ab_test_correlation(np.arange(30.), np.arange(30.)[::-1],
                                                                                np.ones(30), n_trials=10**6),
    }
    for where, f in cases.items():
        got = _in_child(f, timeout)
        tally.add("ok" if got == "named" else ("hang" if got in ("hang", "memory") else "silent"), where, got,
                  outcome=got)


def _in_child(f, timeout, memory=2 << 30):
    """The outcome kind of ``f()`` in a forked child limited to ``memory`` bytes of address space and ``timeout``
    seconds, so that a request of 7 TiB is a counted blow-up here, not an out-of-memory kill of the machine."""
    import multiprocessing as mp
    import resource

    def child(conn):
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        try:
            kind = outcome(f, timeout)[0]
        except MemoryError:
            kind = "memory"
        conn.send(kind)

    parent, kid = mp.Pipe()
    proc = mp.get_context("fork").Process(target=child, args=(kid,))
    proc.start()
    proc.join(timeout + 10)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return "hang"
    return parent.recv() if parent.poll() else "memory"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=40, help="rounds over the registry of public callables")
    ap.add_argument("--metric-rounds", type=int, default=400, help="random valid data sets for the metric families")
    ap.add_argument("--dask-every", type=int, default=25, help="compare with Dask every k-th data set (0: never)")
    ap.add_argument("--timeout", type=int, default=20, help="seconds before a call counts as a hang")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    reg = _load_registry()
    tally = Tally()
    fuzz_work_sizes(tally, args.timeout)
    fuzz_registry(reg, rng, tally, args.timeout, args.rounds)
    fuzz_metrics(rng, tally, args.timeout, args.metric_rounds, args.dask_every)
    total = sum(tally.counts.values())
    print(f"cases {total}: ok {tally.counts['ok']}, silent wrong answers {tally.counts['silent']}, "
          f"crashes {tally.counts['crash']}, hangs {tally.counts['hang']}")
    o = tally.outcomes
    print(f"  of the registry's and the work-size cases: named errors {o['named']}, nan with the warning "
          f"{o['nan-warned']}, values {o['value']}, unnamed errors {o['unnamed'] + o['crash']}, hangs {o['hang']}")
    for kind in ("silent", "crash", "hang"):
        for line in tally.examples[kind]:
            print(f"  {kind}: {line}")
    return 0 if tally.counts["silent"] + tally.counts["crash"] + tally.counts["hang"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
