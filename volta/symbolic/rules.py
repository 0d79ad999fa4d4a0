"""Every identity normal.py and z3bridge.py rely on, as data: one rule per line.

Sides are expressions over the pattern variables a, b, c, d (reals) and k (an integer), written
with the constructors below; `where` lists divisors that must be nonzero (the partial semantics
of division). `kind` says how proofs/check_rules.py proves a rule:
  FIELD  — Z3 over the reals (ordered-field axioms, case splits on ite);
  EXP    — the laws of 2^x and of its inverse lg2, which Z3's uninterpreted functions cannot derive:
           checked by sympy's symbolic simplification with x real and k integer, and numerically.
Every rule is also spot-checked on random rationals in exact arithmetic.
"""
from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Callable

from volta.symbolic import expr as E

FIELD, EXP = "field", "exp"


@dataclass(frozen=True)
class Rule:
    name: str
    lhs: str
    rhs: str
    where: tuple[str, ...] = ()   # each must be nonzero
    assume: tuple[str, ...] = ()  # boolean conditions of the domain where both sides are defined
    kind: str = FIELD
    used_by: str = "normal"       # 'normal' (a rewrite in REWRITES cites it) | 'equal' (normal.equal) | 'z3bridge'
    #                               | 'expr' (constructor folding) | 'cases' | 'shared'


