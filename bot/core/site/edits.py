"""Suggested edits to a site config, written in the file's own style.

Each edit replaces whole lines of one file (the config, or a file its `$ref`s name), and is
kept only when the config it leaves still reads and says what the edit meant to say: a
suggestion accepted on GitHub must never leave `docs.json` or `mkdocs.yml` broken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from bot.core.model import Suggestion
from bot.core.site.model import Redirect, SiteConfig, SiteError
from bot.core.site.pages import read_config


class Editor:
    """Edits of a site's config files, as they read at the revision checked (`load`)."""

    def __init__(self, config: SiteConfig, load: Callable[[str], str | None]):
        self.config = config
        self.load = load
        self._lines: dict[str, list[str]] = {}

    def lines(self, file: str) -> list[str]:
        if file not in self._lines:
            self._lines[file] = (self.load(file) or "").replace("\r\n", "\n").split("\n")
        return self._lines[file]

    def _line(self, file: str, n: int) -> str:
        lines = self.lines(file)
        return lines[n - 1] if 0 < n <= len(lines) else ""

    # -- checking --

    def checked(self, s: Suggestion, expect: Callable[[SiteConfig], bool]) -> Suggestion | None:
        """`s` when the config it leaves reads and satisfies `expect`, else None."""
        lines = self.lines(s.path)
        new = (
            lines[: s.start_line - 1]
            + (s.replacement.split("\n") if s.replacement else [])
            + lines[s.end_line :]
        )
        edited = "\n".join(new)

        def text_of(path: str) -> str | None:
            return edited if path == s.path else self.load(path)

        try:
            config = read_config(self.config.path, text_of(self.config.path) or "", self.config.root, text_of)
        except SiteError:
            return None
        return s if expect(config) else None

    # -- values --

    def replace_value(
        self, file: str, line: int, old: str, new: str, expect: Callable[[SiteConfig], bool]
    ) -> Suggestion | None:
        """`old`, a value written on `line` of `file`, becomes `new`."""
        text = self._line(file, line)
        if _is_json(file):
            written, wanted = _quoted(old), _quoted(new)
        else:
            written, wanted = old, _yaml_scalar(new, _quote_of(text, old))
            for q in ("'", '"'):
                if f"{q}{old}{q}" in text:
                    written = f"{q}{old}{q}"
        at = text.rfind(written)
        if at < 0:
            return None
        replaced = text[:at] + wanted + text[at + len(written) :]
        return self.checked(Suggestion(file, line, line, replaced), expect)

    def remove(
        self, file: str, start: int, end: int, expect: Callable[[SiteConfig], bool]
    ) -> Suggestion | None:
        """Lines `start..end` (one list item) go; in JSON, the comma before them when it is last."""
        if _is_json(file) and not self._line(file, end).rstrip().endswith(","):
            prev = start - 1
            while prev > 0 and not self._line(file, prev).strip():
                prev -= 1
            before = self._line(file, prev).rstrip()
            if before.endswith(","):
                return self.checked(Suggestion(file, prev, end, before[:-1]), expect)
        return self.checked(Suggestion(file, start, end, ""), expect)

    # -- redirects --

    def set_permanent(self, redirect: Redirect, value: bool | None) -> Suggestion | None:
        """The redirect's entry with `permanent` set to `value` (None: left out)."""

        def expect(c: SiteConfig) -> bool:
            return any(r.source == redirect.source and r.permanent is value for r in c.redirects)

        file = redirect.file
        span = range(redirect.line, redirect.end_line + 1)
        written = next((n for n in span if '"permanent"' in self._line(file, n)), None)
        if written is not None:
            if value is None:
                return self.remove(file, written, written, expect)
            text = self._line(file, written)
            flipped = re.sub(r"\b(true|false)\b", "true" if value else "false", text, count=1)
            return self.checked(Suggestion(file, written, written, flipped), expect)
        if value is None:
            return None
        member = f'"permanent": {"true" if value else "false"}'
        if redirect.line == redirect.end_line:  # the whole entry on one line
            text = self._line(file, redirect.line)
            at = text.rfind("}")
            spaced = " " if at > 0 and text[at - 1] == " " else ""
            fixed = text[:at].rstrip() + f", {member}{spaced}" + text[at:]
            return self.checked(Suggestion(file, redirect.line, redirect.line, fixed), expect)
        last = redirect.end_line - 1
        while last > redirect.line and not self._line(file, last).strip():
            last -= 1
        text = self._line(file, last).rstrip()
        return self.checked(Suggestion(file, last, last, f"{text},\n{_indent(text)}{member}"), expect)

    def add_redirects(self, entries: Sequence[tuple[str, str]], permanent: bool | None) -> Suggestion | None:
        """New redirects (source, destination), in the style of the file's existing ones."""
        if not entries:
            return None

        def expect(c: SiteConfig) -> bool:
            have = {(r.source, r.destination) for r in c.redirects}
            return all(e in have for e in entries)

        if self.config.kind == "mintlify":
            suggestion = self._add_json(entries, permanent)
        else:
            suggestion = self._add_yaml(entries)
        return self.checked(suggestion, expect) if suggestion is not None else None

    def _unit(self, file: str) -> str:
        """The file's indentation step."""
        for line in self.lines(file)[1:]:
            if line.strip():
                return _indent(line) or "  "
        return "  "

    def _add_json(self, entries: Sequence[tuple[str, str]], permanent: bool | None) -> Suggestion | None:
        existing = self.config.redirects
        at = self.config.redirects_at
        if existing:
            sample = existing[0]
            outer = _indent(self._line(sample.file, sample.line))
            inner = _indent(self._line(sample.file, sample.source_line))
            one_line = sample.line == sample.end_line
        else:
            base = _indent(self._line(*at)) if at else ""
            unit = self._unit(at[0] if at else self.config.path)
            outer, inner, one_line = base + unit, base + unit * 2, False
        blocks = []
        for source, destination in entries:
            members = [f'"source": {_quoted(source)}', f'"destination": {_quoted(destination)}']
            if permanent is not None:
                members.append(f'"permanent": {"true" if permanent else "false"}')
            if one_line:
                blocks.append(f"{outer}{{{', '.join(members)}}}")
            else:
                body = ",\n".join(inner + m for m in members)
                blocks.append(f"{outer}{{\n{body}\n{outer}}}")
        if at is not None:
            file, n = at
            text = self._line(file, n)
            if existing:  # after the line opening the list
                if not text.rstrip().endswith("["):
                    return None
                return Suggestion(file, n, n, text.rstrip() + "\n" + ",\n".join(blocks) + ",")
            empty = text.find("[]")  # "redirects": []
            if empty < 0:
                return None
            filled = text[:empty] + "[\n" + ",\n".join(blocks) + f"\n{_indent(text)}]" + text[empty + 2 :]
            return Suggestion(file, n, n, filled)
        # No redirects yet: a new last member of the top-level object.
        file = self.config.path
        close = len(self.lines(file))
        while close > 1 and not self._line(file, close).strip():
            close -= 1
        if self._line(file, close).strip() != "}":
            return None
        last = close - 1
        while last > 1 and not self._line(file, last).strip():
            last -= 1
        unit = self._unit(file)
        block = f'{unit}"redirects": [\n' + ",\n".join(blocks) + f"\n{unit}]"
        return Suggestion(
            file, last, close, f"{self._line(file, last).rstrip()},\n{block}\n{self._line(file, close)}"
        )

    def _add_yaml(self, entries: Sequence[tuple[str, str]]) -> Suggestion | None:
        existing = self.config.redirects
        if existing:
            first = existing[0]
            sample = self._line(first.file, first.source_line)
            quote = sample.strip()[:1] if sample.strip()[:1] in ("'", '"') else ""
            new = [f"{_indent(sample)}{_yaml_scalar(s, quote)}: {_yaml_scalar(d, quote)}" for s, d in entries]
            last = max(r.end_line for r in existing)
            return Suggestion(first.file, last, last, "\n".join([self._line(first.file, last), *new]))
        if self.config.redirects_at is None:
            return None
        file, n = self.config.redirects_at
        text = self._line(file, n)
        indent = _indent(text) + "  "
        new = [f"{indent}{_yaml_scalar(s, '')}: {_yaml_scalar(d, '')}" for s, d in entries]
        return Suggestion(file, n, n, "\n".join([f"{text.split(':', 1)[0]}:", *new]))


def _is_json(file: str) -> bool:
    return file.endswith(".json")


def _quoted(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _indent(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def _quote_of(line: str, value: str) -> str:
    for q in ("'", '"'):
        if f"{q}{value}{q}" in line:
            return q
    return ""


def _yaml_scalar(value: str, quote: str) -> str:
    """`value` as a YAML scalar, quoted as the file quotes, or when it needs quotes."""
    if quote == "'":
        return "'" + value.replace("'", "''") + "'"
    if quote == '"' or not re.fullmatch(r"[A-Za-z0-9_./][A-Za-z0-9_./#-]*", value):
        return json.dumps(value, ensure_ascii=False)
    return value
