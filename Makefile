# offline-eval: the Makefile is the DAG.  `make help` lists the targets.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
.DELETE_ON_ERROR:
.SECONDEXPANSION:

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
# The other groups of pins (requirements/<group>.lock), each installed on top of run.lock when a target needs it.
TEST_STAMP := $(VENV)/.installed-test
LAB_STAMP := $(VENV)/.installed-lab
REPORT_STAMP := $(VENV)/.installed-report
BENCH_STAMP := $(VENV)/.installed-bench
PIP := $(PY) -m pip install --quiet --disable-pip-version-check --no-input
# The pinned packages install with uv (from PyPI, itself pinned: a few seconds where pip takes a minute or
# more); `make venv INSTALLER=pip` installs them with pip instead, for a platform uv has no wheel for.
# With uv, the venv is made without pip (python -m venv spends 5 s installing it), uv comes in by the system's
# pip aimed at the venv (pip >= 22.3; else by the venv's own pip from ensurepip), and the venv gets the very pip
# `python -m venv` would have given it (ensurepip's version) from the lock's install.
UV_PIN := uv==0.13.9
INSTALLER ?= uv
ifeq ($(INSTALLER),uv)
INSTALL := $(PY) -m uv pip install --quiet --python $(PY)
INSTALL_GROUP := $(INSTALL) --compile-bytecode
NEW_VENV := $(PYTHON) -m venv --without-pip
VENV_PIP = "pip==$$($(PY) -c 'import ensurepip; print(ensurepip.version())')"
else
INSTALL := $(PIP)
INSTALL_GROUP := $(PIP)
NEW_VENV := $(PYTHON) -m venv
VENV_PIP :=
endif
# uv into the venv when it is not there (a venv made before, or by pip)
ENSURE_UV = [ "$(INSTALLER)" != uv ] || $(PY) -m uv --version >/dev/null 2>&1 || \
	$(PYTHON) -m pip --python $(PY) install --quiet --disable-pip-version-check --no-input "$(UV_PIN)" >/dev/null 2>&1 || \
	{ $(PY) -m pip --version >/dev/null 2>&1 || $(PY) -m ensurepip --default-pip >/dev/null; \
	  $(PIP) "$(UV_PIN)" 2>&1 | { grep -v "^WARNING: Location" || true; }; }
# The run lock's packages compiled to bytecode as pip compiles them (else every kernel compiles numpy, pandas
# and scipy again where PYTHONDONTWRITEBYTECODE is set), less the packages' own test suites, which nothing
# imports (2,300 of 8,100 files: about 10 s of compiling instead of 15).  The groups (test, lab, ...) compile
# their own packages as uv installs them (INSTALL_GROUP).
COMPILE_SITE = [ "$(INSTALLER)" != uv ] || $(PY) -m compileall -q -j0 -x '/tests?/' \
	"$$($(PY) -c 'import sysconfig; print(sysconfig.get_path("purelib"))')" || \
	echo "note: some files above did not compile to bytecode; they compile when imported"
BUILD := build
STAMPS := $(BUILD)/stamps
# glibc keeps freed memory for the next array instead of mapping it anew (the values of
# offline_eval_compendium.machine.allocator_env, which notebook kernels get too): the tests and benchmarks run
# 10-15% faster in the auction engine; nothing computed changes.
export MALLOC_MMAP_THRESHOLD_ ?= 33554432
export MALLOC_TRIM_THRESHOLD_ ?= 1073741824
# One job per core by default (notebooks run in parallel); `make -j1 reproduce` to run them one by one.
# (nproc honours OMP_NUM_THREADS, which the notebooks pin to 1: ignore it here.)
NPROC := $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 2)
MAKEFLAGS += --jobs=$(NPROC)

