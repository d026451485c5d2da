"""A synthetic real-time-bidding (RTB) world for chapelle Section 3.

Mechanism (the one the paper describes, with Criteo's proprietary logs
replaced by draws):

* **Publisher networks.**  ``n_networks`` networks (the paper's 25, each an
  RTB platform or a group of small ones) differ in click-through-rate level,
  in the values advertisers put on a click and in competition: network ``k``
  has a median CTR ``ctr_k``, a median value ``value_k`` (lower on high-CTR
  networks, ``value_ctr_elasticity``) and a log-normal highest competing bid
  with median ``price_k`` (higher where the traffic is worth more,
  ``price_bid_elasticity``) and log-sd ``price_sigma_k`` (log-normal is what
  fits real exchanges, Ghosh et al. 2009).
* **Impressions.**  Each bid request has a context score ``z ~ N(0, 1)``
  and a value noise ``w ~ N(0, 1)``; its true click probability is
  ``logit p = logit ctr_k + ctr_sigma z`` and its click value
  ``v = value_k exp(value_sigma w - value_sigma^2 / 2)``.  The highest
  competing bid is ``log c = log price_k + price_sigma_k (rho s + sqrt(1 - rho^2) eta)``,
  ``s`` the standardised ``ctr_sigma z + value_sigma w`` (the competitors
  also bid more on valuable impressions) and ``eta ~ N(0, 1)``.  A click
  ``a ~ Bernoulli(p)``.
* **Two prediction functions.**  Model ``m`` in {A, B} predicts
  ``logit p_m = logit p + bias_{m,k} + value_bias_{m,k} w + noise_{m,k} eps``,
  ``eps ~ N(0, 1)`` per request: a calibration error
  ``bias_{m,k} ~ N(0, bias_sd)``, a value-correlated calibration error (a
  slope ``value_bias_{m,k} ~ N(0, value_bias_sd)`` on the impression's
  standardised log value ``w``: advertisers of different values are
  mis-predicted differently) and a noise level
  ``noise_{m,k} ~ U(noise_low, noise_high)``, all drawn per network, so which
  model is better differs from network to network.  With
  ``bias_order="candidate_above"`` the two calibration errors of each network
  are drawn as before and the larger is given to the candidate B: B predicts
  above the production model A on every network (up to the per-request
  noise), the premise of the paper's eq. (2), "if p >= p-bar ... the utility
  is the same for p and p-bar" (Section 2.2).  A bidder bids ``p_m v``
  and wins when ``p_m v > c``, paying ``c``.
* **Offline logs.**  By default (``log_arms="a"``) the logs are the auctions
  won by the production bidder A: ``n_log`` bid requests per network, and
  only the auctions it won are kept -- no exploration data, the paper's
  setting ("if p-bar is the production function used to collect the data,
  then p-bar(x_i) v_i > c_i", Section 2.2).  ``log_arms="ab"`` logs the won
  auctions of both A/B arms (``n_log`` requests each, answered by that arm's
  bidder).  Every logged row carries ``a, v, c`` and both models'
  predictions.
* **Exploration (the control world).**  The paper credits the lack of
  exploration data for the utility's blindness to over-prediction ("This
  last inequality would not hold if *exploration* data were included";
  "Using exploration data with the utility would penalize overpredictions and
  fix the issue", Sections 2.2-2.3).  ``exploration=True`` switches exactly
  that off: every bid request of each logged arm is logged, won or lost, with
  its click and highest competing bid (a bidder that explored by winning every
  auction), from the same draws -- :func:`without_exploration` of that world
  is the world drawn with ``exploration=False``.
* **A/B test.**  Each bidder buys on its own half of the traffic.  The paper's
  networks hold at least 30M impressions each (small ones were grouped), far
  more than can be simulated row by row, so with ``ab_impressions`` set
  (default 30e6, the paper's minimum, for every network) each arm's profit is
  drawn from its central-limit law: with ``mu_m`` and ``var_m`` the exact
  per-request mean and variance of the profit ``(a v - c) 1(p_m v > c)``
  (integrated in closed form over the click and the log-normal competing bid,
  averaged over ``n_ab`` simulated contexts, :func:`expected_ab`), an arm of
  ``N`` requests -- ``N`` chosen so that both arms together display
  ``ab_impressions`` ads in expectation -- has profit
  ``N mu_m + sqrt(N var_m) Z`` and ``N win_m`` displays (rounded; their
  binomial noise is negligible at this size).  The draws ``Z`` are kept, so
  :func:`resize_ab` replays the same test at another size.  With
  ``ab_impressions=None`` the test is simulated row by row on ``n_ab``
  requests per network.  Per arm the world records the requests, the
  displays, the profit ``sum (a v - c)`` over displays and its standard
  error ``sqrt(N var(per-request profit))``.

Every random draw comes from one ``numpy.random.Generator`` (children
spawned per network and per population), so a seed fixes the whole world.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from .._validation import InputTypeError, check_bool, check_choice, check_int, check_real, check_rng, check_work
from ._checks import check_pair

__all__ = ["RTBWorld", "expected_ab", "resize_ab", "simulate_rtb", "without_exploration"]


@dataclass
class RTBWorld:
    """The output of :func:`simulate_rtb`.

    Attributes
    ----------
    networks : DataFrame, one row per network
        The network's knobs: ``network, ctr, value, price, price_sigma,
        bias_a, bias_b, noise_a, noise_b``.
    logs : DataFrame, one row per logged (won) auction
        ``network, arm, a, v, c, p_true, p_a, p_b`` (``int16``, ``str``,
        ``int8`` and float64 columns); ``arm`` is the bidder that won it.
    ab : DataFrame, one row per network
        ``requests_a, displays_a, profit_a, se_a`` and the same for ``b``
        (with ``ab_impressions`` set, also the standard-normal draws ``z_a, z_b``).
    expected : DataFrame or None, one row per network
        The exact per-request moments the A/B test was drawn from
        (:func:`expected_ab`); ``None`` when the test was simulated row by row.
    params : dict
        The keyword arguments the world was drawn with.
    """

    networks: pd.DataFrame
    logs: pd.DataFrame
    ab: pd.DataFrame
    params: dict
    expected: pd.DataFrame | None = None


def _requests(rng, n, net, k, *, ctr_sigma, value_sigma, rho):
    """Draw ``n`` bid requests of network row ``net``: true p, value, price, click."""
    z = rng.standard_normal(n)
    w = rng.standard_normal(n)
    eta = rng.standard_normal(n)
    logit_true = special.logit(net["ctr"]) + ctr_sigma * z
    p_true = special.expit(logit_true)
    v = net["value"] * np.exp(value_sigma * w - 0.5 * value_sigma**2)
    s = (ctr_sigma * z + value_sigma * w) / np.hypot(ctr_sigma, value_sigma)
    c = net["price"] * np.exp(net["price_sigma"] * (rho * s + np.sqrt(1.0 - rho**2) * eta))
    a = (rng.random(n) < p_true).astype(np.int8)
    return logit_true, p_true, v, c, a, w


def _won(p, v, c):
    """The logging bidder wins when its bid ``p v`` exceeds the highest competing bid (eq. 1)."""
    return p * v > c


def _predict(rng, logit_true, w, net, model):
    """Model ``model``'s prediction: the true logit plus its network's calibration error, its
    value-correlated error (a slope on the impression's standardised log value ``w``) and noise."""
    eps = rng.standard_normal(len(logit_true))
    shift = net[f"bias_{model}"] + net[f"value_bias_{model}"] * w
    return special.expit(logit_true + shift + net[f"noise_{model}"] * eps)


def _context_moments(rng, n, net, *, ctr_sigma, value_sigma, rho, models=("a", "b")):
    """Per-request win probability, mean and second moment of the profit of each model's bidder.

    Draws ``n`` contexts ``(z, w)`` and each model's prediction noise, and
    integrates the click and the competing bid in closed form: given the
    context, ``log c ~ N(mu, sd^2)`` with ``mu = log price_k + price_sigma_k rho s``
    and ``sd = price_sigma_k sqrt(1 - rho^2)``, so with ``d = (log b - mu) / sd``,
    ``Pr(c < b) = Phi(d)``, ``E[c 1(c < b)] = exp(mu + sd^2/2) Phi(d - sd)`` and
    ``E[c^2 1(c < b)] = exp(2 mu + 2 sd^2) Phi(d - 2 sd)``; ``a`` is Bernoulli(p)
    independent of ``c`` given the context, and ``a^2 = a``.
    """
    z = rng.standard_normal(n)
    w = rng.standard_normal(n)
    logit_true = special.logit(net["ctr"]) + ctr_sigma * z
    p = special.expit(logit_true)
    v = net["value"] * np.exp(value_sigma * w - 0.5 * value_sigma**2)
    s = (ctr_sigma * z + value_sigma * w) / np.hypot(ctr_sigma, value_sigma)
    mu = np.log(net["price"]) + net["price_sigma"] * rho * s
    sd = net["price_sigma"] * np.sqrt(1.0 - rho**2)
    # what the models share, computed once: the competing bid's partial-moment scales and the click's value terms
    m1, m2 = np.exp(mu + 0.5 * sd**2), np.exp(2.0 * mu + 2.0 * sd**2)
    pv, pv2, two_pv = p * v, p * v**2, 2.0 * p * v
    out = {}
    for model in models:
        b = _predict(rng, logit_true, w, net, model) * v
        if sd > 0:
            d = (np.log(b) - mu) / sd
            win, c1, c2 = special.ndtr(d), special.ndtr(d - sd), special.ndtr(d - 2.0 * sd)
        else:  # a point mass at the price: the bidder wins when b > c
            win = c1 = c2 = (b > np.exp(mu)).astype(float)
        ec = m1 * c1
        ec2 = m2 * c2
        mean = pv * win - ec
        second = pv2 * win - two_pv * ec + ec2
        out[f"win_{model}"] = float(win.mean())
        out[f"profit_{model}"] = float(mean.mean())
        out[f"var_{model}"] = float(max(second.mean() - mean.mean() ** 2, 0.0))
    return out


def expected_ab(networks: pd.DataFrame, *, n_contexts: int = 400_000, ctr_sigma: float = 0.8,
                value_sigma: float = 0.6, price_corr: float = 0.3, rng=None) -> pd.DataFrame:
    """Exact per-request moments of each bidder's profit on each network (the A/B test's expectation).

    Parameters
    ----------
    networks : DataFrame
        ``RTBWorld.networks`` (one row per network with its knobs).
    n_contexts : int, default 400_000
        Contexts ``(z, w)`` drawn per network to average over; the click and
        the competing bid are integrated in closed form; ``n_contexts`` times
        the networks at most 2**30.
    ctr_sigma, value_sigma, price_corr : float
        The world's knobs (``RTBWorld.params``).
    rng : int, numpy.random.Generator or None
        Source of the contexts.

    Returns
    -------
    DataFrame, one row per network
        ``network, win_a, profit_a, var_a, win_b, profit_b, var_b``: per bid
        request, the probability that the bidder wins, the mean and the
        variance of its profit ``(a v - c) 1(p_m v > c)``.

    Notes
    -----
    Given a context, ``log c`` is normal with mean
    ``mu = log price_k + price_sigma_k rho s`` and sd
    ``sd = price_sigma_k sqrt(1 - rho^2)``; with ``b = p_m v`` and
    ``d = (log b - mu) / sd``,

    ``E[profit | x] = p v Phi(d) - exp(mu + sd^2/2) Phi(d - sd)``,
    ``E[profit^2 | x] = p v^2 Phi(d) - 2 p v exp(mu + sd^2/2) Phi(d - sd) + exp(2 mu + 2 sd^2) Phi(d - 2 sd)``

    (log-normal partial moments; ``a`` and ``c`` independent given ``x``).
    The variance is ``E[E[profit^2 | x]] - E[profit]^2``.

    Examples
    --------
    A bidder never pays more than it expects to earn, so its expected profit
    per request is positive when it predicts the truth:

    >>> w = simulate_rtb(n_networks=2, n_log=100, n_ab=100, bias_sd=0.0, value_bias_sd=0.0, noise=(0.0, 0.0), rng=0)
    >>> e = expected_ab(w.networks, n_contexts=10_000, rng=1)
    >>> bool((e["profit_a"] > 0).all()), bool(np.allclose(e["profit_a"], e["profit_b"]))
    (True, True)
    """
    if not isinstance(networks, pd.DataFrame):
        raise InputTypeError(f"`networks` must be a DataFrame (RTBWorld.networks); got {type(networks).__name__}")
    check_int(n_contexts, "n_contexts", low=1)
    check_work(int(n_contexts) * len(networks), "n_contexts", n_contexts, what="contexts (n_contexts x networks)")
    gen = check_rng(rng)
    rows = []
    for net_rng, (_, net) in zip(gen.spawn(len(networks)), networks.iterrows()):
        m = _context_moments(net_rng, int(n_contexts), net, ctr_sigma=ctr_sigma, value_sigma=value_sigma, rho=price_corr)
        rows.append({"network": int(net["network"]), **m})
    return pd.DataFrame(rows, columns=["network", "win_a", "profit_a", "var_a", "win_b", "profit_b", "var_b"])


def simulate_rtb(
    *,
    n_networks: int = 25,
    n_log: int = 40_000,
    n_ab: int = 400_000,
    ctr_median: float = 3e-3,
    ctr_spread: float = 0.5,
    ctr_sigma: float = 0.8,
    value_median: float = 0.4,
    value_spread: float = 0.5,
    value_sigma: float = 0.6,
    price_median: float = 1e-3,
    price_spread: float = 0.5,
    price_sigma: tuple[float, float] = (0.4, 1.2),
    price_corr: float = 0.3,
    value_ctr_elasticity: float = 0.5,
    price_bid_elasticity: float = 1.0,
    bias_sd: float = 0.3,
    value_bias_sd: float = 0.3,
    noise: tuple[float, float] = (0.1, 0.6),
    bias_order: str = "independent",
    log_arms: str = "a",
    exploration: bool = False,
    ab_impressions: float | None = 30e6,
    rng=None,
) -> RTBWorld:
    """Draw publisher networks, production logs and an A/B test (chapelle Section 3).

    Parameters
    ----------
    n_networks : int, default 25
        Number of publisher networks (the paper's 25).
    n_log : int, default 40_000
        Bid requests per network and logged arm, each answered by that arm's
        bidder; only the won auctions are logged.
    n_ab : int, default 400_000
        With ``ab_impressions`` set: contexts per network over which the
        exact per-request profit moments of the A/B test are averaged.  With
        ``ab_impressions=None``: bid requests per network in the A/B test,
        split into two equal halves and simulated row by row.
    ctr_median, ctr_spread : float, default 3e-3, 0.5
        Network CTR levels ``ctr_k = ctr_median exp(ctr_spread N(0, 1))``
        (display CTRs of a few per mille).
    ctr_sigma : float, default 0.8
        Spread of the true logit CTR within a network.
    value_median, value_spread : float, default 0.4, 0.5
        Network median click values ``value_k = value_median exp(value_spread N(0, 1))``
        in dollars (so a bid ``p v`` is about $1 CPM, 1e-3 per impression).
    value_sigma : float, default 0.6
        Log-sd of the click value within a network.
    price_median, price_spread : float, default 1e-3, 0.5
        Network median competing bids ``price_k = price_median exp(price_spread N(0, 1))``
        in dollars per impression (about $1 CPM, the paper's footnote 2).
    price_sigma : (float, float), default (0.4, 1.2)
        Range of the per-network log-sd of the competing bid (uniform): two finite
        numbers ``0 <= low <= high`` (a tuple, list or array).
    price_corr : float, default 0.3
        Correlation ``rho`` of the log competing bid with the impression's
        standardised log value ``ctr_sigma z + value_sigma w``.
    value_ctr_elasticity : float, default 0.5
        The value of a click falls with the network's CTR,
        ``value_k *= (ctr_k / ctr_median)^-elasticity`` (clicks on high-CTR
        placements convert less often).
    price_bid_elasticity : float, default 1.0
        Competition follows the value of the network's traffic,
        ``price_k *= (ctr_k value_k / (ctr_median value_median))^elasticity``
        (other bidders value the same traffic alike).
    bias_sd : float, default 0.3
        Sd of each model's per-network logit calibration error.
    value_bias_sd : float, default 0.3
        Sd of each model's per-network slope of its logit error on the
        impression's standardised log value (value-correlated calibration
        errors; 0 makes the errors independent of the value).
    noise : (float, float), default (0.1, 0.6)
        Range of each model's per-network logit noise level (uniform): two finite
        numbers ``0 <= low <= high``.
    bias_order : {"independent", "candidate_above"}, default "independent"
        ``"independent"``: each model's calibration error as drawn.
        ``"candidate_above"``: the same two draws per network, the larger
        given to the candidate B and the smaller to the production model A,
        so that B over-predicts relative to A on every network (the premise
        ``p >= p-bar`` of eq. 2, under which won-only logs cannot penalise
        the candidate's over-prediction).  The draws are the same either way.
    log_arms : {"a", "ab"}, default "a"
        Arms whose won auctions are logged: the production bidder A only (the
        paper's Section 2.2) or both arms of the A/B test.
    exploration : bool, default False
        ``False`` (the paper's setting, the mechanism on): only the auctions a
        logged arm won are logged, so on arm ``m``'s rows ``p_m v > c``.
        ``True`` (the control world): every bid request of a logged arm is
        logged, won or lost -- exploration data, with which the utility
        penalises over-prediction.  The draws are the same either way.
    ab_impressions : float or None, default 30e6
        Impressions (displays, both arms together) per network in the A/B
        test, the paper's minimum of 30M per network; each arm's profit is
        drawn from its central-limit law with the exact per-request moments
        (:func:`expected_ab`).  ``None`` simulates the test row by row on
        ``n_ab`` requests.
    rng : int, numpy.random.Generator or None
        Seed or generator; the only source of randomness.

    Returns
    -------
    RTBWorld

    Examples
    --------
    >>> w = simulate_rtb(n_networks=3, n_log=2000, n_ab=4000, rng=0)
    >>> len(w.networks), sorted(w.logs["network"].unique().tolist())
    (3, [0, 1, 2])
    >>> L = w.logs[w.logs["arm"] == "a"]
    >>> bool(((L["p_a"] * L["v"]) > L["c"]).all())  # won-only logs of arm A
    True
    """
    # the ranges first (as tuples of their own items): the record of the parameters below takes them apart
    price_sigma = check_pair(price_sigma, "price_sigma", what="a range (low, high)")
    noise = check_pair(noise, "noise", what="a range (low, high)")
    params = dict(
        n_networks=n_networks, n_log=n_log, n_ab=n_ab, ctr_median=ctr_median, ctr_spread=ctr_spread,
        ctr_sigma=ctr_sigma, value_median=value_median, value_spread=value_spread, value_sigma=value_sigma,
        price_median=price_median, price_spread=price_spread, price_sigma=tuple(price_sigma),
        price_corr=price_corr, value_ctr_elasticity=value_ctr_elasticity,
        price_bid_elasticity=price_bid_elasticity, bias_sd=bias_sd, value_bias_sd=value_bias_sd, noise=tuple(noise),
        bias_order=bias_order, log_arms=log_arms, exploration=exploration, ab_impressions=ab_impressions,
    )
    for name in ("n_networks", "n_log", "n_ab"):
        check_int(params[name], name, low=2)
    for name in ("ctr_median", "value_median", "price_median"):
        if not params[name] > 0:
            raise ValueError(f"`{name}` must be positive; got {params[name]!r}")
    if not ctr_median < 1:
        raise ValueError(f"`ctr_median` must be below 1; got {ctr_median!r}")
    for name in ("ctr_spread", "ctr_sigma", "value_spread", "value_sigma", "price_spread", "bias_sd", "value_bias_sd"):
        if not params[name] >= 0:
            raise ValueError(f"`{name}` must be non-negative; got {params[name]!r}")
    for name in ("price_sigma", "noise"):
        lo, hi = params[name]
        if not 0 <= lo <= hi:
            raise ValueError(f"`{name}` must be a range (low, high) with 0 <= low <= high; got {params[name]!r}")
    if not -1 < price_corr < 1:
        raise ValueError(f"`price_corr` must lie in (-1, 1); got {price_corr!r}")
    check_choice(bias_order, "bias_order", ("independent", "candidate_above"))
    if not (isinstance(log_arms, str) and log_arms in ("ab", "a")):  # a string first: an array has no truth value
        raise ValueError(f"`log_arms` must be 'ab' or 'a'; got {log_arms!r}")
    check_bool(exploration, "exploration")
    if ab_impressions is not None and not (np.isfinite(ab_impressions) and ab_impressions >= 2):
        raise ValueError(f"`ab_impressions` must be None or a number >= 2; got {ab_impressions!r}")

    gen = check_rng(rng)
    k = np.arange(n_networks)
    networks = pd.DataFrame(
        {
            "network": k,
            "ctr": ctr_median * np.exp(ctr_spread * gen.standard_normal(n_networks)),
            "value": value_median * np.exp(value_spread * gen.standard_normal(n_networks)),
            "price": price_median * np.exp(price_spread * gen.standard_normal(n_networks)),
            "price_sigma": gen.uniform(*price_sigma, n_networks),
            "bias_a": bias_sd * gen.standard_normal(n_networks),
            "bias_b": bias_sd * gen.standard_normal(n_networks),
            "noise_a": gen.uniform(*noise, n_networks),
            "noise_b": gen.uniform(*noise, n_networks),
        }
    )
    networks["value_bias_a"] = value_bias_sd * gen.standard_normal(n_networks)
    networks["value_bias_b"] = value_bias_sd * gen.standard_normal(n_networks)
    if bias_order == "candidate_above":
        lo = np.minimum(networks["bias_a"], networks["bias_b"])
        networks["bias_b"] = np.maximum(networks["bias_a"], networks["bias_b"])
        networks["bias_a"] = lo
    networks["ctr"] = networks["ctr"].clip(upper=0.5)
    rel_ctr = networks["ctr"] / ctr_median
    networks["value"] *= rel_ctr ** (-value_ctr_elasticity)
    networks["price"] *= (rel_ctr * networks["value"] / value_median) ** price_bid_elasticity
    kw = dict(ctr_sigma=ctr_sigma, value_sigma=value_sigma, rho=price_corr)
    n_half = n_ab // 2
    logs, ab, expected = [], [], []
    for net_rng, (_, net) in zip(gen.spawn(n_networks), networks.iterrows()):
        r_log_a, r_log_b, r_a, r_b = net_rng.spawn(4)
        k_net = int(net["network"])
        # logs of the test period: each logged arm's won auctions only, unless it explored
        for arm, r in (("a", r_log_a), ("b", r_log_b)):
            if arm not in log_arms:
                continue
            logit_true, p_true, v, c, a, w = _requests(r, n_log, net, k, **kw)
            p_a = _predict(r, logit_true, w, net, "a")
            p_b = _predict(r, logit_true, w, net, "b")
            won = np.ones(n_log, dtype=bool) if exploration else _won(p_a if arm == "a" else p_b, v, c)
            n_won = int(won.sum())
            logs.append({"network": np.full(n_won, k_net, dtype=np.int16), "arm": np.full(n_won, arm),
                         "a": a[won], "v": v[won], "c": c[won], "p_true": p_true[won], "p_a": p_a[won], "p_b": p_b[won]})
        # A/B test: each bidder on its own half of the traffic
        row = {"network": k_net}
        if ab_impressions is None:
            for model, r in (("a", r_a), ("b", r_b)):
                logit_true, _, v, c, a, w = _requests(r, n_half, net, k, **kw)
                p = _predict(r, logit_true, w, net, model)
                profit = np.where(p * v > c, a * v - c, 0.0)
                row[f"requests_{model}"] = n_half
                row[f"displays_{model}"] = int(np.count_nonzero(p * v > c))
                row[f"profit_{model}"] = float(profit.sum())
                row[f"se_{model}"] = float(np.sqrt(n_half * profit.var(ddof=1)))
        else:
            m = _context_moments(r_a, n_ab, net, **kw)
            expected.append({"network": k_net, **m})
            row.update(_clt_arms(m, ab_impressions, r_b.standard_normal(2)))
        ab.append(row)
    exp_df = pd.DataFrame(expected) if expected else None
    # one frame from the networks' columns joined (a frame per network then pd.concat converts every chunk's strings)
    log_df = pd.DataFrame({col: np.concatenate([chunk[col] for chunk in logs]) for col in logs[0]})
    return RTBWorld(networks=networks, logs=log_df, ab=pd.DataFrame(ab), params=params, expected=exp_df)


def _clt_arms(m: dict, ab_impressions: float, z) -> dict:
    """Both arms of a network's A/B test from their exact per-request moments ``m`` and two N(0, 1) draws ``z``.

    ``N`` requests per arm, chosen so that both arms together display
    ``ab_impressions`` ads in expectation; an arm's displays are their
    expectation ``N win_m`` rounded (their binomial noise, relative sd below
    1e-3 from 1M displays on, is negligible beside the profit's) and its
    profit ``N mu_m + sqrt(N var_m) z_m``.  The draws are kept (``z_a``,
    ``z_b``) so that :func:`resize_ab` can replay the same test at another size.
    """
    n_req = max(int(round(ab_impressions / max(m["win_a"] + m["win_b"], 1e-300))), 1)
    row = {}
    for model, z_m in zip(("a", "b"), z):
        se = float(np.sqrt(n_req * m[f"var_{model}"]))
        row[f"requests_{model}"] = n_req
        row[f"displays_{model}"] = int(round(n_req * m[f"win_{model}"]))
        row[f"profit_{model}"] = float(n_req * m[f"profit_{model}"] + se * float(z_m))
        row[f"se_{model}"] = se
        row[f"z_{model}"] = float(z_m)
    return row


def resize_ab(world: RTBWorld, ab_impressions) -> RTBWorld:
    """The same world with its A/B test replayed at another size, with the same standard-normal draws.

    Each arm's profit is ``N mu_m + sqrt(N var_m) z_m`` with the world's own
    moments and draws ``z_m``, so the online difference per display is its
    expectation plus a noise whose scale alone changes, as
    ``1 / sqrt(ab_impressions)``: a smooth function of the size, which is what
    calibrating the A/B test's noise level needs (common random numbers).
    ``resize_ab(w, w.params["ab_impressions"])`` gives ``w.ab`` back.

    Parameters
    ----------
    world : RTBWorld
        A world drawn with ``ab_impressions`` set (its A/B test from the
        central-limit law, ``world.expected`` present).
    ab_impressions : float or sequence of float
        Impressions (displays, both arms together) per network, >= 2: one
        number for every network, or one per network in the order of
        ``world.ab`` (networks of different sizes, so each with its own noise
        variance); recorded in ``params`` as a float or a tuple.

    Examples
    --------
    >>> w = simulate_rtb(n_networks=2, n_log=200, n_ab=2000, ab_impressions=1e6, rng=0)
    >>> resize_ab(w, 1e6).ab.equals(w.ab)
    True
    >>> big = resize_ab(w, 1e8).ab
    >>> bool(np.allclose(big["se_a"] / big["displays_a"], 0.1 * w.ab["se_a"] / w.ab["displays_a"], rtol=1e-3))
    True
    >>> resize_ab(w, [1e6, 1e8]).ab.iloc[1].equals(big.iloc[1])  # one size per network
    True
    """
    if not isinstance(world, RTBWorld):
        raise InputTypeError(f"`world` must be an RTBWorld; got {type(world).__name__}")
    if world.expected is None or "z_a" not in world.ab:
        raise ValueError("`world` must be drawn with `ab_impressions` set (an A/B test from its central-limit law)")
    if np.ndim(ab_impressions) == 0:
        sizes = [check_real(ab_impressions, "ab_impressions", low=2)] * len(world.ab)
        recorded = float(ab_impressions)
    else:
        arr = np.asarray(ab_impressions, dtype=float)
        if arr.shape != (len(world.ab),) or not (np.isfinite(arr) & (arr >= 2)).all():
            raise ValueError(f"`ab_impressions` must be a number >= 2 or one such number per network "
                             f"({len(world.ab)}); got {ab_impressions!r}")
        sizes = [float(x) for x in arr]
        recorded = tuple(sizes)
    rows = []
    for (_, m), (_, old), size in zip(world.expected.iterrows(), world.ab.iterrows(), sizes):
        rows.append({"network": int(old["network"]),
                     **_clt_arms(m.to_dict(), size, (old["z_a"], old["z_b"]))})
    return RTBWorld(networks=world.networks, logs=world.logs, ab=pd.DataFrame(rows, columns=world.ab.columns),
                    params={**world.params, "ab_impressions": recorded}, expected=world.expected)


def without_exploration(world: RTBWorld) -> RTBWorld:
    """The world without its exploration data: each logged arm's won auctions only.

    Applied to a world drawn with ``exploration=True`` it gives, row for row,
    the world drawn from the same seed with ``exploration=False`` (the same
    draws, the same comparison ``p_m v > c``); on a won-only world it changes
    nothing.  The networks, the A/B test and its moments are shared.

    Parameters
    ----------
    world : RTBWorld
        A world simulated with ``exploration=True``.

    Examples
    --------
    >>> kw = dict(n_networks=2, n_log=500, n_ab=500, rng=0)
    >>> explored = simulate_rtb(exploration=True, **kw)
    >>> len(explored.logs) == 2 * 500  # every request of the production bidder
    True
    >>> without_exploration(explored).logs.equals(simulate_rtb(**kw).logs)
    True
    """
    L = world.logs
    arm_a = (L["arm"] == "a").to_numpy()
    p = np.where(arm_a, L["p_a"].to_numpy(), L["p_b"].to_numpy())
    won = _won(p, L["v"].to_numpy(), L["c"].to_numpy())
    return RTBWorld(networks=world.networks, logs=L[won].reset_index(drop=True), ab=world.ab,
                    params={**world.params, "exploration": False}, expected=world.expected)


from ._checks import check_all as _check_all  # noqa: E402

_check_all(globals(), __all__)
