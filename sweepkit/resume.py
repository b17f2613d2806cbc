"""--continue DIR: an interrupted sweep's folder read back, the knobs given checked against its own, its runs left."""

# The folder's sweep.json holds what the sweep was (its knobs, flags, seed, points and runs in their order) and
# how far it got. The plan is drawn again from those and must be the folder's run for run: round k's order
# depends only on SEED and k (plan.runs), so the runs left are the ones the sweep would have run, in its order.
# A run cut off mid-way (interrupted, or planned with logs of its own: a kill -9 while it ran, or before its
# status was written) is dropped and measured again; every run recorded as ended is kept as it is.

import os
import sys
from pathlib import Path

from suite import runtimes

from . import commands, entry, local, modes, network, prepare, runner, staged, state, variants
from . import knobs as knobs_mod
from . import plan as plan_mod
from .defaults import SUITE_DIR
from .pongs import LocalPongs, PeerPongs
from .spec import Spec, budget_s

# Knobs that say how to reach a host or where new sweeps go, not what is measured: they may differ.
FREE = ("OUT_DIR", "SSH_OPTS")
UNFINISHED = "unfinished:"  # a run's message when the ping's watchdog ended it (state.unfinished)
CUT_OFF = ("interrupted", "planned")  # a run of these statuses has no logs that count


class Refused(Exception):
    """Why the folder cannot be continued with these knobs (exit 2)."""


def entry_point(which: str, argv: list[str]):
    """sweep.py's command for `argv` when it asks for --continue (a function of prog, argv and the scratch
    folder, as sweepkit.cli's run_localhost), else None."""
    if not any(arg == "--continue" or arg.startswith("--continue=") for arg in argv):
        return None
    return lambda prog, args, tmp: main(which, prog, args, tmp)


def main(which: str, prog: str, argv: list[str], tmp: Path) -> int:
    """--continue DIR [-FLAGS]: the sweep in DIR continued; a refusal exits 2 and changes nothing."""
    try:
        folder, flags = arguments(argv)
        go = continue_localhost if which == "localhost" else continue_network
        return go(prog, folder, flags, os.environ, tmp)
    except Refused as why:
        print(f"{prog}: --continue: {why}\nNothing was changed.", file=sys.stderr)
        return 2


def arguments(argv: list[str]) -> tuple[Path, str]:
    """The folder and the flag letters; anything else is Refused: the folder says where the hosts are."""
    args, folder, flags = list(argv), None, ""
    while args:
        arg = args.pop(0)
        if arg == "--continue":
            folder = args.pop(0) if args else None
        elif arg.startswith("--continue="):
            folder = arg.partition("=")[2]
        elif arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            flags += arg[1:]
        else:
            raise Refused(f"'{arg}' does not go with --continue DIR, which takes only the flags of its sweep "
                          "(the hosts, knobs and plan are the folder's)")
    if not folder:
        raise Refused("--continue needs the folder of the sweep to continue")
    if not Path(folder).is_dir():
        raise Refused(f"there is no folder {folder}")
    return Path(folder).resolve(), flags


def load(folder: Path) -> dict:
    """The folder's sweep.json, or Refused saying why there is none to continue."""
    path = folder / "sweep.json"
    try:
        doc = state.load(path)
    except FileNotFoundError:
        raise Refused(f"{folder} holds no sweep.json: not a sweep's folder") from None
    except (OSError, ValueError) as error:
        raise Refused(f"cannot read {path}: {error}") from None
    if not isinstance(doc.get("runs"), list) or "knobs" not in doc or "seed" not in doc:
        raise Refused(f"{path} is not a sweep's record (no knobs, seed or runs)")
    return doc


def finished(doc: dict) -> bool:
    """Whether the sweep ended by itself: every run done, its closing figures written."""
    return doc.get("status") in ("complete", "failed") and not any(r["status"] in CUT_OFF or _unwritten(r)
                                                                   for r in doc["runs"])


def flags_of(doc: dict) -> str:
    """The flag letters that chose the folder's runtimes and references."""
    return "".join(runtimes.by_label(label).flag for label in doc["frameworks"])


