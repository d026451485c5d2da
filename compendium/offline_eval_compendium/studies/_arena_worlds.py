"""The two auction worlds of the arena: candidate models, production logs, offline deltas, online deltas.

Each function runs one seed of one world and returns one row per candidate model: every offline
metric's delta against the production model on the production model's logs (oriented so that
higher is better: losses are negated), and the online A/B delta of the candidate against production.
Everything comes from the library (:mod:`offline_eval.synth`, :mod:`offline_eval.auction`,
:mod:`offline_eval.bidding`, :mod:`offline_eval.metrics`, :mod:`offline_eval.ranking`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy import special

from offline_eval import auction as au
from offline_eval import bidding as bd
from offline_eval.metrics import calibration_ratio, log_loss, mean_squared_error, rig_score, roc_auc_score
from offline_eval.ranking import spearman_rho
from offline_eval.synth import rtb
from offline_eval.synth import sponsored as sp

#: Metrics of the leaderboards: column -> (label, paper).  Every delta is oriented "higher is better".
METRICS = {
    "auc": ("AUC", "yi"),
    "log_loss": ("log loss", "yi"),
    "rig": ("RIG", "yi"),
    "mse": ("MSE", "yi / chapelle"),
    "calibration": ("calibration |ratio - 1|", "yi"),
    "ml_auc": ("mainline AUC", "yi"),
    "sim_cy": ("simulated CY (replay)", "yi"),
    "sim_ml_cy": ("simulated mainline CY (replay)", "yi"),
    "rho": ("Spearman rho (prediction, click)", "rosset"),
    "rho_value": ("Spearman rho (bid, realised value)", "rosset"),
    "log_loss_rw": ("log loss re-weighted to live (OAM)", "piovano"),
    "wmse": ("weighted MSE", "chapelle"),
    "utility": ("utility (replay)", "chapelle"),
    "eu": ("expected utility, best beta", "chapelle"),
}
#: Chapelle's beta grid (rate of the Gamma competing-bid law, per dollar); the best is chosen by cross-fitting.
BETAS = (10.0, 100.0, 1000.0, 10000.0)
#: Flat click curve (the "no position effect" switch): every slot examined alike (the library asks sidebar < mainline).
FLAT_CURVE = dict(mainline_decay=1.0, sidebar_top=0.999, sidebar_decay=1.0)
#: The production click model of the sponsored world (yi's model-1 noise).
PRODUCTION_NOISE = 0.6


def _binary(y, p, w=None):
    """yi Section 2 and rosset's measures of predictions ``p`` against 0/1 outcomes ``y`` (higher is better)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(auc=roc_auc_score(y, p, sample_weight=w), log_loss=-log_loss(y, p, sample_weight=w),
                    rig=rig_score(y, p, sample_weight=w), mse=-mean_squared_error(y, p, sample_weight=w),
                    calibration=-abs(calibration_ratio(y, p, sample_weight=w) - 1.0),
                    rho=spearman_rho(y, p))
# rosset's tau against a 0/1 outcome is not shown: its numerator is n1 n0 (2 AUC - 1), so across candidates on
# the same logs it moves with the AUC (up to ties); rho against a 0/1 outcome is likewise a function of the
# positives' mean rank -- shown once, as a check that the two orders agree.


def _cells(x0, x1, live0, live1, n_bins):
    """Cell of each row in the (production, candidate) prediction grid cut at the live deciles (piovano's (B, C) cells)."""
    q = np.linspace(0, 1, n_bins + 1)[1:-1]
    return np.searchsorted(np.quantile(live0, q), x0) * n_bins + np.searchsorted(np.quantile(live1, q), x1)


def oam_weights(off0, off1, live0, live1, *, n_bins=5):
    """piovano's re-weighting (eq. 7) to the live distribution of both models' predictions.

    Each offline row is weighted by the live share of its (production, candidate) prediction cell over
    its offline share; cells with no offline row cannot be re-weighted (their live mass is left out).
    """
    c_off = _cells(off0, off1, live0, live1, n_bins)
    c_live = _cells(live0, live1, live0, live1, n_bins)
    k = n_bins * n_bins
    share_off = np.bincount(c_off, minlength=k) / len(c_off)
    share_live = np.bincount(c_live, minlength=k) / len(c_live)
    return np.divide(share_live, share_off, out=np.zeros(k), where=share_off > 0)[c_off]


# -- chapelle's RTB world (bidder side) ---------------------------------------------------------------
def _rtb_candidate(rng, n_networks, *, bias_sd, value_bias_sd, noise):
    """A candidate prediction function: per network a calibration error, a value-correlated error and a noise level."""
    scale = rng.uniform(0.0, 2.0)  # candidates differ in how large their errors are, not only in their draws
    return dict(bias=scale * bias_sd * rng.standard_normal(n_networks),
                value_bias=scale * value_bias_sd * rng.standard_normal(n_networks),
                noise=rng.uniform(*noise, n_networks))


