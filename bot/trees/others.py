"""The files of a rule's `others`, for the command line: read, never run (bot/core/check/others.py
says what they declare).

- A sister repository (`repo`, `ref`, `paths`): `git fetch --depth 1 --filter=blob:none` of the
  ref into a bare repository of its own, its tree listed, and only the blobs its `paths` match
  fetched, in one more request: at most `MAX_FILES` files (counted from the listing, before
  any blob is fetched) of at most `MAX_FILE_BYTES` each, `MAX_BYTES` in all. Kept under the user's
  cache (`~/.cache/docs-sync/others/`, or beside `$DOCS_SYNC_CACHE`) by (repo, ref, paths): a
  tag or a commit is read once. Where it is fetched from is `https://github.com/{repo}.git`,
  or the template `DOCS_SYNC_OTHERS_GIT` names (`file:///srv/mirrors/{repo}`: a mirror, tests).
- An installed distribution (`package`): its files as its RECORD lists them in site-packages,
  those its `paths` match (default: its Python modules named like a command line's: `cli`,
  `args`, `options`, `config`, `launch`, `train`, `serve`...), under the same bounds. The package is
  never imported: `importlib.metadata` reads its metadata, the files are read as text.

`Unreadable` says why one could not be read; the caller makes it a `config` finding naming it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

from bot.core.globs import compile_pattern, is_pattern
from bot.core.model import Finding, Tree
from bot.core.rules import Other, Rule
from bot.core.source import decode
from bot.trees.factcache import default_cache_path
from bot.trees.memory import MemoryTree

MAX_FILES = 400
MAX_FILE_BYTES = 1_000_000
MAX_BYTES = 16_000_000
TIMEOUT = 120.0  # seconds for each git command
GIT_URL = "DOCS_SYNC_OTHERS_GIT"  # setting: where a sister repository is fetched from
_FORMAT = "others-1"  # bump when what is kept changes
_CLI_NAME = re.compile(r"cli|arg|opt|conf|command|launch|run|train|serve|main|param|setting", re.IGNORECASE)


class Unreadable(Exception):
    """An other project that could not be read, and why (for a `config` finding)."""


def read_all(rules: Iterable[Rule], cache_dir: Path | None = None) -> tuple[dict[Other, Tree], list[Finding]]:
    """The files of every rule's others that could be read, and a `config` finding on each rule
    naming one that could not (bot.core.validate.unread_other). Each is read once."""
    from bot.core.validate import unread_other

    trees: dict[Other, Tree] = {}
    why: dict[Other, str] = {}
    found: list[Finding] = []
    for rule in rules:
        for other in rule.others:
            if other not in trees and other not in why:
                try:
                    trees[other] = read(other, cache_dir)
                except Unreadable as exc:
                    why[other] = str(exc)
            if other in why:
                found.append(unread_other(rule, other, why[other]))
    return trees, found


def read(other: Other, cache_dir: Path | None = None) -> MemoryTree:
    """The files of `other` its paths name, as text; Unreadable when it cannot be read."""
    if other.package is not None:
        return MemoryTree(_package(other))
    root = cache_dir or default_cache_path().parent / "others"
    key = hashlib.sha256(json.dumps([_FORMAT, other.repo, other.ref, list(other.paths)]).encode()).hexdigest()
    kept = root / f"{key[:32]}.json"
    try:
        files = json.loads(kept.read_text())
        if isinstance(files, dict):
            return MemoryTree({str(p): str(t) for p, t in files.items()})
    except (OSError, ValueError):
        pass
    files = _fetch(other, root)
    try:
        root.mkdir(parents=True, exist_ok=True)
        partial = kept.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(files))
        partial.replace(kept)
    except OSError:
        pass  # a read-only cache only costs the fetch next time
    return MemoryTree(files)


def url_of(repo: str) -> str:
    template = os.environ.get(GIT_URL) or "https://github.com/{repo}.git"
    return template.replace("{repo}", repo)


def _fetch(other: Other, root: Path) -> dict[str, str]:
    assert other.repo is not None and other.ref is not None  # the reader holds a repo to its ref
    url = url_of(other.repo)
    try:
        root.mkdir(parents=True, exist_ok=True)
        scratch = tempfile.TemporaryDirectory(dir=root, prefix="fetch-")
    except OSError:
        scratch = tempfile.TemporaryDirectory(prefix="docs-sync-fetch-")
    with scratch as where:
        git = _Git(Path(where))
        git("init", "--bare", "--quiet")
        git("remote", "add", "origin", url)
        # A promisor remote: blobs left out now are fetched when asked for, from the same place.
        git("config", "remote.origin.promisor", "true")
        git("config", "remote.origin.partialclonefilter", "blob:none")
        # `--` ends the options: the ref is a name, whatever it looks like (the reader refuses `-x`).
        git("fetch", "--quiet", "--depth", "1", "--no-tags", "--filter=blob:none", "origin", "--", other.ref)
        # No `-l`: a blob's size would fetch the blob, one request each.
        chosen = choose(_entries(git("ls-tree", "-r", "-z", "FETCH_HEAD")), other.paths, other.name)
        # The chosen blobs in one request (as git fills in a partial clone); a server that
        # ignored the filter sent them with the tree already.
        have = set(
            git("cat-file", "--batch-check=%(objectname)", "--batch-all-objects", "--unordered").split()
        )
        absent = [oid for _, oid in chosen if oid not in have]
        if absent:
            git(
                "-c", "fetch.negotiationAlgorithm=noop",
                "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--recurse-submodules=no",
                "--filter=blob:none", "--stdin", "origin",
                stdin="".join(f"{oid}\n" for oid in absent),
            )  # fmt: skip
        listed = git("cat-file", "--batch-check=%(objectname) %(objectsize)", stdin=_ids(chosen))
        sizes = {oid: int(n) for oid, n in (line.split() for line in listed.splitlines()) if n.isdigit()}
        return _contents(git, within(chosen, sizes, other.name))


def _entries(listing: str) -> list[tuple[str, str]]:
    """(path, blob id) of the regular files of an `ls-tree -r -z` listing."""
    out = []
    for record in listing.split("\0"):
        meta, _, path = record.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[0] in ("100644", "100755") and parts[1] == "blob":
            out.append((path, parts[2]))
    return out


def choose(entries: Sequence[tuple[str, str]], paths: Sequence[str], name: str) -> list[tuple[str, str]]:
    """The files `paths` match, at most MAX_FILES; Unreadable when none matches or more do."""
    patterns = [compile_pattern(p) if is_pattern(p) else None for p in paths]
    matched = sorted(
        (path, where)
        for path, where in entries
        if any(path == p if c is None else c.matches(path) for p, c in zip(paths, patterns, strict=True))
    )
    if not matched:
        raise Unreadable(f"no file of {name} matches {', '.join(paths)}")
    if len(matched) > MAX_FILES:
        raise Unreadable(f"{len(matched)} files of {name} match its paths; at most {MAX_FILES} are read")
    return matched


def within(chosen: Sequence[tuple[str, str]], sizes: dict[str, int], name: str) -> list[tuple[str, str]]:
    """The chosen files but those over MAX_FILE_BYTES; Unreadable past MAX_BYTES in all."""
    kept = [(path, where) for path, where in chosen if sizes.get(where, MAX_FILE_BYTES + 1) <= MAX_FILE_BYTES]
    total = sum(sizes[where] for _, where in kept)
    if total > MAX_BYTES:
        raise Unreadable(
            f"the files of {name} its paths match hold {total} bytes; at most {MAX_BYTES} are read"
        )
    return kept


def _ids(chosen: Sequence[tuple[str, str]]) -> str:
    return "".join(f"{oid}\n" for _, oid in chosen)


def _contents(git: _Git, chosen: Sequence[tuple[str, str]]) -> dict[str, str]:
    """Each chosen file's text, read in one `cat-file --batch`."""
    data = git.raw("cat-file", "--batch", stdin=_ids(chosen).encode())
    out: dict[str, str] = {}
    at = 0
    for path, _oid in chosen:
        end = data.index(b"\n", at)
        header = data[at:end].split()
        if len(header) != 3:
            raise Unreadable(f"git could not read {path}")
        size = int(header[2])
        out[path] = decode(path, data[end + 1 : end + 1 + size])
        at = end + 1 + size + 1
    return out


