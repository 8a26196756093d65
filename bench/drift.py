"""Inject realistic drift into a real repository and measure what `docs-sync check` catches.

    python bench/drift.py --repo PATH/TO/CLONE [--rev REV] [--rules FILE] [--samples 20]
        [--seed 1] [--out DRIFT.jsonl]

Without `--rules`, the rules are what `docs-sync init` writes for `--rev`, unedited: the setup a
new user has on the first day. From those rules it lists every documented fact: a flag (or
config key) one file of the rules' sources declares and one of the rule's pages cites (a token
several files declare is left out: which one a line means is a judgement, not a ground truth,
unless the line's command runs a program that takes only one of them; a line whose command runs
another program of the repository cites that program's flag, not this one; a line in a part of
the page kept for history, an upgrade guide's "remove `--recursive`", says the code lacks it
and is no citation to follow). For a seeded
sample of them it makes the change a maintainer would make to the code alone, each as one commit
on top of `--rev` in a scratch repository that borrows the clone's objects (nothing is checked
out, the clone is never written):

- `rename`: the option string (or the field a dataclass-built flag comes from) gets another name;
- `default`: a numeric or boolean default the page claims is changed;
- `remove`: the statement declaring the flag is deleted (a setting: its entry of the dict).

An injection is kept only when the facts at the new commit show it (the old token gone, the
default changed); the others are counted as not injectable. Then it runs the installed command
line, `docs-sync check --base REV --head DRIFT --format json`, and counts a drift caught when a
finding sits on a line of the page that cites the fact (for `default`, the line of the claim; a
switch whose default flips changes what every line passing it means, so those lines count too).
It prints recall (drifts caught / injected) and line recall (citing lines reported / citing
lines), per mutation, and every finding elsewhere, so a noisy catch shows. No code of the
replayed project is written into this repository.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import posixpath
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.doclines import kept_for_history
from bot.core.facts import Facts, gather
from bot.core.globs import expand_all
from bot.core.model import Fact
from bot.core.packfiles import REPO_CONFIG
from bot.core.packs import parse_repo_config
from bot.core.page import parse_doc
from bot.core.programs import programs
from bot.core.rules import Rule
from bot.trees.git import GitRepo, GitTree

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _git(repo: str, *args: str, env: dict[str, str] | None = None, input: str | None = None) -> str:
    proc = subprocess.run(
        ["git", "-C", repo, *args], capture_output=True, text=True, env=env, input=input, check=True
    )
    return proc.stdout


@dataclass
class Target:
    """A documented fact: what the code declares and the page lines that cite it."""

    rule: Rule
    fact: Fact
    lines: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # page -> citing lines
    claims: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))  # page -> default claims


@dataclass(frozen=True)
class Drift:
    mutation: str
    target: Target
    path: str
    text: str  # the source file after the change
    expected: dict[str, set[int]]


def documented(rules: list[Rule], tree: GitTree) -> list[Target]:
    targets: dict[tuple[str, str, str], Target] = {}
    found_programs = programs(tree)
    for rule in expand_all(rules, tree, tree, {}):
        facts = gather(rule, tree)
        flags: dict[str, list[Fact]] = defaultdict(list)
        for fact in drifting(rule, facts):
            flags[fact.token].append(fact)
        for doc in rule.docs:
            text = tree.read(doc.path)
            if text is None:
                continue
            page = parse_doc(doc.path, text)
            for ref in (*page.refs, *page.mentions):
                if kept_for_history(page, ref.line, gone_now=True):
                    continue  # an upgrade guide's "remove `--recursive`": the check rightly keeps it
                declared = flags.get(ref.token, ())
                if ref.command:
                    # The flags of the program the line runs: `torchrun run_clm.py --fp16` passes
                    # run_clm.py's `--fp16` (its trainer's), not the one another script declares.
                    taken = found_programs.facts_for(ref.command, declared, posixpath.dirname(doc.path))
                    if taken is not None or len({f.path for f in declared}) > 1:
                        declared = taken or []
                if len({f.path for f in declared}) != 1:
                    continue  # declared by several files: which one the line means is a judgement
                for fact in declared:
                    key = (fact.path, fact.key, fact.token)
                    target = targets.setdefault(key, Target(rule, fact))
                    target.lines[doc.path].add(ref.line)
            for claim in page.claims:
                for fact in flags.get(claim.subject or "", ()):
                    key = (fact.path, fact.key, fact.token)
                    if key in targets:
                        targets[key].claims[doc.path].add(claim.line)
    return list(targets.values())


def drifting(rule: Rule, facts: Facts) -> list[Fact]:
    """The facts drift is injected into: the flags, and the keys of dicts of settings' defaults
    (`'SITENAME': 'A Blog',`, renamed, changed and removed as one entry of the dict)."""
    settings = {s.id for s in rule.sources if s.kind == "settings"}
    return [*facts.flags(), *(f for f in facts.facts if f.kind == "key" and f.source in settings)]


def _renamed(token: str) -> str:
    sep = "_" if "_" in token and "-" not in token.lstrip("-") else "-"
    setting = token.isupper() and token[:1] != "-"  # a setting stays in capitals
    return f"{token}{sep}{'LIMIT' if setting else 'limit'}"


def rename(text: str, fact: Fact) -> str | None:
    lines = text.splitlines(keepends=True)
    for quote in ('"', "'"):
        literal = f"{quote}{fact.token}{quote}"
        for i in range(fact.line - 1, min(len(lines), fact.line + 12)):
            if literal in lines[i]:
                lines[i] = lines[i].replace(literal, f"{quote}{_renamed(fact.token)}{quote}", 1)
                return "".join(lines)
    spec = _spec(text, fact)
    if spec is not None:  # `{"name": "model", ...}` of a list of option specs: its name
        # A short option is the spec's nickname (`"nickname": "m"` for `-m`), a long one its name.
        short = not fact.token.startswith("--")
        entry = "nickname" if short else "name"
        renamed = repr(fact.token[1:] + "x") if short else repr(f"{fact.key}_limit")
        name = next((v for k, v in zip(spec.keys, spec.values, strict=True) if _is(k, entry)), None)
        if name is None:
            return None
        at = name.lineno - 1
        lines[at] = lines[at][: name.col_offset] + renamed + lines[at][name.end_col_offset or 0 :]
        return "".join(lines)
    # A flag built from a field: rename the field where it is declared.
    if 0 < fact.line <= len(lines):
        line = lines[fact.line - 1]
        pattern = re.compile(rf"^(\s*){re.escape(fact.key)}(\s*[:=])")
        if pattern.match(line):
            lines[fact.line - 1] = pattern.sub(rf"\g<1>{fact.key}_limit\g<2>", line, count=1)
            return "".join(lines)
    return None


def _bumped(value: str) -> str | None:
    if value in ("True", "False"):
        return "False" if value == "True" else "True"
    if _NUMBER.fullmatch(value):
        return str(int(value) * 2 + 1) if value.lstrip("-").isdigit() else str(float(value) * 2)
    return None


def change_default(text: str, fact: Fact) -> str | None:
    default = fact.attr("default")
    new = _bumped(default or "")
    if default is None or new is None:
        return None
    lines = text.splitlines(keepends=True)
    keyword = re.compile(rf"(default\s*=\s*){re.escape(default)}\b")
    field_ = rf"^(\s*{re.escape(fact.key)}\s*:[^=#]*=\s*(?:field\(\s*default\s*=\s*)?)"
    annotated = re.compile(rf"{field_}{re.escape(default)}\b")
    # A parameter typed `Annotated[int, typer.Option(...)] = 8`: the default after the bracket.
    after_annotated = re.compile(rf"(\]\s*=\s*){re.escape(default)}\b")
    # An entry of a dict of settings: `'SUMMARY_MAX_LENGTH': 50,`.
    entry = re.compile(rf"""(["']{re.escape(fact.key)}["']\s*:\s*){re.escape(default)}\b""")
    for i in range(fact.line - 1, min(len(lines), fact.line + 12)):
        for pattern in (keyword, annotated, after_annotated, entry):
            if pattern.search(lines[i]):
                lines[i] = pattern.sub(rf"\g<1>{new}", lines[i], count=1)
                return "".join(lines)
    return None


def remove(text: str, fact: Fact) -> str | None:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    removed = (
        _remove_parameter(text, tree, fact)
        or _remove_record(text, tree, fact)
        or _remove_element(text, tree, fact)
    )
    removed = removed or _remove_entry(text, tree, fact)
    if removed is not None:
        return removed
    spec = _spec(text, fact)
    if spec is not None:  # one option spec of a list: that dict goes, the loop's call stays
        lines = text.splitlines(keepends=True)
        end = spec.end_lineno or spec.lineno
        if not lines[spec.lineno - 1][: spec.col_offset].strip() and lines[end - 1][
            spec.end_col_offset or 0 :
        ].strip() in ("", ","):
            del lines[spec.lineno - 1 : end]
            return "".join(lines)
    statements = (ast.Expr, ast.AnnAssign, ast.Assign)
    around = [
        n
        for n in ast.walk(tree)
        if isinstance(n, statements) and n.lineno <= fact.line <= (n.end_lineno or n.lineno)
    ]
    best = max(around, key=lambda n: n.lineno, default=None)  # the innermost statement
    if best is None:
        return None
    lines = text.splitlines(keepends=True)
    indent = lines[best.lineno - 1][: best.col_offset]
    del lines[best.lineno - 1 : best.end_lineno or best.lineno]
    lines.insert(best.lineno - 1, f"{indent}pass\n")  # keeps a body that had one statement valid
    return "".join(lines)


def _remove_entry(text: str, tree: ast.Module, fact: Fact) -> str | None:
    """A setting's entry of its dict, when it has its lines to itself (`    'PORT': 8000,`)."""
    if fact.kind != "key":
        return None
    lines = text.splitlines(keepends=True)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None or key.lineno != fact.line or not _is(key, fact.token):
                continue
            end = value.end_lineno or value.lineno
            before = lines[key.lineno - 1][: key.col_offset]
            after = lines[end - 1][value.end_col_offset or 0 :]
            if before.strip() or after.strip() not in ("", ","):
                return None
            del lines[key.lineno - 1 : end]
            return "".join(lines)
    return None


def _spec(text: str, fact: Fact) -> ast.Dict | None:
    """The option spec declaring the flag, when the file declares its flags from a list of dict
    literals (`{"name": "model", "nickname": "m", ...}`, looped over into `add_argument`): the
    one whose `"name"` is the flag's dest, when only one is."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    found = [
        d
        for lst in ast.walk(tree)
        if isinstance(lst, ast.List | ast.Tuple)
        for d in lst.elts
        if isinstance(d, ast.Dict)
        and any(_is(k, "name") and _is(v, fact.key) for k, v in zip(d.keys, d.values, strict=True))
    ]
    return found[0] if len(found) == 1 else None


def _is(node: ast.expr | None, value: str) -> bool:
    return isinstance(node, ast.Constant) and node.value == value


def _remove_record(text: str, tree: ast.Module, fact: Fact) -> str | None:
    """A flag declared by one of the records a call is handed (`options.add_options(Option("-s",
    ...), Option("-f", ...))`, a registry's): that argument is deleted, on its own lines, and the
    other records kept (deleting the statement would take every flag with it)."""
    lines = text.splitlines(keepends=True)
    found = None
    for call in ast.walk(tree):
        if not isinstance(call, ast.Call):
            continue
        records = [a for a in call.args if isinstance(a.value if isinstance(a, ast.Starred) else a, ast.Call)]
        if len(records) < 2:
            continue
        for arg in records:
            end = arg.end_lineno or arg.lineno
            if not arg.lineno <= fact.line <= end or arg.lineno == call.lineno:
                continue
            alone = not lines[arg.lineno - 1][: arg.col_offset].strip() and lines[end - 1][
                arg.end_col_offset or 0 :
            ].strip() in ("", ",")
            if alone and (found is None or arg.lineno > found.lineno):
                found = arg
    if found is None:
        return None
    del lines[found.lineno - 1 : found.end_lineno or found.lineno]
    return "".join(lines)


def _remove_element(text: str, tree: ast.Module, fact: Fact) -> str | None:
    """A flag declared by one of the calls a tuple or list holds (`_import_options =
    (click.option("--nl", ...), click.option("--csv", ...))`, applied in a decorator's loop): that
    element is deleted, on its own lines, and the others kept (as `_remove_record`)."""
    lines = text.splitlines(keepends=True)
    found = None
    for seq in ast.walk(tree):
        if not isinstance(seq, ast.Tuple | ast.List) or sum(isinstance(e, ast.Call) for e in seq.elts) < 2:
            continue
        for e in seq.elts:
            end = e.end_lineno or e.lineno
            if not isinstance(e, ast.Call) or not e.lineno <= fact.line <= end or e.lineno == seq.lineno:
                continue
            alone = not lines[e.lineno - 1][: e.col_offset].strip() and lines[end - 1][
                e.end_col_offset or 0 :
            ].strip() in ("", ",")
            if alone and (found is None or e.lineno > found.lineno):
                found = e
    if found is None:
        return None
    del lines[found.lineno - 1 : found.end_lineno or found.lineno]
    return "".join(lines)


def _remove_parameter(text: str, tree: ast.Module, fact: Fact) -> str | None:
    """A flag made from a function's parameter (typer, jsonargparse; click's with the option
    decorator that declares it): the parameter is deleted from the signature, with its default,
    and so is a click decorator on the fact's line."""
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = [*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs]
        param = next((a for a in params if a.arg == fact.key), None)
        if param is None:
            continue
        decorator = next(
            (d for d in fn.decorator_list if d.lineno <= fact.line <= (d.end_lineno or d.lineno)), None
        )
        end = _param_end(fn, param)
        if decorator is None and not param.lineno <= fact.line <= end[0]:
            continue
        spans = [(param.lineno, param.col_offset, *end)]
        if decorator is not None:  # `@click.option(...)`: its lines go too
            spans.append((decorator.lineno, -1, decorator.end_lineno or decorator.lineno, -1))
        return _cut(text, spans)
    return None


def _param_end(fn: ast.FunctionDef | ast.AsyncFunctionDef, param: ast.arg) -> tuple[int, int]:
    """Where the parameter's text ends: after its default, if it has one."""
    positional = [*fn.args.posonlyargs, *fn.args.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(fn.args.defaults)) + list(
        fn.args.defaults
    )
    pairs = list(zip(positional, defaults, strict=True)) + list(
        zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True)
    )
    default = next((d for a, d in pairs if a is param), None)
    node: ast.AST = default if default is not None else param
    return (getattr(node, "end_lineno", None) or param.lineno, getattr(node, "end_col_offset", None) or 0)


def _cut(text: str, spans: list[tuple[int, int, int, int]]) -> str:
    """`text` without each span (line, column, end line, end column; column -1 for whole lines),
    a parameter's with the comma after it."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    cuts = []
    for line, col, end_line, end_col in spans:
        if col < 0 or end_col < 0:
            cuts.append((offsets[line - 1], offsets[end_line]))
            continue
        start, end = offsets[line - 1] + col, offsets[end_line - 1] + end_col
        if not text[offsets[line - 1] : start].strip():
            start = offsets[line - 1]  # the parameter starts its line: the line's indent goes too
        rest = re.match(r"\s*,[ \t]*\n?", text[end:])
        end += rest.end() if rest else 0
        cuts.append((start, end))
    for start, end in sorted(cuts, reverse=True):
        text = text[:start] + text[end:]
    return text


MUTATIONS = {"rename": rename, "default": change_default, "remove": remove}


def injected(drift: Drift, head: GitTree) -> bool:
    """Do the facts at the new commit show the change?"""
    fact = drift.target.fact
    rule = drift.target.rule
    after = [f for f in drifting(rule, gather(rule, head)) if (f.path, f.key) == (fact.path, fact.key)]
    tokens = {f.token for f in after}
    if drift.mutation in ("rename", "remove"):
        return drift.target.fact.token not in tokens
    same = [f for f in after if f.token == drift.target.fact.token]
    return bool(same) and all(f.attr("default") != drift.target.fact.attr("default") for f in same)


class Scratch:
    """A bare repository borrowing the clone's objects; each drift is one commit on `rev`."""

    def __init__(self, clone: str, rev: str, where: str):
        self.path = where
        subprocess.run(["git", "init", "-q", "--bare", where], check=True)
        objects = _git(clone, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
        Path(where, "objects", "info", "alternates").write_text(f"{objects}/objects\n")
        self.rev = _git(clone, "rev-parse", f"{rev}^{{commit}}").strip()
        self.index = os.path.join(where, "drift-index")

    def commit(self, path: str, text: str, message: str) -> str:
        blob = _git(self.path, "hash-object", "-w", "--stdin", input=text).strip()
        env = {**os.environ, "GIT_INDEX_FILE": self.index}
        _git(self.path, "read-tree", self.rev, env=env)
        _git(self.path, "update-index", "--cacheinfo", f"100644,{blob},{path}", env=env)
        tree = _git(self.path, "write-tree", env=env).strip()
        env |= {"GIT_AUTHOR_NAME": "drift", "GIT_AUTHOR_EMAIL": "drift@example.invalid"}
        env |= {"GIT_COMMITTER_NAME": "drift", "GIT_COMMITTER_EMAIL": "drift@example.invalid"}
        return _git(self.path, "commit-tree", tree, "-p", self.rev, "-m", message, env=env).strip()


def run_check(repo: str, rules: str, base: str, head: str) -> tuple[int, dict | None, str]:
    cmd = [sys.executable, "-m", "bot", "check", "--repo", repo, "--rules", rules, "--base", base]
    cmd += ["--head", head, "--format", "json", "--fail-on", "never", "--no-history"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return proc.returncode, json.loads(proc.stdout), proc.stderr
    except json.JSONDecodeError:
        return proc.returncode, None, proc.stderr


def init_rules(repo: str, rev: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-m", "bot", "init", "--repo", repo, "--rev", rev], capture_output=True, text=True
    )
    if proc.returncode != 0:
        sys.exit(f"docs-sync init failed ({proc.returncode}): {proc.stderr.strip()}")
    return proc.stdout


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", required=True, help="a clone or bare mirror (never written)")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--rules", help="a rules file; default: what `docs-sync init` writes for --rev")
    parser.add_argument("--samples", type=int, default=20, help="drifts per mutation")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", help="write each drift and its findings here (JSON lines)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="docs-sync-drift-") as tmp:
        rules_file = os.path.join(tmp, "rules.yml")
        text = Path(args.rules).read_text() if args.rules else init_rules(args.repo, args.rev)
        Path(rules_file).write_text(text)
        if "rules:" not in text:
            print("init wrote no rules: nothing to inject into")
            return 1
        rules = [r for pack in parse_repo_config(text, REPO_CONFIG) for r in pack.rules]
        scratch = Scratch(args.repo, args.rev, os.path.join(tmp, "scratch.git"))
        with GitRepo(args.repo) as clone:
            base_tree = clone.tree(scratch.rev)
            targets = documented(rules, base_tree)
            print(f"{len(targets)} documented facts in {len(rules)} rule(s) at {scratch.rev[:10]}")
            rng = random.Random(args.seed)
            drifts: list[Drift] = []
            skipped: Counter[str] = Counter()
            for mutation, make in MUTATIONS.items():
                pool = [t for t in targets if mutation != "default" or t.claims]
                rng.shuffle(pool)
                kept = 0
                for target in pool:
                    if kept >= args.samples:
                        break
                    source = base_tree.read(target.fact.path)
                    new = make(source, target.fact) if source is not None else None
                    if new is None or new == source:
                        skipped[mutation] += 1
                        continue
                    expected = target.lines if mutation != "default" else target.claims
                    if mutation == "default" and target.fact.attr("default") in ("True", "False"):
                        expected = {p: target.lines.get(p, set()) | ns for p, ns in target.claims.items()}
                    drifts.append(Drift(mutation, target, target.fact.path, new, dict(expected)))
                    kept += 1
        results: Counter[str] = Counter()
        totals: Counter[str] = Counter()
        lines_hit: Counter[str] = Counter()
        lines_all: Counter[str] = Counter()
        crashes = 0
        elsewhere: list[str] = []
        out = open(args.out, "w") if args.out else None  # noqa: SIM115
        with GitRepo(scratch.path) as repo:
            for drift in drifts:
                fact = drift.target.fact
                sha = scratch.commit(drift.path, drift.text, f"drift: {drift.mutation} {fact.token}")
                if not injected(drift, repo.tree(sha)):
                    skipped[drift.mutation] += 1
                    continue
                code, report, stderr = run_check(scratch.path, rules_file, scratch.rev, sha)
                totals[drift.mutation] += 1
                if report is None or code not in (0, 1):
                    crashes += 1
                    print(f"CRASH {drift.mutation} {fact.token}: exit {code}: {stderr.strip()[-300:]}")
                    continue
                found = {(f["doc"]["path"], f["doc"]["line"]) for f in report["findings"] if f.get("doc")}
                wanted = {(p, n) for p, ns in drift.expected.items() for n in ns}
                hit = found & wanted
                results[drift.mutation] += bool(hit)
                lines_hit[drift.mutation] += len(hit)
                lines_all[drift.mutation] += len(wanted)
                for f in report["findings"]:
                    where = (f["doc"]["path"], f["doc"]["line"]) if f.get("doc") else None
                    if where not in wanted:
                        elsewhere.append(
                            f"{drift.mutation} {fact.token}: {f['kind']} {f['symbol']} at {where}"
                        )
                if not hit:
                    at = f"{fact.path}:{fact.line}"
                    print(f"MISSED {drift.mutation} {fact.token} ({at}) cited at {sorted(wanted)}")
                if out:
                    row = {"mutation": drift.mutation, "token": fact.token, "path": fact.path}
                    row |= {"expected": sorted(wanted), "caught": sorted(hit), "findings": report["findings"]}
                    out.write(json.dumps(row) + "\n")
        if out:
            out.close()
    print()
    print(f"{'mutation':10} {'injected':>8} {'caught':>7} {'recall':>7} {'line recall':>12} {'skipped':>8}")
    for mutation in MUTATIONS:
        n = totals[mutation]
        recall = f"{results[mutation] / n:.0%}" if n else "-"
        line_recall = f"{lines_hit[mutation] / lines_all[mutation]:.0%}" if lines_all[mutation] else "-"
        print(
            f"{mutation:10} {n:8} {results[mutation]:7} {recall:>7} {line_recall:>12} {skipped[mutation]:8}"
        )
    n = sum(totals.values())
    if n:
        print(f"{'all':10} {n:8} {sum(results.values()):7} {sum(results.values()) / n:7.0%}")
    print(f"crashes: {crashes}; findings off the cited lines: {len(elsewhere)}")
    for line in elsewhere[:40]:
        print("  " + line)
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
