"""Runs every sweep docs/findings.md uses, one after another, redraws its figures and rewrites the blocks between
its markers (tables, commands, the machine); the prose between the blocks stays as written. Then the README's
headline, which quotes those blocks (findings/headline.py).

    python3 -m findings.regenerate               # every sweep (docs/findings.md, "The sweeps": how long), then the page
    python3 -m findings.regenerate --no-sweep    # the page again from the newest folder of each sweep
    python3 -m findings.regenerate --only main   # one sweep again, then the page
"""

# The network sweep runs in two network namespaces (tests/netns_lab.py): root, iproute2 and openssh-server.

import argparse
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from suite.fmt import duration

from . import headline, machine, numbers, page
from .sweeps import BY_NAME, LAB_SUBNET, SWEEPS

REPO = Path(__file__).resolve().parents[1]
PAGE, README = REPO / "docs" / "findings.md", REPO / "README.md"
GRACE_S = 120  # beyond a sweep's 1.5 × its budget: its closing table and the lab's set-up


@dataclass(frozen=True)
class Request:
    sweeps: tuple[str, ...]  # to run; empty with --no-sweep
    page: Path
    figures: Path
    out_dir: Path


def parse_args(argv) -> Request:
    p = argparse.ArgumentParser(prog="python3 -m findings.regenerate", description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", choices=sorted(BY_NAME), metavar="SWEEP",
                   help=f"run only this sweep (repeatable): {', '.join(BY_NAME)}")
    p.add_argument("--no-sweep", action="store_true", help="run nothing: redraw from the newest folder of each sweep")
    p.add_argument("--page", type=Path, default=PAGE)
    p.add_argument("--out-dir", type=Path, default=REPO / "latency-logs" / "findings",
                   help="each sweep's folders go under OUT_DIR/NAME (default latency-logs/findings)")
    ns = p.parse_args(argv)
    chosen = () if ns.no_sweep else tuple(ns.only or BY_NAME)
    return Request(chosen, ns.page, ns.page.with_suffix(""), ns.out_dir)


# -- the sweeps ------------------------------------------------------------------------------------------------

INTERRUPTED = {128 + signal.SIGINT, 128 + signal.SIGTERM, 128 + signal.SIGHUP}  # a sweep's status once stopped


def stopped(signum, _frame):
    """SIGINT, SIGTERM or SIGHUP: raised where this process waits, so that its sweep is stopped too (a second signal
    it ignores), and nothing follows; the shell's exit status after such a signal."""
    raise SystemExit(128 + signum)


def wait(proc: subprocess.Popen, deadline_s: float) -> int:
    """The sweep's exit status; past its deadline, or when this process is stopped, it is stopped as Ctrl-C would
    (it stops its own ends): a sweep never outlives the regeneration that started it."""
    try:
        return proc.wait(timeout=deadline_s)
    except subprocess.TimeoutExpired:
        print(f"findings: {proc.args[0]} passed its deadline of {deadline_s:.0f} s: stopping it", file=sys.stderr)
        return end(proc)
    except BaseException:
        print(f"findings: stopped: stopping {proc.args[0]}; the page stays as it was", file=sys.stderr)
        end(proc)
        raise


def end(proc: subprocess.Popen) -> int:
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()


