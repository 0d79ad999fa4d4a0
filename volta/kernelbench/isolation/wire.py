"""The candidate's computed elements as they cross from the worker to Volta: an expression table, decoded
without running code.

The worker's side is untrusted (the candidate's Python runs there), so nothing it sends is unpickled with the
default unpickler, which runs whatever callable a stream names. A frame holds two pickles read by `_Strict`,
whose `find_class` allows exactly one class, `fractions.Fraction` (constants are exact rationals), so a stream
that names anything else is refused before any object is made:

1. the expression table: every `symbolic.expr` node the message refers to, children first, in columns
   (operators, arities, child positions as int32 arrays; data by position, checked to be plain values:
   numbers, strings, tuples of them, no NaN or infinity); the parent checks the columns at once (sizes,
   operators, each operator's arity, every child before its parent) and re-interns each node itself
   (`expr._make`, a commutative node's two arguments in the order of the parent's node ids, as its
   constructors order them), so equal expressions meet as they do in one process;
2. the message: tuples, lists, dicts, strings and numbers only, where an expression is the persistent id
   `("e", position)` and the never-written marker `("u",)`.

`evidence_frame` encodes what the check in the worker recorded (`kernelbench.evidence`); `read_evidence`
decodes and checks it record by record (fields, shapes against element counts, every element an expression);
anything malformed raises `Malformed`, which the parent reports as REJECTED.
"""
from __future__ import annotations

import io
import math
import pickle
from fractions import Fraction
from operator import attrgetter

import numpy as np

from volta.kernelbench import dtypes as D
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.evidence import EXTENSION_FIELDS
from volta.kernelbench.memory import ITEMSIZE
from volta.symbolic import expr as E

MAX_FRAME = 1 << 29           # bytes one evidence message may take (512 MiB)
MAX_DATA_DEPTH = 4            # nesting of tuples in a node's data
PLAIN = (type(None), bool, int, float, str, Fraction)


class Malformed(Exception):
    """What the worker sent is not a well-formed message (a crash mid-write, or a forged one)."""


# ---------------------------------------------------------------- encoding (the worker's side)

class _Encoder(pickle.Pickler):
    """Pickles plain values; an expression becomes ("e", k), k its position among the roots met."""

    def __init__(self, out):
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        self.roots: list = []
        self.position: dict = {}

    def persistent_id(self, obj):
        if type(obj) is E.Expr:
            k = self.position.get(obj)
            if k is None:
                k = self.position[obj] = len(self.roots)
                self.roots.append(obj)
            return ("e", k)
        if obj is UNWRITTEN:
            return ("u",)
        return None


def _table(roots: list) -> tuple:
    """Every node reachable from the roots, children first (interning makes ids topological), in columns:
    operators, arities and child positions as int32 bytes, data by position, the roots' positions."""
    seen, stack = set(roots), list(roots)
    while stack:
        for child in stack.pop().args:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    nodes = sorted(seen, key=attrgetter("id"))
    index = {node: i for i, node in enumerate(nodes)}
    ops = np.fromiter((n.op for n in nodes), np.int32, len(nodes))
    arity = np.fromiter((len(n.args) for n in nodes), np.int32, len(nodes))
    children = np.fromiter((index[c] for n in nodes for c in n.args), np.int32, int(arity.sum()))
    data = {i: n.data for i, n in enumerate(nodes) if n.data is not None}
    return ops.tobytes(), arity.tobytes(), children.tobytes(), data, [index[r] for r in roots]


def encode(message) -> bytes:
    body = io.BytesIO()
    encoder = _Encoder(body)
    encoder.dump(message)
    return pickle.dumps(_table(encoder.roots), protocol=pickle.HIGHEST_PROTOCOL) + body.getvalue()


# ---------------------------------------------------------------- decoding (the parent's side)

class _Strict(pickle.Unpickler):
    def __init__(self, stream, roots=None):
        super().__init__(stream)
        self.roots = roots

    def find_class(self, module, name):
        if (module, name) == ("fractions", "Fraction"):
            return Fraction
        raise Malformed(f"the message names {module}.{name}, which a worker's message never holds")

    def persistent_load(self, pid):
        if self.roots is not None and isinstance(pid, tuple):
            if pid == ("u",):
                return UNWRITTEN
            if len(pid) == 2 and pid[0] == "e" and type(pid[1]) is int and 0 <= pid[1] < len(self.roots):
                return self.roots[pid[1]]
        raise Malformed(f"the message refers to {pid!r}, no expression it holds")


