#!/usr/bin/env python3
"""Run the examples on a real GPU and compare every buffer with `volta run --fp ARCH`, bit for bit.

Three steps, so that the GPU machine needs only numpy and CuPy (no volta, no z3):

    python3 examples/probes/replay_examples.py plan --out DIR              # here: launches, parameter bytes, inputs
    python3 examples/probes/replay_examples.py gpu --plan DIR --out GPU.npz  # on the GPU (add --sanitizer TOOL)
    python3 examples/probes/replay_examples.py compare --plan DIR --gpu GPU.npz --arch hopper

`plan` reads every manifest under examples/ (the sm_90 PTX where one is committed), binds its arguments with
volta's own launch code, makes the inputs `volta run` makes by default (random, seed 0) and writes DIR/plan.json
and DIR/inputs.npz. `gpu` loads each PTX with CuPy, launches every kernel of a case in order on the same buffers
and saves every buffer; each case runs in a worker process watched by a timeout, so a kernel that hangs (the
deadlock examples) costs its case, not the run. `compare` replays each case with volta and prints, per case,
whether every buffer is identical, or how many words differ and the first of them.

Expected differences, reported as such rather than hidden: kernels with defects (bug_* cases, the opt side of
neq_* cases, races make their output schedule-dependent), float atomics (the GPU's order of additions is not
volta's), and `.approx` instructions (volta rounds the float64 libm value; the GPU's MUFU unit is not that).
"""
from __future__ import annotations

import argparse
import json
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


# ---- plan (here, with volta) ------------------------------------------------------------------------------------
def case_ids() -> list:
    """Every case: `NAME/ROLE` for each manifest's launch tables, `triton/KERNEL#I` for each configuration of
    examples/triton/*_configs.toml (Triton's own PTX)."""
    import tomllib

    ids = [f"{m.parent.name}/{r}" for m in sorted(EXAMPLES.glob("*/manifest.toml")) for r in roles_of(m)]
    for t in sorted((EXAMPLES / "triton").glob("*_configs.toml")):
        n = len(tomllib.loads(t.read_text()).get("config", []))
        ids += [f"triton/{t.name[: -len('_configs.toml')]}#{i}" for i in range(n)]
    return ids


def load_case(cid: str):
    """(spec, role) of a case id, pointed at the sm_90 PTX where the case has one."""
    import dataclasses
    import tomllib

    from volta.session import replay
    from volta.launch.spec import from_options

    name, role = cid.split("/")
    if name == "triton":
        kernel, i = role.split("#")
        data = tomllib.loads((EXAMPLES / "triton" / f"{kernel}_configs.toml").read_text())
        c = data["config"][int(i)]
        spec = from_options(EXAMPLES / "triton" / c["ptx"], c["name"], c["grid"], c["block"], ",".join(c["args"]),
                            [f"{k}={v}" for k, v in data["buffers"].items()], shared_dynamic=c.get("shared_dynamic", 0))
        return spec, "kernel"
    spec, role = replay.spec_from_manifest(EXAMPLES / name / "manifest.toml", role)

    def sm90(launch):
        p = Path(launch.ptx)
        alt = p.with_name(p.name.replace(".sm80.", ".sm90."))
        return dataclasses.replace(launch, ptx=alt) if alt != p and alt.exists() else launch

    spec.launches = {r: sm90(x) for r, x in spec.launches.items()}
    spec.sequences = {r: tuple(sm90(x) for x in seq) for r, seq in spec.sequences.items()}
    return spec, role


