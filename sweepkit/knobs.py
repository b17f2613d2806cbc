"""The sweep's flags and knobs read from the environment and checked before anything starts, with the warnings.

It is the entry's, above the modes (sweepkit.modes): it asks the MODE's mode for its defaults and checks, and hands
it to the spec's parse (sweepkit.spec).
"""

# Knobs come from the environment, as strings; a check never stops at the first problem, so one run
# names them all. What only one MODE checks or warns about is its mode's (sweepkit.modes: check_*,
# warn); the shared parts are sweepkit.checks, the defaults sweepkit.defaults. Nothing here starts a process or
# writes a file.

from dataclasses import dataclass, field

from suite import runtimes

from . import modes, spec as spec_mod, variants as variants_mod, versions
from .defaults import DEFAULTS, MAY_BE_EMPTY, MICRO_DEFAULTS, NETWORK_DEFAULTS  # noqa: F401  (MICRO_DEFAULTS handed on)
from .selection import has_pong, select


@dataclass
class Checked:
    """What the check found: the knobs as the sweep uses and records them, what was chosen, problems."""

    knobs: dict[str, str]
    given: list[str]  # the knobs set in the environment, defaults or not
    selection: list[runtimes.Entry] = field(default_factory=list)  # in the list's order
    variants: list[variants_mod.Variant] = field(default_factory=list)  # VARIANTS, in its order
    usage: str | None = None  # a flag problem: exit 2, "Try -h"
    errors: list[str] = field(default_factory=list)  # knob problems: exit 2, "Nothing was started."
    warnings: list[str] = field(default_factory=list)

    def spec(self) -> spec_mod.Spec:
        """The typed spec of knobs that passed the check: what everything below the entry takes."""
        return spec_mod.parse(self.knobs, self.given, modes.of(self.knobs["MODE"]))

    @property
    def with_pongs(self) -> list[runtimes.Entry]:
        return [e for e in self.selection if has_pong(e)]

    @property
    def measured(self) -> list[runtimes.Entry]:
        """The entries whose binaries run: those with a pong, and the base of each variant, in the list's order."""
        chosen = {e.label for e in self.with_pongs} | {v.base for v in self.variants}
        return [e for e in runtimes.entries() if e.label in chosen]


def read(environ, network: bool = False) -> tuple[dict[str, str], list[str]]:
    """Every knob's value (the default where unset, or empty where that is not allowed) and the given ones."""
    defaults = DEFAULTS | (NETWORK_DEFAULTS if network else {}) | modes.named(environ.get("MODE", "")).defaults()
    given = [name for name in defaults if name in environ]
    values = {}
    for name, default in defaults.items():
        value = environ.get(name)
        values[name] = value if value is not None and (value or name in MAY_BE_EMPTY) else default
    return values, given


def check(environ, flags: str, context: str = "localhost") -> Checked:
    """Flags first (a usage problem ends the check), then every knob; context: localhost, remote,
    peer or serve (the last three are run-network.sh's)."""
    knobs, given = read(environ, network=context != "localhost")
    result = Checked(knobs=knobs, given=given)
    mode = modes.named(knobs["MODE"])
    if mode.one_host and context != "localhost":
        result.usage = f"MODE={knobs['MODE']} {mode.one_host}: use ./run-localhost.sh"
        return result
    result.selection, result.usage = select(flags, context, knobs["MODE"], variants=bool(knobs["VARIANTS"].split()),
                                            drops=mode.drops_entries)
    if result.usage is None:
        mode.check(result, environ, context)
        check_version_profile(result)
        check_pr(result, context)
    return result


def check_pr(result: Checked, context: str) -> None:
    """PR (--pr): a check of round trips on this host, its two lines the sweep's only comparisons."""
    if not result.knobs["PR"]:
        return
    if context != "localhost":
        result.errors.append("PR: a pull-request check runs on one host: use ./run-localhost.sh --pr")
    if "STOP" not in modes.named(result.knobs["MODE"]).defaults():  # a MODE whose comparisons are decided
        result.errors.append(f"PR: a pull-request check decides round trips' comparisons: MODE=rtt, not "
                             f"{result.knobs['MODE']}")


def check_version_profile(result: Checked) -> None:
    """VERSION_PROFILE: one of versions.PROFILES; one that is not the measured profile is said, since the version
    variants' lines it builds look like any other."""
    name = result.knobs["VERSION_PROFILE"]
    profile = versions.PROFILES.get(name)
    if profile is None:
        result.errors.append(f"VERSION_PROFILE='{name}': expected release (the profile the binaries are measured in) "
                             "or harness (the tests': unoptimised, a version variant built only to see it run)")
    elif not profile.measured and any(v.version for v in result.variants):
        labels = " ".join(v.label for v in result.variants if v.version)
        result.warnings.append(f"VERSION_PROFILE={name}: the version variants ({labels}) are built in cargo's {name} "
                               "profile, not the measured binaries' release: their lines show that they run, not how "
                               "fast")
