"""Suggested edits to a site config, written in the file's own style.

Each edit replaces whole lines (a suggestion), and is kept only when the file it leaves still
reads as a site config saying what the edit meant to say: a suggestion accepted on GitHub must
never leave `docs.json` or `mkdocs.yml` broken.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence

from bot.core.model import Suggestion
from bot.core.site.model import Redirect, SiteConfig, SiteError
from bot.core.site.pages import read_config


class Editor:
    """Edits of one config file (`lines` as it reads at the revision checked)."""

    def __init__(self, config: SiteConfig, text: str):
        self.config = config
        self.lines = text.replace("\r\n", "\n").split("\n")
        self.json = config.kind == "mintlify"

    # -- checking --

    def checked(self, s: Suggestion, expect: Callable[[SiteConfig], bool]) -> Suggestion | None:
        """`s` when the file it leaves reads and satisfies `expect`, else None."""
        new = self.lines[: s.start_line - 1] + s.replacement.split("\n") + self.lines[s.end_line :]
        if not s.replacement:
            new = self.lines[: s.start_line - 1] + self.lines[s.end_line :]
        try:
            config = read_config(self.config.path, "\n".join(new), self.config.root)
        except SiteError:
            return None
        return s if expect(config) else None

    def _line(self, n: int) -> str:
        return self.lines[n - 1] if 0 < n <= len(self.lines) else ""

    def _suggest(self, start: int, end: int, replacement: str) -> Suggestion:
        return Suggestion(self.config.path, start, end, replacement)

    # -- values --

    def _quoted(self, value: str) -> str:
        return json.dumps(value, ensure_ascii=False)

    def replace_value(
        self, line: int, old: str, new: str, expect: Callable[[SiteConfig], bool]
    ) -> Suggestion | None:
        """`old`, a value written on `line`, becomes `new`."""
        text = self._line(line)
        if self.json:
            written, wanted = self._quoted(old), self._quoted(new)
        else:
            written, wanted = old, _yaml_scalar(new, _quote_of(text, old))
            for q in ("'", '"'):
                if f"{q}{old}{q}" in text:
                    written = f"{q}{old}{q}"
        at = text.rfind(written)
        if at < 0:
            return None
        replaced = text[:at] + wanted + text[at + len(written) :]
        return self.checked(self._suggest(line, line, replaced), expect)

    def remove(self, start: int, end: int, expect: Callable[[SiteConfig], bool]) -> Suggestion | None:
        """Lines `start..end` (one list item) go; in JSON, the comma before them when it is last."""
        if self.json and not self._line(end).rstrip().endswith(","):
            prev = start - 1
            while prev > 0 and not self._line(prev).strip():
                prev -= 1
            before = self._line(prev).rstrip()
            if before.endswith(","):
                return self.checked(self._suggest(prev, end, before[:-1]), expect)
        return self.checked(self._suggest(start, end, ""), expect)

    # -- redirects --

    def set_permanent(self, redirect: Redirect, value: bool | None) -> Suggestion | None:
        """The redirect's entry with `permanent` set to `value` (None: left out)."""

        def expect(c: SiteConfig) -> bool:
            return any(r.source == redirect.source and r.permanent is value for r in c.redirects)

        span = range(redirect.line, redirect.end_line + 1)
        written = next((n for n in span if '"permanent"' in self._line(n)), None)
        if written is not None:
            if value is None:
                return self.remove(written, written, expect)
            text = self._line(written)
            flipped = re.sub(r"\b(true|false)\b", "true" if value else "false", text, count=1)
            return self.checked(self._suggest(written, written, flipped), expect)
        if value is None:
            return None
        member = f'"permanent": {"true" if value else "false"}'
        if redirect.line == redirect.end_line:  # the whole entry on one line
            text = self._line(redirect.line)
            at = text.rfind("}")
            spaced = " " if at > 0 and text[at - 1] == " " else ""
            fixed = text[:at].rstrip() + f", {member}{spaced}" + text[at:]
            return self.checked(self._suggest(redirect.line, redirect.line, fixed), expect)
        last = redirect.end_line - 1
        while last > redirect.line and not self._line(last).strip():
            last -= 1
        text = self._line(last).rstrip()
        indent = _indent(text)
        return self.checked(self._suggest(last, last, f"{text},\n{indent}{member}"), expect)

    def add_redirects(self, entries: Sequence[tuple[str, str]], permanent: bool | None) -> Suggestion | None:
        """New redirects (source, destination), in the style of the file's existing ones."""
        if not entries:
            return None

        def expect(c: SiteConfig) -> bool:
            have = {(r.source, r.destination) for r in c.redirects}
            return all(e in have for e in entries)

        suggestion = self._add_json(entries, permanent) if self.json else self._add_yaml(entries)
        return self.checked(suggestion, expect) if suggestion is not None else None

    def _unit(self) -> str:
        """The file's indentation step."""
        for line in self.lines[1:]:
            if line.strip():
                return _indent(line) or "  "
        return "  "

    def _add_json(self, entries: Sequence[tuple[str, str]], permanent: bool | None) -> Suggestion | None:
        q = self._quoted
        existing = self.config.redirects
        if existing:
            sample = existing[0]
            outer = _indent(self._line(sample.line))
            inner = _indent(self._line(sample.source_line))
            one_line = sample.line == sample.end_line
        else:
            opening = self._line(self.config.redirects_line or 1)
            base = _indent(opening) if self.config.redirects_line else ""
            outer, inner, one_line = base + self._unit(), base + self._unit() * 2, False
        blocks = []
        for source, destination in entries:
            members = [f'"source": {q(source)}', f'"destination": {q(destination)}']
            if permanent is not None:
                members.append(f'"permanent": {"true" if permanent else "false"}')
            if one_line:
                blocks.append(f"{outer}{{{', '.join(members)}}}")
            else:
                body = ",\n".join(inner + m for m in members)
                blocks.append(f"{outer}{{\n{body}\n{outer}}}")
        if existing and self.config.redirects_line is not None:
            opening_line = self.config.redirects_line
            opening = self._line(opening_line).rstrip()
            if not opening.endswith("["):
                return None
            return self._suggest(opening_line, opening_line, opening + "\n" + ",\n".join(blocks) + ",")
        if self.config.redirects_line is not None:  # "redirects": []
            n = self.config.redirects_line
            text = self._line(n)
            at = text.find("[]")
            if at < 0:
                return None
            base = _indent(text)
            filled = text[:at] + "[\n" + ",\n".join(blocks) + f"\n{base}]" + text[at + 2 :]
            return self._suggest(n, n, filled)
        # No redirects yet: a new last member of the top-level object.
        close = len(self.lines)
        while close > 1 and not self._line(close).strip():
            close -= 1
        if self._line(close).strip() != "}":
            return None
        last = close - 1
        while last > 1 and not self._line(last).strip():
            last -= 1
        unit = self._unit()
        block = f'{unit}"redirects": [\n' + ",\n".join(blocks) + f"\n{unit}]"
        return self._suggest(last, close, f"{self._line(last).rstrip()},\n{block}\n{self._line(close)}")

    def _add_yaml(self, entries: Sequence[tuple[str, str]]) -> Suggestion | None:
        existing = self.config.redirects
        if existing:
            sample = self._line(existing[0].source_line)
            indent = _indent(sample)
            quote = sample.strip()[:1] if sample.strip()[:1] in ("'", '"') else ""
            new = [f"{indent}{_yaml_scalar(s, quote)}: {_yaml_scalar(d, quote)}" for s, d in entries]
            last = max(r.end_line for r in existing)
            return self._suggest(last, last, "\n".join([self._line(last), *new]))
        n = self.config.redirects_line
        if n is None:
            return None
        text = self._line(n)
        indent = _indent(text) + "  "
        head = text.split(":", 1)[0]
        new = [f"{indent}{_yaml_scalar(s, '')}: {_yaml_scalar(d, '')}" for s, d in entries]
        return self._suggest(n, n, "\n".join([f"{head}:", *new]))


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
