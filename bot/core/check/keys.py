"""Config keys (sources of kind `pydantic`, `config` and `settings`) against the lines that cite them: a key
set in a page's YAML or TOML block (`lr: 3e-4` under `optimizer:`), a key or environment
variable in a code span (`optimizer.lr`, `APP_DATABASE_URL`), a row of a table with a
Default column.

- code -> doc: a cited key the change removed or renamed (the suggestion renames it where it is
  written: the key's last name in a block, the whole path in a span); a value the page gives
  that was the key's value (a config file's) or default (a model's) at base and is not at head;
  a value no longer among a `Literal`'s or Enum's choices.
- doc -> code, on lines the change wrote: a row of a table with a Default column stating
  another default than the model's (`wrong-default`); a key no source defines. Said only for a near miss
  of a real key (the nearest is suggested when it could be a misspelling of it), or, when a
  model is the schema, for a key in a section the model defines in full: a page's block is
  often about something else (a workflow, a compose file), and shipped configs do not hold
  every key a model allows.
"""

from __future__ import annotations

import ast
import difflib
import posixpath
import re

from bot.core.check import wording
from bot.core.check.deltas import Delta, Deltas
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest
from bot.core.check.new_rows import type_cell
from bot.core.doclines import (
    display,
    first_cell_token,
    in_scope,
    is_mark,
    normalize_default,
    same_default,
    sentences_at,
    table_keys,
)
from bot.core.facts import Facts
from bot.core.model import CodeLocation, Fact
from bot.core.page import SETTING, DocPage, Ref
from bot.core.submodules import in_submodule, submodule_folders

KEY_KINDS = ("pydantic", "config", "settings")
_CITES = ("key", "name", "value")  # ref kinds that may be a key: set in a block, or in a span


def reads_keys(inputs: RuleInputs) -> bool:
    return any(s.kind in KEY_KINDS for s in inputs.rule.sources)


def stale(inputs: RuleInputs, page: Page, found: Deltas, out: Findings) -> None:
    """code -> doc: lines citing a key the change removed, renamed or gave another value."""
    if not reads_keys(inputs):
        return
    head, doc, external = inputs.head_facts, page.doc, inputs.rule.external
    in_blocks = {r.token for r in page.refs if r.kind == "key"}
    for ref in page.refs:
        token = cited(ref)
        if token is None:
            continue
        deltas = [d for d in found.get(token, ()) if d.old.kind == "key"]
        if not deltas or is_external(token, external):
            continue
        if not _knows(head, token):
            parent = token.rpartition(".")[0]
            if parent in in_blocks and not _knows(head, parent) and ref.kind == "key":
                continue  # its whole section is gone: said on the section's line
            _gone(inputs, page, ref, token, [d for d in deltas if d.kind != "changed"], out)
        elif ref.value is not None and ref.kind == "key" and ref.where == "fence":  # a copy of a config
            _value(inputs, page, token, ref.value, ref.line, deltas, out, at=ref.col)
    for claim in doc.claims:
        subject = claim.subject
        if subject is None or not _knows(head, subject) or is_external(subject, external):
            continue
        deltas = [d for d in found.get(subject, ()) if d.old.kind == "key"]
        if deltas:
            _value(inputs, page, subject, claim.value, claim.line, deltas, out, claim.text)


def _knows(facts: Facts, token: str) -> bool:
    return any(f.kind == "key" for f in facts.by_token.get(token, ()))


def _gone(inputs: RuleInputs, page: Page, ref: Ref, token: str, gone: list[Delta], out: Findings) -> None:
    if not gone:
        return
    renamed = [d for d in gone if d.kind == "renamed" and d.new is not None]
    successors = {d.new.token for d in renamed if d.new is not None}
    if renamed and len(successors) == 1 and len(renamed) == len(gone):
        delta = renamed[0]
        assert delta.new is not None
        old, new = delta.old, delta.new
        out.emit(
            "renamed",
            token,
            wording.renamed(old, new) + wording.key_rename_evidence(delta.because),
            doc=page.doc,
            line=ref.line,
            code=inputs.code_line(old, new),
            edit=_rename_edit(ref, token, new.token),
            why=wording.why_renamed_because(old, new, delta.because),
        )
        return
    old = gone[0].old
    if all(in_submodule(d.old.path, submodule_folders(inputs.head)) for d in gone):
        return  # its config now lives in the repository a submodule pins, which is not read here
    out.emit(
        "removed",
        token,
        wording.removed(old),
        doc=page.doc,
        line=ref.line,
        code=inputs.code_line(old, None),
        why=wording.why_removed(old, inputs.rule.id),
    )


