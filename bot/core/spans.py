"""What a code span or a command line in a page says: its tokens (flags, paths, names, values,
keys) and a command's words. Pure text; bot/core/page.py places what it finds on the page."""

from __future__ import annotations

import re

from bot.core import lazyre

# A dot inside a flag is part of it (`--train.seed`, a dotted config hierarchy); one at its end
# ends the sentence.
# A long flag (`--max-steps`), or one written with a single dash as argparse allows and some
# parsers declare (OpenNMT-py's `-train_steps` beside `--train_steps`): only those with an `_`,
# since `-Wall`, `-xvf` and `-std=c++17` are other tools' options, and a page's is judged only
# where a parser declares it (bot/core/check/inputs.py).
_DASH_FLAG = r"-[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*(?![\w-])"
FLAG_RE = lazyre.compile(
    r"(?<![\w-])(?:--[A-Za-z0-9](?:[A-Za-z0-9_*-]|\.(?=[A-Za-z0-9_])|<[^<>\s]*>)*|" + _DASH_FLAG + ")"
)
DASH_FLAG_RE = lazyre.compile(_DASH_FLAG)
_SHORT_FLAG_RE = lazyre.compile(r"-[A-Za-z](?:[ =](\S+))?")
_NAME_RE = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_.]*")
_NAME_VALUE_RE = lazyre.compile(r"([A-Za-z_][A-Za-z0-9_.]*)=(\S+)")
_KEY_VALUE_RE = lazyre.compile(r"([A-Za-z_][\w.-]*):\s+([^\s#]+)")
_EXT_RE = lazyre.compile(r"\.(?:py|md|mdx|yml|yaml|json|toml|txt|sh|cfg|ini)$")
_GITHUB_RE = lazyre.compile(r"https?://github\.com/[^/]+/([^/]+)/(?:blob|tree)/[^/]+/([^?#]+)")
# Words that run the command after them: not the command itself.
PREFIX_WORDS = {"do", "then", "else", "time", "exec", "nohup", "env", "sudo", "$"}
_SEPARATORS = {"&&", "||", "|", ";", "--"}
WORD_RE = lazyre.compile(r"[^\s\"'`()]+")
ASSIGN_RE = lazyre.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def classify(token: str) -> str:
    """flag, path, name or value: what kind of thing a cited token is."""
    if token.startswith("--") or re.fullmatch(r"-[A-Za-z]", token) or DASH_FLAG_RE.fullmatch(token):
        return "flag"
    if "://" in token:
        return "value"
    if "/" in token or _EXT_RE.search(token):
        return "path"
    if _NAME_RE.fullmatch(token):
        return "name"
    return "value"


def good_value(word: str) -> bool:
    """Whether the word after a flag is the flag's value rather than prose or shell syntax."""
    return (
        bool(word)
        and not word.startswith(("-", "$", "#", "\\"))
        and word not in {">", ">>", "<", "&", "|", "||", "&&", ";", "2>&1", "..."}
        and any(c.isalnum() or c == "<" for c in word)
    )


def split_span(content: str) -> list[tuple[str, str, str | None]]:
    """Tokens one inline code span cites, as (token, kind, value).

    A span with long flags yields each flag (and the word after it as its value); any other
    single-word span is one token; a multi-word span without flags only yields script paths.
    """
    text = content.strip()
    if not text:
        return []
    flags = list(FLAG_RE.finditer(text))
    if flags:
        out: list[tuple[str, str, str | None]] = []
        for m in flags:
            rest = text[m.end() :]
            value = None
            if rest.startswith("="):
                # `--frac==1` states an equality, as prose often does: the value is `1`.
                value = _first_value(rest[2:] if rest.startswith("==") else rest[1:])
            elif rest[:1].isspace():
                word = _first_value(rest)
                if word is not None and good_value(word.rstrip(",;")):
                    value = word.rstrip(",;")
            out.append((m.group(0), "flag", value))
        return out
    short = _SHORT_FLAG_RE.fullmatch(text)
    if short:
        flag = text[:2]
        value = short.group(1)
        return [(flag, "flag", value if value and good_value(value) else None)]
    key = _KEY_VALUE_RE.fullmatch(text)
    if key:  # `sample_packing: true`, as a config sets it; `config: x.yaml` cites the file too
        value = key.group(2)
        path = [(value, "path", None)] if _EXT_RE.search(value) and "://" not in value else []
        return [(key.group(1), "key", None), *path]
    if any(c.isspace() for c in text):
        return [(w, "path", None) for w in text.split() if _EXT_RE.search(w) and "://" not in w]
    if text.endswith("()"):
        text = text[:-2]
    nv = _NAME_VALUE_RE.fullmatch(text)
    if nv:
        return [(nv.group(1), "name", nv.group(2))]
    cited = _CITATION_RE.fullmatch(text)
    if cited and "://" not in text and (cited.group(2) is None or _EXT_RE.search(cited.group(1))):
        return [(cited.group(1), "path", None)]  # `pkg/mod.py:379`, `pkg/mod.py#L10`, `pkg/mod.py:main`
    return [(text, classify(text), None)]


# A line citation: the path, then `:379`, `:10-20`, `#L10` or `#L10-L20`; or a file's symbol
# (`pkg/mod.py:generate`, group 2), for the files a page cites.
_CITATION_RE = lazyre.compile(
    r"([^\s:#]+\.[A-Za-z0-9]+)(?::\d+(?:-\d+)?|#L\d+(?:-L?\d+)?|:([A-Za-z_][\w.]*))"
)
_OPENERS = {"{": "}", "[": "]", "(": ")"}


