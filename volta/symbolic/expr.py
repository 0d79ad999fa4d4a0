"""Hash-consed expression DAG over the reals: the symbolic values the executor computes.

Every node is interned, so structural equality is identity (`a is b`) and sharing is free.
The intern table is swept between checks (`sweep`): a node nothing outside the table holds is dropped
(a later node of the same structure is a new object with a new id), so a long-lived process keeps only
what is in use, and building a node costs what a plain dict entry costs. Node ids come from a counter and
are never reused. A normal form names its leaves and atoms by id (normal.py), so those are pinned (`pin`,
`NODES`): kept for the process, found again by id.
Constructors fold constants exactly (Fractions) and sort the arguments of commutative
operators by node id, so `add(a, b) is add(b, a)`. They stay binary and do no flattening:
building an accumulator chain of a million steps is one dict lookup and one tuple per step.
Deeper canonicalization belongs to `normal.py`.
"""
from __future__ import annotations

import itertools
import math
import sys
from enum import IntEnum
from fractions import Fraction
from typing import Callable, Iterable, Mapping

from volta.config import IntegerInputs


class Op(IntEnum):
    """Node kinds. Property groups below let code ask "is this commutative?" instead of listing."""

    CONST = 0
    BOOL = 1
    VAR = 2      # input buffer element: data = (buffer, index)
    SYM = 3      # named real symbol (alpha, a scalar argument left symbolic): data = name
    ADD = 4
    MUL = 5
    DIV = 6
    EXP2 = 7
    MAX = 8
    MIN = 9
    ABS = 10
    SELECT = 11  # args = (cond, a, b)
    SQRT = 12
    RSQRT = 13
    RCP_APPROX = 14
    TANH = 15
    SIN = 16
    COS = 17
    LG2 = 18
    CALL = 19    # uninterpreted function: data = name
    LT = 20
    LE = 21
    EQ = 22
    NE = 23
    AND = 24
    OR = 25
    NOT = 26
    FLOOR_LOG2 = 27  # floor(log2 q) for q > 0: the exponent a float's bit field holds (libdevice logf)
    RINT = 28        # a real rounded to an integer (cvt.rni/.rzi/.rmi/.rpi): data = the PTX rounding mode


# Module-level aliases: `Op.ADD` is an enum attribute lookup (~250 ns), `ADD` a global (~10 ns).
(CONST, BOOL, VAR, SYM, ADD, MUL, DIV, EXP2, MAX, MIN, ABS, SELECT, SQRT, RSQRT, RCP_APPROX,
 TANH, SIN, COS, LG2, CALL, LT, LE, EQ, NE, AND, OR, NOT, FLOOR_LOG2, RINT) = tuple(Op)

LEAVES = frozenset({CONST, BOOL, VAR, SYM})
COMMUTATIVE = frozenset({ADD, MUL, MAX, MIN, EQ, NE, AND, OR})
COMPARISONS = frozenset({LT, LE, EQ, NE})
BOOLEAN = COMPARISONS | {AND, OR, NOT, BOOL}
# Operators outside + - * / exp2: normalized over normalized arguments, then opaque.
ATOMS = frozenset({MAX, MIN, ABS, SELECT, SQRT, RSQRT, RCP_APPROX,
                   TANH, SIN, COS, LG2, CALL, FLOOR_LOG2, RINT})
UNARY_ATOMS = frozenset({ABS, SQRT, RSQRT, RCP_APPROX, TANH, SIN, COS, LG2, FLOOR_LOG2})
# Operators undefined somewhere over the reals (x/0, sqrt of a negative, log of a non-positive; a call: unknown).
PARTIAL = frozenset({DIV, SQRT, RSQRT, LG2, FLOOR_LOG2, RCP_APPROX, CALL})


class Expr:
    """An interned node. Never construct directly: use the functions below."""

    __slots__ = ("op", "args", "data", "id")

    op: Op
    args: tuple
    data: object
    id: int

    def __repr__(self) -> str:
        return to_str(self, depth=6)

    # Arithmetic sugar for tests and callers; `==` stays identity on purpose.
    def __add__(self, o): return add(self, o)
    def __radd__(self, o): return add(o, self)
    def __sub__(self, o): return sub(self, o)
    def __rsub__(self, o): return sub(o, self)
    def __mul__(self, o): return mul(self, o)
    def __rmul__(self, o): return mul(o, self)
    def __truediv__(self, o): return div(self, o)
    def __rtruediv__(self, o): return div(o, self)
    def __neg__(self): return neg(self)


