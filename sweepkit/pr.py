"""--pr RUNTIME@path:DIR:BASE..HEAD: a pull request's base and head as two version variants of one sweep, each built
from a snapshot of its commit, with the knobs of a check a maintainer keeps on."""

# Each revision's tree is taken with `git archive` into target/checkouts/RUNTIME@COMMIT (written once, renamed into
# place whole, so an interrupted copy is never reused), never a worktree: the checkout's .git and working tree are
# not written, and its uncommitted changes are not measured. versions.py builds each snapshot like any path variant,
# its build folder keyed by the snapshot's path, so by the commit. The check's grid and its family of comparisons
# (held by sequential.held_over) are docs/pr-check.md's.

import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from suite import runtimes
from suite.fmt import duration

from . import versions

EXAMPLE = "e.g. --pr tokio@path:../tokio:origin/master..HEAD"
# The check's grid where the knob is not given: what a maintainer needs first (docs/pr-check.md, "The grid").
DEFAULTS = {"PROTOCOLS": "tcp udp", "INTERVALS": "0.001 0", "TASKS": "0 10", "STOP": "decided",
            "STOP_ON": "p50,p99", "PROBED": "0", "BUDGET": "4m"}
GIT_LIMIT_S = 300  # a `git archive` of a large repository takes seconds; a hung git must still end


class Refused(Exception):
    """Why the SPEC cannot be checked: one line, exit 2, before anything is built."""


@dataclass(frozen=True)
class Revision:
    """One side of the check: the revision asked, the commit it names, its line's label and its snapshot."""

    asked: str
    commit: str
    label: str
    snapshot: Path

    def record(self) -> dict:
        return {"asked": self.asked, "commit": self.commit, "label": self.label, "snapshot": str(self.snapshot)}


@dataclass(frozen=True)
class Check:
    """A resolved --pr SPEC."""

    spec: str
    runtime: str
    checkout: Path
    base: Revision
    head: Revision

    def variants(self) -> str:
        """The VARIANTS knob of its two lines."""
        return " ".join(f"{side.label}={self.runtime}@path:{side.snapshot}" for side in (self.base, self.head))

    def record(self) -> dict:
        """sweep.json's `pr`."""
        return {"spec": self.spec, "runtime": self.runtime, "checkout": str(self.checkout),
                "base": self.base.record(), "head": self.head.record()}


def split(spec: str) -> tuple[str, str, str, str]:
    """RUNTIME, DIR, BASE and HEAD of a SPEC, or Refused naming what is wrong."""
    runtime, at, rest = spec.partition("@")
    if not at or not rest.startswith("path:"):
        raise Refused(f"--pr '{spec}': expected RUNTIME@path:DIR:BASE..HEAD, {EXAMPLE}")
    where, colon, revisions = rest.removeprefix("path:").rpartition(":")
    base, dots, head = revisions.partition("..")
    if not colon or not where:
        raise Refused(f"--pr '{spec}': no DIR before ':BASE..HEAD', {EXAMPLE}")
    if not dots or not base or not head or head.startswith("."):
        raise Refused(f"--pr '{spec}': '{revisions}' is not BASE..HEAD (two revisions of DIR, e.g. "
                      "origin/master..HEAD)")
    return runtime, where, base, head


