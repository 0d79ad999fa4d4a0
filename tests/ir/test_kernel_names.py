"""A kernel is chosen by its PTX name, or by the name the user reads in the .cu file: nvcc mangles a kernel
that is not `extern "C"` (`softmax` -> `_Z7softmaxPfi`), and the user should not need to know how."""
import pytest
from hypothesis import given, strategies as st

from volta.errors import UsageError
from volta.ir.program import lower, source_names
from volta.ptx.parser import parse_text


def _module(*names):
    entries = "\n".join(f".visible .entry {n}(.param .u64 p)\n{{\n\tret;\n}}" for n in names)
    return parse_text(f".version 8.0\n.target sm_80\n.address_size 64\n{entries}\n", "k.ptx", use_cache=False)


def test_the_cuda_name_finds_the_mangled_kernel():
    module = _module("_Z7softmaxPfi", "_ZN6layers4normEPKfPf", "plain")
    assert lower(module, "softmax").name == "_Z7softmaxPfi"
    assert lower(module, "_Z7softmaxPfi").name == "_Z7softmaxPfi"
    assert lower(module, "layers::norm").name == lower(module, "norm").name == "_ZN6layers4normEPKfPf"
    assert lower(module, "plain").name == "plain"


def test_overloads_and_template_instances_are_a_usage_error_that_lists_them():
    module = _module("_Z5scalePfi", "_Z5scalePdi", "_Z3addIfEvPT_", "_Z3addIdEvPT_")
    with pytest.raises(UsageError, match=r"`scale` names 2 kernels .*_Z5scalePfi, _Z5scalePdi"):
        lower(module, "scale")
    with pytest.raises(UsageError, match="`add` names 2 kernels"):
        lower(module, "add")
    with pytest.raises(UsageError, match=r"no kernel named `scal` in k.ptx \(kernels: _Z5scalePfi"):
        lower(module, "scal")


@given(st.lists(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,20}", fullmatch=True), min_size=1, max_size=3),
       st.sampled_from(["Pfi", "v", "PKfPfii", "IfEvPT_"]))
def test_source_names_read_back_what_was_mangled(parts, params):
    if len(parts) == 1:
        mangled = f"_Z{len(parts[0])}{parts[0]}{params}"
        assert source_names(mangled) == (parts[0],)
    else:
        nested = "".join(f"{len(p)}{p}" for p in parts)
        mangled = f"_ZN{nested}E{params}"
        assert source_names(mangled) == ("::".join(parts), parts[-1])
    if not parts[0].startswith("_Z"):
        assert source_names(parts[0]) == ()
