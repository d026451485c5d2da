"""chapelle Section 3: the synthetic RTB world's experiment, its tables and figures (Algorithm 1, Table 1, Figs. 1-2).

Shared by :mod:`offline_eval_compendium.studies.chapelle.auctions`: per-network
offline and online differences (Algorithm 1, steps 1-2 and 5-6), the price
level and the A/B noise calibrated on the paper's cost and on Table 1's
standard deviations, the correlation table (Table 1), the signal-noise
diagnosis, the correlation-vs-beta curve (Fig. 1) and the scatter plots
(Fig. 2).  The seed sweep beside the control worlds is
:mod:`._sweep`.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd
from scipy import optimize, stats

from ... import reference
from offline_eval.bidding import (
    ab_test_correlation, expected_utility_by_action, expected_utility_per_row, utility_per_row,
)
from offline_eval.plotting import new_figure
from offline_eval.synth.rtb import RTBWorld, expected_ab, resize_ab, simulate_rtb

__all__ = [
    "BASELINES", "CALIBRATION_METRICS", "CLICK_NOISE_MAX_RATIO", "NOISE_BOUNDS", "PRICE_BOUNDS",
    "add_world_checks", "ab_sizes", "calibrate_ab_noise", "calibrate_price_level", "click_noise", "correlation_table",
    "eu_column", "expected_online_differences", "fig1", "fig2", "in_decades", "noise_diagnosis",
    "offline_differences", "offline_tables", "online_differences", "paper_noise_why", "paper_table1",
    "pearson_sd_delta", "pearson_spread_why", "signal_noise", "signal_noise_tables", "table1", "typical_cost",
]


BASELINES = ("MSE", "Weighted MSE", "Utility")


def eu_column(beta: float) -> str:
    """Column name of the EU difference at ``beta``."""
    return f"EU (beta={beta:g})"


def offline_differences(world: RTBWorld, betas, clicks: str = "drawn") -> pd.DataFrame:
    """Algorithm 1, steps 1-2: offline metric of B minus A per network, per logged display.

    Oriented so that a positive difference means model B is better: the
    (weighted) MSE enters negated, as in the paper's Table 1.  Columns:
    ``network, displays, MSE, Weighted MSE, Utility`` and one ``EU (beta=...)``
    per ``beta``.

    ``clicks="drawn"`` uses each logged row's click; ``"expected"`` averages
    every metric over ``a ~ Bernoulli(p_true)`` of the row (each metric is
    linear in ``a``): the limit of logs large enough for the click noise to
    average out, as the paper's four days of every network are.
    """
    if clicks not in ("drawn", "expected"):
        raise ValueError(f"`clicks` must be 'drawn' or 'expected'; got {clicks!r}")
    return offline_tables(world, betas, (clicks,))[clicks]


def offline_tables(world: RTBWorld, betas, kinds=("drawn", "expected", "click_var"), masks=(None,)) -> dict:
    """The per-network tables of the offline differences, every row's metrics computed once for all of them.

    ``kinds``: ``"drawn"`` and ``"expected"`` (:func:`offline_differences`
    with those clicks) and ``"click_var"`` (per network, the mean over its rows
    of ``s^2 p_true (1 - p_true)``, ``s`` the slope of the row's difference in
    the click: :func:`click_noise`).  Each metric of each model is evaluated
    once at ``a = 0`` and once at ``a = 1`` (the EU from one incomplete gamma,
    :func:`offline_eval.bidding.expected_utility_by_action`) and every kind is
    a combination of those values.  ``masks`` holds boolean row masks
    (``None``: every row); with several masks each kind is a list, one frame
    per mask, and a subset's frame equals that of the world whose logs are
    that subset, bit for bit (the per-network sums run over the rows in order).
    With one mask each kind is a frame.
    """
    logs = world.logs
    net = logs["network"].to_numpy()
    k = len(world.networks)
    a, v, c = logs["a"].to_numpy(), logs["v"].to_numpy(), logs["c"].to_numpy()
    pa, pb, pt = logs["p_a"].to_numpy(), logs["p_b"].to_numpy(), logs["p_true"].to_numpy()
    sel = [None if m is None else np.asarray(m, dtype=bool) for m in masks]  # None: every row, no copy
    nets = [net if m is None else net[m] for m in sel]
    disp = [np.bincount(n_, minlength=k).astype(float) for n_ in nets]
    outs = {kind: [{"network": world.networks["network"].to_numpy(), "displays": d.astype(np.int64)} for d in disp]
            for kind in kinds}
    clicked = a == 1

    def put(kind, name, x):
        for o, m, n_, d in zip(outs[kind], sel, nets, disp):
            o[name] = np.bincount(n_, weights=x if m is None else x[m], minlength=k) / d

    for name, by_action in _metrics(a, v, c, betas):
        if tuple(kinds) == ("drawn",):  # the logged clicks only: each metric at its own click
            put("drawn", name, by_action(pb, a) - by_action(pa, a))
            continue
        (a0, a1), (b0, b1) = by_action(pa), by_action(pb)
        if "drawn" in kinds:
            put("drawn", name, np.where(clicked, b1, b0) - np.where(clicked, a1, a0))
        if "expected" in kinds:  # every metric is linear in the click a: its mean over a ~ Bernoulli(p_true)
            put("expected", name, pt * (b1 - a1) + (1.0 - pt) * (b0 - a0))
        if "click_var" in kinds:
            slope = (b1 - a1) - (b0 - a0)
            put("click_var", name, slope**2 * pt * (1.0 - pt))
    frames = {kind: [pd.DataFrame(o) for o in outs[kind]] for kind in kinds}
    return {kind: f[0] for kind, f in frames.items()} if len(sel) == 1 else frames


def _metrics(a, v, c, betas):
    """``(column, by_action)`` of every offline metric, oriented so that larger is better (MSEs negated).

    ``by_action(p)`` is the pair ``(metric at a = 0, metric at a = 1)`` of every row;
    ``by_action(p, a)`` the metric at the logged clicks ``a``.
    """
    one, zero = np.ones_like(a), np.zeros_like(a)

    def pair(metric):
        return lambda p, y=None: (metric(zero, p), metric(one, p)) if y is None else metric(y, p)

    out = [("MSE", pair(lambda y, p: -((y - p) ** 2))), ("Weighted MSE", pair(lambda y, p: -(v**2) * (y - p) ** 2)),
           ("Utility", pair(lambda y, p: utility_per_row(y, v, p, c, check_input=False)))]
    for beta in betas:
        def eu(p, y=None, beta=float(beta)):
            if y is not None:
                return expected_utility_per_row(y, v, p, c, beta=beta, check_input=False)
            return tuple(expected_utility_by_action(v, p, c, beta=beta, check_input=False))
        out.append((eu_column(beta), eu))
    return out


def click_noise(world: RTBWorld, betas, n_displays: float, *, tables: dict | None = None) -> pd.DataFrame:
    """How much the clicks' Bernoulli noise moves each offline difference, at the simulated and at a stated log size.

    Every metric is linear in the click ``a``, so a row's difference B - A
    is ``d0 + a s`` with slope ``s``; with ``a ~ Bernoulli(p_true)`` its
    variance is ``s^2 p_true (1 - p_true)``.  A network's difference per
    display, averaged over ``N`` displays like the logged ones, has standard
    deviation ``sqrt(mean(s^2 p (1 - p)) / N)``.  Returned per metric: the
    spread across networks of the expected differences (``spread``, the
    signal a correlation sees), and the median over networks of that noise at
    the simulated displays and at ``n_displays`` per network, each also as a
    ratio to ``spread``.  ``tables``: :func:`offline_tables` of the world with
    the kinds ``"expected"`` and ``"click_var"``, when already computed.
    """
    if tables is None:
        tables = offline_tables(world, betas, ("expected", "click_var"))
    expected, var = tables["expected"], tables["click_var"]
    disp = var["displays"].to_numpy().astype(float)
    rows = []
    for name in list(BASELINES) + [eu_column(b) for b in betas]:
        per_row = var[name].to_numpy()
        spread = float(expected[name].std(ddof=1))
        sim, big = float(np.median(np.sqrt(per_row / disp))), float(np.median(np.sqrt(per_row / n_displays)))
        rows.append({"metric": name, "spread": spread, "noise_simulated": sim, "noise_at_size": big,
                     "ratio_simulated": sim / spread, "ratio_at_size": big / spread})
    return pd.DataFrame(rows)


#: Largest click noise, relative to the networks' spread, under which the expected clicks stand for the
#: paper's logs: a noise of 5% of the spread lowers a correlation by at most 1 - 1/sqrt(1 + 0.05^2) = 0.1%.
CLICK_NOISE_MAX_RATIO = 0.05


def online_differences(world: RTBWorld) -> pd.DataFrame:
    """Algorithm 1, steps 5-6: A/B profit of B minus A per network, per display, with its standard error.

    The two populations are independent, so the standard error of the
    difference is ``sqrt(se_A^2 + se_B^2)``; both are divided by the
    network's displays in the A/B test.
    """
    ab = world.ab
    disp = (ab["displays_a"] + ab["displays_b"]).to_numpy(dtype=float)
    return pd.DataFrame(
        {
            "network": ab["network"].to_numpy(),
            "online": (ab["profit_b"] - ab["profit_a"]).to_numpy() / disp,
            "online_se": np.hypot(ab["se_a"], ab["se_b"]).to_numpy() / disp,
        }
    )


def expected_online_differences(world: RTBWorld, *, n_contexts: int = 400_000, rng=None) -> pd.DataFrame:
    """The noise-free A/B difference per network: what the online difference measures in expectation.

    ``signal_k = (mu_B - mu_A) / (win_A + win_B)``, with ``mu_m`` and
    ``win_m`` the exact per-request expected profit and win probability of
    bidder ``m`` (:func:`offline_eval.synth.rtb.expected_ab`): the expected
    profit difference of two arms of ``N`` requests each, ``N (mu_B - mu_A)``,
    over their expected displays ``N (win_A + win_B)``, whatever ``N``.  Uses
    the moments the world's A/B test was drawn from when it has them
    (``world.expected``), else computes them on ``n_contexts`` contexts.
    """
    exp = world.expected
    if exp is None:
        P = world.params
        exp = expected_ab(world.networks, n_contexts=n_contexts, ctr_sigma=P["ctr_sigma"],
                          value_sigma=P["value_sigma"], price_corr=P["price_corr"], rng=rng)
    return pd.DataFrame(
        {
            "network": exp["network"].to_numpy(),
            "expected_online": ((exp["profit_b"] - exp["profit_a"]) / (exp["win_a"] + exp["win_b"])).to_numpy(),
        }
    )


def signal_noise(offline: pd.DataFrame, online: pd.DataFrame, expected: pd.DataFrame, columns) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Why the offline-online correlations are what they are: signal and A/B noise across networks.

    Returns two tables.

    * ``decomposition`` (one row): across networks, the variance of the
      observed online differences ``var_online``, of their expectation
      ``var_signal`` (:func:`expected_online_differences`) and the mean
      squared A/B standard error ``mean_se2`` (the sampling noise; the
      online difference is signal plus noise, so
      ``var_online ~ var_signal + mean_se2``), the signal share
      ``var_signal / (var_signal + mean_se2)``, the correlation of the
      observed online differences with their expectation
      ``r_signal_online`` (the ceiling for any offline metric, even one that
      knew the expected profits exactly) and the same ceiling under
      Algorithm 1's resampling ``r_ceiling_alg1`` (the observed differences
      are resampled once more around themselves, so their noise counts twice).
    * ``tracking`` (one row per metric): Pearson r and Kendall tau of each
      offline difference with the *expected* online difference, beside its
      Pearson r with the observed one.
    """
    m = offline.merge(online, on="network").merge(expected, on="network")
    y, ey, se = m["online"].to_numpy(), m["expected_online"].to_numpy(), m["online_se"].to_numpy()
    var_sig, mse2 = float(np.var(ey, ddof=1)), float(np.mean(se**2))
    ceil = float(np.sqrt(var_sig / (var_sig + 2.0 * mse2)))
    dec = pd.DataFrame([{
        "networks": len(m),
        "var_online": float(np.var(y, ddof=1)),
        "var_signal": var_sig,
        "mean_se2": mse2,
        "signal_share": var_sig / (var_sig + mse2),
        "r_signal_online": float(np.corrcoef(ey, y)[0, 1]),
        "r_ceiling_alg1": ceil,
    }])
    rows = []
    for col in columns:
        x = m[col].to_numpy()
        rows.append({
            "metric": col,
            "r_expected": float(np.corrcoef(x, ey)[0, 1]),
            "tau_expected": float(stats.kendalltau(x, ey).statistic),
            "r_observed": float(np.corrcoef(x, y)[0, 1]),
        })
    return dec, pd.DataFrame(rows)