def decode(frame: bytes):
    stream = io.BytesIO(frame)
    try:
        table = _Strict(stream).load()
        roots = _nodes(table)
        return _Strict(stream, roots).load()
    except Malformed:
        raise
    except Exception as err:    # a truncated or garbled stream: pickle raises many kinds
        raise Malformed(f"the message does not decode ({type(err).__name__}: {err})") from None


def _plain(v, depth: int = 0) -> bool:
    if type(v) in PLAIN:
        return not (type(v) is float and not math.isfinite(v))
    return type(v) is tuple and depth < MAX_DATA_DEPTH and all(_plain(x, depth + 1) for x in v)


OPS = {int(op): op for op in E.Op}
ARITY = {**{int(op): 0 for op in E.LEAVES}, **{int(op): 1 for op in E.UNARY_ATOMS | {E.EXP2, E.NOT, E.RINT}},
         **{int(op): 2 for op in E.COMMUTATIVE | {E.DIV, E.LT, E.LE}}, int(E.SELECT): 3}   # CALL: any


def _columns(table) -> tuple:
    """The table's columns, checked: sizes agree, operators exist, every child comes before its parent."""
    _need(type(table) is tuple and len(table) == 5 and all(type(c) is bytes for c in table[:3])
          and type(table[3]) is dict and type(table[4]) is list, "the expression table is not five columns")
    try:
        ops, arity, children = (np.frombuffer(c, np.int32) for c in table[:3])
    except ValueError:
        raise Malformed("the expression table's columns are not int32 arrays") from None
    n = len(ops)
    _need(len(arity) == n and (arity >= 0).all() and int(arity.sum(dtype=np.int64)) == len(children),
          "the expression table's arities do not match its children")
    _need(bool(np.isin(ops, list(OPS)).all()), "the expression table names an operator Volta has not")
    fixed = np.array([ARITY.get(int(op), -1) for op in OPS.values()])[np.searchsorted(list(OPS), ops)]
    _need(bool(((fixed < 0) | (fixed == arity)).all()), "a node of the table has another arity than its operator")
    owner = np.repeat(np.arange(n, dtype=np.int64), arity)
    _need(bool(((children >= 0) & (children < owner)).all()), "a node of the table refers to itself or a later one")
    data, roots = table[3], table[4]
    _need(all(type(k) is int and 0 <= k < n and _plain(v) for k, v in data.items()),
          "a node's data is no plain value")
    _need(all(type(r) is int and 0 <= r < n for r in roots), "a root is no node of the table")
    return ops.tolist(), arity.tolist(), children.tolist(), data, roots


def _nodes(table) -> list:
    """The roots of a checked table, every node re-interned in this process (`expr._make`); a commutative
    node's two arguments in the order of this process's ids, as its constructors order them."""
    ops, arity, children, data, roots = _columns(table)
    make, commutative, var, const, get = E._make, E.COMMUTATIVE, E.VAR, E.CONST, data.get
    nodes: list = []
    at = 0
    for n, (code, k) in enumerate(zip(ops, arity)):
        op = OPS[code]
        if k == 2:
            a, b = nodes[children[at]], nodes[children[at + 1]]
            args = (b, a) if op in commutative and a.id > b.id else (a, b)
        elif k == 0:
            args = ()
        else:
            args = tuple(nodes[c] for c in children[at:at + k])
        at += k
        d = get(n)
        if op is var:
            _need(k == 0 and type(d) is tuple and len(d) == 2 and type(d[0]) is str and type(d[1]) is int,
                  f"expression {n} is an input leaf without (buffer, index)")
        elif op is const:
            _need(k == 0 and type(d) in (int, Fraction), f"expression {n} is a constant that is no rational")
        nodes.append(make(op, args, d))
    return [nodes[r] for r in roots]


# ---------------------------------------------------------------- the evidence (kernelbench/evidence.py)

INSTANCE_KEYS = {"ragged", "answers", "calls", "inputs", "parameters", "rounded", "extensions", "host_calls",
                 "call_trace", "found", "forward_memory"}
HOST_CALL_KEYS = {"module", "fn", "trace", "before", "after"}


def evidence_frame(evidence) -> bytes:
    return encode(evidence.snapshot())


