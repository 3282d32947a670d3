#!/usr/bin/env bash
# test.sh - build with warnings as errors and run every test: the C unit
# tests, the GPU tests (ctest label gpu; they report "skipped" without a
# GPU), the Python tests (reports, CLI end to end; one ctest entry per file,
# run side by side), then the C tests again under AddressSanitizer + UBSan.
# This is what CI runs (.ci/run). The `ci` preset builds GPU code for two
# architectures (compute_75 PTX, sm_90 SASS), not the portable twelve; the
# test build_archs_default checks the portable list in a scratch build.
# Each step's wall time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
steps=()
step() {
    local name=$1 t0=$SECONDS
    shift
    "$@"
    steps+=("$(printf '%-28s %4d s' "$name" $((SECONDS - t0)))")
}
step setup scripts/setup.sh
# setup.sh installs PostgreSQL: here its history tests must run, not skip
export CUBENCH_REQUIRE_POSTGRESQL=1
step "build (ci)" scripts/build.sh ci
step "tests (ci)" ctest --preset ci -j "$jobs"
if [ "${CUBENCH_SKIP_ASAN:-0}" != 1 ]; then
    step "build (asan)" scripts/build.sh asan
    step "tests (asan)" ctest --preset asan -j "$jobs"
fi
printf 'test: %s\n' "${steps[@]}" "$(printf '%-28s %4d s' total "$SECONDS")" >&2
