"""What `python -m cubench env` says about the Python GPU frameworks.

Each framework is probed in a child interpreter (`python -m
cubench.frameworks NAME` prints one JSON object), so a framework that
crashes, hangs or grabs the GPU at import cannot take the report down or
disturb the next probe. A probe answers: installed or not, its version, the
CUDA it was built with (and cuDNN / NCCL for PyTorch), and the devices it
sees, which the report sets beside cubench's own list of devices. Three
entries are ways to reach CUDA rather than frameworks: `pycuda` also opens
the device's primary context and says what it reports; `torch_ext` (a
PyTorch C++/CUDA extension) lists the toolchain torch.utils.cpp_extension
uses and builds the torch_ext family's extension (or loads it from
PyTorch's extension cache); `torch_dist` gives torch.distributed's
backends and NCCL version.
"""

from __future__ import annotations

import concurrent.futures
import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path

# name in the report -> module to import
FRAMEWORKS = {
    "torch": "torch", "cupy": "cupy", "jax": "jax", "numba": "numba", "triton": "triton",
    "pycuda": "pycuda", "torch_ext": "torch.utils.cpp_extension",
    "torch_dist": "torch.distributed", "tensorflow": "tensorflow", "rapids": "cudf",
    "opencv": "cv2", "numpy": "numpy",
}
PROBE_TIMEOUT_S = 120


def _dist_version(*names: str) -> str | None:
    for n in names:
        try:
            return importlib.metadata.version(n)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def _cuda_int(v) -> str:
    """12080 -> "12.8" (the CUDA version integers of the runtime API)."""
    try:
        v = int(v)
        return f"{v // 1000}.{v % 1000 // 10}"
    except (TypeError, ValueError):
        return str(v)


