"""tensorflow: TensorFlow's tf.add on the GPU. TensorFlow launches on
streams of its own, so the benchmark uses the host timer and run() waits
with tf.test.experimental.sync_devices(). Memory growth is switched on
before TensorFlow touches the GPU, so it does not take the whole device.
Not installed on the machines cubench was measured on: it skips there.

  tensorflow/add   c = tf.add(a, b), float32 (a new output tensor per call:
                   TensorFlow has no out= argument)
"""

import cubench as cb

from . import _common as C


@cb.benchmark("tensorflow/add", axes=[C.N_AXIS], timer="host", peak="dram",
              bytes=C.vecadd_bytes, flops=C.vecadd_flops, requires="tensorflow")
def add(p, ctx):
    """c = tf.add(a, b) on the GPU (host timer, sync_devices)"""
    import numpy as np
    import tensorflow as tf

    gpus = tf.config.list_physical_devices("GPU")
    if ctx.device is None or ctx.device >= len(gpus):
        raise C.no_device("tensorflow", f"device {ctx.device} of {len(gpus)}")
    for g in gpus:
        try:
            tf.config.experimental.set_memory_growth(g, True)
        except RuntimeError:
            pass  # already initialised: the setting only applies before
    sync = getattr(getattr(tf.test, "experimental", None), "sync_devices", None)
    if sync is None:
        raise cb.Skip("this TensorFlow has no tf.test.experimental.sync_devices to wait with")
    seed_a, seed_b = C.seeds(ctx)
    ha = np.random.default_rng(seed_a).uniform(-1, 1, p["n"]).astype(np.float32)
    hb = np.random.default_rng(seed_b).uniform(-1, 1, p["n"]).astype(np.float32)
    with tf.device(f"/GPU:{ctx.device}"):
        a, b = tf.constant(ha), tf.constant(hb)
    state = {}

    def run():
        with tf.device(f"/GPU:{ctx.device}"):
            state["c"] = tf.add(a, b)
        sync()

    return cb.Setup(run=run, verify=lambda: cb.vecadd_check(ha, hb, state["c"].numpy()),
                    note="a new output tensor per call")
