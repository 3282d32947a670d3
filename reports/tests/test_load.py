"""Reading schema version 1: axes, numbers, quoting, peaks."""

from __future__ import annotations

import pytest

from conftest import write_synthetic_run
from reports.load import InputError, axis_number, device_peak, load_run, parse_axes


def test_parse_axes_keeps_declaration_order():
    axes = parse_axes("n=1024;block=256;grid=auto")
    assert list(axes.items()) == [("n", "1024"), ("block", "256"), ("grid", "auto")]
    assert parse_axes("") == {}
    assert parse_axes("label=a=b") == {"label": "a=b"}
    with pytest.raises(InputError):
        parse_axes("n=1;block")


def test_axis_number_tells_numbers_from_words():
    assert axis_number("1024") == 1024.0
    assert axis_number("0.5") == 0.5
    assert axis_number("auto") is None
    assert axis_number("pinned") is None
    assert axis_number("nan") is None


def test_quoted_fields_and_empty_numbers(tmp_path):
    run = load_run(write_synthetic_run(tmp_path / "r", families=("transfers", "matmul")))
    notes = [r.note for r in run.results if "blocks the host" in r.note]
    assert notes and notes[0] == ('pageable async copies are staged by the driver, '
                                  'so "async" blocks the host')
    fails = [r for r in run.results if r.status == "fail"]
    assert fails and fails[0].reason.startswith("verification failed:\nnormwise")
    assert fails[0].median_s is None and fails[0].gbps is None and not fails[0].measured
    skip = [r for r in run.results if r.status == "skip"]
    assert skip and all(r.median_s is None for r in skip)
    assert "fits.csv" in run.side_csv


@pytest.mark.parametrize("device", [
    {"peaks": {"dram_gbps": 4800, "pcie_gbps": 63, "fp32_tflops": 66.9}},
    {"peak_dram_gbps": 4800, "peak_pcie_gbps": 63, "peak_fp32_tflops": 66.9},
    # meta.c's shape, with a non-peak fp32 number beside the peak
    {"peaks": {"fp32_lanes_per_sm": 128, "dram_gbps": 4800, "dram_formula": "2 x ...",
               "pcie_gbps": 63, "fp32_tflops": 66.9}},
])
def test_device_peaks_are_found_under_several_key_shapes(device):
    meta = {"device": {"name": "x", "mem_clock_khz": 2619000, **device}}
    assert device_peak(meta, "dram") == 4800
    assert device_peak(meta, "pcie") == 63
    assert device_peak(meta, "fp32") == 66.9


def test_no_device_has_no_peaks():
    assert device_peak({"device": None}, "dram") is None
    assert device_peak({}, "fp32") is None


def test_a_bom_the_c_reader_accepts_is_accepted(tmp_path):
    """Spreadsheets write a UTF-8 byte-order mark; csv_reader.c skips it."""
    run = write_synthetic_run(tmp_path / "r", families=("vecadd",))
    plain = load_run(run)
    for name in ("results.csv", "samples.csv"):
        (run / name).write_bytes(b"\xef\xbb\xbf" + (run / name).read_bytes())
    again = load_run(run)
    assert [r.raw for r in again.results] == [r.raw for r in plain.results]
    assert again.samples == plain.samples


def test_a_nul_byte_the_c_reader_refuses_is_refused(tmp_path):
    run = write_synthetic_run(tmp_path / "r", families=("vecadd",))
    data = (run / "results.csv").read_bytes()
    at = data.index(b"thread_per_elem")
    (run / "results.csv").write_bytes(data[:at] + b"\x00" + data[at:])
    with pytest.raises(InputError, match=r"results.csv:2: NUL byte"):
        load_run(run)


def test_numbers_in_python_only_syntax_are_refused(tmp_path):
    """float() reads ' 1' and '1_0'; strtod, and so the C reader, does not."""
    run = write_synthetic_run(tmp_path / "r", families=("vecadd",))
    text = (run / "results.csv").read_text()
    (run / "results.csv").write_text(text.replace(",event,cold,1,", ",event,cold,1_0,", 1))
    with pytest.raises(InputError, match="'1_0' is not a number"):
        load_run(run)