R = Rule
RULES: tuple[Rule, ...] = (
    # commutative ring: why a polynomial is a dict monomial -> coefficient
    R("add-comm",       "a + b",                 "b + a"),
    R("add-assoc",      "(a + b) + c",           "a + (b + c)"),
    R("mul-comm",       "a * b",                 "b * a"),
    R("mul-assoc",      "(a * b) * c",           "a * (b * c)"),
    R("distrib",        "a * (b + c)",           "a * b + a * c"),
    R("add-zero",       "a + 0",                 "a",                   used_by="expr"),
    R("mul-one",        "a * 1",                 "a",                   used_by="expr"),
    R("mul-zero",       "a * 0",                 "0",                   used_by="expr"),
    R("sub-neg",        "a - b",                 "a + (-1) * b",        used_by="expr"),
    R("like-terms",     "3 * (a * b) + 5 * (b * a)", "8 * (a * b)"),
    R("power-merge",    "(a * a) * (a * a * a)", "a * a * a * a * a"),
    R("fma",            "fma(a, b, c)",          "a * b + c",           used_by="expr"),
    # ratios: why a normal form is num/den and how two are compared
    R("div-const",      "a / 3",                 "a * (1 / 3)",         used_by="expr"),
    R("ratio-add",      "a / b + c / d",         "(a * d + c * b) / (b * d)", where=("b", "d")),
    R("ratio-add-same", "a / b + c / b",         "(a + c) / b",         where=("b",)),
    R("ratio-mul",      "(a / b) * (c / d)",     "(a * c) / (b * d)",   where=("b", "d")),
    R("ratio-div",      "(a / b) / (c / d)",     "(a * d) / (b * c)",   where=("b", "c", "d")),
    R("ratio-const-den", "a / (3 * b)",          "(a * (1 / 3)) / b",   where=("b",)),
    R("cross-multiply", "eq(a / b, c / d)",      "eq(a * d, c * b)",    where=("b", "d"), used_by="equal"),
    R("ratio-cancel",   "(a * b) / b",           "a",                   where=("b",)),
    # exponentials: 2^(polynomial) with the integer part of the constant in the coefficient
    R("exp2-add",       "exp2(a) * exp2(b)",     "exp2(a + b)",         kind=EXP),
    R("exp2-zero",      "exp2(0)",               "1",                   kind=EXP, used_by="expr"),
    R("exp2-int",       "exp2(a + k)",           "exp2(k) * exp2(a)",   kind=EXP),
    R("exp2-neg",       "1 / exp2(a)",           "exp2(-a)",            kind=EXP),
    R("exp2-div",       "a / (c * exp2(b))",     "(a * exp2(-b)) / c",  where=("c",), kind=EXP),
    R("exp2-pos",       "lt(0, exp2(a))",        "true",                kind=EXP, used_by="z3bridge"),
    # a sum of exponentials c·2^p with coefficients of one sign (over another) is never 0 and has their sign:
    # a softmax's `expsum == 0 ? 0 : 1/expsum` decided (exp2-pos for each 2^p, pos-sum for their sum)
    R("cmp-pos-factor", "lt(c * a, 0)",          "lt(c, 0)",            assume=("lt(0, a)",)),
    R("ne-pos-factor",  "ne(c * a, 0)",          "ne(c, 0)",            assume=("lt(0, a)",)),
    R("pos-sum",        "lt(0, a + b)",          "true",                assume=("lt(0, a)", "lt(0, b)")),
    R("ratio-exp2-scale", "(a * (c * exp2(d))) / (b * (c * exp2(d)))", "a / b", where=("b", "c"), kind=EXP,
      used_by="equal"),
    R("exp2-mul-fold",  "exp2(a) * exp2(b)",     "exp2(a + b)",         kind=EXP, used_by="expr"),
    # full-precision expf (libdevice): 2^(x·hi + x·lo − n) · 2^n with n the range-reduction integer;
    # the bit construction of 2^n is checked exhaustively by proofs/check_rules.py (exponent field)
    R("expf-idiom",     "exp2(a * c + a * d - b) * exp2(b)", "exp2(a * (c + d))", kind=EXP),
    # softplus: log(1 + e^x) = x + log(1 + e^-x) (log2 here: 2^a (1 + 2^-a) = 2^a + 1), how the numerically
    # stable log1p(exp(-|x|)) + max(x, 0) meets torch's log1p(exp(x)) once the sign of x is split on
    R("softplus-reflect", "lg2(1 + exp2(a))",    "a + lg2(1 + exp2(-a))", kind=EXP),
    # atoms: normalized over normalized arguments, then opaque; Z3 encodings
    R("congruence",     "eq(f(a + b), f(b + a))", "true"),
    R("cmp-lt",         "lt(a, b)",              "lt(a - b, 0)"),
    R("cmp-le",         "le(a, b)",              "le(a - b, 0)"),
    R("cmp-eq",         "eq(a, b)",              "eq(a - b, 0)"),
    R("cmp-ne",         "ne(a, b)",              "ne(a - b, 0)"),
    # a negated comparison with 0 is the opposite comparison of the negated difference (no NaN over the reals)
    R("not-lt",         "lnot(lt(a, 0))",        "le(-a, 0)"),
    R("not-le",         "lnot(le(a, 0))",        "lt(-a, 0)"),
    R("not-eq",         "lnot(eq(a, 0))",        "ne(a, 0)"),
    R("not-ne",         "lnot(ne(a, 0))",        "eq(a, 0)"),
    R("cmp-gt",         "gt(a, b)",              "lt(b, a)",            used_by="expr"),
    R("cmp-ge",         "ge(a, b)",              "le(b, a)",            used_by="expr"),
    R("max-def",        "max(a, b)",             "select(ge(a, b), a, b)", used_by="z3bridge"),
    R("min-def",        "min(a, b)",             "select(le(a, b), a, b)", used_by="z3bridge"),
    R("abs-def",        "abs(a)",                "select(ge(a, 0), a, -a)", used_by="z3bridge"),
    R("max-comm",       "max(a, b)",             "max(b, a)",           used_by="expr"),
    R("max-self",       "max(a, a)",             "a",                   used_by="expr"),
    R("min-self",       "min(a, a)",             "a",                   used_by="expr"),
    R("select-same",    "select(lt(a, b), c, c)", "c",                  used_by="expr"),
    R("abs-abs",        "abs(abs(a))",           "abs(a)",              used_by="expr"),
    # truth values: what the logic constructors fold (p, q stand for any condition)
    R("not-not",        "lnot(lnot(lt(a, b)))",  "lt(a, b)",            used_by="expr"),
    R("and-self",       "land(lt(a, b), lt(a, b))", "lt(a, b)",         used_by="expr"),
    R("or-self",        "lor(lt(a, b), lt(a, b))", "lt(a, b)",          used_by="expr"),
    R("and-true",       "land(lt(a, b), true)",  "lt(a, b)",            used_by="expr"),
    R("and-false",      "land(lt(a, b), false)", "false",               used_by="expr"),
    R("or-true",        "lor(lt(a, b), true)",   "true",                used_by="expr"),
    R("or-false",       "lor(lt(a, b), false)",  "lt(a, b)",            used_by="expr"),
    R("select-bool",    "select(lt(a, b), le(c, d), eq(c, d))",
      "lor(land(lt(a, b), le(c, d)), land(lnot(lt(a, b)), eq(c, d)))", used_by="expr"),
    # select of a comparison between its own arms is max/min (normal.py matches the normalized
    # comparison `lt(x - y, 0)`); max/min chains are flattened, deduplicated, constants folded, sorted
    R("select-min-lt",  "select(lt(a - b, 0), a, b)", "min(a, b)"),
    R("select-min-le",  "select(le(a - b, 0), a, b)", "min(a, b)"),
    R("select-max-lt",  "select(lt(b - a, 0), a, b)", "max(a, b)"),
    R("select-max-le",  "select(le(b - a, 0), a, b)", "max(a, b)"),
    R("select-eq",      "select(eq(a - b, 0), a, b)", "b"),
    R("select-eq-rev",  "select(eq(b - a, 0), a, b)", "b"),
    R("select-ne",      "select(ne(a - b, 0), a, b)", "a"),
    R("select-ne-rev",  "select(ne(b - a, 0), a, b)", "a"),
    R("select-not",     "select(lnot(lt(a, b)), c, d)", "select(lt(a, b), d, c)"),
    R("select-polarity-le", "select(le(a, 0), c, d)", "select(lt(-a, 0), d, c)"),
    R("select-polarity-eq", "select(eq(a, 0), c, d)", "select(ne(a, 0), d, c)"),
    # a select whose arms agree wherever its difference is zero does not depend on the condition there
    # (boundary.py proves the premise for the arms by normal forms after substituting the difference's pivot)
    R("select-boundary", "select(lt(a, 0), b, c)", "select(lt(-a, 0), c, b)", assume=("lor(ne(a, 0), eq(b, c))",)),
    R("select-ne-boundary", "select(ne(a, 0), b, c)", "b", assume=("lor(ne(a, 0), eq(b, c))",)),
    R("zero-pivot",     "eq(c * a + b, 0)",      "eq(a, -b / c)",       where=("c",)),
    # an arm that selects on the select's own condition takes its own arm of that side (c stands for any condition)
    R("select-nested-then", "select(lt(a, 0), select(lt(a, 0), b, c), d)", "select(lt(a, 0), b, d)"),
    R("select-nested-else", "select(lt(a, 0), b, select(lt(a, 0), c, d))", "select(lt(a, 0), b, d)"),
    # terms both arms share come out of a select or a max/min (both arms need them, so no domain widens)
    R("select-common",  "select(lt(a, 0), b + c, b + d)", "b + select(lt(a, 0), c, d)"),
    R("max-common",     "max(b + c, b + d)",     "b + max(c, d)"),
    R("min-common",     "min(b + c, b + d)",     "b + min(c, d)"),
    R("max-assoc",      "max(max(a, b), c)",     "max(a, max(b, c))"),
    R("min-assoc",      "min(min(a, b), c)",     "min(a, min(b, c))"),
    R("max-dedupe",     "max(max(a, b), a)",     "max(a, b)"),
    R("min-dedupe",     "min(min(a, b), a)",     "min(a, b)"),
    R("max-consts",     "max(max(a, 2), 3)",     "max(a, 3)"),
    R("min-consts",     "min(min(a, 2), 3)",     "min(a, 2)"),
    # a clamp is written min-inside (fmaxf(lo, fminf(hi, x)): hardswish, relu6, hardtanh) or max-inside (torch's
    # clamp): for constants lo <= hi both are one function, kept as min(max(x, lo), hi)
    R("min-neg",        "min(-a, -b)",           "-max(a, b)"),
    R("max-neg",        "max(-a, -b)",           "-min(a, b)"),
    R("clamp-order",    "max(min(a, d), c)",     "min(max(a, c), d)",   assume=("le(c, d)",)),
    R("max-comm-min",   "min(a, b)",             "min(b, a)",           used_by="expr"),
    # a select of u < w whose arms are one total function F at w and at u is F at max/min (f stands for
    # any function; normal.py finds F by substitution and applies it to arms without partial operations),
    # and an instance with F(t) = c·2^t + d·t that the normalizer is tested on
    R("select-max-through", "select(lt(a, b), f(b), f(a))", "f(max(a, b))"),
    R("select-min-through", "select(lt(a, b), f(a), f(b))", "f(min(a, b))"),
    R("select-max-through-le", "select(le(a, b), f(b), f(a))", "f(max(a, b))"),
    R("select-min-through-le", "select(le(a, b), f(a), f(b))", "f(min(a, b))"),
    R("select-through-exp", "select(lt(a, b), c * exp2(b) + d * b, c * exp2(a) + d * a)",
      "c * exp2(max(a, b)) + d * max(a, b)"),
    # a select of u < w whose arms are one G rescaled to each side's exponent, X = G·2^(−d·w) and
    # Y = G·2^(−d·u), is G·2^(−d·max(u, w)): the online softmax's (m, s) merge taking the bigger pair's sum
    # plus the smaller's rescaled (normal.py finds d from X's exponents, and G as X·2^(d·w) = Y·2^(d·u))
    R("select-rescale-exp", "select(lt(a, b), c * exp2(-(d * b)), c * exp2(-(d * a)))",
      "c * exp2(-(d * max(a, b)))"),
    # lift.py: a total operator over selects on one condition is the select of the operator over their arms
    R("select-lift",    "select(lt(a, b), c, d) * select(lt(a, b), d, 3)", "select(lt(a, b), c * d, d * 3)",
      used_by="lift"),
    # cases.py: every point orders the arguments somehow; under an order an atom is one argument
    R("order-total",    "lor(le(a, b), le(b, a))", "true",               used_by="cases"),
    R("max-case",       "le(b, a)",              "eq(max(a, b), a)",    used_by="cases"),
    R("min-case",       "le(a, b)",              "eq(min(a, b), a)",    used_by="cases"),
    R("order-forced",   "lt(a, a + 3)",          "true",                used_by="cases"),
    R("abs-max",        "abs(a)",                "max(a, -a)",          used_by="cases"),
    # an order whose strict form is empty need not be checked: every point is in the closure of a nonempty
    # one (cases.py's docstring); the instance |x| and max(x, 0) meet: -x < x < 0 holds nowhere
    R("order-chamber",  "land(lt(-a, a), lt(a, 0))", "false",         used_by="cases"),
    # sqrt/rsqrt in the normal form: rsqrt(v) is 1/sqrt(v) (both defined iff v > 0), and
    # sqrt(v)^2 = v wherever sqrt(v) is defined (v >= 0), so the domain is the expression's own
    R("rsqrt-recip",    "rsqrt(a)",              "1 / sqrt(a)",         where=("sqrt(a)",), assume=("lt(0, a)",)),
    R("sqrt-square",    "sqrt(a) * sqrt(a)",     "a",                   assume=("le(0, a)",)),
    R("sqrt-square-odd", "sqrt(a) * sqrt(a) * sqrt(a) * b", "a * sqrt(a) * b", assume=("le(0, a)",)),
    R("sqrt-def",       "le(0, a)",              "eq(sqrt(a) * sqrt(a), a)", used_by="z3bridge"),
    R("sqrt-nonneg",    "le(0, sqrt(a * a))",    "true",                used_by="z3bridge"),
    R("rsqrt-def",      "lt(0, a)",              "eq(rsqrt(a) * rsqrt(a) * a, 1)", used_by="z3bridge"),
    # shared.py: a shared sum t = c·a + b is kept as an atom; a difference is reduced by replacing its pivot
    # leaf a with ((c·a + b) − b)/c, i.e. (t − b)/c, an expression of the same value
    R("shared-pivot",   "a",                     "((c * a + b) - b) / c", where=("c",), used_by="shared"),
)