def _rtb_predict(rows, nets, cand, value_sigma, rng):
    """The candidate's prediction on logged rows: the true logit plus its network's errors (as ``synth.rtb`` draws them)."""
    k = rows["network"].to_numpy()
    net = nets.set_index("network")
    w = (np.log(rows["v"].to_numpy() / net["value"].to_numpy()[k]) + 0.5 * value_sigma**2) / value_sigma
    logit = special.logit(rows["p_true"].to_numpy()) + cand["bias"][k] + cand["value_bias"][k] * w
    return special.expit(logit + cand["noise"][k] * rng.standard_normal(len(k)))


def _rtb_online(nets, cand, *, n_contexts, ab_impressions, z, kw, rng_seed):
    """The A/B test's total profit delta (candidate minus production) over the networks, from exact moments:
    as observed (each arm's central-limit draw, ``synth.rtb``'s law) and its expectation (no A/B noise)."""
    b = nets.assign(bias_b=cand["bias"], value_bias_b=cand["value_bias"], noise_b=cand["noise"])
    m = rtb.expected_ab(b, n_contexts=n_contexts, rng=rng_seed, **kw)
    n_req = ab_impressions / (m["win_a"] + m["win_b"]).clip(lower=1e-300)
    mean = n_req * (m["profit_b"] - m["profit_a"])
    noise = np.sqrt(n_req * m["var_b"]) * z[:, 1] - np.sqrt(n_req * m["var_a"]) * z[:, 0]
    return float((mean + noise).sum()), float(mean.sum())


def rtb_arena(seed, *, n_candidates=16, n_networks=10, n_log=20_000, n_contexts=20_000, ab_impressions=30e6,
              ctr_median=0.01, value_sigma=0.6, bias_sd=0.3, value_bias_sd=0.3, noise=(0.1, 0.6),
              exploration=False, n_bins=5) -> pd.DataFrame:
    """One seed of chapelle's RTB world: one row per candidate, offline deltas and the online profit delta.

    The production bidder A's logs are its won auctions (``exploration=False``) or every bid request
    (``True``: exploration logged, which also makes the offline sample representative of the live
    requests).  Candidates draw their per-network errors from the world's own laws at a random scale.
    ``live_log_loss`` is the candidate's log-loss delta on every live request (piovano's target).
    """
    r_world, r_cand, r_ab = np.random.default_rng(seed).spawn(3)
    kw = dict(ctr_sigma=0.8, value_sigma=value_sigma, price_corr=0.3)
    world = rtb.simulate_rtb(n_networks=n_networks, n_log=n_log, n_ab=2, ctr_median=ctr_median, value_sigma=value_sigma,
                             bias_sd=bias_sd, value_bias_sd=value_bias_sd, noise=noise, exploration=True, rng=r_world)
    live = world.logs  # every request of the production bidder: the live traffic
    # the production bidder's won auctions: ``rtb.without_exploration``'s rule, kept as a mask for the candidates
    won = np.ones(len(live), bool) if exploration else (live["p_a"] * live["v"] > live["c"]).to_numpy()
    logs = live[won]
    nets = world.networks
    z = r_ab.standard_normal((n_networks, 2))
    ctx_seed = int(r_ab.integers(2**31))
    y, v, c, p0 = (logs[x].to_numpy() for x in ("a", "v", "c", "p_a"))
    base = _offline_rtb(y, v, c, p0, p0, live["p_a"].to_numpy(), live["p_a"].to_numpy(), n_bins)
    live_base = log_loss(live["a"].to_numpy(), live["p_a"].to_numpy())
    rows = []
    for j in range(n_candidates):
        cand = _rtb_candidate(r_cand, n_networks, bias_sd=bias_sd, value_bias_sd=value_bias_sd, noise=noise)
        r_pred = np.random.default_rng(r_cand.integers(2**63))
        p_live = _rtb_predict(live, nets, cand, value_sigma, r_pred)
        p1 = p_live[won]
        off = _offline_rtb(y, v, c, p0, p1, live["p_a"].to_numpy(), p_live, n_bins)
        row = {f"off_{k}": off[k] - base[k] for k in off}
        row["live_log_loss"] = live_base - log_loss(live["a"].to_numpy(), p_live)
        row["online"], row["online_expected"] = _rtb_online(nets, cand, n_contexts=n_contexts,
                                                            ab_impressions=ab_impressions, z=z, kw=kw, rng_seed=ctx_seed)
        rows.append({"candidate": j, **row})
    return pd.DataFrame(rows)


