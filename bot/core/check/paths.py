"""Repository paths a page cites, for rules with a `paths` source: a cited file or folder the
change moved or deleted (code -> doc), and a cited path a changed line adds that does not exist
at head (doc -> code)."""

from __future__ import annotations

from bot.core.check import wording
from bot.core.check.findings import Findings, is_external
from bot.core.check.inputs import Page, RuleInputs, Touched, cites_paths
from bot.core.check.near import closest
from bot.core.model import CodeLocation, Tree
from bot.core.page import DocPage, Ref


def moved_or_deleted(inputs: RuleInputs, page: Page, out: Findings) -> None:
    if not cites_paths(inputs.rule):
        return
    touched = inputs.touched
    for ref in page.refs:
        if ref.kind != "path" or is_external(ref.token, inputs.rule.external):
            continue
        token = ref.token.rstrip("/")
        new = touched.renames.get(token) or moved_folder(token, touched, inputs.head)
        if new is not None:
            out.emit(
                "renamed",
                ref.token,
                wording.path_moved(ref.token, new),
                doc=page.doc,
                line=ref.line,
                code=CodeLocation(new, 1),
                edit=(token, new),
            )
        elif not inputs.head.exists(token) and (
            token in touched.removed or any(p.startswith(token + "/") for p in touched.removed)
        ):
            out.emit("removed", ref.token, wording.path_deleted(ref.token), doc=page.doc, line=ref.line)


def moved_folder(folder: str, touched: Touched, head: Tree) -> str | None:
    """Where a cited folder went, when the change moved every file in it to one new folder."""
    if head.exists(folder):
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
    token = ref.token
    if token.startswith(("/", "~", "$", "http:", "https:", ".")) or "<" in token or "*" in token:
        return
    if "/" not in token:
        return  # a bare file name (`config.json`) names a kind of file, not a place in this repo
    bare = token.rstrip("/")
    if inputs.head.exists(bare):
        return
    paths = inputs.head.paths()
    # A partial path (`fsdp_utils/kernels/`) resolves when some real path ends with it.
    suffix = "/" + bare
    if any(p.endswith(suffix) or ("/" + bare + "/") in ("/" + p) for p in paths):
        return
    base_name = bare.rsplit("/", 1)[-1]
    same_name = [p for p in paths if p.rsplit("/", 1)[-1] == base_name]
    near = closest(bare, same_name, 0.0) if same_name else closest(bare, paths, 0.75)
    out.emit(
        "unresolved",
        token,
        wording.path_missing(token, near),
        doc=doc,
        line=ref.line,
        edit=(bare, near) if near else None,
    )
