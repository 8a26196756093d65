"""`docs-sync`: the command line. Reads git, runs the check, prints a report.

Exit codes: 0 success or neutral, 1 the check failed, 2 usage or configuration error.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, NoReturn

from bot import cli_cache
from bot.cli_args import parse_args, version
from bot.core.model import Change, Finding, Report, Tree
from bot.core.packfiles import REPO_CONFIG
from bot.render import FORMATS
from bot.render.common import DocText, Options, RenderError, plural

if TYPE_CHECKING:
    from bot.core.rules import Other, Rule, RulePack, RulesError
    from bot.trees.factcache import FactsCache
    from bot.trees.git import GitRepo, GitTree
    from bot.trees.history import GitHistory

# The rule classes (bot.core.rules) are imported where rules are parsed or an error of theirs is
# reported: a check of commits checked before prints the kept report without them.


class UsageError(Exception):
    pass


class ConfigErrors(Exception):
    """Rules that name what the repository does not have: every problem, each with its line."""

    def __init__(self, problems: Sequence[RulesError]):
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in problems))


# What `pip install 'docs-sync[app]'` adds: the GitHub App's imports. The checker needs none of them.
APP_PACKAGES = ("githubkit", "starlette", "uvicorn", "httpx", "prometheus_client", "jwt", "cryptography")


def _need_app(command: str) -> None:
    """The App's commands say which extra to install rather than failing on an import."""
    import importlib

    for name in APP_PACKAGES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name is None or e.name.split(".")[0] != name:
                raise
            raise UsageError(
                f"`docs-sync {command}` runs the GitHub App, which this install lacks ({name} is "
                "missing): install docs-sync[app] (pip install 'docs-sync[app]')"
            ) from None


def _load_rules(
    values: Sequence[str] | None, repo_config: str | None, cache: FactsCache | None, key: str | None = None
) -> tuple[RulePack, ...]:
    """The packs of `--rules` (else the repository's config); `key` is their
    `cli_cache.rules_key` when the caller has it."""
    from bot.core.packs import parse_repo_config, resolve_rule_args

    _require_rules(values, repo_config)
    # Parsed packs are cached by the text of every file they could come from: validating YAML
    # with line numbers costs more than the whole check of a typical change.
    key = key or cli_cache.rules_key(values, repo_config)
    if cache is not None and key is not None:
        hit = cache.get(key)
        if isinstance(hit, tuple):
            return hit
    packs = resolve_rule_args(values) if values else parse_repo_config(repo_config or "", REPO_CONFIG)
    if cache is not None and key is not None:
        cache[key] = packs
    return packs


def _require_rules(values: Sequence[str] | None, repo_config: str | None) -> None:
    if not values and repo_config is None:
        raise UsageError(f"no rules: pass --rules FILE|PACK, or commit {REPO_CONFIG} to the repository")


def _repo_config(tree: GitTree) -> str | None:
    """The config at a revision, read as the App reads it: UTF-8, else a RulesError naming the line."""
    from bot.core.packfiles import config_text

    blob = tree.blob_id(REPO_CONFIG)
    return None if blob is None else config_text(tree.repo.read_blob(blob), REPO_CONFIG)


def _config_here(repo: GitRepo, tree: GitTree, rev: str) -> str | None:
    """The config `audit` and `validate` read at HEAD: the working tree's when it has one HEAD
    lacks or differs from (an `init --write` not committed yet), said on stderr; else HEAD's."""
    from bot.core.packfiles import config_text
    from bot.core.rules import MAX_RULES_BYTES
    from bot.trees.git import GitError
    from bot.trees.worktree import WorkTree

    committed = _repo_config(tree)
    if rev != "HEAD":
        return committed
    try:
        path = WorkTree(repo).root / REPO_CONFIG
    except GitError:  # a bare repository
        return committed
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_RULES_BYTES + 1)  # one byte over: the reader says it is too large
    except FileNotFoundError:
        return committed
    except OSError as e:
        raise UsageError(f"cannot read {path}: {e.strerror or e}") from None
    text = config_text(data, REPO_CONFIG)
    if text != committed:
        state = "not committed yet" if committed is None else "with changes not committed"
        print(f"docs-sync: {REPO_CONFIG} read from the working tree ({state})", file=sys.stderr)
    return text


