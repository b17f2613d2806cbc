"""A git repository of tokio's registry source, with a commit that slows every TCP read and one that changes nothing."""

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from sweepkit import versions

REPO = Path(__file__).resolve().parents[1]
GIT_S = 60  # every git call; each is local and takes well under a second
FETCH_S = 600  # cargo fetch, only when the registry lacks the source
SPIN_NS = 3_000
# Fixed names and dates, and no global or system git configuration: the same commits on every machine.
IDENTITY = {"user.name": "rtt-suite pr fixture", "user.email": "pr-fixture@localhost"}
DATE = "2026-01-01T00:00:00+00:00"
TCP_READ = "src/net/tcp/stream.rs"
# TcpStream::poll_read_priv's body: every AsyncRead of a TcpStream and of its halves (split, into_split) calls it,
# and no UDP socket does (UdpSocket reads through its registration's poll_read_io, not through PollEvented::poll_read).
READ_CALL = "        unsafe { self.io.poll_read(cx, buf) }\n    }\n"
SPUN_CALL = f"""\
        let read = unsafe {{ self.io.poll_read(cx, buf) }};
        if read.is_ready() {{
            // A planted cost: {SPIN_NS} ns of busy waiting after every TCP read that completes.
            let until = std::time::Instant::now() + std::time::Duration::from_nanos({SPIN_NS});
            while std::time::Instant::now() < until {{
                std::hint::spin_loop();
            }}
        }}
        read
    }}
"""
COMMENT = "\n// A change the compiler does not see: it comes after the file's last item, so no line moves.\n"


@dataclass(frozen=True)
class Fixture:
    """The repository (branches main, slow, same) and its commits: BASE, BASE + the spin, BASE + a comment."""

    repo: Path
    version: str  # tokio's, as the suite's Cargo.lock pins it
    base: str
    slow: str
    same: str


def make(folder: Path) -> Fixture:
    """FOLDER (emptied first) as a git repository of tokio's source at the suite's locked version: BASE on main,
    `slow` one commit after it (a spin of SPIN_NS in every completed TCP read), `same` one commit after it (a comment
    at the end of the same file), main checked out. Fixed names, dates and source: the same commits every time."""
    version = locked_tokio()
    source = registry_source(version)
    folder = Path(folder).resolve()
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns(".cargo-ok"))  # cargo's own unpack marker
    _git(folder, "init", "-q", "-b", "main")
    for key, value in IDENTITY.items():
        _git(folder, "config", key, value)
    base = _commit(folder, f"tokio {version} as cargo's registry holds it")
    _git(folder, "checkout", "-q", "-b", "slow")
    _edit(folder / TCP_READ, lambda text: _replace_once(text, READ_CALL, SPUN_CALL))
    slow = _commit(folder, f"TcpStream::poll_read_priv: spin {SPIN_NS} ns after every completed read")
    _git(folder, "checkout", "-q", "-b", "same", base)
    _edit(folder / TCP_READ, lambda text: text + COMMENT)
    same = _commit(folder, "stream.rs: a comment after the last item")
    _git(folder, "checkout", "-q", "main")
    return Fixture(folder, version, base, slow, same)


def locked_tokio() -> str:
    """tokio's version in the suite's Cargo.lock."""
    found = versions.locked(REPO / "Cargo.lock", "tokio")
    if found is None:
        raise LookupError(f"no tokio in {REPO / 'Cargo.lock'}")
    return found


def registry_source(version: str) -> Path:
    """tokio-VERSION's source under cargo's registry, fetched with the suite's lock when cargo has not unpacked it."""
    home = Path(os.environ.get("CARGO_HOME", Path.home() / ".cargo"))
    for attempt in range(2):
        found = sorted(home.glob(f"registry/src/*/tokio-{version}"))
        if found:
            return found[0]
        if attempt == 0:
            subprocess.run(["cargo", "fetch", "--locked", "--manifest-path", str(REPO / "Cargo.toml")], check=True,
                           capture_output=True, timeout=FETCH_S)
    raise LookupError(f"no tokio-{version} under {home}/registry/src, even after cargo fetch")


def _git(where: Path, *args: str) -> str:
    """git ARGS in WHERE with only the repository's own configuration and the fixed dates: its output, stripped."""
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_DATE": DATE, "GIT_COMMITTER_DATE": DATE}
    done = subprocess.run(["git", "-C", str(where), *args], env=env, check=True, capture_output=True, text=True,
                          timeout=GIT_S)
    return done.stdout.strip()


def _commit(where: Path, message: str) -> str:
    """Commits every file of the tree (ignored ones too: the source is the registry's, whole) and returns the commit."""
    _git(where, "add", "-A", "--force")
    _git(where, "commit", "-q", "--no-verify", "--no-gpg-sign", "-m", message)
    return _git(where, "rev-parse", "HEAD")


def _edit(path: Path, change) -> None:
    path.write_text(change(path.read_text(encoding="utf-8")), encoding="utf-8")


def _replace_once(text: str, old: str, new: str) -> str:
    """TEXT with its one OLD replaced; a tokio whose code differs is said, not patched somewhere else."""
    if text.count(old) != 1:
        raise ValueError(f"{TCP_READ} holds {text.count(old)} copies of TcpStream::poll_read_priv's read, not one: "
                         "tokio's code has changed, so the fixture's spin needs a new place")
    return text.replace(old, new)
