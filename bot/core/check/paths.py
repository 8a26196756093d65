"""Repository paths a page cites, for rules with a `paths` source: a cited file or folder the
change moved or deleted (code -> doc), and a cited path a changed line adds that does not exist
at head (doc -> code)."""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from bot.core import lazyre
from bot.core.check import wording
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs
from bot.core.check.near import closest, misspelt
from bot.core.check.ownership import PLACEHOLDER_WORD
from bot.core.check.touched import Touched, cites_paths
from bot.core.doclines import (
    fenced_lines,
    inside_elsewhere,
    introduced_block,
    linked_elsewhere,
    made_by_reader,
    not_yet_there,
    written_by_program,
)
from bot.core.model import CodeLocation, Tree
from bot.core.page import DocPage, Ref
from bot.core.spans import command_words
from bot.core.submodules import in_submodule, submodule_folders


def moved_or_deleted(inputs: RuleInputs, page: Page, out: Findings) -> None:
    if not cites_paths(inputs.rule):
        return
    touched = inputs.touched
    for ref in page.refs:
        if ref.kind == "module":
            moved_module(inputs, page, ref, out)
        if ref.kind != "path" or is_external(ref.token, inputs.rule.external):
            continue
        cited = inputs.own.path(ref, page.doc.path)
        if cited is None:
            continue
        path, written = cited.path, ref.token.rstrip("/")
        if readers(page.doc, ref):
            continue  # the reader makes it: what the repository does with its own copy is no matter
        new = touched.renames.get(path) or moved_folder(path, touched, inputs.head)
        if new is not None:
            out.emit(
                "renamed",
                ref.token,
                wording.path_moved(ref.token, cited.written(new, written)),
                doc=page.doc,
                line=ref.line,
                code=CodeLocation(new, 1),
                edit=(written, cited.written(new, written)),
            )
        elif (
            (path in touched.removed or any(p.startswith(path + "/") for p in touched.removed))
            and not inputs.head.exists(path)
            and not in_submodule(path, submodule_folders(inputs.head))  # another repository's now
        ):
            out.emit("removed", ref.token, wording.path_deleted(ref.token), doc=page.doc, line=ref.line)


def moved_module(inputs: RuleInputs, page: Page, ref: Ref, out: Findings) -> None:
    """`python -m pkg.tool`, `from pkg.tool import x` or `pkg.tool` alone when the change moved
    or deleted the file of `pkg.tool`: the module it names (`pkg/tool.py`, `pkg/tool/__main__.py`,
    under `src/` or the folder a `cd` went to) was one of the repository's at base. A module no
    file of ours was (`pip`, `torch.nn`) is not judged."""
    touched, dotted = inputs.touched, ref.token.replace(".", "/")
    roots = ["", "src/"] + ([ref.cwd.strip("/") + "/"] if ref.cwd else [])
    for root in roots:
        for tail in (".py", "/__main__.py", "/__init__.py"):  # a script, a runnable package, a package
            path = posixpath.normpath(root + dotted + tail)
            if not inputs.base.exists(path):
                continue
            if inputs.head.exists(path):
                return  # still there: nothing the change did to it
            new = touched.renames.get(path)
            if new is None:
                folder = posixpath.normpath(root + dotted)
                parent = posixpath.dirname(folder)
                if inputs.head.exists(folder) or (
                    parent and inputs.head.exists(parent) and not inputs.head.exists(parent + "/__init__.py")
                ):
                    # Still a namespace package (PEP 420), or one in a namespace package, which
                    # another distribution may install (`optimum.onnxruntime` from optimum-onnx).
                    return
                if path in touched.removed:
                    out.emit(
                        "removed", ref.token, wording.path_deleted(ref.token), doc=page.doc, line=ref.line
                    )
                return
            # Its new dotted name, when it is still a module under the same root.
            name = new[len(root) : -len(tail)] if new.startswith(root) and new.endswith(tail) else None
            if name is None or not _MODULE_NAME.fullmatch(name):
                out.emit(
                    "renamed", ref.token, wording.path_moved(ref.token, new), doc=page.doc, line=ref.line
                )
                return
            dotted_new = name.replace("/", ".")
            out.emit(
                "renamed",
                ref.token,
                wording.path_moved(ref.token, dotted_new),
                doc=page.doc,
                line=ref.line,
                code=CodeLocation(new, 1),
                edit=(ref.token, dotted_new),
            )
            return


_MODULE_NAME = lazyre.compile(r"[A-Za-z_]\w*(?:/[A-Za-z_]\w*)*")


