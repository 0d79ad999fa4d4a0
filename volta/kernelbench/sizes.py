"""Problem sizes: which module globals are sizes, how they are scaled down, and the hook that applies it.

KernelBench sizes (4096 × 393216) are for timing; a symbolic check needs small ones. A problem file is
executed with every top-level assignment followed by a call to `__volta_sizes__`, which replaces the
value just assigned, so globals derived from a size (`input_shape = (num_classes,)`) are computed from
the scaled value. Integer literals above 16 inside `get_inputs`/`get_init_inputs` (`torch.rand(b, 3,
224, 224)`) are sizes too, named `get_inputs@LINE:COL`.

A size global is a *root*: an int (or a tuple/list of ints) computed from constants only (`N = 2048 * 2`).
Derived globals are never scaled themselves. `scale(v, cap)` keeps v when v <= 2^cap, else returns the
largest value <= 2^cap whose power-of-two factor is v's up to 2^cap: 4096 -> 64, 224 -> 32, 8205 -> 63,
1000 -> 56 at the default cap 6, so divisibility by every tile size up to 64 is as in the benchmark.
Where those sizes break the model (a torch error: channels that no longer split into 3 groups), each size
also keeps its smallest odd prime factor up to 7 (`scale_int_keeping_odd`: 480 -> 96). When that is still
too much work, `problem.choose_sizes` lowers the caps of the largest sizes one at a
time (never below 2).
"""
from __future__ import annotations

import ast
from dataclasses import dataclass, field

DEFAULT_CAP = 6
KEPT_ODD_PRIME = 7     # the largest odd prime factor a size keeps when the plain scaling breaks the model
LITERAL_THRESHOLD = 16
HOOK = "__volta_sizes__"
LITERAL_HOOK = "__volta_literal__"
INPUT_FUNCTIONS = ("get_inputs", "get_init_inputs")


def _power_of_two_factor(v: int) -> int:
    return (v & -v).bit_length() - 1


def scale_int(v: int, cap: int) -> int:
    """The largest value <= 2^cap with v's power-of-two factor (capped at 2^cap); v itself when small."""
    if v <= (1 << cap):
        return v
    k = min(_power_of_two_factor(v), cap)
    odd = 1 if k == cap else (1 << (cap - k)) - 1
    return (1 << k) * odd


def scale_int_keeping_odd(v: int, cap: int) -> int:
    """v's power-of-two factor (capped at 2^cap) times its smallest odd prime factor up to KEPT_ODD_PRIME, so
    that divisibility by that prime survives too (ShuffleNet's 240 and 480 channels in groups of 3: 48 and 96,
    where `scale_int` gives 48 and 32, and 32 // 4 channels do not split in 3 groups); v itself when smaller."""
    if v <= (1 << cap):
        return v
    odd = v >> _power_of_two_factor(v)
    prime = next((p for p in range(3, KEPT_ODD_PRIME + 1, 2) if odd % p == 0), 1)
    return min(v, (1 << min(_power_of_two_factor(v), cap)) * prime)


def scale(value, cap: int, keep_odd: bool = False):
    """scale_int (or, `keep_odd`, scale_int_keeping_odd) over an int or a tuple/list of ints; anything else
    unchanged."""
    one = scale_int_keeping_odd if keep_odd else scale_int
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return one(value, cap)
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, int) and not isinstance(v, bool)
                                                          for v in value):
        return type(value)(one(v, cap) for v in value)
    return value


def largest(value) -> int:
    """The largest int in a size value (0 for non-sizes)."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, (tuple, list)):
        return max((v for v in value if isinstance(v, int) and not isinstance(v, bool)), default=0)
    return 0


def is_size(value) -> bool:
    return largest(value) > 0 and not isinstance(value, bool)


@dataclass
class SizeInfo:
    """What the source says about one size: whether it is a root and whether get_inputs reads it."""

    name: str
    root: bool
    in_inputs: bool
    line: int


@dataclass
class Instrumented:
    """The problem's code with size hooks, and the sizes it declares."""

    code: object
    sizes: dict[str, SizeInfo] = field(default_factory=dict)