_TABLE: dict[tuple, Expr] = {}     # (op, args, data) -> its node, in creation order (ascending id)
_IDS = itertools.count()          # node ids: creation order, the stable sort key for commutative args
NODES: dict[int, Expr] = {}       # pinned nodes by id: the leaves and atoms normal forms name by id


def _make(op: Op, args: tuple, data: object = None) -> Expr:
    if op is CONST:       # a constant's key holds its value as a pair of ints (`const`), whoever builds it
        return const(data)
    key = (op, args, data)
    node = _TABLE.get(key)
    if node is None:
        node = object.__new__(Expr)
        node.op, node.args, node.data, node.id = op, args, data, next(_IDS)
        _TABLE[key] = node
    return node


# CPython counts references exactly (a build without the GIL may defer counts: there nothing is swept).
_EXACT_REFCOUNTS = getattr(sys, "_is_gil_enabled", lambda: True)()


def sweep() -> int:
    """Drop every node that nothing outside the intern table holds, and return how many were dropped.

    Nobody can observe a dropped node (nothing refers to it), so identical structure still means the
    identical object among the nodes anyone holds. The table is in creation order, children before
    parents; walking it backwards, a dropped parent releases its children before they are looked at, so
    a dead chain of any length goes in one pass. Called between checks (equiv.check); between two sweeps
    nodes are never freed, which is also what keeps building a node as cheap as one dict entry (a table of
    weak references cost 2x per node made and freed, see docs/DECISIONS.md)."""
    if not _EXACT_REFCOUNTS:
        return 0
    table, nodes = _TABLE, list(_TABLE.values())
    pop, count = nodes.pop, sys.getrefcount
    dropped, node = 0, None
    while nodes:
        node = pop()
        if count(node) <= 3:   # the table, `node`, and getrefcount's argument
            del table[_table_key(node)]
            dropped += 1
    del node
    if dropped > len(table):   # a dict keeps its largest size: rebuild it compactly
        kept = dict(table)
        table.clear()
        table.update(kept)
    return dropped


def pin(node: Expr) -> Expr:
    """Keep node for the process and findable by id (`NODES[node.id]`): for a leaf or an atom a normal
    form names by its id."""
    NODES[node.id] = node
    return node


def node_count() -> int:
    """How many distinct nodes the table holds (for benchmarks and memory reports)."""
    return len(_TABLE)


# ---------------------------------------------------------------- leaves

def const(value) -> Expr:
    """A rational constant; floats are taken exactly (every binary float is a rational).

    Constant nodes are keyed by their (numerator, denominator) pair of ints, in the intern table and in
    `_CONSTS`, never by the Fraction: a Fraction's hash is computed anew each time (~1 µs, a modular
    inverse), a pair of small ints' in ~0.1 µs, and a concrete run folds millions of constants."""
    kind = type(value)
    if kind is Expr:
        return value
    if kind is Fraction:
        pair = (value.numerator, value.denominator)
    elif kind is int:
        pair = (value, 1)
    elif kind is bool:
        raise TypeError("use boolean() for truth values")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} is not a real number")
        pair = float(value).as_integer_ratio()
    else:                  # a numpy integer, a Decimal, a Fraction subclass; a numpy float32/float16 as a float
        try:
            exact = Fraction(value)
        except TypeError:
            exact = const(float(value)).data
        pair = (exact.numerator, exact.denominator)
    node = _CONSTS.get(pair)
    if node is not None:
        return node
    key = (CONST, (), pair)
    node = _TABLE.get(key)
    if node is None:
        node = object.__new__(Expr)
        node.op, node.args, node.id = CONST, (), next(_IDS)
        node.data = value if kind is Fraction else Fraction(*pair)
        _TABLE[key] = node
    if len(_CONSTS) < 1 << 16:
        _CONSTS[pair] = node
    return node


# (numerator, denominator) -> node, held for the process: the common small constants, found without
# building the table's key
_CONSTS: dict = {}


