"""A synthetic sponsored-search world (yi Sections 2.1, 4.6, 5-6).

The Bing logs behind yi are proprietary; this generator models the mechanism
the paper describes:

* **queries** with a skewed (Zipf) frequency;
* per query a fixed set of ``n_candidates`` **candidate ads**, each with a
  bid (log-normal) and a true *position-unbiased* CTR (the CTR it would get
  in the top mainline slot).  CTRs have a **heavy low tail**: a share
  ``junk_share`` of candidates are poorly relevant ads whose CTR is a factor
  ``junk_factor`` lower (yi: errors in "the very low range of predicted
  click scores" let such ads into the auction);
* a **position click curve**: the probability of a click is the ad's CTR
  times the examination factor of its slot; mainline slots (above the
  organic results) get far more than sidebar slots, and within a block the
  factor decreases with the slot (yi Section 2.1);
* per page view each candidate **participates** with probability
  ``participation`` (budgets, targeting), so the same (query, ad) pair is
  logged at several positions -- which is what lets a click curve be
  estimated from logs;
* **click models** (:func:`distorted_pclick`) whose predictions are the true
  CTR distorted by noise and by over-estimation in chosen CTR ranges, and
  (:func:`overestimate_low_range`) a model's predictions mis-calibrated in
  their low range without changing their order (yi Table 6: same ranking,
  much worse calibration of poor ads).

Every generator takes ``rng`` (an int seed or a ``numpy.random.Generator``)
and draws everything from it.
"""

from __future__ import annotations

import numpy as np

from scipy.special import expit, logit

from .._validation import InputTypeError, as_array, check_int, check_real, check_rng, check_work
from ..auction.logs import PageViews
from ._checks import check_kwargs
from .search_world import SponsoredWorld, sample_page_views

__all__ = [
    "PageViews",
    "SponsoredWorld",
    "click_curve",
    "distorted_pclick",
    "make_world",
    "overestimate_low_range",
    "sample_ctr",
    "sample_page_views",
]


def _positive(name, value, *, allow_zero=False):
    ok = value >= 0 if allow_zero else value > 0
    if not (np.isfinite(value) and ok):
        raise ValueError(f"`{name}` must be {'non-negative' if allow_zero else 'positive'} and finite; got {value!r}")


def click_curve(*, n_mainline=3, n_sidebar=5, mainline_decay=0.7, sidebar_top=0.12, sidebar_decay=0.8) -> np.ndarray:
    """Examination factor of each ad slot, mainline slots first.

    Parameters
    ----------
    n_mainline : int, default 3
        Number of mainline slots (above the organic results).
    n_sidebar : int, default 5
        Number of sidebar slots (right of the organic results).
    mainline_decay : float, default 0.7
        Ratio of the factors of consecutive mainline slots, in (0, 1].
    sidebar_top : float, default 0.12
        Factor of the first sidebar slot; must be below the last mainline slot.
    sidebar_decay : float, default 0.8
        Ratio of consecutive sidebar slots, in (0, 1].

    Returns
    -------
    ndarray of shape (n_mainline + n_sidebar,)
        ``curve[s]``: click probability in slot ``s`` of an ad whose
        position-unbiased CTR is 1; ``curve[0] == 1`` (the CTR is defined at
        the top mainline slot).

    Notes
    -----
    :math:`\\kappa_s = d_m^s` for mainline slots :math:`s < M` and
    :math:`\\kappa_{M + j} = t_s d_s^j` for sidebar slots.

    Examples
    --------
    >>> click_curve(n_mainline=2, n_sidebar=2, mainline_decay=0.5, sidebar_top=0.1, sidebar_decay=0.5).tolist()
    [1.0, 0.5, 0.1, 0.05]
    """
    check_int(n_mainline, "n_mainline", low=1)
    check_int(n_sidebar, "n_sidebar", low=0)
    for name, v in (("mainline_decay", mainline_decay), ("sidebar_decay", sidebar_decay)):
        if not 0 < v <= 1:
            raise ValueError(f"`{name}` must be in (0, 1]; got {v!r}")
    main = mainline_decay ** np.arange(n_mainline)
    if n_sidebar and not 0 < sidebar_top < main[-1]:
        raise ValueError(f"`sidebar_top` must be in (0, {main[-1]:g}) so that mainline slots get more clicks; got {sidebar_top!r}")
    side = sidebar_top * sidebar_decay ** np.arange(n_sidebar)
    return np.r_[main, side].astype(np.float64)


