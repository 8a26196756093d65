"""The defaults a page claims for a flag or name: in a sentence ("defaults to `3`"), a plain
"default 1 GB" after a flag, or a table's default column."""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.core import lazyre
from bot.core.page_inline import (
    Inline,
    RawClaim,
    Span,
)

_C = "\x01(\\d+)\x02"
_CLAIM_PATTERNS = [
    lazyre.compile(_C + r"\s+by\s+default\b", re.IGNORECASE),
    lazyre.compile(_C + r"\s*\(\s*the\s+default\s*\)", re.IGNORECASE),
    # Not "by default": "the tunnel is off by default: `-H 0.0.0.0` exposes ..." goes on about
    # what the first clause said, it names no default.
    lazyre.compile(r"(?<!\bby\s)\bdefault\b\s*(?:(?:is|to|of|was)\s+|:\s*|,\s*)?" + _C, re.IGNORECASE),
    # "defaults" needs a connector: "X defaults `--y=z` here" is something setting a default
    # under a condition, not a statement of the flag's default.
    lazyre.compile(r"\bdefaults\b\s*(?:(?:to|are)\s+|:\s*)" + _C, re.IGNORECASE),
]
_CODE_LIST = rf"((?:{_C}\s*(?:/|,|and|or|&)\s*)*{_C})"
_BOTH = r"(?:(?:both|all)\s+)?"
_BOOL_PATTERNS = [
    lazyre.compile(_CODE_LIST + r"\s+" + _BOTH + r"defaults?\s+(?:to\s+)?(?P<word>off|on)\b", re.IGNORECASE),
    lazyre.compile(_CODE_LIST + r"\s+(?:is|are)\s+" + _BOTH + r"(?P<word>off|on)\s+by\s+default\b", re.I),
]
_SENTENCE_END = lazyre.compile(r"[.;?!]\s+")
_CHECKMARKS = {"✅", "✓", "✔", "☑", "yes"}
DEFAULT_HEADER = lazyre.compile(r"defaults?(?: value)?", re.IGNORECASE)


def _span_text(src: str, span: Span) -> tuple[str, int | None]:
    """The span as written (with backticks) when it sits on one line, else its content."""
    if span.start >= 0:
        raw = src[span.start : span.end]
        if "\n" not in raw:
            return raw, span.start
    return span.content, None


def _span_claim(src: str, scan: Inline, idx: int, subject_of: Callable[[int], str | None]) -> RawClaim | None:
    """A claim that code span `idx` is a default; `subject_of` finds the flag for a bare value."""
    span = scan.spans[idx]
    if span.refs and span.refs[0].kind == "key":
        return None  # `lr: 1e-5` says what to set, not what the default is
    if span.refs and (span.refs[0].kind == "flag" or span.refs[0].value is not None):
        ref = span.refs[0]
        if ref.value is None or ref.value_pos is None:
            return None  # `--flag` alone says which flag, not which value
        return RawClaim(ref.token, ref.value, ref.value_pos, ref.value)
    value = span.content.strip()
    # With no flag nearby the claim keeps subject None: the check ties it to the one flag whose
    # choices include the value, if there is exactly one.
    subject = subject_of(idx)
    if not value or subject == OTHER:
        return None
    text, pos = _span_text(src, span)
    return RawClaim(subject, value, pos if pos is not None else max(span.start, scan.lo), text)


# The subject of a claim the sentence names in a code span before the value, and no flag: a
# parameter, a setting or a field of the page's, not a flag offering the value.
OTHER = ""
_NAME_SPAN = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_NAMED = lazyre.compile(
    r"\s+(?:(?:parameter|option|setting|field|argument|variable|attribute|key)s?\b|defaults?\b)",
    re.IGNORECASE,
)

# A default written as plain text right after a flag: "(`--buffer-size`, default 1 GB)". Only
# numbers, with a size unit or not: plain words after "default" are prose more often than values.
_PLAIN_DEFAULT = lazyre.compile(
    _C + r"\s*[,(:]?\s*(?:the\s+)?defaults?\s*(?:is\s+|to\s+|of\s+|:\s*|=\s*)?"
    r"(?P<value>\d+(?:\.\d+)?(?:\s*[KMGT]i?B\b)?)(?![\w%/]|\.\w)",
    re.IGNORECASE,
)


def plain_claims(src: str, scan: Inline) -> list[RawClaim]:
    """Defaults written as plain numbers after the flag they belong to (paragraphs and cells)."""
    if "default" not in scan.prose.lower():
        return []
    out = []
    for m in _PLAIN_DEFAULT.finditer(scan.prose):
        flags = [r.token for r in scan.spans[int(m.group(1))].refs if r.kind == "flag"]
        pos = scan.src_pos(m.start("value"))
        if len(flags) == 1 and pos is not None:
            value = m.group("value")
            out.append(RawClaim(flags[0], value, pos, value))
    return out


