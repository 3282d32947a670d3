"""Finding and loading libcubench.so, and its C types (ctypes mirrors of
api/cubench_api.h). At load, every Structure below is checked against the
library's own sizes and offsets (cb_api_sizeof / cb_api_offsetof), so a
header that changed without this file is a clear error, not a corrupt run.

Where the library is looked for, in order:
  1. $CUBENCH_LIB: the file itself, or a directory holding libcubench.so;
  2. next to this package (the copy an installed wheel carries);
  3. the source tree this package sits in: build/, build-native/, build-ci/,
     build-debug/ (what scripts/build.sh and the CMake presets produce).
A CUDA library it links that the system lacks is loaded from NVIDIA's PyPI
wheels when they are installed (`pip install cubench[cu13]`).
"""

from __future__ import annotations

import ctypes
import os
import sys
from pathlib import Path

ABI_VERSION = 2  # CB_API_ABI_VERSION: the functions' signatures
LIB_NAME = "libcubench.so"
# The source tree's build directories, release first. build-asan is left
# out: an ASan library cannot be loaded into an uninstrumented Python.
SOURCE_BUILD_DIRS = ("build", "build-native", "build-ci", "build-debug")


class LibraryError(RuntimeError):
    """libcubench.so is missing, unloadable or of another ABI version."""


class ApiAxis(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int32),
                ("defaults", ctypes.c_char_p), ("choices", ctypes.c_char_p),
                ("min_value", ctypes.c_int64), ("help", ctypes.c_char_p)]


class ApiBench(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("summary", ctypes.c_char_p),
                ("target", ctypes.c_int32), ("timer", ctypes.c_int32), ("peak", ctypes.c_int32),
                ("n_axes", ctypes.c_int32), ("axes", ctypes.POINTER(ApiAxis)),
                ("ref_bench", ctypes.c_char_p), ("has_bytes", ctypes.c_int32),
                ("has_flops", ctypes.c_int32), ("handle", ctypes.c_int64)]


class ApiPoint(ctypes.Structure):
    _fields_ = [("n_axes", ctypes.c_int32), ("names", ctypes.POINTER(ctypes.c_char_p)),
                ("ints", ctypes.POINTER(ctypes.c_int64)),
                ("texts", ctypes.POINTER(ctypes.c_char_p)), ("text", ctypes.c_char_p),
                ("floats", ctypes.POINTER(ctypes.c_double))]


class ApiCtx(ctypes.Structure):
    _fields_ = [("stream", ctypes.c_uint64), ("device", ctypes.c_int32),
                ("sm_count", ctypes.c_int32), ("l2_bytes", ctypes.c_int64),
                ("seed", ctypes.c_uint64), ("host_threads", ctypes.c_int32)]


class ApiInfo(ctypes.Structure):
    _fields_ = [("occupancy", ctypes.c_double), ("memcpy_src_kind", ctypes.c_int32),
                ("memcpy_dst_kind", ctypes.c_int32), ("note", ctypes.c_char * 160)]


SetupHook = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ApiPoint),
                             ctypes.POINTER(ApiCtx), ctypes.POINTER(ctypes.c_int64),
                             ctypes.POINTER(ApiInfo), ctypes.c_void_p, ctypes.c_size_t)
RunHook = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p,
                           ctypes.c_size_t)
VerifyHook = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int64, ctypes.POINTER(ctypes.c_double),
                              ctypes.c_void_p, ctypes.c_size_t)
TeardownHook = ctypes.CFUNCTYPE(None, ctypes.c_int64)
WorkHook = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_int64, ctypes.c_int32,
                            ctypes.POINTER(ApiPoint))


class ApiHooks(ctypes.Structure):
    _fields_ = [("setup", SetupHook), ("run", RunHook), ("verify", VerifyHook),
                ("teardown", TeardownHook), ("work", WorkHook)]


