"""The estimate rule: a synthetic or real-data status from an effect's interval over seeds, beside its control.

Each claim on a synthetic or real world declares, before any run, the real-valued quantity its sentence is
about (:class:`Effect`: computed per seed, e.g. a difference of two metrics), the direction the paper claims
(or the printed value it predicts) and the **smallest effect that matters**, ``delta``, with its reason.  Over
the confirmation block's seeds the ledger then computes (:func:`estimate_verdict`):

- the effect's mean with its 95% t-interval over the seeds;
- the paired interval of world minus control (the same seeds, the paper's mechanism switched off);

and decides, in this order:

``differs``
    the world's interval lies wholly on the other side of 0, or wholly inside ``+-delta`` (the effect is
    negligible: two one-sided tests at 2.5% each), or, for a printed value, wholly outside its band
    ``printed +- delta``;
``holds`` (``within-tolerance`` for a printed value)
    the world's interval lies beyond 0 in the claimed direction (inside the band), and the world-minus-control
    interval excludes 0 in the same direction (a printed value: the control is shown apart from the world);
``not tested``
    the world shows the effect, but no control discriminates: world and control are equivalent within
    ``+-delta``, the control shows the effect more strongly, or the claim has no control world;
``inconclusive``
    none of these: the seeds cannot decide.  The row says how many seeds the observed spread says it would take.

No share of seeds passing a threshold decides anything.  Every bound is compared as written at six
significant digits, so no status hinges on the last bits of a float.
"""

from __future__ import annotations

import hashlib
import json
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from ..io import format_float
from .rules import SIZE_RTOL

#: The intervals' level: two-sided 95% t-intervals over seeds (each side a one-sided test at 2.5%).
LEVEL = 0.95
#: Where an inconclusive row's seed count is reported as "more than" (the sizes a study would not run).
MAX_SEEDS_SHOWN = 100_000
#: Why a notebook's confirmation block was renewed when its claims moved to the estimate rule
#: (:meth:`~offline_eval_compendium.claims.SeedBlocks.renewed`).
RENEWAL = ("the estimate rule replaced the share-of-seeds rule; effects and deltas declared before this block "
           "ran")

#: The smallest effects that matter by metric family, stated once before any confirmation run: ``(delta, reason)``.
#: A study uses one of these, or states its own from the paper's magnitude or printed precision.
DELTAS = {
    "correlation": (0.05, "the stated default for a correlation (Pearson, Spearman, Kendall) or a gap between two: "
                          "0.05, the margin below which the compendium calls two correlations tied"),
    "relative": (SIZE_RTOL, "the stated default for a magnitude reproduced on a synthetic world: +-50% of the printed "
                      "value (the compendium's band for a synthetic magnitude, SIZE_RTOL)"),
    "share": (0.05, "the stated default for a share or a probability: 5 percentage points"),
    "auc": (0.005, "the stated default for an AUC or a difference of AUCs: 0.005, half the 0.01 steps in which the "
                   "papers discuss AUC gaps"),
}

#: The directions an effect can claim: above 0, below 0, or equal to a printed value (within its band).
DIRECTIONS = (">", "<", "=")


