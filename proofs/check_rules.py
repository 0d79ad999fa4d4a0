"""Prove every rule in volta/symbolic/rules.py, and spot-check each on random rationals; check that every
rewrite the normalizer performs (rules.REWRITES, filled by volta/symbolic/normal.py) names only proved rules,
and that every rule marked as the normalizer's is named by one of its rewrites.

FIELD rules: Z3 (through volta.symbolic.z3bridge, the project's one z3 importer) proves
`where-conditions -> (lhs = rhs)` valid over the reals (for boolean sides: lhs <-> rhs).
EXP rules: sympy simplifies lhs - rhs to 0 with a, b, c, d real and k integer.
Every rule: exact evaluation of both sides on random rationals must agree wherever defined
(exp2 arguments are drawn as integers there so 2^x stays rational).

Usage: python proofs/check_rules.py   (exit 0 iff every rule is proved and every check agrees)
"""
from __future__ import annotations

import random
import sys
from fractions import Fraction

import sympy

from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate
from volta.symbolic import normal  # noqa: F401  (registers the normalizer's rewrites in REWRITES)
from volta.symbolic.rules import EXP, FIELD, REWRITES, RULES, Rule, _raw, assumptions, sides
from volta.symbolic.z3bridge import prove
from volta.symbolic.verdict import Proved

SPOT_CHECKS = 200


def _formula(lhs: E.Expr, rhs: E.Expr, where: list[E.Expr], assume: list[E.Expr] = ()) -> E.Expr:
    if lhs.op in E.BOOLEAN:
        body = _raw(E.AND, _raw(E.OR, _raw(E.NOT, lhs), rhs), _raw(E.OR, lhs, _raw(E.NOT, rhs)))
    else:
        body = _raw(E.EQ, lhs, rhs)
    for w in where:
        body = _raw(E.OR, _raw(E.EQ, w, E.ZERO), body)
    for cond in assume:
        body = _raw(E.OR, _raw(E.NOT, cond), body)
    return body


def _to_sympy(root: E.Expr):
    memo: dict[E.Expr, object] = {}
    syms = {"k": sympy.Symbol("k", integer=True)}
    table = {
        E.ADD: lambda x, y: x + y, E.MUL: lambda x, y: x * y, E.DIV: lambda x, y: x / y,
        E.EXP2: lambda x: sympy.Integer(2) ** x, E.LT: lambda x, y: x < y, E.LG2: lambda x: sympy.log(x, 2),
    }
    for n in E.postorder(root):
        if n.op is E.CONST:
            memo[n] = sympy.Rational(n.data.numerator, n.data.denominator)
        elif n.op is E.BOOL:
            memo[n] = sympy.true if n.data else sympy.false
        elif n.op is E.VAR:
            memo[n] = sympy.Symbol("abcd"[n.data[1]], real=True)
        elif n.op is E.SYM:
            memo[n] = syms[n.data]
        else:
            memo[n] = table[n.op](*[memo[c] for c in n.args])
    return memo[root]


def prove_rule(rule: Rule) -> str:
    lhs, rhs, where = sides(rule)
    if rule.kind == FIELD:
        verdict = prove(_formula(lhs, rhs, where, assumptions(rule)), timeout_ms=20_000)
        return "proved (z3)" if isinstance(verdict, Proved) else f"NOT PROVED: {verdict}"
    assert rule.kind == EXP
    sl, sr = _to_sympy(lhs), _to_sympy(rhs)
    if isinstance(sl, sympy.logic.boolalg.Boolean) or sl in (sympy.true, sympy.false):
        ok = sympy.simplify(sympy.Equivalent(sl, sr)) == sympy.true
    else:
        ok = sympy.simplify(sympy.powsimp(sl - sr, force=False)) == 0
    return "proved (sympy)" if ok else "NOT PROVED (sympy)"


def spot_check(rule: Rule, rng: random.Random) -> tuple[int, str | None]:
    """(points where both sides were defined and exact, first disagreement or None)."""
    lhs, rhs, _ = sides(rule)
    assume = assumptions(rule)
    leaves = sorted(set(E.leaves(lhs)) | set(E.leaves(rhs)), key=lambda n: n.id)
    checked = 0
    for _ in range(SPOT_CHECKS):
        env = {}
        for leaf in leaves:
            if rule.kind == EXP or leaf.op is E.SYM:
                env[leaf] = Fraction(rng.randint(-6, 6))
            elif rng.random() < 0.3:
                env[leaf] = Fraction(rng.randint(0, 5)) ** 2      # perfect squares for sqrt
            else:
                env[leaf] = Fraction(rng.randint(-9, 9), rng.randint(1, 5))
        funcs = {"f": lambda x: x * x * 3 + 1}
        try:
            if not all(evaluate(cond, env, funcs) for cond in assume):
                continue   # outside the rule's premise (a point where the premise holds is drawn often enough)
            vl, vr = evaluate(lhs, env, funcs), evaluate(rhs, env, funcs)
        except EvalError:
            continue
        checked += 1
        if vl != vr:
            return checked, f"{env}: {vl} != {vr}"
    return checked, None


