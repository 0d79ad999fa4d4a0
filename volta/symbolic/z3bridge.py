"""The one module that imports z3: expressions to Z3 real arithmetic, and back as models.

Only what normalization leaves reaches Z3. Atoms are encoded soundly but loosely (every
encoding admits the true function among its models): max/min/abs/select as ite; sqrt and
rsqrt as uninterpreted functions with their defining constraints; exp2 as an uninterpreted
positive function (normal forms have already applied 2^a·2^b = 2^(a+b)); approximate ops and
calls as uninterpreted functions. So `unsat` proves equality, while a `sat` model is only a
candidate that search.py confirms by exact evaluation. Timeouts are Unknown, never verdicts.
"""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import z3

from volta.config import NO_INTEGERS, IntegerInputs
from volta.symbolic import expr as E
from volta.symbolic.cases import decide_by_cases
from volta.symbolic.constants import is_named, rational_bounds
from volta.symbolic.domain import ANY, Domain
from volta.symbolic.expr import Expr
from volta.symbolic.normal import Normalizer, equal, normalize, to_expr
from volta.symbolic.search import admissible, confirm, random_search
from volta.symbolic.verdict import Proved, Refuted, Unknown, Verdict

DEFAULT_TIMEOUT_MS = 10_000


class Translator:
    """Memoized Expr -> z3 term; collects side facts (divisors != 0, atom definitions)."""

    def __init__(self, integers: IntegerInputs = NO_INTEGERS, domain: Domain = ANY) -> None:
        self.integers = integers                 # tell z3 which leaves are integers, and their ranges
        self.inputs = domain                     # float inputs lie within their format's finite range
        self.memo: dict[Expr, z3.ExprRef] = {}
        self.leaves: dict[str, Expr] = {}        # z3 constant name -> VAR/SYM node
        self.facts: list[z3.BoolRef] = []        # atom definitions: true of the real functions
        self.divisors: dict[Expr, z3.BoolRef] = {}   # partial node -> where it is defined (divisor != 0, …)
        self.functions: dict[str, z3.FuncDeclRef] = {}
        self.roots: list[Expr] = []

    def _fn(self, name: str, arity: int = 1) -> z3.FuncDeclRef:
        f = self.functions.get(name)
        if f is None:
            f = self.functions[name] = z3.Function(name, *([z3.RealSort()] * (arity + 1)))
        return f

    def __call__(self, root: Expr) -> z3.ExprRef:
        self.roots.append(root)
        for node in E.postorder(root, self.memo):
            self.memo[node] = self._node(node, [self.memo[c] for c in node.args])
        return self.memo[root]

    def _node(self, node: Expr, args: list) -> z3.ExprRef:
        op = node.op
        if op is E.CONST:
            value = Fraction(node.data)
            if max(abs(value.numerator), value.denominator).bit_length() > MAX_CONSTANT_BITS:
                raise ConstantTooLarge(f"a constant of {value.numerator.bit_length()} bits is beyond what the "
                                       f"solver is given")
            return z3.RealVal(f"{value.numerator}/{value.denominator}")
        if op is E.BOOL:
            return z3.BoolVal(node.data)
        if op is E.SYM and is_named(node):   # log2 e, π: a constant, given to z3 by rational bounds
            lo, hi = rational_bounds(node.data)
            leaf = z3.Real(f"${node.data}")
            self.facts += [leaf > z3.RealVal(f"{lo.numerator}/{lo.denominator}"),
                           leaf < z3.RealVal(f"{hi.numerator}/{hi.denominator}")]
            return leaf
        if op is E.VAR or op is E.SYM:
            name = f"{node.data[0]}[{node.data[1]}]" if op is E.VAR else f"${node.data}"
            self.leaves[name] = node
            leaf = z3.Real(name)
            if E.is_integer_leaf(node, self.integers):
                self.facts.append(z3.IsInt(leaf))   # an element of an integer buffer, within its dtype
                rng = E.integer_range(node, self.integers)
                if rng is not None:
                    self.facts += [leaf >= rng[0], leaf <= rng[1]]
            rng = self.inputs.bounds(node)
            if rng is not None:   # an element of a float buffer: a finite value of its format
                self.facts += [leaf >= _real(rng[0]), leaf <= _real(rng[1])]
            return leaf
        if op is E.ADD:
            return args[0] + args[1]
        if op is E.MUL:
            return args[0] * args[1]
        if op is E.DIV:
            self.divisors[node] = args[1] != 0
            return args[0] / args[1]
        if op in _BUILD:
            return _BUILD[op](*args)
        return self._function(node, args)

    def _function(self, node: Expr, args: list) -> z3.ExprRef:
        op = node.op
        if op is E.CALL:
            return self._fn(f"call_{node.data}", len(args))(*args)
        x = args[0]
        if op is E.RINT:   # one function per rounding mode; every mode moves x by less than 1
            y = self._fn("u_rint_" + node.data.lstrip("."))(x)
            self.facts.append(z3.And(y - 1 < x, x < y + 1))
            return y
        y = self._fn("u_" + op.name.lower())(x)
        if op in (E.LG2, E.RSQRT, E.FLOOR_LOG2):
            self.divisors[node] = x > 0
        elif op is E.SQRT:
            self.divisors[node] = x >= 0
        if op is E.EXP2:
            self.facts.append(y > 0)
        elif op is E.SQRT:
            self.facts.append(z3.And(y >= 0, z3.Implies(x >= 0, y * y == x)))
        elif op is E.RSQRT:
            self.facts.append(z3.Implies(x > 0, z3.And(y > 0, y * y * x == 1)))
        elif op is E.TANH:
            self.facts.append(z3.And(y > -1, y < 1, (y > 0) == (x > 0), (y == 0) == (x == 0)))
        elif op in (E.SIN, E.COS):
            self.facts.append(z3.And(y >= -1, y <= 1))
        return y

    def domain(self) -> list[z3.BoolRef]:
        """Where the partial operations every evaluation performs are defined (divisor != 0, lg2/rsqrt/
        floor_log2 of a positive value, sqrt of a non-negative one: proofs/README.md §3). One inside an arm
        of a select (an if-converted branch) happens only when its condition holds, so it restricts nothing:
        asserting it anyway would drop inputs at which the kernel is defined (`x != 0 ? 1/x : 0` is 0 at x = 0)."""
        if not self.divisors:
            return []
        always, stack = set(), list(self.roots)
        while stack:
            n = stack.pop()
            if n in always:
                continue
            always.add(n)
            stack.extend(n.args[:1] if n.op is E.SELECT else n.args)
        return [d for n, d in self.divisors.items() if n in always]


