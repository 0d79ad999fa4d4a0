"""Would torch's own build reject this extension too? The line between a candidate that does not build on a
GPU machine and a stand-in header that lacks what libtorch has.

Volta compiles a candidate's extension against stand-in torch headers (`include/`). When that fails, two
different things may be true: torch would fail as well (the candidate's `try/except` then runs its fallback on
a GPU machine, and that fallback is what must be checked), or the stand-in lacks something libtorch declares
(then nothing may be concluded). A failure counts as torch's only when its cause does not depend on which
torch headers are used:

- the host compiler meets a CUDA keyword (`__global__`, `__device__`, ...) in `main.cpp` before any header
  that defines it: torch compiles `main.cpp` with the host C++ compiler, and `torch/extension.h` includes no
  CUDA header (checked here before compiling, since the stand-in's headers do include one);
- the first error is in the bindings torch generates (`m.def("f", torch::wrap_pybind_function(f), "f")`): a
  `functions=` name the C++ never declares (a `__global__` kernel defined only in `cuda_sources`), an
  overloaded name, a second `PYBIND11_MODULE` in `cpp_sources`;
- the first error is a header that is not found and that neither torch nor a CUDA machine's libraries ship
  (a header of torch's own tree is looked up in the installed torch, when there is one; `THC/` is gone
  since torch 1.11), when the call names no `extra_include_paths`;
- the first error is an ambiguous call, in the candidate's own lines, among candidates none of which is a
  torch, ATen or c10 function;
- linking finds `PyInit_<name>` twice (a `PYBIND11_MODULE` in `cuda_sources` beside the generated one);
- linking finds only functions the candidate declares and never defines (`cpp_sources` declares `f`,
  `cuda_sources` defines `g`): torch links a shared library with undefined symbols, and importing it raises
  ImportError ("undefined symbol").

Everything else stays a stand-in failure (UNSUPPORTED with the compiler's message).
"""
from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

CUDA_KEYWORDS = ("__global__", "__device__", "__shared__", "__constant__", "__host__")
# headers that (directly or through others) define the CUDA keywords in a host compile
CUDA_HEADER = re.compile(r"^(cuda|cublas|cusparse|curand|cufft|cusolver|cudnn|thrust/|cub/|mma\.h|vector_types|"
                         r"device_|driver_types|ATen/cuda/|c10/cuda/|ATen/native/cuda/|cooperative_groups)")
# headers that define no CUDA keyword in a host compile: torch's host API, pybind11, the C and C++ libraries
KNOWN_HOST_HEADER = re.compile(r"^(torch/(extension|torch|types|all|python|script|library)\.h|"
                               r"ATen/(ATen|Tensor|Functions|Dispatch|Parallel|TensorUtils)\.h|pybind11/\w+\.h|"
                               r"c10/util/\w+\.h|[a-z_]+|"
                               r"(assert|float|limits|math|stdint|stddef|stdio|stdlib|string)\.h)$")
TORCH_TREE = re.compile(r"^(torch|ATen|c10|caffe2|pybind11|THC|THCUNN|TH)/")
# headers a GPU machine may have beyond this toolkit (libraries installed apart, or with torch's wheels)
MAYBE_ELSEWHERE = re.compile(r"^(cu[a-z]*[_.]|cublas|cudnn|nccl|nvtx|nvToolsExt|cutlass/|cute/|thrust/|cub/|"
                             r"nvml|nvrtc|cusparseLt|triton/)")
GCC_ERROR = re.compile(r"^(main\.cpp|cuda\.cu):(\d+):(?:\d+:)? (?:fatal )?error: (.*)$")
EDG_ERROR = re.compile(r"^(cuda\.cu)\((\d+)\): (?:catastrophic )?error: (.*)$")
MISSING = re.compile(r"(?:fatal error: ([^:]+): No such file or directory|cannot open source file \"([^\"]+)\")")
AMBIGUOUS = re.compile(r"is ambiguous|more than one instance of overloaded function")
TORCH_NAMES = re.compile(r"\b(at|c10|torch|volta|pybind11|py)::")


