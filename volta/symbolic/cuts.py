"""Cut points: sub-expressions both sides compute, proved equal once and then compared as one atom.

A layer norm's backward gives every element of a row the same row statistics (mean, 1/sqrt(var + eps), the
means of x̂·w·dy and w·dy), each side computing them in its own order. Expanded into every output element,
they make normal forms of a quarter of a million monomials per element (minutes and gigabytes for 4 rows of
64); kept as atoms, each element is a handful of terms.

`cut(ref_roots, opt_roots, normalize, equal)` walks both DAGs bottom-up. Nodes whose float values at two random
inputs agree (a fingerprint) form classes; a class with members reachable from both sides, each expanding to at
least CUT_TERMS terms, becomes a fresh leaf `@cut[k]`: its first member defines it, and every other member
whose normal form — over the members' own rewritten arguments, so already small — equals the first's is
replaced by it. The fingerprint only proposes (a max or select agrees with one argument wherever that
argument wins, as at both random inputs; a hardswish equals its argument wherever that argument is past 3):
a member proved equal to none of its class's leaders becomes one more leader (MAX_LEADERS at most; past
that the class is closed and such members keep their own rewritten form), and new classes stop opening once
most proofs fail. A node whose fingerprint is one of its arguments' joins no class (a max(0, y) with y
positive at both points could only fail against y, and is rebuilt as the other side's node is once its
arguments are rewritten), nor does a node of one value at both points (a max saturated at 0, a min at 6:
a function of the inputs takes the same value at two random points only by chance, so these are constants
to the fingerprint, alike to every other).

Smaller nodes (under CUT_TERMS terms) are merged instead: a class of two or more of them, reachable from both
sides, is stood for by its first member itself, and every later member whose normal form equals the first's is
replaced by it, no leaf made. A reference's swish `x·sigmoid(x)` and a kernel's `x/(1 + e^-x)` then become one
node, and a group norm over them, the same code on both sides above, is the same DAG: proved by identity,
where normalizing the group's mean of 108 such fractions would have a common denominator of 2^108 terms.
Replacing a member by one with the same normal form leaves every normal form above it as it was (normal forms
are made from the arguments' normal forms), so a merge loses no proof that normal forms make.

Sound by substitution: every node replaced by `@cut[k]` equals the first member wherever both are defined, so
an identity between the rewritten roots that holds for every value of `@cut[k]` holds at that value too. Not
complete: the rewritten roots can differ where the originals are equal (one side forms a sum the other never
does), so a caller compares the rewritten roots first (`proved_equal`) and, only when that does not prove
them equal, the originals as before (volta/equiv/check.py, volta/kernelbench/triton_check.py).
"""
from __future__ import annotations

import math
import random

from volta.errors import Unsupported
from volta.symbolic import expr as E
from volta.symbolic.evaluate import EvalError, evaluate_float

CUT = "@cut"
CUT_TERMS = 32        # smaller sub-expressions stay expanded: cutting them gains little and can lose a proof
WORTH_CUTTING = 2_000  # no sub-expression this large (a 128-key attention: ~512): normalizing is cheap, no cuts
MAX_PROOF_TERMS = 50_000   # a rewritten member larger than this is left to the caller's comparison
POINTS = 2            # random inputs per fingerprint
DIGITS = 9            # significant digits a fingerprint keeps (summation orders differ in the last bits)
MAX_FAILED = 8        # after this many failed proofs, new classes are opened only while half the proofs succeed
MAX_LEADERS = 4       # members of one fingerprint proved unequal stand for themselves, this many at most


def cut(ref_roots: list, opt_roots: list, normalize, equal, expansion) -> tuple[list, list, int]:
    """(ref_roots, opt_roots) rewritten with cut points and merges, and how many were made. `normalize(expr)` gives a
    normal form, `equal(a, b)` compares two, `expansion(expr)` estimates the terms normalizing makes."""
    exprs = [r for r in (*ref_roots, *opt_roots) if isinstance(r, E.Expr)]
    # a root's estimate bounds every node's below it (a sum, product or ratio has at least the terms of its
    # parts, an atom carries its arguments'): one walk says whether any node is large, not a call per node
    # (Attention vs FA2-TC, 1,024 elements: that was a third of a ten-minute profile)
    if expansion(*exprs) < WORTH_CUTTING:
        return list(ref_roots), list(opt_roots), 0
    ref_nodes = _reachable([r for r in ref_roots if isinstance(r, E.Expr)])
    opt_nodes = _reachable([r for r in opt_roots if isinstance(r, E.Expr)])
    order = sorted(ref_nodes | opt_nodes, key=lambda n: n.id)   # ascending id: children before parents
    prints = _fingerprints(exprs, order)
    classes: dict = {}   # (large, fingerprint) -> members
    for node in order:
        key = prints.get(node)
        if key is not None and node.op not in E.LEAVES and len(set(key)) > 1 \
                and not any(prints.get(c) == key for c in node.args):
            classes.setdefault((expansion(node) >= CUT_TERMS, key), []).append(node)
    cuttable = {key for key, members in classes.items()
                if any(m in ref_nodes for m in members) and any(m in opt_nodes for m in members)
                and (key[0] or len(members) > 1)}
    class_of = {m: key for key in cuttable for m in classes[key]}
    new: dict = {}
    leaders: dict = {}   # class -> [[what stands for it, the member's rewritten form, its normal form], ...]
    dead: set = set()    # classes whose leaders are all taken: their later unproved members keep their forms
    made = merged = 0
    proofs, failed = {True: 0, False: 0}, {True: 0, False: 0}   # by kind: cut (large) or merged (small)
    for node in order:
        args = node.args
        rebuilt = node if not args else E.rebuild(node, tuple(new[a] for a in args)) \
            if any(new[a] is not a for a in args) else node
        key = class_of.get(node)
        if key is not None and key not in dead:
            large, known = key[0], leaders.setdefault(key, [])
            same = next((entry for entry in known if _proved(entry, rebuilt, normalize, equal, expansion)), None)
            if same is not None:
                proofs[large] += 1
                merged += rebuilt is not same[0] and not large
                rebuilt = same[0]
            elif known and len(known) >= MAX_LEADERS:
                proofs[large] += 1
                failed[large] += 1
                dead.add(key)
            elif not known and failed[large] > MAX_FAILED and failed[large] * 2 > proofs[large]:
                pass   # fingerprints that keep failing: no new class opens
            elif large:
                leaf = E.var(CUT, made)
                made += 1
                known.append([leaf, rebuilt, None])
                rebuilt = leaf
            else:   # the member itself stands for a small class: merged, no leaf
                known.append([rebuilt, rebuilt, None])
        new[node] = rebuilt
    return ([new.get(r, r) if isinstance(r, E.Expr) else r for r in ref_roots],
            [new.get(r, r) if isinstance(r, E.Expr) else r for r in opt_roots], made + merged)


