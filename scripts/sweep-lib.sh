# shellcheck shell=bash disable=SC2034  # SC2034: many variables are for the sourcing script
# Sweep logic shared by run-localhost.sh and run-network.sh: flags, knobs, the plan, the point loop
# (progress, ETA, failures, Ctrl-C), the ICMP baseline, sweep.json and the closing summary, for both
# measurements (MODE=rtt: round-trip times per interval; MODE=throughput: msg/s and Gb/s per size).
# Sourced, never run. The sourcing script defines three hooks:
#   pong_start FRAMEWORK PROTOCOL  start a pong, set PONG_TARGET (HOST:PORT for the ping) and
#                                  PONG_ERR (its stderr file); on failure return 1 with PONG_ERROR;
#                                  it passes PONG_MODE_ARGS (the pong's --mode) to the pong
#   pong_stop                      stop what pong_start started; safe to call twice
#   pong_cleanup                   last-chance cleanup from the EXIT trap (remote pongs, ...)

SUITE_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCRIPTS_DIR="$SUITE_DIR/scripts"

# The knobs the user set, before defaults fill in the rest: sweep.json tells the two apart.
KNOB_NAMES=(MODE DURATION WARMUP SIZE INTERVALS SIZES TASKS PROTOCOLS PONG_CPUS PING_CPUS NICE
  OUT_DIR BIN_DIR READY_TIMEOUT PING_GRACE PING_EXTRA PONG_EXTRA)
KNOBS_GIVEN=()
for _knob in "${KNOB_NAMES[@]}"; do
  if [[ -n "${!_knob+set}" ]]; then KNOBS_GIVEN+=("$_knob"); fi
done
unset _knob

: "${MODE:=rtt}"      # rtt: round-trip times per interval; throughput: msg/s and Gb/s per size
: "${DURATION:=10}"
: "${WARMUP:=1}"
: "${SIZE:=64}"
: "${INTERVALS:=0.1 0.01 0.001 0.0001 0}"
: "${SIZES:=8 64 1024 16384 65536 1048576}" # MODE=throughput: payload bytes, one point each
: "${TASKS:=0}"
: "${PROTOCOLS:=tcp udp}"
: "${PONG_CPUS=0}"    # empty: no pinning
: "${PING_CPUS=1}"
: "${NICE:=-10}"
: "${OUT_DIR:=latency-logs}"
: "${BIN_DIR:=$SUITE_DIR/target/release}"
: "${READY_TIMEOUT:=10}" # seconds a pong may take to print its `listening on` line
: "${PING_GRACE:=20}"    # seconds a ping may run past its warm-up + duration before it is killed
: "${PING_EXTRA:=}"      # extra arguments for every *-ping, e.g. "--decoy sleep"
: "${PONG_EXTRA:=}"      # extra arguments for every *-pong, e.g. "--threads 1"

FRAMEWORKS=(std tokio async-std smol)
declare -A WANT=()

SWEEP_TMP=""       # scratch: fifos, stderr of the current point
SWEEP_DIR=""       # this sweep's folder, once created
SWEEP_STATUS=""    # running, complete, failed, interrupted
CHILD_PID=""       # the ping (under timeout) of the current point
CURRENT=""         # index of the point being measured
PONG_ERROR=""      # why pong_start failed
EXTRA_KNOBS=()     # knobs of the sourcing script, for sweep.json
TASKSET_PING=()
TASKSET_PONG=()
NICE_CMD=()
ICMP_SKIP=""       # why ICMP points cannot run, if they cannot
PONG_MODE_ARGS=()  # the pong's --mode, for the pong_start hooks
MAX_UDP_SIZE=65507 # the largest UDP payload over IPv4
MAX_TCP_SIZE=$((64 << 20)) # the largest payload the pings accept
MAX_UDP_THROUGHPUT_S=400   # a UDP throughput run's counts must fit one datagram

# Points of the plan, by index. P_IV is empty for throughput points. P_P50 and P_RATE hold the
# p50 RTT (ns) and achieved rate (msg/s) of an RTT point, the p50 msg/s and Gb/s of a throughput one.
P_FW=() P_PROTO=() P_SIZE=() P_IV=() P_TASKS=() P_STEM=() P_STATUS=() P_WALL=() P_P50=() P_RATE=()
P_MSG=()

