"""VARIANTS: extra lines of a base runtime run with other options or another version of its crate, e.g. "tokio-ct=tokio:--flavor current_thread"."""

# Whitespace-separated tokens; LABEL=BASE:ARG starts a variant, the tokens after it are more of its
# arguments until the next such token. The arguments go to both its ping and its pong, or to one end
# only when they start with that end's name: LABEL=BASE:pong:ARG (e.g. std-slow=std:pong:--delay-ns
# 4000, a planted difference). The ping also gets --variant LABEL, so that its log names the variant
# (docs/sweeps.md, "Variants"). BASE@VERSION or BASE@path:DIR runs the base built against that release
# or checkout of its crate (runtimes.json's `crate`), with or without arguments: tokio-1.38=tokio@1.38.0,
# tokio-mine=tokio@path:../tokio:--flavor current_thread; sweepkit/versions.py builds it.
# Nothing here measures: `refusals` only asks the binaries whether they take the arguments.

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from suite import runtimes

LABEL = re.compile(r"[A-Za-z0-9._-]+")
# A token that starts a variant: no leading dash, so that an argument such as --a=b:c never does.
# LABEL=BASE:ARGS, LABEL=BASE@VERSION[:ARGS] or LABEL=BASE@path:DIR[:ARGS]: groups label, base, version, args.
START = re.compile(r"([^-=:][^=:]*)=([^=:@]*)(?:@((?:path:)?[^:]*))?(?::(.*))?")
ENDS = ("ping", "pong")  # LABEL=BASE:END:ARG gives the arguments to that end only
EXAMPLE = "e.g. tokio-ct=tokio:--flavor current_thread, or std-slow=std:pong:--delay-ns 4000"
RELEASE = re.compile(r"[0-9]+(\.[0-9]+){0,2}([-+][0-9A-Za-z.+-]+)?")  # cargo's `=` takes 1, 1.38 or 1.38.0(-rc.1)
VERSION_EXAMPLE = "e.g. tokio-1.38=tokio@1.38.0 or tokio-mine=tokio@path:../tokio"


@dataclass(frozen=True)
class Variant:
    label: str  # its series label: stems, logs' `variant`, tables and legends
    base: str  # the runtime label in runtimes.json it runs
    args: tuple[str, ...]
    end: str | None = None  # the one end that gets `args` ("ping" or "pong"); None: both
    version: str | None = None  # BASE@VERSION's VERSION (a release, or path:DIR): its crate built so; None: as BIN_DIR's
    build: dict | None = None  # that build's record (sweepkit/versions.py), its binaries in build["bin_dir"]

    @property
    def entry(self) -> runtimes.Entry:
        return runtimes.by_label(self.base)

    @property
    def ping_args(self) -> tuple[str, ...]:
        return (*(self.args if self.end != "pong" else ()), "--variant", self.label)

    @property
    def pong_args(self) -> tuple[str, ...]:
        return self.args if self.end != "ping" else ()

    @property
    def bin_dir(self) -> str | None:
        """Where its binaries are: its version's build, or None for BIN_DIR's."""
        return self.build["bin_dir"] if self.build else None

    def record(self) -> dict:
        """Its entry in sweep.json's `variants`: each end's arguments (the ping's without --variant), and a
        version variant's version and build."""
        version = {"version": self.version, "build": self.build} if self.version else {}
        return {"label": self.label, "base": self.base, "args": list(self.args), "end": self.end or "both",
                "ping_args": list(self.ping_args[:-2]), "pong_args": list(self.pong_args), **version}


def bases() -> list[str]:
    """The runtimes a variant may run: every runtime with a ping and a pong."""
    return [e.label for e in runtimes.runtimes() if e.binary_prefix and (e.takes_part("rtt") or e.takes_part("throughput"))]


