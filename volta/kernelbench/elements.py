"""Element arithmetic over numpy arrays, in two kits with one interface: symbolic and float.

The torch stand-in computes every op with numpy on arrays of element values. `SymbolicKit` works on object
arrays of Volta expressions (the real run: what a reference means); `FloatKit` on float64/bool arrays
(the dry run that `problem.py` uses to choose sizes: the same op code, shapes and errors, at numpy speed).
An op never asks which kit it has; it calls `kit.add(a, b)`, `kit.exp(a)`, `kit.matmul(a, b)`.

Both kits charge a `Meter` one unit per element an operation produces (a contraction over K, K units
per output element), so the dry run measures what the symbolic run will build, and either run stops
with `BudgetExceeded` past a limit instead of running for hours at benchmark sizes.

Conditions (the results of comparisons) are boolean expressions in the symbolic kit and numpy bools in
the float kit; `number` turns them into 0/1 values and `cond` turns numbers into conditions (`x != 0`).
"""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from volta.errors import Unsupported
from volta.kernelbench import reals
from volta.kernelbench.dtypes import DType
from volta.symbolic import constants as named_constants
from volta.symbolic import expr as E
from volta.symbolic.expr import Expr


class BudgetExceeded(Exception):
    """The run built more element values than its meter allows."""


class Meter:
    """Counts element operations; raises BudgetExceeded past `limit` (None: no limit)."""

    def __init__(self, limit: int | None = None):
        self.used = 0
        self.limit = limit

    def charge(self, n: int) -> None:
        self.used += n
        if self.limit is not None and self.used > self.limit:
            raise BudgetExceeded(f"more than {self.limit} element operations")


class UnwrittenRead(Unsupported):
    """A torch op read an element nothing wrote: UNSUPPORTED in a reference, a finding in a candidate."""


class _Unwritten:
    """Element never written (`torch.empty`); any arithmetic on it is refused."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNWRITTEN"

    def __reduce__(self):
        return (_Unwritten, ())


UNWRITTEN = _Unwritten()


def replace_leaves(values: np.ndarray, replace, memo: dict | None = None) -> np.ndarray:
    """The elements with each leaf that `replace(leaf)` maps to something (not None) replaced by it and the
    rest rebuilt over the replacements: renaming buffers, binding constants, a CUDA graph's placeholders. An
    element over an UNWRITTEN replacement is UNWRITTEN itself (on a GPU: whatever that memory held)."""
    memo = {} if memo is None else memo
    out = np.empty_like(values)
    for j, v in enumerate(values):
        if type(v) is not E.Expr:
            out[j] = v
            continue
        for node in E.postorder(v, memo):
            if node.args:
                args = tuple(memo[c] for c in node.args)
                memo[node] = UNWRITTEN if any(a is UNWRITTEN for a in args) else E.rebuild(node, args)
            else:
                new = replace(node)
                memo[node] = node if new is None else new
        out[j] = memo[v]
    return out


def _size(shape) -> int:
    return math.prod(shape) if isinstance(shape, (tuple, list)) else int(shape)


def _as_array(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _raise_if_unwritten(error: TypeError, arrays) -> None:
    """An op's TypeError on arrays holding an UNWRITTEN element is the read of that element (UnwrittenRead)."""
    if any(isinstance(a, np.ndarray) and a.dtype == object and (a == UNWRITTEN).any() for a in arrays):
        raise UnwrittenRead("the reference reads an element that was never written (torch.empty)") from error


def _symbolic(fn, nin: int):
    ufunc = np.frompyfunc(fn, nin, 1)

    def apply(self, *arrays):
        try:
            out = _as_array(ufunc(*arrays))
        except TypeError as error:
            _raise_if_unwritten(error, arrays)
            raise
        self.meter.charge(out.size)
        return out
    return apply


def _boolean(c) -> Expr:
    if type(c) is Expr:
        return c if c.op in E.BOOLEAN else E.ne(c, 0)
    return E.boolean(bool(c))


def _number(c):
    if type(c) is Expr and c.op in E.BOOLEAN:
        if c.op is E.BOOL:
            return E.ONE if c.data else E.ZERO
        return E.select(c, E.ONE, E.ZERO)
    return c