def plan_launch(launch, buffers: dict) -> dict:
    """One launch: grid, block, dynamic shared memory and each parameter as a buffer name or its raw bytes."""
    from volta.launch.spec import bind_args
    from volta.ir.program import lower
    from volta.ir.structparams import SliceParam, StructParam
    from volta.ptx.parser import parse_file
    from volta.semantics import compute as C

    prog = lower(parse_file(launch.ptx), launch.kernel)
    text = Path(launch.ptx).read_text()
    if "%envreg" in text:
        raise NotImplementedError("cooperative launch (grid sync)")
    bound = bind_args(launch, prog.params, buffers, {})
    params, structs = [], {}
    for p, (kind, value) in zip(prog.params, bound):
        name, ptype, size = p
        if isinstance(p, SliceParam):
            slot = structs[p.struct]
            if kind == "buffer":
                slot["fields"].append([p.offset, 8, {"buffer": value.name}])
            else:
                slot["fields"].append([p.offset, size, int(value) & ((1 << (8 * size)) - 1)])
            continue
        if isinstance(p, StructParam):
            structs[name] = {"struct": size, "fields": []}
            params.append(structs[name])
        elif kind == "buffer":
            params.append({"buffer": value.name})
        elif kind == "symbol":
            raise NotImplementedError(f"symbolic scalar {value}")
        else:
            bits = int(C.from_float(np.array([value]), ptype)[0]) if ptype.startswith(".f") else int(value)
            params.append({"bytes": size, "bits": bits & ((1 << (8 * size)) - 1)})
    return {"ptx": str(Path(launch.ptx).resolve().relative_to(ROOT)), "kernel": prog.name,
            "grid": [launch.grid.x, launch.grid.y, launch.grid.z],
            "block": [launch.block.x, launch.block.y, launch.block.z],
            "shared": launch.shared_dynamic, "params": params}


def roles_of(manifest: Path) -> list:
    import tomllib

    data = tomllib.loads(manifest.read_text())
    return [r for r in ("kernel", "ref", "opt") if r in data]


def expected_noise(case: str, role: str, ptx_texts: list) -> list:
    """Why this case's GPU bits may legitimately differ from one volta replay."""
    why = []
    name = case.split("/")[0]
    if name.startswith("bug_") or (name.startswith("neq_") and role == "opt"):
        why.append("defect")
    text = "\n".join(ptx_texts)
    if re.search(r"\b(atom|red)(\.\w+)*\.add(\.\w+)*\.(f32|f64|f16|bf16)", text):
        why.append("float atomics")
    elif re.search(r"\batom\.", text):
        why.append("atomic order")  # a returned old value (a ticket, a slot) depends on the schedule
    if ".approx" in text:
        why.append(".approx")
    return why


def cmd_plan(a) -> int:
    from volta.launch import inputs
    from volta.launch.spec import sequence

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    cases, arrays = [], {}
    for cid in case_ids():
        entry = {"id": cid}
        try:
            spec, role = load_case(cid)
            chosen = inputs.choose_inputs(spec, "random:0")
            steps = [inputs._concrete_symbols(spec, role, chosen.arrays, {}, x) for x in sequence(spec, role)]
            buffers = dict(spec.buffers)
            for x in steps:
                buffers.update(inputs.infer_buffers(x, spec.buffers, chosen.arrays))
            entry["launches"] = [plan_launch(x, buffers) for x in steps]
            entry["buffers"] = {n: {"dtype": b.dtype, "nbytes": b.nbytes, "role": b.role} for n, b in buffers.items()}
            entry["noise"] = expected_noise(cid, role, [Path(x.ptx).read_text() for x in steps])
            for n, b in buffers.items():
                arr = chosen.arrays.get(n)
                if arr is not None and b.role != "temp":
                    arrays[f"{cid}::{n}"] = np.ascontiguousarray(arr).view(np.uint8).reshape(-1)[: b.nbytes]
        except Exception as err:  # noqa: BLE001 (a case the GPU step cannot take is reported, not fatal)
            entry["skip"] = f"{type(err).__name__}: {err}".splitlines()[0][:200]
        cases.append(entry)
    (out / "plan.json").write_text(json.dumps({"cases": cases}, indent=1))
    np.savez_compressed(out / "inputs.npz", **arrays)
    print(f"{len(cases)} cases ({sum('skip' in c for c in cases)} skipped) -> {out}")
    return 0


# ---- gpu (CuPy only) ----------------------------------------------------------------------------------------------
def _load(ptx: Path, kernel: str):
    import cupy

    mod = cupy.RawModule(path=str(ptx))
    return mod, mod.get_function(kernel)