#: Table 1 rows whose printed standard deviations over Algorithm 1's trials calibrate the A/B test's
#: noise (declared before any run).  The EU row is left out: its beta is chosen on the correlations,
#: which depend on the noise level being calibrated.
CALIBRATION_METRICS = ("MSE", "Weighted MSE", "Utility")


#: Search interval of the calibrated A/B size, log10 of impressions per network (100k to 1G).
NOISE_BOUNDS = (5.0, 9.0)


def calibrate_ab_noise(world: RTBWorld, offline: pd.DataFrame, ref: pd.DataFrame, *, n_trials: int = 100,
                       trial_seed: int = 0, bounds=NOISE_BOUNDS, spread: float = 0.0, z=None):
    """Fit the A/B test's size (its noise level) to Table 1's printed standard deviations over the trials.

    Algorithm 1 resamples each network's online difference within its
    confidence interval, so the spread of a correlation over the trials
    measures the A/B noise *relative to* the spread of the per-network
    differences -- which is what the paper prints (the ``±`` of Table 1) and
    what the A/B test's size sets.  The knob is ``log10`` of the impressions
    per network; the world's A/B test is replayed at each size with the same
    draws (:func:`offline_eval.synth.rtb.resize_ab`) and Algorithm 1 with the
    same trials (``trial_seed``), so the loss is a smooth function of the
    knob; ``scipy.optimize.minimize_scalar`` (bounded) minimises the sum of
    squared differences between our and the printed standard deviations of
    Pearson r and Kendall tau of :data:`CALIBRATION_METRICS`.

    With ``spread > 0`` the networks differ in size (:func:`ab_sizes`: network
    ``k`` holds ``10^knob exp(spread |z_k|)`` impressions, ``z`` one standard
    normal per network), the knob being the smallest networks' size.

    Returns ``(ab_impressions, table)``: the fitted size and one row per
    calibrated metric with both standard deviations, ours and printed.
    """
    cols = list(CALIBRATION_METRICS)

    def stds(log_n):
        sizes = 10.0**log_n if spread == 0 else ab_sizes(10.0**log_n, spread, z)
        corr = correlation_table(offline, online_differences(resize_ab(world, sizes)), cols,
                                 n_trials=n_trials, rng=trial_seed)
        return corr.set_index("metric")

    printed = {(m, k): reference.parse_printed(reference.lookup(ref, "Table 1", m, f"{name} std"))
               for m in cols for k, name in (("pearson_r_std", "Pearson r"), ("kendall_tau_std", "Kendall tau"))}

    def loss(log_n):
        # the stds rounded to 1e-6: the optimiser's path (and so the fitted size) must not hinge on the
        # last bits of a float, which differ between CPUs
        t = stds(log_n)
        return sum((round(float(t.loc[m, k]), 6) - v) ** 2 for (m, k), v in printed.items())

    res = optimize.minimize_scalar(loss, bounds=bounds, method="bounded", options={"xatol": 1e-3})
    if not res.success:
        raise RuntimeError(f"the A/B noise calibration did not converge: {res.message}")
    log_n = float(np.round(res.x, 3))  # rounded: the fitted size is a stated number, the same on any CPU
    fitted = stds(log_n)
    rows = [{"metric": m, "coefficient": name, "ours": float(fitted.loc[m, k]), "paper": printed[(m, k)]}
            for m in cols for k, name in (("pearson_r_std", "Pearson r"), ("kendall_tau_std", "Kendall tau"))]
    return float(10.0**log_n), pd.DataFrame(rows)