def _xor(a: Expr, b: Expr) -> Expr:
    return E.logical_or(E.logical_and(a, E.logical_not(b)), E.logical_and(E.logical_not(a), b))


def _rint(mode: str):
    return lambda x: E.rint(x, mode)


def _sign(x) -> Expr:
    return E.select(E.lt(0, x), E.ONE, E.select(E.lt(x, 0), E.MINUS_ONE, E.ZERO))


class SymbolicKit:
    """Object arrays of Volta expressions: what the reference computes, over the reals."""

    symbolic = True

    def __init__(self, meter: Meter):
        self.meter = meter

    # ------------------------------------------------------------ values
    def scalar(self, value, dtype: DType):
        """A Python number as an element of a `dtype` operation (floats rounded as torch rounds them)."""
        if isinstance(value, Expr):
            return value
        if isinstance(value, (bool, np.bool_)):
            return E.boolean(bool(value)) if dtype.category == 0 else E.const(int(value))
        if isinstance(value, float) and not math.isfinite(value):
            raise Unsupported(f"the constant {value} is not a real number (infinities and NaN are not modelled "
                              "in a reference)")
        if dtype.is_floating_point:
            t = ".f64" if dtype.volta == "f64" else ".f32"
            if isinstance(value, float):     # RN(sqrt(2/pi)) is sqrt(2/pi), as a kernel's literal of it is
                named = named_constants.standalone(t, value)
                if named is not None:
                    return named
            return E.const(reals.f64(value) if t == ".f64" else reals.f32(value))
        if isinstance(value, (float, Fraction)):
            return E.const(int(value))    # a float stored into an integer tensor truncates
        return E.const(int(value))

    def full(self, shape, value) -> np.ndarray:
        self.meter.charge(_size(shape))
        out = np.empty(shape, dtype=object)
        out.fill(value)
        return out

    def leaves(self, name: str, n: int) -> np.ndarray:
        self.meter.charge(n)
        out = np.empty(n, dtype=object)
        out[:] = [E.var(name, j) for j in range(n)]
        return out

    def unwritten(self, n: int) -> np.ndarray:
        return self.full(n, UNWRITTEN)

    def from_numbers(self, array) -> np.ndarray:
        """A concrete numpy array (arange, a constant tensor) as element values."""
        array = np.asarray(array)
        out = np.empty(array.shape, dtype=object)
        if array.dtype == np.bool_:
            out[...] = np.vectorize(E.boolean, otypes=[object])(array) if array.size else out
        else:
            flat = out.reshape(-1)
            flat[:] = [E.const(x.item() if hasattr(x, "item") else x) for x in array.reshape(-1)]
        return out

    def constant_value(self, element):
        """The Python number an element is, or None when it depends on inputs."""
        if type(element) is Expr and element.op in (E.CONST, E.BOOL):
            return element.data
        return None

    number = _symbolic(_number, 1)
    cond = _symbolic(_boolean, 1)

    # ------------------------------------------------------------ arithmetic
    add = _symbolic(E.add, 2)
    sub = _symbolic(E.sub, 2)
    mul = _symbolic(E.mul, 2)
    div = _symbolic(E.div, 2)
    neg = _symbolic(E.neg, 1)
    maximum = _symbolic(E.maximum, 2)
    minimum = _symbolic(E.minimum, 2)
    abs = _symbolic(E.absolute, 1)
    sign = _symbolic(_sign, 1)
    where = _symbolic(E.select, 3)
    lt = _symbolic(E.lt, 2)
    le = _symbolic(E.le, 2)
    gt = _symbolic(E.gt, 2)
    ge = _symbolic(E.ge, 2)
    eq = _symbolic(E.eq, 2)
    ne = _symbolic(E.ne, 2)
    logical_and = _symbolic(E.logical_and, 2)
    logical_or = _symbolic(E.logical_or, 2)
    logical_xor = _symbolic(_xor, 2)
    logical_not = _symbolic(E.logical_not, 1)
    exp = _symbolic(reals.exp, 1)
    exp2 = _symbolic(E.exp2, 1)
    log = _symbolic(reals.log, 1)
    log2 = _symbolic(E.lg2, 1)
    sqrt = _symbolic(E.sqrt, 1)
    rsqrt = _symbolic(E.rsqrt, 1)
    tanh = _symbolic(reals.tanh, 1)
    erf = _symbolic(reals.erf, 1)
    sin = _symbolic(E.sin, 1)
    cos = _symbolic(E.cos, 1)
    floor = _symbolic(_rint(".rmi"), 1)
    ceil = _symbolic(_rint(".rpi"), 1)
    trunc = _symbolic(_rint(".rzi"), 1)
    round = _symbolic(_rint(".rni"), 1)

    def power(self, a: np.ndarray, exponent) -> np.ndarray:
        """a ** exponent for a constant exponent."""
        return _symbolic(lambda x: reals.power(x, exponent), 1)(self, a)

    # ------------------------------------------------------------ contractions and reductions
    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """numpy's matmul over stacks of matrices (both at least 2-D); K units per output element."""
        shape = _matmul_shape(a, b)
        self.meter.charge(math.prod(shape) * max(a.shape[-1], 1))
        if a.shape[-1] == 0:
            return self.full(shape, E.ZERO)
        return _as_array(np.matmul(a, b))

    _REDUCERS = {"add": np.frompyfunc(E.add, 2, 1), "mul": np.frompyfunc(E.mul, 2, 1),
                 "max": np.frompyfunc(E.maximum, 2, 1), "min": np.frompyfunc(E.minimum, 2, 1),
                 "and": np.frompyfunc(E.logical_and, 2, 1), "or": np.frompyfunc(E.logical_or, 2, 1)}
    _IDENTITIES = {"add": E.ZERO, "mul": E.ONE, "and": E.TRUE, "or": E.FALSE}

    def reduce(self, name: str, a: np.ndarray, axis: int) -> np.ndarray:
        self.meter.charge(a.size)
        if a.shape[axis] == 0:
            identity = self._IDENTITIES.get(name)
            if identity is None:
                raise Unsupported(f"a {name} reduction over an empty dimension")
            return self.full(a.shape[:axis] + a.shape[axis + 1:], identity)
        try:
            return _as_array(self._REDUCERS[name].reduce(a, axis=axis))
        except TypeError as error:   # (a sum or max over an element never written)
            _raise_if_unwritten(error, (a,))
            raise

    def accumulate(self, name: str, a: np.ndarray, axis: int) -> np.ndarray:
        self.meter.charge(a.size)
        if a.shape[axis] == 0:
            return a.copy()
        try:
            return _as_array(self._REDUCERS[name].accumulate(a, axis=axis, dtype=object))
        except TypeError as error:
            _raise_if_unwritten(error, (a,))
            raise


