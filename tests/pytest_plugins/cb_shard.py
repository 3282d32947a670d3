"""cb_shard.py - a pytest plugin that runs one shard of the collected tests,
so ctest can run the shards of one large file (or of files run together)
side by side.

    CB_PYTEST_SHARD=i/N python -m pytest -p cb_shard FILE...

keeps shard i (0-based) of N. Tests are grouped by what they draw, so that
each report is made in one shard only: a `shard_group(NAME)` mark names the
group (reports/tests/test_page.py's tests of the recorded suite: the suite's
run), else a test's parameter id (for reports/tests/test_report.py, the
recorded run it checks, which test_page's parameters share), else its name.
Groups go to shards heaviest first, each to the shard with the least so far,
by their seconds in CB_PYTEST_SHARD_COST ("group=seconds,..."; a group not
named there counts 1 s). Every test is in exactly one shard, and every
shard computes the same split. Without CB_PYTEST_SHARD nothing is
deselected."""
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


def _costs():
    spec = os.environ.get("CB_PYTEST_SHARD_COST", "")
    costs = {}
    for pair in filter(None, spec.split(",")):
        name, _, seconds = pair.rpartition("=")
        try:
            costs[name] = float(seconds)
        except ValueError:
            raise SystemExit(f"CB_PYTEST_SHARD_COST: {pair!r} is not group=seconds") from None
    return costs


def group_of(item) -> str:
    mark = item.get_closest_marker("shard_group")
    if mark is not None:
        return mark.args[0]
    callspec = getattr(item, "callspec", None)
    return callspec.id if callspec is not None else item.name


def pytest_configure(config):
    config.addinivalue_line("markers", "shard_group(name): the group cb_shard.py keeps the "
                                       "test in (tests that draw the same report)")


def pytest_collection_modifyitems(config, items):
    shard = _shard()
    if shard is None:
        return
    index, count = shard
    costs = _costs()
    groups = []  # in the order collected
    for item in items:
        group = group_of(item)
        if group not in groups:
            groups.append(group)
    load = [0.0] * count
    home = {}
    # sorted() is stable: groups of one cost keep the order collected
    for group in sorted(groups, key=lambda g: -costs.get(g, 1.0)):
        target = min(range(count), key=lambda k: (load[k], k))
        home[group] = target
        load[target] += costs.get(group, 1.0)
    keep, drop = [], []
    for item in items:
        (keep if home[group_of(item)] == index else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep
