#!/usr/bin/env bash
# setup.sh - install what cubench needs on a fresh Debian/Ubuntu machine:
#   - build tools (cmake >= 3.25, ninja, a C compiler) from the distribution,
#     when missing; the CUDA toolkit itself must already be installed
#   - libjansson-dev and pkgconf (cubench compare reads meta.json with jansson)
#   - libsqlite3-dev (the history database) and libpq-dev (its PostgreSQL
#     store), and the PostgreSQL server the history tests start on a socket
#   - gnuplot (reports without Python)
#   - OpenBLAS (libopenblas-dev): the CPU reference of the matmul baselines
#   - a Python virtual environment at .venv with reports/requirements.txt, and
#     the cubench Python package (python/) importable from it
#   - with --frameworks: the optional ways to CUDA of the Python families
#     that install as packages: PyCUDA (PyPI has only its source: pip builds
#     it against this CUDA toolkit, a few minutes on two cores, or takes a
#     wheel from .whl/ if one is there) and ninja (torch.utils.cpp_extension
#     needs it for the torch_ext family). A failure is reported and the
#     setup goes on: those families then skip with the reason.
# Idempotent: each step is skipped when its result is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMEWORKS=0
for arg in "$@"; do
    case "$arg" in
    --frameworks) FRAMEWORKS=1 ;;
    -h | --help)
        echo "usage: scripts/setup.sh [--frameworks]   (see the header of this file)"
        exit 0
        ;;
    *)
        echo "setup: unknown option '$arg' (usage: scripts/setup.sh [--frameworks])" >&2
        exit 2
        ;;
    esac
done

say() { printf 'setup: %s\n' "$*" >&2; }

apt_install() {
    local missing=()
    for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    if ! command -v apt-get >/dev/null; then
        say "apt-get not found; please install: ${missing[*]}"
        return 1
    fi
    say "installing ${missing[*]}"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

command -v cmake >/dev/null || apt_install cmake
command -v ninja >/dev/null || apt_install ninja-build
command -v cc >/dev/null || apt_install gcc
apt_install libjansson-dev pkgconf || { say "libjansson-dev is needed to build (cubench compare reads meta.json with it)"; exit 2; }
apt_install libsqlite3-dev || { say "libsqlite3-dev is needed to build (the history database)"; exit 2; }
apt_install libpq-dev postgresql || say "libpq-dev/postgresql unavailable: history databases will be SQLite only"
command -v gnuplot >/dev/null || apt_install gnuplot-nox || say "gnuplot unavailable: the gnuplot reports will be skipped"
# An optimized CPU reference for matmul/host_cblas (the netlib BLAS is slower than the kernel it judges).
apt_install libopenblas-dev || say "OpenBLAS unavailable: matmul/host_cblas uses any other BLAS CMake finds (see its note)"

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi
command -v nvcc >/dev/null || { say "nvcc not found: install the CUDA toolkit (12.x or 13.x) first"; exit 2; }

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    say "creating .venv"
    "$PY" -m venv .venv 2>/dev/null || { apt_install python3-venv && "$PY" -m venv .venv; }
fi
if ! .venv/bin/python -c 'import matplotlib, numpy, pytest' 2>/dev/null ||
   [ reports/requirements.txt -nt .venv/.requirements-installed ]; then
    say "installing reports/requirements.txt into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r reports/requirements.txt
    touch .venv/.requirements-installed
fi
# `import cubench` in .venv: a .pth naming this tree's python/ (docs/python.md).
pth="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/cubench-source.pth"
[ "$(cat "$pth" 2>/dev/null)" = "$PWD/python" ] || echo "$PWD/python" > "$pth"

# --frameworks: PyCUDA built against the toolkit nvcc belongs to, and ninja.
install_frameworks() {
    local pip=(.venv/bin/python -m pip install -q --disable-pip-version-check)
    local links=()
    [ -d .whl ] && links=(--find-links .whl)
    if .venv/bin/python -c 'import ninja' 2>/dev/null; then :; else
        "${pip[@]}" "${links[@]}" ninja || say "ninja could not be installed: the torch_ext family will skip"
    fi
    if .venv/bin/python -c 'import pycuda' 2>/dev/null; then
        say "PyCUDA already installed"
        return 0
    fi
    local cuda_root log
    cuda_root=$(cd "$(dirname "$(command -v nvcc)")/.." && pwd)
    log=$(mktemp)
    say "installing PyCUDA (built against $cuda_root if no wheel fits; log: $log)"
    if CUDA_ROOT=$cuda_root "${pip[@]}" "${links[@]}" pycuda >"$log" 2>&1; then
        say "PyCUDA $(.venv/bin/python -c 'import pycuda; print(pycuda.VERSION_TEXT)' 2>/dev/null) installed"
        rm -f "$log"
    else
        say "PyCUDA could NOT be built or installed (the pycuda family will skip); the last lines of $log:"
        tail -5 "$log" >&2
    fi
}
if [ "$FRAMEWORKS" = 1 ]; then install_frameworks; fi
say "ready"
