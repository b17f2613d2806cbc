"""The transports, declared once: what PROTOCOLS and -p take, which MODEs sweep each, and how figures draw them.

Each entry is a value of the binaries' --protocol and of a log's "transport". The sweep checks PROTOCOLS
against it and reads a pong's `listening on ADDR (NAME)` line by it; the analysis takes -p's choices, the
transports' order and line styles from it (suite/palette.py). ICMP is the system ping's, a reference's:
never in PROTOCOLS. Standard library only.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Transport:
    name: str  # --protocol's value, a log's "transport", sweep.json's points[].transport
    what: str  # in words, for -h and messages
    modes: tuple[str, ...]  # the sweep MODEs that take it in PROTOCOLS; (): a reference's own
    default: bool  # in PROTOCOLS' default
    ports: str  # the kernel's port space it binds in (tcp, udp; icmp: none): two of one space need two ports
    style: str | tuple  # its lines' style (matplotlib)
    variant_style: str | tuple  # a variant's lines over it
    # Messages in flight per connection in open load, when the transport caps it (HTTP/1.1 without
    # pipelining: one request at a time); None: the ping's --window.
    window: int | None = None

    @property
    def title(self) -> str:
        """Its name in titles and legends: TCP, HTTP."""
        return self.name.upper()


TRANSPORTS = (
    Transport("tcp", "the payload echoed on a TCP stream", ("rtt", "throughput"), True, "tcp", "-", "-."),
    Transport("udp", "a datagram and its echo", ("rtt", "throughput"), True, "udp", "--", ":"),
    # Dash-dot-dot, and densely dashed for a variant: apart from every other transport's in greyscale too.
    Transport("http", "HTTP/1.1 POST /echo, the payload as its body", ("rtt",), False, "tcp",
              (0, (6, 2, 1, 2, 1, 2)), (0, (2, 1)), window=1),
    Transport("icmp", "the system ping's echo (a reference)", (), False, "", ":", ":"),
)
ORDER = tuple(t.name for t in TRANSPORTS)  # tables' and figures' order
SWEPT = tuple(t.name for t in TRANSPORTS if t.modes)  # what PROTOCOLS may name
DEFAULT = " ".join(t.name for t in TRANSPORTS if t.default)  # PROTOCOLS' default: "tcp udp"


def by_name(name: str) -> Transport | None:
    return next((t for t in TRANSPORTS if t.name == name), None)


def swept_in(mode: str) -> tuple[str, ...]:
    """The transports a sweep of MODE takes (rtt: tcp udp http; throughput: tcp udp)."""
    return tuple(t.name for t in TRANSPORTS if mode in t.modes)


def port_block(name: str, protocols) -> int:
    """Which block of ports a transport's pongs take under run-network.sh --serve, one port per pong in each:
    0 for the first of `protocols` in its port space, in this table's order (TCP and UDP share their numbers), 1
    for the next (HTTP beside TCP), and so on."""
    space, given = by_name(name).ports, set(protocols)
    same = [t.name for t in TRANSPORTS if t.name in given and t.ports == space]  # the table's order, not the knob's
    return same.index(name) if name in same else 0


def listing(names) -> str:
    """"tcp, udp or http"."""
    names = list(names)
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
