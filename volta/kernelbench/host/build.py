"""Build a candidate's extension with nvcc against Volta's stand-in torch headers, host and device, cached.

torch compiles `main.cpp` with the host compiler and `cuda.cu` with nvcc (`-D__CUDA_NO_HALF_OPERATORS__` and
its siblings, `--expt-relaxed-constexpr`, `-DTORCH_EXTENSION_NAME=name`) and links a shared library. Volta
does the same with `include/` in place of libtorch's headers and links against `libvoltahost.so` (the stand-in
CUDA runtime and at::Tensor, `runtime/`) instead of libcudart and libtorch, with `-z defs`: a function nothing
defines (cuBLAS, a torch function the stand-in lacks) is named at link time instead of at the first call.
The device side is kept as PTX (`--keep`, `-lineinfo`, for sm_80 unless asked otherwise): what Volta executes.

Each build is cached under `<cache>/kernelbench/` by a hash of the generated sources, the flags, the stand-in
headers and runtime, and the nvcc binary, like `volta/cuda.py`: a second check of the same candidate calls no
compiler.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from volta import cuda
from volta.errors import Unsupported, UsageError
from volta.ir.program import type_size
from volta.kernelbench.host import rejects
from volta.kernelbench.host.extract import Extension
from volta.ptx.parser import parse_file

HERE = Path(__file__).parent
INCLUDE = HERE / "include"
RUNTIME = HERE / "runtime"
TORCH_NVCC_FLAGS = ("-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
                    "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__", "--expt-relaxed-constexpr")
STD = "-std=c++17"
# libraries the stand-in runtime replaces: a candidate's `-lcublas` links against libvoltahost.so instead
REPLACED_LIBRARIES = re.compile(r"^-l(cudart|cuda|cublas|cublasLt|c10|c10_cuda|torch|torch_cpu|torch_cuda|"
                                r"torch_python)$")


class BuildFailed(Unsupported):
    """The extension did not compile or link against the stand-in headers (nvcc's message, with the
    candidate's own file and line where they are known). Unless `rejection` says why torch's own build fails
    too (`rejects.py`), nothing about the candidate is claimed: torch's real headers may accept what the
    stand-in lacks."""

    def __init__(self, message: str, span=None, rejection: rejects.Rejection | None = None,
                 compiler: str = ""):
        super().__init__(message, span)
        self.rejection = rejection
        self.compiler = compiler      # the compiler's or linker's message, as the candidate would see it


@dataclass
class Built:
    """A built extension: the shared library, the PTX of its device code and its kernels' parameter sizes."""

    ext: Extension
    library: Path
    ptx: Path | None
    cuda_cu: Path | None
    kernels: dict = field(default_factory=dict)   # mangled entry name -> (param bytes, ...)


def _nvcc() -> str:
    path = cuda.find_nvcc()
    if path is None:
        raise cuda.NvccNotFound("checking a load_inline candidate compiles its host and device code with nvcc, "
                                "which is not on PATH, at /usr/local/bin/nvcc, at $CUDA_HOME/bin/nvcc or at "
                                "/usr/local/cuda/bin/nvcc; install the CUDA toolkit (no GPU is needed)")
    return path


def _tree_hash(*roots: Path) -> str:
    h = hashlib.sha256()
    for root in roots:
        for p in sorted(root.rglob("*")):
            if p.is_file():
                h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()[:24]


def _run(cmd: list, cwd: Path) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, cwd=cwd)
    except OSError as err:
        raise UsageError(f"could not run {cmd[0]}: {err.strerror or err}") from None


def runtime_library() -> Path:
    """libvoltahost.so for the current stand-in sources (built once per content, then cached)."""
    nvcc = _nvcc()
    key = hashlib.sha256((_tree_hash(INCLUDE, RUNTIME) + cuda._nvcc_identity(nvcc).decode()).encode()).hexdigest()[:24]
    out = cuda.cache_root() / "kernelbench" / f"runtime-{key}" / "libvoltahost.so"
    if out.is_file():
        return out
    out.parent.mkdir(parents=True, exist_ok=True)
    with _one_builder(out):
        if out.is_file():
            return out
        _build_runtime(nvcc, out)
    return out


