# shellcheck shell=bash
# run_gpu_lib.sh - what the examples' GPU tests share; sourced by
# examples/*/run_gpu.sh (never run alone).
#   start_run BIN OUT      exit 77 (ctest's skip) when BIN's `env` finds no
#                          CUDA device; else clear OUT for the run
#   read_rows OUT          the rows of OUT/results.csv into $rows, failing
#                          when a point did not verify (a fail or skip row)
#   expect_rows N RE WHAT  exactly N rows match the extended regexp RE, or
#                          fail naming WHAT

start_run() {
    local rc=0
    rm -rf "$2"
    "$1" env >/dev/null 2>&1 || rc=$?
    if [ "$rc" -eq 3 ]; then
        echo "no CUDA device: skipped"
        exit 77
    fi
}

read_rows() {
    rows=$(tail -n +2 "$1/results.csv")
    if printf '%s\n' "$rows" | grep -E ',(fail|skip),'; then
        echo "a point did not verify"
        exit 1
    fi
}

expect_rows() {
    [ "$(printf '%s\n' "$rows" | grep -cE "$2")" -eq "$1" ] || {
        echo "$3"
        exit 1
    }
}