_BUILD = {
    E.MAX: lambda a, b: z3.If(a >= b, a, b),                 # rule: max-def
    E.MIN: lambda a, b: z3.If(a <= b, a, b),                 # rule: min-def
    E.ABS: lambda a: z3.If(a >= 0, a, -a),                   # rule: abs-def
    E.SELECT: lambda c, a, b: z3.If(c, a, b),
    E.LT: lambda a, b: a < b, E.LE: lambda a, b: a <= b,
    E.EQ: lambda a, b: a == b, E.NE: lambda a, b: a != b,
    E.AND: lambda a, b: z3.And(a, b), E.OR: lambda a, b: z3.Or(a, b), E.NOT: z3.Not,
}


def _real(value: Fraction) -> z3.ArithRef:
    value = Fraction(value)
    return z3.RealVal(f"{value.numerator}/{value.denominator}")


def _fraction(value: z3.ExprRef) -> Fraction:
    if z3.is_rational_value(value):
        return Fraction(value.numerator_as_long(), value.denominator_as_long())
    if z3.is_algebraic_value(value):
        return Fraction(value.approx(30).as_fraction())
    return Fraction(0)


def _difference_problem(a: Expr, b: Expr, norm: Normalizer | None, integers: IntegerInputs = NO_INTEGERS,
                        domain: Domain = ANY) -> tuple[Translator, list]:
    """Assertions satisfiable iff some defined input (within `domain`) makes a != b (under the loose encodings)."""
    t = Translator(integers, domain)
    za, zb = t(to_expr(normalize(a, norm))), t(to_expr(normalize(b, norm)))
    return t, [*t.facts, *t.domain(), za != zb]