def read_evidence(frame: bytes) -> list:
    """The worker's evidence, decoded and checked: a list of `Evidence.snapshot` records."""
    instances = decode(frame)
    _need(type(instances) is list, "the evidence is not a list of runs")
    for inst in instances:
        _need(type(inst) is dict and set(inst) == INSTANCE_KEYS, "a run's evidence has other fields")
        _need(type(inst["ragged"]) is bool and type(inst["answers"]) is str, "a run's label is malformed")
        calls = inst["calls"]
        _need(type(calls) is dict and all(type(c) is int and c >= 1 for c in calls), "the calls are malformed")
        for outs in calls.values():
            _need(type(outs) is list, "a call's outputs are not a list")
            for o in outs:
                _need(o is None or _output(o), "an output is not (shape, dtype, elements, elements after)")
        for key in ("inputs", "parameters"):
            _need(type(inst[key]) is dict and all(type(k) is str and _elements(v) for k, v in inst[key].items()),
                  f"the {key} read after call 1 are malformed")
        rounded = inst["rounded"]
        _need(rounded is None or (type(rounded) is list and all(v is None or _elements(v) for v in rounded)),
              "the rounded outputs are malformed")
        _need(type(inst["extensions"]) is dict and all(type(k) is str and _extension(v)
                                                       for k, v in inst["extensions"].items()),
              "an extension's sources are malformed")
        _need(type(inst["host_calls"]) is list and all(_host_call(c) for c in inst["host_calls"]),
              "a call into an extension is malformed")
        _need(type(inst["call_trace"]) is list and all(_listed(e) for e in inst["call_trace"]),
              "the call trace is malformed")     # each entry is checked as Volta's process replays it (calltrace)
        _need(type(inst["found"]) is list and all(_elements(v) for v in inst["found"]),
              "the elements of the storages found in forward are malformed")
        _need(inst["forward_memory"] is None or _state({"memory": inst["forward_memory"], "symbols": {}}),
              "the memory before forward is malformed")
    return instances


def _listed(v, depth: int = 0) -> bool:
    """Plain values in lists (the call trace's entries), at most 10 deep."""
    if type(v) is list:
        return depth < 10 and all(_listed(x, depth + 1) for x in v)
    return type(v) in (type(None), bool, int, str) or (type(v) is float and math.isfinite(v))


def _strings(v) -> bool:
    return type(v) is tuple and all(type(x) is str for x in v)


def _extension(v) -> bool:
    return (type(v) is dict and set(v) == set(EXTENSION_FIELDS) and type(v["name"]) is str
            and type(v["main_cpp"]) is str and (v["cuda_cu"] is None or type(v["cuda_cu"]) is str)
            and (v["functions"] is None or _strings(v["functions"]))
            and all(_strings(v[k]) for k in ("cflags", "cuda_cflags", "ldflags", "include_paths")))


def _host_call(c) -> bool:
    """The plain shape of a recorded call; its trace's events are checked as any trace (`host.trace.parse`)
    when Volta's process replays them."""
    return (type(c) is dict and set(c) == HOST_CALL_KEYS and type(c["module"]) is str and type(c["fn"]) is str
            and type(c["trace"]) is list and _state(c["before"])
            and _state(c["after"]))


def _state(v) -> bool:
    if not (type(v) is dict and set(v) == {"memory", "symbols"} and type(v["memory"]) is list
            and type(v["symbols"]) is dict):
        return False
    memory_ok = all(type(m) is tuple and len(m) == 4 and type(m[0]) is int and m[0] >= 0 and m[1] in ITEMSIZE
                    and (m[2] is None or type(m[2]) is str) and _elements(m[3]) for m in v["memory"])
    symbols_ok = all(type(module) is str and type(named) is dict
                     and all(type(name) is str and type(writes) is list
                             and all(type(w) is tuple and len(w) == 2 and type(w[0]) is int and type(w[1]) is str
                                     for w in writes) for name, writes in named.items())
                     for module, named in v["symbols"].items())
    return memory_ok and symbols_ok


def _elements(v) -> bool:
    return type(v) is list and all(type(x) is E.Expr or x is UNWRITTEN for x in v)


def _output(o) -> bool:
    if not (type(o) is tuple and len(o) == 4 and type(o[0]) is tuple and all(type(n) is int and n >= 0 for n in o[0])
            and o[1] in D.BY_VOLTA and _elements(o[2])):
        return False
    size = math.prod(o[0])
    return len(o[2]) == size and (o[3] is None or (_elements(o[3]) and len(o[3]) == size))


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Malformed(what)
