"""How the check reads and rewrites doc lines: tokens in a line, table rows, paragraphs,
the names a page ties to flags, and default values as a page writes them."""

from __future__ import annotations

import ast
import html
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence

from bot.core import lazyre
from bot.core.page import DocPage, Ref, Section


def token_pattern(token: str) -> re.Pattern[str]:
    # A token inside a line, not as part of a longer flag or identifier.
    return re.compile(r"(?<![\w-])" + re.escape(token) + r"(?![\w-]|\.\w)")


def replace_token(line: str, old: str, new: str) -> str:
    return token_pattern(old).sub(new.replace("\\", "\\\\"), line)


def in_scope(ref_section: str, prefixes: Sequence[str]) -> bool:
    if not prefixes:
        return True
    return any(ref_section == p or ref_section.startswith(p + " > ") for p in prefixes)


def normalize_default(value: str | None) -> str | None:
    if value is None:
        return None
    v = value.strip().strip("`").strip()
    lowered = v.lower()
    if lowered in ("true", "on", "enabled", "yes"):
        return "True"
    if lowered in ("false", "off", "disabled", "no"):
        return "False"
    if lowered in ("none", "null", "unset"):
        return "None"
    if len(v) >= 2 and v[0] == v[-1] and v[0] in "'\"":
        v = v[1:-1]
    if len(v) >= 2 and v[0] + v[-1] in ("[]", "()"):
        # A list as code writes it (`['a', 'b']`) and as a doc does (`[a, b]`).
        items = [i.strip().strip("'\"") for i in v[1:-1].split(",") if i.strip()]
        return "[" + ", ".join(normalize_default(i) or "" for i in items) + "]"
    try:
        number = float(v)
    except ValueError:
        return v
    return repr(int(number)) if number.is_integer() and "e" not in lowered else repr(number)


# A value a doc writes after a flag that stands for any value: `VALUE`, `VOICE_FORMAT`, `N`.
_METAVAR_RE = re.compile(r"[A-Z][A-Z0-9_]*(?:-[A-Z0-9_]+)*")
_SET_RE = re.compile(r"\{(.*)\}|\[(.*)\]|\((.*)\)")


def cited_values(value: str | None, choices: Sequence[str] = ()) -> list[str]:
    """The values a doc line gives a flag: one (`--x fp16`), a set (`--x {no,fp16,bf16}`) or
    alternatives (`--x fp16|bf16`, or `--x fp16/bf16` when one is a choice: a path is no such
    list). A placeholder (`--timeout VALUE`, `--x <path>`), unless it is one of the flag's
    `choices`, gives none: it says how to pass a value, not which."""
    if value is None:
        return []
    # An MDX page writes a brace as a character reference (`&#123;0|1&#125;`), and a shell line
    # goes on after a backslash (`--backend mooncake\`): neither is part of the value.
    text = html.unescape(value.strip().strip("`")).removesuffix("\\").strip()
    # A quote escaped in a code span, where Markdown keeps the backslash (`--x=\"bf16\"`), is
    # the writer's quote: the value is the word inside.
    text = text.replace('\\"', '"').replace("\\'", "'")
    if text in choices:
        return [text]
    braces = _SET_RE.fullmatch(text)
    if braces:
        inner = next(g for g in braces.groups() if g is not None)
        if not re.search(r"[,|]", inner):
            # `{dtype_1}`, `[N]`: one word in brackets stands for a value, unless it is a choice.
            return [inner.strip()] if inner.strip() in choices else []
        parts = re.split(r"[,|]", inner)
    elif "|" in text:
        parts = text.split("|")
    elif "/" in text and any(p in choices for p in text.split("/")):
        parts = text.split("/")  # `--task train/eval/data`: each of them, as prose writes "or"
    else:
        parts = [text]
    out = []
    for part in parts:
        word = part.strip().strip("'\"")
        if not word or word in ("...", "…"):
            continue
        if word not in choices and (_METAVAR_RE.fullmatch(word) or "<" in word or "{" in word):
            return []  # `{a,B}` with a placeholder in it is no list of values
        out.append(word)
    return out


# Sizes a doc writes with a unit; both powers are accepted, docs use them loosely.
_SIZE_UNITS = {
    "k": 1,
    "kb": 1,
    "kib": 1,
    "m": 2,
    "mb": 2,
    "mib": 2,
    "g": 3,
    "gb": 3,
    "gib": 3,
    "t": 4,
    "tb": 4,
    "tib": 4,
}
_SIZE_RE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]i?B?)", re.IGNORECASE)


