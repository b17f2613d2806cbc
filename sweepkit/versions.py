"""A version variant's build (BASE@VERSION, BASE@path:DIR): its runtime's crate pinned in a Cargo workspace of its own, built once, reused."""

# target/versions/<runtime>@<version>/ (a checkout: @path-<hash of its path>) holds a workspace of copies of
# the crates the runtime's binary needs, its root Cargo.toml the suite's with only the runtime's crate
# (runtimes.json's `crate`) pinned, its own Cargo.lock (seeded from the suite's, so every other crate stays
# at the suite's versions, but those runtimes.json's `pins_below` holds at an older era's; rtt-core's build.rs
# reads this one, so the logs name the version that ran) and its own target/, the binaries in target/<profile>/
# (VERSION_PROFILE: `release`, the measured binaries' profile, or the tests' lighter one). The suite's Cargo.lock and
# target/ are never written. A second sweep finds cargo's no-op. build.json records what was built, in which profile;
# sweep.json's variant entry holds a copy.

import datetime
import fcntl
import hashlib
import json
import re
import shutil
import subprocess
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

from . import procs

BUILD_LIMIT_S = 1800  # a cold build takes minutes; a hung cargo must still end
LOCK_LIMIT_S = 1800  # another sweep building the same version first
ROLES = ("ping", "pong", "micro")  # the links `make` gives each runtime's executable (rtt_core::roles)


@dataclass(frozen=True)
class Profile:
    """The cargo profile a version variant is built in (VERSION_PROFILE), one of Cargo.toml's: `release`, the one the
    suite's binaries are measured in, or `harness`, the test harnesses' (unoptimised, no LTO: a build that shows that
    the version builds and runs, quickly, and whose figures say nothing of its speed)."""

    name: str  # cargo's --profile, and the folder under target/ its binaries land in
    measured: bool  # whether it is the measured binaries' profile


RELEASE = Profile("release", measured=True)
PROFILES = {p.name: p for p in (RELEASE, Profile("harness", measured=False))}


class BuildRefused(Exception):
    """Why the version cannot be a line of the sweep: one line, said before anything is measured."""


def folder(suite: Path, runtime: str, version: str) -> Path:
    """Its build's folder, under the suite's target/versions/: a checkout's named by a hash of its resolved path."""
    if version.startswith("path:"):
        where = str(Path(version.removeprefix("path:")).resolve())
        return suite / "target" / "versions" / f"{runtime}@path-{hashlib.sha256(where.encode()).hexdigest()[:12]}"
    return suite / "target" / "versions" / f"{runtime}@{version}"


def checkout(crate: str, given: str) -> Path:
    """The folder of CRATE's Cargo.toml in a checkout: DIR itself, or DIR/CRATE (tokio's repository keeps it
    there); else BuildRefused."""
    base = Path(given).resolve()
    for candidate in (base, base / crate):
        try:
            manifest = tomllib.loads((candidate / "Cargo.toml").read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError):
            continue
        if manifest.get("package", {}).get("name") == crate:
            return candidate
    raise BuildRefused(f"{given} is not a checkout of the crate {crate}: neither {given}/Cargo.toml nor "
                  f"{given}/{crate}/Cargo.toml is its package")


def git(where: Path, *args: str, limit_s: float = 30) -> str | None:
    """git's output in WHERE, stripped; None where git fails there (not a checkout, no git, past `limit_s`)."""
    try:
        done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, timeout=limit_s)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def git_state(where: Path) -> tuple[str | None, bool | None]:
    """The checkout's commit and whether its tree differs from it (untracked files too); (None, None) where its
    Cargo.toml is not tracked by the repository around it (outside git, or a copy inside another checkout's ignored
    folder: a --pr snapshot under the suite's target/, whose commit is not the suite's)."""
    if git(where, "ls-files", "--error-unmatch", "Cargo.toml") is None:
        return None, None
    commit = git(where, "rev-parse", "HEAD")
    return (commit, bool(git(where, "status", "--porcelain"))) if commit else (None, None)