def ab_sizes(smallest: float, spread: float, z) -> np.ndarray:
    """Per-network A/B sizes ``smallest exp(spread |z_k|)``: the grouped small networks near the smallest, others above."""
    return float(smallest) * np.exp(float(spread) * np.abs(np.asarray(z, dtype=float)))


#: Search interval of the calibrated price level, log10 of the median competing bid in dollars per impression.
PRICE_BOUNDS = (-4.0, -2.0)


def calibrate_price_level(target_cost: float, *, rng, bounds=PRICE_BOUNDS, **world_kw) -> tuple[float, pd.DataFrame]:
    """Fit the world's price level so that the median logged cost is ``target_cost`` (dollars per impression).

    The knob is ``log10 price_median`` (the networks' median highest
    competing bid); the logs are drawn with ``world_kw`` from a copy of the
    generator ``rng`` at every try (the same draws each time, the competing
    bids scaling with the knob), and ``scipy.optimize.brentq`` solves
    ``log median(c of the logged rows) = log target_cost``.  The logged costs
    are those of the won auctions (the production bidder paid them), so they
    sit below the competing bids' median: the bidder wins the cheaper half.

    Returns ``(price_median, table)``: the fitted level (rounded to 3
    decimals in log10, the same on any CPU) and a one-row table with the
    target and the median logged cost reached.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"`rng` must be a numpy.random.Generator (copied at every try); got {type(rng).__name__}")
    kw = {**world_kw, "n_ab": 2, "ab_impressions": 30e6}  # the logs do not depend on the A/B test's draws

    def median_cost(log_p):
        return typical_cost(simulate_rtb(price_median=10.0**log_p, rng=copy.deepcopy(rng), **kw))

    def gap(log_p):
        return round(float(np.log(median_cost(log_p) / target_cost)), 9)  # not on the last bits of a float

    log_p = float(np.round(optimize.brentq(gap, *bounds, xtol=1e-4), 3))
    reached = median_cost(log_p)
    return float(10.0**log_p), pd.DataFrame([{"target_median_cost": float(target_cost), "price_median": 10.0**log_p,
                                              "median_logged_cost": reached, "n_log": int(kw.get("n_log", 40_000))}])


def typical_cost(world: RTBWorld) -> float:
    """The median logged cost ``c`` (dollars per impression): the scale that makes ``beta`` dimensionless."""
    return float(np.median(world.logs["c"].to_numpy()))


def correlation_table(offline: pd.DataFrame, online: pd.DataFrame, columns, *, n_trials=100, rng=None) -> pd.DataFrame:
    """Algorithm 1, steps 3-9, for every metric column: mean and sd of Pearson r and Kendall tau."""
    res = ab_test_correlation(
        offline[list(columns)].to_numpy().T, online["online"].to_numpy(), online["online_se"].to_numpy(),
        n_trials=n_trials, rng=rng,
    )
    return pd.DataFrame(
        {
            "metric": list(columns),
            "pearson_r": res.pearson_r,
            "pearson_r_std": res.pearson_r_std,
            "kendall_tau": res.kendall_tau,
            "kendall_tau_std": res.kendall_tau_std,
        }
    )


def table1(corr: pd.DataFrame, beta_best: float, ref: pd.DataFrame) -> pd.DataFrame:
    """Table 1: our correlations (mean and sd over the trials) beside the paper's printed cells."""
    rows = []
    names = {"MSE": "MSE", "Weighted MSE": "Weighted MSE", "Utility": "Utility", eu_column(beta_best): "EU (best beta)"}
    for col, row in names.items():
        ours = corr.set_index("metric").loc[col]
        rows.append(
            {
                "metric": row if row != "EU (best beta)" else f"EU (beta={beta_best:g})",
                "pearson_r": ours["pearson_r"],
                "pearson_r_std": ours["pearson_r_std"],
                "kendall_tau": ours["kendall_tau"],
                "kendall_tau_std": ours["kendall_tau_std"],
                "paper_pearson_r": reference.lookup(ref, "Table 1", row, "Pearson r") + " ± "
                + reference.lookup(ref, "Table 1", row, "Pearson r std"),
                "paper_kendall_tau": reference.lookup(ref, "Table 1", row, "Kendall tau") + " ± "
                + reference.lookup(ref, "Table 1", row, "Kendall tau std"),
            }
        )
    return pd.DataFrame(rows)


