"""Progress on stderr: lines, or on a terminal a one-line bar for the periodic ones (volta/cli/progress.py)."""
import io
from pathlib import Path

from volta.cli.progress import Progress
from volta.equiv import check as C
from volta.launch.spec import pair_from_options

DATA = Path(__file__).resolve().parents[1] / "equiv" / "data" / "libdevice_log.ptx"


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_periodic_lines_overwrite_each_other_on_a_terminal_only():
    lines = ["executing ref", "comparing: 5 of 10 elements (50%), ETA 3 s",
             "comparing: 6 of 10 elements (60%), ETA 2 s", "done"]
    tty, pipe = _Terminal(), io.StringIO()
    for stream in (tty, pipe):
        p = Progress("volta check", stream)
        for line in lines:
            p(line)
        p.close()
    assert pipe.getvalue() == "".join(f"volta check: {line}\n" for line in lines)
    assert tty.getvalue() == ("volta check: executing ref\n"
                              "\r\x1b[Kvolta check: comparing: 5 of 10 elements (50%), ETA 3 s"
                              "\r\x1b[Kvolta check: comparing: 6 of 10 elements (60%), ETA 2 s\n"
                              "volta check: done\n")


def test_check_reports_elements_compared_with_an_eta(monkeypatch):
    monkeypatch.setattr(C, "PROGRESS_SECONDS", 0.0)
    spec = pair_from_options(DATA, DATA, ["x=f32[32]:in", "y=f32[32]:out"], grid="1", block="32", args="x,y,32",
                             kernel=None, ref={"kernel": "log_plain"}, opt={"kernel": "log_guarded"})
    seen = []
    report = C.check(spec, progress=seen.append)
    assert report.verdict == "equivalent"
    bars = [s for s in seen if s.startswith("comparing: ") and " ETA " in s]
    assert bars and bars[-1].startswith("comparing: 32 of 32 elements (100%)")
