# shellcheck shell=bash
# lib.sh - what the recording scripts share; sourced from the repository
# root after the script has set OUT (never run alone).
#   open_out [DIR]   OUT=DIR, else $OUT, else ./gpu-out (a relative one under
#                    the repository root), made and absolute; SUMMARY=
#                    $OUT/summary.txt started empty and T0 now (say, log and
#                    build_native need them); NATIVE the build_native build
#                    and BIN its cubench; exit 2 where OUT cannot be made
#   say TEXT...      a line to stdout and to $SUMMARY
#   log TEXT...      the same, stamped with the UTC time and the seconds
#                    since $T0
#   use_unpacked_jansson
#                    where the machine has no libjansson-dev, point CMake
#                    and the loader at the copy unpacked in .gpu-libs/jansson
#                    (gpu_aa.sh says how to make it)
#   build_native     scripts/build.sh native into $OUT/build.log; its result
#                    goes to $SUMMARY, and on failure its errors too, and the
#                    script exits 1
#   find_ncu         NCU=ncu on PATH, else the newest under
#                    /opt/nvidia/nsight-compute (empty: none)
#   known_metrics LIST METRIC...
#                    the METRICs that `ncu --query-metrics` output LIST
#                    names, comma-separated: an older ncu lacks some, and one
#                    unknown name fails the whole pass
#   release_work NAME
#                    for the scripts on the release preset's build/: OUT
#                    (default ./gpu-out), W=$OUT/NAME made, BIN build/cubench
#   python_session NAME TARBALL
#                    release_work on a fresh W, PY and the environment for
#                    `python -m cubench` on build/, `log` stamped with the
#                    seconds since the start into $W/session.log, and
#                    $OUT/TARBALL packed from W on any exit
#   run_pairs SIDE   SIDE A1, SIDE B1, SIDE A2, ... for PAIRS pairs, stopping
#                    when another pair would end past BUDGET seconds after
#                    $started; PAIRS becomes the pairs done
#   group_timeout SECS CMD...
#                    CMD in a process group of its own, stopped as a group
#                    (TERM, KILL 5 s later) after SECS; whatever of the
#                    group outlives CMD is stopped too. CMD's status, 124
#                    when it ran out of time. For compute-sanitizer and ncu,
#                    which run the program they watch as a child: cubench
#                    takes TERM as "stop after this sample", and one sample
#                    under racecheck can last minutes, so after a plain
#                    `timeout` the tool is gone and its child still on the
#                    GPU beside the next step's timed runs

# shellcheck disable=SC2034 # NATIVE, BIN: read by the scripts that call it
open_out() {
    OUT=${1:-${OUT:-./gpu-out}}
    mkdir -p "$OUT" || exit 2
    OUT=$(cd "$OUT" && pwd)
    SUMMARY=$OUT/summary.txt
    : >"$SUMMARY"
    T0=$(date +%s)
    NATIVE=$PWD/build-native
    BIN=$NATIVE/cubench
}

say() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
log() { say "== $(date -u +%H:%M:%S) (+$(($(date +%s) - T0)) s) $*"; }

use_unpacked_jansson() {
    if ! pkg-config --exists jansson 2>/dev/null && [[ ! -e /usr/include/jansson.h ]] &&
        [[ -d .gpu-libs/jansson/usr ]]; then
        export CMAKE_PREFIX_PATH=$PWD/.gpu-libs/jansson/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
        export LD_LIBRARY_PATH=$PWD/.gpu-libs/jansson/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
}

build_native() {
    log "build (scripts/build.sh native)"
    use_unpacked_jansson
    scripts/build.sh native >"$OUT/build.log" 2>&1
    local rc=$?
    say "build rc=$rc: $(tail -1 "$OUT/build.log")"
    if [[ $rc -ne 0 ]]; then
        grep -E "error|Error|jansson" "$OUT/build.log" | head -8 | tee -a "$SUMMARY"
        exit 1
    fi
}

find_ncu() {
    # shellcheck disable=SC2034 # read by the scripts that call it
    NCU=$(command -v ncu || find /opt/nvidia/nsight-compute -maxdepth 2 -name ncu -type f 2>/dev/null | sort | tail -1)
}

known_metrics() {
    local list=$1 have=() mt
    shift
    for mt in "$@"; do
        grep -q "^ *${mt%%.*} " "$list" && have+=("$mt")
    done
    (IFS=,; echo "${have[*]}")
}

# shellcheck disable=SC2034 # BIN: read by the scripts that call it
release_work() {
    OUT=${OUT:-$PWD/gpu-out}
    W=$OUT/$1
    mkdir -p "$W"
    BIN=$PWD/build/cubench
}

# shellcheck disable=SC2034,SC2317 # PY: read by the caller; log: called later
python_session() {
    OUT=${OUT:-$PWD/gpu-out}
    rm -rf "${OUT:?}/$1"
    release_work "$1"
    PY=${PYTHON:-python3}
    export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}
    export CUBENCH_LIB=$PWD/build/libcubench.so
    SESSION_DIR=$1 SESSION_TAR=$2
    log() { printf '== %s %4ds %s\n' "$(date -u +%H:%M:%S)" "$SECONDS" "$*" | tee -a "$W/session.log"; }
    trap pack_session EXIT
}

# shellcheck disable=SC2317 # called by the EXIT trap
pack_session() {
    tar czf "$OUT/$SESSION_TAR" -C "$OUT" "$SESSION_DIR"
    log "wrote $OUT/$SESSION_TAR ($(du -h "$OUT/$SESSION_TAR" | cut -f1))"
}

# shellcheck disable=SC2154 # started: set by the script when its runs began
run_pairs() {
    local side=$1 k t_pair last done_pairs=0
    for ((k = 1; k <= PAIRS; k++)); do
        t_pair=$(date +%s)
        "$side" "A$k"
        "$side" "B$k"
        done_pairs=$k
        last=$(($(date +%s) - t_pair))
        if ((k < PAIRS && $(date +%s) - started + last > BUDGET)); then
            log "stopping after $k pairs: another would end past ${BUDGET} s"
            break
        fi
    done
    PAIRS=$done_pairs
}

group_timeout() {
    local secs=$1 pid dog rc fired
    shift
    fired=$(mktemp) || return 2
    setsid "$@" &
    pid=$!
    (
        end=$((SECONDS + secs))
        while kill -0 "$pid" 2>/dev/null; do
            if ((SECONDS >= end)); then
                echo "$secs" >"$fired"
                kill -TERM -- "-$pid" 2>/dev/null
                for _ in $(seq 25); do
                    kill -0 -- "-$pid" 2>/dev/null || break
                    sleep 0.2
                done
                kill -KILL -- "-$pid" 2>/dev/null
                break
            fi
            sleep 0.2
        done
    ) &
    dog=$!
    wait "$pid"
    rc=$?
    wait "$dog"
    kill -KILL -- "-$pid" 2>/dev/null
    if [ -s "$fired" ]; then rc=124; fi
    rm -f "$fired"
    return "$rc"
}
