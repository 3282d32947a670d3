#!/usr/bin/env bash
# fuzz.sh [RUNS] [TARGET...] - build the fuzz targets of tests/fuzz with
# clang's libFuzzer under AddressSanitizer + UBSan and run each for RUNS
# executions (default 1000000) from its checked-in corpus. Targets: csv_reader,
# axis (default: both). What the fuzzer finds goes to build-fuzz/corpus-TARGET
# (the checked-in corpus is only read); a crash, leak or slow input (over 10 s)
# stops the run and leaves build-fuzz/crash-* (or timeout-*, leak-*), which
# `build-fuzz/fuzz_TARGET FILE` replays. The last lines of each run are in
# build-fuzz/fuzz_TARGET.log. Installs clang (Debian package) when missing.
# Not part of CI: CI runs each target over its corpus without libFuzzer
# (ctest fuzz_*_corpus).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-1000000}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(csv_reader axis)

if ! command -v clang >/dev/null; then
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    echo "fuzz: installing clang" >&2
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends clang >/dev/null
fi

mkdir -p build-fuzz
for t in "${targets[@]}"; do
    case $t in
    csv_reader) srcs=(harness/common/cb_common.c harness/common/csv_reader.c harness/common/open_file.c) ;;
    axis) srcs=(harness/common/cb_common.c harness/core/axis.c) ;;
    *) echo "fuzz: unknown target '$t' (csv_reader, axis)" >&2; exit 2 ;;
    esac
    clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
        -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Iharness/core -Iharness/common \
        "${srcs[@]}" "tests/fuzz/fuzz_$t.c" -o "build-fuzz/fuzz_$t"
    mkdir -p "build-fuzz/corpus-$t"
    echo "fuzz: $t, $runs runs" >&2
    start=$(date +%s)
    rc=0
    "build-fuzz/fuzz_$t" -runs="$runs" -timeout=10 -max_len=16384 -print_final_stats=1 \
        -artifact_prefix=build-fuzz/ "build-fuzz/corpus-$t" "tests/fuzz/corpus/$t" \
        >"build-fuzz/fuzz_$t.log" 2>&1 || rc=$?
    grep -E '^(Done|stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb)|ERROR|Test unit written' \
        "build-fuzz/fuzz_$t.log" >&2 || true
    echo "fuzz: $t exit $rc after $(($(date +%s) - start)) s" >&2
    [ $rc -eq 0 ] || exit $rc
done
