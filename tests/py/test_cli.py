"""The cubench CLI as a user meets it: exit codes, messages, and what a run
writes (results.csv, samples.csv, meta.json), checked against docs/schema.md."""
import csv
import json
import os
import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest
from host_runs import run_host

ROOT = Path(__file__).resolve().parents[2]


def run(cubench, *args, **kw):
    return subprocess.run([cubench, *args], capture_output=True, text=True, timeout=300, **kw)


def documented_columns(section):
    """Column names from a table in docs/schema.md (first cell, back-quoted)."""
    text = (ROOT / "docs" / "schema.md").read_text()
    body = text.split(f"## {section}")[1].split("\n## ")[0]
    cols = []
    for line in body.splitlines():
        m = re.match(r"\|\s*(`[^|]+`)\s*\|", line)
        if m:
            cols += re.findall(r"`([a-z0-9_]+)`", m.group(1))
    return cols


@pytest.mark.parametrize(
    "args, message",
    [
        ((), "usage: cubench"),
        (("frobnicate",), "unknown command 'frobnicate'"),
        (("run", "nosuch*"), "no benchmark matches 'nosuch*'"),
        (("run", "vecadd/host", "--axis", "n=abc"), "axis 'n': 'abc' is not a number"),
        (("run", "vecadd/host", "--axis", "n=64:32"), "below its start"),
        (("run", "vecadd/host", "--axis", "colour=red"), "no selected benchmark has an axis named 'colour'"),
        (("run", "vecadd/host", "--axis", "n"), "expected [GLOB:]NAME=VALUES"),
        (("run", "--cache", "warm"), "--cache: 'warm' is not cold or hot"),
        (("run", "--max-time-per-point", "-1"), "--max-time-per-point"),
        (("run", "--min-samples", "ten"), "--min-samples: 'ten' is not an integer"),
        (("run", "--max-time-per-point", "0x10"), "--max-time-per-point"),
        (("run", "--timer", "cupti", "--no-cupti"), "contradict"),
        (("run", "--bogus"), "usage: cubench run"),
        (("list", "nosuch"), "no benchmark matches"),
        (("env", "extra"), "unexpected argument"),
        (("run", "vecadd/host", "--profile"), "--profile needs exactly one point"),
        (("run", "vecadd/host", "--device", "0,0"), "listed twice"),
        (("run", "vecadd/host", "--device", "1,"), "ends with a comma"),
        (("run", "vecadd/host", "--device", "gpu0"), "is not all or a list of ordinals"),
        (("run", "vecadd/host", "--axis", "n=1:2:3:4"), "'1:2:3:4' has too many ':'"),
        (("run", "vecadd/host", "--axis", "a" * 300 + "=1"), "axis name too long"),
        (("help", "bogus"), "'bogus' is not a command"),
        (("--version", "extra"), "unexpected argument 'extra'"),
    ],
)
def test_bad_input_exits_2_with_a_message(cubench, args, message, tmp_path):
    p = run(cubench, *args, cwd=tmp_path)
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert message in p.stderr
    assert not (tmp_path / "results").exists(), "nothing is written for bad input"


def test_help_on_every_subcommand(cubench):
    for sub in ("run", "list", "env", "compare"):
        p = run(cubench, sub, "--help")
        assert p.returncode == 0, sub
        assert f"cubench {sub}" in p.stdout
    assert "exit codes" in run(cubench, "help").stdout


def test_help_of_a_command(cubench):
    p = run(cubench, "help", "run")
    assert p.returncode == 0 and "usage: cubench run" in p.stdout


@pytest.mark.skipif(not os.access("/dev/full", os.W_OK), reason="no /dev/full")
@pytest.mark.parametrize("args", [("list",), ("list", "--names"), ("help",), ("--version",),
                                  ("run", "vecadd/host", "--axis", "n=1024", "--dry-run")])
def test_output_that_cannot_be_written_fails(cubench, args):
    with open("/dev/full", "w") as full:
        p = subprocess.run([cubench, *args], stdout=full, stderr=subprocess.PIPE, text=True,
                           timeout=60)
    assert p.returncode == 1, (args, p.returncode)
    assert "error writing standard output: No space left on device" in p.stderr


