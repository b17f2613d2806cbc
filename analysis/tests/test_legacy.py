"""parse.py's commands, and the flags of earlier versions as their aliases: the same output, one line more on stderr."""

import dataclasses

import pytest

from analysis import request
from analysis.cli import main

from .conftest import NOTE, pages
from .test_compare import write_sweep

# The old flags, the README's and docs/analysis.md's among them, and the command each stands for.
ALIASES = [
    (["--summary"], ["table", "--wide"]),
    (["--format", "csv"], ["table", "--format", "csv", "--wide"]),
    (["--summary", "--format", "markdown", "-p", "tcp", "-r", "1k,inf", "-f", "std,tokio"],
     ["table", "-p", "tcp", "-r", "1000,inf", "-f", "std,tokio", "--format", "markdown", "--wide"]),
    (["--variance"], ["variance"]),
    (["--variance", "--format", "csv", "-k", "rtt"], ["variance", "--format", "csv"]),
]


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    root = tmp_path_factory.mktemp("legacy")
    write_sweep(root / "old", 1)
    write_sweep(root / "new", 3, factor=1.10)
    return root


def run(capsys, *args) -> tuple[int, str, list[str]]:
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


@pytest.mark.parametrize("old, new", ALIASES)
def test_an_old_flag_prints_what_its_command_prints_and_names_it_in_one_line(capsys, two, old, new):
    folder = two / "old"
    status, out, err = run(capsys, *old, "-d", folder)
    assert err == [f"{NOTE}{' '.join([new[0], '-d', str(folder), *new[1:]])}` (the old ones work for now)"]
    assert (status, out) == run(capsys, *new, "-d", folder)[:2] and status == 0 and out


def test_the_old_compare_and_its_gate_are_the_compare_command(capsys, two):
    old, new = two / "old", two / "new"
    status, out, err = run(capsys, "--compare", old, new, "--fail-above", "5")
    command = ["compare", str(old), str(new), "--fail-above", "5"]
    assert err[0] == f"{NOTE}{' '.join(command)}` (the old ones work for now)"
    assert (status, out, err[1:]) == run(capsys, *command) and status == 1 and "slower by more than 5 %" in err[1]


def test_the_old_figure_flags_draw_what_figures_draws(capsys, two, tmp_path):
    folder, before, after = two / "old", tmp_path / "old.pdf", tmp_path / "new.pdf"
    status, out, err = run(capsys, "-t", "stat", "-s", "lin", "-d", folder, "-o", before)
    assert err[0] == f"{NOTE}figures -d {folder} -t stat -s lin -o {before}` (the old ones work for now)"
    assert run(capsys, "figures", "-d", folder, "-t", "stat", "-s", "lin", "-o", after)[0] == status == 0
    assert pages(before) == pages(after) >= 1
    # Neither -t nor --summary: every figure and the table, as `figures --table`, which no arguments also are.
    assert run(capsys, "-d", folder, "-o", before)[2][0] == (f"{NOTE}figures -d {folder} -o {before} --table --wide` "
                                                             "(the old ones work for now)")


def test_no_arguments_is_figures_with_the_table_and_no_note(capsys, sweep_dir, monkeypatch):
    monkeypatch.chdir(sweep_dir.parent.parent)
    status, out, err = run(capsys)
    assert status == 0 and out.startswith("framework") and not any(line.startswith(NOTE) for line in err)
    assert (sweep_dir / "rtt-all.pdf").is_file()


@pytest.mark.parametrize("args, message", [
    (["table", "-t", "stat"], "unrecognized arguments: -t stat"),
    (["variance", "-k", "throughput"], "unrecognized arguments: -k throughput"),
    (["compare", "OLD"], "the following arguments are required: NEW"),
    (["figures", "-t", "compare"], "argument -t/--type: invalid choice: 'compare'"),
    (["figures", "-k", "micro", "-r", "1k"], "-r: not for micro logs"),
    (["compare", "A", "B", "-k", "micro"], "--compare: not for micro logs"),
])
def test_each_command_takes_only_its_own_options(capsys, args, message):
    status, out, err = run(capsys, *args)
    assert status == 2 and out == "" and len(err) == 1 and message in err[0], err


def test_a_request_is_resolved_once_and_frozen(sweep_dir):
    from analysis import rtt
    from analysis.sweep import Filters

    asked = request.Table(rtt.KIND, sweep_dir, Filters(), "text", 0.02)
    with pytest.raises(dataclasses.FrozenInstanceError):
        asked.form = "csv"  # type: ignore[misc]


# Each command's help: options it has, and others' it has not.
HELPS = {"table": (["--format", "-d DIR"], ["--type", "--fail-above", "--table"]),
         "figures": (["--table", "--scale", "--type"], ["--fail-above", "--figure"]),
         "compare": (["--fail-above", "--figure", "OLD", "NEW"], ["--dir", "--type", "--table"]),
         "variance": (["--format", "-d DIR"], ["--kind", "--noise", "--type"])}


@pytest.mark.parametrize("args", [["-h"], ["--summary", "-h"], *([name, "-h"] for name in HELPS)])
def test_each_command_says_its_options(capsys, args):
    with pytest.raises(SystemExit) as done:
        main(args)
    out = capsys.readouterr().out
    assert done.value.code == 0 and out.startswith("usage: parse.py")
    has, lacks = HELPS.get(args[0], (list(HELPS), ["--fail-above"]))  # the top help lists the commands
    assert all(word in out for word in has) and not any(word in out for word in lacks), out
