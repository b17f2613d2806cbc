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

fact host "$(first hostname)"
fact kernel "$(first uname -r)"
fact os "$(awk -F= '$1 == "PRETTY_NAME" { gsub(/"/, "", $2); print $2 }' /etc/os-release 2>/dev/null || true)"
fact arch "$(first uname -m)"
fact cpu_model "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)"
fact cpus_online "$(first nproc --all)"
fact cpus_usable "$(first nproc)"
fact cpus_allowed "$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status 2>/dev/null || true)"
fact cpu_governor "$(first cat /sys/devices/system/cpu/cpu0/cpufreq/scaling_governor)"
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
