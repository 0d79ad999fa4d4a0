"""Kernel-level differential test of the wmma shortcuts of volta/exec/handlers/tensor_real.py: each example runs
on the per-lane expression path (lane_structured off, so every wmma.mma goes through `product`) once as it is
and once with `product` replaced by `product_reference`, which adds every term; the outputs must be the very
same expression nodes, element by element, and the findings the same. Padded tiles (a convolution's taps
outside the image), a partial tile, a flash attention whose mma.sync reads softmax weights, and a racy kernel (wmma.store
results read by other lanes without __syncwarp) cover the zeros that `product` skips and the wmma.load that
reads expressions where it reads bits."""
from __future__ import annotations

from pathlib import Path

import pytest

from volta.equiv import check as CK
from volta.exec.handlers import tensor_real
from volta.launch.spec import load_manifest
from volta.symbolic import expr as E

EX = Path(__file__).resolve().parents[2] / "examples"
PRODUCT = tensor_real.product


def _run(spec, role):
    m = CK.execute(spec, role, lane_structured=False)
    out = CK.outputs(m, spec)
    kinds = sorted((f.kind, f.message) for f in m.findings)
    return out, kinds


@pytest.mark.parametrize("example", ["eq_conv2d_direct_wmma", "neq_gemm_wmma_half_tile", "eq_attention_naive_flash_mma",
                                     "neq_conv2d_wmma_nosyncwarp", "eq_gemm_naive_wmma"])
def test_wmma_outputs_are_the_nodes_of_the_every_term_product(example, monkeypatch):
    """A kernel whose run never calls `product` (a reference of plain fma loops) is not run a second time: the
    second run differs from the first only in `product`, so with no call it would repeat the first's nodes."""
    spec = load_manifest(EX / example / "manifest.toml")
    products = []
    for role in ("ref", "opt"):
        with monkeypatch.context() as p:
            p.setattr(tensor_real, "product", lambda *args: products.append(role) or PRODUCT(*args))
            fast, fast_findings = _run(spec, role)
        if role not in products:
            continue
        with monkeypatch.context() as p:
            p.setattr(tensor_real, "product", tensor_real.product_reference)
            slow, slow_findings = _run(spec, role)
        assert fast.keys() == slow.keys()
        for name in fast:
            assert len(fast[name]) == len(slow[name])
            assert all(a is b for a, b in zip(fast[name], slow[name])), (example, role, name)
        assert fast_findings == slow_findings
    assert "opt" in products   # every example's opt runs wmma.mma
    assert any(isinstance(e, E.Expr) and e.op is not E.CONST for v in fast.values() for e in v)   # data compared
