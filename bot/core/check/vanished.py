"""vanished: a page that still cites, in code style, a name the change took out of the code the
page is checked against (`PERF_ARGS` once the launchers that defined it are gone). And a line
the change wrote citing an environment variable the code does not read, when it is a near miss
of one it does (`MILES_NUM_NODE` for `MILES_NUM_NODES`): most variables a page names are other
programs' (`CUDA_VISIBLE_DEVICES`, `NCCL_DEBUG`), so only a near miss is said.

Which names vanished is decided before any page is read (codenames.py). Here each citation is
found: a code span of prose or of a table (`NAME`, `$NAME`, `${NAME}`), never a fenced block,
whose commands define what they use. A name the rule says is external is left alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from bot.core import lazyre
from bot.core.check import wording
from bot.core.check.codenames import cited_name, env_name
from bot.core.check.findings import Findings, is_external
from bot.core.check.flag_env import read_by
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest, misspelt
from bot.core.model import CodeLocation

_SPANS = ("inline", "table")


def vanished(inputs: RuleInputs, page: Page, out: Findings) -> None:
    if not inputs.vanished:
        return
    own = _own_names(page, inputs.vanished.keys())
    for ref in page.refs:
        if ref.where not in _SPANS or ref.kind not in ("name", "value"):
            continue
        name = cited_name(ref.token)
        gone = inputs.vanished.get(name) if name is not None else None
        if gone is None or is_external(ref.token, inputs.rule.external):
            continue
        if own.get(gone.name, ref.line + 1) < ref.line:
            continue  # the page's own snippet set it up before this line: the page's name
        if name is not None and is_external(name, inputs.rule.external):
            continue
        out.emit(
            "vanished",
            ref.token,
            wording.vanished(gone.name, gone.path, gone.line, env=gone.env, files=gone.files),
            doc=page.doc,
            line=ref.line,
            code=_code_location(inputs, gone.path, gone.line),
            why=wording.why_vanished(gone.name, gone.path, gone.line, inputs.rule.id),
        )


def _own_names(page: Page, names: Iterable[str]) -> dict[str, int]:
    """Name -> the line where the page's own shell snippet defines it (`NAME=...`, `read -ra
    NAME`, `export NAME=`), for names the page defines before its prose first cites them: the
    page introduces them itself (a conversion snippet's `MODEL_ARGS`). One the prose cites first
    is the code's, even when a later snippet sets it too."""
    wanted = set(names)
    if not wanted:
        return {}
    first_cited: dict[str, int] = {}
    for ref in page.refs:
        name = cited_name(ref.token) if ref.where in _SPANS else None
        if name in wanted:
            first_cited.setdefault(name, ref.line)
    out: dict[str, int] = {}
    for n, text in _fenced_lines(page.doc.lines):
        for m in _DEFINES.finditer(text):
            name = m.group(1) or m.group(2)
            if name in wanted and name not in out and n < first_cited.get(name, n + 1):
                out[name] = n
    return out


def _fenced_lines(lines: Sequence[str]) -> Iterator[tuple[int, str]]:
    """(1-based number, text) of each line inside a fenced block."""
    fence = ""
    for n, text in enumerate(lines, 1):
        stripped = text.lstrip()
        if fence and stripped.startswith(fence):
            fence = ""
        elif not fence and stripped.startswith(("```", "~~~")):
            fence = stripped[:3]
        elif fence:
            yield n, text


_DEFINES = lazyre.compile(
    r"(?:^|[\s;(])(?:export\s+|declare\s+-\w+\s+|local\s+)?([A-Za-z_][A-Za-z0-9_]*)=|\bread\s+(?:-\w+\s+)*([A-Za-z_][A-Za-z0-9_]*)"
)


def _code_location(inputs: RuleInputs, path: str, line: int) -> CodeLocation:
    """Where the change took the name out: the base line's place at head, or the base line of a
    file the change deleted."""
    head_path = inputs.touched.head_path(path)
    diff = inputs.code_diffs.get(head_path)
    if diff is None or path in inputs.touched.removed:
        return CodeLocation(path, line)
    return CodeLocation(head_path, diff.head_line_for(line))


def _words(variable: str) -> str:
    return variable.lower().replace("_", "-")


def unread_env(inputs: RuleInputs, page: Page, out: Findings) -> None:
    env = inputs.environment
    if env is None:
        return
    # and the variables the options name themselves (flag_env.py), not click's derived ones
    declared = (f for f in inputs.head_facts.flags() if not f.attr("envvar_derived"))
    read = env.read | read_by(declared).keys()
    if not read:
        return
    for ref in page.new_refs:
        name = env_name(ref.token) if ref.where in _SPANS and ref.kind in ("name", "value") else None
        if name is None or name in env.used or len(name) < 6:
            continue
        if name in inputs.head_facts.by_token or is_external(ref.token, inputs.rule.external):
            continue
        prefix = name.split("_", 1)[0] + "_"
        near = closest(name, [v for v in read if v.startswith(prefix)], 0.85)
        if near is None or near in {cited_name(r.token) for r in page.doc.refs_on(ref.line)}:
            continue
        if not misspelt(_words(name), _words(near)):
            continue  # another word, not a typo: crewAI's `CREWAI_PLUS_ID` is not `CREWAI_USER_ID`
        out.emit(
            "unresolved",
            ref.token,
            wording.unread_env(name, near),
            doc=page.doc,
            line=ref.line,
            edit=(ref.token, ref.token.replace(name, near)),
        )
