"""The SASS behind the ptxas-dependent Hopper fp8 row: every ptxas at hand compiles one fp8 `mma.sync` for sm_90,
and the code must be the structure `select_row` gives that version (volta/numerics/mma_select.py).

- two-from-zero (ptxas 12.4-12.6): both HMMA.16816.F32 accumulate from RZ, an FADD adds their results;
- chained (12.8+): the second HMMA accumulates onto the first's result.
wgmma fp8 (sm_90a) is one native QGMMA in every toolkit. Compiler output, not a hardware measurement: the ptxas
found on PATH, the one Triton ships, and any listed in $VOLTA_EXTRA_PTXAS (colon-separated paths, e.g. the
ptxas of the nvidia-cuda-nvcc-cu12 wheels 12.4-12.6, which run without a GPU); cuobjdump from PATH or Triton.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from volta.numerics.mma_select import MmaSetting, parse_ptxas, select_row


def _triton_bin(name: str) -> str | None:
    try:
        import triton
    except Exception:
        return None
    cand = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / name
    return str(cand) if cand.exists() else None


def _ptxas_at_hand() -> list[str]:
    found = [shutil.which("ptxas"), _triton_bin("ptxas")]
    found += [p for p in os.environ.get("VOLTA_EXTRA_PTXAS", "").split(":") if p]
    seen, out = set(), []
    for p in found:
        if p and os.access(p, os.X_OK) and os.path.realpath(p) not in seen:
            seen.add(os.path.realpath(p))
            out.append(p)
    return out


CUOBJDUMP = shutil.which("cuobjdump") or _triton_bin("cuobjdump")
PTXAS = _ptxas_at_hand()

MMA_F32 = """.version 8.4
.target {target}
.address_size 64
.visible .entry k(.param .u64 pa, .param .u64 pd)
{{
    .reg .b32 %x<20>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [pa];
    ld.param.u64 %rd2, [pd];
    ld.global.v4.b32 {{%x0, %x1, %x2, %x3}}, [%rd1];
    ld.global.v4.b32 {{%x4, %x5, %x6, %x7}}, [%rd1+16];
    ld.global.v4.b32 {{%x8, %x9, %x10, %x11}}, [%rd1+32];
    {body}
    st.global.v4.b32 [%rd2], {{%x12, %x13, %x14, %x15}};
    ret;
}}
"""
MMA = ("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%x12, %x13, %x14, %x15}, {%x0, %x1, %x2, %x3}, "
       "{%x4, %x5}, {%x8, %x9, %x10, %x11};")
WGMMA = ("mov.b64 %rd3, {%x0, %x1};\n    wgmma.fence.sync.aligned;\n"
         "    wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%x12, %x13, %x14, %x15}, %rd3, %rd3, 1, 1, 1;\n"
         "    wgmma.commit_group.sync.aligned;\n    wgmma.wait_group.sync.aligned 0;")


def _version(ptxas: str) -> tuple[int, int]:
    out = subprocess.run([ptxas, "--version"], capture_output=True, text=True, timeout=60).stdout
    return parse_ptxas(re.search(r"release (\d+\.\d+)", out).group(1))


def _sass(tmp_path: Path, ptxas: str, target: str, body: str) -> list[str]:
    ptx, cubin = tmp_path / "k.ptx", tmp_path / f"k.{target}.cubin"
    ptx.write_text(MMA_F32.format(target=target, body=body))
    res = subprocess.run([ptxas, f"-arch={target}", "-o", str(cubin), str(ptx)], capture_output=True, text=True,
                         timeout=180)
    assert res.returncode == 0, res.stderr
    sass = subprocess.run([CUOBJDUMP, "-sass", str(cubin)], capture_output=True, text=True, timeout=60).stdout
    return [ln.split("*/")[1].split("/*")[0].strip() for ln in sass.splitlines() if ln.count("*/") >= 1
            and ln.strip().startswith("/*")]


pytestmark = pytest.mark.skipif(not PTXAS or CUOBJDUMP is None, reason="no ptxas or cuobjdump at hand")


@pytest.mark.parametrize("ptxas", PTXAS)
def test_hopper_fp8_mma_sass_is_the_selected_row(tmp_path, ptxas):
    version = _version(ptxas)
    if version < (12, 4):
        pytest.skip(f"ptxas {version} has no fp8 mma")
    code = _sass(tmp_path, ptxas, "sm_90", MMA)
    hmma = [ln for ln in code if ln.startswith("HMMA.16816.F32")]
    assert len(hmma) == 2 and all("F2FP" not in ln for ln in hmma)
    assert any(ln.startswith("F2FP.F16.E4M3.UNPACK_B") for ln in code)
    first_dst = hmma[0].split()[1].rstrip(",")
    chained = hmma[1].split()[-2].rstrip(",") == first_dst and hmma[0].split()[-2] == "RZ"
    from_zero = all(ln.split()[-2] == "RZ" for ln in hmma)
    assert chained != from_zero
    row = select_row("hopper", "e4m3", "f32", MmaSetting("mma", version)).params
    assert (row.pass_sum is None) == chained, f"ptxas {version}: SASS {'chained' if chained else 'from zero'}"
    if from_zero:  # the two results added by an FADD before the FADD of c
        assert sum(ln.startswith("FADD") for ln in code) == 8


@pytest.mark.parametrize("ptxas", PTXAS)
def test_wgmma_fp8_is_native(tmp_path, ptxas):
    if _version(ptxas) < (12, 4):
        pytest.skip("no fp8 wgmma")
    code = _sass(tmp_path, ptxas, "sm_90a", WGMMA)
    assert any(ln.startswith("QGMMA.64x8x32.F32.E4M3.E4M3") for ln in code)
    assert not any(ln.startswith("HMMA") for ln in code)
