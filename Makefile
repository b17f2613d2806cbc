# Build, test and lint the suite. `make` builds everything a run needs: the release binaries and
# the analysis toolkit's Python environment, .venv/ (never the system Python: PEP 668).
CARGO  ?= cargo
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
SHELL_SCRIPTS := $(wildcard *.sh scripts/*.sh tests/*.sh) .ci/run
PIP_INSTALL := $(VPY) -m pip install --quiet --disable-pip-version-check

.PHONY: all build python venv dev tools test test-rust test-python lint clean

all: build python tools

## Release binaries: target/release/{std,tokio,asyncstd,smol}-{ping,pong}
build:
	$(CARGO) build --release --workspace --bins

## .venv/ with the pinned packages of requirements.txt; a no-op once they are installed
python venv: $(VENV)/.requirements

## .venv/ with the test tools of requirements-dev.txt too (pytest, ruff, pypdf, shellcheck)
dev: $(VENV)/.requirements-dev

# The stamps are newer than the requirements they installed; a missing or broken
# interpreter (its base Python removed) makes a new environment.
$(VPY):
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || \
	  { echo "error: $(PYTHON) is not Python 3.11 or newer: set PYTHON=python3.11 (or newer)" >&2; exit 1; }
	@$(PYTHON) -c 'import venv, ensurepip' 2>/dev/null || \
	  { echo "error: $(PYTHON) cannot create a virtual environment: apt-get install python3-venv" >&2; exit 1; }
	$(PYTHON) -m venv --clear $(VENV) || { rm -rf $(VENV); exit 1; }

$(VENV)/.requirements: requirements.txt | $(VPY)
	$(PIP_INSTALL) -r requirements.txt
	@touch $@

$(VENV)/.requirements-dev: requirements-dev.txt requirements.txt | $(VPY)
	$(PIP_INSTALL) -r requirements-dev.txt
	@touch $@ $(VENV)/.requirements

## Says which system tools the sweeps would miss (they run without them, with less)
tools:
	@command -v taskset >/dev/null || echo "note: no taskset (Debian: util-linux): sweeps run unpinned"
	@command -v timeout >/dev/null || echo "note: no timeout (Debian: coreutils): the sweeps need it"
	@ping -V 2>/dev/null | grep -q iputils || echo "note: no iputils ping (Debian: iputils-ping): -P is skipped"

## Every check CI runs, lint first
test: build dev lint test-rust test-python

test-rust:
	$(CARGO) test --release --workspace

test-python: dev
	$(VPY) -m pytest -q analysis/tests tests

lint: dev
	@command -v rustup >/dev/null && rustup component add rustfmt clippy >/dev/null 2>&1 || true
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(VENV)/bin/shellcheck -x $(SHELL_SCRIPTS)
	$(VPY) -m ruff check .

clean:
	$(CARGO) clean
	rm -rf $(VENV)
