# shellcheck shell=bash disable=SC2034,SC2153  # as in sweep-lib.sh: its globals, set and read there
# How each kind of run of a sweep is done (sourced by scripts/sweep-lib.sh, whose globals and
# hooks these use): a runtime's point (a fresh pong, then a fresh ping), an ICMP point, a micro
# benchmark. Each sets OUTCOME, the run's end as arguments of `sweep.py record`.

# Runs "$@" in the background, stdout into $1, stderr into $2, stdin from /dev/null, with its PID
# in CHILD_PID so that a trap can stop it; waits for it and sets CHILD_RC to its exit status.
run_child() {
  local out=$1 err=$2
  shift 2
  CHILD_RC=0
  "$@" >"$out" 2>"$err" </dev/null &
  CHILD_PID=$!
  wait "$CHILD_PID" || CHILD_RC=$?
  CHILD_PID=""
}

# One run of a point of a runtime (or of a reference measured by the suite's binaries), RTT or
# throughput: a fresh pong, then a fresh ping. Sets OUTCOME.
run_point() {
  local kind=$1 binary=$2 proto=$3 size=$4 interval=$5 tasks=$6 limit=$7 port=$8
  local stem="$SWEEP_DIR/$CURRENT_STEM" mode_args=(--mode throughput)
  PONG_ERR="$SWEEP_TMP/pong.err"
  if ! pong_start "$binary" "$proto" "$port"; then
    pong_stop
    OUTCOME=(--status failed --message "pong not ready: $PONG_ERROR" --tail "$PONG_ERR")
    return
  fi
  if [[ $kind == rtt ]]; then mode_args=(--interval "$interval"); fi
  run_child "$SWEEP_TMP/ping.out" "$SWEEP_TMP/ping.err" \
    timeout -k 2 "$limit" "${TASKSET_PING[@]}" "${NICE_CMD[@]}" \
    "$BIN_DIR/$binary-ping" "${mode_args[@]}" --address "$PONG_TARGET" --protocol "$proto" \
    --size "$size" --duration "$DURATION" --warmup "$WARMUP" \
    --tasks "$tasks" "${RUN_PING_ARGS[@]}" "${PING_EXTRA_ARGS[@]}" --out "$stem"
  OUTCOME=(--exit-code "$CHILD_RC" --tail "$SWEEP_TMP/ping.err" --tail "$PONG_ERR")
  # The ping is over: its logs are final and the run counts, even if a signal comes while the
  # pong stops.
  PENDING=$CURRENT CURRENT=""
  pong_stop
}

# One run of an ICMP point: the system ping at this interval, converted to the suite's log format.
run_icmp_point() {
  local interval=$1 limit=$2 stem="$SWEEP_DIR/$CURRENT_STEM" raw rc started probe why
  probe="$SWEEP_TMP/icmp-probe.err"
  if ! ping -n -q -c 1 -W 2 -i "$interval" -s "$SIZE" "$ICMP_ADDR" >/dev/null 2>"$probe"; then
    why=$(grep -v '^$' "$probe" | tail -n 1)
    if [[ $why == *interval* || $why == *flood* ]]; then
      OUTCOME=(--status skipped --message "ping may not send every ${interval} s as this user ($why); run as root for it")
    else
      OUTCOME=(--status skipped --message "ping $ICMP_ADDR fails: ${why:-no reply}")
    fi
    return
  fi
  raw="$SWEEP_DIR/.$CURRENT_STEM.ping-output"
  started=$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)
  # ping stops at SIGINT and prints its statistics; the limit leaves time for the last replies.
  run_child "$raw" "$SWEEP_TMP/ping.err" timeout -s INT -k 2 "$limit" "${TASKSET_PING[@]}" \
    "${NICE_CMD[@]}" ping -D -n -i "$interval" -W 1 -s "$SIZE" "$ICMP_ADDR"
  rc=$CHILD_RC
  if ((rc != 0 && rc != 124)); then
    printf 'ping exited with status %s\n' "$rc" >>"$SWEEP_TMP/ping.err"
  fi
  if "$PYTHON_BIN" "$SCRIPTS_DIR/icmp_log.py" "$raw" "$stem" --interval "$interval" --size "$SIZE" \
    --duration "$DURATION" --warmup "$WARMUP" --address "$ICMP_ADDR" \
    --cpus-allowed "${PING_CPUS:-}" --suite-version "$SUITE_VERSION" \
    --framework-version "$(ping -V 2>&1 | head -n 1 | sed 's/^ping from //')" \
    --started-at "$started" --exit-status "$rc" 2>>"$SWEEP_TMP/ping.err"; then
    OUTCOME=(--status ok)
  else
    OUTCOME=(--status failed --message "ICMP ping to $ICMP_ADDR gave no usable replies"
      --tail "$SWEEP_TMP/ping.err")
  fi
  rm -f "$raw"
}

# One run of a micro benchmark (MODE=micro): BINARY-micro with the plan's arguments, in-process,
# under `timeout`; it writes STEM-rk.json. Sets OUTCOME; sweep.py judges the exit status and the log.
run_micro_point() {
  local binary=$1 limit=$2
  run_child "$SWEEP_TMP/micro.out" "$SWEEP_TMP/micro.err" \
    timeout -k 2 "$limit" "${TASKSET_MICRO[@]}" "${NICE_CMD[@]}" \
    "$BIN_DIR/$binary-micro" "${RUN_PING_ARGS[@]}" --out "$SWEEP_DIR/$CURRENT_STEM"
  OUTCOME=(--exit-code "$CHILD_RC" --tail "$SWEEP_TMP/micro.err")
  PENDING=$CURRENT CURRENT=""
}
