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
PIP := $(PY) -m pip install --quiet --disable-pip-version-check --no-input
BUILD := build
STAMPS := $(BUILD)/stamps

NOTEBOOKS := $(sort $(wildcard notebooks/*.py))
NAMES := $(notdir $(basename $(NOTEBOOKS)))
SRC := $(shell find src -name '*.py' -not -path '*/__pycache__/*' 2>/dev/null)
REFERENCE := $(shell find data -type f -not -name '.*' 2>/dev/null)

# Papers of a notebook: the part of its name before the first underscore.
paper_of = $(firstword $(subst _, ,$(1)))

.PHONY: help reproduce test bench lab clean venv run

help: ## List the targets with a one-line description
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_-]+:.*## / {printf "  \033[1m%-10s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

venv: $(VENV_STAMP) ## Create .venv/ with the pinned dependencies and the package (editable)

$(VENV_STAMP): requirements.lock pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) -r requirements.lock 2>&1 | { grep -v "^WARNING: Location" || true; }
	$(PIP) --no-deps --no-build-isolation -e . 2>&1 | { grep -v "^WARNING: Location" || true; }
	@touch $@

reproduce: figures/claims.csv ## Execute every notebook (papermill) and write all tables, figures and the claims ledger

# One stamp per notebook: re-run when the notebook, src/ or data/ change.
$(STAMPS)/%.done: notebooks/%.py $(SRC) $(REFERENCE) | $(VENV_STAMP)
	$(PY) -m offline_eval.pipeline run $<
	@mkdir -p $(@D) && touch $@

figures/claims.csv: $(addprefix $(STAMPS)/,$(addsuffix .done,$(NAMES))) | $(VENV_STAMP)
	$(PY) -m offline_eval.pipeline ledger

run: $(VENV_STAMP) ## Run one notebook with other parameters: make run NB=yi_auc_anomalies ARGS="-p seed 7" (outputs in build/runs/)
	@test -n "$(NB)" || { echo "usage: make run NB=<notebook name> [ARGS='-p name value ...']"; exit 2; }
	$(PY) -m offline_eval.pipeline run notebooks/$(NB).py --output-root $(BUILD)/runs/$(NB) $(ARGS)

test: $(VENV_STAMP) ## Run the full test suite: unit, property and a smoke run of every notebook
	$(PY) -m pytest -n 2 tests

bench: $(VENV_STAMP) ## Time the library against its peers (scikit-learn, scipy); writes build/bench/
	$(PY) benchmarks/run.py --out $(BUILD)/bench

lab: $(VENV_STAMP) ## Open JupyterLab with the text notebooks opened as notebooks (jupytext)
	$(PY) -m offline_eval.pipeline lab-settings
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root)

clean: ## Remove build products (build/, executed notebooks); keeps .venv/ and figures/
	rm -rf $(BUILD) notebooks/*.ipynb .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.venv/*' -prune -exec rm -rf {} +