# A default set off by emphasis after its label, as settings lists write it (uvicorn's
# "`--port <int>` - Bind to a socket with this port. **Default:** *8000*."). The emphasis marks
# the value; without it a word after "Default:" is as often prose.
_EMPHASIZED_DEFAULT = lazyre.compile(
    r"(?<![\w*_])(?:\*\*|__)?defaults?(?:\s+(?:value\s+)?(?:is|to))?\s*:?\s*(?:\*\*|__)?\s*:?[ \t]*"
    r"(?:\*(?P<star>[^*`\n]{1,80})\*(?!\*)|_(?P<under>[^_`\n]{1,80})_(?![\w_]))",
    re.IGNORECASE,
)
_QUOTED = lazyre.compile(r"'[^']*'|\"[^\"]*\"")


def emphasized_claims(src: str, scan: Inline) -> list[RawClaim]:
    """Defaults written in emphasis after a "Default" label, claimed for the flag of the last code
    span before them (the positive one of a `--x / --no-x` pair); a phrase in emphasis
    (*Current working directory*) is no value."""
    if "default" not in scan.prose.lower():
        return []
    out: list[RawClaim] = []
    # The scan's cursor stops before the closing markup of a last emphasis: read to the line's end.
    stop = src.find("\n", scan.end)
    for m in _EMPHASIZED_DEFAULT.finditer(src, scan.lo, len(src) if stop < 0 else stop):
        group = "star" if m.group("star") is not None else "under"
        value = m.group(group).strip()
        if not value or (any(c.isspace() for c in value) and not _QUOTED.fullmatch(value)):
            continue
        named = [s for s in scan.spans if 0 <= s.end <= m.start() and any(r.kind == "flag" for r in s.refs)]
        flags = [r.token for r in named[-1].refs if r.kind == "flag"] if named else []
        positive = [f for f in flags if not f.startswith("--no-")]
        if len(positive) == 1 and all(f in (positive[0], "--no-" + positive[0][2:]) for f in flags):
            at = m.start(group) + (len(m.group(group)) - len(m.group(group).lstrip()))
            out.append(RawClaim(positive[0], value, at, value))
    return out


# Words after "default `x`" that go on with the claim ("default `8000` for HTTP") rather than
# name what `x` is ("the default `websockets` protocol").
_GOES_ON = frozenset({"for", "if", "when", "unless", "and", "or", "on", "in", "with", "is", "was", "but"})


def _adjective(prose: str, m: re.Match[str], subject: str | None) -> bool:
    """Is "default" an adjective of the noun after the span ("`--ws-ping-interval` ... only with the
    default `websockets` protocol") rather than the flag's default? So when no word joins it to
    the span and a noun follows that is no word of the flag it would be claimed for."""
    written = m.group(0)
    if written.lower().startswith("default") and written[7 : written.index("\x01")].strip():
        return False  # "default is `x`", "default: `x`"
    noun = re.match(r"\s+([A-Za-z][\w-]*)", prose[m.end() :])
    if subject is None or noun is None or noun.group(1).lower() in _GOES_ON:
        return False  # with no flag, the check places a value by the choices that hold it
    if not written.lower().startswith("default"):
        return False
    words = set(re.split(r"[-_]+", subject.lower().lstrip("-")))
    return noun.group(1).lower() not in words


def _parenthesized(prose: str) -> set[int]:
    """The code spans of `prose` written inside parentheses."""
    out: set[int] = set()
    depth = 0
    for m in re.finditer(r"[()]|" + _C, prose):
        if m.group(0) == "(":
            depth += 1
        elif m.group(0) == ")":
            depth = max(depth - 1, 0)
        elif depth:
            out.add(int(m.group(1)))
    return out


# The head of a parameter list's item, a lowercase name and a colon before its description
# ("🔥load_args: ...", "**seed**: ..."), as pages listing a command line's parameters write them.
_ITEM_HEAD = lazyre.compile(r"[^\w\x01]{0,4}(?:\*\*|__)?(?P<name>[a-z][a-z0-9_]*)(?:\*\*|__)?\s*[:：]\s")


