"""What else was tried beside a piovano world: one table for Table I, Table II and Table III.

Each tried world is a set of knobs over the world's keywords; its sweep runs on the given seeds (or is given, as
Table II's calibrated sweep), and its row holds the columns that name it, the medians of some sweep columns, the
share of seeds passing some criteria (``"k/n"``) and the count of seeds passing others (with ``seeds``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

__all__ = ["tried_worlds_table"]


def tried_worlds_table(sweep_row: Callable[..., dict], seeds, worlds: Mapping, *, names: Callable[..., dict],
                       medians=(), shares=(), counts=(), given: Mapping | None = None, **kw) -> pd.DataFrame:
    """One row per tried world of ``worlds`` (``key -> knobs``): ``sweep_row`` on ``seeds`` with ``{**kw, **knobs}``
    (or the sweep ``given[key]``, already run).

    The row: ``names(key, knobs)`` (the columns naming the world), then per column of ``medians`` the median over
    the seeds, per column of ``shares`` the seeds passing as ``"k/n"``, and per column of ``counts`` the seeds
    passing as an integer, followed by ``seeds`` (their number) when ``counts`` is given.
    """
    given = {} if given is None else given
    rows = []
    for key, knobs in worlds.items():
        sw = given[key] if key in given else pd.DataFrame([sweep_row(s, **{**kw, **knobs}) for s in seeds])
        row = dict(names(key, knobs))
        row.update({col: float(sw[col].median()) for col in medians})
        row.update({col: f"{int(sw[col].sum())}/{len(sw)}" for col in shares})
        if counts:
            row.update({col: int(sw[col].sum()) for col in counts})
            row["seeds"] = len(sw)
        rows.append(row)
    return pd.DataFrame(rows)
