"""What a candidate's `load_inline(...)` / `load(...)` asks torch to build, as plain data.

The candidate file runs under the stand-in torch, so its `load_inline` call arrives here with Python values:
the sources are strings already (string variables, f-strings of constants, concatenations), whatever built
them. This module normalizes the call the way `torch.utils.cpp_extension` does — strings or lists,
`functions` as a list, a dict or nothing, the headers torch prepends — and finds where each source string
sits in the candidate's Python file, so that a CUDA line of the generated `cuda.cu` can be named as a line
of the file the user wrote (`SourceMap`).
"""
from __future__ import annotations

import inspect
from dataclasses import dataclass, field
from pathlib import Path

from volta.errors import UsageError

# torch.utils.cpp_extension.load_inline's keyword parameters (torch 2.x); any other keyword is a TypeError
LOAD_INLINE_PARAMS = ("name", "cpp_sources", "cuda_sources", "sycl_sources", "functions", "extra_cflags",
                      "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags", "extra_include_paths",
                      "build_directory", "verbose", "with_cuda", "with_sycl", "is_python_module",
                      "with_pytorch_error_handling", "keep_intermediates", "use_pch", "no_implicit_headers")
LOAD_PARAMS = ("name", "sources", "extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags",
               "extra_include_paths", "build_directory", "verbose", "with_cuda", "with_sycl", "is_python_module",
               "is_standalone", "keep_intermediates")
CUDA_HEADERS = ("#include <torch/types.h>", "#include <cuda.h>", "#include <cuda_runtime.h>")


@dataclass(frozen=True)
class Chunk:
    """A run of lines of a generated file that came from one place: a source string in the candidate's
    Python file (`line` is the file line of the chunk's first line) or a file given to `load`."""

    first: int          # 1-based line in the generated file
    count: int
    file: str | None    # the candidate's file holding the text, None for lines Volta (or torch) adds
    line: int | None


@dataclass
class Extension:
    """One extension to build: the generated `main.cpp` and `cuda.cu`, with where their lines came from."""

    name: str
    main_cpp: str
    cuda_cu: str | None
    functions: tuple | None       # names torch binds (None: the sources bind with PYBIND11_MODULE)
    cflags: tuple = ()
    cuda_cflags: tuple = ()
    ldflags: tuple = ()
    include_paths: tuple = ()
    where: tuple | None = None    # (file, line) of the load_inline call
    chunks: dict = field(default_factory=dict)  # "main.cpp" | "cuda.cu" -> [Chunk]

    def origin(self, generated: str, line: int):
        """(file, line) in the candidate for line `line` of generated file `generated` (its name), or None."""
        for c in self.chunks.get(generated, ()):
            if c.first <= line < c.first + c.count and c.file is not None:
                return c.file, c.line + (line - c.first)
        return None


class CandidateTypeError(Exception):
    """The call torch itself would reject (a wrong keyword, a wrong type): raised as the candidate's TypeError.
    `name` is the extension's name when the call gave one."""

    def __init__(self, message: str, name: str | None = None):
        super().__init__(message)
        self.name = name


def _as_list(value, what: str) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
        return list(value)
    raise CandidateTypeError(f"{what} must be a string or a list of strings, not {type(value).__name__}")


def _functions(value) -> dict | None:
    """`functions=` as torch reads it: name -> docstring (a name, or a list of names, is its own docstring)."""
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if isinstance(value, list):
        return {f: f for f in value}
    if isinstance(value, dict):
        return dict(value)
    raise ValueError(f"Expected 'functions' to be a list or dict, but was {type(value)}")


def _bind(params: tuple, args: tuple, kwargs: dict, what: str) -> dict:
    name = kwargs.get("name", args[0] if args else None)
    name = name if isinstance(name, str) else None
    if len(args) > len(params):
        raise CandidateTypeError(f"{what}() takes {len(params)} positional arguments but {len(args)} were given",
                                 name)
    bound = dict(zip(params, args))
    for key, value in kwargs.items():
        if key not in params:
            raise CandidateTypeError(f"{what}() got an unexpected keyword argument '{key}'", name)
        if key in bound:
            raise CandidateTypeError(f"{what}() got multiple values for argument '{key}'", name)
        bound[key] = value
    if "name" not in bound:
        raise CandidateTypeError(f"{what}() missing 1 required positional argument: 'name'")
    return bound


def caller_site(candidate: str | None) -> tuple | None:
    """(file, line) of the innermost frame running the candidate's file (the load_inline call)."""
    if candidate is None:
        return None
    target = str(Path(candidate).resolve())
    frame = inspect.currentframe()
    while frame is not None:
        if str(Path(frame.f_code.co_filename).resolve()) == target:
            return candidate, frame.f_lineno
        frame = frame.f_back
    return None