NOTEBOOKS := $(sort $(wildcard notebooks/*.py))
# Every notebook, longest first, so that `make -j2 reproduce` is not left waiting on a long one at the end: each
# core takes the next when it is free, and the last to start is the shortest (measured from a fresh clone on
# 2 cores, one notebook per core: yi_offline_online 177 s, arena_offline_online 108 s, chapelle_auctions 87 s,
# rosset_wallet 40 s, then 20 s down to 6 s in this order).  A notebook missing here runs after these.
SLOW_FIRST := yi_offline_online arena_offline_online chapelle_auctions rosset_wallet piovano_census_shift \
	yi_metrics_behaviour piovano_table3_convergence yi_production_scale piovano_table2_digits \
	piovano_matrices_table1 rosset_measures yi_auc_anomalies arena_open_bandit
ALL_NAMES := $(notdir $(basename $(NOTEBOOKS)))
# What `make run NB=...` takes: the notebooks and the guide (guide/your_own_data).
RUN_NAMES := $(ALL_NAMES) $(patsubst notebooks/%.py,%,$(sort $(wildcard notebooks/guide/*.py)))
NAMES := $(foreach n,$(SLOW_FIRST),$(filter $(n),$(ALL_NAMES))) $(filter-out $(SLOW_FIRST),$(ALL_NAMES))
# What the notebooks are made from: the report's own modules (pipeline.PRESENTATION) are not among them.
SRC := $(shell find src compendium -name '*.py' -not -path '*/__pycache__/*' -not -name 'report*.py' -not -name 'findings.py' 2>/dev/null)
REFERENCE := $(shell find data -type f -not -name '.*' 2>/dev/null)

# Papers of a notebook: the part of its name before the first underscore.
paper_of = $(firstword $(subst _, ,$(1)))

.PHONY: help reproduce test test-fast bench bench-dask lab clean venv run check check-figures check-figures-older-cpu lock report test-report browser register

help: ## List the targets with a one-line description
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {n++; name[n] = $$1; text[n] = $$2; if (length($$1) > w) w = length($$1)} \
	  END {for (i = 1; i <= n; i++) printf "  \033[1m%-*s\033[0m  %s\n", w, name[i], text[i]}' $(MAKEFILE_LIST)

venv: $(VENV_STAMP) ## Create .venv/ with what running the notebooks needs (requirements/run.lock), the library and the compendium (both editable)

# make reproduce needs run.lock alone; make test, lab, report and bench add their group when first asked for.
$(VENV_STAMP): requirements/run.lock pyproject.toml compendium/pyproject.toml
	@test -x $(PY) || $(NEW_VENV) $(VENV)
	@$(ENSURE_UV)
	$(INSTALL) -r requirements/run.lock $(VENV_PIP) 2>&1 | { grep -v "^WARNING: Location" || true; }
	$(INSTALL) --no-deps --no-build-isolation -e . -e ./compendium 2>&1 | { grep -v "^WARNING: Location" || true; }
	@$(COMPILE_SITE)
	@touch $@

$(VENV)/.installed-%: requirements/%.lock $(VENV_STAMP)
	@$(ENSURE_UV)
	$(INSTALL_GROUP) -r $< 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $@

lock: ## Re-resolve every pin: a fresh venv from pyproject.toml (all extras), frozen into requirements.lock, its groups requirements/*.lock and environment.yml
	rm -rf $(BUILD)/lockenv && $(PYTHON) -m venv $(BUILD)/lockenv
	$(BUILD)/lockenv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[test,dask,bench]' -e './compendium[report,lab]'
	$(BUILD)/lockenv/bin/python tools/lock.py $(BUILD)/lockenv/bin/python
	rm -rf $(BUILD)/lockenv

reproduce: figures/claims.csv ## Execute every notebook (papermill) and write all tables, figures and the claims ledger

# One stamp per notebook: re-run when the notebook, src/ or data/ change.
# Each notebook's seed sweeps in its own process (machine.worker_count): the notebooks already run one per
# core, and worker processes beside them cost more than they gain (measured: 345 s against 370 s of wall).
# `make run` leaves it unset, so that one notebook's sweeps use every core.
OFFLINE_EVAL_WORKERS ?= 1
$(STAMPS)/%.done: notebooks/%.py $(SRC) $(REFERENCE) | $(VENV_STAMP)
	OFFLINE_EVAL_WORKERS=$(OFFLINE_EVAL_WORKERS) $(PY) -m offline_eval_compendium.pipeline run $<
	@mkdir -p $(@D) && touch $@

figures/claims.csv: $(addprefix $(STAMPS)/,$(addsuffix .done,$(NAMES))) | $(VENV_STAMP)
	$(PY) -m offline_eval_compendium.pipeline ledger
	@echo "the browsable report of all of it: make report"

register: | $(VENV_STAMP) ## Record in data/confirmations/ the declaration digests of confirmation blocks run for the first time (append-only)
	$(PY) -m offline_eval_compendium.claims.registry

report: figures/claims.csv $(REPORT_STAMP) ## Build the static HTML report (Sphinx + MyST-NB, offline) into build/report/html/index.html; RUN=runs/<notebook>/<time> shows that recorded run (make run) instead, marked on every page, in build/report-run/html/
	$(PY) -m offline_eval_compendium.report $(if $(RUN),--run "$(RUN)" --out $(BUILD)/report-run,--out $(BUILD)/report)

browser: ## Optional, Debian only, needs root: install Debian's chromium with apt-get (make test-report finds any Chromium already there: CHROMIUM=path, PATH, Playwright's browsers)
	@command -v chromium >/dev/null || { SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q chromium; }

test-report: report $(TEST_STAMP) $(LAB_STAMP) ## The report and JupyterLab in headless Chromium, one already on the machine (links, layout at 1400 and 390 px, math, offline; every notebook opens in Lab); screenshots in build/report/screenshots/
	@$(PY) tests/compendium/browsers.py
	OFFLINE_EVAL_REQUIRE_REPORT=1 $(PY) -m pytest -q -n $(NPROC) --dist worksteal --durations=5 tests/compendium/test_report_browser.py tests/compendium/test_lab_browser.py tests/compendium/test_report_run.py

run: $(VENV_STAMP) ## Run one notebook with other parameters, recorded in runs/<NB>/<time>/ with what changed against figures/ (changes.md): make run NB=rosset_wallet ARGS="-p seed 7"
	@test -n "$(NB)" || { echo "usage: make run NB=<notebook> [ARGS='-p name value ...']; notebooks: $(RUN_NAMES)"; exit 2; }
	@test -f "notebooks/$(NB).py" || { echo "ERROR: no notebook $(NB); the notebooks are: $(RUN_NAMES)" >&2; exit 2; }
	@case " $(ARGS) " in *" --output-root"*|*" --record"*) \
	  echo "ERROR: make run: ARGS takes notebook parameters only (-p name value); where outputs go is the pipeline's own setting (runs/$(NB)/<time>/outputs/); got ARGS=\"$(ARGS)\"" >&2; exit 2;; esac
	$(PY) -m offline_eval_compendium.pipeline run notebooks/$(NB).py --record runs $(ARGS)

test: $(TEST_STAMP) ## Run the full test suite: unit, property, the doctests of src/ and a smoke run of every notebook
	OFFLINE_EVAL_WORKERS=$(OFFLINE_EVAL_WORKERS) $(PY) -m pytest -n 2 --dist worksteal --durations=15

test-fast: $(TEST_STAMP) ## The suite without the notebook smoke runs (about a minute)
	OFFLINE_EVAL_WORKERS=$(OFFLINE_EVAL_WORKERS) $(PY) -m pytest -n 2 --dist worksteal -m "not notebook"

.PHONY: mutation
mutation: $(TEST_STAMP) ## Mutation testing of the core engines (mutmut, one worker, minutes per module; not in make test or CI), each against its own tests in a copy under build/mutation/: scores and survivors per module (docs/mutation.md). MODULES="counterfactual ranking" for some
	$(PY) tests/library/mutation.py $(MODULES)

check: ## What CI runs: make test, make check-figures-older-cpu, then make test-report
	$(MAKE) test
	$(MAKE) check-figures-older-cpu
	$(MAKE) test-report

check-figures: ## make reproduce on this CPU, then as an older CPU computes: the committed figures/ must not change
	$(MAKE) reproduce
	$(PY) -m offline_eval_compendium.pipeline verify
	@$(call figures_unchanged,this CPU)
	$(MAKE) check-figures-older-cpu

# CI's reproduction: the committed figures were made on this CPU (make reproduce, make run), so one run from
# scratch as an older CPU checks both at once: a fresh clone regenerates them, and another CPU gives the same
# bytes.  The outputs of that run never stay in figures/: on any failure they are moved to
# build/figures-older-cpu/ and figures/ is restored from the commit, so figures made as an older CPU computes
# cannot be committed by mistake (a `--baseline-cpu` reproduction run by hand is the one way to make them).
check-figures-older-cpu: ## Every notebook from scratch as an older CPU computes (numpy's baseline SIMD, an older OpenBLAS core): the committed figures/, made on this CPU, must come back byte for byte
	@changed=$$(git status --porcelain -- figures/); if [ -n "$$changed" ]; then \
	  echo "ERROR: figures/ differs from the commit before the check; commit or restore it first:" >&2; \
	  echo "$$changed" >&2; exit 1; fi
	rm -rf $(STAMPS)
	@ok=1; $(PY) -m offline_eval_compendium.machine --baseline-cpu -- $(MAKE) reproduce && \
	  $(PY) -m offline_eval_compendium.pipeline verify || ok=0; \
	changed=$$(git status --porcelain -- figures/); \
	if [ $$ok = 1 ] && [ -z "$$changed" ]; then \
	  echo "figures/ regenerated byte for byte (numpy's baseline SIMD and an older OpenBLAS core)"; exit 0; fi; \
	if [ -n "$$changed" ]; then echo "figures/ differs from the commit after make reproduce (numpy's baseline SIMD and an older OpenBLAS core):"; \
	  echo "$$changed"; git diff --stat -- figures/ | tail -n 5; fi; \
	rm -rf $(BUILD)/figures-older-cpu && mkdir -p $(BUILD)/figures-older-cpu && cp -a figures/. $(BUILD)/figures-older-cpu/; \
	git checkout -q -- figures/ && git clean -fdq -- figures/; rm -rf $(STAMPS); \
	echo "the older CPU's outputs are in $(BUILD)/figures-older-cpu/; figures/ is restored from the commit" >&2; exit 1

# Fails, listing them, when tracked files under figures/ changed or new ones appeared.
figures_unchanged = changed=$$(git status --porcelain -- figures/); \
	if [ -n "$$changed" ]; then echo "figures/ differs from the commit after make reproduce ($(1)):"; \
	echo "$$changed"; git diff --stat -- figures/ | tail -n 5; exit 1; fi; \
	echo "figures/ regenerated byte for byte ($(1))"

bench: $(BENCH_STAMP) ## Time the library against its peers (scikit-learn, scipy; DuckDB and Polars on Parquet logs); writes build/bench/. ARGS="--quick" or "--only logs"
	$(PY) benchmarks/run.py --out $(BUILD)/bench $(ARGS)

bench-dask: $(BENCH_STAMP) ## Opt-in, minutes: ondask beside DuckDB and Polars on 2e7 rows of Parquet logs, every family in one pass on 10^8; writes build/bench/scale_dask.md
	$(PY) benchmarks/scale_dask.py --rows $${ROWS:-1e8} --table-rows $${TABLE_ROWS:-2e7} --out $(BUILD)/bench --data $(BUILD)/bench/logs $(ARGS)

lab: $(LAB_STAMP) ## JupyterLab at the repository root: text notebooks open as notebooks on the project's kernel; runs by hand write to build/lab/
	$(PY) -m offline_eval_compendium.lab settings
	$(VENV)/bin/jupyter lab --ServerApp.root_dir=. --ServerApp.contents_manager_class=offline_eval_compendium.lab.ContentsManager \
	  $(if $(filter 0,$(shell id -u)),--allow-root)

clean: ## Remove build products (build/, executed notebooks); keeps .venv/, figures/ and the recorded runs in runs/
	rm -rf $(BUILD) notebooks/*.ipynb .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.venv/*' -prune -exec rm -rf {} +

# The peer (NannyML) in its own environment, apart from the compendium's: `make reproduce` needs neither it nor a network.
PEERS_VENV := $(BUILD)/peers-venv
PEERS_STAMP := $(PEERS_VENV)/.installed

$(PEERS_STAMP): tools/peers-requirements.txt
	@test -x $(PEERS_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input -r tools/peers-requirements.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $@

.PHONY: peers
peers: $(PEERS_STAMP) ## Re-create data/real/census_ma/ (the vendored ACS data and NannyML CBPE's estimates) from the nannyml wheel; network, minutes
	NML_DISABLE_USAGE_LOGGING=1 $(PEERS_VENV)/bin/python tools/peers.py

# Open Bandit Pipeline in its own environment (it needs PyTorch): the peer of offline_eval.counterfactual.
PEERS_OBP_VENV := $(BUILD)/peers-obp-venv
PEERS_OBP_STAMP := $(PEERS_OBP_VENV)/.installed

$(PEERS_OBP_STAMP): tools/peers-obp-requirements.txt
	@test -x $(PEERS_OBP_VENV)/bin/python || $(PYTHON) -m venv $(PEERS_OBP_VENV)
	$(PEERS_OBP_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-input --no-deps --ignore-requires-python -r tools/peers-obp-requirements.txt 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $@

.PHONY: peers-obp
peers-obp: $(PEERS_OBP_STAMP) ## Re-create data/peers/open_bandit_pipeline/ (OBP's IPS, SNIPS and DR on fixed logs, which tests/library/test_counterfactual.py matches to 1e-12); minutes, PyTorch
	$(PEERS_OBP_VENV)/bin/python tools/peers_obp.py

.PHONY: peers-obd
peers-obd: $(PEERS_OBP_STAMP) ## Re-create data/real/open_bandit/ (the Open Bandit Dataset's sample from the obp 0.5.7 sdist, BTS's action probabilities, OBP's estimates on it) in OBP's environment; PyPI, minutes
	$(PEERS_OBP_VENV)/bin/python tools/peers_obd.py
