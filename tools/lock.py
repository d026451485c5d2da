"""Freeze an environment into ``requirements.lock`` and ``environment.yml`` (``make lock``).

``python tools/lock.py <python of a fresh venv>``: reads ``pip freeze`` of that interpreter (the project
itself excluded), writes the pins sorted case-insensitively into both files with their headers.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK_HEADER = """# Exact pins of every package in the environment (direct and transitive).
# The Makefile installs from this file; environment.yml lists the same pins (tests/compendium/test_environment.py).
# Regenerate with: make lock
"""
ENV_HEADER = """# Conda environment for those who use conda; the same exact pins as requirements.lock
# (tests/compendium/test_environment.py fails when the two disagree).  Without conda: `make venv`.
name: offline-eval
channels:
  - conda-forge
dependencies:
  - python=3.11
  - pip
  - pip:
"""


def main(python: str) -> None:
    frozen = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable", "--all"],
                            capture_output=True, text=True, check=True).stdout
    pins = sorted((line.strip() for line in frozen.splitlines()
                   if "==" in line and not line.startswith(("offline_eval", "offline-eval", "pip=="))),
                  key=str.lower)
    (ROOT / "requirements.lock").write_text(LOCK_HEADER + "".join(p + "\n" for p in pins))
    (ROOT / "environment.yml").write_text(ENV_HEADER + "".join(f"      - {p}\n" for p in pins)
                                        + "      - -e .\n      - -e ./compendium\n")
    print(f"{len(pins)} pins written to requirements.lock and environment.yml")


if __name__ == "__main__":
    main(sys.argv[1])