def sample_ctr(n, rng=None, *, median=0.03, sd=0.7, junk_share=0.3, junk_factor=0.05, junk_sd=0.7, max_ctr=0.9) -> np.ndarray:
    """Position-unbiased CTRs with a heavy low tail (a two-component log-normal).

    Parameters
    ----------
    n : int or tuple of int
        Shape of the output, at most 2**30 values.
    rng : int, Generator or None
    median : float, default 0.03
        Median CTR of relevant ads.
    sd : float, default 0.7
        Standard deviation of log CTR of relevant ads.
    junk_share : float, default 0.3
        Share of poorly relevant ads (the low tail), in [0, 1].
    junk_factor : float, default 0.05
        Their median CTR relative to ``median``.
    junk_sd : float, default 0.7
        Standard deviation of their log CTR.
    max_ctr : float, default 0.9
        CTRs are capped here.

    Returns
    -------
    ndarray of float64 with shape ``n``, values in (0, max_ctr].

    Notes
    -----
    :math:`\\log CTR \\sim N(\\log m, s^2)` with probability :math:`1 - \\pi`
    and :math:`N(\\log(m f), s_j^2)` with probability :math:`\\pi`.

    Examples
    --------
    >>> c = sample_ctr(10_000, 0, junk_share=0.0)
    >>> bool(abs(np.median(c) / 0.03 - 1) < 0.05)
    True
    """
    if n is None or isinstance(n, (str, bytes)):
        raise InputTypeError(f"`n` must be an integer or a tuple of integers (a shape); got {n!r}")
    try:
        shape = (n,) if np.isscalar(n) else tuple(n)
    except TypeError:
        raise InputTypeError(f"`n` must be an integer or a tuple of integers (a shape); got {n!r}") from None
    for k in shape:
        check_int(k, "n", low=0)
    check_work(int(np.prod(shape, dtype=object)), "n", n)
    rng = check_rng(rng)
    for name, v in (("median", median), ("junk_factor", junk_factor), ("max_ctr", max_ctr)):
        if not 0 < v <= 1:
            raise ValueError(f"`{name}` must be in (0, 1]; got {v!r}")
    if not 0 <= junk_share <= 1:
        raise ValueError(f"`junk_share` must be in [0, 1]; got {junk_share!r}")
    _positive("sd", sd, allow_zero=True)
    _positive("junk_sd", junk_sd, allow_zero=True)
    junk = rng.random(n) < junk_share
    z = rng.standard_normal(n)
    log_ctr = np.where(junk, np.log(median * junk_factor) + junk_sd * z, np.log(median) + sd * z)
    return np.minimum(np.exp(log_ctr), max_ctr)


def distorted_pclick(ctr, rng=None, *, noise_sd=0.5, scale=1.0, low_ctr=0.005, low_shift=0.0, high_shift=0.0, width=0.5) -> np.ndarray:
    """A click model's predictions: the true CTR, distorted.

    Parameters
    ----------
    ctr : array-like
        True position-unbiased CTRs, in (0, 1).
    rng : int, Generator or None
    noise_sd : float, default 0.5
        Standard deviation of the model's error in log-odds (a better model
        has a smaller one).
    scale : float, default 1.0
        Multiplicative calibration of the odds: ``scale < 1`` under-predicts
        everywhere, ``> 1`` over-predicts.
    low_ctr : float, default 0.005
        Boundary between the "low" and the "high" pClick range.
    low_shift : float, default 0.0
        Over-estimation (in log-odds) of ads whose CTR is well below ``low_ctr``.
    high_shift : float, default 0.0
        Over-estimation (in log-odds) of ads well above ``low_ctr``.
    width : float, default 0.5
        Width (in log-odds) of the smooth switch between the two ranges.

    Returns
    -------
    ndarray of float64, same shape as ``ctr``, values in (0, 1).

    Notes
    -----
    With :math:`\\ell = \\operatorname{logit}(ctr)`, :math:`\\ell_0 = \\operatorname{logit}(low\\_ctr)`,
    :math:`\\sigma` the logistic function and :math:`\\varepsilon \\sim N(0, 1)`:

    .. math::

        \\operatorname{logit}(p) = \\ell + \\log(scale) + s\\,\\varepsilon - s^2/2
            + \\delta_{low}\\,\\sigma\\!\\left(\\frac{\\ell_0 - \\ell}{w}\\right)
            + \\delta_{high}\\,\\sigma\\!\\left(\\frac{\\ell - \\ell_0}{w}\\right).

    The :math:`-s^2/2` centres the log-normal noise so that a noisy model is
    still calibrated on average for small CTRs (:math:`E[p] \\approx ctr`).
    yi's model-2 (Section 6, Figs. 3-4) is ``low_shift`` large, ``high_shift``
    small and ``noise_sd`` smaller than the baseline's.

    Examples
    --------
    Without noise or shifts the model is the truth:

    >>> distorted_pclick([0.01, 0.2], 0, noise_sd=0.0).round(12).tolist()
    [0.01, 0.2]
    """
    rng = check_rng(rng)
    c = as_array(ctr, "ctr")
    if c.size == 0 or not np.isfinite(c).all() or (c <= 0).any() or (c >= 1).any():
        raise ValueError("`ctr` must be a non-empty array of values in (0, 1)")
    _positive("noise_sd", noise_sd, allow_zero=True)
    _positive("scale", scale)
    _positive("width", width)
    if not 0 < low_ctr < 1:
        raise ValueError(f"`low_ctr` must be in (0, 1); got {low_ctr!r}")
    ell = logit(c)
    l0 = logit(low_ctr)
    x = ell + np.log(scale) + noise_sd * rng.standard_normal(c.shape) - 0.5 * noise_sd**2
    x = x + low_shift * expit((l0 - ell) / width) + high_shift * expit((ell - l0) / width)
    return np.clip(expit(x), 1e-12, 1 - 1e-12)


