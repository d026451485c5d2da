"""Exact leave-one-out influence of every observation on each measure (rosset Section 5.2), in O(n log n)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .._results import short_repr
from .._validation import check_choice, warn_undefined
from ._pairs import Counts, check_pair, group_bounds, pair_counts, tau_from_counts
from .coefficients import MEASURES

__all__ = ["Influence", "leave_one_out", "most_influential"]


# -- leave-one-out influence (Section 5.2) --------------------------------------------------
def _loo_tau(c: Counts) -> np.ndarray:
    n = c.n
    conc = c.concordant.astype(np.float64)
    disc = c.discordant.astype(np.float64)
    s = (conc.sum() - disc.sum()) / 2.0 - (conc - disc)  # C - D without i
    pairs = (n - 1) * (n - 2) / 2.0
    n1 = np.sum(c.ey) / 2.0 - c.ey
    n2 = np.sum(c.em) / 2.0 - c.em
    den = (pairs - n1) * (pairs - n2)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, s / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
    return np.clip(out, -1.0, 1.0)


def _sum_of_larger(key: np.ndarray, val: np.ndarray, order: np.ndarray, ties: bool):
    """For each i: sum of ``val`` over j with key_j > key_i, and over j != i with key_j == key_i.

    ``order`` sorts ``key`` increasingly; without ``ties`` the second sum is 0.
    """
    n = len(key)
    cs = np.concatenate(([0.0], np.cumsum(val[order])))
    greater = np.empty(n)
    if not ties:
        greater[order] = cs[n] - cs[1:]
        return greater, 0.0
    first, end = group_bounds([key[order]])
    equal = np.empty(n)
    greater[order] = cs[n] - cs[end]
    equal[order] = cs[end] - cs[first] - val[order]
    return greater, equal


def _loo_rho(y: np.ndarray, m: np.ndarray, c: Counts) -> np.ndarray:
    """Spearman's rho without each observation, exactly, in O(n log n).

    Without i the average ranks become ``a_j - alpha_j`` with
    ``alpha_j = [y_i < y_j] + [y_i = y_j]/2`` (likewise ``b``, ``beta``); the
    cross-product :math:`\\sum_{j \\ne i} (a_j - \\alpha_j)(b_j - \\beta_j)` expands
    into sums over "larger than i" sets and the pair counts, and the sums of
    squares depend only on the tie-group sizes.
    """
    n = c.n
    a = c.ly + 1.0 + 0.5 * np.asarray(c.ey)  # average ranks from the counts
    b = c.lm + 1.0 + 0.5 * np.asarray(c.em)
    sab = float(np.dot(a, b))
    a_gt_m, a_eq_m = _sum_of_larger(m, a, c.om, c.ties_m)  # sum of a over m_j > m_i, and m_j == m_i
    b_gt_y, b_eq_y = _sum_of_larger(y, b, c.oy, c.ties_y)
    ab = c.B + 0.5 * (c.e_m_ygt + c.e_y_mgt) + 0.25 * c.e_both
    cross = sab - a * b - (a_gt_m + 0.5 * a_eq_m) - (b_gt_y + 0.5 * b_eq_y) + ab
    k = n - 1.0
    sxy = cross - k * (n / 2.0) ** 2
    ty = np.asarray(c.ey) + 1.0
    tm = np.asarray(c.em) + 1.0
    tie_y = float(np.sum(ty * ty - 1.0)) - 3.0 * ty * (ty - 1.0)  # sum over groups of t^3 - t, after removal
    tie_m = float(np.sum(tm * tm - 1.0)) - 3.0 * tm * (tm - 1.0)
    sxx = (k**3 - k - tie_y) / 12.0
    syy = (k**3 - k - tie_m) / 12.0
    den = sxx * syy
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(den > 0, sxy / np.sqrt(np.where(den > 0, den, 1.0)), np.nan)
    # the full-sample rho from the same average ranks
    mid = (n + 1) / 2.0
    full_den = float(np.dot(a - mid, a - mid)) * float(np.dot(b - mid, b - mid))
    if full_den > 0:
        full = float(min(max((sab - n * mid * mid) / np.sqrt(full_den), -1.0), 1.0))
    else:
        warn_undefined("Spearman's rho is undefined when `y_true` or `y_pred` is constant; returning nan")
        full = float("nan")
    return np.clip(out, -1.0, 1.0), full


def _loo_median(x: np.ndarray) -> np.ndarray:
    n = len(x)
    o = np.argsort(x, kind="stable")
    s = x[o]
    k = np.empty(n, dtype=np.int64)
    k[o] = np.arange(n)  # sorted position of each element

    def order_stat(j):  # j-th smallest of the n - 1 remaining values
        return s[np.where(j < k, j, j + 1)]

    r = n - 1
    if r % 2:
        return order_stat(np.full(n, r // 2))
    return 0.5 * (order_stat(np.full(n, r // 2 - 1)) + order_stat(np.full(n, r // 2)))


def leave_one_out(y_true, y_pred, *, measure: str) -> np.ndarray:
    """Each measure recomputed without each observation, exactly and without n re-runs.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 3
    measure : {"RMSE", "MAE", "MAD", "tau", "rho"}

    Returns
    -------
    ndarray of shape (n,)
        ``out[i]`` = the measure on all observations but ``i`` (``nan`` where
        it is undefined, e.g. a constant remainder for tau).

    Notes
    -----
    RMSE and MAE from the totals minus one term; MAD from order statistics;
    tau-b from the per-observation concordant, discordant and tie counts
    (:math:`C - c_i, D - d_i`, tie totals minus i's partners); rho from the
    update of the average ranks (see ``_loo_rho``).  All O(n log n); equal to
    a brute-force loop of the measure (tests).

    Examples
    --------
    >>> leave_one_out([1, 2, 3], [1, 2, 10], measure="MAE").tolist()
    [3.5, 3.5, 0.0]
    """
    return _leave_one_out(y_true, y_pred, measure)[0]


def _leave_one_out(y_true, y_pred, measure: str):
    """(leave-one-out values, full value) from one pass."""
    check_choice(measure, "measure", MEASURES)
    y, m = check_pair(y_true, y_pred)
    n = len(y)
    if n < 3:
        raise ValueError(f"`y_true` must have at least 3 observations for leave-one-out; got {n}")
    r = y - m
    if measure in ("RMSE", "MAE"):
        # Residuals so large (or small) that their squares or sums overflow (underflow) would give
        # inf - inf = nan: rescale them by a power of two (exact), and the results back.  Residuals of
        # ordinary magnitude are left as they are (same bits).
        top = float(np.max(np.abs(r))) if np.isfinite(r).all() else np.inf
        if not np.isfinite(top):
            raise ValueError("`y_true` - `y_pred` overflows float64; rescale both")
        shift = int(np.frexp(top)[1]) if top > 2.0**400 or 0 < top < 2.0**-400 else 0
        r = np.ldexp(r, -shift)
    if measure == "RMSE":
        sq = r * r
        loo = np.sqrt(np.maximum(sq.sum() - sq, 0.0) / (n - 1))
        full = float(np.sqrt(sq.sum() / n))
        return (np.ldexp(loo, shift), float(np.ldexp(full, shift))) if shift else (loo, full)
    if measure == "MAE":
        ab = np.abs(r)
        loo = np.maximum(ab.sum() - ab, 0.0) / (n - 1)
        full = float(ab.mean())
        return (np.ldexp(loo, shift), float(np.ldexp(full, shift))) if shift else (loo, full)
    if measure == "MAD":
        ab = np.abs(r)
        return _loo_median(ab), float(np.median(ab))
    c = pair_counts(y, m)
    if measure == "tau":
        full = tau_from_counts(c, "b")
        if np.isnan(full):
            warn_undefined("Kendall's tau-b is undefined when `y_true` or `y_pred` is constant; returning nan")
        return _loo_tau(c), full
    return _loo_rho(y, m, c)


class Influence(NamedTuple):
    """The single most influential observation for one measure (Table 1)."""

    index: int
    full: float
    without: float
    change: float  # (without - full) / |full|

    def __repr__(self) -> str:
        return short_repr("Influence", index=self.index, full=self.full, without=self.without, change=self.change)


def most_influential(y_true, y_pred, *, measure: str) -> Influence:
    """The observation whose removal changes ``measure`` the most (Table 1).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,), n >= 3
    measure : {"RMSE", "MAE", "MAD", "tau", "rho"}

    Returns
    -------
    Influence
        ``index`` of the observation (the first on ties), the measure on the
        full set and without it, and the relative change
        ``(without - full) / |full|``.

    Notes
    -----
    The paper finds it by an exhaustive leave-one-out search for tau and rho
    and by the largest residual for RMSE and MAE (Section 5.2); here every
    measure uses the exhaustive criterion ``argmax_i |without_i - full|``
    computed in O(n log n) by :func:`leave_one_out` (for RMSE and MAE it is
    the largest residual whenever that residual is above the mean).

    Examples
    --------
    >>> most_influential([1, 2, 3, 4], [1, 2, 3, 40], measure="RMSE").index
    3
    """
    check_choice(measure, "measure", MEASURES)
    loo, full = _leave_one_out(y_true, y_pred, measure)
    gap = np.abs(loo - full)
    if np.isnan(full) or np.isnan(gap).all():
        warn_undefined(f"{measure} is undefined on these data; no most influential observation")
        return Influence(-1, float("nan"), float("nan"), float("nan"))
    i = int(np.nanargmax(gap))
    if full != 0:
        change = (loo[i] - full) / abs(full)
    else:
        change = float("nan")
        warn_undefined(f"{measure} is 0 on the full set: the relative change is undefined (nan); "
                       "`with_all` and `without` hold the values")
    return Influence(i, float(full), float(loo[i]), float(change))