@contextlib.contextmanager
def _one_builder(out: Path):
    """Hold `out`'s lock file while making `out`: processes sharing a cache (pytest-xdist's workers on an empty
    one) wait for the first instead of each making the same file (the runtime's ~8 CPU s, the PCH's ~3.5 s).
    Where there is no fcntl, each makes its own copy and os.replace keeps one, as before."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    with open(out.parent / f"{out.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def _build_runtime(nvcc: str, out: Path) -> None:
    tmp = Path(tempfile.mkdtemp(dir=out.parent))
    try:
        cmd = [nvcc, "-shared", "-Xcompiler", "-fPIC", STD, f"-I{INCLUDE}", f"-I{RUNTIME}",
               *map(str, sorted(RUNTIME.glob("*.cpp"))), "-o", str(tmp / out.name)]
        proc = _run(cmd, tmp)
        if proc.returncode != 0:
            raise UsageError(f"Volta's stand-in CUDA runtime did not build (a bug in Volta, or an nvcc it does not "
                             f"support):\n{proc.stderr.strip() or proc.stdout.strip()}")
        os.replace(tmp / out.name, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


PCH_HEADER = "torch/extension.h"


def _main_cpp_command(nvcc: str, defines: list, includes: list, cflags, source: str, output: str) -> list:
    """nvcc's command for main.cpp (the host compiler through nvcc, as the cache key assumes)."""
    return [nvcc, "-c", "-Xcompiler", "-fPIC", STD, *defines, *includes, *cflags, source, "-o", output]


def precompiled_header(nvcc: str, runtime: Path, defines: list) -> Path | None:
    """A directory holding `torch/extension.h.gch` for main.cpp's host compile, or None where none was made.

    torch writes `#include <torch/extension.h>` as main.cpp's first line, and parsing the stand-in headers
    (with the STL they include) was most of main.cpp's compile: ~1.3 CPU s a candidate, 0.5 with this. GCC
    looks for `NAME.gch` in each include directory before `NAME`, and uses it only where it is valid for the
    compilation at hand (the same options; every macro the header tested defined alike now), else it reads
    the header as text: the object file is the same either way (tests/kernelbench/test_host_pch.py compares
    them), so the header only saves time. It is made once per stand-in content and nvcc (beside
    libvoltahost.so, whose key covers both; apart for each set of `defines`) from gcc's own command for
    main.cpp, which `nvcc --dryrun` prints; `_compile` puts it first on the include path only for a
    candidate with no extra cflags or include paths, whose command differs from that one by the name alone, and
    not for a libdevice build (one candidate in the tests: its own header would cost 3.5 CPU s to save 0.8).
    A failure to make it is remembered (`pch-*.failed`) and costs nothing after: builds go on without."""
    home = runtime.parent / f"pch-{hashlib.sha256(' '.join(defines).encode()).hexdigest()[:12]}"
    gch = home / f"{PCH_HEADER}.gch"
    failed = home.with_suffix(".failed")
    if gch.is_file():
        return home
    if failed.is_file():
        return None
    with _one_builder(home):
        if gch.is_file() or failed.is_file():
            return home if gch.is_file() else None
        return _make_header(nvcc, defines, home, gch, failed)


def _make_header(nvcc: str, defines: list, home: Path, gch: Path, failed: Path) -> Path | None:
    tmp = Path(tempfile.mkdtemp(dir=home.parent))
    try:
        (tmp / "probe.cpp").write_text("")
        plan = _run([*_main_cpp_command(nvcc, defines, [f"-I{INCLUDE}"], (), "probe.cpp", "probe.o"), "--dryrun"],
                    tmp)
        host = [shlex.split(line[3:]) for line in (plan.stdout + plan.stderr).splitlines()
                if line.startswith("#$ ") and "probe.cpp" in line and "probe.o" in line]
        if plan.returncode != 0 or len(host) != 1:
            raise OSError(f"nvcc --dryrun named {len(host)} host compiles of main.cpp")
        swap = {"probe.cpp": str(INCLUDE / PCH_HEADER), "probe.o": str(tmp / "extension.h.gch")}
        cmd = [swap.get(a, "c++-header" if a == "c++" and before == "-x" else a)
               for before, a in zip(["", *host[0]], host[0]) if a != "-c"]
        proc = _run(cmd, tmp)
        if proc.returncode != 0:
            raise OSError(proc.stderr.strip() or proc.stdout.strip())
        gch.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp / "extension.h.gch", gch)
        return home
    except (OSError, ValueError, UsageError) as err:
        failed.write_text(f"{err}\n")
        return None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