def paragraph_claims(src: str, scan: Inline, setting: str | None = None) -> list[RawClaim]:
    """`setting`: the setting whose description the paragraph is (`.. data:: NAME`), whose a
    default is when its sentence names no flag (a flag of an earlier sentence is not meant:
    "add the `-L` option to rsync. The default is `False`.")."""
    if "default" not in scan.prose.lower():
        return []
    flags_of = [[r.token for r in s.refs if r.kind == "flag"] for s in scan.spans]
    aside = _parenthesized(scan.prose)
    named = _ITEM_HEAD.match(scan.prose)
    head = named.group("name") if named else None
    bounds = [0] + [m.end() for m in _SENTENCE_END.finditer(scan.prose)] + [len(scan.prose)]
    out: list[RawClaim] = []
    for s_start, s_end in zip(bounds, bounds[1:], strict=False):
        # each code span of the sentence -> where the prose after it starts
        ends = {int(m.group(1)): s_start + m.end() for m in re.finditer(_C, scan.prose[s_start:s_end])}
        sentence_spans = list(ends)

        def subject_of(
            idx: int, sentence_spans: list[int] = sentence_spans, ends: dict[int, int] = ends
        ) -> str | None:
            before = [flags_of[j][-1] for j in sentence_spans if j < idx and flags_of[j]]
            if before:
                return before[-1]
            if any(
                _NAME_SPAN.fullmatch(scan.spans[j].content.strip()) and _NAMED.match(scan.prose, end)
                for j, end in ends.items()
                if j < idx
            ):
                return OTHER  # "the `seed` parameter defaults to `0`": that name's default, no flag's
            after = [flags_of[j][0] for j in sentence_spans if j > idx and flags_of[j]]
            if after:
                return after[0]
            if setting is not None:
                return setting
            # An earlier sentence's flag, unless named in an aside: "Whether code is highlighted
            # (only if `--color` is also enabled). Default: `yes`." is not `--color`'s default.
            earlier = [
                flags_of[j][-1]
                for j in range(idx)
                if flags_of[j] and j not in sentence_spans and j not in aside
            ]
            if head is not None:
                # A parameter list's item ("- load_args: When `--adapters` is given, ... Default
                # is `True`."): a later sentence tells of the item's parameter, not of a flag it
                # named on the way; of that parameter's own flag (`--load_args`).
                own = [f for j in range(idx) for f in flags_of[j] if f.lstrip("-") == head]
                return own[-1] if own else "--" + head
            return earlier[-1] if earlier else None

        seen: set[int] = set()
        for pattern in _CLAIM_PATTERNS:
            for m in pattern.finditer(scan.prose, s_start, s_end):
                idx = int(m.group(1))
                if idx in seen:
                    continue
                seen.add(idx)
                claim = _span_claim(src, scan, idx, subject_of)
                if claim and not _adjective(scan.prose, m, claim.subject):
                    out.append(claim)
        for pattern in _BOOL_PATTERNS:
            for m in pattern.finditer(scan.prose, s_start, s_end):
                word = m.group("word")
                pos = scan.src_pos(m.start("word"))
                if pos is None:
                    continue
                value = "True" if word.lower() == "on" else "False"
                for idx_text in re.findall(_C, m.group(1)):
                    for flag in flags_of[int(idx_text)]:
                        out.append(RawClaim(flag, value, pos, src[pos : pos + len(word)]))
    return out


def row_claims(src: str, cells: list[Inline], default_col: int | None, hi: int) -> list[RawClaim]:
    if not cells:
        return []
    first = cells[0]
    first_ref = first.refs[0] if first.refs else None
    out: list[RawClaim] = []
    if sum(r.kind == "flag" for r in first.refs) > 1:
        return out  # `--adam-beta1`, `--adam-beta2` | `0.9, 0.98`: values in pairs, no one default
    if default_col is not None and default_col < len(cells):
        cell = cells[default_col]
        plain = cell.plain().replace("\ufe0f", "").strip()
        if plain.lower() in _CHECKMARKS:
            if first_ref is not None and first_ref.kind == "flag":
                subject, value = first_ref.token, first_ref.value or "True"
            elif first_ref is not None:
                subject, value = None, first_ref.token
            else:
                subject, value = None, first.plain().strip()
            mark_pos = src.find(plain, cell.lo, hi)
            if value:
                out.append(RawClaim(subject, value, mark_pos if mark_pos >= 0 else cell.lo, plain))
            return out
        if plain.lower() in ("off", "on") and first_ref is not None and first_ref.kind == "flag":
            pos = src.find(plain, cell.lo, hi)
            value = "True" if plain.lower() == "on" else "False"
            out.append(RawClaim(first_ref.token, value, pos if pos >= 0 else cell.lo, plain))
            return out
        if cell.spans and cell.prose.startswith("\x010\x02"):
            subject = first_ref.token if first_ref and first_ref.kind in ("flag", "name") else None
            text, at = _span_text(src, cell.spans[0])
            value = cell.spans[0].content.strip()
            if value:
                out.append(RawClaim(subject, value, at if at is not None else cell.lo, text))
            return out
    if (
        first_ref is not None
        and first_ref.kind == "flag"
        and first_ref.value is not None
        and first_ref.value_pos is not None
        and any(re.match(r"default\b", c.plain().strip(), re.IGNORECASE) for c in cells[1:])
    ):
        out.append(RawClaim(first_ref.token, first_ref.value, first_ref.value_pos, first_ref.value))
    return out
