#!/usr/bin/env bash
# build.sh [PRESET] - configure and build with a CMake preset (default: release).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${1:-release}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
py=()
[ -x .venv/bin/python ] && py=(-DPython3_EXECUTABLE="$PWD/.venv/bin/python")
cmake --preset "$preset" "${py[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
