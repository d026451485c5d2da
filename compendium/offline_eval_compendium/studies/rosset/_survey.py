"""rosset Section 5: the synthetic IT-wallet survey and one seed of the case study (shared by its study).

The world (:func:`paper_world`, :data:`CONTROL`, :data:`EARLIER`), the per-seed experiment (:func:`one_seed`,
a flat dict for :func:`offline_eval_compendium.claims.seed_sweep`), and the table and figure builders of
Tables 1-2, Section 5.3 and Figs. 4-5.  The claims live in :mod:`.wallet`.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from scipy.stats import norm

from offline_eval import ranking as rk
from offline_eval.plotting import new_figure
from offline_eval.synth.wallet import wallet_survey
from ... import reference

MEASURES = ("RMSE", "MAE", "tau", "rho")
#: The control world: the Gaussian copula at the same taus (regression estimates with a residual independent of the
#: size), the mechanism the paper credits for "the model is able to rank better the examples with the largest
#: predictions" (Figs. 1-3: "loss functions used for modeling usually emphasize on the largest potential absolute
#: errors") -- dependence concentrated among the large firms -- switched off.
CONTROL = {"estimates": "regression", "size_skill": 0.0}
#: An earlier world, for comparison only: each model's estimate is the truth plus noise (classical errors), with
#: the correlations that world was tuned to.
NOISY_TRUTH = {"estimates": "noisy_truth", "corr_m1": 0.47, "corr_m2": 0.29, "size_skill": 0.25}
#: An earlier world, for comparison only: regression estimates whose residual shrinks where the estimate is large.
SHRINKING_RESIDUAL = {"estimates": "regression", "size_skill": 0.25}
#: The earlier worlds quoted in the notes of the size claims (name -> world; the taus come from the paper where the
#: world does not set them).
EARLIER = {"noisy-truth": NOISY_TRUTH, "shrinking-residual regression": SHRINKING_RESIDUAL}
#: The earlier criterion of Fig. 1's outliers (revised: the paper states no bound): at most this share of the
#: firms below 50% correct pairs.
OUTLIER_MAX_SHARE = 0.05

LOWER_IS_BETTER = {"RMSE": True, "MAE": True, "MAD": True, "tau": False, "rho": False}


num = reference.parse_printed  # reads "$3,872,481" too


def strip_percent(printed: str) -> str:
    return str(printed).replace("$", "")


def printed_interval(func, *printed: str) -> tuple[float, float]:
    """Range of ``func(*values)`` over every value each printed input could have had before rounding.

    ``func`` must be monotone in each argument, so the extremes are at the
    corners of the box ``printed +- half a unit of its last digit``.

    >>> lo, hi = printed_interval(lambda a, b: a - b, "0.2845", "0.1692")
    >>> round(lo, 6), round(hi, 6)
    (0.1152, 0.1154)
    """
    boxes = []
    for p in printed:
        v, d = num(p), reference.printed_decimals(strip_percent(p))
        boxes.append((v - 0.5 * 10.0**-d, v + 0.5 * 10.0**-d))
    vals = [func(*corner) for corner in itertools.product(*boxes)]
    return float(min(vals)), float(max(vals))


# -- Fig. 4 ----------------------------------------------------------------------------------
def paper_world(ref: pd.DataFrame) -> dict:
    """The survey's correlations from the printed taus of Table 2: ``corr = sin(pi tau / 2)`` (Gaussian identity).

    A calibration declared before any run: the Gaussian relation between Kendall's tau and the correlation of
    a bivariate normal, applied to the printed tau of each model; nothing is fitted to our results.
    """
    return {f"corr_{model.lower()}": float(np.sin(np.pi / 2 * num(reference.lookup(ref, "Table 2", "tau", model))))
            for model in ("M1", "M2")}


def fig4_wallets(survey: pd.DataFrame):
    """Histogram of the wallets on a logarithmic x-axis (Fig. 4)."""
    fig, ax = new_figure()
    w = survey["wallet"].to_numpy()
    bins = np.logspace(np.floor(np.log10(w.min())), np.ceil(np.log10(w.max())), 31)
    ax.hist(w, bins=bins, color="0.4")
    ax.set_xscale("log")
    ax.set_xlabel("IT wallet ($, log scale)")
    ax.set_ylabel("firms")
    ax.set_title(f"Wallet distribution of {len(w)} surveyed firms")
    return fig


# -- Table 1 ---------------------------------------------------------------------------------
def table1(y, pred) -> pd.DataFrame:
    """Each measure on the full set and without its single most influential firm (Table 1)."""
    rows = []
    for m in MEASURES:
        inf = rk.most_influential(y, pred, measure=m)
        rows.append(
            {"Measure": m, "Entire Set": inf.full, "Excl. One": inf.without, "%Change": 100 * abs(inf.change),
             "firm": inf.index}
        )
    return pd.DataFrame(rows)


# -- Table 2 ---------------------------------------------------------------------------------
def table2(y, m1, m2, *, n_boot: int = 100, seed: int = 0) -> pd.DataFrame:
    """M1 vs M2 for each measure with a paired bootstrap of the difference (Table 2).

    Every measure uses the same ``n_boot`` resamples (the same ``seed``).
    ``Absolute Difference`` is ``|M1 - M2|`` and ``M1 better`` reads the
    direction of each measure.
    """
    rows = []
    for m in MEASURES:
        r = rk.bootstrap_compare(y, m1, m2, measure=m, n_boot=n_boot, rng=seed)
        better = r.difference < 0 if LOWER_IS_BETTER[m] else r.difference > 0
        rows.append({"Measure": m, "M1": r.value_a, "M2": r.value_b, "Absolute Difference": abs(r.difference),
                     "Std. Dev.": r.standard_error, "p-value": r.pvalue, "M1 better": bool(better)})
    return pd.DataFrame(rows)


def bootstrap_variance(y, pred, *, n_boot: int = 100, seed: int = 0) -> dict:
    """Bootstrap variance of tau beside eq. 6 (Section 5.3)."""
    eq6 = rk.tau_variance_from_concordance(rk.concordance_counts(y, pred))  # the paper's eq. 6; validates y and pred
    gen = np.random.default_rng(seed)
    n = len(y)
    taus = resampled_tau_b(y, pred, [gen.integers(0, n, n) for _ in range(n_boot)])
    return {"bootstrap": float(np.var(taus, ddof=1)), "eq6": eq6}


def resampled_tau_b(y, pred, draws) -> np.ndarray:
    """``rk.kendall_tau(y[i], pred[i])`` (tau-b) for every index array ``i`` of ``draws``, the same floats at once.

    A resample holds row ``j`` of the data ``w_j`` times, so twice its C - D
    (over ordered pairs of positions) is ``w^T (S_y * S_m) w`` with ``S`` the
    sign matrices of the rows' differences, and the positions tied in ``y``
    number ``w^T E_y w - n`` (``E_y``: equal ``y``).  All of these are integers
    (exact in float64 matrix products, whatever their order), and tau-b follows
    from them by the library's own operations,
    ``(C - D) / sqrt((N - n_1)(N - n_2))`` clipped to [-1, 1], each rounded
    once; a resample where it is undefined goes to :func:`rk.kendall_tau`
    itself (nan with its warning).  O(len(draws) n^2).
    """
    y, m = np.asarray(y, dtype=float), np.asarray(pred, dtype=float)
    n = len(y)
    w = np.array([np.bincount(i, minlength=n) for i in draws], dtype=np.float64)

    def sign(v):
        return (v[:, None] > v[None, :]).astype(np.float64) - (v[:, None] < v[None, :])

    def quad(mat):  # w^T mat w per resample, as exact integers
        return np.rint(np.einsum("bi,bi->b", w @ mat, w)).astype(np.int64)

    s = quad(sign(y) * sign(m))  # 2 (C - D)
    n1 = (quad((y[:, None] == y[None, :]).astype(np.float64)) - n) / 2.0
    n2 = (quad((m[:, None] == m[None, :]).astype(np.float64)) - n) / 2.0
    pairs = n * (n - 1) / 2.0
    den = (pairs - n1) * (pairs - n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.minimum(np.maximum(s / 2.0 / np.sqrt(den), -1.0), 1.0)
    for k in np.flatnonzero(~(den > 0)):
        tau[k] = rk.kendall_tau(y[draws[k]], m[draws[k]])
    return tau


# -- Fig. 5 ----------------------------------------------------------------------------------
def cutoff_grid_auc(y, pred, grid) -> np.ndarray:
    """AUC_i at the cutoffs nearest below each share of the data in ``grid`` (top class = that share)."""
    return _grid_auc(rk.cutoff_auc(y, pred), len(y), grid)


def _grid_auc(res, n, grid) -> np.ndarray:
    """:func:`cutoff_grid_auc` from the cutoffs ``res`` (:func:`rk.cutoff_auc`) of ``n`` responses."""
    share = res.n_positive / n
    k = np.clip(np.searchsorted(share, grid, side="right") - 1, 0, len(share) - 1)
    return res.auc[k]


def fig5_bootstrap(y, m1, m2, *, n_boot: int = 100, seed: int = 0, lo: float = 0.1, hi: float = 0.9, step: float = 0.01):
    """Per bootstrap sample and cutoff share in [lo, hi]: does M1's AUC beat M2's?

    Returns ``(grid, wins)`` with ``wins`` of shape (n_boot, len(grid)).
    """
    grid, auc1, auc2 = fig5_resamples(y, m1, m2, n_boot=n_boot, seed=seed, lo=lo, hi=hi, step=step)
    return grid, auc1 > auc2


def fig5_resamples(y, m1, m2, *, n_boot: int = 100, seed: int = 0, lo: float = 0.1, hi: float = 0.9,
                   step: float = 0.01):
    """Each model's AUC per bootstrap sample and cutoff share in [lo, hi] (:func:`fig5_bootstrap`'s resamples).

    Returns ``(grid, auc1, auc2)``, each AUC of shape (n_boot, len(grid)): the wins and the band of
    M1 - M2 come from the same resamples.
    """
    grid = np.round(np.arange(lo, hi + step / 2, step), 10)
    gen = np.random.default_rng(seed)
    n = len(y)
    draws = [gen.integers(0, n, n) for _ in range(n_boot)]
    auc1, auc2 = (resampled_grid_auc(y, m, draws, grid) for m in (m1, m2))
    return grid, auc1, auc2


def resampled_grid_auc(y, pred, draws, grid) -> np.ndarray:
    """``cutoff_grid_auc(y[i], pred[i], grid)`` for every index array ``i`` of ``draws``: the same floats at once.

    With the rows ordered by decreasing ``y`` (all distinct) and a resample
    holding row ``k`` ``w_k`` times, the misordered pairs a cutoff after row
    ``k`` separates (higher truth, lower prediction; a tied prediction one
    half) grow by ``w_k (sum_{j > k} U_kj w_j - sum_{j < k} U_jk w_j)``, ``U``
    the misorder of each pair of rows -- halves of integers, exact in float64
    whatever the order of the sums, as are the library's running sums -- and
    ``AUC_i = 1 - wrong / (i (n - i))`` as :func:`rk.cutoff_auc` computes it.
    Tied responses, or a resample of fewer than two distinct rows, go to
    :func:`cutoff_grid_auc` itself.  O(len(draws) n^2).
    """
    y, m = np.asarray(y, dtype=float), np.asarray(pred, dtype=float)
    n = len(y)
    order = np.argsort(-y, kind="stable")
    ys, ms = y[order], m[order]
    if n < 2 or (ys[1:] == ys[:-1]).any():
        return np.array([cutoff_grid_auc(y[i], m[i], grid) for i in draws])
    w = np.array([np.bincount(i, minlength=n)[order] for i in draws], dtype=np.float64)
    u = np.triu((ms[:, None] < ms[None, :]) + 0.5 * (ms[:, None] == ms[None, :]), 1)
    wrong = np.cumsum(w * (w @ u.T - w @ u), axis=1)
    out = np.empty((len(draws), len(grid)))
    for b, i in enumerate(draws):
        rows = np.flatnonzero(w[b] > 0)[:-1]  # a cutoff after each row drawn but the last
        if len(rows) == 0:
            out[b] = cutoff_grid_auc(y[i], m[i], grid)
            continue
        top = np.cumsum(w[b]).astype(np.int64)[rows]
        auc = 1.0 - wrong[b, rows] / (top * (n - top))
        share = top / n
        out[b] = auc[np.clip(np.searchsorted(share, grid, side="right") - 1, 0, len(share) - 1)]
    return out


def fig5_cutoffs(y, m1, m2, *, band=None):
    """AUC by cutoff for both models (Fig. 5); ``band`` = (grid, low, high) of M1 - M2 is drawn below."""
    fig, axes = new_figure(1, 2 if band is not None else 1, width="single", sharex=True,
                           height=3.6 if band is not None else None)
    axes = np.atleast_1d(axes)
    ax = axes[0]
    for pred, label, style in ((m1, "$M_1$", "-"), (m2, "$M_2$", "--")):
        res = rk.cutoff_auc(y, pred)
        ax.plot(res.n_positive / len(y), res.auc, style, label=label)
    ax.axhline(0.5, color="0.6", lw=0.8)
    ax.set_ylabel("AUC$_i$")
    ax.set_title("AUC of separating the top share of wallets from the rest")
    ax.legend()
    if band is not None:
        grid, low, high = band
        axes[1].fill_between(grid, low, high, color="0.8", label="bootstrap 5-95%")
        axes[1].axhline(0, color="0.3", lw=0.8)
        axes[1].set_ylabel("AUC$_i$($M_1$) - AUC$_i$($M_2$)")
        axes[1].legend()
    axes[-1].set_xlabel("cutoff: share of firms in the top class, i / n")
    return fig


# -- one seed of the whole case study --------------------------------------------------------
def one_seed(seed: int, *, n: int = 500, n_boot: int = 100, **world) -> dict:
    """Every qualitative claim of Section 5 on one synthetic survey; a flat dict for the sweep.

    ``world`` goes to :func:`~offline_eval.synth.wallet.wallet_survey` (e.g. :data:`CONTROL`).
    """
    gen = np.random.default_rng(seed)
    survey = wallet_survey(n, rng=gen, **world)
    s_boot, s_var, s_fig5 = (int(x) for x in gen.integers(0, 2**31 - 1, 3))
    y, m1, m2 = (survey[c].to_numpy() for c in ("wallet", "m1", "m2"))
    t1 = table1(y, m1).set_index("Measure")
    t2 = table2(y, m1, m2, n_boot=n_boot, seed=s_boot).set_index("Measure")
    var = bootstrap_variance(y, m2, n_boot=n_boot, seed=s_var)
    grid, wins = fig5_bootstrap(y, m1, m2, n_boot=n_boot, seed=s_fig5)
    res = rk.cutoff_auc(y, m1)
    res2 = rk.cutoff_auc(y, m2)
    full_wins = _grid_auc(res, n, grid) > _grid_auc(res2, n, grid)  # cutoff_grid_auc on the cutoffs above
    share = res.n_positive / n
    curve = rk.correct_pairs_curve(y, m1)
    k10 = int(round(0.1 * n))
    lift = rk.cumulative_rank_curve(y, m1)
    out = {f"t1_change_{m}": float(t1.loc[m, "%Change"]) for m in MEASURES}
    out.update({f"t2_p_{m}": float(t2.loc[m, "p-value"]) for m in MEASURES})
    out.update({f"t2_m1_better_{m}": bool(t2.loc[m, "M1 better"]) for m in MEASURES})
    # M1's lead in standard errors of the bootstrap difference, signed (> 0: M1 better): the effect of Table 2's
    # claims, the paper's z = Absolute Difference / Std. Dev. when M1 leads
    out.update({f"t2_z_{m}": float((1 if t2.loc[m, "M1 better"] else -1) * t2.loc[m, "Absolute Difference"]
                                   / t2.loc[m, "Std. Dev."]) for m in MEASURES})
    out.update(
        tau_m1=float(t2.loc["tau", "M1"]), tau_m2=float(t2.loc["tau", "M2"]),
        rho_m1=float(t2.loc["rho", "M1"]), rho_m2=float(t2.loc["rho", "M2"]),
        var_bootstrap=var["bootstrap"], var_eq6=var["eq6"], var_ratio=var["bootstrap"] / var["eq6"],
        fig5_boot_share=float(wins.mean()), fig5_grid_cutoffs=bool(full_wins.all()),
        fig5_all_cutoffs=bool(np.all(res.auc > res2.auc)), fig5_cutoffs_lost=int(np.sum(res.auc <= res2.auc)),
        # the worst cutoff's AUC_i(M1) - AUC_i(M2): over every cutoff 1 <= i <= n - 1 (the text's n - 1 cutoffs),
        # and over 1 < i < n as printed (the top firm's cutoff left out)
        fig5_min_gap=float(np.min(res.auc - res2.auc)),
        fig5_min_gap_inner=float(np.min((res.auc - res2.auc)[res.n_positive > 1])),
        fig2_top_auc=float(res.auc[share <= 0.1].mean()), fig2_bottom_auc=float(res.auc[share >= 0.9].mean()),
        fig1_top_share=float(curve.share[:k10].mean()), fig1_bottom_share=float(curve.share[n - k10 :].mean()),
        fig1_below_half=int((curve.share < 0.5).sum()),
        fig1_any_below_half=bool((curve.share < 0.5).sum() >= 1), fig1_min_share=float(curve.share.min()),
        fig1_some_outliers=bool(1 <= (curve.share < 0.5).sum() <= OUTLIER_MAX_SHARE * n),
        fig3_model_10=float(lift.model[k10]), fig3_optimal_10=float(lift.optimal[k10]),
    )
    return out


def below_half_share(world: dict, *, n: int = 20_000, seed: int = 0) -> float:
    """Share of firms whose M1 prediction orders fewer than half of the pairs it is in correctly (Fig. 1's
    "less than 50 percent correct pairs"), in one large survey of ``world`` -- near its population value."""
    df = wallet_survey(n, rng=seed, **world)
    return float(np.mean(rk.correct_pairs_curve(df["wallet"].to_numpy(), df["m1"].to_numpy()).share < 0.5))


def expected_shares(ref: pd.DataFrame) -> dict:
    """How often a world faithful to Table 2 passes each significance claim, from the paper's own z-scores.

    With ``z = difference / std. dev.`` as printed, a fresh sample's z is
    about ``N(z, 1)``: it is significant (one-sided p < 0.05) with
    probability ``Phi(z - 1.645)``, not significant with ``Phi(1.645 - z)``,
    and favours M1 with ``Phi(z)``.  A claim on two or four measures takes
    the product (errors treated as independent; positively correlated
    measures would pass somewhat more often).
    """
    z = {m: num(reference.lookup(ref, "Table 2", m, "Absolute Difference")) / num(reference.lookup(ref, "Table 2", m, "Std. Dev."))
         for m in MEASURES}
    c = float(norm.isf(0.05))
    return {
        "ranking_significant": float(norm.cdf(z["tau"] - c) * norm.cdf(z["rho"] - c)),
        "residual_not_significant": float(norm.cdf(c - z["RMSE"]) * norm.cdf(c - z["MAE"])),
        "m1_better": float(np.prod([norm.cdf(z[m]) for m in MEASURES])),
        "z": z,
    }


def wallet_tail(seed: int, *, n: int = 500, **world) -> dict:
    """Fig. 4's long tail on the survey of ``seed`` (the same draw as :func:`one_seed`'s): the share of the total
    wallet the largest 5% of the firms hold, and the mean wallet over the median."""
    w = np.sort(wallet_survey(n, rng=np.random.default_rng(seed), **world)["wallet"].to_numpy())
    top = max(1, int(round(0.05 * n)))
    return {"top5_share": float(w[-top:].sum() / w.sum()), "mean_over_median": float(w.mean() / np.median(w))}


# -- Fig. 1's control world: ranking errors that stay local ---------------------------------------
def segment_reversed_ranking(y, tau) -> np.ndarray:
    """A prediction of ``y`` near Kendall's tau ``tau`` whose ranking errors all stay local: no firm out of place.

    The firms, sorted by ``y``, are cut into three segments of ``a, a, n - 2a``
    firms and the order is reversed inside each: every pair inside a segment
    is discordant, every pair across segments concordant, so tau is
    ``1 - 2 (2 C(a, 2) + C(n - 2a, 2)) / C(n, 2)`` and each firm orders every
    pair outside its segment correctly -- a share ``1 - (size - 1) / (n - 1)``
    of its pairs, at least one half since no segment holds more than
    ``(n + 1) / 2`` firms.  ``a`` is the admissible integer whose tau is nearest
    to ``tau``, found in exact rational arithmetic (ties: the smaller ``a``).
    Assumes no ties in ``y``.

    >>> segment_reversed_ranking(np.arange(10.0), 0.45).tolist()
    [2.0, 1.0, 0.0, 12.0, 11.0, 10.0, 23.0, 22.0, 21.0, 20.0]
    """
    from fractions import Fraction
    from math import comb

    y = np.asarray(y, dtype=float)
    n = y.size
    target = Fraction(str(tau))
    if not (0 < target < 1) or n < 6:
        raise ValueError(f"`tau` must be in (0, 1) and `y` hold at least 6 values; got tau={tau!r}, n={n}")
    pairs = comb(n, 2)

    def tau_of(a):
        return 1 - Fraction(2 * (2 * comb(a, 2) + comb(n - 2 * a, 2)), pairs)

    admissible = [a for a in range(1, n // 2 + 1) if 2 * (max(a, n - 2 * a) - 1) <= n - 1]
    a = min(admissible, key=lambda a: (abs(tau_of(a) - target), a))
    order = np.argsort(y, kind="stable")
    m = np.empty(n)
    start = 0
    for s, size in enumerate((a, a, n - 2 * a)):
        m[order[start:start + size]] = s * n + np.arange(size)[::-1]  # reversed inside the segment
        start += size
    return m


def fig1_local_row(seed: int, *, n: int = 500, tau, **world) -> dict:
    """Fig. 1's outliers on the control world: the survey of ``seed`` (the draw of :func:`one_seed`) with M1's
    estimate replaced by :func:`segment_reversed_ranking` at ``tau`` (M1's printed tau)."""
    y = wallet_survey(n, rng=np.random.default_rng(seed), **world)["wallet"].to_numpy()
    m = segment_reversed_ranking(y, tau)
    share = rk.correct_pairs_curve(y, m).share
    return dict(tau_m1=float(rk.kendall_tau(y, m)), fig1_below_half=int((share < 0.5).sum()),
                fig1_any_below_half=bool((share < 0.5).sum() >= 1), fig1_min_share=float(share.min()))


# -- the copula family the paper's text allows: dependence concentrated among the large firms --------------------
def bb6_tau(theta: float, delta: float) -> float:
    """Kendall's tau of the BB6 (Joe-Gumbel) copula, ``1 + 4 int_0^1 phi / phi'``, by quadrature.

    BB6 (Joe 1997, family BB6) has the generator ``phi(t) = (-log(1 - (1 - t)^theta))^delta``, ``theta, delta >= 1``:
    ``theta = 1`` is the Gumbel copula (tau ``1 - 1/delta``), ``delta = 1`` the Joe copula; upper-tail dependence
    ``2 - 2^(1/(theta delta))``, none in the lower tail.

    >>> round(bb6_tau(1.0, 2.0), 12)
    0.5
    """
    from scipy import integrate

    def ratio(t):  # -phi / phi' times theta delta
        s = (1.0 - t) ** theta
        return -np.log1p(-s) * (1.0 - s) / (1.0 - t) ** (theta - 1.0)

    val, _ = integrate.quad(ratio, 0.0, 1.0, limit=200)
    return float(1.0 - 4.0 / (theta * delta) * val)


def _sibuya(alpha: float, n: int, gen: np.random.Generator) -> np.ndarray:
    """``n`` draws of the Sibuya law of index ``alpha`` in (0, 1] (the Joe copula's frailty, Laplace transform
    ``1 - (1 - exp(-t))^alpha``), by inversion of ``P(V > k) = Gamma(k + 1 - alpha) / (Gamma(k + 1) Gamma(1 - alpha))``
    from its power-law start ``(u Gamma(1 - alpha))^(-1 / alpha)``; beyond 1e12 the start is kept (relative error
    below 1e-12)."""
    from scipy.special import gammaln

    u = 1.0 - gen.random(n)
    if alpha == 1:
        return np.ones(n)
    lg = gammaln(1.0 - alpha)
    lu = np.log(u)
    k = np.maximum(1.0, np.floor(np.exp(-(lu + lg) / alpha)))
    exact = k < 1e12

    def log_sf(k):
        return gammaln(k + 1.0 - alpha) - gammaln(k + 1.0) - lg

    for _ in range(200):
        up = exact & (log_sf(k) > lu)
        if not up.any():
            break
        k[up] += 1
    for _ in range(200):
        down = exact & (k > 1) & (log_sf(k - 1) <= lu)
        if not down.any():
            break
        k[down] -= 1
    return k


def bb6_normal_scores(n: int, theta: float, delta: float, gen: np.random.Generator) -> np.ndarray:
    """Normal scores, shape (2, n), of the BB6 copula (:func:`bb6_tau`), by Marshall-Olkin.

    The generator's inverse is ``psi(t) = psi_Joe(t^(1/delta))``, the Laplace transform of ``V = W^delta S`` with
    ``W`` Sibuya of index ``1/theta`` and ``S`` positive stable of index ``1/delta``; ``U_j = psi(E_j / V)``, its
    normal score taken through the upper tail, ``1 - U = (1 - exp(-(E/V)^(1/delta)))^(1/theta)``.
    """
    from offline_eval.synth.wallet import positive_stable

    v = _sibuya(1.0 / theta, n, gen) ** delta * positive_stable(1.0 / delta, n, gen)
    x = gen.standard_exponential((2, n)) / v
    tail = (-np.expm1(-(x ** (1.0 / delta)))) ** (1.0 / theta)
    return norm.isf(np.clip(tail, 1e-300, 1 - 1e-16))


def _expected_eq6(y, m, n: int) -> tuple[float, float]:
    """Kendall's tau of a large sample and the expected eq. 6 (tau-a's variance) of a survey of ``n`` from its law:
    Hoeffding's ``2 / (n (n - 1)) (zeta_2 + 2 (n - 2) zeta_1)``, ``zeta_1`` the variance of each firm's mean kernel
    ``2 C_i / (N - 1) - 1`` (the spread of Fig. 1's shares of correct pairs), ``zeta_2 = 1 - tau^2`` (no ties)."""
    k = 2.0 * rk.concordance_counts(y, m) / (len(y) - 1.0) - 1.0
    tau = float(k.mean())
    return tau, 2.0 / (n * (n - 1.0)) * (1.0 - tau**2 + 2.0 * (n - 2.0) * float(k.var()))


#: The joe_shape grid of the tail family (its Gumbel end, three inner points, its Joe end), declared before any run.
TAIL_GRID = (0.0, 0.25, 0.5, 0.75, 1.0)


def tail_family(ref: pd.DataFrame, *, n: int = 500, n_pop: int = 60_000, seed: int = 48) -> pd.DataFrame:
    """Section 5.3's eq. 6 (M2) over the copula family the text allows, at Table 2's printed taus.

    The family: BB6 copulas of the firm's size and M1's estimate at M1's printed tau, from the Gumbel copula (the
    world) to the Joe copula (the most upper-tail dependence an Archimedean BB6 copula has at that tau), each
    ``theta`` on :data:`TAIL_GRID` as a share of the way; M2 is the world's weaker model,
    ``zhat_2 = r zhat_1 + sqrt(1 - r^2) eta``, its ``r`` fitted by ``brentq`` so that M2's tau is the printed one.
    Each member is drawn once, ``n_pop`` firms from ``seed`` (common random numbers), and its expected eq. 6 at
    ``n`` firms read from that law (:func:`_expected_eq6`).  The Gaussian copula at the same taus (the control
    world) and independence close the table.
    """
    from scipy.optimize import brentq

    tau1, tau2 = (num(reference.lookup(ref, "Table 2", "tau", m)) for m in ("M1", "M2"))
    theta_joe = brentq(lambda t: bb6_tau(t, 1.0) - tau1, 1.0 + 1e-9, 20.0)
    rows = []

    def member(name, theta, delta, z, zhat1, eta):
        def tau_m2(r):
            return float(rk.kendall_tau(z, r * zhat1 + np.sqrt(1.0 - r * r) * eta))

        r = brentq(lambda r: tau_m2(r) - tau2, 0.05, 0.999, xtol=1e-5)
        t1, _ = _expected_eq6(z, zhat1, n)
        t2, eq6 = _expected_eq6(z, r * zhat1 + np.sqrt(1.0 - r * r) * eta, n)
        lam = 0.0 if theta is None else 2.0 - 2.0 ** (1.0 / (theta * delta))
        rows.append({"copula": name, "joe_shape": theta, "gumbel_shape": delta, "upper_tail_dependence": lam,
                     "tau_m1": t1, "tau_m2": t2, "r_m2": r, "expected_eq6_m2": eq6})

    for share in TAIL_GRID:
        theta = 1.0 + share * (theta_joe - 1.0)
        delta = 1.0 / (1.0 - tau1) if share == 0 else brentq(lambda d: bb6_tau(theta, d) - tau1, 1.0, 10.0)
        gen = np.random.default_rng(seed)
        z, zhat1 = bb6_normal_scores(n_pop, theta, max(delta, 1.0), gen)
        member("Gumbel" if share == 0 else "Joe" if share == 1 else "BB6", theta, max(delta, 1.0), z, zhat1,
               gen.standard_normal(n_pop))
    gen = np.random.default_rng(seed)
    c = np.sin(np.pi / 2 * tau1)
    zhat1 = gen.standard_normal(n_pop)
    member("Gaussian (control)", None, None, c * zhat1 + np.sqrt(1 - c * c) * gen.standard_normal(n_pop), zhat1,
           gen.standard_normal(n_pop))
    indep = 2.0 * (2 * n + 5) / (9.0 * n * (n - 1))  # tau-a's variance under independence (Kendall)
    rows.append({"copula": "independence", "joe_shape": None, "gumbel_shape": None, "upper_tail_dependence": 0.0,
                 "tau_m1": 0.0, "tau_m2": 0.0, "r_m2": None, "expected_eq6_m2": indep})
    return pd.DataFrame(rows)
