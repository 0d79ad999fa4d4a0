"""Text → `Module`, cached by content hash, in memory and on disk; the parse itself is `volta.ptx.lark_parser`.

A cached module is a pickle of `volta.ptx.ast` nodes alone (no Lark object), so a command whose kernels
were parsed before loads them without importing Lark or building its grammar (start-up).
"""
from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from volta.errors import PtxSyntaxError
from volta.ptx import ast

CACHE_VERSION = 2  # 2: WARP_SZ parses as the immediate 32

_memory_cache: dict[str, ast.Module] = {}


def _cache_dir() -> Path:
    base = os.environ.get("VOLTA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "volta"
    )
    return Path(base)


def parse_text(text: str, filename: str = "<ptx>", use_cache: bool = True) -> ast.Module:
    """Parse PTX text; the same content (and file name) comes from the cache the second time."""
    key = hashlib.sha256(f"{CACHE_VERSION}\0{filename}\0".encode() + text.encode()).hexdigest()
    if use_cache:
        hit = _memory_cache.get(key) or _load_disk(key)
        if hit is not None:
            _memory_cache[key] = hit
            return hit
    from volta.ptx.lark_parser import parse  # start-up: Lark loads on a cache miss only

    module = parse(text, filename)
    if use_cache:
        _memory_cache[key] = module
        _store_disk(key, module)
    return module


def parse_file(path: str | os.PathLike, use_cache: bool = True) -> ast.Module:
    p = Path(path)
    try:
        text = p.read_text()
    except FileNotFoundError:
        raise PtxSyntaxError(f"no such PTX file: {p}") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError) as err:
        raise PtxSyntaxError(f"cannot read {p} as PTX text: {err}") from None
    return parse_text(text, str(path), use_cache)


def _load_disk(key: str):
    path = _cache_dir() / f"{key}.pickle"
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
        return None


def _store_disk(key: str, module: ast.Module) -> None:
    directory = _cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        tmp = directory / f"{key}.{os.getpid()}.tmp"
        with open(tmp, "wb") as fh:
            pickle.dump(module, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, directory / f"{key}.pickle")
    except OSError:
        pass  # a read-only cache is only slower
