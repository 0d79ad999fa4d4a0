"""A confirmed counterexample saved for PyTorch: `get_inputs`-shaped arrays in an .npz.

The file holds one array per input of `Model.forward`, named by forward's parameters, in the input's dtype
(`x`, `A`, ...), one per parameter the two models share (`param:linear.weight`), and `volta` — a JSON
string saying which output element differs, both exact values, and every input value exactly (as
`p/q` strings) where the dtype cannot hold it. A user replays it on the real models:

    w = np.load("cex.npz")
    x = torch.tensor(w["x"]).cuda(); model.linear.weight.data = torch.tensor(w["param:linear.weight"]).cuda()
"""
from __future__ import annotations

import json
from fractions import Fraction

import numpy as np

from volta.kernelbench import candidate as C
from volta.kernelbench.tensor import SymTensor

_NUMPY = {"f32": np.float32, "f16": np.float16, "f64": np.float64, "bf16": np.float32, "s8": np.int8,
          "u8": np.uint8, "s16": np.int16, "s32": np.int32, "s64": np.int64, "bool": np.bool_}


def arrays(problem, difference) -> tuple[dict, dict]:
    """(name -> array, name -> {index: "p/q"} for values the array's dtype does not hold exactly). An input is
    get_inputs' tensor at the difference's leaf values: where get_inputs derives it (`torch.rand(n) + 0.5`),
    the derivation evaluated there, not the leaf's value."""
    out, inexact = {}, {}
    tensors = [(n, t, True) for n, t in zip(problem.input_names, problem.inputs)]
    tensors += [(f"param:{n}", t, False) for n, t in problem.parameters.items()]
    for name, t, is_input in tensors:
        if not isinstance(t, SymTensor):
            continue
        leaf = name.removeprefix("param:")
        given = difference.inputs.get(leaf, {})
        dtype = _NUMPY[t.storage.dtype]
        values = (C.element_values(t, difference.inputs) if is_input
                  else [given.get(i, 1) for i in range(t.numel())])
        flat = np.ones(t.numel(), dtype)
        for i, v in enumerate(values):
            if v == 1:
                continue
            flat[i] = dtype(float(v)) if dtype is not np.bool_ else bool(v)
            if isinstance(v, (int, Fraction)) and Fraction(float(flat[i])) != Fraction(v):
                inexact.setdefault(name, {})[str(i)] = str(v)
        out[name] = flat.reshape(tuple(t.shape))
    return out, inexact


def save(path, problem, difference) -> None:
    data, inexact = arrays(problem, difference)
    meta = {"output": difference.output, "index": list(difference.position),
            "reference": str(difference.ref_value), "candidate": str(difference.cand_value),
            "inputs": problem.input_names, "not_exact_in_dtype": inexact}
    np.savez(path, **data, volta=np.array(json.dumps(meta)))
