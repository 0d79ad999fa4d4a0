"""What crosses the pipe between the candidate's worker and Volta: explicit records, decoded without running code.

The worker's side is untrusted (the candidate's Python runs there), so nothing it sends is unpickled with the
default unpickler, which runs whatever callable a stream names. A frame holds two pickles read by `_Strict`,
whose `find_class` allows exactly one class, `fractions.Fraction` (constants are exact rationals), so a stream
that names anything else is refused before any object is made:

1. the expression table: every `symbolic.expr` node the message refers to, children first, in columns
   (operators, arities, child positions as int32 arrays; data by position, checked to be plain values:
   numbers, strings, tuples of them); the parent checks the columns at once (sizes, operators, every child
   before its parent) and re-interns each node itself (`expr._make`, a commutative node's two arguments in
   the order of the parent's node ids, as its constructors order them), so equal expressions meet as they do
   in one process;
2. the message: tuples, lists, dicts, strings and numbers only, where an expression is the persistent id
   `("e", position)` and the never-written marker `("u",)`.

`outcome_of` turns the worker's report into such a message and `apply` checks it field by field (types,
counts, shapes against element counts) into the parent's report; anything malformed raises `Malformed`,
which the parent reports as REJECTED.
"""
from __future__ import annotations

import io
import math
import pickle
from dataclasses import fields
from operator import attrgetter
from fractions import Fraction

import numpy as np

from volta.errors import Span, Unsupported
from volta.exec.findings import Finding, Site, ThreadId
from volta.kernelbench.candidate import Binding
from volta.kernelbench.elements import UNWRITTEN
from volta.kernelbench.kernels import LaunchResult
from volta.kernelbench.tensor import from_array
from volta.kernelbench import dtypes as D
from volta.symbolic import expr as E

MAX_FRAME = 1 << 31           # bytes one message may take
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


# ---------------------------------------------------------------- the candidate's outcome

def _span(s) -> tuple | None:
    return None if s is None else (s.file, s.line, s.col)


def _plain_details(details: dict) -> dict:
    return {str(k): v if _plain(v) or type(v) is E.Expr else repr(v) for k, v in details.items()}


def _finding(f: Finding) -> dict:
    out = {x.name: getattr(f, x.name) for x in fields(Finding)}
    out["threads"] = tuple((tuple(t.block), tuple(t.thread)) for t in f.threads)
    out["sites"] = tuple(tuple(getattr(s, x.name) for x in fields(Site)) for s in f.sites)
    out["details"] = _plain_details(f.details)
    return out


def _launch(x: LaunchResult) -> dict:
    return {"kernel": x.kernel, "ptx": x.ptx, "grid": tuple(x.grid), "block": tuple(x.block),
            "findings": [_finding(f) for f in x.findings], "thread_instructions": int(x.thread_instructions),
            "seconds": float(x.seconds), "extension": getattr(x, "extension", None)}


def outcome_of(report, outputs) -> dict:
    """The worker's report of the candidate's run (`check.KernelbenchReport`) and its outputs as a message."""
    launches = list(report.launches)
    return {
        "verdict": report.verdict,
        "outputs": None if outputs is None else [(tuple(int(n) for n in t.shape), t.dtype.volta, list(t.values()))
                                                 for t in outputs],
        "unsupported": None if report.unsupported is None else (report.unsupported.message,
                                                                _span(report.unsupported.span)),
        "raised": None if report.raised is None else (str(report.raised[0]), str(report.raised[1]),
                                                      _span(report.raised[2])),
        "findings": [_finding(f) for f in report.findings],
        "finding_launch": next((i for i, x in enumerate(launches) if x is report.finding_launch), None),
        "bindings": [(b.candidate, b.reference, b.how, tuple(b.shape)) for b in report.bindings],
        "launches": [_launch(x) for x in launches],
        "refused": [(str(k), str(why)) for k, why in report.refused],
        "host_ops": [str(op) for op in report.host_ops],
        "notes": [str(n) for n in report.notes],
        "seconds": {str(k): float(v) for k, v in report.seconds.items()},
    }


def _need(ok: bool, what: str) -> None:
    if not ok:
        raise Malformed(what)


def _str_list(v, what: str) -> list:
    _need(type(v) is list and all(type(x) is str for x in v), f"{what} is not a list of strings")
    return v


def to_span(v, paths: dict):
    if v is None:
        return None
    _need(type(v) is tuple and len(v) == 3 and type(v[0]) is str and type(v[1]) is int and type(v[2]) is int,
          "a source position is not (file, line, col)")
    return Span(paths.get(v[0], v[0]), v[1], v[2])


def _ints(v, what: str) -> tuple:
    _need(type(v) is tuple and all(type(n) is int and n >= 0 for n in v), f"{what} is not a tuple of sizes")
    return v