def test_env_names_the_blas_it_would_use(cubench, has_gpu):
    # the BLAS matmul/host_cblas loads: env loads it the same way
    env = run(cubench, "env", "--no-cupti").stdout
    line = next(l for l in env.splitlines() if l.startswith("BLAS (matmul/host_cblas)"))
    note = read_host_cblas_note(cubench)
    if note is None:
        pytest.skip("matmul/host_cblas does not run in this build")
    vendor = note.split("cblas_sgemm of ", 1)[1].split()[0]  # OpenBLAS, Intel, BLIS, netlib
    assert vendor in line, (line, note)


def read_host_cblas_note(cubench):
    with tempfile.TemporaryDirectory() as tmp:
        p = run(cubench, "run", "matmul/host_cblas", "--axis", "m=64", "--quick", "--quiet",
                "--out", os.path.join(tmp, "r"))
        if p.returncode != 0:
            return None
        rows = read_csv(os.path.join(tmp, "r", "results.csv"))
        return rows[0]["note"] if rows and rows[0]["status"] != "skip" else None


def test_list_shows_axes_and_defaults(cubench):
    p = run(cubench, "list", "vecadd*")
    assert p.returncode == 0
    assert "vecadd/grid_stride_float4" in p.stdout
    assert re.search(r"n\s+= 2\^10:2\^28:x4", p.stdout)
    names = run(cubench, "list", "--names").stdout.split()
    assert "vecadd/host" in names and len(names) == len(set(names))


def test_dry_run_lists_the_product(cubench):
    p = run(cubench, "run", "vecadd/host", "--axis", "n=2^10:2^14:x2", "--axis", "threads=1,2",
            "--dry-run")
    assert p.returncode == 0
    lines = p.stdout.splitlines()
    assert len(lines) == 10
    assert lines[0] == "vecadd/host n=1024;threads=1"


