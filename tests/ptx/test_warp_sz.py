"""The predefined PTX constant WARP_SZ (nvcc writes it for `warpSize`) is the immediate 32."""
from pathlib import Path

import numpy as np

from volta.cli import run
from volta.ptx import ast
from volta.ptx.parser import parse_text

DATA = Path(__file__).parent / "data"


def test_warp_sz_parses_as_32_on_both_paths():
    # the one-token fast path (add) and the general rule (a vector operand) alike
    module = parse_text((DATA / "warp_sz_operands.ptx").read_text(), "w.ptx", use_cache=False)
    body = [s for s in module.functions[0].body if isinstance(s, ast.Instruction)]
    add = next(s for s in body if s.opcode.startswith("add"))
    st = next(s for s in body if s.opcode.startswith("st."))
    assert add.operands[1] == ast.Imm(32)
    assert st.operands[1].elems[1] == ast.Imm(32)


def test_a_kernel_using_warpsize_runs_with_32(tmp_path, capsys):
    out = tmp_path / "o.npz"
    code = run(["run", str(DATA / "warpsize.ptx"), "--grid", "2", "--block", "64", "--args", "out,128",
                "--buffer", "out=s32[128]", "--out", str(out), "-q"])
    assert code == 0, capsys.readouterr()
    i = np.arange(128)
    assert (np.load(out)["out"] == (i // 32) * 1000 + i % 32 + 32).all()
    assert run(["races", str(DATA / "warpsize.ptx"), "--grid", "2", "--block", "64", "--args", "out,128",
                "--buffer", "out=s32[128]", "-q"]) == 0
