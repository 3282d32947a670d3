"""Portability and honest CPU references, end to end: meta.json says which GPU
code the build carries (SASS list, PTX list, toolkit) and which BLAS, threads,
cores and vector ISA the CPU baselines used; the rows' notes say the same;
`cubench env` prints it; on a GPU, every benchmark it cannot run is explained."""
import csv
import json
import re
import subprocess

import pytest


def run(cubench, *args):
    return subprocess.run([cubench, *args], capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def cpu_run(cubench, tmp_path_factory):
    out = tmp_path_factory.mktemp("portable") / "run"
    # n=4096 sizes vecadd/host and makes the matmul points 64 x 4096 x 64.
    p = run(cubench, "run", "matmul/host_cblas", "matmul/host_blocked", "vecadd/host",
            "--axis", "m=64", "--axis", "n=4096", "--quick", "--quiet", "--out", str(out))
    assert p.returncode == 0, p.stderr
    meta = json.loads((out / "meta.json").read_text())
    rows = list(csv.DictReader(open(out / "results.csv")))
    return meta, rows


def test_meta_build_lists_the_gpu_code(cpu_run):
    build = cpu_run[0]["build"]
    sass, ptx = build["sass_architectures"], build["ptx_architectures"]
    assert sass or ptx, "a build carries SASS or PTX"
    assert all(re.fullmatch(r"sm_\d+[a-z]?", a) for a in sass)
    assert all(re.fullmatch(r"compute_\d+[a-z]?", a) for a in ptx)
    assert re.fullmatch(r"\d+\.\d+(\.\d+)?", build["cuda_toolkit_version"])
    if build["cuda_architectures_origin"] == "default":
        # The default promise: SASS for every sm >= 75 the toolkit lists,
        # PTX of the newest so later GPUs JIT it.
        assert sass == build["toolkit_sass_architectures"]
        assert sass[0] == "sm_75" and len(ptx) == 1
        assert int(ptx[0].split("_")[1]) >= int(sass[-1].split("_")[1])


def test_meta_cpu_baselines(cpu_run):
    meta, _ = cpu_run
    cpu = meta["cpu_baselines"]
    assert cpu["cores"] == meta["host"]["cores"] and cpu["threads"] >= 1
    assert cpu["isa"] in meta["host"]["cpu_isa"].split() or not meta["host"]["cpu_isa"]
    blas = cpu["blas"]
    if blas["loaded"]:
        assert blas["library"].startswith("/")
        if "openblas" in (blas["linked_at_build"] or "").lower():
            # Linked against OpenBLAS: the process must run on it, optimized.
            assert blas["vendor"] == "OpenBLAS" and blas["optimized"]
            assert blas["version"].startswith("OpenBLAS") and blas["threads"] >= 1


def test_notes_name_what_the_cpu_used(cpu_run):
    meta, rows = cpu_run
    cpu = meta["cpu_baselines"]
    by = {r["benchmark"]: r for r in rows}
    cores = f"of {cpu['cores']} cores, {cpu['isa']} code"
    assert cores in by["matmul/host_blocked"]["note"]
    assert cores in by["vecadd/host"]["note"]
    cblas = by["matmul/host_cblas"]
    if cblas["status"] == "skip":
        assert "without CBLAS" in cblas["reason"]
    else:
        vendor = cpu["blas"]["vendor"]
        assert ("netlib reference" if vendor == "netlib reference" else vendor) in cblas["note"]
        # host_blocked is judged against it, with the same thread budget.
        assert by["matmul/host_blocked"]["ref_benchmark"] == "matmul/host_cblas"


def test_env_prints_build_and_baselines(cubench, has_gpu):
    p = run(cubench, "env", "--no-cupti")
    assert p.returncode == (0 if has_gpu else 3)
    assert re.search(r"^build: CUDA [\d.]+; SASS (sm_\d+[a-z]? ?)+; PTX ", p.stdout, re.M), p.stdout
    assert re.search(r"^CPU baselines: \d+ cores, \w+ code", p.stdout, re.M)
    assert re.search(r"^BLAS \(matmul/host_cblas\): ", p.stdout, re.M)
    if has_gpu:
        # Per device: the build's code for it and the runnable benchmarks.
        assert re.search(r"^  code in this build: ", p.stdout, re.M)
        m = re.search(r"^  benchmarks: (\d+) of (\d+) CUDA benchmarks can run here", p.stdout, re.M)
        assert m and int(m.group(2)) > 0
        cannot = re.findall(r"^    cannot: (\S+) - (.+)$", p.stdout, re.M)
        assert len(cannot) == int(m.group(2)) - int(m.group(1))
        assert all(re.search(r"needs sm_\d+|no code for sm_|cannot JIT|the build.s code for sm_", why)
                   for _, why in cannot)
