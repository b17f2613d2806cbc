"""How every figure and table looks: framework colours, transport line styles, how numbers are written."""

# No data handling, no drawing. Standard library only: the sweep scripts write their numbers with it.

import math

from . import runtimes

# The frameworks' colours and order are runtimes.json's (Okabe–Ito colours there: distinguishable
# with colour-blindness and in greyscale print); a framework it does not list gets a spare one.
FRAMEWORK_COLOURS = {e.label: e.colour for e in runtimes.entries()}
_SPARE_COLOURS = ("#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
FRAMEWORK_ORDER = runtimes.labels()
BASELINE = "std"  # every runtime's added latency is measured against it
REFERENCES = frozenset(e.label for e in runtimes.entries() if e.reference)  # drawn dashed, no Δ
TRANSPORT_ORDER = ("tcp", "udp", "icmp")
TRANSPORT_STYLES = {"tcp": "-", "udp": "--", "icmp": ":"}
# A variant (VARIANTS: a runtime run with other options) is drawn in a shade of its base's colour,
# with its base's marker and these line styles, so that the family stays recognisable.
VARIANT_STYLES = {"tcp": "-.", "udp": ":"}
# The shade of a runtime's k-th variant (its variants sorted by label): darker, lighter, darker…,
# further from the base colour each pair; a share of the way to black or to white.
_SHADE_STEP, _SHADE_FIRST, _SHADE_MOST = 0.2, 0.35, 0.75
_variants: dict[str, str] = {}  # variant label → base runtime label, of every log read in this process

PAGE_SIZE = (11.0, 7.5)  # inches, landscape; every page of a report has the same size


def add_variants(bases: dict[str, str]) -> None:
    """Makes the variants of the logs just read known (label → base runtime): their colours, line
    styles and order derive from their base's. analysis/sweep.py calls it for every folder it reads."""
    _variants.update(bases)


def base_of(series: str) -> str:
    """A variant's base runtime; any other label is its own."""
    return _variants.get(series, series)


def is_variant(series: str) -> bool:
    return series in _variants


def shade(hex_colour: str, k: int) -> str:
    """The k-th shade of a colour (k from 0): alternately darker and lighter, further each pair."""
    share = min(_SHADE_MOST, _SHADE_FIRST + _SHADE_STEP * (k // 2))
    target = 0 if k % 2 == 0 else 255
    rgb = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (target - c) * share):02X}" for c in rgb)


def colour(framework: str) -> str:
    """The colour of a framework or variant (a shade of its base's: the k-th of that base's
    variants by label gets shade k); frameworks the suite does not know get a stable spare one."""
    if framework in _variants:
        base = _variants[framework]
        siblings = sorted(label for label, of in _variants.items() if of == base)
        return shade(colour(base), siblings.index(framework))
    if framework in FRAMEWORK_COLOURS:
        return FRAMEWORK_COLOURS[framework]
    return _SPARE_COLOURS[sum(framework.encode()) % len(_SPARE_COLOURS)]


def series_rank(values) -> list[int]:
    """Sort positions of series labels: the list's order, each variant right after its base,
    unknown labels last (ties: sort by the label too)."""
    return [2 * order_key([base_of(v)], FRAMEWORK_ORDER)[0] + is_variant(v) for v in values]


def is_reference(framework: str) -> bool:
    """A reference baseline of runtimes.json (ICMP ping, busy polling, go, kotlin): a floor, not a runtime."""
    return framework in REFERENCES


def micro_line(framework: str) -> tuple[str, str, float]:
    """(line style, marker, width) of a framework's lines in the micro figures: runtimes solid with
    circles; each reference that runs micro benchmarks (go, kotlin) thinner, with its own dashes and
    marker, in the list's order, so that two references stay apart beside their colours."""
    if not is_reference(framework):
        return "-", "o", 2.0
    mine = [e.label for e in runtimes.entries() if e.reference and e.takes_part("micro")]
    k = mine.index(framework) if framework in mine else len(mine)
    return *_MICRO_REFERENCE_LINES[k % len(_MICRO_REFERENCE_LINES)], 1.4


_MICRO_REFERENCE_LINES = (("--", "s"), ("-.", "D"), (":", "^"))


def linestyle(transport: str, series: str | None = None) -> str:
    """A transport's line style; a variant's (VARIANT_STYLES) when `series` is one."""
    if series is not None and is_variant(series):
        return VARIANT_STYLES.get(transport, "-.")
    return TRANSPORT_STYLES.get(transport, "-.")


def order_key(values, order) -> list[int]:
    """Sort positions for `values` following `order`, unknown values last."""
    return [order.index(v) if v in order else len(order) for v in values]


def settings(config: dict) -> str:
    """Runtime settings as a footnote writes them: {"flavor": "current_thread", "threads": 1} →
    "flavor=current_thread, threads=1"."""
    return ", ".join(f"{key}={'null' if value is None else value}" for key, value in config.items())


def si(value: float) -> str:
    """10 → "10", 1000 → "1 k", 2500 → "2.5 k", 1e6 → "1 M": three significant digits."""
    if not math.isfinite(value):
        return f"{value:g}"
    value = float(f"{value:.3g}")  # round first, so 999.9 reads "1 k", never "1e+03"
    for factor, prefix in ((1e9, " G"), (1e6, " M"), (1e3, " k")):
        if abs(value) >= factor:
            return f"{value / factor:.3g}{prefix}"
    return f"{value:g}"


def rate_label(interval_s: float) -> str:
    """Tick label of the message rate asked for by an interval: 0.001 s → "1 k", 0 → "∞"."""
    if interval_s <= 0 or not math.isfinite(interval_s):
        return "∞"
    return si(1.0 / interval_s)


def us(value_ns: float) -> str:
    """A latency in ns written in µs with four significant digits (whole µs from 10 ms on, never
    in exponent form), "–" when unknown."""
    if value_ns is None or not math.isfinite(value_ns):
        return "–"
    value_us = value_ns / 1e3
    return f"{value_us:.0f}" if abs(value_us) >= 1e4 else f"{value_us:.4g}"


def size_label(size: float) -> str:
    """A payload size: 64 → "64 B", 1024 → "1 KiB", 1048576 → "1 MiB", 65507 → "65507 B"."""
    size = int(round(size))
    for factor, unit in ((2**20, "MiB"), (2**10, "KiB")):
        if size >= factor and size % factor == 0:
            return f"{size // factor} {unit}"
    return f"{size} B"


def plain(value: float) -> str:
    """A number as short as it is exact enough: 0.001 → "0.001", 1e-05 → "1e-05", 64.0 → "64"."""
    return f"{value:g}"


def count(value) -> str:
    """A count, "–" when unknown (None or NaN)."""
    return "–" if value is None or (isinstance(value, float) and math.isnan(value)) else str(int(value))


def gbit(value: float) -> str:
    """Gb/s to three significant digits without an exponent, "–" when unknown."""
    if not math.isfinite(value):
        return "–"
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def window_label(window_s: float) -> str:
    """A throughput window's length: 0.1 → "100 ms"."""
    return f"{1e3 * window_s:g} ms"


def percent(share: float) -> str:
    """A share as a percentage: 0.999 → "99.9 %"."""
    return f"{100 * share:g} %"


def time_ns(value_ns: float | None) -> str:
    """A time in ns with its unit and three significant digits: 45.6 ns, 1.23 µs, 7.3 ms, 1.82 s;
    "–" when unknown."""
    if value_ns is None or not math.isfinite(value_ns):
        return "–"
    value = float(f"{value_ns:.3g}")  # round first, so 999.9 ns reads "1 µs"
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if abs(value) >= factor:
            scaled = value / factor
            return f"{scaled:.0f} {unit}" if abs(scaled) >= 1000 else f"{scaled:.3g} {unit}"
    return f"{value:.3g} ns"


def bytes_iec(value: float | None) -> str:
    """A memory size with a binary prefix and three significant digits: 9.54 MiB, 1.2 GiB; "–" when unknown."""
    if value is None or not math.isfinite(value):
        return "–"
    for factor, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {unit}"
    return f"{value:.0f} B"