PATTERN_VARS = ("a", "b", "c", "d")


def _raw(op: E.Op, *args: E.Expr, data: object = None) -> E.Expr:
    """An interned node built without folding or sorting, so a rule's two sides stay distinct."""
    return E._make(op, tuple(args), data)


def _leaves() -> dict[str, E.Expr]:
    names = {name: E.var("rule", i) for i, name in enumerate(PATTERN_VARS)}
    return {**names, "k": E.sym("k"), "true": E.TRUE, "false": E.FALSE}


_CALLS: dict[str, Callable[..., E.Expr]] = {
    "exp2": lambda x: _raw(E.EXP2, x),
    "fma": lambda x, y, z: _raw(E.ADD, _raw(E.MUL, x, y), z),
    "max": lambda x, y: _raw(E.MAX, x, y),
    "min": lambda x, y: _raw(E.MIN, x, y),
    "abs": lambda x: _raw(E.ABS, x),
    "select": lambda c, x, y: _raw(E.SELECT, c, x, y),
    "sqrt": lambda x: _raw(E.SQRT, x),
    "lg2": lambda x: _raw(E.LG2, x),
    "rsqrt": lambda x: _raw(E.RSQRT, x),
    "lt": lambda x, y: _raw(E.LT, x, y),
    "le": lambda x, y: _raw(E.LE, x, y),
    "gt": lambda x, y: _raw(E.LT, y, x),
    "ge": lambda x, y: _raw(E.LE, y, x),
    "eq": lambda x, y: _raw(E.EQ, x, y),
    "lnot": lambda x: _raw(E.NOT, x),
    "lor": lambda x, y: _raw(E.OR, x, y),
    "land": lambda x, y: _raw(E.AND, x, y),
    "ne": lambda x, y: _raw(E.NE, x, y),
    "f": lambda x: _raw(E.CALL, x, data="f"),
}


