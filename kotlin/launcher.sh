#!/usr/bin/env bash
# kotlin-micro: runs the Kotlin reference of the in-process benchmarks, kotlin-micro.jar beside
# this script, on the JVM (docs/micro.md). `make kotlin-micro` installs it as
# target/release/kotlin-micro, with the suite's version in place of its placeholder.
# Usage: kotlin-micro --bench channel [options]   (kotlin-micro --help)
# KOTLIN_MICRO_JAVA_OPTS: the JVM's options, split at spaces [-XX:+UseG1GC]; JAVA: the java [java].
set -euo pipefail

here=$(dirname "$(readlink -f "$0")")
# G1 named even where the JVM would choose it anyway, so that a run pinned to one CPU (where
# its ergonomics would pick the serial collector) measures the same collector.
read -r -a java_opts <<<"${KOTLIN_MICRO_JAVA_OPTS--XX:+UseG1GC}"
exec "${JAVA:-java}" "${java_opts[@]}" -Drttsuite.version='@SUITE_VERSION@' \
  -Drttsuite.commit-file="$here/suite-commit" -jar "$here/kotlin-micro.jar" "$@"
