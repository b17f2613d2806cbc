"""ARCHITECTURE.md's invariants that no other test checks: no import-path edits, kind branches only in
the kind packages, a one-line summary at the top of every module, small modules and crates; and what a
reviewer reads the code for (tests/code_rules.py): short functions and docstrings, no issue numbers."""

import ast
import re

import code_rules as rules
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


# The sweep: a kind of point (or MODE) compared with its name, or re-derived from a record's keys.
KIND_BRANCH = re.compile(r"""(==|!=|\bin)\s*\(?["'](rtt|throughput|micro|icmp)["']"""
                         r"""|["'](rtt|throughput|micro|icmp)["']\s*(==|!=)"""
                         r"""|["'](ns_per_op_median|p50_ns|msg_per_s_p50|interval_s|bench)["']\s+(not\s+)?in\s""")
SWEEP_ENTRY = ("cli.py", "entry.py", "knobs.py", "checks.py", "spec.py", "resume.py", "pr.py")  # where the environment
# is parsed (pr.py: --pr's SPEC resolved into the knobs)
KNOB_DICT = ("knobs", "k", "environ")  # the names the environment's strings go by


def kind_branches(text: str) -> list[int]:
    return [n for n, line in enumerate(text.splitlines(), 1) if KIND_BRANCH.search(line.split("#")[0])]


def knob_dict_uses(text: str) -> list[int]:
    """Lines that read os.environ or take, index or reach for the knob dict, outside the checks the entry runs on
    the strings (a function named check*, a mode's `fields` and `warn`)."""
    found = []

    def visit(node, checking):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            name = getattr(node, "name", "")
            checking = checking or name.startswith("check") or name in ("fields", "warn")
            if not checking:
                found.extend(node.lineno for a in node.args.args + node.args.kwonlyargs if a.arg in KNOB_DICT)
        elif not checking and isinstance(node, ast.Attribute) and (
                node.attr == "knobs" or (node.attr == "environ" and getattr(node.value, "id", "") == "os")):
            found.append(node.lineno)
        elif not checking and isinstance(node, ast.Subscript) and (
                getattr(node.value, "id", "") in KNOB_DICT
                or (isinstance(node.slice, ast.Constant) and node.slice.value == "knobs")):
            found.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, checking)

    visit(ast.parse(text), False)
    return sorted(set(found))


def sweep_modules(below_the_entry: bool = False):
    for path in sorted((REPO / "sweepkit").rglob("*.py")):
        if not (below_the_entry and path.name in SWEEP_ENTRY and path.parent.name == "sweepkit"):
            yield path


def test_only_the_sweep_modes_branch_on_the_kind():
    outside = [path for path in sweep_modules() if "modes" not in path.relative_to(REPO).parts]
    branches = [f"{path.relative_to(REPO)}:{n}" for path in outside for n in kind_branches(path.read_text())]
    assert outside and branches == []
    inside = [n for path in (REPO / "sweepkit" / "modes").glob("*.py") for n in kind_branches(path.read_text())]
    assert len(inside) <= 3  # a mode says what it does: it seldom needs to ask which it is
    planted = 'if k["MODE"] == "micro":\nkind = "micro" if "ns_per_op_median" in run else "rtt"\nx = mode != "rtt"\n'
    assert kind_branches(planted) == [1, 2, 3]


def test_below_the_sweeps_entry_no_module_reads_the_environment_or_takes_the_knob_dict():
    uses = [f"{path.relative_to(REPO)}:{n}" for path in sweep_modules(below_the_entry=True)
            for n in knob_dict_uses(path.read_text())]
    assert uses == []
    planted = ("import os\ndef run(knobs):\n    pass\nx = os.environ['MODE']\ny = doc['knobs']['SIZE']\n"
               "z = self.knobs\ndef check_size(k):\n    return k['SIZE']\n")
    assert knob_dict_uses(planted) == [2, 4, 5, 6]


# The analysis's entry: parse.py's commands (cli.py, and each group of commands in a NAME_cli.py of its own: the
# tracking ones in tracking_cli.py, costs and phases in costs_cli.py; their shared steps in entry_kit.py) and the old flags' aliases
# (legacy.py) read the argparse namespace; options.py builds the parsers. Below them each command takes a frozen
# request (request.py).
ANALYSIS_ENTRY = ("cli.py", "entry_kit.py", "legacy.py", "options.py")
NAMESPACE = {"args", "ns", "namespace", "argv"}


