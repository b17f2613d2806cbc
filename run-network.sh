#!/usr/bin/env bash
# Sweeps round-trip latency (MODE=throughput: throughput) across two hosts: run on host A, the
# pongs run on host B (over ssh), the pings here; logs into OUT_DIR/network-<hostB>-YYYYmmdd-HHMMSS/ on A.
# Usage: ./run-network.sh --remote USER@HOSTB [--remote-dir DIR] [--target ADDR] [-a] [-s] [-S] [-t] [-P]
#        ./run-network.sh --serve [--target ADDR] [-a] [-s] [-S] [-t]   (on B, without ssh)
#        ./run-network.sh --peer ADDR [-a] [-s] [-S] [-t] [-P]             (on A, against --serve)
# Knobs come from the environment as for run-localhost.sh, plus SSH_OPTS and BASE_PORT; see -h.
set -euo pipefail

PROG=${0##*/}
# shellcheck source=scripts/sweep-lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/sweep-lib.sh"

NET_MODE="" REMOTE="" REMOTE_DIR="" TARGET="" PEER="" # NET_MODE: remote, peer or serve
REMOTE_NICE=""                  # 1 when B allows NICE
PONG_PID="" PONG_FD="" PONG_IN_FD=""
declare -A SERVING=()           # --serve: PID of each pong -> "FD:STDERR_FILE"

usage() {
  cat <<EOF
Usage: $PROG --remote USER@HOST [--remote-dir DIR] [--target ADDR] [-FLAGS]
       $PROG --serve [--target ADDR] [-FLAGS]
       $PROG --peer ADDR [-FLAGS]
Measures round-trip latency (MODE=throughput: msg/s and Gb/s) across two hosts: pongs on
host B, pings on this host (A).

  --remote USER@HOST  host B, reached with ssh in batch mode (keys, no passwords)
  --remote-dir DIR    the suite's checkout on B (default: the same path as here)
  --target ADDR       B's data-plane address, when it differs from the ssh address
                      (with --serve: the address to listen on; default 0.0.0.0)
  --serve             on B: keep one pong per framework and protocol listening, on fixed
                      ports (see BASE_PORT); Ctrl-C stops them
  --peer ADDR         on A: sweep against the pongs of '--serve' on ADDR

$(sweep_py help --network)

Examples: DURATION=5 $PROG --remote bench@hostb --target 10.0.0.2 -tS
          MODE=throughput $PROG --remote bench@hostb --target 10.0.0.2 -tS
EOF
}

parse_args() {
  while (($#)); do
    case "$1" in
      -h | --help) usage; exit 0 ;;
      --remote | --remote-dir | --target | --peer)
        if (($# < 2)) || [[ -z $2 ]]; then usage_error "$1 needs a value"; fi
        case "$1" in
          --remote) REMOTE=$2 ;;
          --remote-dir) REMOTE_DIR=$2 ;;
          --target) TARGET=$2 ;;
          --peer) PEER=$2 ;;
        esac
        shift 2
        continue
        ;;
      --remote=* | --remote-dir=* | --target=* | --peer=*)
        local name=${1%%=*}
        set -- "$name" "${1#*=}" "${@:2}"
        continue
        ;;
      --serve) NET_MODE=serve ;;
      --*) usage_error "unknown option $1" ;;
      -*) short_flags "$1" ;;
      *) usage_error "unexpected argument '$1'" ;;
    esac
    shift
  done
  if [[ $NET_MODE == serve ]]; then
    [[ -z $REMOTE && -z $PEER ]] || usage_error "--serve runs on host B: it takes no --remote or --peer"
  elif [[ -n $PEER ]]; then
    [[ -z $REMOTE ]] || usage_error "--peer and --remote do not go together"
    NET_MODE=peer
  elif [[ -n $REMOTE ]]; then
    NET_MODE=remote
  else
    usage_error "say where the pongs are: --remote USER@HOST, or --serve on B and --peer ADDR on A"
  fi
}

