"""reStructuredText, MDX and Quarto pages read like Markdown: every citation on its own line and
column, tables with their columns, headings with the anchors each format gives them."""

from __future__ import annotations

import textwrap

import pytest

from bot.core.anchors import docutils_id, pandoc_id
from bot.core.page import DocPage, parse_doc


def page(path: str, src: str) -> DocPage:
    return parse_doc(path, textwrap.dedent(src).lstrip("\n"))


def cited(p: DocPage) -> list[tuple[str, str, int, str]]:
    """(token, where, line, the text at the ref's column): each ref is where it says it is."""
    out = []
    for r in p.refs:
        assert r.col is not None, r
        assert p.lines[r.line - 1][r.col : r.col + len(r.token)] == r.token, r
        out.append((r.token, r.where, r.line, r.column or ""))
    return out


RST = """
=========
Tool docs
=========

.. _usage-label:

Usage
-----

Run ``tool --lr 0.1`` with :option:`--batch-size` and :class:`~pkg.Foo`.
See `the parser <../pkg/cli.py>`_ and *not* `--emphasis`.

.. code-block:: bash
   :linenos:

   python train.py --lr 0.1 \\
       --epochs 3

Literal::

    tool --old-flag 3

.. code-block:: python

   parser.add_argument("--in-python")

.. note::

   Use ``--in-note`` here.

.. option:: --output FILE

   Where to write.

-v, --verbose   Be chatty.

.. prompt:: bash $

   tool --prompted

..
   A comment citing ``--commented``.

.. literalinclude:: ../examples/run.py

.. raw:: html

   <code>--raw</code>
"""


def test_rst_literals_roles_blocks_and_option_lists_are_cited_where_they_are():
    p = page("docs/tool.rst", RST)
    assert cited(p) == [
        ("--lr", "inline", 10, ""),
        ("--batch-size", "inline", 10, ""),
        ("pkg.Foo", "inline", 10, ""),
        ("pkg.Foo", "inline", 10, ""),  # the module it may be (kind "module")
        ("../pkg/cli.py", "link", 11, ""),
        ("train.py", "fence", 16, ""),
        ("--lr", "fence", 16, ""),
        ("--epochs", "fence", 17, ""),
        ("--old-flag", "fence", 21, ""),
        ("--in-note", "inline", 29, ""),
        ("--output", "inline", 31, ""),
        ("--verbose", "inline", 35, ""),
        ("--prompted", "fence", 39, ""),
        ("../examples/run.py", "link", 44, ""),
    ]
    lr = p.refs[0]
    assert (lr.value, lr.command) == ("0.1", ("tool",))


def test_rst_sections_take_docutils_ids_and_targets_are_anchors():
    p = page("docs/tool.rst", RST)
    assert [(s.title, s.path, s.level, s.line, s.anchor) for s in p.sections[1:]] == [
        ("Tool docs", "Tool docs", 1, 2, "tool-docs"),
        ("Usage", "Tool docs > Usage", 2, 7, "usage"),
    ]
    assert {"usage-label", "usage", "tool-docs"} <= p.anchors
    linked = page("docs/x.rst", ".. _here:\n\n.. _`PyPI`: https://pypi.org\n.. _`Guide`:\n   https://x.org\n")
    assert linked.anchors == {"here"}
    assert docutils_id("3. Mixed precision (FP8)") == "mixed-precision-fp8"
    assert docutils_id("Straße") == "strasze"


