"""Replay constructed renames on a real miles clone and show what `docs-sync check` says.

    python bench/replay_renames.py --repo PATH/TO/MILES [--rules miles] [--keep DIR]
    python bench/replay_renames.py --repo PATH/TO/MILES --rules bench/rules/miles-docs.yml

It clones `--repo` (a clone or a bare mirror of radixark/miles; it is never modified) into a
scratch directory, commits each constructed change below on a branch of its own from the
clone's HEAD, runs `docs-sync check --base HEAD --head BRANCH --format json` with this
checkout's code, and prints every finding with its suggested line and whether the case came
out as it should. Nothing of miles is written into this repository.

The changes, as a maintainer would make them:

- `fp32`: `FSDPArgs.keep_fp32_master` becomes `fp32_master_weights` in every .py file of
  miles/, tests/, scripts/ and examples/ (both spellings, `keep_fp32_master` and
  `keep-fp32-master`). The page's `--no-keep-fp32-master` must be `renamed` to
  `--no-fp32-master-weights`, saying why, with no new-flag notice. With the one-page pack
  (`--rules miles`) the lines judged are training-backend.md's; with another rules file,
  every page's but docs/diffusion/'s.
- `gc`: `gradient_checkpointing` becomes `activation_checkpointing` in the same files, which
  (with the .sh launchers of scripts/ and examples/) pass `--activation-checkpointing` for
  `--gradient-checkpointing`. Every line of the page citing the old flag must be `renamed`.
- `fp32+doc`, `gc+doc`: the same with the pages fixed too (every page under docs/ but
  docs/diffusion/): the check must end `success`.
- `disable`: a doc edit at HEAD citing `--disable-fp32-master` (the flag before #2384): no
  suggestion may be the opposite switch `--keep-fp32-master`.

Exit 0 when every case came out as it should, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

PAGE = "docs/user-guide/training-backend.md"
CODE_DIRS = ("miles/", "tests/", "scripts/", "examples/")
LAUNCHER_DIRS = ("scripts/", "examples/")


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def _files(repo: Path, dirs: tuple[str, ...], suffixes: tuple[str, ...]) -> list[Path]:
    listed = _git(repo, "ls-files", "--", *dirs).splitlines()
    return [repo / p for p in listed if p.endswith(suffixes)]


def _sub(paths: list[Path], pairs: list[tuple[str, str]]) -> int:
    """Apply each (pattern, replacement) to every file; how many files changed."""
    changed = 0
    for path in paths:
        text = path.read_text(encoding="utf-8")
        new = text
        for pattern, repl in pairs:
            new = re.sub(pattern, repl, new)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def _pages(repo: Path) -> list[Path]:
    """Every page under docs/ but docs/diffusion/ (another repository's pages)."""
    return [p for p in _files(repo, ("docs/",), (".md",)) if "docs/diffusion/" not in p.as_posix()]


def rename_fp32(repo: Path, doc: bool) -> None:
    pairs = [(r"keep_fp32_master", "fp32_master_weights"), (r"keep-fp32-master", "fp32-master-weights")]
    _sub(_files(repo, CODE_DIRS, (".py",)), pairs)
    if doc:
        _sub(_pages(repo), pairs[1:])


def rename_gc(repo: Path, doc: bool) -> None:
    # Word bounds keep Hugging Face's `gradient_checkpointing_enable()` as it is.
    pairs = [(r"\bgradient_checkpointing\b", "activation_checkpointing")]
    _sub(_files(repo, CODE_DIRS, (".py",)), pairs)
    flag = [(r"(?<![\w-])(--(?:no-)?)gradient-checkpointing\b", r"\1activation-checkpointing")]
    _sub(_files(repo, CODE_DIRS, (".py",)) + _files(repo, LAUNCHER_DIRS, (".sh",)), flag)
    if doc:
        _sub(_pages(repo), flag)


def cite_disable(repo: Path) -> None:
    page = repo / PAGE
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("`--no-keep-fp32-master` trades", "`--disable-fp32-master` trades"), "utf-8")


def _check(repo: Path, rules: str, base: str, branch: str) -> dict:
    root = Path(__file__).resolve().parent.parent
    cmd = [sys.executable, "-m", "bot", "check", "--repo", str(repo), "--rules", rules]
    cmd += ["--base", base, "--head", branch, "--format", "json", "--fail-on", "error", "--no-cache"]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    if proc.returncode not in (0, 1):
        raise SystemExit(
            f"docs-sync check failed on {branch} (exit {proc.returncode}): {proc.stderr.strip()}"
        )
    report: dict = json.loads(proc.stdout)
    report["exit"] = proc.returncode
    return report