def _rename_edit(ref: Ref, token: str, new: str) -> tuple[str, str] | None:
    """A span is rewritten whole; a block writes only the key's last name on its line, so only a
    key that stays in its section can be renamed there."""
    if ref.kind != "key":
        return (token, new)
    parent, _, leaf = token.rpartition(".")
    new_parent, _, new_leaf = new.rpartition(".")
    return (leaf, new_leaf) if parent == new_parent else None


def _value(
    inputs: RuleInputs,
    page: Page,
    token: str,
    value: str,
    line: int,
    deltas: list[Delta],
    out: Findings,
    text: str | None = None,
    at: int | None = None,
) -> None:
    """The page's value for `token` was its value at base and is not at head: in the config file
    the page names (`examples/llama/lora.yaml`), or else in any file."""
    head = inputs.head_facts
    moved = [
        d
        for d in deltas
        if d.kind == "changed"
        and d.attr == "default"
        and d.old_value is not None
        and same_default(value, d.old_value)
        and d.new is not None
    ]
    named = _named_files(page, line)
    if named and any(d.old.path in named for d in moved):
        moved = [d for d in moved if d.old.path in named]  # the page's own config changed
    elif named & {f.path for f in head.by_token.get(token, ()) if f.kind == "key"}:
        return  # the config the page names did not change it
    elif any(same_default(value, f.attr("default")) for f in head.by_token.get(token, ()) if f.kind == "key"):
        return  # a config that still says it, or the value is still the default
    if moved:
        delta = moved[0]
        assert delta.new is not None
        now = {d.new_value for d in moved}
        edit, line_text = None, None
        if len(now) == 1 and delta.new_value is not None:
            new = _styled(delta.new_value, value)
            if at is None:
                edit = (text or value, _wrapped(text or value, value, new))
            else:  # a block's line: its value only, never the same number in its comment
                line_text = _with_value(page.doc.lines[line - 1], at, value, new)
        out.emit(
            "changed",
            token,
            wording.key_value_changed(delta.new, delta.old_value, delta.new_value, text or value),
            doc=page.doc,
            line=line,
            code=inputs.code_line(delta.old, delta.new),
            edit=edit,
            replacement=line_text,
        )
        return
    for d in deltas:
        if d.kind != "changed" or d.attr != "choices" or d.new is None:
            continue
        before, allowed = (d.old_value or "").split(","), (d.new_value or "").split(",")
        if value in before and value not in allowed and allowed != [""]:
            out.emit(
                "changed",
                f"{token} {value}",
                wording.choice_dropped(value, token, allowed),
                doc=page.doc,
                line=line,
                code=inputs.code_line(d.old, d.new),
            )
            return


def _wrapped(written: str, value: str, new: str) -> str:
    """`new` in the marks the page wrapped its value in: `"gpt-4o-mini"` in a code span stays a
    quoted string in a code span."""
    inner = written.strip("`'\" ")
    if inner != value.strip("'\"") or not inner:  # more than the value: only it is rewritten
        return written.replace(value, new, 1) if value in written else new
    start = written.index(inner)
    before, after = written[:start], written[start + len(inner) :]
    if len(new) > 1 and new[0] == new[-1] and new[0] in "'\"" and before[-1:] in ("'", '"'):
        new = new[1:-1]  # a string the code quotes: in the page's own quotes
    if new in ("None", "True", "False") or _NUMBER.fullmatch(new):
        before, after = before.rstrip("'\""), after.lstrip("'\"")  # no string now: no quotes
    return before + new + after


_EXPONENT = re.compile(r"[+-]?\d+(?:\.\d+)?[eE][+-]?\d+")
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def _styled(new: str, written: str) -> str:
    """`new` as the page writes numbers (`1e-4` where it wrote `3e-4`, not Python's `0.0001`)
    and strings (`'general'` where it wrote `'misc'`)."""
    quote = written.strip()[:1]
    quoted = quote in ("'", '"') and written.strip().endswith(quote) and len(written.strip()) > 1
    if quoted and not new.startswith(("'", '"')) and quote not in new:
        return f"{quote}{new}{quote}"
    if _EXPONENT.fullmatch(written.strip()):
        try:
            mantissa, exponent = f"{float(new):e}".split("e")
        except ValueError:
            return display(new)
        return f"{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"
    return display(new)


_SEPARATOR = re.compile(r"\s*[:=]\s*[\"']?")