def signal_noise_tables(worlds, betas, *, n_trials: int, n_contexts: int, rng) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The signal-noise decomposition and the tracking table of several worlds (``{label: (world, offline)}``)."""
    cols = list(BASELINES) + [eu_column(b) for b in betas]
    sn_rows, tr_rows = [], []
    for label, (w_, off_) in worlds.items():
        off_ = offline_differences(w_, betas) if off_ is None else off_
        on_ = online_differences(w_)
        dec_, trk_ = signal_noise(off_, on_, expected_online_differences(w_, n_contexts=n_contexts, rng=rng), cols)
        corr_ = correlation_table(off_, on_, cols, n_trials=n_trials, rng=rng)
        sn_rows.append(dec_.assign(world=label, ab_displays=float((w_.ab["displays_a"] + w_.ab["displays_b"]).mean())))
        tr_rows.append(trk_.assign(world=label, r_alg1=corr_["pearson_r"].to_numpy(), r_alg1_std=corr_["pearson_r_std"].to_numpy()))
    sn = pd.concat(sn_rows, ignore_index=True)
    sn = sn[["world", "networks", "ab_displays"] + [c for c in sn.columns if c not in ("world", "networks", "ab_displays")]]
    tracking = pd.concat(tr_rows, ignore_index=True)
    return sn, tracking[["world", "metric", "r_expected", "tau_expected", "r_observed", "r_alg1", "r_alg1_std"]]


def pearson_sd_delta(x, y, se) -> float:
    """Standard deviation of Pearson's r over Algorithm 1's trials, to first order in the A/B noise (delta method).

    Notes
    -----
    With ``x~`` and ``y~`` the z-scores (ddof 0) of the offline and online
    differences over the ``n`` networks and ``r`` their Pearson correlation,
    ``d r / d y_k = (x~_k - r y~_k) / (n sd(y))``, so a trial that moves each
    ``y_k`` by ``se_k z_k`` (``z ~ N(0, I)``) moves ``r`` with standard deviation
    ``sqrt(sum_k se_k^2 (x~_k - r y~_k)^2) / (n sd(y))``.  With equal ``se`` this
    is about ``sqrt(1 - r^2) sqrt(s / n)``, ``s = se^2 / var(y)`` the noise
    share: the closer ``|r|`` is to 1, the less the noise moves ``r``, and a
    network far from the others in ``x`` and ``y`` weighs in by its residual
    only.

    Examples
    --------
    >>> round(pearson_sd_delta([0.0, 1.0, 2.0], [0.0, 1.0, 2.0], [0.1, 0.1, 0.1]), 12)  # r = 1: no first-order move
    0.0
    """
    x, y, se = (np.asarray(v, dtype=float) for v in (x, y, se))
    xs, ys = (x - x.mean()) / x.std(), (y - y.mean()) / y.std()
    r = float(np.mean(xs * ys))
    return float(np.sqrt(np.sum(se**2 * (xs - r * ys) ** 2)) / (len(y) * y.std()))


def noise_diagnosis(offline: pd.DataFrame, online: pd.DataFrame, corr: pd.DataFrame, beta_best: float,
                    ref: pd.DataFrame) -> pd.DataFrame:
    """Why Pearson's spread over the trials is what it is, in our world and in the paper's Table 1.

    One row per Table 1 metric: our Pearson r and its sd over the trials
    (``corr``, :func:`correlation_table`), the sd to first order in the noise
    (:func:`pearson_sd_delta`), the largest share of the online variance one
    network carries (``top_share``, of ``(y_k - mean y)^2``) and the noise share
    ``mean(se^2) / var(y)``; beside the paper's printed r and sd and the noise
    share they imply with equal noise on every network,
    ``s = n sd^2 / (1 - r^2)`` (``n`` the paper's 25 networks, the first-order law of
    :func:`pearson_sd_delta` solved for ``s``), and the ceiling that noise share
    puts on Algorithm 1's r of a metric equal to the expected online difference,
    ``sqrt((1 - s) / (1 + s))`` (the observed differences hold the noise once,
    the trials add it again).
    """
    m = offline.merge(online, on="network")
    y, se = m["online"].to_numpy(), m["online_se"].to_numpy()
    share = (y - y.mean()) ** 2 / np.sum((y - y.mean()) ** 2)
    noise_share = float(np.mean(se**2) / np.var(y, ddof=1))
    c = corr.set_index("metric")
    n_paper = reference.lookup_number(ref, "Section 3", "publisher networks", "value")
    rows = []
    for col, row in (("MSE", "MSE"), ("Weighted MSE", "Weighted MSE"), ("Utility", "Utility"),
                     (eu_column(beta_best), "EU (best beta)")):
        r_p = reference.parse_printed(reference.lookup(ref, "Table 1", row, "Pearson r"))
        sd_p = reference.parse_printed(reference.lookup(ref, "Table 1", row, "Pearson r std"))
        s_p = n_paper * sd_p**2 / (1 - r_p**2)
        rows.append({
            "metric": col, "pearson_r": float(c.loc[col, "pearson_r"]), "pearson_r_std": float(c.loc[col, "pearson_r_std"]),
            "pearson_r_std_delta": pearson_sd_delta(m[col].to_numpy(), y, se), "top_share": float(share.max()),
            "noise_share": noise_share, "paper_pearson_r": r_p, "paper_pearson_r_std": sd_p,
            "paper_noise_share": s_p, "paper_ceiling_alg1": float(np.sqrt((1 - s_p) / (1 + s_p))),
        })
    return pd.DataFrame(rows)


def pearson_spread_why(diag: pd.DataFrame | None, metric: str, coef: str) -> str:
    """Why a Pearson row's spread over the trials is what it is (empty for Kendall rows or without a diagnosis)."""
    if diag is None or coef != "r":
        return ""
    d = diag.loc[metric]
    return (f"; to first order the trials move Pearson r by about sqrt(1 - r^2) sqrt(s / n), s the noise's share of "
            f"the online variance: here r = {d['pearson_r']:.3f}, s = {d['noise_share']:.2%} and one network carries "
            f"{d['top_share']:.0%} of the online variance (first-order sd {d['pearson_r_std_delta']:.3f}), while "
            f"Kendall tau reorders the small networks; the paper's r = {d['paper_pearson_r']:g} +- "
            f"{d['paper_pearson_r_std']:g} implies s = {d['paper_noise_share']:.1%}")