def test_refuses_to_overwrite_a_run(cubench, tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    (out / "results.csv").write_text("precious\n")
    p = run(cubench, "run", "vecadd/host", "--quick", "--out", str(out))
    assert p.returncode == 2 and "never overwrites" in p.stderr
    assert (out / "results.csv").read_text() == "precious\n"


def test_unwritable_output_directory(cubench, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    p = run(cubench, "run", "vecadd/host", "--quick", "--out", str(blocker / "sub"))
    assert p.returncode == 2 and "cannot create directory" in p.stderr


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_host_run_end_to_end(cubench, tmp_path):
    out = tmp_path / "run"
    p = run(cubench, "run", "vecadd/host", "--axis", "n=2^10:2^18:x4", "--axis", "threads=1,2",
            "--max-time-per-point", "0.2", "--out", str(out))
    assert p.returncode == 0, p.stderr
    with open(out / "results.csv", newline="") as f:
        header = next(csv.reader(f))
    assert header == documented_columns("results.csv"), "results.csv columns match docs/schema.md"
    with open(out / "samples.csv", newline="") as f:
        assert next(csv.reader(f)) == documented_columns("samples.csv")
    rows = read_csv(out / "results.csv")
    assert len(rows) == 10
    samples = read_csv(out / "samples.csv")
    for r in rows:
        assert r["schema_version"] == "3" and r["family"] == "vecadd"
        # auto rounds: points under 65 us per run get 3 rounds, the rest 1;
        # the first round's median decides, so near 65 us the pooled median
        # of the row may lie on the other side
        med = float(r["median_s"])
        rounds = {"3"} if med < 45e-6 else {"1"} if med > 95e-6 else {"1", "3"}
        assert r["device"] == "" and r["replicates"] in rounds, (r["axes"], med, r["replicates"])
        assert r["throttle"] == ""
        assert r["status"] in ("ok", "noisy"), r
        n = int(re.search(r"n=(\d+)", r["axes"]).group(1))
        assert float(r["bytes"]) == 12 * n
        med = float(r["median_s"])
        assert float(r["min_s"]) <= float(r["q1_s"]) <= med <= float(r["q3_s"]) <= float(r["max_s"])
        assert float(r["ci_lo_s"]) <= med <= float(r["ci_hi_s"])
        assert float(r["gbps"]) == pytest.approx(12 * n / med / 1e9, rel=1e-6)
        assert r["verify_error"] == "0" and r["timer"] == "host" and r["cache"] == "n/a"
        mine = [s for s in samples if s["benchmark"] == r["benchmark"] and s["axes"] == r["axes"]]
        assert len(mine) == int(r["samples"]) >= 10
        times = sorted(float(s["time_s"]) for s in mine)
        assert times[0] == pytest.approx(float(r["min_s"]), rel=1e-6)
        if r["status"] == "ok" and r["replicates"] == "1":
            # the run's +-0.5 %, or the coarser precision a point on several
            # CPU threads declares (its note names it)
            declared = re.search(r"CI target \+-([\d.]+)%", r["note"])
            target = float(declared.group(1)) / 100 if declared else 0.005
            assert float(r["ci_rel_half"]) <= target, (r["axes"], r["ci_rel_half"], r["note"])
        if r["status"] == "ok":
            # every round met the rule on its own (>= 10 samples); the pooled
            # CI of several rounds also holds the spread between them
            rounds = {s["replicate"] for s in mine}
            assert len(rounds) == int(r["replicates"])
            for k in rounds:
                assert sum(s["replicate"] == k for s in mine) >= 10
    meta = json.loads((out / "meta.json").read_text())
    assert meta["schema_version"] == 3 and meta["complete"] is True
    assert meta["cuda"]["runtime_version"], "the runtime linked in is known without a GPU"
    assert meta["write_failed"] is False and meta["settings"]["replicates"] == 0  # auto
    assert meta["command_line"][1:3] == ["run", "vecadd/host"]
    assert meta["totals"]["ok"] + meta["totals"]["noisy"] == 10
    assert meta["host"]["cores"] >= 1 and meta["settings"]["min_samples"] == 10
    # hopeless rounds stop from half their budget on (docs/methodology.md)
    assert meta["settings"]["futile_share"] == 0.5 and meta["settings"]["futile_factor"] == 3
    assert not (out / ".meta.json.tmp").exists()
    # The account at the end: the run's wall time split into start-up, the
    # points' phases (the table's total), between them and the end.
    m = re.search(r"run ([\d.]+) s: start-up ([\d.]+) s, the points' phases ([\d.]+) s, "
                  r"between them ([\d.]+) s \(.*?\), end ([\d.]+) s", p.stderr)
    assert m, p.stderr
    wall, start, phases, between, end = map(float, m.groups())
    table_total = float(re.search(r"\n  all +\d+ +\d+(?: +[\d.]+){5} +([\d.]+)", p.stderr).group(1))
    assert phases == pytest.approx(table_total, abs=0.051)
    assert wall == pytest.approx(start + phases + between + end, abs=0.21)
    assert phases > 0 and phases >= 0.5 * wall  # host points: the phases are the run


def test_full_budget_is_recorded(cubench, tmp_path):
    out = tmp_path / "full"
    rows = run_host(cubench, out, "2^10", "--quick", "--full-budget")
    assert len(rows) == 1
    meta = json.loads((out / "meta.json").read_text())
    assert meta["settings"]["futile_share"] == 0, "--full-budget: no round stops early"
    assert "--full-budget" in meta["command_line"]


def test_default_suite_without_gpu_runs_the_cpu_baseline(cubench, has_gpu, tmp_path):
    if has_gpu:
        pytest.skip("this machine has a GPU: the default suite would run it all")
    p = run(cubench, "run", "--quick", "--out", str(tmp_path / "r"))
    assert p.returncode == 0, p.stderr
    assert "no CUDA device" in p.stderr and "CPU baseline" in p.stderr
    rows = read_csv(tmp_path / "r" / "results.csv")
    assert rows and all(r["timer"] == "host" for r in rows)
    meta = json.loads((tmp_path / "r" / "meta.json").read_text())
    assert meta["device"] is None and meta["no_device_reason"]


def test_gpu_glob_without_gpu_is_a_skip_row(cubench, has_gpu, tmp_path):
    if has_gpu:
        pytest.skip("this machine has a GPU")
    p = run(cubench, "run", "vecadd/grid_stride", "--out", str(tmp_path / "r"))
    assert p.returncode == 0
    rows = read_csv(tmp_path / "r" / "results.csv")
    assert [r["status"] for r in rows] == ["skip"]
    assert any(w in rows[0]["reason"] for w in ("no usable CUDA device", "no devices", "no NVIDIA driver"))


def test_env_without_gpu_says_so(cubench, has_gpu):
    p = run(cubench, "env", "--no-cupti")
    if has_gpu:
        assert p.returncode == 0 and "compute capability" in p.stdout
    else:
        assert p.returncode == 3 and "devices: none" in p.stdout


def interrupt_host_run(cubench, out, sizes: str, max_time: str, lines: int, sigints: int = 1):
    """Run vecadd/host over `sizes` (one round of 10,000-sample points) into
    `out`, and send SIGINT `sigints` times at once when results.csv holds
    `lines` lines (or after 60 s). Returns (exit code, stderr)."""
    proc = subprocess.Popen(
        [cubench, "run", "vecadd/host", "--axis", f"n={sizes}", "--axis", "threads=1",
         "--min-samples", "10000", "--max-time-per-point", max_time, "--replicates", "1",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results = out / "results.csv"
    deadline = time.time() + 60
    while time.time() < deadline:
        if results.exists() and len(results.read_text().splitlines()) >= lines:
            break
        time.sleep(0.02)
    for _ in range(sigints):
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err


def test_ctrl_c_keeps_every_finished_point(cubench, tmp_path):
    out = tmp_path / "run"
    rc, err = interrupt_host_run(cubench, out, "2^10:2^12:x2,2^20", "0.1", lines=3)
    assert rc == 130, err
    rows = read_csv(out / "results.csv")
    assert 2 <= len(rows) < 4
    assert all(r["status"] in ("ok", "noisy") and r["median_s"] for r in rows)
    names = {(r["benchmark"], r["axes"]) for r in rows}
    sampled = {(s["benchmark"], s["axes"]) for s in read_csv(out / "samples.csv")}
    assert sampled == names, "no samples of the abandoned point"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["interrupted"] is True and meta["complete"] is False
    assert "interrupted" in err


def test_a_point_done_in_an_early_pass_is_on_disk_at_once(cubench, tmp_path):
    """Auto rounds: the short point (n = 2^10, 3 rounds) finishes in the third
    pass, the long one (n = 2^24, 1 round) in the first. The long point's row
    and samples go to disk when its round ends, not held back for the plan's
    order (samples.csv, append-only, shows the order of the writes), and
    results.csv ends in plan order."""
    out = tmp_path / "run"
    rows = run_host(cubench, out, "2^10,2^24", "--max-time-per-point", "0.5")
    assert [r["axes"] for r in rows] == ["n=1024;threads=1", "n=16777216;threads=1"]
    assert [r["replicates"] for r in rows] == ["3", "1"]
    written = []
    for s in read_csv(out / "samples.csv"):
        if not written or written[-1] != s["axes"]:
            written.append(s["axes"])
    assert written == ["n=16777216;threads=1", "n=1024;threads=1"], written


def test_a_doubled_sigint_is_one_request(cubench, tmp_path):
    """`timeout` and job schedulers signal the process and then its process
    group: two SIGINTs at once are one request to stop, which ends the run
    cleanly (exit 130, meta.json finalised, the finished rows kept), not the
    second signal's immediate exit."""
    out = tmp_path / "run"
    rc, err = interrupt_host_run(cubench, out, "2^10:2^20:x2", "0.2", lines=2, sigints=2)
    assert rc == 130, err
    rows = read_csv(out / "results.csv")
    assert 1 <= len(rows) < 11
    assert all(r["status"] in ("ok", "noisy") for r in rows)
    meta = json.loads((out / "meta.json").read_text())
    assert meta["interrupted"] is True and meta["complete"] is False


def test_ctrl_c_keeps_the_finished_rounds(cubench, tmp_path):
    """An interrupt (Ctrl-C, a job's time limit) in round 2 of a 3-round run
    keeps every point with the round it finished; the round in flight is
    dropped. Rounds last up to 0.5 s each (a third of the budget; samples of
    20-100 us rarely reach +-0.1% sooner): round 1 ends near 1.5 s, round 2
    near 3 s, the interrupt comes at 2.25 s. A round that converges early
    moves its point ahead, so the test asks for what holds either way."""
    out = tmp_path / "run"
    proc = subprocess.Popen(
        [cubench, "run", "vecadd/host", "--axis", "n=2^16,2^17,2^18", "--axis", "threads=1",
         "--target-ci", "0.001", "--max-time-per-point", "1.5", "--replicates", "3",
         "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.25)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    rows = read_csv(out / "results.csv")
    assert len(rows) == 3, "every point keeps its finished round"
    samples = read_csv(out / "samples.csv")
    assert any(int(r["replicates"]) < 3 for r in rows), "the interrupt came after the run"
    for r in rows:
        kept = int(r["replicates"])
        assert 1 <= kept <= 3
        assert kept == 3 or f"interrupted: {kept} of 3 rounds kept" in r["note"]
        mine = [s for s in samples if s["axes"] == r["axes"]]
        assert len(mine) == int(r["samples"]) > 0
        assert {int(s["replicate"]) for s in mine} == set(range(kept))
    meta = json.loads((out / "meta.json").read_text())
    assert meta["interrupted"] is True and meta["complete"] is False


@pytest.mark.skipif(os.environ.get("CUBENCH_GPU_E2E") != "1", reason="set CUBENCH_GPU_E2E=1 on a GPU machine")
def test_gpu_vecadd_quick_run(cubench, tmp_path):
    p = run(cubench, "run", "vecadd*", "--quick", "--axis", "n=2^10,2^20", "--out", str(tmp_path / "g"))
    assert p.returncode == 0, p.stderr
    rows = read_csv(tmp_path / "g" / "results.csv")
    gpu = [r for r in rows if r["timer"] == "event"]
    assert gpu and all(r["status"] in ("ok", "noisy", "skip") for r in gpu)
    assert all(0 < float(r["occupancy"]) <= 1 for r in gpu if r["status"] != "skip")


def test_quiet_prints_no_progress(cubench, tmp_path):
    args = ("run", "vecadd/host", "--axis", "n=2^10,2^12", "--axis", "threads=1", "--quick")
    loud = run(cubench, *args, "--out", str(tmp_path / "loud"))
    quiet = run(cubench, *args, "--quiet", "--out", str(tmp_path / "quiet"))
    assert loud.returncode == 0 and quiet.returncode == 0, quiet.stderr
    assert "vecadd/host n=1024" in loud.stderr, "the progress line names each point"
    assert "vecadd/host n=1024" not in quiet.stderr
    assert len(read_csv(tmp_path / "quiet" / "results.csv")) == 2


def test_replicates_interleave_rounds(cubench, tmp_path):
    out = tmp_path / "rep"
    rows = run_host(cubench, out, "2^10,2^14", "--replicates", "3", "--max-time-per-point", "0.3",
                    "--quiet")
    assert [r["axes"] for r in rows] == ["n=1024;threads=1", "n=16384;threads=1"], "plan order"
    samples = read_csv(out / "samples.csv")
    for r in rows:
        assert r["replicates"] == "3"
        mine = [s for s in samples if s["axes"] == r["axes"]]
        assert len(mine) == int(r["samples"])
        rounds = [int(s["replicate"]) for s in mine]
        assert sorted(set(rounds)) == [0, 1, 2], "every round contributed samples"
        assert rounds == sorted(rounds), "samples are written round by round"
    meta = json.loads((out / "meta.json").read_text())
    assert meta["settings"]["replicates"] == 3
    bad = run(cubench, "run", "vecadd/host", "--replicates", "0", cwd=tmp_path)
    assert bad.returncode == 2 and "--replicates" in bad.stderr


def test_meta_json_is_utf8_whatever_the_command_line(cubench, tmp_path):
    out = tmp_path / "latin1"
    # A Latin-1 byte in an argument (a glob that also matches): meta.json
    # stays valid UTF-8 JSON with U+FFFD in its place.
    p = subprocess.run([cubench.encode(), b"run", b"vecadd/host", b"--axis", b"n=1024",
                        b"--axis", b"threads=1", b"--quick", b"--quiet", b"--out", str(out).encode(),
                        b"vecadd/ho[s\xe9]t"], capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr
    raw = (out / "meta.json").read_bytes()
    raw.decode("utf-8")  # raises if not UTF-8
    meta = json.loads(raw)
    assert "\ufffd" in meta["command_line"][-1]



def test_device_selection_without_a_gpu(cubench, tmp_path):
    """--device all works anywhere (the host points run once); an ordinal the
    machine lacks is refused before anything runs. Only meaningful where the
    machine has no GPU (CI), so it says so elsewhere."""
    env_rc = run(cubench, "env").returncode
    if env_rc != 3:
        pytest.skip("this machine has a GPU: the GPU tests cover --device there")
    p = run(cubench, "run", "vecadd/host", "--axis", "n=1024", "--axis", "threads=1", "--quick",
            "--quiet", "--device", "all", "--out", str(tmp_path / "all"))
    assert p.returncode == 0, p.stderr
    assert "no CUDA device" not in p.stderr, "a host-only selection needs no GPU warning"
    assert len(read_csv(tmp_path / "all" / "results.csv")) == 1
    meta = json.loads((tmp_path / "all" / "meta.json").read_text())
    assert meta["device"] is None and meta["devices"] == []
    bad = run(cubench, "run", "vecadd/host", "--device", "99", cwd=tmp_path)
    assert bad.returncode == 2 and "--device 99" in bad.stderr
    assert not (tmp_path / "results").exists()
    dry = run(cubench, "run", "p2p", "--dry-run", "--device", "all")
    assert dry.returncode == 0