def _with_value(line: str, key_at: int, value: str, new: str) -> str | None:
    """The block's line with the value after the key at `key_at` rewritten (None: not found)."""
    sep = _SEPARATOR.search(line, key_at)
    if sep is None or not line.startswith(value, sep.end()):
        return None
    return line[: sep.end()] + new + line[sep.end() + len(value) :]


def _table_defaults(inputs: RuleInputs, page: Page, out: Findings) -> None:
    """doc -> code: a row the change wrote in a table with a Default column, whose first cell is
    a key of a model, must state the model's default (a config file's value is no default); so
    must a setting's directive (`.. data:: BIND = '127.0.0.1'`) with a whole literal there."""
    doc, changed = page.doc, {r.line for r in page.new_refs}
    for claim in doc.claims:
        subject = claim.subject
        if subject is None or claim.line not in changed:
            continue
        directive = _directive_claim(doc, subject, claim.line, claim.value)
        if first_cell_token(doc.lines[claim.line - 1]) != subject and not directive:
            continue
        if not in_scope(claim.section.path, page.sections) or is_external(subject, inputs.rule.external):
            continue
        facts = [
            f
            for f in inputs.head_facts.by_token.get(subject, ())
            if f.kind == "key" and f.attr("file") is None and f.attr("kind") == "key"
        ]
        defaults = {normalize_default(f.attr("default")) for f in facts}
        if len(facts) == 0 or len(defaults) != 1 or None in defaults or "None" in defaults:
            continue  # no model's key, models that disagree, or a default decided at run time
        fact = facts[0]
        actual = fact.attr("default")
        if actual is None or same_default(claim.value, actual) or is_mark(claim.text):
            continue
        if _other_type(type_cell(doc, claim.line), fact.attr("type")):
            continue  # a `bool` row of a tool's parameters is not a model's `str` field of that name
        if not _table_of(inputs.head_facts, fact, table_keys(doc, claim.line)):
            continue  # the row of another thing's table that shares one name with a model
        if directive and _same_members(claim.value, actual):
            continue  # the templates a setting renders, listed in another order: the same ones
        out.emit(
            "wrong-default",
            subject,
            wording.wrong_default(subject, actual, claim.value, mark=False),
            doc=doc,
            line=claim.line,
            code=CodeLocation(fact.path, fact.line),
            edit=wording.claim_edit(claim, _styled(actual, claim.value), doc.lines[claim.line - 1]),
        )


def _table_of(facts: Facts, fact: Fact, keys: set[str]) -> bool:
    """Is a table of these keys one the fact's module may be written in? A table naming two keys
    or more must name two of the module's, or of sections its models type with another file's
    model (crewAI's table of a search tool's parameters has a `timeout` that a model of another
    module, read for other pages, also has)."""
    if fact.attr("model") is None or len(keys) < 2:
        return True
    mine = {f.token for f in facts.facts if f.kind == "key" and f.path == fact.path}
    return sum(1 for k in keys if k in mine or k.partition(".")[0] in mine) >= 2


_BUILTIN_TYPES = frozenset({"bool", "int", "float", "str", "list", "dict", "tuple", "set", "bytes"})


def _other_type(written: str | None, declared: str | None) -> bool:
    """Does a Type cell name builtin types none of which the field's type has (`bool` against
    `str`)? Anything else (a class, `Optional[...]`, words) says nothing against it."""
    if not written or not declared:
        return False
    said = set(_NAME.findall(written.replace("`", ""))) - {"None", "Optional", "Union"}
    has = set(_NAME.findall(declared)) - {"None", "Optional", "Union"}
    if not said or not has or not said <= _BUILTIN_TYPES or not has <= _BUILTIN_TYPES | _TYPING:
        return False
    return said.isdisjoint(has)