say() { printf '%s\n' "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die() { printf '%s: %s\n' "$PROG" "$*" >&2; exit 1; }
usage_error() { printf '%s: %s\nTry %s -h.\n' "$PROG" "$*" "$PROG" >&2; exit 2; }

now_us() { local t="${EPOCHREALTIME//[!0-9]/}"; printf '%s' "$((10#$t))"; }
calc() { awk "BEGIN { printf \"%s\", $1 }"; }

fmt_secs() { # seconds (float) -> 1h02m, 7m05s, 12s
  local s
  s=$(calc "int($1 + 0.5)")
  if ((s >= 3600)); then printf '%dh%02dm' $((s / 3600)) $((s % 3600 / 60))
  elif ((s >= 60)); then printf '%dm%02ds' $((s / 60)) $((s % 60))
  else printf '%ds' "$s"; fi
}

bin_prefix() { if [[ $1 == async-std ]]; then printf asyncstd; else printf '%s' "$1"; fi; }

knobs_help() {
  cat <<EOF
Frameworks (any combination; at least one):
  -S  std (threads)   -t  tokio   -a  async-std   -s  smol
  -P  ICMP baseline with the system ping (iputils)
  -h  this help

Knobs (environment variables, with their defaults):
  MODE=rtt               rtt: round-trip times; throughput: one way, as fast as possible
  DURATION=10            measured seconds per point
  WARMUP=1               warm-up seconds per point, excluded from the statistics
  SIZE=64                MODE=rtt: payload bytes (at least 8; UDP at most 65507)
  INTERVALS="0.1 0.01 0.001 0.0001 0"   MODE=rtt: seconds between messages; 0 = back-to-back
  SIZES="8 64 1024 16384 65536 1048576" MODE=throughput: payload bytes, a point each
                         (UDP points above 65507 bytes are skipped)
  TASKS="0"              decoy task counts
  PROTOCOLS="tcp udp"
  PONG_CPUS=0 PING_CPUS=1   taskset CPU lists (empty: no pinning)
  NICE=-10               niceness of both ends (when allowed)
  OUT_DIR=latency-logs   each sweep makes its own folder in it
  BIN_DIR=target/release READY_TIMEOUT=10 PING_GRACE=20  PING_EXTRA=""  PONG_EXTRA=""
EOF
}

# Parses one bundle of short flags such as -asStP.
short_flags() {
  local flags="${1#-}" c i
  [[ -n $flags ]] || usage_error "empty flag '-'"
  for ((i = 0; i < ${#flags}; i++)); do
    c="${flags:i:1}"
    case "$c" in
      S) WANT[std]=1 ;;
      t) WANT[tokio]=1 ;;
      a) WANT[async-std]=1 ;;
      s) WANT[smol]=1 ;;
      P) WANT[ping]=1 ;;
      h) usage; exit 0 ;;
      *) usage_error "unknown flag -$c" ;;
    esac
  done
}

is_decimal() { [[ $1 =~ ^([0-9]+([.][0-9]*)?|[.][0-9]+)$ ]]; }
is_uint() { [[ $1 =~ ^[0-9]+$ ]]; }
is_cpulist() { [[ -z $1 || $1 =~ ^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$ ]]; }

