#!/usr/bin/env bash
# python_api.sh [OUT] - the Python API on a GPU with PyTorch: cubench.measure,
# cubench.load and the pytest plugin (tests/py/test_api_torch.py), from a
# wheel of this tree installed apart from the source, plus the console
# script of that wheel running a framework family. About one minute after
# the build (the build itself: a few minutes on 16 cores, less when
# build-native/ is already there). Writes into OUT:
#   build.log           scripts/build.sh native (this machine's GPUs only)
#   dist/               the wheel (scripts/build_wheel.sh's, from build-native)
#   site/               the wheel installed with pip --target (on PYTHONPATH)
#   pytest.log, junit.xml   the GPU tests: measure vs a plain CUDA-event loop,
#                       inferred target/timer, hot mode, the plugin's save and
#                       compare on the GPU
#   version.txt         `python -m cubench --version` of the wheel (its library)
#   torch-add/          `python -m cubench run torch/add --axis n=2^24 --quick`
#                       from the wheel: a run directory
#   summary.txt         what passed, with the exit codes
# Needs: the CUDA toolkit, a python3 with torch built for CUDA (PYTHON=... to
# pick one) and pytest importable by it; without pytest, put the wheels of
# pytest, pluggy, iniconfig and packaging into .whl/ (WHEELS=DIR) and they
# are installed into OUT/site.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${1:-${OUT:-$PWD/gpu-out/python-api}}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
PY=${PYTHON:-python3}
WHEELS=${WHEELS:-$PWD/.whl}
say() { printf '== %s %4ds %s\n' "$(date -u +%H:%M:%S)" "$SECONDS" "$*" | tee -a "$OUT/summary.txt"; }

say "build (native)"
scripts/build.sh native > "$OUT/build.log" 2>&1 || { tail -20 "$OUT/build.log"; exit 1; }

say "wheel"
rm -rf "$OUT/dist" "$OUT/site"
"$PY" -m pip wheel . --no-deps --no-index -w "$OUT/dist" \
    --config-settings lib=build-native/libcubench.so > "$OUT/wheel.log" 2>&1 ||
    { tail -20 "$OUT/wheel.log"; exit 1; }
"$PY" -m pip install --no-deps --no-index --target "$OUT/site" "$OUT"/dist/cubench-*.whl \
    >> "$OUT/wheel.log" 2>&1 || { tail -20 "$OUT/wheel.log"; exit 1; }
if ! "$PY" -c 'import pytest' 2>/dev/null; then
    "$PY" -m pip install --no-index --find-links "$WHEELS" --target "$OUT/site" pytest \
        >> "$OUT/wheel.log" 2>&1 ||
        { say "pytest is not importable by $PY and not installable from $WHEELS"; exit 1; }
fi
# The installed package, not the tree's python/: no CUBENCH_LIB either, the
# wheel's own library is the one found.
unset CUBENCH_LIB
export PYTHONPATH=$OUT/site
export PATH=$OUT/site/bin:$PATH

say "the wheel's cubench"
"$PY" -m cubench --version > "$OUT/version.txt" 2>&1
echo "rc=$?" >> "$OUT/version.txt"
cat "$OUT/version.txt"
rm -rf "$OUT/torch-add"
"$PY" -m cubench run torch/add --axis n=2^24 --quick --out "$OUT/torch-add" \
    > "$OUT/torch-add.log" 2>&1
say "torch/add via the wheel: rc=$? $(grep -E '^cubench: [0-9]+ ok' "$OUT/torch-add.log" | tail -1)"

say "GPU tests with torch (tests/py/test_api_torch.py)"
# Run from a copy outside tests/py, so that folder's conftest.py (whose
# `cubench` fixture is the C binary's path) does not hide the plugin's, and
# the test imports the installed package: the copy's ROOT/python is absent.
mkdir -p "$OUT/tests"
cp tests/py/test_api_torch.py "$OUT/tests/"
(cd "$OUT/tests" && timeout -k 10 480 "$PY" -m pytest -v -p no:cacheprovider \
    --junitxml="$OUT/junit.xml" test_api_torch.py) > "$OUT/pytest.log" 2>&1
rc=$?
tail -15 "$OUT/pytest.log"
say "pytest rc=$rc ($(grep -cE ' PASSED' "$OUT/pytest.log") passed, $(grep -cE ' (FAILED|ERROR)' "$OUT/pytest.log") failed, $(grep -cE ' SKIPPED' "$OUT/pytest.log") skipped)"
exit "$rc"
