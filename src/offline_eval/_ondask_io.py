"""Reading a log for :mod:`offline_eval.ondask`: a Dask DataFrame or Parquet row groups in tasks, one
accumulator filled per task and merged in a binary tree of ``dask.delayed`` tasks."""

from __future__ import annotations

import glob
import os
from dataclasses import dataclass

import numpy as np

from ._validation import InputTypeError
from ._mergeable_losses import LossSums
from ._mergeable_scores import ScoreCounts
from ._progress import reports_progress


def read(data, columns):
    """``data`` as a Dask DataFrame holding ``columns``: a DataFrame is checked, a Parquet path read.

    Parameters
    ----------
    data : dask.dataframe.DataFrame or str or path
        The log, or the path of its Parquet files.
    columns : list of str
        The columns needed (``None`` entries are ignored).
    """
    import dask.dataframe as dd

    columns = [c for c in columns if c is not None]
    bad = [c for c in columns if not isinstance(c, str)]
    if bad:
        raise InputTypeError(f"column names must be strings; got {bad!r}")
    if isinstance(data, (str, bytes)) or hasattr(data, "__fspath__"):
        # Read the schema first (no data): a missing column is then the same named error as for a
        # DataFrame, not a KeyError from deep inside the Parquet reader.
        data = dd.read_parquet(data)
    elif not isinstance(data, dd.DataFrame):
        raise ValueError(f"`data` must be a dask DataFrame or a Parquet path; got {type(data).__name__}")
    missing = [c for c in columns if c not in data.columns]
    if missing:
        raise ValueError(f"`data` has no column(s) {missing}; it has {list(data.columns)}")
    return data[columns]


#: Rows read per task from a Parquet file at most (whole row groups; a row group bigger than this is one task).
ROWS_PER_TASK = 2_500_000


@dataclass(frozen=True)
class Pieces:
    """Parquet row groups to read with pyarrow, one task per entry of ``tasks``: ``(file, row groups)``."""

    tasks: list
    columns: list
    rows: int = 0  #: rows of every file, from the Parquet footers


def _local_files(data):
    """The Parquet files of a local path, directory or glob (sorted), or ``None`` for anything else."""
    if not (isinstance(data, str) or hasattr(data, "__fspath__")):
        return None
    path = os.fspath(data)
    if "://" in path:
        return None
    if any(ch in path for ch in "*?["):
        files = sorted(glob.glob(path))
    elif os.path.isdir(path):
        import pyarrow.dataset as pads

        files = sorted(pads.dataset(path, format="parquet").files)
    elif os.path.isfile(path):
        files = [path]
    else:
        return None
    return files or None


def log_source(data, columns):
    """What the tasks read: :class:`Pieces` of local Parquet files, or the Dask DataFrame of :func:`read`.

    Local Parquet files are read by pyarrow directly (only ``columns``; the row groups of a file in tasks
    of at most :data:`ROWS_PER_TASK` rows), without a Dask DataFrame's per-partition pandas frames.
    """
    columns = [c for c in dict.fromkeys(columns) if c is not None]
    files = _local_files(data) if all(isinstance(c, str) for c in columns) else None
    if files is None:
        return read(data, columns)
    import pyarrow.parquet as pq

    tasks, total = [], 0
    for f in files:
        meta = pq.ParquetFile(f).metadata
        total += meta.num_rows
        names = meta.schema.names
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"`data` has no column(s) {missing}; it has {list(names)}")
        group, rows = [], 0
        for i in range(meta.num_row_groups):
            n = meta.row_group(i).num_rows
            if group and rows + n > ROWS_PER_TASK:
                tasks.append((f, tuple(group)))
                group, rows = [], 0
            group.append(i)
            rows += n
        tasks.append((f, tuple(group)))
    return Pieces(tasks, columns, total)


def read_piece(task, columns):
    """One task's columns as NumPy arrays (a dict)."""
    import pyarrow.parquet as pq

    f, groups = task
    table = pq.ParquetFile(f).read_row_groups(list(groups), columns=columns, use_threads=False) if groups else None
    if table is None:  # a file without row groups: an empty partition
        table = pq.read_table(f, columns=columns)
    return {c: table.column(c).to_numpy() for c in columns}


def _read_and_fill(task, columns, chunk):
    return chunk(read_piece(task, columns))


def tree_reduce(source, chunk, merge=lambda a, b: a.merge(b)):
    """``chunk`` on every task of ``source``, merged in a binary tree, computed."""
    import dask

    if isinstance(source, Pieces):
        level = [dask.delayed(_read_and_fill)(t, source.columns, chunk) for t in source.tasks]
    else:
        level = [dask.delayed(chunk)(part) for part in source.to_delayed()]
    if not level:
        raise ValueError("`data` has no partition")
    if len(level) == 1 and dask.config.get("scheduler", None) is None:
        return level[0].compute(scheduler="sync")  # one task: no thread pool to start
    while len(level) > 1:
        nxt = [dask.delayed(merge)(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
        level = nxt + ([level[-1]] if len(level) % 2 else [])
    return level[0].compute()


@reports_progress("ondask")
def reduce_partitions(ddf, chunk, merge=lambda a, b: a.merge(b)):
    """``chunk(partition)`` on every partition, then a binary tree of ``merge``; computed.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    chunk : callable
        ``chunk(partition) -> accumulator``.
    merge : callable, default ``a.merge(b)``
    """
    if not callable(chunk) or not callable(merge):
        raise InputTypeError(f"`chunk` and `merge` must be callables; got {type(chunk).__name__} and {type(merge).__name__}")
    return tree_reduce(ddf, chunk, merge)


def values_of(part, name):
    if name is None:
        return None
    x = part[name]
    return x if isinstance(x, np.ndarray) else x.to_numpy()


def check_loss_kwargs(kwargs):
    extra = sorted(set(kwargs) - {"eps"})
    if extra:
        raise InputTypeError(f"unexpected keyword argument(s) {extra}; only `eps` is passed on to the log loss")


def require_rows(n_rows, total_weight, weight):
    """The errors of the in-memory functions for an empty log or all-zero weights (not a silent nan)."""
    if n_rows == 0:
        raise ValueError("`data` has no rows; the metric needs at least one (as in memory)")
    if not total_weight > 0:
        raise ValueError(f"`weight` column {weight!r} must not be all zero; got a total weight of 0")


def checked_counts(counts: ScoreCounts, weight) -> ScoreCounts:
    require_rows(len(counts.values), float(counts.weight.sum()), weight)
    return counts


def checked_sums(sums: LossSums, weight) -> LossSums:
    require_rows(sums.n, sums.w, weight)
    return sums


def read_split_and_fill(task, columns, chunk, splits):
    return chunk(read_piece(task, columns), splits=splits)
