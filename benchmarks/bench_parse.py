"""Parse throughput: a ~1 MB PTX file built from examples/ and a megabyte-initializer file.

Prints MB/s for a cold parse (no cache: `use_cache=False`, as a first run sees it) and for a
cached parse (a second process reading the on-disk cache, and the in-memory cache).
Usage: python benchmarks/bench_parse.py [--size-mb 1.0] [--repeat 3]
"""
from __future__ import annotations

import argparse
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from volta.ptx import lark_parser, parser  # noqa: E402

HEADER = ".version 8.0\n.target sm_80\n.address_size 64\n\n"
_ENTRY = re.compile(r"^(\.visible |\.weak )?\.entry ([A-Za-z_$][\w$]*)", re.M)


def build_kernel_file(size_mb: float) -> str:
    """Concatenate the `.entry` functions of the examples, renamed apart, up to `size_mb`."""
    bodies = []
    for path in sorted(ROOT.glob("examples/**/*.ptx")):
        text = path.read_text()
        if "debug" in text.split(".address_size", 1)[0] or ".func" in text or ".global" in text.split(".entry", 1)[0]:
            continue  # keep the file self-contained: no DWARF, no helpers, no module-level data
        start = text.find(".visible .entry")
        if start < 0:
            start = text.find(".entry")
        if start >= 0:
            bodies.append(text[start:])
    if not bodies:
        raise SystemExit("no example kernels found under examples/")
    out, size, n = [HEADER], len(HEADER), 0
    while size < size_mb * 1e6:
        for body in bodies:
            n += 1
            chunk = _ENTRY.sub(lambda m, n=n: f"{m[1] or ''}.entry {m[2]}_{n}", body, count=1) + "\n"
            out.append(chunk)
            size += len(chunk)
            if size >= size_mb * 1e6:
                break
    return "".join(out)


def build_initializer_file(size_mb: float) -> str:
    rng = random.Random(0)
    count = int(size_mb * 1e6 / 4)
    values = ", ".join(str(rng.randrange(256)) for _ in range(count))
    return HEADER + f".global .align 4 .b8 table[{count}] = {{{values}}};\n"


def measure(name: str, text: str, repeat: int) -> None:
    mb = len(text.encode()) / 1e6
    lark_parser._Parser.get()  # grammar load is not the parse
    cold = []
    for _ in range(repeat):
        t = time.perf_counter()
        parser.parse_text(text, name, use_cache=False)
        cold.append(time.perf_counter() - t)
    with tempfile.TemporaryDirectory() as cache:
        os.environ["VOLTA_CACHE_DIR"] = cache
        parser._memory_cache.clear()
        parser.parse_text(text, name)  # fills both caches
        parser._memory_cache.clear()
        t = time.perf_counter()
        parser.parse_text(text, name)
        disk = time.perf_counter() - t
        t = time.perf_counter()
        parser.parse_text(text, name)
        mem = time.perf_counter() - t
    best = min(cold)
    print(f"{name:14s} {mb:5.2f} MB  cold {best:6.3f} s ({mb / best:6.2f} MB/s, worst {max(cold):.3f} s)"
          f"  disk cache {disk:6.3f} s ({mb / disk:7.1f} MB/s)  memory cache {mem * 1e3:6.2f} ms")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size-mb", type=float, default=1.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--write", help="also write the kernel file here (for profiling)")
    args = ap.parse_args()
    kernels = build_kernel_file(args.size_mb)
    if args.write:
        Path(args.write).write_text(kernels)
    measure("kernels", kernels, args.repeat)
    measure("initializer", build_initializer_file(args.size_mb), args.repeat)


if __name__ == "__main__":
    main()