def _sizes(value: str) -> set[float] | None:
    """The byte counts "1 GB" can mean (10**9 and 2**30); None when it is not a size."""
    m = _SIZE_RE.fullmatch(value.strip().strip("`").strip())
    if m is None:
        return None
    number, power = float(m.group(1)), _SIZE_UNITS[m.group(2).lower()]
    return {number * 1000**power, number * 1024**power}


def as_path(value: str) -> str:
    """A default written as a path, without what does not change the place it names: quotes, a
    leading `./`, a trailing `/`."""
    v = value.strip().strip("`").strip().strip("'\"")
    while v.startswith("./"):
        v = v[2:]
    return v.rstrip("/") if len(v) > 1 else v


def same_default(claimed: str, actual: str | None) -> bool:
    """Does the doc's default (`1 GB`, `on`, `"fp16"`) say what the code's (`1073741824`) does?"""
    if normalize_default(claimed) == normalize_default(actual):
        return True
    if actual and _same_literal(claimed, actual):
        return True
    if actual and "/" in claimed + actual and as_path(claimed) == as_path(actual):
        return True  # `./prod_env/` for `prod_env`: one folder, written from here and as a folder
    if (
        actual
        and "." in actual
        and "." not in claimed.strip("`")
        and actual.rsplit(".", 1)[1] == claimed.strip("`")
    ):
        return True  # `drop_retries` for `pkg.hub.drop_retries`: an import path by its last name
    sizes = _sizes(claimed)
    number = normalize_default(actual)
    if sizes is None or number is None:
        return False
    try:
        return float(number) in sizes
    except ValueError:
        return False


def _same_literal(claimed: str, actual: str) -> bool:
    """Is the doc's default a Python literal of the code's value, written another way: a raw
    string (`r'...'` for the pattern itself), a dict in other quotes or order
    (`{"index": None}` for `{'index': None}`)? Collections are compared as values, a string to
    the code's text."""
    text = claimed.strip().strip("`").strip()
    if len(text) > _MAX_LITERAL or text[:1] not in "{[(\"'rRuU" or len(actual) > _MAX_LITERAL:
        return False
    said = _literal(text)
    if isinstance(said, str):
        return text[-1:] in "'\"" and said == actual
    if isinstance(said, dict | list | tuple | set):
        return said == _literal(actual)
    return False


_MAX_LITERAL = 2000  # longer text is no default a page writes inline


def _literal(text: str) -> object:
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def in_unit_of(claimed: str, actual: str) -> str:
    """`actual` written the way the doc writes sizes (`512 MB` for 2**29 when the doc says
    `1 GB`): the doc's unit, or a smaller one of the same style, whichever gives a whole
    number; `actual` as it is when the doc wrote no unit."""
    m = _SIZE_RE.fullmatch(claimed.strip().strip("`").strip())
    number = normalize_default(actual)
    if m is None or number is None:
        return actual
    try:
        value = float(number)
    except ValueError:
        return actual
    unit, space = m.group(2), (" " if " " in claimed.strip() else "")
    for power in range(_SIZE_UNITS[unit.lower()], 0, -1):
        for base in (1024, 1000):
            scaled = value / base**power
            if scaled.is_integer() and scaled > 0:
                letter = "KMGT"[power - 1]
                return f"{int(scaled)}{space}{letter if unit[0].isupper() else letter.lower()}{unit[1:]}"
    return actual


def flag_aliases(doc: DocPage) -> dict[str, str]:
    """Names the page itself ties to a flag: a table row whose cells hold one name and one flag,
    each alone in its cell.

    The mesh table's row "| `dp_replicate` | `--dp-replicate-size` |" makes a later claim about
    `dp_replicate=1` a claim about `--dp-replicate-size`; "| `SKIP_VALIDATION` | `0` | Set to `1`
    to skip `--check` |" ties nothing (the flag is in a sentence about the variable).
    """
    rows: dict[int, list[Ref]] = defaultdict(list)
    for ref in doc.refs:
        if ref.where == "table":
            rows[ref.line].append(ref)
    out: dict[str, str] = {}
    for line, refs in rows.items():
        alone = {c.strip().strip("`").strip() for c in doc.lines[line - 1].strip().strip("|").split("|")}
        flags = {r.token for r in refs if r.kind == "flag"}
        if len(flags) == 1 and next(iter(flags)) in alone:
            flag = flags.pop()
            for r in refs:
                if r.kind == "name" and r.token in alone:
                    out.setdefault(r.token, flag)
    return out


