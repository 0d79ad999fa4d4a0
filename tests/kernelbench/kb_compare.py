"""Run the same torch code on the stand-in (symbolic) and on real torch (CPU, float64) at the same random
values, and compare: the symbolic outputs are evaluated at those values (volta/symbolic/evaluate.py).

    compare(lambda t, x, y: t.nn.functional.gelu(x @ y), Arg((3, 4)), Arg((4, 5)))
    compare_module(lambda nn: nn.Conv2d(2, 3, 3), Arg((1, 2, 5, 5)))

Float inputs are uniform in [lo, hi) (default [-2, 2)); `Arg(shape, "int", lo, hi)` draws integers in
[lo, hi) (a randint input), `Arg(shape, "bool")` booleans (randint(0, 2).bool()). Module parameters and
random buffers get random values on both sides by qualified name.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from volta.kernelbench import reals  # noqa: E402
from volta.kernelbench.problem import name_state  # noqa: E402
from volta.kernelbench.tensor import SymTensor  # noqa: E402
from volta.kernelbench.torchsym import installed, new_run  # noqa: E402
from volta.symbolic import expr as E  # noqa: E402
from volta.symbolic.evaluate import evaluate_float  # noqa: E402


@dataclass(frozen=True)
class Arg:
    shape: tuple
    kind: str = "float"
    lo: float = -2.0
    hi: float = 2.0


def _draw(arg: Arg, rng) -> np.ndarray:
    if arg.kind == "int":
        return rng.integers(int(arg.lo), int(arg.hi), arg.shape)
    if arg.kind == "bool":
        return rng.integers(0, 2, arg.shape)
    return rng.uniform(arg.lo, arg.hi, arg.shape)


def _symbolic_input(t, arg: Arg):
    if arg.kind == "int":
        return t.randint(int(arg.lo), int(arg.hi), arg.shape)
    if arg.kind == "bool":
        return t.randint(0, 2, arg.shape).bool()
    return t.rand(*arg.shape, dtype=t.float64)


def _real_input(value: np.ndarray, arg: Arg):
    if arg.kind == "int":
        return torch.tensor(value, dtype=torch.int64)
    if arg.kind == "bool":
        return torch.tensor(value, dtype=torch.bool)
    return torch.tensor(value, dtype=torch.float64)


def evaluate(t: SymTensor, env: dict) -> np.ndarray:
    memo: dict = {}
    env = {**env, **reals.FLOAT_ENV}
    values = [evaluate_float(v, env, reals.FLOAT_FUNCTIONS, memo) if isinstance(v, E.Expr) else v
              for v in t.values()]
    return np.array(values, dtype=np.float64).reshape(tuple(t.shape))


def _outputs(result) -> list:
    if isinstance(result, (tuple, list)):
        return [r for r in result]
    return [result]


def _assert_close(mine: list, theirs: list, rtol: float, atol: float) -> None:
    assert len(mine) == len(theirs)
    for sym, real in zip(mine, theirs):
        if not isinstance(real, torch.Tensor):
            assert sym == real
            continue
        assert tuple(sym.shape) == tuple(real.shape), (sym.shape, real.shape)
        expected = real.detach().to(torch.float64).numpy() if real.dtype != torch.bool else real.numpy()
        got = sym.values_at
        if real.dtype == torch.bool or not real.dtype.is_floating_point:
            np.testing.assert_array_equal(got, expected.astype(np.float64))
        else:
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol)


def compare(fn, *args: Arg, rtol: float = 1e-7, atol: float = 1e-9, seed: int = 0):
    """fn(torch-like module, *tensors) on both sides; returns the symbolic outputs."""
    rng = np.random.default_rng(seed)
    values = [_draw(a, rng) for a in args]
    run = new_run()
    with installed(run) as t:
        inputs = [_symbolic_input(t, a) for a in args]
        outputs = _outputs(fn(t, *inputs))
    env = {}
    for source, value in zip(run.sources, values):
        for j, v in enumerate(np.asarray(value).reshape(-1)):
            env[E.var(source.storage.name, j)] = float(v)
    for out in outputs:
        if isinstance(out, SymTensor):
            out.values_at = evaluate(out, env)
    real = _outputs(fn(torch, *[_real_input(v, a) for v, a in zip(values, args)]))
    _assert_close(outputs, real, rtol, atol)
    return outputs


def compare_module(make, *args: Arg, rtol: float = 1e-7, atol: float = 1e-9, seed: int = 0, train: bool = True,
                   state: bool = True):
    """make(nn) builds the same module on both sides; parameters and random buffers get the same random
    values; forward on both; outputs (and, with `state`, the buffers after forward) compared."""
    rng = np.random.default_rng(seed)
    values = [_draw(a, rng) for a in args]
    run = new_run()
    with installed(run) as t:
        inputs = [_symbolic_input(t, a) for a in args]
        module = make(t.nn)
        module.train(train)
    real_module = make(torch.nn).to(torch.float64)
    real_module.train(train)
    env = {}
    for source, value in zip(run.sources, values):
        for j, v in enumerate(np.asarray(value).reshape(-1)):
            env[E.var(source.storage.name, j)] = float(v)
    real_state = dict(real_module.named_parameters()) | dict(real_module.named_buffers())
    named = name_state(run, module)             # the leaves problem.py gives: E.var(qualified name, i)
    for name, tensor in named.items():
        chosen = rng.uniform(0.5, 1.5, tuple(tensor.shape)) if "running_var" in name else \
            rng.uniform(-1, 1, tuple(tensor.shape))
        with torch.no_grad():
            real_state[name].copy_(torch.tensor(chosen))
        for j, v in enumerate(chosen.reshape(-1)):
            env[E.var(name, j)] = float(v)
    with installed(run):
        outputs = _outputs(module(*inputs))
    for out in outputs:
        out.values_at = evaluate(out, env)
    real = _outputs(real_module(*[_real_input(v, a) for v, a in zip(values, args)]))
    _assert_close(outputs, real, rtol, atol)
    if state:
        for name, tensor in list(named.items()) + [(n, b) for n, b in module.named_buffers() if n not in named]:
            tensor.values_at = evaluate(tensor, env)
            _assert_close([tensor], [real_state[name]], rtol, atol)
    return outputs
