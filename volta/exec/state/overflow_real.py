"""A `selp` between ±inf and a real value, over the reals (`volta check`): the overflow arm of libdevice.

libdevice's expm1f ends with `selp.f32 r, 0f7F800000, v, p` where p is `j > 128` for j = rint(x·log2 e):
where p holds, e^x − 1 is beyond every finite f32, so the library writes the +inf the float computation of v
would overflow to. ±inf has no real value, and realops.choose drops such an arm only where the other arm is
undefined. This module drops it in one more case, exactly where it is the float overflow of the other arm:

    the ∞ arm is taken only where the other arm's real value lies beyond the type's range:
    c → v ≥ 2^128 (+inf; v ≤ −2^128 for −inf; 2^1024 for .f64), proved by z3 for every input.

There the float result is ±inf because the real value overflows, and the real model reads every float
instruction by its unrounded real value (`expf(100.f)` is e^100 there, not inf), so it reads this select as
the other arm. Anything else (`x > 10 ? INFINITY : expf(x)`, whose +inf is no overflow) stays UNSUPPORTED.
The proof (volta/symbolic/z3bridge.py: implies_beyond) encodes the atoms soundly and loosely, plus two true facts:
`rint.rni(u)` is an integer within 1/2 of u (the other modes: within 1), and 2^z ≥ 2^K where z3 proves
c → z ≥ K for the integer K (found by bisection; 2^z is increasing). `unsat` is a proof; `unknown` or a
timeout is not, and the select is refused. A proof is reused for every lane whose expressions have the same
shape (the same DAG up to renaming its input leaves, which preserves validity).
"""
from __future__ import annotations

from fractions import Fraction

from volta.semantics import realops
from volta.symbolic import expr as E
from volta.symbolic.z3bridge import implies_beyond

LIMITS = {".f32": Fraction(2) ** 128, ".f64": Fraction(2) ** 1024}   # beyond every finite value of the type
BOUND_MS, PROOF_MS = 2_000, 10_000
_PROVED: dict = {}   # shape of (condition, other arm, sign, limit) -> bool


def proves_overflow(cond, other, sign: int, limit: Fraction) -> bool:
    """Does cond imply other >= limit (sign > 0) or other <= -limit (sign < 0), for every input?"""
    key = (_shape((cond, other)), sign, limit)
    hit = _PROVED.get(key)
    if hit is not None:
        return hit
    ok = implies_beyond(cond, other, sign, limit, BOUND_MS, PROOF_MS)
    _PROVED[key] = ok
    return ok


def _shape(roots) -> tuple:
    """The DAG below roots with its VAR/SYM leaves numbered in visiting order: equal shapes are the same
    formula up to a renaming of the inputs."""
    index: dict = {}
    leaves: dict = {}
    out = []
    for r in roots:
        for n in E.postorder(r, index):
            data = ("leaf", leaves.setdefault(n, len(leaves))) if n.op in (E.VAR, E.SYM) else n.data
            out.append((int(n.op), data, tuple(index[a] for a in n.args)))
            index[n] = len(index)
    return tuple(out), tuple(index[r] for r in roots)


def overflow_select(m, op, c, a, b):
    """selp(c, a, b) where one arm is ±inf and the other real: the real arm, when the ∞ arm is proved to be
    taken only where the real arm overflows the type (module docstring); None otherwise."""
    limit = LIMITS.get(op.d.types[0] if op.d.types else None)
    if limit is None or not isinstance(c, E.Expr):
        return None
    if isinstance(a, realops.Infinity) and isinstance(b, E.Expr):
        cond, inf, other = c, a, b
    elif isinstance(b, realops.Infinity) and isinstance(a, E.Expr):
        cond, inf, other = E.logical_not(c), b, a
    else:
        return None
    if not proves_overflow(cond, other, inf.sign, limit):
        return None
    k = 128 if op.d.types[0] == ".f32" else 1024
    note = (f"{op.span.file}:{op.span.line}: `{op.d.inst.opcode}` picks {inf!r} only where the other arm's real "
            f"value is {'≥ ' if inf.sign > 0 else '≤ -'}2^{k} (proved by z3 under the selecting condition): there "
            f"the float result overflows, and over the reals the select is that arm's unrounded value")
    notes = m.__dict__.setdefault("real_notes", [])
    if note not in notes:
        notes.append(note)
    return other
