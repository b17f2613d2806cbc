#!/usr/bin/env bash
# Sweeps round-trip latency (MODE=throughput: throughput) across two hosts: run on host A, the
# pongs run on host B (over ssh), the pings here; logs into OUT_DIR/network-<hostB>-YYYYmmdd-HHMMSS/ on A.
# Usage: ./run-network.sh --remote USER@HOSTB [--remote-dir DIR] [--target ADDR] [-FLAGS]
#        ./run-network.sh --serve [--target ADDR] [-FLAGS]   (on B, without ssh)
#        ./run-network.sh --peer ADDR [-FLAGS]               (on A, against --serve)
#        (-FLAGS: -asStP and the rest, from runtimes.json; -h lists them)
# Knobs come from the environment as for run-localhost.sh, plus SSH_OPTS and BASE_PORT; see -h.
# The sweep is sweep.py (standard library Python); this script hands over to it.
set -euo pipefail

if ! command -v python3 >/dev/null; then
  printf '%s: needs python3 (3.11 or newer; the standard library is enough)\n' "${0##*/}" >&2
  exit 2
fi
exec python3 "$(dirname "${BASH_SOURCE[0]}")/sweep.py" network "${0##*/}" "$@"
