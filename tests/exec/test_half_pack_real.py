"""16-bit elements packed into a wider register (`mov.b32 %r, {%lo, %hi}`: nvcc's code for a struct of eight
bf16/f16 stored as one 16-byte word, llm.c's Packed128) and 16-bit values stored and loaded back. Both were
UNSUPPORTED: an element's expression does not say how its bits were made, so a pair or a widening is taken only
when each half certainly holds one format — made by a conversion to it, an element of a buffer of it, or
computed or moved through memory where no 16-bit value of another kind exists in the launch or (stamped on the
buffers) in the launches before it.
PTX: tests/exec/data/half_pack/half_pack.sm80.ptx (nvcc 13 from half_pack.cu, command in its header)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from volta.cli import run
from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = str(Path(__file__).parent / "data" / "half_pack" / "half_pack.sm80.ptx")


def _pair(ref, opt, dtype, n=128):
    return check(pair_from_options(PTX, PTX, [f"x={dtype}[{n}]:in", f"y={dtype}[{n}]:out"], args=f"x,y,{n}",
                                   ref={"kernel": ref, "grid": "2", "block": "64"},
                                   opt={"kernel": opt, "grid": "1", "block": str(n // 8)}))


@pytest.mark.parametrize("ref,opt,dtype", [("scale_bf16", "scale_bf16_packed", "bf16"),
                                           ("scale_f16", "scale_f16_packed", "f16")])
def test_elements_packed_eight_to_a_word_are_decided(ref, opt, dtype):
    report = _pair(ref, opt, dtype)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


def test_halves_stored_the_wrong_way_round_are_not_equivalent_with_a_replayed_witness():
    report = _pair("scale_bf16", "scale_bf16_packed_swapped", "bf16")
    assert report.verdict == "not-equivalent", (report.verdict, report.unsupported, report.unknown)


def test_an_f16_and_a_bf16_in_one_word_are_refused():
    report = _pair("scale_bf16", "mixed_pack", "bf16")
    assert report.verdict == "unsupported", report.verdict
    assert "packing tensor data" in str(report.unsupported[1])


BUFFERS = ["--buffer", "x=bf16[64]:in", "--buffer", "w=bf16[64]:in", "--buffer", "r=bf16[64]:out",
           "--buffer", "z=bf16[64]:out"]


def _cli(capsys, argv):
    code = run(["check", *argv, "-q", "--json"])
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    return code, json.loads(out)


def _sequence(capsys, first: str):
    return _cli(capsys, ["--ref-launch", f"{PTX}:add_then_scale grid=1 block=64 args=x,w,r,z,64",
                         "--opt-launch", f"{PTX}:{first} grid=1 block=64 args=x,w,r,64",
                         "--opt-launch", f"{PTX}:scale_r grid=1 block=64 args=r,z,64", *BUFFERS])


def test_a_bf16_stored_and_loaded_back_is_widened_within_a_launch_and_across_launches(capsys):
    code, data = _sequence(capsys, "add")
    assert code == 0 and data["verdict"] == "equivalent", data


def test_a_launch_sequence_that_made_f16_bits_is_refused_where_they_are_read_as_bf16(capsys):
    code, data = _sequence(capsys, "add_as_f16")
    assert data["verdict"] == "unsupported", data
    assert "not certainly bf16" in json.dumps(data)


def test_a_value_loaded_back_beside_an_f16_buffer_is_refused(capsys):
    code, data = _cli(capsys, [PTX, PTX, "--kernel", "add_then_scale", "--grid", "1", "--block", "64",
                               "--args", "x,w,r,z,64", *BUFFERS, "--buffer", "h=f16[8]:in"])
    assert data["verdict"] == "unsupported", data


def test_stored_16_bit_values_loaded_as_pairs_and_stored_again_are_decided():
    # 2-byte stores into shared memory, read back 16 bytes at a time: the pair of the two stored values
    report = check(pair_from_options(PTX, PTX, ["x=bf16[128]:in", "y=bf16[128]:out"], args="x,y,128",
                                     ref={"kernel": "scale_bf16", "grid": "2", "block": "64"},
                                     opt={"kernel": "scale_bf16_via_shared", "grid": "1", "block": "128"}))
    assert report.verdict == "equivalent", (report.verdict, report.unsupported)


def test_f16_values_moved_into_a_bf16_buffer_are_refused():
    report = check(pair_from_options(PTX, PTX, ["x=bf16[128]:in", "y=bf16[128]:out"], args="x,y,128",
                                     ref={"kernel": "scale_bf16", "grid": "2", "block": "64"},
                                     opt={"kernel": "scale_f16_via_shared_into_bf16", "grid": "1", "block": "128"}))
    assert report.verdict == "unsupported", report.verdict
    assert "also makes f16" in str(report.unsupported[1])