def test_rst_grid_simple_and_list_tables_have_columns_rows_and_default_claims():
    p = page(
        "docs/flags.rst",
        """
        +--------------+---------+
        | Flag         | Default |
        +==============+=========+
        | ``--lr``     | ``0.1`` |
        +--------------+---------+
        | ``--epochs`` | ``3``   |
        | (two lines)  |         |
        +--------------+---------+

        =============  =======
        Flag           Default
        =============  =======
        ``--warmup``   ``10``
        =============  =======

        .. list-table:: Flags
           :header-rows: 1

           * - Flag
             - Default
           * - ``--seed``
             - ``42``
        """,
    )
    assert cited(p) == [
        ("--lr", "table", 4, "Flag"),
        ("0.1", "table", 4, "Default"),
        ("--epochs", "table", 6, "Flag"),
        ("3", "table", 6, "Default"),
        ("--warmup", "table", 13, "Flag"),
        ("10", "table", 13, "Default"),
        ("--seed", "table", 21, "Flag"),
        ("42", "table", 22, "Default"),
    ]
    assert [(c.subject, c.value, c.line, c.text) for c in p.claims] == [
        ("--lr", "0.1", 4, "``0.1``"),
        ("--epochs", "3", 6, "``3``"),
        ("--warmup", "10", 13, "``10``"),
        ("--seed", "42", 22, "``42``"),
    ]


def test_rst_definition_and_bullet_lists_with_a_default_across_lines():
    p = page(
        "docs/x.rst",
        """
        ``--lr``
           The learning rate.

        * ``--a`` and
          ``--b`` in one item; the default
          is ``0.1``.
        """,
    )
    assert [(r.token, r.line) for r in p.refs] == [("--lr", 1), ("--a", 4), ("--b", 5), ("0.1", 6)]
    assert [(c.subject, c.value, c.line) for c in p.claims] == [("--b", "0.1", 6)]


def test_rst_reading_is_bounded_on_unclosed_markup():
    text = "``--x " * 4_000 + "\n\n" + ("   " * 40 + "* a\n") * 50
    p = parse_doc("docs/big.rst", text)
    assert p.refs == ()


MDX = """
---
title: X
---
import { Tabs } from '@site/tabs'
export const meta = {
  a: `--in-export`,
}

# Usage {#use}

{props.value} and `--kept` {`--in-expression`}

<Tabs>
<Tab title={"x"}>

Inside `--inside`.

</Tab>
</Tabs>

```bash
tool --fence {x}
```

| Flag | Default |
|---|---|
| `--a` | `1` |
"""


def test_mdx_reads_markdown_and_code_but_not_imports_exports_or_expressions():
    p = page("docs/usage.mdx", MDX)
    assert cited(p) == [
        ("--kept", "inline", 11, ""),
        ("--inside", "inline", 16, ""),
        ("--fence", "fence", 22, ""),
        ("--a", "table", 27, "Flag"),
        ("1", "table", 27, "Default"),
    ]
    assert [(s.title, s.anchor) for s in p.sections[1:]] == [("Usage {#use}", "use")]
    assert page("docs/a.mdx", "# Setup v1.2 (GPU)\n").sections[0].anchor == "setup-v1-2-gpu"


def test_mdx_has_no_indented_code_so_an_indented_tip_is_prose():
    src = "Train it.\n\n<Tip>\n    Pass `--amp` for native AMP.\n</Tip>\n\n    Also `--top-level`.\n"
    expected = [("--amp", "inline", 4, ""), ("--top-level", "inline", 7, "")]
    assert cited(page("docs/train.mdx", src)) == expected
    # In Markdown the same lines are indented code, which names nothing.
    assert cited(page("docs/train.md", src)) == []


QMD = """
---
title: Q
---

## Setup {#sec-setup}

::: {.callout-note}
Use `--q-flag` here.
:::

```{bash}
#| echo: true
tool --chunk 3
```

```{python}
run("--in-python")
```

## 2. Other Title {.unnumbered}

{{< include _x.qmd >}}
"""


def test_quarto_reads_chunks_callouts_and_section_ids():
    p = page("docs/guide.qmd", QMD)
    assert cited(p) == [("--q-flag", "inline", 8, ""), ("--chunk", "fence", 13, "")]
    assert [(s.title, s.anchor) for s in p.sections[1:]] == [
        ("Setup", "sec-setup"),
        ("2. Other Title", "other-title"),
    ]
    assert pandoc_id("2. Other Title") == "other-title"


