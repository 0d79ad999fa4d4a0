"""CUDA sources in: compile a `.cu` file to PTX with nvcc, once per content.

Volta checks PTX; a `.cu` given to `volta check`, `volta races`, `volta run` (or the Python API, or
a manifest's `ptx = "kernel.cu"`) is compiled here with `nvcc -ptx -lineinfo -arch=ARCH [FLAGS] FILE`
(`-lineinfo` always, so findings name CUDA lines). The PTX is cached under
`$XDG_CACHE_HOME/volta/cuda/` (default `~/.cache/volta/cuda/`) by a hash of the source text, the
arch, the flags and the nvcc binary, so a second run does not call nvcc (`$VOLTA_CACHE_DIR/cuda/` when set). Headers the source includes
are not part of the key: touch the `.cu` (or pass `--nvcc-flag` once more) after changing only a header.

This module does one job, compiling; `volta.launch.spec.compile_sources` is where launches use it.
No nvcc is needed for `.ptx` inputs, `volta parse` or `volta mma`; where one is found, its release is the default
ptxas version of the tensor-core rows (`nvcc_release`).
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from volta.errors import UsageError

CUDA_SUFFIXES = (".cu",)
DEFAULT_ARCH = "sm_80"
_ARCH_RE = re.compile(r"(sm|compute)_\d{2,3}[af]?")


class NvccNotFound(UsageError):
    """A `.cu` input, and no nvcc to compile it (exit 2: the user can fix it)."""


class CudaCompileError(UsageError):
    """nvcc rejected the source; the message is nvcc's own (exit 2)."""

    kind = "nvcc error"


def is_cuda_source(path: str | os.PathLike) -> bool:
    return Path(path).suffix in CUDA_SUFFIXES


def find_nvcc() -> str | None:
    """nvcc on PATH, else /usr/local/bin/nvcc, else $CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc."""
    candidates = [shutil.which("nvcc"), "/usr/local/bin/nvcc"]
    if os.environ.get("CUDA_HOME"):
        candidates.append(os.path.join(os.environ["CUDA_HOME"], "bin", "nvcc"))
    candidates.append("/usr/local/cuda/bin/nvcc")
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def check_arch(arch: str) -> str:
    if not _ARCH_RE.fullmatch(arch):
        raise UsageError(f"bad --arch `{arch}`: expected sm_XX (e.g. sm_80, sm_90a) or compute_XX")
    return arch


def cache_root() -> Path:
    """Volta's cache directory, as the parser's: $VOLTA_CACHE_DIR, else $XDG_CACHE_HOME/volta, else ~/.cache/volta."""
    return Path(os.environ.get("VOLTA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "volta"))


def _cache_dir() -> Path:
    return cache_root() / "cuda"


# compiled PTX path -> the `.cu` path the user gave: reports name that file, not the hashed cache entry
_SOURCES: dict[str, str] = {}


def compiled_from(ptx: str | os.PathLike | None) -> str | None:
    """The `.cu` file (as the user gave it) whose PTX `ptx` is, when `compile_to_ptx` made it in this process."""
    return _SOURCES.get(str(ptx)) if ptx else None


def shown_name(ptx: str | os.PathLike) -> str | None:
    """`examples/k/kernel.cu→sm_80.ptx` for a PTX file compiled from a .cu (the user's file and the arch, no
    hash), else None."""
    source = compiled_from(ptx)
    if source is None:
        return None
    arch = Path(ptx).name.rsplit(".", 2)[-2]
    return f"{source}→{arch}.ptx"


def shown_in(text: str) -> str:
    """`text` (an error message) with each compiled PTX path replaced by its `shown_name`."""
    for ptx in _SOURCES:
        if ptx in text:
            text = text.replace(ptx, shown_name(ptx))
    return text


def compile_to_ptx(source: str | os.PathLike, arch: str = DEFAULT_ARCH, flags: tuple[str, ...] | list[str] = ()) -> Path:
    """The PTX nvcc makes of `source` (a `.cu` path) for `arch`, from the cache when the same inputs were seen.

    Raises `NvccNotFound` when there is no nvcc and `CudaCompileError` (nvcc's message) when it fails.
    """
    src = Path(source)
    check_arch(arch)
    try:
        text = src.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"no such file: {src}") from None
    except OSError as err:
        raise UsageError(f"cannot read {src}: {err.strerror or err}") from None
    nvcc = find_nvcc()
    if nvcc is None:
        raise NvccNotFound(
            f"{src} is CUDA source, and compiling it to PTX needs nvcc, which is not on PATH, at "
            f"/usr/local/bin/nvcc, at $CUDA_HOME/bin/nvcc or at /usr/local/cuda/bin/nvcc. Install the CUDA "
            f"toolkit (or set CUDA_HOME to it), or pass the PTX nvcc made instead: "
            f"`nvcc -ptx -lineinfo -arch={arch} {src} -o {src.with_suffix('.ptx')}` on a machine that has it, "
            f"then give the .ptx file. Checking .ptx files needs no nvcc.")
    flags = tuple(flags)
    key = hashlib.sha256(b"\0".join([text, arch.encode(), "\x1f".join(flags).encode(), _nvcc_identity(nvcc),
                                     str(src.resolve()).encode()])).hexdigest()[:32]
    # the resolved path is in the key: -lineinfo writes it into the PTX (.file), and findings point there
    cached = _cache_dir() / f"{src.stem}.{key}.{arch}.ptx"
    _SOURCES[str(cached)] = str(source)
    if cached.is_file():
        return cached
    cmd = [nvcc, "-ptx", "-lineinfo", f"-arch={arch}", *flags, str(src.resolve())]
    cached.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".ptx", dir=cached.parent)
    os.close(fd)
    try:
        try:
            proc = subprocess.run(cmd + ["-o", tmp], capture_output=True, text=True, cwd=src.resolve().parent)
        except OSError as err:
            raise CudaCompileError(f"could not run {nvcc}: {err.strerror or err}") from None
        if proc.returncode != 0:
            message = (proc.stderr.strip() or proc.stdout.strip() or f"exit status {proc.returncode}")
            raise CudaCompileError(f"nvcc could not compile {src} (`{' '.join(cmd[1:])}`):\n{message}")
        os.replace(tmp, cached)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return cached


def _nvcc_identity(nvcc: str) -> bytes:
    """Path, size and mtime of the nvcc binary: a different toolkit means a different cache entry."""
    st = os.stat(nvcc)
    return f"{os.path.realpath(nvcc)}:{st.st_size}:{st.st_mtime_ns}".encode()


@functools.lru_cache(maxsize=None)
def nvcc_release(nvcc: str | None = None) -> tuple[int, int] | None:
    """(major, minor) of the nvcc found (`nvcc --version`: "release 13.0"), None without one or when it does not
    answer. The tensor-core rows use it as the default ptxas version (volta.numerics.mma_select)."""
    nvcc = nvcc or find_nvcc()
    if nvcc is None:
        return None
    try:
        proc = subprocess.run([nvcc, "--version"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"release (\d+)\.(\d+)", proc.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None