def parse(text: str, problems: list[str]) -> list[Variant]:
    """The variants of the knob, in its order; every problem found is added to `problems`."""
    found: list[list] = []  # [label, base, args, end, version]
    for token in text.split():
        start = START.fullmatch(token)
        if start and (start[3] is not None or start[4] is not None):
            rest = start[4] or ""
            end, first = next(((e, rest[len(e) + 1:]) for e in ENDS if rest.startswith(f"{e}:")), (None, rest))
            found.append([start[1], start[2], [first] if first else [], end, start[3]])
        elif found:
            found[-1][2].append(token)
        else:
            problems.append(f"VARIANTS: '{token}' does not start a variant: expected LABEL=BASE:ARG..., {EXAMPLE}")
            return []
    known, taken, variants = bases(), set(runtimes.labels()), []
    for label, base, args, end, version in found:
        name = f"VARIANTS: {label}={base}{'@' + version if version is not None else ''}:"
        if not LABEL.fullmatch(label):
            problems.append(f"{name} the label '{label}' may hold only letters, digits, '.', '_' and '-'")
        elif label in taken:
            clash = "another variant" if runtimes.by_label(label) is None else "a label of runtimes.json"
            problems.append(f"{name} the label '{label}' is already {clash}; give the variant its own")
        elif base not in known:
            problems.append(f"{name} '{base}' is not a runtime; the runtimes are {', '.join(known)}")
        elif version is not None and not runtimes.by_label(base).crate:
            problems.append(f"{name} {base} is built on no crate of its own (runtimes.json's `crate`): only a "
                            f"runtime that is takes a version, {VERSION_EXAMPLE}")
        elif version is not None and version in ("", "path:"):
            problems.append(f"{name} names no version: write a release or path:DIR after '@', {VERSION_EXAMPLE}")
        elif version is not None and not version.startswith("path:") and not RELEASE.fullmatch(version):
            problems.append(f"{name} '{version}' is not a release number: write one (1.38.0) or path:DIR, "
                            f"{VERSION_EXAMPLE}")
        elif not args and version is None:
            problems.append(f"{name} gives no arguments: a variant runs its base with other options, {EXAMPLE}")
        elif "--variant" in args or any(a.startswith("--variant=") for a in args):
            problems.append(f"{name} --variant is the sweep's to give (it passes the label)")
        else:
            variants.append(Variant(label, base, tuple(args), end, version))
        taken.add(label)
    return variants


def refusals(variants: list[Variant], bin_dir: Path, ends: list[str], mode: str) -> list[str]:
    """Why a variant's arguments would fail its runs, as its base's binaries say (`--check-options`),
    one problem per variant, so that a knob its base lacks stops the sweep before anything runs."""
    problems = []
    for v in variants:
        # The ends this host runs, the pong first: it takes few options but the runtime's knobs, so
        # a ping-only option given to both ends is named as the pong's refusal.
        for end in sorted(ends, key=lambda end: end != "pong"):
            binary = f"{v.entry.binary_prefix}-{end}"
            target = ("--address", "127.0.0.1:9") if end == "ping" else ()  # never contacted
            args = v.ping_args if end == "ping" else v.pong_args
            command = [str(Path(v.bin_dir or bin_dir) / binary), "--check-options", "--mode", mode, *target, *args]
            try:
                done = subprocess.run(command, capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL)
            except (OSError, subprocess.TimeoutExpired) as error:
                problems.append(f"VARIANTS: {v.label}={v.base}: {binary} --check-options failed: {error}")
                break
            if done.returncode != 0:
                said = next((line.removeprefix("error: ") for line in done.stderr.splitlines() if line.strip()),
                            f"exit status {done.returncode}")
                given = " ".join(v.ping_args[:-2] if end == "ping" else v.pong_args)
                problems.append(f"VARIANTS: {v.label}={v.base}: {binary} refuses {given}: {said}")
                break
    return problems


def from_records(records) -> list[Variant]:
    """The variants as sweep.json records them."""
    return [Variant(r["label"], r["base"], tuple(r["args"]), None if r.get("end", "both") == "both" else r["end"],
                    r.get("version"), r.get("build")) for r in records or ()]