def _matmul_shape(a: np.ndarray, b: np.ndarray) -> tuple:
    return np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])


def _float_cond(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == np.bool_ else a != 0


def _float_unary(fn):
    def apply(self, a):
        with np.errstate(all="ignore"):
            out = np.asarray(fn(a), dtype=np.float64)
        self.meter.charge(out.size)
        return out
    return apply


def _float_binary(fn, out_type=np.float64):
    def apply(self, a, b):
        with np.errstate(all="ignore"):
            out = np.asarray(fn(a, b), dtype=out_type)
        self.meter.charge(out.size)
        return out
    return apply


_erf = np.vectorize(math.erf, otypes=[np.float64])


class FloatKit:
    """float64 and bool arrays: the dry run. Same shapes and errors as the symbolic run, no expressions."""

    symbolic = False

    def __init__(self, meter: Meter, seed: int = 0):
        self.meter = meter
        self.rng = np.random.default_rng(seed)

    def scalar(self, value, dtype: DType):
        if isinstance(value, (bool, np.bool_)):
            return bool(value) if dtype.category == 0 else float(value)
        if isinstance(value, float) and not math.isfinite(value):
            raise Unsupported(f"the constant {value} is not a real number (infinities and NaN are not modelled "
                              "in a reference)")
        return float(np.float32(value)) if dtype.is_floating_point and dtype.volta != "f64" else float(value)

    def full(self, shape, value) -> np.ndarray:
        self.meter.charge(_size(shape))
        return np.full(shape, value, dtype=np.bool_ if isinstance(value, bool) else np.float64)

    def leaves(self, name: str, n: int) -> np.ndarray:
        self.meter.charge(n)
        return self.rng.uniform(-1.0, 1.0, n)

    def unwritten(self, n: int) -> np.ndarray:
        return self.full(n, math.nan)

    def from_numbers(self, array) -> np.ndarray:
        array = np.asarray(array)
        return array.astype(np.bool_ if array.dtype == np.bool_ else np.float64)

    def constant_value(self, element):
        """Every value of the dry run is concrete (its indexing decisions are rechecked symbolically)."""
        return element.item() if hasattr(element, "item") else element

    def number(self, a):
        return np.asarray(a, dtype=np.float64)

    def cond(self, a):
        return _float_cond(np.asarray(a))

    add = _float_binary(np.add)
    sub = _float_binary(np.subtract)
    mul = _float_binary(np.multiply)
    div = _float_binary(np.divide)
    neg = _float_unary(np.negative)
    maximum = _float_binary(np.maximum)
    minimum = _float_binary(np.minimum)
    abs = _float_unary(np.abs)
    sign = _float_unary(np.sign)
    lt = _float_binary(np.less, np.bool_)
    le = _float_binary(np.less_equal, np.bool_)
    gt = _float_binary(np.greater, np.bool_)
    ge = _float_binary(np.greater_equal, np.bool_)
    eq = _float_binary(np.equal, np.bool_)
    ne = _float_binary(np.not_equal, np.bool_)
    logical_and = _float_binary(np.logical_and, np.bool_)
    logical_or = _float_binary(np.logical_or, np.bool_)
    logical_xor = _float_binary(np.logical_xor, np.bool_)
    exp = _float_unary(np.exp)
    exp2 = _float_unary(np.exp2)
    log = _float_unary(np.log)
    log2 = _float_unary(np.log2)
    sqrt = _float_unary(np.sqrt)
    rsqrt = _float_unary(lambda a: 1.0 / np.sqrt(a))
    tanh = _float_unary(np.tanh)
    erf = _float_unary(_erf)
    sin = _float_unary(np.sin)
    cos = _float_unary(np.cos)
    floor = _float_unary(np.floor)
    ceil = _float_unary(np.ceil)
    trunc = _float_unary(np.trunc)
    round = _float_unary(np.round)

    def logical_not(self, a):
        out = np.logical_not(a)
        self.meter.charge(out.size)
        return out

    def where(self, c, a, b):
        out = np.where(c, a, b)
        self.meter.charge(out.size)
        return out

    def power(self, a, exponent):
        with np.errstate(all="ignore"):
            out = np.power(np.asarray(a, dtype=np.float64), float(exponent))
        self.meter.charge(out.size)
        return out

    def matmul(self, a, b):
        self.meter.charge(math.prod(_matmul_shape(a, b)) * max(a.shape[-1], 1))
        return np.matmul(np.asarray(a, np.float64), np.asarray(b, np.float64))

    _REDUCERS = {"add": np.add, "mul": np.multiply, "max": np.maximum, "min": np.minimum,
                 "and": np.logical_and, "or": np.logical_or}

    def reduce(self, name: str, a, axis: int):
        self.meter.charge(a.size)
        if a.shape[axis] == 0 and name in ("max", "min"):
            raise Unsupported(f"a {name} reduction over an empty dimension")
        if name in ("and", "or"):
            return np.asarray(self._REDUCERS[name].reduce(np.asarray(a, np.bool_), axis=axis))
        return np.asarray(self._REDUCERS[name].reduce(np.asarray(a, np.float64), axis=axis))

    def accumulate(self, name: str, a, axis: int):
        self.meter.charge(a.size)
        return self._REDUCERS[name].accumulate(np.asarray(a, np.float64), axis=axis)
