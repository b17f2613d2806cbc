#!/usr/bin/env bash
# Sweeps the round-trip latency (MODE=throughput: the throughput) of the selected runtimes on this
# host, over loopback: per run (REPEATS rounds of every point, shuffled) a pinned pong, then a pinned
# ping against it, logs into
# OUT_DIR/localhost-YYYYmmdd-HHMMSS/. The runtimes and their flags are those of runtimes.json.
# MODE=micro runs the in-process benchmarks instead: per run one <runtime>-micro, no pong.
# Usage: ./run-localhost.sh [-a] [-s] [-S] [-t] [-P] [-h]   (e.g. ./run-localhost.sh -asStP)
# Knobs come from the environment; see -h and docs/sweeps.md.
set -euo pipefail

PROG=${0##*/}
# shellcheck source=scripts/sweep-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/sweep-lib.sh"

usage() {
  cat <<EOF
Usage: $PROG [-FLAGS] [-h]   (the flags below, alone or combined as in -asStP)
Measures round-trip latency (MODE=throughput: msg/s and Gb/s) on this host over loopback,
a fresh pong and ping per run: REPEATS rounds, each running every point once, shuffled.

$(sweep_py help)

Examples: DURATION=5 INTERVALS="0.001 0" ./$PROG -tS
          MODE=throughput SIZES="64 65536" ./$PROG -tS
          MODE=micro BENCHES="spawn_many channel" ./$PROG -tSG
EOF
}

PONG_PID="" PONG_FD=""

# The pong on loopback, port 0; ready once it prints its `listening on` line.
pong_start() {
  local binary=$1 proto=$2
  spawn_reader "$PONG_ERR" /dev/null "${TASKSET_PONG[@]}" "${NICE_CMD[@]}" \
    "$BIN_DIR/$binary-pong" --address 127.0.0.1:0 --protocol "$proto" \
    "${PONG_MODE_ARGS[@]}" "${RUN_PONG_ARGS[@]}" "${PONG_EXTRA_ARGS[@]}"
  PONG_PID=$SPAWN_PID PONG_FD=$SPAWN_FD
  local rc=0
  await_line "$PONG_FD" "$LISTEN_RE" "$READY_TIMEOUT" || rc=$?
  case $rc in
    0) listen_address && PONG_TARGET=$LISTENING ;;
    1) PONG_ERROR="it exited before listening" ;;
    *) PONG_ERROR="no 'listening on' line within ${READY_TIMEOUT} s" ;;
  esac
  return "$rc"
}

pong_stop() {
  [[ -n $PONG_PID ]] || return 0
  kill -TERM "$PONG_PID" 2>/dev/null || true
  reap "$PONG_PID" "$PONG_FD" 5
  PONG_PID="" PONG_FD=""
}

pong_cleanup() { :; }

main() {
  local arg
  for arg in "$@"; do
    case "$arg" in
      -h | --help) usage; exit 0 ;;
      -*) short_flags "$arg" ;;
      *) usage_error "unexpected argument '$arg'" ;;
    esac
  done
  install_traps
  make_tmp
  check_knobs localhost "ping pong"
  local ends=() bins=() prefix end nice="not applied" target=127.0.0.1 cpus=$PONG_CPUS
  local pinning="pong: ${PONG_CPUS:-none}, ping: ${PING_CPUS:-none}"
  read -r -a ends <<<"$BINARIES"
  if [[ $MODE == micro ]]; then
    target=in-process cpus=$MICRO_CPUS pinning="micro: ${MICRO_CPUS:-none (every CPU)}"
  fi
  setup_local_cpus_and_nice "${ends[@]}"
  ICMP_ADDR=127.0.0.1
  check_icmp
  make_plan
  say "$PLAN_TEXT"
  exit_if_dry_run
  hold_cpus_awake

  make_sweep_dir localhost
  for prefix in "${RUNTIME_LIST[@]}"; do
    for end in "${ends[@]}"; do bins+=("$prefix-$end"); done
  done
  "$SCRIPTS_DIR/host-facts.sh" "$SUITE_DIR" "$BIN_DIR" "$cpus" "$NICE" "${bins[@]}" \
    >"$SWEEP_TMP/host-local.tsv" || warn "could not read this machine's facts"
  if ((${#NICE_CMD[@]})); then nice=$NICE; fi
  start_sweep_json --meta kind=localhost --meta "command=$PROG $*" --meta "target=$target" \
    --meta "pinning=$pinning" --meta "nice=$nice" --meta "cpu_dma_latency=$IDLE_HOLD" \
    --host "local=$SWEEP_TMP/host-local.tsv"
  run_sweep
}

main "$@"
