"""One rank of the torch_dist family, and the group of ranks a benchmark
process leads: rank 0 is the process the runner times, ranks 1..W-1 are
worker processes it starts (one per GPU, as torchrun starts DDP's), each
running this file as a script.

This module imports torch and the standard library only, never cubench:
a worker runs it with a clean sys.path (bench/python holds torch.py, which
would hide PyTorch), and the CPU test drives the whole group with the gloo
backend and no libcubench.

The protocol. Commands go to a worker as one JSON line on its stdin; it
answers with one JSON line on a pipe of its own (stdout and stderr stay the
user's: NCCL_DEBUG prints to stdout). A command carries the number of
collectives rank 0 has issued so far, and the worker issues the ones it
lacks before it acts, so every rank has called the same collectives when
it checks or frees. While a point is set up, run() on rank 0 also counts
its calls in a shared 8-byte word that the workers spin on, so each
worker issues its matching call within microseconds, as DDP's ranks each
issue their own.

Inputs are the collectives family's kind (kernels/collective_kernels.h):
element i of rank r's input is a small integer in [-4, 3] from a hash of
(seed, r, i), exact in float32 and bf16 and in any sum of them, so every
output element of every rank is checked exactly.
"""

from __future__ import annotations

import json
import mmap
import os
import select
import struct
import subprocess
import sys
import tempfile
import time

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast")
IN_PLACE = ("all_reduce", "broadcast")  # torch.distributed has no out-of-place form of these
_P = 2147483647  # 2^31 - 1, a prime: the hash stays inside int64 (no overflow)
_CHUNK = 1 << 24  # elements per slice of a fill or a check: bounds the int64 temporaries
_SPIN_YIELD = 4096  # spins between sched_yield calls while a point is set up


def counts(op: str, nbytes: int, ranks: int, elem: int) -> tuple[int, int] | None:
    """(send, recv) elements per rank for nccl-tests' size `nbytes` (as
    cb_coll_counts: per rank for all-reduce and broadcast, the gathered
    output for all-gather, each input for reduce-scatter); None when it does
    not split into whole elements per rank."""
    if nbytes <= 0 or ranks < 1 or nbytes % elem:
        return None
    total = nbytes // elem
    if op in ("all_reduce", "broadcast"):
        return total, total
    if total % ranks:
        return None
    if op == "all_gather":
        return total // ranks, total
    if op == "reduce_scatter":
        return total, total // ranks
    raise ValueError(f"unknown collective {op!r}")


def bus_factor(op: str, ranks: int) -> float:
    """nccl-tests' busbw / algbw (cb_coll_bus_factor): 2(n-1)/n for
    all-reduce, (n-1)/n for all-gather and reduce-scatter, 1 for broadcast."""
    n = float(ranks)
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n,
            "reduce_scatter": (n - 1) / n, "broadcast": 1.0}[op]


def values(torch, seed: int, rank: int, lo: int, hi: int, device):
    """Rank `rank`'s input elements lo..hi-1 as int64 in [-4, 3]: three
    multiplicative steps modulo 2^31 - 1 (every product < 2^62)."""
    i = torch.arange(lo, hi, device=device, dtype=torch.int64)
    h = (i * 48271 + (seed + 1000003 * rank) % _P) % _P
    h = (h * 69621 + 12345) % _P
    h = (h * 16807) % _P
    return h % 8 - 4


