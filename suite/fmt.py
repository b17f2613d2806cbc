"""Every number and time as the suite writes it for people: rates, latencies, sizes, counts, durations."""

# Used by the sweep's progress lines and closing table and by every table and figure of the analysis,
# so that one value reads the same in both. Unknown values (None, NaN) read "–".

import math

UNKNOWN = "–"


def _known(value) -> bool:
    return value is not None and math.isfinite(value)


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
    if not _known(value_ns):
        return UNKNOWN
    value_us = value_ns / 1e3
    return f"{value_us:.0f}" if abs(value_us) >= 1e4 else f"{value_us:.4g}"


def rate_words(interval_s: float) -> str:
    """The rate asked for by an interval, in words: 0.001 s → "1 k msg/s", 0 → "back-to-back"."""
    return "back-to-back" if interval_s <= 0 or not math.isfinite(interval_s) else f"{rate_label(interval_s)} msg/s"


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
    return UNKNOWN if value is None or (isinstance(value, float) and math.isnan(value)) else str(int(value))


def gbit(value: float) -> str:
    """Gb/s to three significant digits without an exponent, "–" when unknown."""
    if not math.isfinite(value):
        return UNKNOWN
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
    if not _known(value_ns):
        return UNKNOWN
    value = float(f"{value_ns:.3g}")  # round first, so 999.9 ns reads "1 µs"
    for factor, unit in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
        if abs(value) >= factor:
            scaled = value / factor
            return f"{scaled:.0f} {unit}" if abs(scaled) >= 1000 else f"{scaled:.3g} {unit}"
    return f"{value:.3g} ns"


def bytes_iec(value: float | None) -> str:
    """A memory size with a binary prefix and three significant digits: 9.54 MiB, 1.2 GiB; "–" when unknown."""
    if not _known(value):
        return UNKNOWN
    for factor, unit in ((2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if abs(value) >= factor:
            return f"{value / factor:.3g} {unit}"
    return f"{value:.0f} B"


def duration(value_s: float) -> str:
    """Rounded to whole seconds: 12 → "12s", 425 → "7m05s", 3720 → "1h02m"."""
    s = int(max(0.0, value_s) + 0.5) if math.isfinite(value_s) else 0
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s}s"


def seconds(value_s: float) -> str:
    """Three significant digits, whole seconds from 1000 s on, never in exponent form: 3.2 → "3.2",
    11.314 → "11.3", 0.354 → "0.354", 1025.4 → "1025"; "–" when unknown."""
    if not _known(value_s):
        return UNKNOWN
    if abs(value_s) >= 1000:
        return f"{value_s:.0f}"
    if abs(value_s) < 0.001:
        return "0"
    return f"{float(f'{value_s:.3g}'):g}"


def settings(config: dict) -> str:
    """Runtime settings as a footnote writes them: {"flavor": "current_thread", "threads": 1} →
    "flavor=current_thread, threads=1"."""
    return ", ".join(f"{key}={'null' if value is None else value}" for key, value in config.items())