class NotCached(Unsupported):
    """`build(..., run_compiler=False)` of an extension the cache does not hold."""


def build(ext: Extension, arch: str = cuda.DEFAULT_ARCH, libdevice: bool = False, run_compiler: bool = True) -> Built:
    """Compile and link `ext` (cached by content); BuildFailed with the compiler's message when it fails.

    By default device code's erff/erf/tanhf/tanh are bodiless `__volta_erf`/`__volta_tanh` calls, read as the
    real functions (`include/volta/realfns.h`, `kernelbench/libm.py`): right for a check over the reals, wrong
    for anything that must compute what the GPU computes. `libdevice=True` builds (and caches apart) the
    device code nvcc really makes, libdevice's approximations included, for concrete bit-exact replays.
    `run_compiler=False` runs no compiler on the sources (whose flags may name any program): the build must be in
    the cache, else NotCached (Volta's process replaying a confined worker's launches, isolation/replay.py)."""
    nvcc = _nvcc()
    runtime = runtime_library()
    defines = [f"-DTORCH_EXTENSION_NAME={ext.name}", "-DTORCH_API_INCLUDE_EXTENSION_H",
               *(("-DVOLTA_LIBDEVICE",) if libdevice else ())]
    includes = [f"-I{INCLUDE}", *(f"-I{p}" for p in ext.include_paths)]
    key_text = "\0".join([ext.main_cpp, ext.cuda_cu or "", arch, *ext.cflags, "|", *ext.cuda_cflags, "|",
                          *ext.ldflags, "|", *ext.include_paths, ext.name, str(runtime), *defines])
    key = hashlib.sha256(key_text.encode() + cuda._nvcc_identity(nvcc)).hexdigest()[:24]
    home = cuda.cache_root() / "kernelbench" / f"{_safe(ext.name)}-{key}"
    built = Built(ext, home / "ext.so", home / "cuda.ptx" if ext.cuda_cu else None,
                  home / "cuda.cu" if ext.cuda_cu else None)
    failed = home.parent / f"{home.name}.{_rejects_version()}.failed.json"   # decided by this rejects.py
    if failed.is_file():       # a build torch rejects is as reproducible as a success: cached alike
        raise _failure(json.loads(failed.read_text()))
    if not run_compiler and not (built.ptx or built.library).is_file():
        raise NotCached(f"extension `{ext.name}` is not in Volta's build cache ({home})")
    if not built.library.is_file() and run_compiler:
        try:
            _compile(ext, home, nvcc, runtime, arch, defines, includes)
        except BuildFailed as err:
            if err.rejection is None:    # the stand-in's limit (or a compiler that died): not kept
                raise
            record = {"message": err.message, "compiler": err.compiler,
                      "rejection": err.rejection.reason if err.rejection else None,
                      "exception": err.rejection.exception if err.rejection else None}
            tmp = failed.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(record))
            os.replace(tmp, failed)
            raise
    if built.ptx is not None:
        built.kernels = kernel_params(built.ptx)
    return built


def _rejects_version() -> str:
    return hashlib.sha256(Path(rejects.__file__).read_bytes()).hexdigest()[:12]


def _failure(record: dict) -> BuildFailed:
    reason = record.get("rejection")
    why = rejects.Rejection(reason, record.get("exception") or "RuntimeError") if reason else None
    return BuildFailed(record["message"], None, why, record.get("compiler", ""))


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:40] or "ext"


