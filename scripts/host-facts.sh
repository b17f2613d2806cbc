#!/usr/bin/env bash
# Prints this machine's facts for sweep.json and checks that it can run a sweep's binaries, one
# `key<TAB>value` per line. Needs nothing from the suite, so it also runs on a remote host from stdin:
#   host-facts.sh SUITE_DIR BIN_DIR CPUS NICE BINARY...
#   ssh host bash -s -- SUITE_DIR BIN_DIR CPUS NICE BINARY... < scripts/host-facts.sh
# BINARY names are relative to BIN_DIR (e.g. tokio-pong). Unknown facts are empty.
set -euo pipefail

suite_dir=$1 bin_dir=$2 cpus=$3 niceness=$4
shift 4

fact() { printf '%s\t%s\n' "$1" "$(printf '%s' "$2" | tr '\t\n' '  ')"; }
first() { "$@" 2>/dev/null | head -n 1 || true; }

# The value of the first line of file $1 that starts with $2, after the separator $3; or nothing.
value_of() {
  local line
  [[ -r $1 ]] || return 0
  while IFS= read -r line; do
    if [[ $line == "$2"* && $line == *"$3"* ]]; then printf '%s' "${line#*"$3"}"; return 0; fi
  done <"$1"
}

fact host "$(first hostname)"
fact kernel "$(first uname -r)"
os=$(value_of /etc/os-release PRETTY_NAME= =)
fact os "${os//\"/}"
fact arch "$(first uname -m)"
fact cpu_model "$(value_of /proc/cpuinfo 'model name' ': ')"
fact cpus_online "$(first nproc --all)"
fact cpus_usable "$(first nproc)"
allowed=$(value_of /proc/self/status Cpus_allowed_list: :)
fact cpus_allowed "${allowed//[[:space:]]/}"
fact cpu_governor "$(first cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)"
# How an idle CPU waits, which decides much of an RTT: a halted vCPU takes tens of µs to wake.
# `none`: no cpuidle driver, so the CPUs halt whatever /dev/cpu_dma_latency says.
fact cpuidle_driver "$(first cat /sys/devices/system/cpu/cpuidle/current_driver)"
states=""
for state in /sys/devices/system/cpu/cpu0/cpuidle/state*; do
  if [[ -r $state/name ]]; then states+="$(first cat "$state/name"):$(first cat "$state/latency")us "; fi
done
fact idle_states "${states% }"
fact guest_halt_poll_ns "$(first cat /sys/module/haltpoll/parameters/guest_halt_poll_ns)"
rustc=$(first rustc --version)
if [[ -z $rustc && -x $HOME/.cargo/bin/rustc ]]; then rustc=$(first "$HOME/.cargo/bin/rustc" --version); fi
fact rustc "$rustc"
fact suite_dir "$suite_dir"
fact bin_dir "$bin_dir"

if [[ ! -d $suite_dir ]]; then
  fact dir_ok no
  exit 0
fi
fact dir_ok yes
fact suite_commit "$(first git -C "$suite_dir" rev-parse HEAD)"
fact suite_describe "$(first git -C "$suite_dir" describe --always --dirty)"
for bin in "$@"; do
  if [[ -x $bin_dir/$bin ]]; then
    fact "version:$bin" "$(first timeout 5 "$bin_dir/$bin" --version)"
  else
    fact "version:$bin" missing
  fi
done

# What the sweep will ask of this machine: pinning and niceness.
if [[ -z $cpus ]] || taskset -c "$cpus" true 2>/dev/null; then fact cpus_ok yes; else fact cpus_ok no; fi
if ((niceness == 0)); then
  fact nice_ok yes
else
  want=$(($(nice) + niceness))
  ((want < -20)) && want=-20
  ((want > 19)) && want=19
  if [[ $(nice -n "$niceness" nice 2>/dev/null || true) == "$want" ]]; then fact nice_ok yes; else fact nice_ok no; fi
fi