def check_exponent_field() -> tuple[bool, str]:
    """The bit facts behind full-precision expf (volta/semantics/realops.py `exponent_field`), exhaustively:
    (1) every f32 in [2^23, 2^24) is an integer, so each integer there is exactly one f32;
    (2) for every integer v there, with base = 2^23 + 512·floor((v − 2^23)/512) and v − base in [1, 254],
        the f32 with bits `bits(v) << 23 (mod 2^32)` is exactly 2^(v − base − 127);
    (3) exponent_field_base(lo, hi) only returns that base, for lo and hi alike, with both in range;
    (4) libdevice's constants: fma.rm(t, 252, 0f4B400001) for t in [0, 1] lies in [12582913, 12583165],
        whose base is 12582912, so n = v + 0fCB40007F = v − 12583039 and 2^n is built exactly;
    (5) coshf's and erfcf's reductions (clamped j plus 0f4B40007D / 0f4B40007F) have that base too."""
    import numpy as np
    from volta.semantics.realops import exponent_field_base
    lo_all, hi_all = 1 << 23, 1 << 24
    f = np.arange(lo_all, hi_all, dtype=np.int64).astype(np.float32)
    if not (np.all(f.astype(np.int64) == np.arange(lo_all, hi_all))
            and np.nextafter(np.float32(lo_all), np.float32(np.inf)) == lo_all + 1
            and np.nextafter(np.float32(hi_all), np.float32(0)) == hi_all - 1):
        return False, "f32 spacing in [2^23, 2^24) is not 1"
    v = np.arange(lo_all, hi_all, dtype=np.int64)
    bits = f.view(np.uint32).astype(np.uint64)
    shifted = ((bits << np.uint64(23)) & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.float32).astype(np.float64)
    base = lo_all + 512 * ((v - lo_all) // 512)
    k = v - base
    ok = (k >= 1) & (k <= 254)
    want = np.ldexp(1.0, (k - 127).astype(np.int32))   # 2^(v - base - 127), exact in float64
    if not np.array_equal(shifted[ok], want[ok]):
        return False, "bits(v) << 23 is not 2^(v - base - 127) somewhere in the normal range"
    rng = random.Random(7)
    for _ in range(20000):
        lo = rng.randrange(lo_all - 600, hi_all + 600)
        hi = lo + rng.randrange(0, 600)
        b = exponent_field_base(Fraction(lo), Fraction(hi))
        if b is None:
            continue
        for x in (lo, hi):
            if not (lo_all <= x < hi_all and lo_all + 512 * ((x - lo_all) // 512) == b and 1 <= x - b <= 254):
                return False, f"exponent_field_base({lo}, {hi}) = {b} is wrong for {x}"
    magic = int(np.array([0x4B400001], np.uint32).view(np.float32)[0])
    minus_bias = float(np.array([0xCB40007F], np.uint32).view(np.float32)[0])
    if not (magic == 12582913 and minus_bias == -12583039 and exponent_field_base(
            Fraction(magic), Fraction(magic + 252)) == 12582912):
        return False, "libdevice constants do not give base 12582912"
    # (5) the exp reductions of coshf (fast math: j + 0x4B40007D, j in [0, 126]) and erfcf (j + 0x4B40007F, j in
    #     [-126, 126] by the clamp |j| > 126 ? copysign(126, j) : j, volta/semantics/intervals.py) land in range
    for word, j_lo, j_hi in ((0x4B40007D, 0, 126), (0x4B40007F, -126, 126)):
        c = int(np.array([word], np.uint32).view(np.float32)[0])
        if exponent_field_base(Fraction(c + j_lo), Fraction(c + j_hi)) != 12582912:
            return False, f"{word:#x} + j for j in [{j_lo}, {j_hi}] leaves the normal exponent range"
    return True, f"{int(ok.sum()):,} exponent-field values checked exhaustively"


def rewrite_coverage(proved: set[str]) -> list[str]:
    """What is wrong between the normalizer's rewrites and the rules: a rewrite naming a rule that is not
    proved, or a rule marked as the normalizer's that no rewrite names (empty: they are one table)."""
    problems = []
    cited = set()
    for entry in REWRITES.values():
        cited.update(entry.rules)
        problems += [f"rewrite {entry.name!r} applies {r!r}, which is not proved" for r in entry.rules
                     if r not in proved]
    problems += [f"rule {rule.name!r} is marked used_by='normal' but no rewrite applies it" for rule in RULES
                 if rule.used_by == "normal" and rule.name not in cited]
    return problems


def main() -> int:
    rng = random.Random(20240601)
    failures = 0
    good, note = check_exponent_field()
    failures += not good
    print(f"{'ok  ' if good else 'FAIL'} {'exponent-field':18} bits  {'exhaustive':15} {note}")
    proved = set()
    for rule in RULES:
        proof = prove_rule(rule)
        checked, bad = spot_check(rule, rng)
        ok = proof.startswith("proved") and bad is None and checked > 0
        failures += not ok
        if ok:
            proved.add(rule.name)
        note = bad or f"{checked} spot checks agree"
        print(f"{'ok  ' if ok else 'FAIL'} {rule.name:18} {rule.kind:5} {proof:15} {note}")
    print(f"{len(RULES) + 1 - failures}/{len(RULES) + 1} rules and bit facts proved and spot-checked")
    problems = rewrite_coverage(proved)
    for problem in problems:
        print(f"FAIL {problem}")
    print(f"{len(REWRITES)} normalizer rewrites, {'each naming only proved rules' if not problems else 'NOT covered'}")
    return 1 if failures or problems else 0


if __name__ == "__main__":
    sys.exit(main())
