"""Synthetic IT-wallet survey with two wallet models (rosset Section 5).

The paper's data -- 500 surveyed firms' 2003 software wallets and two IBM
models' estimates -- is proprietary.  This generator models the mechanism the
paper describes:

* **Long-tailed wallets** (Fig. 4, "many companies with relatively small
  wallet size and a few companies with very large wallet size"): each firm
  has a latent size ``z ~ N(0, 1)``; its wallet is
  ``median_wallet * exp(log_scale * t_df(Phi(z)))``, a log-Student-t law whose
  tail (``tail_df``) produces the handful of giant wallets that dominate
  squared and absolute errors.
* **Two models that rank the largest firms best** (``estimates="upper_tail"``, the
  default; Section 5.4: "the model is able to rank better the examples with the
  largest predictions than the examples with the smallest predictions. This is to
  be expected because loss functions used for modeling usually emphasize on the
  largest potential absolute errors").  The models are fitted where the dollar
  errors are, among the large firms: the dependence between the firm's latent size
  and each model's estimate is concentrated in the upper tail, in *both*
  directions -- the largest estimates are truly large firms and the largest firms
  get large estimates -- while the small firms are ranked nearly at random.  This
  is a Gumbel copula of the normal scores ``(z, zhat_1)`` with Kendall's tau
  ``2/pi arcsin(corr_m1)`` (the tau of a Gaussian pair with that correlation, so
  that every world shares the knobs' meaning; upper-tail dependence
  ``2 - 2^(1 - tau)``, none in the lower tail).  M2 is a weaker model on fewer or
  noisier firmographics, as in the regression world:
  ``zhat_2 = r zhat_1 + sqrt(1 - r^2) eta`` with ``r = corr_m2 / corr_m1``.  Its
  control is ``estimates="regression"`` with ``size_skill = 0``: the Gaussian
  copula of ``(z, zhat_1)`` at the same tau and the same M2, the dependence spread
  evenly over the sizes.  The Gumbel copula is stochastically increasing, so the
  estimate ranks the firms as the regression estimate ``E[z | zhat_1]`` does.
* **Regression estimates with a residual that shrinks with the estimate**
  (``estimates="regression"``).  A regression estimate is the expected size given
  the model's inputs, so the truth scatters around the *estimate*: M1's
  standardised estimate is ``zhat_1 ~ N(0, 1)`` and the firm's latent size is
  ``z = corr_m1 zhat_1 + sqrt(1 - corr_m1^2) sigma(zhat_1) e`` with ``e``
  independent of the estimate, ``sigma(zhat_1) = exp(-size_skill zhat_1 -
  size_skill^2)`` (the mean of ``sigma^2`` is 1, so ``corr(z, zhat_1) = corr_m1``
  for every skill).  M2 is a weaker regression on fewer or noisier
  firmographics, ``zhat_2 = r zhat_1 + sqrt(1 - r^2) eta`` with
  ``r = corr_m2 / corr_m1``, so ``corr(z, zhat_2) = corr_m2``.  With
  ``size_skill > 0`` the largest estimates are ranked well, but the truly largest
  firms come mostly from the many small estimates with wide residuals, so the
  largest wallets are ranked *worse* than the smallest (Fig. 2 reversed).
* **Noisy truth** (``estimates="noisy_truth"``): each model's score is the truth
  plus noise, ``z_k = corr_k z + sqrt(1 - corr_k^2) e_k exp(-size_skill z)``
  (``corr(e_1, e_2) = error_corr``): classical errors, which rank the largest
  wallets well but put noisy small firms among the top predictions.
* **Optionally, errors skewed to under-estimation** (``miss_shape``, off by
  default; regression and noisy-truth worlds): incomplete firmographics hide IT
  spending more often than they invent it.
* **Long-tailed dollar estimates**: model ``k`` estimates
  ``median_wallet * exp(pred_scale * t_pred_tail_df(Phi(zhat_k)))`` (in the
  ``noisy_truth`` world its score standardised), the same kind of law as the wallets.  The dollar errors are
  then dominated by a few firms -- the giant wallets, and the firms a model
  mistakes for giants -- which differ between the models, so RMSE and MAE
  barely separate them while their rankings differ clearly.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from .._validation import InputTypeError, check_choice, check_int, check_real, check_rng, check_work

__all__ = ["DEFAULTS", "ESTIMATES", "gumbel_normal_scores", "positive_stable", "wallet_survey"]

#: How the models' estimates relate to the truth (see the module docstring).
ESTIMATES = ("upper_tail", "regression", "noisy_truth")


def _t_of_normal(z: np.ndarray, df: float) -> np.ndarray:
    """The t(df) quantile of Phi(z), through the upper tail for z > 0 (no overflow to inf)."""
    if np.isinf(df):
        return z
    return np.where(z > 0, stats.t.isf(stats.norm.sf(z), df), stats.t.ppf(stats.norm.cdf(z), df))

DEFAULTS = dict(
    n=500,
    median_wallet=150_000.0,
    log_scale=1.25,
    tail_df=6.0,
    corr_m1=0.43,
    corr_m2=0.26,
    error_corr=0.3,
    size_skill=0.0,
    pred_scale=1.25,
    pred_tail_df=6.0,
    miss_shape=float("inf"),
    estimates="upper_tail",
)
"""Defaults of :func:`wallet_survey`: the correlations are near ``sin(pi tau / 2)`` of the paper's taus (the Gaussian
identity), so that tau and rho of M1 and M2 land near the paper's; the study derives them from the printed cells
(:func:`offline_eval_compendium.studies.rosset.wallet.paper_world`)."""


def wallet_survey(
    n: int = DEFAULTS["n"],
    *,
    rng=None,
    median_wallet: float = DEFAULTS["median_wallet"],
    log_scale: float = DEFAULTS["log_scale"],
    tail_df: float = DEFAULTS["tail_df"],
    corr_m1: float = DEFAULTS["corr_m1"],
    corr_m2: float = DEFAULTS["corr_m2"],
    error_corr: float = DEFAULTS["error_corr"],
    size_skill: float = DEFAULTS["size_skill"],
    pred_scale: float = DEFAULTS["pred_scale"],
    pred_tail_df: float = DEFAULTS["pred_tail_df"],
    miss_shape: float = DEFAULTS["miss_shape"],
    estimates: str = DEFAULTS["estimates"],
) -> pd.DataFrame:
    """Draw a survey of ``n`` firms with their wallets and two models' estimates.

    Parameters
    ----------
    n : int, default 500
        Surveyed firms (the paper's survey has 500).
    rng : None, int or numpy.random.Generator
        Source of every random draw.
    median_wallet : float, default 150,000
        Median wallet in dollars.
    log_scale : float, default 1.25
        Scale of the log-wallet (log-Student-t).
    tail_df : float, default 6
        Degrees of freedom of the log-wallet's t law; smaller means heavier
        tail (``inf`` gives a log-normal).
    corr_m1, corr_m2 : float, default 0.43 and 0.26
        Correlation between each model's latent estimate and the firm's
        latent size (``upper_tail``: the Gumbel copula has the Kendall's tau
        ``2/pi arcsin(corr)`` of a Gaussian pair with this correlation); with
        ``estimates="upper_tail"`` or ``"regression"``, ``0 < corr_m2 <= corr_m1``.
    error_corr : float, default 0.3
        Correlation between the two models' errors (shared inputs); only
        for ``estimates="noisy_truth"`` (in the regression world M2's error
        is M1's plus its own: their correlation follows from ``r``).
    size_skill : float, default 0
        Regression and noisy-truth worlds only (the upper-tail world's size
        effect is its copula's): the residual is multiplied by
        ``exp(-size_skill * zhat_1 - size_skill^2)``, smaller where M1
        predicts a large wallet (``noisy_truth``: the noise by
        ``exp(-size_skill * z)``); 0 = the same everywhere.
    pred_scale : float, default 1.25
        Scale of the log-predictions (below ``log_scale`` = shrunk estimates).
    pred_tail_df : float, default 6
        Degrees of freedom of the log-predictions' t law: each model's
        estimates are long-tailed like the wallets, so a model sometimes
        estimates a small firm as a big one (``inf``: log-normal estimates).
    miss_shape : float, default inf (Gaussian errors)
        Regression and noisy-truth worlds only.  Shape ``a`` of the models' error law: ``e = -(G - a) / sqrt(a)`` with
        ``G ~ Gamma(a)``, skewed to under-estimation (missing firmographic
        information hides spending more often than it invents it), so the
        top estimates are mostly truly large firms.  With ``a = 1`` Fig. 1's
        well-ranked top predictions appear, but the models no longer mistake
        small firms for giants and RMSE / MAE then separate them
        significantly: in this generator the two effects pull against each
        other, and the default keeps the paper's Table 2.
    estimates : {"upper_tail", "regression", "noisy_truth"}, default "upper_tail"
        Estimates whose dependence on the size is concentrated among the
        large firms (a Gumbel copula), regression estimates (the truth
        scatters around the estimate; with ``size_skill = 0`` the Gaussian
        copula of the same taus), or noisy truth (the estimate scatters
        around the truth).

    Returns
    -------
    pandas.DataFrame
        Columns ``firm`` (0..n-1), ``wallet`` (dollars), ``m1``, ``m2``
        (estimated wallets in dollars), ``size`` (the latent ``z``).

    Examples
    --------
    >>> df = wallet_survey(5, rng=0)
    >>> list(df.columns), len(df), bool((df[["wallet", "m1", "m2"]] > 0).all().all())
    (['firm', 'wallet', 'm1', 'm2', 'size'], 5, True)
    """
    check_int(n, "n", low=2)
    for name, v in (("corr_m1", corr_m1), ("corr_m2", corr_m2), ("error_corr", error_corr)):
        if not -1 <= v <= 1:
            raise ValueError(f"`{name}` must lie in [-1, 1]; got {v!r}")
    for name, v in (("median_wallet", median_wallet), ("log_scale", log_scale), ("tail_df", tail_df),
                    ("pred_scale", pred_scale), ("pred_tail_df", pred_tail_df), ("miss_shape", miss_shape)):
        if not v > 0:
            raise ValueError(f"`{name}` must be positive; got {v!r}")
    check_choice(estimates, "estimates", ESTIMATES)
    if estimates != "noisy_truth" and not 0 < corr_m2 <= corr_m1:
        raise ValueError(f"`corr_m2` must lie in (0, corr_m1] for {estimates} estimates; got {corr_m2!r}")
    gen = check_rng(rng)
    if estimates == "upper_tail":
        if size_skill != 0 or not np.isinf(miss_shape):
            raise ValueError("`size_skill` and `miss_shape` apply to the regression and noisy_truth estimates only; "
                             f"got size_skill={size_skill!r}, miss_shape={miss_shape!r} with estimates='upper_tail'")
        z, zhat1 = gumbel_normal_scores(n, 1 / (1 - 2 / np.pi * np.arcsin(corr_m1)), gen)
        zhat2 = _weaker_model(zhat1, corr_m1, corr_m2, gen)
        return _survey_frame(z, z, zhat1, zhat2, median_wallet=median_wallet, log_scale=log_scale, tail_df=tail_df,
                             pred_scale=pred_scale, pred_tail_df=pred_tail_df)
    if estimates == "regression":
        return _regression_survey(n, gen, median_wallet=median_wallet, log_scale=log_scale, tail_df=tail_df,
                                  corr_m1=corr_m1, corr_m2=corr_m2, size_skill=size_skill, pred_scale=pred_scale,
                                  pred_tail_df=pred_tail_df, miss_shape=miss_shape)
    z = gen.standard_normal(n)
    u1 = gen.standard_normal(n)
    u2 = error_corr * u1 + np.sqrt(1 - error_corr**2) * gen.standard_normal(n)
    # correlated Gaussian errors mapped to the skewed law (a Gaussian copula)
    e1, e2 = _skewed(u1, miss_shape), _skewed(u2, miss_shape)
    # log-t marginal through the Gaussian copula: ranks of z are kept
    t = _t_of_normal(z, tail_df)
    wallet = median_wallet * np.exp(log_scale * t)
    noise_scale = np.exp(-size_skill * z)
    scores = []
    for corr, e in ((corr_m1, e1), (corr_m2, e2)):
        s = corr * z + np.sqrt(1 - corr**2) * e * noise_scale
        s = (s - np.median(s)) / np.std(s)
        s = _t_of_normal(s, pred_tail_df)
        scores.append(median_wallet * np.exp(pred_scale * s))
    return pd.DataFrame({"firm": np.arange(n), "wallet": wallet, "m1": scores[0], "m2": scores[1], "size": z})


def positive_stable(alpha: float, n: int, gen: np.random.Generator) -> np.ndarray:
    """``n`` draws of the positive stable law with Laplace transform ``exp(-t^alpha)``, ``0 < alpha <= 1``.

    Kanter's (1975) representation: with ``U ~ Uniform(0, pi)`` and ``W ~ Exp(1)``,
    ``S = sin(alpha U) / sin(U)^(1/alpha) * (sin((1 - alpha) U) / W)^((1 - alpha) / alpha)``;
    ``alpha = 1`` is the point mass at 1.

    Parameters
    ----------
    alpha : float
        Index of the law, in ``(0, 1]``.
    n : int
        Number of draws.
    gen : numpy.random.Generator
        Source of the draws (two arrays of ``n`` are drawn for every ``alpha``).

    Returns
    -------
    numpy.ndarray
        ``n`` positive draws.
    """
    if isinstance(alpha, (bool, np.bool_)) or not isinstance(alpha, (int, float, np.integer, np.floating)) \
            or not 0 < alpha <= 1:
        raise ValueError(f"`alpha` must lie in (0, 1]; got {alpha!r}")
    check_int(n, "n", low=0)
    check_work(n, "n", n)
    if not isinstance(gen, np.random.Generator):
        raise InputTypeError(f"`gen` must be a numpy Generator; got {type(gen).__name__}")
    u = np.pi * (1.0 - gen.random(n))  # in (0, pi]: sin(u) > 0
    w = gen.standard_exponential(n)
    if alpha == 1:
        return np.ones(n)
    return np.sin(alpha * u) / np.sin(u) ** (1 / alpha) * (np.sin((1 - alpha) * u) / w) ** ((1 - alpha) / alpha)


def gumbel_normal_scores(n: int, theta: float, gen: np.random.Generator, dim: int = 2) -> np.ndarray:
    """Normal scores of ``n`` draws of a ``dim``-variate Gumbel copula with parameter ``theta >= 1``.

    Marshall-Olkin: ``U_j = psi(E_j / V)`` with ``psi(t) = exp(-t^(1/theta))``,
    ``E_j ~ Exp(1)`` and ``V`` positive stable of index ``1/theta``; every pair has
    Kendall's tau ``1 - 1/theta`` and upper-tail dependence ``2 - 2^(1/theta)``.
    The normal score is taken through the upper tail,
    ``Phi^-1(U) = isf(1 - U) = isf(-expm1(-t^(1/theta)))``, so the largest firms keep
    full precision.

    Parameters
    ----------
    n : int
        Number of draws.
    theta : float
        Gumbel parameter, ``>= 1`` (1 = independence).
    gen : numpy.random.Generator
        Source of the draws.
    dim : int, default 2
        Number of exchangeable components.

    Returns
    -------
    numpy.ndarray
        Standard normal scores, shape ``(dim, n)``.
    """
    if isinstance(theta, (bool, np.bool_)) or not isinstance(theta, (int, float, np.integer, np.floating)) \
            or not (np.isfinite(theta) and theta >= 1):
        raise ValueError(f"`theta` must be >= 1 (and finite); got {theta!r}")
    check_int(dim, "dim", low=1)
    check_int(n, "n", low=0)
    check_work(int(n) * int(dim), "n", n)
    v = positive_stable(1 / theta, n, gen)
    e = gen.standard_exponential((dim, n))
    tail = -np.expm1(-((e / v) ** (1 / theta)))  # 1 - U
    return stats.norm.isf(np.clip(tail, 1e-300, 1 - 1e-16))


def _skewed(u: np.ndarray, miss_shape: float) -> np.ndarray:
    """Standard normal draws mapped to the under-estimation-skewed law of ``miss_shape`` (a Gaussian copula)."""
    if np.isinf(miss_shape):
        return u
    return -(stats.gamma.isf(stats.norm.sf(u), miss_shape) - miss_shape) / np.sqrt(miss_shape)


def _latent_cdf(x, corr, c, size_skill, miss_shape, n_nodes: int = 96):
    """``P(corr h + c exp(-size_skill h - size_skill^2) e <= x)`` for ``h ~ N(0, 1)``, by Gauss-Hermite quadrature."""
    h, w = np.polynomial.hermite_e.hermegauss(n_nodes)
    w = w / w.sum()
    scale = c * np.exp(-size_skill * h - size_skill**2)
    t = (np.asarray(x)[:, None] - corr * h[None, :]) / scale[None, :]
    if np.isinf(miss_shape):
        cdf = stats.norm.cdf(t)
    else:  # e = -(G - a) / sqrt(a), G ~ Gamma(a): P(e <= t) = P(G >= a - t sqrt(a))
        cdf = stats.gamma.sf(miss_shape - t * np.sqrt(miss_shape), miss_shape)
    return cdf @ w


def _regression_survey(n, gen, *, median_wallet, log_scale, tail_df, corr_m1, corr_m2, size_skill, pred_scale,
                       pred_tail_df, miss_shape) -> pd.DataFrame:
    """The survey when both models are regression estimates (the truth scatters around them)."""
    zhat1 = gen.standard_normal(n)
    zhat2 = _weaker_model(zhat1, corr_m1, corr_m2, gen)
    e = _skewed(gen.standard_normal(n), miss_shape)
    sigma = np.exp(-size_skill * zhat1 - size_skill**2)  # E[sigma^2] = 1: corr(z, zhat1) = corr_m1
    c = np.sqrt(1.0 - corr_m1**2)
    z = corr_m1 * zhat1 + c * sigma * e
    # z is not Gaussian (its noise depends on zhat1): map it through its exact CDF to a standard normal score,
    # so the wallets keep the documented log-t law (median `median_wallet`) and only the dependence changes
    score = stats.norm.ppf(np.clip(_latent_cdf(z, corr_m1, c, size_skill, miss_shape), 1e-300, 1 - 1e-16))
    return _survey_frame(z, score, zhat1, zhat2, median_wallet=median_wallet, log_scale=log_scale, tail_df=tail_df,
                         pred_scale=pred_scale, pred_tail_df=pred_tail_df)


def _weaker_model(zhat1, corr_m1, corr_m2, gen):
    """M2's standardised estimate: M1's blurred by its own noise, ``corr(zhat_1, zhat_2) = corr_m2 / corr_m1``."""
    r = corr_m2 / corr_m1
    return r * zhat1 + np.sqrt(1.0 - r * r) * gen.standard_normal(len(zhat1))


def _survey_frame(size, score, zhat1, zhat2, *, median_wallet, log_scale, tail_df, pred_scale, pred_tail_df):
    """The survey's frame: wallets from the normal ``score`` of the latent ``size``, dollar estimates from each
    model's standardised estimate (both log-t laws)."""
    wallet = median_wallet * np.exp(log_scale * _t_of_normal(score, tail_df))
    m1, m2 = (median_wallet * np.exp(pred_scale * _t_of_normal(s, pred_tail_df)) for s in (zhat1, zhat2))
    return pd.DataFrame({"firm": np.arange(len(size)), "wallet": wallet, "m1": m1, "m2": m2, "size": size})


from ._checks import check_all as _check_all  # noqa: E402

_check_all(globals(), __all__)