class ApiRunResult(ctypes.Structure):
    _fields_ = [("dir", ctypes.c_char * 4096), ("exit_code", ctypes.c_int32),
                ("ok", ctypes.c_int32), ("noisy", ctypes.c_int32), ("skip", ctypes.c_int32),
                ("fail", ctypes.c_int32), ("interrupted", ctypes.c_int32)]


MetaHook = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_char_p, ctypes.c_int32, ctypes.c_void_p,
                            ctypes.c_size_t)

# The C name of every Structure, for the layout check.
STRUCTS = {"cb_api_axis": ApiAxis, "cb_api_bench": ApiBench, "cb_api_point": ApiPoint,
           "cb_api_ctx": ApiCtx, "cb_api_info": ApiInfo, "cb_api_hooks": ApiHooks,
           "cb_api_run_result": ApiRunResult}


def candidates() -> list[Path]:
    """Where the library may be, in the order it is looked for."""
    here = Path(__file__).resolve().parent
    out = []
    env = os.environ.get("CUBENCH_LIB")
    if env:
        p = Path(env)
        out.append(p / LIB_NAME if p.is_dir() else p)
    out.append(here / LIB_NAME)
    root = here.parent.parent  # python/cubench -> the source tree
    out += [root / d / LIB_NAME for d in SOURCE_BUILD_DIRS]
    return out


def find() -> Path:
    env = os.environ.get("CUBENCH_LIB")
    paths = candidates()
    if env and not paths[0].is_file():
        raise LibraryError(f"CUBENCH_LIB={env}: no {LIB_NAME} there")
    for p in paths:
        if p.is_file():
            return p
    looked = ", ".join(str(p) for p in paths)
    raise LibraryError(
        f"{LIB_NAME} not found (looked in {looked}). Build it (scripts/build.sh makes "
        f"build/{LIB_NAME}) and run from the source tree, set CUBENCH_LIB to its path, or copy it "
        f"next to the installed package")


# The CUDA libraries libcubench.so links that NVIDIA's PyPI wheels carry
# (`pip install cubench[cu13]`), in the order they depend on each other,
# and where those wheels put them under site-packages.
PIP_CUDA_LIBS = ("libcudart.so.13", "libcublasLt.so.13", "libcublas.so.13", "libcupti.so.13",
                 "libnccl.so.2")
PIP_CUDA_DIRS = ("nvidia/cu13/lib", "nvidia/cuda_runtime/lib", "nvidia/cublas/lib",
                 "nvidia/cuda_cupti/lib", "nvidia/nccl/lib")


def pip_cuda_libraries(search: list[str] | None = None) -> list[Path]:
    """The PyPI copies of PIP_CUDA_LIBS found on sys.path, in load order."""
    found = {}
    for entry in search if search is not None else sys.path:
        for sub in PIP_CUDA_DIRS:
            d = Path(entry or ".") / sub
            for name in PIP_CUDA_LIBS:
                if name not in found and (d / name).is_file():
                    found[name] = d / name
    return [found[n] for n in PIP_CUDA_LIBS if n in found]


def _open(path: Path) -> ctypes.CDLL:
    """dlopen the library; when the system lacks a CUDA library it links,
    load the PyPI copies first (global symbols, so the dynamic linker finds
    them by soname) and try again."""
    try:
        return ctypes.CDLL(str(path))
    except OSError as first:
        missing = "cannot open shared object file" in str(first)
        pip_libs = pip_cuda_libraries() if missing else []
        if not pip_libs:
            hint = (" (a library it links is missing: install the CUDA 13 toolkit's libraries, "
                    "libjansson4 and libopenblas0, or `pip install cubench[cu13]` for NVIDIA's "
                    "CUDA wheels)" if missing else "")
            raise LibraryError(f"cannot load {path}: {first}{hint}") from None
        try:
            for lib in pip_libs:
                ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
            return ctypes.CDLL(str(path))
        except OSError as e:
            raise LibraryError(f"cannot load {path}: {e} (with the CUDA libraries of "
                               f"{pip_libs[0].parent})") from None