def namespace_reads(source: str) -> list[str]:
    """Where a module takes or reads an argparse namespace: a parameter or a name so called, argparse itself."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.Lambda)):
            found += [f"{node.lineno}: parameter {a.arg}" for a in (*node.args.args, *node.args.kwonlyargs)
                      if a.arg in NAMESPACE]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in NAMESPACE:
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and "argparse" in (
                [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]):
            found.append(f"{node.lineno}: imports argparse")
    return found


def test_no_module_below_the_analysis_entry_reads_the_namespace():
    below = [path for path in (REPO / "analysis").rglob("*.py")
             if "tests" not in path.relative_to(REPO / "analysis").parts
             and str(path.relative_to(REPO / "analysis")) not in ANALYSIS_ENTRY and not path.name.endswith("_cli.py")]
    reads = [f"{path.relative_to(REPO)}:{where}" for path in below for where in namespace_reads(path.read_text())]
    assert below and reads == []
    # The check sees a kind that reads the options itself, as the kinds did before their requests.
    planted = "def check(args):\n    if args.rate:\n        raise ValueError\n"
    assert namespace_reads(planted) == ["1: parameter args", "2: args.rate"]
    assert namespace_reads("import argparse\n") == ["1: imports argparse"]


def importers(package: str, module: str) -> list[str]:
    """The modules of `package` that import `module` (a dotted name), as `import` or `from ... import`."""
    found = []
    for path in sorted((REPO / package).rglob("*.py")):
        if "tests" in path.relative_to(REPO).parts:
            continue
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module:
                names |= {node.module, *(f"{node.module}.{a.name}" for a in node.names)}
        if module in names:
            found.append(str(path.relative_to(REPO)))
    return found


def test_the_dimension_table_is_read_by_the_sweep_and_the_analysis():
    from analysis import rtt, throughput
    from suite import dimensions
    from sweepkit import dimensions as swept

    assert importers("sweepkit", "suite.dimensions") == ["sweepkit/dimensions.py"]
    assert importers("analysis", "suite.dimensions") != []
    # Both sides key a point by the table's names, in its order.
    assert [d.name for d in swept.DIMENSIONS] == [d.name for d in dimensions.DIMENSIONS]
    assert rtt.runs.SETTING[-len(dimensions.names("rtt")):] == dimensions.names("rtt")
    assert throughput.KEYS[-len(dimensions.names("throughput")):] == dimensions.names("throughput")


# Packages of small modules (ARCHITECTURE.md, rule 6): a Python module of 300 lines at most, the packages' tests included; a crate
# of 4 000 lines at most, its unit tests (a `#[cfg(test)] mod` at a file's end, or a module's own tests.rs or tests/mod.rs) left out,
# blank lines and comments in.
MAX_MODULE_LINES = 300
MAX_CRATE_LINES = 4000
SIZED_PACKAGES = ("suite", "sweepkit", "analysis", "findings")


def crate_lines(source: str) -> int:
    """A Rust file's lines before its unit tests' module."""
    lines = source.splitlines()
    for n, line in enumerate(lines[:-1]):
        if line.strip() == "#[cfg(test)]" and re.match(r"\s*mod \w+\s*\{", lines[n + 1]):
            return n
    return len(lines)


def test_no_python_module_is_over_300_lines():
    paths = [*(p for package in SIZED_PACKAGES for p in sorted((REPO / package).rglob("*.py"))),
             *(REPO / name for name in ENTRY_POINTS)]
    sizes = {str(p.relative_to(REPO)): len(p.read_text().splitlines()) for p in paths}
    assert len(sizes) > 100 and {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES} == {}


def test_no_crate_is_over_4000_lines_without_its_unit_tests():
    sizes = {crate.name: sum(crate_lines(p.read_text()) for p in sorted((crate / "src").rglob("*.rs"))
                          if p.name != "tests.rs" and p.parent.name != "tests")
             for crate in sorted((REPO / "crates").iterdir()) if (crate / "src").is_dir()}
    assert "rtt-net" in sizes and {name: n for name, n in sizes.items() if n > MAX_CRATE_LINES} == {}
    assert crate_lines("fn a() {}\n\n#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n") == 2


# What a reviewer reads for. Each rule also runs on a planted violation, so that it can fail, and each allowed
# exception must still be one, so that the list shrinks as the code is cleared.
PYTHON_ROOTS = ("suite", "sweepkit", "analysis", "findings", "tests", "benches")
# Docstrings of modules that another change is reworking: each is to be cut to rules.MAX_DOCSTRING there.
LONG_DOCSTRINGS_ALLOWED = {"analysis/history.py": ["<module>"], "analysis/history_db.py": ["<module>"],
                           "analysis/tracked.py": ["<module>"], "analysis/export.py": ["<module>"],
                           "tests/test_tracking.py": ["<module>"]}
ISSUE_NUMBERS_ALLOWED = ("analysis/tracked.py",)  # likewise
MAX_ARCHITECTURE_LINES = 90  # one page


def python_sources():
    for root in PYTHON_ROOTS:
        yield from sorted((REPO / root).rglob("*.py"))
    yield from (REPO / name for name in ENTRY_POINTS)


def rust_product_sources():
    """Each Rust file's text before its unit tests, the tests' own files and crate left out."""
    for path in sorted((REPO / "crates").glob("*/src/**/*.rs")):
        crate, *inside = path.relative_to(REPO / "crates").parts
        if crate != "rtt-tests" and path.name != "tests.rs" and "tests" not in inside:
            text = path.read_text()
            yield path, "\n".join(text.splitlines()[:crate_lines(text)])


def found_in(paths_and_texts, check) -> dict[str, list]:
    return {str(path.relative_to(REPO)): found for path, text in paths_and_texts if (found := check(text))}


def test_no_python_function_is_over_60_lines():
    assert found_in(((p, p.read_text()) for p in python_sources()), rules.long_python_functions) == {}
    planted = "def f():\n" + "    x = 1\n" * 60
    assert rules.long_python_functions(planted) == ["f (61 lines)"] and rules.long_python_functions(planted[:-10]) == []


def test_no_rust_function_outside_the_tests_is_over_80_lines():
    assert found_in(rust_product_sources(), rules.long_rust_functions) == {}
    # Braces in a string, a character and a comment close nothing; a trait's declaration has no body.
    planted = 'fn f() {\n    let s = "}";\n    let c = \'}\'; // }\n' + "    g();\n" * 77 + "}\nfn h();\n"
    assert rules.long_rust_functions(planted) == ["f (81 lines)"]
    assert rules.long_rust_functions(planted.replace("    g();\n", "", 1)) == []


def test_no_docstring_is_over_600_characters():
    found = found_in(((p, p.read_text()) for p in python_sources()), rules.long_docstrings)
    names = {path: [entry.split(" (")[0] for entry in entries] for path, entries in found.items()}
    assert {path: n for path, n in names.items() if n != LONG_DOCSTRINGS_ALLOWED.get(path)} == {}
    assert set(LONG_DOCSTRINGS_ALLOWED) <= set(names), "an allowed docstring is short now: drop it from the list"
    planted = f'"""{"x" * 601}"""\n\n\ndef f():\n    """{"y" * 600}"""\n'
    assert rules.long_docstrings(planted) == ["<module> (601 characters)"]


def test_no_comment_names_an_issue_by_its_number():
    code = [*python_sources(), *sorted((REPO / "crates").rglob("*.rs")), *sorted(REPO.glob("*.sh")),
            REPO / "Makefile", *sorted(REPO.glob("*.toml")), *sorted((REPO / "go").rglob("*.go")),
            *sorted((REPO / "kotlin").rglob("*.kt"))]
    found = found_in(((p, p.read_text()) for p in code), rules.issue_mentions)
    assert {path: lines for path, lines in found.items() if path not in ISSUE_NUMBERS_ALLOWED} == {}
    assert set(ISSUE_NUMBERS_ALLOWED) <= set(found), "an allowed file names no issue now: drop it from the list"
    assert rules.issue_mentions("x = 1\ny = 2  # since " + "issue" + " 39\n") == [2]


def test_architecture_md_is_one_page():
    assert rules.lines_beyond((REPO / "ARCHITECTURE.md").read_text(), MAX_ARCHITECTURE_LINES) == 0
    assert rules.lines_beyond("line\n" * 91, MAX_ARCHITECTURE_LINES) == 1