def solve(assertions: list, timeout_ms: int) -> tuple[str, z3.ModelRef | None, str]:
    """Solved in a fresh z3 context (the assertions translated into it): in the shared one, z3's search
    depends on every term the process made before, so one obligation could time out or not depending on
    which checks ran earlier (seen with the expm1f overflow proof: 0.3 s alone, > 10 s after some
    histories). A verdict must not depend on history; a context costs ~2.5 ms."""
    ctx = z3.Context()
    s = z3.Solver(ctx=ctx)
    s.set("timeout", int(timeout_ms))
    s.add(*[a.translate(ctx) for a in assertions])
    try:
        r = s.check()
    except z3.Z3Exception as e:  # the single boundary where solver errors become values
        return "unknown", None, f"z3 error: {e}"
    if r == z3.sat:
        return "sat", s.model(), ""
    if r == z3.unsat:
        return "unsat", None, ""
    return "unknown", None, s.reason_unknown()


MAX_CONSTANT_BITS = 4096  # beyond this a rational is not worth Z3's time (and Python refuses to print it)


class ConstantTooLarge(Exception):
    """A constant too large to hand to the solver: the element is UNKNOWN, never a crash."""


def solver_model(a: Expr, b: Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS, norm: Normalizer | None = None,
                 integers: IntegerInputs = NO_INTEGERS, domain: Domain = ANY
                 ) -> dict[Expr, Fraction] | Proved | Unknown:
    """A candidate model where a != b, Proved if there is none, or Unknown. Over the reals (Proved then
    holds for integer inputs too); given `integers`, elements of integer buffers are integers in their ranges;
    float inputs within their format's finite range (`domain`: Proved then holds for every input a kernel can
    be given)."""
    try:
        t, assertions = _difference_problem(a, b, norm, integers, domain)
    except ConstantTooLarge as err:
        return Unknown(str(err))
    status, model, reason = solve(assertions, timeout_ms)
    if status == "unsat":
        return Proved("z3")
    if status == "unknown":
        return Unknown(f"z3: {reason or 'unknown'}")
    return {node: _fraction(model.eval(z3.Real(name, model.ctx), model_completion=True))
            for name, node in t.leaves.items()}


def decide_equal(a: Expr, b: Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS,
                 norm: Normalizer | None = None, domain: Domain = ANY, integers: IntegerInputs = NO_INTEGERS
                 ) -> Verdict:
    """Proved | Refuted | Unknown: normal forms first (no solver), then Z3 on the residue; inputs within
    `domain` (each float input a finite value of its format), and witnesses rounded to it; a counterexample
    gives the `integers` inputs integer values in their ranges."""
    if a is b or equal(normalize(a, norm), normalize(b, norm)):
        return Proved("normal-form")
    split = decide_by_cases(a, b, norm)   # max/min identities by case splits, before the solver
    if split is not None:
        return split
    found = solver_model(a, b, timeout_ms, norm, domain=domain)
    if isinstance(found, (Proved, Unknown)):
        if isinstance(found, Unknown):
            quick = random_search(a, b, domain=domain, integers=integers)
            if quick is not None:
                return quick
        return found
    refuted = confirm(a, b, found, domain, integers)
    if refuted.confirmed:
        return refuted
    if not admissible(found, integers):   # a real model where an integer buffer needs integers: round it, then ask z3
        for rounded in _integer_roundings(found, integers):
            refuted = confirm(a, b, rounded, domain, integers)
            if refuted.confirmed:
                return refuted
        found = solver_model(a, b, timeout_ms, norm, integers, domain=domain)
        if isinstance(found, (Proved, Unknown)):
            return random_search(a, b, domain=domain, integers=integers) or found
        refuted = confirm(a, b, found, domain, integers)
        if refuted.confirmed:
            return refuted
    return random_search(a, b, domain=domain, integers=integers) or refuted


def find_distinguishing_input(a: Expr, b: Expr, variables: Sequence[Expr] | None = None,
                              timeout_ms: int = 5_000, tries: int = 200) -> Refuted | Proved | Unknown:
    """Inputs where a and b differ exactly: random small values, then a Z3 model.

    Returns Refuted(confirmed=True) when found; Proved when Z3 shows there is none;
    Refuted(confirmed=False) for a Z3 model that exact evaluation could not confirm; else Unknown.
    """
    found = random_search(a, b, variables, tries)
    if found is not None:
        return found
    model = solver_model(a, b, timeout_ms)
    if isinstance(model, (Proved, Unknown)):
        return model
    return confirm(a, b, model)


def _integer_roundings(model: dict, integers: IntegerInputs) -> list[dict]:
    """The model with its integer leaves rounded down, up, and to nearest."""
    out = []
    for rnd in (math.floor, math.ceil, round):
        out.append({k: Fraction(rnd(v)) if E.is_integer_leaf(k, integers) else v for k, v in model.items()})
    return out