def overestimate_low_range(pclick, *, low_ctr=0.004, low_shift=4.0, width=None) -> np.ndarray:
    """Over-estimate a model's low predictions without changing their order.

    A click model whose *calibration* is wrong in the low pClick range while
    its *ranking* is intact -- e.g. a calibration map fitted on logs that
    hold few poorly relevant ads.  yi Table 6 compares such a baseline with a
    new model that is the same ranking, calibrated: AUC barely moves
    (+0.2%) while RIG gains a lot (+78%).

    Parameters
    ----------
    pclick : array-like
        The well-calibrated predictions, in (0, 1).
    low_ctr : float, default 0.004
        Centre of the low range: predictions well below it are
        over-estimated by ``low_shift`` log-odds, those well above it hardly.
        (The default is the boundary of ``MODEL_2`` in the compendium's ``studies/yi/_auction.py``.)
    low_shift : float, default 4.0
        Over-estimation (log-odds) of the lowest predictions, >= 0.
    width : float, optional
        Width (log-odds) of the switch, a finite positive number; must be at least ``low_shift / 4``,
        the narrowest switch that keeps the map order-preserving.  Default:
        ``max(low_shift / 4, 0.5)``.

    Returns
    -------
    ndarray of float64, same shape as ``pclick``, values in (0, 1),
    with ``out >= pclick`` and the same order as ``pclick``.

    Notes
    -----
    With :math:`x = \\operatorname{logit}(p)`, :math:`x_0 = \\operatorname{logit}(low\\_ctr)`
    and :math:`\\sigma` the logistic function,

    .. math:: \\operatorname{logit}(p') = f(x) = x + \\delta\\,\\sigma\\!\\left(\\frac{x_0 - x}{w}\\right),
              \\qquad f'(x) = 1 - \\frac{\\delta}{w}\\,\\sigma(1 - \\sigma) \\ge 1 - \\frac{\\delta}{4 w},

    so :math:`f` is non-decreasing (strictly increasing: :math:`f' = 0` at
    most at the single point :math:`x_0`) exactly when :math:`w \\ge \\delta / 4`.
    Ties among the inputs stay ties; distinct inputs closer than floating
    point resolves after the map may become ties (near :math:`x_0` when
    :math:`w = \\delta / 4`, where :math:`f` is flat to third order).
    This is the ``low_shift`` term of :func:`distorted_pclick` applied to the
    model's own score instead of the true CTR, which makes it rank-preserving.

    References
    ----------
    .. [1] J. Yi et al., KDD 2013, Sections 6 and 6.1, Table 6.

    Examples
    --------
    At ``low_ctr`` the log-odds rise by ``low_shift / 2``: with ``low_ctr`` 0.2
    (odds 1/4) and ``low_shift`` 2 log (odds x2 at the centre), the odds
    become 1/2, i.e. p = 1/3:

    >>> round(float(overestimate_low_range([0.2], low_ctr=0.2, low_shift=2 * np.log(2.0))[0]), 12)
    0.333333333333
    >>> p = np.array([1e-4, 1e-3, 0.01, 0.1])
    >>> q = overestimate_low_range(p)
    >>> bool((np.diff(q) > 0).all() and (q >= p).all()), (q / p).round(1).tolist()
    (True, [49.3, 24.0, 3.1, 1.1])
    """
    p = as_array(pclick, "pclick")
    if p.size == 0 or not np.isfinite(p).all() or (p <= 0).any() or (p >= 1).any():
        raise ValueError("`pclick` must be a non-empty array of values in (0, 1)")
    if not 0 < low_ctr < 1:
        raise ValueError(f"`low_ctr` must be in (0, 1); got {low_ctr!r}")
    _positive("low_shift", low_shift, allow_zero=True)
    if width is not None:
        check_real(width, "width", low=0, closed="neither")
    if width is None:
        width = max(low_shift / 4.0, 0.5)
    _positive("width", width)
    if width < low_shift / 4.0:
        raise ValueError(f"`width` must be >= low_shift / 4 = {low_shift / 4.0:g} so that the map keeps the order "
                         f"of the predictions; got {width!r}")
    shift = low_shift * expit((logit(low_ctr) - logit(p)) / width)
    # multiply the odds rather than round-trip through log-odds: keeps full relative precision at p ~ 1e-9
    m = np.exp(np.minimum(shift, 700.0))
    return np.clip(p * m / (1.0 - p + p * m), 1e-12, 1 - 1e-12)


