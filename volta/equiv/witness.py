"""Counterexamples a user believes (issue 28 §2): inputs a GPU run can be given, how far the outputs part, and the
files that carry them.

- Every input value of a witness is a finite value of its buffer's dtype (`input_domain`: the search, the solver
  and the replay round to it, volta/symbolic/domain.py).
- `relative_difference` of the two replayed values, and `below_resolution`: a difference smaller than the output
  dtype's spacing at 1 (f32: 2^-23) is an approximation choice more often than a lost term, and the report says so.
- `save_inputs` writes every input element: an `.npz` with one array per input buffer in its dtype (bf16 as its
  16-bit words, as `volta run --inputs` reads them; each symbol a one-element array), which a GPU harness loads as
  it stands, plus the element in `__counterexample__`; any other name gets the JSON form (exact rationals).
  `load_inputs` reads either back for `volta check --replay`.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np

from volta.errors import UsageError
from volta.launch.spec import DTYPES, LaunchSpec
from volta.numerics.formats import decode, encode
from volta.symbolic.domain import FORMATS, Domain
from volta.symbolic.enclose import Enclosure
from volta.symbolic.evaluate import EvalError
from volta.symbolic.search import values_at

META = "__counterexample__"   # the .npz entry naming the output element: {"buffer": …, "index": …}
WORDS = {"bf16", "e4m3", "e5m2", "tf32"}   # dtypes numpy has no type for: stored as their bit words


def input_domain(spec: LaunchSpec) -> Domain:
    """The float format of each input buffer and float symbol of the pair."""
    formats = {n: b.dtype for n, b in spec.buffers.items() if b.dtype in FORMATS}
    formats.update({n: t for n, t in spec.symbols.items() if t in FORMATS})
    return Domain(formats)


def relative_difference(ref, opt) -> float | None:
    """|ref - opt| / max(|ref|, |opt|) of two replayed values (an enclosure by its midpoint); None when either
    has no number (untouched, undefined)."""
    r, o = _number(ref), _number(opt)
    if r is None or o is None:
        return None
    big = max(abs(r), abs(o))
    return float(abs(r - o) / big) if big else 0.0


def _number(v) -> Fraction | None:
    if isinstance(v, Enclosure):
        return (v.lo + v.hi) / 2
    return Fraction(v) if isinstance(v, (int, Fraction)) else None


SMALL = 1e-3   # a witness whose outputs part by less than this relative amount is worth improving
SCALES = (2, 4, 16, 256, 2 ** 16, 2 ** 32, 2 ** 64, 2 ** 128)


def scaled_models(model: dict, domain: Domain) -> list[dict]:
    """The model with every float input scaled by each of SCALES and rounded to its format: a difference
    that lives past a threshold (a max-pool's sentinel -1e20f, first seen one f32 below it) grows there."""
    floats = [leaf for leaf in model if domain.format_of(leaf) is not None]
    if not floats:
        return []
    return [domain.snap({k: v * s if k in floats else v for k, v in model.items()}) for s in SCALES]


def larger_difference(model: dict, rel: float, domain: Domain, a, b, output: str) -> dict | None:
    """Among `scaled_models`, the least scaled one where the exact values of a and b part by half or more, else
    the one where they part most (at least twice `rel`), or None; both values within the normal range of the
    `output` dtype when it is a float format (exp of a scaled witness could be 1e-331, which no f32 holds).
    Exact evaluation only; the caller replays the kernels on it."""
    best, best_rel = None, 2 * rel
    fmt = FORMATS.get(output)
    for env in scaled_models(model, domain):
        try:
            va, vb = values_at(a, b, env)
        except EvalError:
            continue
        r = relative_difference(va, vb) if va != vb else None
        if fmt is not None and r is not None and not all(fmt.holds(_number(v)) for v in (va, vb)):
            continue
        if r is not None and r > best_rel:
            best, best_rel = env, r
            if r >= 0.5:
                break
    return best


def below_resolution(spec: LaunchSpec, name: str, rel: float | None) -> str | None:
    """The output dtype's name when `rel` is below its resolution (spacing at 1), else None."""
    fmt = FORMATS.get(spec.buffers[name].dtype)
    if rel is None or fmt is None or rel >= fmt.resolution:
        return None
    return fmt.name


# ---- files -------------------------------------------------------------------------------------------------

def save_inputs(cex, path: str | Path, spec: LaunchSpec) -> None:
    """Every input of the counterexample: `.npz` (dtype arrays) or JSON (exact values), by the file's suffix. The
    integer inputs that addresses depend on (`cex.fixed`, volta/equiv/fixed_inputs.py) are listed: the replay
    fixes them to these values again."""
    path = Path(path)
    where = {"buffer": cex.buffer, "index": cex.index, **({"fixed": list(cex.fixed)} if cex.fixed else {})}
    if path.suffix != ".npz":
        data = {k: {str(i): str(v) for i, v in vals.items()} for k, vals in cex.inputs.items()}
        path.write_text(json.dumps({"inputs": data, **where}, indent=1))
        return
    arrays = {META: np.array(json.dumps(where))}
    for name, buf in spec.buffers.items():
        if buf.role in ("in", "inout") or name in cex.fixed:
            values = cex.inputs.get(name, {})
            arrays[name] = _array([values.get(i, Fraction(1)) for i in range(buf.count)], buf.dtype)
    for name, t in spec.symbols.items():
        arrays[name] = _array([cex.inputs.get("__symbols__", {}).get(name, Fraction(1))], t)
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _array(values: list, dtype: str) -> np.ndarray:
    kind = DTYPES[dtype][0]
    if dtype in WORDS:
        return np.array([encode(Fraction(v), dtype) for v in values], kind)
    out = np.array([float(v) if kind().dtype.kind == "f" else int(v) for v in values], kind)
    if kind().dtype.kind == "f" and any(Fraction(float(x)) != Fraction(v) for x, v in zip(out, values)):
        raise ValueError(f"a counterexample value is not a {dtype}")   # never: witnesses are rounded to it
    return out


def load_inputs(spec: LaunchSpec, path: str | Path) -> tuple[dict, str, int, list]:
    """(inputs, buffer, index, fixed integer inputs) of a counterexample file, JSON or `.npz`; a usage error when
    unreadable."""
    path = Path(path)
    try:
        if path.suffix == ".npz":
            return _load_npz(spec, path)
        data = json.loads(path.read_text())
        inputs = {k: {(i if k == "__symbols__" else int(i)): Fraction(v) for i, v in vals.items()}
                  for k, vals in data["inputs"].items()}
        return inputs, data["buffer"], int(data["index"]), list(data.get("fixed", ()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as err:
        raise UsageError(f"cannot read counterexample file {path}: {type(err).__name__}: {err}") from None


def _load_npz(spec: LaunchSpec, path: Path) -> tuple[dict, str, int, list]:
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    meta = json.loads(str(arrays.pop(META)))
    inputs: dict = {"__symbols__": {}}
    for name, arr in arrays.items():
        dtype = spec.symbols.get(name) or (spec.buffers[name].dtype if name in spec.buffers else None)
        values = [_value(x, dtype) for x in arr.reshape(-1).tolist()]
        if name in spec.symbols:
            inputs["__symbols__"][name] = values[0]
        else:
            inputs[name] = dict(enumerate(values))
    return inputs, meta["buffer"], int(meta["index"]), list(meta.get("fixed", ()))


def _value(x, dtype) -> Fraction:
    if dtype in WORDS:
        v = decode(int(x), dtype)
        if not isinstance(v, Fraction):
            raise ValueError(f"a {dtype} input that is not a finite number ({v})")
        return v
    return Fraction(x)
