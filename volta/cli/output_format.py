"""`--output-format text|json|sarif|junit|github` for check, races and run (as ruff has), with `--json` and
`--sarif` kept as aliases.

json and sarif are the commands' own flags; junit prints the JUnit XML `--junit FILE` writes; github prints one
GitHub Actions annotation per SARIF result (`::error file=k.cu,line=7,title=out-of-bounds::…`), at the CUDA line
when there is one, so a workflow step shows each finding on the pull request. The decorator turns the choice
into the command's existing arguments and converts what the command prints; the commands are unchanged.
"""
from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import tempfile
from pathlib import Path
from urllib.parse import unquote, urlparse

import click

from volta.errors import UsageError

FORMATS = ("text", "json", "sarif", "junit", "github")
_LEVELS = {"error": "error", "warning": "warning", "note": "notice", "none": "notice"}


def output_format(f):
    """Add `--output-format`; the wrapped command keeps its `as_json`, `as_sarif` and `junit_file` arguments."""
    @functools.wraps(f)
    def wrapper(*args, output_format=None, **kwargs):
        chosen = [name for name, on in (("json", kwargs.get("as_json")), ("sarif", kwargs.get("as_sarif"))) if on]
        if len(chosen) > 1:
            raise UsageError("choose one of --json and --sarif")
        if output_format is not None and chosen and chosen != [output_format]:
            raise UsageError(f"--output-format {output_format} and --{chosen[0]} disagree: give one of them")
        fmt = output_format or (chosen[0] if chosen else "text")
        kwargs["as_json"], kwargs["as_sarif"] = fmt == "json", fmt in ("sarif", "github")
        if fmt == "junit":
            return _junit(f, args, kwargs)
        if fmt == "github":
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                code = f(*args, **kwargs)
            click.echo(github_annotations(json.loads(printed.getvalue())), nl=False)
            return code
        return f(*args, **kwargs)

    return click.option("--output-format", type=click.Choice(FORMATS), default=None,
                        help="What stdout gets: text (default), json (= --json), sarif (= --sarif), junit (the XML "
                             "--junit FILE writes) or github (GitHub Actions annotations at the CUDA lines).")(wrapper)


def _junit(f, args, kwargs):
    """The command run with `--junit` to a scratch file, whose XML is what stdout gets (the text is dropped)."""
    if kwargs.get("junit_file"):
        raise UsageError("--output-format junit prints the JUnit XML: drop --junit FILE (or keep it and print text)")
    fd, path = tempfile.mkstemp(suffix=".xml")
    os.close(fd)
    try:
        kwargs["junit_file"] = path
        with contextlib.redirect_stdout(io.StringIO()):
            code = f(*args, **kwargs)
        click.echo(Path(path).read_text(), nl=False)
    finally:
        os.unlink(path)
    return code


def github_annotations(sarif: dict) -> str:
    """One `::LEVEL file=…,line=…,col=…,title=…::message` line per SARIF result (GitHub Actions workflow
    commands)."""
    lines = []
    for run in sarif.get("runs", []):
        for result in run.get("results", []):
            props = []
            for loc in result.get("locations", [])[:1]:
                phys = loc.get("physicalLocation", {})
                uri = phys.get("artifactLocation", {}).get("uri", "")
                path = unquote(urlparse(uri).path) if uri.startswith("file:") else uri
                region = phys.get("region", {})
                props.append(f"file={_escape(path, True)}")
                if "startLine" in region:
                    props.append(f"line={region['startLine']}")
                if "startColumn" in region:
                    props.append(f"col={region['startColumn']}")
            props.append(f"title={_escape(result.get('ruleId', 'volta'), True)}")
            level = _LEVELS.get(result.get("level", "error"), "error")
            lines.append(f"::{level} {','.join(props)}::{_escape(result.get('message', {}).get('text', ''))}\n")
    return "".join(lines)


def _escape(text: str, prop: bool = False) -> str:
    """GitHub's escaping of workflow-command data (and, in properties, of `:` and `,`)."""
    text = str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text
