"""Two classifiers on live traffic, and biased offline test sets drawn from it (piovano).

Piovano et al. evaluate a baseline B and a candidate C on live traffic
(hypotheses known, truth unknown) and on a labelled offline set drawn from
the same traffic *by (B, C) cell* with a distorted cell distribution
``M_BC^(o)`` -- e.g. annotators over-sample the items the two models disagree
on (Sections II-C and IV-A).  The generators here model that mechanism:

* :func:`two_model_world` -- truth from a Zipf class prior; each model is
  right on an item of class k with a per-class probability, the two models'
  correctness is correlated (a Gaussian copula), and a wrong hypothesis is
  drawn from a sparse class-confusion matrix (shared by both models with a
  given probability, so they tend to make the same mistakes);
* :func:`truth_for_joint_counts` -- ground truth for a live set whose (B, C)
  cell counts are given (the printed ``M_BC^(l)`` of Table I), with a
  conditional ``p(G | B, C)`` calibrated so both models hit target accuracies;
* :func:`random_offline_joint` -- an offline cell distribution "randomly
  generated from the live one" (Section IV-A);
* :func:`apportion` and :func:`sample_by_cell` -- the offline set itself:
  integer cell counts from a distribution, and a draw of items within cells.

Every generator takes ``rng`` (an int seed or a ``numpy.random.Generator``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy.special import ndtr

from .._validation import (
    MAX_CELLS,
    as_array,
    check_aligned,
    check_bool,
    check_distribution,
    check_int,
    check_real,
    check_rng,
    check_work,
    scale_weights,
)
from ._checks import check_pair

__all__ = [
    "apportion",
    "class_accuracies",
    "random_confusion",
    "random_offline_joint",
    "sample_by_cell",
    "truth_for_joint_counts",
    "two_model_world",
    "zipf_prior",
]


def apportion(weights, total: int, *, capacity=None) -> np.ndarray:
    """Integer counts proportional to ``weights`` that sum to ``total`` (largest remainder).

    Parameters
    ----------
    weights : array-like, non-negative
        Any shape; the result has the same shape.
    total : int
        Sum of the counts.
    capacity : array-like of int, optional
        Upper bound per entry (e.g. the live items available in a cell);
        capped entries are fixed and the rest re-apportioned.

    Notes
    -----
    Hamilton's method in exact arithmetic: each float weight is read as the
    exact binary fraction it is, the quotas ``total * w_i / sum(w)`` are
    rationals, their floors are given out, and the remaining units go to the
    largest remainders.  **Tie rule:** equal remainders (equal weights, say)
    are served in index order.  Nothing is rounded, so the result is the same
    on every machine and sums to ``total`` exactly for any ``total`` up to
    ``2**63 - 1``.

    Examples
    --------
    >>> apportion([0.5, 0.3, 0.2], 7).tolist()   # quotas 3.5, 2.1, 1.4
    [4, 2, 1]
    >>> apportion([0.5, 0.3, 0.2], 7, capacity=[2, 9, 9]).tolist()
    [2, 3, 2]
    >>> apportion([1, 1, 4], 10).tolist()        # quotas 5/3, 5/3, 20/3: equal remainders, by index
    [2, 2, 6]
    """
    check_aligned(weights=weights, capacity=capacity)
    w = as_array(weights, "weights")
    shape = w.shape
    w = w.ravel()
    if (w < 0).any() or not np.isfinite(w).all():
        raise ValueError("`weights` must be finite and non-negative")
    if isinstance(total, (float, np.floating)) and float(total).is_integer():
        total = int(total)  # an integral float (a size read from a table) is a count; 2.5 is not
    total = check_int(total, "total", low=0)
    if total < 0 or (total > 0 and not (w > 0).any()):
        raise ValueError(f"`total` must be >= 0, and 0 when every weight is 0; got {total}")
    if total > np.iinfo(np.int64).max:
        raise ValueError(f"`total` must be below 2**63; got {total}")
    if capacity is None:
        cap = [total] * w.size
    else:
        cap_arr = as_array(capacity, "capacity", np.int64).ravel()
        if cap_arr.shape != w.shape:
            raise ValueError(f"`capacity` must have the shape of `weights` {shape}; got {np.shape(capacity)}")
        if (cap_arr < 0).any():
            raise ValueError(f"`capacity` must be non-negative; got min {int(cap_arr.min())}")
        if total > int(cap_arr[w > 0].sum()):
            raise ValueError(f"`total` {total} exceeds the capacity of the positive weights ({cap_arr[w > 0].sum()})")
        cap = [int(c) for c in cap_arr]
    # Exact integer weights: every float is num / 2**k; scale all to the largest denominator.
    ratios = [float(x).as_integer_ratio() for x in w]
    den = max(d for _, d in ratios)
    wi = [num * (den // d) for num, d in ratios]
    out = [0] * w.size
    free = [x > 0 for x in wi]
    remaining = total
    while remaining > 0:
        idx = [i for i in range(w.size) if free[i]]
        wsum = sum(wi[i] for i in idx)
        base, rem = {}, {}
        for i in idx:
            base[i], rem[i] = divmod(remaining * wi[i], wsum)
        short = remaining - sum(base.values())
        for i in sorted(idx, key=lambda i: (-rem[i], i))[:short]:  # largest remainder, ties by index
            base[i] += 1
        over = [i for i in idx if out[i] + base[i] > cap[i]]
        if not over:
            for i in idx:
                out[i] += base[i]
            break
        # Fix the entries that overflow at their capacity and re-apportion the rest.
        for i in over:
            remaining -= cap[i] - out[i]
            out[i] = cap[i]
            free[i] = False
    return np.asarray(out, dtype=np.int64).reshape(shape)


def zipf_prior(n_classes: int, exponent: float = 1.0) -> np.ndarray:
    """Class prior ``p_k ∝ (k + 1)^-exponent`` (class 0 the most frequent).

    Parameters
    ----------
    n_classes : int >= 1
    exponent : float >= 0, default 1.0

    Examples
    --------
    >>> zipf_prior(3, 1.0).round(4).tolist()
    [0.5455, 0.2727, 0.1818]
    """
    check_int(n_classes, "n_classes", low=1)
    check_real(exponent, "exponent", low=0)
    p = (np.arange(n_classes) + 1.0) ** -float(exponent)
    return p / p.sum()


def class_accuracies(mean: float, prior, *, spread: float = 0.15, lo: float = 0.05, hi: float = 0.99, rng=None) -> np.ndarray:
    """Per-class accuracies whose prior-weighted mean is ``mean``.

    Draws ``mean + spread * z_k`` (``z_k`` standard normal), then shifts all
    classes by one constant (bisection) so that ``sum_k prior_k acc_k = mean``
    after clipping to ``[lo, hi]``.

    The bisection compares an exactly rounded sum (:func:`math.fsum` of the
    products), not a BLAS dot product whose last bit depends on the CPU, so
    the accuracies are the same bytes on every machine.  ``mean`` must lie in
    ``[lo, hi]`` (else no shift reaches it).

    Parameters
    ----------
    mean : float in [lo, hi]
        The prior-weighted mean accuracy to reach.
    prior : array-like of shape (K,)
        Class prior (sums to 1).
    spread : float >= 0, default 0.15
        Standard deviation of the per-class draws before the shift.
    lo, hi : float, default 0.05 and 0.99
        Bounds of every class's accuracy.
    rng : None, int or numpy.random.Generator
    """
    rng = check_rng(rng)
    prior = check_distribution(prior, "prior")
    if not (np.isfinite(spread) and spread >= 0):
        raise ValueError(f"`spread` must be a finite number >= 0; got {spread!r}")
    if not lo <= mean <= hi:
        raise ValueError(f"`mean` must lie in [lo, hi] = [{lo}, {hi}]; got {mean!r}")
    raw = mean + spread * rng.standard_normal(prior.size)
    shift_lo, shift_hi = lo - float(raw.max()), hi - float(raw.min())  # every class at lo / at hi
    for _ in range(200):
        mid = (shift_lo + shift_hi) / 2
        if mid in (shift_lo, shift_hi):  # the interval is two adjacent floats
            break
        if math.fsum(prior * np.clip(raw + mid, lo, hi)) < mean:
            shift_lo = mid
        else:
            shift_hi = mid
    return np.clip(raw + (shift_lo + shift_hi) / 2, lo, hi)


def random_confusion(n_classes: int, concentration: float = 0.3, *, rng=None) -> np.ndarray:
    """Row-stochastic confusion matrix with a zero diagonal (rows Dirichlet(``concentration``)).

    Row k is where a wrong hypothesis on an item of class k goes; a small
    concentration means each class is confused with few others.

    Parameters
    ----------
    n_classes : int >= 2
    concentration : float > 0, default 0.3
        Dirichlet concentration of each row.
    rng : None, int or numpy.random.Generator
    """
    check_int(n_classes, "n_classes", low=2, high=1 << 15)
    check_real(concentration, "concentration", low=0, closed="neither")
    rng = check_rng(rng)
    q = rng.dirichlet(np.full(n_classes - 1, concentration), size=n_classes)
    out = np.zeros((n_classes, n_classes))
    off = ~np.eye(n_classes, dtype=bool)
    out[off] = q.ravel()
    return out


def _group_rows(cum, rows):
    """The items in the stable order of their rows, and where each row's items begin in it."""
    # (as 16-bit keys when the rows fit, which numpy sorts by radix: the same stable permutation, faster)
    order = np.argsort(rows.astype(np.uint16) if cum.shape[0] <= 1 << 16 else rows, kind="stable")
    return order, np.searchsorted(rows[order], np.arange(cum.shape[0] + 1), side="left")


