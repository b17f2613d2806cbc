"""The entry's one parse: the environment's flags and knobs checked (every problem named, then exit) into the typed spec.

sweepkit.cli hands the environment here once; what comes back (a sweepkit.spec.Spec, the choices and
sweep.json's first fields) is all that the plan, the runs and the records below see.
"""

import dataclasses
import sys
from pathlib import Path

from . import knobs as knobs_mod
from . import modes, variants, versions
from .defaults import SUITE_DIR
from .knobs import Checked
from .spec import Spec


def check(environ, flags: str, context: str, ends: list[str], prog: str) -> tuple[Checked, Spec, dict]:
    """The knobs, their spec and the sweep's document so far; a problem ends the sweep here: flags and knobs
    exit 2 ("Try -h", "Nothing was started."), missing binaries exit 1. `ends`: the binaries this host runs."""
    checked = knobs_mod.check(environ, flags, context)
    if checked.usage is None:
        for problem in checked.errors:
            print(f"{prog}: {problem}", file=sys.stderr)
        if checked.errors:
            print("Nothing was started.", file=sys.stderr)
            raise SystemExit(2)
    for warning in checked.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
    if checked.usage is not None:
        print(f"{prog}: {checked.usage}\nTry {prog} -h.", file=sys.stderr)
        raise SystemExit(2)
    spec = checked.spec()
    mode = modes.of(spec.mode)
    for entry in list(checked.selection):  # a reference `make` left out (no go, no java): the others run
        why = mode.unbuilt(entry, spec)
        if why and len(checked.selection) > 1:
            checked.selection.remove(entry)
            print(f"{prog}: warning: -{entry.flag}: {why}; skipped", file=sys.stderr)
    missing = missing_binaries(spec, checked.selection + [v.entry for v in checked.variants if not v.version], ends)
    if missing:
        print(f"{prog}: missing binaries:", *(f"  {path}" for path in missing), sep="\n", file=sys.stderr)
        print(f'Build them first: run "make" (or "cargo build --release --workspace --bins") in {SUITE_DIR}',
              file=sys.stderr)
        raise SystemExit(1)
    if not spec.dry_run:  # a dry run prints the plan and builds nothing
        checked.variants = [build(v, context, prog, spec.version_profile) for v in checked.variants]
    refused = variants.refusals(checked.variants, spec.bin_dir, mode.binary_ends(ends), spec.mode)
    if refused:
        print(*(f"{prog}: {problem}" for problem in refused), "Nothing was started.", sep="\n", file=sys.stderr)
        raise SystemExit(2)
    doc = {"frameworks": [e.label for e in checked.selection], "variants": [v.record() for v in checked.variants],
           "knobs": spec.record(), "knobs_given": list(spec.given), "points": []}
    return checked, spec, doc


def build(variant: variants.Variant, context: str, prog: str, profile: versions.Profile) -> variants.Variant:
    """A version variant with its build in PROFILE (sweepkit/versions.py: made on first use, else cargo's no-op), any
    other as it is; a version that cannot be built ends the sweep here in one line, exit 2, before anything runs."""
    if not variant.version:
        return variant
    name = f"VARIANTS: {variant.label}={variant.base}@{variant.version}"
    try:
        if context != "localhost":
            raise versions.BuildRefused("a version variant runs on one host: use ./run-localhost.sh")
        record = versions.build(SUITE_DIR, variant.entry, variant.version,
                                lambda line: print(f"{prog}: {name}: {line}", flush=True), profile)
    except versions.BuildRefused as refused:
        print(f"{prog}: {name}: {refused}", "Nothing was started.", sep="\n", file=sys.stderr)
        raise SystemExit(2) from None
    return dataclasses.replace(variant, build=record)


def missing_binaries(spec: Spec, selection, ends: list[str]) -> list[Path]:
    """The binaries (ends: "ping", "pong"; with MODE=micro, "micro": the sweep's mode's binary_ends) of the
    selected entries that BIN_DIR lacks, each once."""
    mode = modes.of(spec.mode)
    prefixes = dict.fromkeys(e.binary_prefix for e in selection if mode.measures_entry(e))
    wanted = [spec.bin_dir / f"{prefix}-{end}" for prefix in prefixes for end in mode.binary_ends(ends)]
    return [path for path in wanted if not (path.is_file() and path.stat().st_mode & 0o111)]
