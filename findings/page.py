"""The generated blocks of a Markdown page: found by their markers, checked balanced, and rewritten, the prose left alone.

A block is `<!-- findings:NAME -->`, its body, then `<!-- /findings:NAME -->`, each marker on a line of its own.
"""

import re

MARKER = re.compile(r"^<!-- (/?)findings:([a-z0-9-]+) -->$", re.MULTILINE)


class PageError(ValueError):
    """The page's markers are not balanced pairs, or a block asked for is not on the page."""


def blocks(text: str) -> list[str]:
    """The names of the page's blocks, in order; every marker opened once, closed once, never nested."""
    names, open_name = [], None
    for found in MARKER.finditer(text):
        closing, name = found[1] == "/", found[2]
        line = text.count("\n", 0, found.start()) + 1
        if closing and name != open_name:
            raise PageError(f"line {line}: /findings:{name} closes {'nothing' if open_name is None else open_name}")
        if not closing and open_name is not None:
            raise PageError(f"line {line}: findings:{name} opens inside findings:{open_name}")
        if not closing and name in names:
            raise PageError(f"line {line}: findings:{name} opens a second time")
        if not closing:
            names.append(name)
        open_name = None if closing else name
    if open_name is not None:
        raise PageError(f"findings:{open_name} is never closed")
    return names


def rewrite(text: str, bodies: dict[str, str]) -> str:
    """`text` with each named block's body replaced; every other line stays as it was."""
    missing = sorted(set(bodies) - set(blocks(text)))
    if missing:
        raise PageError(f"no block {', '.join(missing)} on the page")
    for name, body in bodies.items():
        pattern = re.compile(rf"(^<!-- findings:{name} -->\n).*?(^<!-- /findings:{name} -->$)", re.MULTILINE | re.DOTALL)
        text = pattern.sub(lambda m, body=body: m[1] + body.strip("\n") + "\n" + m[2], text, count=1)
    return text
