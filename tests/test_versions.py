"""A runtime against itself: version variants (tokio-old=tokio@1.38.0, tokio@path:DIR) built into target/versions/, run
beside today's, reused, recorded, and refused in one line: real cargo builds and real tiny sweeps.

A build takes minutes, so a session builds one version, the oldest tokio the seam takes unchanged, in the tests'
lighter profile (VERSION_PROFILE=harness: it runs, but is no measurement), and a second finds it built. The tests that
compile another version run only with RTT_TEST_VERSION_BUILDS=all, which keeps `make test` on a fresh clone within its
budget.
"""

import hashlib
import csv
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_helpers import REPO, load_json, require_binaries, run_script, sweep_dir

SCRIPT = "run-localhost.sh"
OLD = "1.38.0"  # the oldest tokio the runtime crates build against unchanged (docs/sweeps.md, "Versions")
TINY = {"REPEATS": "2", "DURATION": "0.05", "WARMUP": "0.05", "INTERVALS": "0", "PROTOCOLS": "tcp"}
LIGHT = {"VERSION_PROFILE": "harness"}  # a version built to run, not to be measured: no LTO, unoptimised
BUILD_S = 1500  # a cold build with the other tests running beside it; every wait has a deadline
VERSIONS = REPO / "target" / "versions"
BUILT = VERSIONS / f"tokio@{OLD}"
more_builds = pytest.mark.skipif(os.environ.get("RTT_TEST_VERSION_BUILDS") != "all",
                                 reason="compiles a second version (minutes cold): RTT_TEST_VERSION_BUILDS=all")


def locked(lock: Path) -> dict[str, str]:
    """name → version of every package of a Cargo.lock, the last one of a name that has two."""
    return dict(re.findall(r'^name = "([^"]+)"\nversion = "([^"]+)"', lock.read_text(), re.M))