def moved_folder(folder: str, touched: Touched, head: Tree) -> str | None:
    """Where a cited folder went, when the change moved every file in it to one new folder."""
    if not any(old.startswith(folder + "/") for old in touched.renames) or head.exists(folder):
        return None
    targets = set()
    for old, new in touched.renames.items():
        if old.startswith(folder + "/"):
            rest = old[len(folder) :]
            if not new.endswith(rest):
                return None
            targets.add(new[: -len(rest)])
    return targets.pop() if len(targets) == 1 else None


def unresolved(inputs: RuleInputs, doc: DocPage, ref: Ref, out: Findings) -> None:
    """A cited path that names no file or folder at head, with the nearest real one."""
    cited = inputs.own.path(ref, doc.path)
    if cited is None:
        return
    path, written = cited.path, ref.token.rstrip("/")
    if inputs.head.exists(path) or inputs.own.ignored(path) or inputs.others.path(path):
        return  # there, made at run time (the repository ignores it), or another project's
    if not_yet_there(doc, ref.line, ref.token):
        return  # the sentence says the code does not have it yet
    if readers(doc, ref):
        return  # the reader's copy, which a command before it made, or one they are told to make
    if linked_elsewhere(doc, ref.token):
        return  # another site's name the page links (a model on the Hugging Face Hub)
    if written_by_program(doc, ref.line, ref.token):
        return  # what a command writes when the reader runs it ("will be saved to `out/x.jsonl`")
    if inside_elsewhere(doc, ref.line, ref.token):
        return  # "a `x/jobs` subdirectory in :func:`user_state_dir`": under a place of the reader's
    if a_flags_default(inputs, ref.token):
        return  # where a program of the rule's reads or writes when not told otherwise: the reader's
    if ref.where == "link" and made_by_docs_build(inputs.head, doc.path, path):
        return  # a file the site's build writes beside its pages (a Sphinx extension's llms.txt)
    if in_submodule(path, submodule_folders(inputs.head)):
        return  # a file of the repository a submodule pins: nothing of it is in this tree
    if not cited.relative and inputs.own.named_from_above(path):
        return  # `lmdeploy/generate.sh`: the root's file, named from the folder of the clone
    paths = inputs.head.paths()
    if not cited.relative:
        # A partial path (`fsdp_utils/kernels/`) resolves when some real path ends with it.
        suffix = "/" + path
        if any(p.endswith(suffix) or (suffix + "/") in ("/" + p) for p in paths):
            return
    near = _nearest(inputs, path, ref.token.endswith("/"), paths)
    suggested = cited.written(near, written) if near else None
    out.emit(
        "unresolved",
        ref.token,
        wording.path_missing(ref.token, suggested),
        doc=doc,
        line=ref.line,
        edit=(written, suggested) if suggested else None,
    )


def readers(doc: DocPage, ref: Ref) -> bool:
    """Is the path `ref` cites the reader's: one a command of the page made, one the page tells
    them to make (or a file under such a folder), or an entry of a drawing of their own tree?"""
    return (
        made_by_page(doc, ref)
        or made_by_reader(doc, ref.line, ref.token)
        or in_readers_folder(doc, ref)
        or in_placeholder_tree(doc, ref)
    )


# A line of a drawing of a folder tree: `├── setup.py`, `│   └── plugins`, `|-- x`, `` `-- y``.
_TREE_LINE = lazyre.compile(r"^\s*(?:[│┃|]\s*)*(?:[├└┣┗]|[|`+]--)")


def in_placeholder_tree(doc: DocPage, ref: Ref) -> bool:
    """Is `ref` an entry of a drawing of a folder tree whose top is a name the reader picks
    (`myplugin` over `├── pelican/` and `└── setup.py`), or a bare file name the same section
    cites that such a drawing holds ("they need to contain ``setup.py``")? Those are the
    reader's project's files, not the repository's of the same name."""
    if _TREE_LINE.match(_line(doc, ref.line)):
        return _placeholder_top(doc, ref.line)
    if "/" in ref.token.strip("/"):
        return False
    section = doc.section_at(ref.line)
    return any(
        other.token == ref.token
        and other.where == "fence"
        and doc.section_at(other.line) == section
        and _TREE_LINE.match(_line(doc, other.line))
        and _placeholder_top(doc, other.line)
        for other in doc.refs
        if other.kind == "path"
    )


def _placeholder_top(doc: DocPage, line: int) -> bool:
    """Is the top of the drawing `line` is in (the first line above it that draws no branch) a
    placeholder name?"""
    for k in range(line - 1, max(line - 200, 0), -1):
        text = _line(doc, k)
        if not text.strip():
            return False
        if not _TREE_LINE.match(text):
            return PLACEHOLDER_WORD.search(text) is not None
    return False


