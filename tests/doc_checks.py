"""What tests/test_docs.py checks of the Markdown pages, as functions a planted mistake can be run through."""

import re
import statistics
from pathlib import Path

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6}) (.+?)\s*$")
FENCE = re.compile(r"^```")
BLOCK = re.compile(r"^<!-- findings:([a-z0-9-]+) -->\n.*?^<!-- /findings:\1 -->$", re.MULTILINE | re.DOTALL)


def prose_lines(text: str) -> list[str]:
    """The page's lines outside code fences (with their line numbers kept as empty lines)."""
    out, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else line)
    return out


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, inline code and links unwrapped, punctuation dropped, spaces → -."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    text = re.sub(r"[^\w\- ]", "", text.replace("`", ""))
    return text.replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor the page's headings give, duplicates numbered as GitHub numbers them."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(text):
        found = HEADING.match(line)
        if found:
            base = slug(found[2])
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out | set(re.findall(r'<a (?:id|name)="([^"]+)"', text))


def broken_links(page: Path) -> list[str]:
    """Each relative link of `page` whose file, or whose anchor in it, does not exist: `LINE: TARGET: why`."""
    problems = []
    text = page.read_text(encoding="utf-8")
    for number, line in enumerate(prose_lines(text), start=1):
        for found in LINK.finditer(re.sub(r"`[^`]*`", "", line)):
            target = found[1] or found[2]
            if re.match(r"^[a-z]+:", target):
                continue  # https:, mailto:
            path, _, anchor = target.partition("#")
            where = (page.parent / path).resolve() if path else page
            if not where.exists():
                problems.append(f"{page.name}:{number}: {target}: no such file")
            elif anchor and where.suffix == ".md" and anchor not in anchors(where.read_text(encoding="utf-8")):
                problems.append(f"{page.name}:{number}: {target}: no such heading in {where.name}")
    return problems


def paragraphs(text: str) -> list[str]:
    """The page's prose paragraphs: outside code fences, generated blocks, tables, headings and comments."""
    text = BLOCK.sub("", text)
    paras, current = [], []
    for line in prose_lines(text):
        skip = not line.strip() or line.startswith(("|", "#", "<!--", "![", "<"))
        if skip:
            if current:
                paras.append(" ".join(current))
            current = []
        else:
            current.append(line.strip())
    return paras + ([" ".join(current)] if current else [])


def sentences(text: str) -> list[str]:
    """The prose's sentences (a list item is one at least), inline code counted as one word."""
    out = []
    for para in paragraphs(text):
        para = re.sub(r"`[^`]*`", "CODE", re.sub(r"\]\([^)]*\)", "]", para))
        out += [s for s in re.split(r"(?<=[.?!])\s+(?=[A-Z`*(\[])|^- |\s- ", para) if s and s.strip()]
    return out


def words(sentence: str) -> int:
    return len(re.findall(r"[\w\-+.×%/≤≥±µ]+", sentence))


def sentence_lengths(text: str) -> tuple[float, int]:
    """(median, longest) words a sentence of the page's prose."""
    counts = [words(s) for s in sentences(text)]
    return statistics.median(counts), max(counts)


# A figure a reader may quote: a duration, a count of runs, rounds or points, a latency, a factor or a share.
FIGURE = re.compile(r"(?<![\w.])(\d+(?:[.,]\d+)?(?: \d{3})*(?: min(?: \d+ s)?| s\b| µs| ms| %|×| runs| rounds|"
                    r" points| repeats| tests| minutes)|×\d+(?:\.\d+)?)")


def unsourced_figures(page: Path, known=()) -> list[str]:
    """Each figure in the page's prose that is neither in one of the pages its paragraph links to, nor in `known`
    (figures that are definitions, checked against code elsewhere): `figure (paragraph's start)`."""
    problems = []
    for para in paragraphs(page.read_text(encoding="utf-8")):
        sources = []
        for found in LINK.finditer(para):
            path = (found[1] or found[2]).partition("#")[0]
            if path and not re.match(r"^[a-z]+:", path) and (page.parent / path).is_file():
                sources.append(" ".join((page.parent / path).read_text(encoding="utf-8").split()))
        for figure in FIGURE.findall(re.sub(r"`[^`]*`", "", para)):
            if figure in known or any(figure in source for source in sources):
                continue
            problems.append(f"{figure} ({para[:60]}…)")
    return problems
