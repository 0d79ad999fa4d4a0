"""`volta mma`: evaluate tensor-core dot products with the per-architecture model of `volta.numerics`.

One dot product from --a/--b/--c, or many from --batch FILE (one `a-words ; b-words ; c-word` per line, words in
hex of the input format, c and results in hex of the accumulator format), evaluated vectorized by K.
The row is chosen by the instruction (`--inst mma|wgmma`) and, where the code depends on it (Hopper fp8
`mma.sync`), the ptxas version (`--ptxas`, default the nvcc found, else 13.0): volta.numerics.mma_select. The
row used is named on stderr (text) or under "row" (`--json`: {"words", "value", "acc", "row"}).
"""
from __future__ import annotations

import functools
import json
import math
from collections import defaultdict

import click

from volta.cli.exit_codes import epilog
import numpy as np

from volta.cuda import nvcc_release
from volta.errors import UsageError
from volta.numerics.formats import FORMATS, decode
from volta.numerics.mma_model import MmaParams
from volta.numerics.mma_select import INSTS, make_setting, select_row, summary
from volta.numerics.mma_vec import mma_batch


def parse_words(text: str, what: str, width: int) -> list[int]:
    """Comma-separated hex words; anything else is a one-line usage error."""
    words = []
    for tok in text.split(","):
        tok = tok.strip()
        try:
            w = int(tok, 16)
        except ValueError:
            raise UsageError(f"{what}: {tok!r} is not a hex word") from None
        if w < 0 or w >> width:
            raise UsageError(f"{what}: {tok!r} does not fit in {width} bits")
        words.append(w)
    return words


def format_value(word: int, fmt_name: str) -> str:
    v = decode(word, fmt_name)
    if isinstance(v, float):
        return "nan" if math.isnan(v) else repr(v)
    return repr(float(v))


_HEX = functools.partial(int, base=16)  # C-level callable: the batch loop maps it over millions of tokens


def _read_batch(path: str) -> list[tuple[int, str, str, str]]:
    """(line number, a-field, b-field, c-field) for each non-blank, non-comment line."""
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as err:
        raise UsageError(f"cannot read batch file {path!r}: {err.strerror}") from None
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split(";")
        if len(parts) != 3:
            raise UsageError(f"{path}:{n}: expected 'a-words ; b-words ; c-word', got {len(parts)} field(s)")
        rows.append((n, *parts))
    return rows


def _bulk_words(fields: list[str], rows, col: int, width: int, path: str, what: str) -> np.ndarray:
    """Parse many comma lists at once; on any error re-parse line by line to name the culprit."""
    try:
        arr = np.array(list(map(_HEX, ",".join(fields).split(","))), dtype=np.int64)
        if arr.size and arr.min() >= 0 and int(arr.max()) >> width == 0:
            return arr
    except (ValueError, OverflowError):
        pass
    for row in rows:
        parse_words(row[col], f"{path}:{row[0]}: {what}", width)
    raise UsageError(f"{path}: malformed {what} words")  # unreachable: some line failed above


def run_batch_text(rows, path: str, arch: str, in_fmt: str, acc_fmt: str,
                   params: MmaParams | None = None) -> list[int]:
    """Evaluate every row, one vectorized call per distinct K."""
    in_w, acc_w = FORMATS[in_fmt].width, FORMATS[acc_fmt].width
    by_k: dict[int, list[int]] = defaultdict(list)
    for i, (n, a, b, c) in enumerate(rows):
        k = a.count(",") + 1
        if b.count(",") + 1 != k or "," in c:
            raise UsageError(f"{path}:{n}: a has {k} words, b {b.count(',') + 1}, c {c.count(',') + 1} "
                             "(need equal, equal, 1)")
        by_k[k].append(i)
    out = [0] * len(rows)
    for k, idx in by_k.items():
        sel = [rows[i] for i in idx]
        A = _bulk_words([r[1] for r in sel], sel, 1, in_w, path, "a").reshape(len(idx), k)
        B = _bulk_words([r[2] for r in sel], sel, 2, in_w, path, "b").reshape(len(idx), k)
        C = _bulk_words([r[3] for r in sel], sel, 3, acc_w, path, "c")
        for i, d in zip(idx, mma_batch(A, B, C, arch, in_fmt, acc_fmt, params=params).tolist()):
            out[i] = d
    return out