def _offline_rtb(y, v, c, p0, p1, live0, live1, n_bins):
    out = _binary(y, p1)
    bid, value = p1 * v, y * v
    # rosset's tau is left out for time (an O(n log n) pass per candidate); on a 3-seed trial its mean correlation
    # with the A/B delta equalled rho's to two decimals, as both order the same (bid, value) pairs
    out["rho_value"] = spearman_rho(value, bid)
    w = oam_weights(p0, p1, live0, live1, n_bins=n_bins)
    out["log_loss_rw"] = -log_loss(y, p1, sample_weight=w)
    out["wmse"] = -bd.weighted_mean_squared_error(y, v, p1)
    out["utility"] = bd.utility(y, v, p1, c)
    for b in BETAS:
        out[f"eu_{b:g}"] = bd.expected_utility(y, v, p1, c, beta=b)
    return out


# -- yi's sponsored-search world (publisher side) -----------------------------------------------------
def _sponsored_candidate(rng, ctr):
    """A candidate click model: noise, calibration by range (low / high shifts), scale, and in a third of them a
    rank-preserving low-range over-estimation (yi Table 6)."""
    p = sp.distorted_pclick(ctr, rng, noise_sd=rng.uniform(0.2, 0.9), scale=float(np.exp(0.3 * rng.standard_normal())),
                            low_ctr=0.004, low_shift=float(rng.uniform(0, 4) * (rng.random() < 0.5)),
                            high_shift=float(0.3 * rng.standard_normal()))
    if rng.random() < 1 / 3:
        p = sp.overestimate_low_range(p, low_ctr=0.004, low_shift=float(rng.uniform(1, 4)))
    return p


def sponsored_arena(seed, *, n_candidates=16, n_queries=400, n_log=40_000, n_ab=40_000, baseline_quantile=0.6,
                    position=True, reserves=True, exploration=False, n_bins=5) -> pd.DataFrame:
    """One seed of yi's sponsored-search world: one row per candidate, offline deltas and the online CY delta.

    The production model (log-odds noise :data:`PRODUCTION_NOISE`) serves ``n_log`` page views at an
    operating point with a mainline reserve at ``baseline_quantile`` of its rank scores (``reserves``) and
    the world's click curve (``position``; else flat, :data:`FLAT_CURVE`); with ``exploration`` the logged
    page views are served in random order instead (exploration logs).  Offline scores of a logged
    impression are the pClick times the logs' click curve at its slot, as in yi's study; the simulated CY
    re-runs every logged auction (:func:`offline_eval.auction.simulate`); online is an A/B test of
    ``n_ab`` page views per arm (its observed CY delta, and its expectation: no A/B noise).
    """
    r_world, r_prod, r_cand, r_log, r_ab = np.random.default_rng(seed).spawn(5)
    world = sp.make_world(r_world, n_queries=n_queries, curve_kwargs=None if position else FLAT_CURVE)
    p0 = sp.distorted_pclick(world.ctr, r_prod, noise_sd=PRODUCTION_NOISE)
    pv = sp.sample_page_views(world, n_log, r_log)
    r_bids = pv.bids * p0[pv.query]
    op = au.OperatingPoint(1.0, 0.0, float(np.quantile(r_bids[r_bids > 0], baseline_quantile)) if reserves else 0.0)
    p_log = r_log.random(p0.shape) if exploration else p0
    logged = au.serve(world, p_log, pv, op=au.OperatingPoint() if exploration else op, rng=r_log)
    log = au.ClickLog.from_impressions(pv, logged, n_queries=world.n_queries, n_candidates=world.n_candidates,
                                       n_slots=world.n_slots)
    y = logged.click.astype(np.int8)
    f = log.click_curve[logged.slot]
    ml = logged.slot < world.n_mainline
    entrants = pv.bids > 0  # the live population every model scores: each auction's entrants
    live_q = np.broadcast_to(pv.query[:, None], pv.bids.shape)[entrants]
    live_a = np.broadcast_to(np.arange(world.n_candidates), pv.bids.shape)[entrants]

    def offline(p):
        # a click curve estimated from few logged clicks can exceed 1 at a slot: the score is a probability
        s = np.minimum(p[logged.query, logged.ad] * f, 1.0)
        out = _binary(y, s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out["ml_auc"] = roc_auc_score(y[ml], s[ml])
        w = oam_weights(p0[logged.query, logged.ad], p[logged.query, logged.ad], p0[live_q, live_a], p[live_q, live_a],
                        n_bins=n_bins)
        out["log_loss_rw"] = -log_loss(y, s, sample_weight=w)
        sim = au.simulate(log, p, op=op)
        out["sim_cy"], out["sim_ml_cy"] = sim.cy, sim.ml_cy
        return out

    base = offline(p0)
    rows = []
    for j in range(n_candidates):
        p1 = _sponsored_candidate(r_cand, world.ctr)
        off = offline(p1)
        ab = au.ab_test(world, (p0, op), (p1, op), n_page_views=n_ab, rng=r_ab)
        rows.append({"candidate": j, **{f"off_{k}": off[k] - base[k] for k in off},
                     "online": ab.cy_delta, "online_expected": ab.expected_cy_delta})
    return pd.DataFrame(rows)
