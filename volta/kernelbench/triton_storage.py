"""One Triton launch executed by Volta's machine on the torch stand-in's storages.

A captured `kernel[grid](...)` (volta/kernelbench/triton_launch.py) passes tensors: each is a storage of the
stand-in (`tensor.Storage`: element expressions, `UNWRITTEN` where nothing wrote) and a byte offset into it.
Every storage the launch reaches becomes one global buffer of the machine, laid out as the storage is:

- a storage whose elements are still its own input leaves (`E.var(name, i)`: an input nothing has written) is
  an ordinary `inout` buffer of that name, whose leaves the machine makes itself (lane-structured);
- any other storage is carried in as a region, as the previous launch of a sequence leaves one
  (volta/exec/drivers/pipeline.py): each element stored as its expression, elements never written left unwritten
  (a `temp` buffer: reading one is an uninitialized read, as for a `torch.empty` nothing filled).

After the run the elements the kernel stored are read back into the storages (`equiv.check.outputs`, which
refuses elements written in part or at another width), so the torch code after the launch — and the next
launch — sees them. A launch with blocking findings (a race, out of bounds, ...) reads nothing back: its
outputs are not one function of its inputs. The same launch can be run on concrete inputs for the bits of
stores that are equal over the reals (volta/exec/drivers/replica_bits.py): `bits_spec` is its LaunchSpec there, every
buffer an input filled at random.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np

from volta.equiv.check import UNTOUCHED, blocking, outputs
from volta.errors import Unsupported
from volta.exec.drivers import pipeline, replica_bits
from volta.exec.races import racy_reads
from volta.exec.state import access as A
from volta.exec.state.memory import Region
from volta.exec.state.operands import reading_of
from volta.ir.program import lower
from volta.kernelbench.elements import UNWRITTEN
from volta.launch import args as kernel_args
from volta.launch.spec import Buffer, Dim3, KernelLaunch, LaunchSpec
from volta.ptx.parser import parse_file
from volta.session.races import with_address
from volta.symbolic import expr as E

ITEMSIZE = {"f32": 4, "f16": 2, "bf16": 2, "f64": 8, "s8": 1, "u8": 1, "s16": 2, "s32": 4, "s64": 8, "bool": 1}
BUFFER_DTYPE = {"bool": "u8"}  # Volta buffers have no bool: one byte each


@dataclass
class Executed:
    """What one launch did on the machine: its findings (buffer names of this run), its cost, and the
    buffers it reached (name -> storage)."""

    findings: list = field(default_factory=list)
    thread_instructions: int = 0
    seconds: float = 0.0
    buffers: dict = field(default_factory=dict)
    ptx: str = ""

    @property
    def blocked(self) -> bool:
        return any(blocking(f) for f in self.findings)


def pristine(storage, name: str) -> bool:
    """Does every element still hold its own input leaf `E.var(name, i)`?"""
    values = storage.values
    return storage.size > 0 and all(type(v) is E.Expr and v.op is E.VAR and v.data == (name, i)
                                    for i, v in enumerate(values))


def run(kernel, ptx_path, grid: tuple, args: list, storages: dict, bits_ptx=None) -> Executed:
    """Execute `kernel` (a TritonKernel) over `grid` with `args` (one `--args` entry per PTX parameter: a buffer
    name, `name+BYTES`, or a number) on `storages` (buffer name -> stand-in Storage), symbolically, and read
    its stores back into the storages. `bits_ptx`, when given, is the PTX the bits of real-equal stores are
    compared on (the GPU's, when `ptx_path` reads libdevice calls as functions)."""
    start = time.perf_counter()
    prog = lower(parse_file(ptx_path), kernel.name)
    buffers, carried = {}, {}
    for name, storage in storages.items():
        dtype = BUFFER_DTYPE.get(storage.dtype, storage.dtype)
        if pristine(storage, name):
            buffers[name] = Buffer(name, dtype, storage.size, "inout")
        else:
            buffers[name] = Buffer(name, dtype, storage.size, "temp")
            carried[name] = _region(name, storage)
    dims = Dim3(*(tuple(grid) + (1, 1))[:3])
    launch = KernelLaunch(ptx_path, prog.name, dims, Dim3(kernel.block), tuple(kernel_args.of(a) for a in args),
                          kernel.shared)

    named = reading_of([prog])   # RN(log2 e) read as log2 e, as `volta check` does

    def machine(racing=None):
        regions = carried if racing is None else {n: _region(n, storages[n]) for n in carried}
        m = pipeline.machine(regions, prog, launch, buffers, {}, symbolic=True, check_races=racing is None,
                             lane_structured=racing is None, functions=kernel.functions, racing=racing,
                             named=named)
        return m.run()

    m = machine()
    found = racy_reads.settle(m, [with_address(f, m) for f in m.findings], machine)
    done = Executed(found, m.thread_instructions, 0.0, dict(storages), str(ptx_path))
    if not done.blocked:
        if m.replicas:
            spec = bits_spec(buffers, replace(launch, ptx=bits_ptx or ptx_path))
            bits_prog = prog if bits_ptx is None else lower(parse_file(bits_ptx), kernel.name)
            done.findings = replica_bits.merge(found, [with_address(f, m) for f in replica_bits.bits_findings(
                spec, "kernel", [bits_prog], [spec.launches["kernel"]], [m])])
        _read_back(m, buffers, storages)
    done.seconds = time.perf_counter() - start
    return done


def bits_spec(buffers: dict, launch: KernelLaunch) -> LaunchSpec:
    """The launch on concrete inputs: every buffer an input (random values), as `volta run` would fill it."""
    return LaunchSpec({"kernel": launch}, {n: replace(b, role="inout") for n, b in buffers.items()})


def _region(name: str, storage) -> Region:
    """A global region holding the storage's current values, as if an earlier launch had stored them."""
    dtype = BUFFER_DTYPE.get(storage.dtype, storage.dtype)
    size = ITEMSIZE[storage.dtype]
    region = Region(0, name, ".global", storage.size * size, 1, role="temp", dtype=dtype)
    region.written = np.zeros(region.data.shape, bool)
    values = storage.values
    at = np.array([i for i, v in enumerate(values) if v is not UNWRITTEN and v is not None], np.int64)
    if at.size == 0:
        return region
    lanes = np.arange(at.size, dtype=np.int64)
    offs = at * size
    if dtype[0] in "su":   # integers as bits: exact, and usable as indices and trip counts
        bits = np.array([_integer_bits(values[i], dtype, name) for i in at.tolist()], np.uint64)
        A.store(None, region, lanes, offs, size, bits)
        A.store_sym(None, region, lanes, offs, size, None)
        return region
    A.store(None, region, lanes, offs, size, np.zeros(at.size, np.uint64))
    sym = np.empty(at.size, object)
    sym[:] = [values[i] for i in at.tolist()]
    A.store_sym(None, region, lanes, offs, size, sym)
    return region


def _integer_bits(value, dtype: str, name: str) -> int:
    if isinstance(value, E.Expr) and value.op is E.CONST and getattr(value.data, "denominator", 1) == 1:
        return int(value.data) & ((1 << (8 * ITEMSIZE.get(dtype, 8))) - 1)
    raise Unsupported(f"an element of integer tensor `{name}` holds `{E.to_str(value, 3)}`, not a known integer: "
                      f"kernels reading integer data computed from inputs are outside what Volta decides here")


def _read_back(m, buffers: dict, storages: dict) -> None:
    """Store the elements the kernel wrote into the storages (the rest keep their values)."""
    out = LaunchSpec({}, {n: replace(b, role="out") for n, b in buffers.items()})
    for name, elements in outputs(m, out).items():
        values = storages[name].values
        for i, e in enumerate(elements):
            if e is not UNTOUCHED:
                values[i] = e
