"""Elements that are a proved element over other inputs: proved by renaming, without a normal form of their own.

The output elements of a kernel are mostly one computation over different inputs: an attention row's 64
elements are sum_k 2^(s_k - m)·V[k, d] / sum_k 2^(s_k - m), the same expression but for the column d of V.
Normalizing each costs its whole expansion again (Attention vs FA2-TC: 1,024 normal forms of 512-term ratios,
most of the comparison). If a = b holds for every input and a', b' are a, b with input leaves renamed by one
map sigma (a' = sigma(a), b' = sigma(b)), then a' = b' holds for every input too: it is the same identity at
the inputs sigma picks. sigma need not be one-to-one.

`Renamings.covers(a2, b2)` walks the last proved pair (a, b) beside (a2, b2), node by node: operators and data
must agree, input leaves (VAR) may map to other input leaves, one image per leaf. Where the walk meets the
same node on both sides it stops (shared row statistics, weights), which is right only if sigma fixes every
leaf below it: checked at the end by buffer, every buffer a skipped node reads must be one sigma moves no leaf
of (else the walk proves nothing and the caller normalizes as before). Named constants, symbols and
constants must match exactly. Only identities proved over the reals for every input are recorded (the caller
adds pairs its normal forms proved equal), so any renaming of one is an identity too.
"""
from __future__ import annotations

from volta.symbolic import expr as E

MAX_WALK = 2_000_000   # nodes a single walk may visit (a row change re-walks a row's scores): beyond, no claim


class Renamings:
    """The last pair proved equal by normal forms, and the input buffers below each node met (memoized)."""

    def __init__(self) -> None:
        self.last: tuple | None = None
        self.reads: dict = {}   # node -> frozenset of the input buffers below it
        self.sets: dict = {}    # one frozenset object per distinct set of buffers

    def add(self, a: E.Expr, b: E.Expr) -> None:
        """Record a = b, proved for every input over the reals."""
        self.last = (a, b)

    def covers(self, a: E.Expr, b: E.Expr) -> bool:
        """Is (a, b) the recorded pair with input leaves renamed by one map (so a = b for every input)?"""
        if self.last is None or not (isinstance(a, E.Expr) and isinstance(b, E.Expr)):
            return False
        sigma: dict = {}
        skipped: list = []
        moved: set = set()
        ta, tb = self.last
        if not (_walk(ta, a, sigma, skipped, moved) and _walk(tb, b, sigma, skipped, moved)):
            return False
        if moved and not all(self._reads(node).isdisjoint(moved) for node in skipped):
            return False
        self.last = (a, b)   # the next element is likelier a renaming of this one (the same row)
        return True

    def _reads(self, root: E.Expr) -> frozenset:
        reads, sets = self.reads, self.sets
        hit = reads.get(root)
        if hit is not None:
            return hit
        for node in E.postorder(root, reads):
            if node.op is E.VAR:
                s = frozenset((node.data[0],))
            elif not node.args:
                s = frozenset()
            else:
                s = reads[node.args[0]]
                for child in node.args[1:]:
                    t = reads[child]
                    if t is not s:
                        s = s | t
            reads[node] = sets.setdefault(s, s)
        return reads[root]


def _walk(x: E.Expr, y: E.Expr, sigma: dict, skipped: list, moved: set) -> bool:
    """Extend sigma (node of the template -> node of the target) so that y = sigma(x); False if no leaf
    renaming does. Identical composite nodes are left to the caller's check (`skipped`); `moved` gets the
    buffers of the input leaves sigma maps elsewhere."""
    stack = [(x, y)]
    pop, push, get = stack.pop, stack.append, sigma.get
    var, commutative = E.VAR, E.COMMUTATIVE
    budget = MAX_WALK
    while stack:
        x, y = pop()
        image = get(x)
        if image is not None:
            if image is not y:
                return False
            continue
        budget -= 1
        if not budget:
            return False
        sigma[x] = y
        xs = x.args
        if x is y:
            if xs:
                skipped.append(x)
            continue
        op = x.op
        if op is not y.op:
            return False
        ys = y.args
        if not xs:   # a leaf: an input may become another input; anything else must be itself
            if op is not var or ys:
                return False
            moved.add(x.data[0])
            continue
        if x.data != y.data or len(xs) != len(ys):
            return False
        if len(xs) == 2:
            x0, x1 = xs
            y0, y1 = ys
            if op in commutative and x0 is not y0 and x1 is not y1 and (
                    x0 is y1 or x1 is y0 or get(x0) is y1 or get(x1) is y0):
                x0, x1 = x1, x0   # (interned commutative nodes order their arguments by id)
            push((x0, y0))
            push((x1, y1))
        else:
            for pair in zip(xs, ys):
                push(pair)
    return True