def _loads(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _targets(stmt: ast.stmt) -> list[tuple[str, ast.AST | None]]:
    """(name, the expression assigned to it, when known) for a top-level assignment."""
    if isinstance(stmt, ast.Assign):
        out = []
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                out.append((target.id, stmt.value))
            elif isinstance(target, (ast.Tuple, ast.List)):
                values = stmt.value.elts if isinstance(stmt.value, (ast.Tuple, ast.List)) and \
                    len(stmt.value.elts) == len(target.elts) else [None] * len(target.elts)
                out += [(t.id, v) for t, v in zip(target.elts, values) if isinstance(t, ast.Name)]
        return out
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
        return [(stmt.target.id, stmt.value)]
    if isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
        return [(stmt.target.id, None)]
    return []


class _Literals(ast.NodeTransformer):
    """Int literals above the threshold in get_inputs/get_init_inputs become __volta_literal__ calls."""

    def __init__(self, function: str, sizes: dict):
        self.function, self.sizes = function, sizes

    def visit_Constant(self, node: ast.Constant):
        value = node.value
        if isinstance(value, int) and not isinstance(value, bool) and value > LITERAL_THRESHOLD:
            name = f"{self.function}@{node.lineno}:{node.col_offset + 1}"
            self.sizes[name] = SizeInfo(name, True, True, node.lineno)
            call = ast.Call(ast.Name(LITERAL_HOOK, ast.Load()), [ast.Constant(value), ast.Constant(name)], [])
            return ast.copy_location(call, node)
        return node


def instrument(source: str, path: str) -> Instrumented:
    """Compile a problem file with the size hooks in place (a SyntaxError propagates)."""
    tree = ast.parse(source, path)
    sizes: dict[str, SizeInfo] = {}
    read_by_inputs: set[str] = set()
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name == "get_inputs":
            read_by_inputs |= _loads(stmt)
    body = []
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef) and stmt.name in INPUT_FUNCTIONS:
            stmt = _Literals(stmt.name, sizes).visit(stmt)
        body.append(stmt)
        targets = _targets(stmt)
        if not targets:
            continue
        for name, value in targets:
            root = value is not None and not _loads(value) - {"int", "max", "min", "abs"}
            sizes[name] = SizeInfo(name, root, name in read_by_inputs, stmt.lineno)
        call = ast.Call(ast.Name(HOOK, ast.Load()),
                        [ast.Call(ast.Name("globals", ast.Load()), [], []),
                         ast.List([ast.Constant(n) for n, _ in targets], ast.Load())], [])
        body.append(ast.copy_location(ast.Expr(call), stmt))
    tree.body = body
    ast.fix_missing_locations(tree)
    return Instrumented(compile(tree, path, "exec"), sizes)


@dataclass
class Choice:
    """One size as the run used it: its value in the file, the value used, and why."""

    name: str
    original: object
    value: object
    how: str        # "given" (--size), "scaled", "kept"


def halve(value, times: int):
    """Each int of a size halved `times` times while it stays even and at least 2 (ratios between sizes are
    kept: a problem whose widths must equal its channels stays consistent)."""
    def one(v: int) -> int:
        for _ in range(times):
            if v % 2 or v // 2 < 2:
                break
            v //= 2
        return v
    if isinstance(value, int) and not isinstance(value, bool):
        return one(value)
    if isinstance(value, (tuple, list)):
        return type(value)(one(v) if isinstance(v, int) and not isinstance(v, bool) else v for v in value)
    return value


@dataclass
class SizePolicy:
    """What the hooks do: user-given values first, then each root scaled by its cap and halved `shift`
    times if it is shrinkable; records what it chose."""

    info: dict[str, SizeInfo]
    given: dict[str, object] = field(default_factory=dict)
    caps: dict[str, int] = field(default_factory=dict)
    shift: int = 0
    keep_odd: bool = False      # scale_int_keeping_odd: the plain scaling broke the model (choose_sizes)
    choices: dict[str, Choice] = field(default_factory=dict)

    def cap(self, name: str) -> int:
        return self.caps.get(name, DEFAULT_CAP)

    def _value(self, name: str, original, cap: int):
        chosen = scale(original, cap, self.keep_odd)
        return halve(chosen, self.shift) if self.shift and self._shrinkable(name, original) else chosen

    def apply(self, name: str, value):
        if name in self.given:
            chosen, how = self.given[name], "given"
        elif self.info.get(name) and self.info[name].root and is_size(value):
            chosen = self._value(name, value, self.cap(name))
            how = "scaled" if chosen != value else "kept"
        else:
            return value
        self.choices[name] = Choice(name, value, chosen, how)
        return chosen

    def hooks(self) -> dict:
        def sizes_hook(namespace: dict, names: list) -> None:
            for name in names:
                if name in namespace:
                    namespace[name] = self.apply(name, namespace[name])

        def literal_hook(value, name: str):
            return self.apply(name, value)
        return {HOOK: sizes_hook, LITERAL_HOOK: literal_hook}

    def _shrinkable(self, name: str, original) -> bool:
        info = self.info.get(name)
        if info is None or not info.root or name in self.given:
            return False
        return info.in_inputs or largest(original) > LITERAL_THRESHOLD

    def shrinkable(self, name: str) -> bool:
        """Whether the budget may lower this size below the default: a root read by get_inputs, or one
        larger than the literal threshold; never a size the user gave."""
        choice = self.choices.get(name)
        return choice is not None and self._shrinkable(name, choice.original)

    def halve_all(self) -> bool:
        """Halve every shrinkable size at once (phase one of the search); False when none would change."""
        changes = any(self.shrinkable(n) and halve(c.value, 1) != c.value for n, c in self.choices.items())
        if changes:
            self.shift += 1
        return changes

    def lower(self, name: str) -> bool:
        """Lower one size by lowering its cap until its value drops; False when it would go below 2."""
        choice = self.choices[name]
        current = largest(choice.value)
        cap = self.cap(name)
        while current > 2 and cap > 0:
            cap -= 1
            smaller = largest(self._value(name, choice.original, cap))
            if smaller < current:
                if smaller < 2:
                    return False
                self.caps[name] = cap
                return True
        return False