def fingerprint(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def sweep(tmp_path, name, variants, flags=("-S",), **knobs):
    """A tiny sweep with VARIANTS, its versions built in the lighter profile; its run, sweep.json and folder."""
    out = tmp_path / name
    run = run_script(SCRIPT, list(flags), out, timeout=BUILD_S, VARIANTS=variants, **TINY | LIGHT | knobs)
    assert run.rc == 0, run.output
    folder = sweep_dir(out)
    return run, load_json(folder / "sweep.json"), folder


def test_a_base_at_a_version_starts_a_variant_with_or_without_arguments():
    from sweepkit import variants, versions

    problems = []
    old, mine, ct = variants.parse("tokio-1.38=tokio@1.38.0 tokio-mine=tokio@path:../tokio "
                                   "tokio-ct=tokio@1.38:--flavor current_thread", problems)
    assert problems == []
    assert [(v.label, v.base, v.version, v.args) for v in (old, mine, ct)] == [
        ("tokio-1.38", "tokio", "1.38.0", ()), ("tokio-mine", "tokio", "path:../tokio", ()),
        ("tokio-ct", "tokio", "1.38", ("--flavor", "current_thread"))]
    built = variants.Variant("a", "smol", (), None, "1.2.5", {"bin_dir": "/v/smol@1.2.5/target/release"})
    assert built.bin_dir == "/v/smol@1.2.5/target/release" and old.bin_dir is None
    assert variants.from_records([built.record(), old.record()]) == [built, old]
    assert "version" not in variants.parse("t=tokio:--threads 1", [])[0].record()  # a sweep.json as before
    # The suite's Cargo.toml with only the crate's line pinned, whichever way it is written.
    toml = 'tokio = { version = "1.47", features = ["rt"] }\nsmol = "2"\n[profile.release]\nlto = "thin"\n'
    assert versions.manifest(toml, "tokio", "1.38.0").startswith('tokio = { version = "=1.38.0", features = ["rt"] }\n'
                                                                 'smol = "2"\n')
    assert versions.manifest(toml, "smol", "1.2.5").splitlines()[1] == 'smol = "=1.2.5"'
    pinned = versions.manifest(toml, "smol", "/src/smol")
    assert pinned.splitlines()[1] == 'smol = { path = "/src/smol" }'
    assert pinned.endswith('[patch.crates-io]\nsmol = { path = "/src/smol" }\n')


def test_a_version_is_built_in_the_measured_profile_unless_asked_and_a_lighter_one_is_said():
    from sweepkit import knobs, versions

    given = {"VARIANTS": f"tokio-old=tokio@{OLD}"}
    default = knobs.check(given, "t")
    assert (default.errors, default.warnings) == ([], [])
    assert default.spec().version_profile == versions.RELEASE and versions.RELEASE.measured
    light = knobs.check(given | LIGHT, "t")
    assert light.errors == [] and light.spec().version_profile == versions.PROFILES["harness"]
    assert light.warnings == ["VERSION_PROFILE=harness: the version variants (tokio-old) are built in cargo's harness "
                              "profile, not the measured binaries' release: their lines show that they run, not how fast"]
    assert knobs.check(LIGHT, "t").warnings == []  # no version variant: nothing to say
    assert knobs.check(given | {"VERSION_PROFILE": "dev"}, "t").errors == [
        "VERSION_PROFILE='dev': expected release (the profile the binaries are measured in) or harness (the tests': "
        "unoptimised, a version variant built only to see it run)"]
    assert versions.unmeasured(versions.RELEASE) == ""


@pytest.fixture(scope="module")
def older(tmp_path_factory):
    """std, tokio and tokio at OLD from the registry, one sweep; the workspace's lock and tokio binary as they were."""
    require_binaries("std", "tokio")
    lock, binary = REPO / "Cargo.lock", REPO / "target" / "release" / "tokio-rtt"
    before = fingerprint(lock), binary.stat().st_mtime_ns
    run, record, folder = sweep(tmp_path_factory.mktemp("older"), "first", f"tokio-old=tokio@{OLD}", ("-St",))
    assert (fingerprint(lock), binary.stat().st_mtime_ns) == before, "the workspace's lock or target/release moved"
    return run, record, folder


def test_a_sweep_of_std_tokio_and_an_older_tokio_runs_all_three_and_the_logs_name_both_versions(older):
    run, record, folder = older
    today = locked(REPO / "Cargo.lock")["tokio"]
    assert today != OLD
    built = [line for line in run.stdout if "building tokio-rtt on tokio" in line]
    assert len(built) == 1 and f"VARIANTS: tokio-old=tokio@{OLD}:" in built[0], run.output
    # Built in the lighter profile, and said so where it is printed and recorded.
    assert "in cargo's harness profile (VERSION_PROFILE=harness), not the measured binaries' release" in built[0]
    assert "warning: VERSION_PROFILE=harness: the version variants (tokio-old) are built in" in run.stderr
    (variant,) = record["variants"]
    assert (variant["label"], variant["base"], variant["version"], variant["args"]) == ("tokio-old", "tokio", OLD, [])
    build = variant["build"]
    assert (build["crate"], build["asked"], build["version"], build["path"]) == ("tokio", OLD, OLD, None)
    assert (build["profile"], build["measured_profile"]) == ("harness", False)
    assert build["bin_dir"] == str(BUILT / "target" / "harness")
    assert "Finished `harness` profile" in (BUILT / "build.log").read_text()
    assert load_json(BUILT / "build.json")["version"] == OLD  # the record in its folder
    logs = {label: load_json(folder / f"{label}-tcp-64B-0s-0t-r1.json") for label in ("std", "tokio", "tokio-old")}
    assert [(log["framework"], log["variant"]) for log in logs.values()] == [
        ("std", None), ("tokio", None), ("tokio", "tokio-old")]
    assert (logs["tokio"]["framework_version"], logs["tokio-old"]["framework_version"]) == (today, OLD)
    assert "git unknown" not in logs["tokio-old"]["suite_version"]  # the stamp beside its binaries
    assert all(p["status"] == "ok" for p in record["points"])
    # Every other crate at the workspace's versions: the version's lock was seeded from it.
    theirs, ours = locked(BUILT / "Cargo.lock"), locked(REPO / "Cargo.lock")
    assert theirs["tokio"] == OLD and all(theirs[name] == ours[name] for name in ("clap", "hyper", "serde", "anyhow"))
    # The table's footnote says which tokio each line ran.
    assert f"tokio-old: tokio {OLD} (the tokio line's: {today}), with the same runtime_config" in run.output
    # ... and the Δ between the two tokios, paired by round as the Δ vs std is.
    table = subprocess.run([str(REPO / ".venv" / "bin" / "python"), str(REPO / "parse.py"), "table", "-d", str(folder),
                            "--format", "csv"], capture_output=True, text=True, timeout=120)
    rows = {r["framework"]: r for r in csv.DictReader(io.StringIO(table.stdout))}
    assert rows["tokio-old"]["delta_base_p50_ns"] and rows["tokio-old"]["verdict_base"], table.stdout
    assert rows["tokio"]["verdict_base"] == "" and "Δp50 vs base µs [CI]" in run.output


def test_a_second_sweep_finds_the_version_built_and_compiles_nothing(older, tmp_path):
    run, record, _ = sweep(tmp_path, "second", f"tokio-old=tokio@{OLD}:--flavor current_thread", ("-t",))
    build = record["variants"][0]["build"]
    assert build["compiled"] is False, (BUILT / "build.log").read_text()
    assert "Compiling" not in (BUILT / "build.log").read_text()
    assert record["variants"][0]["args"] == ["--flavor", "current_thread"]
    log = load_json(sweep_dir(tmp_path / "second") / "tokio-old-tcp-64B-0s-0t-r1.json")
    assert (log["framework_version"], log["flavor"]) == (OLD, "current_thread")


def refused(tmp_path, variants, **knobs):
    """A sweep that must stop before it starts: its stderr's lines (but LIGHT's warning), with nothing written to
    OUT_DIR."""
    out = tmp_path / "out"
    run = run_script(SCRIPT, ["-S"], out, timeout=BUILD_S, VARIANTS=variants, **TINY | knobs)
    assert run.rc == 2, run.output
    assert not out.exists() or not any(out.iterdir()), "a sweep folder was made"
    lines = [line for line in run.stderr.strip().splitlines() if ": warning: VERSION_PROFILE=" not in line]
    assert lines[-1] == "Nothing was started.", run.stderr
    return lines[:-1]


@pytest.mark.parametrize("variants, said", [
    ("x=tokio@1.99.99", "tokio@1.99.99 is not a release on the registry"),
    ("x=std@1.0.0", "std is built on no crate of its own"),
    ("x=busy-poll@1.0.0", "'busy-poll' is not a runtime"),
    ("x=ping@1.0.0", "'ping' is not a runtime"),
    ("x=tokio@one", "'one' is not a release number"),
])
def test_a_version_that_cannot_be_had_is_refused_in_one_line(tmp_path, variants, said):
    (line,) = refused(tmp_path, variants)
    assert line.startswith(f"run-localhost.sh: VARIANTS: {variants}: ") and said in line, line


def test_a_folder_that_is_not_a_checkout_of_the_crate_is_refused(tmp_path):
    (tmp_path / "smol").mkdir()
    (tmp_path / "smol" / "Cargo.toml").write_text('[package]\nname = "smol"\nversion = "2.0.0"\n')
    (line,) = refused(tmp_path, f"x=tokio@path:{tmp_path}")
    assert f"{tmp_path} is not a checkout of the crate tokio" in line


def test_no_registry_is_said_plainly(tmp_path):
    """A release never fetched, with cargo's proxy a closed port of loopback: cargo's error, in one line."""
    (line,) = refused(tmp_path, "x=tokio@1.36.0", CARGO_HTTP_PROXY="http://127.0.0.1:9")
    assert "tokio@1.36.0 cannot be fetched: cargo cannot reach the registry (" in line and "127.0.0.1" in line, line


@more_builds
def test_a_release_the_seam_cannot_compile_against_is_refused_naming_the_api(older, tmp_path):
    """tokio 1.37, the release before the oldest the seam takes: its Runtime has no metrics() yet."""
    (line,) = refused(tmp_path, "x=tokio@1.37.0", **LIGHT)
    assert ("tokio@1.37.0 does not build against the suite's seam: error[E0599]: no method named `metrics` found "
            "for struct `tokio::runtime::Runtime`") in line and "(crates/tokio-rtt/src/lib.rs:" in line, line


def test_across_two_hosts_a_version_variant_is_refused(tmp_path):
    """Host B would need the same build: run-network.sh refuses it rather than run B's today's binaries under it."""
    out = tmp_path / "out"
    run = run_script("run-network.sh", ["--peer", "127.0.0.1", "-S"], out, timeout=60, VARIANTS=f"x=tokio@{OLD}",
                     BASE_PORT="9701")
    assert run.rc == 2 and not out.exists(), run.output
    assert run.stderr.splitlines() == [f"run-network.sh: VARIANTS: x=tokio@{OLD}: a version variant runs on one host: "
                                       "use ./run-localhost.sh", "Nothing was started."]


@pytest.fixture(scope="module")
def checkout():
    """The suite's own tokio, unpacked from cargo's registry into a git repository of one commit, at a path that
    stays the same from one session to the next (so that its build is found again)."""
    version = locked(REPO / "Cargo.lock")["tokio"]
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    sources = sorted(home.glob(f"registry/src/*/tokio-{version}"))
    assert sources, f"no tokio-{version} under {home}/registry/src: `make` unpacks it"
    where = REPO / "target" / "tmp" / "version-tests" / "tokio"
    shutil.rmtree(where, ignore_errors=True)
    shutil.copytree(sources[0], where)  # mtimes kept: a build made from it before is still fresh
    git = ["git", "-C", str(where), "-c", "user.name=test", "-c", "user.email=test@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "tokio as released"]):
        subprocess.run([*git, *args], check=True, capture_output=True, timeout=60)
    head = subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True, text=True, timeout=60)
    return where, version, head.stdout.strip()


@more_builds
def test_a_local_checkout_is_built_with_its_commit_and_whether_its_tree_was_dirty(older, checkout, tmp_path):
    where, version, commit = checkout
    _, record, folder = sweep(tmp_path, "clean", f"tokio-mine=tokio@path:{where}")
    build = record["variants"][0]["build"]
    assert (build["path"], build["version"], build["commit"], build["dirty"]) == (str(where), version, commit, False)
    assert Path(build["folder"]).parent == VERSIONS and Path(build["folder"]).name.startswith("tokio@path-")
    assert load_json(folder / "tokio-mine-tcp-64B-0s-0t-r1.json")["framework_version"] == version
    lock = (Path(build["folder"]) / "Cargo.lock").read_text()
    assert lock.count('name = "tokio"\n') == 1, "hyper's tokio is the checkout too"
    (where / "NOTES.md").write_text("a file the commit does not have\n")
    _, record, _ = sweep(tmp_path, "dirty", f"tokio-mine=tokio@path:{where}")
    build = record["variants"][0]["build"]
    assert (build["commit"], build["dirty"], build["compiled"]) == (commit, True, False)


def test_an_older_async_std_keeps_the_executor_of_its_era_and_a_newer_one_the_suite_s():
    from suite import runtimes

    async_std = runtimes.by_label("async-std")
    # Before 1.13 async-std ran on async-io 1; async-global-executor 2.4 on async-io 2: both in one process would
    # be two reactors, an extra thread and a hand-off a message.
    assert async_std.pins("1.11.0") == async_std.pins("1.12") == {"async-global-executor": "2.3.1"}
    assert async_std.pins("1.13.0") == async_std.pins("1.13.2") == {} == runtimes.by_label("tokio").pins("1.38.0")


@more_builds
def test_async_std_1_11_builds_on_one_reactor(tmp_path):
    _, record, folder = sweep(tmp_path, "era", "async-std-1.11=async-std@1.11.0", ("-Sa",))
    build = record["variants"][0]["build"]
    assert build["pins"] == {"async-global-executor": "2.3.1"}, build
    lock = (Path(build["folder"]) / "Cargo.lock").read_text()
    assert lock.count('name = "async-io"\n') == 1 and 'name = "async-io"\nversion = "1.' in lock
    assert load_json(folder / "async-std-1.11-tcp-64B-0s-0t-r1.json")["framework_version"] == "1.11.0"


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-n", "0", "-v"]))