hostport() { if [[ $1 == *:* && $1 != \[* ]]; then printf '[%s]:%s' "$1" "$2"; else printf '%s:%s' "$1" "$2"; fi; }

# ssh in batch mode with the user's options first (for ssh, the first value of an option wins).
ssh_command() {
  SSH_CMD=(ssh "${SSH_ARGS[@]}" -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=5
    -o ServerAliveCountMax=3 "$REMOTE")
}
remote() { "${SSH_CMD[@]}" "$@"; }

# The host name ssh would connect to for REMOTE (its config applied), or nothing.
ssh_hostname() {
  local out key value
  out=$(ssh -G "${SSH_ARGS[@]}" "$REMOTE" 2>/dev/null) || return 0
  while read -r key value; do
    if [[ $key == hostname ]]; then printf '%s' "$value"; return 0; fi
  done <<<"$out"
}

# The pong on B, under a remote shell that stops it (by its PID) when a line or EOF comes on
# stdin: so the pong also goes when this script or its ssh connection dies. The command is for
# B's login shell, whatever it is (sh, dash, bash): every argument single-quoted (sh_quote).
pong_start() {
  local binary=$1 proto=$2 port=$3 cmd rc=0 infifo
  if [[ $NET_MODE == peer ]]; then
    PONG_TARGET=$(hostport "$PEER" "$port")
    return 0
  fi
  local pre=()
  if [[ -n $PONG_CPUS ]]; then pre+=(taskset -c "$PONG_CPUS"); fi
  if [[ -n $REMOTE_NICE ]]; then pre+=(nice -n "$NICE"); fi
  # The parts are quoted first, then joined: bash 5.2 fails to parse its SIGINT trap when the signal
  # lands in a command substitution inside a multi-line string.
  local dir address pong
  dir=$(sh_quote "$REMOTE_DIR")
  address=$(hostport "$TARGET" 0)
  pong=$(sh_quote "${pre[@]}" "$REMOTE_DIR/target/release/$binary-pong" --address "$address" \
    --protocol "$proto" "${PONG_MODE_ARGS[@]}" "${RUN_PONG_ARGS[@]}" "${PONG_EXTRA_ARGS[@]}")
  cmd="cd $dir || exit 97
$pong </dev/null &
pong=\$!
echo \"pid \$pong\"
read -r line
kill \"\$pong\" 2>/dev/null
wait \"\$pong\""
  infifo="$SWEEP_TMP/stdin.$RANDOM$RANDOM"
  mkfifo "$infifo"
  exec {PONG_IN_FD}<>"$infifo"
  spawn_reader "$PONG_ERR" "$infifo" "${SSH_CMD[@]}" "$cmd"
  rm -f "$infifo"
  PONG_PID=$SPAWN_PID PONG_FD=$SPAWN_FD
  await_line "$PONG_FD" '^pid [0-9]+$' "$READY_TIMEOUT" || rc=$?
  if ((rc == 0)); then
    await_line "$PONG_FD" "$LISTEN_RE" "$READY_TIMEOUT" || rc=$?
  fi
  case $rc in
    0) listen_address && PONG_TARGET=$(hostport "$TARGET" "${LISTENING##*:}") ;;
    1) PONG_ERROR="the pong on $REMOTE exited before listening on $TARGET" ;;
    *) PONG_ERROR="no 'listening on' line from $REMOTE within ${READY_TIMEOUT} s" ;;
  esac
  return "$rc"
}

pong_stop() {
  [[ -n $PONG_PID ]] || return 0
  printf 'stop\n' >&"$PONG_IN_FD" || true
  exec {PONG_IN_FD}>&-
  reap "$PONG_PID" "$PONG_FD" 10
  PONG_PID="" PONG_FD="" PONG_IN_FD=""
}

pong_cleanup() {
  local pid
  for pid in "${!SERVING[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${!SERVING[@]}"; do reap "$pid" "${SERVING[$pid]%%:*}" 5; done
  SERVING=()
}