NOTEBOOK = """\
{
 "cells": [
  {
   "cell_type": "markdown",
   "metadata": {},
   "source": [
    "## Serving\\n",
    "\\n",
    "Pass `--lora-paths` with a \\"name=path\\" pair."
   ]
  },
  {
   "cell_type": "code",
   "execution_count": null,
   "metadata": {},
   "outputs": [],
   "source": [
    "server, port = launch_server_cmd(\\n",
    "    \\"\\"\\"\\n",
    "python3 -m pkg.serve --model-path m \\\\\\n",
    "    --max-loras 2\\n",
    "\\"\\"\\"\\n",
    ")\\n",
    "print(\\"--not-a-flag\\", args)"
   ]
  }
 ],
 "metadata": {},
 "nbformat": 4,
 "nbformat_minor": 4
}
"""


def test_a_notebook_reads_its_markdown_cells_and_the_commands_its_code_cells_run_on_the_files_lines():
    p = page("docs/serve.ipynb", NOTEBOOK)
    assert len(p.lines) == len(NOTEBOOK.splitlines())
    assert [(s.title, s.anchor, s.line) for s in p.sections[1:]] == [("Serving", "serving", 7)]
    assert [(t, where, line) for t, where, line, _ in cited(p)] == [
        ("--lora-paths", "inline", 9),
        ("pkg.serve", "fence", 20),  # the module the command runs
        ("--model-path", "fence", 20),
        ("--max-loras", "fence", 21),
        ("--not-a-flag", "fence", 24),
    ]
    commands = [r.command[:3] if r.command else None for r in p.refs if r.kind == "flag"][1:]
    # The string the cell hands its helper is the command; a Python call runs nothing of ours.
    assert commands == [("python3", "-m", "pkg.serve")] * 2 + [("print",)]


@pytest.mark.parametrize("path", ["docs/x.md", "docs/x.mdx", "docs/x.qmd", "docs/x.rst", "docs/x.ipynb"])
def test_every_format_reads_an_empty_page(path: str):
    assert parse_doc(path, "").refs == ()


def test_rst_options_without_aliases_and_history_are_not_citations():
    p = page(
        "docs/man.rst",
        """
        .. option:: --use-cache (-c), --no-use-cache (-C)

           Keep :file:`build/cache` (the reader's own folder).

        .. option:: --old-mode

           .. versionremoved:: 8.0
              The ``--older-mode`` option.
        """,
    )
    assert [(r.token, r.value) for r in p.refs] == [("--use-cache", None), ("--no-use-cache", None)]


def test_rst_options_after_a_program_directive_are_that_programs():
    p = page(
        "docs/man.rst",
        """
        Use :option:`--x` of anything.

        .. program:: tool-serve

        .. option:: --port N

           See also :option:`--host` and :option:`tool-build --out`.
        """,
    )
    assert [(r.token, r.value, r.command) for r in p.refs] == [
        ("--x", None, None),
        ("--port", "N", ("tool-serve",)),
        ("--host", None, ("tool-serve",)),
        ("--out", None, ("tool-build",)),
    ]


def test_an_rst_options_description_claims_its_default_and_its_header_claims_none():
    p = page(
        "docs/man.rst",
        """
        .. option:: -s SUFFIX, --suffix SUFFIX

           Suffix of the files. Defaults to ``rst``.

        .. option:: --cache-dir=cache

           By default, the cache is kept.
        """,
    )
    assert [(c.subject, c.value, c.line, c.text) for c in p.claims] == [("--suffix", "rst", 3, "``rst``")]


def test_an_rst_cross_reference_titled_with_options_cites_them_and_a_prose_title_nothing():
    p = page(
        "docs/config.rst",
        """
        * ``nox.options.sessions`` is :ref:`-s or --sessions <opt-sessions>`. See :ref:`usage <usage>`.
        * ``nox.options.backend`` is :ref:`-fb, --force-venv-backend <opt-fb>`, not :ref:`--x and a word <x>`.
        """,
    )
    flags = [r for r in p.refs if r.kind == "flag"]
    assert [(r.token, r.line) for r in flags] == [("--sessions", 1), ("--force-venv-backend", 2)]
    # at the title's own column, where a suggestion rewrites it
    assert all(p.lines[r.line - 1][r.col :].startswith(r.token) for r in flags if r.col is not None)
    assert all(r.col is not None for r in flags)