def _to_finding(d) -> Finding:
    _need(type(d) is dict and set(d) == {x.name for x in fields(Finding)}, "a finding has other fields")
    _need(type(d["kind"]) is str and type(d["message"]) is str, "a finding's kind or message is not text")
    _need(type(d["threads"]) is tuple and type(d["sites"]) is tuple and type(d["details"]) is dict,
          "a finding's threads, sites or details are malformed")
    threads = tuple(ThreadId(_ints(b, "a block"), _ints(t, "a thread")) for b, t in d["threads"])
    _need(all(type(s) is tuple and len(s) == len(fields(Site)) and all(_plain(x) for x in s)
              for s in d["sites"]), "a finding's site is malformed")
    for k in ("buffer", "offset", "address", "bounds"):
        _need(d[k] is None or type(d[k]) in (str, int), f"a finding's {k} is malformed")
    return Finding(d["kind"], d["message"], threads, tuple(Site(*s) for s in d["sites"]), d["buffer"],
                   d["offset"], d["address"], d["bounds"], d["details"])


def _to_launch(d) -> LaunchResult:
    _need(type(d) is dict and type(d.get("kernel")) is str and type(d.get("ptx")) is str
          and type(d.get("findings")) is list and type(d.get("thread_instructions")) is int
          and type(d.get("seconds")) is float and (d.get("extension") is None or type(d["extension"]) is str),
          "a launch record is malformed")
    x = LaunchResult(d["kernel"], d["ptx"], _ints(d["grid"], "a grid"), _ints(d["block"], "a block"),
                     [_to_finding(f) for f in d["findings"]], d["thread_instructions"], d["seconds"])
    x.extension = d["extension"]
    return x


def apply(message, report, session, paths: dict) -> list | None:
    """Fill the parent's report from the worker's outcome message; the candidate's outputs as tensors on
    `session` (None when it produced none). Malformed when any field is off. `paths` maps the absolute paths
    the worker ran with to those the user gave."""
    keys = {"verdict", "outputs", "unsupported", "raised", "findings", "finding_launch", "bindings", "launches",
            "refused", "host_ops", "notes", "seconds"}
    _need(type(message) is dict and set(message) == keys, "the outcome has other fields")
    verdict = message["verdict"]
    _need(verdict in ("equivalent", "findings", "unsupported"), f"the worker's verdict {verdict!r} is none it sets")
    launches = message["launches"]
    _need(type(launches) is list, "the launches are not a list")
    report.launches = [_to_launch(d) for d in launches]
    report.findings = [_to_finding(f) for f in _list(message["findings"], "the findings")]
    index = message["finding_launch"]
    _need(index is None or (type(index) is int and 0 <= index < len(launches)), "the finding launch is off")
    report.finding_launch = None if index is None else report.launches[index]
    report.bindings = [_to_binding(b) for b in _list(message["bindings"], "the bindings")]
    report.refused = [_pair(p, "a refused launch") for p in _list(message["refused"], "the refused launches")]
    report.host_ops = _str_list(message["host_ops"], "the host ops")
    report.notes += _str_list(message["notes"], "the notes")
    seconds = message["seconds"]
    _need(type(seconds) is dict and all(type(k) is str and type(v) is float for k, v in seconds.items()),
          "the timings are malformed")
    report.seconds.update(seconds)
    if message["unsupported"] is not None:
        text, span = _pair(message["unsupported"], "the unsupported reason", second=(tuple, type(None)))
        report.unsupported = Unsupported(text, to_span(span, paths))
    if message["raised"] is not None:
        raised = message["raised"]
        _need(type(raised) is tuple and len(raised) == 3 and type(raised[0]) is str and type(raised[1]) is str,
              "the raised exception is malformed")
        report.raised = (raised[0], raised[1], to_span(raised[2], paths))
    report.verdict = verdict
    if verdict != "equivalent":
        _need(message["outputs"] is None, "a run that stopped returned outputs")
        _need(report.unsupported is not None or report.raised is not None or report.findings,
              "a run that stopped says not why")
        return None
    return [_to_tensor(t, session) for t in _list(message["outputs"], "the outputs")]


def _list(v, what: str) -> list:
    _need(type(v) is list, f"{what} are not a list")
    return v


def _pair(v, what: str, second=(str,)) -> tuple:
    _need(type(v) is tuple and len(v) == 2 and type(v[0]) is str and type(v[1]) in second, f"{what} is malformed")
    return v


def _to_binding(b) -> Binding:
    _need(type(b) is tuple and len(b) == 4 and type(b[0]) is str and (b[1] is None or type(b[1]) is str)
          and b[2] in ("name", "order", "unbound"), "a parameter binding is malformed")
    return Binding(b[0], b[1], b[2], _ints(b[3], "a parameter's shape"))


def _to_tensor(t, session):
    _need(type(t) is tuple and len(t) == 3, "an output is not (shape, dtype, elements)")
    shape, dtype, values = t
    _ints(shape, "an output's shape")
    _need(dtype in D.BY_VOLTA, f"an output's dtype {dtype!r} is none Volta knows")
    _need(type(values) is list and len(values) == math.prod(shape), "an output's element count is not its shape's")
    _need(all(type(v) is E.Expr or v is UNWRITTEN for v in values), "an output element is no expression")
    flat = np.empty(len(values), object)
    flat[:] = values
    return from_array(flat.reshape(shape), D.BY_VOLTA[dtype], session)


def element(message):
    """A confirmation's answer: the candidate's element (an expression) or None."""
    _need(message is None or type(message) is E.Expr, "a confirmation answer is no expression")
    return message
