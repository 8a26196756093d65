"""A page not indexed yet is parsed only when its words could make a token the caller looks for
(`bot.core.pageindex.PageWords`): every token a page's index holds must pass that test, in every
format and every form the page reader synthesizes (YAML keys as dotted paths, normal forms of
defaults, environment variables, unescaped names)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.check.codenames import cited_name
from bot.core.page import parse_doc
from bot.core.pageindex import PageWords, may_write, page_index, written_words

ROOT = Path(__file__).resolve().parents[2]

MARKDOWN = """\
# Training

Pass `--lr 1e-4` (default `0.0001`) and `--warmup-steps=100`; `--fp16` is on by default.
The store keeps `max\\_cache\\_size` entries; see `tool/extra/helper.py` and `FSDPArgs`.
Set `$TOOL_HOME` or `${TOOL_CACHE_DIR}`.

| Flag | What it does | Default |
|---|---|---|
| `--offload` | offload the optimizer | on |
| `--compile` | compile the model | off |
| `--pin-memory` | pin host memory | ✅ |
| `--chunk-size` | bytes per chunk | 1K |
| `--layers` | which layers | `[a, b]` |
| `--seed` | the seed | None |

```yaml
optimizer:
  lr: 3.0e-4
  betas: [0.9, 0.95]
trainer:
  - name: first
    max_steps: 10
```

```toml
[tool.trainer]
grad-accum = 4
```

```bash
APP_DB_URL=postgres://db python -m tool.train --keep-cache --mode=fast \\
    --output-dir /tmp/out
```
"""

RST = """\
Training
========

Pass ``--lr`` and ``--warmup-steps``; :option:`--fp16` turns on half precision.

.. code-block:: bash

   tune run --config llama3/8B.yaml lr=1e-4

.. list-table::
   :header-rows: 1

   * - Flag
     - Default
   * - ``--max-steps``
     - ``10``
   * - \\-n, \\--no-clobber
     - ``False``
   * - \\--hub {local,remote}
     - ``local``
"""

MDX = """\
---
title: Training
---

<ParamField path="batch_size" type="int" default="32">The batch size.</ParamField>

Pass `--batch-size 64`.
"""

QMD = """\
---
title: Training
---

::: {.callout-note}
Set `gradient_accumulation_steps: 4` in the YAML, or pass `--gradient-accumulation-steps`.
:::
"""

PAGES = {"docs/train.md": MARKDOWN, "docs/train.rst": RST, "docs/train.mdx": MDX, "docs/train.qmd": QMD}
# This repository's own pages: long, with tables, YAML and shell blocks of every shape.
PAGES |= {p: (ROOT / p).read_text(encoding="utf-8") for p in ("README.md", "bench/README.md")}


@pytest.mark.parametrize("path", PAGES)
def test_every_token_of_a_page_index_could_be_cited_by_its_words(path):
    text = PAGES[path]
    index = page_index(parse_doc(path, text))
    assert index.tokens, "the page cites something"
    could = PageWords.of(text).citable()
    assert [t for t in sorted(index.tokens) if not could(t)] == []


@pytest.mark.parametrize("path", PAGES)
def test_the_text_holds_every_word_of_each_token_its_index_holds(path):
    # may_write is asked before the page is split into words: False must imply not citable.
    text = PAGES[path]
    index = page_index(parse_doc(path, text))
    assert [t for t in sorted(index.tokens) if not may_write(text.lower(), [written_words(t)])] == []


def test_a_text_lacking_a_word_of_every_sought_token_may_not_write_them():
    sought = [written_words("--keep-fp32-master"), written_words("ParallelState")]
    assert not may_write("pass --keep-fp32 to save memory.", sought)
    assert may_write("Pass `--KEEP_FP32_MASTER`.".lower(), sought)  # any case, any separators
    assert may_write("the fp32 master weights; keep them.", sought)  # apart: PageWords decides
    assert not may_write("the parallel state.", sought)  # a run is one word: `parallelstate`
    # A normal form need not be written: `True` is what `on` says.
    assert written_words("True") == () and may_write("on", [written_words("True")])


@pytest.mark.parametrize("path", PAGES)
def test_every_code_name_a_page_cites_is_in_its_text_as_written(path):
    # codenames._cited skips a page whose words hold none of the names it looks for.
    text = PAGES[path]
    words = PageWords.of(text)
    names = {n for t in page_index(parse_doc(path, text)).tokens if (n := cited_name(t))}
    assert [n for n in sorted(names) if not words.names(frozenset({n}))] == []
    if path.endswith((".md", ".qmd")):
        assert names, "the page cites names"


def test_synthesized_tokens_pass_and_absent_words_do_not():
    index = page_index(parse_doc("docs/train.md", MARKDOWN))
    # Forms the page does not spell as written: a dotted YAML key, a default's normal form.
    assert {"optimizer.lr", "trainer.max_steps", "tool.trainer.grad-accum", "True", "False"} <= index.tokens
    could = PageWords.of(MARKDOWN).citable()
    for token in ("optimizer.lr", "True", "1024", "--max-cache-size", "MAX_CACHE_SIZE", "--tool-home"):
        assert could(token), token
    for token in ("--learning-rate", "--keep-fp32-master", "scheduler.lr", "ParallelState"):
        assert not could(token), token


def test_the_words_of_one_part_of_a_token_must_follow_each_other_on_the_page():
    could = PageWords.of(MARKDOWN).citable()
    # `max\_cache\_size`, `--keep-cache`, `max_steps:` are written; these orders are not.
    for token in ("--max-cache-size", "max_cache_size", "--keep-cache", "--max-steps", "MAX-STEPS"):
        assert could(token), token
    for token in ("--cache-max", "--size-cache", "--steps-max", "--cache-keep", "keep_mode"):
        assert not could(token), token
    # Parts a page writes apart are joined by other separators: a YAML key under another.
    assert could("trainer.max_steps") and could("optimizer.lr")
    # An inline tag splits no name, and a placeholder in angle brackets is still written.
    words = PageWords.of("Use `--max-<wbr>steps` with `<model_id>`.")
    assert words.citable()("--max-steps") and words.citable()("<model_id>")