class Rank:
    """One rank's buffers and calls for one point."""

    def __init__(self, torch, dist, rank: int, world: int, device):
        self.torch, self.dist = torch, dist
        self.rank, self.world, self.device = rank, world, device
        self.op = None

    def prepare(self, op: str, dtype: str, nbytes: int, seed: int):
        torch = self.torch
        elem = 2 if dtype == "bf16" else 4
        split = counts(op, nbytes, self.world, elem)
        if split is None:
            raise ValueError(f"bytes={nbytes} does not split over {self.world} rank(s) of "
                             f"{elem}-byte elements")
        self.op, self.seed = op, seed % _P
        self.dtype = torch.bfloat16 if dtype == "bf16" else torch.float32
        self.send_count, self.recv_count = split
        # In place (all-reduce, broadcast): one buffer. Out of place: the
        # input filled, the output all NaN, so an unwritten element fails.
        if op in IN_PLACE:
            self.out = torch.empty(self.send_count, dtype=self.dtype, device=self.device)
            if op == "broadcast" and self.rank != 0:
                self.out.fill_(float("nan"))
            else:
                self._fill(self.out, self.rank)
            self.inp = self.out
        else:
            self.inp = torch.empty(self.send_count, dtype=self.dtype, device=self.device)
            self._fill(self.inp, self.rank)
            self.out = torch.full((self.recv_count,), float("nan"), dtype=self.dtype,
                                  device=self.device)
        self.sync()

    def _fill(self, buf, rank: int):
        for lo in range(0, buf.numel(), _CHUNK):
            hi = min(buf.numel(), lo + _CHUNK)
            buf[lo:hi] = values(self.torch, self.seed, rank, lo, hi, self.device).to(self.dtype)

    def run(self):
        """One collective, as a torch.distributed user calls it."""
        dist = self.dist
        if self.op == "all_reduce":
            dist.all_reduce(self.out)  # SUM, in place: DDP's call
        elif self.op == "all_gather":
            dist.all_gather_into_tensor(self.out, self.inp)
        elif self.op == "reduce_scatter":
            dist.reduce_scatter_tensor(self.out, self.inp)  # SUM
        else:
            dist.broadcast(self.out, src=0)

    def _want(self, lo: int, hi: int):
        """What this rank's output elements lo..hi-1 hold after one call."""
        torch, dev = self.torch, self.device
        if self.op == "all_reduce":
            return sum(values(torch, self.seed, r, lo, hi, dev) for r in range(self.world))
        if self.op == "reduce_scatter":
            base = self.rank * self.recv_count
            return sum(values(torch, self.seed, r, base + lo, base + hi, dev)
                       for r in range(self.world))
        if self.op == "broadcast":
            return values(torch, self.seed, 0, lo, hi, dev)
        # all-gather: block k of the output is rank k's input.
        block = self.send_count
        parts, at = [], lo
        while at < hi:
            k, j = divmod(at, block)
            end = min(hi, (k + 1) * block)
            parts.append(values(torch, self.seed, k, j, j + end - at, dev))
            at = end
        return torch.cat(parts)

    def check(self) -> tuple[int, int]:
        """(wrong elements, first wrong index or -1) of this rank's output
        after exactly one call (NaN counts as wrong)."""
        self.sync()
        bad, first = 0, -1
        n = self.out.numel()
        for lo in range(0, n, _CHUNK):
            hi = min(n, lo + _CHUNK)
            wrong = self.out[lo:hi].float() != self._want(lo, hi).float()
            count = int(wrong.sum())
            if count and first < 0:
                first = lo + int(wrong.nonzero()[0])
            bad += count
        return bad, first

    def sync(self):
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def release(self):
        self.sync()
        self.inp = self.out = None
        self.op = None


# ---------------------------------------------------------------- the group


def init_group(dist, backend: str, store, rank: int, world: int, timeout, device):
    """torch's default process group. A CUDA rank names its device
    (device_id): NCCL's communicator is then made here, bound to that
    device, not at the first collective on a device torch would guess."""
    kwargs = dict(store=store, rank=rank, world_size=world, timeout=timeout)
    if device.type == "cuda":
        try:
            dist.init_process_group(backend, device_id=device, **kwargs)
            return
        except TypeError:  # a PyTorch older than 2.3: no device_id
            pass
    dist.init_process_group(backend, **kwargs)


class GroupError(RuntimeError):
    """A worker did not start, answer or survive: the group cannot go on."""


class RankError(RuntimeError):
    """A worker answered a command with an error (out of memory, say); the
    group is still in step."""


class _Counter:
    """An 8-byte word in a shared file: the collectives rank 0 has issued."""

    def __init__(self, path: str, create: bool):
        self.path = path
        if create:
            with open(path, "wb") as f:
                f.write(b"\0" * 8)
        self._file = open(path, "r+b")
        self._map = mmap.mmap(self._file.fileno(), 8)

    def read(self) -> int:
        return struct.unpack_from("<Q", self._map, 0)[0]

    def write(self, value: int):
        struct.pack_into("<Q", self._map, 0, value)

    def close(self):
        self._map.close()
        self._file.close()


def _temp_dir() -> str:
    return "/dev/shm" if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else \
        tempfile.gettempdir()


# A worker runs this file with an empty-entry-free sys.path: `python -c`
# puts the working directory first, which may be bench/python itself.
_BOOT = ("import sys, runpy; sys.path[:] = [p for p in sys.path if p not in ('', '.')]; "
         "runpy.run_path(sys.argv[1])['serve'](sys.argv[2])")


