"""What a run leaves behind for whoever reads it later: its ``run.yaml`` (parameters, commit, lock hash, the
failure if any) and the digest of every input of the outputs in ``figures/``."""

from __future__ import annotations

import time
from pathlib import Path

from .paths import PROJ_ROOT, relative
from .parameters import check_parameters


def git_output(*args) -> str:
    import subprocess

    try:
        return subprocess.run(["git", *args], cwd=PROJ_ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else ""


def record_run(run_dir: str | Path, notebook: str | Path, parameters: dict | None, *, elapsed: float,
               failure: Exception | None = None) -> Path:
    """Write ``run.yaml`` into ``run_dir``: status, parameters, git commit and dirty flag, lock hash, command, time.

    ``status`` is ``succeeded``, or ``failed`` when ``failure`` (the run's exception) is given; a failed
    run also records its failing cell (when a cell failed) and the error, so that its folder does not read
    like a success.

    ``make run`` keeps one such folder per run under ``runs/<notebook>/`` (``make clean`` leaves it).
    """
    import platform

    import yaml

    run_dir = Path(run_dir)
    status = git_output("status", "--porcelain", "--untracked-files=no")
    record = {
        "notebook": Path(notebook).stem,
        "status": "failed" if failure is not None else "succeeded",
        **({"failed_cell": getattr(failure, "cell", None),
            "error": getattr(failure, "error", None) or f"{type(failure).__name__}: {str(failure).splitlines()[0]}"}
           if failure is not None else {}),
        "parameters": {**check_parameters(notebook, parameters), "output_root": relative(run_dir / "outputs")},
        "overridden": sorted(parameters or {}),
        "git_commit": git_output("rev-parse", "HEAD") or "unknown",
        "git_dirty": bool(status),
        "requirements_lock_sha256": _sha256(PROJ_ROOT / "requirements.lock"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(time.time() - elapsed)),
        "elapsed_s": round(elapsed, 1),
        "command": " ".join(["python -m offline_eval_compendium.pipeline run", relative(Path(notebook))]
                            + [f"-p {k} {v!r}" for k, v in (parameters or {}).items()]),
    }
    from .io import atomic_write_text

    return atomic_write_text(run_dir / "run.yaml", yaml.safe_dump(record, sort_keys=False, width=10_000))


#: The compendium's presentation, which no notebook imports: it shows the outputs and makes none of them, so
#: it is not an input (changing the report's look neither re-runs a notebook nor changes the digest).
PRESENTATION = ("report.py", "report_api.py", "report_html.py", "report_papers.py", "report_run.py", "report_static",
                "findings.py")


def _presentation(path: Path) -> bool:
    try:
        rel = path.relative_to(PROJ_ROOT / "compendium" / "offline_eval_compendium")
    except ValueError:
        return False
    return rel.parts[0] in PRESENTATION


def inputs_digest() -> dict:
    """SHA-256 of what the outputs are made from: the notebooks, ``src/``, ``compendium/``, ``data/`` and the lock file.

    Files are those git tracks (all files when git is absent), hashed in sorted order as
    ``<path> <sha256 of its bytes>`` lines; the result does not depend on the machine or the commit
    message, only on the bytes of the inputs.  The report's own modules (:data:`PRESENTATION`) are left
    out: no notebook imports them.
    """
    import hashlib

    listed = git_output("ls-files", "--", "notebooks", "src", "compendium", "data", "requirements.lock")
    if listed:
        paths = [PROJ_ROOT / line for line in listed.splitlines()]
    else:
        paths = [p for d in ("notebooks", "src", "compendium", "data") for p in (PROJ_ROOT / d).rglob("*")]
        paths.append(PROJ_ROOT / "requirements.lock")
    paths = sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts and not _presentation(p))
    lines = "".join(f"{p.relative_to(PROJ_ROOT).as_posix()} {_sha256(p)}\n" for p in paths)
    return {"files": len(paths), "sha256": hashlib.sha256(lines.encode()).hexdigest(),
            "requirements_lock_sha256": _sha256(PROJ_ROOT / "requirements.lock")}
