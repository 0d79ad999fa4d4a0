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
  memory so kept (`isolation/replay.py`): what the kernels computed is then its own, not the worker's word;
- `call_trace`: every call the candidate's own frames made into the stand-in, from its file's run to the end of
  its last forward call, over handles (`isolation/calltrace.py`): Volta's process replays its streams and events
  and finds call 1's stream races itself, and replays each call's values (`isolation/values.py`): `found` holds
  the elements, as the call began, of each storage the trace first meets as an argument (the constructor's
  tensors, the parameters), `forward_memory` what the Python side changed in the extensions' memory before
  call 1's forward.

Each output is read when its call returns and again once the last call returned (`after_calls`): an output a
later call overwrote is seen so (OUTPUT ALIASED).

Where the reference runs in Volta's process only (`check(..., reference=...)`: the worker never computes
its outputs), the worker's run needs two things from there, both plain data: `ReferenceFacts` before the
candidate runs (the formats the reference computes in, which decide what PRECISION LOSS is), and, for a
claim Volta's process bore out, the comparisons it made (`Instance.compared`), which the worker's report shows.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from volta.kernelbench.compare import Comparison
from volta.kernelbench.tensor import SymTensor


EXTENSION_FIELDS = ("name", "main_cpp", "cuda_cu", "functions", "cflags", "cuda_cflags", "ldflags", "include_paths")


@dataclass(frozen=True)
class ReferenceFacts:
    """What the candidate's run needs to know of a reference it does not run: the formats its values are
    stored in, and (op kind, format) of its reduced matmuls (`torchsym.switches.Precision`)."""

    formats: tuple = ()
    ops: tuple = ()

    def to_plain(self) -> dict:
        return {"formats": sorted(self.formats), "ops": sorted([list(o) for o in self.ops])}

    @staticmethod
    def of_plain(data) -> "ReferenceFacts":
        formats, ops = data["formats"], data["ops"]
        if not (all(type(f) is str for f in formats) and all(len(o) == 2 and all(type(x) is str for x in o)
                                                             for o in ops)):
            raise ValueError("malformed reference facts")
        return ReferenceFacts(tuple(formats), tuple(tuple(o) for o in ops))


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
    call_trace: list = field(default_factory=list)    # the candidate's calls into the stand-in (isolation/calltrace.py)
    found: list = field(default_factory=list)         # elements, when call 1's forward began, of each storage its
                                                      # calls first took as an argument (isolation/values.py)
    forward_memory: list | None = None                # the extensions' memory changed from the last extension call
                                                      # to call 1's forward (DeviceMemory.changed)
    report: object = None                             # the check's report of this run (never sent)
    recorder: object = None       # the call trace's recorder (calltrace.Recorder): the later calls extend it (never sent)
    ask: object = None            # the first run's only: call 1 decided before the later calls (Evidence.ask)

    def extension(self, ext) -> None:
        self.extensions[ext.name] = {k: getattr(ext, k) for k in EXTENSION_FIELDS}

    def host_call(self, module: str, fn: str, events: list, before: dict, after: dict) -> None:
        self.host_calls.append({"module": module, "fn": fn, "trace": events, "before": before, "after": after})

    def call(self, number: int, outputs: list) -> None:
        self.calls[number] = [Output(tuple(int(n) for n in t.shape), t.dtype.volta, list(t.values()), t)
                              if isinstance(t, SymTensor) else None for t in outputs]

    def compared(self, calls: dict, notes: list) -> None:
        """The comparisons Volta's process made of this run's calls (call -> Comparison's counts), into the
        report, as a check that ran the reference here would have filled it."""
        counts = {int(call): Comparison(compared=int(c["compared"]), seconds=float(c["seconds"]),
                                        proved_by={str(k): int(n) for k, n in c["proved_by"].items()})
                  for call, c in calls.items()}
        report = self.report
        report.comparison = counts.get(1, report.comparison)
        report.seconds["compare"] = report.comparison.seconds
        if report.calls is not None and len(counts) > 1:
            report.calls.comparison = counts[max(counts)]
        report.notes += [str(n) for n in notes]

    def after_calls(self) -> None:
        """Every call's outputs read again once the last call returned."""
        for outs in self.calls.values():
            for o in outs:
                if o is not None:
                    o.after = list(o.tensor.values())

    def first_call(self, outputs: list, names: list, inputs: list, model, bindings: list) -> None:
        self.call(1, outputs)
        self.held_after(names, inputs, model, bindings)

    def held_after(self, names: list, inputs: list, model, bindings: list) -> None:
        """Call 1's inputs and bound parameters as forward left them (returned, or stopped: a write made
        before a stop is still one)."""
        self.inputs = {n: list(t.values()) for n, t in zip(names, inputs) if isinstance(t, SymTensor)}
        leaf = {b.candidate: b.reference or f"ModelNew.{b.candidate}" for b in bindings}
        self.parameters = {} if model is None else {leaf[n]: list(t.storage.values) for n, t in model.named_parameters()
                                                    if isinstance(t, SymTensor) and n in leaf}


@dataclass
class Evidence:
    instances: list = field(default_factory=list)
    ask: object = None      # ask(instance) -> whether to go on: Volta's process decides call 1 of the first run
                            # (the asked sizes, the first path) before the later calls are made (isolation/confined.py)

    def instance(self, ragged: bool, answers: str) -> Instance:
        made = Instance(ragged, answers)
        if not self.instances and not ragged:
            made.ask = self.ask
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
                        "extensions": inst.extensions, "host_calls": inst.host_calls,
                        "call_trace": inst.call_trace, "found": inst.found,
                        "forward_memory": inst.forward_memory})
        return out
