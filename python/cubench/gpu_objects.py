"""Which GPU frameworks a function works with, found from the objects it
holds (cubench.measure's target inference), and how each is pointed at the
runner's stream.

A function is taken to be GPU code when the objects it reaches hold device
data: its closure cells, default arguments, the globals its code names
(and those of functions it holds, two levels down), a bound method's
object, a functools.partial's arguments, and the items of lists, tuples
and dicts among them. Device data is a PyTorch tensor or module on a CUDA
device, a CuPy array, a Numba device array, a JAX array on a GPU, or any
object with `__cuda_array_interface__`. Modules are not searched: code that
makes its device data inside the call is not seen, and says target="cuda".
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any, Callable, Iterable

MAX_ITEMS = 64  # items of one container looked at
MAX_DEPTH = 3


def _torch_kind(obj) -> str | None:
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    if isinstance(obj, torch.Tensor):
        return "torch" if obj.is_cuda else None
    if isinstance(obj, torch.nn.Module):
        for t in _first(obj.parameters()) + _first(obj.buffers()):
            if t.is_cuda:
                return "torch"
    return None


def _first(it: Iterable, n: int = 4) -> list:
    out = []
    for x in it:
        out.append(x)
        if len(out) == n:
            break
    return out


def _jax_kind(obj) -> str | None:
    devices = getattr(obj, "devices", None)
    if not callable(devices):
        return None
    try:
        return "jax" if any(d.platform == "gpu" for d in devices()) else None
    except Exception:  # noqa: BLE001 - a deleted or foreign array
        return None


def device_kind(obj) -> str | None:
    """The framework of `obj` when it is data on a GPU, else None."""
    module = type(obj).__module__ or ""
    top = module.split(".")[0]
    if top == "torch":
        return _torch_kind(obj)
    if top in ("jax", "jaxlib"):
        return _jax_kind(obj)
    if hasattr(type(obj), "__cuda_array_interface__"):
        if top == "cupy":
            return "cupy"
        if module.startswith("numba.cuda"):
            return "numba"
        return "cuda-array"
    return None


def _children(obj) -> list:
    """The objects a function or container holds."""
    if isinstance(obj, functools.partial):
        return [obj.func, *obj.args, *obj.keywords.values()]
    if isinstance(obj, types.MethodType):
        return [obj.__self__, obj.__func__]
    if isinstance(obj, types.FunctionType):
        out = [c.cell_contents for c in (obj.__closure__ or ()) if _filled(c)]
        out += list(obj.__defaults__ or ()) + list((obj.__kwdefaults__ or {}).values())
        names = set(_code_names(obj.__code__))
        g = obj.__globals__
        out += [g[n] for n in names if n in g]
        return out
    if isinstance(obj, (list, tuple, set, frozenset)):
        return list(obj)[:MAX_ITEMS]
    if isinstance(obj, dict):
        return list(obj.values())[:MAX_ITEMS]
    return []


def _filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _code_names(code: types.CodeType):
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


def frameworks(*roots: Callable | Any) -> set[str]:
    """The frameworks whose device data the roots reach."""
    found: set[str] = set()
    seen: set[int] = set()
    frontier = [(r, 0) for r in roots if r is not None]
    while frontier:
        obj, depth = frontier.pop()
        if id(obj) in seen or isinstance(obj, (types.ModuleType, type, str, bytes, int, float)):
            continue
        seen.add(id(obj))
        kind = device_kind(obj)
        if kind:
            found.add(kind)
            continue
        if depth < MAX_DEPTH:
            frontier += [(c, depth + 1) for c in _children(obj)]
    return found


# ---- the runner's stream, made current for the frameworks that can take it ----

def bind_stream(kinds: set[str], stream: int, device: int) -> Callable[[], None]:
    """Make the runner's stream current for PyTorch and CuPy (when in
    `kinds`) and wait for the device, so work queued before on their own
    streams is done. Returns the function that undoes it."""
    undo = []
    if "torch" in kinds:
        import torch
        dev = torch.device("cuda", device)
        previous = torch.cuda.current_stream(dev)
        torch.cuda.set_stream(torch.cuda.ExternalStream(stream, device=dev))
        torch.cuda.synchronize(dev)
        undo.append(lambda: torch.cuda.set_stream(previous))
    if "cupy" in kinds:
        import cupy
        with cupy.cuda.Device(device):
            cupy.cuda.Device(device).synchronize()
            ext = cupy.cuda.ExternalStream(stream, device)
            previous_cp = cupy.cuda.get_current_stream(device)
            ext.use()
        undo.append(lambda: previous_cp.use())

    def restore():
        for u in reversed(undo):
            u()
    return restore


def can_bind(kinds: set[str]) -> bool:
    """Whether every framework found can enqueue on the runner's stream."""
    return bool(kinds) and kinds <= {"torch", "cupy"}


def device_wait(kinds: set[str]) -> Callable[[Any], None] | None:
    """How to wait for a call's GPU work when it cannot go on the runner's
    stream (a host-timed point): JAX's block_until_ready on the result,
    else a device-wide synchronize of a framework that is imported."""
    if "jax" in kinds:
        import jax
        return lambda result: jax.block_until_ready(result)
    if "numba" in kinds or ("numba" in sys.modules and "numba.cuda" in sys.modules):
        from numba import cuda
        return lambda result: cuda.synchronize()
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        return lambda result: torch.cuda.synchronize()
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        return lambda result: cupy.cuda.runtime.deviceSynchronize()
    return None
