"""Evidence of a rename in the change itself: the files it edited besides the one that defines
a fact. When `FSDPArgs.keep_fp32_master` becomes `fp32_master_weights`, the same change rewrites
a test's `keep_fp32_master=False` as `fp32_master_weights=False`, and a launcher's
`--gradient-checkpointing` as `--activation-checkpointing`: a removed line holding the old
spelling beside an added line holding the new one, at the same place.

Read only when some fact lost its token and nothing with its key took its place, only through
the `Tree`s, and bounded: at most MAX_FILES changed files of at most MAX_FILE_CHARS each,
MAX_TOTAL_CHARS in all, and never the rule's doc pages (a page the change fixed says what the
doc wants, not what the code did).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from bot.core.check.inputs import RuleInputs
from bot.core.linediff import line_diff
from bot.core.model import Tree

# Each file read may be a request of its own (the App reads through GitHub's API): a change
# touching more files than this is judged on the first ones, in path order.
MAX_FILES = 80
MAX_FILE_CHARS = 300_000
MAX_TOTAL_CHARS = 3_000_000

# Files that hold no lines a rename rewrites: images, archives, weights, notebooks, lock files.
_NOT_TEXT = (
    ".png", ".jpg", ".jpeg", ".gif", ".svg", ".ico", ".pdf", ".zip", ".gz", ".tar", ".whl",
    ".bin", ".pt", ".pth", ".safetensors", ".npy", ".npz", ".parquet", ".ipynb", ".lock",
)  # fmt: skip

# A word as code and shell lines write names: `keep_fp32_master`, `--keep-fp32-master`,
# `FSDPArgs`. A dot, a quote, `=` or a space ends it.
_WORD = re.compile(r"(?<![\w-])-{0,2}[A-Za-z_][A-Za-z0-9_]*(?:-[A-Za-z0-9_]+)*")


@dataclass(frozen=True)
class Because:
    """Why a fact's successor is believed, as the finding tells it."""

    kind: Literal["same-dest", "replaced", "same-place", "same-call", "git-rename", "similar"]
    # the spelling that was replaced (`keep_fp32_master`), the old file, or (same-call) the
    # spelling declared with both
    old: str = ""
    new: str = ""  # what replaced it, or the new file
    files: tuple[str, ...] = ()  # replaced: the files where the change did it
    also: tuple[tuple[str, str], ...] = ()  # replaced: other (old, new) spellings it swapped


# old spelling -> new spelling -> the files where a rewritten line swapped one for the other
Replacements = Mapping[str, Mapping[str, frozenset[str]]]


class ChangeEvidence:
    """The changed files of one change, read on demand for the spellings a check asks about."""

    def __init__(
        self,
        base: Tree,
        head: Tree,
        changed: Iterable[tuple[str, str]],
        renames: Mapping[str, str] | None = None,
        skip: Collection[str] = (),
    ) -> None:
        """`changed`: (base path, head path) of every file the change edited or moved;
        `renames`: old path -> new path of the files git saw moved; `skip`: paths (either side)
        never read."""
        self._base, self._head = base, head
        self.renames: Mapping[str, str] = dict(renames or {})
        self._changed = sorted(
            (b, h)
            for b, h in changed
            if b not in skip and h not in skip and not h.lower().endswith(_NOT_TEXT)
        )

    def replacements(self, spellings: Collection[str]) -> Replacements:
        """For each of `spellings`: the words that took its place on rewritten lines, by file."""
        found: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
        if not spellings:
            return {}
        wanted = set(spellings)
        total = 0
        for base_path, head_path in self._changed[:MAX_FILES]:
            before = self._base.read(base_path)
            if before is None or len(before) > MAX_FILE_CHARS or not any(s in before for s in wanted):
                continue
            after = self._head.read(head_path)
            if after is None or len(after) > MAX_FILE_CHARS:
                continue
            total += len(before) + len(after)
            if total > MAX_TOTAL_CHARS:
                break
            for old_line, new_line in line_diff(before, after).rewritten():
                if any(s in old_line for s in wanted):
                    for old, new in swapped_words(old_line, new_line):
                        if old in wanted:
                            found[old][new].add(head_path)
        return {old: {new: frozenset(paths) for new, paths in news.items()} for old, news in found.items()}


def swapped_words(old_line: str, new_line: str) -> list[tuple[str, str]]:
    """The (old, new) words of a line rewritten by swapping single words, everything else kept:
    `"--gradient-checkpointing "` -> `"--activation-checkpointing "` gives one pair. A line
    rewritten otherwise gives none."""
    old_words, new_words = _WORD.findall(old_line), _WORD.findall(new_line)
    if len(old_words) != len(new_words):
        return []
    pairs = [(a, b) for a, b in zip(old_words, new_words, strict=True) if a != b]
    if not pairs or _WORD.sub("", old_line) != _WORD.sub("", new_line):
        return []  # words added or dropped, or the punctuation between them changed
    return pairs


def of_inputs(inputs: RuleInputs) -> ChangeEvidence:
    """The evidence one rule's check may read: every file the change edited or moved but the
    rule's pages."""
    touched = inputs.touched
    pages = {d.path for d in inputs.rule.docs} | {touched.head_path(d.path) for d in inputs.rule.docs}
    changed = changed_files(touched.renames, touched.paths, touched.removed)
    return ChangeEvidence(inputs.base, inputs.head, changed, touched.renames, skip=pages)


def changed_files(
    renames: Mapping[str, str], paths: Iterable[str], removed: Collection[str]
) -> list[tuple[str, str]]:
    """(base path, head path) of each file a change edited or moved, from what it names."""
    moved_to = set(renames.values())
    out = []
    for path in paths:
        if path in removed or path in moved_to:
            continue
        out.append((path, renames.get(path, path)))
    return out
