"""A/B statistics: click yield with its standard error, and the relative deltas of an online A/B test.

:func:`click_yield` summarises served page views (:class:`ClickYield`); :func:`compare_click_yields` compares two
arms (:class:`ABTest`).  (:func:`offline_eval.synth.search_world.ab_test` runs an A/B test in a simulated world.)
Each click yield and each delta is a :class:`~offline_eval.results.NormalEstimate`: the number itself, with
``.statistic``, ``.standard_error``, ``.confidence_interval(level=0.95)`` and, for a delta, ``.pvalue`` (the
results' protocol of :mod:`offline_eval._results`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._results import NormalEstimate, interval_text, short_repr
from .._validation import InputTypeError, warn_undefined
from .logs import Impressions

__all__ = ["ABTest", "ClickYield", "click_yield", "compare_click_yields"]


class ClickYield(NamedTuple):
    """Click yield of served page views (:func:`click_yield`).

    ``cy`` and ``ml_cy`` are :class:`~offline_eval.results.NormalEstimate` s (each a float with
    ``.statistic``, ``.standard_error`` and ``.confidence_interval(level=0.95)``).
    """

    cy: NormalEstimate  #: observed clicks per page view (standard error over page views)
    ml_cy: NormalEstimate  #: mainline clicks per page view
    expected_cy: float  #: the true expectation given the page views
    expected_ml_cy: float
    ads_per_pv: float
    ml_ads_per_pv: float
    revenue_per_pv: float

    def __repr__(self) -> str:
        return short_repr("ClickYield", cy=float(self.cy), cy_se=self.cy.standard_error, ml_cy=float(self.ml_cy),
                          ml_cy_se=self.ml_cy.standard_error, expected_cy=self.expected_cy, ads_per_pv=self.ads_per_pv,
                          interval=interval_text(self.cy.confidence_interval(), method="normal", level=0.95)
                          + " of cy")


def click_yield(impressions: Impressions) -> ClickYield:
    """Click yield (clicks per page view), overall and mainline, with standard errors.

    Parameters
    ----------
    impressions : Impressions
        From :func:`serve`.

    Returns
    -------
    ClickYield
        ``cy``, ``ml_cy`` (observed clicks, each with its ``.standard_error``
        and ``.confidence_interval(level)``),
        ``expected_cy``, ``expected_ml_cy`` (true expectation given the
        page views), ``ads_per_pv``, ``ml_ads_per_pv``, ``revenue_per_pv``.

    Notes
    -----
    :math:`CY = \\frac1N \\sum_v C_v` with :math:`C_v` the clicks of page view
    :math:`v`; its standard error is :math:`sd(C_v) / \\sqrt N` (page views are
    independent).  Mainline CY counts mainline clicks only.

    Examples
    --------
    Two page views, one mainline slot: the first shows two ads (the mainline one clicked), the second one ad
    (not clicked), so CY = (1 + 0) / 2 with standard error sd(1, 0) / sqrt(2) = 0.5:

    >>> imp = Impressions(page_view=np.array([0, 0, 1]), query=np.array([0, 0, 1]), ad=np.array([0, 1, 0]),
    ...                   slot=np.array([0, 1, 0]), click=np.array([1.0, 0.0, 0.0]), p_click=np.array([0.5, 0.2, 0.4]),
    ...                   cpc=np.array([0.3, 0.2, 0.5]), n_page_views=2, n_mainline=1)
    >>> cy = click_yield(imp)
    >>> cy.cy.statistic, cy.cy.standard_error, cy.ml_cy.statistic, round(cy.expected_cy, 6), cy.ads_per_pv
    (0.5, 0.5, 0.5, 0.55, 1.5)
    >>> [round(x, 4) for x in cy.cy.confidence_interval(0.95)]  # 0.5 -/+ 1.96 * 0.5
    [-0.48, 1.48]
    """
    if not isinstance(impressions, Impressions):
        raise InputTypeError(f"`impressions` must be an Impressions; got {type(impressions).__name__}")
    n = impressions.n_page_views
    ml = impressions.slot < impressions.n_mainline
    per_pv = np.bincount(impressions.page_view, weights=impressions.click, minlength=n)
    per_pv_ml = np.bincount(impressions.page_view[ml], weights=impressions.click[ml], minlength=n)
    se = (lambda x: float(x.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan"))
    cy_se, ml_cy_se = se(per_pv), se(per_pv_ml)
    return ClickYield(
        cy=NormalEstimate(per_pv.mean(), cy_se, name="cy"),
        ml_cy=NormalEstimate(per_pv_ml.mean(), ml_cy_se, name="ml_cy"),
        expected_cy=float(impressions.p_click.sum() / n),
        expected_ml_cy=float(impressions.p_click[ml].sum() / n),
        ads_per_pv=float(len(impressions.slot) / n), ml_ads_per_pv=float(ml.sum() / n),
        revenue_per_pv=float(np.dot(impressions.click, impressions.cpc) / n),
    )


def _rel_delta(t, c, t_se, c_se):
    """Relative delta ``t / c - 1`` and its delta-method standard error; nan (with a warning) when ``c`` is 0."""
    if c == 0:
        warn_undefined("the control arm has no clicks: the relative delta is undefined (nan)")
        return float("nan"), float("nan")
    d = t / c - 1.0
    if t == 0:
        return d, (t / c) * c_se / c  # no treatment clicks: only the control's uncertainty
    return d, (t / c) * np.hypot(t_se / t, c_se / c)


class ABTest(NamedTuple):
    """An online A/B test (:func:`ab_test`): both arms and the treatment's relative deltas.

    ``cy_delta`` and ``ml_cy_delta`` are :class:`~offline_eval.results.NormalEstimate` s (each a float with
    ``.statistic``, ``.standard_error``, ``.pvalue`` of "no difference" and ``.confidence_interval(level=0.95)``).
    """

    control: ClickYield
    treatment: ClickYield
    cy_delta: NormalEstimate  #: treatment / control - 1 of the observed click yield (delta-method standard error)
    ml_cy_delta: NormalEstimate
    expected_cy_delta: float  #: the same from the true click probabilities
    expected_ml_cy_delta: float

    def __repr__(self) -> str:
        return short_repr("ABTest", cy_delta=float(self.cy_delta), cy_delta_pvalue=self.cy_delta.pvalue,
                          ml_cy_delta=float(self.ml_cy_delta), ml_cy_delta_pvalue=self.ml_cy_delta.pvalue,
                          expected_cy_delta=self.expected_cy_delta,
                          interval=interval_text(self.cy_delta.confidence_interval(), method="normal", level=0.95)
                          + " of cy_delta")


def compare_click_yields(control: ClickYield, treatment: ClickYield) -> ABTest:
    """The A/B statistics of two arms: the treatment's relative deltas of click yield, with standard errors.

    Parameters
    ----------
    control, treatment : ClickYield
        Each arm's click yield (:func:`click_yield`), from independent page views.

    Returns
    -------
    ABTest
        ``control`` and ``treatment``, the relative deltas ``cy_delta``, ``ml_cy_delta`` (treatment / control
        - 1, each with ``.standard_error`` (delta method, independent arms), ``.pvalue`` and
        ``.confidence_interval(level)``), ``expected_cy_delta`` and ``expected_ml_cy_delta`` from the arms'
        true click probabilities.

    Notes
    -----
    With :math:`\\hat\\rho = CY_T / CY_C` the delta is :math:`\\hat\\rho - 1`, its standard error
    :math:`\\hat\\rho \\sqrt{(se_T / CY_T)^2 + (se_C / CY_C)^2}` (only the control's term when the treatment
    has no click), and its p-value the two-sided normal :math:`2\\,\\Phi(-|\\hat\\rho - 1| / se)`.  A
    control without clicks leaves the delta undefined: ``nan`` with a warning.

    Examples
    --------
    Four page views per arm, one ad each: CY 0.5 (se 0.2887) against 0.75 (se 0.25), so the delta is
    0.75 / 0.5 - 1 = 0.5 with standard error 1.5 * sqrt(1/9 + 1/3) = 1:

    >>> one_ad = dict(page_view=np.arange(4), query=np.zeros(4, int), ad=np.zeros(4, int), slot=np.zeros(4, int),
    ...               p_click=np.full(4, 0.5), cpc=np.ones(4), n_page_views=4, n_mainline=1)
    >>> c = click_yield(Impressions(click=np.array([1.0, 0.0, 0.0, 1.0]), **one_ad))
    >>> t = click_yield(Impressions(click=np.array([1.0, 1.0, 0.0, 1.0]), **one_ad))
    >>> res = compare_click_yields(c, t)
    >>> round(res.cy_delta.statistic, 6), round(res.cy_delta.standard_error, 6), round(res.cy_delta.pvalue, 4)
    (0.5, 1.0, 0.6171)
    """
    for name, arm in (("control", control), ("treatment", treatment)):
        if not isinstance(arm, ClickYield):
            raise InputTypeError(f"`{name}` must be a ClickYield; got {type(arm).__name__}")
    c, tr = control, treatment
    cy_d, cy_se = _rel_delta(tr.cy, c.cy, tr.cy.standard_error, c.cy.standard_error)
    ml_d, ml_se = _rel_delta(tr.ml_cy, c.ml_cy, tr.ml_cy.standard_error, c.ml_cy.standard_error)
    e_cy = _rel_delta(tr.expected_cy, c.expected_cy, 0.0, 0.0)[0]
    e_ml = _rel_delta(tr.expected_ml_cy, c.expected_ml_cy, 0.0, 0.0)[0]
    return ABTest(c, tr, NormalEstimate(cy_d, cy_se, name="cy_delta", test_zero=True),
                  NormalEstimate(ml_d, ml_se, name="ml_cy_delta", test_zero=True), e_cy, e_ml)
