"""Every finding kind and every source kind in one table each.

Finding kinds: the model's `FindingKind` literal, the rules' default severities, the schema's
enums and the SARIF rule descriptions are all read from `FINDING_KINDS`; tests/core/test_kinds.py
holds the literal and the README's list to it. To add a kind, add a row here and its name to the
literal.

Source kinds: the rules' kind names and the keys each accepts, the rule file reader's messages,
the schema's enum, the extractor each runs and the kinds that declare flags (`FLAG_KINDS`) are
all read from `SOURCE_KINDS`; the README's table of source kinds is held to it by the same test,
and `flags` to what each extractor finds. To add a kind, add a row here (and its extractor module
under bot/core/extract/).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from bot.core.model import Severity


@dataclass(frozen=True)
class FindingKindInfo:
    """One finding kind. `help` is (what to do, the doc line before, after or what the code says)."""

    name: str
    severity: Severity
    description: str
    help: tuple[str, str, str]


FINDING_KINDS: tuple[FindingKindInfo, ...] = (
    FindingKindInfo(
        "removed",
        "error",
        "A documented fact is gone from the code and nothing replaces it.",
        (
            "Delete the doc line, or rewrite it for what replaced the fact.",
            "`--cp-size 2` splits the sequence",
            "the code no longer declares `--cp-size`",
        ),
    ),
    FindingKindInfo(
        "renamed",
        "error",
        "A documented fact now has another name.",
        (
            "Cite the new name; the suggestion rewrites the line.",
            "Pass `--disable-fp32-master`.",
            "Pass `--no-keep-fp32-master`.",
        ),
    ),
    FindingKindInfo(
        "changed",
        "error",
        "A documented fact changed meaning: its default, choices, boolean polarity or type.",
        (
            "Say what the code now does: the default, choices, polarity or type it declares.",
            "`--batch-size` (default 32)",
            "`--batch-size` (default 64)",
        ),
    ),
    FindingKindInfo(
        "undocumented",
        "warning",
        "A new member appeared in a set the doc enumerates.",
        (
            "Add the new member to the list the page keeps.",
            "Backends: `fsdp`, `megatron`.",
            "Backends: `fsdp`, `megatron`, `sglang`.",
        ),
    ),
    FindingKindInfo(
        "new-flag",
        "notice",
        "A new flag appeared next to documented ones, on a page that does not list them all.",
        (
            "Document the new flag beside its neighbours, or ignore it with `/docs-sync ignore`.",
            "| `--lr` | learning rate |",
            "| `--lr` | learning rate |\n| `--lr-warmup` | warm-up steps |",
        ),
    ),
    FindingKindInfo(
        "unresolved",
        "error",
        "A doc line added by the change cites a flag, path or symbol the code does not have.",
        (
            "Fix the citation: the nearest real name is suggested.",
            "Set `--learing-rate`.",
            "Set `--learning-rate`.",
        ),
    ),
    FindingKindInfo(
        "wrong-default",
        "error",
        "A doc line added by the change claims a default the code does not have.",
        ("Write the default the code declares.", "`--epochs` defaults to 3.", "`--epochs` defaults to 1."),
    ),
    FindingKindInfo(
        "parse-error",
        "error",
        "A source file the rules read does not parse.",
        (
            "Fix the source file so Python can parse it; its facts are unknown until then.",
            "def build(:",
            "def build():",
        ),
    ),
    # the page may explain the name for other reasons: a person decides
    FindingKindInfo(
        "vanished",
        "warning",
        "The doc cites in code style a name the code it is coupled to stopped using.",
        (
            "Stop citing the name, or cite what the code uses now.",
            "Set `$BASE_DIR` first.",
            "the launchers no longer read `BASE_DIR`",
        ),
    ),
    # the docs site (`site:`): advice (a missing redirect, a page off the navigation) is capped
    # lower by the check itself
    FindingKindInfo(
        "nav",
        "error",
        "A navigation entry of the docs site reaches no page, or a page no entry reaches.",
        (
            "Point the entry at a page that exists, or remove it.",
            '"pages": ["guide/old"]',
            '"pages": ["guide/new"]',
        ),
    ),
    FindingKindInfo(
        "redirect",
        "error",
        "A redirect of the docs site is broken, chained or stale, or a moved page has none.",
        (
            "Point the redirect at the final page, or add the one a moved page needs.",
            '{"source": "/a", "destination": "/b"}',
            '{"source": "/a", "destination": "/c"}',
        ),
    ),
    FindingKindInfo(
        "link",
        "error",
        "A link in the docs reaches no page or file of the site.",
        ("Link to a page or file that exists.", "[setup](/guide/instal)", "[setup](/guide/install)"),
    ),
    FindingKindInfo(
        "anchor",
        "warning",
        "A link's or redirect's #anchor names no heading of its page.",
        ("Link to a heading the page has.", "[flags](/cli#flag)", "[flags](/cli#flags)"),
    ),
    # a `docs-sync: ignore` that suppresses nothing (audit)
    FindingKindInfo(
        "unused-ignore",
        "notice",
        "A docs-sync: ignore comment in a page suppresses no finding.",
        ("Remove the comment: what it waived is fixed or gone.", "<!-- docs-sync: ignore --old-flag -->", ""),
    ),
    # a listed file gone from both revisions: the rest of the rule is checked
    FindingKindInfo(
        "config",
        "warning",
        "A file a rule lists by name is in neither revision; the rest of the rule is checked.",
        (
            "Fix the file's name in the rule, or remove it from the rule.",
            "paths: [tool/cli.py, tool/gone.py]",
            "paths: [tool/cli.py]",
        ),
    ),
)


@dataclass(frozen=True)
class SourceKindInfo:
    """One source kind.

    `extractor` is "module:function" under bot/core/extract, imported on first use, or None for
    a kind with no facts of its own (paths are the tree's, tokens are read by extract/tokens.py);
    `reads` is what an extractor is handed: the parsed "python" module or the file's "text";
    `keys` are the source keys it accepts besides `COMMON_SOURCE_KEYS`; `flags`, whether its
    facts are flags: a parser of a command line.
    """

    name: str
    extractor: str | None
    reads: Literal["python", "text"]
    keys: tuple[str, ...]
    description: str
    flags: bool


# Every kind accepts these; the rest of a source's keys are each kind's own.
COMMON_SOURCE_KEYS = ("id", "kind", "path", "paths", "enumerated")

SOURCE_KINDS: tuple[SourceKindInfo, ...] = (
    # `calls` names the functions that declare flags (add_argument, a project's reset_arg)
    SourceKindInfo(
        "argparse",
        "argparse_flags:facts",
        "python",
        ("calls", "programs"),
        "argparse's add_argument calls: option strings, dest, default, choices, action, type, help.",
        flags=True,
    ),
    SourceKindInfo(
        "dataclass-flags",
        "dataclass_flags:facts",
        "python",
        ("dataclass", "builder", "convention", "programs"),
        "The fields of a dataclass a builder loop exposes as flags.",
        flags=True,
    ),
    SourceKindInfo(
        "click",
        "click_flags:click_facts",
        "python",
        ("programs",),
        "click commands and groups, their options and arguments.",
        flags=True,
    ),
    SourceKindInfo(
        "typer",
        "click_flags:typer_facts",
        "python",
        ("programs",),
        "The parameters of typer commands.",
        flags=True,
    ),
    SourceKindInfo(
        "hf-dataclass",
        "hf_dataclass:facts",
        "python",
        ("names", "programs"),
        "The dataclass fields transformers' HfArgumentParser turns into flags.",
        flags=True,
    ),
    SourceKindInfo(
        "tyro",
        "tyro_flags:facts",
        "python",
        ("convention", "names", "programs"),
        "The fields and parameters tyro.cli makes into flags.",
        flags=True,
    ),
    SourceKindInfo(
        "jsonargparse",
        "jsonargparse_flags:facts",
        "python",
        ("names", "programs"),
        "The parameters jsonargparse (and LightningCLI) reads from signatures.",
        flags=True,
    ),
    SourceKindInfo(
        "fire",
        "fire_flags:facts",
        "python",
        ("names", "programs"),
        "The parameters Python Fire makes into flags (`fire.Fire(main)`).",
        flags=True,
    ),
    SourceKindInfo(
        "pydantic",
        "pydantic_keys:facts",
        "python",
        ("names",),
        "The fields of pydantic models and settings, as config keys.",
        flags=False,
    ),
    SourceKindInfo(
        "settings",
        "settings_keys:facts",
        "python",
        (),
        "The keys of a module's dict of settings' defaults (`DEFAULTS = {'PATH': '.'}`), as config keys.",
        flags=False,
    ),
    SourceKindInfo(
        "config",
        "config_keys:facts",
        "text",
        (),
        "The keys of shipped YAML, TOML and JSON configs, as dotted paths with their values.",
        flags=False,
    ),
    SourceKindInfo(
        "symbols",
        "symbols:facts",
        "python",
        ("names",),
        "Classes, functions, methods and module constants.",
        flags=False,
    ),
    SourceKindInfo(
        "strings",
        "strings:facts",
        "python",
        ("calls", "keyword", "position", "compared_with", "group"),
        "Literals passed to named calls or compared against an expression.",
        flags=False,
    ),
    SourceKindInfo(
        "paths",
        None,
        "python",
        (),
        "File and folder paths the doc cites must exist.",
        flags=False,
    ),
    SourceKindInfo(
        "tokens",
        None,
        "python",
        (),
        "The names its files (Python, shell) use in code, for vanished.",
        flags=False,
    ),
)

# The kinds whose facts are flags: a rule that reads none of them reads no command line, so it
# has no programs to find and no flag a page cites to check.
FLAG_KINDS: tuple[str, ...] = tuple(k.name for k in SOURCE_KINDS if k.flags)