@dataclass(frozen=True)
class Effect:
    """The quantity a claim is about, declared before any run.

    Parameters
    ----------
    quantity : str
        What is computed on each seed, in words (``"AUC(contextual) - AUC(sponsored search)"``).
    direction : str
        ``">"`` (the paper claims it positive), ``"<"`` (negative) or ``"="`` (a printed value, predicted).
    delta : float
        The smallest effect that matters, in the quantity's units (``"="``: the band's half-width around
        the printed value, or, with ``relative``, its fraction of the printed value's magnitude).
    reason : str
        Why ``delta`` is that: the paper's own magnitude, its printed precision, or a stated default.
    relative : bool, default False
        ``"="`` only: ``delta`` is a fraction of ``|printed|``.

    Examples
    --------
    >>> e = Effect("r(EU) - r(MSE)", ">", 0.05, "a correlation gap under 0.05 changes no choice")
    >>> e.band(None)
    (-0.05, 0.05)
    >>> Effect("online delta", "=", 0.5, "+-50% of the printed magnitude", relative=True).band(-0.0996)
    (-0.1494, -0.0498)
    """

    quantity: str
    direction: str
    delta: float
    reason: str
    relative: bool = False

    def __post_init__(self):
        if self.direction not in DIRECTIONS:
            raise ValueError(f"`direction` must be one of {DIRECTIONS}; got {self.direction!r}")
        d = self.delta
        if isinstance(d, bool) or not isinstance(d, (int, float)) or not math.isfinite(d) or d <= 0:
            raise ValueError(f"`delta` must be a finite number > 0 (the smallest effect that matters); got {d!r}")
        if not (isinstance(self.quantity, str) and self.quantity.strip()):
            raise ValueError("`quantity` must say what is computed on each seed")
        if not (isinstance(self.reason, str) and self.reason.strip()):
            raise ValueError("`reason` must say why `delta` is the smallest effect that matters")
        if self.relative and self.direction != "=":
            raise ValueError("`relative` applies to a printed value only (direction '=')")

    @classmethod
    def default(cls, family: str, quantity: str, direction: str) -> "Effect":
        """An effect with its family's stated default ``delta`` (:data:`DELTAS`).

        Parameters
        ----------
        family : str
            A key of :data:`DELTAS`; ``"relative"`` makes a printed value's band (direction ``"="``).
        quantity, direction : str

        Examples
        --------
        >>> Effect.default("correlation", "r(EU) - r(MSE)", ">").delta
        0.05
        """
        if family not in DELTAS:
            raise ValueError(f"`family` must be one of {sorted(DELTAS)}; got {family!r}")
        delta, reason = DELTAS[family]
        return cls(quantity, direction, delta, reason, relative=family == "relative")

    def half_width(self, printed: float | None) -> float:
        """The band's half-width in the quantity's units.

        Parameters
        ----------
        printed : float or None
            The printed value (needed when ``delta`` is relative to it).
        """
        if self.relative:
            if printed is None or not math.isfinite(printed) or printed == 0:
                raise ValueError("a relative `delta` needs a finite, non-zero printed value")
            return float(format_float(self.delta * abs(printed)))
        return float(self.delta)

    def band(self, printed: float | None) -> tuple[float, float]:
        """The interval the effect is judged against: ``printed +- delta`` for ``"="``, ``+-delta`` else."""
        h = self.half_width(printed)
        centre = 0.0 if self.direction != "=" else float(printed)
        return (float(format_float(centre - h)), float(format_float(centre + h)))

    def text(self, printed: float | None = None) -> str:
        """The declaration as the ledger's criterion shows it.

        Parameters
        ----------
        printed : float, optional
            The printed value a direction ``"="`` effect is judged against.
        """
        if self.direction == "=":
            lo, hi = self.band(printed)
            claim = f"equal to the printed value within +-{format_float(self.half_width(printed))} ([{format_float(lo)}, {format_float(hi)}])"
        else:
            claim = "above 0" if self.direction == ">" else "below 0"
        return f"effect: {self.quantity}, claimed {claim}; delta = {format_float(self.delta)}" + (
            " of the printed magnitude" if self.relative else "") + f" ({self.reason})"

    def record(self) -> dict:
        """The declaration as plain data (for its digest)."""
        return dict(quantity=self.quantity, direction=self.direction, delta=repr(float(self.delta)),
                    reason=self.reason, relative=bool(self.relative))


def _t_quantile(n: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + LEVEL / 2, n - 1))


def _rounded(v: float) -> float:
    return float(format_float(v)) if math.isfinite(v) else v


@dataclass(frozen=True)
class Interval:
    """A mean over seeds with its t-interval, the bounds as written at six significant digits."""

    mean: float
    low: float
    high: float
    sd: float
    n: int

    @classmethod
    def of(cls, values) -> "Interval":
        x = np.asarray(values, dtype=float)
        n = int(x.size)
        if n < 2:
            raise ValueError(f"`values`: an interval over seeds needs at least 2 seeds; got {n}")
        if not np.isfinite(x).all():
            raise ValueError(f"`values`: the effect must be finite on every seed; {int((~np.isfinite(x)).sum())} are not")
        m = float(np.mean(x))
        sd = float(np.std(x, ddof=1))
        half = _t_quantile(n) * sd / math.sqrt(n)
        return cls(_rounded(m), _rounded(m - half), _rounded(m + half), _rounded(sd), n)

    @property
    def half(self) -> float:
        return (self.high - self.low) / 2

    def inside(self, lo: float, hi: float) -> bool:
        """Wholly inside the open band ``(lo, hi)``."""
        return lo < self.low and self.high < hi

    def text(self) -> str:
        from offline_eval.display import format_interval

        return format_interval(self.mean, self.low, self.high, digits=3)


