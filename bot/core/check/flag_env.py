"""The environment variables options read (click's `envvar=` and `auto_envvar_prefix`,
configargparse's `env_var=` and `auto_env_var_prefix`) against the lines that cite them: a page
setting `APP_HOST=x app` or naming `APP_HOST` documents that variable as much as `--host`.

- code -> doc: a cited variable no option reads at head. When the option that read it is still
  there under the same destination and reads one other variable now, that is a rename and the
  line is rewritten; otherwise the variable went with its option (or the option stopped reading
  it) and the line is said to cite what nothing reads.

Any spelling a page gives the name counts (`APP_HOST`, `$APP_HOST`, `${APP_HOST}`, a fenced
`APP_HOST=x`): the page sets or names the variable the option read, whatever the block is.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.core.check import wording
from bot.core.check.codenames import cited_name, environment
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.facts import ParseCache
from bot.core.model import Fact

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
    env = environment(inputs.rule, inputs.head, inputs.touched.renames, cache)
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
    return out


def stale_env(inputs: RuleInputs, page: Page, gone: Gone, out: Findings) -> None:
    """code -> doc: lines citing a variable that no option reads at head (`gone`: gone_env's)."""
    if not gone:
        return
    for ref in page.refs:
        if ref.kind not in _CITES:
            continue
        name = cited_name(ref.token) if ref.kind != "key" else ref.token
        if name not in gone or is_external(name, inputs.rule.external):
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
                edit=(ref.token, ref.token.replace(name, renamed)),
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
