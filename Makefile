# Build, test and lint the suite. `make` builds everything a run needs.
CARGO  ?= cargo
PYTHON ?= python3
SHELL_SCRIPTS := $(wildcard *.sh scripts/*.sh tests/*.sh)

.PHONY: all build python tools test test-rust test-python lint clean

all: build python tools

## Release binaries: target/release/{std,tokio,asyncstd,smol}-{ping,pong}
build:
	$(CARGO) build --release --workspace --bins

## The analysis toolkit's pinned Python packages (parse.py)
python:
	@$(PYTHON) -m pip install --quiet --disable-pip-version-check -r requirements.txt

## Says which system tools the sweeps would miss (they run without them, with less)
tools:
	@command -v taskset >/dev/null || echo "note: no taskset (Debian: util-linux): sweeps run unpinned"
	@command -v timeout >/dev/null || echo "note: no timeout (Debian: coreutils): the sweeps need it"
	@ping -V 2>/dev/null | grep -q iputils || echo "note: no iputils ping (Debian: iputils-ping): -P is skipped"

## Every check CI runs
test: build python lint test-rust test-python

test-rust:
	$(CARGO) test --release --workspace

test-python:
	$(PYTHON) -m pytest -q analysis/tests tests

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	shellcheck -x $(SHELL_SCRIPTS)
	$(PYTHON) -m ruff check .

clean:
	$(CARGO) clean