def resolve(spec: str, suite: Path) -> Check:
    """The SPEC checked (a runtime built from a crate, a git checkout, two commits) and both snapshots made."""
    runtime, where, base, head = split(spec)
    entry = next((e for e in runtimes.runtimes() if e.label == runtime), None)
    built = [e.label for e in runtimes.runtimes() if e.crate]
    if entry is None or not entry.crate:
        raise Refused(f"--pr '{spec}': '{runtime}' is not a runtime built from a crate: one of {', '.join(built)}")
    checkout = Path(where).resolve()
    if not checkout.is_dir():
        raise Refused(f"--pr '{spec}': {where} is not a folder")
    if versions.git(checkout, "rev-parse", "--git-dir", limit_s=GIT_LIMIT_S) is None:
        raise Refused(f"--pr '{spec}': {where} is not a git checkout (git rev-parse fails there)")
    sides = []
    for asked, label in ((base, f"{runtime}-base"), (head, f"{runtime}-head")):
        commit = versions.git(checkout, "rev-parse", "--verify", "--quiet", f"{asked}^{{commit}}",
                              limit_s=GIT_LIMIT_S)
        if not commit:
            raise Refused(f"--pr '{spec}': '{asked}' is not a commit of {where} (git rev-parse --verify "
                          f"'{asked}^{{commit}}' finds none; fetch it first?)")
        snapshot = snapshot_of(checkout, commit, suite / "target" / "checkouts" / f"{runtime}@{commit[:12]}")
        try:
            versions.checkout(entry.crate, str(snapshot))
        except versions.BuildRefused as refused:
            raise Refused(f"--pr '{spec}': at {asked} ({commit[:12]}), {where} holds no crate {entry.crate}: neither "
                          f"its Cargo.toml nor {entry.crate}/Cargo.toml is that package's") from refused
        sides.append(Revision(asked, commit, label, snapshot))
    return Check(spec, runtime, checkout, *sides)


def applied(environ, flags: str, asked: str, suite: Path) -> tuple[dict, str, Check | None]:
    """The environment and flags a sweep reads, with --pr's SPEC (`asked`, else the PR knob's) resolved into them;
    as they are without one."""
    spec = asked or environ.get("PR", "")
    if not spec:
        return dict(environ), flags, None
    check = resolve(spec, suite)
    return environment(environ, check), with_std(flags), check


def environment(environ, check: Check) -> dict[str, str]:
    """The environment the sweep reads: PR and VARIANTS set, and the check's DEFAULTS where a knob is not given."""
    if environ.get("VARIANTS", "").strip():
        raise Refused("--pr makes the sweep's two lines itself: unset VARIANTS")
    # REPEATS given: the rounds are the user's, so the check's BUDGET yields to it as any default does.
    defaults = {k: v for k, v in DEFAULTS.items() if k != "BUDGET" or not environ.get("REPEATS")}
    return {**defaults, **environ, "PR": check.spec, "VARIANTS": check.variants()}


def plan_lines(doc: dict, estimate_s: float) -> list[str]:
    """What the plan says first for a PR check: its two lines and the most its runs can take (its builds are done)."""
    pr = doc["pr"]
    sides = ", ".join(f"{pr[s]['label']} = {pr[s]['asked']} ({pr[s]['commit'][:12]})" for s in ("head", "base"))
    builds = [v["build"]["build_s"] for v in doc.get("variants") or () if v.get("build")]
    built = f"its builds took {duration(sum(builds))}" if builds else "nothing built (a dry run)"
    return [f"PR check of {pr['runtime']}: {sides}, with std as the reference; {built}, its runs take at most "
            f"{duration(estimate_s)}, then pr-comment.md in the sweep's folder"]


def with_std(given: str) -> str:
    """The flag letters with std's: the check's reference line."""
    std = next(e.flag for e in runtimes.runtimes() if e.label == runtimes.BASELINE)
    return given if std in given else given + std


def snapshot_of(checkout: Path, commit: str, folder: Path) -> Path:
    """The commit's tree in `folder`, made once: extracted beside it, then renamed into place."""
    if folder.is_dir():
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=folder.parent, prefix=".partial-") as partial:
        archive = Path(partial) / "tree.tar"
        done = subprocess.run(["git", "-C", str(checkout), "archive", "--format=tar", "-o", str(archive), commit],
                              capture_output=True, text=True, timeout=GIT_LIMIT_S)
        if done.returncode != 0:
            raise Refused(f"git archive {commit[:12]} failed in {checkout}: {last_line(done.stderr)}")
        tree = Path(partial) / "tree"
        with tarfile.open(archive) as held:
            held.extractall(tree, filter="data")
        try:
            tree.rename(folder)
        except OSError:  # another sweep made it first
            if not folder.is_dir():
                raise
            shutil.rmtree(tree, ignore_errors=True)
    return folder


def last_line(text: str) -> str:
    return next((line for line in reversed(text.splitlines()) if line.strip()), "no output")

