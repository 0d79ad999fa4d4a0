"""Multi-kernel pipelines: launches of one side run in order on the same buffers (`[[ref.launch]]`).

A launch boundary is a grid-wide barrier: every access of a launch happens before every access of the next,
so races are looked for within each launch only (each machine starts a fresh race shadow). What carries over
is the buffers' memory: the bytes, the per-byte taint (DATA/UNDEF) and, in `volta check`, the symbolic values
stored — the next machine's `_setup_memory` takes the previous machine's buffer regions as they are
(`Machine.carried_regions`). Shared memory, registers and local memory do not carry over, as on a GPU.
A `temp` buffer (an intermediate) starts never-written: a read of it before a launch wrote it is an
uninitialized read, as for shared memory.
"""
from __future__ import annotations


def machine(carried, *args, **kwargs):
    """A Machine whose buffers are `carried` (name -> Region of the previous launch's machine), or fresh."""
    from volta.exec.machine import Machine

    m = Machine.__new__(Machine)
    m.carried_regions = carried
    m.__init__(*args, **kwargs)
    return m


def combine(machines: list):
    """The last machine of a sequence, standing for the whole sequence: its buffers are the final memory;
    findings, thread-instruction counts, real-semantics notes and tensor-core rows are those of every launch."""
    last = machines[-1]
    if len(machines) > 1:
        last.findings = [f for m in machines for f in m.findings]
        last.thread_instructions = sum(m.thread_instructions for m in machines)
        notes = [n for m in machines for n in getattr(m, "real_notes", ())]
        if notes:
            last.real_notes = list(dict.fromkeys(notes))
        last.tensor_rows = {name: row for m in machines for name, row in m.tensor_rows.items()}
    last.sequence = [step_name(m.launch, m.prog.name) for m in machines]
    return last


def names(m) -> str:
    """`partial_sums → reduce_partials` for a sequence's machine, the kernel name otherwise."""
    return " → ".join(getattr(m, "sequence", None) or [m.prog.name])


def step_name(launch, kernel: str | None = None) -> str:
    """What a report calls one step of a sequence: a host step's text (`memset out 0`), else the kernel."""
    return launch.host or kernel or launch.kernel or str(launch.ptx)


def races(spec, role: str, progress=None, *, inputs=None, trials=None, concrete: bool = True, policy=None):
    """`volta races` on a launch sequence: each launch over its whole grid, structured (every input), with the
    memory the earlier launches left; one report for the sequence (kernels `k1 → k2`, every launch's findings,
    each naming its own PTX line). When a launch leaves the structured class for data dependence (and nothing
    was found before), the whole sequence runs again on each trial's concrete inputs (`--inputs`, `--trials`,
    as for one kernel): findings for those inputs, or NO FINDING ON THESE INPUTS."""
    import dataclasses
    import time

    from volta.errors import Unsupported
    from volta.exec import findings as F
    from volta.exec import races as R
    from volta.launch.spec import sequence
    from volta.ir.program import lower
    from volta.ptx.parser import parse_file

    seq = sequence(spec, role)
    policy = policy or R.Policy()
    modes = R.trial_modes(inputs, trials)
    report = R.RaceReport(
        kernel=" → ".join(step_name(x) for x in seq), role=role,
        ptx=" → ".join(dict.fromkeys(str(x.ptx) for x in seq)), grid=" → ".join(str(x.grid) for x in seq),
        block=" → ".join(str(x.block) for x in seq), threads=sum(x.grid.count * x.block.count for x in seq),
        verdict=R.CLEAN, policy=policy)
    start = time.perf_counter()
    found, carried, names = [], None, []
    progs = [lower(parse_file(x.ptx), x.kernel) for x in seq]
    if inputs is not None:
        return R.concrete_report(report, spec, role, progs, seq, modes, start, progress, None)
    try:
        for launch in seq:
            prog = lower(parse_file(launch.ptx), launch.kernel)
            names.append(step_name(launch, prog.name))
            launch = dataclasses.replace(launch, kernel=prog.name)
            if progress is not None:
                progress(f"{prog.name}: executing {launch.grid.count * launch.block.count} threads "
                         f"(grid {launch.grid}, block {launch.block}), launch {len(names)} of {len(seq)}")
            m = machine(carried, prog, launch, spec.buffers, spec.symbols, structured=True, check_races=True,
                        allow_exit_before_barrier=spec.allow_exit_before_barrier,
                        lockstep_warps=policy.lockstep_warps)
            try:
                m.run()
                if m.unproved_stores:
                    op = m.unproved_stores[0]
                    raise Unsupported(f"threads of one warp store tensor data to the same address in one "
                                      f"instruction (`{op.d.inst.opcode}`) in a launch sequence; their values are "
                                      f"not compared here", op.span)
            except Unsupported as err:
                if concrete and R.is_data_dependence(err) and not found and not m.findings:
                    return R.concrete_report(report, spec, role, progs, seq, modes, start, progress, err)
                report.verdict, report.error = R.UNSUPPORTED, err
                found += [R.with_address(f, m) for f in m.findings]
                report.thread_instructions += m.thread_instructions
                break
            found += [R.with_address(f, m) for f in m.findings]
            report.thread_instructions += m.thread_instructions
            report.steps += m.steps
            carried = m.buffer_regions
    except R.Timeout as err:
        return R.out_of_time(report, err, start, found)
    report.kernel = " → ".join(names + [step_name(x) for x in seq[len(names):]])
    report.seconds = time.perf_counter() - start
    report.findings = F.benign_only_where_always(found)
    if report.counted:
        report.verdict = R.FINDINGS   # findings made before a launch left the structured class are real defects
    elif report.verdict != R.UNSUPPORTED:
        report.verdict = R.CLEAN
    return report
