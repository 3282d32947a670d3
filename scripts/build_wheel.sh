#!/usr/bin/env bash
# build_wheel.sh [OUT] [PRESET] - build libcubench.so with a CMake preset
# (default: release, every GPU from sm_75 up; `native` builds for this
# machine's GPUs only) and the cubench wheel that carries it, into OUT
# (default dist/). Install it anywhere with `pip install OUT/cubench-*.whl`:
# the `cubench` command, `python -m cubench`, cubench.measure / load and the
# pytest plugin then work without building anything. The library links the
# CUDA 13 runtime, cuBLAS, CUPTI and NCCL (the CUDA toolkit's, or PyPI's with
# the extra `cubench[cu13]`), libjansson and OpenBLAS (apt: libjansson4,
# libopenblas0); docs/python.md.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-dist}
preset=${2:-release}
case "$preset" in
    release) dir=build ;;
    native) dir=build-native ;;
    ci) dir=build-ci ;;
    *) echo "build_wheel.sh: preset must be release, native or ci, not '$preset'" >&2; exit 2 ;;
esac
scripts/build.sh "$preset"
py=python3
[ -x .venv/bin/python ] && py=.venv/bin/python
mkdir -p "$out"
"$py" -m pip wheel . --no-deps --no-index -w "$out" --config-settings "lib=$dir/libcubench.so"
ls -l "$out"/cubench-*.whl
