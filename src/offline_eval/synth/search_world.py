"""The online world of sponsored search: queries, their candidate ads, true CTRs and the page layout.

:class:`SponsoredWorld` is the "online" truth that offline logs never show; :func:`sample_page_views` draws a
stream of auctions from it, :func:`serve` serves them with a model's pClick (through
:func:`offline_eval.auction.allocate`) and draws the users' clicks, and :func:`ab_test` runs an online A/B test
in it (two arms served, compared by :func:`offline_eval.auction.compare_click_yields`).
:func:`offline_eval.synth.sponsored.make_world` draws a world that models yi's mechanism; build one from your own
estimates to serve page views.  These names are also reachable from :mod:`offline_eval.auction`, where they
used to live.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validation import (
    InputTypeError,
    asarray_named,
    check_bool,
    check_distribution,
    check_int,
    check_matrix,
    check_probability,
    check_real,
    check_rng,
    check_work,
    reject_masked,
)
from ..auction.abtest import ABTest, click_yield, compare_click_yields
from ..auction.allocation import as_operating_point, check_layout, engine_inputs, shown_at_points
from ..auction.logs import Impressions, PageViews, check_page_views

__all__ = ["SponsoredWorld", "ab_test", "sample_page_views", "serve"]

@dataclass(frozen=True)
class SponsoredWorld:
    """A marketplace: queries, their candidate ads, true CTRs and the page layout (the "online" truth).

    :func:`offline_eval.synth.sponsored.make_world` draws one; build one from
    your own estimates to serve page views (:func:`serve`, :func:`ab_test`).

    Attributes
    ----------
    query_prob : ndarray of shape (n_queries,)
        Probability that a page view is for each query (sums to 1).
    bids : ndarray of shape (n_queries, n_candidates)
        Cost-per-click bid of each candidate ad of each query.
    ctr : ndarray of shape (n_queries, n_candidates)
        True position-unbiased CTR (at the top mainline slot).
    click_curve : ndarray of shape (n_slots,)
        Examination factor per slot, mainline slots first (:func:`click_curve`).
    n_mainline : int
        Number of mainline slots; the other slots are sidebar slots.
    participation : float
        Probability that a candidate takes part in a given auction.
    """

    def __post_init__(self):
        for name in ("query_prob", "bids", "ctr", "click_curve"):
            reject_masked(getattr(self, name), name)
            asarray_named(getattr(self, name), name)  # a ragged nested list: a named error, not numpy's
        q, k = np.shape(self.bids) if np.ndim(self.bids) == 2 else (None, None)
        if q is None or np.shape(self.ctr) != (q, k) or np.shape(self.query_prob) != (q,):
            raise ValueError(f"`bids` must be (n_queries, n_candidates) with `ctr` of the same shape and "
                             f"`query_prob` of shape (n_queries,); got {np.shape(self.bids)}, {np.shape(self.ctr)}, "
                             f"{np.shape(self.query_prob)}")
        # Probabilities must be probabilities: a nan or > 1 CTR or a negative click curve would make
        # ab_test report nan or negative click yields rather than fail.
        check_distribution(self.query_prob, "query_prob")  # numpy's tolerance, that of the draws of sample_page_views
        b = check_matrix(self.bids, "bids")
        if (b < 0).any():
            raise ValueError(f"`bids` must be non-negative; got {int((b < 0).sum())} negative values")
        ctr = check_matrix(self.ctr, "ctr")
        if ((ctr < 0) | (ctr > 1)).any():
            raise ValueError(f"`ctr` must lie in [0, 1]; got {int(((ctr < 0) | (ctr > 1)).sum())} values outside")
        check_probability(self.click_curve, "click_curve")
        check_int(self.n_mainline, "n_mainline", low=0, high=len(self.click_curve))
        check_real(self.participation, "participation", low=0, high=1)
        check_layout(self.n_mainline, len(self.click_curve) - self.n_mainline)

    query_prob: np.ndarray
    bids: np.ndarray
    ctr: np.ndarray
    click_curve: np.ndarray
    n_mainline: int
    participation: float

    @property
    def n_queries(self) -> int:
        return self.bids.shape[0]

    @property
    def n_candidates(self) -> int:
        return self.bids.shape[1]

    @property
    def n_slots(self) -> int:
        return len(self.click_curve)

    @property
    def n_sidebar(self) -> int:
        return self.n_slots - self.n_mainline

def sample_page_views(world: SponsoredWorld, n, rng=None) -> PageViews:
    """Draw ``n`` page views: a query each (by frequency) and who takes part.

    Parameters
    ----------
    world : SponsoredWorld
    n : int >= 1
        Number of page views; ``n * n_candidates`` at most 2**30 (the bids
        are held in memory).
    rng : None, int or numpy.random.Generator

    Examples
    --------
    >>> from offline_eval.synth.sponsored import make_world
    >>> w = make_world(0, n_queries=3, n_candidates=2)
    >>> pv = sample_page_views(w, 4, 1)
    >>> pv.bids.shape, bool((pv.bids >= 0).all())
    ((4, 2), True)
    """
    _check_world(world)
    rng = check_rng(rng)
    check_int(n, "n", low=1)
    check_work(int(n) * world.n_candidates, "n", n, what="bids (page views x candidates)")
    query = rng.choice(world.n_queries, size=int(n), p=world.query_prob)
    present = rng.random((int(n), world.n_candidates)) < world.participation
    return PageViews(query.astype(np.int64), np.where(present, world.bids[query], 0.0))

def _check_world(world):
    if not isinstance(world, SponsoredWorld):
        raise InputTypeError(f"`world` must be a SponsoredWorld; got {type(world).__name__}")


def _check_pclick_table(world: SponsoredWorld, pclick, name="pclick") -> np.ndarray:
    """``pclick`` as a float table of the world's (query, ad) shape, with probabilities in [0, 1]."""
    _check_world(world)
    p = check_matrix(pclick, name, allow_empty=True)
    if p.shape != world.ctr.shape:
        raise ValueError(f"`{name}` must have shape {world.ctr.shape}; got {p.shape}")
    check_probability(p.ravel(), name)
    return p