def agreed(doc: dict, environ, flags: str, context: str) -> dict[str, str]:
    """The environment the sweep is checked with again: the knobs it was given, as it recorded them, and those
    given now that only extend it (a larger REPEATS without BUDGET, a larger BUDGET) or that FREE lets differ.
    Knobs or flags given now that contradict the folder's: Refused, naming each."""
    recorded, problems = doc["knobs"], []
    if flags and set(flags) != set(flags_of(doc)):
        problems.append(f"the flags -{flags} are not the folder's -{flags_of(doc)}")
    now = knobs_mod.check(environ, flags or flags_of(doc), context)
    if now.usage or now.errors:
        raise Refused("; ".join(filter(None, [now.usage, *now.errors])))
    env = {name: recorded[name] for name in doc.get("knobs_given", []) if name in recorded}
    env["SEED"] = str(doc["seed"])  # drawn at random when not given
    for name in now.given:
        value, was = now.knobs[name], recorded.get(name)
        if name in FREE:
            env[name] = value
        elif name == "REPEATS" and (value == "" or recorded.get("BUDGET")) or value == was:
            continue
        elif name == "REPEATS" and int(value) > int(was):
            env[name] = value
        elif name == "BUDGET" and was and budget_s(value) > budget_s(was):
            env[name] = value
        else:
            problems.append(f"{name}={value!r}, where the folder's sweep has {name}={was!r}")
    if problems:
        raise Refused("; ".join(problems) + " (only a larger REPEATS, or a larger BUDGET, extends a sweep)")
    return env


def runs(doc: dict, spec: Spec, icmp_unusable: str | None) -> tuple[list[plan_mod.Run], Spec]:
    """The plan's runs again, from the folder's knobs and seed, and the spec with its rounds; Refused if they are not
    the folder's (this host plans other points). A larger REPEATS adds rounds after the folder's."""
    # REPEATS as the folder's knobs say it (STOP=decided plans a few rounds more: doc["repeats"], spec.rounds).
    knob = max(int(doc["knobs"]["REPEATS"]), spec.repeats if not spec.budget else 0)
    spec = spec.with_knobs(REPEATS=str(knob))
    repeats = max(doc["repeats"], spec.rounds)
    selection = [runtimes.by_label(label) for label in doc["frameworks"]]
    points = plan_mod.build(spec, selection, icmp_unusable, variants.from_records(doc.get("variants")))
    retired = doc.get("retired") or {}  # STOP=decided: the points that left the rotation, after which round
    planned = [r for r in plan_mod.runs(points, repeats, spec.seed, spec.order)
               if r.point.stem not in retired or r.round <= retired[r.point.stem]]
    if [p.stem for p in points] != [p["stem"] for p in doc["points"]]:
        raise Refused("these knobs on this host plan other points than the folder's")
    if [r.stem for r in planned[:len(doc["runs"])]] != [r["stem"] for r in doc["runs"]]:
        raise Refused("these knobs plan the runs in another order than the folder's")
    doc["runs"] += [r.record() for r in planned[len(doc["runs"]):]]
    doc["repeats"] = repeats
    doc["knobs"] = spec.record()
    return planned, spec


def restore(sweep: runner.Sweep, prog: str) -> list[str]:
    """The sweep as far as its folder says it got: the runs cut off dropped (their logs removed, planned again),
    what the runs so far cost and took, the points given up; the interruption recorded. Returns the stems dropped."""
    doc, folder = sweep.doc, sweep.folder
    dropped = []
    for index, (run, record) in enumerate(zip(sweep.runs, doc["runs"], strict=True)):
        if record["status"] in CUT_OFF or _unwritten(record):
            had = record["status"] == "interrupted" or any((folder / f"{run.stem}{s}").exists() for s in (".json", ".csv"))
            sweep.remove_logs(run.stem)
            doc["runs"][index] = run.record()
            if had:
                dropped.append(run.stem)
            continue
        if record.get("wall_s") is not None:
            sweep.costs.add(run.point.stem, record["wall_s"])
        if (record.get("message") or "").startswith(UNFINISHED):
            point = run.point.stem
            sweep.unfinished[point] = sweep.unfinished.get(point, 0) + 1
            if sweep.unfinished[point] >= runner.GIVE_UP_AFTER:
                sweep.given_up[point] = f"{runner.GIVE_UP_AFTER} of its runs were unfinished"
                sweep.costs.drop(point)
    staged.clear(folder)
    if sweep.rotation is not None:  # STOP=decided: the looks taken, the verdicts so far
        sweep.rotation.resume(doc, sweep.runs)
    done = [r for r in doc["runs"] if r["status"] not in CUT_OFF]
    sweep.first = len(done)
    sweep.before_s = max((r["start_s"] + (r["wall_s"] or 0) for r in done if r.get("start_s") is not None),
                         default=0.0)
    doc.setdefault("interruptions", []).append({
        "status": doc.get("status"), "after_runs": len(done), "after_s": round(sweep.before_s, 2),
        "stopped_at": doc.get("finished_at"), "continued_at": state.utc_now(), "dropped": dropped})
    doc["status"] = "running"
    doc.pop("finished_at", None)
    for stem in dropped:
        print(f"{prog}: {stem} was cut off before its record was written: dropped, measured again", file=sys.stderr)
    print(f"Continuing {folder}: {len(done)} of {len(doc['runs'])} runs done, {len(doc['runs']) - len(done)} left",
          flush=True)
    sweep.save()
    return dropped