def make_world(
    rng=None,
    *,
    n_queries=2000,
    n_candidates=10,
    zipf_exponent=1.0,
    bid_sd=0.6,
    query_ctr_sd=0.4,
    participation=0.8,
    ctr_kwargs=None,
    curve_kwargs=None,
) -> SponsoredWorld:
    """Draw a sponsored-search world.

    Parameters
    ----------
    rng : int, Generator or None
    n_queries : int, default 2000
        Number of distinct queries.
    n_candidates : int, default 10
        Candidate ads per query.
    zipf_exponent : float, default 1.0
        Query *i* (1-based) is searched with probability proportional to
        :math:`i^{-a}` (head queries dominate the traffic).
    bid_sd : float, default 0.6
        Standard deviation of log bids (median bid 1; the unit of money is arbitrary).
    query_ctr_sd : float, default 0.4
        Standard deviation of a per-query log-CTR factor shared by its ads
        (navigational queries get more clicks than vague ones).
    participation : float, default 0.8
        Probability that a candidate takes part in an auction, in (0, 1].
    ctr_kwargs : dict, optional
        Passed to :func:`sample_ctr`: its keyword arguments (``median``, ``sd``, ``junk_share``,
        ``junk_factor``, ``junk_sd``, ``max_ctr``), checked before any draw.
    curve_kwargs : dict, optional
        Passed to :func:`click_curve`: its keyword arguments (``n_mainline``, ``n_sidebar``, the decays,
        ``sidebar_top``), checked before any draw.

    Returns
    -------
    SponsoredWorld

    Examples
    --------
    >>> w = make_world(0, n_queries=5, n_candidates=4)
    >>> w.bids.shape, w.ctr.shape, w.n_slots, w.n_mainline
    ((5, 4), (5, 4), 8, 3)
    """
    rng = check_rng(rng)
    for name, v in (("n_queries", n_queries), ("n_candidates", n_candidates)):
        check_int(v, name, low=1)
    _positive("zipf_exponent", zipf_exponent, allow_zero=True)
    _positive("bid_sd", bid_sd, allow_zero=True)
    _positive("query_ctr_sd", query_ctr_sd, allow_zero=True)
    if not 0 < participation <= 1:
        raise ValueError(f"`participation` must be in (0, 1]; got {participation!r}")
    ctr_kwargs = check_kwargs(ctr_kwargs, "ctr_kwargs", sample_ctr, skip=("n", "rng"))
    curve_kwargs = check_kwargs(curve_kwargs, "curve_kwargs", click_curve)
    try:  # their values, by the callees' own checks, before any draw (an empty draw from a generator of its own)
        sample_ctr(0, np.random.default_rng(0), **ctr_kwargs)
    except ValueError as exc:  # InputTypeError too
        raise type(exc)(f"`ctr_kwargs`: {exc}") from None
    try:
        curve = click_curve(**curve_kwargs)
    except ValueError as exc:
        raise type(exc)(f"`curve_kwargs`: {exc}") from None
    n_mainline = int(curve_kwargs.get("n_mainline", 3))
    weights = np.arange(1, n_queries + 1, dtype=np.float64) ** -float(zipf_exponent)
    query_prob = weights / weights.sum()
    bids = np.exp(bid_sd * rng.standard_normal((n_queries, n_candidates)))
    ctr = sample_ctr((n_queries, n_candidates), rng, **ctr_kwargs)
    qf = np.exp(query_ctr_sd * rng.standard_normal((n_queries, 1)) - 0.5 * query_ctr_sd**2)
    ctr = np.clip(ctr * qf, 1e-9, 0.9)
    return SponsoredWorld(query_prob, bids, ctr, curve, n_mainline, float(participation))


from ._checks import check_all as _check_all  # noqa: E402

_check_all(globals(), __all__)
