#!/usr/bin/env python3
"""Re-derive a tensor core's G, F, E_floor and output rounding from single dot products.

The probes are the constructions of the characterization papers cited in numerics.md (Hawkeye's
internal-precision and floor-of-Emax vectors, the group-boundary construction, the (1.5*2^12)^2 +- d rounding
cases), generated as sweeps so that the parameters are *inferred* from where the results change, not only checked.

Where the dot products are evaluated (one of):
  --probe PATH     the CUDA probe binary (examples/probes/mma_probe.cu) on a GPU: real mma.sync
  --model ARCH     `volta mma --arch ARCH`: the CPU model (what tests/probes uses; no GPU needed)
  --saved DIR      outputs saved earlier by --save DIR (batch files DIR/*.batch, outputs DIR/*.out)
  --emit DIR       only write the phase-1 batch files (phase 2 depends on the F derived in phase 1)

    python3 examples/probes/derive.py --probe ./mma_probe --arch hopper --save results/h100
    python3 examples/probes/derive.py --model ampere --json

Prints one line per (input, accumulator) format pair: the inferred G, F, E_floor, rounding next to the
numerics.md row for --arch (default: the --model architecture). Exit 0 when everything matches the table,
1 on any mismatch, 2 on usage errors. Standard library only (the --model path shells out to `volta mma`).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

# ---------------------------------------------------------------------------------------- the numerics.md table
# (in, acc) -> (G, F, E_floor, rounding); E_floor None = "none"
_AMPERE = {("f16", "f32"): (8, 24, -132, "RZ"), ("bf16", "f32"): (8, 24, -132, "RZ"),
           ("f16", "f16"): (8, 24, -20, "RNE"), ("tf32", "f32"): (4, 24, -132, "RZ")}
TABLE = {
    "volta": {("f16", "f32"): (4, 23, None, "RZ"), ("f16", "f16"): (4, 23, -19, "RNE")},
    "ampere": _AMPERE,
    "ada": _AMPERE,
    "hopper": {("f16", "f32"): (16, 25, -133, "RZ"), ("bf16", "f32"): (16, 25, -133, "RZ"),
               ("f16", "f16"): (16, 25, -21, "RNE"), ("tf32", "f32"): (8, 25, -133, "RZ")},
    "blackwell": {("f16", "f32"): (16, 25, -133, "RZ"), ("bf16", "f32"): (16, 25, -133, "RZ"),
                  # B200 f16 -> f16 and tf32 -> f32: the Hopper rows (issue 13, from GPU-measured dot products)
                  ("f16", "f16"): (16, 25, -21, "RNE"), ("tf32", "f32"): (8, 25, -133, "RZ")},
}
ALIASES = {"sm_70": "volta", "sm_80": "ampere", "sm_86": "ampere", "sm_89": "ada", "sm_90": "hopper",
           "sm_90a": "hopper", "sm_100": "blackwell", "sm_120": "blackwell"}
CONFIGS = [("bf16", "f32"), ("f16", "f32"), ("tf32", "f32"), ("f16", "f16")]
INST_K = {"bf16": 16, "f16": 16, "tf32": 8}  # mma.sync m16n8k16 / m16n8k8 (tf32)

# ------------------------------------------------------------------------------------------- exact encoding
# name -> (mantissa bits, emin, bias, word width, exponent bits)
FMT = {"f32": (23, -126, 127, 32, 8), "tf32": (23, -126, 127, 32, 8), "bf16": (7, -126, 127, 16, 8),
       "f16": (10, -14, 15, 16, 5)}
MODES = ("RZ", "RNE", "RNA", "RU", "RD")


def _floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    while Fraction(2) ** e > a:
        e -= 1
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    return e


def round_word(v, fmt: str, mode: str = "RZ", exact: bool = False) -> int:
    """v (a Fraction) rounded to a word of `fmt` with `mode`; exact=True asserts no rounding happened."""
    m, emin, bias, width, ebits = FMT[fmt]
    v = Fraction(v)
    if v == 0:
        return 0
    neg, a = v < 0, abs(v)
    e = max(_floor_log2(a), emin)
    q = a / Fraction(2) ** (e - m)
    n = q.numerator // q.denominator
    rem = q - n
    if exact and rem:
        raise ValueError(f"{v} is not exact in {fmt}")
    up = {"RZ": False, "RD": neg and rem > 0, "RU": (not neg) and rem > 0,
          "RNE": rem > Fraction(1, 2) or (rem == Fraction(1, 2) and n % 2 == 1),
          "RNA": rem >= Fraction(1, 2)}[mode]
    n += int(up)
    if n >> (m + 1):
        n >>= 1
        e += 1
    biased = 0 if n < (1 << m) else e + bias
    if biased >= (1 << ebits) - 1:  # overflow: not reached by these probes
        raise ValueError(f"{v} overflows {fmt}")
    word = (biased << m) | (n & ((1 << m) - 1))
    return ((int(neg) << (width - 1)) | word) & ((1 << width) - 1)


def P(e: int) -> Fraction:
    return Fraction(2) ** e


class Line:
    """One dot product: c + sum a[k]*b[k], as exact values; `words` encodes it for a format pair."""

    def __init__(self, a, b, c=0, k=None):
        self.a, self.b, self.c = [Fraction(x) for x in a], [Fraction(x) for x in b], Fraction(c)
        self.k = k

    def text(self, in_fmt: str, acc_fmt: str) -> str:
        inst = INST_K[in_fmt]
        k = self.k or len(self.a)
        k = -(-k // inst) * inst  # zero-pad to whole instructions
        a = self.a + [Fraction(0)] * (k - len(self.a))
        b = self.b + [Fraction(0)] * (k - len(self.b))
        hexw = 8 if FMT[in_fmt][3] == 32 else 4
        aw = ",".join(f"{round_word(x, in_fmt, exact=True):0{hexw}x}" for x in a)
        bw = ",".join(f"{round_word(x, in_fmt, exact=True):0{hexw}x}" for x in b)
        return f"{aw} ; {bw} ; {round_word(self.c, acc_fmt, exact=True):0{FMT[acc_fmt][3] // 4}x}"


def split(e: int) -> tuple[Fraction, Fraction]:
    """2^e as a product of two powers of two of nearly equal size."""
    hi = -((-e) // 2)
    return P(hi), P(e - hi)


# ------------------------------------------------------------------------------------------------ the probes
def scale_for(in_fmt: str, acc_fmt: str) -> int:
    return 8  # 2^8*2^8 = 2^16 leading products: every swept term stays a normal number of all formats


def phase1(in_fmt: str, acc_fmt: str) -> dict[str, list]:
    """F sweep (HK internal precision) and G sweep (group boundary); independent of every parameter."""
    s = scale_for(in_fmt, acc_fmt)
    f_cases = []
    for k in range(16, 35):  # [2^s, 2^s, x]·[2^s, -2^s, y] with x·y = 2^(2s-k): kept iff k <= F
        x, y = split(2 * s - k)
        f_cases.append((k, Line([P(s), P(s), x], [P(s), -P(s), y])))
    # big cancelling pair at k0, k1, small term at j: lost to truncation iff j shares their group
    p, r = {("f16", "f16"): (7, 7), ("f16", "f32"): (10, 10)}.get((in_fmt, acc_fmt), (20, 10))
    g_cases = []
    for j in range(2, 32):
        a = [Fraction(0)] * 32
        b = [Fraction(0)] * 32
        a[0], b[0], a[1], b[1] = P(p), P(p), P(p), -P(p)
        a[j], b[j] = P(-r), P(-r)
        g_cases.append((j, Line(a, b), P(-2 * r)))
    return {"F": f_cases, "G": g_cases}


def phase2(in_fmt: str, acc_fmt: str, F: int) -> dict[str, list]:
    """E_floor sweep (floor of Emax) and output-rounding cases; both need the F found in phase 1."""
    floor_cases = []  # (e, line, word if the small term is kept, word if it is truncated away)
    if acc_fmt == "f32" and in_fmt != "f16":
        # 2^e - 2^(e-F): the small term survives iff Emax = e, i.e. iff E_floor <= e
        for e in range(-100, -149, -1):
            x1, y1 = split(e)
            x2, y2 = split(e - F)
            floor_cases.append((e, Line([x1, x2], [y1, -y2]), P(e) - P(e - F), P(e)))
    elif acc_fmt == "f16":
        # 2^e - 2^e + 2^-25 + 2^(e-F): the small term turns the f16 tie 2^-25 into a round-up iff E_floor <= e
        lo = max(F - 48, -28)  # f16 operands: products >= 2^-48, normal 2^e >= 2^-28
        for e in range(-8, lo - 1, -1):
            x1, y1 = split(e)
            x2, y2 = split(e - F)
            t1, t2 = split(-25)
            floor_cases.append((e, Line([x1, x1, t1, x2], [y1, -y1, t2, y2]), P(-25) + P(e - F), P(-25)))
    # f16 -> f32: every f16 product is >= 2^-48, far above any f32 floor: E_floor is not observable
    s, m = (12, 23) if acc_fmt == "f32" else (4, 10)
    u = P(2 * s + 1 - m)  # ulp of (1.5·2^s)^2 = 2.25·2^2s in the accumulator format
    q = P(2 * s - F)  # truncation quantum below Emax = 2s
    round_cases = []  # (line, exact value)
    for sign in (1, -1):
        for odd in (0, 1):
            for f in (Fraction(1, 4), Fraction(1, 2), Fraction(3, 4)):
                d = f * u
                if d % q:
                    continue  # not a multiple of the quantum: would be truncated before rounding
                big = Fraction(3, 2) * P(s)
                a = [big, u / 2 if odd else Fraction(0), 2 * f]
                b = [sign * big, sign * 2, sign * u / 2]
                exact = sign * (big * big + odd * u + d)
                round_cases.append((f"{'+-'[sign < 0]}{'odd' if odd else 'even'}+{f}ulp", Line(a, b), exact))
    return {"E_floor": floor_cases, "round": round_cases}


def lines_of(cases: dict[str, list]) -> list[Line]:
    out = []
    for name in sorted(cases):
        out.extend(c[1] for c in cases[name])
    return out


# ---------------------------------------------------------------------------------------------- evaluation
def volta_cmd() -> list[str]:
    exe = shutil.which("volta")
    return [exe] if exe else [sys.executable, "-m", "volta"]


def _inprocess():
    """The function behind `volta mma --batch` (same parsing and model, without a process per batch)."""
    try:
        from volta.cli.mma_cmd import _read_batch, run_batch_text
    except ImportError:
        return None

    def run(path, arch, in_fmt, acc_fmt):
        hexw = 8 if acc_fmt == "f32" else 4
        return "".join(f"{d:0{hexw}x}\n" for d in run_batch_text(_read_batch(path), path, arch, in_fmt, acc_fmt))
    return run


class Evaluator:
    def __init__(self, args):
        self.args = args

    def __call__(self, in_fmt, acc_fmt, phase, text: str) -> list[int]:
        a = self.args
        stem = f"{in_fmt}-{acc_fmt}.{phase}"
        if a.saved:
            with open(os.path.join(a.saved, stem + ".batch")) as fh:
                if fh.read() != text:
                    sys.exit(f"derive: {a.saved}/{stem}.batch differs from the probes derived here "
                             "(phase 2 depends on phase 1's F; rerun with --probe)")
            with open(os.path.join(a.saved, stem + ".out")) as fh:
                out = fh.read()
        else:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, stem + ".batch")
                with open(path, "w") as fh:
                    fh.write(text)
                if a.model and not a.via_cli and _inprocess() is not None:
                    out = _inprocess()(path, a.model, in_fmt, acc_fmt)
                    cmd = None
                elif a.model:
                    cmd = volta_cmd() + ["mma", "--arch", a.model, "--in", in_fmt, "--acc", acc_fmt, "--batch", path]
                else:
                    cmd = [a.probe, "--in", in_fmt, "--acc", acc_fmt, path]
                if cmd is not None:
                    res = subprocess.run(cmd, capture_output=True, text=True)
                    if res.returncode:
                        sys.exit(f"derive: {' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
                    out = res.stdout
            if a.save:
                os.makedirs(a.save, exist_ok=True)
                for ext, body in ((".batch", text), (".out", out)):
                    with open(os.path.join(a.save, stem + ext), "w") as fh:
                        fh.write(body)
        words = [int(w.split()[0], 16) for w in out.splitlines() if w.strip()]
        if len(words) != text.count("\n"):
            sys.exit(f"derive: {stem}: {len(words)} results for {text.count(chr(10))} probes")
        return words


def run_phase(ev, in_fmt, acc_fmt, phase, cases):
    lines = lines_of(cases)
    text = "".join(ln.text(in_fmt, acc_fmt) + "\n" for ln in lines)
    words = ev(in_fmt, acc_fmt, phase, text)
    it = iter(words)
    return {name: [next(it) for _ in cases[name]] for name in sorted(cases)}


# ----------------------------------------------------------------------------------------------- inference
def infer_F(cases, words, acc_fmt):
    kept = [w == round_word(P(16 - k), acc_fmt, exact=True) for (k, _), w in zip(cases, words)]
    zero = [w == 0 for w in words]
    if not all(kp or z for kp, z in zip(kept, zero)):
        return None, "F: results other than 2^-k or 0"
    ks = [k for (k, _), kp in zip(cases, kept) if kp]
    if not ks or ks != list(range(16, 16 + len(ks))):
        return None, "F: kept terms are not a prefix of the sweep"
    return max(ks), None


def infer_G(cases, words, acc_fmt):
    nz = [j for (j, _, small), w in zip(cases, words) if w == round_word(small, acc_fmt, exact=True)]
    others = [j for (j, _, _), w in zip(cases, words) if w != 0 and j not in nz]
    if others or not nz:
        return None, "G: results other than 0 or the small term" if others else "G: small term always lost (G >= 32?)"
    g = min(nz)
    if nz != list(range(g, 32)):
        return None, "G: small term survives at non-contiguous positions"
    return g, None


def infer_floor(cases, words, acc_fmt, mode):
    seen = []  # (e, kept?)
    for (e, _, v_keep, v_drop), w in zip(cases, words):
        wk, wd = round_word(v_keep, acc_fmt, mode), round_word(v_drop, acc_fmt, mode)
        if wk == wd:
            continue
        if w not in (wk, wd):
            return "?", f"E_floor: unexpected word {w:x} at e={e}"
        seen.append((e, w == wk))
    if not seen:
        return "n/o", None
    kept = [e for e, k in seen if k]
    dropped = [e for e, k in seen if not k]
    if dropped and kept and max(dropped) > min(kept):
        return "?", "E_floor: truncation is not monotone in e"
    if not dropped:
        return None, None  # no floor down to the bottom of the sweep
    return (min(kept) if kept else "?"), None


def infer_round(cases, words, acc_fmt):
    ok = [m for m in MODES if all(round_word(v, acc_fmt, m) == w for (_, _, v), w in zip(cases, words))]
    return ("RNE" if ok == ["RNE"] else ok[0]) if len(ok) == 1 else ("/".join(ok) or "none"), None


def derive(ev, in_fmt, acc_fmt) -> dict:
    notes = []
    c1 = phase1(in_fmt, acc_fmt)
    w1 = run_phase(ev, in_fmt, acc_fmt, 1, c1)
    F, n = infer_F(c1["F"], w1["F"], acc_fmt)
    notes += [n] if n else []
    G, n = infer_G(c1["G"], w1["G"], acc_fmt)
    notes += [n] if n else []
    res = {"G": G, "F": F, "E_floor": "?", "rounding": "?", "notes": notes}
    if F is None:
        return res
    c2 = phase2(in_fmt, acc_fmt, F)
    w2 = run_phase(ev, in_fmt, acc_fmt, 2, c2)
    rnd, _ = infer_round(c2["round"], w2["round"], acc_fmt)
    res["rounding"] = rnd
    if rnd in MODES:
        fl, n = infer_floor(c2["E_floor"], w2["E_floor"], acc_fmt, rnd)
        res["E_floor"] = fl
        notes += [n] if n else []
    if res["E_floor"] == "n/o":
        notes.append("E_floor not observable with f16 operands (every product >= 2^-48, far above "
                     "any f32 floor); not compared")
    return res


def fmt_floor(v):
    return "none" if v is None else str(v)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--probe", help="path of the mma_probe binary (runs on the GPU)")
    src.add_argument("--model", help="evaluate with `volta mma --arch MODEL` instead of a GPU")
    src.add_argument("--saved", help="read outputs saved by an earlier --save DIR")
    src.add_argument("--emit", help="write the phase-1 batch files into this folder and stop")
    ap.add_argument("--arch", help="numerics.md row to compare with (default: --model's architecture)")
    ap.add_argument("--formats", help="comma list of in-acc pairs, e.g. bf16-f32,f16-f16 (default: the table's)")
    ap.add_argument("--save", help="also save every batch and output here (with --probe or --model)")
    ap.add_argument("--via-cli", action="store_true", help="with --model: run the `volta mma` command per batch "
                    "(default: the same code in-process when volta is importable)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    arch = (a.arch or a.model or "").lower()
    arch = ALIASES.get(arch, arch)
    if arch not in TABLE:
        ap.error(f"give --arch (one of {', '.join(TABLE)}) to say which numerics.md row to compare with")
    if a.model:
        a.model = ALIASES.get(a.model.lower(), a.model.lower())
    table = TABLE[arch]
    configs = [c for c in CONFIGS if c in table]
    if a.formats:
        configs = [tuple(p.split("-")) for p in a.formats.split(",")]
    if a.emit:
        os.makedirs(a.emit, exist_ok=True)
        for i, acc in configs:
            text = "".join(ln.text(i, acc) + "\n" for ln in lines_of(phase1(i, acc)))
            with open(os.path.join(a.emit, f"{i}-{acc}.1.batch"), "w") as fh:
                fh.write(text)
        print(f"wrote phase-1 batches for {', '.join(f'{i}-{c}' for i, c in configs)} in {a.emit}")
        return 0
    ev = Evaluator(a)
    results, all_ok = {}, True
    for in_fmt, acc_fmt in configs:
        got = derive(ev, in_fmt, acc_fmt)
        want = table.get((in_fmt, acc_fmt))
        ok = want is not None and got["G"] == want[0] and got["F"] == want[1] and got["rounding"] == want[3] and (
            got["E_floor"] == "n/o" or got["E_floor"] == want[2])
        all_ok &= ok
        results[f"{in_fmt}-{acc_fmt}"] = {**got, "table": None if want is None else
                                          {"G": want[0], "F": want[1], "E_floor": want[2], "rounding": want[3]},
                                          "match": ok}
    source = a.probe and f"GPU via {a.probe}" or a.model and f"volta mma --arch {a.model}" or f"saved {a.saved}"
    if a.via_cli and not a.model:
        ap.error("--via-cli goes with --model")
    if a.json:
        print(json.dumps({"source": source, "arch": arch, "results": results, "match": all_ok}, indent=1))
        return 0 if all_ok else 1
    print(f"derived from {source}; compared with numerics.md row(s) for {arch}")
    print(f"{'in->acc':<10} {'G':>3} {'F':>3} {'E_floor':>8} {'round':>6}   | {'table G':>7} {'F':>3} {'E_floor':>8} {'round':>6}")
    for key, r in results.items():
        t = r["table"] or {"G": "-", "F": "-", "E_floor": "-", "rounding": "-"}
        print(f"{key.replace('-', '->'):<10} {str(r['G']):>3} {str(r['F']):>3} {fmt_floor(r['E_floor']):>8} "
              f"{r['rounding']:>6}   | {t['G']:>7} {t['F']:>3} {fmt_floor(t['E_floor']):>8} {t['rounding']:>6}"
              f"   {'ok' if r['match'] else 'MISMATCH'}")
        for n in r["notes"]:
            print(f"    note: {n}")
    print("all parameters match numerics.md" if all_ok else "some parameters differ from numerics.md")
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
