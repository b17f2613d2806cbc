"""Which entries of runtimes.json a sweep measures (its flags), which of them have a pong, and their own arguments."""

from suite import runtimes


def has_pong(entry) -> bool:
    """A runtime, or a reference the suite's own binaries measure (e.g. busy-poll: std-ping against
    std-pong, with extra arguments); the ICMP reference runs another program and has no pong, and
    the Go reference (MODE=micro only) has its benchmark binary alone."""
    return entry.binary_prefix is not None and (entry.takes_part("rtt") or entry.takes_part("throughput"))


def extra_args(entry, end: str) -> tuple[str, ...]:
    """A reference's own arguments for its `ping` or `pong` (runtimes.json `ping_args`, `pong_args`)."""
    return entry.ping_args if end == "ping" else entry.pong_args


def pong_entries() -> list:
    """Every entry with a pong in the list's order (runtimes, then such references): a pong's
    position here is its --serve port's offset from BASE_PORT."""
    return [e for e in runtimes.entries() if has_pong(e)]


def flag_list(entries) -> str:
    """-S, -t, -a or -s"""
    flags = [f"-{e.flag}" for e in entries]
    return flags[0] if len(flags) == 1 else f"{', '.join(flags[:-1])} or {flags[-1]}"


def select(flags: str, context: str, mode: str = "rtt", variants: bool = False,
           drops: bool = False) -> tuple[list[runtimes.Entry], str | None]:
    """The entries chosen by the flag letters, in the list's order, or a usage problem; no flag is
    enough when VARIANTS gives something to measure (`variants`); `drops`: the MODE drops an entry that
    takes no part with a warning (MODE=micro), rather than refusing it here."""
    chosen = set()
    for letter in flags:
        entry = runtimes.by_flag(letter)
        if entry is None:
            return [], f"unknown flag -{letter}"
        chosen.add(entry.label)
    selection = [e for e in runtimes.entries() if e.label in chosen]
    if not selection and not variants:
        every = " ".join(f"-{e.flag}" for e in runtimes.entries())
        return [], f"choose what to measure: at least one of {every}"
    for e in selection:  # MODE=micro drops an entry without a benchmark with a warning (sweepkit.modes.micro)
        if e.modes and mode not in e.modes and not drops:  # e.g. -G, the Go reference of MODE=micro
            only = " or ".join(f"MODE={m}" for m in e.modes)
            return [], f"-{e.flag} ({e.label}) runs only with {only}, not MODE={mode}: {e.about}"
    if context == "serve":
        reference = next((e for e in selection if not has_pong(e)), None)
        if reference is not None:
            return [], f"-{reference.flag} needs no pong: leave it out of --serve"
    for e in selection:  # words, as PING_EXTRA is split into (and as the shell did)
        if any(not arg or any(c.isspace() for c in arg) for arg in extra_args(e, "ping") + extra_args(e, "pong")):
            return [], f"-{e.flag}: runtimes.json gives it an empty argument or one with a space"
    return selection, None