def _table_key(node: Expr) -> tuple:
    """The intern table's key of `node` (a constant's holds its value as a pair of ints: `const`)."""
    if node.op is CONST:
        return CONST, (), (node.data.numerator, node.data.denominator)
    return node.op, node.args, node.data


def boolean(value: bool) -> Expr:
    return _make(BOOL, (), bool(value))


def var(buffer: str, index: int) -> Expr:
    """Element `index` of input buffer `buffer`."""
    return _make(VAR, (), (buffer, int(index)))


def var_range(buffer: str, start: int, stop: int, into: dict) -> dict:
    """Elements `start` .. `stop - 1` of `buffer`, put into `into` by index: `_make` inlined, for a loop
    reading a buffer in order (half the cost of one `var` call each)."""
    table, ids, new = _TABLE, _IDS, object.__new__
    for i in range(start, stop):
        key = (VAR, (), (buffer, i))
        node = table.get(key)
        if node is None:
            node = new(Expr)
            node.op, node.args, node.data, node.id = VAR, (), key[2], next(ids)
            table[key] = node
        into[i] = node
    return into


def integer_range(n: Expr, integers: IntegerInputs) -> tuple[int, int] | None:
    """The range of an integer input leaf (None: not one, or no range known)."""
    if n.op is VAR:
        return integers.range_of(n.data[0])
    return integers.range_of(n.data) if n.op is SYM else None


def is_integer_leaf(n: Expr, integers: IntegerInputs) -> bool:
    """Is n an element of an integer input buffer, or an integer symbol (volta/config.py: IntegerInputs)?"""
    return bool(integers) and (n.op is VAR and n.data[0] in integers or n.op is SYM and n.data in integers)


def has_integer_leaf(root: Expr, integers: IntegerInputs) -> bool:
    """Whether an expression reads an integer input (memoized per node in `integers`)."""
    if not integers:
        return False
    memo = integers.memo
    hit = memo.get(root)
    if hit is None:
        for node in postorder(root, memo):
            memo[node] = is_integer_leaf(node, integers) or any(memo[c] for c in node.args)
        hit = memo[root]
    return hit


def sym(name: str) -> Expr:
    return _make(SYM, (), name)


ZERO = const(0)
ONE = const(1)
MINUS_ONE = const(-1)
TRUE = boolean(True)
FALSE = boolean(False)


def _lift(x) -> Expr:
    return x if type(x) is Expr else const(x)


# ---------------------------------------------------------------- arithmetic

def add(a, b) -> Expr:
    if type(a) is not Expr: a = const(a)
    if type(b) is not Expr: b = const(b)
    if a.op is CONST:
        if b.op is CONST:
            return const(a.data + b.data)
        if a.data == 0:
            return b
    elif b.op is CONST and b.data == 0:
        return a
    if a.id > b.id:
        a, b = b, a
    return _make(ADD, (a, b))


def mul(a, b) -> Expr:
    if type(a) is not Expr: a = const(a)
    if type(b) is not Expr: b = const(b)
    if a.op is CONST:
        if b.op is CONST:
            return const(a.data * b.data)
        if a.data == 1:
            return b
        if a.data == 0:
            return a
    elif b.op is CONST:
        if b.data == 1:
            return a
        if b.data == 0:
            return b
    elif a.op is EXP2 and b.op is EXP2:
        # rule exp2-mul-fold: 2^a·2^b = 2^(a+b). Full-precision expf is 2^(x·c − n)·2^n; folded, its
        # exponent evaluates exactly to x·c (n cancels), so exact replay can confirm a difference.
        return exp2(add(a.args[0], b.args[0]))
    if a.id > b.id:
        a, b = b, a
    return _make(MUL, (a, b))


def neg(a) -> Expr:
    return mul(MINUS_ONE, a)


def sub(a, b) -> Expr:
    return add(a, neg(b))


def div(a, b) -> Expr:
    """a / b; real semantics are partial: undefined where b = 0 (see proofs/README.md)."""
    a, b = _lift(a), _lift(b)
    if b.op is CONST and b.data != 0:
        return mul(a, const(1 / b.data))
    if a.op is CONST and b.op is CONST:
        return _make(DIV, (a, b))  # c/0: undefined everywhere, kept so evaluation says so
    return _make(DIV, (a, b))  # no x/x -> 1: that would drop the definedness condition x != 0