def manifest(suite_toml: str, crate: str, pin: str) -> str:
    """The suite's root Cargo.toml with CRATE's [workspace.dependencies] line pinned: `=VERSION`, or a checkout's
    path, patched in for every crate that depends on CRATE too (hyper on tokio), so that one copy of it is built."""
    line = re.compile(rf'^{re.escape(crate)} = (?:"[^"]*"|\{{ version = "[^"]*")', re.M)
    found = line.search(suite_toml)
    if found is None:
        raise BuildRefused(f"the suite's Cargo.toml has no [workspace.dependencies] line for {crate}")
    table = found[0].startswith(f"{crate} = {{")
    if pin.startswith("/"):
        new = f'{crate} = {{ path = "{pin}"' + ("" if table else " }")
        patch = f'\n[patch.crates-io]\n{crate} = {{ path = "{pin}" }}\n'
    else:
        new, patch = (f'{crate} = {{ version = "={pin}"' if table else f'{crate} = "={pin}"'), ""
    return suite_toml[:found.start()] + new + suite_toml[found.end():] + patch


def locked(lock: Path, crate: str) -> str | None:
    """CRATE's version in a Cargo.lock."""
    text = lock.read_text(encoding="utf-8") if lock.is_file() else ""
    found = re.search(rf'^name = "{re.escape(crate)}"\nversion = "([^"]+)"', text, re.M)
    return found[1] if found else None


def why_failed(output: str) -> str:
    """cargo's failure, said plainly: no such release, no registry, or the first compiler error (and where)."""
    lines = output.splitlines()
    if "failed to select a version for the requirement" in output or "no matching package named" in output:
        return "is not a release on the registry"
    network = [line.strip() for line in lines if re.search(r"\[\d+\] |network|Could not resolve|download", line)]
    if network and ("failed to get" in output or "failed to download" in output or "failed to query" in output):
        return f"cannot be fetched: cargo cannot reach the registry ({network[-1]}); a build made once needs it no more"
    first = next((i for i, line in enumerate(lines) if re.match(r"error(\[E\d+\])?: ", line)
                  and not line.startswith("error: could not compile")), None)
    at = next((line.split("-->", 1)[1].strip() for line in lines[first + 1:first + 4] if "-->" in line), "") \
        if first is not None else ""
    if not at:  # not the compiler's: cargo's own last word
        return "failed in cargo: " + (lines[first] if first is not None else next(
            (line for line in reversed(lines) if line.strip()), "no output"))
    whose = "does not build against the suite's seam" if at.startswith("crates/") else "does not build with this rustc"
    return f"{whose}: {lines[first]} ({at})"


def suite_commit(suite: Path) -> str:
    """The commit the copied crates come from, as `make` stamps target/release/suite-commit (the Makefile's
    GIT_COMMIT): HEAD, `-modified` when the Rust sources differ from it."""
    head = git(suite, "rev-parse", "--short=10", "HEAD") or "unknown"
    changed = git(suite, "status", "--porcelain", "--", "crates", "Cargo.toml", "Cargo.lock")
    return head + ("-modified" if changed else "")