@dataclass(frozen=True)
class Rejection:
    """Why torch's build fails too, in one line (the compiler's own message is kept beside it), and what
    `load_inline` then raises."""

    reason: str
    exception: str = "RuntimeError"


def _strip_comments(text: str) -> str:
    """C++ text with comments and string literals blanked (newlines kept, so lines still count)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', blank, text, flags=re.S)


def host_cuda_keyword(ext) -> Rejection | None:
    """A CUDA keyword in `main.cpp` before any include that defines it (torch's host compiler rejects it).
    Undecided (None) when a conditional directive or a header Volta does not know comes first: either may
    hide the keyword from the host compiler or define it."""
    lines = ext.main_cpp.split("\n")
    for number, line in enumerate(_strip_comments(ext.main_cpp).split("\n"), start=1):
        directive = re.match(r"\s*#\s*(\w+)", line)
        if directive:
            if directive.group(1) != "include":
                if directive.group(1).startswith("if"):
                    return None
                continue
            include = re.match(r'\s*#\s*include\s*[<"]([^>"]+)[>"]', lines[number - 1])
            header = include.group(1) if include else ""
            if CUDA_HEADER.match(header) or not KNOWN_HOST_HEADER.match(header):
                return None
            continue
        for word in CUDA_KEYWORDS:
            if re.search(rf"(?<![A-Za-z0-9_]){word}(?![A-Za-z0-9_])", line):
                origin = ext.origin("main.cpp", number)
                at = f" [{origin[0]}:{origin[1]}]" if origin else ""
                return Rejection(f"main.cpp:{number}{at}: error: '{word}' does not name a type: torch compiles "
                                 f"cpp_sources with the host C++ compiler, and no header before this line "
                                 f"defines CUDA's keywords")
    return None


def first_error(output: str) -> tuple | None:
    """(generated file, line, message, block) of the first error the compiler printed, or None when the first
    error is not in a generated file (a stand-in header's line, a linker message). `block` is the error's
    line and the notes after it, up to the next error."""
    lines = output.splitlines()
    for k, line in enumerate(lines):
        m = GCC_ERROR.match(line) or EDG_ERROR.match(line)
        if m is None:
            if "error:" in line:
                return None
            continue
        block = [line]
        for nxt in lines[k + 1:]:
            if GCC_ERROR.match(nxt) or EDG_ERROR.match(nxt) or "error:" in nxt:
                break
            block.append(nxt)
        return m.group(1), int(m.group(2)), m.group(3), "\n".join(block)
    return None


def _binding_lines(ext) -> range:
    """The lines of `main.cpp` that torch generates for `functions=` (empty when it generates none)."""
    chunks = ext.chunks.get("main.cpp", [])
    if ext.functions is None or not chunks or chunks[-1].file is not None:
        return range(0)
    last = chunks[-1]
    return range(last.first, last.first + last.count)


def _torch_include() -> list:
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.origin:
        return []
    root = Path(spec.origin).parent / "include"
    return [root, root / "torch" / "csrc" / "api" / "include"] if root.is_dir() else []


def _missing_header(header: str) -> Rejection | None:
    header = header.strip()
    if TORCH_TREE.match(header):
        if header.startswith(("THC/", "THCUNN/", "TH/")):
            return Rejection(f"{header}: no such header in torch (the TH/THC headers were removed in torch 1.11)")
        roots = _torch_include()
        if roots and not any((r / header).is_file() for r in roots):
            return Rejection(f"{header}: no such header in the installed torch's include tree")
        return None
    if MAYBE_ELSEWHERE.match(header):
        return None
    return Rejection(f"{header}: no such file: neither torch, the CUDA toolkit nor the candidate provides it")


def of_compile(ext, output: str) -> Rejection | None:
    """The Rejection for a failed compile of `main.cpp` or `cuda.cu` (raw compiler output), or None when the
    failure may be the stand-in's."""
    first = first_error(output)
    if first is None:
        return None
    name, line, message, block = first
    missing = MISSING.search(message) or MISSING.search(block)
    if missing:     # with extra_include_paths, a GPU machine's own directories may hold it: undecided
        return None if ext.include_paths else _missing_header(missing.group(1) or missing.group(2))
    if name == "main.cpp" and line in _binding_lines(ext):
        return Rejection(f"the bindings torch generates for functions={list(ext.functions)} do not compile: "
                         f"{message.strip()}")
    if AMBIGUOUS.search(message) and ext.origin(name, line) and not TORCH_NAMES.search(block):
        return Rejection(f"an ambiguous call in the candidate's own code: {message.strip()}")
    return None


UNDEFINED = re.compile(r"undefined reference to [`'‘]([^'’`]+)['’`]")
NOT_THE_CANDIDATES = re.compile(r"^(at|c10|torch|pybind11|py|volta|std|__gnu_cxx|caffe2)::|^(cu|nccl|nvtx|__cuda)")


def _declared_only(ext, symbol: str) -> bool:
    """Whether an undefined symbol is a plain function of the candidate's own (declared in its sources)."""
    m = re.match(r"^([A-Za-z_][\w:]*)\(", symbol)
    if m is None or NOT_THE_CANDIDATES.match(symbol):
        return False
    name = m.group(1).split("::")[-1]
    text = _strip_comments(ext.main_cpp + "\n" + (ext.cuda_cu or ""))
    return re.search(rf"(?<![\w.>]){re.escape(name)}\s*\(", text) is not None


def of_link(ext, output: str) -> Rejection | None:
    """The Rejection for a failed link: the module's init function defined twice, or only functions of the
    candidate's own declared and never defined."""
    if re.search(rf"multiple definition of [`'‘]PyInit_{re.escape(ext.name)}['’`]", output):
        return Rejection(f"PYBIND11_MODULE({ext.name}, ...) is defined twice: the candidate's own beside the one "
                         f"torch generates for functions=")
    missing = sorted(set(UNDEFINED.findall(output)))
    if missing and all(_declared_only(ext, m) for m in missing):
        return Rejection(f"{ext.name}.so: undefined symbol: {missing[0]} (declared in the candidate's sources, "
                         f"defined nowhere: torch's build links, and importing the extension fails)", "ImportError")
    return None


@dataclass
class BuildOutcome:
    """What became of one `load_inline`/`load` call: built, or not built with torch's error raised into the
    candidate (`escaped` when no `except` of the candidate caught it: the candidate then does not run)."""

    name: str
    built: bool
    where: tuple | None = None    # (file, line) of the call in the candidate
    reason: str = ""              # why torch's build fails (Rejection.reason)
    compiler: str = ""            # the compiler's message
    escaped: bool = False
    exception: str = "RuntimeError"   # what torch raises: RuntimeError (its build failed), ImportError (built,
                                      # with an undefined symbol), TypeError/ValueError (the call itself)

    def error(self) -> Exception:
        """The exception torch's `load_inline` raises, marked as this outcome's: "Error building extension"
        when its ninja build fails, the call's own TypeError/ValueError when torch refuses the arguments."""
        kinds = {"TypeError": TypeError, "ValueError": ValueError, "ImportError": ImportError}
        if self.exception in kinds:
            err: Exception = kinds[self.exception](self.reason)
        else:
            err = RuntimeError(f"Error building extension '{self.name}': {self.compiler or self.reason}")
        err.volta_build = self
        return err

    def first_lines(self, n: int = 3) -> list:
        """The message's first lines from its first error on (the compiler's context lines before it name
        Volta's stand-in functions, not the candidate's)."""
        lines = [ln for ln in (self.compiler or self.reason).splitlines() if ln.strip()]
        first = next((k for k, ln in enumerate(lines) if re.search(r"error|undefined|multiple definition", ln)), 0)
        return lines[first:first + n]
