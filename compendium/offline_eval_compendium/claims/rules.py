"""The rules beside the estimate rule (:mod:`~.estimates`): the printed-precision test, the tolerance rule, the
seed sweep and the seed blocks a status comes from."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..reference import parse_printed, printed_decimals

#: Default number of seeds of every seed sweep.
SWEEP_SEEDS = 20
#: A magnitude reproduced on a synthetic world is within tolerance when within this fraction of the
#: printed value (a proportionate band: +-50% of +8.6% is 4.3-12.9%, of +0.2% is 0.1-0.3%).
SIZE_RTOL = 0.5


def matches_printed(value: float, printed: str) -> bool:
    """True when ``value`` rounds to ``printed`` at the printed number of decimals.

    The test is ``|value - printed| <= 0.5 * 10**-d`` (``d`` decimals shown),
    with a 1e-12 slack for binary floating point.

    Parameters
    ----------
    value : float
    printed : str

    Examples
    --------
    >>> matches_printed(0.91934, "0.9193"), matches_printed(0.91936, "0.9193")
    (True, False)
    """
    d = printed_decimals(printed)
    return bool(abs(float(value) - parse_printed(printed)) <= 0.5 * 10.0**-d + 1e-12)


def seed_sweep(func, seeds, *, progress: str | None = None, **kwargs) -> pd.DataFrame:
    """Run ``func(seed=s, **kwargs)`` for every seed; one row per seed.

    ``func`` returns a flat dict (numbers and booleans); the result has a
    ``seed`` column followed by the dict's keys.

    Parameters
    ----------
    func : callable
        ``func(seed=s, **kwargs) -> dict``.
    seeds : iterable of int
    progress : str, optional
        The step's name in the progress lines (:mod:`offline_eval_compendium.progress`);
        default ``func``'s name.
    **kwargs
        Passed to every call.
    """
    from ..progress import track

    seeds = [int(s) for s in seeds]
    rows = []
    for s in track(seeds, progress or getattr(func, "__name__", "sweep")):
        out = dict(func(seed=s, **kwargs))
        rows.append({"seed": s, **out})
    if not rows:
        raise ValueError("`seeds` must not be empty")
    return pd.DataFrame(rows)


def paired_seed_sweep(func, seeds, *, progress: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """:func:`seed_sweep` of a world and its control world run together: ``func(s)`` gives the seed's two flat
    dicts; two frames, one row per seed each.

    Parameters
    ----------
    func : callable
        ``func(seed) -> (dict, dict)``: the world's results, then its control world's.
    seeds : iterable of int
    progress : str
        The step's name in the progress lines.
    """
    from ..progress import track

    rows = ([], [])
    for s in track([int(s) for s in seeds], progress):
        for out, res in zip(rows, func(s)):
            out.append({"seed": s, **res})
    if not rows[0]:
        raise ValueError("`seeds` must not be empty")
    return pd.DataFrame(rows[0]), pd.DataFrame(rows[1])


#: Where confirmation blocks start: far from the small seeds (0-99, 1000-...) development runs use.
CONFIRMATION_RANGE = (10**6, 10**9)


def confirmation_start(name: str, n: int) -> int:
    """The first seed of a notebook's confirmation block: a stable hash of its name into [10^6, 10^9 - n).

    BLAKE2b of the name (not Python's ``hash``, which changes between processes), so the block is the
    same on every machine and never chosen by hand.

    Parameters
    ----------
    name : str
        The notebook's name (its file stem).
    n : int
        The block's size.

    Examples
    --------
    >>> confirmation_start("rosset_wallet", 20) == confirmation_start("rosset_wallet", 20)
    True
    >>> 10**6 <= confirmation_start("rosset_wallet", 20) < 10**9
    True
    """
    import hashlib

    lo, hi = CONFIRMATION_RANGE
    h = int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "big")
    return lo + h % (hi - lo - n)


@dataclass(frozen=True)
class SeedBlocks:
    """A notebook's seed blocks, declared before any result: how many seeds, and which.

    The **development** block holds the seeds its claims were developed on; the **confirmation** block,
    derived from the notebook's name (:func:`confirmation_start`), holds seeds no development run used.
    Every claim and its control run on the same block and the same count; a status comes from the
    confirmation block, run once with the frozen criterion, world and control.

    Parameters
    ----------
    name : str
        The notebook's name.
    development : int
        The first seed of the development block (its seeds are ``development, ..., development + n - 1``).
    n : int, default :data:`SWEEP_SEEDS`
        Seeds per block: the same for every claim and its control; :data:`SWEEP_SEEDS` unless a larger
        count is declared up front (a smaller one only for a smoke run, whose ledger is not gathered).
    confirmation_first : int, optional
        The confirmation block's first seed where a study declared its block before this class existed
        (derived from the name by its own rule, in [10^6, 10^9)); by default :func:`confirmation_start`.

    Examples
    --------
    >>> b = SeedBlocks("nb", 0, 3)
    >>> b.seeds("development")
    (0, 1, 2)
    >>> b.text("development")
    '0-2 (3 seeds)'
    """

    name: str
    development: int
    n: int = SWEEP_SEEDS
    confirmation_first: int | None = None
    #: Earlier confirmation blocks this one replaces, each ``(first seed, seeds, reason)``: kept on record
    #: and shown in the rows (:meth:`renewed`).
    superseded: tuple = ()

    #: The blocks, in the order they are run: development first, the confirmation once, last.
    BLOCKS = ("development", "confirmation")

    def __post_init__(self):
        if not (isinstance(self.n, int) and self.n >= 2):
            raise ValueError(f"`n` must be an integer >= 2; got {self.n!r}")
        if not (isinstance(self.development, int) and 0 <= self.development < CONFIRMATION_RANGE[0] - self.n):
            raise ValueError(f"`development` must be a seed below {CONFIRMATION_RANGE[0]}; got {self.development!r}")
        first = self.confirmation_first
        if first is not None and not (isinstance(first, int)
                                      and CONFIRMATION_RANGE[0] <= first <= CONFIRMATION_RANGE[1] - self.n):
            raise ValueError(f"`confirmation_first` must be a seed in [{CONFIRMATION_RANGE[0]}, "
                             f"{CONFIRMATION_RANGE[1]}) with room for {self.n} seeds; got {first!r}")

    @property
    def confirmation(self) -> int:
        """The first seed of the confirmation block."""
        if self.confirmation_first is not None:
            return self.confirmation_first
        return confirmation_start(self.name if not self.superseded else f"{self.name}/{len(self.superseded) + 1}",
                                  self.n)

    def renewed(self, reason: str) -> "SeedBlocks":
        """A fresh confirmation block, declared before it runs, in place of this one (kept in :attr:`superseded`).

        A criterion, effect or rule declared after a confirmation result was seen is judged on seeds no run
        has touched: the new block's first seed is :func:`confirmation_start` of ``"<name>/<k>"`` (the
        ``k``-th block of the notebook).

        Parameters
        ----------
        reason : str
            Why the block is renewed (what was declared anew).

        Examples
        --------
        >>> b = SeedBlocks("nb", 0, 3)
        >>> r = b.renewed("a new rule")
        >>> r.confirmation != b.confirmation, r.superseded[0][0] == b.confirmation
        (True, True)
        """
        if not (isinstance(reason, str) and reason.strip()):
            raise ValueError("`reason` must say what was declared anew")
        return SeedBlocks(self.name, self.development, self.n, None,
                          self.superseded + ((self.confirmation, self.n, reason),))

    def superseded_text(self) -> str:
        """The earlier confirmation blocks, as the rows show them."""
        return "; ".join(f"confirmation block {first}-{first + n - 1} ({n} seeds) superseded ({why})"
                         for first, n, why in self.superseded)

    def sized(self, n: int, *, development: int | None = None) -> "SeedBlocks":
        """The same blocks with ``n`` seeds each (a notebook's ``n_seeds`` parameter).

        Parameters
        ----------
        n : int
        development : int, optional
            Another first development seed (a notebook's ``seed`` parameter); the declared one by default.
        """
        old = tuple((first, int(n), why) for first, _, why in self.superseded)
        return SeedBlocks(self.name, self.development if development is None else int(development), int(n),
                          self.confirmation_first, old)

    def seeds(self, block: str) -> tuple[int, ...]:
        """The seeds of ``block`` (``"development"`` or ``"confirmation"``).

        Parameters
        ----------
        block : str
        """
        if block not in self.BLOCKS:
            raise ValueError(f"`block` must be one of {self.BLOCKS}; got {block!r}")
        start = self.development if block == "development" else self.confirmation
        return tuple(range(start, start + self.n))

    def suffix(self, block: str) -> str:
        """The suffix of a block's tables: ``""`` for the development block, ``"_confirmation"`` for the other.

        Parameters
        ----------
        block : str
        """
        self.seeds(block)
        return "" if block == "development" else "_confirmation"

    def text(self, block: str) -> str:
        """``"1000-1019 (20 seeds)"``.

        Parameters
        ----------
        block : str
        """
        s = self.seeds(block)
        return f"{s[0]}-{s[-1]} ({self.n} seeds)"


def tolerance_too_wide(bound: float, value: float) -> bool:
    """The one tolerance rule: a tolerance is never as wide as the value it judges.

    A band ``|ours - value| <= bound`` with ``bound >= |value|`` accepts zero, and the value's opposite
    sign at its edge: it cannot tell the value from nothing.

    Parameters
    ----------
    bound : float
        The tolerance, ``atol + rtol * |value|``.
    value : float
        The value judged (the paper's).

    Examples
    --------
    >>> tolerance_too_wide(0.02, 0.02), tolerance_too_wide(0.01, 0.02)
    (True, False)
    """
    return bool(bound >= abs(value))