def _probe_torch(info):
    import torch
    info["version"] = torch.__version__
    info["cuda"] = f"built with CUDA {torch.version.cuda}" if torch.version.cuda else "CPU build"
    try:
        info["cudnn"] = str(torch.backends.cudnn.version())
    except Exception as e:  # noqa: BLE001
        info["cudnn"] = f"? ({e})"
    try:
        v = torch.cuda.nccl.version()
        info["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    except Exception as e:  # noqa: BLE001
        info["nccl"] = f"? ({type(e).__name__})"
    if torch.cuda.is_available():
        info["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]


def _probe_cupy(info):
    import cupy
    info["version"] = cupy.__version__
    rt = cupy.cuda.runtime
    info["cuda"] = f"CUDA runtime {_cuda_int(rt.runtimeGetVersion())}"
    info["devices"] = []
    for i in range(rt.getDeviceCount()):
        name = rt.getDeviceProperties(i)["name"]
        info["devices"].append(name.decode() if isinstance(name, bytes) else str(name))


def _probe_jax(info):
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    import jax
    info["version"] = jax.__version__
    extra = [f"jaxlib {_dist_version('jaxlib')}"]
    plugin = _dist_version("jax-cuda13-plugin", "jax-cuda12-plugin")
    if plugin:
        extra.append(f"plugin {plugin}")
    try:
        from jax._src.lib import cuda_versions
        extra.append(f"CUDA runtime {_cuda_int(cuda_versions.cuda_runtime_get_version())}")
        extra.append(f"cuDNN {cuda_versions.cudnn_get_version()}")
    except Exception:  # noqa: BLE001 - private module, absent in some versions
        pass
    info["cuda"] = ", ".join(extra)
    try:
        info["devices"] = [d.device_kind for d in jax.devices("gpu")]
    except Exception as e:  # noqa: BLE001
        info["devices"] = []
        info["note"] = f"no GPU backend: {str(e).splitlines()[0]}"


def _probe_numba(info):
    import numba
    from numba import cuda
    info["version"] = numba.__version__
    nc = _dist_version("numba-cuda")
    extra = [f"numba-cuda {nc}"] if nc else []
    try:
        extra.append("CUDA runtime " + ".".join(map(str, cuda.runtime.get_version())))
    except Exception as e:  # noqa: BLE001
        extra.append(f"CUDA runtime ? ({type(e).__name__})")
    info["cuda"] = ", ".join(extra)
    if cuda.is_available():
        info["devices"] = [g.name.decode() if isinstance(g.name, bytes) else str(g.name)
                           for g in cuda.gpus]


def _probe_triton(info):
    import triton
    info["version"] = triton.__version__
    try:
        target = triton.runtime.driver.active.get_current_target()
        info["cuda"] = f"backend {target.backend}, arch {target.arch}"
    except Exception as e:  # noqa: BLE001
        info["note"] = f"no active GPU driver: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
    try:
        import torch
        if torch.cuda.is_available():
            info["devices"] = [torch.cuda.get_device_name(i)
                               for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001 - Triton without PyTorch
        pass


def _probe_pycuda(info):
    import pycuda
    import pycuda.driver as drv
    info["version"] = pycuda.VERSION_TEXT
    info["cuda"] = f"built with CUDA {'.'.join(map(str, drv.get_version()))}"
    drv.init()  # first: without a driver, the other driver calls are not safe to make
    info["cuda"] += f", driver API {_cuda_int(drv.get_driver_version())}"
    info["devices"] = [drv.Device(i).name() for i in range(drv.Device.count())]
    if info["devices"]:
        dev = drv.Device(0)
        context = dev.retain_primary_context()
        context.push()
        try:
            free, total = drv.mem_get_info()
            cc = ".".join(map(str, dev.compute_capability()))
            info["details"] = [f"context: device 0's primary context, API version "
                               f"{context.get_api_version()}, sm {cc}, "
                               f"{free / 2**30:.1f} of {total / 2**30:.1f} GiB free"]
        finally:
            context.pop()


def _families_module(name: str):
    """A family module of bench/python (cubench.families.NAME)."""
    import importlib

    from . import loader
    if loader._families_package() is None:
        raise ModuleNotFoundError(f"no cubench.families here for {name}", name="cubench.families")
    return importlib.import_module(f"{loader.PACKAGE}.{name}")


def _torch_devices(torch) -> list[str]:
    if not torch.cuda.is_available():
        return []
    return [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]


def _probe_torch_ext(info):
    import time

    import torch
    import torch.utils.cpp_extension  # noqa: F401 - the probe's module
    info["version"] = torch.__version__
    info["cuda"] = f"torch's CUDA {torch.version.cuda}" if torch.version.cuda else "CPU build"
    family = _families_module("torch_ext")
    tools = family.toolchain()
    info["details"] = [f"nvcc {tools['nvcc_version'] or 'not found'}"
                       + (f" ({tools['nvcc']})" if tools["nvcc"] else ""),
                       f"compiler {tools['cxx_version'] or 'not found'}",
                       f"ninja {'found' if tools['ninja'] else 'not found'}",
                       f"arch {tools['arch_list'] or '?'}"]
    why = family.missing(tools)
    if why:
        info["details"].append(f"extension: cannot build ({why})")
    else:
        t0 = time.monotonic()
        try:
            family.build()
            info["details"].append(f"extension: {family.EXTENSION_NAME} builds "
                                   f"({time.monotonic() - t0:.1f} s, into {family.cache_dir()})")
        except BaseException as e:  # noqa: BLE001 - cb.Skip or the build's first error
            info["details"].append(f"extension: does not build ({e})")
    info["devices"] = _torch_devices(torch)


def _probe_torch_dist(info):
    import torch
    import torch.distributed as dist
    info["version"] = torch.__version__
    if not dist.is_available():
        info["cuda"] = "torch.distributed not built in"
        return
    found = [name for name in ("nccl", "gloo", "mpi", "ucc", "xccl")
             if getattr(dist, f"is_{name}_available", lambda: False)()]
    info["cuda"] = f"backends {', '.join(found) or 'none'}"
    if dist.is_nccl_available():
        v = torch.cuda.nccl.version()
        info["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    info["devices"] = _torch_devices(torch)


def _probe_tensorflow(info):
    import tensorflow as tf
    info["version"] = tf.__version__
    build = tf.sysconfig.get_build_info()
    info["cuda"] = f"built with CUDA {build.get('cuda_version')}, cuDNN {build.get('cudnn_version')}"
    info["devices"] = [d.name for d in tf.config.list_physical_devices("GPU")]


def _probe_rapids(info):
    import cudf
    info["version"] = f"cudf {cudf.__version__}"
    rmm = _dist_version("rmm", "rmm-cu12", "rmm-cu13")
    info["cuda"] = f"rmm {rmm}" if rmm else ""
    import cupy
    rt = cupy.cuda.runtime
    info["devices"] = [rt.getDeviceProperties(i)["name"].decode()
                       for i in range(rt.getDeviceCount())]


def _probe_opencv(info):
    import cv2
    info["version"] = cv2.__version__
    cuda_lines = [ln.strip() for ln in cv2.getBuildInformation().splitlines()
                  if ln.strip().startswith("CUDA")]
    info["cuda"] = "; ".join(cuda_lines[:2]) or "built without CUDA"
    n = cv2.cuda.getCudaEnabledDeviceCount() if hasattr(cv2, "cuda") else 0
    info["devices"] = [f"cv2.cuda device {i}" for i in range(n)]


def _probe_numpy(info):
    import numpy
    info["version"] = numpy.__version__
    info["cuda"] = "host only"


PROBES = {name: globals()[f"_probe_{name}"] for name in FRAMEWORKS}


def probe(name: str) -> dict:
    """Probe framework `name` in this process."""
    info = {"name": name, "module": FRAMEWORKS[name], "installed": False}
    try:
        PROBES[name](info)
        info["installed"] = True
    except ModuleNotFoundError as e:
        if e.name and e.name.split(".")[0] == FRAMEWORKS[name].split(".")[0]:
            info["error"] = "not installed"
        else:
            info["installed"] = "version" in info
            info["error"] = f"{type(e).__name__}: {e}"
    except BaseException as e:  # noqa: BLE001 - a broken install is reported, not raised
        info["installed"] = "version" in info
        text = str(e).strip().splitlines()
        info["error"] = f"{type(e).__name__}: {text[0] if text else ''}"
    return info


def probe_in_child(name: str) -> dict:
    """Probe `name` in a child interpreter (see the module docstring)."""
    package_parent = str(Path(__file__).resolve().parent.parent)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from cubench.frameworks import _child; _child(sys.argv[2])")
    try:
        p = subprocess.run([sys.executable, "-c", code, package_parent, name],
                           capture_output=True, text=True, timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"name": name, "installed": None, "error": f"probe timed out ({PROBE_TIMEOUT_S} s)"}
    for line in reversed(p.stdout.splitlines()):
        if line.startswith("{"):
            try:
                return json.loads(line)
            except json.JSONDecodeError:
                break
    tail = (p.stderr.strip().splitlines() or ["no output"])[-1]
    return {"name": name, "installed": None, "error": f"probe exited {p.returncode}: {tail}"}


def _child(name: str):
    print(json.dumps(probe(name)))


def _device_line(cubench_devices: list[str], seen: list[str]) -> str:
    if not cubench_devices:
        return f"sees {len(seen)} device(s)" if seen else "sees no device"
    parts = []
    for i, d in enumerate(cubench_devices):
        short = d.split(",")[0]
        parts.append(f"device {i} ({short}): {'seen' if i < len(seen) else 'NOT seen'}")
    return "; ".join(parts)


def report(cubench_devices: list[str], no_device_reason: str = "",
           names: list[str] | None = None) -> str:
    names = names or list(FRAMEWORKS)
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        infos = list(pool.map(probe_in_child, names))
    lines = [f"\nPython frameworks (Python {sys.version.split()[0]}, {sys.executable}):"]
    if not cubench_devices:
        lines.append(f"  (cubench sees no CUDA device: {no_device_reason})")
    width = max(len(n) for n in names)
    for info in infos:
        name = info["name"].ljust(width)
        if info.get("error") == "not installed":
            lines.append(f"  {name}  not installed")
            continue
        head = f"  {name}  {info.get('version', '?')}"
        details = [info[k] for k in ("cuda",) if info.get(k)]
        if info.get("cudnn"):
            details.append(f"cuDNN {info['cudnn']}")
        if info.get("nccl"):
            details.append(f"NCCL {info['nccl']}")
        details.extend(info.get("details") or [])
        if info["name"] != "numpy":
            details.append(_device_line(cubench_devices, info.get("devices") or []))
        for key in ("note", "error"):
            if info.get(key):
                details.append(f"{key}: {info[key]}")
        lines.append(head + ("; " + "; ".join(details) if details else ""))
    return "\n".join(lines)


def imported_versions() -> dict:
    """Versions of the frameworks this process imported (for python.json)."""
    out = {}
    for name, module in FRAMEWORKS.items():
        m = sys.modules.get(module)
        if m is not None:
            # A submodule (torch.distributed) has its package's version.
            top = sys.modules.get(module.split(".")[0], m)
            out[name] = str(getattr(m, "__version__", None) or getattr(m, "VERSION_TEXT", None)
                            or getattr(top, "__version__", "?"))
    return out


if __name__ == "__main__":
    _child(sys.argv[1])