class Group:
    """This process as rank 0 of `len(devices)` ranks (rank r on
    devices[r]; a device is "cpu" for the gloo backend), and the worker
    processes of the other ranks. One process group at a time: torch's
    default group."""

    def __init__(self, torch, devices: list, backend: str = "nccl", timeout_s: float = 120.0):
        import datetime

        import torch.distributed as dist

        self.torch, self.dist = torch, dist
        self.devices, self.backend, self.timeout_s = list(devices), backend, timeout_s
        self.world = len(self.devices)
        self.issued = 0
        self.workers: list[subprocess.Popen] = []
        self.replies: list = []
        self.counter = None
        self.rank = None
        self._pg = False
        timeout = datetime.timedelta(seconds=timeout_s)
        try:
            store = dist.TCPStore("127.0.0.1", 0, self.world, True, timeout,
                                  wait_for_workers=False)
            if self.world > 1:
                fd, path = tempfile.mkstemp(prefix="cubench-torch-dist-", dir=_temp_dir())
                os.close(fd)
                self.counter = _Counter(path, create=True)
                for r in range(1, self.world):
                    self._spawn(r, store.port)
                self._collect("start")  # each worker imported torch
            init_group(dist, backend, store, 0, self.world, timeout, self._device(0))
            self._pg = True
            self._collect("init")
            self.rank = Rank(torch, dist, 0, self.world, self._device(0))
        except BaseException:
            self.close()
            raise

    def _device(self, r: int):
        d = self.devices[r]
        return self.torch.device("cpu") if d == "cpu" else self.torch.device("cuda", d)

    def _spawn(self, r: int, port: int):
        read_fd, write_fd = os.pipe()
        args = json.dumps({"rank": r, "world": self.world, "device": self.devices[r],
                           "port": port, "backend": self.backend, "timeout_s": self.timeout_s,
                           "counter": self.counter.path, "reply_fd": write_fd})
        try:
            proc = subprocess.Popen([sys.executable, "-c", _BOOT, os.path.abspath(__file__), args],
                                    stdin=subprocess.PIPE, pass_fds=(write_fd,), text=True)
        finally:
            os.close(write_fd)
        self.workers.append(proc)
        self.replies.append(os.fdopen(read_fd, "r"))

    def _collect(self, what: str) -> list[dict]:
        """One reply from every worker, each within the timeout; a worker's
        error is raised once every reply is in, so the next command finds
        every pipe empty."""
        out, errors = [], []
        deadline = time.monotonic() + self.timeout_s
        for r, (proc, pipe) in enumerate(zip(self.workers, self.replies), start=1):
            while True:
                ready, _, _ = select.select([pipe], [], [], 0.2)
                if ready:
                    line = pipe.readline()
                    if not line:
                        raise GroupError(f"rank {r} exited during {what} "
                                         f"(exit code {proc.wait()})")
                    reply = json.loads(line)
                    if not reply.get("ok"):
                        errors.append(f"rank {r} {what}: {reply.get('error', '?')}")
                    out.append(reply)
                    break
                if proc.poll() is not None:
                    raise GroupError(f"rank {r} exited during {what} (exit code {proc.returncode})")
                if time.monotonic() > deadline:
                    raise GroupError(f"rank {r} did not answer {what} within {self.timeout_s:g} s")
        if errors:
            raise (GroupError if what in ("start", "init") else RankError)("; ".join(errors))
        return out

    def command(self, cmd: str, **fields) -> list[dict]:
        """Send `cmd` to every worker and wait for their replies."""
        line = json.dumps({"cmd": cmd, "issued": self.issued, **fields}) + "\n"
        for r, proc in enumerate(self.workers, start=1):
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except (BrokenPipeError, OSError):
                raise GroupError(f"rank {r} is gone (exit code {proc.poll()})") from None
        return self._collect(cmd)

    # ---- one point ----

    def prepare(self, op: str, dtype: str, nbytes: int, seed: int):
        """Buffers on every rank; the workers then spin on the counter."""
        self.issued = 0
        if self.counter:
            self.counter.write(0)
        try:
            self.command("prepare", op=op, dtype=dtype, nbytes=nbytes, seed=seed)
            self.rank.prepare(op, dtype, nbytes, seed)
        except GroupError:
            raise
        except BaseException:
            self.release()  # the ranks that did prepare free their buffers
            raise

    def run(self):
        """One collective on every rank: counted for the workers, called here."""
        self.issued += 1
        if self.counter:
            self.counter.write(self.issued)
        self.rank.run()

    def check(self) -> tuple[int, int]:
        """(wrong elements over every rank, first rank with one or -1)."""
        results = [self.rank.check()] + [(r["bad"], r["first"]) for r in self.command("check")]
        total = sum(bad for bad, _ in results)
        first_rank = next((r for r, (bad, _) in enumerate(results) if bad), -1)
        return total, first_rank

    def release(self):
        if self.rank is not None and self.rank.op is not None:
            self.rank.release()
        if self.workers:
            self.command("release")

    def close(self):
        """Stop the workers (politely, then by force) and the process group."""
        for proc in self.workers:
            try:
                proc.stdin.write(json.dumps({"cmd": "exit", "issued": self.issued}) + "\n")
                proc.stdin.close()
            except (BrokenPipeError, OSError, ValueError):
                pass
        for proc in self.workers:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for pipe in self.replies:
            pipe.close()
        self.workers, self.replies = [], []
        if self._pg:
            self._pg = False
            try:
                self.dist.destroy_process_group()
            except Exception:  # noqa: BLE001 - closing: nothing left to tell
                pass
        if self.counter:
            self.counter.close()
            try:
                os.unlink(self.counter.path)
            except OSError:
                pass
            self.counter = None