def enumerating_line(refs: Sequence[Ref]) -> int:
    """Where the doc lists a set: the table column (or else the line) citing most members.

    A table answers with its last row, where a new row would go.
    """
    groups: dict[tuple[object, ...], list[Ref]] = defaultdict(list)
    for r in refs:
        key = ("table", r.section.path, r.column) if r.where == "table" else ("line", r.line)
        groups[key].append(r)

    def score(item: tuple[tuple[object, ...], list[Ref]]) -> tuple[int, bool, int, int]:
        key, members = item
        rows = len({r.line for r in members})  # a column listing one member per row is a list
        return (-len({r.token for r in members}), key[0] != "table", -rows, min(r.line for r in members))

    _key, best = min(groups.items(), key=score)
    return max(r.line for r in best)


# A heading over commands kept from an older version: "Old examples", "Legacy", "Deprecated
# options", "The old way", "Training (legacy)": the word says what the section is, opening it
# or in parentheses at its end; and "Migrating from the legacy CLI", which cites the flags it
# leaves. Elsewhere in a heading it names a thing the section is about, used today ("Accessing
# the Legacy Frontend": a flag that loads it). And the note a section opens with to say so: the
# commands below "are preserved here for historical reference", "use the older form of the
# script available at <a pinned commit>".
_HISTORY_WORD = r"(?:old|older|legacy|historical|archived|deprecated)\b"
# ... of which "deprecated" says the code still takes what the section lists: a change that
# takes it out ends the deprecation, and the list is stale (isort's "Deprecated Flags" entry kept
# `--keep-direct-and-as` after the flag went).
_STILL_TAKEN = lazyre.compile(
    r"^[^\w(]*(?:\d+(?:\.\d+)*[.)]?\s+)?\(?deprecated\b|\(deprecated\)\W*$", re.IGNORECASE
)
# A guide from an older release to a newer one says what to leave behind: "Upgrading to 5.0.0",
# "Migrating CLI options", "Migration guide", "Upgrade notes" (isort's upgrade guide cites the
# 4.x flags 5.0 dropped). Opening the heading only: "Database migrations" is a task of today.
_MOVING_ON = r"(?:migrating\b|(?:migration|upgrade) (?:guide|notes|from|to)\b|upgrading (?:to|from)\b)"
_HISTORY_TITLE = lazyre.compile(
    rf"^[^\w(]*(?:\d+(?:\.\d+)*[.)]?\s+)?\(?(?:the |an? )?(?:{_HISTORY_WORD}|{_MOVING_ON})"
    rf"|\({_HISTORY_WORD}[^()]*\)\W*$|\bfrom (?:the |an? )?{_HISTORY_WORD}",
    re.IGNORECASE,
)
_HISTORY_NOTE = lazyre.compile(
    r"\bfor historical reference\b|\bpreserved (?:here )?for (?:history|reference)\b"
    r"|\b(?:the|an) older (?:form|version) of the (?:script|code|command)\b",
    re.IGNORECASE,
)
MAX_NOTE_LINES = 40  # lines after a heading read for a note that what follows is history


def kept_for_history(doc: DocPage, line: int, *, gone_now: bool = False) -> bool:
    """Is `line` in a part of the page that keeps commands of an older version on purpose: under
    a heading saying so, or after a note saying so at the start of its section or of a section
    above it? What the code lacks there is what the page says it lacks. `gone_now`: the change
    takes the cited fact out of the code, which a section of deprecated things is not kept from."""
    chain: list[Section] = []  # the sections holding `line`, outermost first
    for section in doc.sections:
        if section.line > line:
            break
        while chain and section.level and chain[-1].level >= section.level:
            chain.pop()
        chain.append(section)
    for section in chain:
        history = section.level and _HISTORY_TITLE.search(section.title)
        ended = gone_now and _STILL_TAKEN.search(section.title)  # the deprecation is over
        if history and not ended and not _names_its_option(doc, section):
            return True
        # Its own text before its first subsection (or the line), not a sibling's.
        last = min(line - 1, section.end_line, section.line + MAX_NOTE_LINES)
        opening = " ".join(doc.lines[section.line - 1 : last])
        if _HISTORY_NOTE.search(opening):
            return True
    return False