def serve(world: SponsoredWorld, pclick, page_views: PageViews, *, op=None, rng=None, expected=False) -> Impressions:
    """Serve page views with a model's pClick and draw the users' clicks.

    Parameters
    ----------
    world : SponsoredWorld
    pclick : array-like of shape (n_queries, n_candidates)
        The model's pClick for every (query, ad) pair.
    page_views : PageViews
        From :func:`sample_page_views`.
    op : OperatingPoint, optional
        Default: alpha 1, no reserves.
    rng : int, Generator or None
        Draws the clicks.
    expected : bool, default False
        Record the expected click (``p_click``) instead of a 0/1 draw.

    Returns
    -------
    Impressions

    Notes
    -----
    A shown ad of true CTR :math:`\\eta` in slot :math:`s` is clicked with
    probability :math:`\\eta \\kappa_s` (``world.click_curve``), independently
    of the other ads on the page.

    Examples
    --------
    One query, two ads with bids 2 and 1 and CTRs 0.1 and 0.5, a mainline slot and a sidebar slot examined half
    as often.  Rank scores 0.2 and 0.5: ad 1 takes the mainline and pays 1 * 0.2 / 0.5 = 0.4 per click, ad 0 the
    sidebar (clicked with probability 0.1 * 0.5):

    >>> w = SponsoredWorld(np.array([1.0]), np.array([[2.0, 1.0]]), np.array([[0.1, 0.5]]), np.array([1.0, 0.5]),
    ...                    n_mainline=1, participation=1.0)
    >>> imp = serve(w, w.ctr, sample_page_views(w, 1, 0), expected=True)
    >>> imp.ad.tolist(), imp.slot.tolist(), imp.click.tolist(), imp.cpc.tolist()
    ([1, 0], [0, 1], [0.5, 0.05], [0.4, 0.0])
    """
    p = _check_pclick_table(world, pclick)
    check_page_views(page_views)
    op = as_operating_point(op)
    rng = check_rng(rng)
    check_bool(expected, "expected")
    # The page views' bids and the pClick table are checked above: the engine of allocate, without its checks.
    b, pq = engine_inputs(page_views.bids, p[page_views.query])
    pv, ad, slot, cpc = shown_at_points(b, pq, [op], world.n_mainline, world.n_sidebar)[0]
    q = page_views.query[pv]
    p_click = world.ctr[q, ad] * world.click_curve[slot]
    click = p_click.copy() if expected else (rng.random(len(pv)) < p_click).astype(np.float64)
    return Impressions(pv.astype(np.int64), q, ad, slot, click, p_click, cpc, len(page_views), world.n_mainline)


