#!/usr/bin/env python3
"""Summary table and PDF figures of a sweep's RTT logs: see `python3 parse.py -h` and docs/analysis.md."""

# Whatever python3 runs this, the toolkit runs on the packages `make` installed in .venv/:
# without them here, this re-executes itself there (same arguments, stdin and stdout).
# Kept to syntax and modules any Python 3 has, so that an old one gets this far too.

import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import types

ROOT = os.path.dirname(os.path.abspath(__file__))
VENV = os.path.join(ROOT, ".venv")
VENV_PYTHON = os.path.join(VENV, "bin", "python")
PACKAGES = ("numpy", "pandas", "matplotlib")  # requirements.txt
# What the analysis imports from .venv/: stood in for when only the help is asked (see help_without_packages).
INSTALLED = ("numpy", "pandas", "matplotlib", "ruptures", "jsonschema", "scipy")
REEXECUTED = "RTT_SUITE_PARSE_REEXECUTED"  # set for the re-executed process: never twice


def missing():
    """What keeps this interpreter from running the toolkit, or None."""
    if sys.version_info < (3, 11):
        return "Python %d.%d is older than 3.11" % sys.version_info[:2]
    absent = [name for name in PACKAGES if importlib.util.find_spec(name) is None]
    return "no %s" % ", ".join(absent) if absent else None


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


class Absent(object):
    """A package's name that is never used: any attribute, call, item or operation gives another."""

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Absent()

    def __call__(self, *args, **kwargs):
        return Absent()

    def __getitem__(self, key):
        return Absent()

    def __iter__(self):
        return iter(())

    def __mro_entries__(self, bases):
        return (object,)

    def _operation(self, *other):
        return Absent()

    __or__ = __ror__ = __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _operation
    __truediv__ = __rtruediv__ = __pow__ = __neg__ = _operation


class StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports INSTALLED's packages as empty modules whose every name is Absent."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in INSTALLED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = types.ModuleType(spec.name)
        module.__path__ = []
        module.__getattr__ = lambda name: Absent()
        return module

    def exec_module(self, module):
        pass


def help_without_packages():
    """`parse.py -h` and `parse.py COMMAND -h` before `make`: the real parser prints its help, the analysis
    packages stood in for. Their modules only name those packages' functions at import; argparse prints the
    help and exits before any is called."""
    sys.meta_path.insert(0, StandIns())
    from analysis.cli import main

    sys.exit(main())


def elsewhere(reason):
    """Re-executes in .venv/, or prints the help asked for, or says to run make and exits 2."""
    if os.path.exists(VENV_PYTHON) and not in_venv() and REEXECUTED not in os.environ:
        env = dict(os.environ, **{REEXECUTED: sys.executable})
        try:
            os.execve(VENV_PYTHON, [VENV_PYTHON, os.path.abspath(__file__)] + sys.argv[1:], env)
        except OSError as e:
            reason = "%s cannot run (%s)" % (VENV_PYTHON, e.strerror or e)
    if sys.version_info >= (3, 11) and set(sys.argv[1:]) & {"-h", "--help"}:
        help_without_packages()
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
