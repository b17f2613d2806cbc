#!/usr/bin/env bash
# Sweeps the round-trip latency (MODE=throughput: the throughput) of the selected runtimes on this
# host, over loopback: per run (REPEATS rounds of every point, shuffled) a pinned pong, then a pinned
# ping against it, logs into
# OUT_DIR/localhost-YYYYmmdd-HHMMSS/. The runtimes and their flags are those of runtimes.json.
# MODE=micro runs the in-process benchmarks instead: per run one <runtime>-micro, no pong.
# Usage: ./run-localhost.sh [-FLAGS] [-h] [--check]   (e.g. ./run-localhost.sh -asStP; -h lists the flags)
# Knobs come from the environment; see -h and docs/sweeps.md.
# The sweep is sweep.py (standard library Python); this script hands over to it.
set -euo pipefail

if ! command -v python3 >/dev/null; then
  printf '%s: needs python3 (3.11 or newer; the standard library is enough)\n' "${0##*/}" >&2
  exit 2
fi
exec python3 "$(dirname "${BASH_SOURCE[0]}")/sweep.py" localhost "${0##*/}" "$@"
