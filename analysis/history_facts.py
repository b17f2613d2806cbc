"""What changed around a sweep besides the code measured: the machine's facts, the suite's commit, the runtime's version.

A history names these beside a change and the gate beside its call, so that a step that came with a new kernel,
idle CPUs no longer held (TUNE) or another suite commit is read as such. Each sweep is compared with the sweep of
its kind recorded before it, whatever its machine (a new fingerprint also starts new series: history.SERIES).
"""

import pandas as pd

# The fingerprint's facts of a host (tracked.MACHINE), in words.
WORDS = {"host": "host", "cpu_model": "CPU", "arch": "arch", "cpus_online": "CPUs online", "kernel": "kernel",
         "cpuidle_driver": "cpuidle", "idle_states": "idle states", "guest_halt_poll_ns": "guest_halt_poll_ns",
         "clocksource": "clocksource"}
WIDEST = 40  # characters of a fact's value shown


def _short(value) -> str:
    text = str(value)
    return text if len(text) <= WIDEST else text[:WIDEST - 1] + "…"


def differences(old: dict, new: dict) -> list[str]:
    """Two machines' fingerprints (tracked.Facts.machine), what differs, in words: "kernel 6.1.0 → 6.2.0"."""
    olds, news = old.get("hosts", []), new.get("hosts", [])
    out = [f"hosts {len(olds)} → {len(news)}"] if len(olds) != len(news) else []
    for a, b in zip(olds, news):
        prefix = f"{b.get('host')}: " if len(news) > 1 else ""
        out += [f"{prefix}{word} {_short(a.get(key))} → {_short(b.get(key))}" for key, word in WORDS.items()
                if a.get(key) != b.get(key)]
    if old.get("cpu_dma_latency") != new.get("cpu_dma_latency"):
        out.append(f"idle CPUs held (TUNE) {_short(old.get('cpu_dma_latency'))} → "
                   f"{_short(new.get('cpu_dma_latency'))}")
    return out


def changed(table: pd.DataFrame) -> list[list[str]]:
    """For each sweep of a history (history.sweeps' rows, in time order), what differs from the sweep of its kind
    before it: the machine's facts and the suite's commit; [] for the first of its kind."""
    out, last = [], {}
    for row in table.itertuples():  # a loop over sweeps
        before = last.get(row.kind)
        words = []
        if before is not None:
            words = differences(before.machine, row.machine)
            if before.suite_version != row.suite_version:
                words.append(f"suite {str(before.suite_version)[:12]} → {str(row.suite_version)[:12]}")
        out.append(words)
        last[row.kind] = row
    return out


def at(sweeps: pd.DataFrame, position: int, by_sweep: dict) -> list[str]:
    """What changed at a series' sweep (its rows: history_db.read's columns): the history's changes of that
    sweep (by_sweep: sweep id → changed's words) and its runtime's version against the series' sweep before."""
    row = sweeps.iloc[position]
    words = list(by_sweep.get(int(row["sweep"]), []))
    if position >= 1 and sweeps["runtime_version"].iloc[position - 1] != row["runtime_version"]:
        words.append(f"{row['runtime']} {sweeps['runtime_version'].iloc[position - 1]} → {row['runtime_version']}")
    return words