def build(suite: Path, entry, version: str, say, profile: Profile = RELEASE) -> dict:
    """Builds (or finds built) the runtime ENTRY (runtimes.json's) against its crate at VERSION (a release, or
    path:DIR) in PROFILE and returns the build's record, its binaries in record["bin_dir"]; or raises BuildRefused.
    `say` prints the one line a build shows, which names a profile other than the measured one."""
    runtime, prefix, crate = entry.label, entry.binary_prefix, entry.crate
    where = folder(suite, runtime, version)
    path = checkout(crate, version.removeprefix("path:")) if version.startswith("path:") else None
    commit, dirty = git_state(path) if path else (None, None)
    where.mkdir(parents=True, exist_ok=True)
    with open(where / ".lock", "w") as held:
        _lock(held, where)
        seed = _workspace(suite, where, prefix, manifest((suite / "Cargo.toml").read_text(encoding="utf-8"), crate,
                                                         str(path) if path else version))
        say(f"building {prefix}-rtt on {crate} {version} in {where}{unmeasured(profile)} (cargo: minutes the first "
            "time, a second once built)")
        started, log = time.monotonic(), where / "build.log"
        log.write_bytes(b"")  # this build's output only: its refusal and `compiled` read it
        cargo = ["--manifest-path", where / "Cargo.toml"]
        code = _cargo(["fetch", *cargo], log)  # resolves and downloads: no such release, or no registry, said here
        # The crates its era had where the suite's lock would give a later one (runtimes.json's pins_below).
        pins = entry.pins(locked(where / "Cargo.lock", crate) or "") if code == 0 else {}
        for name, pinned in pins.items():
            if code == 0 and locked(where / "Cargo.lock", name) != pinned:
                code = _cargo(["update", "-p", name, "--precise", pinned, *cargo], log)
        # -v: the log says why cargo rebuilt a crate ("Dirty ...") or that it was "Fresh".
        if code == 0 and not (where / "target" / profile.name).exists():
            _seed_target(suite, where, runtime, profile.name)
        if code == 0:
            code = _cargo(["build", "-v", "--profile", profile.name, "--bin", f"{prefix}-rtt", "--target-dir",
                           where / "target", *cargo], log)
        output = log.read_text(encoding="utf-8", errors="replace")
        if code == procs.TIMED_OUT:
            raise BuildRefused(f"cargo did not end within {BUILD_LIMIT_S} s (its output: {log})")
        if code != 0:
            raise BuildRefused(f"{crate}@{version} {why_failed(output)} (cargo's output: {log})")
        bin_dir = where / "target" / profile.name
        for role in ROLES:
            link = bin_dir / f"{prefix}-{role}"
            link.unlink(missing_ok=True)
            link.symlink_to(f"{prefix}-rtt")
        (bin_dir / "suite-commit").write_text(suite_commit(suite) + "\n", encoding="utf-8")  # build_info::suite_version
        record = {"runtime": runtime, "crate": crate, "asked": version, "version": locked(where / "Cargo.lock", crate),
                  "path": str(path) if path else None, "commit": commit, "dirty": dirty, "folder": str(where),
                  "bin_dir": str(bin_dir), "compiled": "Compiling " in output,
                  "build_s": round(time.monotonic() - started, 1), "seed_lock": seed, "pins": pins,
                  "profile": profile.name, "measured_profile": profile.measured,
                  "checked_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")}
        (where / "build.json").write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
        return record


def unmeasured(profile: Profile) -> str:
    """What the build line adds for a profile other than the measured one, so that its lines are not read as marks."""
    if profile.measured:
        return ""
    return (f", in cargo's {profile.name} profile (VERSION_PROFILE={profile.name}), not the measured binaries' "
            "release: its lines show that it runs, not how fast")


def _lock(held, where: Path) -> None:
    """One build of a folder at a time: two sweeps (or two test workers) may ask for it at once."""
    deadline = time.monotonic() + LOCK_LIMIT_S
    while True:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > deadline:
                raise BuildRefused(f"{where}/.lock is held by another build for {LOCK_LIMIT_S} s") from None
            time.sleep(0.5)


def shared_crates(suite_toml: str) -> list[str]:
    """The shared crates every runtime's binary may link: the root manifest's path dependencies (rtt-core, rtt-net,
    rtt-micro, rtt-counters), so that a crate added there is copied too."""
    deps = tomllib.loads(suite_toml).get("workspace", {}).get("dependencies", {})
    return [Path(d["path"]).name for d in deps.values() if isinstance(d, dict) and str(d.get("path", "")).startswith("crates/")]


