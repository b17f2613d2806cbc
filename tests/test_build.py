"""The build: a build with nothing to do compiles nothing (kotlin-micro: runs no Maven), make goes on without
java or mvn, and the binaries name the commit `make` stamped.

The commit is read at start from target/release/suite-commit rather than compiled in, so a commit
that changes no Rust source rebuilds no crate (issue: every `make` used to relink everything).
"""

import json
import os
import subprocess

import pytest

from sweep_helpers import BIN_DIR, REPO, require_binaries

CARGO_BUILD = ["cargo", "build", "--release", "--workspace", "--bins", "--message-format=json"]


def rebuilt_units():
    """The workspace units `cargo build` compiled or linked again (those it did not find fresh)."""
    out = subprocess.run(CARGO_BUILD, cwd=REPO, capture_output=True, text=True, timeout=900, check=True)
    messages = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    artifacts = [m for m in messages if m.get("reason") == "compiler-artifact"]
    assert artifacts, f"cargo reported no artifacts: {out.stderr[-2000:]}"
    return [a["target"]["name"] for a in artifacts if not a["fresh"]]


def test_a_second_build_compiles_nothing():
    rebuilt_units()  # brings the tree up to date, if it was not
    assert rebuilt_units() == []


def test_make_stamps_the_commit_and_every_binary_names_it():
    require_binaries("std", "tokio")
    subprocess.run(["make", "--no-print-directory", "build"], cwd=REPO, capture_output=True, timeout=900,
                   check=True)
    head = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=REPO, capture_output=True, text=True,
                          check=True).stdout.strip()
    stamp = (BIN_DIR / "suite-commit").read_text().strip()
    assert stamp in (head, f"{head}-modified")
    for binary in ("std-ping", "tokio-pong", "tokio-micro"):
        version = subprocess.run([BIN_DIR / binary, "--version"], capture_output=True, text=True, timeout=10,
                                 check=True).stdout.strip()
        assert version.endswith(f"(git {stamp})"), version


def test_a_binary_without_a_current_stamp_says_its_commit_is_unknown(tmp_path):
    require_binaries("std")
    binary = tmp_path / "std-ping"
    binary.write_bytes((BIN_DIR / "std-ping").read_bytes())
    binary.chmod(0o755)

    def version():
        return subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=10,
                              check=True).stdout.strip()

    assert version().endswith("(git unknown)")
    stamp = tmp_path / "suite-commit"
    stamp.write_text("0123456789\n")
    assert version().endswith("(git 0123456789)")
    # Relinked after the stamp was written (a plain `cargo build`): the stamp may name another commit.
    mtime = binary.stat().st_mtime
    os.utime(stamp, (mtime - 60, mtime - 60))
    assert version().endswith("(git unknown)")


def kotlin_built():
    """Fails (never skips) without kotlin-micro: `make` builds it where java and mvn are installed."""
    if not (BIN_DIR / "kotlin-micro").is_file():
        pytest.fail(f"missing {BIN_DIR / 'kotlin-micro'}: run `make` first (it needs java and mvn)")


def test_make_kotlin_micro_with_nothing_to_do_runs_no_maven():
    kotlin_built()
    run = subprocess.run(["make", "--no-print-directory", "kotlin-micro", "MVN=false"], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == "" and run.stderr == "", run.stdout + run.stderr


def test_make_without_maven_says_so_in_one_line_and_goes_on():
    run = subprocess.run(["make", "--no-print-directory", "kotlin-micro", "MVN=no-such-mvn"], cwd=REPO,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["note: no java or no mvn (Debian: default-jdk-headless, maven): "
                                       "target/release/kotlin-micro (the Kotlin reference) is not built"]


def test_the_kotlin_launcher_names_the_stamped_commit_wherever_it_is_linked_from(tmp_path):
    kotlin_built()
    (tmp_path / "bin").mkdir()
    for name in ("kotlin-micro", "kotlin-micro.jar"):
        (tmp_path / name).write_bytes((BIN_DIR / name).read_bytes())
    (tmp_path / "kotlin-micro").chmod(0o755)
    (tmp_path / "bin" / "kotlin-micro").symlink_to(tmp_path / "kotlin-micro")

    def version():
        return subprocess.run([tmp_path / "bin" / "kotlin-micro", "--version"], capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()

    assert version().endswith("(git unknown)")
    (tmp_path / "suite-commit").write_text("0123456789\n")
    assert version().startswith("kotlin-micro 0.") and version().endswith("(git 0123456789)")
