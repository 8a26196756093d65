"""Reading MkDocs' `mkdocs.yml`: the docs folder, the navigation, the redirects of the
`redirects` plugin (mkdocs-redirects' `redirect_maps`) and the heading slugs, each with its line.

The YAML is composed into nodes, never constructed: tags such as `!!python/name:...` and `!ENV`
stay labels on nodes, so nothing in the file runs or needs to be importable. Pure: text in,
`SiteConfig` out.
"""

from __future__ import annotations

import posixpath

import yaml

from bot.core.site.model import MAX_CONFIG_BYTES, NavEntry, Redirect, SiteConfig, SiteError
from bot.core.site.slugs import TOC, TOC_UNICODE

MAX_NODES = 100_000  # aliases can make a small file a large graph; the walk stops here


def compose(text: str) -> yaml.Node:
    if len(text) > MAX_CONFIG_BYTES:
        raise SiteError(0, f"larger than {MAX_CONFIG_BYTES} bytes")
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        problem = ", ".join(p for p in (e.context, e.problem) if p)
        raise SiteError(mark.line + 1 if mark else 0, problem) from None
    except (yaml.YAMLError, RecursionError) as e:
        raise SiteError(0, str(e) or "not YAML") from None
    if node is None:
        raise SiteError(0, "the file is empty")
    return node


def _line(node: yaml.Node) -> int:
    return node.start_mark.line + 1


def _end_line(node: yaml.Node) -> int:
    # A block node's end mark sits at the start of the line after it.
    end = node.end_mark
    return end.line + 1 if end.column > 0 or end.line == node.start_mark.line else end.line


def _members(node: yaml.Node) -> list[tuple[yaml.Node, yaml.Node]]:
    return list(node.value) if isinstance(node, yaml.MappingNode) else []


def _get(node: yaml.Node, key: str) -> tuple[yaml.Node, yaml.Node] | None:
    for k, v in _members(node):
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return k, v
    return None


def _scalar(node: yaml.Node | None) -> str | None:
    if isinstance(node, yaml.ScalarNode) and node.tag != "tag:yaml.org,2002:null":
        return str(node.value)
    return None


def read(text: str, path: str, root: str | None = None) -> SiteConfig:
    """An `mkdocs.yml` at repository path `path`; `root` defaults to its `docs_dir`."""
    top = compose(text)
    if not isinstance(top, yaml.MappingNode):
        raise SiteError(_line(top), "the config is not a mapping")
    if root is None:
        found = _get(top, "docs_dir")
        docs_dir = (_scalar(found[1]) if found else None) or "docs"
        root = posixpath.normpath(posixpath.join(posixpath.dirname(path), docs_dir))
        root = "" if root == "." else root
    nav_node = _get(top, "nav")
    nav: tuple[NavEntry, ...] | None = None
    if nav_node is not None and isinstance(nav_node[1], yaml.SequenceNode):
        entries: list[NavEntry] = []
        _walk_nav(nav_node[1], entries, [0], path)
        nav = tuple(entries)
    plugin = _plugin(top, "redirects")
    redirects: tuple[Redirect, ...] = ()
    redirects_at = None
    if plugin is not None:
        maps = _get(plugin, "redirect_maps")
        if maps is not None:
            redirects_at = (path, _line(maps[0]))
            redirects = _redirects(maps[1], path)
    return SiteConfig(
        kind="mkdocs",
        path=path,
        root=root,
        nav=nav,
        redirects=redirects,
        redirects_at=redirects_at,
        can_redirect=plugin is not None,
        generated_pages=False,
        slug_styles=_slug_styles(top),
        not_in_nav=_patterns(top, "not_in_nav"),
        exclude=_patterns(top, "exclude_docs"),
        files=(path,),
    )


def _walk_nav(node: yaml.Node, out: list[NavEntry], seen: list[int], file: str) -> None:
    seen[0] += 1
    if seen[0] > MAX_NODES:
        raise SiteError(_line(node), f"the navigation has more than {MAX_NODES} entries")
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _walk_nav(item, out, seen, file)
    elif isinstance(node, yaml.MappingNode):
        for _, value in node.value:  # `- Title: page.md` or `- Section: [...]`
            _walk_nav(value, out, seen, file)
    else:
        target = _scalar(node)
        if target is None and isinstance(node, yaml.ScalarNode):
            raise SiteError(_line(node), "a navigation entry is empty")  # as `mkdocs build` says too
        if target and "://" not in target and not target.startswith(("mailto:", "#")):
            out.append(NavEntry(target.strip(), _line(node), file))


def _plugin(top: yaml.Node, name: str) -> yaml.Node | None:
    """The config of a plugin (a mapping, possibly empty), or None when it is not enabled."""
    found = _get(top, "plugins")
    if found is None:
        return None
    plugins = found[1]
    items: list[tuple[str | None, yaml.Node | None]] = []
    if isinstance(plugins, yaml.SequenceNode):
        for item in plugins.value:
            if isinstance(item, yaml.ScalarNode):
                items.append((item.value, None))
            for k, v in _members(item):
                items.append((_scalar(k), v))
    else:
        items = [(_scalar(k), v) for k, v in _members(plugins)]
    for key, config in items:
        if key == name:
            enabled = _get(config, "enabled") if config is not None else None
            if enabled is not None and (_scalar(enabled[1]) or "").lower() in ("false", "no", "off"):
                return None
            return config if isinstance(config, yaml.MappingNode) else yaml.MappingNode("", [])
    return None


def _redirects(node: yaml.Node, file: str) -> tuple[Redirect, ...]:
    out = []
    for k, v in _members(node):
        source, destination = _scalar(k), _scalar(v)
        if source is None or destination is None:
            raise SiteError(_line(k), "a redirect needs a source and a destination")
        out.append(
            Redirect(
                source=source,
                destination=destination,
                permanent=None,
                line=_line(k),
                end_line=max(_end_line(v), _line(k)),
                source_line=_line(k),
                destination_line=_line(v),
                file=file,
            )
        )
    return tuple(out)


def _slug_styles(top: yaml.Node) -> tuple[str, ...]:
    """Python-Markdown's slug; pymdownx's unicode slug too when `toc` is given a slugify."""
    found = _get(top, "markdown_extensions")
    if found is None:
        return (TOC,)
    items = found[1].value if isinstance(found[1], yaml.SequenceNode) else [found[1]]
    for item in items:
        toc = _get(item, "toc")
        if toc is not None and _get(toc[1], "slugify") is not None:
            return (TOC, TOC_UNICODE)
    return (TOC,)


def _patterns(top: yaml.Node, key: str) -> tuple[str, ...]:
    found = _get(top, key)
    text = _scalar(found[1]) if found else None
    if not text:
        return ()
    lines = (line.strip() for line in text.splitlines())
    return tuple(line for line in lines if line and not line.startswith("#"))
