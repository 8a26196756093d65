"""Reading Mintlify's `docs.json` (and the older `mint.json`): navigation and redirects, each with
its file and line.

`json` validates the text; a small parser of its own then walks it again to learn the line of
every value, which `json` does not keep. A `{"$ref": "./nav.json"}` anywhere stands for that
file's content (relative to the file it is written in; sibling keys override an object's), as
Mintlify reads it; entries from it keep their own file and lines. Pure: the texts come from
`load`, `SiteConfig` goes out.
"""

from __future__ import annotations

import bisect
import json
import posixpath
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from bot.core.site.model import MAX_CONFIG_BYTES, NavEntry, Redirect, SiteConfig, SiteError
from bot.core.site.slugs import GITHUB, MINTLIFY, MINTLIFY_PLAIN

MAX_DEPTH = 100
MAX_REFS = 50  # `$ref` files read for one config (a cycle stops here too)
# Navigation strings that name no file: an OpenAPI operation (`GET /users`) or a full URL.
_OPERATION = re.compile(r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|WEBHOOK)\s", re.IGNORECASE)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass
class JValue:
    """A JSON value and the lines it spans."""

    kind: str  # object | array | string | number | bool | null
    line: int
    end_line: int
    file: str = ""  # the file it is written in
    text: str = ""  # strings: the decoded value
    flag: bool | None = None  # booleans
    items: list[JValue] = field(default_factory=list)  # arrays
    members: list[tuple[str, int, JValue]] = field(default_factory=list)  # objects: (key, key line, value)

    def get(self, key: str) -> JValue | None:
        for k, _, v in self.members:
            if k == key:
                return v
        return None


