"""volta/numerics/mufu.py's tables: decoded once into the cache directory and mapped read-only from there."""
import numpy as np
import pytest

from volta.numerics import mufu

NAME = "tanh_3"   # a small table (2 MB decoded)


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path))
    mufu.table.cache_clear()
    yield tmp_path
    mufu.table.cache_clear()


def test_a_table_is_decoded_once_and_mapped_read_only(cache):
    words = mufu.table(NAME)
    assert isinstance(words, np.memmap) and not words.flags.writeable
    assert np.array_equal(words, mufu._decode(NAME))
    [path] = (cache / "mufu").iterdir()
    assert path.name.startswith(f"{NAME}.") and path.suffix == ".npy"
    mufu.table.cache_clear()
    stamp = path.stat().st_mtime_ns
    assert np.array_equal(mufu.table(NAME), words) and path.stat().st_mtime_ns == stamp   # read, not rewritten


def test_a_damaged_copy_is_decoded_again(cache):
    mufu.table(NAME)
    mufu.table.cache_clear()   # unmapped before it is overwritten
    [path] = (cache / "mufu").iterdir()
    path.write_bytes(b"not an array")
    assert np.array_equal(mufu.table(NAME), mufu._decode(NAME))


def test_an_unwritable_cache_decodes_in_memory(tmp_path, monkeypatch):
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(blocked))
    mufu.table.cache_clear()
    try:
        words = mufu.table(NAME)
        assert not isinstance(words, np.memmap) and np.array_equal(words, mufu._decode(NAME))
    finally:
        mufu.table.cache_clear()