def _workspace(suite: Path, where: Path, prefix: str, toml: str) -> str:
    """The folder's workspace as the suite's crates are now: fresh copies (mtimes kept, so cargo rebuilds only what
    changed), the manifest, and the suite's Cargo.lock as the seed of its own, again only when the suite's changed
    since (rewriting it would rebuild rtt-core, whose build.rs reads it). The seed's hash."""
    for name in (f"{prefix}-rtt", *shared_crates(toml)):
        shutil.rmtree(where / "crates" / name, ignore_errors=True)
        shutil.copytree(suite / "crates" / name, where / "crates" / name)
    if not (where / "Cargo.toml").is_file() or (where / "Cargo.toml").read_text(encoding="utf-8") != toml:
        (where / "Cargo.toml").write_text(toml, encoding="utf-8")
    seed = hashlib.sha256((suite / "Cargo.lock").read_bytes()).hexdigest()
    if _record(where).get("seed_lock") != seed or not (where / "Cargo.lock").is_file():
        shutil.copy2(suite / "Cargo.lock", where / "Cargo.lock")
    return seed


def _seed_target(suite: Path, where: Path, runtime: str, profile: str) -> None:
    """A first build in PROFILE starts from a copy of another build's target/PROFILE (the newest of the same runtime,
    else the newest), so that cargo compiles only the crates whose version, source or features differ (its
    fingerprints say which). The very first one starts from the suite's own compiled registry crates of that profile
    (`make`'s release, `make test`'s harness) that its lock holds too (not the suite's own crates, which cargo rebuilds
    from their copies anyway). Cargo reuses nothing across profiles: their folders differ."""
    built = sorted((p.parent / "target" / profile for p in where.parent.glob("*/build.json")
                    if p.parent != where and (p.parent / "target" / profile).is_dir()),
                   key=lambda p: (p.parents[1].name.startswith(f"{runtime}@"), p.stat().st_mtime))
    if built:
        shutil.copytree(built[-1], where / "target" / profile, symlinks=True)
        return
    ours = _registry_crates(where / "Cargo.lock")
    for part in ("deps", "build", ".fingerprint"):
        source, copy = suite / "target" / profile / part, where / "target" / profile / part
        copy.mkdir(parents=True, exist_ok=True)
        for item in source.iterdir() if source.is_dir() else ():
            if _crate_of(item.name, part) in ours:
                (shutil.copytree if item.is_dir() else shutil.copy2)(item, copy / item.name)


def _registry_crates(lock: Path) -> set[str]:
    """The registry crates of a Cargo.lock, named as cargo names their files (`-` as `_`)."""
    text = lock.read_text(encoding="utf-8") if lock.is_file() else ""
    return {m[1].replace("-", "_") for m in re.finditer(r'^name = "([^"]+)"\nversion = "[^"]+"\nsource = "registry', text,
                                                         re.M)}


def _crate_of(name: str, part: str) -> str:
    """The crate a file of target/release/PART is of: deps/libtokio-HASH.rlib, deps/tokio-HASH.d, build/tokio-HASH/,
    .fingerprint/tokio-HASH/ → tokio."""
    stem = name.rsplit("-", 1)[0]
    if part == "deps" and not name.endswith(".d"):
        stem = stem.removeprefix("lib")
    return stem.replace("-", "_")


def _cargo(args: list, log: Path) -> int:
    """cargo ARGS, its output appended to LOG, within BUILD_LIMIT_S: its exit status (procs.TIMED_OUT)."""
    try:
        with open(log, "ab") as out:
            return procs.run(["cargo", *args], out, subprocess.STDOUT, BUILD_LIMIT_S)
    except OSError as error:
        raise BuildRefused(f"cargo, which builds a version, cannot start: {error} (rustup.rs installs it)") from None


def _record(where: Path) -> dict:
    """The folder's last build record, or {}."""
    try:
        return json.loads((where / "build.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
