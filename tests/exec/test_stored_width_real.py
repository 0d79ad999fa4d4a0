"""Values written with a width, or a 16-bit format, other than the one they are read with, in volta check.

check.outputs reads an output buffer element by element at its dtype's width. Before these checks:
- `wmma.store` wrote fragment elements at their own width into any buffer: an f16 tile stored into a buffer
  compared as f32 was read as its even elements (element i = D[2i], the odd halves dropped), so it was proved
  EQUIVALENT to a kernel writing float(D[2i]) (on a GPU the float is the two halves' bits); an f32 tile stored
  into an f16 buffer was read as D[k] at element 2k.
- `cp.async.bulk` shared -> global moved 4-byte expressions whatever the destination's element width: a shared
  f32 tile bulk-stored into an f64 buffer was proved EQUIVALENT to double(2 x[2i]), and a float slot holding a
  concrete low half and an f16 value in its high half was read as the constant low half (EQUIVALENT to zeros).
- An element of which the kernel wrote only some bytes (not the first) was UNTOUCHED: EQUIVALENT to no write.
- A computed 16-bit value stored in one format (cvt.rn.f16.f32, st.b16), moved by ldmatrix or wmma.load and read
  by an mma in the other format (bf16) was the same real: the bits are another number.
Now each is UNSUPPORTED naming the instruction; the same instructions at matching widths and formats are still
decided (f16 tiles through a bulk store, which was refused before, are now modelled element by element).
`stmatrix` has no real-number model at all (UNSUPPORTED), and `cp.async` writes shared memory only, whose loads
compare the stored width already, and refuse a load over a narrower expression stored inside it
(access.unreadable).
PTX: tests/exec/data/stored_width/stored_width.sm90.ptx (nvcc 13 from stored_width.cu, command in its header).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from volta.equiv.check import check
from volta.launch.spec import pair_from_options

PTX = Path(__file__).parent / "data" / "stored_width" / "stored_width.sm90.ptx"


def _pair(ref, opt, buffers, args, ref_block="32", opt_block="32"):
    return pair_from_options(str(PTX), str(PTX), buffers, grid="1", args=args,
                             ref={"kernel": ref, "block": ref_block}, opt={"kernel": opt, "block": opt_block})


def _equivalent(spec):
    report = check(spec)
    assert report.verdict == "equivalent", (report.verdict, report.unsupported, report.unknown)
    return report


def _unsupported(spec, role, instruction, why):
    report = check(spec)
    assert report.verdict == "unsupported", (report.verdict, report.unknown)
    where, err = report.unsupported
    whys = why if isinstance(why, tuple) else (why,)   # alternatives: whichever check meets it first
    assert where == role and instruction in str(err) and any(w in str(err) for w in whys), (where, str(err))


# ---- 1. wmma.store ------------------------------------------------------------------------------------------

TILE = ["A=f16[256]:in", "B=f16[256]:in"]


def test_f16_tile_stored_into_an_f32_buffer_is_not_its_even_elements():
    # was EQUIVALENT: element i of the f32 view was read as D[2i], whose bits are only its low half
    _unsupported(_pair("wmma_f16_store", "wmma_f16_even", TILE + ["C=f32[128]:out"], "A,B,C"), "ref",
                 "wmma.store.d.sync.aligned.row.m16n16k16.global.f16", "2-byte tensor data into the 4-byte f32")


def test_f32_tile_stored_into_an_f16_buffer_is_not_the_rounded_tile():
    # was EQUIVALENT: element 2k of the f16 view was read as D[k] (on a GPU the low half of D[k]'s bits)
    _unsupported(_pair("wmma_f32_store", "wmma_f32_as_halves", TILE + ["C=f16[512]:out"], "A,B,C"), "ref",
                 "wmma.store.d.sync.aligned.row.m16n16k16.global.f32", "4-byte tensor data into the 2-byte f16")


def test_wmma_store_at_the_buffer_width_is_still_decided():
    _equivalent(_pair("wmma_f16_store", "wmma_f16_store", TILE + ["C=f16[256]:out"], "A,B,C"))
    _equivalent(_pair("wmma_f32_store", "wmma_f32_store", TILE + ["C=f32[256]:out"], "A,B,C"))


# ---- 2. cp.async.bulk shared -> global ----------------------------------------------------------------------

def test_f32_tile_bulk_stored_into_an_f64_buffer_is_unsupported():
    # was EQUIVALENT: element i of the f64 view was read as the float at byte 8i, 2 x[2i]
    _unsupported(_pair("bulk_store_f32", "twice_even_f64", ["x=f32[64]:in", "C=f64[32]:out"], "x,C",
                       ref_block="64"), "ref", "cp.async.bulk.global.shared::cta.bulk_group",
                 ("stored with another width", "over a narrower value stored inside them"))


def test_f32_tile_bulk_stored_into_an_f16_buffer_is_unsupported():
    # the same kernel on both sides: EQUIVALENT was true here, but element 2k was read as the float D[k] (on a GPU
    # the low half of its bits); now the copy refuses to split a float into f16 elements
    _unsupported(_pair("bulk_store_f32", "bulk_store_f32", ["x=f32[64]:in", "C=f16[128]:out"], "x,C",
                       ref_block="64", opt_block="64"), "ref", "cp.async.bulk.global.shared::cta.bulk_group",
                 ("stored with another width", "over a narrower value stored inside them"))


def test_bulk_store_of_halves_inside_f32_elements_is_unsupported():
    # was EQUIVALENT to writing zeros: the copy read each float at its low half (a concrete 0 with no expression)
    # and dropped the f16 data stored in its high half
    _unsupported(_pair("bulk_store_high_halves", "zeros_f32", ["x=f32[64]:in", "C=f32[64]:out"], "x,C", "64", "64"),
                 "ref", "cp.async.bulk.global.shared::cta.bulk_group",
                 ("narrower value is stored inside one", "over a narrower value stored inside them"))


def test_load_of_halves_inside_an_f32_is_unsupported():
    _unsupported(_pair("load_high_halves", "zeros_f32", ["x=f32[64]:in", "C=f32[64]:out"], "x,C", "64", "64"),
                 "ref", "ld.shared.f32", "")


def test_bulk_store_at_the_buffer_width_is_decided():
    _equivalent(_pair("bulk_store_f32", "twice_f32", ["x=f32[64]:in", "C=f32[64]:out"], "x,C", "64", "64"))
    # f16 elements: refused before (the copy read 4-byte pieces of 2-byte values), now moved one element at a time
    _equivalent(_pair("bulk_store_f16", "twice_f16", ["x=f32[64]:in", "C=f16[64]:out"], "x,C", "64", "64"))


# ---- check.outputs, the backstop --------------------------------------------------------------------------

@pytest.mark.parametrize("ref,opt,out,what", [
    ("wmma_f16_store", "wmma_f16_even", "C=f32[128]:out",
     r"\(f32\) is 4 bytes over a narrower value stored inside them"),
    ("wmma_f32_store", "wmma_f32_as_halves", "C=f16[512]:out",
     r"\(f16\) is 2 bytes starting inside a wider value stored before them"),
])
def test_outputs_refuses_an_element_holding_a_value_of_another_width(monkeypatch, ref, opt, out, what):
    # with wmma.store's own check off, the output reader meets the values of another width
    from volta.exec.handlers import tensor_real

    monkeypatch.setattr(tensor_real, "check_width", lambda *a: None)
    report = check(_pair(ref, opt, TILE + [out], "A,B,C"))
    assert report.verdict == "unsupported", report.verdict
    assert re.search(rf"element \d of `C` {what}, last written by `wmma.store.d", str(report.unsupported[1]))


def test_outputs_refuses_an_element_written_only_in_part():
    # was EQUIVALENT to a kernel writing nothing: an element whose first byte was not written was UNTOUCHED
    report = check(_pair("high_halves_only", "no_writes", ["x=f32[64]:in", "C=f32[64]:out"], "x,C", "64", "64"))
    assert report.verdict == "unsupported", report.verdict
    assert re.search(r"element 0 of `C` \(f32\) was written only in part, last written by `st.global.u16`",
                     str(report.unsupported[1]))


def test_stmatrix_is_unsupported_over_the_reals():
    spec = pair_from_options(str(PTX), str(PTX), ["x=f16[64]:in", "C=f16[64]:out"], grid="1", block="32",
                             args="x,C", kernel="stmatrix_copy")
    report = check(spec)
    assert report.verdict == "unsupported" and "stmatrix" in str(report.unsupported[1]), report.verdict


# ---- 3. a computed 16-bit value read in the other format ----------------------------------------------------

MMA = ["A=f32[256]:in", "Bt=f32[128]:in", "C=f32[128]:out"]


@pytest.mark.parametrize("kernel", ["mma_f16", "mma_bf16"])
def test_mma_on_ldmatrix_tiles_rounded_in_its_own_format_is_the_f32_product(kernel):
    _equivalent(_pair("naive_abt", kernel, MMA, "A,Bt,C", ref_block="8x16"))


@pytest.mark.parametrize("kernel,fmt,other", [("mma_f16_reads_bf16_a", "f16", "bf16"),
                                              ("mma_bf16_reads_f16_a", "bf16", "f16")])
def test_mma_reading_a_tile_rounded_in_the_other_format_is_unsupported(kernel, fmt, other):
    # was EQUIVALENT: cvt.rn.bf16.f32 and cvt.rn.f16.f32 are both the identity over the reals, and the value
    # moved through shared memory and ldmatrix carried no format
    _unsupported(_pair("naive_abt", kernel, MMA, "A,Bt,C", ref_block="8x16"), "opt", "mma.sync.aligned.m16n8k16",
                 f"makes {other} values")


def test_wmma_load_of_a_tile_rounded_to_f16_is_the_f32_product():
    _equivalent(_pair("naive_ab", "wmma_f16_tiles", ["A=f32[256]:in", "B=f32[256]:in", "C=f32[256]:out"],
                      "A,B,C", ref_block="16x16"))


def test_wmma_load_as_f16_of_a_tile_rounded_to_bf16_is_unsupported():
    # was EQUIVALENT: wmma.load gave the elements its own type, f16, whatever made them
    _unsupported(_pair("naive_ab", "wmma_f16_reads_bf16_a", ["A=f32[256]:in", "B=f32[256]:in", "C=f32[256]:out"],
                       "A,B,C", ref_block="16x16"), "opt", "wmma.load.a.sync.aligned.row.m16n16k16.shared.f16",
                 "makes bf16 values")


def test_wmma_load_as_f16_of_a_bf16_buffer_is_unsupported():
    # was EQUIVALENT to the bf16 x f16 product: wmma.load read the bf16 buffer's bits as halves
    _unsupported(_pair("naive_bf16_f16", "wmma_f32_store", ["A=bf16[256]:in", "B=f16[256]:in", "C=f32[256]:out"],
                       "A,B,C", ref_block="16x16"), "opt", "wmma.load.a.sync.aligned.row.m16n16k16.global.f16",
                 "bf16 buffer `A` as f16")


def _sequence(tmp_path, first):
    from volta.launch.spec import load_manifest

    launch = 'ptx = "{}"\nname = "{}"\ngrid = "1"\nblock = "{}"\nargs = [{}]\n'
    text = ("[ref]\n" + launch.format(PTX, "naive_abt", "8x16", '"A", "Bt", "C"') +
            "[[opt.launch]]\n" + launch.format(PTX, first, "64" if first == "zeros_f32" else "32", '"A", "C"'
                                                if first == "zeros_f32" else '"A", "Bt", "C"') +
            "[[opt.launch]]\n" + launch.format(PTX, "mma_f16", "32", '"A", "Bt", "C"') +
            '[buffers]\nA = "f32[256]:in"\nBt = "f32[128]:in"\nC = "f32[128]:out"\n')
    (tmp_path / "manifest.toml").write_text(text)
    return load_manifest(tmp_path / "manifest.toml")


def test_a_later_launch_of_a_sequence_reads_moved_values_in_the_formats_the_earlier_launches_made(tmp_path):
    # each launch says on the buffers which 16-bit formats it made (Machine._stamp_formats): after one that made
    # none, the f16 values this launch moves are f16; after one that made bf16, a moved value may be either
    _equivalent(_sequence(tmp_path, "zeros_f32"))
    _unsupported(_sequence(tmp_path, "mma_bf16"), "opt", "mma.sync.aligned.m16n8k16",
                 "an earlier launch of the sequence may have made bf16 values")


def test_f16_bits_read_as_bf16_by_cvt_are_unsupported():
    """cvt.rn.f16.f32 then cvt.f32.bf16 of the same register was the identity over the reals: EQUIVALENT to
    copying x (the bits of an f16 read as a bf16 are another number). machine._real_compute now asks
    tensor_real.refuse_unknown_format for cvt from .f16/.bf16; the plain f16 round trip is still decided."""
    ptx = str(Path(__file__).parent / "data" / "stored_width" / "pun_bf16.sm80.ptx")
    spec = pair_from_options(ptx, ptx, ["x=f32[64]:in", "out=f32[64]:out"], grid="2", block="32", args="x,out,64",
                             ref={"kernel": "round_f16"}, opt={"kernel": "ident"})
    report = check(spec)
    assert report.verdict == "unsupported" and "cvt.f32.bf16" in str(report.unsupported[1])
    plain = str(Path(__file__).parent / "data" / "stored_width" / "pun.cu")
    assert Path(plain).is_file()
