# Build, test and lint the suite. `make` builds everything a run needs: the release binaries and
# the analysis toolkit's Python environment, .venv/ (never the system Python: PEP 668).
CARGO  ?= cargo
GO     ?= go
MVN    ?= mvn
PYTHON ?= python3
VENV   ?= .venv
VPY    := $(VENV)/bin/python
SHELL_SCRIPTS := $(wildcard *.sh tests/*.sh) .ci/run kotlin/launcher.sh
# pip compiles every module it installs (22 s of a 37 s install here). Left to first import, the tests' many
# Pythons would compile pandas and matplotlib side by side: the likely reason a fresh clone's Python tests took
# 476-494 s in the three runs without it, against 354 s in the one with it.
PIP_INSTALL := $(VPY) -m pip install --quiet --disable-pip-version-check
# The commit the binaries are built from: HEAD, `-modified` when the sources (crates, go, kotlin, Cargo files) differ from it.
# The Rust binaries read it from target/release/suite-commit (written whole, by a rename: a binary
# starting meanwhile, in a parallel test, reads the old stamp or the new, never an empty one; compiled in, every commit would
# rebuild every crate), kotlin-micro too (its launcher passes the path); go-micro gets it at link time. Its suite_version reads as theirs does:
# "0.1.0 (git 1a2b3c4d5e)".
SUITE_VERSION := $(shell sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
GIT_COMMIT    := $(shell git rev-parse --short=10 HEAD 2>/dev/null || echo unknown)$(shell \
  git status --porcelain -- crates go kotlin Cargo.toml Cargo.lock 2>/dev/null | grep -q . && echo -modified)

.PHONY: all build go-micro kotlin-micro python venv dev tools test test-rust test-go test-python lint clean findings

all: build python tools

# The runtime crates, crates/<prefix>-rtt (runtimes.json names the same ones): each builds one
# executable, <prefix>-rtt, and <prefix>-{ping,pong,micro} are links to it (rtt_core::roles).
RUNTIME_EXES := $(notdir $(wildcard crates/*-rtt))

## Release binaries: target/release/<runtime>-{ping,pong,micro} (links to <runtime>-rtt), go-micro,
## kotlin-micro, and the commit stamp
build:
	$(CARGO) build --release --workspace --bins
	@cd target/release && for exe in $(RUNTIME_EXES); do \
	  for role in ping pong micro; do ln -sfn $$exe $${exe%-rtt}-$$role; done; done
	@echo $(GIT_COMMIT) > target/release/suite-commit.tmp && mv target/release/suite-commit.tmp target/release/suite-commit
	@$(MAKE) --no-print-directory go-micro
	@$(MAKE) --no-print-directory kotlin-micro

## target/release/go-micro, the Go reference of the in-process benchmarks, when `go` is installed
## (Go's own build cache decides what to rebuild)
go-micro:
	@if command -v $(GO) >/dev/null 2>&1; then \
	  echo "$(GO) build go/chanbench -> target/release/go-micro"; \
	  cd go/chanbench && $(GO) build -trimpath \
	    -ldflags "-X 'main.suiteVersion=$(SUITE_VERSION) (git $(GIT_COMMIT))'" \
	    -o $(CURDIR)/target/release/go-micro . ; \
	else echo "note: no go: target/release/go-micro (the Go reference of the in-process benchmarks) is not built"; fi

## target/release/kotlin-micro (a launcher) and kotlin-micro.jar, the Kotlin reference of the micro
## benchmarks, when `java` and `mvn` are installed; Maven runs only when kotlin/ changed
kotlin-micro:
	@if command -v java >/dev/null 2>&1 && command -v $(MVN) >/dev/null 2>&1; then \
	  $(MAKE) -s --no-print-directory target/release/kotlin-micro; \
	else echo "note: no java or no mvn (Debian: default-jdk-headless, maven): target/release/kotlin-micro (the Kotlin reference) is not built"; fi

KOTLIN_SOURCES := kotlin/pom.xml $(shell find kotlin/src -type f 2>/dev/null)

# Maven's output is shown only when it fails: Debian's Maven 3.8 prints colour codes even with -q.
target/release/kotlin-micro.jar: $(KOTLIN_SOURCES)
	@echo "$(MVN) package kotlin/ -> $@"
	@mkdir -p $(@D) target/kotlin
	@$(MVN) -q -B -f kotlin/pom.xml package >target/kotlin/mvn.log 2>&1 || \
	  { cat target/kotlin/mvn.log; echo "error: $(MVN) package in kotlin/ failed (output above)" >&2; exit 1; }
	@cp target/kotlin/kotlin-micro.jar $@

target/release/kotlin-micro: kotlin/launcher.sh target/release/kotlin-micro.jar Cargo.toml
	@sed 's/@SUITE_VERSION@/$(SUITE_VERSION)/' $< > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@

## .venv/ with the pinned packages of requirements.txt; a no-op once they are installed
python venv: $(VENV)/.requirements

## .venv/ with the test tools of requirements-dev.txt too (pytest, ruff, pypdf, shellcheck, selenium)
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
	@ping -V 2>/dev/null | grep -q iputils || echo "note: no iputils ping (Debian: iputils-ping): -P is skipped"

## Every check CI runs, lint first
test: build dev lint test-rust test-go test-python

# The test harnesses build in the dev profile: the release profile's one codegen unit and LTO made compiling them
# most of this step. The end-to-end tests still drive the release binaries of target/release/ (`make build`).
# They mostly wait (on pongs, deadlines, stalls planted in echoes), so eight at a time on two CPUs take a third of
# the time; each holds under load (tests/flake_audit.py).
test-rust:
	$(CARGO) test --profile harness --workspace -- --test-threads 8

## go vet and go test of go/chanbench, when `go` is installed
test-go:
	@if command -v $(GO) >/dev/null 2>&1; then \
	  cd go/chanbench && $(GO) vet ./... && $(GO) test ./... ; \
	else echo "note: no go: the Go reference is not tested"; fi

# The Python tests wait on real sweeps too: a worker more than the CPUs keeps them busy (a fresh clone on 2
# vCPUs: 354 s with 3 workers, 476 s with 4, 421 s with 2; one run each, and 481 s with 3 when the slowest
# modules started first, side by side).
PYTEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 1) + 1 )))
test-python: dev
	$(VPY) -m pytest -q -n $(PYTEST_WORKERS) --durations=10 analysis/tests tests

lint: dev
	@command -v rustup >/dev/null && rustup component add rustfmt clippy >/dev/null 2>&1 || true
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets -- -D warnings
	$(VENV)/bin/shellcheck -x $(SHELL_SCRIPTS)
	$(VPY) -m ruff check .

## docs/findings.md again: every sweep it uses, one after another (how long: its "The sweeps"; the network one needs root
## for its two namespaces), then its figures, the tables between its markers and the README's headline. After `make`.
findings:
	$(PYTHON) -m findings.regenerate

clean:
	$(CARGO) clean
	rm -rf $(VENV)
