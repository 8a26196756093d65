"""The keys of a composed YAML document as dotted paths, each with its value when it is a scalar or
a list of scalars, bounded in depth and in nodes (aliases may repeat one a billion times).

Shared by the keys a page's YAML block sets (bot/core/configblocks.py) and the keys of a shipped
config (bot/core/extract/config_keys.py); each says how it reports a document too large.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import yaml


def walk(
    node: yaml.Node,
    budget: list[int],
    *,
    max_depth: int,
    too_large: Callable[[str], Exception],
    merge: bool,
    keys_count: bool,
) -> Iterator[tuple[str, str | None, yaml.Node]]:
    """(dotted key, value, key node) under `node`, a key after its parents. `too_large` makes the
    error raised for "deep" (nested deeper than `max_depth`), "nodes" (more nodes than `budget`)
    or "keys"; a merge key (`<<: *base`) gives the anchored mapping's keys with `merge`, nothing
    without; `keys_count` spends the budget on each key too."""
    import yaml

    def under(node: yaml.Node, prefix: str, depth: int) -> Iterator[tuple[str, str | None, yaml.Node]]:
        if depth > max_depth:
            raise too_large("deep")
        budget[0] -= 1
        if budget[0] < 0:
            raise too_large("nodes")
        if isinstance(node, yaml.SequenceNode):
            for item in node.value:
                yield from under(item, prefix, depth + 1)
            return
        if not isinstance(node, yaml.MappingNode):
            return
        for key_node, value_node in node.value:
            if not isinstance(key_node, yaml.ScalarNode):
                continue
            if key_node.value == "<<":
                if merge:  # the anchored mapping's keys are this one's
                    yield from under(value_node, prefix, depth + 1)
                continue
            if keys_count:
                budget[0] -= 1
                if budget[0] < 0:
                    raise too_large("keys")
            key = f"{prefix}.{key_node.value}" if prefix else str(key_node.value)
            value = scalar(value_node)
            yield key, value, key_node
            if value is None:
                yield from under(value_node, key, depth + 1)

    return under(node, "", 0)


def scalar(node: yaml.Node) -> str | None:
    """A scalar's text ("None" for null), a list of scalars as `[a, b]`; None for anything else."""
    import yaml

    if isinstance(node, yaml.ScalarNode):
        return "None" if node.tag.endswith(":null") else str(node.value)
    if isinstance(node, yaml.SequenceNode) and all(isinstance(n, yaml.ScalarNode) for n in node.value):
        return "[" + ", ".join(str(n.value) for n in node.value) + "]"
    return None
