"""The worker process: loads a candidate's built extensions and runs its host code, one call at a time.

Started by `volta.kernelbench.host.session` as `python -m volta.kernelbench.host.worker RUNTIME.so IN OUT`; it
reads one JSON request per line on fd IN and writes one JSON reply per line on fd OUT (stdout and stderr are the
candidate's: whatever its host code prints goes there and never into the protocol). Only ctypes and json
are imported, so it starts in a few tens of milliseconds. The host code runs natively on this CPU against
the stand-in CUDA runtime (`runtime/`), which records what the GPU would do as a trace: this process never
decides anything, and a crash here (a host read through a fake device pointer faults) is reported by the
parent as what it is.

Requests: {"op": "load", "module": name, "path": ext.so} -> {"functions": [[module, name]], "kernels": [...]};
{"op": "params", "module", "kernel", "sizes": [bytes]} -> {}; {"op": "call", "module", "fn", "args": [arg]}
-> {"status": 0 returned | 1 raised | 2 outside the model, "result": value or {"type", "message"},
"trace": [event]}. An arg is {"t": "none"|"int"|"float"|"bool"|"str"|"ints"|"floats"|"tensors"|"tensor", ...}.
"""
from __future__ import annotations

import ctypes
import json
import os
import sys

DTYPES = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5, "float32": 6, "float64": 7,
          "bool": 11, "bfloat16": 15}
TAGS = {"none": 0, "tensor": 1, "int": 2, "float": 3, "bool": 4, "ints": 5, "floats": 6, "str": 7, "tensors": 8}
MAX_DIMS = 16


class VoltaArg(ctypes.Structure):
    pass


# mirrors struct VoltaArg in include/volta/bind.h: change both together
VoltaArg._fields_ = [
    ("tag", ctypes.c_int32), ("dtype", ctypes.c_int32), ("i", ctypes.c_int64), ("d", ctypes.c_double),
    ("base", ctypes.c_uint64), ("storage_bytes", ctypes.c_int64), ("offset", ctypes.c_int64),
    ("ndim", ctypes.c_int32), ("n", ctypes.c_int32),
    ("sizes", ctypes.c_int64 * MAX_DIMS), ("strides", ctypes.c_int64 * MAX_DIMS),
    ("ints", ctypes.c_int64 * MAX_DIMS), ("floats", ctypes.c_double * MAX_DIMS),
    ("str", ctypes.c_char_p), ("items", ctypes.POINTER(VoltaArg)),
]


def fill(arg: VoltaArg, value: dict, keep: list) -> None:
    """One argument from its JSON form; `keep` holds the buffers ctypes must not free during the call."""
    tag = value["t"]
    arg.tag = TAGS[tag]
    if tag == "tensor":
        arg.dtype = DTYPES[value["dtype"]]
        arg.base, arg.storage_bytes, arg.offset = value["base"], value["bytes"], value["offset"]
        arg.ndim = len(value["sizes"])
        for k, (s, st) in enumerate(zip(value["sizes"], value["strides"])):
            arg.sizes[k], arg.strides[k] = s, st
    elif tag in ("int", "bool"):
        arg.i = int(value["v"])
    elif tag == "float":
        arg.d = float(value["v"])
    elif tag == "str":
        data = value["v"].encode()
        keep.append(data)
        arg.str = data
    elif tag in ("ints", "floats"):
        arg.n = len(value["v"])
        for k, x in enumerate(value["v"]):
            if tag == "ints":
                arg.ints[k] = int(x)
            else:
                arg.floats[k] = float(x)
    elif tag == "tensors":
        items = (VoltaArg * max(1, len(value["v"])))()
        keep.append(items)
        for k, x in enumerate(value["v"]):
            fill(items[k], x, keep)
        arg.n = len(value["v"])
        arg.items = items


def serve(runtime_path: str, requests, replies) -> None:
    rt = ctypes.CDLL(runtime_path, mode=ctypes.RTLD_GLOBAL)
    for name in ("volta_init_modules", "volta_result", "volta_take_trace", "volta_kernels"):
        getattr(rt, name).restype = ctypes.c_char_p
    rt.volta_call.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(VoltaArg), ctypes.c_int]
    rt.volta_set_params.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_int64)]
    libraries = []
    for line in requests:
        req = json.loads(line)
        op = req["op"]
        if op == "load":
            rt.volta_begin_load(req["module"].encode())
            libraries.append(ctypes.CDLL(req["path"], mode=ctypes.RTLD_LOCAL))
            reply = {"functions": json.loads(rt.volta_init_modules()), "kernels": json.loads(rt.volta_kernels())}
        elif op == "params":
            sizes = (ctypes.c_int64 * max(1, len(req["sizes"])))(*req["sizes"])
            rt.volta_set_params(req["module"].encode(), req["kernel"].encode(), len(req["sizes"]), sizes)
            reply = {}
        elif op == "call":
            keep: list = []
            args = (VoltaArg * max(1, len(req["args"])))()
            for k, a in enumerate(req["args"]):
                fill(args[k], a, keep)
            status = rt.volta_call(req["module"].encode(), req["fn"].encode(), args, len(req["args"]))
            result = json.loads(rt.volta_result())
            trace = [json.loads(e) for e in rt.volta_take_trace().decode().splitlines() if e]
            reply = {"status": status, "result": result, "trace": trace}
        else:
            reply = {"error": f"unknown request {op!r}"}
        sys.stdout.flush()
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


def main() -> None:
    requests = os.fdopen(int(sys.argv[2]), "r")
    replies = os.fdopen(int(sys.argv[3]), "w")
    serve(sys.argv[1], requests, replies)


if __name__ == "__main__":
    main()
