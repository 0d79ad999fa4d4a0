"""CUDA `printf` in a concrete run: `vprintf(format, args)` as a no-op that can show what it would print.

nvcc compiles `printf(fmt, a, b, …)` to `vprintf(fmt, buf)`: `fmt` a generic address of the format string (a
`.global` byte array of the module), `buf` a generic address of the thread's local copy of the arguments,
each at the next offset aligned to its size (int 4 bytes; long, double — floats are promoted — and pointers 8;
CUDA Programming Guide, "Formatted Output"). Nothing a kernel can observe changes except the return value,
the number of arguments the format names. With a log to write to, each thread's line is formatted here:
conversions `d i u o x X c f F e E g G a A s p %` with flags, width, precision (`*` too) and the length
modifiers `hh h l ll z j t`.
"""
from __future__ import annotations

import re
import struct

import numpy as np

from volta.exec.state import access as A

CONVERSION = re.compile(r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L)?([diouxXcfFeEgGaAsp%])")
MAX_STRING = 4096  # bytes read of one `%s` argument or format string


def argument_count(fmt: str) -> int:
    """Arguments a format consumes (a `*` width or precision is one more)."""
    n = 0
    for flags, w, prec, _, conv in CONVERSION.findall(fmt):
        if conv != "%":
            n += 1 + (w == "*") + (prec == "*")
    return n


def read_string(m, op, address: int, lane: int) -> str:
    """The NUL-terminated string at a generic address, as seen by one lane ('(null)' for 0)."""
    if address == 0:
        return "(null)"
    lanes = np.array([lane], np.int64)
    out = bytearray()
    for region, lz, offs in A.resolve(m, op, None, np.array([address], np.uint64), lanes, 1, False):
        row = int(A.row_index(region, lz, m)[0])
        raw = region.data[row, int(offs[0]):min(region.size, int(offs[0]) + MAX_STRING)].tobytes()
        out += raw.split(b"\0", 1)[0]
    return out.decode("utf-8", "replace")


def _read(m, op, address: int, lane: int, size: int) -> int:
    lanes = np.array([lane], np.int64)
    for region, lz, offs in A.resolve(m, op, None, np.array([address], np.uint64), lanes, size, False):
        bits, _ = A.load(m, region, lz, offs, size)
        return int(bits[0])
    return 0


def format_line(m, op, fmt: str, buf: int, lane: int) -> str:
    """The text `printf(fmt, …)` prints for one lane whose arguments start at generic address `buf`."""
    cursor = [0]

    def take(size: int) -> int:
        cursor[0] = -(-cursor[0] // size) * size
        value = _read(m, op, buf + cursor[0], lane, size)
        cursor[0] += size
        return value

    def signed(v: int, bits: int) -> int:
        return v - (1 << bits) if v >> (bits - 1) & 1 else v

    def one(match) -> str:
        flags, w, prec, length, conv = match.groups()
        if conv == "%":
            return "%"
        if w == "*":
            w = str(signed(take(4), 32))
        if prec == "*":
            prec = str(signed(take(4), 32))
        spec = "%" + flags + (w or "") + (f".{prec}" if prec is not None else "")
        if conv in "fFeEgGaA":
            x = struct.unpack("<d", take(8).to_bytes(8, "little"))[0]
            return float.hex(x) if conv in "aA" else (spec + conv) % x
        if conv == "s":
            return (spec + "s") % read_string(m, op, take(8), lane)
        if conv == "p":
            return (spec + "s") % hex(take(8))
        bits = 64 if length in ("l", "ll", "z", "j", "t") else 32
        v = take(bits // 8)
        if conv in "di":
            return (spec + "d") % signed(v, bits)
        if conv == "c":
            return (spec + "c") % chr(v & 0xFF)
        return (spec + conv) % v   # o u x X on the unsigned value

    return CONVERSION.sub(one, fmt)


def vprintf(m, op, lanes, fmt_addrs: np.ndarray, buf_addrs: np.ndarray) -> np.ndarray:
    """Return values of `vprintf` on `lanes` (the argument count of each lane's format); appends each lane's
    line to `m.runtime.printed` when that log is kept."""
    formats: dict = {}
    out = np.zeros(lanes.size, np.uint64)
    log = m.runtime.printed
    for k, lane in enumerate(lanes.tolist()):
        addr = int(fmt_addrs[k])
        if addr not in formats:
            text = read_string(m, op, addr, lane)
            formats[addr] = (text, argument_count(text))
        text, count = formats[addr]
        out[k] = count
        if log is not None:
            log.append((m.thread_id(lane), format_line(m, op, text, int(buf_addrs[k]), lane)))
    return out
