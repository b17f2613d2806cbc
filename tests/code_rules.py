"""What a reviewer reads the code for, as functions over source text: long functions, long docstrings, comments
that name an issue. tests/test_architecture.py runs them over the repository and over planted violations."""

import ast
import re

MAX_PYTHON_FUNCTION = 60  # lines, its decorators left out
MAX_RUST_FUNCTION = 80  # lines, outside tests
MAX_DOCSTRING = 600  # characters, as written
ISSUE = re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE)

# Rust's tokens that may hold a brace without opening a block: comments, strings (raw ones too), characters.
_RUST_SKIPPED = re.compile(r"""//[^\n]*|/\*.*?\*/|r(#*)".*?"\1|b?"(?:\\.|[^"\\])*"|b?'(?:\\.|[^'\\])'""", re.S)
_RUST_FN = re.compile(r"\bfn\s+(\w+)")


def long_python_functions(source: str, limit: int = MAX_PYTHON_FUNCTION) -> list[str]:
    """`name (N lines)` of each function or method longer than `limit` lines."""
    return [f"{node.name} ({node.end_lineno - node.lineno + 1} lines)" for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > limit]


def long_docstrings(source: str, limit: int = MAX_DOCSTRING) -> list[str]:
    """`name (N characters)` of each docstring (a module's: `<module>`) longer than `limit` characters."""
    nodes = [node for node in ast.walk(ast.parse(source))
             if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))]
    found = [(getattr(node, "name", "<module>"), ast.get_docstring(node, clean=False) or "") for node in nodes]
    return [f"{name} ({len(text)} characters)" for name, text in found if len(text) > limit]


def _blank(match: re.Match) -> str:
    """A skipped token as spaces, its newlines kept: braces inside it count for nothing, lines stay lines."""
    return re.sub(r"[^\n]", " ", match[0])


def long_rust_functions(source: str, limit: int = MAX_RUST_FUNCTION) -> list[str]:
    """`name (N lines)` of each Rust function whose body spans more than `limit` lines (from `fn` to its `}`)."""
    code = _RUST_SKIPPED.sub(_blank, source)
    found = []
    for match in _RUST_FN.finditer(code):
        body = _body_start(code, match.end())
        if body is None:
            continue  # a declaration without a body (a trait's)
        end = _matching_brace(code, body)
        lines = code.count("\n", match.start(), end) + 1
        if lines > limit:
            found.append(f"{match[1]} ({lines} lines)")
    return found


def _body_start(code: str, at: int) -> int | None:
    """Where a function's body opens: the first `{` outside its parameters' brackets, or None at a `;` first."""
    depth = 0
    for i in range(at, len(code)):
        c = code[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and c == ";":
            return None
        elif depth == 0 and c == "{":
            return i
    return None


def _matching_brace(code: str, opening: int) -> int:
    depth = 0
    for i in range(opening, len(code)):
        depth += {"{": 1, "}": -1}.get(code[i], 0)
        if depth == 0:
            return i
    return len(code)


def issue_mentions(text: str) -> list[int]:
    """The 1-based lines of a source that name an issue by its number."""
    return [n for n, line in enumerate(text.splitlines(), 1) if ISSUE.search(line)]


def lines_beyond(text: str, limit: int) -> int:
    """How many lines a text has past `limit`."""
    return max(0, len(text.splitlines()) - limit)
