"""What a dataclass says about its fields in comments, which `ast` drops.

A field built into a flag often has no `help=`: its meaning sits in a comment, on its own line
(`fsdp_cpu_offload: bool = False  # If True, offload parameters...`, also inside a parenthesised
default) or in the block right above it (`# FSDP2 hybrid-shard replica count.`). A one-line
comment without a sentence's end (`# Precision`) titles the run of fields below it instead.

libcst keeps every comment, at many times the cost of `ast.parse` (bench/bench_comments.py), so
this is read only for a file whose comments a suggestion needs (its importers load this module
when they need it, so a check that needs none never imports libcst); facts stay on `ast`. No
positions are asked for: fields are found by name, which skips libcst's metadata pass.
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

with warnings.catch_warnings():
    # libcst 1.0 declares a TypedDict through mypy_extensions, which its later versions deprecate:
    # a warning about libcst's own code that says nothing to a user of docs-sync.
    warnings.simplefilter("ignore", DeprecationWarning)
    import libcst

# Comments that talk to tools, not readers.
_TOOL_COMMENT = re.compile(r"(?:noqa|type:|pragma|fmt:|pylint:|mypy:|pyright:|isort:)", re.IGNORECASE)
_SENTENCE_END = (".", "!", "?", ":", ")")


@dataclass(frozen=True)
class FieldComments:
    inline: str  # the comments on the field's own lines, joined; "" when none
    above: str  # the comment block right above the field (no blank line between), joined
    section: str  # the title of the run of fields it belongs to (`Precision`); "" when none

    def description(self) -> str:
        """What the field is, as its comments say: the one on its line, else the block above
        when that is a sentence rather than a section title."""
        return self.inline or ("" if is_title(self.above) else self.above)


def is_title(text: str) -> bool:
    """A section title (`Precision`, `FSDP configuration`): one short phrase, no sentence end."""
    return bool(text) and not text.endswith(_SENTENCE_END) and len(text.split()) <= 6


def field_comments(text: str, class_name: str) -> dict[str, FieldComments] | None:
    """Each field of top-level class `class_name` (and of its bases defined in the same file) ->
    its comments. None when the file does not parse or has no such class."""
    try:
        module = libcst.parse_module(text)
    except (libcst.ParserSyntaxError, RecursionError, ValueError):
        return None
    classes = {n.name.value: n for n in module.body if isinstance(n, libcst.ClassDef)}
    if class_name not in classes:
        return None
    out: dict[str, FieldComments] = {}
    _collect(classes, classes[class_name], out, depth=0)
    return out


def _collect(
    classes: dict[str, libcst.ClassDef], node: libcst.ClassDef, out: dict[str, FieldComments], depth: int
) -> None:
    if depth > 20:  # a cycle of bases cannot run, but a file mid-edit may hold one
        return
    for arg in reversed(node.bases):
        base = arg.value
        if isinstance(base, libcst.Name) and base.value in classes and base.value != node.name.value:
            _collect(classes, classes[base.value], out, depth + 1)
    if not isinstance(node.body, libcst.IndentedBlock):
        return
    section = ""
    for stmt in node.body.body:
        if not isinstance(stmt, (libcst.SimpleStatementLine, libcst.BaseCompoundStatement)):
            continue
        above = _block_above(stmt.leading_lines)
        if is_title(above):
            section = above
        if not isinstance(stmt, libcst.SimpleStatementLine) or not stmt.body:
            continue
        assign = stmt.body[0]
        if not (isinstance(assign, libcst.AnnAssign) and isinstance(assign.target, libcst.Name)):
            continue
        inline = [c for part in (*stmt.body, stmt.trailing_whitespace) for c in _comments_in(part)]
        out[assign.target.value] = FieldComments(_join(inline), above, section)


def _block_above(lines: Iterable[libcst.EmptyLine]) -> str:
    """The comment lines directly above a statement, up to the first blank line."""
    block: list[str] = []
    for line in reversed(list(lines)):
        if line.comment is None:
            break
        block.append(line.comment.value)
    return _join(reversed(block))


def _join(comments: Iterable[str]) -> str:
    words = []
    for raw in comments:
        # One comment may hold several: `# Fine.  # type: ignore[assignment]`.
        for part in re.split(
            r"\s#\s*(?=" + _TOOL_COMMENT.pattern + ")", raw.lstrip("#"), flags=re.IGNORECASE
        ):
            text = part.strip()
            if text and not _TOOL_COMMENT.match(text):
                words.append(text)
    return " ".join(" ".join(words).split())


def _comments_in(node: libcst.CSTNode) -> Iterator[str]:
    if isinstance(node, libcst.Comment):
        yield node.value
    for child in node.children:
        yield from _comments_in(child)