def from_load_inline(args: tuple, kwargs: dict, candidate: str | None) -> Extension:
    """The extension `load_inline(*args, **kwargs)` asks for, as torch would assemble it."""
    b = _bind(LOAD_INLINE_PARAMS, args, kwargs, "load_inline")
    cpp = _as_list(b.get("cpp_sources"), "cpp_sources")
    cuda = _as_list(b.get("cuda_sources"), "cuda_sources")
    if b.get("sycl_sources"):
        raise UsageError("the candidate's load_inline passes sycl_sources; Volta checks CUDA extensions")
    functions = _functions(b.get("functions"))
    implicit = not b.get("no_implicit_headers", False)
    text = _text_of(candidate)
    main_parts = [("#include <torch/extension.h>", False)] if implicit else []
    main_parts += [(s, True) for s in cpp]
    if functions is not None:
        wrap = b.get("with_pytorch_error_handling", True)
        binding = ["PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {"]
        binding += [f'm.def("{f}", {f"torch::wrap_pybind_function({f})" if wrap else f}, "{doc}");'
                    for f, doc in functions.items()]
        main_parts.append(("\n".join(binding + ["}"]), False))
    main_cpp, main_chunks = _assemble(main_parts, candidate, text)
    ext = Extension(str(b["name"]), main_cpp, None, None if functions is None else tuple(functions),
                    chunks={"main.cpp": main_chunks})
    if cuda:
        cu_parts = [(h, False) for h in CUDA_HEADERS] if implicit else []
        ext.cuda_cu, ext.chunks["cuda.cu"] = _assemble(cu_parts + [(s, True) for s in cuda], candidate, text)
    ext.cflags, ext.cuda_cflags = _flags(b.get("extra_cflags")), _flags(b.get("extra_cuda_cflags"))
    ext.ldflags, ext.include_paths = _flags(b.get("extra_ldflags")), _flags(b.get("extra_include_paths"))
    ext.where = caller_site(candidate)
    return ext


def from_load(args: tuple, kwargs: dict, candidate: str | None) -> Extension:
    """`load(name, sources=[...])`: files relative to the candidate's directory; `.cu` files are compiled by
    nvcc and the others by the host compiler, as torch does. They are concatenated per kind, one chunk each."""
    b = _bind(LOAD_PARAMS, args, kwargs, "load")
    base = Path(candidate).parent if candidate else Path.cwd()
    main_parts, cu_parts = [], []
    for s in _as_list(b.get("sources"), "sources"):
        path = (base / s) if not Path(s).is_absolute() else Path(s)
        try:
            body = path.read_text()
        except OSError as err:
            raise UsageError(f"the candidate's load() names {s}, which cannot be read: {err.strerror or err}") from None
        (cu_parts if path.suffix in (".cu", ".cuh") else main_parts).append((body, str(path)))
    main_cpp, main_chunks = _files(main_parts)
    ext = Extension(str(b["name"]), main_cpp, None, None, chunks={"main.cpp": main_chunks})
    if cu_parts:
        ext.cuda_cu, ext.chunks["cuda.cu"] = _files(cu_parts)
    ext.cflags, ext.cuda_cflags = _flags(b.get("extra_cflags")), _flags(b.get("extra_cuda_cflags"))
    ext.ldflags, ext.include_paths = _flags(b.get("extra_ldflags")), _flags(b.get("extra_include_paths"))
    ext.where = caller_site(candidate)
    return ext


def _flags(value) -> tuple:
    return tuple(f for f in _as_list(value, "flags") if f.strip())


def _text_of(candidate):
    if candidate is None:
        return None
    try:
        return Path(candidate).read_text()
    except OSError:
        return None


def _assemble(parts, candidate, text):
    """Join parts with newlines (as torch does) and record where each part's lines came from: a part from the
    candidate is found in its file's text; the lines torch adds (headers, bindings) come from nowhere."""
    first, chunks, texts = 1, [], []
    for body, from_candidate in parts:
        count = body.count("\n") + 1
        line = _line_in(text, body) if from_candidate and text is not None else None
        chunks.append(Chunk(first, count, candidate if line else None, line))
        texts.append(body)
        first += count
    return "\n".join(texts), chunks


def _files(parts):
    """Whole files given to `load`, joined: each file's lines are its own."""
    first, chunks, texts = 1, [], []
    for body, path in parts:
        count = body.count("\n") + 1
        chunks.append(Chunk(first, count, path, 1))
        texts.append(body)
        first += count
    return "\n".join(texts), chunks


def _line_in(file_text: str, body: str) -> int | None:
    """The line of `file_text` where the string `body` starts, when its text appears verbatim (a raw or
    escape-free string literal: a body opening with a newline starts on the line of its opening quotes);
    otherwise where a distinctive line of it does, counted back to the body's start."""
    at = file_text.find(body)
    if at >= 0:
        return file_text.count("\n", 0, at) + 1
    for k, line in enumerate(body.split("\n")):
        s = line.strip()
        if len(s) < 12 or file_text.count(s) != 1:
            continue
        return file_text.count("\n", 0, file_text.find(s)) + 1 - k
    return None
