"""GraphQL: the one query docs-sync sends, blobs by `REV:path` expression, parsed as GitHub parses it."""

from __future__ import annotations

import json
import re
from typing import Any

from bot.testing.standin.protocol import (
    Answer,
    Req,
    endpoint,
    is_binary,
    utf8,
)
from bot.testing.standin.shapes import Shapes

GQL_REPO = re.compile(r"repository\s*\(([^)]*)\)\s*\{")
GQL_ARG = re.compile(r'(\w+)\s*:\s*("(?:[^"\\]|\\.)*"|\$\w+)')
_GQL_OBJECT = re.compile(
    r'(\w+)\s*:\s*object\s*\(\s*expression\s*:\s*("(?:[^"\\]|\\.)*"|\$\w+)\s*\)\s*\{\s*(?:__typename\s*)?'
    r"\.\.\.\s*on\s+Blob\s*\{([^{}]*)\}\s*(?:__typename\s*)?\}"
)
_GQL_FIELDS = ("text", "byteSize", "isBinary", "isTruncated", "oid", "abbreviatedOid", "__typename")


class GraphQL(Shapes):
    @endpoint("POST", r"/graphql", needs=(("contents", "read"),))
    def _h_graphql(self, req: Req) -> Answer:
        data = req.json()
        query, variables = data.get("query"), data.get("variables") or {}
        if not isinstance(query, str):
            return 200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]}

        def fail(message: str) -> Answer:
            return 200, {"errors": [{"message": message}]}

        def value(token: str) -> Any:
            if token.startswith("$"):
                if token[1:] not in variables:
                    raise KeyError(token)
                return variables[token[1:]]
            return json.loads(token)

        m = GQL_REPO.search(query)
        prefix = query[: m.start()] if m else ""
        if not m or not re.fullmatch(r"\s*(query\b[^{]*)?\{\s*", prefix):
            return fail(
                "This stand-in answers only `query { repository(owner:, name:) { alias: object(...) "
                "{ ... on Blob { ... } } } }` queries."
            )
        depth, end = 1, m.end()
        while depth and end < len(query):
            depth += {"{": 1, "}": -1}.get(query[end], 0)
            end += 1
        body, suffix = query[m.end() : end - 1], query[end:]
        if depth or not re.fullmatch(r"\s*\}\s*", suffix):
            return fail("Parse error: unbalanced braces or a second top-level field.")
        try:
            args = {k: value(v) for k, v in GQL_ARG.findall(m.group(1))}
        except KeyError as missing:
            return fail(f"Variable {missing.args[0]} was provided no value")
        public = self.public.get(f"{args.get('owner')}/{args.get('name')}".lower())
        if isinstance(public, GraphQL):  # every published repository is a whole stand-in
            return public._h_graphql(req)
        if (
            str(args.get("owner")).lower() != self.owner.lower()
            or str(args.get("name")).lower() != self.name.lower()
        ):
            full = f"{args.get('owner')}/{args.get('name')}"
            return 200, {
                "data": {"repository": None},
                "errors": [
                    {
                        "type": "NOT_FOUND",
                        "path": ["repository"],
                        "message": f"Could not resolve to a Repository with the name '{full}'.",
                    }
                ],
            }
        objects, pos = [], 0
        for om in _GQL_OBJECT.finditer(body):
            if body[pos : om.start()].strip(" \t\r\n,"):
                break
            pos = om.end()
            objects.append(om)
        if not objects or body[pos:].strip(" \t\r\n,"):
            return fail(
                'This stand-in answers only `alias: object(expression: "REV:path") '
                "{ ... on Blob { text byteSize isBinary oid } }` selections."
            )
        try:
            expressions = [value(om.group(2)) for om in objects]
        except KeyError as missing:
            return fail(f"Variable {missing.args[0]} was provided no value")
        for om in objects:
            for name in om.group(3).split():
                if name not in _GQL_FIELDS:
                    return 200, {
                        "errors": [
                            {
                                "path": ["query", "repository", om.group(1), "... on Blob", name],
                                "extensions": {
                                    "code": "undefinedField",
                                    "typeName": "Blob",
                                    "fieldName": name,
                                },
                                "message": f"Field '{name}' doesn't exist on type 'Blob'",
                            }
                        ]
                    }
        specs = []
        for expr in expressions:
            rev, sep, path = str(expr).partition(":")
            ok = sep and "\n" not in path and self.repo.resolve(rev) is not None
            specs.append(f"{self.repo.resolve(rev)}:{path}" if ok else None)
        found = iter(self.repo.cat_batch([s for s in specs if s is not None]))
        result: dict[str, Any] = {}
        for om, spec in zip(objects, specs, strict=True):
            obj = next(found) if spec is not None else None
            alias, fields = om.group(1), om.group(3).split()
            if obj is None:
                result[alias] = None
                continue
            sha, otype, content = obj
            if otype != "blob":
                result[alias] = {"__typename": otype.capitalize()} if "__typename" in om.group(0) else {}
                continue
            binary = is_binary(content)
            values = {
                "text": None if binary else utf8(content),
                "byteSize": len(content),
                "isBinary": binary,
                "isTruncated": False,
                "oid": sha,
                "abbreviatedOid": sha[:7],
                "__typename": "Blob",
            }
            result[alias] = {f: values[f] for f in fields}
            if "__typename" in om.group(0):
                result[alias]["__typename"] = "Blob"
        return 200, {"data": {"repository": result}}
