"""All-or-nothing installs of one notebook's outputs into ``figures/``.

Several notebooks write into one paper folder (``figures/yi/`` has three writers), so a notebook's
outputs cannot be swapped in as one directory.  POSIX has no multi-file atomic rename either; the
install is therefore a small transaction with a redo journal:

1. **Preflight**: every destination folder must take a file (a probe file is created and removed -- a
   permission check is useless as root); a read-only or full destination fails here, before anything
   is replaced, with :class:`InstallError` naming the folder.
2. **Stage**: every new file is copied next to its target as a hidden temporary file
   (``.<name>.oe-<run id>.tmp``, flushed to disk), and so is the notebook's new manifest.
3. **Commit point**: the journal ``<dest>/.install-<notebook>.journal`` (JSON: the renames, the files to
   delete) is written atomically.  A failure before this point removes the temporary files and leaves
   the old outputs as they were.
4. **Apply**: every temporary file is renamed over its target, the files the notebook owned before but
   no longer writes are deleted, the manifest is renamed into place; then the journal is removed.

**Recovery** (:func:`recover`, run under the lock at the start of every install and of every reader of
the outputs, e.g. the ledger): a leftover journal is rolled forward (its steps are idempotent), then
stray temporary files of killed runs are deleted.  So after a SIGKILL at any point the folder holds the
complete old outputs, or the complete new ones once the next run has rolled the journal forward; while
a journal is present the folder is marked as mid-install.  ``make`` touches a notebook's stamp only
after the install returned, so it never takes a half-installed notebook for up to date.

**Ownership**: ``<dest>/manifest/<notebook>.sha256`` lists every file the notebook wrote, with its
SHA-256, in ``sha256sum`` format (``cd figures && sha256sum -c manifest/<notebook>.sha256``); it is
deterministic, so it is committed with the outputs.  :func:`verify` checks it.

**Concurrency**: installs into one destination are serialised by an exclusive ``flock`` on
``build/locks/<hash of the destination>.lock``; a second run waits (saying so), then installs its own
complete outputs.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import secrets
import shutil
import signal
import sys
from pathlib import Path

from .paths import BUILD_DIR

__all__ = ["FAULT_ENV", "InstallError", "install", "lock", "manifest_path", "preflight", "recover", "verify"]

#: Test hook: ``OFFLINE_EVAL_INSTALL_FAULT=<k>`` kills the process (SIGKILL) at the k-th filesystem step.
FAULT_ENV = "OFFLINE_EVAL_INSTALL_FAULT"
_TMP_TAG = ".oe-"
_step_count = 0


class InstallError(RuntimeError):
    """The outputs could not be installed; the destination holds its previous outputs."""


def _step() -> None:
    """One filesystem step of an install; the fault-injection hook of the tests."""
    global _step_count
    _step_count += 1
    fault = os.environ.get(FAULT_ENV)
    if fault is not None and int(fault) == _step_count:
        os.kill(os.getpid(), signal.SIGKILL)


def manifest_path(dest: Path, notebook: str) -> Path:
    return Path(dest) / "manifest" / f"{notebook}.sha256"


def _journal(dest: Path, notebook: str) -> Path:
    return Path(dest) / f".install-{notebook}.journal"


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def lock(dest: str | Path):
    """Exclusive lock of a destination folder for the duration of the block (waits for another run)."""
    dest = Path(dest).resolve()
    locks = BUILD_DIR / "locks"
    locks.mkdir(parents=True, exist_ok=True)
    path = locks / (hashlib.sha256(str(dest).encode()).hexdigest()[:16] + ".lock")
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "another run"
            print(f"waiting for {holder} to finish installing into {dest} ...", file=sys.stderr, flush=True)
            fcntl.flock(fh, fcntl.LOCK_EX)
        fh.seek(0)
        fh.truncate()
        fh.write(f"pid {os.getpid()}")
        fh.flush()
        try:
            yield
        finally:
            fh.seek(0)
            fh.truncate()
            fcntl.flock(fh, fcntl.LOCK_UN)


def preflight(folders) -> None:
    """Every folder must take a new file: create and remove a probe; :class:`InstallError` otherwise."""
    for folder in folders:
        folder = Path(folder)
        try:
            folder.mkdir(parents=True, exist_ok=True)
            probe = folder / f".probe{_TMP_TAG}{os.getpid()}-{secrets.token_hex(4)}.tmp"
            with open(probe, "wb") as fh:
                fh.write(b"probe")
                fh.flush()
                os.fsync(fh.fileno())
            # missing_ok: a run's recovery deletes stray temporary files, and may take this one for one
            probe.unlink(missing_ok=True)
        except OSError as exc:
            raise InstallError(f"output folder {folder} is not writable ({exc.strerror or exc}); "
                               "nothing was replaced") from None


def _digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_manifest(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text().splitlines():
        if line.strip():
            digest, rel = line.split("  ", 1)
            out[rel] = digest
    return out


def _roll_forward(dest: Path, journal: Path) -> None:
    plan = json.loads(journal.read_text())
    for tmp, target in plan["renames"]:
        t = dest / tmp
        if t.exists():
            (dest / target).parent.mkdir(parents=True, exist_ok=True)
            _step()
            os.replace(t, dest / target)
    for rel in plan["deletes"]:
        _step()
        (dest / rel).unlink(missing_ok=True)
    for folder in {(dest / target).parent for _, target in plan["renames"]} | {dest}:
        _fsync_dir(folder)
    _step()
    journal.unlink()
    _fsync_dir(dest)


def recover(dest: str | Path) -> list[str]:
    """Finish or discard what killed installs left in ``dest`` (call under :func:`lock`); what was done."""
    dest = Path(dest)
    done = []
    if not dest.is_dir():
        return done
    for journal in sorted(dest.glob(".install-*.journal")):
        try:
            _roll_forward(dest, journal)
            done.append(f"completed the interrupted install of {journal.name[len('.install-'):-len('.journal')]}")
        except (ValueError, KeyError) as exc:  # a journal cut short cannot exist: it is renamed into place
            raise InstallError(f"unreadable install journal {journal}: {exc}") from None
    for stray in sorted(dest.rglob(f".*{_TMP_TAG}*.tmp")):
        stray.unlink(missing_ok=True)
        done.append(f"removed {stray.relative_to(dest)}")
    for stray in sorted(dest.glob(".install-*.journal.*.tmp")):
        stray.unlink(missing_ok=True)
    return done


def install(stage: str | Path, dest: str | Path, notebook: str) -> list[Path]:
    """Install every file under ``stage`` into ``dest`` (same layout) as one transaction; see the module notes.

    Call under :func:`lock`.  Returns the installed paths.
    """
    stage, dest = Path(stage), Path(dest)
    files = sorted(str(p.relative_to(stage)) for p in stage.rglob("*") if p.is_file())
    manifest = manifest_path(dest, notebook)
    preflight(sorted({dest / Path(f).parent for f in files} | {manifest.parent}))
    old = _read_manifest(manifest)
    if not files and not old and not manifest.exists():
        return []  # a notebook that writes nothing (the guide) owns nothing: no empty manifest
    deletes = sorted(set(old) - set(files))
    run = f"{os.getpid()}-{secrets.token_hex(4)}"
    renames, tmps = [], []
    try:
        for rel in files:
            target = dest / rel
            tmp = target.with_name(f".{target.name}{_TMP_TAG}{run}.tmp")
            _step()
            tmps.append(tmp)
            shutil.copyfile(stage / rel, tmp)
            with open(tmp, "rb+") as fh:
                os.fsync(fh.fileno())
            renames.append([str(tmp.relative_to(dest)), rel])
        text = "".join(f"{_digest(stage / rel)}  {rel}\n" for rel in files)
        mtmp = manifest.with_name(f".{manifest.name}{_TMP_TAG}{run}.tmp")
        _step()
        tmps.append(mtmp)
        with open(mtmp, "w") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        renames.append([str(mtmp.relative_to(dest)), str(manifest.relative_to(dest))])
        journal = _journal(dest, notebook)
        jtmp = journal.with_name(f"{journal.name}.{run}.tmp")
        _step()
        tmps.append(jtmp)
        with open(jtmp, "w") as fh:
            json.dump({"notebook": notebook, "renames": renames, "deletes": deletes}, fh)
            fh.flush()
            os.fsync(fh.fileno())
        _step()
        os.replace(jtmp, journal)  # the commit point
        _fsync_dir(dest)
    except OSError as exc:
        for t in tmps:
            t.unlink(missing_ok=True)
        what = "the disk is full" if exc.errno == errno.ENOSPC else (exc.strerror or str(exc))
        raise InstallError(f"could not install the outputs of {notebook} into {dest}: {what}; "
                           "the previous outputs are unchanged") from None
    _roll_forward(dest, journal)
    return [dest / rel for rel in files]


def verify(dest: str | Path, notebook: str | None = None) -> list[str]:
    """Problems with the outputs in ``dest``: [] when none.

    An interrupted install (its journal), temporary files left by a killed install, and every file of
    the manifests (all notebooks, or one) missing or changed.  Call under :func:`lock`, or temporary
    files of an install running now are reported too.

    Parameters
    ----------
    dest : str or Path
        The installed outputs (``figures/``).
    notebook : str, optional
        Only this notebook's manifest (the temporary files and journals are always checked).
    """
    dest = Path(dest)
    problems = [f"{j.name}: an install was interrupted (the next run completes it)"
                for j in sorted(dest.glob(".install-*.journal"))]
    # Call under :func:`lock`: then every temporary file is a leftover of a killed install.
    for stray in sorted(set(dest.rglob(f".*{_TMP_TAG}*.tmp")) | set(dest.glob(".install-*.journal.*.tmp"))):
        problems.append(f"{stray.relative_to(dest)}: a temporary file left by an interrupted install "
                        "(the next run removes it)")
    manifests = [manifest_path(dest, notebook)] if notebook else sorted((dest / "manifest").glob("*.sha256"))
    for m in manifests:
        if not m.is_file():
            problems.append(f"{m.relative_to(dest)}: no manifest")
            continue
        for rel, digest in _read_manifest(m).items():
            p = dest / rel
            if not p.is_file():
                problems.append(f"{rel}: missing (listed in {m.name})")
            elif _digest(p) != digest:
                problems.append(f"{rel}: changed since its notebook wrote it ({m.name})")
    return problems
