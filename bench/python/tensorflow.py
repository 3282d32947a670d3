"""tensorflow: TensorFlow's tf.add on the GPU. TensorFlow launches on
streams of its own, so the benchmark uses the host timer and run() waits
with tf.test.experimental.sync_devices(). Memory growth is switched on
before TensorFlow touches the GPU, so it does not take the whole device.

  tensorflow/add   c = tf.add(a, b), float32 (a new output tensor per call:
                   TensorFlow has no out= argument)

Where it ran: not on a GPU (TensorFlow's GPU wheels are not on the machines
cubench was measured on, where it skips as not installed). On a machine
without a GPU, tests/py/test_python_roads_real.py runs this setup, run and
verify against tensorflow-cpu 2.21.0 (Python 3.11) with DEVICE_KIND =
"CPU": the same calls on TensorFlow's CPU device, the memory-growth
setting (a GPU allocator option, with no CPU counterpart) left out.
"""

import cubench as cb

from . import _common as C

DEVICE_KIND = "GPU"  # "CPU" runs the same calls on TensorFlow's CPU device (the CPU test)


def _devices(tf):
    devices = tf.config.list_physical_devices(DEVICE_KIND)
    if DEVICE_KIND == "GPU":
        for d in devices:
            try:
                tf.config.experimental.set_memory_growth(d, True)
            except RuntimeError:
                pass  # already initialised: the setting only applies before
    return devices


@cb.benchmark("tensorflow/add", axes=[C.N_AXIS], timer="host", peak="dram",
              bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires="tensorflow")
def add(p, ctx):
    """c = tf.add(a, b) on the GPU (host timer, sync_devices)"""
    import numpy as np
    import tensorflow as tf

    devices = _devices(tf)
    if ctx.device is None or ctx.device >= len(devices):
        raise C.no_device("tensorflow", f"device {ctx.device} of {len(devices)}")
    sync = getattr(getattr(tf.test, "experimental", None), "sync_devices", None)
    if sync is None:
        raise cb.Skip("this TensorFlow has no tf.test.experimental.sync_devices to wait with")
    where = f"/{DEVICE_KIND}:{ctx.device}"
    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, p["n"]).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, p["n"]).astype(np.float32)
    with tf.device(where):
        a, b = tf.constant(ha), tf.constant(hb)
    state = {}

    def run():
        with tf.device(where):
            state["c"] = tf.add(a, b)
        sync()

    def verify():
        c = state["c"]
        if not c.device.endswith(f"{DEVICE_KIND}:{ctx.device}"):
            raise cb.VerifyError(f"tf.add ran on {c.device}, not {where}")
        return cb.vecadd_check(ha, hb, c.numpy())

    return cb.Setup(run=run, verify=verify, note=f"a new output tensor per call, {where}")