class _Parser:
    def __init__(self, text: str, file: str):
        self.s = text
        self.i = 0
        self.file = file
        self.newlines = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int) -> int:
        return bisect.bisect_left(self.newlines, pos) + 1

    def skip(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\r\n":
            self.i += 1

    def value(self, depth: int = 0) -> JValue:
        if depth > MAX_DEPTH:
            raise SiteError(self.line(self.i), f"nested deeper than {MAX_DEPTH} levels")
        self.skip()
        start = self.i
        c = self.s[start : start + 1]
        if c == "{":
            obj = JValue("object", self.line(start), 0, self.file)
            for _ in self.elements("}"):
                key_line = self.line(self.i)
                key = self.string()
                self.skip()
                self.i += 1  # ':'
                obj.members.append((key, key_line, self.value(depth + 1)))
            obj.end_line = self.line(self.i - 1)
            return obj
        if c == "[":
            arr = JValue("array", self.line(start), 0, self.file)
            for _ in self.elements("]"):
                arr.items.append(self.value(depth + 1))
            arr.end_line = self.line(self.i - 1)
            return arr
        line = self.line(start)
        if c == '"':
            return JValue("string", line, line, self.file, text=self.string())
        for word, kind, flag in (("true", "bool", True), ("false", "bool", False), ("null", "null", None)):
            if self.s.startswith(word, start):
                self.i += len(word)
                return JValue(kind, line, line, self.file, flag=flag)
        m = _NUMBER.match(self.s, start)
        if not m:
            raise SiteError(line, "unexpected text")
        self.i = m.end()
        return JValue("number", line, line, self.file)

    def elements(self, close: str) -> Iterator[None]:
        """Steps through an object's members or an array's items, from its opening bracket to past
        `close`: each step starts at one, which the caller reads. The text is valid JSON."""
        self.i += 1
        self.skip()
        while self.s[self.i] != close:
            yield
            self.skip()
            if self.s[self.i] == ",":
                self.i += 1
                self.skip()
        self.i += 1

    def string(self) -> str:
        start = self.i
        j = start + 1
        while self.s[j] != '"':
            j += 2 if self.s[j] == "\\" else 1
        self.i = j + 1
        decoded: str = json.loads(self.s[start : self.i])
        return decoded


def parse_json(text: str, file: str = "") -> JValue:
    """The value tree of a JSON text, or SiteError with the line json names."""
    if len(text) > MAX_CONFIG_BYTES:
        raise SiteError(0, f"larger than {MAX_CONFIG_BYTES} bytes")
    text = text.removeprefix("\ufeff")
    try:
        json.loads(text)
    except json.JSONDecodeError as e:
        raise SiteError(e.lineno, e.msg) from None
    except RecursionError:
        raise SiteError(0, "nested too deeply") from None
    try:
        return _Parser(text, file).value()
    except IndexError:  # json accepted it, so this is a form the walk does not know
        raise SiteError(0, "not read as JSON") from None


def read(
    text: str, path: str, root: str | None = None, load: Callable[[str], str | None] | None = None
) -> SiteConfig:
    """A `docs.json` or `mint.json` at repository path `path`; `root` defaults to its folder.
    `load` reads the files `$ref`s name (from the repository root); without it, a `$ref` is an
    error."""
    files = [path]
    top = _resolve(parse_json(text, path), load, files)
    if top.kind != "object":
        raise SiteError(top.line, "the config is not a JSON object")
    nav: list[NavEntry] = []
    navigation = top.get("navigation")
    if navigation is not None:
        _walk_nav(navigation, None, nav)
    redirects, redirects_at = _redirects(top)
    return SiteConfig(
        kind="mintlify",
        path=path,
        root=root if root is not None else path.rpartition("/")[0],
        nav=tuple(nav),
        redirects=redirects,
        redirects_at=redirects_at,
        can_redirect=True,
        generated_pages=_mentions(top, "openapi") or _mentions(top, "asyncapi"),
        slug_styles=(GITHUB, MINTLIFY, MINTLIFY_PLAIN),
        files=tuple(files),
    )


def _resolve(value: JValue, load: Callable[[str], str | None] | None, files: list[str]) -> JValue:
    """The value with every `$ref` replaced by the file it names."""
    if value.kind == "array":
        return replace(value, items=[_resolve(v, load, files) for v in value.items])
    if value.kind != "object":
        return value
    ref = value.get("$ref")
    if ref is None:
        return replace(value, members=[(k, n, _resolve(v, load, files)) for k, n, v in value.members])
    if ref.kind != "string":
        raise SiteError(ref.line, "$ref is not a file path")
    path = posixpath.normpath(posixpath.join(posixpath.dirname(value.file), ref.text))
    if len(files) >= MAX_REFS:
        raise SiteError(ref.line, f"more than {MAX_REFS} $ref files (a $ref cycle?)")
    text = load(path) if load is not None and not path.startswith("../") else None
    if text is None:
        raise SiteError(ref.line, f"$ref {ref.text} names no file ({path})")
    files.append(path)
    try:
        found = _resolve(parse_json(text, path), load, files)
    except SiteError as e:
        raise SiteError(ref.line, f"$ref {ref.text}: line {e.line}: {e.message}") from None
    if found.kind != "object":
        return found  # an array or a value: sibling keys are ignored
    siblings = [(k, n, _resolve(v, load, files)) for k, n, v in value.members if k != "$ref"]
    keys = {k for k, _, _ in siblings}
    return replace(found, members=[m for m in found.members if m[0] not in keys] + siblings)


def _walk_nav(value: JValue, key: str | None, out: list[NavEntry]) -> None:
    if value.kind == "object":
        for k, _, v in value.members:
            if k == "root" and v.kind == "string":
                _entry(v, out)
            elif k == "href" and v.kind == "string" and v.text.startswith("/"):
                _entry(v, out)  # an internal link the navigation shows
            else:
                _walk_nav(v, k, out)
    elif value.kind == "array":
        for item in value.items:
            if item.kind == "string" and key == "pages":
                _entry(item, out)
            else:
                _walk_nav(item, key, out)


def _entry(value: JValue, out: list[NavEntry]) -> None:
    target = value.text.strip()
    if not target or "://" in target or _OPERATION.match(target):
        return
    out.append(NavEntry(target, value.line, value.file))


def _redirects(top: JValue) -> tuple[tuple[Redirect, ...], tuple[str, int] | None]:
    found = [(line, v) for k, line, v in top.members if k == "redirects"]
    if not found:
        return (), None
    line, value = found[-1]
    if value.kind != "array":
        raise SiteError(value.line, "redirects is not a list", value.file)
    out = []
    for item in value.items:
        if item.kind != "object":
            raise SiteError(item.line, "a redirect is not an object", item.file)
        source, destination, permanent = item.get("source"), item.get("destination"), item.get("permanent")
        if source is None or destination is None or source.kind != "string" or destination.kind != "string":
            raise SiteError(item.line, "a redirect needs a string source and destination", item.file)
        out.append(
            Redirect(
                source=source.text,
                destination=destination.text,
                permanent=permanent.flag if permanent is not None and permanent.kind == "bool" else None,
                line=item.line,
                end_line=item.end_line,
                source_line=source.line,
                destination_line=destination.line,
                file=item.file,
            )
        )
    return tuple(out), (value.file, value.line)


def _mentions(value: JValue, key: str) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        for k, _, child in v.members:
            if k == key:
                return True
            stack.append(child)
        stack.extend(v.items)
    return False