def seeds_to_decide(iv: Interval, lo: float, hi: float, *, sign: bool) -> int:
    """How many seeds the observed spread says an interval needs to decide against ``(lo, hi)``.

    ``sign``: the question is which side of 0 the mean lies on, or whether it lies inside ``(lo, hi)``
    (equivalence); otherwise whether it lies inside or outside the band ``(lo, hi)``.  The half-width
    needed is the distance from the mean to the nearest boundary that would decide it; the seeds scale
    as the square of the ratio of today's half-width to it (normal approximation).

    Examples
    --------
    >>> seeds_to_decide(Interval(0.01, -0.04, 0.06, 0.107, 20), -0.05, 0.05, sign=True)
    28
    """
    if iv.sd == 0:
        return iv.n
    m = iv.mean
    if sign:
        need = max(abs(m), min(m - lo, hi - m))
    else:
        need = min(abs(m - lo), abs(m - hi))
    if need <= 0:
        return MAX_SEEDS_SHOWN + 1
    z = 1.959963984540054
    n = math.ceil((z * iv.sd / need) ** 2)
    return int(min(max(n, iv.n + 1), MAX_SEEDS_SHOWN + 1))


@dataclass(frozen=True)
class EstimateVerdict:
    """The estimate rule applied to one claim (:func:`estimate_verdict`)."""

    status: str
    world: Interval
    control: Interval | None
    difference: Interval | None
    band: tuple[float, float]
    reason: str
    seeds_needed: int | None

    @property
    def deciding(self) -> Interval:
        """The interval a ``holds`` turns on last: world minus control where there is a control, else the world's."""
        return self.difference if self.difference is not None else self.world

    @property
    def detectable(self) -> float:
        """The smallest effect these seeds detect at 80% power with the 95% interval (``(t_.975 + t_.80) sd/sqrt(n)``,
        of :attr:`deciding`), as written at six significant digits."""
        from scipy.stats import t

        iv = self.deciding
        return _rounded((_t_quantile(iv.n) + float(t.ppf(0.8, iv.n - 1))) * iv.sd / math.sqrt(iv.n))

    def text(self) -> str:
        """The row's value: ``effect 0.031 [0.020, 0.042] over 20 seeds; detectable at 80% power: 0.015``."""
        return (f"effect {self.world.text()} over {self.world.n} seeds; detectable at 80% power: "
                f"{format_float(self.detectable, 3)}")

    def control_text(self) -> str:
        if self.control is None:
            return ""
        return (f"effect {self.control.text()} over {self.control.n} seeds, mechanism off; world - control "
                f"{self.difference.text()}")

    def seeds_text(self) -> str:
        if self.seeds_needed is None:
            return ""
        if self.seeds_needed > MAX_SEEDS_SHOWN:
            return f"more than {MAX_SEEDS_SHOWN:,} seeds would be needed to decide"
        return f"about {self.seeds_needed:,} seeds would be needed to decide (the observed spread, normal approximation)"


def _paired(world: pd.Series, control: pd.Series | None) -> pd.Series | None:
    if control is None:
        return None
    if not world.index.equals(control.index):
        raise ValueError("`control` must be computed on the same seeds as the world, in the same order")
    return world - control