def _names_its_option(doc: DocPage, section: Section) -> bool:
    """Is the heading the name of an option its section documents: "Old Finders" over
    `--old-finders` (`old_finders`), a reference page's entry for a setting of today whose
    name starts with "old" or "legacy"? Two words at least: "Legacy" over `--legacy` may be
    either."""
    words = re.findall(r"[A-Za-z0-9]+", section.title.lower())
    if len(words) < 2:
        return False
    name = re.compile(rf"(?<![\w-])(?:--)?{'[-_]'.join(words)}(?![\w-])", re.IGNORECASE)
    body = doc.lines[section.line : section.end_line]
    return any(name.search(text) for text in body)


MAX_FENCED_LINES = 20_000  # lines of a page read for the commands of its fenced blocks


def fenced_lines(doc: DocPage) -> Iterator[tuple[int, str]]:
    """Each line inside the page's fenced blocks (``` or ~~~, in a quote too), stripped, with its
    number, up to MAX_FENCED_LINES."""
    fence: str | None = None
    for number, text in enumerate(doc.lines[:MAX_FENCED_LINES], 1):
        stripped = text.strip().removeprefix("> ").strip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (marker if fence is None else fence)
        elif fence is not None:
            yield number, stripped


_FENCES = ("```", "~~~")


def introduced_block(doc: DocPage, line: int) -> tuple[int, int] | None:
    """The fenced block a paragraph ending with `:` introduces, when it follows that paragraph
    (`... the LaTeX source at `data/paper.tex` (download it first):`): its first and last lines."""
    _, last = paragraph(doc, line)
    # A fence right under the paragraph's last line, with no blank line between, ends it there.
    last = next(
        (n - 1 for n in range(line + 1, last + 1) if doc.lines[n - 1].strip().startswith(_FENCES)), last
    )
    if not doc.lines[last - 1].rstrip().endswith(":"):
        return None
    start = last + 1
    while start <= len(doc.lines) and not doc.lines[start - 1].strip():
        start += 1
    opening = doc.lines[start - 1].strip() if start <= len(doc.lines) else ""
    if not opening.startswith(_FENCES):
        return None
    end = start + 1
    while end <= len(doc.lines) and not doc.lines[end - 1].strip().startswith(opening[:3]):
        end += 1
    return start + 1, end - 1


def paragraph(doc: DocPage, line: int) -> tuple[int, int]:
    """The lines of the paragraph (or list item run) holding `line`: up to the blank lines around it."""
    first = last = line
    while first > 1 and doc.lines[first - 2].strip():
        first -= 1
    while last < len(doc.lines) and doc.lines[last].strip():
        last += 1
    return first, last


def sentences_at(doc: DocPage, line: int) -> tuple[int, int]:
    """The lines of the sentences around `line`: its paragraph, or the line alone in a long block
    (a code listing, a table), which is no sentence."""
    first, last = paragraph(doc, line)
    return (line, line) if last - first > 12 else (first, last)


def _before_each(doc: DocPage, line: int, token: str, above: int) -> Iterator[str]:
    """The text before each citation of `token` on `line`, after up to `above` lines of its
    paragraph above it (a sentence may start there: "you would create a file\n``x/1.rst``")."""
    if not 0 < line <= len(doc.lines):
        return
    text = doc.lines[line - 1]
    first, _ = paragraph(doc, line)
    lead = " ".join(doc.lines[i - 1].strip() for i in range(max(first, line - above), line))
    at = text.find(token)
    while at >= 0:
        yield lead + " " + text[:at].lstrip()
        at = text.find(token, at + 1)


# What a sentence says of a thing it names that the code does not have yet: planned, left out,
# to come. Such a sentence is right about the code, so its token is no stale citation.
_NOT_YET = lazyre.compile(
    r"\bnot[- ]yet\b|\bnot (?:a )?part of\b|\bnot (?:included|implemented|available) (?:yet|in)\b"
    r"|\b(?:will|would) be (?:added|introduced|implemented)\b|\bcoming soon\b|\b(?:in|with) a future\b"
    r"|\bplanned\b|\bupcoming\b",
    re.IGNORECASE,
)
_SENTENCE_END = lazyre.compile(r"(?<=[.!?])\s+(?=[A-Z`*\[])")