def _line(doc: DocPage, line: int) -> str:
    return doc.lines[line - 1] if 0 < line <= len(doc.lines) else ""


def a_flags_default(inputs: RuleInputs, token: str) -> bool:
    """Is `token` the default of a flag of the rule's sources at head (the server's
    `--model_config`, `default="./available_models/conf.json"`)? A page telling of the file there
    describes the program, whether or not the repository ships one."""
    cited = _as_default(token)
    return bool(cited) and any(
        _as_default(default) == cited for f in inputs.head_facts.flags() if (default := f.attr("default"))
    )


def _as_default(path: str) -> str:
    return path.strip().strip("'\"").removeprefix("./").rstrip("/")


# Python files of a Sphinx project read for the names of the files its build writes, at most.
_MAX_BUILD_FILES = 50


def made_by_docs_build(head: Tree, page: str, target: str) -> bool:
    """Is `target`, which a page's link names and the tree does not have, a file the page's Sphinx
    build writes into the site (`os.path.join(outdir, "llms.txt")` in an extension beside
    conf.py)? A link between built pages is resolved in the site, where such files sit; the
    build's code names them in a string."""
    root = posixpath.dirname(page)
    while not _sphinx_conf(head, posixpath.join(root, "conf.py") if root else "conf.py"):
        if not root:
            return False
        root = posixpath.dirname(root)
    name = posixpath.basename(target)
    quoted = (f'"{name}"', f"'{name}'", f'/{name}"', f"/{name}'")
    under = root + "/" if root else ""
    code = sorted(p for p in head.paths() if p.startswith(under) and p.endswith(".py"))
    for path in code[:_MAX_BUILD_FILES]:
        text = head.read(path) or ""
        if any(q in text for q in quoted):
            return True
    return False


def _sphinx_conf(head: Tree, path: str) -> bool:
    text = head.read(path) if head.exists(path) else None
    return text is not None and ("extensions" in text or "html_" in text)


# Commands whose last word names the file (or folder) they make: `cp src dst`, `mv`, `ln -s`, and
# a tool's own copy command (`tune cp recipe ~/project/recipes/mine.py`).
_MAKERS = frozenset({"cp", "mv", "ln"})
# Downloads writing the file an option names: `curl -L -o data/paper.tex URL`, `wget -O FILE URL`
# (a cluster of short options ending with it, `curl -Lo FILE`, too).
_OUTPUT_OPTIONS = {"curl": ("-o", "--output"), "wget": ("-O", "--output-document")}


class Made(NamedTuple):
    """A path a command of the page makes: where it is written, and what it is made from."""

    line: int
    col: int
    path: str
    source: str  # the word before it: a copy's source, a download's option


def made_by_page(doc: DocPage, ref: Ref) -> bool:
    """Does a command the page runs make the path `ref` cites, before it, or in the block the
    sentence citing it introduces (`... at `data/paper.tex` (download it first):`)? A page that
    has the reader copy a recipe (`tune cp full_finetune ~/project/recipes/mine.py`) and then run
    their copy (`tune run recipes/mine.py`) cites a file of the reader's, not a missing one of the
    repository's: the copy's destination ends with the path, or is the folder it copied the file
    of that name into (`cp configs/base.yaml ~/project/configs/`, then `configs/base.yaml`)."""
    cited = ref.token.strip("/").removeprefix("./")
    if not cited:
        return False
    folder, name = posixpath.split(cited)
    block = introduced_block(doc, ref.line)
    for made in _made(doc):
        before = made.line < ref.line or (made.line == ref.line and made.col < (ref.col or 0))
        if not before and not (block is not None and block[0] <= made.line <= block[1]):
            continue
        destination = "/" + made.path.rstrip("/").removeprefix("./")
        if destination.endswith("/" + cited):
            return True
        if (
            folder
            and destination.endswith("/" + folder)
            and posixpath.basename(made.source.rstrip("/")) == name
        ):
            return True
    return False


def in_readers_folder(doc: DocPage, ref: Ref) -> bool:
    """Is the path `ref` cites under a folder the page had the reader make before it ("Extract to
    `./playground/data/eval`", then "put it under `./playground/data/eval/vqav2`")? What the
    reader fills a folder of their own with is theirs too."""
    cited = ref.token.strip("/").removeprefix("./")
    for other in doc.refs:
        if other.kind != "path" or (other.line, other.col or 0) >= (ref.line, ref.col or 0):
            continue
        folder = other.token.strip("/").removeprefix("./")
        if (
            folder
            and cited.startswith(folder + "/")
            and (made_by_reader(doc, other.line, other.token) or made_by_page(doc, other))
        ):
            return True
    return False


