"""The arena's three worlds: candidate models, production logs, offline estimates, online outcomes.

Each ``*_arena`` function runs one seed of one world and returns one row per candidate model: every
offline estimate's delta against the production model (oriented so that higher is better: losses are
negated), and the online outcome of the candidate against production.  Each paper's mechanism is a
keyword that switches it on or off:

* chapelle's RTB (:func:`rtb_arena`): ``price_law`` ("gamma", the expected utility's own law of the
  competing bid, or "lognormal"), ``value_bias_sd`` (errors correlated with the click's value), one A/B
  test per candidate with its own noise at ``ab_impressions`` per network; on the same draws the offline
  estimates are also computed on logs with ``outlier_share`` of their values corrupted (rosset), with
  ``label_noise`` spurious clicks, and on every bid request (exploration logged: a representative sample);
* yi's sponsored search (:func:`sponsored_arena`): ``position`` and ``reserves``; ``explore_shares`` of
  extra traffic served in a uniformly random ranking with its propensities logged, on which
  :mod:`offline_eval.counterfactual`'s IPS, SNIPS and DR estimate each candidate's click yield;
* piovano's classifiers (:func:`classifier_arena`): ``representative`` offline sample or one distorted by
  (production, candidate) cell, and ``error_correlation`` between the candidate's errors and production's.

Everything is computed by the library (:mod:`offline_eval.synth`, :mod:`offline_eval.auction`,
:mod:`offline_eval.bidding`, :mod:`offline_eval.metrics`, :mod:`offline_eval.ranking`,
:mod:`offline_eval.adaptive`, :mod:`offline_eval.counterfactual`).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
from scipy import special, stats

from offline_eval import auction as au
from offline_eval import bidding as bd
from offline_eval.adaptive import joint_distribution, metrics_from_joint, online_adaptive_metrics
from offline_eval.metrics import log_loss, mean_squared_error, roc_auc_score
from offline_eval.synth import classifiers as cl
from offline_eval.synth import rtb
from offline_eval.synth import search_world as sw
from offline_eval.synth import sponsored as sp

#: Estimates of the leaderboards: column -> (label, paper).  Every delta is oriented "higher is better".
#: Equivalent statistics are one entry: rosset's rho(prediction, click) is a function of the AUC on a 0/1
#: click (the positives' mean rank), and RIG = 1 - log loss / H(base rate) is the log loss at the logs' one
#: base rate, so both order candidates scored on the same logs alike.
METRICS = {
    "auc": ("AUC = rho(prediction, click)", "yi / rosset"),
    "log_loss": ("log loss = RIG", "yi"),
    "mse": ("MSE", "yi / chapelle"),
    "ml_auc": ("mainline AUC", "yi"),
    "sim_cy": ("simulated CY (replay)", "yi"),
    "ips": ("IPS on exploration", "counterfactual"),
    "snips": ("SNIPS on exploration", "counterfactual"),
    "dr": ("DR on exploration", "counterfactual"),
    "rho_value": ("rho (bid, realised value)", "rosset"),
    "wmse": ("weighted MSE", "chapelle"),
    "utility": ("utility (replay)", "chapelle"),
    "eu": ("expected utility, best beta", "chapelle"),
    "raw": ("offline precision/recall", "piovano"),
    "ind": ("IndDis re-weighting", "piovano"),
    "joint": ("JointDis re-weighting (OAM)", "piovano"),
}
#: Chapelle's beta grid (rate of the Gamma competing-bid law, per dollar); the best is chosen out of sample.
BETAS = (10.0, 100.0, 1000.0, 10000.0)
#: Flat click curve (the "no position effect" switch): every slot examined alike (the library asks sidebar < mainline).
FLAT_CURVE = dict(mainline_decay=1.0, sidebar_top=0.999, sidebar_decay=1.0)
#: The production click model of the sponsored world (yi's model-1 noise).
PRODUCTION_NOISE = 0.6
#: The RTB world's knobs shared by its logs and its A/B moments.
RTB_KW = dict(ctr_sigma=0.8, price_corr=0.3)
#: The RTB log versions computed on the same draws: the won auctions as logged, with corrupted values
#: (rosset), with spurious clicks, and every bid request (exploration logged: the sample is representative).
LOG_VERSIONS = ("won", "outliers", "label_noise", "all")


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _graded(rng, n, low, high):
    """``n`` strengths graded across [low, high): one uniform draw in each of ``n`` equal strata, in random order
    (the candidates span the range evenly, so every seed's candidates differ by as much along the error direction)."""
    return low + (high - low) * rng.permutation((np.arange(n) + rng.random(n)) / n)


# -- chapelle's RTB world (bidder side) ---------------------------------------------------------------
def _rtb_candidates(rng, n, n_networks, *, bias_sd, value_bias_sd, noise):
    """``n`` candidate prediction functions: per network a calibration error, a value-correlated error and a
    noise level, at a random scale per candidate (candidates differ in how large their errors are)."""
    scale = _graded(rng, n, 0.0, 2.0)[:, None]
    return dict(bias=scale * bias_sd * rng.standard_normal((n, n_networks)),
                value_bias=scale * value_bias_sd * rng.standard_normal((n, n_networks)),
                noise=rng.uniform(*noise, (n, n_networks)))


def _competing_bids(rng, net_price, net_sigma, s, law, *, price_corr):
    """The highest competing bid given the context score ``s``: log-normal as in ``synth.rtb``, or Gamma with
    the same conditional mean and variance (shape ``1 / (exp(sd^2) - 1)``) -- chapelle's eq. (4) law.

    Both laws from one normal draw per request (the Gamma by its quantile at that draw's probability, the upper tail
    by the complemented function), so the two laws are common random numbers: the same requests bid high under
    both, and the stream's later draws (clicks, prediction noise) are the same whichever law is asked for."""
    sd = net_sigma * np.sqrt(1.0 - price_corr**2)
    mu = np.log(net_price) + net_sigma * price_corr * s
    z = rng.standard_normal(len(s))
    if law == "lognormal":
        return np.exp(mu + sd * z)
    shape = 1.0 / np.expm1(sd**2)
    unit = np.where(z < 0, special.gammaincinv(shape, special.ndtr(z)), special.gammainccinv(shape, special.ndtr(-z)))
    return unit * np.exp(mu + 0.5 * sd**2) / shape


def gamma_p_ladder(a, x):
    """The regularized lower incomplete gammas ``P(a, x)``, ``P(a + 1, x)``, ``P(a + 2, x)`` from one
    ``scipy.special.gammainc`` (at ``a + 2``) and the recurrence ``P(s, x) = P(s + 1, x) + x^s e^-x / Gamma(s + 1)``,
    taken downwards: every step adds a positive term, so each value is within a few ulps of scipy's own (a
    test checks them; not the same bits)."""
    p2 = special.gammainc(a + 2.0, x)
    with np.errstate(divide="ignore"):  # x = 0: d1 = 0 and P = 0 at every shape
        d1 = np.exp((a + 1.0) * np.log(x) - x - special.gammaln(a + 2.0))  # x^(a+1) e^-x / Gamma(a + 2)
        p1 = p2 + d1
        step = np.divide(d1 * (a + 1.0), x, out=np.zeros(np.broadcast(d1, x).shape), where=x > 0)
    return p1 + step, p1, p2


def _profit_moments(p, v, b, mu, sd, law):
    """Per-context mean and second moment of the profit ``(a v - c) 1(c < b)`` with ``a ~ Bernoulli(p)``,
    the competing bid integrated in closed form (log-normal or Gamma partial moments)."""
    if law == "lognormal":
        d = (np.log(b) - mu) / sd
        win, c1, c2 = special.ndtr(d), special.ndtr(d - sd), special.ndtr(d - 2.0 * sd)
        ec, ec2 = np.exp(mu + 0.5 * sd**2) * c1, np.exp(2.0 * mu + 2.0 * sd**2) * c2
    else:
        k = 1.0 / np.expm1(sd**2)
        theta = np.exp(mu + 0.5 * sd**2) / k
        x = b / theta
        p0, p1, p2 = gamma_p_ladder(k, x)
        win = p0
        ec = k * theta * p1
        ec2 = k * (k + 1.0) * theta**2 * p2
    mean = p * v * win - ec
    return win, mean, p * v**2 * win - 2.0 * p * v * ec + ec2


def _requests(rng, nets, per_network, value_sigma):
    """Bid requests of every network at once, ``per_network`` each: the network of each request ``k``, a reader
    ``g(col)`` of its network's column, the normal draw ``w`` of the value, the true logit and CTR,
    the value, and ``s``, the standardised signal the competing bid correlates with."""
    k = np.repeat(np.arange(len(nets)), per_network)
    g = lambda col: nets[col].to_numpy()[k]  # noqa: E731
    z, w = rng.standard_normal((2, len(k)))
    logit = special.logit(g("ctr")) + RTB_KW["ctr_sigma"] * z
    p, v = special.expit(logit), g("value") * np.exp(value_sigma * w - 0.5 * value_sigma**2)
    s = (RTB_KW["ctr_sigma"] * z + value_sigma * w) / np.hypot(RTB_KW["ctr_sigma"], value_sigma)
    return k, g, w, logit, p, v, s


def _rtb_ab(rng, nets, cands, *, n_contexts, value_sigma, law, ab_impressions):
    """Each candidate's own A/B test against production: exact per-request moments on ``n_contexts`` contexts per
    network, ``ab_impressions`` displays per network and test, each arm's profit its central-limit draw.
    Returns the observed and the expected total profit deltas, one per candidate."""
    n_net = len(nets)
    k, g, w, logit, p, v, s = _requests(rng, nets, n_contexts, value_sigma)
    rho = RTB_KW["price_corr"]
    mu, sd = np.log(g("price")) + g("price_sigma") * rho * s, g("price_sigma") * np.sqrt(1.0 - rho**2)
    bias = np.vstack([nets["bias_a"].to_numpy(), cands["bias"]])  # row 0: production
    vbias = np.vstack([nets["value_bias_a"].to_numpy(), cands["value_bias"]])
    noise = np.vstack([nets["noise_a"].to_numpy(), cands["noise"]])
    eps = rng.standard_normal((len(bias), len(k)))
    b = special.expit(logit + bias[:, k] + vbias[:, k] * w + noise[:, k] * eps) * v
    win, mean, second = _profit_moments(p, v, b, mu, sd, law)
    per_net = lambda x: x.reshape(len(bias), n_net, n_contexts).mean(axis=2)  # noqa: E731
    win, mean, second = per_net(win), per_net(mean), per_net(second)
    var = np.maximum(second - mean**2, 0.0)
    n_req = ab_impressions / np.maximum(win[0] + win[1:], 1e-300)  # requests per arm of each candidate's test
    expected = (n_req * (mean[1:] - mean[0])).sum(axis=1)
    zz = rng.standard_normal((2, len(bias) - 1, n_net))  # every test its own noise, in both arms
    observed = expected + (np.sqrt(n_req * var[1:]) * zz[1] - np.sqrt(n_req * var[0]) * zz[0]).sum(axis=1)
    return observed, expected


def average_ranks(x):
    """Ranks along the last axis, 1-based, ties given their average rank: ``scipy.stats.rankdata(x, axis=-1)``
    (method "average") with numpy's unstable sort, about twice as fast.  The ranks are whole or half integers, so
    any order of the tied values gives the same numbers (a test checks them against scipy's)."""
    x = np.asarray(x, dtype=np.float64)
    if np.isnan(x).any():
        return stats.rankdata(x, axis=-1)  # scipy's rule for nan
    order = np.argsort(x, axis=-1)
    xs = np.take_along_axis(x, order, axis=-1)
    n = x.shape[-1]
    pos = np.broadcast_to(np.arange(n), x.shape)
    first = np.ones(x.shape, bool)  # a sorted position that starts a run of ties
    first[..., 1:] = xs[..., 1:] != xs[..., :-1]
    ranks = np.empty(x.shape)
    if first.all():  # no ties: every run one long, lo = hi = the sorted position, (lo + hi + 2) / 2 = position + 1
        np.put_along_axis(ranks, order, pos + 1.0, axis=-1)
        return ranks
    last = np.ones(x.shape, bool)
    last[..., :-1] = first[..., 1:]
    lo = np.maximum.accumulate(np.where(first, pos, 0), axis=-1)  # the run's first and last sorted positions
    hi = np.flip(np.minimum.accumulate(np.flip(np.where(last, pos, n), -1), axis=-1), -1)
    np.put_along_axis(ranks, order, (lo + hi + 2) / 2.0, axis=-1)
    return ranks


def rho_rows(x, y):
    """Spearman's rho of each row of ``x`` (models x rows) with ``y``, average ranks for ties: the library's
    :func:`~offline_eval.ranking.spearman_rho` for many models at once (``y`` ranked once; a test checks them)."""
    rx = average_ranks(x)
    rx -= rx.mean(axis=1, keepdims=True)
    ry = average_ranks(y)
    ry -= ry.mean()
    den = np.sqrt((rx * rx).sum(axis=1) * (ry * ry).sum())
    return np.divide(rx @ ry, den, out=np.full(len(rx), np.nan), where=den > 0)


def _rtb_offline(y, v, c, preds, eu_rows=None, same_clicks=None):
    """The offline estimates of every prediction row of ``preds`` (models x logged rows), one frame row per model
    (higher is better); chapelle's expected utility from its per-row values ``eu_rows`` ({beta: models x rows},
    :func:`_eu_rows`), given only on won-only logs (its premise: every logged bid won, Section 2.2).  With
    ``same_clicks``, this function's frame on the same clicks and predictions (other values): its AUC, log loss and
    MSE, functions of the clicks and predictions alone, are taken, not computed again."""
    yp = (same_clicks[["auc", "log_loss", "mse"]].to_dict("records") if same_clicks is not None else
          [dict(auc=_quiet(roc_auc_score, y, p), log_loss=-log_loss(y, p), mse=-mean_squared_error(y, p)) for p in preds])
    off = pd.DataFrame([dict(**m, wmse=-bd.weighted_mean_squared_error(y, v, p), utility=bd.utility(y, v, p, c))
                        for m, p in zip(yp, preds)])
    for beta, rows in (eu_rows or {}).items():
        off[f"eu_{beta:g}"] = [bd.sum_expected_utility(r) for r in rows]
    return off


def _eu_rows(y, v, c, preds, like=None):
    """Chapelle's expected utility of each logged row for every model (row of ``preds``), at every beta of
    :data:`BETAS`: ``{beta: array (models x rows)}``, :func:`offline_eval.bidding.expected_utility_per_row` on all
    models' rows at once (validated once).  With ``like = (eu_rows, y0, v0)``, the per-row values of the same
    predictions and bids on logs that differ from ``(y0, v0)`` in a few rows: only those rows are computed again
    (a row's value depends on that row alone, so the others are the same numbers)."""
    if like is None:
        changed, out = slice(None), {}
    else:
        base, y0, v0 = like
        changed = np.flatnonzero((y != y0) | (v != v0))
        out = {beta: rows.copy() for beta, rows in base.items()}
    m = len(preds)
    y_, v_, c_, p_ = np.tile(y[changed], m), np.tile(v[changed], m), np.tile(c[changed], m), preds[:, changed].ravel()
    for i, beta in enumerate(BETAS):
        if like is None:
            out[beta] = bd.expected_utility_per_row(y_, v_, p_, c_, beta=beta, check_input=i == 0).reshape(m, -1)
        elif len(p_):
            out[beta][:, changed] = bd.expected_utility_per_row(y_, v_, p_, c_, beta=beta, check_input=i == 0
                                                                ).reshape(m, -1)
    return out


def rtb_arena(seed, *, n_candidates=16, n_networks=8, n_log=3000, n_contexts=3000, ab_impressions=30e6,
              ctr_median=0.01, value_sigma=0.6, bias_sd=0.3, value_bias_sd=0.3, noise=(0.1, 0.6), price_law="gamma",
              outlier_share=0.005, outlier_factor=100.0, label_noise=0.002, versions=LOG_VERSIONS) -> pd.DataFrame:
    """One seed of chapelle's RTB world: one row per (log version, candidate), offline deltas and the A/B profit delta.

    The networks are ``synth.rtb``'s (its price level, values and production errors); the bid requests are
    drawn here for every network at once, the highest competing bid from ``price_law``.  The production
    bidder's logs are its won auctions; on the same draws, version ``"outliers"`` multiplies the logged value
    of ``outlier_share`` of the rows by ``outlier_factor`` (a unit error: rosset's corrupted response),
    ``"label_noise"`` adds a spurious click to ``label_noise`` of the rows, ``"all"`` logs every request.
    Each candidate has its own A/B test (:func:`_rtb_ab`), ``ab_impressions`` per network (chapelle's 30M).
    """
    r_world, r_req, r_cand, r_ab, r_noise = np.random.default_rng(seed).spawn(5)
    nets = rtb.simulate_rtb(n_networks=n_networks, n_log=2, n_ab=2, ctr_median=ctr_median, value_sigma=value_sigma,
                            bias_sd=bias_sd, value_bias_sd=value_bias_sd, noise=noise, rng=r_world).networks
    k, g, w, logit, p_true, v, s = _requests(r_req, nets, n_log, value_sigma)
    c = _competing_bids(r_req, g("price"), g("price_sigma"), s, price_law, price_corr=RTB_KW["price_corr"])
    a = (r_req.random(len(k)) < p_true).astype(np.int8)
    cands = _rtb_candidates(r_cand, n_candidates, n_networks, bias_sd=bias_sd, value_bias_sd=value_bias_sd, noise=noise)
    bias = np.vstack([g("bias_a"), cands["bias"][:, k]])
    slope = np.vstack([g("value_bias_a"), cands["value_bias"][:, k]])
    nz = np.vstack([g("noise_a"), cands["noise"][:, k]])
    preds = special.expit(logit + bias + slope * w + nz * r_req.standard_normal(bias.shape))  # row 0: production
    online, expected = _rtb_ab(r_ab, nets, cands, n_contexts=n_contexts, value_sigma=value_sigma, law=price_law,
                               ab_impressions=ab_impressions)
    won = preds[0] * v > c
    corrupt = r_noise.random(len(k)) < outlier_share
    spurious = r_noise.random(len(k)) < label_noise
    frames, shared, done = [], None, {}
    for version in versions:
        rows = np.ones(len(k), bool) if version == "all" else won
        vv = np.where(corrupt, v * outlier_factor, v) if version == "outliers" else v
        yy = np.where(spurious, 1, a).astype(np.int8) if version == "label_noise" else a
        y_, v_, c_, p_ = yy[rows], vv[rows], c[rows], preds[:, rows]
        eu = None
        if version != "all":  # the versions of the won-only logs share most rows: their EUs are computed once
            eu = _eu_rows(y_, v_, c_, p_, like=shared)
            shared = shared or (eu, y_, v_)
        # the corrupted values leave the clicks and predictions of the won auctions as they were
        off = done[version] = _rtb_offline(y_, v_, c_, p_, eu, done.get("won") if version == "outliers" else None)
        off["rho_value"] = rho_rows(p_ * v_, y_ * v_)
        frames.append((off.iloc[1:] - off.iloc[0]).add_prefix("off_").reset_index(drop=True)
                      .assign(log=version, candidate=np.arange(n_candidates), online=online, online_expected=expected))
    return pd.concat(frames, ignore_index=True)


# -- yi's sponsored-search world (publisher side) -----------------------------------------------------
def _sponsored_candidate(rng, ctr, noise_sd=None):
    """A candidate click model: noise (``noise_sd``, graded across the candidates by :func:`sponsored_arena`),
    calibration by range (low / high shifts), scale, and in a third of them a rank-preserving low-range
    over-estimation (yi Table 6)."""
    p = sp.distorted_pclick(ctr, rng, noise_sd=rng.uniform(0.2, 0.9) if noise_sd is None else noise_sd, scale=float(np.exp(0.3 * rng.standard_normal())),
                            low_ctr=0.004, low_shift=float(rng.uniform(0, 4) * (rng.random() < 0.5)),
                            high_shift=float(0.3 * rng.standard_normal()))
    if rng.random() < 1 / 3:
        p = sp.overestimate_low_range(p, low_ctr=0.004, low_shift=float(rng.uniform(1, 4)))
    return p


def explore(world, page_views, rng):
    """Serve page views in a uniformly random ranking of their entrants (no reserve): the exploration log.

    Returns ``(ad, click, pscore)``, each of shape (n_page_views, n_slots): the ad in each slot (-1: empty),
    its click, and the probability that the random ranking put that ad in that slot (``1 / K`` for ``K``
    entrants; 1 for an empty slot, which every ranking leaves empty).
    """
    n, n_slots = len(page_views), world.n_slots
    key = np.where(page_views.bids > 0, rng.random(page_views.bids.shape), -1.0)
    order = np.argsort(-key, axis=1, kind="stable")[:, :n_slots]
    n_entrants = (page_views.bids > 0).sum(axis=1)
    filled = np.arange(n_slots)[None, :] < np.minimum(n_entrants, n_slots)[:, None]
    ad = np.where(filled, order, -1)
    p_click = np.where(filled, world.ctr[page_views.query[:, None], np.maximum(ad, 0)] * world.click_curve[None, :], 0.0)
    click = (rng.random((n, n_slots)) < p_click).astype(np.float64)
    pscore = np.where(filled, 1.0 / np.maximum(n_entrants, 1)[:, None], 1.0)
    return ad, click, pscore


def ranking(world, p, page_views, op):
    """The ad a model puts in each slot of each page view (-1: empty)."""
    alloc = au.allocate(page_views.bids, p[page_views.query], alpha=op.alpha, reserve=op.reserve,
                        mainline_reserve=op.mainline_reserve, n_mainline=world.n_mainline, n_sidebar=world.n_sidebar)
    pv, ad, slot, _ = alloc.shown()
    out = np.full((len(page_views), world.n_slots), -1)
    out[pv, slot] = ad
    return out


def counterfactual_cy(world, target, page_views, logged, reward_model):
    """IPS, SNIPS and DR estimates of a model's click yield (clicks per page view) from the exploration log.

    Clicks are independent across slots given the ad and the slot (:func:`~offline_eval.synth.search_world.serve`),
    so each (page view, slot) is one logged action: the target policy takes the logged one when it puts the
    same ad in that slot (the independent item-position estimator); the click yield is the per-slot value
    times the number of slots (SNIPS: the sum of each slot's self-normalised value).  ``target``: the ad the model puts in each slot (:func:`ranking`).  DR's reward model: ``reward_model[query, ad]`` times the slot's click curve.
    """
    ad, click, pscore = logged
    q = np.broadcast_to(page_views.query[:, None], ad.shape)
    curve = np.broadcast_to(world.click_curve[None, :], ad.shape)
    hat = lambda a: np.where(a >= 0, reward_model[q, np.maximum(a, 0)] * curve, 0.0)  # noqa: E731
    t = (target == ad).astype(float)
    r, pi0 = click.ravel(), pscore.ravel()
    n, size = world.n_slots, r.size
    # The statistics of offline_eval.counterfactual's ips_estimate, snips_estimate and dr_estimate (a test checks
    # them bit for bit), without their standard errors: each a ratio of exact sums (math.fsum), so the terms of
    # weight 0 (each an exact 0: rewards and weights are >= 0) can be left out of IPS's and SNIPS's sums.
    # SNIPS normalises each slot's weights apart (a slot's weights have mean 1 under the logging policy); its
    # weights are rescaled by a power of two, as snips_estimate does (exact); a slot where the target never
    # takes the logged ad has no estimate and counts 0
    w = t.ravel() / pi0
    taken = np.flatnonzero(w)
    snips = 0.0
    for s in range(n):
        on = np.flatnonzero(t[:, s])
        if len(on):
            ws = t[on, s] / pscore[on, s]
            ws = np.ldexp(ws, -int(np.frexp(float(ws.max()))[1]))
            snips += math.fsum((ws * click[on, s]).tolist()) / math.fsum(ws.tolist())
    ips = math.fsum((w[taken] * r[taken]).tolist()) / size
    dr = math.fsum((hat(target).ravel() + w * (r - hat(ad).ravel())).tolist()) / size
    return dict(ips=n * ips, snips=snips, dr=n * dr)


def sponsored_arena(seed, *, n_candidates=16, n_queries=200, n_log=8000, n_ab=20000, baseline_quantile=0.6,
                    position=True, reserves=True, explore_shares=(0.05, 0.25), n_target=40000) -> pd.DataFrame:
    """One seed of yi's sponsored-search world: one row per candidate, offline deltas and the online CY delta.

    The production model (log-odds noise :data:`PRODUCTION_NOISE`) serves ``n_log`` page views at an
    operating point with a mainline reserve at ``baseline_quantile`` of its rank scores (``reserves``) and
    the world's click curve (``position``; else flat, :data:`FLAT_CURVE`).  Offline scores of a logged
    impression are the pClick times the logs' click curve at its slot, as in yi's study; the simulated CY
    re-runs every logged auction (:func:`offline_eval.auction.simulate`).  A further ``max(explore_shares)``
    times ``n_log`` page views are served in random order (:func:`explore`); IPS, SNIPS and DR estimate each
    model's CY on the first ``share * n_log`` of them (columns ``off_ips@<share>``...).  Online: one
    multi-arm A/B test, production's arm and one arm per candidate, ``n_ab`` page views each (the observed CY
    delta, relative: ``online``); the noise-free target ``online_expected``: the relative delta of the expected
    click yields, every model served on one shared sample of ``n_target`` page views with its true click
    probabilities (no click draw, no page-view sampling between arms).
    """
    r_world, r_prod, r_cand, r_log, r_ab, r_exp, r_target = np.random.default_rng(seed).spawn(7)
    world = sp.make_world(r_world, n_queries=n_queries, curve_kwargs=None if position else FLAT_CURVE)
    p0 = sp.distorted_pclick(world.ctr, r_prod, noise_sd=PRODUCTION_NOISE)
    pv = sw.sample_page_views(world, n_log, r_log)
    r_bids = pv.bids * p0[pv.query]
    op = au.OperatingPoint(1.0, 0.0, float(np.quantile(r_bids[r_bids > 0], baseline_quantile)) if reserves else 0.0)
    logged = sw.serve(world, p0, pv, op=op, rng=r_log)
    log = au.ClickLog.from_impressions(pv, logged, n_queries=world.n_queries, n_candidates=world.n_candidates,
                                       n_slots=world.n_slots)
    y = logged.click.astype(np.int8)
    f = log.click_curve[logged.slot]
    ml = logged.slot < world.n_mainline
    n_exp = int(round(max(explore_shares) * n_log))
    pv_exp = sw.sample_page_views(world, n_exp, r_exp)
    exp_log = explore(world, pv_exp, r_exp)
    subsets = {sh: int(round(sh * n_log)) for sh in explore_shares}

    def offline(p):
        # a probability: the logs' click-curve estimate times a high pClick can pass 1
        s = np.minimum(p[logged.query, logged.ad] * f, 1.0)
        out = dict(auc=_quiet(roc_auc_score, y, s), log_loss=-log_loss(y, s), mse=-mean_squared_error(y, s),
                   ml_auc=_quiet(roc_auc_score, y[ml], s[ml]), sim_cy=au.simulate(log, p, op=op).cy)
        target = ranking(world, p, pv_exp, op)
        for sh, m in subsets.items():
            sub = sw.PageViews(pv_exp.query[:m], pv_exp.bids[:m])
            est = counterfactual_cy(world, target[:m], sub, tuple(x[:m] for x in exp_log), p0)
            out.update({f"{k}@{sh:g}": e for k, e in est.items()})
        return out

    def arm(p, rng):
        served = sw.serve(world, p, sw.sample_page_views(world, n_ab, rng), op=op, rng=rng)
        return served.click.sum() / n_ab

    # the noise-free target: every model's expected clicks on one shared sample of page views (no click draw, and
    # no page-view sampling between the arms), the world's expected click yield up to that sample's mix of queries
    pv_target = sw.sample_page_views(world, n_target, r_target)
    expected_cy = lambda p: sw.serve(world, p, pv_target, op=op, expected=True).click.sum() / n_target  # noqa: E731
    base = offline(p0)
    cy0, ecy0 = arm(p0, r_ab), expected_cy(p0)
    rows = []
    noise_sd = _graded(r_cand, n_candidates, 0.2, 0.9)
    for j in range(n_candidates):
        p1 = _sponsored_candidate(r_cand, world.ctr, noise_sd[j])
        off = offline(p1)
        cy, ecy = arm(p1, r_ab), expected_cy(p1)
        rows.append({"candidate": j, **{f"off_{k}": off[k] - base[k] for k in off},
                     "online": cy / cy0 - 1.0, "online_expected": ecy / ecy0 - 1.0})
    return pd.DataFrame(rows)


# -- piovano's classifiers ---------------------------------------------------------------------------------
#: How much likelier an item the candidate gets right is to be labelled, where the offline set violates Theorem 2's
#: premise (declared with the world, before any run of it).
PREMISE_TILT = 3.0


def _tilted_by_truth(rng, hb, hc, truth, n_classes, n_offline, tilt):
    """Offline items: each (production, candidate) cell its live share of ``n_offline`` (largest remainders), drawn
    within the cell with weight ``tilt`` on items the candidate classifies correctly and 1 on the others."""
    live_joint = joint_distribution(hb, hc, n_classes=n_classes, normalize=False)
    counts = cl.apportion(live_joint / live_joint.sum(), n_offline, capacity=live_joint.astype(np.int64))
    cell = hb * n_classes + hc
    order = np.argsort(cell, kind="stable")
    starts = np.searchsorted(cell[order], np.arange(n_classes * n_classes + 1))
    w_all = np.where(hc == truth, tilt, 1.0)
    picked = []
    for c, k in enumerate(np.asarray(counts).ravel()):
        if k:
            members = order[starts[c]:starts[c + 1]]
            w = w_all[members]
            picked.append(rng.choice(members, int(k), replace=False, p=w / w.sum()))
    return np.sort(np.concatenate(picked))


def _pr(m):
    """The candidate's recall and precision per class, one vector (nan where undefined)."""
    return np.concatenate([m.candidate.recall, m.candidate.precision]), \
        np.concatenate([m.baseline.recall, m.baseline.precision])


def classifier_arena(seed, *, n_candidates=16, n_classes=5, n_live=20000, n_offline=1000, error_correlation=0.6,
                     shared_confusion=0.6, representative=False, sigma=1.0, disagreement_boost=4.0,
                     flatten=0.5, premise=True, truth_tilt=PREMISE_TILT) -> pd.DataFrame:
    """One seed of piovano's setting: one row per candidate classifier against the production one.

    Live traffic: ``n_live`` items of a Zipf prior over ``n_classes``, production's and the candidate's
    hypotheses (``synth.classifiers.two_model_world``; ``error_correlation`` and ``shared_confusion`` make the
    candidate's errors fall where production's do).  The labelled offline set of ``n_offline`` items is drawn
    from live traffic by (production, candidate) cell with the cells distorted
    (``random_offline_joint``: ``sigma``, ``disagreement_boost``, ``flatten``), or uniformly
    (``representative``).  Estimates of the candidate's live recall and precision per class: raw offline,
    IndDis and JointDis (:func:`offline_eval.adaptive.online_adaptive_metrics`, the live hypotheses
    unlabelled).  Per candidate: each estimate's mean absolute error (``err_<estimate>``) and its estimated
    delta of macro recall-and-precision against production (``off_<estimate>``); online: the live delta.

    With ``premise=False`` the offline set violates Theorem 2's premise (p(G | H_B, H_C) the same offline and
    live): each (production, candidate) cell gets its live share of the ``n_offline`` items, but within a cell an
    item the candidate classifies correctly is ``truth_tilt`` times as likely to be labelled as one it gets wrong
    (labelling favours easy items), so the cells are representative and the truth within them is not: the bias
    JointDis removes is absent, the one it cannot remove present.
    """
    rng = np.random.default_rng(seed)
    prior = cl.zipf_prior(n_classes)
    confusion = cl.random_confusion(n_classes, rng=rng)
    acc_b = cl.class_accuracies(0.8, prior, rng=rng)
    rows = []
    acc = _graded(rng, n_candidates, 0.7, 0.9)
    for j in range(n_candidates):
        acc_c = cl.class_accuracies(float(acc[j]), prior, rng=rng)
        hb, hc, truth = cl.two_model_world(n_live, accuracy_b=acc_b, accuracy_c=acc_c, prior=prior,
                                           error_correlation=error_correlation, shared_confusion=shared_confusion,
                                           confusion=confusion, rng=rng)
        if representative:
            idx = np.sort(rng.choice(n_live, n_offline, replace=False))
        elif not premise:
            idx = _tilted_by_truth(rng, hb, hc, truth, n_classes, n_offline, truth_tilt)
        else:
            live_joint = joint_distribution(hb, hc, n_classes=n_classes, normalize=False)
            m_o = cl.random_offline_joint(live_joint, sigma=sigma, disagreement_boost=disagreement_boost,
                                          flatten=flatten, rng=rng)
            counts = cl.apportion(m_o, n_offline, capacity=live_joint.astype(np.int64))
            idx = cl.sample_by_cell(hb, hc, counts, n_classes=n_classes, rng=rng)
        live_c, live_b = _pr(metrics_from_joint(joint_distribution(hb, hc, truth, n_classes=n_classes)))
        est = dict(raw=metrics_from_joint(joint_distribution(hb[idx], hc[idx], truth[idx], n_classes=n_classes)))
        for name, method in (("ind", "independent"), ("joint", "joint")):
            est[name] = _quiet(online_adaptive_metrics, hb[idx], hc[idx], truth[idx], hb, hc, n_classes=n_classes,
                               method=method)
        row = {"candidate": j, "online": float(np.nanmean(live_c) - np.nanmean(live_b))}
        for name, m in est.items():
            c_hat, b_hat = _pr(m)
            row[f"err_{name}"] = float(np.nanmean(np.abs(c_hat - live_c)))
            row[f"off_{name}"] = float(np.nanmean(c_hat) - np.nanmean(b_hat))
        rows.append(row)
    return pd.DataFrame(rows).assign(online_expected=lambda d: d["online"])