def not_yet_there(doc: DocPage, line: int, token: str) -> bool:
    """Whether the sentence citing `token` on `line` says the code does not have it yet (`the
    registry under `src/x/tools/` is not part of this release`), or the line is an open task."""
    if _OPEN_TASK.match(doc.lines[line - 1] if 0 < line <= len(doc.lines) else ""):
        return True  # `- [ ] Add opt-in data collection, like `--contribute`: a task not done yet
    first, last = paragraph(doc, line)
    if last - first > 12:  # a long block (a code listing, a table) is no sentence
        first, last = line, line
    text = " ".join(doc.lines[i - 1].strip() for i in range(first, last + 1))
    return any(token in s and _NOT_YET.search(s) for s in _SENTENCE_END.split(text))


# An open item of a task list (GitHub's `- [ ]`): what it names is to be done.
_OPEN_TASK = lazyre.compile(r"\s*(?:[-*+]|\d+[.)])\s+\[ \]\s")


# A sentence telling that a thing it names before these words is gone: "The `--swap-space` flag
# has been removed", "`--rope-scaling`, used in older versions, is no longer supported".
_NO_LONGER = lazyre.compile(
    # with an adverb between: "both arguments were finally removed in 2.0.0"
    r"\b(?:has|have|had) been (?:\w+ly )?(?:removed|deprecated|dropped|retired)\b"
    r"|\b(?:was|were) (?:\w+ly )?(?:removed|deprecated|dropped|retired)\b"
    r"|\bno longer (?:supported|used|available|exists?|accepted|needed)\b"
    r"|\bin (?:older|previous|earlier|past) versions\b",
    re.IGNORECASE,
)


# Words before a thing a sentence says the code had once: "previously every column was TEXT
# unless you passed `--detect-types`", "the old `-d/--detect-types` flag". A "now" or "instead"
# between them turns to what the reader should do today.
_ONCE = lazyre.compile(r"\b(?:previously|formerly|used to|in the past)\b", re.IGNORECASE)
_TODAY = lazyre.compile(r"\b(?:now|instead|today|currently)\b|;", re.IGNORECASE)
_OLD_ONE = lazyre.compile(r"\b(?:old|former|legacy|obsolete)\s+[`*_:]*(?:-[\w-]+/)?[`*_:]*$", re.IGNORECASE)
# A list item (`- x`, `* x`, `1. x`, `#. x`): one of the things the paragraph before the list names.
_ITEM = lazyre.compile(r"\s*(?:[-*+]|\d+[.)]|#\.)\s")


def no_longer_there(doc: DocPage, line: int, token: str) -> bool:
    """Whether the sentence citing `token` on `line` says that the code no longer has it: after
    it (`The `--swap-space` flag has been removed`), or before it (`previously ... unless you
    passed `--detect-types``, `the old `--detect-types` flag`), or the line is an item of a list
    the paragraph above introduces so (`Two things have been removed:`): history, true as written."""
    first, last = sentences_at(doc, line)
    text = " ".join(doc.lines[i - 1].strip() for i in range(first, last + 1))
    for sentence in _SENTENCE_END.split(text):
        at = sentence.find(token)
        while at >= 0:
            if _NO_LONGER.search(sentence, at + len(token)):
                return True
            before = sentence[:at]
            once = [m.end() for m in _ONCE.finditer(before)]
            if (once and not _TODAY.search(before, once[-1])) or _OLD_ONE.search(before[-60:]):
                return True
            at = sentence.find(token, at + 1)
    return _listed_as_gone(doc, line)


def _listed_as_gone(doc: DocPage, line: int) -> bool:
    """Is `line` in an item of a list whose lead-in, the paragraph just above the list, ends in a
    colon and says what follows is gone ("The following flags were removed:")?"""
    if not 0 < line <= len(doc.lines):
        return False
    at = line
    while at > 1 and not _ITEM.match(doc.lines[at - 1]):
        if not doc.lines[at - 1].strip() or at < line - 12:
            return False  # a paragraph of its own, or no item within reach
        at -= 1  # the item's own wrapped lines
    while at > 1 and (_ITEM.match(doc.lines[at - 2]) or doc.lines[at - 2][:1] in (" ", "\t")):
        at -= 1  # the items above it, and their wrapped or indented lines
    if not _ITEM.match(doc.lines[at - 1]):
        return False
    lead = at - 1
    while lead > 0 and not doc.lines[lead - 1].strip():
        lead -= 1  # the blank line reStructuredText wants before a list
    if lead == 0 or _ITEM.match(doc.lines[lead - 1]):
        return False
    first, _ = paragraph(doc, lead)
    text = " ".join(doc.lines[i - 1].strip() for i in range(first, lead + 1))
    sentence = _SENTENCE_END.split(text)[-1]
    return sentence.endswith(":") and _NO_LONGER.search(sentence) is not None