def build(text: str) -> E.Expr:
    """The expression a rule side denotes, exactly as written (integer literals are exact)."""
    leaves = _leaves()

    def go(node: ast.AST) -> E.Expr:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return E.const(node.value)
        if isinstance(node, ast.Name):
            return leaves[node.id]
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return _raw(E.MUL, E.MINUS_ONE, go(node.operand))
        if isinstance(node, ast.BinOp):
            x, y = go(node.left), go(node.right)
            if isinstance(node.op, ast.Add):
                return _raw(E.ADD, x, y)
            if isinstance(node.op, ast.Sub):
                return _raw(E.ADD, x, _raw(E.MUL, E.MINUS_ONE, y))
            if isinstance(node.op, ast.Mult):
                return _raw(E.MUL, x, y)
            if isinstance(node.op, ast.Div):
                return _raw(E.DIV, x, y)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return _CALLS[node.func.id](*[go(a) for a in node.args])
        raise ValueError(f"rule text not understood: {ast.dump(node)}")

    return go(ast.parse(text, mode="eval").body)


def sides(rule: Rule) -> tuple[E.Expr, E.Expr, list[E.Expr]]:
    """(lhs, rhs, divisors that must be nonzero) as unfolded expressions."""
    return build(rule.lhs), build(rule.rhs), [build(w) for w in rule.where]


