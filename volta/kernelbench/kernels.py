"""One recorded launch executed by Volta's machine on the storages its pointer arguments reach.

A launch event carries the kernel's mangled name, grid, block, dynamic shared memory and each parameter's
argument bytes. Pointer arguments are fake device addresses; each names a storage and a byte offset
(`--args x+256` in launch-spec terms). Every storage the launch reaches becomes one global buffer of the
machine, laid out as the storage is, holding its current element values:

- a storage whose elements are still its own input leaves (`E.var(name, i)`: a model input or parameter
  nothing has written) is an ordinary `inout` buffer: the machine makes the same leaves, lane-structured;
- any other storage is carried in as a region the previous "launch" left (`volta.exec.drivers.pipeline`): each
  element stored as its expression (floating point) or bits (integers), elements never written left
  unwritten (`temp`: reading one is an uninitialized read, as for a `torch::empty` nothing filled).

After the run the elements the kernel stored are read back into the storages (`equiv.check.outputs`, which
refuses elements written in part or at another width). Findings (races, out-of-bounds, uninitialized reads,
deadlocks) are the machine's, per launch. In an exact run (a counterexample's replay) every value is a
constant and nothing is lane-structured, as in `volta check`'s confirmation.
"""
from __future__ import annotations

import dataclasses
import os
import re
import struct
import time
from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from volta.equiv.check import UNTOUCHED, outputs
from volta.errors import Unsupported
from volta.exec.drivers import pipeline
from volta.exec.drivers.trials import with_address
from volta.exec.machine import _pointer_params
from volta.exec.state import access as A
from volta.exec.state.memory import Region
from volta.exec.state.operands import reading_of
from volta.ir.program import lower
from volta.kernelbench.memory import ITEMSIZE, RUNTIME_BASE, DeviceMemory, leaf_name
from volta.launch.args import Name, Number
from volta.launch.spec import Buffer, Dim3, KernelLaunch
from volta.ptx.parser import parse_file
from volta.symbolic import expr as E

BUFFER_DTYPE = {"bool": "u8"}  # Volta buffers have no bool: one byte each


@dataclass
class LaunchResult:
    """What one launch did: the kernel, its shape, its findings (each with the buffer names of this run)."""

    kernel: str
    ptx: str
    grid: tuple
    block: tuple
    findings: list = field(default_factory=list)
    thread_instructions: int = 0
    seconds: float = 0.0
    buffers: dict = field(default_factory=dict)   # buffer name -> storage


def _scalar(raw: bytes, ptype: str) -> Number:
    """A scalar parameter's bytes as the number argument they are."""
    if ptype in (".f32", ".f64"):
        value = struct.unpack("<f" if ptype == ".f32" else "<d", raw[:4] if ptype == ".f32" else raw[:8])[0]
    else:
        value = int.from_bytes(raw, "little", signed=ptype.startswith(".s"))
    return Number(value, repr(value))


def _is_fake_address(v: int) -> bool:
    return (1 << 60) <= v < RUNTIME_BASE + (1 << 60)


def _region(name: str, storage, unwritten) -> Region:
    """A global region holding the storage's current values, as if an earlier launch had stored them."""
    dtype = BUFFER_DTYPE.get(storage.dtype, storage.dtype)
    size = ITEMSIZE[storage.dtype]
    region = Region(0, name, ".global", storage.size * size, 1, role="temp", dtype=dtype)
    region.written = np.zeros(region.data.shape, bool)
    region.typed_values = True   # a storage holds values of its tensor's dtype (exec/handlers/tensor_real.py)
    values = storage.values
    known = np.array([v is not unwritten and v is not None for v in values], bool)
    at = np.flatnonzero(known)
    if at.size == 0:
        return region
    lanes = np.arange(at.size, dtype=np.int64)
    offs = at.astype(np.int64) * size
    if dtype[0] in "su":   # integers as bits: exact, and usable as indices and trip counts
        bits = np.array([_integer_bits(values[i], dtype) for i in at.tolist()], np.uint64)
        A.store(None, region, lanes, offs, size, bits)
        A.store_sym(None, region, lanes, offs, size, None)
        return region
    A.store(None, region, lanes, offs, size, np.zeros(at.size, np.uint64))
    sym = np.empty(at.size, object)
    sym[:] = [values[i] for i in at.tolist()]
    A.store_sym(None, region, lanes, offs, size, sym)
    return region


def _integer_bits(value, dtype: str) -> int:
    if isinstance(value, E.Expr) and value.op == E.CONST:
        v = value.data
        if getattr(v, "denominator", 1) == 1:
            return int(v) & ((1 << (8 * ITEMSIZE.get(dtype, 8))) - 1)
    raise Unsupported(f"an integer tensor element holds `{value}`, which is not a known integer; kernels reading "
                      f"integer data computed from inputs are outside what Volta decides here")