def ab_test(world: SponsoredWorld, control, treatment, *, n_page_views=200_000, rng=None) -> ABTest:
    """An online A/B test: two arms of fresh page views, each served by one model.

    Parameters
    ----------
    world : SponsoredWorld
    control, treatment : tuple (pclick, OperatingPoint)
        Each arm's model (pClick per (query, ad)) and operating point.
    n_page_views : int, default 200_000
        Page views per arm; ``n_page_views * n_candidates`` at most 2**30.
    rng : int, Generator or None

    Returns
    -------
    ABTest
        ``control`` and ``treatment`` (:class:`~offline_eval.auction.ClickYield`), the relative
        deltas ``cy_delta``, ``ml_cy_delta`` (treatment / control - 1, each
        with ``.standard_error``, ``.pvalue`` and ``.confidence_interval(level)``),
        their standard errors ``cy_delta_se``, ``ml_cy_delta_se`` (delta method,
        independent arms), ``expected_cy_delta`` and ``expected_ml_cy_delta``
        from the true click probabilities.

    Notes
    -----
    Each arm draws its own page views (:func:`sample_page_views`) from a seed drawn from ``rng``, is served by
    its model (:func:`serve`) and summarised by :func:`~offline_eval.auction.click_yield`; the deltas are
    :func:`~offline_eval.auction.compare_click_yields`'.

    Examples
    --------
    The world of :func:`serve`'s example; the treatment swaps the two ads' pClicks, so ad 0 takes the mainline
    and the expected clicks per page view fall from 0.5 + 0.05 to 0.1 + 0.25, a delta of 0.35 / 0.55 - 1:

    >>> w = SponsoredWorld(np.array([1.0]), np.array([[2.0, 1.0]]), np.array([[0.1, 0.5]]), np.array([1.0, 0.5]),
    ...                    n_mainline=1, participation=1.0)
    >>> res = ab_test(w, (w.ctr, None), (w.ctr[:, ::-1], None), n_page_views=1000, rng=0)
    >>> round(res.expected_cy_delta, 6), bool(res.cy_delta.pvalue < 0.01)
    (-0.363636, True)
    """
    return ab_tests(world, control, [treatment], n_page_views=n_page_views, rng=rng)[0]


def ab_tests(world: SponsoredWorld, control, treatments, *, n_page_views=200_000, rng=None) -> list[ABTest]:
    """:func:`ab_test` of one control against each of ``treatments``, all from one ``rng``: the list of what
    ``ab_test(world, control, t, rng=<a copy of rng>)`` gives for each ``t``.  The control arm is drawn and served
    once, and the treatment arms share their page views (each arm's generator is drawn as :func:`ab_test` draws
    it, so every arm is the one a separate call would serve).

    ``control`` may also be a list of arms, one per treatment (each treatment's own control): element ``i`` is then
    ``ab_test(world, control[i], treatments[i], rng=<a copy of rng>)``.  The control arms share their page views
    too, and an arm listed twice (the same pClick table, the same operating point) is served once.
    """
    _check_world(world)
    rng = check_rng(rng)
    check_int(n_page_views, "n_page_views", low=1)
    check_work(int(n_page_views) * world.n_candidates, "n_page_views", n_page_views,
               what="bids (page views x candidates)")
    if isinstance(control, list):
        if len(control) != len(treatments):
            raise ValueError(f"`control`, a list, must hold one arm per treatment ({len(treatments)}); got {len(control)}")
        controls = control
    else:
        controls = [control] * len(treatments)
    named = [("control", c) for c in (controls if isinstance(control, list) else [control])]
    for name, arm in named + [("treatment", t) for t in treatments]:
        if not isinstance(arm, tuple) or len(arm) != 2:
            raise ValueError(f"`{name}` must be a tuple (pclick, OperatingPoint); got {type(arm).__name__}")
        _check_pclick_table(world, arm[0], f"{name}[0]")
        as_operating_point(arm[1])
    seeds = [rng.integers(2**63) for _ in range(2)]  # the control arm's, then the treatment arm's
    arm_rng = np.random.default_rng(seeds[0])
    pv = sample_page_views(world, n_page_views, arm_rng)
    control_cy = _serve_arms(world, [control] if not isinstance(control, list) else controls, pv, arm_rng)
    treatment_rng = np.random.default_rng(seeds[1])
    pv = sample_page_views(world, n_page_views, treatment_rng)
    treatment_cy = _serve_arms(world, treatments, pv, treatment_rng)
    keys = [_arm_key(c) for c in controls]
    return [compare_click_yields(control_cy[k], treatment_cy[_arm_key(t)]) for k, t in zip(keys, treatments)]


def _arm_key(arm):
    """An arm's identity: its pClick table (the object) and its operating point."""
    return id(arm[0]), as_operating_point(arm[1])


def _serve_arms(world, arms, pv, arm_rng) -> dict:
    """The click yield of each distinct arm served on ``pv``, every arm drawing its clicks from the same point of
    ``arm_rng`` (as a separate :func:`ab_test` would), keyed by :func:`_arm_key`."""
    state = arm_rng.bit_generator.state
    out = {}
    for pclick, op in arms:
        key = _arm_key((pclick, op))
        if key not in out:
            arm_rng.bit_generator.state = state
            out[key] = click_yield(serve(world, pclick, pv, op=op, rng=arm_rng))
    return out


from ._checks import check_all as _check_all  # noqa: E402

_check_all(globals(), __all__)