def _param(p: dict, bufs: dict):
    if "buffer" in p:
        return bufs[p["buffer"]]
    if "struct" in p:
        image = bytearray(p["struct"])
        for off, size, v in p["fields"]:
            v = bufs[v["buffer"]].data.ptr if isinstance(v, dict) else v
            image[off:off + size] = int(v).to_bytes(size, "little")
        record = np.zeros(1, np.dtype([("b", np.uint8, (len(image),))]))  # CuPy passes a structured scalar by value
        record["b"][0] = np.frombuffer(bytes(image), np.uint8)
        return record[0]
    return {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[p["bytes"]](p["bits"])


def run_case(case: dict, inputs, arrays_out: dict) -> None:
    import cupy

    bufs = {}
    for n, b in case["buffers"].items():
        key = f"{case['id']}::{n}"
        host = inputs[key] if key in inputs.files else np.zeros(b["nbytes"], np.uint8)
        bufs[n] = cupy.asarray(host)
    keep = []
    for x in case["launches"]:
        mod, fn = _load(ROOT / x["ptx"], x["kernel"])
        keep.append(mod)
        if x["shared"] > 48 * 1024:
            fn.max_dynamic_shared_size_bytes = x["shared"]
        fn(tuple(x["grid"]), tuple(x["block"]), tuple(_param(p, bufs) for p in x["params"]), shared_mem=x["shared"])
        cupy.cuda.Device().synchronize()
    for n, arr in bufs.items():
        arrays_out[f"{case['id']}::{n}"] = cupy.asnumpy(arr)


def cmd_worker(a) -> int:
    """Runs cases from index a.start on, printing START/DONE/FAIL lines the parent watches."""
    cases = json.loads((Path(a.plan) / "plan.json").read_text())["cases"]
    inputs = np.load(Path(a.plan) / "inputs.npz")
    part = Path(a.part)
    arrays: dict = {}
    for i in range(a.start, len(cases)):
        c = cases[i]
        if "skip" in c or (a.only and not re.search(a.only, c["id"])) or c["id"] in a.skip.split(","):
            continue
        print(f"@@START {i} {c['id']}", flush=True)
        try:
            run_case(c, inputs, arrays)
            np.savez(part / f"{i}.npz", **{k.split("::")[1]: v for k, v in arrays.items()})
            arrays.clear()
            print(f"@@DONE {i}", flush=True)
        except Exception as err:  # noqa: BLE001
            print(f"@@FAIL {i} {type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}", flush=True)
            return 2  # a failed launch may leave the context unusable: a fresh worker takes the next case
    return 0


def _watch(proc, a, status: dict, log, began: float):
    """Read a worker's lines into `status` until it ends, hangs in a case (killed) or the budget is spent.
    Returns the case it was in (None between cases) and its last lines."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(x) for x in proc.stdout] + [lines.put(None)], daemon=True).start()
    current, last, tail = None, time.monotonic(), []
    while True:
        try:
            line = lines.get(timeout=0.2)
        except queue.Empty:
            line = ""
        if line is None:
            return current, tail
        if line:
            line = line.rstrip("\n")
            log.write(line + "\n")
            tail = (tail + [line])[-20:]
            m = re.match(r"@@(START|DONE|FAIL) (\d+) ?(.*)", line)
            if m:
                kind, i = m.group(1), int(m.group(2))
                current = i if kind == "START" else None
                last = time.monotonic()
                if kind != "START":
                    status[i] = "ok" if kind == "DONE" else "fail: " + m.group(3)
            elif a.sanitizer and current is not None and line.startswith("========="):
                status.setdefault(f"sanitizer.{current}", []).append(line[10:].strip())
        if current is not None and time.monotonic() - last > a.timeout:
            proc.kill()
            status[current] = f"hang: no result after {a.timeout} s (killed)"
            return current, tail
        if time.monotonic() - began > a.budget:
            proc.kill()
            print(f"budget of {a.budget} s spent: cases from {current} on not run", file=sys.stderr)
            return None, tail


def cmd_gpu(a) -> int:
    """The parent: one worker at a time, restarted after a hang or a failure, one case lost each time."""
    part = Path(a.out).with_suffix(".parts")
    part.mkdir(parents=True, exist_ok=True)
    cases = json.loads((Path(a.plan) / "plan.json").read_text())["cases"]
    status, start, log = {}, 0, open(Path(a.out).with_suffix(".log"), "w")
    began = time.monotonic()
    skip = []
    if a.skip_from:  # cases that hung or failed in an earlier run
        skip = [k for k, v in json.loads(Path(a.skip_from).read_text()).items() if v != "ok" and "#" not in k]
    while start < len(cases) and time.monotonic() - began < a.budget:
        cmd = [sys.executable, __file__, "worker", "--plan", a.plan, "--part", str(part), "--start", str(start)]
        if a.only:
            cmd += ["--only", a.only]
        if skip:
            cmd += ["--skip", ",".join(skip)]
        if a.sanitizer:
            cmd = ["compute-sanitizer", "--tool", a.sanitizer, "--print-limit", "100000", "--show-backtrace", "no"] + cmd
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        current, tail = _watch(proc, a, status, log, began)
        proc.wait()
        if current is not None and current not in status:  # died inside a case (a crash, or the sanitizer)
            status[current] = f"worker exited with {proc.returncode} during the case"
        if proc.returncode == 0 and current is None:
            break
        done = [k for k in status if isinstance(k, int)]
        if not done:
            print("the worker failed before its first case:\n" + "\n".join(tail), file=sys.stderr)
            break
        start = max(done) + 1
    arrays = {}
    for f in sorted(part.glob("*.npz")):
        i = int(f.stem)
        with np.load(f) as z:
            for n in z.files:
                arrays[f"{cases[i]['id']}::{n}"] = z[n]
    np.savez_compressed(a.out, **arrays)
    meta = {cases[k]["id"] if isinstance(k, int) else f"{cases[int(k.split('.')[1])]['id']}#sanitizer": v
            for k, v in status.items()}
    Path(a.out).with_suffix(".json").write_text(json.dumps(meta, indent=1))
    bad = {k: v for k, v in meta.items() if v != "ok"}
    print(f"{sum(v == 'ok' for v in meta.values())} cases ran; {len(bad)} other lines:")
    for k, v in bad.items():
        print(f"  {k}: {v}")
    return 0


# ---- compare (here, with volta) -----------------------------------------------------------------------------------
def cmd_compare(a) -> int:
    from volta.launch import inputs as launch_inputs
    from volta.session import replay
    from volta.launch.spec import DTYPES

    cases = json.loads((Path(a.plan) / "plan.json").read_text())["cases"]
    inputs = np.load(Path(a.plan) / "inputs.npz")
    gpu = np.load(a.gpu)
    meta = json.loads(Path(a.gpu).with_suffix(".json").read_text()) if Path(a.gpu).with_suffix(".json").exists() else {}
    tally = {"identical": 0, "differ": 0, "differ (expected)": 0, "not run": 0}
    record, recorded = {}, {}  # --record: the GPU's out/inout words and volta's outcome per case
    for c in cases:
        cid = c["id"]
        if a.only and not re.search(a.only, cid):
            continue
        if "skip" in c or f"{cid}::{next(iter(c.get('buffers', {'?': 0})))}" not in gpu.files:
            why = c.get("skip") or meta.get(cid, "no GPU result")
            print(f"{cid:58s} not run: {why}")
            tally["not run"] += 1
            continue
        spec, role = load_case(cid)
        arrays = {}
        for n, b in c["buffers"].items():
            key = f"{cid}::{n}"
            if key in inputs.files:
                arrays[n] = inputs[key].view(DTYPES[b["dtype"]][0])
        if spec.symbols:
            chosen = launch_inputs.choose_inputs(spec, "random:0").arrays
            arrays.update({n: chosen[n] for n in spec.symbols})
        t0 = time.perf_counter()
        try:
            raw = replay.run_launch(spec, role, arrays, fp=a.arch, check_races=False)
        except Exception as err:  # noqa: BLE001
            print(f"{cid:58s} volta: {type(err).__name__}: {str(err).splitlines()[0][:80]}")
            tally["not run"] += 1
            recorded[cid] = _record(c, inputs, gpu, record, "unsupported")
            continue
        diffs = []
        for n, b in c["buffers"].items():
            if b["role"] == "temp":
                continue
            size = DTYPES[b["dtype"]][1]
            word = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
            g = gpu[f"{cid}::{n}"].view(word)
            v = np.ascontiguousarray(raw.outputs[n]).view(np.uint8).reshape(-1)[: b["nbytes"]].view(word)
            bad = np.flatnonzero(g != v)
            if bad.size:
                k = int(bad[0])
                ulps = _ulps(g, v, b["dtype"])
                diffs.append(f"{n}: {bad.size}/{g.size} words (first [{k}] gpu {int(g[k]):0{2 * size}x} volta "
                             f"{int(v[k]):0{2 * size}x}{', max ' + str(ulps) + ' ulp' if ulps is not None else ''})")
        secs = time.perf_counter() - t0
        noise = c.get("noise", [])
        if not diffs:
            tally["identical"] += 1
            print(f"{cid:58s} identical ({secs:.1f} s)")
        else:
            key = "differ (expected)" if noise else "differ"
            tally[key] += 1
            print(f"{cid:58s} DIFFER{' [' + ', '.join(noise) + ']' if noise else ''}: {'; '.join(diffs)}")
        recorded[cid] = _record(c, inputs, gpu, record, "differs" if diffs else "identical")
        for k, v in meta.items():
            if k == f"{cid}#sanitizer":
                print(f"{'':58s} sanitizer: {' | '.join(v)[:200]}")
    print(", ".join(f"{v} {k}" for k, v in tally.items()))
    if a.record:
        out = Path(a.record)
        np.savez_compressed(out / "examples.npz", **record)
        (out / "examples.json").write_text(json.dumps({"about": RECORD_ABOUT, "cases": recorded}, indent=1))
        print(f"recorded {len(recorded)} cases in {out}")
    return 0 if tally["differ"] == 0 else 1


RECORD_ABOUT = ("Every out/inout buffer of every case after one run on a GPU (examples/probes/replay_examples.py; "
                "README 'Results' names the GPU), inputs from volta's random:0 (their SHA-256 prefixes here), the "
                "sm_90 PTX where committed; volta_hopper is what `volta run --fp hopper` gave when recorded")


def _record(c: dict, inputs, gpu, record: dict, outcome: str) -> dict:
    import hashlib

    cid = c["id"]
    for n, b in c["buffers"].items():
        if b["role"] in ("out", "inout"):
            record[f"{cid}::{n}"] = gpu[f"{cid}::{n}"]
    return {"ptx": c["launches"][0]["ptx"], "noise": c.get("noise", []), "volta_hopper": outcome,
            "inputs_sha256": {n: hashlib.sha256(inputs[f"{cid}::{n}"].tobytes()).hexdigest()[:16]
                              for n in c["buffers"] if f"{cid}::{n}" in inputs.files}}


def _ulps(g, v, dtype: str):
    """The largest distance in units in the last place between two arrays of float words (None for integers)."""
    if dtype not in ("f32", "f64", "f16", "bf16"):
        return None
    signed = {2: np.int16, 4: np.int32, 8: np.int64}[g.dtype.itemsize]
    gi, vi = g.view(signed).astype(np.int64), v.view(signed).astype(np.int64)
    top = np.int64(1) << (8 * g.dtype.itemsize - 1)
    gi, vi = np.where(gi < 0, -(gi + top), gi), np.where(vi < 0, -(vi + top), vi)  # monotone integer order
    return int(np.max(np.abs(gi - vi)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("plan")
    p.add_argument("--out", required=True)
    g = sub.add_parser("gpu")
    g.add_argument("--plan", required=True)
    g.add_argument("--out", required=True, help="an .npz of every buffer after each case")
    g.add_argument("--sanitizer", help="run under compute-sanitizer --tool TOOL (memcheck, racecheck, synccheck)")
    g.add_argument("--timeout", type=float, default=20.0, help="seconds one case may run")
    g.add_argument("--only", help="a regular expression over case ids")
    g.add_argument("--budget", type=float, default=1e9, help="seconds for the whole run: later cases are not run")
    g.add_argument("--skip-from", help="the .json of an earlier run: cases that did not end ok there are skipped")
    w = sub.add_parser("worker")
    w.add_argument("--plan", required=True)
    w.add_argument("--part", required=True)
    w.add_argument("--start", type=int, default=0)
    w.add_argument("--only")
    w.add_argument("--skip", default="")
    c = sub.add_parser("compare")
    c.add_argument("--plan", required=True)
    c.add_argument("--gpu", required=True)
    c.add_argument("--arch", default="hopper")
    c.add_argument("--only", help="a regular expression over case ids")
    c.add_argument("--record", help="also write examples.json/.npz (the fixture of tests/probes/test_h200.py) here")
    a = ap.parse_args(argv)
    return {"plan": cmd_plan, "gpu": cmd_gpu, "worker": cmd_worker, "compare": cmd_compare}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