# The words before a path the reader is told to make: "you would create `changelog.d/1234.bugfix.md`
# and `changelog.d/1234.doc.md`", "create a file named `conf/local.yaml`".
# "Add" with an article before the path is a new file too ("add a ``RELEASE.md`` file in the
# root"); "add `x` to the index" may name one the repository has.
_TO_CREATE = lazyre.compile(
    r"\b(?:create|creating|touch|add(?:ing)?(?=\s+(?:a|an|new|your)\s))\s+(?:(?:a|an|the|your|new|own|empty)\s+)*"
    r"(?:(?:file|folder|directory|module|script)\s+)?(?:(?:called|named|at|in)\s+)?"
    r"(?:[`*]+[^`*\s]+[`*]+\s*(?:,\s*)?(?:and\s+|or\s+)?)*[`*_:]*$",
    re.IGNORECASE,
)


# The words before a place the reader is told to put what they fetch: "Extract to
# `./playground/data/eval`", "download [`test2015`](...) and put it under `data/eval/vqav2`",
# "save the checkpoint to `ckpt/`". Each verb with the words that name where its object goes:
# "copy ... in `x`" and "save ... in `x`" may name the source, a file of the repository.
_MID = r"(?:[^.;!?`\n]|`[^`\n]*`){0,60}?"
_TO_PLACE = lazyre.compile(
    rf"\b(?:(?:extract|unzip|untar|unpack|decompress)\w*{_MID}\b(?:to|into|under|in|inside)"
    rf"|(?:put|place[sd]?|placing|organi[sz]e[sd]?|organi[sz]ing){_MID}\b(?:under|in|into|inside|at|to)"
    rf"|(?:download|save|move|copy|write)(?:s|d|ed)?{_MID}\b(?:to|into))"
    r"\s+(?:(?:the|a|your)\s+)?(?:(?:file|folder|directory|dir|path)\s+)?[`*_:]*$",
    re.IGNORECASE,
)


def made_by_reader(doc: DocPage, line: int, token: str) -> bool:
    """Whether the sentence citing the path `token` on `line` tells the reader to create it, or to
    put there what they download or extract."""
    return any(
        _TO_CREATE.search(before[-80:]) or _TO_PLACE.search(before[-120:])
        for before in _before_each(doc, line, token, above=2)
    )


# An address on another site than the repository's host: a model's page on the Hugging Face Hub,
# ModelScope's, a dataset's.
_OTHER_SITE_URL = lazyre.compile(
    r"https?://(?!(?:www\.)?github\.com/|raw\.githubusercontent\.com/|gist\.github\.com/)"
    r"[A-Za-z0-9.-]{1,200}(/[^\s()<>\[\]\"'`]{1,500})"
)


def linked_elsewhere(doc: DocPage, token: str) -> bool:
    """Does the page link `token` as a name on another site (`xtuner/llava-phi-3-mini` beside
    `https://huggingface.co/xtuner/llava-phi-3-mini`)? Then it is that site's (a model id), not a
    path of the repository that happens to start with one of its folders."""
    name = token.strip("/")
    if "/" not in name:
        return False
    for m in _OTHER_SITE_URL.finditer(doc.text):
        path = m.group(1).split("?")[0].split("#")[0].rstrip("/")
        if path.endswith("/" + name) or f"/{name}/" in path:
            return True
    return False


# The words before a path a command writes its results to: "The judgments will be saved to
# `data/judgment.jsonl`", "outputs are written to `out/`", "the plots will be stored in `figs/`".
_TO_BE_WRITTEN = lazyre.compile(
    r"\b(?:(?:will|would|should)\s+be|is|are|get|gets)\s+(?:saved|written|dumped|exported|stored)\s+"
    r"(?:to|in|into|at|under)\s+(?:the\s+(?:file|folder|directory)\s+)?[`*_:]*$",
    re.IGNORECASE,
)
# "is stored in" also tells where the repository keeps a file of its own: a program's output
# is stored "will be", never "is".
_KEPT = lazyre.compile(r"\b(?:is|are|get|gets)\s+stored\b", re.IGNORECASE)