def _old_flag_lines(repo: Path, flag: str, pages: list[Path]) -> list[tuple[str, int]]:
    """(page, line) of every line of `pages` citing `flag` in code style."""
    out = []
    for page in pages:
        lines = page.read_text(encoding="utf-8").splitlines()
        where = page.relative_to(repo).as_posix()
        out += [(where, n) for n, line in enumerate(lines, 1) if re.search(rf"`{re.escape(flag)}[`\s]", line)]
    return out


def _renamed_on(report: dict, lines: list[tuple[str, int]], new: str) -> list[str]:
    """What is wrong with the report, for a case whose every line in `lines` must be renamed
    to `new`, saying why, with no new-flag notice."""
    problems = []
    by_line = {
        (f["doc"]["path"], f["doc"]["line"]): f
        for f in report["findings"]
        if f.get("doc") and f["kind"] == "renamed"
    }
    for line in lines:
        f = by_line.get(line)
        if f is None:
            problems.append(f"line {line}: no `renamed` finding")
        elif not f.get("suggestion") or new not in f["suggestion"]["replacement"]:
            problems.append(f"line {line}: suggestion does not say {new}")
        elif "the same change replaced" not in f["message"]:
            problems.append(f"line {line}: the message names no evidence")
    problems += [f"unexpected new-flag {f['symbol']}" for f in report["findings"] if f["kind"] == "new-flag"]
    return problems


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repo", required=True, help="a clone or bare mirror of radixark/miles")
    p.add_argument("--rules", default="miles", help="rules file or pack (default: miles)")
    p.add_argument("--keep", help="build the scratch clone here and leave it (default: a temp dir)")
    args = p.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.keep or tmp) / "miles"
        subprocess.run(["git", "clone", "-q", "--shared", args.repo, str(work)], check=True)
        for key, value in (("user.name", "replay"), ("user.email", "replay@localhost")):
            _git(work, "config", key, value)
        # The one-page pack reads training-backend.md; another rules file may read every page.
        pages = [work / PAGE] if args.rules == "miles" else _pages(work)
        gc_lines = _old_flag_lines(work, "--gradient-checkpointing", pages)
        fp32_lines = _old_flag_lines(work, "--no-keep-fp32-master", pages)

        cases: list[tuple[str, Callable[[Path], None], Callable[[dict], list[str]]]] = [
            (
                "fp32",
                lambda r: rename_fp32(r, doc=False),
                lambda rep: _renamed_on(rep, fp32_lines, "--no-fp32-master-weights"),
            ),
            (
                "gc",
                lambda r: rename_gc(r, doc=False),
                lambda rep: _renamed_on(rep, gc_lines, "--activation-checkpointing"),
            ),
            ("fp32+doc", lambda r: rename_fp32(r, doc=True), _succeeds),
            ("gc+doc", lambda r: rename_gc(r, doc=True), _succeeds),
            ("disable", cite_disable, _no_opposite),
        ]
        start = _git(work, "rev-parse", "HEAD").strip()
        failed = 0
        for name, edit, judge in cases:
            _git(work, "checkout", "-q", "-B", f"replay-{name}", start)
            edit(work)
            _git(work, "commit", "-q", "-am", f"replay {name}")
            _git(work, "checkout", "-q", "--detach", start)
            report = _check(work, args.rules, start, f"replay-{name}")
            problems = judge(report)
            failed += bool(problems)
            print(
                f"== {name}: {report['conclusion']} (exit {report['exit']})  {'FAIL' if problems else 'ok'}"
            )
            for f in report["findings"]:
                where = f"{f['doc']['path']}:{f['doc']['line']}" if f.get("doc") else f["code"]["path"]
                print(f"  {f['severity']:7} {f['kind']:10} {where}  {f['message']}")
                if f.get("suggestion"):
                    print(f"    + {f['suggestion']['replacement'].strip()}")
            for problem in problems:
                print(f"  !! {problem}")
    return 1 if failed else 0


def _succeeds(report: dict) -> list[str]:
    if report["conclusion"] == "success" and report["exit"] == 0:
        return []
    return [f"ends {report['conclusion']} (exit {report['exit']}), not success"]


def _no_opposite(report: dict) -> list[str]:
    wrong = "--keep-fp32-master"
    return [
        f"opposite switch suggested on line {f['doc']['line']}"
        for f in report["findings"]
        if f.get("suggestion")
        and re.search(rf"`{wrong}`", f["suggestion"]["replacement"])
        or f"`{wrong}`?" in f["message"]
    ]


if __name__ == "__main__":
    sys.exit(main())
