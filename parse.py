#!/usr/bin/env python3
"""Summary table and PDF figures of a sweep's RTT logs: see `python3 parse.py -h` and docs/analysis.md."""

# Whatever python3 runs this, the toolkit runs on the packages `make` installed in .venv/:
# without them here, this re-executes itself there (same arguments, stdin and stdout).
# Kept to syntax and modules any Python 3 has, so that an old one gets this far too.

import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
PACKAGES = ("numpy", "pandas", "matplotlib")  # requirements.txt
REEXECUTED = "RTT_SUITE_PARSE_REEXECUTED"  # set for the re-executed process: never twice


def missing():
    """What keeps this interpreter from running the toolkit, or None."""
    if sys.version_info < (3, 11):
        return "Python %d.%d is older than 3.11" % sys.version_info[:2]
    absent = [name for name in PACKAGES if importlib.util.find_spec(name) is None]
    return "no %s" % ", ".join(absent) if absent else None


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def elsewhere(reason):
    """Re-executes in .venv/, or says to run make and exits 2."""
    if os.path.exists(VENV_PYTHON) and not in_venv() and REEXECUTED not in os.environ:
        env = dict(os.environ, **{REEXECUTED: sys.executable})
        try:
            os.execve(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:], env)
        except OSError as e:
            reason = "%s cannot run (%s)" % (VENV_PYTHON, e.strerror or e)
    print("parse.py: the analysis packages are missing (%s): run `make` in %s first" % (reason, ROOT),
          file=sys.stderr)
    sys.exit(2)


if __name__ == "__main__":
    why = missing()
    if why:
        elsewhere(why)
    try:
        from analysis.cli import main
    except ImportError as e:  # installed but unusable, e.g. built for another Python
        elsewhere("%s: %s" % (type(e).__name__, e))
    sys.exit(main())
