"""What the sweep hands to shells: the remote pong's command line, read back by sh, dash and bash with
awkward arguments, and how that remote shell stops its pong; and the two scripts' hand-over to Python
(no python3, an old one). No binary, no network."""

import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time

import pytest

from sweep_helpers import REPO

from sweepkit import commands  # noqa: E402

AWKWARD = ["plain", "two words", "it's", "'", "''", '"double"', "$HOME", "$(echo no)", "`echo no`",
           "back\\slash", "\\'", "", "*", "~", "a;b|c&d", "tab\there", "new\nline", "-n", "%s", "!x"]
POSIX_SHELLS = [sh for sh in ("sh", "dash", "bash") if shutil.which(sh)]
PID_LINE = re.compile(r"pid [0-9]+\n")


def remote_shell(shell, folder, argv, stdin="stop\n"):
    """Runs the remote pong's command as B's login shell would (one string for -c), `argv` as the pong."""
    return subprocess.run([shell, "-c", commands.remote_pong(str(folder), argv)], input=stdin,
                          capture_output=True, text=True, timeout=20)


def output_until(proc, marker: bytes, timeout_s: float = 10) -> bytes:
    """What a process prints until `marker` (or EOF, or the deadline)."""
    data, deadline = b"", time.monotonic() + timeout_s
    while marker not in data and time.monotonic() < deadline:
        if select.select([proc.stdout], [], [], deadline - time.monotonic())[0]:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            data += chunk
    return data


@pytest.mark.parametrize("shell", POSIX_SHELLS)
def test_the_remote_command_gives_every_argument_back_unchanged(shell, tmp_path):
    folder = tmp_path / "it's a $dir"
    folder.mkdir()
    # The "pong" prints where it runs and each argument it got between markers, NUL-separated; the
    # line that stops it comes once it has.
    argv = ["sh", "-c", 'pwd; printf "[%s]\\0" "$@"', "sh", *AWKWARD]
    proc = subprocess.Popen([shell, "-c", commands.remote_pong(str(folder), argv)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE)
    out = output_until(proc, f"[{AWKWARD[-1]}]\0".encode())
    with contextlib.suppress(BrokenPipeError):  # this pong ends by itself, and the shell with it, maybe first
        proc.stdin.write(b"stop\n")
        proc.stdin.close()
    out += proc.stdout.read()
    proc.wait(timeout=10)  # 0, or 143 when its pong had not ended yet: the shell kills it
    out = PID_LINE.sub("", out.decode(), count=1)
    where, args = out.split("\n", 1)
    assert where == str(folder)
    assert args.split("\0")[:-1] == [f"[{a}]" for a in AWKWARD]


def test_dash_is_among_the_shells_tried():
    if not shutil.which("dash"):
        pytest.skip("no dash here (Debian: apt-get install dash)")
    assert "dash" in POSIX_SHELLS


@pytest.mark.parametrize("stdin", ["stop\n", ""], ids=["a line", "EOF"])
def test_the_remote_shell_stops_its_pong_on_a_line_or_at_eof(tmp_path, stdin):
    run = remote_shell("sh", tmp_path, ["sleep", "600"], stdin=stdin)
    assert run.returncode == 128 + signal.SIGTERM, run  # the shell's wait: its pong ended by the shell's kill
    assert PID_LINE.fullmatch(run.stdout), run.stdout
    pid = int(run.stdout.split()[1])
    assert not os.path.exists(f"/proc/{pid}"), "the pong outlived its remote shell"


def test_a_missing_folder_on_the_remote_host_ends_with_97(tmp_path):
    run = remote_shell("sh", tmp_path / "none", ["true"])
    assert run.returncode == 97 and run.stdout == ""


@pytest.mark.parametrize("script", ["run-localhost.sh", "run-network.sh"])
def test_without_python3_a_script_says_so_in_one_line(tmp_path, script):
    tools = tmp_path / "bin"
    tools.mkdir()
    for tool in ("bash", "dirname"):
        (tools / tool).symlink_to(shutil.which(tool))
    run = subprocess.run([str(REPO / script), "-S"], env={"PATH": str(tools)}, capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == f"{script}: needs python3 (3.11 or newer; the standard library is enough)\n"


def test_an_old_python_is_refused_with_one_line(tmp_path):
    # sweep.py reads sys.version_info; a real Python 3.10 sets it the same way.
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\nsys.version_info = (3, 10, 12, 'final', 0)\nsys.version = '3.10.12 (fake)'\n")
    run = subprocess.run([sys.executable, str(REPO / "sweep.py"), "localhost", "run-x.sh", "-S"],
                         env=dict(os.environ, PYTHONPATH=str(tmp_path)), capture_output=True, text=True)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr == "run-x.sh: needs Python 3.11 or newer; this is 3.10.12\n"


def test_this_python_is_new_enough(tmp_path):
    run = subprocess.run([str(REPO / "run-localhost.sh"), "-h"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 0 and run.stdout.startswith("Usage: run-localhost.sh "), run.stderr