class CutPoints:
    """The cut points of one output's undecided elements, made when the first element that can hold one asks.

    Making them walks every element's DAG on both sides (`cut`, from its expansion estimate over all roots):
    for Attention vs FA1, 1,024 elements of 512-key sums, that walk alone was a seventh of the check, to learn
    that no node is large, while renaming proved 1,023 of the elements with no estimate at all. So `proved`
    makes them only for an element whose own estimate reaches WORTH_CUTTING (an element's estimate bounds
    every node's below it, so a smaller element holds no node worth cutting), and the caller asks that only
    of an element that nothing cheaper decided; until then, and when no element ever asks, none are made.
    Once made, they are those `cut` makes over all the elements, as before."""

    def __init__(self, ref_roots: list, opt_roots: list, normalize, equal, expansion) -> None:
        self.ref, self.opt = ref_roots, opt_roots
        self.normalize, self.equal, self.expansion = normalize, equal, expansion
        self.asked = False   # whether cut() has run (its result in self.ref, self.opt, self.made)
        self.made = 0

    def proved(self, pos: int, a, b, make: bool = False) -> bool:
        """Is element `pos` (a, b) proved equal over the cut points? With `make`, first make them if that has not
        been tried yet and the element is large enough to need them (more than one element)."""
        if make and not self.asked and len(self.ref) > 1 and self.expansion(a, b) >= WORTH_CUTTING:
            self.asked = True
            self.ref, self.opt, self.made = cut(self.ref, self.opt, self.normalize, self.equal, self.expansion)
        return self.made > 0 and proved_equal(self.ref[pos], self.opt[pos], a, b, self.normalize, self.equal,
                                              self.expansion)


def proved_equal(x, y, a, b, normalize, equal, expansion) -> bool:
    """Are rewritten roots x, y (of the originals a, b) equal? Only a proof counts: anything else leaves a, b
    to the caller's full comparison (also when nothing was cut in them)."""
    if x is a and y is b:
        return False
    if x is y:
        return True
    if not (isinstance(x, E.Expr) and isinstance(y, E.Expr)) or expansion(x, y) > MAX_PROOF_TERMS:
        return False
    if _cut_leaves(x) != _cut_leaves(y):   # one side kept what the other cut: not worth normalizing
        return False
    try:
        return equal(normalize(x), normalize(y))
    except Unsupported:
        return False


def _cut_leaves(root) -> frozenset:
    return frozenset(leaf for leaf in E.leaves(root) if leaf.op is E.VAR and leaf.data[0] == CUT)


def _proved(entry: list, rebuilt, normalize, equal, expansion) -> bool:
    """Is `rebuilt` equal to the member a class's entry [stand-in, definition, normal form] stands for (both
    over cut leaves)? The definition's normal form is kept in the entry."""
    _stand, definition, nf = entry
    if rebuilt is definition:
        return True
    if expansion(rebuilt) > MAX_PROOF_TERMS or expansion(definition) > MAX_PROOF_TERMS:
        return False
    try:
        if nf is None:
            nf = entry[2] = normalize(definition)
        return equal(nf, normalize(rebuilt))
    except Unsupported:
        return False


def _reachable(roots: list) -> set:
    seen: set = set()
    for r in roots:
        seen.update(E.postorder(r, seen))
    return seen


def _fingerprints(roots: list, order: list) -> dict:
    """node -> its float values at POINTS random inputs, rounded to DIGITS; nodes with a value that is not a
    finite float (a comparison, nan, inf, an uninterpreted call) have none."""
    leaves = sorted({n for n in order if n.op in (E.VAR, E.SYM)}, key=lambda n: n.id)
    rng = random.Random(0)
    values: list = []
    for _ in range(POINTS):
        env = {leaf: rng.uniform(0.5, 2.0) * rng.choice((-1, 1)) for leaf in leaves}
        memo: dict = {}
        for r in roots:
            try:
                evaluate_float(r, env, memo=memo)
            except (EvalError, ArithmeticError, ValueError):
                pass
        values.append(memo)
    prints = {}
    for node in order:
        key = []
        for memo in values:
            v = memo.get(node)
            if type(v) is not float or not math.isfinite(v):
                break
            key.append(float(f"{v:.{DIGITS}g}"))
        else:
            prints[node] = tuple(key)
    return prints