class _Git:
    """git in one bare repository, asking nobody for credentials."""

    def __init__(self, where: Path):
        self.where = where
        self.env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": ""}
        for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
            self.env.pop(name, None)

    def __call__(self, *args: str, stdin: str | None = None) -> str:
        return self.raw(*args, stdin=None if stdin is None else stdin.encode()).decode(errors="replace")

    def raw(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            proc = subprocess.run(
                ["git", "--git-dir", str(self.where), *args],
                input=stdin,
                capture_output=True,
                env=self.env,
                timeout=TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise Unreadable(f"git {args[0]} took longer than {TIMEOUT:.0f}s") from None
        except OSError as exc:
            raise Unreadable(f"git could not run: {exc}") from None
        if proc.returncode != 0:
            lines = proc.stderr.decode(errors="replace").strip().splitlines()
            raise Unreadable(
                f"git {args[0]} failed: {lines[-1] if lines else 'exit ' + str(proc.returncode)}"
            )
        return proc.stdout


def _package(other: Other) -> dict[str, str]:
    """The files of an installed distribution its paths match (default: its command-line modules)."""
    from importlib import metadata

    assert other.package is not None
    try:
        dist = metadata.distribution(other.package)
    except metadata.PackageNotFoundError:
        raise Unreadable(f"package {other.package} is not installed here") from None
    listed = [str(f) for f in dist.files or () if not str(f).startswith("..")]
    if not other.paths:
        # Its command-line modules by name, the shallowest first: a large library has thousands.
        likely = sorted(
            (n for n in listed if n.endswith(".py") and _CLI_NAME.search(n.rpartition("/")[2])),
            key=lambda n: (n.count("/"), n),
        )
        listed = likely[:MAX_FILES]
        if not listed:
            raise Unreadable(f"package {other.package} has no module named like a command line's")
    located = {name: str(dist.locate_file(name)) for name in listed}
    chosen = choose(list(located.items()), other.paths or tuple(listed), other.name)
    sizes: dict[str, int] = {}
    for _, where in chosen:
        with contextlib.suppress(OSError):
            sizes[where] = Path(where).stat().st_size
    out: dict[str, str] = {}
    for name, where in within(chosen, sizes, other.name):
        with contextlib.suppress(OSError):
            out[name] = decode(name, Path(where).read_bytes())
    return out