def _draw_rows(cum, rows, rng, grouped=None):
    """One categorical draw per item from the cumulative rows ``cum[rows]`` (``grouped``: ``_group_rows``'s
    result for these rows, when it is at hand)."""
    u = rng.random(len(rows))
    idx = np.empty(len(rows), np.int64)
    # The draw is #{j : cum[row, j] < u}; a row of cumulative sums of non-negative numbers is non-decreasing,
    # so that count is searchsorted(row, u, side="left"), one row's items at a time.
    order, bounds = _group_rows(cum, rows) if grouped is None else grouped
    for r in range(cum.shape[0]):
        items = order[bounds[r]:bounds[r + 1]]
        if items.size:
            idx[items] = np.searchsorted(cum[r], u[items], side="left")
    return np.minimum(idx, cum.shape[1] - 1)


def two_model_world(n: int, *, accuracy_b, accuracy_c, prior, error_correlation: float = 0.5,
                    shared_confusion: float = 0.5, confusion_concentration: float = 0.3,
                    confusion=None, rng=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Live traffic of ``n`` items: the truth and the hypotheses of two classifiers.

    Parameters
    ----------
    n : int
        Number of items.
    accuracy_b, accuracy_c : array-like of shape (K,)
        ``p(H = G | G = k)`` of the baseline and of the candidate (see
        :func:`class_accuracies`).
    prior : array-like of shape (K,)
        Class prior of the truth (see :func:`zipf_prior`).
    error_correlation : float, default 0.5
        Correlation of the latent Gaussians deciding whether B and C are
        right (a Gaussian copula): hard items are hard for both models.
    shared_confusion : float, default 0.5
        When both are wrong, probability that C makes B's mistake.
    confusion_concentration : float, default 0.3
        Dirichlet concentration of each row of the confusion matrix (small:
        a class is confused with few others).
    confusion : array of shape (K, K), optional
        A fixed confusion matrix (zero diagonal, rows sum to 1) instead of a
        random one -- to keep the same confusions across model releases.
    rng : int or numpy.random.Generator, optional

    Returns
    -------
    hyp_b, hyp_c, truth : ndarray of int64, shape (n,)
    """
    check_int(n, "n", low=1, high=1 << 31)
    rng = check_rng(rng)
    check_aligned(prior=prior, accuracy_b=accuracy_b, accuracy_c=accuracy_c)
    prior = check_distribution(prior, "prior")  # numpy's own tolerance, that of the draw below
    k = prior.size
    acc_b, acc_c = as_array(accuracy_b, "accuracy_b"), as_array(accuracy_c, "accuracy_c")
    if acc_b.shape != (k,) or acc_c.shape != (k,):
        raise ValueError(f"`accuracy_b` and `accuracy_c` must have shape ({k},); got {acc_b.shape}, {acc_c.shape}")
    for name, acc in (("accuracy_b", acc_b), ("accuracy_c", acc_c)):
        if not (np.isfinite(acc).all() and ((acc >= 0) & (acc <= 1)).all()):
            raise ValueError(f"`{name}` must hold accuracies in [0, 1]; got {acc.tolist()}")
    if not 0 <= error_correlation < 1:
        raise ValueError(f"`error_correlation` must be in [0, 1); got {error_correlation}")
    if confusion is None:
        q = random_confusion(k, confusion_concentration, rng=rng)
    else:
        q = as_array(confusion, "confusion")
        if q.shape != (k, k):
            raise ValueError(f"`confusion` must be a ({k}, {k}) matrix; got shape {q.shape}")
        for i, row in enumerate(q):  # each row the distribution of a wrong hypothesis given the truth
            check_distribution(row, f"confusion[{i}]")
        if np.diag(q).any():
            raise ValueError(f"`confusion` must have a zero diagonal (a wrong hypothesis is another class); got "
                             f"{np.diag(q).tolist()}")
    cum = np.cumsum(q, axis=1)
    truth = rng.choice(k, size=n, p=prior)
    z0 = rng.standard_normal(n)
    s, r = np.sqrt(error_correlation), np.sqrt(1 - error_correlation)
    right_b = ndtr(s * z0 + r * rng.standard_normal(n)) < acc_b[truth]
    right_c = ndtr(s * z0 + r * rng.standard_normal(n)) < acc_c[truth]
    grouped = _group_rows(cum, truth)  # draws nothing: both models' draws below share it
    wrong_b = _draw_rows(cum, truth, rng, grouped)
    wrong_c = np.where(rng.random(n) < shared_confusion, wrong_b, _draw_rows(cum, truth, rng, grouped))
    hyp_b = np.where(right_b, truth, wrong_b)
    hyp_c = np.where(right_c, truth, wrong_c)
    return hyp_b.astype(np.int64), hyp_c.astype(np.int64), truth.astype(np.int64)


def truth_for_joint_counts(counts, *, target_accuracy, agree_correct: float = 0.9,
                           class_spread: float = 0.05, rng=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A live set with given (B, C) cell counts, and its ground truth.

    Parameters
    ----------
    counts : array-like of int, shape (K, K)
        ``counts[i, j]`` items with ``H_B = i``, ``H_C = j``: non-negative, K >= 2, some items on the
        diagonal, at most 2**30 in all.
    target_accuracy : (float, float)
        Accuracies of B and C on the live set, each in [0, 1] (for piovano Table I, its
        printed online row, read from ``data/reference/piovano``).  With K = 2 every item on which the
        models disagree is right for one of them, so the two targets must account for all those items.
    agree_correct : float in [0, 1], default 0.9
        ``p(G = i | H_B = H_C = i)`` averaged over the agreement cells
        (weighted by their counts): how often the models are right when
        they agree.
    class_spread : float >= 0, default 0.05
        Standard deviation across classes of that probability.
    rng : int or numpy.random.Generator, optional

    Returns
    -------
    hyp_b, hyp_c, truth : ndarray of int64, shape (counts.sum(),), in random order

    Notes
    -----
    The conditional ``p(G | H_B = i, H_C = j)`` is: on the diagonal,
    ``G = i`` with probability ``a_i`` (per-class noise of standard
    deviation ``class_spread`` around ``agree_correct``, shifted so that the
    count-weighted mean is ``agree_correct``, see :func:`class_accuracies`); off the diagonal, ``G = i`` with probability ``b_B``, ``G = j``
    with ``b_C``, and otherwise a class drawn uniformly from the rest.
    ``b_B`` and ``b_C`` are solved so that the expected accuracies are the
    targets.  The truth is then assigned by quota, not by independent
    draws: the number of items of each kind per cell is the cell count times
    the conditional, apportioned to integers (:func:`apportion`) so that the
    accuracies equal ``round(target * M) / M`` exactly (rounded half up in
    exact arithmetic, as is the number of agreement items that are right,
    ``round(agree_correct * sum_i M_ii)``); which items get
    which truth, and the "other" classes, are random.
    """
    rng = check_rng(rng)
    n = as_array(counts, "counts", np.int64)
    if n.ndim != 2 or n.shape[0] != n.shape[1] or n.shape[0] < 2:
        raise ValueError(f"`counts` must be a K x K array of cell counts (K >= 2 classes); got shape {n.shape}")
    if (n < 0).any():
        raise ValueError(f"`counts` must be non-negative; got min {int(n.min())}")
    total = sum(int(x) for x in n.ravel().tolist())  # exact: an int64 sum could wrap
    if total > MAX_CELLS:
        raise ValueError(f"`counts` totals {total:,} items, more than the bound of {MAX_CELLS:,}; use smaller counts")
    if not np.diag(n).any():
        raise ValueError("`counts` must have items where the models agree (a positive diagonal); got none")
    targets = check_pair(target_accuracy, "target_accuracy", what="a pair (baseline, candidate)")
    if not all(0 <= t <= 1 for t in targets):
        raise ValueError(f"`target_accuracy` must be two accuracies in [0, 1]; got {target_accuracy!r}")
    check_real(agree_correct, "agree_correct", low=0, high=1)
    check_real(class_spread, "class_spread", low=0)
    k = n.shape[0]
    m = int(n.sum())
    diag = np.diag(n)
    a = class_accuracies(agree_correct, diag / max(diag.sum(), 1), spread=class_spread, lo=0.0, hi=1.0, rng=rng)
    # The number right where the models agree is agree_correct x (agreement items), rounded half up
    # in exact arithmetic (it is often an exact half, e.g. 0.9 x 455: no float sum may decide it).
    n_agree_right = math.floor(Fraction(agree_correct) * int(diag.sum()) + Fraction(1, 2))
    agree_right = np.minimum(apportion(a * diag, n_agree_right), diag)
    s = int(agree_right.sum())
    off = ~np.eye(k, dtype=bool)
    d = n[off]
    target_b, target_c = (math.floor(Fraction(t) * m + Fraction(1, 2)) - s for t in target_accuracy)
    if target_b < 0 or target_c < 0 or target_b + target_c > d.sum():
        raise ValueError(f"`target_accuracy` {target_accuracy} is out of reach with these counts "
                         f"and agree_correct={agree_correct}")
    if k == 2 and target_b + target_c < d.sum():  # no third class for an item both models get wrong
        raise ValueError(f"`target_accuracy` {target_accuracy} is out of reach with these counts "
                         f"and agree_correct={agree_correct}: with 2 classes each of the {int(d.sum())} items on "
                         f"which the models disagree is right for one of them, so the targets must account for all")
    right_b = apportion(d, target_b, capacity=d)
    right_c = apportion(d, target_c, capacity=d - right_b)
    hb, hc, g = [], [], []
    rows, cols = np.nonzero(off)
    for i in range(k):  # agreement cells: right, or some other class
        others = np.delete(np.arange(k), i)
        g_cell = np.r_[np.full(agree_right[i], i), rng.choice(others, size=diag[i] - agree_right[i])]
        hb.append(np.full(diag[i], i)), hc.append(np.full(diag[i], i)), g.append(g_cell)
    for (i, j), cnt, rb, rc in zip(zip(rows, cols), d, right_b, right_c):
        others = np.setdiff1d(np.arange(k), [i, j])
        rest = cnt - rb - rc
        g_cell = np.r_[np.full(rb, i), np.full(rc, j), rng.choice(others, size=rest) if rest else np.zeros(0, int)]
        hb.append(np.full(cnt, i)), hc.append(np.full(cnt, j)), g.append(g_cell)
    perm = rng.permutation(m)
    return tuple(np.concatenate(x).astype(np.int64)[perm] for x in (hb, hc, g))


def random_offline_joint(m_bc_live, *, sigma: float = 1.0, disagreement_boost: float = 4.0, flatten: float = 1.0,
                         rng=None) -> np.ndarray:
    """An offline cell distribution randomly generated from the live one.

    ``M^(o)(i, j) ∝ M^(l)(i, j)^flatten · exp(sigma · Z_ij) · boost^[i != j]``
    with ``Z_ij`` standard normal: every cell is distorted at random
    (log-normal factor, ``sigma``), the cells where the two models disagree
    are over-sampled by ``disagreement_boost`` -- the annotation practice the
    paper describes (Section II-C) -- and with ``flatten < 1`` the offline
    distribution is flatter than the live one, its small cells over-sampled
    and its large ones under-sampled ("the offline data are sampled according
    to the Gaussian distribution while the online data are skewed and
    heavy-tailed", Section I).  The support of ``M^(l)`` is kept, so with
    enough offline items every live cell is eventually covered.

    Parameters
    ----------
    m_bc_live : array-like of shape (K, K)
        The live joint distribution of the two models' hypotheses (or any multiple of it: counts, or shares
        of any scale).
    sigma : float >= 0, default 1.0
        Log-normal distortion of every cell.
    disagreement_boost : float > 0, default 4.0
        Over-sampling factor of the cells where the models disagree.
    flatten : float > 0, default 1.0
        Exponent of the live cell shares (1: proportional to them; below 1:
        flatter).
    rng : None, int or numpy.random.Generator
    """
    rng = check_rng(rng)
    m_l = as_array(m_bc_live, "m_bc_live")
    if m_l.ndim != 2 or m_l.shape[0] != m_l.shape[1] or m_l.size == 0:
        raise ValueError(f"`m_bc_live` must be a K x K table; got shape {m_l.shape}")
    if not np.isfinite(m_l).all() or (m_l < 0).any() or not m_l.max() > 0:
        raise ValueError("`m_bc_live` must be finite, non-negative and not all zero")
    if not 2.0**-500 <= m_l.max() <= 2.0**500:
        # Only the shares matter; a table of 1e-320s or 1e308s is brought to the scale of a distribution (a
        # power of two: exact) before the power `flatten` under- or overflows.  In range nothing changes.
        m_l = scale_weights(m_l)
    k = m_l.shape[0]
    factor = np.exp(sigma * rng.standard_normal((k, k)))
    if not (np.isfinite(sigma) and sigma >= 0):
        raise ValueError(f"`sigma` must be a finite number >= 0; got {sigma!r}")
    if not (np.isfinite(disagreement_boost) and disagreement_boost > 0):
        raise ValueError(f"`disagreement_boost` must be a finite number > 0; got {disagreement_boost!r}")
    if not (np.isfinite(flatten) and flatten > 0):
        raise ValueError(f"`flatten` must be a finite number > 0; got {flatten!r}")
    factor[~np.eye(k, dtype=bool)] *= disagreement_boost
    m_o = m_l**flatten * factor  # an empty cell stays empty (0 ** flatten = 0 for flatten > 0)
    return m_o / m_o.sum()


def _order_by_cell_then_draw(cell, u, n_cells):
    """``np.lexsort((u, cell))`` for uniform draws ``u`` of ``Generator.random`` (multiples of 2**-53), about
    5x faster: each row's key ``cell * 2**53 + u * 2**53`` is exact and in that order, so when the keys are
    distinct any sort gives lexsort's permutation on every machine; equal keys (equal draws in a cell), or
    cells past 2**11, take lexsort itself."""
    if n_cells > 1 << 11 or cell.size < 2:
        return np.lexsort((u, cell))
    key = cell.astype(np.uint64) << np.uint64(53)
    scaled = u * 2.0**53
    if not (scaled == np.floor(scaled)).all() or (scaled >= 2.0**53).any() or (scaled < 0).any():
        return np.lexsort((u, cell))  # not draws on the 2**-53 grid: the key would not be exact
    key |= scaled.astype(np.uint64)
    order = np.argsort(key)
    ks = key[order]
    if (ks[1:] == ks[:-1]).any():
        return np.lexsort((u, cell))
    return order


def sample_by_cell(hyp_b, hyp_c, cell_counts, *, n_classes: int, replace: bool = False, rng=None) -> np.ndarray:
    """Indices of an offline sample with ``cell_counts[i, j]`` items from each live (B, C) cell.

    Without replacement (the default) each cell's items are a uniform random
    subset of the live items of that cell (``cell_counts`` must not exceed
    them); with ``replace=True`` they are drawn with replacement (an
    infinite-population view, used for the convergence study).  Returns
    sorted indices into the live arrays.

    Parameters
    ----------
    hyp_b, hyp_c : array-like of shape (n,)
        The live items' hypotheses (class codes).
    cell_counts : array-like of int, shape (K, K)
        Items to draw from each (B, C) cell.
    n_classes : int
        K.
    replace : bool, default False
    rng : None, int or numpy.random.Generator
    """
    rng = check_rng(rng)
    k = check_int(n_classes, "n_classes", low=1, high=1 << 15)
    check_bool(replace, "replace")
    check_aligned(hyp_b=hyp_b, hyp_c=hyp_c)
    hb, hc = as_array(hyp_b, "hyp_b", np.int64), as_array(hyp_c, "hyp_c", np.int64)
    if hb.ndim != 1 or hb.shape != hc.shape:
        raise ValueError(f"`hyp_b` and `hyp_c` must be 1-D of one length; got {hb.shape} and {hc.shape}")
    for name, h in (("hyp_b", hb), ("hyp_c", hc)):
        if h.size and (h.min() < 0 or h.max() >= k):
            raise ValueError(f"`{name}` must hold class codes 0..{k - 1}; got min {int(h.min())}, max {int(h.max())}")
    cell = hb * k + hc
    counts = as_array(cell_counts, "cell_counts", np.int64)
    if counts.shape != (k, k) or (counts < 0).any():
        raise ValueError(f"`cell_counts` must be a ({k}, {k}) table of non-negative counts; got shape {counts.shape}")
    want = counts.ravel()
    if replace:  # draws with replacement are not bounded by the live items: bound them by the table
        check_work(int(want.sum()), "cell_counts", f"{int(want.sum())} items", limit=1 << 31, what="items")
    have = np.bincount(cell, minlength=k * k)
    starts = np.r_[0, np.cumsum(have)[:-1]]
    if replace:
        if (want[have == 0] > 0).any():
            raise ValueError("`cell_counts` asks for items from a cell with no live item")
        cells = np.repeat(np.arange(k * k), want)
        pos = (rng.random(cells.size) * have[cells]).astype(np.int64)
        # the same stable order of the cells; as 16-bit keys when they fit, which numpy sorts by radix
        key = cell.astype(np.uint16) if k * k <= 1 << 16 else cell
        return np.sort(np.argsort(key, kind="stable")[starts[cells] + pos])
    if (want > have).any():
        raise ValueError(f"`cell_counts` exceeds the live items of {int((want > have).sum())} cells")
    # A random permutation within each cell, then the first want[c] items of cell c.
    shuffled = _order_by_cell_then_draw(cell, rng.random(cell.size), k * k)
    rank = np.arange(cell.size) - starts[cell[shuffled]]
    return np.sort(shuffled[rank < want[cell[shuffled]]])


from ._checks import check_all as _check_all  # noqa: E402

_check_all(globals(), __all__)