def run(ev, built, memory: DeviceMemory, unwritten, exact: bool, symbols: dict | None = None) -> LaunchResult:
    """Execute launch event `ev` (host.trace.Launch) of extension `built` on `memory`'s storages; `symbols`
    holds what host code wrote into the module's `__constant__`/`__device__` variables (cudaMemcpyToSymbol:
    name -> [(byte offset, bytes)], in order), laid over their initializers."""
    start = time.perf_counter()
    module = parse_file(built.ptx)
    entry = next((f for f in module.entries if f.name == ev.kernel), None)
    if entry is None:
        raise Unsupported(f"the launch names kernel `{ev.kernel}`, which the extension's PTX does not define")
    prog = _with_symbols(lower(module, ev.kernel), symbols or {})
    pointers = _pointer_params(prog)
    args, reached = [], {}
    for k, (param, raw) in enumerate(zip(entry.params, ev.args)):
        pname, ptype = param.names[0].name, param.type or ".b64"
        if param.names[0].dims:
            raise Unsupported(f"kernel `{prog.name}` takes parameter {k} (`{pname}`) as a by-value struct; "
                              f"struct parameters of load_inline kernels are not modelled yet")
        value = int.from_bytes(raw, "little") if len(raw) == 8 else None
        if ptype in (".u64", ".b64", ".s64") and value is not None and (_is_fake_address(value) or pname in pointers):
            if value == 0:
                args.append(Number(0, "0"))
                continue
            found = memory.locate(value)
            if found is None:
                raise Unsupported(f"argument {k} of kernel `{prog.name}` ({value:#x}) points into no tensor or "
                                  f"allocation (a host pointer, a freed or foreign address): on a GPU the kernel "
                                  f"would fault or read garbage")
            storage, offset = found
            name = memory.name(storage)
            reached[name] = storage
            args.append(Name(name, offset))
        else:
            args.append(_scalar(raw, ptype))
    buffers, carried = {}, {}
    for name, storage in reached.items():
        dtype = BUFFER_DTYPE.get(storage.dtype, storage.dtype)
        if not exact and leaf_name(storage) == name:
            buffers[name] = Buffer(name, dtype, storage.size, "inout")
        else:
            buffers[name] = Buffer(name, dtype, storage.size, "temp")
            carried[name] = _region(name, storage, unwritten)
    launch = KernelLaunch(built.ptx, prog.name, Dim3(*ev.grid), Dim3(*ev.block), tuple(args), ev.shared)
    named = None if exact else reading_of([prog])   # RN(log2 e) read as log2 e, as `volta check` does
    m = pipeline.machine(carried, prog, launch, buffers, {}, symbolic=True, input_values={} if exact else None,
                         check_races=not exact, lane_structured=not exact, named=named)
    m.run()
    result = LaunchResult(prog.name, str(built.ptx), ev.grid, ev.block,
                          in_candidate([with_address(f, m) for f in m.findings], built.ext), m.thread_instructions,
                          time.perf_counter() - start, dict(reached))
    if m.findings:
        return result   # a defective launch's outputs are not read: the verdict is its findings
    _read_back(m, buffers, reached)
    return result


def _with_symbols(prog, symbols: dict):
    """The program with each module variable host code wrote starting as those bytes (over its initializer)."""
    if not symbols:
        return prog
    variables = dict(prog.variables)
    for name, writes in symbols.items():
        var = variables.get(name)
        if var is None:
            continue
        image = bytearray(var.init or bytes(var.size))
        for offset, data in writes:
            if offset + len(data) > var.size:
                raise Unsupported(f"cudaMemcpyToSymbol writes bytes {offset}..{offset + len(data)} of `{name}`, "
                                  f"which has {var.size} (cudaErrorInvalidValue on a GPU)")
            image[offset:offset + len(data)] = data
        variables[name] = dataclasses.replace(var, init=bytes(image))
    return dataclasses.replace(prog, variables=variables)


def in_candidate(findings: list, ext) -> list:
    """Findings whose CUDA lines (`.../cuda.cu:29`, the generated file) are named as lines of the candidate's
    Python file where its source string was found there (`extract.Extension.origin`)."""
    def where(text):
        if not text:
            return text
        out = []
        for part in re.split(r"(\S+:\d+)", text):
            m = re.fullmatch(r"(\S+):(\d+)", part)
            origin = ext.origin(os.path.basename(m.group(1)), int(m.group(2))) if m else None
            out.append(f"{origin[0]}:{origin[1]}" if origin else part)
        return "".join(out)

    def line_of(line):
        origin = ext.origin("cuda.cu", line)
        return origin[1] if origin else line

    located = []
    for f in findings:
        sites = tuple(dataclasses.replace(s, cuda=where(s.cuda), cuda_lines=tuple(line_of(c) for c in s.cuda_lines))
                      if getattr(s, "cuda", None) else s for s in f.sites)
        located.append(dataclasses.replace(f, sites=sites))
    return located


def _read_back(m, buffers: dict, reached: dict) -> None:
    """Store the elements the kernel wrote into the storages (the rest keep their values)."""
    out_spec = SimpleNamespace(buffers={n: dataclasses.replace(b, role="out") for n, b in buffers.items()})
    written = outputs(m, out_spec)
    for name, elements in written.items():
        values = reached[name].values
        for i, e in enumerate(elements):
            if e is not UNTOUCHED:
                values[i] = e
