"""cubench.load: a run directory of any schema version read back by column
name, one column per axis, samples on demand (plain or .xz), pandas when
asked. Needs no library: recorded runs of tests/data and files written
here."""
import csv
import lzma
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import cubench  # noqa: E402
from cubench import results  # noqa: E402

DATA = ROOT / "tests" / "data"


def test_schema_1_run_reads_with_one_column_per_axis():
    rows = cubench.load(DATA / "h200-aa1-A")
    assert rows.schema_version == 1 and len(rows) == 140
    r = rows[0]
    assert (r["benchmark"], r["axes"]) == ("vecadd/grid_stride", "n=65536;block=256;grid=auto")
    assert (r["n"], r["block"], r["grid"]) == (65536, 256, "auto")
    assert isinstance(r["median_s"], float) and r["samples"] == 12 and r["reason"] is None
    assert "device" not in r  # schema 1 has no device column: absent, not invented
    # Every axis is a column, after `axes`, in order of first appearance.
    at = rows.columns.index("axes")
    assert rows.columns[at + 1:at + 1 + len(rows.axis_names)] == rows.axis_names
    assert rows.axis_names[:3] == ["n", "block", "grid"]
    # The samples of the row, from samples.csv, per run.
    times = rows.samples_of(r)
    assert len(times) == r["samples"]
    assert sorted(times)[len(times) // 2] == pytest.approx(r["median_s"], rel=0.02)


def test_schema_2_run_with_compressed_samples_and_a_clashing_axis():
    rows = cubench.load(DATA / "h200-ptx75-suite")
    assert rows.schema_version == 2
    assert rows.meta["device"]["name"] == "NVIDIA H200"
    r = rows.where(benchmark="vecadd/thread_per_elem", n=1024, block=32)[0]
    assert r["device"] == 0 and r["sm_clock_median_mhz"] == 1980.0 and r["throttle"] == "none"
    assert len(rows.samples_of(r)) == r["samples"]  # read from samples.csv.xz
    # transfers' `bytes` axis cannot take the work model's column.
    copy = rows.where(family="transfers")[0]
    assert "axis_bytes" in rows.axis_names and "bytes" not in rows.axis_names
    assert copy["axis_bytes"] == int(dict(p.split("=") for p in copy["axes"].split(";"))["bytes"])
    assert isinstance(copy["bytes"], float)  # the work model, untouched


V3_HEADER = ("schema_version,benchmark,family,axes,status,reason,timer,cache,batch,samples,"
             "median_s,ci_lo_s,ci_hi_s,bytes,gbps,note,device,kind,key_figure,key_rule,setup_s,"
             "verify_s,warmup_s,sampling_s,teardown_s,throttled_samples,throttle_wait_s,"
             "sol_dram_pct,sol_limiter")


def write_v3(d: Path, compress: bool):
    d.mkdir()
    rows = [V3_HEADER,
            '3,mine/eps,mine,eps=0.5;mode=fast,ok,,event,cold,1,6,1e-05,9e-06,1.1e-05,1200,'
            '120,"a note, with a comma",0,kernel,gbps,max,0.01,0.002,0.003,0.5,0.001,2,0.25,'
            '71.5,dram',
            '3,mine/eps,mine,eps=1e-3;mode=fast,skip,"needs ""more"" memory",event,cold,,0,'
            ',,,,,,0,kernel,,,0.01,,,,,0,0,,',
            '3,mine/none,mine,,ok,,host,n/a,4,6,2e-06,1e-06,3e-06,,,,,,,,,,,,,,,,']
    (d / "results.csv").write_text("\n".join(rows) + "\n")
    samples = "benchmark,axes,sample,time_s,cupti_s,batch,device,replicate\n" + "".join(
        f"mine/eps,eps=0.5;mode=fast,{i},{1e-5 + i * 1e-7},,1,0,0\n" for i in range(6))
    name = "samples.csv.xz" if compress else "samples.csv"
    data = samples.encode()
    (d / name).write_bytes(lzma.compress(data) if compress else data)


@pytest.mark.parametrize("compress", [False, True])
def test_schema_3_columns_float_axes_and_a_benchmark_without_axes(tmp_path, compress):
    write_v3(tmp_path / "run", compress)
    rows = cubench.load(tmp_path / "run")
    assert rows.schema_version == 3 and len(rows) == 3
    half, milli, bare = rows
    assert (half["eps"], half["mode"]) == (0.5, "fast") and milli["eps"] == 0.001
    assert half["kind"] == "kernel" and half["key_figure"] == "gbps" and half["key_rule"] == "max"
    assert half["throttled_samples"] == 2 and isinstance(half["throttled_samples"], int)
    assert half["sampling_s"] == 0.5 and half["sol_dram_pct"] == 71.5
    assert half["sol_limiter"] == "dram"  # a later column that holds words stays text
    assert half["note"] == "a note, with a comma"
    assert milli["reason"] == 'needs "more" memory' and milli["median_s"] is None
    assert bare["axes"] is None and "eps" not in bare  # no axes: one point, no axis columns
    assert rows.samples_of(half) == pytest.approx([1e-5 + i * 1e-7 for i in range(6)])
    assert rows.samples_of(milli) == []


def test_to_pandas_builds_one_frame_with_every_column(tmp_path, monkeypatch):
    """Against a stand-in pandas (CI has none): what DataFrame gets."""
    got = {}

    class DataFrame:
        def __init__(self):
            self.attrs = {}

        @classmethod
        def from_records(cls, records, columns):
            got.update(records=records, columns=columns)
            return cls()

    monkeypatch.setitem(sys.modules, "pandas", types.SimpleNamespace(DataFrame=DataFrame))
    write_v3(tmp_path / "run", False)
    df = cubench.load(tmp_path / "run", pandas=True)
    assert got["columns"][:6] == ["schema_version", "benchmark", "family", "axes", "eps", "mode"]
    assert [r["eps"] if "eps" in r else None for r in got["records"]] == [0.5, 0.001, None]
    assert df.attrs["axis_names"] == ["eps", "mode"] and df.attrs["dir"] == str(tmp_path / "run")


def test_to_pandas_with_real_pandas(tmp_path):
    pandas = pytest.importorskip("pandas")
    write_v3(tmp_path / "run", False)
    df = cubench.load(tmp_path / "run").to_pandas()
    assert isinstance(df, pandas.DataFrame) and len(df) == 3
    assert df.loc[0, "eps"] == 0.5 and df.loc[0, "kind"] == "kernel"
    assert pandas.isna(df.loc[1, "gbps"]) and list(df.columns[:6]) == [
        "schema_version", "benchmark", "family", "axes", "eps", "mode"]


def test_to_pandas_without_pandas_says_how(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas -> ImportError
    write_v3(tmp_path / "run", False)
    with pytest.raises(ImportError, match="needs pandas"):
        cubench.load(tmp_path / "run").to_pandas()


@pytest.mark.parametrize("make, message", [
    (lambda d: None, "no such directory"),
    (lambda d: d.mkdir(), "no results.csv"),
    (lambda d: (d.mkdir(), (d / "results.csv").write_text("")), "empty"),
    (lambda d: (d.mkdir(), (d / "results.csv").write_text("a,b\n1,2\n")), "no benchmark/axes"),
    (lambda d: (d.mkdir(), (d / "results.csv").write_text("benchmark,axes\nx/y,n=1,extra\n")),
     "line 2: 3 fields"),
    (lambda d: (d.mkdir(), (d / "results.csv").write_text("benchmark,axes\nx/y,n\n")),
     "is not name=value"),
    (lambda d: (d.mkdir(), (d / "results.csv").write_text("benchmark,axes\nx/y,n=1\n"),
                (d / "samples.csv.xz").write_bytes(b"not xz")), "not an xz file"),
])
def test_unreadable_directories_are_one_clear_error(tmp_path, make, message):
    d = tmp_path / "run"
    make(d)
    with pytest.raises(cubench.ResultsError, match=message):
        rows = cubench.load(d)
        rows.samples_of(rows[0])


def test_rows_round_trip_through_csv(tmp_path):
    """What load returns is what the file says: numbers equal their text."""
    rows = cubench.load(DATA / "h200-aa1-A")
    with open(DATA / "h200-aa1-A" / "results.csv", newline="") as f:
        raw = list(csv.DictReader(f))
    for r, t in zip(rows, raw):
        for col, text in t.items():
            value = r[col]
            if text == "":
                assert value is None
            elif isinstance(value, (int, float)):
                assert value == float(text), col
            else:
                assert value == text, col
    assert results.split_axes("a=1;b=x;c=2.5") == [("a", 1), ("b", "x"), ("c", 2.5)]
