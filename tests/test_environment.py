"""`make` sets up .venv/ with whatever python3 there is, and parse.py finds it from any python3."""

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
MAKE = shutil.which("make")


def fake_python(root: Path, marker: bool = True, ensurepip: bool = True) -> Path:
    """A throwaway Python *installation* (not a venv) built from this one: its binary, its stdlib
    linked entry by entry, an empty site-packages, and an EXTERNALLY-MANAGED marker in its own
    stdlib directory. pip ignores the marker inside a venv and a venv's stdlib is its base's, so a
    venv cannot be marked without marking the base; this can, and pip refuses it as Debian's."""
    base = Path(getattr(sys, "_base_executable", sys.executable)).resolve()
    stdlib = Path(sysconfig.get_path("stdlib"))
    lib = root / "lib" / stdlib.name
    (root / "bin").mkdir(parents=True)
    lib.mkdir(parents=True)
    shutil.copy2(base, root / "bin" / "python3")
    for entry in stdlib.iterdir():
        if entry.name not in ("site-packages", "ensurepip" if not ensurepip else ""):
            (lib / entry.name).symlink_to(entry)
    (lib / "site-packages").mkdir()
    if marker:
        (lib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\nError=managed by the test\n")
    python = root / "bin" / "python3"
    probe = subprocess.run([python, "-c", "import sys, sysconfig; print(sys.prefix, sysconfig.get_path('stdlib'))"],
                           capture_output=True, text=True)
    if probe.returncode != 0 or probe.stdout.split() != [str(root), str(lib)]:
        pytest.skip(f"this Python cannot be relocated for the test ({probe.stdout.strip()} {probe.stderr.strip()})")
    return python


def snapshot(python: Path) -> dict:
    """Every file under the interpreter's site-packages, with size and mtime."""
    out = subprocess.run([python, "-c", "import site; print('\\n'.join(site.getsitepackages()))"],
                         capture_output=True, text=True, check=True).stdout.split()
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for d in out for p in Path(d).rglob("*")}


def clean_copy(dest: Path) -> Path:
    """The repository's files as a fresh clone would have them (plus uncommitted edits), no .venv."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           cwd=REPO, capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, names):
        source = REPO / name
        if source.is_file() and not source.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def logs(folder: Path) -> Path:
    from analysis.tests.logs import samples, write_run

    for i, framework in enumerate(("std", "tokio")):
        write_run(folder, framework, "tcp", 0.001, samples(i, 200))
    return folder


def in_process_summary(folder: Path) -> str:
    return subprocess.run([sys.executable, REPO / "parse.py", "table", "-d", folder],
                          capture_output=True, text=True, check=True).stdout


def user_env(python: Path) -> dict:
    """A shell whose python3 is `python`, like a user's PATH, and no hint of this test's venv."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{python.parent}:{env.get('PATH', '/usr/bin:/bin')}"
    return env


