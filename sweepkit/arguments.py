"""The scripts' command lines: the flag letters, the long options and their values, read into what cli.py runs."""

from . import usage

VALUED = ("--remote", "--remote-dir", "--target", "--peer")
LONG = ("--check", "--continue", "--help")  # both scripts' long options (--continue: resume.py's, read before these)
LOCAL_LONG = ("--pr", *LONG)  # run-localhost.sh's: --pr SPEC, the pull-request check (sweepkit/pr.py)


class Usage(Exception):
    """A flag problem: said with "Try PROG -h.", exit 2."""


def short_flags(arg: str, show_usage) -> str:
    """The letters of one bundle such as -asStP (checked later, against runtimes.json); -h anywhere: the usage."""
    letters = arg[1:]
    if not letters:
        raise Usage("empty flag '-'")
    if "h" in letters:
        show_usage()
    return letters


def unknown_option(arg: str, known: tuple[str, ...]) -> Usage:
    """A long option the script does not take (never read as a bundle of flag letters: --check is not -c -h)."""
    return Usage(f"unknown option {arg}: this script's long options are {', '.join(known[:-1])} and {known[-1]}; "
                 "the runtimes are chosen with one-letter flags such as -asStP")


def localhost_args(prog: str, argv: list[str]) -> tuple[str, bool, str]:
    """The flag letters, whether --check was given, and --pr's SPEC ("" without it)."""
    flags, check, pr, args = "", False, "", list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            show(usage.localhost(prog))
        elif arg == "--check":
            check = True
        elif name == "--pr":
            pr = valued(name, eq, value, args)
        elif arg.startswith("--"):
            raise unknown_option(arg, LOCAL_LONG)
        elif arg.startswith("-"):
            flags += short_flags(arg, lambda: show(usage.localhost(prog)))
        else:
            raise Usage(f"unexpected argument '{arg}'")
    return flags, check, pr


def valued(name: str, eq: str, value: str, args: list[str]) -> str:
    """An option's value: given as NAME=VALUE, or the next argument (taken from `args`)."""
    if not eq:
        if not args or not args[0]:
            raise Usage(f"{name} needs a value")
        value = args.pop(0)
    if not value:
        raise Usage(f"{name} needs a value")
    return value


def network_args(prog: str, argv: list[str]) -> dict:
    """VALUED's options (VALUE or =VALUE), --serve, --check and the flag letters; which of remote, peer or serve."""
    given, args = {"flags": "", "serve": False, "check": False}, list(argv)
    while args:
        arg = args.pop(0)
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help"):
            show(usage.network(prog))
        elif name in VALUED:
            given[name[2:]] = valued(name, eq, value, args)
        elif arg == "--serve":
            given["serve"] = True
        elif arg == "--check":
            given["check"] = True
        elif arg.startswith("--"):
            raise unknown_option(arg, (*VALUED, "--serve", *LONG))
        elif arg.startswith("-"):
            given["flags"] += short_flags(arg, lambda: show(usage.network(prog)))
        else:
            raise Usage(f"unexpected argument '{arg}'")
    if given["check"]:
        given["mode"] = "check"
    elif given["serve"]:
        if "remote" in given or "peer" in given:
            raise Usage("--serve runs on host B: it takes no --remote or --peer")
        given["mode"] = "serve"
    elif "peer" in given:
        if "remote" in given:
            raise Usage("--peer and --remote do not go together")
        given["mode"] = "peer"
    elif "remote" in given:
        given["mode"] = "remote"
    else:
        raise Usage("say where the pongs are: --remote USER@HOST, or --serve on B and --peer ADDR on A")
    return given


def show(text: str):
    print(text)
    raise SystemExit(0)
