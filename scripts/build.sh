#!/usr/bin/env bash
# build.sh [PRESET] [BUILD-ARGS...] - configure and build with a CMake preset
# (default: release, the portable build). BUILD-ARGS go to `cmake --build`,
# e.g. `scripts/build.sh cpu --target cubench` builds the binary alone.
#   release  every GPU from sm_75 up (build/): packaging, a cluster image
#   native   the GPUs in this machine only (build-native/)
#   cpu      no GPU here: GPU code as compute_75 PTX only (build-cpu/)
#   ci, asan, debug: what scripts/test.sh and development use
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
shift || true
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
py=()
[ -x .venv/bin/python ] && py=(-DPython3_EXECUTABLE="$PWD/.venv/bin/python")
cmake --preset "$preset" "${py[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)" "$@"