@pytest.mark.skipif(MAKE is None, reason="no make")
def test_make_installs_into_a_venv_where_the_system_python_refuses_and_parse_py_uses_it(tmp_path):
    python = fake_python(tmp_path / "managed")
    refused = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--dry-run",
                              "--no-index", "numpy"], capture_output=True, text=True)
    if "No module named pip" not in refused.stderr:  # pip at hand: the simulation must really refuse
        assert "externally-managed-environment" in refused.stdout + refused.stderr, refused
    repo, folder = clean_copy(tmp_path / "repo"), logs(tmp_path / "logs")
    before, env = snapshot(python), user_env(python)
    # Where the packages go is the question, not their bytecode (CPU the suite shares). PIP_COMPILE=0, as
    # PIP_NO_COMPILE=1 reads inverted (pip maps a --no-X flag's variable onto X: it compiles).
    env["PIP_COMPILE"] = "0"

    make = subprocess.run([MAKE, "python"], cwd=repo, env=env, capture_output=True, text=True, timeout=600)
    assert make.returncode == 0, make.stdout + make.stderr
    assert "python3 -m venv" in make.stdout
    assert (repo / ".venv" / ".requirements").is_file()
    assert subprocess.run([MAKE, "-q", "python"], cwd=repo, env=env).returncode == 0  # current: nothing to do

    run = subprocess.run(["python3", "parse.py", "table", "-d", folder], cwd=repo, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout == in_process_summary(folder)
    assert "Traceback" not in run.stderr
    assert snapshot(python) == before


def test_a_python_without_venv_gets_one_line_naming_the_package(tmp_path):
    python = fake_python(tmp_path / "bare", marker=False, ensurepip=False)
    make = subprocess.run([MAKE, "venv", f"PYTHON={python}", "VENV=venv-here"], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert make.returncode != 0
    assert "apt-get install python3-venv" in make.stderr
    assert not (REPO / "venv-here").exists()


def minimal_copy(dest: Path, venv_python: Path | None) -> Path:
    """parse.py and what the toolkit reads; `.venv/bin/python` runs `venv_python` when given."""
    shutil.copytree(REPO / "analysis", dest / "analysis", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPO / "suite", dest / "suite", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(REPO / "parse.py", dest / "parse.py")
    shutil.copy2(REPO / "runtimes.json", dest / "runtimes.json")
    shutil.copytree(REPO / "schema", dest / "schema")
    if venv_python is not None:
        (dest / ".venv" / "bin").mkdir(parents=True)
        wrapper = dest / ".venv" / "bin" / "python"
        wrapper.write_text(f'#!/bin/sh\nexec "{venv_python}" "$@"\n')
        wrapper.chmod(0o755)
    return dest


def test_parse_py_without_pandas_re_executes_in_the_venv_with_its_arguments_and_stdout(tmp_path):
    python = fake_python(tmp_path / "plain", marker=False)
    repo, folder = minimal_copy(tmp_path / "repo", Path(sys.executable)), logs(tmp_path / "logs")
    for args in (["table"], ["table", "--format", "csv"]):
        run = subprocess.run([python, "parse.py", *args, "-d", folder], cwd=repo, capture_output=True,
                             text=True, timeout=120, stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run.stderr
        assert run.stdout == subprocess.run([sys.executable, REPO / "parse.py", *args, "-d", folder],
                                            capture_output=True, text=True, check=True).stdout
    bad = subprocess.run([python, "parse.py", "-t", "nope", "-d", folder], cwd=repo, capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr  # the toolkit's own usage error


@pytest.mark.parametrize("venv", ["none", "without pandas"])
def test_parse_py_without_pandas_or_venv_says_run_make_and_exits_2(tmp_path, venv):
    python = fake_python(tmp_path / "plain", marker=False)
    repo = minimal_copy(tmp_path / "repo", python if venv == "without pandas" else None)
    run = subprocess.run([python, "parse.py", "table"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2
    assert run.stdout == ""
    assert run.stderr.count("\n") == 1 and "run `make`" in run.stderr, run.stderr
    assert "Traceback" not in run.stderr


@pytest.fixture(scope="module")
def installed_helps() -> dict[str, str]:
    """Each command's help with the packages installed, read once for both cases below: command → its help."""
    commands = subprocess.run([sys.executable, "-c", "from analysis.cli import COMMANDS; "
                               "print(' '.join(name for name, _, _ in COMMANDS))"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.split()
    return {command: subprocess.run([sys.executable, REPO / "parse.py", command, "-h"], capture_output=True,
                                    text=True, check=True).stdout for command in commands}


@pytest.mark.parametrize("venv", ["none", "without pandas"])
def test_parse_py_help_and_each_commands_help_work_before_make(tmp_path, venv, installed_helps):
    python = fake_python(tmp_path / "plain", marker=False)
    repo = minimal_copy(tmp_path / "repo", python if venv == "without pandas" else None)
    helps = {}
    top = subprocess.run([python, "parse.py", "-h"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert top.returncode == 0 and top.stdout.startswith("usage: parse.py"), top.stderr
    assert {"table", "figures", "compare", "history", "phases"} <= set(installed_helps)
    for command, installed in installed_helps.items():
        helps[command] = subprocess.run([python, "parse.py", command, "-h"], cwd=repo, capture_output=True,
                                        text=True, timeout=60)
        assert helps[command].returncode == 0, helps[command].stderr
        assert helps[command].stdout == installed  # the same help as with the packages installed
        assert command in top.stdout
    # Anything but the help still asks for `make`.
    run = subprocess.run([python, "parse.py", "table"], cwd=repo, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "run `make`" in run.stderr


def test_pyproject_ranges_admit_the_pins_the_environment_installs():
    from packaging.requirements import Requirement

    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    ranges = {Requirement(r).name: Requirement(r).specifier
              for r in project["dependencies"] + project["optional-dependencies"]["dev"]}
    pins = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (REPO / name).read_text().splitlines():
            if line and not line.startswith(("-r", "#")):
                pin = Requirement(line)
                assert str(pin.specifier).startswith("=="), line  # exact pins
                pins[pin.name] = next(iter(pin.specifier)).version
    assert set(pins) == set(ranges)
    for name, version in pins.items():
        assert ranges[name].contains(version), (name, version, ranges[name])
