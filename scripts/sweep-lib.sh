# shellcheck shell=bash disable=SC2034,SC2153  # SC2034: variables for the sourcing script; SC2153: knobs come from check_knobs
# The process side shared by run-localhost.sh and run-network.sh: flags, the loop over the plan's
# runs (pongs, pings, time limits, Ctrl-C), the ICMP baseline. The data side (knobs and their checks, the plan,
# sweep.json, progress lines, ETA, the summary) is scripts/sweep.py's, standard library Python.
# Sourced, never run. The sourcing script defines three hooks:
#   pong_start BINARY PROTOCOL PORT  start a pong (BINARY is a prefix: tokio for tokio-pong; PORT is
#                                    the --serve port or "-"), set PONG_TARGET (HOST:PORT for the
#                                    ping) and write its stderr to PONG_ERR; on failure return 1
#                                    with PONG_ERROR; pass PONG_MODE_ARGS (--mode) and RUN_PONG_ARGS
#                                    (a reference's own arguments) to the pong
#   pong_stop                        stop what pong_start started; safe to call twice
#   pong_cleanup                     last-chance cleanup from the EXIT trap (remote pongs, ...)

# Checked first, in syntax any bash parses: `wait -n -p` needs 5.1, $EPOCHREALTIME 5.0.
_bash_minor=${BASH_VERSION#*.}
if ((${BASH_VERSION%%.*} < 5 || (${BASH_VERSION%%.*} == 5 && ${_bash_minor%%.*} < 1))); then
  printf '%s: needs bash 5.1 or newer (for wait -n -p); this is bash %s\n' "$PROG" "$BASH_VERSION" >&2
  exit 2
fi
unset _bash_minor
if ! command -v python3 >/dev/null; then
  printf '%s: needs python3 (3.10 or newer; the standard library is enough)\n' "$PROG" >&2
  exit 2
fi
# The interpreter itself, found once: python3 may be a wrapper (pyenv's shims are shell scripts)
# that would cost every run's bookkeeping a tenth of a second more.
PYTHON_BIN=$(python3 -c 'import sys; print(sys.executable)') || exit 2

SUITE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPTS_DIR="$SUITE_DIR/scripts"
# How each kind of run is done: run_point, run_icmp_point, run_micro_point.
# shellcheck source=scripts/sweep-runs.sh
source "$SCRIPTS_DIR/sweep-runs.sh"

FLAGS=""           # the flag letters given, e.g. tSP (scripts/sweep.py knows what they select)
SWEEP_TMP=""       # scratch: the state file until the folder exists, the plan, fifos, stderr files
SWEEP_DIR=""       # this sweep's folder, once created
STATE=""           # the state file: $SWEEP_TMP/state.json, then $SWEEP_DIR/sweep.json
SWEEP_T0=""        # $EPOCHREALTIME when the first run started
CHILD_PID=""       # the ping (under timeout) of the current run
CHILD_RC=0         # its exit status, once it ended (run_child)
CURRENT=""         # index of the run being measured; its logs are not final
CURRENT_STEM=""
PENDING=""         # index of a run that ended but is not recorded yet
RUN_T0=""          # $EPOCHREALTIME when that run started
RUN_STAT0=""       # /proc/stat's cpu line when it started (its children's CPU times: $SWEEP_TMP/times0)
OUTCOME=()         # how it ended, as arguments of `sweep.py record`
PONG_ERROR=""      # why pong_start failed
PONG_MODE_ARGS=()  # the pong's --mode, for the pong_start hooks
RUN_PING_ARGS=()   # a reference's own arguments (runtimes.json ping_args, pong_args) for this run
RUN_PONG_ARGS=()
TASKSET_PING=()
TASKSET_PONG=()
TASKSET_MICRO=()   # MODE=micro: the benchmark binary's pinning (MICRO_CPUS)
NICE_CMD=()
ICMP_UNUSABLE=""   # why the system ping cannot give the ICMP baseline, if it cannot
IDLE_FD=""         # TUNE=1: the open /dev/cpu_dma_latency that holds the CPUs out of deep idle
IDLE_HOLD=""       # what TUNE did here, for sweep.json

say() { printf '%s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s\nTry %s -h.\n' "$PROG" "$*" "$PROG" >&2; exit 2; }

sweep_py() { "$PYTHON_BIN" "$SCRIPTS_DIR/sweep.py" "$1" --prog "$PROG" "${@:2}"; }

# now_us and to_us set the variable named by their last argument rather than print: a command substitution
# forks a subshell, and bash 5.2 loses a SIGINT that lands while such a subshell of its own runs
# (seen in CI: the sweep carried on after ^C). The sweep's waits loop on them.
now_us() { local t="${EPOCHREALTIME//[!0-9]/}"; printf -v "$1" '%s' "$((10#$t))"; }

# Seconds as a checked decimal (10, 0.5, .25) to microseconds, in bash's integer arithmetic.
to_us() {
  local whole=${1%%.*} frac=""
  [[ $1 == *.* ]] && frac=${1#*.}
  frac="${frac}000000"
  printf -v "$2" '%s' "$((10#${whole:-0} * 1000000 + 10#${frac:0:6}))"
}

# Collects one bundle of short flags such as -asStP; sweep.py checks the letters.
short_flags() {
  local flags="${1#-}"
  [[ -n $flags ]] || usage_error "empty flag '-'"
  if [[ $flags == *h* ]]; then usage; exit 0; fi
  FLAGS+=$flags
}

# Checks the flags and knobs (all problems, then exit 2; missing binaries: exit 1) and starts the
# state file. Sets every knob, normalised, and RUNTIMES, ALL_RUNTIMES (binary prefixes), REFERENCES,
# RUNTIME_FLAGS, BINARIES (the ends each runtime needs: ping pong, or micro with MODE=micro).
# $1: localhost, remote, peer or serve; $2: the binaries that must exist here.
check_knobs() {
  local out name value
  out=$(sweep_py check --state "$STATE" --context "$1" --binaries "$2" "$FLAGS") || exit "$?"
  while IFS=$'\t' read -r name value; do printf -v "$name" '%s' "$value"; done <<<"$out"
  read -r -a PING_EXTRA_ARGS <<<"$PING_EXTRA"
  read -r -a PONG_EXTRA_ARGS <<<"$PONG_EXTRA"
  read -r -a RUNTIME_LIST <<<"$RUNTIMES"
  read -r -a PROTOCOL_LIST <<<"$PROTOCOLS"
  PONG_MODE_ARGS=()
  if [[ $MODE == throughput ]]; then PONG_MODE_ARGS=(--mode throughput); fi
}

# This process's allowed CPUs, e.g. 0-3.
allowed_cpus() {
  local key value
  while read -r key value; do
    if [[ $key == Cpus_allowed_list: ]]; then printf '%s' "$value"; fi
  done </proc/self/status
}

# taskset and nice for the ends that run here ("ping", "pong" or both; "micro" for MODE=micro's
# benchmark binaries), as far as this machine allows. With one CPU, whatever runs here runs on it
# (both ends: with a warning).
setup_local_cpus_and_nice() {
  local ends=" $* " ncpu allowed var end
  ncpu=$(nproc)
  allowed=$(allowed_cpus)
  if ((ncpu == 1)); then
    if [[ $ends == *" ping "* && $ends == *" pong "* && -n $PING_CPUS$PONG_CPUS &&
      ($PING_CPUS != "$allowed" || $PONG_CPUS != "$allowed") ]]; then
      warn "only one CPU ($allowed) is available: pong and ping both run on it and compete"
    fi
    if [[ -n $PING_CPUS && $ends == *" ping "* ]]; then PING_CPUS=$allowed; fi
    if [[ -n $PONG_CPUS && $ends == *" pong "* ]]; then PONG_CPUS=$allowed; fi
  fi
  TASKSET_PING=() TASKSET_PONG=() TASKSET_MICRO=()
  for var in PING_CPUS PONG_CPUS MICRO_CPUS; do
    end=${var%_CPUS}
    [[ -n ${!var:-} && $ends == *" ${end,,} "* ]] || continue
    if ! taskset -c "${!var}" true 2>/dev/null; then
      printf '%s: %s=%s is not usable here (this process may run on CPUs %s)\n' \
        "$PROG" "$var" "${!var}" "$allowed" >&2
      exit 2
    fi
  done
  if [[ -n $PING_CPUS && $ends == *" ping "* ]]; then TASKSET_PING=(taskset -c "$PING_CPUS"); fi
  if [[ -n $PONG_CPUS && $ends == *" pong "* ]]; then TASKSET_PONG=(taskset -c "$PONG_CPUS"); fi
  if [[ -n ${MICRO_CPUS:-} && $ends == *" micro "* ]]; then TASKSET_MICRO=(taskset -c "$MICRO_CPUS"); fi
  NICE_CMD=()
  if ((NICE != 0)); then
    local base got want
    base=$(nice)
    want=$((base + NICE))
    ((want < -20)) && want=-20
    ((want > 19)) && want=19
    got=$(nice -n "$NICE" nice 2>/dev/null || true)
    if [[ $got == "$want" ]]; then
      NICE_CMD=(nice -n "$NICE")
    else
      warn "cannot run at NICE=$NICE here (needs root or CAP_SYS_NICE): running at normal priority"
    fi
  fi
}

# TUNE=1: asks the kernel to keep this host's CPUs out of idle states slower to leave than 0 µs
# (the PM QoS request of /dev/cpu_dma_latency, as pyperf's `system tune` and tuned do), for as long
# as the descriptor is open: the kernel drops the request when the last copy closes, so every way
# the sweep ends, Ctrl-C and kill -9 included, restores the machine. Sets IDLE_HOLD to what happened.
hold_cpus_awake() {
  IDLE_HOLD="not asked (TUNE=0)"
  [[ $TUNE == 1 ]] || return 0
  if { exec {IDLE_FD}>/dev/cpu_dma_latency; } 2>/dev/null && printf '\0\0\0\0' 1>&"$IDLE_FD" 2>/dev/null; then
    IDLE_HOLD="held at 0 us"
  else
    IDLE_HOLD="not permitted"
    warn "TUNE=1: cannot write /dev/cpu_dma_latency (it needs root): idle CPUs may halt, which adds the time to wake one to every round trip; TUNE=0 says this is meant"
  fi
}

# The system ping, if it can do what the ICMP baseline needs; else ICMP_UNUSABLE says why.
check_icmp() {
  ICMP_UNUSABLE=""
  [[ -n $REFERENCES ]] || return 0
  if ! command -v ping >/dev/null; then
    ICMP_UNUSABLE="no system ping: install iputils-ping (Debian/Ubuntu: apt-get install iputils-ping)"
  elif ! ping -V 2>&1 | grep -q iputils; then
    ICMP_UNUSABLE="the system ping is not iputils ping (needed for -D timestamps): install iputils-ping"
  fi
}

# Builds the plan into $SWEEP_TMP/plan.tsv (one line per run, see scripts/sweepkit/plan.py) and
# keeps its printout in PLAN_TEXT. The knobs this host adjusted are recorded as used.
make_plan() {
  PLAN_TEXT=$(sweep_py plan --state "$STATE" --lines "$SWEEP_TMP/plan.tsv" \
    --knob "PING_CPUS=$PING_CPUS" --knob "PONG_CPUS=$PONG_CPUS" --icmp-unusable "$ICMP_UNUSABLE")
}

# DRY_RUN=1: the plan (its seed and estimated time included) was the whole job.
exit_if_dry_run() {
  if [[ $DRY_RUN == 1 ]]; then
    say "DRY_RUN=1: nothing was started and nothing written; run again without DRY_RUN (or SEED=$SEED for this order)"
    exit 0
  fi
}

# Creates OUT_DIR/NAME-YYYYmmdd-HHMMSS (a suffix if that second is taken).
make_sweep_dir() {
  local name=$1 base k=1
  mkdir -p "$OUT_DIR" || die "cannot create OUT_DIR=$OUT_DIR"
  base="$OUT_DIR/$name-$(date +%Y%m%d-%H%M%S)"
  SWEEP_DIR=$base
  until mkdir "$SWEEP_DIR" 2>/dev/null; do
    ((k < 100)) || die "cannot create a folder in $OUT_DIR"
    k=$((k + 1)) SWEEP_DIR="$base-$k"
  done
  SWEEP_DIR="$(cd "$SWEEP_DIR" && pwd)"
}

make_tmp() {
  SWEEP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtt-sweep.XXXXXX")
  STATE="$SWEEP_TMP/state.json"
}

# sweep.json moves into the sweep's folder, with the run's facts: KEY=VALUE and ROLE=FILE arguments.
start_sweep_json() {
  sweep_py start --state "$STATE" --dir "$SWEEP_DIR" "$@"
  STATE="$SWEEP_DIR/sweep.json"
}

# Starts "$@" in the background, stdin from $2, stdout into a fifo we read, stderr into $1.
# Sets SPAWN_PID and SPAWN_FD (read end; EOF once the process and its children are gone).
spawn_reader() {
  local err=$1 input=$2 fifo
  shift 2
  fifo="$SWEEP_TMP/fifo.$RANDOM$RANDOM"
  mkfifo "$fifo"
  # stdin first: once the child has opened the fifo (our open returns), both paths may go.
  "$@" <"$input" >"$fifo" 2>"$err" &
  SPAWN_PID=$!
  exec {SPAWN_FD}<"$fifo"
  rm -f "$fifo"
}

# Reads lines from fd $1 until one matches regex $2 (empty: none does), for at most $3 seconds.
# Sets LINE (the matching line); returns 1 on EOF (the writer died), 2 on the deadline.
await_line() {
  local fd=$1 re=$2 end now left timeout rc
  to_us "$3" end
  now_us now
  end=$((end + now))
  while :; do
    now_us now
    left=$((end - now))
    ((left > 0)) || return 2
    printf -v timeout '%d.%06d' $((left / 1000000)) $((left % 1000000))
    LINE=""
    rc=0
    IFS= read -r -t "$timeout" -u "$fd" LINE || rc=$?
    if ((rc > 128)); then return 2; fi
    if ((rc != 0)) && [[ -z $LINE ]]; then return 1; fi
    if [[ -n $re && $LINE =~ $re ]]; then return 0; fi
  done
}

# Waits up to $3 s for process $1 (writer of fd $2) to go, then KILLs it; closes the fd.
reap() {
  local pid=$1 fd=$2 secs=${3:-5}
  if [[ -n $fd ]]; then
    local rc=0
    await_line "$fd" "" "$secs" || rc=$?
    exec {fd}<&-
    if ((rc == 2)); then kill -KILL "$pid" 2>/dev/null || true; fi
  fi
  wait "$pid" 2>/dev/null || true
}

# A pong's readiness line, and the ADDR:PORT it names (of LINE, after await_line matched it), set
# in LISTENING (no subshell, as for now_us).
LISTEN_RE='^listening on (.+):([0-9]+) \((tcp|udp)\)$'
listen_address() { LISTENING=${LINE#listening on } && LISTENING=${LISTENING% (*)}; }

# Prints the last lines of a stderr file, indented, for a failure report.
tail_err() {
  local f=$1
  [[ -s $f ]] || return 0
  tail -n "${2:-5}" "$f" | sed 's/^/      | /'
}

# What the machine and this script's children have done so far: /proc/stat's cpu line into the
# variable named by $1, bash's `times` into the file $2 (builtins, no subshell: see now_us).
cpu_snapshot() {
  local label
  read -r label "${1?}" </proc/stat || true
  times >"$2"
}

# Tells sweep.py how the pending run ended; it records it and prints the progress line.
record_run() {
  [[ -n $PENDING ]] || return 0
  local t1=$EPOCHREALTIME stat1="" cpu=()
  cpu_snapshot stat1 "$SWEEP_TMP/times1"
  if [[ -n $RUN_STAT0 ]]; then
    cpu=(--cpu "$RUN_STAT0" "$stat1" "$SWEEP_TMP/times0" "$SWEEP_TMP/times1")
  fi
  sweep_py record --state "$STATE" "$PENDING" --t0 "$RUN_T0" --t1 "$t1" \
    --since "$SWEEP_T0" "${OUTCOME[@]}" "${cpu[@]}" || warn "could not record run $((PENDING + 1)) in $STATE"
  PENDING="" OUTCOME=() RUN_STAT0=""
}

# The trap handlers. Children are stopped by the PIDs remembered when they were started.
on_signal() {
  local sig=$1 code=$2
  trap '' INT TERM
  printf '\n%s: caught SIG%s: stopping\n' "$PROG" "$sig" >&2
  if [[ -n $CHILD_PID ]]; then
    kill -TERM "$CHILD_PID" 2>/dev/null || true
    wait "$CHILD_PID" 2>/dev/null || true
    CHILD_PID=""
  fi
  pong_stop
  if [[ -n $SWEEP_DIR ]]; then
    if [[ -n $CURRENT ]]; then
      rm -f "$SWEEP_DIR/$CURRENT_STEM.json" "$SWEEP_DIR/$CURRENT_STEM.csv" \
        "$SWEEP_DIR/.$CURRENT_STEM.ping-output"
      sweep_py interrupt --state "$STATE" --signal "$sig" --index "$CURRENT" ||
        warn "could not write $STATE"
    else
      record_run || true # it ended before the signal: it counts
      sweep_py interrupt --state "$STATE" --signal "$sig" || warn "could not write $STATE"
    fi
  fi
  exit "$code"
}

on_exit() {
  trap '' INT TERM
  if [[ -n $CHILD_PID ]]; then
    kill -TERM "$CHILD_PID" 2>/dev/null || true
    wait "$CHILD_PID" 2>/dev/null || true
  fi
  pong_stop
  pong_cleanup
  if [[ -n $SWEEP_TMP ]]; then rm -rf "$SWEEP_TMP"; fi
}

install_traps() {
  trap on_exit EXIT
  trap 'on_signal INT 130' INT
  trap 'on_signal TERM 143' TERM
  trap 'on_signal HUP 129' HUP
}

# The version string of the suite, as the binaries report it (for the ICMP logs).
suite_version() {
  local prefix v
  for prefix in $ALL_RUNTIMES; do
    if [[ -x "$BIN_DIR/$prefix-ping" ]] && v=$(timeout 5 "$BIN_DIR/$prefix-ping" --version 2>/dev/null); then
      printf '%s' "${v#* }"
      return
    fi
  done
  printf 'git %s' "$(git -C "$SUITE_DIR" rev-parse --short HEAD 2>/dev/null || printf unknown)"
}

# Runs every run of the plan (rounds of shuffled points), then sweep.py finishes: the summary, and
# status 1 if a run failed. Points the plan skips have no line: the plan printout names them.
run_sweep() {
  local index stem kind binary proto size interval tasks limit port round ping_args pong_args
  SUITE_VERSION=$(suite_version)
  say "Logs: $SWEEP_DIR"
  SWEEP_T0=$EPOCHREALTIME
  # The plan comes on fd 3, so that nothing run in the loop can read it.
  while IFS=$'\t' read -r -u 3 index stem kind binary proto size interval tasks limit port round ping_args \
    pong_args; do
    cpu_snapshot RUN_STAT0 "$SWEEP_TMP/times0"
    RUN_T0=$EPOCHREALTIME CURRENT_STEM=$stem OUTCOME=() RUN_PING_ARGS=() RUN_PONG_ARGS=()
    if [[ $ping_args != - ]]; then read -r -a RUN_PING_ARGS <<<"$ping_args"; fi
    if [[ $pong_args != - ]]; then read -r -a RUN_PONG_ARGS <<<"$pong_args"; fi
    CURRENT=$index
    if [[ $kind == icmp ]]; then run_icmp_point "$interval" "$limit"
    elif [[ $kind == micro ]]; then run_micro_point "$binary" "$limit"
    else run_point "$kind" "$binary" "$proto" "$size" "$interval" "$tasks" "$limit" "$port"; fi
    PENDING=$index CURRENT=""
    record_run
  done 3<"$SWEEP_TMP/plan.tsv"
  sweep_py finish --state "$STATE" --since "$SWEEP_T0" --now "$EPOCHREALTIME"
}

# Its arguments as one command line for any POSIX shell (sh, dash, bash), e.g. a remote login
# shell: each one single-quoted, a ' inside written as '\''. Nothing inside single quotes expands.
sh_quote() {
  local arg words=() sq="'" escaped="'\\''" IFS=' '
  for arg in "$@"; do words+=("'${arg//$sq/$escaped}'"); done
  printf '%s' "${words[*]}"
}
