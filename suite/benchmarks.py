"""The in-process benchmarks' names, event types and default sizes, as the Rust binaries describe them."""

# schema/micro-benchmarks.json is what `<runtime>-micro --describe` prints, committed (a Rust test
# fails when it is stale: `UPDATE_SCHEMA=1 cargo test -p rtt-micro describe` rewrites it), so that the
# sweep and the analysis read one list instead of restating it, without a built binary.

import json
from pathlib import Path

FILE = Path(__file__).resolve().parent.parent / "schema" / "micro-benchmarks.json"
_DESCRIBED = json.loads(FILE.read_text(encoding="utf-8"))

DEFAULTS: dict[str, dict] = _DESCRIBED["benches"]  # benchmark → the sizes it takes, at their defaults
BENCHES = tuple(DEFAULTS)  # in the binaries' order
SCHEDULER = tuple(b for b, sizes in DEFAULTS.items() if "tasks" in sizes)  # the benchmarks sized in tasks
EVENT_TYPES = tuple(_DESCRIBED["event_types"])
STRING_EVENTS = tuple(e for e in EVENT_TYPES if e != "int")  # the event types --event-size applies to
DEFAULT_EVENT_SIZE: int = _DESCRIBED["event_size"]