def run_sweep(name: str, out_dir: Path) -> int:
    sweep = BY_NAME[name]
    env = {**os.environ, **sweep.env(), "OUT_DIR": str(out_dir / name)}
    argv = [f"./{sweep.script}", *shlex.split(sweep.flags)]
    deadline = sweep.minutes * 60 * 1.5 + GRACE_S
    print(f"findings: sweep {name}: {sweep.command()}", file=sys.stderr, flush=True)
    if not sweep.network:
        return wait(subprocess.Popen(argv, env=env, cwd=REPO), deadline)
    # The two-host tests' lab, the one place that builds it (the repository root is on the path under -m).
    from tests.netns_lab import Lab, missing_prerequisites

    why_not = missing_prerequisites()
    if why_not:
        print(f"findings: sweep {name} skipped: {why_not}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="findings-lab-") as lab_dir:
        lab = Lab(lab_dir, subnet=LAB_SUBNET)
        try:
            lab.up()
            env["SSH_OPTS"] = lab.ssh_opts
            return wait(subprocess.Popen(lab.in_ns(lab.ns_a, argv), env=env, cwd=REPO), deadline)
        finally:
            lab.down()


def newest(out_dir: Path, name: str) -> Path | None:
    """The newest finished folder of a sweep (folder names end in their start time)."""
    folders = sorted((p for p in (out_dir / name).glob("*-*") if (p / "sweep.json").is_file()),
                     key=lambda p: p.name.rsplit("-", 2)[-2:])
    return folders[-1] if folders else None


# -- the page --------------------------------------------------------------------------------------------------

def parse_py(*args: str) -> str | None:
    """parse.py's output; None, said on stderr, when it fails (that part of its block is left out)."""
    done = subprocess.run([sys.executable, str(REPO / "parse.py"), *args], cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"findings: parse.py {' '.join(args)} failed: {done.stderr.strip()}", file=sys.stderr)
        return None
    return done.stdout


# (block, sweep, figure file, parse.py figures arguments, alt text)
FIGURES = (
    ("main", "main", "main.png", ("-t", "delta"), "the latency each runtime adds over std"),
    ("claim1", "main", "claim1.png", ("-t", "stat", "-f", "std,busy-poll"), "std and the busy-poll floor"),
    ("claim2", "main", "claim2.png", ("-t", "delta", "-f", "std,async-std,smol"), "async-std and smol minus std"),
    ("claim3", "pacing", "claim3.png", ("-t", "stat", "-f", "std,tokio,std-sleep,tokio-sleep"),
     "tokio and std, paced by schedule and by a sleep after each reply"),
    ("claim4", "decoys", "claim4.png", ("-t", "tasks"), "p50 and p99 against the decoy count"),
    ("claim5", "network", "claim5.png", ("-t", "delta"), "tokio minus std across the veth pair"),
    ("why", "phases", "why-costs.png", ("-t", "costs"), "each end's CPU per message, the rest, and the Δ in parts"),
)
# (block, sweep, parse.py command, its filters): the full tables, with intervals, folded under each block
TABLES = (
    ("claim1", "main", "table", ("-f", "std,busy-poll", "-r", "1k,inf")),
    ("claim2", "main", "table", ("-f", "std,async-std,smol")),
    ("claim2", "pacing", "table", ("-f", "std-sleep,async-std-sleep,smol-sleep")),
    ("claim3", "pacing", "table", ("-f", "std,tokio,std-sleep,tokio-sleep")),
    ("claim3", "main", "table", ("-f", "tokio",)),
    ("claim4", "decoys", "table", ()),
    ("claim5", "network", "table", ()),
    ("claim5", "main", "table", ("-f", "std,tokio", "-r", "1k,inf")),
    ("why", "phases", "costs", ()),
    ("why", "phases", "table", ()),
    ("versions", "versions", "table", ()),
)
DERIVED = {  # block: (the sweeps it needs, the table it draws from their CSV tables)
    "claim2": (("main", "pacing"), numbers.async_table),
    "claim3": (("main", "pacing"), numbers.transports_table),
    "claim4": (("decoys",), numbers.decoys_table),
    "claim5": (("main", "network"), numbers.tokio_added_table),
    "laptop": (("main", "pacing"), numbers.laptop_table),
    "versions": (("versions",), numbers.versions_table),
}
BLOCK_SWEEPS = {"claim1": ("main",), "claim2": ("main", "pacing"), "claim3": ("pacing", "main"),
                "claim4": ("decoys",), "claim5": ("main", "network"), "why": ("phases",),
                "versions": ("versions",)}
# (block, sweep, figure file): parse.py phases' table and pages of a TRACE=1 sweep
PHASES = (("why", "phases", "why.png"),)


def rel(path: Path) -> str:
    return str(path.relative_to(REPO)) if path.is_relative_to(REPO) else str(path)


def took(folder: Path | None) -> str:
    """What the sweep of `folder` took, as its sweep.json says: `, the last took 6m02s`; empty when unknown."""
    try:
        wall = json.loads((folder / "sweep.json").read_text())["wall_s"] if folder else None
    except (OSError, ValueError, KeyError):
        wall = None
    return f" (the last took {duration(wall)})" if isinstance(wall, (int, float)) else ""


def unmeasured(folders: dict[str, Path], names) -> str:
    """The points of these sweeps that have no figure, each with why (sweep.json: a run its runtime never finished,
    a rate the system ping cannot pace): a "–" in a table is shown as what it is."""
    said = []
    for name in names:
        try:
            points = json.loads((folders[name] / "sweep.json").read_text())["points"]
        except (OSError, ValueError, KeyError):
            continue
        said += [f"- `{p['stem']}` ({name}): {p['message']}" for p in points if p.get("status") == "skipped"]
    return "\n\nNot measured:\n\n" + "\n".join(said) + "\n" if said else ""


def command_lines(names, folders=None) -> str:
    body = []
    for name in names:
        sweep = BY_NAME[name]
        where = f" (inside namespace A of the lab; B is {LAB_SUBNET}.2)" if sweep.network else ""
        body.append(f"Sweep `{name}`, {sweep.about}; {sweep.bound} {sweep.minutes:g} min here{took((folders or {}).get(name))}"
                    f"{where}:\n\n"
                    f"```sh\n{sweep.command()}\n```\n")
    return "\n".join(body)


def bodies(folders: dict[str, Path], figures: Path, link: str) -> dict[str, str]:
    """Every block whose sweeps have a folder: its commands, figure (`link`/FILE from the page), derived table
    and full tables."""
    parts: dict[str, list[str]] = {}
    figures.mkdir(parents=True, exist_ok=True)
    for block, sweep, file, args, alt in FIGURES:
        image = figures / file
        for old in [image, *image.parent.glob(f"{image.stem}-[0-9]*{image.suffix}")]:
            old.unlink(missing_ok=True)  # a page fewer than last time leaves no stale image behind
        if sweep in folders and parse_py("figures", "-d", str(folders[sweep]), *args, "-o", str(image)) is not None:
            pages = [image, *sorted(image.parent.glob(f"{image.stem}-[0-9]*{image.suffix}"))]
            if block != "main":
                parts.setdefault(block, []).append("".join(f"![{alt}]({link}/{p.name})\n" for p in pages))
    csv = {name: numbers.rows(parse_py("table", "-d", str(folder), "--format", "csv") or "") for name, folder in folders.items()}
    for block, (needs, draw) in DERIVED.items():
        if all(n in csv for n in needs):
            parts.setdefault(block, []).append(draw(*(csv[n] for n in needs)) + unmeasured(folders, needs))
    for block, sweep, file in PHASES:
        if sweep in folders:
            image = figures / file
            for old in [image, *image.parent.glob(f"{image.stem}-[0-9]*{image.suffix}")]:
                old.unlink(missing_ok=True)
            table = parse_py("phases", "-d", str(folders[sweep]), "--format", "markdown", "-o", str(image))
            shown = " ".join(["python3 parse.py phases -d", rel(folders[sweep]), "--format markdown"])
            for extra in image.parent.glob(f"{image.stem}-[0-9]*{image.suffix}"):
                extra.unlink()  # the page shows the bars; the timelines are parse.py phases -o's
            if table is not None:
                parts.setdefault(block, []).append(f"![where a round trip's time goes]({link}/{file})\n\n"
                                                   f"`{shown}`:\n\n{table}")
    for block, sweep, command, args in TABLES:
        if sweep in folders:
            wide = ("--wide",) if command == "table" else ()  # the folded tables: every column
            shown = " ".join([f"python3 parse.py {command} -d", rel(folders[sweep]), *args, *wide, "--format markdown"])
            table = parse_py(command, "-d", str(folders[sweep]), *args, *wide, "--format", "markdown")
            if table is not None:
                parts.setdefault(block, []).append(
                    f"<details><summary><code>{shown}</code></summary>\n\n{table}\n</details>\n")
    out = {}
    for block, needs in BLOCK_SWEEPS.items():
        if all(n in folders for n in needs):
            out[block] = command_lines(needs, folders) + "\n" + "\n".join(parts.get(block, []))
    if "laptop" in parts:
        out["laptop"] = "\n".join(parts["laptop"])
    if folders:
        out["machine"] = machine.table(folders) + "\nThe system check's warnings as each sweep started:\n\n" + \
            machine.warnings(folders)
    out["sweeps"] = command_lines((n.name for n in SWEEPS), folders) + \
        f"\nIn all about {sum(s.minutes for s in SWEEPS):g} min of sweeps at most, one after another.\n"
    return out


def main(argv=None) -> int:
    asked = parse_args(sys.argv[1:] if argv is None else argv)
    if asked.sweeps:
        print(f"findings: {len(asked.sweeps)} sweeps, about {sum(BY_NAME[n].minutes for n in asked.sweeps):g} min",
              file=sys.stderr, flush=True)
    failed, start = [], time.monotonic()
    for name in asked.sweeps:
        began = time.monotonic()
        status = run_sweep(name, asked.out_dir)
        if status in INTERRUPTED:  # stopped from outside (its folder says so, and --continue goes on from there)
            print(f"findings: sweep {name} was stopped (exit {status}): no further sweep, the page as it was",
                  file=sys.stderr)
            return status
        if status != 0:
            failed.append(name)
        print(f"findings: sweep {name} took {duration(time.monotonic() - began)} (about {BY_NAME[name].minutes:g} min "
              "stated)", file=sys.stderr, flush=True)
    if asked.sweeps:
        print(f"findings: the sweeps took {duration(time.monotonic() - start)} in all", file=sys.stderr, flush=True)
    folders = {s.name: f for s in SWEEPS if (f := newest(asked.out_dir, s.name)) is not None}
    missing = [s.name for s in SWEEPS if s.name not in folders]
    if missing:
        print(f"findings: no folder yet for {', '.join(missing)}: their blocks stay as they are", file=sys.stderr)
    blocks = bodies(folders, asked.figures, os.path.relpath(asked.figures, asked.page.parent))
    # Read the page only now: drawing the blocks takes minutes, and prose edited meanwhile must survive.
    asked.page.write_text(page.rewrite(asked.page.read_text(), blocks))
    print(f"findings: rewrote {rel(asked.page)} from {', '.join(rel(f) for f in folders.values()) or 'no sweep'}",
          file=sys.stderr)
    if asked.page == PAGE:  # the README's headline quotes this page's blocks
        README.write_text(headline.rewrite(README.read_text(), PAGE.read_text()))
        print(f"findings: rewrote {rel(README)}'s headline from {rel(PAGE)}", file=sys.stderr)
    if failed:
        print(f"findings: some runs of {', '.join(failed)} failed or were stopped: see their sweep.json", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    for caught in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(caught, stopped)
    sys.exit(main())
