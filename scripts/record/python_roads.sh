#!/usr/bin/env bash
# python_roads.sh OUT - the Python roads to CUDA measured side by side on a
# machine with a GPU: PyCUDA (ElementwiseKernel, SourceModule, pageable and
# page-locked gpuarray copies), a PyTorch C++/CUDA extension running
# cubench's float4 vecadd kernel, torch.distributed's collectives beside
# cubench's NCCL family, torch.add and the C rung vecadd/float4_per_thread,
# all in ONE run; then the same callers at small n in hot mode (each one's
# cost per call) and `python -m cubench env`. Everything lands under OUT.
#
# CUBENCH_LIB=PATH uses a libcubench.so already built instead of building.
# Needs python3 (or $PYTHON) with PyTorch built with CUDA and NumPy, the
# CUDA toolkit (nvcc), a C++ compiler, ninja and CMake. Works offline:
#   .whl/          wheels installed with --no-index when PyCUDA is missing:
#                  PyCUDA for this Python and CUDA (scripts/setup.sh
#                  --frameworks builds one; or `pip wheel pycuda` with nvcc on
#                  PATH) and its dependencies (pytools, platformdirs, mako,
#                  markupsafe, typing_extensions, siphash24)
#   .gpu-libs/jansson  an unpacked libjansson-dev where the machine lacks it
#                  (apt-get download libjansson-dev libjansson4; dpkg -x each)
#
# Steps and their time on an H200 (16 cores), about 3 minutes in all:
#   install PyCUDA from .whl (seconds), scripts/build.sh native (~25 s),
#   the extension's build into PyTorch's extension cache (~30-60 s: one
#   C++ file with PyTorch's headers), the side-by-side run (~60-90 s:
#   about 80 timed points, 48 of them collectives; the 48 points of ranks=2 skip
#   on one GPU), the small-n hot run (~15 s), env (~15 s), the summary.
# Outputs: OUT/roads (the run directory: results.csv, samples.csv,
# meta.json, python.json, nccl.csv), OUT/small-hot (another), OUT/env.txt,
# OUT/summary.txt (scripts/record/python_roads_summary.py), the logs of each
# step, and OUT/steps.log with each step's exit code and seconds.
set -uo pipefail
OUT=${1:?usage: scripts/record/python_roads.sh OUT}
cd "$(dirname "$0")/../.."
. scripts/record/lib.sh # use_unpacked_jansson; its own log below
mkdir -p "$OUT" || exit 2
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
DEADLINE=${DEADLINE:-420} # seconds for the whole script; a step past it is skipped
started=$SECONDS

log() { printf '== %s %4ds %s\n' "$(date -u +%H:%M:%S)" "$((SECONDS - started))" "$*" | tee -a "$OUT/steps.log"; }
left() { echo $((DEADLINE - (SECONDS - started))); }
# step NAME LIMIT CMD...: CMD with its output in OUT/NAME.log, within LIMIT
# seconds and what is left of the deadline; its exit code and time logged.
step() {
    local name=$1 limit=$2 t0=$SECONDS rc
    shift 2
    local t
    t=$(left)
    [ "$t" -gt "$limit" ] && t=$limit
    if [ "$t" -lt 10 ]; then
        log "$name: skipped, past the deadline"
        return 1
    fi
    timeout -k 10 "$t" "$@" >"$OUT/$name.log" 2>&1
    rc=$?
    log "$name: rc=$rc in $((SECONDS - t0)) s (limit $t s)"
    return $rc
}

command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
CUDA_DIR=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
log "python: $($PY -c 'import sys; print(sys.version.split()[0], sys.executable)'), CUDA toolkit $CUDA_DIR"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,temperature.gpu \
    --format=csv >"$OUT/nvidia-smi.csv" 2>&1

