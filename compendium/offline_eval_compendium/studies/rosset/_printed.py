"""rosset Section 5: Table 1's % change, Table 2's differences and p-values and Fig. 3's optimal share, recomputed
from the other printed cells (world ``paper``), and their rows in the ledger (the study is :mod:`.wallet`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.stats import norm

from offline_eval import ranking as rk
from ... import reference
from ...claims import Ledger, matches_printed
from ._survey import MEASURES, num, printed_interval, strip_percent


# -- the printed cells recomputed from each other -------------------------------------------------
def printed_consistency(ref: pd.DataFrame) -> pd.DataFrame:
    """Table 1's % change, Table 2's differences and p-values recomputed from the other printed cells.

    One row per recomputed cell: the printed value, ours from the printed inputs, the range the rounding of
    those inputs allows (``low``, ``high``) and whether the printed value (+- half its last digit) meets it.
    """
    rows = []

    def cell(src, row, col):
        return reference.lookup(ref, src, row, col)

    for m in MEASURES:
        full, excl, pct = cell("Table 1", m, "Entire Set"), cell("Table 1", m, "Excl. One"), cell("Table 1", m, "%Change")
        value = _change(num(full), num(excl))
        lo, hi = printed_interval(_change, full, excl)
        d = reference.printed_decimals(strip_percent(pct))
        p_lo, p_hi = num(pct) - 0.5 * 10.0**-d, num(pct) + 0.5 * 10.0**-d
        rows.append({"source": "Table 1", "row": m, "printed": pct, "recomputed": value, "low": lo, "high": hi,
                     "consistent": p_lo <= hi + 1e-12 and lo <= p_hi + 1e-12})
    for m in MEASURES:
        a, b, d = cell("Table 2", m, "M1"), cell("Table 2", m, "M2"), cell("Table 2", m, "Absolute Difference")
        lo, hi = printed_interval(lambda x, y_: abs(x - y_), a, b)
        dd = reference.printed_decimals(strip_percent(d))
        ok = num(d) - 0.5 * 10.0**-dd <= hi + 1e-9 and lo <= num(d) + 0.5 * 10.0**-dd + 1e-9
        rows.append({"source": "Table 2", "row": m, "printed": d, "recomputed": abs(num(a) - num(b)), "low": lo,
                     "high": hi, "consistent": ok})
    for m in MEASURES:
        d, sd, p = (cell("Table 2", m, c) for c in ("Absolute Difference", "Std. Dev.", "p-value"))
        lo, hi = printed_interval(lambda a, b: float(norm.sf(a / b)), d, sd)
        half = 0.5 * 10.0 ** -reference.printed_decimals(strip_percent(p))
        rows.append({"source": "Table 2", "row": f"{m} p-value", "printed": p, "recomputed": float(norm.sf(num(d) / num(sd))),
                     "low": lo, "high": hi, "consistent": num(p) - half <= hi and lo <= num(p) + half})
    return pd.DataFrame(rows)


def _change(full, excl):
    return 100 * abs(excl - full) / abs(full)


def printed_claims(ledger: Ledger, ref: pd.DataFrame, consistency: pd.DataFrame, n: int) -> None:
    def cell(src, row, col):
        return reference.lookup(ref, src, row, col)

    def recomputed(cid, row, note=""):
        printed, value, lo, hi = strip_percent(row["printed"]), row["recomputed"], row["low"], row["high"]
        if matches_printed(value, printed):
            return ledger.printed(cid, printed=printed, value=value, note=note)
        d = reference.printed_decimals(printed)
        reach = hi - value if num(printed) > value else value - lo
        ledger.tolerance(cid, printed=printed, value=value, atol=0.5 * 10.0**-d + reach,
                         note=f"the rounded printed inputs allow {lo:.6g} to {hi:.6g}" + (f"; {note}" if note else ""))

    t1 = consistency[consistency["source"] == "Table 1"].set_index("row")
    same = {m: (cell("Table 1", m, "Entire Set") == cell("Table 2", m, "M1"),
                cell("Table 1", m, "Entire Set") == cell("Table 2", m, "M2")) for m in MEASURES}
    rmse = t1.loc["RMSE"]
    d = reference.printed_decimals(strip_percent(rmse["printed"]))
    ledger.printed("rosset-t1-change-rmse", printed=strip_percent(rmse["printed"]), value=rmse["recomputed"],
                   note=f"Entire Set {cell('Table 1', 'RMSE', 'Entire Set')} and Excl. One {cell('Table 1', 'RMSE', 'Excl. One')} give "
                        f"{rmse['recomputed']:.3f}% (range {rmse['low']:.4f}-{rmse['high']:.4f}% from rounding): rounded, "
                        f"{rmse['recomputed']:.{d}f}%; the printed {rmse['printed']} is that value truncated, while the "
                        "MAE row rounds, so the table keeps no one convention and the printed cell differs by its last "
                        "digit (no erratum: a truncated digit contradicts none of its inputs). The row's Entire Set is "
                        "M2's RMSE (root erratum rosset-t1-model)")
    for m in MEASURES[1:]:
        recomputed(f"rosset-t1-change-{m.lower()}", t1.loc[m])
    mixed = same["RMSE"] == (False, True) and all(same[m] == (True, False) for m in ("MAE", "tau", "rho"))
    ledger.printed(
        "rosset-t1-model", printed=strip_percent(cell("Table 1", "RMSE", "Entire Set")),
        value=num(cell("Table 2", "RMSE", "M1")),
        erratum_note=(f"Table 1's RMSE {cell('Table 1', 'RMSE', 'Entire Set')} is M2's RMSE in Table 2 (M1: "
                      f"{cell('Table 2', 'RMSE', 'M1')}) while its MAE, tau and rho are M1's; Table 2 cannot be the "
                      "swapped one, since its text says M1 has the lower RMSE") if mixed else
                     "Table 1's Entire Set cells match neither column of Table 2 alone",
    )
    t2c = consistency[consistency["source"] == "Table 2"].set_index("row")
    for m in MEASURES:
        recomputed(f"rosset-t2-diff-{m.lower()}", t2c.loc[m])
    for m in MEASURES:
        row = t2c.loc[f"{m} p-value"]
        d, sd = (num(cell("Table 2", m, c)) for c in ("Absolute Difference", "Std. Dev."))
        ledger.check(f"rosset-t2-pvalue-{m.lower()}", paper_value=row["printed"], holds=bool(row["consistent"]),
                     reproduced_value=f"{row['low']:.6g} to {row['high']:.6g} (one-sided; two-sided "
                                      f"{2 * norm.sf(d / sd):.3g})",
                     note="" if row["consistent"] else "beyond the rounding of its inputs, one- and two-sided alike")
    k10 = int(round(num(cell("Figure 3", "model", "share of data")) / 100 * n))
    optimal = rk.cumulative_rank_curve(np.arange(n), np.arange(n)).optimal[k10]
    ledger.printed(
        "rosset-fig3-optimal-10",
        printed=f"{num(cell('Figure 3', 'model', 'cumulative rank captured')) + num(cell('Figure 3', 'model', 'gap to optimal')):g}",
        value=100 * float(optimal), note=f"n = {n} (the printed survey), {k10} firms",
    )
    boot, eq6 = (cell("Section 5.3", "tau variance M2", c) for c in ("bootstrap", "eq. 6"))
    ratio = num(boot) / num(eq6)
    ledger.check("rosset-var-eq6-printed", holds=0.75 <= ratio <= 1.33, paper_value=f"{boot} / {eq6}",
                 reproduced_value=f"ratio {ratio:.3f}")
