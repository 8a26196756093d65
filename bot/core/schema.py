"""A JSON Schema of `.github/docs-sync.yml`, for editors (completion, hover, squiggles), made from
the reader's own key lists (bot/core/rules.py), so a key the reader learns is a key the schema
has: `_VALUES` must type every one of them, else building the schema fails.

The reader stays the authority (it also checks what a schema cannot say: that paths match the
repository, that a key fits its source's kind); the schema is what an editor can know alone.
The wheel ships it as `bot/docs-sync.schema.json`; `python -m bot.core.schema` prints it, and
tests/core/test_schema.py keeps the shipped file equal to it.
"""

from __future__ import annotations

import json
from typing import Any

from bot.core import kinds, rules

Schema = dict[str, Any]

_TEXT: Schema = {"type": "string", "minLength": 1}
_ANY_TEXT: Schema = {"type": "string"}
_TEXTS: Schema = {"type": "array", "items": _TEXT}
_PATH: Schema = {"type": "string", "minLength": 1, "pattern": "^(?![/\\\\])(?!.*\\\\)"}
_MAYBE_TEXT: Schema = {"type": ["string", "null"]}


def _object(keys: tuple[str, ...], values: dict[str, Schema], required: tuple[str, ...] = ()) -> Schema:
    out: Schema = {
        "type": "object",
        "properties": {key: values[key] for key in keys},
        "additionalProperties": False,
    }
    if required:
        out["required"] = list(required)
    return out


def config_schema() -> Schema:
    """The schema of a repository config (`packs`, `rules`, `fail_on`)."""
    severity = {
        "type": "object",
        "description": "the severity of each finding kind, overriding the defaults",
        "propertyNames": {"enum": list(rules.FINDING_KINDS)},
        "additionalProperties": {"enum": list(rules.LEVELS)},
    }
    convention = _object(
        rules.CONVENTION_KEYS,
        {"prefix": _ANY_TEXT, "separator": _ANY_TEXT, "bool": {"enum": list(rules.BOOL_STYLES)}},
    )
    source_values: dict[str, Schema] = {
        "id": _TEXT,
        "kind": {
            "enum": list(rules.SOURCE_KINDS),
            # shown by editors beside each choice (VS Code's JSON and YAML language servers)
            "enumDescriptions": [k.description for k in kinds.SOURCE_KINDS],
        },
        "path": _PATH,
        "paths": {"type": "array", "items": _PATH, "minItems": 1},
        "dataclass": _TEXT,
        "builder": _TEXT,
        "convention": convention,
        "calls": _TEXTS,
        "keyword": _TEXT,
        "position": {"type": "integer", "minimum": 0},
        "compared_with": _TEXTS,
        "group": _TEXT,
        "names": _TEXTS,
        "enumerated": {"type": "boolean"},
        "programs": _TEXTS,
    }
    doc_values: dict[str, Schema] = {
        "path": _PATH,
        "sections": _TEXTS,
        "program": _TEXT,
        "exclude": {"type": "array", "items": _PATH},
    }
    expect = _object(
        rules.EXPECT_KEYS,
        {
            "kind": {"enum": list(rules.FINDING_KINDS)},
            "symbol": _MAYBE_TEXT,
            "line": {"type": "integer", "minimum": 1},
            "severity": {"enum": [*rules.LEVELS, None]},
            "replacement": _MAYBE_TEXT,
        },
        required=("kind",),
    )
    example_file = _object(rules.EXAMPLE_FILE_KEYS, {"base": _MAYBE_TEXT, "head": _MAYBE_TEXT})
    example = _object(
        rules.EXAMPLE_KEYS,
        {
            "name": _TEXT,
            "files": {"type": "object", "additionalProperties": example_file},
            "expect": {"type": "array", "items": expect},
        },
        required=rules.EXAMPLE_KEYS,
    )
    site = {"oneOf": [{"type": "boolean"}, _object(rules.SITE_KEYS, {"config": _PATH, "root": _ANY_TEXT})]}
    other = _object(
        rules.OTHER_KEYS,
        {
            "repo": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$"},
            "ref": {"type": "string", "minLength": 1, "description": "a tag or a commit"},
            "paths": {"type": "array", "items": _PATH},
            "package": {"type": "string", "minLength": 1, "description": "an installed distribution"},
        },
    )
    other["oneOf"] = [{"required": ["repo", "ref", "paths"]}, {"required": ["package"]}]
    rule_values: dict[str, Schema] = {
        "id": _TEXT,
        "docs": {"type": "array", "items": _object(rules.DOC_KEYS, doc_values, required=("path",))},
        "sources": {
            "type": "array",
            "items": _object(rules.SOURCE_KEYS, source_values, required=("id", "kind")),
        },
        "external": _TEXTS,
        "severity": severity,
        "fail_on": {"enum": list(rules.FAIL_ON)},
        "examples": {"type": "array", "items": example},
        "site": site,
        "others": {"type": "array", "items": other, "maxItems": rules.MAX_OTHERS},
    }
    rule = _object(rules.RULE_KEYS, rule_values, required=("id",))
    rule["anyOf"] = [{"required": ["docs", "sources"]}, {"required": ["site"]}]
    top_values: dict[str, Schema] = {
        "packs": {"type": "array", "items": _TEXT, "description": "built-in rule packs by name"},
        "rules": {"type": "array", "items": rule},
        "fail_on": {"enum": list(rules.FAIL_ON), "description": "overrides every rule's fail_on"},
    }
    top = _object(rules.CONFIG_KEYS, top_values)
    top["anyOf"] = [{"required": ["packs"]}, {"required": ["rules"]}]
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "docs-sync configuration (.github/docs-sync.yml)",
        **top,
    }


def schema_text() -> str:
    return json.dumps(config_schema(), indent=2) + "\n"


if __name__ == "__main__":
    print(schema_text(), end="")