def _made(doc: DocPage) -> list[Made]:
    """The paths the page's commands make: the last word of a copy, move or link, and the file a
    download writes."""
    made = []
    for ref in doc.refs:
        if ref.kind != "path" or ref.command is None or _MAKERS.isdisjoint(ref.command[:3]):
            continue
        line = doc.lines[ref.line - 1] if 0 < ref.line <= len(doc.lines) else ""
        at = line.find(ref.token, ref.col or 0)
        rest = line[at + len(ref.token) :].strip() if at >= 0 else "?"
        if rest in ("", "\\") or rest.startswith("#"):
            made.append(Made(ref.line, ref.col or 0, ref.token, ref.command[-1]))
    for number, text in fenced_lines(doc):
        words = command_words(text.removeprefix("$ "))
        options = _OUTPUT_OPTIONS.get(words[0]) if words else None
        if options is None:
            continue
        for option, path in zip(words, words[1:], strict=False):
            short = option[:1] == "-" and option[1:2] != "-" and option.endswith(options[0][1])
            if (option in options or short) and path[:1] not in ("-", "\\"):
                made.append(Made(number, max(text.find(path), 0), path, option))
    return sorted(made)


def _nearest(inputs: RuleInputs, path: str, folder: bool, paths: frozenset[str]) -> str | None:
    """The real path the page most likely meant: the first missing folder replaced by its closest
    sibling (`lm_eval/cache/.cache` -> `lm_eval/caching/.cache`), or a file of the same name
    elsewhere, or a close path of the same kind (a folder for a folder, the same extension).
    None for a module that is a package now: which of its modules the page means, no name says."""
    parts = path.split("/")
    for i in range(len(parts) - 1):
        prefix = "/".join(parts[:i])
        if i and not inputs.head.exists(prefix):
            break
        if inputs.head.exists("/".join(parts[: i + 1])):
            continue
        under = prefix + "/" if prefix else ""
        siblings = {
            p[len(under) :].split("/", 1)[0] for p in paths if p.startswith(under) and "/" in p[len(under) :]
        }
        sibling = closest(parts[i], siblings, 0.6)  # kept only if the whole path then resolves
        if sibling is not None:
            candidate = "/".join([*parts[:i], sibling, *parts[i + 1 :]])
            if inputs.head.exists(candidate) or inputs.own.ignored(candidate):
                return candidate
        break
    name = parts[-1]
    if name.endswith(".py") and inputs.head.exists(path[: -len(".py")] + "/__init__.py"):
        return None  # the module became a package (`utils.py` -> `utils/`): another `utils.py` is not it
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == name]
    if len(same_name) == 1:
        return same_name[0] if _may_have_moved(inputs, path, same_name[0]) else None
    if same_name:  # a name several files have (`__init__.py`): the folder must be alike too
        by_folder = {posixpath.dirname(p): p for p in same_name}
        near_folder = closest(posixpath.dirname(path), list(by_folder), 0.75)
        return by_folder[near_folder] if near_folder is not None else None
    if folder:
        kind = {p.rsplit("/", 1)[0] for p in paths if "/" in p}
    else:
        ext = posixpath.splitext(name)[1]
        kind = {p for p in paths if ext and p.endswith(ext)}
    near = closest(path, kind, 0.75)
    # A shared prefix makes whole paths alike whatever their names: `src/lerobot/tools` is 88%
    # like `src/lerobot/utils`, whose name is another word. The name must be alike too, and be
    # the cited one mistyped or with a word more or less, not other words of the same letters
    # (`prepare_all.sh` is no `prepare_eval_data.sh`).
    if near is None or closest(name, [near.rsplit("/", 1)[-1]], 0.75) is None:
        return None
    stem, near_stem = posixpath.splitext(name)[0], posixpath.splitext(near.rsplit("/", 1)[-1])[0]
    return near if misspelt(stem, near_stem) else None


def _may_have_moved(inputs: RuleInputs, path: str, namesake: str) -> bool:
    """Could the one file named like the cited one be where it went? Yes when the cited folder is
    gone too, or the file sits below or above it, or in a folder of an alike name
    (`trl/scripts/` -> `examples/scripts/`); not in another folder beside a cited one that is
    still there (`src/protocols/spec.rs`, split into `src/protocols/*.rs`, is no `src/wasm/spec.rs`)."""
    cited, found = posixpath.dirname(path), posixpath.dirname(namesake)
    if not cited or not inputs.head.exists(cited):
        return True
    if found.startswith(cited + "/") or cited.startswith(found + "/") or not found:
        return True
    return closest(posixpath.basename(cited), [posixpath.basename(found)], 0.75) is not None