def _require_matches(
    rules: Sequence[Rule],
    base: Tree,
    head: Tree,
    renames: dict[str, str],
    cache: FactsCache | None,
    existed: Callable[[str], bool] = lambda path: False,
) -> tuple[list[Rule], list[Finding]]:
    """Every doc, source, glob and section the rules name must match something: a rule that
    reads nothing would pass silently. A file listed by name that both revisions lack but the
    history had (`existed`: deleted, not misspelt) is a finding on its entry and the rest is
    checked: (the rules left, those findings)."""
    from bot.core.validate import stale_entries, unmatched

    kept, stale = stale_entries(rules, base, head, renames, existed)
    problems = unmatched(kept, base, head, renames, cache)
    if problems:
        raise ConfigErrors(problems)
    return kept, stale


def _print(report: Report, fmt: str, fail_on: str | None, doc_text: DocText | None = None) -> None:
    """`doc_text(path)` reads a doc page at the checked revision: text and markdown show the lines a
    suggestion replaces, and the patch format rewrites them."""
    color = fmt == "text" and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        out = FORMATS[fmt](report, Options(fail_on, doc_text, color, version(), _width()))
    except RenderError as exc:
        raise UsageError(str(exc)) from exc
    sys.stdout.write(out if out.endswith("\n") or not out else out + "\n")


def _width() -> int:
    """The text view's suggestion width: a terminal's (or $COLUMNS) less the indent; 100 in a pipe
    or a file, whatever the shell exports."""
    import shutil

    from bot.render.text import WIDTH

    if not sys.stdout.isatty():
        return WIDTH
    return max(40, shutil.get_terminal_size((WIDTH + 4, 24)).columns - 4)


def _rules_of(packs: Sequence[RulePack]) -> list[Rule]:
    return [rule for pack in packs for rule in pack.rules]


def _emit(report: Report, args: argparse.Namespace, doc_text: DocText | None = None) -> int:
    """Print the report; its exit code stands even when the reader stops early (`| head`)."""
    code = 1 if report.conclusion(args.fail_on) == "failure" else 0
    try:
        _print(report, args.format, args.fail_on, doc_text)
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()
    return code


def _drop_stdout() -> None:
    # Python's recipe for a closed pipe: point stdout at devnull, so the flush at exit does not
    # raise a second time and print a traceback nobody asked for.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


@contextmanager
def checked(args: argparse.Namespace) -> Iterator[tuple[Report, DocText]]:
    """The report of `docs-sync check` for parsed arguments, and a reader of the files of the checked
    revision (usable inside the block, while git is open)."""
    from bot.trees.git import GitRepo

    if args.worktree and args.head:
        raise UsageError("--worktree checks the files on disk; it takes no --head")
    with GitRepo(args.repo) as repo:
        head_rev = args.head or "HEAD"
        head_sha = repo.resolve(head_rev)
        base_rev = args.base or _default_base(repo)
        # The hook's `--base HEAD` names the head again: it is not resolved twice.
        base_sha = repo.merge_base(head_sha if base_rev == head_rev else repo.resolve(base_rev), head_sha)
        base = repo.tree(base_sha)
        cache = cli_cache.open_cache(args.no_cache)
        # Rules come from the base revision: a change cannot switch off its own check.
        repo_config = None if args.rules else _repo_config(base)
        _require_rules(args.rules, repo_config)
        if args.worktree:  # the files on disk: not kept, they change under the same commits
            from bot.trees.worktree import WorkTree

            rules = _rules_of(_load_rules(args.rules, repo_config, cache))
            worktree = WorkTree(repo)
            changes = worktree.changes(base_sha)
            report, _ = _check(repo, args, rules, _others(rules), base, worktree, changes, head_sha, cache)
            yield report, worktree.read
            return
        head = repo.tree(head_sha)
        rules_key = cli_cache.rules_key(args.rules, repo_config) if cache is not None else None
        commits, history = [base_sha, head_sha], not args.no_history
        # A report is kept under its rules' text when they read no other project (a check of
        # commits checked before is answered without parsing a rule), else with the files the
        # others had; never when one could not be read (it may be read the next time).
        key = cli_cache.report_key("check", rules_key, commits, history) if rules_key else None
        kept = cli_cache.kept_report(cache, key)
        if kept is not None:
            yield kept, head.read
            return
        rules = _rules_of(_load_rules(args.rules, repo_config, cache, rules_key))
        others = _others(rules)
        if rules_key is not None and any(rule.others for rule in rules):
            read = [*others[0].values()]
            key = None if others[1] else cli_cache.report_key("check", rules_key, commits, history, read)
            kept = cli_cache.kept_report(cache, key)
        if kept is None:
            changes = repo.changes(base_sha, head_sha)
            kept, whole = _check(repo, args, rules, others, base, head, changes, head_sha, cache)
            if cache is not None and key is not None and whole:
                cache[key] = kept
        yield kept, head.read


