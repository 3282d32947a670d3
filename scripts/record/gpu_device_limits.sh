#!/usr/bin/env bash
# gpu_device_limits.sh [CUBENCH] - on a GPU machine, check what bad input does where
# a device is present: sizes too large for device memory are skip rows
# with the numbers (cudaMemGetInfo), `sm` values resolve against the SM
# count, --device beyond the count is refused, bad values of GPU benchmarks
# are refused, and --quick points take >= 6 samples. Prints one PASS/FAIL
# line per check and exits 1 if any failed. Takes about 10 s of GPU time.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
BIN=${1:-build/cubench}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fails=0
check() { # NAME COMMAND... ; the command's status is the verdict
    local name=$1
    shift
    if "$@"; then echo "PASS $name"; else echo "FAIL $name"; fails=$((fails + 1)); fi
}
reason() { # DIR -> the reason column of every row
    python3 -c 'import csv,sys; [print(r["status"], r["reason"]) for r in csv.DictReader(open(sys.argv[1]))]' "$1/results.csv"
}

"$BIN" run vecadd/grid_stride --axis n=2^40 --axis block=256 --axis grid=auto --quick --quiet \
    --out "$W/dev" 2>"$W/dev.err"
reason "$W/dev" | tee "$W/dev.txt"
check "device skip gives both numbers" grep -q "^skip needs 12.0 TiB of device memory; .* free (cudaMemGetInfo)" "$W/dev.txt"

"$BIN" run 'vecadd/thread_per_elem' 'matmul/cublas_fp32' --axis n=2^62 --axis m=2147483647 \
    --axis block=256 --quick --quiet --out "$W/ovf" 2>"$W/ovf.err"
reason "$W/ovf" | tee "$W/ovf.txt"
# vecadd's byte count overflows; matmul's n = 2^62 is refused by its shape
# check first (each dimension must fit an int): both must be skip rows.
check "overflowing sizes are skips" test "$(grep -cE '^skip .*(overflows 64 bits|must be in 1\.\.)' "$W/ovf.txt")" -ge 2

"$BIN" run transfers/memcpy_sync --axis bytes=2^40 --axis memory=pinned --axis direction=h2d \
    --quick --quiet --out "$W/pin" 2>"$W/pin.err"
reason "$W/pin" | tee "$W/pin.txt"
check "pinned host memory skip" grep -q "^skip needs 1.0 TiB of host memory; .* available (" "$W/pin.txt"

out=$("$BIN" run vecadd/grid_stride --axis n=2^20 --axis block=256 --axis grid=4sm --dry-run 2>/dev/null)
echo "$out"
sms=$("$BIN" env --no-cupti 2>/dev/null | grep -oE '[0-9]+ SMs' | head -1 | grep -oE '[0-9]+')
check "4sm resolves to 4 x SMs" test "$out" = "vecadd/grid_stride n=1048576;block=256;grid=$((4 * ${sms:-0}))"

"$BIN" run vecadd/host --device 99 --dry-run 2>"$W/d99.err"
rc=$?
cat "$W/d99.err"
check "--device 99 refused" test $rc -eq 2 -a -n "$(grep -- '--device 99: only' "$W/d99.err")"

"$BIN" run vecadd/grid_stride --axis n=garbage --dry-run 2>"$W/bad.err"
rc=$?
check "bad GPU axis value refused" test $rc -eq 2

"$BIN" run vecadd/grid_stride --axis n=2^20 --axis block=256 --axis grid=auto --quick --quiet \
    --out "$W/q" 2>/dev/null
n=$(python3 -c 'import csv,sys; print(next(csv.DictReader(open(sys.argv[1])))["samples"])' "$W/q/results.csv")
echo "quick samples: $n"
check "--quick takes >= 6 samples" test "${n:-0}" -ge 6

echo "$fails failed"
[ $fails -eq 0 ]
