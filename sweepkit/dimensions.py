"""The sweep's behaviour over the point dimensions of suite/dimensions.py: reading their knobs, checking them.

The table itself (knob, default, type, options, stem suffix) is the shared layer's, read by the analysis
too: a new pass-through dimension is one entry there (its -h lines with it, which sweepkit/usage.py lays
out) and its paragraph in docs/sweeps.md. knobs, plan, stems and command lines read it through DIMENSIONS and applying() here.
"""

from dataclasses import dataclass

from suite import dimensions as shared


@dataclass(frozen=True)
class Dimension(shared.Dimension):
    """A shared dimension as the sweep reads it from its knobs."""

    def values(self, spec) -> tuple:
        """The values it sweeps, as the typed spec (sweepkit.spec.Spec) parsed them from its knob."""
        return spec.values(self.name)

    def check(self, knobs: dict, problems: list[str]) -> None:
        words = knobs[self.knob].split()
        if not words:
            problems.append(f"{self.knob} is empty: expected {self.expected}")
        bad = [word for word in words if not self.valid(word)]
        problems += [f"{self.knob}: '{word}' is not {self.what}" for word in bad]
        if words and not bad and self.tidy:
            knobs[self.knob] = " ".join(dict.fromkeys(str(self.parse(word)) for word in words))


DIMENSIONS = tuple(Dimension(**vars(d)) for d in shared.DIMENSIONS)  # the table as it stands when the sweep starts


def applying(kind: str) -> list[Dimension]:
    """The dimensions a kind of point (or a MODE: rtt, throughput) sweeps."""
    return [d for d in DIMENSIONS if kind in d.kinds]
