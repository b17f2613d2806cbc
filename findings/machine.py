"""The machine each of the page's sweeps ran on and how long it took, as its sweep.json records it."""

import json
from pathlib import Path


def record(folder: Path) -> dict:
    return json.loads((folder / "sweep.json").read_text())


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {round(seconds % 60):02d} s"


def table(folders: dict[str, Path]) -> str:
    """A row per sweep and host: what ran, where, under which idle setting, from which commit."""
    lines = ["| sweep | folder | started (UTC) | wall | rounds | runs ok | host (role) | CPU | kernel "
             "| cpuidle driver, states | guest_halt_poll_ns | TUNE: /dev/cpu_dma_latency | suite commit |",
             "|" + " :-- |" * 13]
    total = 0.0
    for name, folder in folders.items():
        sweep = record(folder)
        total += sweep.get("wall_s") or 0
        for host, facts in sweep["hosts"].items():
            lines.append("| " + " | ".join([
                name, f"`{folder.name}`", str(sweep.get("started_at", ""))[:16].replace("T", " "),
                minutes(sweep.get("wall_s") or 0), str(sweep.get("repeats", "")),
                f"{sweep.get('counts', {}).get('ok', 0)} of {len(sweep.get('runs', []))}",
                host if f"({facts.get('role')})" in host else f"{host} ({facts.get('role', '')})",
                facts.get("cpu_model", ""), facts.get("kernel", ""),
                f"{facts.get('cpuidle_driver', '')} ({facts.get('idle_states', '')})",
                str(facts.get("guest_halt_poll_ns", "")),
                f"TUNE={sweep['knobs'].get('TUNE', '')}: {sweep.get('cpu_dma_latency', '')}"
                if facts.get("role") in ("local", "ping") else "not asked on this host",
                str(facts.get("suite_commit", ""))[:10]]) + " |")
    return "\n".join(lines) + f"\n\nWall time of the {len(folders)} sweeps above: {minutes(total)}.\n"


def warnings(folders: dict[str, Path]) -> str:
    """The system check's warnings each sweep started under (other work on the machine, mostly)."""
    found = [f"- {name}, {host}: {w}" for name, folder in folders.items()
             for host, facts in record(folder)["hosts"].items() for w in facts.get("warnings") or []]
    return "\n".join(found) + "\n" if found else "- none\n"