# Checks every knob; all problems are reported, then exit 2 before anything starts.
check_knobs() {
  local errors=() x
  [[ $MODE == rtt || $MODE == throughput ]] ||
    errors+=("MODE='$MODE': expected rtt (round-trip times) or throughput (msg/s and Gb/s)")
  is_decimal "$DURATION" && [[ $(calc "($DURATION > 0)") == 1 ]] ||
    errors+=("DURATION='$DURATION': expected seconds > 0, e.g. 10 or 0.5")
  is_decimal "$WARMUP" || errors+=("WARMUP='$WARMUP': expected seconds >= 0, e.g. 1")
  if [[ $MODE == throughput ]]; then
    read -r -a SIZE_LIST <<<"$SIZES"
    ((${#SIZE_LIST[@]})) || errors+=("SIZES is empty: expected payload bytes, e.g. \"64 1024\"")
    for x in "${SIZE_LIST[@]}"; do
      if ! is_uint "$x" || ((${#x} > 9)) || ((10#$x < 8 || 10#$x > MAX_TCP_SIZE)); then
        errors+=("SIZES: '$x' is not a payload size from 8 bytes (the sequence number) to $MAX_TCP_SIZE")
      fi
    done
  else
    if ! is_uint "$SIZE" || ((${#SIZE} > 9)) || ((10#$SIZE < 8)); then
      errors+=("SIZE='$SIZE': expected bytes >= 8 (the sequence number)")
    fi
    read -r -a INTERVAL_LIST <<<"$INTERVALS"
    ((${#INTERVAL_LIST[@]})) || errors+=("INTERVALS is empty: expected seconds, e.g. \"0.001 0\"")
    for x in "${INTERVAL_LIST[@]}"; do
      is_decimal "$x" || errors+=("INTERVALS: '$x' is not a number of seconds >= 0")
    done
  fi
  read -r -a TASK_LIST <<<"$TASKS"
  ((${#TASK_LIST[@]})) || errors+=("TASKS is empty: expected decoy counts, e.g. \"0 10\"")
  for x in "${TASK_LIST[@]}"; do
    is_uint "$x" && ((${#x} < 7)) || errors+=("TASKS: '$x' is not a decoy task count (0..100000)")
  done
  read -r -a PROTOCOL_LIST <<<"$PROTOCOLS"
  ((${#PROTOCOL_LIST[@]})) || errors+=("PROTOCOLS is empty: expected \"tcp udp\", \"tcp\" or \"udp\"")
  for x in "${PROTOCOL_LIST[@]}"; do
    [[ $x == tcp || $x == udp ]] || errors+=("PROTOCOLS: '$x' is not tcp or udp")
    [[ $x == udp ]] || continue
    if [[ $MODE == rtt ]] && is_uint "$SIZE" && ((${#SIZE} <= 9 && 10#$SIZE > MAX_UDP_SIZE)); then
      errors+=("SIZE=$SIZE is too large for UDP (at most $MAX_UDP_SIZE bytes)")
    fi
    if [[ $MODE == throughput ]] && is_decimal "$DURATION" && is_decimal "$WARMUP" &&
      [[ $(calc "($WARMUP + $DURATION > $MAX_UDP_THROUGHPUT_S)") == 1 ]]; then
      errors+=("WARMUP + DURATION is over $MAX_UDP_THROUGHPUT_S s: a UDP throughput point lasts at most that (its counts come back in one datagram)")
    fi
  done
  is_cpulist "$PONG_CPUS" || errors+=("PONG_CPUS='$PONG_CPUS': expected a CPU list like 0 or 2-3")
  is_cpulist "$PING_CPUS" || errors+=("PING_CPUS='$PING_CPUS': expected a CPU list like 1 or 4,6")
  if [[ $NICE =~ ^([-+]?)([0-9]{1,2})$ ]]; then
    NICE=$((${BASH_REMATCH[1]:-+}10#${BASH_REMATCH[2]})) # no octal surprises from "-08"
  fi
  [[ $NICE =~ ^-?[0-9]+$ ]] && ((NICE >= -20 && NICE <= 19)) ||
    errors+=("NICE='$NICE': expected a niceness from -20 to 19")
  [[ -n $OUT_DIR ]] || errors+=("OUT_DIR is empty")
  is_decimal "$READY_TIMEOUT" && [[ $(calc "($READY_TIMEOUT > 0)") == 1 ]] ||
    errors+=("READY_TIMEOUT='$READY_TIMEOUT': expected seconds > 0")
  is_decimal "$PING_GRACE" && [[ $(calc "($PING_GRACE > 0)") == 1 ]] ||
    errors+=("PING_GRACE='$PING_GRACE': expected seconds > 0")
  read -r -a PING_EXTRA_ARGS <<<"$PING_EXTRA"
  read -r -a PONG_EXTRA_ARGS <<<"$PONG_EXTRA"
  if [[ $MODE == throughput ]]; then
    for x in "${PING_EXTRA_ARGS[@]}"; do
      case "$x" in
        --interval* | --rate* | --pacing*)
          errors+=("PING_EXTRA: ${x%%=*} does not apply to MODE=throughput (the ping sends as fast as it can)") ;;
      esac
    done
  fi
  if ((${#errors[@]})); then
    for x in "${errors[@]}"; do printf '%s: %s\n' "$PROG" "$x" >&2; done
    printf 'Nothing was started.\n' >&2
    exit 2
  fi
  if [[ $MODE == throughput ]]; then
    for x in "${!SIZE_LIST[@]}"; do SIZE_LIST[x]=$((10#${SIZE_LIST[x]})); done
    PONG_MODE_ARGS=(--mode throughput)
    if knob_given SIZE; then warn "SIZE applies to MODE=rtt; this throughput sweep uses SIZES=\"$SIZES\""; fi
    if knob_given INTERVALS; then
      warn "INTERVALS applies to MODE=rtt: a throughput point sends as fast as it can"
    fi
    if [[ -n ${WANT[ping]:-} ]]; then
      unset 'WANT[ping]'
      ((${#WANT[@]})) ||
        usage_error "-P: the ICMP baseline measures no throughput; with MODE=throughput choose -a, -s, -S or -t"
      warn "-P: the ICMP baseline measures no throughput; skipped with MODE=throughput"
    fi
  else
    SIZE=$((10#$SIZE))
    PONG_MODE_ARGS=()
    if knob_given SIZES; then warn "SIZES applies to MODE=throughput; this RTT sweep uses SIZE=$SIZE"; fi
  fi
}

knob_given() { [[ " ${KNOBS_GIVEN[*]} " == *" $1 "* ]]; }

selected_frameworks() { # the selected Rust frameworks, in the canonical order
  local fw
  for fw in "${FRAMEWORKS[@]}"; do if [[ -n ${WANT[$fw]:-} ]]; then printf '%s\n' "$fw"; fi; done
}

# Every selected binary must exist locally (pings, and pongs when they run here).
check_binaries() {
  local kinds=("$@") fw kind missing=()
  for fw in $(selected_frameworks); do
    for kind in "${kinds[@]}"; do
      [[ -x "$BIN_DIR/$(bin_prefix "$fw")-$kind" ]] || missing+=("$BIN_DIR/$(bin_prefix "$fw")-$kind")
    done
  done
  if ((${#missing[@]})); then
    printf '%s: missing binaries:\n' "$PROG" >&2
    printf '  %s\n' "${missing[@]}" >&2
    printf 'Build them first: run "make" (or "cargo build --release --workspace --bins") in %s\n' \
      "$SUITE_DIR" >&2
    exit 1
  fi
}

# taskset and nice for the ends that run here ("ping", "pong" or both), as far as this machine
# allows. With one CPU, whatever runs here runs on it (both ends: with a warning).
setup_local_cpus_and_nice() {
  local ends=" $* " ncpu allowed var end
  ncpu=$(nproc)
  allowed=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
  if ((ncpu == 1)); then
    if [[ $ends == *" ping "* && $ends == *" pong "* && -n $PING_CPUS$PONG_CPUS &&
      ($PING_CPUS != "$allowed" || $PONG_CPUS != "$allowed") ]]; then
      warn "only one CPU ($allowed) is available: pong and ping both run on it and compete"
    fi
    if [[ -n $PING_CPUS && $ends == *" ping "* ]]; then PING_CPUS=$allowed; fi
    if [[ -n $PONG_CPUS && $ends == *" pong "* ]]; then PONG_CPUS=$allowed; fi
  fi
  TASKSET_PING=() TASKSET_PONG=()
  for var in PING_CPUS PONG_CPUS; do
    end=${var%_CPUS}
    [[ -n ${!var} && $ends == *" ${end,,} "* ]] || continue
    if ! taskset -c "${!var}" true 2>/dev/null; then
      printf '%s: %s=%s is not usable here (this process may run on CPUs %s)\n' \
        "$PROG" "$var" "${!var}" "$allowed" >&2
      exit 2
    fi
  done
  if [[ -n $PING_CPUS && $ends == *" ping "* ]]; then TASKSET_PING=(taskset -c "$PING_CPUS"); fi
  if [[ -n $PONG_CPUS && $ends == *" pong "* ]]; then TASKSET_PONG=(taskset -c "$PONG_CPUS"); fi
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

# The system ping, if it can do what the ICMP baseline needs; else ICMP_SKIP says why.
check_icmp() {
  ICMP_SKIP=""
  [[ -n ${WANT[ping]:-} ]] || return 0
  if ! command -v ping >/dev/null; then
    ICMP_SKIP="no system ping: install iputils-ping (Debian/Ubuntu: apt-get install iputils-ping)"
  elif ! ping -V 2>&1 | grep -q iputils; then
    ICMP_SKIP="the system ping is not iputils ping (needed for -D timestamps): install iputils-ping"
  elif ((SIZE < 16)); then
    ICMP_SKIP="SIZE=$SIZE: ping reports an RTT only for payloads of 16 bytes or more"
  fi
  if [[ -n $ICMP_SKIP ]]; then warn "-P: $ICMP_SKIP; skipping the ICMP points"; fi
}

# Builds the plan: frameworks x protocols x intervals (MODE=throughput: sizes) x task counts,
# then the ICMP points. UDP sizes that no datagram carries are skipped here, not failed later.
make_plan() {
  local fw proto x t
  for fw in $(selected_frameworks); do
    for proto in "${PROTOCOL_LIST[@]}"; do
      if [[ $MODE == throughput ]]; then
        for x in "${SIZE_LIST[@]}"; do
          for t in "${TASK_LIST[@]}"; do add_point "$fw" "$proto" "$x" "" "$((10#$t))"; done
        done
      else
        for x in "${INTERVAL_LIST[@]}"; do
          for t in "${TASK_LIST[@]}"; do add_point "$fw" "$proto" "$SIZE" "$x" "$((10#$t))"; done
        done
      fi
    done
  done
  if [[ -n ${WANT[ping]:-} ]]; then
    for x in "${INTERVAL_LIST[@]}"; do add_point ping icmp "$SIZE" "$x" 0; done
  fi
}

add_point() { # framework protocol size interval (empty: a throughput point) tasks
  local i=${#P_FW[@]}
  P_FW[i]=$1 P_PROTO[i]=$2 P_SIZE[i]=$3 P_IV[i]=$4 P_TASKS[i]=$5
  P_STATUS[i]=planned P_WALL[i]="" P_P50[i]="" P_RATE[i]="" P_MSG[i]=""
  if [[ -n $4 ]]; then
    P_STEM[i]="$1-$2-$3B-$4s-$5t"
  else
    P_STEM[i]="$1-$2-$3B-throughput-$5t"
    if [[ $2 == udp ]] && (($3 > MAX_UDP_SIZE)); then
      P_STATUS[i]=skipped P_MSG[i]="a UDP datagram carries at most $MAX_UDP_SIZE bytes"
    fi
  fi
}

is_throughput_point() { [[ -z ${P_IV[$1]} ]]; }

planned_points() { # how many points from index $1 on are still to run
  local i n=0
  for ((i = ${1:-0}; i < ${#P_FW[@]}; i++)); do
    if [[ ${P_STATUS[i]} == planned ]]; then n=$((n + 1)); fi
  done
  printf '%s' "$n"
}

print_plan() {
  local n=${#P_FW[@]} i est runs skipped="" what=""
  runs=$(planned_points)
  if ((runs < n)); then skipped=", $((n - runs)) skipped,"; fi
  if [[ $MODE == throughput ]]; then what=" (throughput)"; fi
  est=$(calc "$runs * ($WARMUP + $DURATION + 0.3)")
  say "Plan: $n points$skipped of ${WARMUP} s warm-up + ${DURATION} s measured$what, about $(fmt_secs "$est") in all"
  for ((i = 0; i < n; i++)); do
    if [[ ${P_STATUS[i]} == skipped ]]; then
      printf '  %3d  %-38s skipped: %s\n' "$((i + 1))" "${P_STEM[i]}" "${P_MSG[i]}"
    else
      printf '  %3d  %s\n' "$((i + 1))" "${P_STEM[i]}"
    fi
  done
}

# Creates OUT_DIR/NAME-YYYYmmdd-HHMMSS (a suffix if that second is taken) and the scratch dir.
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

make_tmp() { SWEEP_TMP=$(mktemp -d "${TMPDIR:-/tmp}/rtt-sweep.XXXXXX"); }

# State files that sweep_record.py turns into sweep.json.
write_knobs() {
  local k f="$SWEEP_TMP/knobs.tsv"
  : >"$f"
  for k in "${KNOB_NAMES[@]}" "${EXTRA_KNOBS[@]}"; do printf '%s\t%s\n' "$k" "${!k-}" >>"$f"; done
  printf '%s\n' "${KNOBS_GIVEN[@]}" >"$SWEEP_TMP/knobs-given.txt"
}

meta() { printf '%s\t%s\n' "$1" "$2" >>"$SWEEP_TMP/meta.tsv"; }

write_sweep_json() {
  local i f="$SWEEP_TMP/points.tsv"
  [[ -n $SWEEP_DIR && -n $SWEEP_TMP ]] || return 0
  : >"$f"
  for ((i = 0; i < ${#P_FW[@]}; i++)); do
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${P_STEM[i]}" "${P_FW[i]}" \
      "${P_PROTO[i]}" "${P_SIZE[i]}" "${P_IV[i]}" "${P_TASKS[i]}" "${P_STATUS[i]}" "${P_WALL[i]}" \
      "${P_P50[i]}" "${P_RATE[i]}" "${P_MSG[i]//$'\t'/ }" >>"$f"
  done
  python3 "$SCRIPTS_DIR/sweep_record.py" write "$SWEEP_TMP" "$SWEEP_DIR/sweep.json" "$SWEEP_STATUS" ||
    warn "could not write $SWEEP_DIR/sweep.json"
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
# Sets LINE and BASH_REMATCH; returns 1 on EOF (the writer died), 2 on the deadline.
await_line() {
  local fd=$1 re=$2 end left rc
  end=$(($(now_us) + $(calc "int($3 * 1000000)")))
  while :; do
    left=$((end - $(now_us)))
    ((left > 0)) || return 2
    LINE=""
    rc=0
    IFS= read -r -t "$(printf '%d.%06d' $((left / 1000000)) $((left % 1000000)))" -u "$fd" LINE || rc=$?
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

LISTEN_RE='^listening on (.+):([0-9]+) \((tcp|udp)\)$'

# Prints the last lines of a stderr file, indented, for a failure report.
tail_err() {
  local f=$1
  [[ -s $f ]] || return 0
  tail -n "${2:-5}" "$f" | sed 's/^/      | /'
}

# One measured point of a Rust framework, RTT or throughput.
run_point() {
  local i=$1 fw=${P_FW[$1]} proto=${P_PROTO[$1]} stem="$SWEEP_DIR/${P_STEM[$1]}" rc=0 limit
  local mode_args=()
  PONG_ERR="$SWEEP_TMP/pong.err"
  if ! pong_start "$fw" "$proto"; then
    pong_stop
    point_failed "$i" "pong not ready: $PONG_ERROR" "$PONG_ERR"
    return
  fi
  if is_throughput_point "$i"; then
    # Warm-up + duration + the handshake and the counts (5 s each at most) + margin.
    mode_args=(--mode throughput) limit=$(calc "$WARMUP + $DURATION + 5 + $PING_GRACE")
  else
    # Past warm-up + duration, a ping may wait one UDP timeout, or 5 s for a stalled TCP peer,
    # then write its logs, which takes seconds on a busy disk: PING_GRACE covers all of that.
    mode_args=(--interval "${P_IV[i]}") limit=$(calc "$WARMUP + $DURATION + $PING_GRACE")
  fi
  timeout -k 2 "$limit" "${TASKSET_PING[@]}" "${NICE_CMD[@]}" \
    "$BIN_DIR/$(bin_prefix "$fw")-ping" "${mode_args[@]}" --address "$PONG_TARGET" --protocol "$proto" \
    --size "${P_SIZE[i]}" --duration "$DURATION" --warmup "$WARMUP" \
    --tasks "${P_TASKS[i]}" "${PING_EXTRA_ARGS[@]}" --out "$stem" \
    >"$SWEEP_TMP/ping.out" 2>"$SWEEP_TMP/ping.err" </dev/null &
  CHILD_PID=$!
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=""
  if ((rc == 124 || rc == 137)); then
    point_failed "$i" "ping timed out after ${limit} s" "$SWEEP_TMP/ping.err" "$PONG_ERR"
  elif ((rc != 0)); then
    point_failed "$i" "ping exited with status $rc" "$SWEEP_TMP/ping.err" "$PONG_ERR"
  elif [[ ! -s $stem.json || ! -s $stem.csv ]]; then
    point_failed "$i" "ping wrote no $stem.json/.csv" "$SWEEP_TMP/ping.err" "$PONG_ERR"
  else
    point_done "$i"
  fi
  if [[ ${P_STATUS[i]} == failed ]]; then
    # A ping killed before it wrote anything leaves empty files, which no reader wants; what a
    # failing ping did write (marked "complete": false) stays.
    local f
    for f in "$stem.json" "$stem.csv"; do if [[ -f $f && ! -s $f ]]; then rm -f "$f"; fi; done
  fi
  CURRENT="" # the ping is over: its logs are final, even if a signal comes while the pong stops
  pong_stop
}

# One ICMP point: the system ping at this interval, converted to the suite's log format.
run_icmp_point() {
  local i=$1 iv=${P_IV[$1]} stem="$SWEEP_DIR/${P_STEM[$1]}" raw total rc=0 started probe
  if [[ -n $ICMP_SKIP ]]; then point_skipped "$i" "$ICMP_SKIP"; return; fi
  # iputils keeps the interval in whole milliseconds: 0.0001 would go out back-to-back.
  if [[ $(calc "(($iv * 1000 - int($iv * 1000 + 0.5)) ^ 2 > 1e-12)") == 1 ]]; then
    point_skipped "$i" "iputils ping paces in whole milliseconds, so it cannot send every $iv s"
    return
  fi
  probe="$SWEEP_TMP/icmp-probe.err"
  if ! ping -n -q -c 1 -W 2 -i "$iv" -s "$SIZE" "$ICMP_ADDR" >/dev/null 2>"$probe"; then
    local why
    why=$(grep -v '^$' "$probe" | tail -n 1)
    if [[ $why == *interval* || $why == *flood* ]]; then
      point_skipped "$i" "ping may not send every ${iv} s as this user ($why); run as root for it"
    else
      point_skipped "$i" "ping $ICMP_ADDR fails: ${why:-no reply}"
    fi
    return
  fi
  raw="$SWEEP_DIR/.${P_STEM[i]}.ping-output"
  # ping stops at SIGINT and prints its statistics; 0.5 s more lets the last replies come in.
  total=$(calc "$WARMUP + $DURATION + 0.5")
  started=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  timeout -s INT -k 2 "$total" "${TASKSET_PING[@]}" "${NICE_CMD[@]}" \
    ping -D -n -i "$iv" -W 1 -s "$SIZE" "$ICMP_ADDR" >"$raw" 2>"$SWEEP_TMP/ping.err" </dev/null &
  CHILD_PID=$!
  wait "$CHILD_PID" || rc=$?
  CHILD_PID=""
  if ((rc != 0 && rc != 124)); then
    printf 'ping exited with status %s\n' "$rc" >>"$SWEEP_TMP/ping.err"
  fi
  if python3 "$SCRIPTS_DIR/icmp_log.py" "$raw" "$stem" --interval "$iv" --size "$SIZE" \
    --duration "$DURATION" --warmup "$WARMUP" --address "$ICMP_ADDR" \
    --cpus-allowed "${PING_CPUS:-}" --suite-version "$SUITE_VERSION" \
    --framework-version "$(ping -V 2>&1 | head -n 1 | sed 's/^ping from //')" \
    --started-at "$started" --exit-status "$rc" 2>>"$SWEEP_TMP/ping.err"; then
    rm -f "$raw"
    point_done "$i"
  else
    rm -f "$raw"
    point_failed "$i" "ICMP ping to $ICMP_ADDR gave no usable replies" "$SWEEP_TMP/ping.err"
  fi
}

point_done() {
  local i=$1 summary
  local p50 rate
  if summary=$(python3 "$SCRIPTS_DIR/sweep_record.py" point "$SWEEP_DIR/${P_STEM[i]}.json"); then
    IFS=$'\t' read -r p50 rate _ <<<"$summary"
    P_P50[i]=$p50 P_RATE[i]=$rate
  fi
  P_STATUS[i]=ok
}

point_failed() { # index, message, stderr files whose tails to show
  P_STATUS[$1]=failed P_MSG[$1]=$2
  FAIL_TAILS=("${@:3}")
}

point_skipped() { P_STATUS[$1]=skipped P_MSG[$1]=$2; }

progress() {
  local i=$1 n=${#P_FW[@]} done_n=$(($1 + 1)) elapsed eta what left
  elapsed=$(calc "($(now_us) - $SWEEP_T0) / 1000000")
  left=$(planned_points "$done_n")
  # What is left: its warm-up and duration, plus the overhead per point run so far.
  eta=$(calc "$left * ($WARMUP + $DURATION) + $left * ($elapsed - $MEASURED_SO_FAR) / ($RUN_SO_FAR ? $RUN_SO_FAR : 1)")
  case "${P_STATUS[i]}" in
    ok)
      if is_throughput_point "$i"; then
        what=$(printf 'p50 %10s msg/s   %8s Gb/s' "$(fmt_si "${P_P50[i]}")" "$(fmt_gbps "${P_RATE[i]}")")
      else
        what=$(printf 'p50 %8s   %10s msg/s' "$(fmt_ns "${P_P50[i]}")" "$(fmt_rate "${P_RATE[i]}")")
      fi
      ;;
    failed) what="FAILED: ${P_MSG[i]}" ;;
    *) what="skipped: ${P_MSG[i]}" ;;
  esac
  printf '[%*d/%d] %-34s %s   (%s s)   ETA %s\n' "${#n}" "$done_n" "$n" "${P_STEM[i]}" "$what" \
    "${P_WALL[i]}" "$(fmt_secs "$(calc "$eta < 0 ? 0 : $eta")")"
  if [[ ${P_STATUS[i]} == failed ]]; then
    local f
    for f in "${FAIL_TAILS[@]}"; do
      if [[ -s $f ]]; then printf '      %s:\n' "${f##*/}"; tail_err "$f" 6; fi
    done
  fi
}

fmt_ns() { if [[ -z $1 ]]; then printf -- '-'; else calc "sprintf(\"%.1f µs\", $1 / 1000)"; fi; }
fmt_rate() { if [[ -z $1 ]]; then printf -- '-'; else calc "sprintf(\"%.1f\", $1)"; fi; }
fmt_gbps() { if [[ -z $1 ]]; then printf -- '-'; else calc "sprintf(\"%.3f\", $1)"; fi; }
fmt_si() { # 4213000 -> 4.21 M
  if [[ -z $1 ]]; then printf -- '-'; return; fi
  # In parentheses: a bare `>` in awk's printf would redirect its output.
  calc "($1 >= 1e9 ? sprintf(\"%.2f G\", $1 / 1e9) : $1 >= 1e6 ? sprintf(\"%.2f M\", $1 / 1e6) : $1 >= 1e3 ? sprintf(\"%.2f k\", $1 / 1e3) : sprintf(\"%.0f\", $1))"
}

# The trap handlers. Children are stopped by the PIDs remembered when they were started.
on_signal() {
  local sig=$1 code=$2 i
  trap '' INT TERM
  printf '\n%s: caught SIG%s: stopping\n' "$PROG" "$sig" >&2
  if [[ -n $CHILD_PID ]]; then
    kill -TERM "$CHILD_PID" 2>/dev/null || true
    wait "$CHILD_PID" 2>/dev/null || true
    CHILD_PID=""
  fi
  pong_stop
  if [[ -n $CURRENT && -n $SWEEP_DIR ]]; then
    i=$CURRENT
    rm -f "$SWEEP_DIR/${P_STEM[i]}.json" "$SWEEP_DIR/${P_STEM[i]}.csv" \
      "$SWEEP_DIR/.${P_STEM[i]}.ping-output"
    P_STATUS[i]=interrupted P_MSG[i]="stopped by SIG$sig; its partial logs were removed"
    printf '%s: %s was interrupted and removed; finished points stay in %s\n' "$PROG" \
      "${P_STEM[i]}" "$SWEEP_DIR" >&2
  fi
  SWEEP_STATUS=interrupted
  meta finished_at "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  write_sweep_json
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
  local fw v
  for fw in "${FRAMEWORKS[@]}"; do
    if [[ -x "$BIN_DIR/$(bin_prefix "$fw")-ping" ]] &&
      v=$(timeout 5 "$BIN_DIR/$(bin_prefix "$fw")-ping" --version 2>/dev/null); then
      printf '%s' "${v#* }"
      return
    fi
  done
  printf 'git %s' "$(git -C "$SUITE_DIR" rev-parse --short HEAD 2>/dev/null || printf unknown)"
}

# Runs every point of the plan; sets the exit status of the sweep.
run_sweep() {
  local n=${#P_FW[@]} i t0 failed=() skipped=() ok=0 wall not_ok_s=0
  SUITE_VERSION=$(suite_version)
  SWEEP_STATUS=running
  meta started_at "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  meta estimated_s "$(calc "$(planned_points) * ($WARMUP + $DURATION + 0.3)")"
  write_sweep_json
  say "Logs: $SWEEP_DIR"
  SWEEP_T0=$(now_us)
  MEASURED_SO_FAR=0 RUN_SO_FAR=0
  for ((i = 0; i < n; i++)); do
    CURRENT=$i
    t0=$(now_us)
    if [[ ${P_STATUS[i]} == planned ]]; then RUN_SO_FAR=$((RUN_SO_FAR + 1)); fi
    if [[ ${P_STATUS[i]} == skipped ]]; then : # by the plan: no log, said in the plan and below
    elif [[ ${P_FW[i]} == ping ]]; then run_icmp_point "$i"
    else run_point "$i"; fi
    CURRENT=""
    P_WALL[i]=$(calc "sprintf(\"%.2f\", ($(now_us) - $t0) / 1000000)")
    # Overhead is counted on measured points only: what failed or was skipped took what it took.
    case "${P_STATUS[i]}" in
      ok) ok=$((ok + 1)) MEASURED_SO_FAR=$(calc "$MEASURED_SO_FAR + $WARMUP + $DURATION") ;;
      *)
        if [[ ${P_STATUS[i]} == failed ]]; then failed+=("${P_STEM[i]}"); else skipped+=("${P_STEM[i]}"); fi
        MEASURED_SO_FAR=$(calc "$MEASURED_SO_FAR + ${P_WALL[i]}")
        not_ok_s=$(calc "$not_ok_s + ${P_WALL[i]}")
        ;;
    esac
    progress "$i"
    write_sweep_json
  done
  wall=$(calc "($(now_us) - $SWEEP_T0) / 1000000")
  local measured overhead
  measured=$(calc "$ok * $DURATION")
  overhead=$(calc "$ok ? ($wall - $not_ok_s - $ok * ($WARMUP + $DURATION)) / $ok : 0")
  meta finished_at "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  meta wall_s "$(calc "sprintf(\"%.3f\", $wall)")"
  meta measured_s "$measured"
  meta warmup_total_s "$(calc "$ok * $WARMUP")"
  meta overhead_per_point_s "$(calc "sprintf(\"%.3f\", $overhead)")"
  if ((${#failed[@]})); then SWEEP_STATUS=failed; else SWEEP_STATUS=complete; fi
  write_sweep_json

  say ""
  summary_table
  say ""
  say "$ok of $n points measured in $(fmt_secs "$wall") (wall $(calc "sprintf(\"%.1f\", $wall)") s;" \
    "measured ${measured} s + warm-up $(calc "$ok * $WARMUP") s; overhead" \
    "$(calc "sprintf(\"%.2f\", $overhead)") s per measured point)"
  if ((${#skipped[@]})); then
    say "Skipped (${#skipped[@]}):"
    for ((i = 0; i < n; i++)); do
      if [[ ${P_STATUS[i]} == skipped ]]; then say "  ${P_STEM[i]}: ${P_MSG[i]}"; fi
    done
  fi
  if ((${#failed[@]})); then
    say "FAILED (${#failed[@]}):"
    for ((i = 0; i < n; i++)); do
      if [[ ${P_STATUS[i]} == failed ]]; then say "  ${P_STEM[i]}: ${P_MSG[i]}"; fi
    done
  fi
  say "Sweep folder: $SWEEP_DIR"
  ((${#failed[@]} == 0))
}

# parse.py's table when the analysis toolkit is installed, else a plain one from the JSON logs.
summary_table() {
  local out rc=0 kind=()
  if [[ $MODE == throughput ]]; then kind=(-k throughput); fi
  if [[ -f $SUITE_DIR/parse.py ]]; then
    out=$(cd "$SUITE_DIR" && python3 parse.py "${kind[@]}" --summary -d "$SWEEP_DIR" 2>&1) || rc=$?
    if ((rc == 0)); then
      printf '%s\n' "$out"
      return
    fi
    say "(parse.py ${kind[*]}${kind[*]:+ }--summary failed with status $rc: $(printf '%s\n' "$out" | tail -n 1))"
  fi
  python3 "$SCRIPTS_DIR/sweep_record.py" summary "$SWEEP_DIR" || true
}