def fma(a, b, c) -> Expr:
    if type(a) is Expr and type(b) is Expr and type(c) is Expr and not (
            a.op is CONST or b.op is CONST or c.op is CONST or a.op is EXP2 and b.op is EXP2):
        # the common case (a sum of products of data), without the folds' tests: what mul and add build
        key = (MUL, (a, b) if a.id < b.id else (b, a), None)   # _make, inlined
        p = _TABLE.get(key)
        if p is None:
            p = object.__new__(Expr)
            p.op, p.args, p.data, p.id = MUL, key[1], None, next(_IDS)
            _TABLE[key] = p
        return _make(ADD, (p, c) if p.id < c.id else (c, p))
    return add(mul(a, b), c)


def exp2(a) -> Expr:
    a = _lift(a)
    if a.op is CONST and a.data.denominator == 1:
        return const(Fraction(2) ** int(a.data))
    return _make(EXP2, (a,))


def add_all(items: Iterable) -> Expr:
    """Left-to-right sum (a chain, as a sequential loop builds it)."""
    acc = ZERO
    for x in items:
        acc = add(acc, x)
    return acc


# ---------------------------------------------------------------- atoms

def maximum(a, b) -> Expr:
    a, b = _lift(a), _lift(b)
    if a is b:
        return a
    if a.op is CONST and b.op is CONST:
        return a if a.data >= b.data else b
    if a.id > b.id:
        a, b = b, a
    return _make(MAX, (a, b))


def minimum(a, b) -> Expr:
    a, b = _lift(a), _lift(b)
    if a is b:
        return a
    if a.op is CONST and b.op is CONST:
        return a if a.data <= b.data else b
    if a.id > b.id:
        a, b = b, a
    return _make(MIN, (a, b))


def absolute(a) -> Expr:
    a = _lift(a)
    if a.op is CONST:
        return const(abs(a.data))
    if a.op is ABS:
        return a
    return _make(ABS, (a,))


def select(cond: Expr, a, b) -> Expr:
    """cond ? a : b, with cond a boolean node. Between truth values it is (cond && a) || (!cond && b), so a
    predicate merged by if-conversion stays a boolean node (a condition for the next select)."""
    a, b = _lift(a), _lift(b)
    if cond.op is not BOOL and cond.op not in BOOLEAN:
        raise TypeError("select needs a boolean condition")
    if cond is TRUE or a is b:
        return a
    if cond is FALSE:
        return b
    if a.op in BOOLEAN and b.op in BOOLEAN:
        return logical_or(logical_and(cond, a), logical_and(logical_not(cond), b))
    return _make(SELECT, (cond, a, b))


def _perfect_square(n: int) -> int | None:
    r = math.isqrt(n)
    return r if r * r == n else None


def exact_sqrt(x: Fraction) -> Fraction | None:
    """sqrt of a non-negative rational when it is rational, else None."""
    if x < 0:
        return None
    p, q = _perfect_square(x.numerator), _perfect_square(x.denominator)
    return None if p is None or q is None else Fraction(p, q)


def sqrt(a) -> Expr:
    a = _lift(a)
    if a.op is CONST and (r := exact_sqrt(a.data)) is not None:
        return const(r)
    return _make(SQRT, (a,))


def rsqrt(a) -> Expr:
    a = _lift(a)
    if a.op is CONST and a.data > 0 and (r := exact_sqrt(a.data)) is not None:
        return const(1 / r)
    return _make(RSQRT, (a,))


def rcp_approx(a) -> Expr:
    """rcp.approx kept opaque: its real meaning (1/x or a model) is the executor's choice."""
    return _make(RCP_APPROX, (_lift(a),))


def _unary(op: Op, a, zero_value: int | None) -> Expr:
    a = _lift(a)
    if zero_value is not None and a.op is CONST and a.data == 0:
        return const(zero_value)
    return _make(op, (a,))


def tanh(a) -> Expr: return _unary(TANH, a, 0)
def sin(a) -> Expr: return _unary(SIN, a, 0)
def cos(a) -> Expr: return _unary(COS, a, 1)


