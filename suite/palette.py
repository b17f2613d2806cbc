"""How every figure tells series apart: framework colours and order, transport line styles, variants' shades."""

# No drawing and no data handling, standard library only. The frameworks' colours and order are
# runtimes.json's (Okabe–Ito colours there: distinguishable with colour-blindness and in greyscale
# print); a framework it does not list gets a spare one. The variants a sweep ran (VARIANTS: a runtime
# run with other options) are not known here: whoever read the logs builds a Palette of them and
# passes it to what draws.

from dataclasses import dataclass, field

from . import runtimes, transports

FRAMEWORK_COLOURS = {e.label: e.colour for e in runtimes.entries()}
_SPARE_COLOURS = ("#D55E00", "#CC79A7", "#56B4E9", "#F0E442")
FRAMEWORK_ORDER = runtimes.labels()
REFERENCES = frozenset(e.label for e in runtimes.entries() if e.reference)  # drawn dashed, no Δ
TRANSPORT_ORDER = transports.ORDER  # tcp, udp, http, icmp: suite/transports.py
TRANSPORT_STYLES = {t.name: t.style for t in transports.TRANSPORTS}
# A variant is drawn in a shade of its base's colour, with its base's marker and these line styles,
# so that the family stays recognisable.
VARIANT_STYLES = {t.name: t.variant_style for t in transports.TRANSPORTS if t.modes}
# The shade of a runtime's k-th variant (its variants sorted by label): darker, lighter, darker…,
# further from the base colour each pair; a share of the way to black or to white.
_SHADE_STEP, _SHADE_FIRST, _SHADE_MOST = 0.2, 0.35, 0.75
_MICRO_REFERENCE_LINES = (("--", "s"), ("-.", "D"), (":", "^"))


def shade(hex_colour: str, k: int) -> str:
    """The k-th shade of a colour (k from 0): alternately darker and lighter, further each pair."""
    share = min(_SHADE_MOST, _SHADE_FIRST + _SHADE_STEP * (k // 2))
    target = 0 if k % 2 == 0 else 255
    rgb = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
    return "#" + "".join(f"{round(c + (target - c) * share):02X}" for c in rgb)


def order_key(values, order) -> list[int]:
    """Sort positions for `values` following `order`, unknown values last."""
    return [order.index(v) if v in order else len(order) for v in values]


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


@dataclass(frozen=True)
class Palette:
    """Colours, line styles and order of the series of one set of logs: runtimes.json's, plus a shade of
    its base's for each variant in `variants` (variant label → base runtime label)."""

    variants: dict[str, str] = field(default_factory=dict)

    def base_of(self, series: str) -> str:
        """A variant's base runtime; any other label is its own."""
        return self.variants.get(series, series)

    def is_variant(self, series: str) -> bool:
        return series in self.variants

    def colour(self, framework: str) -> str:
        """The colour of a framework or variant (a shade of its base's: the k-th of that base's
        variants by label gets shade k); frameworks the suite does not know get a stable spare one."""
        if framework in self.variants:
            base = self.variants[framework]
            siblings = sorted(label for label, of in self.variants.items() if of == base)
            return shade(self.colour(base), siblings.index(framework))
        if framework in FRAMEWORK_COLOURS:
            return FRAMEWORK_COLOURS[framework]
        return _SPARE_COLOURS[sum(framework.encode()) % len(_SPARE_COLOURS)]

    def linestyle(self, transport: str, series: str | None = None) -> str | tuple:
        """A transport's line style; a variant's (VARIANT_STYLES) when `series` is one."""
        if series is not None and self.is_variant(series):
            return VARIANT_STYLES.get(transport, "-.")
        return TRANSPORT_STYLES.get(transport, "-.")

    def series_rank(self, values) -> list[int]:
        """Sort positions of series labels: the list's order, each variant right after its base,
        unknown labels last (ties: sort by the label too)."""
        return [2 * order_key([self.base_of(v)], FRAMEWORK_ORDER)[0] + self.is_variant(v) for v in values]


NO_VARIANTS = Palette()  # runtimes.json's colours only
