"""`cubench history` end to end on SQLite files (the store's cases run on
both SQLite and PostgreSQL in tests/cpu/test_history_*.c): exit codes, the
messages of bad input, and that a refused command leaves the database as it
was. About 5 s."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from history_runs import series_with_step, write_run


def hist(cubench, *args, env=None):
    return subprocess.run([cubench, "history", *map(str, args)], capture_output=True,
                          text=True, env=env)


def counts(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as con:
        return (con.execute("SELECT count(*) FROM cubench_run").fetchone()[0],
                con.execute("SELECT count(*) FROM cubench_result").fetchone()[0])


@pytest.fixture
def stepped(tmp_path, cubench):
    """14 runs, +10% from run 10 on, in a new database."""
    db = tmp_path / "h.db"
    runs = series_with_step(tmp_path / "runs", "main")
    proc = hist(cubench, "add", "--db", db, *runs)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("added") == 14
    return db, runs


def test_check_finds_the_regression(cubench, stepped, tmp_path):
    db, _ = stepped
    proc = hist(cubench, "check", "--db", db)
    assert proc.returncode == 1, proc.stderr
    assert "**4 regressions**" in proc.stdout and "## Regressions" in proc.stdout
    assert "main-09..main-10" in proc.stdout  # last good .. first bad commit
    assert "exit 1" in proc.stderr
    # larger than delta: a 10% step is no regression at delta 50%
    assert hist(cubench, "check", "--db", db, "--delta", "0.5").returncode == 0
    # an open step not among the newest 2 runs: no regression
    assert hist(cubench, "check", "--db", db, "--recent", "2").returncode == 0
    # the JSON export carries the same change points
    out = tmp_path / "export.json"
    assert hist(cubench, "export", "--db", db, "-o", out).returncode == 0
    doc = json.loads(out.read_text())
    assert doc["format"] == "cubench-history" and len(doc["runs"]) == 14
    regressions = [c for c in doc["changes"] if c["regression"]]
    assert len(regressions) == 4 and all(1.08 < c["ratio"] < 1.12 for c in regressions)


def test_show(cubench, stepped):
    db, _ = stepped
    proc = hist(cubench, "show", "--db", db, "vecadd/float4*", "--axis", "n=1024")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("## vecadd/float4_per_thread [n=1024;block=256]") == 1
    assert proc.stdout.count("| main-") == 14 and "+10.00%" in proc.stdout
    proc = hist(cubench, "show", "--db", db, "matmul/*")
    assert proc.returncode == 2 and "no stored point matches" in proc.stderr


def test_add_is_idempotent_and_all_or_nothing(cubench, stepped, tmp_path):
    db, runs = stepped
    before = counts(db)
    proc = hist(cubench, "add", "--db", db, runs[0])
    assert proc.returncode == 0 and proc.stdout.startswith("already stored")
    assert counts(db) == before
    # a new run and a truncated one: nothing stored, the file named
    new = write_run(tmp_path / "new", 500, "new-00")
    bad = write_run(tmp_path / "bad", 501, "bad-00")
    text = (bad / "results.csv").read_text()
    (bad / "results.csv").write_text(text[: len(text) // 2])
    proc = hist(cubench, "add", "--db", db, new, bad)
    assert proc.returncode == 2
    assert "bad/results.csv" in proc.stderr and "nothing stored" in proc.stderr
    assert counts(db) == before
    # a run directory without meta.json has no identity
    (new / "meta.json").unlink()
    proc = hist(cubench, "add", "--db", db, new)
    assert proc.returncode == 2 and "identity" in proc.stderr and counts(db) == before


def test_locked_database(cubench, stepped, tmp_path):
    db, _ = stepped
    before = counts(db)
    run = write_run(tmp_path / "late", 600, "late-00")
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        proc = hist(cubench, "add", "--db", db, "--lock-timeout", "0.5", run)
        assert proc.returncode == 2
        assert "locked by another process" in proc.stderr, proc.stderr
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert counts(db) == before
    assert hist(cubench, "add", "--db", db, run).returncode == 0
    assert counts(db)[0] == before[0] + 1


def test_newer_and_foreign_databases(cubench, stepped, tmp_path):
    db, _ = stepped
    with sqlite3.connect(db) as con:
        con.execute("UPDATE cubench_meta SET value = '99' WHERE key = 'schema_version'")
    before = counts(db)
    run = write_run(tmp_path / "x", 700, "x-00")
    for args in (("add", run), ("check",), ("show", "vecadd/*"), ("export",), ("migrate",)):
        proc = hist(cubench, args[0], "--db", db, *args[1:])
        assert proc.returncode == 2, args
        assert "schema 99, from a newer cubench" in proc.stderr, proc.stderr
    assert counts(db) == before
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, but long enough to look like one's header\n" * 20)
    proc = hist(cubench, "check", "--db", text)
    assert proc.returncode == 2 and "not a SQLite database" in proc.stderr
    proc = hist(cubench, "check", "--db", tmp_path / "missing.db")
    assert proc.returncode == 2 and "history add` creates one" in proc.stderr
    assert not (tmp_path / "missing.db").exists()


def test_unreachable_server(cubench, tmp_path):
    run = write_run(tmp_path / "r", 0, "r-00")
    proc = hist(cubench, "add", "--db",
                f"postgresql://cubench:secret@/postgres?host={tmp_path}/no-server", run)
    assert proc.returncode == 2
    assert ("cannot connect" in proc.stderr or "built without PostgreSQL" in proc.stderr)
    assert "secret" not in proc.stderr


def test_default_database_from_the_environment(cubench, tmp_path):
    db = tmp_path / "env.db"
    env = dict(os.environ, CUBENCH_HISTORY=str(db))
    run = write_run(tmp_path / "r", 0, "r-00")
    assert hist(cubench, "add", run, env=env).returncode == 0 and db.exists()
    proc = hist(cubench, "check", env=env)
    assert proc.returncode == 0 and "1 runs" in proc.stderr


def test_usage(cubench, tmp_path):
    db = tmp_path / "u.db"
    assert hist(cubench, "--help").returncode == 0
    for args, words in ((("frobnicate",), "unknown subcommand"),
                        (("add", "--db", db), "RUN_DIR"),
                        (("check", "--db", db, "--axis", "n=1"), "unknown option '--axis'"),
                        (("show", "--db", db, "a", "b"), "unexpected argument 'b'"),
                        (("check", "--db", db, "--delta", "x"), "not a number"),
                        (("check", "--db", db, "--method", "magic"), "cubench or hunter"),
                        (("--db", db, "check"), "subcommand first")):
        proc = hist(cubench, *args)
        assert proc.returncode == 2, args
        assert words in proc.stderr, (args, proc.stderr)
    assert not db.exists()


def test_compare_takes_the_history_spread(cubench, stepped, tmp_path):
    """`cubench compare --history DB` widens each point by the spread its own
    past runs showed on the machine (the runs here are the history's first
    ten, so every point has one)."""
    db, runs = stepped
    proc = subprocess.run([cubench, "compare", "--history", str(db), str(runs[0]),
                           str(runs[1])], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert f"between-run spread of the history `{db}`" in proc.stdout
    proc = subprocess.run([cubench, "compare", "--history", str(db), "--history-machine",
                           "elsewhere", str(runs[0]), str(runs[1])], capture_output=True,
                          text=True)
    assert proc.returncode == 0 and "holds no run of machine 'elsewhere'" in proc.stderr
    proc = subprocess.run([cubench, "compare", "--history", str(tmp_path / "none.db"),
                           str(runs[0]), str(runs[1])], capture_output=True, text=True)
    assert proc.returncode == 2 and "history add` creates one" in proc.stderr
