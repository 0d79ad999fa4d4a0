"""What a check in the candidate's worker saw the candidate compute, kept for Volta's process to decide from.

The check of a KernelBench candidate runs in a confined worker (`isolation/`, docs/sandbox.md), in the same
interpreter as the candidate's code, which can reach and patch anything there. So the worker's verdict is a
claim: Volta's process decides EQUIVALENT (or WITHIN TOLERANCE) only after it has re-derived the facts that
verdict rests on from the data recorded here (`isolation/verify.py`), with a reference it ran itself.

One `Instance` per single-size, single-path check (`check._check_once`: the sizes asked, each path of
`paths.explore`, the ragged sizes); in it, as the candidate returned them:

- `calls[c]`: the output tensors of forward call c (1, 2, 3: `calls.py`) and their elements at the return;
- `inputs`: the call-1 input tensors by name, `parameters`: the parameter tensors by leaf name (the
  reference's it is bound to, else `ModelNew.<name>`; their whole storage), read after call 1 (INPUT
  WRITTEN is judged there);
- `rounded`: the call-1 outputs of the rerun with narrow values rounded (the `--atol/--rtol` evaluation);
- `extensions`: the source text and flags of each extension the candidate built (`host.extract.Extension`);
- `host_calls`: each call into an extension, in order (those of the construction and of every forward call;
  not the precision re-run's): the host code's trace as it came from its process, the storages changed since
  the previous record (before: what the Python side did in between, and new storages) and those the call
  changed (after), and the written symbols. Volta's process replays each trace on its own machine from the
  memory so kept (`isolation/replay.py`): what the kernels computed is then its own, not the worker's word.

Each output is read when its call returns and again once the last call returned (`after_calls`): an output a
later call overwrote is seen so (OUTPUT ALIASED).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from volta.kernelbench.tensor import SymTensor


EXTENSION_FIELDS = ("name", "main_cpp", "cuda_cu", "functions", "cflags", "cuda_cflags", "ldflags", "include_paths")


@dataclass
class Output:
    shape: tuple
    dtype: str               # Volta's name (`f32`)
    returned: list           # the elements when forward returned
    tensor: object           # the tensor itself
    after: list | None = None     # its elements once the last call returned (`Instance.after_calls`)


@dataclass
class Instance:
    ragged: bool
    answers: str                                      # the path's machine answers (paths.Answers.describe)
    calls: dict = field(default_factory=dict)         # call -> [Output | None] (None: not a tensor)
    inputs: dict = field(default_factory=dict)        # input name -> its elements after call 1
    parameters: dict = field(default_factory=dict)    # leaf name -> its storage's elements after call 1
    rounded: list | None = None                       # [elements | None] per output
    extensions: dict = field(default_factory=dict)    # name -> EXTENSION_FIELDS of host.extract.Extension
    host_calls: list = field(default_factory=list)    # a record per call into an extension, in order

    def extension(self, ext) -> None:
        self.extensions[ext.name] = {k: getattr(ext, k) for k in EXTENSION_FIELDS}

    def host_call(self, module: str, fn: str, events: list, before: dict, after: dict) -> None:
        self.host_calls.append({"module": module, "fn": fn, "trace": events, "before": before, "after": after})

    def call(self, number: int, outputs: list) -> None:
        self.calls[number] = [Output(tuple(int(n) for n in t.shape), t.dtype.volta, list(t.values()), t)
                              if isinstance(t, SymTensor) else None for t in outputs]

    def after_calls(self) -> None:
        """Every call's outputs read again once the last call returned."""
        for outs in self.calls.values():
            for o in outs:
                if o is not None:
                    o.after = list(o.tensor.values())

    def first_call(self, outputs: list, names: list, inputs: list, model, bindings: list) -> None:
        self.call(1, outputs)
        self.inputs = {n: list(t.values()) for n, t in zip(names, inputs) if isinstance(t, SymTensor)}
        leaf = {b.candidate: b.reference or f"ModelNew.{b.candidate}" for b in bindings}
        self.parameters = {leaf[n]: list(t.storage.values) for n, t in model.named_parameters()
                           if isinstance(t, SymTensor) and n in leaf}


@dataclass
class Evidence:
    instances: list = field(default_factory=list)

    def instance(self, ragged: bool, answers: str) -> Instance:
        made = Instance(ragged, answers)
        self.instances.append(made)
        return made

    def snapshot(self) -> list:
        """Plain records (tuples, lists, dicts, strings, numbers, expressions) for `isolation.wire`."""
        out = []
        for inst in self.instances:
            calls = {c: [None if o is None else (o.shape, o.dtype, o.returned, o.after)
                         for o in outs] for c, outs in inst.calls.items()}
            out.append({"ragged": inst.ragged, "answers": inst.answers, "calls": calls,
                        "inputs": inst.inputs, "parameters": inst.parameters,
                        "rounded": None if inst.rounded is None else [None if v is None else list(v)
                                                                       for v in inst.rounded],
                        "extensions": inst.extensions, "host_calls": inst.host_calls})
        return out
