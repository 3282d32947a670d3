#!/usr/bin/env bash
# test.sh - build with warnings as errors and run every test: the C unit
# tests, the GPU tests (ctest label gpu; they report "skipped" without a
# GPU), the Python tests (reports, CLI end to end), then the C tests again
# under AddressSanitizer + UBSan. This is what CI runs (.ci/run).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
# setup.sh installs PostgreSQL: here its history tests must run, not skip
export CUBENCH_REQUIRE_POSTGRESQL=1
scripts/build.sh ci
ctest --preset ci -j "$(nproc)"
if [ "${CUBENCH_SKIP_ASAN:-0}" != 1 ]; then
    scripts/build.sh asan
    ctest --preset asan -j "$(nproc)"
fi
