"""scripts/sweep-lib.sh on its own: the quoting of remote commands, read back by sh and dash, and the
refusal of a bash older than the scripts need. No binary, no network."""

import shutil
import subprocess

import pytest

from sweep_helpers import REPO

LIB = REPO / "scripts" / "sweep-lib.sh"
AWKWARD = ["plain", "two words", "it's", "'", "''", '"double"', "$HOME", "$(echo no)", "`echo no`",
           "back\\slash", "\\'", "", "*", "~", "a;b|c&d", "tab\there", "new\nline", "-n", "%s", "!x"]
POSIX_SHELLS = [sh for sh in ("sh", "dash", "bash") if shutil.which(sh)]


def quoted(*args):
    """sh_quote's output for `args`."""
    run = subprocess.run(["bash", "-c", f'PROG=test; source "{LIB}"; sh_quote "$@"', "bash", *args],
                         capture_output=True, text=True, check=True)
    return run.stdout


@pytest.mark.parametrize("shell", POSIX_SHELLS)
def test_a_quoted_command_line_gives_every_argument_back_unchanged(shell):
    line = quoted(*AWKWARD)
    # The receiving shell prints each argument it got between markers, NUL-separated.
    run = subprocess.run([shell, "-c", f"for a in {line}; do printf '[%s]\\0' \"$a\"; done"],
                         capture_output=True, text=True, check=True)
    assert run.stdout.split("\0")[:-1] == [f"[{a}]" for a in AWKWARD]


def test_dash_is_among_the_shells_tried():
    if not shutil.which("dash"):
        pytest.skip("no dash here (Debian: apt-get install dash)")
    assert "dash" in POSIX_SHELLS


def test_a_quoted_command_runs_as_one_command_remotely():
    # As ssh sends it: one string for the login shell's -c.
    line = quoted("printf", "%s|", "a b", "it's $HOME")
    run = subprocess.run(["sh", "-c", line], capture_output=True, text=True, check=True)
    assert run.stdout == "a b|it's $HOME|"


@pytest.mark.parametrize("version", ["4.4.20(1)-release", "5.0.17(1)-release", "3.2.57(1)-release"])
def test_an_old_bash_is_refused_with_one_line(version):
    # BASH_VERSION is what the check reads; a real old bash sets it the same way.
    run = subprocess.run(["bash", "-c", f'BASH_VERSION="{version}"; PROG=run-x.sh; source "{LIB}"; echo past'],
                         capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"run-x.sh: needs bash 5.1 or newer (for wait -n -p); this is bash {version}\n"


def test_this_bash_is_new_enough():
    run = subprocess.run(["bash", "-c", f'PROG=run-x.sh; source "{LIB}"; echo past'], capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout == "past\n", run.stderr