def _others(rules: Sequence[Rule]) -> tuple[dict[Other, Tree], list[Finding]]:
    """The files of the rules' other projects, and a finding on each that could not be read."""
    if not any(rule.others for rule in rules):
        return {}, []
    from bot.trees.others import read_all

    return read_all(rules)


def _check(
    repo: GitRepo,
    args: argparse.Namespace,
    rules: Sequence[Rule],
    others: tuple[dict[Other, Tree], list[Finding]],
    base: GitTree,
    head: Tree,
    changes: Sequence[Change],
    head_sha: str,
    cache: FactsCache | None,
) -> tuple[Report, bool]:
    """The check of `head` (a commit's files, or the working tree's) against `base`, and whether
    it is whole: made with all the history it asked for (see `_whole`)."""
    from bot.core.check import check
    from bot.trees.history import open_history

    renames = {c.old_path: c.path for c in changes if c.status == "renamed" and c.old_path}
    existed = functools.partial(repo.ever_had, base.sha)
    kept, stale = _require_matches(rules, base, head, renames, cache, existed)
    history = None if args.no_history else open_history(repo, head_sha, cache)
    report = check(kept, base, head, changes, cache=cache, history=history, others=others[0])
    return replace(report, findings=(*stale, *others[1], *report.findings)), _whole(history)


def _whole(history: GitHistory | None) -> bool:
    """Did the history answer all it was asked? One that ran out of time (a loaded machine)
    answers less: the report made with it is not kept, so the next run asks again."""
    return history is None or not history.timed_out


def _default_base(repo: GitRepo) -> str:
    """`check` without --base: the pull request's target in a workflow (GITHUB_BASE_REF), else the
    remote's default branch; said on stderr, so a run is never compared with a guess unseen."""
    ref = os.environ.get("GITHUB_BASE_REF", "").strip()
    if ref:
        for name in (f"origin/{ref}", ref):
            if repo.exists(name):
                print(f"docs-sync: base {name} (GITHUB_BASE_REF)", file=sys.stderr)
                return name
        raise UsageError(
            f"no --base, and {ref!r} (GITHUB_BASE_REF) is not in {repo.path}: fetch it "
            "(actions/checkout with fetch-depth: 0), or pass --base REV"
        )
    found = repo.remote_default()
    if found is None:
        raise UsageError(
            f"no --base, and {repo.path} has no remote default branch (origin/HEAD) to compare "
            "with: pass --base REV"
        )
    print(f"docs-sync: base {found} (the remote's default branch)", file=sys.stderr)
    return found


def run_check(args: argparse.Namespace) -> int:
    with checked(args) as (report, doc_text):
        if getattr(args, "baseline", None) is not None:
            report = _against_baseline(report, args.baseline, doc_text, record=False)
        return _emit(report, args, doc_text)  # the suggestions' doc lines, while git is open