def _prototype(lib: ctypes.CDLL):
    lib.cb_api_abi_version.restype = ctypes.c_int32
    lib.cb_api_abi_version.argtypes = []
    lib.cb_api_version.restype = ctypes.c_char_p
    lib.cb_api_version.argtypes = []
    lib.cb_api_init.restype = ctypes.c_int32
    lib.cb_api_init.argtypes = [ctypes.POINTER(ApiHooks), ctypes.c_char_p, ctypes.c_size_t]
    lib.cb_api_add_family.restype = ctypes.c_int32
    lib.cb_api_add_family.argtypes = [ctypes.c_char_p, ctypes.POINTER(ApiBench), ctypes.c_int32,
                                      ctypes.c_char_p, ctypes.c_size_t]
    lib.cb_api_main.restype = ctypes.c_int32
    lib.cb_api_main.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p)]
    lib.cb_api_device_count.restype = ctypes.c_int32
    lib.cb_api_device_count.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.cb_api_device_describe.restype = ctypes.c_int32
    lib.cb_api_device_describe.argtypes = [ctypes.c_int32, ctypes.c_char_p, ctypes.c_size_t]
    lib.cb_api_reset.restype = None
    lib.cb_api_reset.argtypes = []
    lib.cb_api_run.restype = ctypes.c_int32
    lib.cb_api_run.argtypes = [ctypes.c_int32, ctypes.POINTER(ctypes.c_char_p),
                               ctypes.POINTER(ApiRunResult)]
    lib.cb_api_set_meta_hook.restype = None
    lib.cb_api_set_meta_hook.argtypes = [MetaHook]
    lib.cb_api_sizeof.restype = ctypes.c_int64
    lib.cb_api_sizeof.argtypes = [ctypes.c_char_p]
    lib.cb_api_offsetof.restype = ctypes.c_int64
    lib.cb_api_offsetof.argtypes = [ctypes.c_char_p, ctypes.c_char_p]


def layout_mismatches(sizeof, offsetof, structs=None) -> list[str]:
    """Where the ctypes Structures differ from the library's C structs:
    `sizeof(type)` and `offsetof(type, field)` answer as cb_api_sizeof and
    cb_api_offsetof do (-1: unknown)."""
    out = []
    for cname, cls in (structs or STRUCTS).items():
        size = sizeof(cname.encode())
        if size < 0:
            out.append(f"the library does not know {cname}")
            continue
        if size != ctypes.sizeof(cls):
            out.append(f"sizeof({cname}) is {size} there, {ctypes.sizeof(cls)} here")
        for field in cls._fields_:
            name = field[0]
            at = offsetof(cname.encode(), name.encode())
            want = getattr(cls, name).offset
            if at < 0:
                out.append(f"the library's {cname} has no field {name}")
            elif at != want:
                out.append(f"{cname}.{name} is at offset {at} there, {want} here")
    return out


def load(path: Path | None = None) -> ctypes.CDLL:
    """Load the library (CDLL: the GIL is released while the runner runs and
    taken again by every Python hook) and check that it speaks this
    package's C API: the version and every struct's size and offsets."""
    path = path or find()
    lib = _open(path)
    rebuild = "rebuild the library or use the package of the same source tree"
    try:
        lib.cb_api_abi_version.restype = ctypes.c_int32
        got = lib.cb_api_abi_version()
    except AttributeError:
        raise LibraryError(f"{path} is not a cubench library (no cb_api_abi_version)") from None
    if got != ABI_VERSION:
        raise LibraryError(f"{path} has C API version {got}, this package speaks {ABI_VERSION}: "
                           f"{rebuild}")
    try:
        _prototype(lib)
    except AttributeError as e:
        raise LibraryError(f"{path} lacks a function of C API version {ABI_VERSION}: {e}") from None
    bad = layout_mismatches(lib.cb_api_sizeof, lib.cb_api_offsetof)
    if bad:
        raise LibraryError(f"{path}: its C API structs differ from this package's ("
                           f"{'; '.join(bad[:3])}{'; ...' if len(bad) > 3 else ''}): {rebuild}")
    lib.path = path
    return lib
