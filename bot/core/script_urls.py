"""A script named by its URL on GitHub: `uv run https://raw.githubusercontent.com/org/proj/main/
scripts/train.py --lr 1` (uv downloads and runs it) runs the repository's own `scripts/train.py`
when org/proj is the repository, as its project files name it (`[project.urls]` of
pyproject.toml, `url=` of setup.py or setup.cfg). A URL of another repository, or of a file
this revision lacks, is no script of ours. Pure: it reads the texts it is given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from bot.core import lazyre
from bot.core.extract.imports import PROJECT_FILES

# `raw.githubusercontent.com/O/R/REF/PATH` and `github.com/O/R/(blob|raw)/REF/PATH`; REF may hold
# slashes (`refs/heads/main`), so PATH is found by trying the tails the tree has.
_RAW = lazyre.compile(r"https?://raw\.githubusercontent\.com/([\w.-]+)/([\w.-]+)/(\S+)")
_BLOB = lazyre.compile(r"https?://github\.com/([\w.-]+)/([\w.-]+)/(?:blob|raw)/(\S+)")
_REPOSITORY = re.compile(r"https?://github\.com/([\w.-]+)/([\w.-]+?)(?:\.git)?(?=[/\"'\s#?]|$)")
# Where a project file names its own home: pyproject's `[project.urls]` table and poetry's
# `homepage`/`repository`, setup.py's `url=` and `project_urls`, setup.cfg's `url =`.
_URL_KEY = re.compile(
    r"^\s*(?:url|homepage|repository|source|source[ _-]code|code|github)\s*[=:]", re.IGNORECASE | re.MULTILINE
)
_URLS_TABLE = re.compile(r"^\[(?:project\.urls|tool\.poetry\.urls)\]\s*$", re.MULTILINE)


def own_repositories(texts: Iterable[str]) -> frozenset[str]:
    """`owner/name` (lowercase) of each GitHub repository the project files call the project's."""
    found: set[str] = set()
    for text in texts:
        lines: list[str] = []
        for table in _URLS_TABLE.finditer(text):
            rest = text[table.end() :]
            table_end = re.search(r"^\[", rest, re.MULTILINE)
            lines.append(rest[: table_end.start()] if table_end else rest)
        for m in _URL_KEY.finditer(text):
            end = text.find("\n", m.end())
            lines.append(text[m.start() : end if end >= 0 else len(text)])
        for chunk in lines:
            found |= {f"{o}/{n}".lower() for o, n in _REPOSITORY.findall(chunk)}
        if "project_urls" in text:  # setup.py's dict of links
            at = text.index("project_urls")
            found |= {f"{o}/{n}".lower() for o, n in _REPOSITORY.findall(text[at : at + 2000])}
    return frozenset(found)


# The project's name as its project files give it: `name = "x"` (pyproject's [project] or
# [tool.poetry], setup.cfg's [metadata]) or `name="x"` in setup.py's call.
_NAME_KEY = re.compile(r"""^\s*name\s*=\s*["']?([A-Za-z0-9][\w.-]*)["']?\s*,?\s*$""", re.MULTILINE)
_SETUP_NAME = re.compile(r"""\bname\s*=\s*["']([A-Za-z0-9][\w.-]*)["']""")


def project_names(texts: Iterable[tuple[str, str]], own: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names (lowercase) the project goes by: its distribution's, as each project file
    (name, text) declares it, and those of the GitHub repositories `own` (`owner/name`)."""
    found = {repo.rpartition("/")[2] for repo in own}
    for name, text in texts:
        pattern = _SETUP_NAME if name.endswith(".py") else _NAME_KEY
        found.update(m.lower() for m in pattern.findall(text))
    return frozenset(found)


def names_in_files(read: Callable[[str], str | None], own: frozenset[str]) -> frozenset[str]:
    """`project_names` of the root's project files, as `read` gives them."""
    texts = [(name, text) for name in PROJECT_FILES if (text := read(name)) is not None]
    return project_names(texts, own)


def is_project_name(word: str, names: frozenset[str]) -> bool:
    """Is `word` one of the project's `names`: the folder it is cloned into (`lmdeploy/generate.sh`
    for the root's `generate.sh`, `python OpenNMT-py/tools/x.py` for `tools/x.py`)?"""
    lowered = word.lower()
    return lowered in names or lowered.replace("_", "-") in names


def url_path(word: str, own: frozenset[str], paths: frozenset[str]) -> str | None:
    """The file of the tree a URL of the repository's own GitHub names, else None."""
    m = _RAW.match(word) or _BLOB.match(word)
    if m is None or f"{m.group(1)}/{m.group(2)}".lower() not in own:
        return None
    parts = m.group(3).split("?", 1)[0].split("#", 1)[0].split("/")
    for cut in range(1, len(parts)):  # the ref is one word (`main`) or several (`refs/heads/main`)
        candidate = "/".join(parts[cut:])
        if candidate in paths:
            return candidate
    return None
