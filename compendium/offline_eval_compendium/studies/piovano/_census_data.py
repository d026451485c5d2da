"""The ACS employment data of Massachusetts (2015-2018) as the census study and the peer script both cut it.

Pure numpy/pandas on purpose: ``tools/peers.py`` loads this file by its path in
NannyML's own environment (without this package), so the offline sets and the
chunks CBPE is run on are the very ones the study evaluates.  No random numbers:
every rule below is a function of the person's ``id`` and features.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The vendored file (columns :data:`COLUMNS`), relative to ``data/real/census_ma/``.
DATA_FILE = "employment_ma_2015_2018.parquet"
#: The year that is the offline test set; the later ones are live traffic.
OFFLINE_YEAR = 2015
LIVE_YEARS = (2016, 2017, 2018)
#: Features the second (candidate) model is trained on (ACS PUMS codes, see the data README).
FEATURES = ("AGEP", "SCHL", "MAR", "RELP", "DIS", "ESP", "MIL", "SEX")
#: The deployed model's outputs and the label, under NannyML's names in the originals.
PREDICTION, PROBABILITY, LABEL = "prediction", "predicted_probability", "employed"
COLUMNS = ("id", "year", *FEATURES, PREDICTION, PROBABILITY, LABEL)
#: Chunk size of the committed CBPE estimates: each live year is cut into floor(n / CHUNK_SIZE) chunks.
CHUNK_SIZE = 5000
#: The offline sets: the representative one (all of 2015) and the non-representative one.
OFFLINE_SETS = ("representative", "nonrepresentative")
#: The declared sub-sampling rule of the non-representative offline set.
NONREPRESENTATIVE_RULE = ("every 2015 person of working age (25 <= AGEP < 65) and, of the others (children, young "
                          "adults, people 65 and over), those whose id is a multiple of 4")


def offline_mask(offline: pd.DataFrame, which: str) -> np.ndarray:
    """Which rows of the 2015 data form the offline set ``which`` (one of :data:`OFFLINE_SETS`)."""
    if which == "representative":
        return np.ones(len(offline), dtype=bool)
    if which == "nonrepresentative":
        age = offline["AGEP"].to_numpy()
        return ((age >= 25) & (age < 65)) | (offline["id"].to_numpy() % 4 == 0)
    raise ValueError(f"`which` must be one of {OFFLINE_SETS}; got {which!r}")


def chunk_index(n: int, chunk_size: int = CHUNK_SIZE) -> np.ndarray:
    """Chunk number of each of ``n`` consecutive rows: ``max(1, n // chunk_size)`` chunks of equal size (+-1 row).

    >>> np.bincount(chunk_index(11, 5)).tolist()
    [6, 5]
    """
    if not (isinstance(chunk_size, (int, np.integer)) and chunk_size >= 1):
        raise ValueError(f"`chunk_size` must be a positive integer; got {chunk_size!r}")
    k = max(1, n // int(chunk_size))
    # row r goes to chunk floor(r * k / n): integer arithmetic, sizes differ by at most one row
    return (np.arange(n, dtype=np.int64) * k) // max(n, 1)


def live_periods(live: pd.DataFrame, chunk_size: int = CHUNK_SIZE) -> pd.DataFrame:
    """``live`` (sorted by year, then id) with a ``chunk`` column ``"<year>-<nn>"`` per :func:`chunk_index`."""
    live = live.sort_values(["year", "id"], kind="stable").reset_index(drop=True)
    parts = []
    for year, rows in live.groupby("year", sort=True):
        idx = chunk_index(len(rows), chunk_size)
        parts.append(np.array([f"{year}-{i:02d}" for i in idx], dtype=object))
    return live.assign(chunk=np.concatenate(parts))
