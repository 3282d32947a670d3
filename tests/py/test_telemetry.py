"""NVML telemetry end to end: the real cubench binary with the fake NVML
(tests/fake_nvml, built by ctest and named in CUBENCH_FAKE_NVML_LIB), and
with no NVML at all. Host points carry no telemetry (empty columns); meta.json
lists what NVML sees and says why nothing was sampled. On a GPU machine
(CUBENCH_GPU_E2E=1) the last test checks that a CUDA point gets its columns
from the real NVML."""
import csv
import json
import os
import subprocess

import pytest

TELEMETRY_COLUMNS = ["sm_clock_min_mhz", "sm_clock_median_mhz", "sm_clock_max_mhz",
                     "mem_clock_median_mhz", "power_mean_w", "temp_max_c", "throttle"]
FAKE_UUID = "GPU-00000000-fake-0000-0000-000000000000"


@pytest.fixture(scope="module")
def fake_nvml():
    path = os.environ.get("CUBENCH_FAKE_NVML_LIB")
    if not path or not os.path.exists(path):
        pytest.skip("CUBENCH_FAKE_NVML_LIB is not set (run through ctest)")
    return path


def run(cubench, *args, library=None, script=None, cwd=None):
    env = dict(os.environ)
    env.pop("CUBENCH_FAKE_NVML", None)
    if library is not None:
        env["CUBENCH_NVML_LIBRARY"] = library
    if script is not None:
        env["CUBENCH_FAKE_NVML"] = script
    return subprocess.run([cubench, *args], capture_output=True, text=True, timeout=300, env=env,
                          cwd=cwd)


def host_run(cubench, out, *extra, **kw):
    p = run(cubench, "run", "vecadd/host", "--axis", "n=2^10,2^12", "--axis", "threads=1",
            "--quick", "--out", str(out), *extra, **kw)
    assert p.returncode == 0, p.stderr
    meta = json.loads((out / "meta.json").read_text())
    with open(out / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    with open(out / "samples.csv", newline="") as f:
        samples = list(csv.DictReader(f))
    return meta["telemetry"], rows, samples


def test_env_shows_what_nvml_sees(cubench, fake_nvml):
    p = run(cubench, "env", "--no-cupti", library=fake_nvml,
            script="names=Fake H200;power_limit=650000;fail=nvmlDeviceGetMigMode:3")
    assert p.returncode in (0, 3), p.stderr
    assert "telemetry: NVML 13.580.00.fake, driver 580.00.fake" in p.stdout
    assert f"nvml device 0: Fake H200 {FAKE_UUID}" in p.stdout
    assert "power limit 650 W (default 700 W), power reading instant" in p.stdout
    assert "mig_mode_current: Not Supported (3)" in p.stdout


def test_env_without_nvml(cubench, fake_nvml):
    p = run(cubench, "env", "--no-cupti", library=fake_nvml, script="init=fail:9")
    assert "telemetry: unavailable - nvmlInit_v2 failed: Driver Not Loaded (9)" in p.stdout
    p = run(cubench, "env", "--no-cupti", library="/nonexistent/libnvidia-ml.so.1")
    assert p.returncode in (0, 3)
    assert "telemetry: unavailable - cannot load NVML" in p.stdout


def test_host_points_carry_no_telemetry_but_meta_lists_nvml(cubench, fake_nvml, tmp_path):
    tele, rows, samples = host_run(
        cubench, tmp_path / "r", "--telemetry-period", "5", library=fake_nvml,
        script="devices=GPU-aaaa,GPU-bbbb;fail=nvmlDeviceGetEccMode:3")
    assert tele["source"] == "nvml" and tele["period_ms"] == 5
    # Without a CUDA device nothing is sampled; with one, the fake's UUIDs
    # cannot match it. Either way meta.json says why.
    assert (tele["unavailable_reason"].startswith("no CUDA device")
            or "no device with the CUDA device's UUID" in tele["unavailable_reason"])
    assert tele["sampled_device_uuids"] == [] and tele["sampling"] is None
    assert [d["uuid"] for d in tele["devices"]] == ["GPU-aaaa", "GPU-bbbb"]
    d = tele["devices"][0]
    assert d["ecc_current"] is None and d["errors"]["ecc_current"] == "Not Supported (3)"
    assert d["power_limit_enforced_w"] == 700 and d["power_source"] == "instant"
    assert d["pcie"] == {"generation": 5, "width": 16, "max_generation": 5, "max_width": 16}
    assert tele["driver_version"] == "580.00.fake"
    assert "sw_power_cap" in tele["throttle_counted"] and "gpu_idle" not in tele["throttle_counted"]
    assert rows and all(r[c] == "" for r in rows for c in TELEMETRY_COLUMNS)
    assert samples and all(s["sm_clock_mhz"] == "" and s["throttle"] == "" for s in samples)


def test_without_nvml_nothing_fails(cubench, tmp_path):
    tele, rows, _ = host_run(cubench, tmp_path / "r", library="/nonexistent/libnvidia-ml.so.1")
    assert tele["source"] is None and tele["devices"] == []
    assert tele["unavailable_reason"].startswith("cannot load NVML")
    assert all(r["throttle"] == "" for r in rows)


def test_no_telemetry_does_not_load_nvml(cubench, fake_nvml, tmp_path):
    tele, _, _ = host_run(cubench, tmp_path / "r", "--no-telemetry", library=fake_nvml)
    assert tele["source"] is None and tele["library"] is None
    assert tele["unavailable_reason"] == "off (--no-telemetry)"


@pytest.mark.parametrize("value", ["0", "0.5", "abc", "20000"])
def test_bad_telemetry_period(cubench, value, tmp_path):
    p = run(cubench, "run", "vecadd/host", "--telemetry-period", value, cwd=tmp_path)
    assert p.returncode == 2 and "--telemetry-period" in p.stderr
    assert not (tmp_path / "results").exists()


def test_help_names_the_options(cubench):
    p = run(cubench, "run", "--help")
    assert "--telemetry-period MS" in p.stdout and "--no-telemetry" in p.stdout


@pytest.mark.skipif(os.environ.get("CUBENCH_GPU_E2E") != "1", reason="set CUBENCH_GPU_E2E=1 on a GPU machine")
def test_gpu_points_get_telemetry_from_nvml(cubench, tmp_path):
    out = tmp_path / "g"
    p = run(cubench, "run", "vecadd/grid_stride", "--axis", "n=2^24", "--axis", "block=256",
            "--axis", "grid=auto", "--max-time-per-point", "0.5", "--out", str(out))
    assert p.returncode == 0, p.stderr
    meta = json.loads((out / "meta.json").read_text())
    tele = meta["telemetry"]
    assert tele["source"] == "nvml" and tele["unavailable_reason"] is None, tele
    assert [u.lower() for u in tele["sampled_device_uuids"]] == [meta["device"]["uuid"].lower()]
    assert tele["sampling"]["readings"] >= 1
    with open(out / "results.csv", newline="") as f:
        (row,) = list(csv.DictReader(f))
    assert float(row["sm_clock_min_mhz"]) > 0 and float(row["mem_clock_median_mhz"]) > 0
    assert row["throttle"] != ""
    with open(out / "samples.csv", newline="") as f:
        samples = list(csv.DictReader(f))
    assert all(float(s["sm_clock_mhz"]) > 0 and s["throttle"] for s in samples)
