"""Text → `Module` with Lark: LALR with the contextual lexer and an inline transformer.

The transformer runs during the parse (no parse tree is built), which is what keeps a megabyte
of PTX under two seconds. Only a parse that misses `volta.ptx.parser`'s cache comes here, so a
command whose kernels are cached never imports Lark nor builds its parser (start-up).
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from lark import Lark, Token, Transformer, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from volta.config import WARP_SIZE
from volta.errors import PtxSyntaxError, Span
from volta.ptx import ast

GRAMMAR_CANDIDATES = (
    Path(__file__).resolve().parents[2] / "grammars" / "ptx.lark",
    Path(os.sys.prefix) / "share" / "volta" / "grammars" / "ptx.lark",
)


def _grammar_path() -> Path:
    for path in GRAMMAR_CANDIDATES:
        if path.exists():
            return path
    raise FileNotFoundError("grammars/ptx.lark not found next to the volta package")


def _int(text: str) -> int:
    text = text.rstrip("U")
    neg = text.startswith("-")
    body = text[1:] if neg else text
    if body[:2] in ("0x", "0X"):
        value = int(body[2:], 16)
    elif body[:2] in ("0b", "0B"):
        value = int(body[2:], 2)
    elif len(body) > 1 and body[0] == "0":
        value = int(body, 8)
    else:
        value = int(body)
    return -value if neg else value


def _float(text: str) -> ast.FloatImm:
    if text[:2] in ("0f", "0F"):
        return ast.FloatImm(text, 32, int(text[2:], 16))
    if text[:2] in ("0d", "0D"):
        return ast.FloatImm(text, 64, int(text[2:], 16))
    return ast.FloatImm(text, 64, None)


def _number(text: str):
    """A number inside an initializer list."""
    if text[:2] in ("0f", "0F", "0d", "0D") or "." in text or ("e" in text.lower() and "x" not in text.lower()):
        return _float(text)
    return _int(text)


_NUM = re.compile(r"0[fF][0-9a-fA-F]{8}|0[dD][0-9a-fA-F]{16}|-?[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?"
                  r"|-?[0-9]+[eE][+-]?[0-9]+|-?(0[xX][0-9a-fA-F]+|0[bB][01]+|[0-9]+)U?")
_OCTAL = re.compile(r"(?<![\w.])-?0[0-7]")
_LOC = re.compile(r"\.loc\s+(\d+)\s+(\d+)\s+(\d+)\s*(.*)$")


@v_args(inline=True)
class _ToAst(Transformer):
    """One method per grammar alias; each builds one AST node."""

    # operands
    def REG(self, tok):
        return ast.Reg(str(tok))

    def IDENT(self, tok):
        return _SINK if tok == "_" else ast.Sym(str(tok))

    def INT(self, tok):
        return ast.Imm(_int(tok))

    def FLOAT(self, tok):
        return _float(str(tok))

    def not_reg(self, reg):
        return ast.NotReg(reg)

    def pair(self, a, b):
        return ast.Pair(a, b)

    def vector(self, *elems):
        return ast.Vector(tuple(e for e in elems if e is not None))

    def paren(self, *items):
        return ast.ParenList(tuple(i for i in items if i is not None))

    def address(self, addr):
        return addr

    def addr(self, base, offset=None):
        return ast.Address(base, offset.value if offset is not None else 0)

    def addr_neg(self, base, offset):
        return ast.Address(base, -offset.value)

    def addr_tensor(self, base, coords):
        return ast.Address(base, 0, coords)

    # statements
    def instruction(self, *parts):
        guard = None
        first = parts[0]
        if first.type == "GUARD":
            text = first[1:]
            guard = ast.Guard(text.lstrip("!"), text.startswith("!"))
            opcode, operands = parts[1], parts[2:]
        else:
            opcode, operands = first, parts[1:]
        ops = tuple(_predefined(o) for o in operands if o is not None)
        return ast.Instruction(str(opcode), ops, guard, first.line, first.column)

    def simple_instruction(self, tok):
        guard, opcode, rest = _SIMPLE_SPLIT.match(tok).groups()
        ops = tuple([_OPERANDS.get(o) or _intern_operand(o) for o in rest.split(",")]) if rest else ()
        if guard is not None:
            guard = _GUARDS.get(guard) or _intern_guard(guard)
        return ast.Instruction(opcode, ops, guard, tok.line, tok.column)

    def label(self, tok):
        return ast.Label(tok[:-1].rstrip(), tok.line, tok.column)

    def loc(self, tok):
        m = _LOC.match(tok.rstrip())
        if not m:
            raise _error_at(tok, "malformed .loc directive (expected `.loc FILE LINE COL`)")
        return ast.Loc(int(m[1]), int(m[2]), int(m[3]), m[4].split("//", 1)[0].strip())

    def pragma(self, tok):
        return ast.Pragma(str(tok))

    def block(self, body):
        return ast.Block(tuple(body))

    def body(self, *stmts):
        return list(stmts)  # a list, so a function tells its body from its params

    def callprototype(self, label, _kw, *rest):
        returns = rest[0] if len(rest) == 3 else ()
        name, params = rest[-2], rest[-1]
        return ast.CallPrototype(label[:-1].rstrip(), returns, _name(name), params, label.line, label.column)

    # declarations
    def attr(self, tok):
        return tok

    def attr_num(self, tok, num):
        return Token("DOTWORD", f"{tok} {num.value}", tok.start_pos, tok.line, tok.column)

    def attrs(self, *toks):
        return toks

    def decl_name(self, name, dims=()):
        return ast.DeclName(_name(name), dims)

    def reg_range(self, reg, count):
        return ast.DeclName(reg.name, (), count.value)

    def dims(self, *ds):
        return tuple(ds)

    def dim(self, size=None):
        return size.value if size is not None else None

    def var_decl(self, attrs, *rest):
        init = None
        names = list(rest)
        if names and not isinstance(names[-1], ast.DeclName):
            init = names.pop()
        line, col = (attrs[0].line, attrs[0].column) if attrs else (0, 0)
        return ast.VarDecl(tuple(str(a) for a in attrs), tuple(names), init, line, col)

    def init_nums(self, tok):
        items = tok[1:-1].split(",")
        if len(items) == 1 and not items[0].strip():
            return ()
        if not _OCTAL.search(tok):
            try:
                return tuple(map(int, items))  # plain decimal byte tables: the megabyte case
            except ValueError:
                pass
        values = []
        for item in items:
            item = item.strip()
            if not _NUM.fullmatch(item):
                raise _error_at(tok, f"malformed number `{item[:40]}` in initializer")
            values.append(_number(item))
        return tuple(values)

    def init_list(self, *items):
        return ("list", tuple(_plain(i) for i in items if i is not None))

    def init_generic(self, fn, name):
        return ("generic", fn.name, name.name)

    def init_offset(self, name, off):
        return ("offset", name.name, off.value)

    def param(self, attrs, name):
        line, col = (attrs[0].line, attrs[0].column) if attrs else (0, 0)
        return ast.VarDecl(tuple(str(a) for a in attrs), (name,), None, line, col)

    def params(self, *ps):
        return tuple(p for p in ps if p is not None)

    ret_params = params

    def entry(self, attrs, kw, name, *rest):
        return self._function("entry", attrs, kw, (), name, rest)

    def func(self, attrs, kw, *rest):
        returns = ()
        if isinstance(rest[0], tuple):
            returns, rest = rest[0], rest[1:]
        return self._function("func", attrs, kw, returns, rest[0], rest[1:])

    @staticmethod
    def _function(kind, attrs, kw, returns, name, rest):
        params = next((r for r in rest if isinstance(r, tuple)), ())
        perf = tuple(" ".join(str(r).split()) for r in rest if isinstance(r, Token))
        body = next((tuple(r) for r in rest if isinstance(r, list)), None)
        line, col = (attrs[0].line, attrs[0].column) if attrs else (kw.line, kw.column)
        if body is not None:
            body = _resolve_scoped_names(body)
        return ast.Function(kind, _name(name), tuple(str(a) for a in attrs), params, returns, perf, body, line, col)

    # top level tokens pass through to _assemble
    def header(self, tok):
        return tok

    section = file = header


_SIMPLE_SPLIT = re.compile(r"(?:@(\S+)\s+)?(\S+)\s*(.*?)\s*;\s*$", re.S)
# Operands and guards repeat a lot (`%r1`, `[%rd1+4]`, `@%p1`): nodes are immutable, so one
# object per spelling is shared. That saves building them and makes cache pickles smaller.
_OPERANDS: dict = {}
_GUARDS: dict = {}


def _intern_operand(text: str):
    if len(_OPERANDS) > 200_000:
        _OPERANDS.clear()
    node = _OPERANDS[text] = _simple_operand(text.strip())
    return node


def _intern_guard(text: str):
    node = _GUARDS[text] = ast.Guard(text.lstrip("!"), text[0] == "!")
    return node


_ADDR = re.compile(r"\[\s*(%?[\w$]+(?:\.[xyzw])?)\s*(?:([+-])\s*(-?\w+))?\s*\]")


def _simple_operand(text: str):
    """One operand of a fast-path instruction: register, immediate, name or simple address."""
    head = text[0]
    if head == "%":
        return ast.Reg(text)
    if head == "[":
        m = _ADDR.fullmatch(text)
        base = _simple_operand(m[1])
        offset = _int(m[3]) if m[3] else 0
        return ast.Address(base, -offset if m[2] == "-" else offset)
    if text == "_":
        return _SINK
    if text in PREDEFINED:
        return PREDEFINED[text]
    if head.isdigit() or head == "-":
        if text[:2] in ("0f", "0F", "0d", "0D") or "." in text or ("e" in text.lower() and "x" not in text.lower()):
            return _float(text)
        return ast.Imm(_int(text))
    return ast.Sym(text)


_SINK = ast.Sink()
# Predefined PTX constants (PTX ISA "Predefined identifiers"): nvcc writes WARP_SZ for `warpSize`.
PREDEFINED = {"WARP_SZ": ast.Imm(WARP_SIZE)}


def _predefined(o):
    """An operand naming a predefined constant is that constant, wherever an immediate can stand
    (a whole operand, an address offset base, a vector element)."""
    if isinstance(o, ast.Sym):
        return PREDEFINED.get(o.name, o)
    if isinstance(o, ast.Address) and isinstance(o.base, ast.Sym) and o.base.name in PREDEFINED:
        return ast.Address(PREDEFINED[o.base.name], o.offset, o.coords)
    if isinstance(o, ast.Vector):
        return ast.Vector(tuple(_predefined(e) for e in o.elems))
    return o


def _name(node) -> str:
    """The text of a name token that the transformer already turned into `Sym` (or `Sink` for `_`)."""
    return "_" if isinstance(node, ast.Sink) else node.name


def _resolve_scoped_names(body: tuple) -> tuple:
    """Turn `Sym(p)` into `Reg(p)` where `p` is a `.reg` declared without `%` in an enclosing block.

    Inline asm writes `{ .reg .pred p; setp.eq.u32 p, ...; @p bra L; }`: the grammar cannot tell a
    register `p` from a label or variable `p`, so names are resolved lexically, block by block.
    Bodies without such declarations (all nvcc-generated code outside inline asm) are returned as is.
    """
    if not _declares_plain_reg(body):
        return body
    return _resolve_block(body, frozenset())


def _declares_plain_reg(body) -> bool:
    for s in body:
        if isinstance(s, ast.VarDecl):
            if s.attrs and s.attrs[0] == ".reg" and any(n.name[0] != "%" for n in s.names):
                return True
        elif isinstance(s, ast.Block) and _declares_plain_reg(s.body):
            return True
    return False


def _resolve_block(body, outer: frozenset) -> tuple:
    names = set(outer)
    for s in body:
        if isinstance(s, ast.VarDecl) and s.attrs and s.attrs[0] == ".reg":
            names.update(n.name for n in s.names if n.name[0] != "%")
    scope = frozenset(names)
    out = []
    for s in body:
        if isinstance(s, ast.Instruction) and scope:
            ops = tuple(_resolve_operand(o, scope) for o in s.operands)
            if ops != s.operands:
                s = ast.Instruction(s.opcode, ops, s.guard, s.line, s.col)
        elif isinstance(s, ast.Block):
            s = ast.Block(_resolve_block(s.body, scope))
        out.append(s)
    return tuple(out)


def _resolve_operand(op, scope):
    if isinstance(op, ast.Sym):
        return ast.Reg(op.name) if op.name in scope else op
    if isinstance(op, ast.Vector):
        return ast.Vector(tuple(_resolve_operand(e, scope) for e in op.elems))
    if isinstance(op, ast.Pair):
        return ast.Pair(_resolve_operand(op.first, scope), _resolve_operand(op.second, scope))
    if isinstance(op, ast.NotReg):
        return ast.NotReg(_resolve_operand(op.reg, scope))
    if isinstance(op, ast.Address):
        base = _resolve_operand(op.base, scope)
        coords = _resolve_operand(op.coords, scope) if op.coords is not None else None
        return ast.Address(base, op.offset, coords)
    if isinstance(op, ast.ParenList):
        return ast.ParenList(tuple(_resolve_operand(e, scope) for e in op.items))
    return op


def _plain(item):
    if isinstance(item, ast.Imm):
        return item.value
    return item


def _error_at(tok, message):
    return PtxSyntaxError(message, Span("<ptx>", tok.line, tok.column))


class _Parser:
    """Holds the compiled Lark parser; built once per process."""

    _lark = None

    @classmethod
    def get(cls) -> Lark:
        if cls._lark is None:
            cls._lark = Lark(
                _grammar_path().read_text(),
                parser="lalr",
                lexer="contextual",
                transformer=_ToAst(),
                maybe_placeholders=True,
                cache=True,
            )
        return cls._lark


def parse(text: str, filename: str) -> ast.Module:
    """Parse PTX text (no cache): the module, or a `PtxSyntaxError` with file, line, column and context."""
    try:
        items = _Parser.get().parse(text)
    except UnexpectedInput as err:
        raise _syntax_error(err, text, filename) from None
    except PtxSyntaxError as err:
        raise PtxSyntaxError(err.message, Span(filename, err.span.line, err.span.col)) from None
    except RecursionError:
        raise PtxSyntaxError("nesting too deep", Span(filename, 1, 1)) from None
    return _assemble(items.children, filename)


def _assemble(children, filename: str) -> ast.Module:
    """Split the top level into header facts, the `.file` table, DWARF sections and items."""
    version, target, address_size = None, (), 64
    files: dict[int, str] = {}
    sections = []
    items = []
    for child in children:
        if not isinstance(child, Token):
            items.append(child)
            continue
        word, _, value = str(child).partition(" ")
        value = value.strip()
        if word == ".version":
            if not re.fullmatch(r"\d+\.\d+", value):
                raise _header_error(child, filename, "`.version` takes MAJOR.MINOR, e.g. `.version 8.0`")
            version = value
        elif word == ".target":
            target = tuple(t.strip() for t in value.split(","))
            if not all(re.fullmatch(r"[\w]+", t) for t in target):
                raise _header_error(child, filename, "`.target` takes a comma list of names, e.g. `sm_80, debug`")
        elif word == ".address_size":
            if value not in ("32", "64"):
                raise _header_error(child, filename, "`.address_size` is 32 or 64")
            address_size = int(value)
        elif child.type == "FILE":
            m = re.match(r'\.file\s+(\d+)\s+"([^"]*)"', str(child))
            if m:
                files[int(m[1])] = m[2]
        elif child.type == "SECTION":
            sections.append(str(child))
    return ast.Module(filename, version, target, address_size, tuple(items), files, tuple(sections))


def _header_error(tok, filename: str, message: str) -> PtxSyntaxError:
    return PtxSyntaxError(f"{message}, not `{' '.join(str(tok).split())}`", Span(filename, tok.line, tok.column))


_EXPECT_NAMES = {
    "SEMICOLON": "';'", "COMMA": "','", "LBRACE": "'{'", "RBRACE": "'}'", "LSQB": "'['", "RSQB": "']'",
    "LPAR": "'('", "RPAR": "')'", "OPCODE": "an instruction", "REG": "a register", "IDENT": "a name",
    "INT": "an integer", "FLOAT": "a float", "DOTWORD": "a directive", "LABEL": "a label",
    "VBAR": "'|'", "BANG": "'!'", "PLUS": "'+'", "MINUS": "'-'", "EQUAL": "'='", "LESSTHAN": "'<'",
    "MORETHAN": "'>'", "SIMPLE_INSN": "an instruction", "GUARD": "a guard",
}


def _syntax_error(err: UnexpectedInput, text: str, filename: str) -> PtxSyntaxError:
    line = getattr(err, "line", None) or 1
    col = getattr(err, "column", None) or 1
    if isinstance(err, UnexpectedEOF) or line == -1:
        lines = text.splitlines() or [""]
        line, col = len(lines), len(lines[-1]) + 1
        return PtxSyntaxError("unexpected end of file (an unclosed '{' or a missing ';'?)", Span(filename, line, col))
    context = text.splitlines()[line - 1] if 0 < line <= len(text.splitlines()) else ""
    if isinstance(err, UnexpectedToken):
        found = repr(str(err.token).strip()) if err.token.type != "$END" else "end of file"
        expected = sorted({_EXPECT_NAMES.get(e, e.lower()) for e in err.expected})[:6]
        msg = f"unexpected {found}; expected {', '.join(expected)}"
    elif isinstance(err, UnexpectedCharacters):
        msg = f"unexpected character {text[err.pos_in_stream]!r}" if err.pos_in_stream < len(text) else "unexpected input"
    else:
        msg = "unexpected input"
    if context.strip():
        msg += f" in `{context.strip()[:80]}`"
    return PtxSyntaxError(msg, Span(filename, line, col))
