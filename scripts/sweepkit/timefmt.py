"""Times for people: durations (7m05s) and seconds (3.2, 425, 1025); the two formats analysis/style.py lacks."""

import math


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
    if value_s is None or not math.isfinite(value_s):
        return "–"
    if abs(value_s) >= 1000:
        return f"{value_s:.0f}"
    if abs(value_s) < 0.001:
        return "0"
    return f"{float(f'{value_s:.3g}'):g}"
