"""Units of the later calls (volta/kernelbench/calls.py): renaming back to call 1's proof, storage reuse."""
import numpy as np

from volta.config import IntegerInputs
from volta.kernelbench import calls as S
from volta.kernelbench.torchsym import installed, new_run
from volta.symbolic import expr as E


def _out(*elements):
    values = np.empty(len(elements), object)
    values[:] = elements
    return S._Renamed((len(elements),), values)


def test_a_renamed_pair_is_decided_by_call_1s_proof():
    x, w, x2 = E.var("x", 0), E.var("w", 0), E.var("x@2", 0)
    proved = [(np.array([E.mul(x, w)], object), np.array([E.mul(w, x)], object))]
    refs, cands, same = S.shortcut(proved, [_out(E.mul(x2, w))], [_out(E.mul(w, x2))], {"x@2": "x"}, {"x"})
    assert same == 1 and refs[0].values()[0] is cands[0].values()[0] is S.DECIDED


def test_a_pair_reading_an_earlier_calls_leaf_is_decided_on_its_own():
    x, w, x2 = E.var("x", 0), E.var("w", 0), E.var("x@2", 0)
    proved = [(np.array([E.add(x, w)], object), np.array([E.add(x, w)], object))]
    stale_candidate = E.add(x, w)                       # call 1's result returned again
    refs, cands, same = S.shortcut(proved, [_out(E.add(x2, w))], [_out(stale_candidate)], {"x@2": "x"}, {"x"})
    assert same == 0 and cands[0].values()[0] is stale_candidate


def test_a_pair_unlike_call_1s_is_decided_on_its_own():
    x, x2 = E.var("x", 0), E.var("x@2", 0)
    proved = [(np.array([E.add(x, 1)], object), np.array([E.add(x, 1)], object))]
    _, _, same = S.shortcut(proved, [_out(E.add(x2, 1))], [_out(E.add(x2, 2))], {"x@2": "x"}, {"x"})
    assert same == 0


def test_integer_inputs_get_their_later_names():
    integers = S.integers_for(IntegerInputs.of({"idx": (0, 3)}), 3)
    assert integers.range_of("idx@2") == (0, 3) and integers.range_of("idx@3") == (0, 3)


def test_inputs_reuse_free_storage_only():
    run = new_run()
    with installed(run) as torch:
        class Keeper(torch.nn.Module):
            pass
        model = Keeper()
        kept, free, viewed = torch.rand(2), torch.rand(2), torch.rand(2)
        model._kept = kept
        fresh = [torch.rand(2), torch.rand(2), torch.rand(2)]
        inputs, reused = S.candidate_inputs([kept, free, viewed], fresh, model, [viewed.view(2)])
    assert reused == [1]
    assert inputs[1].storage is free.storage and inputs[1].storage.values[0] is fresh[1].storage.values[0]
    assert inputs[0] is fresh[0] and inputs[2] is fresh[2]


def test_held_paths_name_every_attribute():
    run = new_run()
    with installed(run) as torch:
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = torch.nn.Linear(2, 2)
                self._cache = {"k": torch.rand(1)}
                self.buffers_ = [torch.rand(1)]
        paths = {p for p, _ in S.held_paths(M())}
    assert {"self.lin.weight", "self.lin.bias", "self._cache['k']", "self.buffers_[0]"} <= paths
