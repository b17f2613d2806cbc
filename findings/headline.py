"""The README's headline, read from docs/findings.md's generated blocks, so that no figure of it is typed by hand.

    python3 -m findings.headline            # rewrite README.md's findings:headline block from docs/findings.md
    python3 -m findings.headline --check    # exit 1 when the block differs from what the page gives
"""

# `make findings` runs it after rewriting the page. Each figure is a cell of a table between the page's markers:
# std's back-to-back p50 and what tokio adds (claim5), async-std's and smol's Δ and their verdicts (claim2), and
# what 1000 CPU-bound decoys do (claim4); the date and the idle setting are the `main` sweep's (machine).

import argparse
import re
import sys
from pathlib import Path

from . import page

REPO = Path(__file__).resolve().parents[1]
BLOCK = "headline"


class Missing(ValueError):
    """A figure the headline needs is not in the page's blocks."""


def block(text: str, name: str) -> str:
    found = re.search(rf"^<!-- findings:{name} -->\n(.*?)^<!-- /findings:{name} -->$", text, re.MULTILINE | re.DOTALL)
    if found is None:
        raise Missing(f"docs/findings.md has no findings:{name} block")
    return found[1]


def table(body: str, first: str) -> list[dict[str, str]]:
    """The rows of the block's first Markdown table whose header starts with `first`, as {header: cell}."""
    lines = body.splitlines()
    for at, line in enumerate(lines):
        if line.startswith(f"| {first} |"):
            headers = [c.strip() for c in line.strip("|").split("|")]
            rows = []
            for row in lines[at + 2:]:
                if not row.startswith("|"):
                    break
                rows.append(dict(zip(headers, (c.strip() for c in row.strip("|").split("|")), strict=True)))
            return rows
    raise Missing(f"no table starting `| {first} |` in the block")


def cell(rows: list[dict], column: str, **where) -> str:
    for row in rows:
        if all(row.get(k) == v for k, v in where.items()):
            return row[column]
    raise Missing(f"no row {where} with {column}")


def delta(text: str) -> str:
    """`+5.77 [+5.15 to +6.51] slower` → `+5.77 [+5.15 to +6.51]`."""
    return text.rsplit(" ", 1)[0]


def figures(findings: str) -> dict[str, str]:
    """Every figure the headline quotes, each as the page's blocks print it."""
    tokio = table(block(findings, "claim5"), "link")
    runtimes = table(block(findings, "claim2"), "transport")
    decoys = table(block(findings, "claim4"), "framework")
    machine = table(block(findings, "machine"), "sweep")
    async_std, smol = "async-std − std µs (schedule, paired)", "smol − std µs (schedule, paired)"
    said = {fw: [row[c].rsplit(" ", 1)[-1] for row in runtimes] for fw, c in (("async-std", async_std), ("smol", smol))}
    spin, most = "spin (the suite's)", "1000 tasks: p50 µs [95 %] ×(÷ 0 tasks)"
    times = {fw: cell(decoys, most, framework=fw, decoys=spin).split(" ×")[1].split(" ")[0]
             for fw in ("tokio", "async-std", "smol")}
    return {
        "date": cell(machine, "started (UTC)", sweep="main").split(" ")[0],
        "idle": cell(machine, "cpuidle driver, states", sweep="main").split(" ")[0],
        "tune": cell(machine, "TUNE: /dev/cpu_dma_latency", sweep="main").split(":")[0],
        "std": cell(tokio, "std p50 µs [95 %]", link="loopback", transport="tcp", **{"msg/s": "∞"}),
        "tokio": delta(cell(tokio, "tokio − std µs [95 %], verdict", link="loopback", transport="tcp",
                            **{"msg/s": "∞"})),
        "async-std": delta(cell(runtimes, async_std, transport="tcp", **{"msg/s": "∞"})),
        "smol": delta(cell(runtimes, smol, transport="tcp", **{"msg/s": "∞"})),
        "points": str(len(runtimes)), "faster": str(sum(v.count("faster") for v in said.values())),
        **{f"slower {fw}": str(v.count("slower")) for fw, v in said.items()},
        "decoys": ", ".join(f"×{times[fw]} for {fw}" for fw in times),
    }


def headline(findings: str) -> str:
    """The block's body: a few sentences, every figure from the page."""
    f = figures(findings)
    return (f"Measured on this suite's 2-vCPU VM (sweep `main`, {f['date']}, cpuidle `{f['idle']}`, `{f['tune']}`):\n"
            f"back-to-back over TCP, std's p50 is {f['std']} µs.\n"
            f"tokio adds {f['tokio']} µs, async-std {f['async-std']} µs and smol {f['smol']} µs.\n"
            f"Over TCP and UDP, 10 msg/s to back-to-back, async-std is `slower` than std at {f['slower async-std']} "
            f"of {f['points']} points and smol at {f['slower smol']}; either is `faster` at {f['faster']}.\n"
            f"With 1000 CPU-bound decoy tasks beside the ping, the p50 grows {f['decoys']}.\n")


def rewrite(readme: str, findings: str) -> str:
    return page.rewrite(readme, {BLOCK: headline(findings)})


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python3 -m findings.headline", description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 when README.md's block is not the page's")
    p.add_argument("--readme", type=Path, default=REPO / "README.md")
    p.add_argument("--page", type=Path, default=REPO / "docs" / "findings.md")
    ns = p.parse_args(argv)
    readme = ns.readme.read_text()
    try:
        new = rewrite(readme, ns.page.read_text())
    except (Missing, page.PageError) as e:
        print(f"findings.headline: {e}", file=sys.stderr)
        return 2
    if ns.check:
        if new != readme:
            print(f"findings.headline: {ns.readme}'s headline is not {ns.page}'s: run python3 -m findings.headline",
                  file=sys.stderr)
            return 1
        return 0
    ns.readme.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