def paper_noise_why(diag: pd.DataFrame | None) -> str:
    """What Table 1's own standard deviations say of the paper's A/B noise (empty without a diagnosis)."""
    if diag is None:
        return ("; the paper's correlations (0.24 to 0.61) leave room for noise, this world's do not: its networks "
                "differ more in profit than the paper's did")
    s, c = diag["paper_noise_share"], diag["paper_ceiling_alg1"]
    return (f"; the paper's own Table 1 does not leave much room either: with equal noise on its 25 networks, each "
            f"printed r and its sd over the trials imply a noise share of {s.min():.1%} to {s.max():.1%} of the online "
            f"variance, which caps Algorithm 1's r of a metric equal to the expected A/B difference at {c.min():.2f} "
            f"to {c.max():.2f}, well above the printed 0.24 to 0.61 (chapelle/noise_diagnosis.csv)")


def paper_table1(ref: pd.DataFrame, column: str = "Pearson r") -> dict:
    """The paper's Table 1 column as ``{metric: printed text}`` (MSE, Weighted MSE, Utility, EU (best beta))."""
    return {m: reference.lookup(ref, "Table 1", m, column) for m in ("MSE", "Weighted MSE", "Utility", "EU (best beta)")}


def fig1(betas, corr_beta: pd.DataFrame, corr_limits: pd.DataFrame, *, paper_beta=None):
    """Fig. 1: Pearson r and Kendall tau of the EU against beta, the two limits as horizontal lines."""
    fig, ax = new_figure(1, 1, width="single")
    lim = corr_limits.set_index("metric")
    for key, label, color in (("pearson_r", "Pearson r", "C0"), ("kendall_tau", "Kendall $\\tau$", "C1")):
        y, s = corr_beta[key].to_numpy(), corr_beta[key + "_std"].to_numpy()
        ax.plot(betas, y, "o-", color=color, ms=3, label=f"EU, {label}")
        ax.fill_between(betas, y - s, y + s, color=color, alpha=0.15, lw=0)
        ax.axhline(lim.loc["Weighted MSE", key], color=color, ls="--", lw=0.8)
        ax.axhline(lim.loc["Utility", key], color=color, ls=":", lw=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("$\\beta$ (1 / \\$ per impression)")
    ax.set_ylabel("correlation with the A/B test")
    ax.plot([], [], "k--", lw=0.8, label="$\\beta\\to0$: weighted MSE")
    ax.plot([], [], "k:", lw=0.8, label="$\\beta\\to\\infty$: utility")
    if paper_beta is not None:
        ax.axvline(paper_beta, color="0.5", lw=0.6)
        ax.annotate("paper's best $\\beta$", (paper_beta, ax.get_ylim()[0]), xytext=(3, 3),
                    textcoords="offset points", fontsize=6, color="0.4")
    ax.legend(loc="best", fontsize=6)
    return fig


def fig2(offline: pd.DataFrame, online: pd.DataFrame, beta_best: float):
    """Fig. 2: per-network offline vs online differences, EU (left) and weighted MSE (right)."""
    fig, axes = new_figure(2, 1, width="double", height=2.6)
    y, se = online["online"].to_numpy() * 1e3, online["online_se"].to_numpy() * 1e3
    for ax, col, title in ((axes[0], eu_column(beta_best), f"expected utility ($\\beta$ = {beta_best:.3g})"),
                           (axes[1], "Weighted MSE", "weighted MSE (negated)")):
        x = offline[col].to_numpy()
        ax.errorbar(x, y, yerr=se, fmt="o", ms=3, lw=0.6, capsize=0, color="C0")
        r = np.corrcoef(x, y)[0, 1]
        ax.set_title(f"{title}\nPearson r = {r:.2f} before resampling")
        ax.set_xlabel("offline difference B - A per display")
        ax.axhline(0, color="0.6", lw=0.5)
        ax.axvline(0, color="0.6", lw=0.5)
        ax.ticklabel_format(axis="x", style="sci", scilimits=(-2, 2))
    axes[0].set_ylabel("A/B profit difference B - A\n(\\$ per 1000 displays)")
    return fig


def in_decades(value: float) -> str:
    """A printed value beside its decimal logarithm, the scale its row is judged on: ``"10 (log10 1)"``."""
    return f"{value:g} (log10 {np.log10(value):g})"


def add_world_checks(ledger, noise_table: pd.DataFrame, n_displays: float, betas, corr: pd.DataFrame) -> None:
    """Our checks on the main world: the click noise at the paper's log size, and Fig. 1's two limits."""
    worst = noise_table.loc[noise_table["ratio_at_size"].idxmax()]
    ledger.check(
        "chapelle-check-click-noise", criterion=f"{n_displays:,.0f} displays per network",
        holds=bool((noise_table["ratio_at_size"] < CLICK_NOISE_MAX_RATIO).all()),
        reproduced_value=f"largest {worst['ratio_at_size']:.4f} ({worst['metric']})",
        note=f"at the simulated rows per network the ratio reaches {noise_table['ratio_simulated'].max():.3f} "
             f"({noise_table.loc[noise_table['ratio_simulated'].idxmax(), 'metric']}): why the drawn clicks are not used")
    r = corr.set_index("metric")["pearson_r"]
    betas = np.asarray(betas, dtype=float)
    gap_lo = float(abs(r[eu_column(betas[0])] - r["Weighted MSE"]))
    gap_hi = float(abs(r[eu_column(betas[-1])] - r["Utility"]))
    ledger.check("chapelle-fig1-limits", criterion=f"grid from beta = {betas[0]:g} to {betas[-1]:g}",
                 holds=gap_lo <= 0.02 and gap_hi <= 0.02, reproduced_value=f"gaps {gap_lo:.3f}, {gap_hi:.3f}")