def run_one(a: list[int], b: list[int], c: int, arch: str, in_fmt: str, acc_fmt: str,
            params: MmaParams | None = None) -> int:
    return int(mma_batch(np.array([a], dtype=np.int64), np.array([b], dtype=np.int64), np.array([c]), arch,
                         in_fmt, acc_fmt, params=params)[0])


@click.command("mma", epilog=epilog("mma"))
@click.option("--arch", required=True, help="volta, ampere, ada, hopper, blackwell (or sm_XX)")
@click.option("--in", "in_fmt", required=True, help="input format: f16, bf16, tf32, e4m3, e5m2, f64")
@click.option("--acc", "--out", "acc_fmt", default="f32", show_default=True,
              help="accumulator (= output) format: f32, f16, f64")
@click.option("--a", "a_words", help="comma-separated hex words of A's row")
@click.option("--b", "b_words", help="comma-separated hex words of B's column")
@click.option("--c", "c_word", default="0", show_default=True, help="hex accumulator word")
@click.option("--batch", "batch", type=click.Path(dir_okay=False), help="file of 'a ; b ; c' lines")
@click.option("--inst", type=click.Choice(INSTS), default="mma", show_default=True,
              help="the instruction: mma (mma.sync, wmma) or wgmma (sm_90a)")
@click.option("--ptxas", default=None, metavar="VERSION",
              help="the ptxas that compiled the code, e.g. 12.6 or 13.0 (default: the nvcc found, else 13.0); "
                   "Hopper fp8 mma.sync depends on it")
@click.option("--json", "as_json", is_flag=True, help="print one JSON object: words, value, acc and the row used")
def command(arch, in_fmt, acc_fmt, a_words, b_words, c_word, batch, inst, ptxas, as_json) -> int:
    """Compute d = c + Σ a[k]·b[k] as a tensor core of ARCH does, bit for bit."""
    for name in (in_fmt, acc_fmt):
        if name not in FORMATS:
            raise UsageError(f"unknown format {name!r} (known: {', '.join(FORMATS)})")
    setting = make_setting(inst, ptxas, nvcc_release())
    row = select_row(arch, in_fmt, acc_fmt, setting)  # validates the architecture/format pair and the setting
    in_width, acc_width = FORMATS[in_fmt].width, FORMATS[acc_fmt].width
    width_hex = acc_width // 4
    if batch is not None:
        if a_words or b_words:
            raise UsageError("--batch cannot be combined with --a/--b")
        rows = _read_batch(batch)
        results = run_batch_text(rows, batch, arch, in_fmt, acc_fmt, row.params)
        value = None
    else:
        if a_words is None or b_words is None:
            raise UsageError("give --a and --b (or --batch FILE)")
        a = parse_words(a_words, "--a", in_width)
        b = parse_words(b_words, "--b", in_width)
        (c,) = parse_words(c_word, "--c", acc_width) if "," not in c_word else (None,)
        if c is None:
            raise UsageError("--c takes one word")
        if len(a) != len(b):
            raise UsageError(f"--a has {len(a)} words but --b has {len(b)}")
        results = [run_one(a, b, c, arch, in_fmt, acc_fmt, row.params)]
        value = format_value(results[0], acc_fmt)
    if as_json:
        click.echo(json.dumps({"words": [f"{d:0{width_hex}x}" for d in results],
                               "value": None if value in (None, "nan") else float(value), "acc": acc_fmt,
                               "row": row.to_json(setting)}))
        return 0
    click.echo(f"volta mma: row {summary(row.to_json(setting))}", err=True)
    if value is not None:
        click.echo(f"{results[0]:0{width_hex}x} {value}")
    elif results:
        click.echo("\n".join(f"{d:0{width_hex}x}" for d in results))
    return 0
