"""Host steps of a launch sequence: `memset BUF VALUE` (cudaMemset) and `copy SRC DST` (a device-to-device
cudaMemcpy), in order with the kernel launches, as the launchers of real pipelines have them between kernels.

    --opt-step "memset out 0"        [[opt.launch]] step = "memset out 0"        Pipeline([..., "memset out 0"])
    --opt-step "copy tmp out"        [[opt.launch]] step = "copy tmp out"        Pipeline([..., "copy tmp out"])

Each step runs as a small kernel written here (one thread per element of the buffer, element-wide loads and
stores), a `KernelLaunch` of the sequence like any other: the machine then gives it the one semantics it gives
every launch. A memset stores known bytes, every byte of the buffer set to VALUE (0..255, as cudaMemset does):
they are not tensor data, and a `temp` buffer is written from then on. A copy moves the value of every element of
SRC into the element of DST at the same index (over the reals: its expression; an input element stays that input's
variable), DST at least as large, both of one dtype; a never-written SRC element read by the copy is an
uninitialized read, as a kernel's would be. A step is ordered with the launches around it (a launch boundary),
so nothing races with it.

The kernels are PTX files in Volta's cache (`host-steps/`), one per operation and element type; `launch.host`
keeps the user's text, which reports show in place of the kernel's name.
"""
from __future__ import annotations

import os
from pathlib import Path

from volta.cuda import cache_root
from volta.errors import UsageError
from volta.launch.args import Name, Number
from volta.launch.kernel import Dim3, KernelLaunch

BLOCK = 256
STEPS = ("memset", "copy")
# element size -> (register, PTX type) of its loads and stores (bit-pattern moves: the buffer's dtype decides the
# value); f32/f64 data moves through float registers, so that over the reals its expression moves with it
REGISTERS = {1: ("%rs1", ".u8"), 2: ("%rs1", ".b16"), 4: ("%r1", ".b32"), 8: ("%rd7", ".b64")}
FLOATS = {"f32": ("%f1", ".f32"), "f64": ("%fd1", ".f64")}


def parse_step(text: str, buffers: dict, option: str):
    """`memset BUF VALUE` or `copy SRC DST` as the KernelLaunch that performs it (a usage error names what is
    wrong: an unknown step, a buffer not declared, a value out of 0..255, sizes or dtypes that do not fit)."""
    words = str(text).split()
    usage = f'bad {option} `{text}`: expected "memset BUF VALUE" (VALUE a byte, 0..255) or "copy SRC DST"'
    if not words or words[0] not in STEPS:
        raise UsageError(usage)
    for name in words[1:2] if words[0] == "memset" else words[1:3]:
        if name not in buffers:
            raise UsageError(f"bad {option} `{text}`: `{name}` is not a declared buffer (declared: "
                             f"{', '.join(sorted(buffers)) or 'none'})")
    if words[0] == "memset":
        if len(words) != 3:
            raise UsageError(usage)
        try:
            value = int(words[2], 0)
        except ValueError:
            raise UsageError(usage) from None
        if not 0 <= value <= 255:
            raise UsageError(f"bad {option} `{text}`: cudaMemset sets every byte to VALUE, which must be 0..255")
        buf = buffers[words[1]]
        size = buf.itemsize
        word = int.from_bytes(bytes([value]) * size, "little")
        ptx = _kernel_file(f"memset{8 * size}_{value:02x}", _memset_ptx(size, word))
        args = (Name(buf.name), Number(buf.count, str(buf.count)))
        count = buf.count
    else:
        if len(words) != 3:
            raise UsageError(usage)
        src, dst = buffers[words[1]], buffers[words[2]]
        if src.dtype != dst.dtype:
            raise UsageError(f"bad {option} `{text}`: `{src.name}` is {src.dtype} and `{dst.name}` {dst.dtype}; a copy "
                             f"moves elements between buffers of one dtype")
        if dst.count < src.count:
            raise UsageError(f"bad {option} `{text}`: `{dst.name}` ({dst.count} elements) is smaller than "
                             f"`{src.name}` ({src.count}), which the copy moves whole")
        reg, t = FLOATS.get(src.dtype) or REGISTERS[src.itemsize]
        ptx = _kernel_file(f"copy{t.replace('.', '_')}", _copy_ptx(src.itemsize, reg, t))
        args = (Name(src.name), Name(dst.name), Number(src.count, str(src.count)))
        count = src.count
    grid = Dim3(max(1, -(-count // BLOCK)))
    return KernelLaunch(ptx, "host_" + words[0], grid, Dim3(BLOCK), args, host=" ".join(words))


def is_step(text: str) -> bool:
    words = str(text).split()
    return bool(words) and words[0] in STEPS


def _kernel_file(name: str, text: str) -> Path:
    path = cache_root() / "host-steps" / f"{name}.ptx"
    if not path.exists() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        tmp.replace(path)   # atomic: a concurrent run reads the old file or the new one, never half of one
    return path


HEADER = """//
// Written by Volta (volta/launch/hoststeps.py): a host step of a launch sequence, one thread per element.
//
.version 7.0
.target sm_80
.address_size 64
"""


def _index(params: str) -> str:
    """The thread's element index %r4 and the bound check against the count %r5 (the last parameter)."""
    return f"""
{{
	.reg .pred %p<2>;
	.reg .b32 %r<6>;
	.reg .b64 %rd<8>;
	.reg .f32 %f<2>;
	.reg .f64 %fd<2>;
	.reg .b16 %rs<2>;
{params}
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	setp.ge.u32 %p1, %r4, %r5;
	@%p1 bra DONE;
"""


def _memset_ptx(size: int, word: int) -> str:
    reg, t = REGISTERS[size]
    params = ("\tld.param.u64 %rd2, [host_memset_param_0];\n\tld.param.u32 %r5, [host_memset_param_1];\n"
              "\tcvta.to.global.u64 %rd3, %rd2;")
    return (HEADER + "\n.visible .entry host_memset(.param .u64 host_memset_param_0, "
            ".param .u32 host_memset_param_1)" + _index(params)
            + f"\tmul.wide.u32 %rd4, %r4, {size};\n\tadd.s64 %rd5, %rd3, %rd4;\n"
            + f"\tmov.b{max(16, 8 * size)} {reg}, {word};\n\tst.global{t} [%rd5], {reg};\nDONE:\n\tret;\n}}\n")


def _copy_ptx(size: int, reg: str, t: str) -> str:
    params = ("\tld.param.u64 %rd2, [host_copy_param_0];\n\tld.param.u64 %rd6, [host_copy_param_1];\n"
              "\tld.param.u32 %r5, [host_copy_param_2];\n\tcvta.to.global.u64 %rd3, %rd2;\n"
              "\tcvta.to.global.u64 %rd6, %rd6;")
    return (HEADER + "\n.visible .entry host_copy(.param .u64 host_copy_param_0, .param .u64 host_copy_param_1, "
            ".param .u32 host_copy_param_2)" + _index(params)
            + f"\tmul.wide.u32 %rd4, %r4, {size};\n\tadd.s64 %rd5, %rd3, %rd4;\n\tadd.s64 %rd4, %rd6, %rd4;\n"
            + f"\tld.global{t} {reg}, [%rd5];\n\tst.global{t} [%rd4], {reg};\nDONE:\n\tret;\n}}\n")
