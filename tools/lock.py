"""Freeze an environment into ``requirements.lock``, its groups ``requirements/*.lock`` and ``environment.yml`` (``make lock``).

``python tools/lock.py <python of a fresh venv>``: reads ``pip freeze`` of that interpreter (the project
itself excluded) and writes the pins, sorted case-insensitively:

- ``requirements.lock``, every pin (the union; its hash is recorded with each run);
- ``requirements/<group>.lock`` for each group of :data:`GROUPS`: the pins of that group's packages and
  everything they need, less the pins of ``run`` (which every other group is installed on top of).  The
  closure is read from the installed packages' metadata (``importlib.metadata`` in that interpreter,
  extras and markers evaluated there).  A frozen package that no group needs goes into ``run``;
- ``environment.yml``, the union again, for conda users.

``make reproduce`` installs ``run`` alone; the other groups install when their targets ask for them.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Each group: the requirements whose closure it holds.  ``run`` is what executing the notebooks needs
#: (and setuptools, the build backend of the editable installs); the others go on top of it.
GROUPS = {
    "run": ["offline_eval[plot,dask]", "offline_eval_compendium", "setuptools"],
    "test": ["offline_eval[test]", "jupyter_server"],  # jupyter_server: the Lab save round-trip test
    "lab": ["offline_eval_compendium[lab]"],
    "report": ["offline_eval_compendium[report]"],
    "bench": ["offline_eval[bench]"],
}
PROJECTS = ("offline-eval", "offline-eval-compendium")
LOCK_HEADER = """# Exact pins of every package in the environment (direct and transitive): the union of requirements/*.lock.
# The Makefile installs the groups (requirements/run.lock for make reproduce); environment.yml lists the same pins
# (tests/compendium/test_environment.py).  Regenerate with: make lock
"""
GROUP_HEADER = """# Exact pins of the group `{group}` ({what}), generated with requirements.lock by tools/lock.py (make lock).
"""
WHAT = {
    "run": "what make reproduce needs to run the notebooks",
    "test": "make test, on top of run.lock",
    "lab": "make lab, on top of run.lock",
    "report": "make report and make test-report, on top of run.lock",
    "bench": "make bench and make bench-dask, on top of run.lock",
}
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

# Run inside the frozen interpreter: the closure of each group's requirements, by normalised name.
CLOSURE = r"""
import json, re, sys
from importlib import metadata
from packaging.requirements import Requirement

def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()

def closure(roots):
    seen, todo = set(), [Requirement(r) for r in roots]
    done = set()
    while todo:
        req = todo.pop()
        name = norm(req.name)
        key = (name, frozenset(req.extras))
        if key in done:
            continue
        done.add(key)
        seen.add(name)
        for text in metadata.distribution(req.name).requires or []:
            dep = Requirement(text)
            envs = [{"extra": e} for e in req.extras] or [{"extra": ""}]
            if dep.marker is None or any(dep.marker.evaluate(env) for env in envs):
                todo.append(dep)
    return sorted(seen)

print(json.dumps({g: closure(r) for g, r in json.loads(sys.argv[1]).items()}))
"""


def _norm(name: str) -> str:
    import re

    return re.sub(r"[-_.]+", "-", name).lower()


def groups_of(pins: dict[str, str], closures: dict[str, list[str]]) -> dict[str, list[str]]:
    """Split ``pins`` (normalised name -> ``name==version``) into the groups; run first, leftovers to run."""
    run = {n for n in closures["run"] if n in pins} | {n for n in pins if not any(n in c for c in closures.values())}
    out = {"run": sorted((pins[n] for n in run), key=str.lower)}
    for group, names in closures.items():
        if group != "run":
            out[group] = sorted((pins[n] for n in names if n in pins and n not in run), key=str.lower)
    return out


def main(python: str) -> None:
    frozen = subprocess.run([python, "-m", "pip", "freeze", "--exclude-editable", "--all"],
                            capture_output=True, text=True, check=True).stdout
    pins = {_norm(line.split("==")[0]): line.strip() for line in frozen.splitlines()
            if "==" in line and _norm(line.split("==")[0]) not in PROJECTS + ("pip",)}
    closures = json.loads(subprocess.run([python, "-c", CLOSURE, json.dumps(GROUPS)],
                                         capture_output=True, text=True, check=True).stdout)
    union = sorted(pins.values(), key=str.lower)
    (ROOT / "requirements.lock").write_text(LOCK_HEADER + "".join(p + "\n" for p in union))
    (ROOT / "requirements").mkdir(exist_ok=True)
    for group, lines in groups_of(pins, closures).items():
        (ROOT / "requirements" / f"{group}.lock").write_text(
            GROUP_HEADER.format(group=group, what=WHAT[group]) + "".join(p + "\n" for p in lines))
        print(f"requirements/{group}.lock: {len(lines)} pins")
    (ROOT / "environment.yml").write_text(ENV_HEADER + "".join(f"      - {p}\n" for p in union)
                                          + "      - -e .\n      - -e ./compendium\n")
    print(f"{len(union)} pins written to requirements.lock and environment.yml")


if __name__ == "__main__":
    main(sys.argv[1])
