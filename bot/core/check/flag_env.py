"""The environment variables options read (click's `envvar=` and `auto_envvar_prefix`,
configargparse's `env_var=` and `auto_env_var_prefix`) against the lines that cite them: a page
setting `APP_HOST=x app` or naming `APP_HOST` documents that variable as much as `--host`.

- code -> doc: a cited variable no option reads at head. When the option that read it is still
  there under the same destination and reads one other variable now, that is a rename and the
  line is rewritten; otherwise the variable went with its option (or the option stopped reading
  it) and the line is said to cite what nothing reads.

Any spelling a page gives the name counts (`APP_HOST`, `$APP_HOST`, `${APP_HOST}`, a fenced
`APP_HOST=x`, a manifest's `- name: APP_HOST`): the page sets or names the variable the option
read, whatever the block is.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.check import wording
from bot.core.check.codenames import cited_name, environment
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.facts import ParseCache
from bot.core.model import READ_AHEAD, Fact, read_ahead
from bot.core.page import Ref

_CITES = ("key", "name", "value")  # a fenced `NAME=value` is a key; a span a name or a value

Gone = dict[str, tuple[Fact, Fact | None]]  # variable -> the option that read it, its successor


def read_by(facts: Iterable[Fact]) -> dict[str, list[Fact]]:
    """Environment variable -> the options reading it."""
    out: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.kind != "flag":
            continue
        for name in (fact.attr("envvar") or "").split(","):
            if name and fact not in out.get(name, ()):
                out.setdefault(name, []).append(fact)
    return out


def gone_env(inputs: RuleInputs, cache: ParseCache | None = None) -> Gone:
    """Variable the base's options read and no option reads at head -> the option that read it
    and, when the same option reads one other variable now, that option at head. A variable the
    sources still read or name otherwise (`os.environ.get("APP_HOST")`, a fallback kept for the
    old name) is not gone."""
    before = read_by(inputs.base_facts.flags())
    if not before:
        return {}
    after = read_by(inputs.head_facts.flags())
    if before.keys() <= after.keys():
        return {}  # most changes: every variable is still read
    env = environment(inputs.rule, inputs.head, inputs.touched.renames, cache, before.keys() - after.keys())
    if env is None:
        return {}  # a source read in part may read any of them past where it stopped
    out: Gone = {}
    for name, olds in before.items():
        if name in after or name in env.read or name in env.used:
            continue
        old = next((f for f in olds if f.token.startswith("--")), olds[0])  # the long spelling
        same = [f for f in inputs.head_facts.flags() if f.key == old.key and f.source == old.source]
        successors: dict[str, Fact] = {}
        for f in sorted(same, key=lambda f: not f.token.startswith("--")):  # the long spelling first
            successors.setdefault(f.attr("envvar") or "", f)
        successors.pop("", None)
        new = next(iter(successors.values())) if len(successors) == 1 else None
        if new is not None and "," in (new.attr("envvar") or ""):
            new = None  # reads several now: which one the page means is not known
        out[name] = (old, new)
    still = _named_beside(inputs, out.keys()) if out else set()
    return {name: gone for name, gone in out.items() if name not in still}


# Code files beside the sources read for a variable still named there, at most this many.
_CODE = (".py", ".sh", ".bash")
_MAX_BESIDE = 3000


def _named_beside(inputs: RuleInputs, names: Iterable[str]) -> set[str]:
    """Those of `names` that the package's other code still names (a deprecated variable the
    application reads itself, with a warning): the part of the repository a source stands for
    is its top-level folder. Tests are left out, as they keep old names to test the change."""
    wanted = set(names)
    sources = {p for s in inputs.rule.sources if s.kind != "paths" for p in s.paths}
    tops = {p.split("/", 1)[0] if "/" in p else "" for p in sources}
    beside = sorted(
        p
        for p in inputs.head.paths()
        if p.endswith(_CODE)
        and p not in sources
        and (p.split("/", 1)[0] if "/" in p else "") in tops
        and not _is_test(p)
    )
    found: set[str] = set()
    for i, path in enumerate(beside[:_MAX_BESIDE]):
        if i % READ_AHEAD == 0:  # in the App, one query for the next files
            read_ahead(inputs.head, beside[i : min(i + READ_AHEAD, _MAX_BESIDE)])
        text = inputs.head.read(path) or ""
        found |= {n for n in wanted - found if n in text}
        if found == wanted:
            break
    return found


def _is_test(path: str) -> bool:
    parts = path.split("/")
    return any(p in ("test", "tests", "testing") for p in parts[:-1]) or parts[-1].startswith("test_")


def stale_env(inputs: RuleInputs, page: Page, gone: Gone, out: Findings) -> None:
    """code -> doc: lines citing a variable that no option reads at head (`gone`: gone_env's)."""
    if not gone:
        return
    for ref in page.refs:
        if ref.kind not in _CITES:
            continue
        name = _named(ref)
        if name is None or name not in gone or is_external(name, inputs.rule.external):
            continue
        old, new = gone[name]
        if new is not None:
            renamed = new.attr("envvar") or ""
            out.emit(
                "renamed",
                name,
                wording.env_renamed(name, renamed, new),
                doc=page.doc,
                line=ref.line,
                code=inputs.code_line(old, new),
                edit=(name, renamed) if ref.kind == "key" else (ref.token, ref.token.replace(name, renamed)),
                why=wording.why_env_renamed(name, renamed, old, new),
            )
        else:
            out.emit(
                "removed",
                name,
                wording.env_removed(name, old),
                doc=page.doc,
                line=ref.line,
                code=inputs.code_line(old, None),
                why=wording.why_env_removed(name, old, inputs.rule.id),
            )


def _named(ref: Ref) -> str | None:
    """The variable a reference names: a span's name; a block's key, set in a shell line or a
    compose file's `environment:` (its last name), or the value of a `name:` in a list of
    variables (Kubernetes' `env: [{name: APP_HOST, value: x}]`)."""
    if ref.kind != "key":
        return cited_name(ref.token)
    leaf = ref.token.rpartition(".")[2]
    if leaf == "name" and ref.value:
        return ref.value
    return leaf