def exact_lg2(x: Fraction) -> int | None:
    """log2 of a positive rational when it is an integer power of two, else None."""
    if x <= 0:
        return None
    n, d = x.numerator, x.denominator
    if d == 1 and n & (n - 1) == 0:
        return n.bit_length() - 1
    if n == 1 and d & (d - 1) == 0:
        return -(d.bit_length() - 1)
    return None


def lg2(a) -> Expr:
    a = _lift(a)
    if a.op is CONST and (k := exact_lg2(a.data)) is not None:
        return const(k)
    return _make(LG2, (a,))


def exact_floor_log2(x: Fraction) -> int | None:
    """floor(log2 x) of a positive rational, exactly (None for x <= 0)."""
    if x <= 0:
        return None
    n, d = x.numerator, x.denominator
    k = n.bit_length() - d.bit_length()   # 2^(k-1) < n/d < 2^(k+1)
    return k if (n << max(-k, 0)) >= (d << max(k, 0)) else k - 1


def floor_log2(a) -> Expr:
    """floor(log2 a): the unbiased exponent of a positive a (a's float is 2^k times a mantissa in
    [1, 2)). Partial: undefined for a <= 0, like lg2."""
    a = _lift(a)
    if a.op is CONST and (k := exact_floor_log2(a.data)) is not None:
        return const(k)
    return _make(FLOOR_LOG2, (a,))


ROUNDINGS = (".rni", ".rzi", ".rmi", ".rpi")   # to nearest (ties to even), toward zero, down, up


def exact_rint(x: Fraction, mode: str) -> int:
    """x rounded to an integer in the PTX rounding mode, exactly."""
    x = Fraction(x)
    down = x.numerator // x.denominator
    if mode == ".rmi" or x == down:
        return down
    if mode == ".rpi":
        return down + 1
    if mode == ".rzi":
        return down if x > 0 else down + 1
    twice = 2 * (x - down)            # .rni: nearest, ties to the even neighbour
    return down if twice < 1 or (twice == 1 and down % 2 == 0) else down + 1


def rint(a, mode: str) -> Expr:
    """a rounded to an integer (mode one of ROUNDINGS): total, piecewise constant."""
    if mode not in ROUNDINGS:
        raise ValueError(f"unknown integer rounding {mode}")
    a = _lift(a)
    if a.op is CONST:
        return const(exact_rint(a.data, mode))
    if a.op is RINT:
        return a          # already an integer: every rounding keeps it
    return _make(RINT, (a,), mode)


def call(name: str, *args) -> Expr:
    """Uninterpreted function application: equal arguments give equal results."""
    return _make(CALL, tuple(_lift(x) for x in args), name)


def unary(op: Op, a) -> Expr:
    """Build a unary atom by op (used by the normalizer when it rebuilds atoms)."""
    return _UNARY_BUILDERS[op](a)


_UNARY_BUILDERS: dict[Op, Callable] = {
    ABS: absolute, SQRT: sqrt, RSQRT: rsqrt, RCP_APPROX: rcp_approx,
    TANH: tanh, SIN: sin, COS: cos, LG2: lg2, EXP2: exp2, FLOOR_LOG2: floor_log2,
}


# ---------------------------------------------------------------- comparisons and logic

def _cmp_const(op: Op, x: Fraction, y: Fraction) -> bool:
    return {LT: x < y, LE: x <= y, EQ: x == y, NE: x != y}[op]


def _compare(op: Op, a, b) -> Expr:
    a, b = _lift(a), _lift(b)
    if a.op is CONST and b.op is CONST:
        return boolean(_cmp_const(op, a.data, b.data))
    if a is b:
        return boolean(op in (LE, EQ))
    if op in COMMUTATIVE and a.id > b.id:
        a, b = b, a
    return _make(op, (a, b))


def lt(a, b) -> Expr: return _compare(LT, a, b)
def le(a, b) -> Expr: return _compare(LE, a, b)
def gt(a, b) -> Expr: return _compare(LT, b, a)
def ge(a, b) -> Expr: return _compare(LE, b, a)
def eq(a, b) -> Expr: return _compare(EQ, a, b)
def ne(a, b) -> Expr: return _compare(NE, a, b)


def logical_not(c: Expr) -> Expr:
    if c.op is BOOL:
        return boolean(not c.data)
    if c.op is NOT:
        return c.args[0]
    return _make(NOT, (c,))


