"""run-localhost.sh --pr: bad SPECs refused naming what is wrong, the plan of a check, and its checkout left as it was."""

import os
import subprocess

import pytest

from sweep_helpers import REPO, run_script

# Fixed dates, so that the stand-in repository's commits, and the snapshots under target/checkouts, are the same
# every run.
DATES = {"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
         "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t",
         "GIT_COMMITTER_EMAIL": "t@example.org"}


def git(where, *args) -> str:
    done = subprocess.run(["git", "-C", str(where), *args], capture_output=True, text=True, timeout=30,
                          env=os.environ | DATES, check=True)
    return done.stdout.strip()


@pytest.fixture(scope="module")
def checkout(tmp_path_factory):
    """A git repository whose two commits hold a crate named tokio (a stand-in: a dry run builds nothing)."""
    where = tmp_path_factory.mktemp("tokio")
    git(where, "init", "-q", "-b", "main")
    (where / "Cargo.toml").write_text('[package]\nname = "tokio"\nversion = "1.54.1"\n')
    git(where, "add", "-A")
    git(where, "commit", "-qm", "base")
    (where / "README.md").write_text("a change the compiler never sees\n")
    git(where, "add", "-A")
    git(where, "commit", "-qm", "head")
    return where


def pr(out_dir, spec, *flags, **knobs):
    return run_script("run-localhost.sh", ["--pr", spec, *flags], out_dir, timeout=60, **knobs)


@pytest.mark.parametrize("spec, said", [
    ("tokio", "expected RUNTIME@path:DIR:BASE..HEAD"),
    ("tokio@1.38.0", "expected RUNTIME@path:DIR:BASE..HEAD"),
    ("tokio@path:{dir}", "no DIR before ':BASE..HEAD'"),
    ("tokio@path:{dir}:HEAD", "'HEAD' is not BASE..HEAD"),
    ("tokio@path:{dir}:main..", "is not BASE..HEAD"),
    ("std@path:{dir}:HEAD~1..HEAD", "'std' is not a runtime built from a crate: one of tokio"),
    ("nosuch@path:{dir}:HEAD~1..HEAD", "'nosuch' is not a runtime built from a crate"),
    ("tokio@path:{dir}/absent:HEAD~1..HEAD", "absent is not a folder"),
    ("tokio@path:/:HEAD~1..HEAD", "/ is not a git checkout"),
    ("tokio@path:{dir}:v9..HEAD", "'v9' is not a commit of"),
    ("smol@path:{dir}:HEAD~1..HEAD", "holds no crate smol"),
])
def test_a_bad_spec_exits_2_naming_what_is_wrong(tmp_path, checkout, spec, said):
    run = pr(tmp_path, spec.format(dir=checkout))
    assert run.rc == 2 and said in run.output and "Nothing was started." in run.output, run.output
    assert not list(tmp_path.iterdir())  # no sweep folder


def test_a_check_makes_its_own_lines_and_refuses_variants_beside_them(tmp_path, checkout):
    run = pr(tmp_path, f"tokio@path:{checkout}:HEAD~1..HEAD", VARIANTS="tokio-ct=tokio:--flavor current_thread")
    assert run.rc == 2 and "--pr makes the sweep's two lines itself: unset VARIANTS" in run.output, run.output


def test_a_check_runs_on_one_host(tmp_path, checkout):
    run = run_script("run-network.sh", ["--remote", "user@hostb", "-S"], tmp_path, timeout=60,
                     PR=f"tokio@path:{checkout}:HEAD~1..HEAD")
    assert run.rc == 2 and "a pull-request check runs on one host" in run.output, run.output


def test_the_plan_names_both_commits_and_holds_the_error_over_the_default_checks_16_comparisons(tmp_path, checkout):
    before = (git(checkout, "worktree", "list"), git(checkout, "status", "--porcelain"), git(checkout, "branch", "-a"))
    run = pr(tmp_path, f"tokio@path:{checkout}:main~1..main", "-t", DRY_RUN="1", REPEATS="", PROBED="",
             DURATION="", WARMUP="")  # the check's defaults, not the tests' short runs
    assert run.rc == 0, run.output
    head, base = git(checkout, "rev-parse", "main"), git(checkout, "rev-parse", "main~1")
    assert f"tokio-head = main ({head[:12]}), tokio-base = main~1 ({base[:12]})" in run.output
    # -t asked for tokio too; std, the reference, is added: three lines at 2 transports × 2 rates × 2 decoy counts.
    assert "Plan: 32 points" in run.output and "BUDGET=4m" in run.output
    assert "16 comparisons (Bonferroni: each spends α = 0.00313" in run.output, run.output
    for side in (head, base):  # each commit's tree, taken without touching the checkout
        assert (REPO / "target" / "checkouts" / f"tokio@{side[:12]}" / "Cargo.toml").is_file()
    assert (git(checkout, "worktree", "list"), git(checkout, "status", "--porcelain"),
            git(checkout, "branch", "-a")) == before
