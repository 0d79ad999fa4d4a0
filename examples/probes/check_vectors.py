#!/usr/bin/env python3
"""Run the discriminating vectors of issue 13 (issue13_vectors.json) on a GPU or on volta's model and say, for
each, whether the word is the model's and, if not, which alternative model it matches.

    nvcc -O2 -arch=sm_90 -o mma_probe mma_probe.cu
    python3 check_vectors.py --probe ./mma_probe --arch hopper --save results/vectors-h100
    python3 check_vectors.py --model blackwell            # volta's own model (what tests/probes runs)
    python3 check_vectors.py --saved results/vectors-h100 --arch hopper

Only the vectors that list --arch are run (Ada: sm_89; Hopper: sm_90; Blackwell: sm_100 — the fp8 -> f16/f32
rows describe the B200's code, not sm_120's). Exit 0 when every word is the expected one, 1 otherwise, 2 on
usage errors. Standard library only; --model needs volta importable (or on PATH).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
ALIASES = {"sm_89": "ada", "sm_90": "hopper", "sm_90a": "hopper", "sm_100": "blackwell", "sm_100a": "blackwell"}


def load(path):
    with open(path) as fh:
        return json.load(fh)["vectors"]


def batch_text(vectors):
    return "".join(f"{','.join(v['a'])} ; {','.join(v['b'])} ; {v['c']}\n" for v in vectors)


def evaluate(args, arch, in_fmt, acc, text):
    stem = f"{in_fmt}-{acc}"
    if args.saved:
        with open(os.path.join(args.saved, stem + ".batch")) as fh:
            if fh.read() != text:
                sys.exit(f"check_vectors: {args.saved}/{stem}.batch differs from the vectors here")
        with open(os.path.join(args.saved, stem + ".out")) as fh:
            out = fh.read()
    else:
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, stem + ".batch")
            with open(path, "w") as fh:
                fh.write(text)
            if args.model:
                exe = shutil.which("volta")
                cmd = ([exe] if exe else [sys.executable, "-m", "volta"]) + [
                    "mma", "--arch", arch, "--in", in_fmt, "--out", acc, "--batch", path]
            else:
                cmd = [args.probe, "--in", in_fmt, "--acc", acc, path]
            res = subprocess.run(cmd, capture_output=True, text=True)
            if res.returncode:
                sys.exit(f"check_vectors: {' '.join(cmd)} failed ({res.returncode}): {res.stderr.strip()}")
            out = res.stdout
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            for ext, body in ((".batch", text), (".out", out)):
                with open(os.path.join(args.save, stem + ext), "w") as fh:
                    fh.write(body)
    words = [w.split()[0].lower() for w in out.splitlines() if w.strip()]
    if len(words) != text.count("\n"):
        sys.exit(f"check_vectors: {stem}: {len(words)} results for {text.count(chr(10))} vectors")
    return words


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--probe", help="path of the mma_probe binary (runs on the GPU)")
    src.add_argument("--model", help="evaluate with `volta mma --arch MODEL` instead of a GPU")
    src.add_argument("--saved", help="read outputs saved by an earlier --save DIR")
    ap.add_argument("--arch", help="which architecture's expectations (default: --model's)")
    ap.add_argument("--vectors", default=os.path.join(HERE, "issue13_vectors.json"))
    ap.add_argument("--save", help="also save every batch and output here")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    a = ap.parse_args(argv)
    arch = (a.arch or a.model or "").lower()
    arch = ALIASES.get(arch, arch)
    if arch not in ("ada", "hopper", "blackwell"):
        ap.error("give --arch ada, hopper or blackwell (or sm_89, sm_90, sm_100)")
    if a.model:
        a.model = ALIASES.get(a.model.lower(), a.model.lower())
    vectors = [v for v in load(a.vectors) if arch in v["archs"]]
    by_fmt = defaultdict(list)
    for v in vectors:
        by_fmt[(v["in"], v["acc"])].append(v)
    rows, ok_all = [], True
    for (in_fmt, acc), vs in by_fmt.items():
        words = evaluate(a, a.model or arch, in_fmt, acc, batch_text(vs))
        for v, w in zip(vs, words):
            ok = w == v["expect"]
            ok_all &= ok
            also = [name for name, alt in v["alternatives"].items() if alt == w]
            rows.append({"case": v["case"], "in": in_fmt, "acc": acc, "got": w, "expect": v["expect"], "ok": ok,
                         "matches_alternatives": also})
    source = a.probe and f"GPU via {a.probe}" or a.model and f"volta mma --arch {a.model}" or f"saved {a.saved}"
    if a.json:
        print(json.dumps({"source": source, "arch": arch, "results": rows, "match": ok_all}, indent=1))
        return 0 if ok_all else 1
    print(f"issue-13 vectors from {source}, expectations for {arch}")
    for r in rows:
        note = "ok" if r["ok"] else "MISMATCH"
        if r["matches_alternatives"]:
            note += f"  (= alternative: {'; '.join(r['matches_alternatives'])})"
        print(f"{r['in']}->{r['acc']:<4} {r['case']:<62} got {r['got']:>8} want {r['expect']:>8}  {note}")
    print("all words are the model's" if ok_all else "some words differ from the model")
    return 0 if ok_all else 1


if __name__ == "__main__":
    sys.exit(main())