def _logic(op: Op, a: Expr, b: Expr) -> Expr:
    absorbing, neutral = (FALSE, TRUE) if op is AND else (TRUE, FALSE)
    if a is absorbing or b is absorbing:
        return absorbing
    if a is neutral or a is b:
        return b
    if b is neutral:
        return a
    if a.id > b.id:
        a, b = b, a
    return _make(op, (a, b))


def logical_and(a: Expr, b: Expr) -> Expr: return _logic(AND, a, b)
def logical_or(a: Expr, b: Expr) -> Expr: return _logic(OR, a, b)


def rebuild(node: Expr, args: tuple) -> Expr:
    """The same operator as `node` over new arguments, through the folding constructors."""
    return _REBUILD[node.op](node, args)


_REBUILD: dict[Op, Callable] = {
    ADD: lambda n, a: add(*a), MUL: lambda n, a: mul(*a), DIV: lambda n, a: div(*a),
    EXP2: lambda n, a: exp2(*a), MAX: lambda n, a: maximum(*a),
    MIN: lambda n, a: minimum(*a), SELECT: lambda n, a: select(*a),
    CALL: lambda n, a: call(n.data, *a), RINT: lambda n, a: rint(a[0], n.data),
    LT: lambda n, a: lt(*a), LE: lambda n, a: le(*a), EQ: lambda n, a: eq(*a),
    NE: lambda n, a: ne(*a), AND: lambda n, a: logical_and(*a),
    OR: lambda n, a: logical_or(*a), NOT: lambda n, a: logical_not(*a),
    **{op: (lambda n, a, f=f: f(*a)) for op, f in _UNARY_BUILDERS.items()},
}


# ---------------------------------------------------------------- traversal

def postorder(root: Expr, done: Mapping | set = frozenset()) -> list[Expr]:
    """Nodes reachable from root not in `done`, children before parents; iterative.

    A child is always interned before its parent, so ascending id is a topological order.
    """
    if root in done:
        return []
    seen = {root}
    stack = [root]
    pop, push, mark = stack.pop, stack.append, seen.add
    while stack:
        for child in pop().args:
            if child not in seen and child not in done:
                mark(child)
                push(child)
    return sorted(seen, key=_node_id)


def substitute(root: Expr, mapping: Mapping) -> Expr:
    """root with every node in `mapping` replaced by its image, rebuilt through the folding constructors
    (the composition of root, as a function of those nodes, with the images)."""
    memo: dict[Expr, Expr] = {}
    for n in postorder(root):
        image = mapping.get(n)
        if image is not None:
            memo[n] = image
        elif n.args:
            memo[n] = rebuild(n, tuple(memo[c] for c in n.args))
        else:
            memo[n] = n
    return memo[root]


def is_total(root: Expr, memo: dict) -> bool:
    """No partial operation anywhere in root, so it is defined at every point (memo: node -> answer)."""
    for n in postorder(root, memo):
        memo[n] = n.op not in PARTIAL and all(memo[c] for c in n.args)
    return memo[root]


def _node_id(node: Expr) -> int:
    return node.id


def leaves(root: Expr) -> list[Expr]:
    """The VAR and SYM nodes root depends on, in first-visit order."""
    return [n for n in postorder(root) if n.op is VAR or n.op is SYM]


def to_str(root: Expr, depth: int = 1 << 30) -> str:
    """Readable infix text; subtrees deeper than `depth` print as `…`."""
    def go(n: Expr, d: int) -> str:
        if n.op is CONST:
            return str(n.data)
        if n.op is BOOL:
            return "true" if n.data else "false"
        if n.op is VAR:
            return f"{n.data[0]}[{n.data[1]}]"
        if n.op is SYM:
            return str(n.data)
        if d <= 0:
            return "…"
        parts = [go(c, d - 1) for c in n.args]
        infix = {ADD: " + ", MUL: "*", DIV: "/", LT: " < ", LE: " <= ",
                 EQ: " == ", NE: " != ", AND: " && ", OR: " || "}
        if n.op in infix:
            return "(" + infix[n.op].join(parts) + ")"
        name = n.data if n.op is CALL else f"rint{n.data}" if n.op is RINT else n.op.name.lower()
        return f"{name}({', '.join(parts)})"
    return go(root, depth)