# PyCUDA's _driver links libcurand.so.10 of the toolkit it was built with.
export LD_LIBRARY_PATH=$CUDA_DIR/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
if ! "$PY" -c 'import pycuda' 2>/dev/null; then
    if [ ! -d .whl ]; then
        log "PyCUDA is not installed and there is no .whl/: the pycuda rows will skip"
    elif "$PY" -m pip --version >/dev/null 2>&1; then
        step pip 120 "$PY" -m pip install --no-index --find-links .whl pycuda ||
            log "pip found no PyCUDA wheel for this Python in .whl/ (OUT/pip.log): the pycuda rows will skip"
    else
        # No pip in this Python: the wheels are zip files, and unpacked
        # into a folder on PYTHONPATH they import all the same.
        site=$(mktemp -d)
        for w in .whl/pycuda-*.whl .whl/pytools-*.whl .whl/platformdirs-*.whl .whl/mako-*.whl \
            .whl/[Mm]arkup[Ss]afe-*.whl .whl/siphash24-*.whl .whl/typing_extensions-*.whl; do
            [ -f "$w" ] && "$PY" -m zipfile -e "$w" "$site" >/dev/null
        done
        export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
        log "no pip: the PyCUDA wheels of .whl/ unpacked into $site"
    fi
fi
"$PY" -c 'import pycuda.driver as d; print("PyCUDA", __import__("pycuda").VERSION_TEXT, "CUDA", d.get_version())' \
    2>&1 | tail -1 | tee -a "$OUT/steps.log"

use_unpacked_jansson
if [ -n "${CUBENCH_LIB:-}" ] && [ -f "$CUBENCH_LIB" ]; then
    log "using the library already built: $CUBENCH_LIB"
else
    step build 240 scripts/build.sh native || { tail -20 "$OUT/build.log"; exit 1; }
    export CUBENCH_LIB=$PWD/build-native/libcubench.so
fi
export PYTHONPATH=$PWD/python${PYTHONPATH:+:$PYTHONPATH}

# The extension, built once into PyTorch's extension cache (its own step,
# so its build time is on record and not inside a point's setup).
step extension 240 "$PY" -c '
import time
from cubench import loader
loader.family_names()
import cubench.families.torch_ext as ext
tools = ext.toolchain()
print(tools)
t0 = time.monotonic()
module = ext.build(verbose=True)
print(f"built or loaded in {time.monotonic() - t0:.1f} s: {module.__file__}")
'
tail -1 "$OUT/extension.log" | tee -a "$OUT/steps.log"

# One run, side by side: the C rung, torch.add, the extension, PyCUDA (and
# CuPy's RawKernel, which runs PyCUDA's SourceModule text), and NCCL
# through cubench and through torch.distributed at the same points; 0.5 s
# of sampling per point at most (the pageable 1 GiB copies reach it).
step roads 240 "$PY" -m cubench run vecadd/float4_per_thread torch/add 'torch_ext/*' pycuda \
    cupy/raw_kernel nccl torch_dist --axis n=2^20,2^24,2^28 --axis block=256 \
    --axis bytes=2^10,2^20,2^30 --max-time-per-point 0.5 --quiet --out "$OUT/roads"

# Each caller's cost per call: small n (and 1 KiB collectives) in hot mode.
step small-hot 120 "$PY" -m cubench run vecadd/float4_per_thread torch/add 'torch_ext/*' \
    pycuda/add pycuda/source_module cupy/raw_kernel nccl torch_dist --axis n=2^10,2^16,2^20 \
    --axis block=256 --axis ranks=1 --axis dtype=float --axis bytes=2^10 --cache hot --quiet \
    --out "$OUT/small-hot"

step env 150 "$PY" -m cubench env
sed -n '/Python frameworks/,$p' "$OUT/env.log" | tee -a "$OUT/steps.log"
cp "$OUT/env.log" "$OUT/env.txt"

"$PY" scripts/record/python_roads_summary.py "$OUT/roads" "$OUT/small-hot" >"$OUT/summary.txt" 2>&1
cat "$OUT/summary.txt"
log "done in $((SECONDS - started)) s"
