#!/usr/bin/env bash
# run.sh [--portable] [cubench run options...] - the main job on a fresh
# machine: install what is missing, build, run the default suite, and draw
# the report. Arguments go to `cubench run`, e.g. scripts/run.sh 'vecadd*'.
#
# It builds what this machine needs, and only the cubench binary:
#   a GPU here     for the GPUs in this machine (preset native, build-native/)
#   no GPU         the CPU-only build (preset cpu, build-cpu/: GPU code as
#                  compute_75 PTX only, the least compiling); cubench says
#                  there is no GPU and runs the CPU baselines
#   --portable     (or CUBENCH_BUILD=portable) every GPU from sm_75 up
#                  (preset release, build/): a binary to copy to other
#                  machines, a cluster image. CUBENCH_BUILD=native|cpu
#                  forces the other two.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf 'run: %s\n' "$*" >&2; }

build=${CUBENCH_BUILD:-auto}
if [ "${1:-}" = "--portable" ]; then
    build=portable
    shift
fi

# A GPU the driver shows (nvidia-smi), or a device node where a container
# has no nvidia-smi.
have_gpu() {
    if command -v nvidia-smi >/dev/null; then
        nvidia-smi -L 2>/dev/null | grep -q '^GPU '
    else
        compgen -G '/dev/nvidia[0-9]*' >/dev/null
    fi
}

case $build in
auto) if have_gpu; then preset=native; else preset=cpu; fi ;;
native | cpu) preset=$build ;;
portable | release) preset=release ;;
*)
    say "CUBENCH_BUILD=$build: expected portable, native or cpu"
    exit 2
    ;;
esac
case $preset in
native) dir=build-native ;;
cpu) dir=build-cpu ;;
release) dir=build ;;
esac

scripts/setup.sh
say "building preset $preset ($dir/cubench)"
if ! scripts/build.sh "$preset" --target cubench; then
    [ "$preset" = native ] || exit 1
    # CMake finds the GPUs by running a small CUDA program; where that fails
    # (a driver it cannot load), the portable build still runs here.
    say "the build for this machine's GPUs failed; building the portable one (build/)"
    preset=release dir=build
    scripts/build.sh release --target cubench
fi
out="results/$(date -u +%Y%m%d-%H%M%S)-$(hostname)"
rc=0
"./$dir/cubench" run --out "$out" "$@" || rc=$?
if [ -f "$out/results.csv" ]; then
    .venv/bin/python -m reports "$out" -o "$out/report" &&
        echo "report: $out/report/index.html" >&2
fi
exit $rc