# Reads a host-facts.sh listing into the associative array FACTS.
declare -A FACTS=()
load_facts() {
  local key value
  FACTS=()
  while IFS=$'\t' read -r key value; do FACTS[$key]=$value; done <"$1"
}

# Before the first point: ssh works, B has the suite and the binaries, built from the same
# commit as here, and the data-plane address answers. Any problem ends the run here.
preflight_remote() {
  local err="$SWEEP_TMP/ssh.err" prefix bin bins=() missing=() mismatch=() here
  say "Checking $REMOTE ..."
  if ! remote true 2>"$err"; then
    die "cannot reach $REMOTE with ssh in batch mode (SSH_OPTS='$SSH_OPTS'): $(tail -n 1 "$err")"
  fi
  for prefix in "${RUNTIME_LIST[@]}"; do bins+=("$prefix-pong"); done
  if ! remote "bash -s -- $(sh_quote "$REMOTE_DIR" "$REMOTE_DIR/target/release" "$PONG_CPUS" \
    "$NICE" "${bins[@]}")" <"$SCRIPTS_DIR/host-facts.sh" >"$SWEEP_TMP/host-pong.tsv" 2>"$err"; then
    die "cannot read $REMOTE's machine facts: $(tail -n 1 "$err")"
  fi
  load_facts "$SWEEP_TMP/host-pong.tsv"
  if [[ ${FACTS[dir_ok]:-} != yes ]]; then
    die "there is no $REMOTE_DIR on $REMOTE: check out the suite there at the same path as here, or pass --remote-dir DIR"
  fi
  for bin in "${bins[@]}"; do
    if [[ ${FACTS[version:$bin]:-missing} == missing ]]; then
      missing+=("$bin")
    else
      here=$(timeout 5 "$BIN_DIR/$bin" --version 2>/dev/null || true)
      if [[ $here != "${FACTS[version:$bin]}" ]]; then
        mismatch+=("$bin: here '$here', on $REMOTE '${FACTS[version:$bin]}'")
      fi
    fi
  done
  if ((${#missing[@]})); then
    die "$REMOTE has no ${missing[*]} in $REMOTE_DIR/target/release: build there first (ssh $REMOTE 'cd $REMOTE_DIR && make')"
  fi
  if ((${#mismatch[@]})); then
    printf '%s: the binaries here and on %s were not built from the same commit:\n' "$PROG" "$REMOTE" >&2
    printf '  %s\n' "${mismatch[@]}" >&2
    die "check out the same commit on both hosts and run make on $REMOTE (cd $REMOTE_DIR && make)"
  fi
  if [[ ${FACTS[cpus_ok]:-} != yes ]]; then
    printf '%s: PONG_CPUS=%s is not usable on %s (it may run on CPUs %s)\n' "$PROG" "$PONG_CPUS" \
      "$REMOTE" "${FACTS[cpus_allowed]:-?}" >&2
    exit 2
  fi
  if ((NICE != 0)); then
    if [[ ${FACTS[nice_ok]:-} == yes ]]; then REMOTE_NICE=1; else
      warn "cannot run at NICE=$NICE on $REMOTE (needs root or CAP_SYS_NICE there): pongs at normal priority"
    fi
  fi
  check_data_plane "$TARGET"
}

# The data-plane address answers: a short real ping against a real pong (or ICMP for -P only).
check_data_plane() {
  local addr=$1 prefix=${RUNTIME_LIST[0]:-} rc=0
  if [[ -z $prefix ]]; then
    ping -n -c 1 -W 3 "$addr" >/dev/null 2>&1 || die "$addr does not answer ICMP echo from here"
    return
  fi
  PONG_ERR="$SWEEP_TMP/pong.err"
  if ! pong_start "$prefix" tcp -; then
    pong_stop
    die "cannot start a pong at $(hostport "$addr" 0): $PONG_ERROR: $(tail -n 2 "$PONG_ERR" | tr '\n' ' ')"
  fi
  timeout 20 "$BIN_DIR/$prefix-ping" "${PONG_MODE_ARGS[@]}" --address "$PONG_TARGET" \
    --protocol tcp --duration 0.2 --warmup 0 --json >/dev/null 2>"$SWEEP_TMP/probe.err" || rc=$?
  pong_stop
  ((rc == 0)) || die "the data-plane address $addr does not answer from here ($PONG_TARGET): $(tail -n 1 "$SWEEP_TMP/probe.err")"
  say "$REMOTE answers on $addr; its binaries match ours."
}

# --peer: every pong the plan needs must answer on its fixed port, in the sweep's MODE.
preflight_peer() {
  local binary proto port pong_args bad=() probe=(--udp-timeout-ms 500) mode=""
  if [[ $MODE == throughput ]]; then probe=(--mode throughput) mode="MODE=throughput "; fi
  if [[ -n $VARIANTS ]]; then mode+="VARIANTS=$(sh_quote "$VARIANTS") "; fi
  # The pongs of --serve are made ready for the most connections of its CONNECTIONS.
  if [[ $MODE == rtt && $CONNECTIONS != 1 ]]; then mode+="CONNECTIONS=$(sh_quote "$CONNECTIONS") "; fi
  say "Checking the pongs on $PEER ..."
  while IFS=$'\t' read -r binary proto port pong_args; do
    if ! timeout 20 "$BIN_DIR/$binary-ping" --address "$(hostport "$PEER" "$port")" \
      --protocol "$proto" --duration 0.1 --warmup 0 "${probe[@]}" --json \
      >/dev/null 2>"$SWEEP_TMP/probe.err" </dev/null; then
      bad+=("$binary $proto on $(hostport "$PEER" "$port"): $(tail -n 1 "$SWEEP_TMP/probe.err")")
    fi
  done < <(sweep_py pongs --state "$STATE")
  if ((${#bad[@]})); then
    printf '%s: no answer from these pongs:\n' "$PROG" >&2
    printf '  %s\n' "${bad[@]}" >&2
    die "start them on $PEER with: ${mode}BASE_PORT=$BASE_PORT ./run-network.sh --serve $RUNTIME_FLAGS"
  fi
  if [[ -n $REFERENCES ]] && ! ping -n -c 1 -W 3 "$PEER" >/dev/null 2>&1; then
    warn "$PEER does not answer ICMP echo: the ICMP points will fail"
  fi
}

# --serve: one pong per framework and protocol, on fixed ports, until Ctrl-C. A pong that says
# io_uring is unavailable here is left out (its runtime is not served, and host A is told so).
serve() {
  local bind=${TARGET:-0.0.0.0} binary proto port pong_args args rc pongs err why unserved=()
  check_knobs serve pong
  setup_local_cpus_and_nice pong
  pongs=$(sweep_py pongs --state "$STATE")
  while IFS=$'\t' read -r binary proto port pong_args; do
    rc=0 args=() err="$SWEEP_TMP/$binary-$proto-$port.err"
    if [[ " ${unserved[*]} " == *" --unserved $binary "* ]]; then continue; fi
    if [[ $pong_args != - ]]; then read -r -a args <<<"$pong_args"; fi
    spawn_reader "$err" /dev/null "${TASKSET_PONG[@]}" "${NICE_CMD[@]}" \
      "$BIN_DIR/$binary-pong" --address "$(hostport "$bind" "$port")" \
      --protocol "$proto" "${PONG_MODE_ARGS[@]}" "${args[@]}" "${PONG_EXTRA_ARGS[@]}"
    SERVING[$SPAWN_PID]="$SPAWN_FD:$err"
    await_line "$SPAWN_FD" "$LISTEN_RE" "$READY_TIMEOUT" || rc=$?
    if ((rc == 0)); then continue; fi
    if why=$(sweep_py unavailable --tail "$err"); then
      warn "$binary-pong is not served: $why"
      reap "$SPAWN_PID" "$SPAWN_FD"
      unset "SERVING[$SPAWN_PID]"
      unserved+=(--unserved "$binary")
      continue
    fi
    printf '%s: %s-pong (%s) did not start on %s:\n' "$PROG" "$binary" "$proto" \
      "$(hostport "$bind" "$port")" >&2
    tail_err "$err" >&2
    exit 1
  done <<<"$pongs"
  ((${#SERVING[@]})) || die "no pong could be started here"
  sweep_py serving --state "$STATE" --bind "$bind" "${unserved[@]}"
  # Until a signal, or until a pong dies (which is reported).
  local dead=""
  wait -n -p dead "${!SERVING[@]}" || true
  printf '%s: a pong (PID %s) exited; stopping the others\n' "$PROG" "${dead:-?}" >&2
  if [[ -n $dead ]]; then tail_err "${SERVING[$dead]#*:}" >&2; fi
  exit 1
}

main() {
  parse_args "$@"
  if [[ ${MODE:-} == micro ]]; then
    printf '%s: MODE=micro runs in-process benchmarks on one host, with no peer: use ./run-localhost.sh\n' \
      "$PROG" >&2
    exit 2
  fi
  install_traps
  make_tmp
  if [[ $NET_MODE == serve ]]; then serve; fi
  # Remote mode compares this host's pongs with B's, so it needs them too.
  if [[ $NET_MODE == remote ]]; then check_knobs remote "ping pong"; else check_knobs peer ping; fi
  read -r -a SSH_ARGS <<<"$SSH_OPTS"
  ssh_command
  setup_local_cpus_and_nice ping
  local b_name
  if [[ $NET_MODE == remote ]]; then
    REMOTE_DIR=${REMOTE_DIR:-$SUITE_DIR}
    if [[ -z $TARGET ]]; then
      TARGET=$(ssh_hostname)
      TARGET=${TARGET:-${REMOTE#*@}}
    fi
    b_name=${REMOTE#*@}
  else
    TARGET=$PEER b_name=$PEER
  fi
  ICMP_ADDR=$TARGET
  check_icmp
  make_plan
  if [[ $DRY_RUN == 1 ]]; then say "$PLAN_TEXT"; exit_if_dry_run; fi

  if [[ $NET_MODE == remote ]]; then preflight_remote; else preflight_peer; fi
  say "$PLAN_TEXT"
  hold_cpus_awake
  make_sweep_dir "network-${b_name//[^A-Za-z0-9._-]/_}"
  local bins=() prefix meta=() nice_ping="not applied" nice_pong="not applied"
  for prefix in "${RUNTIME_LIST[@]}"; do bins+=("$prefix-ping"); done
  "$SCRIPTS_DIR/host-facts.sh" "$SUITE_DIR" "$BIN_DIR" "$PING_CPUS" "$NICE" "${bins[@]}" \
    >"$SWEEP_TMP/host-ping.tsv" || warn "could not read this machine's facts"
  if [[ $NET_MODE == peer ]]; then
    printf 'host\t%s\naddress\t%s\nnote\tmanual mode (--peer): facts of this host were not collected\n' \
      "$PEER" "$PEER" >"$SWEEP_TMP/host-pong.tsv"
  else
    printf 'address\t%s\nssh\t%s\n' "$TARGET" "$REMOTE" >>"$SWEEP_TMP/host-pong.tsv"
    meta=(--meta "remote=$REMOTE" --meta "remote_dir=$REMOTE_DIR")
  fi
  if ((${#NICE_CMD[@]})); then nice_ping=$NICE; fi
  if [[ -n $REMOTE_NICE ]]; then nice_pong=$NICE; fi
  start_sweep_json --meta kind=network --meta "mode=$NET_MODE" --meta "command=$PROG $*" \
    --meta "target=$TARGET" "${meta[@]}" \
    --meta "pinning=pong: ${PONG_CPUS:-none} (on B), ping: ${PING_CPUS:-none}" \
    --meta "nice=ping: $nice_ping, pong: $nice_pong" \
    --meta "cpu_dma_latency=ping host: $IDLE_HOLD; pong host: not asked" \
    --host "ping=$SWEEP_TMP/host-ping.tsv" --host "pong=$SWEEP_TMP/host-pong.tsv"
  run_sweep
}

main "$@"
