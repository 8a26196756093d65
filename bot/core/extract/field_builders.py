"""Flags a function of another module makes from a dataclass of this one: sglang's
`add_cli_args_from_dataclass(parser, ServerArgs)`, imported from arg_groups/arg_utils.py.

Extraction reads one file, so the parser's module says only that it hands a dataclass it
defines to an imported function (a fact of kind `built-fields`: token the function's local name,
key the class, attributes the argument positions and literal keywords). `gather` asks `resolve`
what that function makes of it: the import is followed statically, one hop
(bot/core/extract/imports.py); the function must loop over `dataclasses.fields()` of the class it
is handed, directly or through a helper of its module, and each field is run through that loop
(bot/core/extract/builder_run.py). The flags the loop reaches are the parser's, on the field's
line. A function re-exported through another module, one that is not such a loop, or a field the
loop is not understood for yields nothing: the parser keeps the flags read elsewhere, and a page
citing another flag is told so as before.
"""

from __future__ import annotations

import ast
import json
from collections.abc import MutableMapping
from typing import TYPE_CHECKING

from bot.core.blobcache import cached
from bot.core.extract import builder_values, parsed
from bot.core.extract.field_infos import MAX_FIELDS, fields_of, too_long
from bot.core.model import Extraction, Fact, ParseError, Tree

if TYPE_CHECKING:
    from bot.core.extract.builder_values import FieldInfo

MAX_BUILT = 200  # references resolved in one revision of one rule; the rest are not followed
MAX_TEXT = 2_000_000  # a builder's module larger than this is not read
_FORMAT = "built-6"  # cache key prefix: bump when a resolution changes shape or meaning


class Resolver:
    """Resolves references in one revision; each module's summary is cached by blob id, each
    resolution by the blob ids of the two modules."""

    def __init__(self, tree: Tree, cache: MutableMapping[str, object] | None):
        from bot.core.extract.imports import Modules

        self.tree = tree
        self.cache = cache
        self.modules = Modules(tree, cache)
        self.resolved = 0
        self.errors: list[ParseError] = []  # builders not read whole

    def flags(self, ref: Fact) -> list[Fact]:
        if self.resolved >= MAX_BUILT:
            return []
        self.resolved += 1
        summary = self.modules.summary(ref.path)
        if summary is None or ref.token not in summary.imports:
            return []
        found = self.modules._follow(ref.path, summary, ref.token)
        if not found or found[0][0] == ref.path:
            return []
        builder_path, name = found[0]
        if ref.attr("method"):
            return self._instance(ref, builder_path, name)
        blobs = (self.tree.blob_id(ref.path), self.tree.blob_id(builder_path))
        where = f"{ref.path}:{builder_path}:{name}:{ref.key}:{ref.attrs}:{ref.source}"
        key = f"{_FORMAT}:{blobs[0]}:{blobs[1]}:{where}"
        result = cached(
            self.cache, key if all(blobs) else None, Extraction, lambda: self._run(ref, builder_path, name)
        )
        if result is None:
            return []
        self.errors.extend(result.errors)
        return list(result.facts)

    def _instance(self, ref: Fact, builder_path: str, name: str) -> list[Fact]:
        """A builder class handed the dataclass, its method the parser (class_builders.py)."""
        from bot.core.extract import class_builders

        paths = class_builders.blobs(self.modules, ref, builder_path)
        if paths is None:
            return []
        blobs = [self.tree.blob_id(p) for p in paths]
        where = f"{':'.join(paths)}:{name}:{ref.key}:{ref.attrs}:{ref.source}"
        key = f"{_FORMAT}:{':'.join(b or '' for b in blobs)}:{where}"
        result = cached(
            self.cache,
            key if all(blobs) else None,
            Extraction,
            lambda: class_builders.run(self.modules, ref, builder_path, name),
        )
        if result is None:
            return []
        self.errors.extend(result.errors)
        return list(result.facts)

    def _run(self, ref: Fact, builder_path: str, name: str) -> Extraction:
        texts = (self.tree.read(ref.path), self.tree.read(builder_path))
        if texts[0] is None or texts[1] is None or len(texts[1]) > MAX_TEXT:
            return Extraction(facts=())
        try:
            owner, builder = parsed.module(texts[0], ref.path), parsed.module(texts[1], builder_path)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return Extraction(facts=())
        facts, read_whole = run(ref, owner, builder, name)
        if read_whole:
            return Extraction(facts=tuple(facts))
        # Said, not passed over: the fields after the budget ran out get no flag, and a page
        # citing one is not told it is missing (check/unreadable.py).
        stopped = ParseError(ref.path, ref.line, too_long(name, builder_path, ref.key))
        return Extraction(facts=tuple(facts), errors=(stopped,))


def run(ref: Fact, owner: ast.Module, builder: ast.Module, name: str) -> tuple[list[Fact], bool]:
    """The flags `name` of `builder` makes of the dataclass `ref` hands it from `owner`, and
    whether every field was run (False: the budget of steps ran out on the way)."""
    # Imported on use: a check whose facts are all cached never imports the extractors.
    from bot.core.extract import builder_run
    from bot.core.extract.builder_values import Context, DataclassRef, Parser

    fn = next(
        (n for n in builder.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name),
        None,
    )
    classes = {n.name: n for n in owner.body if isinstance(n, ast.ClassDef)}
    node = classes.get(ref.key)
    if fn is None or node is None:
        return [], True
    infos = _fields(owner, classes, ref.key)
    whole = len(infos) <= MAX_FIELDS
    infos = infos[:MAX_FIELDS]
    ctx = Context(builder, owner, infos, tuple(ast.unparse(b) for b in node.bases))
    count, cls_at = int(ref.attr("arguments") or 0), int(ref.attr("class-at") or 0)
    # The dataclass where the call passes it, the parser in every other position: only the
    # parser's `add_argument` calls are read, so a wrong guess about another argument declares
    # nothing.
    args: list[object] = [DataclassRef() if i == cls_at else Parser() for i in range(count)]
    keywords = json.loads(ref.attr("keywords") or "{}")
    env = builder_run.bind_builder(ctx, fn, args, keywords)
    loop = builder_run.prelude(ctx, fn, env) if env is not None else None
    if env is None or loop is None:
        return [], True
    out = builder_run.field_flags(ctx, loop, env, infos, ref.source, lambda _info: ref.path)
    return out, whole and ctx.spent <= builder_values.MAX_RUN_STEPS


def _fields(owner: ast.Module, classes: dict[str, ast.ClassDef], name: str) -> list[FieldInfo]:
    return fields_of(owner, classes, name)