def _unwritten(record: dict) -> bool:
    """A run a write error stopped: it failed for the sweep's sake, not its own, and is measured again."""
    return record["status"] == "failed" and (record.get("message") or "").startswith("cannot write ")


def continue_localhost(prog: str, folder: Path, flags: str, environ, tmp: Path) -> int:
    """run-localhost.sh --continue FOLDER: the sweep's runs left, into its folder; 0 when it had finished."""
    doc = load(folder)
    if finished(doc):
        return said_finished(folder, doc)
    env = agreed(doc, environ, flags, "localhost")
    checked, spec, _ = entry.check(env, flags or flags_of(doc), "localhost", ["ping", "pong"], prog)
    mode = modes.of(spec.mode)
    here, spec = local.setup(spec, mode.binary_ends(["ping", "pong"]), prog)
    icmp = local.icmp_problem() if prepare.references(checked) else None
    planned, spec = runs(doc, spec, icmp)
    local.hold_cpus_awake(spec.tune, prog)
    sweep = runner.Sweep(prog, spec, doc, planned, folder, here, LocalPongs(spec, here.prefix["pong"]), tmp,
                         "127.0.0.1", local.suite_version(spec.bin_dir, prepare.all_prefixes(), SUITE_DIR))
    restore(sweep, prog)
    return sweep.run()


def continue_network(prog: str, folder: Path, flags: str, environ, tmp: Path) -> int:
    """run-network.sh --continue FOLDER: the same host B (--remote, over ssh) or peer (--peer) as the sweep's."""
    doc = load(folder)
    if finished(doc):
        return said_finished(folder, doc)
    how = doc.get("mode")
    if how not in ("remote", "peer"):
        raise Refused(f"{folder} is not a run-network.sh sweep's folder (use ./run-localhost.sh --continue)")
    ends = ["ping", "pong"] if how == "remote" else ["ping"]
    env = agreed(doc, environ, flags, how)
    checked, spec, _ = entry.check(env, flags or flags_of(doc), how, ends, prog)
    here, spec = local.setup(spec, ["ping"], prog)
    references = prepare.references(checked)
    planned, spec = runs(doc, spec, local.icmp_problem() if references else None)
    prefixes = prepare.measured_prefixes(checked, spec)
    target = doc["target"]
    if how == "remote":
        ssh = commands.ssh(spec.ssh_opts, doc["remote"])
        pongs, _, _ = network.prepare_remote(prog, spec, ssh, doc["remote"], doc["remote_dir"], target, tmp, prefixes)
    else:
        network.preflight_peer(prog, doc, spec, target, references, prepare.runtime_flags(doc, spec), tmp)
        pongs = PeerPongs(target)
    local.hold_cpus_awake(spec.tune, prog)
    sweep = runner.Sweep(prog, spec, doc, planned, folder, here, pongs, tmp, target,
                         local.suite_version(spec.bin_dir, prepare.all_prefixes(), SUITE_DIR))
    restore(sweep, prog)
    return sweep.run()


def said_finished(folder: Path, doc: dict) -> int:
    """A sweep that ended by itself: said, nothing changed."""
    print(f"{folder}: the sweep finished ({doc['status']}, {len(doc['runs'])} runs, at {doc.get('finished_at')}): "
          "nothing to continue", flush=True)
    return 0
