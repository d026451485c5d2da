"""The confirmations on record: each claim's declaration digest, recorded when its confirmation block first ran.

``data/confirmations/<notebook>.csv`` holds one row per claim and confirmation block: the block's seeds, the
digest of the claim's declaration (:attr:`~offline_eval_compendium.claims.Claim.digest`: criterion, effect,
delta, world, control), and the status and value that block gave when it first ran.  The file is append-only:
a run never rewrites it; ``make register`` (``python -m offline_eval_compendium.claims.registry``) appends the
rows of confirmations run for the first time, read from the notebooks' ``<paper>/declarations/<notebook>.csv``.

When a notebook runs, the ledger compares each estimate row's declaration with the record of its block
(:func:`judge`): the same digest confirms it; another digest makes the row ``exploratory`` (the declaration
changed after its confirmation ran: a new block must be declared, :meth:`~.rules.SeedBlocks.renewed`); the
records of earlier blocks are shown in the row as superseded runs.  Rows recorded before digests existed
(the share-of-seeds rule) carry the digest ``-``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from ..paths import DATA_DIR, FIGURES_DIR, PAPERS

#: The registry's folder and columns.
REGISTRY_DIR = DATA_DIR / "confirmations"
COLUMNS = ["claim_id", "block", "digest", "status", "value"]


def path_of(notebook: str, root: Path | None = None) -> Path:
    """The registry file of a notebook.

    Parameters
    ----------
    notebook : str
    root : Path, optional
        The registry folder (default :data:`REGISTRY_DIR`).
    """
    if not notebook or "/" in notebook:
        raise ValueError(f"`notebook` must be a file stem; got {notebook!r}")
    return (REGISTRY_DIR if root is None else Path(root)) / f"{notebook}.csv"


def load(notebook: str, root: Path | None = None) -> pd.DataFrame:
    """A notebook's records (empty when it has none).

    Parameters
    ----------
    notebook : str
    root : Path, optional
    """
    p = path_of(notebook, root)
    if not p.is_file():
        return pd.DataFrame(columns=COLUMNS)
    df = pd.read_csv(p, dtype=str, keep_default_na=False)
    if list(df.columns) != COLUMNS:
        raise ValueError(f"{p}: the registry's columns must be {COLUMNS}; got {list(df.columns)}")
    return df


def judge(records: pd.DataFrame, claim_id: str, block: str, digest: str) -> tuple[str, str]:
    """The record's verdict on one row: ``(state, superseded)``.

    ``state`` is ``"confirmed"`` (the block's record has this digest), ``"changed"`` (it has another: the
    declaration changed after its confirmation ran) or ``"new"`` (no record yet: the block's first run);
    ``superseded`` describes the records of the claim's earlier blocks.

    Parameters
    ----------
    records : pandas.DataFrame
        :func:`load`'s frame.
    claim_id, block, digest : str

    Examples
    --------
    >>> rec = pd.DataFrame([["c", "1-2 (2 seeds)", "-", "holds", "2/2 seeds"],
    ...                     ["c", "5-6 (2 seeds)", "ab", "holds", "effect 1"]], columns=COLUMNS)
    >>> judge(rec, "c", "5-6 (2 seeds)", "ab")
    ('confirmed', 'superseded run on block 1-2 (2 seeds): holds (2/2 seeds)')
    >>> judge(rec, "c", "5-6 (2 seeds)", "cd")[0], judge(rec, "c", "9-10 (2 seeds)", "cd")[0]
    ('changed', 'new')
    """
    mine = records[records["claim_id"] == claim_id]
    here = mine[mine["block"] == block]
    earlier = mine[mine["block"] != block]
    superseded = "; ".join(f"superseded run on block {r.block}: {r.status} ({r.value})" for r in earlier.itertuples())
    if here.empty:
        return "new", superseded
    return ("confirmed" if (here["digest"] == digest).any() else "changed"), superseded


def _runs(figures: Path | None, root: Path | None):
    """``(notebook, declarations run, records held)`` for every notebook that wrote its declarations."""
    figures = FIGURES_DIR if figures is None else Path(figures)
    for paper in PAPERS:
        for decl in sorted((figures / paper / "declarations").glob("*.csv")):
            yield decl.stem, pd.read_csv(decl, dtype=str, keep_default_na=False), load(decl.stem, root)


def register(figures: Path | None = None, root: Path | None = None) -> list[str]:
    """Append to the registry every confirmation first run, read from ``<paper>/declarations/<notebook>.csv``.

    Existing rows are never rewritten; a block already recorded with another digest is left as it is (its
    row is ``exploratory`` until a new block is declared).  Returns one line per row appended.

    Parameters
    ----------
    figures : Path, optional
        The figures root (default ``figures/``).
    root : Path, optional
        The registry folder (default :data:`REGISTRY_DIR`).
    """
    added = []
    for notebook, new, old in _runs(figures, root):
        known = set(zip(old["claim_id"], old["block"]))
        fresh = new[[(c, b) not in known for c, b in zip(new["claim_id"], new["block"])]]
        if fresh.empty:
            continue
        out = pd.concat([old, fresh[COLUMNS]], ignore_index=True)
        p = path_of(notebook, root)
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp = p.with_suffix(".csv.tmp")
        out.to_csv(tmp, index=False, lineterminator="\n")
        tmp.replace(p)
        added += [f"{notebook}: {r.claim_id} on block {r.block} ({r.digest})" for r in fresh.itertuples()]
    return added


def unregistered(figures: Path | None = None, root: Path | None = None) -> list[str]:
    """The confirmations the notebooks ran that the registry does not hold (``make register`` records them).

    Parameters
    ----------
    figures, root : Path, optional
        As in :func:`register`.
    """
    out = []
    for notebook, new, old in _runs(figures, root):
        blocks = set(zip(old["claim_id"], old["block"]))
        out += [f"{notebook}: {r.claim_id} on block {r.block}" for r in new.itertuples()
                if (r.claim_id, r.block) not in blocks]
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m offline_eval_compendium.claims.registry``: append the confirmations first run."""
    argv = sys.argv[1:] if argv is None else argv
    if argv:
        print("usage: python -m offline_eval_compendium.claims.registry (no arguments)", file=sys.stderr)
        return 2
    added = register()
    for line in added:
        print(f"recorded {line}")
    print(f"{len(added)} confirmations recorded in {REGISTRY_DIR}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
