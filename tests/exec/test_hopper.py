"""mbarrier phases and cp.async.bulk global→shared (PTX ISA §9.7.13.15, §9.7.9.25): the copy lands, its
bytes complete the transaction count, and try_wait.parity sees the phase complete."""
import numpy as np

from volta.launch.spec import load_manifest
from volta.exec.machine import Machine
from volta.ir.program import lower
from volta.ptx.parser import parse_file
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tma_bulk_copy" / "manifest.toml"


def test_bulk_copy_through_an_mbarrier_scales_every_element():
    spec = load_manifest(EXAMPLE)
    launch = spec.launches["kernel"]
    x = np.arange(1024, dtype=np.float32)
    m = Machine(lower(parse_file(str(launch.ptx)), launch.kernel), launch, spec.buffers, {}, inputs={"x": x}).run()
    assert m.findings == []
    y = m.buffer_regions["y"].data[0, :4096].view(np.float32)
    assert np.array_equal(y, 2 * x)
    bars = list(m.mbarriers.values())
    assert len(bars) == 4 and all(b.phase == 1 and b.tx == 0 for b in bars)
