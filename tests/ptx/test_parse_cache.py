"""The parse cache (volta/ptx/parser.py): a module read back is the module the parse made, and reading it back
needs no Lark (a cached kernel costs a command neither Lark's import nor its grammar: start-up).

The files cover what the transformer builds beyond instructions: call prototypes, inline-asm blocks with scoped
registers, initialized globals, wgmma and pragmas.
"""
from __future__ import annotations

import os
import pickle
import subprocess
import sys
from pathlib import Path

from volta.ptx import parser
from volta.ptx.parser import parse_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FILES = [EXAMPLES / p for p in ("eq_fnptr_select_direct/opt.sm90.ptx", "parse-corpus/asm_scopes.sm90.ptx",
                                "bug_printf_scatter/kernel.sm90.ptx", "eq_gemm_wgmma_pipelined/ref.sm90a.ptx",
                                "neq_max_atomic_sentinel/ref.sm90.ptx")]
# A process where `import lark` fails reads the cache and pickles what it read to stdout
READ_BACK = ("import pickle, sys\n"
             "sys.modules['lark'] = None\n"
             "from volta.ptx.parser import parse_file\n"
             "sys.stdout.buffer.write(pickle.dumps([parse_file(p) for p in sys.argv[1:]]))\n")


def test_a_cached_module_reads_back_without_lark_as_parsed(tmp_path, monkeypatch):
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(parser, "_memory_cache", {})   # (a test worker may have parsed these files before)
    parsed = [parse_file(p) for p in FILES]   # parsed here (the caches are empty) and stored
    assert len(list(tmp_path.glob("*.pickle"))) == len(FILES)
    proc = subprocess.run([sys.executable, "-c", READ_BACK, *map(str, FILES)], capture_output=True,
                          env=dict(os.environ), check=True)
    assert pickle.loads(proc.stdout) == parsed


def test_a_cache_miss_without_lark_is_an_import_error(tmp_path, monkeypatch):
    """The control: the process above cannot parse, so what it returned came from the cache."""
    monkeypatch.setenv("VOLTA_CACHE_DIR", str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", READ_BACK, str(FILES[0])], capture_output=True, text=False,
                          env=dict(os.environ))
    assert proc.returncode != 0 and b"lark" in proc.stderr
