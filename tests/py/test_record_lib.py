"""scripts/record/lib.sh's group_timeout: the recording scripts run
compute-sanitizer and ncu under it, and both run the program they watch as
a child, which may take TERM as "stop after this sample" (cubench does; a
sample under racecheck can last minutes). A step that runs out of time must
leave nothing of its process group behind (a checker's target still on the
GPU would share it with the next step's timed runs), whatever ignores TERM
is killed, and a step that ends in time keeps its status."""
import os
import subprocess
import time
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LIB = ROOT / "scripts" / "record" / "lib.sh"


def group_timeout(secs, script):
    """Run `group_timeout SECS bash -c SCRIPT` from lib.sh; (status, seconds)."""
    t0 = time.monotonic()
    done = subprocess.run(
        ["bash", "-c", f'. "{LIB}"; group_timeout {secs} bash -c "$1"', "gt", script],
        capture_output=True, text=True, timeout=60, cwd=ROOT)
    return done.returncode, time.monotonic() - t0


def left(marker):
    """Processes whose command line holds `marker` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue  # gone meanwhile
        if marker in cmdline:
            found.append(entry.name)
    return found


@pytest.fixture
def marker():
    """A sleep length no other process uses, to find our sleeps by."""
    return f"3{uuid.uuid4().int % 10**6:06d}.5"


# (limit s, the step's script with SLEEP for the marked sleep, its status, most seconds)
CASES = {
    # a "checker" that starts its "target" as a child and waits for it
    "out of time: the whole group stopped": (1, "SLEEP & wait", 124, 10),
    # TERM ignored by both: KILL 5 s later
    "TERM ignored: killed": (1, 'trap "" TERM; (trap "" TERM; SLEEP) & wait', 124, 12),
    # the step ends in time and leaves a child behind
    "in time: its status kept, what outlives it stopped": (20, "(SLEEP &); exit 3", 3, 10),
}


@pytest.mark.parametrize("case", CASES)
def test_nothing_of_the_group_is_left(case, marker):
    secs, script, want_rc, most_s = CASES[case]
    rc, took = group_timeout(secs, script.replace("SLEEP", f"sleep {marker}"))
    assert rc == want_rc
    assert took < most_s
    time.sleep(0.3)
    assert left(f"sleep {marker}") == []


def test_success_is_zero():
    rc, _ = group_timeout(20, "true")
    assert rc == 0
