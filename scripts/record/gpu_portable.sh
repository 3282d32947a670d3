#!/usr/bin/env bash
# gpu_portable.sh - the portability proof on one GPU, in one call (~4-6 min
# on a 16-core H200 machine). Proves, without owning an older GPU:
#
#   ptx   A build whose only device code is compute_75 PTX (no SASS at all,
#         CMAKE_CUDA_ARCHITECTURES=75-virtual) runs the whole default suite
#         through the driver's JIT: `cubench run --quick`, every point `ok`,
#         `noisy` or a `skip` with its reason, and no `fail` row. meta.json
#         must say SASS [] / PTX [compute_75] and the device's code
#         "compute_75 PTX, JIT-compiled by the driver".
#   sass  The default build (no CMAKE_CUDA_ARCHITECTURES: SASS for every sm_XY
#         >= 75 the toolkit lists + PTX of the newest) holds, in every object
#         of GPU code and in the executable, machine code for exactly the
#         architectures it promises: `cuobjdump --list-elf` against
#         build_info.h and against `nvcc --list-gpu-code`; its PTX is the
#         newest compute_XY. It runs natively here ("sm_90 SASS").
#   none  A build with SASS for sm_80 only (80-real, no PTX) has no code for
#         this GPU: its CUDA points are `skip` rows "this build has no code for
#         sm_90; rebuild with -DCMAKE_CUDA_ARCHITECTURES=native", not failures.
#
# Writes every log, `cubench env` output and run directory under
# $OUT/portable and packs them into $OUT/portable.tar.gz; $OUT/summary.txt
# holds one PASS/FAIL line per check. Exit 0 when every check passes.
#
# Environment:
#   OUT                       output folder (default ./gpu-out)
#   CUBENCH_PORTABLE_PTX      the PTX-only target (default 75; 80 works too)
#   CUBENCH_PORTABLE_GLOBS    a reduced selection instead of the whole default
#                             suite, e.g. "vecadd/grid_stride matmul/*" (the
#                             summary says so)
#   CUBENCH_PORTABLE_RUN_S    time limit of the suite run (default 330 s)
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 2
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
OUT=${OUT:-$PWD/gpu-out}
W=$OUT/portable
mkdir -p "$W"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
PTX=${CUBENCH_PORTABLE_PTX:-75}
JOBS=$(nproc)
failed=0

log() { printf '== %s %s\n' "$(date -u +%H:%M:%S)" "$*" | tee -a "$W/portable.log"; }
check() { # check NAME CONDITION-RC DETAIL
    local verdict=PASS
    if [ "$2" -ne 0 ]; then verdict=FAIL; failed=1; fi
    printf '%s %s: %s\n' "$verdict" "$1" "$3" | tee -a "$SUMMARY"
}

build() { # build DIR ARCHS(empty = the default) TARGETS...
    local dir=$1 archs=$2
    shift 2
    local arg=()
    [ -n "$archs" ] && arg=("-DCMAKE_CUDA_ARCHITECTURES=$archs")
    rm -rf "$dir"
    {
        cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "${arg[@]}" &&
            /usr/bin/time -f "build $dir: %e s wall, %U s user" cmake --build "$dir" -j "$JOBS" --target "$@"
    } >"$W/build-$(basename "$dir").log" 2>&1
}

log "GPU: $(nvidia-smi --query-gpu=name,compute_cap,driver_version --format=csv,noheader 2>&1 | head -1)"
log "nvcc: $(nvcc --version | tail -2 | tr '\n' ' ')"

# ---- builds, side by side -------------------------------------------------
log "building build-ptx$PTX ($PTX-virtual), build-portable (default), build-sm80 (80-real)"
build build-ptx"$PTX" "$PTX-virtual" cubench &
p1=$!
build build-portable "" cubench test_build_archs test_capability &
p2=$!
build build-sm80 "80-real" cubench &
p3=$!
wait $p1; r1=$?
wait $p2; r2=$?
wait $p3; r3=$?
for f in "$W"/build-*.log; do grep -E '^build |cubench: CUDA' "$f" | tee -a "$W/portable.log"; done
check "build ${PTX}-virtual" $r1 "$(tail -1 "$W/build-build-ptx$PTX.log")"
check "build default" $r2 "$(tail -1 "$W/build-build-portable.log")"
check "build 80-real" $r3 "$(tail -1 "$W/build-build-sm80.log")"