def _compile(ext, home: Path, nvcc, runtime: Path, arch, defines, includes) -> None:
    home.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"{_safe(ext.name)}-", dir=home.parent))
    try:
        keyword = rejects.host_cuda_keyword(ext)
        if keyword is not None:
            raise BuildFailed(f"the extension `{ext.name}` does not build with torch: {keyword.reason}", None,
                              keyword, keyword.reason)
        (work / "main.cpp").write_text(ext.main_cpp)
        common = [d for d in defines if not d.startswith("-DTORCH_EXTENSION_NAME=")]
        usual = not (ext.cflags or ext.include_paths or "-DVOLTA_LIBDEVICE" in defines)   # (precompiled_header)
        pch = precompiled_header(nvcc, runtime, common) if usual else None
        jobs = [("main.cpp", _main_cpp_command(nvcc, defines, [f"-I{pch}"] * (pch is not None) + includes,
                                               ext.cflags, "main.cpp", "main.o"))]
        if ext.cuda_cu is not None:
            (work / "cuda.cu").write_text(ext.cuda_cu)
            compute = arch.replace("sm_", "compute_")
            jobs.append(("cuda.cu", [nvcc, "-c", "-Xcompiler", "-fPIC", STD, *defines, *includes, *TORCH_NVCC_FLAGS,
                                     f"-gencode=arch={compute},code={compute}", "-lineinfo", "--keep",
                                     "--keep-dir", "keep", *ext.cuda_cflags, "cuda.cu", "-o", "cuda.o"]))
            (work / "keep").mkdir()
        procs = [(name, subprocess.Popen(cmd, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
                 for name, cmd in jobs]
        for name, proc in procs:
            out, _ = proc.communicate()
            if proc.returncode != 0:
                text = out.replace(str(work) + os.sep, "")
                why = rejects.of_compile(ext, text)
                shown = _explain(out, ext, work)
                head = (f"does not build with torch either ({name}): {why.reason}" if why else
                        f"did not compile against Volta's stand-in torch headers ({name})")
                raise BuildFailed(f"the extension `{ext.name}` {head}:\n{shown}", None, why, shown)
        objects = ["main.o"] + (["cuda.o"] if ext.cuda_cu is not None else [])
        link = [nvcc, "-shared", "-cudart", "none", *objects, f"-L{runtime.parent}", "-lvoltahost",
                f"-Xlinker", f"-rpath={runtime.parent}", "-Xlinker", "-z,defs",
                *(f for f in ext.ldflags if not REPLACED_LIBRARIES.match(f)), "-o", "ext.so"]
        proc = _run(link, work)
        if proc.returncode != 0:
            why = rejects.of_link(ext, proc.stderr + proc.stdout)
            if why is not None:
                shown = _explain(proc.stderr + proc.stdout, ext, work)
                raise BuildFailed(f"the extension `{ext.name}` does not link with torch either: {why.reason}:\n"
                                  f"{shown}", None, why, shown)
            missing = sorted(set(re.findall(r"undefined reference to [`'‘]([^'’`]+)['’`]", proc.stderr + proc.stdout)))
            if missing:
                raise BuildFailed(f"the extension `{ext.name}` calls {', '.join(missing[:6])}"
                                  f"{' …' if len(missing) > 6 else ''}, which Volta's stand-in runtime does not "
                                  f"define (it models the CUDA runtime and the torch API host code uses, not "
                                  f"cuBLAS/cuDNN or every ATen function)", None)
            raise BuildFailed(f"the extension `{ext.name}` did not link:\n{_explain(proc.stderr + proc.stdout, ext, work)}",
                              None)
        if ext.cuda_cu is not None:
            os.replace(work / "keep" / "cuda.ptx", work / "cuda.ptx")
            shutil.rmtree(work / "keep", ignore_errors=True)
        for junk in ("main.o", "cuda.o"):
            (work / junk).unlink(missing_ok=True)
        try:
            os.replace(work, home)   # atomic: a concurrent build of the same key leaves one whole directory
        except OSError:
            if not (home / "ext.so").is_file():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _explain(output: str, ext: Extension, work: Path) -> str:
    """nvcc's message with `cuda.cu(LINE)` / `main.cpp:LINE` also named as the candidate's file and line."""
    def where(m):
        name, line = m.group(1), int(m.group(2))
        origin = ext.origin(name, line)
        return f"{m.group(0)} [{origin[0]}:{origin[1]}]" if origin else m.group(0)

    text = output.replace(str(work) + os.sep, "")
    text = re.sub(r"\b(cuda\.cu|main\.cpp)[(:](\d+)\)?", where, text)
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[:40]) + (f"\n… ({len(lines) - 40} more lines)" if len(lines) > 40 else "")


def kernel_params(ptx: Path) -> dict:
    """Each `.entry`'s parameter sizes in bytes (what the runtime copies out of a launch's argument array)."""
    out = {}
    for fn in parse_file(ptx).entries:
        sizes = []
        for p in fn.params:
            n = 1
            for d in p.names[0].dims:
                n *= d or 1
            sizes.append(type_size(p.type or ".b64") * n)
        out[fn.name] = tuple(sizes)
    return out
