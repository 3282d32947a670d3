# lib.sh - what the recording scripts share; sourced from the repository
# root after the script has set OUT, SUMMARY and T0 (never run alone).
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