# ---- ptx: the whole default suite through the JIT -------------------------
BIN=build-ptx$PTX/cubench
if [ -x "$BIN" ]; then
    # A fresh JIT cache, so every kernel really is compiled from PTX here.
    export CUDA_CACHE_PATH=$W/jit-cache
    "$BIN" env --no-cupti >"$W/env-ptx$PTX.txt" 2>&1
    globs=()
    scope="the whole default suite"
    if [ -n "${CUBENCH_PORTABLE_GLOBS:-}" ]; then
        read -r -a globs <<<"$CUBENCH_PORTABLE_GLOBS"
        scope="a reduced selection: ${CUBENCH_PORTABLE_GLOBS}"
    fi
    log "cubench run --quick ($scope) with the compute_$PTX PTX-only build"
    start=$(date +%s)
    timeout "${CUBENCH_PORTABLE_RUN_S:-330}" "$BIN" run "${globs[@]}" --quick --quiet \
        --out "$W/run-ptx$PTX" >"$W/run-ptx$PTX.log" 2>&1
    rc=$?
    log "run rc=$rc in $(($(date +%s) - start)) s; $(tail -1 "$W/run-ptx$PTX.log")"
    python3 - "$W/run-ptx$PTX" "$PTX" "$scope" >"$W/check-ptx.txt" 2>&1 <<'PY'
import csv, json, sys
d, ptx, scope = sys.argv[1], sys.argv[2], sys.argv[3]
rows = list(csv.DictReader(open(f"{d}/results.csv")))
meta = json.load(open(f"{d}/meta.json"))
count = {}
for r in rows:
    count[r["status"]] = count.get(r["status"], 0) + 1
fails = [r for r in rows if r["status"] == "fail"]
why = lambda r: r.get("reason") or r["note"]  # schema 2: skip/fail reasons in `reason`
silent = [r for r in rows if r["status"] == "skip" and not why(r).strip()]
reasons = sorted({why(r) for r in rows if r["status"] == "skip"})
benches = sorted({r["benchmark"] for r in rows})
print(f"{len(rows)} rows of {len(benches)} benchmarks ({scope}): {count}")
for r in fails[:20]:
    print("FAIL ROW", r["benchmark"], r["axes"], why(r))
for why in reasons:
    print("skip reason:", why)
b, dev = meta["build"], meta["device"] or {}
print("meta build:", b["cuda_architectures"], b["sass_architectures"], b["ptx_architectures"])
print("meta device code:", dev.get("build_code"))
ok = (rows and not fails and not silent and meta["complete"]
      and b["sass_architectures"] == [] and b["ptx_architectures"] == [f"compute_{ptx}"]
      and dev.get("build_code", "").startswith(f"compute_{ptx} PTX"))
print("RESULT", "ok" if ok else "bad")
sys.exit(0 if ok else 1)
PY
    r=$?
    tee -a "$W/portable.log" <"$W/check-ptx.txt"
    check "compute_$PTX PTX-only build runs $scope" $(( r != 0 || rc != 0 )) \
        "run rc=$rc; $(head -1 "$W/check-ptx.txt")"
    grep -q "code in this build: compute_$PTX PTX" "$W/env-ptx$PTX.txt"
    check "env (PTX-only build) says JIT" $? "$(grep -m1 'code in this build' "$W/env-ptx$PTX.txt")"
    unset CUDA_CACHE_PATH
fi

