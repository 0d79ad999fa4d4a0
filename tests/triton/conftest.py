"""The `slow` marker (a launcher case whose normal forms take minutes today; `-m 'not slow'` skips it)."""


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a case that takes minutes (`-m 'not slow'` leaves it out)")
