"""pytest's order of the test modules: the slowest first, so that under pytest-xdist none of them ends a run alone."""

# With whole modules per worker (--dist loadfile), a module starts when a worker is free; the one that builds an
# older tokio (three minutes beside the others) started last and ran on alone for minutes. Started first, it
# runs beside the rest.
SLOW_FIRST = ("tests/test_versions.py", "tests/test_tracking.py", "tests/test_environment.py")


def pytest_collection_modifyitems(session, config, items):
    def rank(item) -> int:
        path = item.nodeid.split("::", 1)[0]
        return SLOW_FIRST.index(path) if path in SLOW_FIRST else len(SLOW_FIRST)

    items.sort(key=rank)  # stable: each module's own tests keep their order
