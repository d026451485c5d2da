"""The lock file, environment.yml and pyproject agree."""

import re

import yaml

from offline_eval_compendium.paths import PROJ_ROOT


def _lock_pins():
    pins = {}
    for line in (PROJ_ROOT / "requirements.lock").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


def _norm(name):
    return re.split(r"[<>=\[; ]", name, 1)[0].lower().replace("_", "-")


def test_environment_yml_lists_the_same_pins_as_the_lock():
    env = yaml.safe_load((PROJ_ROOT / "environment.yml").read_text())
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d)
    env_pins = {}
    for item in pip:
        if item.startswith("-e"):
            continue
        name, version = item.split("==")
        env_pins[name.lower().replace("_", "-")] = version
    assert env_pins == _lock_pins()
    assert "python=3.11" in env["dependencies"]


def _group_pins(group):
    pins = {}
    for line in (PROJ_ROOT / "requirements" / f"{group}.lock").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line), line
            name, version = line.split("==")
            pins[name.lower().replace("_", "-")] = version
    return pins


GROUPS = ("run", "test", "lab", "report", "bench")


def test_the_groups_split_the_lock_exactly():
    # every pin of requirements.lock in some group, at the same version; nothing in a group that is not locked
    lock, union = _lock_pins(), {}
    for group in GROUPS:
        for name, version in _group_pins(group).items():
            assert lock.get(name) == version, f"requirements/{group}.lock pins {name}=={version}, the lock {lock.get(name)}"
            union[name] = version
    assert union == lock
    assert sorted(p.stem for p in (PROJ_ROOT / "requirements").glob("*.lock")) == sorted(GROUPS)


def test_make_reproduce_installs_what_the_notebooks_need_and_nothing_of_the_report_or_benchmarks():
    run = _group_pins("run")
    for pkg in ("numpy", "pandas", "scipy", "matplotlib", "papermill", "jupytext", "ipykernel", "pyyaml",
                "scikit-learn", "dask", "pyarrow", "setuptools"):
        assert pkg in run, pkg
    for pkg in ("sphinx", "myst-nb", "playwright", "duckdb", "polars", "jupyterlab", "pytest", "hypothesis"):
        assert pkg not in run, pkg
    assert {"pytest", "pytest-xdist", "hypothesis"} <= set(_group_pins("test"))
    assert "jupyterlab" in _group_pins("lab") and {"sphinx", "myst-nb", "playwright"} <= set(_group_pins("report"))
    assert {"duckdb", "polars"} <= set(_group_pins("bench"))


def test_every_dependency_is_pinned_exactly():
    import tomllib

    lock = _lock_pins()
    deps = []
    for pyproject in ("pyproject.toml", "compendium/pyproject.toml"):
        project = tomllib.loads((PROJ_ROOT / pyproject).read_text())["project"]
        deps += [d for extra in project["optional-dependencies"].values() for d in extra] + project["dependencies"]
    missing = [d for d in deps if _norm(d) not in lock and _norm(d) != "offline-eval"]
    assert not missing, f"not pinned in requirements.lock: {missing}"
    for line in (PROJ_ROOT / "requirements.lock").read_text().splitlines():
        if line and not line.startswith("#"):
            assert re.fullmatch(r"[A-Za-z0-9_.\-]+==[A-Za-z0-9_.+\-]+", line), line


def test_installed_versions_match_the_lock():
    from importlib.metadata import version

    lock = _lock_pins()
    for pkg in ("numpy", "pandas", "scipy", "matplotlib", "papermill", "jupytext", "scikit-learn"):
        assert version(pkg) == lock[pkg], pkg


def test_citable_and_licensed():
    import tomllib

    import yaml

    root = PROJ_ROOT
    cff = yaml.safe_load((root / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["title"] and cff["authors"]
    titles = " | ".join(r["title"] for r in cff["references"])
    for words in ("Offline and Online Evaluations", "Ranking-Based Evaluation", "Online Adaptive Metrics",
                  "Online Advertising Auctions"):
        assert words in titles, f"CITATION.cff cites the paper with '{words}'"
    project = tomllib.loads((root / "pyproject.toml").read_text())["project"]
    assert project["authors"] and project["license"]["text"] == cff["license"]
    assert "BSD 3-Clause" in (root / "LICENSE").read_text()
    assert "CC BY 4.0" in (root / "LICENSE-CONTENT.md").read_text()


def test_the_library_installs_apart_from_the_compendium():
    # `pip install offline_eval` brings the library's three dependencies; the compendium's machinery
    # (papermill, JupyterLab, jupytext, matplotlib) is the compendium project's, which depends on the library
    import tomllib

    project = tomllib.loads((PROJ_ROOT / "pyproject.toml").read_text())["project"]
    assert sorted(_norm(d) for d in project["dependencies"]) == ["numpy", "pandas", "scipy"]
    assert "compendium" not in project["optional-dependencies"]
    compendium = tomllib.loads((PROJ_ROOT / "compendium" / "pyproject.toml").read_text())["project"]
    deps = {_norm(d) for d in compendium["dependencies"]}
    assert {"offline-eval", "papermill", "jupytext", "matplotlib", "scikit-learn"} <= deps
    assert "jupyterlab" not in deps and compendium["optional-dependencies"]["lab"] == ["jupyterlab"]


def test_the_makefile_gives_every_target_the_allocator_settings_the_kernels_get():
    from offline_eval_compendium.machine import allocator_env

    makefile = (PROJ_ROOT / "Makefile").read_text()
    exported = dict(re.findall(r"^export (MALLOC_\w+) \?= (\S+)$", makefile, flags=re.M))
    assert exported == allocator_env()


def test_the_makefile_starts_every_notebook_in_its_stated_order():
    # `make reproduce` starts the notebooks in SLOW_FIRST's order (longest first); a notebook left out would run
    # after all of them, wherever its length belongs
    from offline_eval_compendium.paths import NOTEBOOKS_DIR

    makefile = (PROJ_ROOT / "Makefile").read_text()
    listed = re.search(r"^SLOW_FIRST := (.*?)(?<!\\)$", makefile, flags=re.M | re.S).group(1).replace("\\\n", " ").split()
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(p.stem for p in NOTEBOOKS_DIR.glob("*.py"))