def prove(formula: Expr, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> Verdict:
    """Is the boolean `formula` valid wherever its divisions are defined?"""
    t = Translator()
    try:
        z = t(formula)
    except ConstantTooLarge as err:
        return Unknown(str(err))
    status, model, reason = solve([*t.facts, *t.domain(), z3.Not(z)], timeout_ms)
    if status == "unsat":
        return Proved("z3")
    if status == "unknown":
        return Unknown(f"z3: {reason or 'unknown'}")
    values = {node: _fraction(model.eval(z3.Real(name, model.ctx), model_completion=True))
              for name, node in t.leaves.items()}
    return Refuted(values, confirmed=False)


def emit_smt(a: Expr, b: Expr, path: str | Path, norm: Normalizer | None = None) -> Path:
    """Write `exists defined input with a != b` as SMT-LIB2; unsat means equal. Returns the path."""
    try:
        t, assertions = _difference_problem(a, b, norm)
    except ConstantTooLarge as err:
        path = Path(path)
        path.write_text(f"; not emitted: {err}\n")
        return path
    s = z3.Solver()
    s.add(*assertions)
    logic = "QF_UFNRA" if t.functions else "QF_NRA"
    text = f"(set-logic {logic})\n" + s.to_smt2().replace("(set-info :status unknown)", "")
    path = Path(path)
    path.write_text(text)
    return path


def check_smt_file(path: str | Path, timeout_ms: int = DEFAULT_TIMEOUT_MS) -> str:
    """'sat' | 'unsat' | 'unknown' for an SMT-LIB2 file, via z3's API (when no z3 binary)."""
    s = z3.Solver()
    s.set("timeout", int(timeout_ms))
    try:
        s.from_file(str(path))
        return str(s.check())
    except z3.Z3Exception as e:
        return f"unknown ({e})"


# ---- a selected arm beyond a float type's range (volta/exec/state/overflow_real.py: libdevice's overflow arm) ----

class _OverflowTranslator(Translator):
    """z3bridge's translation, with rint as a nearby integer and exp2 as a positive real whose argument's
    proven lower bound is added as a fact (see `_lower_bounds`)."""

    def __init__(self) -> None:
        super().__init__()
        self.exp2: list = []   # (z3 value, z3 argument)

    def _function(self, node, args):
        x = args[0]
        if node.op is E.RINT:
            y = z3.ToReal(z3.Int(f"rint_{len(self.memo)}"))
            slack = Fraction(1, 2) if node.data == ".rni" else Fraction(1)
            near = z3.And(y - x <= slack, x - y <= slack) if slack < 1 else z3.And(y - x < 1, x - y < 1)
            self.facts.append(near)
            return y
        if node.op is E.EXP2:
            e = z3.Real(f"exp2_{len(self.memo)}")
            self.facts.append(e > 0)
            self.exp2.append((e, x))
            return e
        return super()._function(node, args)


def _power(k: int):
    return z3.RealVal(Fraction(2) ** k if k >= 0 else Fraction(1, 2 ** -k))


def _lower_bounds(t, cond, facts, bound_ms: int) -> list:
    """2^z >= 2^K for each exp2 node, K the largest integer in [-1100, 1100] with cond -> z >= K proved."""
    out = []
    for e, z in t.exp2:
        lo, hi = -1100, 1100
        if solve([*facts, cond, z < lo], bound_ms)[0] != "unsat":
            continue
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if solve([*facts, cond, z < mid], bound_ms)[0] == "unsat":
                lo = mid
            else:
                hi = mid - 1
        out.append(e >= _power(lo))
    return out


def implies_beyond(cond: Expr, other: Expr, sign: int, limit: Fraction, bound_ms: int, proof_ms: int) -> bool:
    """Does cond imply other >= limit (sign > 0) or other <= -limit (sign < 0), for every input? rint is a
    nearby integer and 2^z a positive real at least 2^K, K the integer bound on z that cond implies."""
    t = _OverflowTranslator()
    try:
        zc, zv = t(cond), t(other)
    except ConstantTooLarge:
        return False
    facts = list(t.facts)
    facts += _lower_bounds(t, zc, facts, bound_ms)
    beyond = zv < z3.RealVal(limit) if sign > 0 else zv > z3.RealVal(-limit)
    return solve([*facts, zc, beyond], proof_ms)[0] == "unsat"  # a fresh z3 context each
