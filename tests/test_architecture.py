"""ARCHITECTURE.md's invariants that no other test checks: no import-path edits, kind branches only in
the kind packages, and a one-line summary at the top of every module."""

import ast
import re

from sweep_helpers import REPO

PACKAGES = ("suite", "sweepkit", "analysis")
ENTRY_POINTS = ("sweep.py", "parse.py")
KIND_PACKAGES = ("rtt", "throughput", "micro")


def product_modules():
    """The Python the suite runs (its tests and benchmarks aside)."""
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            if "tests" not in path.relative_to(REPO).parts:
                yield path
    yield from (REPO / name for name in ENTRY_POINTS)


def test_no_module_edits_the_import_path():
    # The entry points sit at the checkout's root, so Python finds suite, sweepkit and analysis there.
    edits = [f"{path.relative_to(REPO)}:{n}" for path in product_modules()
             for n, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\bsys\.path\b", line)]
    assert edits == []


def test_only_the_kind_packages_branch_on_the_kind_of_log():
    outside = [path for path in (REPO / "analysis").rglob("*.py")
               if not {"tests", *KIND_PACKAGES} & set(path.relative_to(REPO / "analysis").parts[:-1])]
    branches = [f"{path.relative_to(REPO)}:{n}" for path in outside
                for n, line in enumerate(path.read_text().splitlines(), 1)
                if re.search(r"""kind\s*[!=]=\s*["'](rtt|throughput|micro)["']""", line)]
    assert outside and branches == []


def test_every_module_says_what_it_is_in_its_first_lines():
    undocumented = [str(path.relative_to(REPO)) for path in product_modules()
                    if not ast.get_docstring(ast.parse(path.read_text()))]
    for path in sorted((REPO / "crates").glob("*/src/**/*.rs")):
        lines = [line for line in path.read_text().splitlines() if not line.startswith("#!")]
        if not (lines and lines[0].startswith("//!")):
            undocumented.append(str(path.relative_to(REPO)))
    assert undocumented == []