def run_audit(args: argparse.Namespace) -> int:
    from bot.core.check import audit
    from bot.trees.git import GitRepo
    from bot.trees.history import open_history
    from bot.trees.memory import MemoryTree

    with GitRepo(args.repo) as repo:
        tree = repo.tree(args.rev)
        cache = cli_cache.open_cache(args.no_cache)
        repo_config = None if args.rules else _config_here(repo, tree, args.rev)
        rules_key = cli_cache.rules_key(args.rules, repo_config) if cache is not None else None
        rules = _rules_of(_load_rules(args.rules, repo_config, cache, rules_key))
        existed = functools.partial(repo.ever_had, tree.sha)
        rules, stale = _require_matches(rules, MemoryTree({}), tree, {}, cache, existed)
        others, unread = _others(rules)
        key = None
        if rules_key is not None and not unread:
            key = cli_cache.report_key(
                "audit", rules_key, [tree.sha], not args.no_history, list(others.values())
            )
        kept = cli_cache.kept_report(cache, key)
        if kept is not None:
            report = kept
        else:
            history = None if args.no_history else open_history(repo, tree.sha, cache)
            report = audit(rules, tree, cache=cache, history=history, others=others)
            if cache is not None and key is not None and _whole(history):
                cache[key] = report
        report = replace(report, findings=(*stale, *unread, *report.findings))
        if args.baseline is not None:
            first = not os.path.exists(args.baseline)
            recorded, report = report, _against_baseline(report, args.baseline, tree.read)
            if first and args.format == "text":
                return _emit_recorded(recorded, args)
        return _emit(report, args, tree.read)


def _emit_recorded(recorded: Report, args: argparse.Namespace) -> int:
    """The baseline's first run in the text view: what it recorded, not "success, no findings"."""
    from collections import Counter

    kinds = Counter(f.kind for f in recorded.findings)
    detail = f": {', '.join(f'{n} {k}' for k, n in sorted(kinds.items()))}" if kinds else ""
    print(f"docs-sync: baseline {args.baseline} records {plural(len(recorded.findings), 'finding')}{detail}")
    return 0