# ---------------------------------------------------------------- a worker


def serve(args_json: str):
    """The main loop of worker rank r (started by Group._spawn)."""
    import datetime

    args = json.loads(args_json)
    reply_pipe = os.fdopen(args["reply_fd"], "w")

    def reply(**fields):
        reply_pipe.write(json.dumps({"ok": True, **fields}) + "\n")
        reply_pipe.flush()

    def fail(e: BaseException):
        text = str(e).strip().splitlines()
        reply_pipe.write(json.dumps({"ok": False, "error": f"{type(e).__name__}: "
                                     f"{text[0] if text else ''}"}) + "\n")
        reply_pipe.flush()

    import torch
    import torch.distributed as dist

    reply()  # started
    where = args["device"]
    device = torch.device("cpu") if where == "cpu" else torch.device("cuda", where)
    timeout = datetime.timedelta(seconds=args["timeout_s"])
    try:
        if device.type == "cuda":
            torch.cuda.set_device(device)
        store = dist.TCPStore("127.0.0.1", args["port"], args["world"], False, timeout)
        init_group(dist, args["backend"], store, args["rank"], args["world"], timeout, device)
    except BaseException as e:  # noqa: BLE001 - told to rank 0, then exit
        fail(e)
        return
    reply()  # in the group
    rank = Rank(torch, dist, args["rank"], args["world"], device)
    counter = _Counter(args["counter"], create=False)
    done = 0

    def catch_up(target: int):
        nonlocal done
        while done < target:
            rank.run()
            done += 1

    while True:
        spins = 0
        while rank.op is not None:
            # A point is set up: issue rank 0's calls as they are counted,
            # until a command arrives on stdin (one at a time: rank 0 waits
            # for each reply, so nothing is left in stdin's buffer).
            if spins % 64 == 0 and select.select([sys.stdin], [], [], 0)[0]:
                break
            seen = counter.read()
            if seen > done and counter.read() == seen:  # two equal reads: not a torn word
                catch_up(seen)
            spins += 1
            if spins % _SPIN_YIELD == 0:
                os.sched_yield()
        line = sys.stdin.readline()
        if not line:
            break
        msg = json.loads(line)
        cmd = msg["cmd"]
        try:
            catch_up(msg["issued"])
            if cmd == "prepare":
                rank.prepare(msg["op"], msg["dtype"], msg["nbytes"], msg["seed"])
                done = 0
                reply()
            elif cmd == "check":
                bad, first = rank.check()
                reply(bad=bad, first=first)
            elif cmd == "release":
                if rank.op is not None:
                    rank.release()
                if device.type == "cuda":
                    torch.cuda.empty_cache()
                reply()
            elif cmd == "exit":
                break
            else:
                raise ValueError(f"unknown command {cmd!r}")
        except BaseException as e:  # noqa: BLE001 - told to rank 0
            fail(e)
    counter.close()
    try:
        dist.destroy_process_group()
    except Exception:  # noqa: BLE001
        pass
