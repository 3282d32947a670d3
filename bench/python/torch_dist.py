"""torch_dist: torch.distributed's collectives over NCCL, beside cubench's
own NCCL family (bench/nccl.c) at the same points.

  torch_dist/all_reduce      dist.all_reduce(t): SUM, in place (DDP's call)
  torch_dist/all_gather      dist.all_gather_into_tensor(out, in)
  torch_dist/reduce_scatter  dist.reduce_scatter_tensor(out, in): SUM
  torch_dist/broadcast       dist.broadcast(t, src=0), in place

The axes are the nccl family's (ranks, dtype, bytes: nccl-tests' size), so
`gbps` is the same algorithm bandwidth and the rows match by identity; the
bus bandwidth is gbps times the same factor (2(n-1)/n all-reduce, (n-1)/n
all-gather and reduce-scatter, 1 broadcast; the note gives it).

One process per GPU, as DDP runs: the benchmark's own process is rank 0 on
the runner's device and stream (torch.cuda.ExternalStream made current;
ProcessGroupNCCL orders its NCCL stream after the current stream and the
current stream after the collective, so the runner's events bracket the
call), and the family starts ranks 1..W-1 as worker processes on the next
devices (_torch_dist_rank.py says how they follow rank 0 call for call).
The group is kept from point to point while the devices stay the same.
ranks = 1 runs on one GPU; ranks = W needs W GPUs that torch sees, and a
point with more skips with the reason, as the nccl family's does.

In place at one rank. torch.distributed has no out-of-place all-reduce or
broadcast, and NCCL does nothing for an in-place collective of one rank
(ncclLaunchOneRank: "in-place is nop"), so at ranks = 1 those two rows time
torch.distributed's call with no data moved, while the nccl family's
out-of-place rows time a device copy of `bytes`; all-gather and
reduce-scatter are out of place in both and move the same bytes. (At one rank the check of
an in-place row is empty: the buffer holds the input whether a call ran or
not; the note says so.) An
in-place all-reduce adds the ranks' data again at every call: the first
call is the one verified; the later ones add equal numbers (the values
grow, the work is the same).

NVLink SHARP is off (NCCL_NVLS_ENABLE=0) unless the user set it, as in the
nccl family. Without a GPU, tests/py/test_python_roads_real.py drives the
same group code with torch's gloo backend on the CPU: two and three
processes, every collective, verified.
"""

import atexit
import os

import cubench as cb

from . import _common as C
from . import _torch_dist_rank as R
from . import _torchutil as T

COLL_AXES = [
    cb.Axis("ranks", "1,2", help="GPUs in the group, one process each: the runner's device "
            "and the next ones"),
    cb.Axis("dtype", "float,bf16", kind="enum", choices="float,bf16",
            help="element type (the reduction is a sum)"),
    cb.Axis("bytes", "2^10,2^20,2^30", help="nccl-tests' size: per rank (all-reduce, "
            "broadcast), gathered output (all-gather), each input (reduce-scatter)"),
]
SUMMARY = {
    "all_reduce": "dist.all_reduce (SUM, in place), one process per GPU",
    "all_gather": "dist.all_gather_into_tensor, one process per GPU",
    "reduce_scatter": "dist.reduce_scatter_tensor (SUM), one process per GPU",
    "broadcast": "dist.broadcast from rank 0 (in place), one process per GPU",
}

_GROUP = {"group": None}


def _group(torch, devices: list) -> R.Group:
    """The process group for these devices, made (and the old one closed)
    when the devices change."""
    group = _GROUP["group"]
    if group is not None and group.devices == devices:
        return group
    close_group()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # as bench/nccl.c; the workers inherit it
    _GROUP["group"] = R.Group(torch, devices, backend="nccl")
    return _GROUP["group"]


def close_group():
    group, _GROUP["group"] = _GROUP["group"], None
    if group is not None:
        group.close()


atexit.register(close_group)


def _nccl_version(torch) -> str:
    try:
        v = torch.cuda.nccl.version()
        return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
    except Exception:  # noqa: BLE001 - only the note needs it
        return "?"


def _check_fit(torch, dev, op, p, elem):
    split = R.counts(op, p["bytes"], p["ranks"], elem)
    if split is None:
        raise cb.Skip(f"bytes={p['bytes']} is not a multiple of {p['ranks']} rank(s) x "
                      f"{elem}-byte elements")
    need = (split[0] + (0 if op in R.IN_PLACE else split[1])) * elem
    free, _ = torch.cuda.mem_get_info(dev)
    if need > free:
        raise cb.Skip(f"needs {need} bytes on each GPU; device {dev.index} has {free} free")


def _note(torch, op, ranks, devices) -> str:
    factor = R.bus_factor(op, ranks)
    where = f"{ranks} process(es), device(s) {','.join(map(str, devices))}"
    text = (f"torch {torch.__version__}, NCCL {_nccl_version(torch)}, {where}, "
            f"busbw = gbps x {factor:g}")
    if op in R.IN_PLACE:  # the engine keeps 159 characters of a note
        text += ("; in place: no data moved at 1 rank, the check cannot see a call"
                 if ranks == 1 else "; in place, first call verified")
    return text


def _collective(op):
    def setup(p, ctx):
        torch, dev, streams = T.open_device(ctx)
        try:
            import torch.distributed as dist

            if not dist.is_available() or not dist.is_nccl_available():
                raise cb.Skip(f"this PyTorch ({torch.__version__}) has no torch.distributed "
                              "NCCL backend")
            ranks, count = p["ranks"], torch.cuda.device_count()
            if ranks > count:
                raise cb.Skip(f"needs {ranks} GPUs; torch sees {count}")
            _check_fit(torch, dev, op, p, 2 if p["dtype"] == "bf16" else 4)
            devices = [(ctx.device + r) % count for r in range(ranks)]
            group = _group(torch, devices)
            group.prepare(op, p["dtype"], p["bytes"], C.seeds(ctx)[0])
        except R.GroupError as e:
            close_group()
            T.close(streams)
            raise RuntimeError(str(e)) from None
        except BaseException:
            T.close(streams)
            raise

        def verify():
            bad, first_rank = group.check()
            if bad:
                raise cb.VerifyError(f"{bad} wrong elements over {ranks} rank(s), first on "
                                     f"rank {first_rank}", float(bad))
            return 0.0

        def teardown():
            try:
                group.release()
            except R.GroupError:
                close_group()  # a worker is gone: the next point starts a new group
                raise
            finally:
                T.close(streams)

        return cb.Setup(run=group.run, verify=verify, teardown=teardown,
                        note=_note(torch, op, ranks, devices))
    return setup


for _op in R.OPS:
    cb.benchmark(f"torch_dist/{_op}", axes=COLL_AXES, summary=SUMMARY[_op], peak="none",
                 bytes=lambda p: float(p["bytes"]), requires=("torch", "torch.distributed"),
                 release=T.release)(_collective(_op))