def _against_baseline(report: Report, file: str, doc_text: DocText, record: bool = True) -> Report:
    """The first run records `report` in `file` (and reports nothing); later runs report only the
    findings the file does not record. Without `record` (a check), the file must exist."""
    from bot.core import baseline

    try:
        with open(file, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        text = None
    except OSError as e:
        raise UsageError(f"cannot read the baseline {file}: {e.strerror or e}") from None
    if text is None and not record:
        raise UsageError(f"no baseline {file}: `docs-sync audit --baseline {file}` records one")
    if text is None:
        try:
            with open(file, "w", encoding="utf-8") as f:
                f.write(baseline.dump(report, doc_text))
        except OSError as e:
            raise UsageError(f"cannot write the baseline {file}: {e.strerror or e}") from None
        count = len(report.findings)
        print(
            f"docs-sync: recorded {count} finding{'s' * (count != 1)} in {file}; "
            "later runs with --baseline report only new ones",
            file=sys.stderr,
        )
        return replace(report, findings=())
    try:
        known = baseline.load(text, file)
    except baseline.BaselineError as e:
        raise UsageError(str(e)) from None
    return baseline.new_findings(report, known, doc_text)


def run_validate(args: argparse.Namespace) -> int:
    """Schema, matches against the repository (when there is one) and the rules' examples."""
    from bot.core.packs import resolve_rule_args
    from bot.core.validate import unmatched
    from bot.trees.git import GitRepo
    from bot.trees.memory import MemoryTree

    packs = resolve_rule_args(args.rules) if args.rules else None
    repo_dir = args.repo if args.repo is not None else "."
    problems: list[RulesError] = []
    matched = "not matched against a repository (no --repo)"
    # Without --rules the rules are the repository's config; with them, they are matched against
    # the repository named, or the current folder when it is one.
    if args.repo is not None or packs is None or _is_repo(repo_dir, args.rev):
        with GitRepo(repo_dir) as repo:
            tree = repo.tree(args.rev)
            if packs is None:
                text = _config_here(repo, tree, args.rev)
                if text is None:
                    raise UsageError(f"no {REPO_CONFIG} at {args.rev} in {repo_dir}; pass --rules FILE")
                packs = _load_rules(None, text, None)
            problems = unmatched(_rules_of(packs), MemoryTree({}), tree)
            matched = f"matched against {repo_dir} at {args.rev}"
    from bot.trees.others import read_all as read_others

    unread = [f.message for f in read_others(_rules_of(packs))[1]]  # each other project, fetched once
    for problem in [*map(str, problems), *unread]:
        print(f"docs-sync: {problem}", file=sys.stderr)
    failed = _run_examples(packs)
    rules, ran = _rules_of(packs), sum(len(r.examples) for r in _rules_of(packs))
    verdict = "invalid" if problems or unread else ("examples fail" if failed else "ok")
    print(
        f"{', '.join(p.file for p in packs)}: {plural(len(rules), 'rule')}, {matched}; "
        f"{ran - failed} of {plural(ran, 'example')} pass: {verdict}"
    )
    if problems or unread:
        return 2
    return 1 if failed else 0


def _is_repo(path: str, rev: str) -> bool:
    from bot.trees.git import GitError, GitRepo

    with GitRepo(path) as repo:
        try:
            repo.resolve(rev)
        except GitError:
            return False
    return True


def _run_examples(packs: Sequence[RulePack]) -> int:
    """Runs every example of every rule, prints how each failing one differs; how many failed."""
    from bot.testing.examples import examples_of, mismatches

    failed = 0
    for pack, rule, example in examples_of(list(packs)):
        found = mismatches(rule, example)
        if found:
            failed += 1
            print(f"{pack.file}:{example.line}: example {example.name!r} of rule {rule.id!r} fails:")
            for line in found:
                print(f"  {line}")
    return failed


def run_init(args: argparse.Namespace) -> int:
    from bot.core.init import config_for, not_read
    from bot.trees.git import GitRepo, Scanned

    with GitRepo(args.repo) as repo:
        sha = repo.resolve(args.rev)
        tree = Scanned(repo.tree(sha))
        text = config_for(tree, sha[:9])
    if tree.absent:
        # A mirror filtered by size lacks its large files, data to init: said, not fatal.
        names = list(tree.absent)
        more = f" and {len(names) - 3} more" if len(names) > 3 else ""
        print(
            f"docs-sync: init read nothing of {', '.join(names[:3])}{more}: listed at {args.rev} "
            "with no content in this clone",
            file=sys.stderr,
        )
    if text is None:
        with GitRepo(args.repo) as repo:
            unread = not_read(Scanned(repo.tree(sha)))
        raise UsageError(
            f"no page at {args.rev} cites two or more flags of a command-line parser of {args.repo}, "
            "or keys of its config models and shipped configs; nothing to couple (write the rules by "
            "hand: see the README's Rules section)" + "".join(f"\n  {note}" for note in unread)
        )
    if not args.write:
        sys.stdout.write(text)
        return 0
    if not os.path.exists(os.path.join(args.repo, ".git")):
        raise UsageError(f"--write needs a working tree, and {args.repo} has none; print the config instead")
    path = os.path.join(args.repo, REPO_CONFIG)
    if os.path.exists(path):
        raise UsageError(f"{path} exists; remove it first, or run without --write to print a new one")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    print(
        f"docs-sync: wrote {path}; `docs-sync validate` checks it and `docs-sync audit` lists what it "
        "finds today (both read it from the working tree until it is committed)",
        file=sys.stderr,
    )
    return 0


def run_register(args: argparse.Namespace) -> int:
    """The manifest flow done for the user (bot/app/github/register.py)."""
    _need_app("register")
    import webbrowser
    from pathlib import Path

    import yaml

    from bot.app.github.register import RegisterError, register

    try:
        with open(args.manifest, encoding="utf-8") as f:
            manifest = yaml.safe_load(f)
    except OSError as e:
        raise UsageError(
            f"cannot read the manifest {args.manifest}: {e.strerror or e} (pass --manifest FILE)"
        ) from None
    if not isinstance(manifest, dict):
        raise UsageError(f"{args.manifest} is not a manifest (a YAML mapping)")
    if args.webhook_url:
        manifest = {
            **manifest,
            "hook_attributes": {**manifest.get("hook_attributes", {}), "url": args.webhook_url},
        }
    api = os.environ.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
    try:
        register(
            manifest,
            Path(args.env_file),
            org=args.org,
            port=args.port,
            github_url=args.github_url,
            api_url=api,
            open_page=None if args.no_browser else webbrowser.open,
            say=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except RegisterError as e:
        raise UsageError(str(e)) from None
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    try:
        code = _run(argv)
        sys.stdout.flush()
    except BrokenPipeError:  # `docs-sync demo | head`: the reader has seen enough
        _drop_stdout()
        return 1
    except Exception:
        # A bug, not a finding: exit 2 like any failure to check, never 1, which says the docs
        # are wrong. The traceback is for the bug report.
        import traceback

        traceback.print_exc()
        print("docs-sync: internal error (traceback above)", file=sys.stderr)
        return 2
    return code


QUICK_COMMANDS = ("check", "audit", "validate", "init")  # run's quick exit: they end with a report


def run() -> NoReturn:
    """The `docs-sync` command (and `python -m bot`): `main`, then, for the commands that read a
    repository and print a report, a quick exit. A check holds the syntax trees and facts of
    every file it read, and freeing them one by one as the interpreter shuts down costs a cold
    check of a large parser more than all its git reads; nothing is left to do by then (output
    flushed, caches committed and closed by their exit handlers, git's processes waited for), so
    once the exit handlers have run the process ends. The App's long-lived commands exit as
    usual."""
    words = [a for a in sys.argv[1:] if not a.startswith("-")]
    if not words or words[0] not in QUICK_COMMANDS:
        sys.exit(main())
    # What the imports made lives as long as the process: the collector need not walk it again.
    # A check allocates syntax trees and facts by the hundred thousand and makes few cycles, so
    # it collects less often than a long-lived program would.
    gc.freeze()
    gc.set_threshold(20_000, 20, 1_000)
    code = main()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe was said so by main
            stream.flush()
    atexit._run_exitfuncs()
    os._exit(code)


def _run(argv: Sequence[str] | None) -> int:
    args = parse_args(argv)
    from bot.trees.git import GitError

    try:
        if args.command == "check":
            return run_check(args)
        if args.command == "audit":
            return run_audit(args)
        if args.command == "validate":
            return run_validate(args)
        if args.command == "init":
            return run_init(args)
        if args.command == "demo":
            from bot.demo.run import main as demo_main

            if not args.cli_only:
                _need_app("demo")  # `--cli-only` is the checker alone
            return demo_main(app=not args.cli_only, keep=args.keep)
        if args.command == "serve":
            _need_app("serve")
            from bot.app.main import serve

            # port None: the PORT setting, checked with the others
            serve(args.host, args.port, with_worker=not args.no_worker)
            return 0
        if args.command == "register":
            return run_register(args)
        if args.command == "worker":
            _need_app("worker")
            from bot.app.main import work

            work()
            return 0
    except ConfigErrors as exc:
        for problem in exc.problems:
            print(f"docs-sync: {problem}", file=sys.stderr)
        return 2
    except (UsageError, GitError) as exc:
        print(f"docs-sync: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:
        from bot.core.rules import RulesError, RulesErrors

        if isinstance(exc, RulesErrors):
            for problem in exc.problems:
                print(f"docs-sync: {problem}", file=sys.stderr)
            return 2
        if isinstance(exc, RulesError):
            print(f"docs-sync: {exc}", file=sys.stderr)
            return 2
        raise
    return 2


if __name__ == "__main__":
    run()
