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


def test_out_of_time_stops_the_whole_group(marker):
    # a "checker" that starts its "target" as a child and waits for it
    rc, took = group_timeout(1, f"sleep {marker} & wait")
    assert rc == 124
    assert took < 10
    time.sleep(0.3)
    assert left(f"sleep {marker}") == []


def test_a_child_that_ignores_term_is_killed(marker):
    rc, took = group_timeout(1, f'trap "" TERM; (trap "" TERM; sleep {marker}) & wait')
    assert rc == 124
    assert took < 12
    time.sleep(0.3)
    assert left(f"sleep {marker}") == []


def test_in_time_keeps_the_status_and_stops_what_outlives_it(marker):
    rc, took = group_timeout(20, f"(sleep {marker} &); exit 3")
    assert rc == 3
    assert took < 10
    time.sleep(0.3)
    assert left(f"sleep {marker}") == []


def test_success_is_zero():
    rc, _ = group_timeout(20, "true")
    assert rc == 0