def test_rst_options_written_escaped_in_plain_text_are_cited_at_the_flag_itself():
    p = page(
        "docs/cli.rst",
        r"""
        .. list-table::
           :header-rows: 1

           * - Option
             - Default
           * - \-f, \--force
             - ``False``
           * - \--hub {local,remote}
             - ``local``
           * - \--name (-N), \--tag <tag>
             - ``x``

        +--------------+---------+
        | Option       | Default |
        +==============+=========+
        | \--seed SEED | ``42``  |
        +--------------+---------+

        Pass the \--dry-run switch, or \\--quiet.
        """,
    )
    assert cited(p) == [
        ("--force", "table", 6, "Option"),
        ("False", "table", 7, "Default"),
        ("--hub", "table", 8, "Option"),
        ("local", "table", 9, "Default"),
        ("--name", "table", 10, "Option"),
        ("--tag", "table", 10, "Option"),
        ("x", "table", 11, "Default"),
        ("--seed", "table", 16, "Option"),
        ("42", "table", 16, "Default"),
        ("--dry-run", "inline", 19, ""),
        ("--quiet", "inline", 19, ""),
    ]
    flags = [r for r in p.refs if r.kind == "flag"]
    # The escape stays on the page: a rewrite of the flag at its column keeps it.
    assert all(p.lines[r.line - 1][r.col - 1] == "\\" for r in flags)
    assert [(r.token, r.value) for r in flags][1:4] == [
        ("--hub", "{local,remote}"),
        ("--name", None),  # `(-N)` is its alias, no value
        ("--tag", "<tag>"),
    ]
    assert [(c.subject, c.value, c.line) for c in p.claims] == [
        ("--force", "False", 7),
        ("--hub", "local", 9),
        ("--seed", "42", 16),
    ]  # a row of two options says whose its default is not


def test_rst_dashes_and_unescaped_plain_text_are_no_flags():
    p = page(
        "docs/prose.rst",
        r"""
        Pass -- to stop reading options; see below -- or --- there; pages--all of them.
        An --unescaped flag in a sentence is another program's, maybe; ``--follow`` is a literal.

        .. list-table::

           * - r\--
             - \--x
             - \---
           * - \-- a comment
             - \-1
             - \-n2 and a\--b
        """,
    )
    assert [r.token for r in p.refs] == ["--follow"]


def test_long_options_in_plain_text_are_mentions_not_refs():
    src = "Use --amp, or --lr=3 (--paren); not x--y, -- a dash, <--arrow-->, --x, --a/b or `--code`.\n"
    p = page("docs/train.md", src)
    assert [(m.token, m.where, p.lines[0][m.col : m.col + len(m.token)]) for m in p.mentions] == [
        ("--amp", "prose", "--amp"),
        ("--lr", "prose", "--lr"),
        ("--paren", "prose", "--paren"),
    ]
    assert [r.token for r in p.refs] == ["--code"]
    assert page("docs/x.mdx", "<Tip>\n    --apex-amp forces APEX.\n</Tip>\n").mentions[0].line == 2
    # reStructuredText's plain text makes `--` a dash.
    assert page("docs/train.rst", "Use --amp here.\n").mentions == ()


def test_a_short_option_alone_on_a_list_item_is_a_mention():
    # A reference page lists an option's spellings one per item: `- -l`, `- --line-length`.
    src = "**Flags:**\n\n- -l\n- --line-length\n* -k\n1. -ab\n> - -z\n\n"  # 3-7
    src += "A -v flag, - -x in a sentence.\n\n- -1\n- -l and more\n- `-q`\n"  # 9, 11-13
    p = page("docs/options.md", src)
    found = [(m.token, m.line, p.lines[m.line - 1][m.col : m.col + len(m.token)]) for m in p.mentions]
    assert found == [
        ("-l", 3, "-l"),
        ("--line-length", 4, "--line-length"),
        ("-k", 5, "-k"),
        ("-ab", 6, "-ab"),
        ("-z", 7, "-z"),
    ]
    assert [r.token for r in p.refs] == ["-q"]  # in code: a ref as before