def assumptions(rule: Rule) -> list[E.Expr]:
    """The rule's domain conditions (booleans) as unfolded expressions."""
    return [build(w) for w in rule.assume]


def folded(raw: E.Expr) -> E.Expr:
    """The same expression rebuilt through the folding constructors (what the executor makes)."""
    memo: dict[E.Expr, E.Expr] = {}
    for node in E.postorder(raw):
        memo[node] = node if not node.args else E.rebuild(node, tuple(memo[c] for c in node.args))
    return memo[raw]


# ---------------------------------------------------------------- the rewrites that apply the rules

@dataclass(frozen=True)
class Rewrite:
    """One rewrite the normalizer performs: its name, the rules above whose identities it applies, and the
    function that performs it. Every change normal.py makes to an expression is the `apply` of an entry of
    REWRITES (nodes are dispatched through the table by operator; the choices inside an atom run through it
    in order), so proofs/check_rules.py, which proves every rule each entry names, covers all of them."""
    name: str
    rules: tuple[str, ...]
    apply: Callable


REWRITES: dict[str, Rewrite] = {}
RULE_NAMES = frozenset(rule.name for rule in RULES)


def rewrite(name: str, *rules: str) -> Callable[[Callable], Callable]:
    """Decorator: register the function as rewrite `name` applying `rules` (each must be an entry of RULES).
    The normalizer calls it through REWRITES only (tests/symbolic/test_rewrites.py checks that)."""
    def register(apply: Callable) -> Callable:
        unknown = [r for r in rules if r not in RULE_NAMES]
        if unknown or name in REWRITES:
            why = f"cites {', '.join(unknown)}, not in RULES" if unknown else "is registered twice"
            raise LookupError(f"rewrite {name!r} {why} (volta/symbolic/rules.py)")
        REWRITES[name] = Rewrite(name, rules, apply)
        return apply
    return register