# ---- sass: what the default build holds -----------------------------------
B=build-portable
if [ -x "$B/cubench" ]; then
    $B/cubench env --no-cupti >"$W/env-portable.txt" 2>&1
    info=$B/generated/build_info.h
    promised=$(sed -n 's/^#define CB_CUDA_SASS_ARCHS "\(.*\)".*/\1/p' "$info" | tr ',' ' ')
    ptx_promised=$(sed -n 's/^#define CB_CUDA_PTX_ARCHS "\(.*\)".*/\1/p' "$info" | tr ',' ' ')
    # The sm_90a files (wgmma, TMA) carry arch-specific SASS beside the list.
    specific=$(sed -n 's/^#define CB_CUDA_ARCH_SPECIFIC_SASS "\(.*\)".*/\1/p' "$info" | tr ',' ' ')
    toolkit=$(nvcc --list-gpu-code | sed -n 's/^sm_\([0-9]*\)$/\1/p' | awk '$1 >= 75' | sort -n | tr '\n' ' ')
    newest=$(nvcc --list-gpu-arch | sed -n 's/^compute_\([0-9]*\)$/\1/p' | sort -n | tail -1)
    log "promised SASS: $promised (+ arch-specific: ${specific:-none}); PTX: $ptx_promised; toolkit sm >= 75: $toolkit; newest compute: $newest"
    norm() { tr ' ' '\n' | grep -v '^$' | sort -n | uniq | tr '\n' ' '; }
    [ "$(echo "$promised" | norm)" = "$(echo "$toolkit" | norm)" ] && [ "$ptx_promised" = "$newest" ]
    check "default list = toolkit's sm >= 75 + newest PTX" $? "SASS {$promised} PTX {$ptx_promised}"

    command -v cuobjdump >/dev/null
    check "cuobjdump available" $? "$(command -v cuobjdump || echo 'not in PATH: the listings below are empty')"
    cuobjdump --list-elf "$B/cubench" >"$W/cuobjdump-elf.txt" 2>&1
    cuobjdump --list-ptx "$B/cubench" >"$W/cuobjdump-ptx.txt" 2>&1
    # "ELF file    1: cubench.1.sm_75.cubin", "PTX file    1: cubench.1.sm_121.ptx"
    # (the PTX may be named compute_121 instead); the raw listings are kept.
    arches() { grep -oE "(sm|compute)_[0-9]+[a-z]?\.$1" | sed -E "s/^(sm|compute)_([0-9a-z]+)\.$1\$/\2/" | norm; }
    elf=$(arches cubin <"$W/cuobjdump-elf.txt")
    ptxs=$(arches ptx <"$W/cuobjdump-ptx.txt")
    [ "$elf" = "$(echo "$promised $specific" | norm)" ]
    check "cuobjdump --list-elf cubench = promised SASS" $? "found {$elf}"
    [ "$ptxs" = "$(echo "$ptx_promised" | norm)" ]
    check "cuobjdump --list-ptx cubench = promised PTX" $? "found {$ptxs}"
    # Every object of GPU code, not only their union: a file built for fewer
    # architectures (a per-target override) would leave kernels behind.
    bad=""
    for o in $(find "$B/CMakeFiles" -name '*.cu.o' | sort); do
        got=$(cuobjdump --list-elf "$o" 2>/dev/null | arches cubin)
        echo "$o: {$got}" >>"$W/cuobjdump-objects.txt"
        want=$promised
        case "$o" in *_sm90a.cu.o) [ -n "$specific" ] && want=$specific ;; esac
        for a in $want; do
            case " $got " in *" $a "*) ;; *) bad="$bad $(basename "$o"):sm_$a" ;; esac
        done
    done
    [ -z "$bad" ]
    check "every GPU object holds SASS for every promised sm (sm_90a files: sm_90a)" $? \
        "$(wc -l <"$W/cuobjdump-objects.txt") objects${bad:+; missing:$bad}"
    (cd "$B" && ./tests/test_build_archs && ./tests/test_capability) >"$W/tests-portable.txt" 2>&1
    check "test_build_archs + test_capability (default build)" $? "$(tail -1 "$W/tests-portable.txt")"
    $B/cubench run matmul/cublas_fp32 matmul/pipelined --axis m=1024 --quick --quiet \
        --out "$W/run-portable" >"$W/run-portable.log" 2>&1
    rc=$?
    code=$(python3 -c "import json,sys; print((json.load(open(sys.argv[1]))['device'] or {}).get('build_code', 'no device'))" \
        "$W/run-portable/meta.json" 2>&1)
    [ $rc -eq 0 ] && [[ $code == sm_* ]]
    check "default build runs natively" $? "rc=$rc, device code: $code"
fi

# ---- none: a build without code for this GPU skips, with the reason -------
if [ -x build-sm80/cubench ]; then
    build-sm80/cubench env --no-cupti >"$W/env-sm80.txt" 2>&1
    # Axes every selected family has (an axis no benchmark takes is an error);
    # the CUDA points skip before setup, so their sizes cost nothing.
    build-sm80/cubench run 'vecadd/*' matmul/naive_coalesced matmul/cublas_fp32 --quick --quiet \
        --axis n=2^20 --out "$W/run-sm80" >"$W/run-sm80.log" 2>&1
    rc=$?
    python3 - "$W/run-sm80/results.csv" >"$W/check-sm80.txt" 2>&1 <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cuda = [r for r in rows if r["timer"] != "host"]
why = lambda r: r.get("reason") or r["note"]  # schema 2: skip reasons in `reason`
skips = [r for r in cuda if r["status"] == "skip" and "this build has no code for sm_" in why(r)
         and "CMAKE_CUDA_ARCHITECTURES=native" in why(r)]
print(f"{len(skips)} of {len(cuda)} CUDA rows skip with the no-code reason")
for r in cuda[:3]:
    print(" ", r["benchmark"], r["status"], why(r))
sys.exit(0 if cuda and len(skips) == len(cuda) else 1)
PY
    r=$?
    check "80-real build on this GPU: skip, not fail" $(( r != 0 || rc != 0 )) \
        "rc=$rc; $(head -1 "$W/check-sm80.txt")"
fi

log "summary:"
tee -a "$W/portable.log" <"$SUMMARY"
rm -rf "$W/jit-cache"
cp "$SUMMARY" "$W/"
tar -C "$OUT" -czf "$OUT/portable.tar.gz" portable && rm -rf "$W"
ls -la "$OUT"
exit $failed
