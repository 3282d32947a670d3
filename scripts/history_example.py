"""history_example.py OUT_DIR [--screenshots] - the example history of
docs/history.md, built from the H200 runs recorded in tests/data:

  2026-11-29  h200-vecadd-defaults, -run2, h200-aa1-A/B, h200-aa2-A/B,
              h200-aa3-A/B (three machines, three GPUs)
  2026-12-01  h200-defaults-r2, the ten processes of h200-aa-r2 (one GPU, one
              build), h200-ptx75-suite (another GPU, the PTX-only build)

20 runs of one machine name (`vm/NVIDIA H200`: each of these machines is
host `vm`), so every new GPU behind it is a change of conditions. Writes
OUT_DIR/history.db (`cubench history add` of each run, samples.csv.xz
decompressed first), check.md (`cubench history check`), site/ (the
dashboard); --screenshots also writes docs/img/history-dashboard.png and
docs/img/history-point.png (headless Chromium, scripts/setup_browser.sh).
Needs the cubench binary (CUBENCH_BIN, or build/ or build-ci/ here).
"""

from __future__ import annotations

import argparse
import io
import lzma
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from reports.fleet import find_cubench  # noqa: E402
from reports.load import InputError  # noqa: E402

DATA = REPO / "tests" / "data"
RUNS = (["h200-vecadd-defaults", "h200-vecadd-defaults-run2"]
        + [f"h200-aa{i}-{s}" for i in (1, 2, 3) for s in "AB"]
        + ["h200-defaults-r2"]
        + [f"h200-aa-r2/{s}{i}" for i in range(1, 6) for s in "AB"]
        + ["h200-ptx75-suite"])
POINT = ("vecadd/float4_per_thread", "n=16777216;block=256")  # the two-mode point


def copy_run(src: Path, dst: Path) -> Path:
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("meta.json", "results.csv", "samples.csv"):
        packed = src / (name + ".xz")
        if (src / name).exists():
            shutil.copyfile(src / name, dst / name)
        elif packed.exists():  # recorded CSVs are kept as .xz
            (dst / name).write_bytes(lzma.decompress(packed.read_bytes()))
    return dst


def build(out: Path, cubench: str) -> None:
    if out.exists():
        shutil.rmtree(out)
    runs = [copy_run(DATA / r, out / "runs" / r.replace("/", "-")) for r in RUNS]
    db = out / "history.db"
    subprocess.run([cubench, "history", "add", "--db", str(db), *map(str, runs)], check=True,
                   stdout=subprocess.DEVNULL)
    check = subprocess.run([cubench, "history", "check", "--db", str(db), "--markdown",
                            str(out / "check.md")], stderr=subprocess.PIPE, text=True)
    print(check.stderr.strip(), file=sys.stderr)
    subprocess.run([sys.executable, "-m", "reports", "--history", str(db), "-o",
                    str(out / "site"), "--cubench", cubench], check=True, cwd=REPO)


def screenshots(site: Path) -> None:
    from PIL import Image

    from reports.browser import Chromium, ReportServer
    from reports.history import slug

    page = next(p for p in (site / "points").iterdir() if p.name.startswith(
        slug({"machine": "vm/NVIDIA H200", "benchmark": POINT[0], "axes": POINT[1]})))
    shots = {"history-dashboard.png": ("index.html", 1300, 1900),
             "history-point.png": (f"points/{page.name}", 1300, 1150)}
    with ReportServer(site) as server:
        for name, (path, width, height) in shots.items():
            with Chromium(width=width, height=height, timeout=180) as browser:
                shot = browser.check(f"{server.base}{path}")
            if shot.console or shot.failed:
                raise SystemExit(f"{path}: {shot.console} {shot.failed}")
            image = Image.open(io.BytesIO(shot.screenshot)).convert("RGB")
            image.save(REPO / "docs" / "img" / name, optimize=True)
            print(f"wrote docs/img/{name}", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--screenshots", action="store_true")
    args = parser.parse_args()
    try:
        cubench = find_cubench(None)
    except InputError as exc:
        print(f"history_example: {exc}", file=sys.stderr)
        return 2
    build(args.out, cubench)
    if args.screenshots:
        screenshots(args.out / "site")
    return 0


if __name__ == "__main__":
    sys.exit(main())