def estimate_verdict(world, control=None, *, effect: Effect, printed: float | None = None,
                     check: bool = False, claim: bool = False) -> EstimateVerdict:
    """The estimate rule: the status of a claim from its effect on each seed, beside its control world.

    Parameters
    ----------
    world : pandas.Series
        The effect on each seed, indexed by seed.
    control : pandas.Series, optional
        The same effect on the control world (the paper's mechanism switched off), on the same seeds.
    effect : Effect
        The declaration.
    printed : float, optional
        The printed value (direction ``"="``).
    check : bool, default False
        A check of ours: it holds when the world's interval lies beyond 0 (in the band); no control needed.
    claim : bool, default False
        A claim of the paper (not a prediction of a printed cell): inside the band it ``holds`` (not
        ``within-tolerance``), and without a control world it is at best ``not tested``.

    Examples
    --------
    >>> e = Effect("gap", ">", 0.01, "stated default")
    >>> s = pd.Series([0.05, 0.06, 0.04, 0.05], index=[1, 2, 3, 4])
    >>> estimate_verdict(s, s * 0, effect=e).status
    'holds'
    >>> estimate_verdict(s, s, effect=e).status
    'not tested'
    >>> estimate_verdict((s - 0.05) / 10, s * 0, effect=e).status
    'differs'
    >>> estimate_verdict(pd.Series([0.1, -0.08, 0.12, -0.1], index=[1, 2, 3, 4]), s * 0, effect=e).status
    'inconclusive'
    """
    if not isinstance(effect, Effect):
        raise TypeError(f"`effect` must be an Effect; got {type(effect).__name__}")
    if effect.direction == "=" and printed is None:
        raise ValueError("a printed value's effect (direction '=') needs `printed`")
    w = Interval.of(world)
    diff = _paired(world, control)
    c = None if control is None else Interval.of(control)
    d = None if diff is None else Interval.of(diff)
    lo, hi = effect.band(printed)
    delta = effect.half_width(printed)
    eq = (-delta, delta)

    def verdict(status, reason, needed=None):
        return EstimateVerdict(status, w, c, d, (lo, hi), reason, needed)

    def undecided(reason):
        needs = [seeds_to_decide(w, lo, hi, sign=effect.direction != "=")]
        if d is not None:
            needs.append(seeds_to_decide(d, *eq, sign=True))
        return verdict("inconclusive", reason, max(needs))

    if effect.direction == "=":
        inside = "holds" if claim else "within-tolerance"
        if w.high < lo or w.low > hi:
            return verdict("differs", "the world's interval lies outside the printed value's band")
        if not (lo <= w.low and w.high <= hi):
            return undecided("the world's interval overlaps the edge of the printed value's band")
        if check or (d is None and not claim):
            return verdict(inside, "the world's interval lies inside the printed value's band")
        if d is None:
            return verdict("not tested", "the world's interval lies inside the printed value's band, but no control "
                                         "world switches the paper's mechanism off for this claim: nothing "
                                         "discriminates")
        if d.inside(*eq):
            return verdict("not tested", "world and control are equivalent within +-delta: the control predicts "
                                         "the printed value as well")
        if d.low > 0 or d.high < 0:
            return verdict(inside, "the world's interval lies inside the printed value's band and the "
                                   "world - control interval excludes 0")
        return undecided("the world's interval lies inside the band, but world - control neither excludes 0 nor "
                         "lies within +-delta")
    sign = 1 if effect.direction == ">" else -1
    beyond = (w.low > 0) if sign > 0 else (w.high < 0)
    against = (w.high < 0) if sign > 0 else (w.low > 0)
    if against:
        return verdict("differs", "the world's interval lies on the other side of 0")
    if w.inside(*eq):
        return verdict("differs", "the world's interval lies inside +-delta: the effect is negligible")
    if not beyond:
        return undecided("the world's interval holds 0")
    if check:
        return verdict("holds", "the world's interval lies beyond 0 in the claimed direction")
    if d is None:
        return verdict("not tested", "no control world switches the paper's mechanism off for this claim: "
                                     "nothing discriminates")
    if (d.low > 0) if sign > 0 else (d.high < 0):
        return verdict("holds", "the world's interval lies beyond 0 in the claimed direction and the world - "
                                "control interval excludes 0 in the same direction")
    if d.inside(*eq):
        return verdict("not tested", "world and control are equivalent within +-delta: the criterion does not "
                                     "discriminate")
    if (d.high < 0) if sign > 0 else (d.low > 0):
        return verdict("not tested", "the control world shows the effect more strongly than the world: the "
                                     "mechanism does not produce it")
    return undecided("the world shows the effect, but world - control neither excludes 0 nor lies within +-delta")


def seeds_for_half_width(iv: Interval, half: float) -> int:
    """The seeds a 95% interval needs for a half-width of ``half``, from ``iv``'s spread (normal approximation).

    Examples
    --------
    >>> seeds_for_half_width(Interval(0.1, 0.05, 0.15, 0.1, 20), 0.05)
    16
    """
    if half <= 0:
        raise ValueError(f"`half` must be > 0; got {half!r}")
    return max(2, math.ceil((1.959963984540054 * iv.sd / half) ** 2))