def _first_value(rest: str) -> str | None:
    """The word at the start of `rest`; a set written in braces (`{no, fp16, bf16}`) is one word."""
    text = rest.lstrip()
    if not text:
        return None
    close = _OPENERS.get(text[0])
    if close is not None:
        end = text.find(close)
        if end > 0:
            return text[: end + 1]
    return text.split(maxsplit=1)[0]


def bracketed(words: list[tuple[str, int]], i: int, text: str) -> tuple[str, int] | None:
    """`--precision [fp8 | bf16]`: a value whose bracket, opened by words[i], closes a few words
    later on the line is one value, as `_first_value` reads a span's. Its text and last word."""
    word, col = words[i]
    close = _OPENERS.get(word[:1])
    if close is None or close in word:
        return None
    for j in range(i + 1, min(len(words), i + 8)):
        later, at = words[j]
        if close in later:
            return (text[col : at + len(later)], j) if later.endswith(close) else None
    return None


def command_words(text: str) -> list[str]:
    """The words of one shell command as written, without the variable assignments and the
    words (`env`, `nohup`, `time`, `sudo`) that only run it."""
    words = [(m.group(0), m.start()) for m in WORD_RE.finditer(text)]
    return [w for w, _ in words[_command_start(words, text) :]]


def first_command_word(text: str) -> str | None:
    """`command_words(text)[0]`, or None: most lines start with their command, and only those
    that do not are split whole."""
    first = WORD_RE.search(text)
    if first is None:
        return None
    word = first.group(0)
    if not ASSIGN_RE.match(word) and word not in PREFIX_WORDS:
        return word
    words = command_words(text)
    return words[0] if words else None


def _command_start(words: list[tuple[str, int]], text: str) -> int:
    """Where the command starts among (word, column) pairs: after the variable assignments
    (`A=1`, `A="x y"`, whose quoted value is words of its own here) and the prefix words."""
    i = 0
    while i < len(words) and (ASSIGN_RE.match(words[i][0]) or words[i][0] in PREFIX_WORDS):
        i += 1 + quoted_value(words, i, text)
    return i


def quoted_value(words: list[tuple[str, int]], i: int, text: str) -> int:
    """How many words after the assignment words[i] are its quoted value: `A="x.py y"` is three
    words here (the quotes are no part of any); `A=(--x 1)` is an array, its words are kept."""
    word, col = words[i]
    end = col + len(word)
    if not word.endswith("=") or text[end : end + 1] not in ("'", '"') or i + 1 >= len(words):
        return 0
    if text[end + 1 : end + 3] == "$(":
        return 0  # `A="$(python3 x.py)"`: a command runs in there
    if words[i + 1][1] != end + 1:
        return 0
    return 1 + _quoted_rest(words, i + 1)


def _quoted_rest(words: list[tuple[str, int]], i: int) -> int:
    """How many more words after words[i] the same quoted value holds: `A="a b"` splits in two."""
    n = 0
    while i + n + 1 < len(words) and words[i + n + 1][1] == words[i + n][1] + len(words[i + n][0]) + 1:
        n += 1
    return n


def span_commands(content: str) -> list[tuple[str, ...] | None]:
    """For each long flag of a code span (in `split_span`'s order), the command words before it
    when the span is a command (`lm_eval --model hf`); None when the span starts with a flag
    (a flag cited on its own)."""
    text = content.strip()
    flags = list(FLAG_RE.finditer(text))
    words = [(m.group(0), m.start()) for m in WORD_RE.finditer(text)]
    words = words[_command_start(words, text) :]
    if not words or words[0][0].startswith("-"):
        return [None] * len(flags)
    return [tuple(w for w, at in words if at + len(w) <= m.start()) for m in flags]


def names_link_target(token: str, href: str) -> bool:
    """The link text names the file it links to, though not as a path of the tree: from above its
    repository's root (the span `trl/examples/notebooks/` of a link to `github.com/org/trl/tree/
    main/examples/notebooks/`), or without its extension (`docs/guide` linking to
    `.../blob/main/docs/guide.md`, or to `docs/guide.md`)."""
    m = _GITHUB_RE.match(href)
    if m is not None:
        path = m.group(2).strip("/")
        if path and token.strip("/") == f"{m.group(1)}/{path}":
            return True
    elif "://" in href:
        return False
    else:
        path = href.split("#", 1)[0].split("?", 1)[0].removeprefix("./")
    stem, dot, ext = path.rpartition(".")
    return bool(dot and stem and ext) and "/" not in ext and token.removeprefix("./") == stem


def link_repository(href: str) -> str | None:
    """The name of the repository a GitHub URL of a file or folder is in (`optimum-habana` for
    `github.com/huggingface/optimum-habana/tree/main/examples`), lowercase; None for any other link."""
    m = _GITHUB_RE.match(href)
    return m.group(1).lower() if m else None


def link_path(href: str) -> tuple[str, str] | None:
    """(path, where) for a link to a file: "url" for a GitHub URL (a path from the root of some
    repository), "link" for a path relative to the page."""
    m = _GITHUB_RE.match(href)
    if m:
        path = m.group(2).rstrip("/")
        return (path, "url") if path else None
    if "://" in href or href.startswith(("/", "#", "mailto:")):
        return None
    target = href.split("#", 1)[0].split("?", 1)[0]
    return (target, "link") if _EXT_RE.search(target) else None
