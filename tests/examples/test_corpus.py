"""Structural checks of the examples/ corpus: manifests follow the documented schema and match their PTX."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
CASES = sorted(p.parent for p in EXAMPLES.glob("*/manifest.toml"))

DTYPES = {"f32", "f16", "bf16", "f64", "s32", "u32", "s64", "u64", "s8", "u8"}
ROLES = {"in", "out", "inout", "temp"}  # temp: an intermediate of a launch sequence
# "unsupported": a correct kernel outside the structured class `volta races` decides (embedding_gather)
VERDICTS = {"clean", "race", "deadlock", "out-of-bounds", "uninitialized-read", "unsupported",
            # a data-dependent kernel with no finding on the concrete inputs tried (not a proof for all inputs)
            "clean-for-inputs",
            # every racing write stores the same value (still a race; --allow-benign-races)
            "benign-race",
            # volatile/relaxed accesses that no fence orders (not UB; --allow-ordering-races)
            "ordering-race",
            # a read racing only with writes of the value already there (--allow-benign-races)
            "benign-read-race",
            # stores of one slot equal over the reals whose bits differ on an input (--allow-benign-races)
            "nondeterministic-bits"}
# "findings": a pair equal over the reals whose opt kernel has a finding (check must not say EQUIVALENT)
CHECKS = {"equivalent", "not-equivalent", "findings",
          # addresses depend on integer inputs: equal on the concrete assignments checked (not a proof)
          "equivalent-for-inputs"}
BUFFER_RE = re.compile(r"^([a-z0-9]+)\[(\d+)\]:([a-z]+)(:range=-?\d+\.\.-?\d+)?$")
DIM_RE = re.compile(r"^\d+(x\d+){0,2}$")
INT_RE = re.compile(r"^-?(0x[0-9a-fA-F]+|\d+)$")
FLOAT_RE = re.compile(r"^-?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?$|^-?(inf|nan)$")
ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][\w$]*)\s*\((.*?)\)", re.S)


def _load(case: Path) -> dict:
    with open(case / "manifest.toml", "rb") as f:
        return tomllib.load(f)


def _entries(ptx: Path) -> dict[str, int]:
    """Entry name -> number of .param declarations in its parameter list."""
    text = ptx.read_text()
    return {m.group(1): m.group(2).count(".param") for m in ENTRY_RE.finditer(text)}


def _kernel_tables(m: dict) -> list[dict]:
    """Every launch table: [kernel], or [ref] and [opt], where a side may be a sequence of [[side.launch]] (its
    host steps, `step = "memset acc 0"`, are not kernel launches: `_steps`)."""
    sides = [m["kernel"]] if "kernel" in m else [m["ref"], m["opt"]]
    return [t for side in sides for t in (side["launch"] if "launch" in side else [side]) if "step" not in t]


def _steps(m: dict) -> list[str]:
    """The host steps of every sequence (volta/launch/hoststeps.py)."""
    return [t["step"] for seq in _sequences(m).values() for t in seq if "step" in t]


def _sequences(m: dict) -> dict:
    return {r: m[r]["launch"] for r in ("kernel", "ref", "opt") if r in m and "launch" in m[r]}


def _struct_fields(arg: str) -> list:
    """The values of a struct argument `{x,8:y,1024:s64}` (OFFSET:VALUE:TYPE, offset and type optional)."""
    assert arg.endswith("}") and "{" not in arg[1:], arg
    out = []
    for text in arg[1:-1].split(","):
        parts = [p.strip() for p in text.split(":")]
        if len(parts) == 3 or (len(parts) == 2 and INT_RE.match(parts[0]) and not re.match(r"^[usfb]\d+$|^ptr$", parts[1])):
            parts = parts[1:]
        out.append(parts[0])
    return out


def _is_pair(m: dict) -> bool:
    return "ref" in m and "opt" in m


def _is_defective(m: dict) -> bool:
    e = m["expect"]
    return e["races"] not in ("clean", "unsupported", "clean-for-inputs") or e.get("check") in (
        "not-equivalent", "findings")


def test_corpus_size():
    manifests = [_load(c) for c in CASES]
    # Correct kernels counted on single-kernel cases only (pairs mostly reuse them).
    correct = [m for m in manifests if not _is_pair(m) and not _is_defective(m)]
    defective = [m for m in manifests if _is_defective(m)]
    assert len(correct) >= 30, len(correct)
    assert len(defective) >= 10, len(defective)
    assert sum(1 for m in manifests if _is_pair(m)) >= 10


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.name)
def test_manifest(case: Path):
    m = _load(case)
    assert isinstance(m.get("description"), str) and m["description"]
    assert ("kernel" in m) != _is_pair(m), "exactly one of [kernel] or [ref]+[opt]"
    buffers = m["buffers"]
    assert isinstance(buffers, dict) and buffers
    for name, spec in buffers.items():
        mm = BUFFER_RE.match(spec)
        assert mm, f"{name}: {spec}"
        assert mm.group(1) in DTYPES and mm.group(3) in ROLES and int(mm.group(2)) > 0
    symbols = m.get("symbols", {})
    for name, ty in symbols.items():
        assert ty in DTYPES, name
    expect = m["expect"]
    assert expect["races"] in VERDICTS
    assert expect.get("lockstep", "clean") in VERDICTS
    if "inputs" in expect:  # concrete inputs for a data-dependent kernel: a comma list of modes
        for mode in expect["inputs"].split(","):
            assert re.match(r"^(random(:\d+)?|zeros|equal|colliding)$", mode.strip()), mode
    if _is_pair(m):
        assert expect["check"] in CHECKS
    else:
        assert "check" not in expect
    for k in _kernel_tables(m):
        for key in ("ptx", "cuda", "name", "grid", "block", "args"):
            assert key in k, key
        assert DIM_RE.match(k["grid"]) and DIM_RE.match(k["block"])
        nthreads = 1
        for d in k["block"].split("x"):
            nthreads *= int(d)
        assert 1 <= nthreads <= 1024
        nblocks = 1
        for d in k["grid"].split("x"):
            nblocks *= int(d)
        # every case launches more than one block, except a one-thread reference (grid 1, block 1)
        assert nblocks > 1 or nthreads == 1, "every case launches more than one block"
        assert isinstance(k.get("shared_dynamic", 0), int)
        assert (case / k["ptx"]).is_file(), k["ptx"]
        assert (case / k["cuda"]).is_file(), k["cuda"]
        for a in k["args"]:
            assert isinstance(a, str)
            fields = _struct_fields(a) if a.startswith("{") else [a]  # a by-value struct: {x,y,1024}
            for v in fields:
                assert v in buffers or v in symbols or INT_RE.match(v) or FLOAT_RE.match(v) or v == "null", a
        # every generated PTX of this source (all archs) has the entry with the right parameter count
        stem = Path(k["cuda"]).stem
        ptxs = sorted(case.glob(f"{stem}.sm*.ptx"))
        assert case / k["ptx"] in ptxs
        for ptx in ptxs:
            entries = _entries(ptx)
            assert k["name"] in entries, f"{k['name']} not an .entry of {ptx.name}"
            assert entries[k["name"]] == len(k["args"]), f"{ptx.name}: {entries[k['name']]} params"
    seqs = _sequences(m)
    for role, seq in seqs.items():
        assert isinstance(seq, list) and len(seq) >= 2, f"[[{role}.launch]]: a sequence has at least two launches"
        assert set(m[role]) == {"launch"}, f"[{role}] holds only its [[{role}.launch]] tables"
    temps = [n for n, spec in buffers.items() if spec.endswith(":temp")]
    if temps:
        assert seqs, "role temp is for the intermediates of a launch sequence"
        # an intermediate is written by one launch and read by a later one of the same sequence
        for name in temps:
            uses = [sum(name in (t.get("args") or t["step"].split()[1:]) for t in seq) for seq in seqs.values()]
            assert max(uses) >= 2, name
    for step in _steps(m):   # memset BUF BYTE | copy SRC DST, on declared buffers
        words = step.split()
        assert words[0] in ("memset", "copy") and len(words) == 3, step
        assert all(w in buffers for w in (words[1:2] if words[0] == "memset" else words[1:])), step
    if "defect_line" in expect:
        src = case / _kernel_tables(m)[-1]["cuda"]
        line = src.read_text().splitlines()[expect["defect_line"] - 1]
        assert "DEFECT:" in line, line


def test_parse_corpus():
    pc = EXAMPLES / "parse-corpus"
    files = list(pc.glob("*.ptx"))
    assert len(files) >= 20
    texts = {f.name: f.read_text() for f in files}
    assert any(".func" in t and "call" in t for t in texts.values())
    assert any(re.search(r"\.(global|const)\s+\.align\s+\d+\s+\.b8\s+\w+\[(\d{5,})\]\s*=", t) for t in texts.values())
    assert any(".section" in t and ".debug_info" in t for t in texts.values())


def test_readme_case_table_lists_every_case():
    """examples/README.md's case table names every case directory, once."""
    import re

    table = re.findall(r"^\| `([^`]+)` \|", (EXAMPLES / "README.md").read_text(), re.M)
    cases = sorted(p.parent.name for p in EXAMPLES.glob("*/manifest.toml"))
    assert sorted(set(table)) == sorted(table), "a case is listed twice"
    assert sorted(set(cases) - set(table)) == [], "cases missing from examples/README.md's table"
    assert sorted(set(table) - set(cases)) == [], "table rows without a case directory"
