"""The pull-request fixture (tests/pr_fixture.py) is what it says: the same commits every time, `slow` touching only
TcpStream's read and `same` only a comment (tests/test_pr_sweep.py checks that a real --pr check calls `slow` slower
over TCP and not over UDP)."""

import subprocess

import pytest

import pr_fixture

@pytest.fixture(scope="module")
def fixture(tmp_path_factory):
    return pr_fixture.make(tmp_path_factory.mktemp("pr-fixture") / "repo")


def git(fixture, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(fixture.repo), *args], check=True, capture_output=True, text=True,
                          timeout=60)
    return done.stdout


def test_the_fixture_makes_the_same_commits_every_time(fixture, tmp_path):
    again = pr_fixture.make(tmp_path / "again")
    assert (again.base, again.slow, again.same) == (fixture.base, fixture.slow, fixture.same)
    assert git(fixture, "rev-parse", "main", "slow", "same").split() == [fixture.base, fixture.slow, fixture.same]
    assert git(fixture, "status", "--porcelain") == ""


def test_base_is_the_registry_s_source_and_a_crate_a_path_variant_can_build(fixture):
    from sweepkit import versions

    source = pr_fixture.registry_source(fixture.version)
    files = set(git(fixture, "ls-files").split())
    assert files == {str(p.relative_to(source)) for p in source.rglob("*") if p.is_file() and p.name != ".cargo-ok"}
    assert versions.checkout("tokio", str(fixture.repo)) == fixture.repo


def test_slow_changes_only_tcp_s_read_and_same_only_a_comment(fixture):
    assert git(fixture, "diff", "--name-only", fixture.base, fixture.slow).split() == [pr_fixture.TCP_READ]
    assert "fn poll_read_priv(" in git(fixture, "diff", "-U8", fixture.base, fixture.slow)
    same = git(fixture, "diff", "-U0", fixture.base, fixture.same).splitlines()
    added = [line[1:] for line in same if line.startswith("+") and not line.startswith("+++")]
    assert not [line for line in same if line.startswith("-") and not line.startswith("---")]
    assert added and all(line == "" or line.startswith("//") for line in added), added
