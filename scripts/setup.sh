#!/usr/bin/env bash
# setup.sh - install what cubench needs on a fresh Debian/Ubuntu machine:
#   - build tools (cmake >= 3.25, ninja, a C compiler) from the distribution,
#     when missing; the CUDA toolkit itself must already be installed
#   - libjansson-dev (cubench compare reads meta.json with jansson)
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
# Idempotent: each step is skipped when its result is already there. A
# library counts as there when the build would find it (its header and
# shared library under CMAKE_PREFIX_PATH or the system's folders, as
# CMakeLists.txt looks), however it got there: a -dev package, one unpacked
# with `dpkg -x`, a module or conda environment.
#
# Without network (a GPU cluster's node): put the libraries where the build
# finds them (CMAKE_PREFIX_PATH), and the wheels of reports/requirements.txt
# in a folder pip reads (PIP_FIND_LINKS=DIR PIP_NO_INDEX=1); the first
# failed `apt-get update` is the last one tried, and what stays missing is
# named. `scripts/setup.sh --check` only says what is missing (exit 1 if
# anything is).
set -euo pipefail
cd "$(dirname "$0")/.."
FRAMEWORKS=0
CHECK=0
for arg in "$@"; do
    case "$arg" in
    --frameworks) FRAMEWORKS=1 ;;
    --check) CHECK=1 ;;
    -h | --help)
        echo "usage: scripts/setup.sh [--frameworks] [--check]   (see the header of this file)"
        exit 0
        ;;
    *)
        echo "setup: unknown option '$arg' (usage: scripts/setup.sh [--frameworks] [--check])" >&2
        exit 2
        ;;
    esac
done

say() { printf 'setup: %s\n' "$*" >&2; }

APT_DOWN=0   # an `apt-get update` failed: no network, so no more tries
WANTED=()    # --check: the packages that would be installed
apt_install() {
    local missing=()
    for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$CHECK" = 1 ]; then
        WANTED+=("${missing[@]}")
        return 0
    fi
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    if ! command -v apt-get >/dev/null; then
        say "apt-get not found; please install: ${missing[*]}"
        return 1
    fi
    [ "$APT_DOWN" = 1 ] && return 1
    say "installing ${missing[*]}"
    if ! $sudo apt-get update -qq; then
        APT_DOWN=1
        say "apt-get update failed (no network?): not trying the package manager again"
        return 1
    fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Does the build find library `lib` with header `header` (a path under
# include/)? The folders CMake's find_path and find_library search here:
# each CMAKE_PREFIX_PATH entry, then the system's (CUBENCH_SYSTEM_PREFIXES,
# /usr/local:/usr unless set), with their multiarch subfolders.
have_dev() {
    local header=$1 lib=$2 d h l found_h="" found_l="" IFS=:
    for d in ${CMAKE_PREFIX_PATH:-} ${CUBENCH_SYSTEM_PREFIXES-/usr/local:/usr}; do
        [ -n "$d" ] || continue
        if [ -z "$found_h" ]; then
            for h in "$d/include/$header" "$d"/include/*-linux-gnu/"$header"; do
                [ -f "$h" ] && found_h=1 && break
            done
        fi
        if [ -z "$found_l" ]; then
            for l in "$d"/lib/lib"$lib".so* "$d"/lib64/lib"$lib".so* "$d"/lib/*-linux-gnu/lib"$lib".so*; do
                [ -e "$l" ] && found_l=1 && break
            done
        fi
    done
    [ -n "$found_h" ] && [ -n "$found_l" ]
}

command -v cmake >/dev/null || apt_install cmake
command -v ninja >/dev/null || apt_install ninja-build
command -v cc >/dev/null || apt_install gcc
have_dev jansson.h jansson || apt_install libjansson-dev ||
    { say "libjansson-dev is needed to build (cubench compare reads meta.json with it)"; exit 2; }
have_dev sqlite3.h sqlite3 || apt_install libsqlite3-dev ||
    { say "libsqlite3-dev is needed to build (the history database)"; exit 2; }
# libpq for the build, the server for the history tests (they start one).
{ have_dev postgresql/libpq-fe.h pq && compgen -G '/usr/lib/postgresql/*/bin/pg_ctl' >/dev/null; } ||
    apt_install libpq-dev postgresql || say "libpq-dev/postgresql unavailable: history databases will be SQLite only"
command -v gnuplot >/dev/null || apt_install gnuplot-nox || say "gnuplot unavailable: the gnuplot reports will be skipped"
# An optimized CPU reference for matmul/host_cblas (the netlib BLAS is slower than the kernel it judges).
have_dev cblas.h openblas || apt_install libopenblas-dev ||
    say "OpenBLAS unavailable: matmul/host_cblas uses any other BLAS CMake finds (see its note)"

if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
    export PATH=/usr/local/cuda/bin:$PATH
fi
if ! command -v nvcc >/dev/null; then
    [ "$CHECK" = 1 ] && WANTED+=("(the CUDA toolkit: nvcc)") ||
        { say "nvcc not found: install the CUDA toolkit (12.x or 13.x) first"; exit 2; }
fi

PY=${PYTHON:-python3}
# .venv holds reports/requirements.txt as it is now (installed since its
# last change).
venv_ready() {
    [ -x .venv/bin/python ] && .venv/bin/python -c 'import matplotlib, numpy, pytest' 2>/dev/null &&
        ! [ reports/requirements.txt -nt .venv/.requirements-installed ]
}
if [ "$CHECK" = 1 ]; then
    venv_ready || WANTED+=("(.venv with reports/requirements.txt)")
    if [ ${#WANTED[@]} -eq 0 ]; then
        say "nothing missing"
        exit 0
    fi
    say "missing: ${WANTED[*]}"
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    say "creating .venv"
    "$PY" -m venv .venv 2>/dev/null || { apt_install python3-venv && "$PY" -m venv .venv; }
fi
if ! venv_ready; then
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