def _directive_claim(doc: DocPage, subject: str, line: int, value: str) -> bool:
    """Is the claim on `line` the one a setting's directive makes (`.. data:: NAME = value`, or
    its `:value:` field), its value a whole Python literal? Not a value the page cuts at the
    line's end (`= [`) or leaves out (`{...}`), nor a default its description tells in words."""
    near = [r for r in doc.refs if r.column == SETTING and r.token == subject and 0 <= line - r.line <= 3]
    if not near:
        return False
    if near[0].line != line and not _VALUE_FIELD.match(doc.lines[line - 1]):
        return False
    if "..." in value or "\u2026" in value:
        return False
    try:
        ast.literal_eval(value.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


_VALUE_FIELD = re.compile(r"\s*:(?:value|default):\s")


def _same_members(claimed: str, actual: str) -> bool:
    """Two lists of the same strings in another order."""
    try:
        a, b = ast.literal_eval(claimed.strip()), ast.literal_eval(actual.strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    same_kind = isinstance(a, list) and isinstance(b, list)
    return same_kind and all(isinstance(x, str) for x in a + b) and sorted(a) == sorted(b)


def _named_files(page: Page, line: int) -> set[str]:
    """The files the section of `line` names (`examples/llama/lora.yaml`, a link to it)."""
    section, folder = page.doc.section_at(line), posixpath.dirname(page.doc.path)
    return {
        posixpath.normpath(posixpath.join(folder, r.token)) if r.where == "link" else r.token
        for r in page.doc.refs
        if r.kind == "path" and r.section == section
    }


def unresolved(inputs: RuleInputs, page: Page, out: Findings) -> None:
    """doc -> code: a line the change wrote citing a key no source defines (see the docstring)."""
    if not reads_keys(inputs):
        return
    head = inputs.head_facts
    keys = {f.token for f in head.facts if f.kind == "key"}
    if not keys:
        return
    # pydantic-settings matches environment variables in any case unless told otherwise
    env = {f.token.lower() for f in head.facts if f.kind == "key" and f.attr("kind") == "env"}
    _table_defaults(inputs, page, out)
    schema = Schema.of(head)
    # A dict of settings' defaults lists some of what the program reads (it takes names the dict
    # lacks, `f"{template.upper()}_SAVE_AS"`, `settings.get("X")`): a key it does not have is
    # unknown, and no near miss of one of its keys.
    open_ids = {s.id for s in inputs.rule.sources if s.kind == "settings"}
    closed = {f.token for f in head.facts if f.kind == "key" and f.source not in open_ids}
    for ref in page.new_refs:
        token = cited(ref)
        if token is None or token in keys or token.lower() in env:
            continue
        if _CAMEL.search(token) and _snake_section(token, keys, schema):
            continue  # `extraConfig` in a section whose keys are snake_case: another schema's
        if is_external(token, inputs.rule.external) or inputs.others.key(token):
            continue
        found = schema.resolves(token)
        if found is True:
            continue  # a key of a model typed into a section of another file's model
        parent = token.rpartition(".")[0]
        near = _near_key(token, closed | schema.siblings(parent))
        if near is None and found is not False:
            continue
        if near is not None and _named_on(page.doc, ref.line, near):
            continue  # the line names the real key too: the other token is something else
        out.emit(
            "unresolved",
            token,
            wording.unknown_key(token, near, parent or None),
            doc=page.doc,
            line=ref.line,
            edit=_rename_edit(ref, token, near) if near else None,
        )


def _snake_section(token: str, keys: set[str], schema: Schema) -> bool:
    """Are the keys the sources give the token's top section (`openlineage.*`) all snake_case?
    Then a camelCase key under it (feast's `openlineage.transportType`, a fragment of a
    cluster resource) is another schema's spelling, not a missing key."""
    top = token.split(".", 1)[0]
    known = {k for k in keys if k.startswith(top + ".")} | schema.siblings(top)
    return bool(known) and not any(map(_CAMEL.search, known))


def _named_on(doc: DocPage, line: int, key: str) -> bool:
    """Does the line cite `key`, or its sentences write it as a name in their code ("Has `q_norm`.
    -> maps to `MHAConfig(qk_norm=True)`")?"""
    if key in {cited(r) for r in doc.refs_on(line)}:
        return True
    first, last = sentences_at(doc, line)
    text = "\n".join(doc.lines[first - 1 : last])
    return re.search(rf"(?<![\w.-]){re.escape(key)}(?![\w-])", text) is not None


_CAMEL = re.compile(r"[a-z0-9][A-Z]")
_KEY_SHAPE = re.compile(r"[A-Za-z_][\w-]*(?:\.[A-Za-z_][\w-]*)*")


def cited(ref: Ref) -> str | None:
    """The key a reference may cite, as a key (`datasets:` in a span is `datasets`); None when
    it is no key's shape (`@decorator`, `a b`), a plain word in prose, or not a kind a key is
    cited as."""
    if ref.kind not in _CITES:
        return None
    if ref.kind == "key" and ref.where == "fence":
        return ref.token  # set in a block: a key whatever its name
    if ref.column == SETTING:
        return ref.token  # the setting a directive documents (`.. data:: READERS`)
    token = ref.token.rstrip(":")
    # In prose a key must name something (`warmup_steps`, `optimizer.lr`, `APP_DB_URL`): `model`
    # or `seed` in a span may be anything.
    return token if _KEY_SHAPE.fullmatch(token) and ("." in token or "_" in token) else None


class Schema:
    """The pydantic models' fields by model, to follow a section typed with a model of another
    file (`trl: TRLConfig | None` in one file, `TRLConfig` in another): a key under it is
    known when the model has it, unknown when every model its type names is read and none has it."""

    def __init__(self) -> None:
        self.fields: dict[str, dict[str, str]] = {}  # model -> field key -> its type
        # full key -> the types it has: two models may each have an `inputs` (a dict in one, a
        # list of models in another), and a key under it is known where any of them says so
        self.types: dict[str, list[str]] = {}

    @classmethod
    def of(cls, facts: Facts) -> Schema:
        schema = cls()
        for f in facts.facts:
            if f.kind != "key" or f.attr("kind") != "key" or f.attr("model") is None:
                continue
            kind = f.attr("type") or ""
            schema.fields.setdefault(f.attr("model") or "", {})[f.token.rpartition(".")[2]] = kind
            schema.types.setdefault(f.token, []).append(kind)
        return schema

    def _models(self, type_text: str) -> list[str] | None:
        names = [n for n in _NAME.findall(type_text) if n not in _TYPING]
        models = [n for n in names if n in self.fields]
        # a type naming anything else (a dict, a class read nowhere) may hold any key
        return models if models and len(models) == len(names) else None

    def resolves(self, token: str) -> bool | None:
        """True: a model has it; False: the section's models are all read and lack it; None: no
        model says."""
        parts = token.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            prefix = ".".join(parts[:cut])
            if prefix not in self.types:
                continue
            said = {self._walk(type_text, parts[cut:]) for type_text in self.types[prefix]}
            return True if True in said else None if None in said else False
        return None

    def _walk(self, type_text: str, parts: list[str]) -> bool | None:
        for part in parts:
            models = self._models(type_text)
            if models is None:
                return None
            owners = [m for m in models if part in self.fields[m]]
            if not owners:
                return False
            type_text = self.fields[owners[0]][part]
        return True

    def siblings(self, parent: str) -> set[str]:
        """The keys a section's models define, written under it (`trl.beta`)."""
        if not parent:
            return set()
        models = [m for t in self.types.get(parent, ()) for m in self._models(t) or ()]
        return {f"{parent}.{k}" for m in models for k in self.fields[m]}


_NAME = re.compile(r"[A-Za-z_]\w*")
_TYPING = frozenset({"Optional", "Union", "None", "list", "List", "Annotated", "typing", "Field"})


def _near_key(token: str, keys: set[str]) -> str | None:
    """The real key `token` could be a misspelling of: in the same section, its last name
    misspelt (`optimizer.lrate` is not `optimizer.lr`; `lerning_rate` is `learning_rate`,
    `target_parameters` is not `lora_target_parameters`: a name with a word more is another key)."""
    parent, _, leaf = token.rpartition(".")
    if len(leaf) < 6:
        return None  # short names sit close to everything
    siblings = {k.rpartition(".")[2]: k for k in keys if k.rpartition(".")[0] == parent}
    candidates = [name for name in siblings if _misspelt(leaf, name)]
    best = closest(leaf, candidates, 0.85)
    return siblings[best] if best is not None else None


_WORD = re.compile(r"[-_]+")


def _misspelt(written: str, real: str) -> bool:
    """Could `written` be the key `real` mistyped? Not with other words, a word more or less, words
    joined otherwise (`llm_compressor`, a folder, beside `llmcompressor`), another separator
    (`merge-lora`, a command; `flash-attention`, a package) or a plural (`chat_templates`)."""
    a, b = written.lower(), real.lower()
    if ("-" in a) != ("-" in b) or len(_WORD.split(a)) != len(_WORD.split(b)):
        return False
    if a.rstrip("s") == b.rstrip("s") or a.removesuffix("es") == b or b.removesuffix("es") == a:
        return False
    differ = [(x, y) for x, y in zip(_WORD.split(a), _WORD.split(b), strict=True) if x != y]
    return len(differ) == 1 and _mistyped(*differ[0])


def _mistyped(x: str, y: str) -> bool:
    """One word for another by a slip: a letter more or less (`dirr`, `rat`), or a longer word
    mostly the same (`stpes`, `acumulation`); `ep` is not `cp`, another word of its own."""
    if (x.startswith(y) or y.startswith(x)) and abs(len(x) - len(y)) == 1:
        return True
    return len(y) >= 4 and difflib.SequenceMatcher(None, x, y).ratio() >= 0.75