def as_seeded(values, name: str, seeds=None) -> pd.Series:
    """``values`` as a float Series indexed by seed: a Series (its index the seeds), or a frame's column with a
    ``seed`` column beside it; a bare array only with ``seeds``.

    Parameters
    ----------
    values : pandas.Series, or tuple ``(frame, column)``, or array-like with ``seeds``
    name : str
        The argument's name, for errors.
    seeds : sequence of int, optional
    """
    if isinstance(values, tuple) and len(values) == 2 and isinstance(values[0], pd.DataFrame):
        frame, col = values
        if "seed" not in frame.columns or col not in frame.columns:
            raise ValueError(f"`{name}`: the frame must have a `seed` column and {col!r}")
        out = pd.Series(frame[col].to_numpy(float), index=frame["seed"].to_numpy(int))
    elif isinstance(values, pd.Series):
        out = values.astype(float)
        out.index = [int(i) for i in out.index]
    else:
        if seeds is None:
            raise TypeError(f"`{name}` must carry the seeds it was computed on (a Series indexed by seed, or "
                            f"(frame, column) with a `seed` column); got {type(values).__name__}")
        arr = np.asarray(values, dtype=float)
        seeds = [int(s) for s in seeds]
        if arr.shape != (len(seeds),):
            raise ValueError(f"`{name}` has shape {arr.shape}; the seeds are {len(seeds)}")
        out = pd.Series(arr, index=seeds)
    if out.index.has_duplicates:
        raise ValueError(f"`{name}` repeats a seed")
    return out


def declaration_digest(record: dict) -> str:
    """A short stable digest of a claim's declaration (BLAKE2b of its canonical JSON).

    Examples
    --------
    >>> declaration_digest({"a": 1}) == declaration_digest({"a": 1})
    True
    >>> len(declaration_digest({"a": 1}))
    16
    """
    text = json.dumps(record, sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def band_verdict(intervals, control=None, *, effect: Effect, printed: float | None = None) -> tuple[str, str]:
    """The estimate rule over intervals the data's own resampling gave (a real-data claim measured several
    ways, each with its interval): ``(status, reason)``.

    Each interval is *in* (wholly beyond 0 as claimed and not inside +-delta; for a printed value, wholly
    inside its band), *out* (wholly on the other side, inside +-delta, or wholly outside the band) or
    *open*.  The claim ``differs`` when any interval is out, is ``inconclusive`` while any is open, and when
    every one is in it ``holds`` if the control's intervals are not all in too (one out: the control
    discriminates), is ``not tested`` when they are (or when there is no control), and ``inconclusive`` when
    the control's are open.

    Parameters
    ----------
    intervals, control : sequence of (estimate, low, high)
    effect : Effect
    printed : float, optional

    Examples
    --------
    >>> e = Effect("relative error", "=", 0.1, "stated")
    >>> band_verdict([(0.02, -0.05, 0.08)], [(0.3, 0.2, 0.4)], effect=e, printed=0.0)[0]
    'holds'
    >>> band_verdict([(0.1, -0.6, 0.9)], [(0.3, 0.2, 0.4)], effect=e, printed=0.0)[0]
    'inconclusive'
    """
    lo, hi = effect.band(printed)
    delta = effect.half_width(printed)

    def state(low, high):
        if effect.direction == "=":
            return "in" if lo <= low and high <= hi else "out" if high < lo or low > hi else "open"
        sign = 1 if effect.direction == ">" else -1
        if (high < 0 if sign > 0 else low > 0) or (-delta < low and high < delta):
            return "out"
        return "in" if (low > 0 if sign > 0 else high < 0) else "open"

    states = [state(float(lo_), float(hi_)) for _, lo_, hi_ in intervals]
    if not states:
        raise ValueError("`intervals` must not be empty")
    if "out" in states:
        return "differs", f"{states.count('out')} of {len(states)} intervals lie outside what the claim allows"
    if "open" in states:
        return "inconclusive", (f"{states.count('open')} of {len(states)} intervals straddle a boundary of the "
                                "claim: the data cannot decide")
    if control is None:
        return "not tested", "no control discriminates"
    cstates = [state(float(lo_), float(hi_)) for _, lo_, hi_ in control]
    if "out" in cstates:
        return "holds", "every interval lies where the claim says and the control's do not"
    if "open" in cstates:
        return "inconclusive", "every interval lies where the claim says, but the control's cannot be told apart"
    return "not tested", "the control's intervals lie there too: the criterion does not discriminate"