def written_by_program(doc: DocPage, line: int, token: str) -> bool:
    """Whether the sentence citing the path `token` on `line` says a command writes it: the
    results' file, made when the reader runs it, not one of the repository."""
    for before in _before_each(doc, line, token, above=1):  # "... will be saved to\n`x`"
        found = _TO_BE_WRITTEN.search(before[-80:])
        if found is not None and not _KEPT.search(found.group(0)):
            return True
    return False


# The words after a path that is a folder inside somewhere the code computes or the reader's
# machine has: "a ``scrapy/jobfiles`` subdirectory in :func:`platformdirs.user_state_dir`",
# "a `models/` folder under `$XDG_CACHE_HOME`", "the `app/` directory in `~`".
_INSIDE_ELSEWHERE = lazyre.compile(
    r"^[`*_]*\s+(?:sub)?(?:directory|folder|dir)\s+(?:in|of|under|inside|within)\s+"
    r"(?::[a-z]+:|[`*_]*\$|[`*_]*~|[`*_]+[\w.]+\(\))",
    re.IGNORECASE,
)
# Or a file the reader keeps in a repository of their own: "Commit a `.github/workflows/x.yml`
# file to your repo with these contents", "add `conf.py` to your project".
_IN_READERS_REPO = lazyre.compile(
    r"^[`*_]*\s+(?:(?:file|folder|directory|dir)\s+)?(?:to|in|into|inside|under|at the root of)\s+"
    r"your\s+(?:own\s+)?(?:repo|repository|project|site|fork)\b",
    re.IGNORECASE,
)


def inside_elsewhere(doc: DocPage, line: int, token: str) -> bool:
    """Whether the sentence says the path `token` on `line` is a folder inside a place a function
    computes, an environment variable names or the home folder holds, or a file of the reader's
    own repository: not the repository's."""
    if not 0 < line <= len(doc.lines):
        return False
    text = doc.lines[line - 1]
    below = doc.lines[line].strip() if line < len(doc.lines) else ""
    at = text.find(token)
    while at >= 0:
        after = (text[at + len(token) :] + " " + below)[:120]
        if _INSIDE_ELSEWHERE.search(after) or _IN_READERS_REPO.search(after):
            return True
        at = text.find(token, at + 1)
    return False


# What a program prints when it refuses an option: argparse's `error: unrecognized arguments:`
# and `ambiguous option:`, click's `No such option:`.
_REFUSED = lazyre.compile(
    r"error:|unrecognized arguments?|ambiguous option|no such option|unknown option", re.IGNORECASE
)


def shown_refused(doc: DocPage, line: int, token: str) -> bool:
    """Does the output shown right after `line` (or on it) have the program refuse `token`? A page
    showing the error an option gets (`--py could match --python, --pypackages`) cites it so."""
    for text in doc.lines[line - 1 : line + 2]:
        refused = _REFUSED.search(text)
        if refused is not None and token in text[refused.end() :]:
            return True
    return False


def first_cell_token(line: str) -> str | None:
    """The first cell of a table row when it holds one code token and nothing else."""
    cells = line.strip().strip("|").split("|")
    first = cells[0].strip() if cells else ""
    if len(first) > 2 and first[0] == first[-1] == "`" and "`" not in first[1:-1]:
        return first[1:-1].strip()
    return None


def table_keys(doc: DocPage, line: int) -> set[str]:
    """The tokens the rows of `line`'s table hold alone in their first cells (none: no table)."""
    if not doc.lines[line - 1].lstrip().startswith("|"):
        return set()
    first = last = line
    while first > 1 and doc.lines[first - 2].lstrip().startswith("|"):
        first -= 1
    while last < len(doc.lines) and doc.lines[last].lstrip().startswith("|"):
        last += 1
    return {t for text in doc.lines[first - 1 : last] if (t := first_cell_token(text)) is not None}


def is_mark(text: str) -> bool:
    return text.strip() in ("✅", "✓", "✔", "yes", "Yes")


def display(value: str | None) -> str:
    return "None" if value is None else value


def may_mean(doc: DocPage, token: str) -> bool:
    """Can a bare value the flag offers (```ndiff`` (the default)`) be about it on this page? On
    a page citing flags, only when it cites this one: pytest's output page says a setting's
    default is `ndiff`, a value `--doctest-report` (cited nowhere there) offers too."""
    flags = [r.token for r in doc.refs if r.kind == "flag"]
    return not flags or token in flags
