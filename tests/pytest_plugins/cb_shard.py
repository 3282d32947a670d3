"""cb_shard.py - a pytest plugin that runs one shard of the collected tests,
so ctest can run the shards of one large file side by side.

    CB_PYTEST_SHARD=i/N python -m pytest -p cb_shard FILE

keeps shard i (0-based) of N. Tests are grouped by their parameter id (for
reports/tests/test_report.py, the recorded run a test checks, so each run's
report is made in one shard only) or, without parameters, by their name;
the groups, in the order collected, go to the shards in turn. Every test is
in exactly one shard. Without the variable, nothing is deselected."""
import os


def _shard():
    spec = os.environ.get("CB_PYTEST_SHARD", "")
    if not spec:
        return None
    try:
        index, count = (int(x) for x in spec.split("/"))
    except ValueError:
        raise SystemExit(f"CB_PYTEST_SHARD={spec!r}: expected i/N, e.g. 0/4") from None
    if count < 1 or not 0 <= index < count:
        raise SystemExit(f"CB_PYTEST_SHARD={spec!r}: needs 0 <= i < N")
    return index, count


def pytest_collection_modifyitems(config, items):
    shard = _shard()
    if shard is None:
        return
    index, count = shard
    groups = {}
    for item in items:
        callspec = getattr(item, "callspec", None)
        key = callspec.id if callspec is not None else item.name
        groups.setdefault(key, len(groups))
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        key = callspec.id if callspec is not None else item.name
        (keep if groups[key] % count == index else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
