"""The links a page writes, each at its line and column."""

from __future__ import annotations

from bot.core.site.links import is_external, scan


def targets(text: str) -> list[tuple[str, int]]:
    return [(link.target, link.line) for link in scan(text)]


def test_inline_reference_and_attribute_links() -> None:
    text = (
        'See [a](/x#y) and ![img](../img.png "title").\n'
        "[wrapped link\n"
        "text](<./with space.md>)\n"
        "\n"
        "[ref]: ../ref.md#part\n"
        "[^1]: a footnote, not a link\n"
        '<Card title="C" href="/card" />  <img src="/logo.png"/>  <A href={"/jsx"}>\n'
    )
    assert targets(text) == [
        ("/x#y", 1),
        ("../img.png", 1),
        ("./with space.md", 3),
        ("../ref.md#part", 5),
        ("/card", 7),
        ("/logo.png", 7),
        ("/jsx", 7),
    ]


def test_columns_point_at_the_target() -> None:
    line = 'Pick <Card href="/b">x</Card> or [the page](/a#z).'
    for link in scan(line):
        assert line[link.col : link.col + len(link.target)] == link.target


def test_code_comments_and_front_matter_are_skipped() -> None:
    text = (
        "---\ntitle: x\nurl: [y](/front)\n---\n"
        "`[code](/inline)` [real](/real)\n"
        "```md\n[fenced](/fenced)\n```\n"
        "~~~~\n```\n[still fenced](/fenced2)\n~~~~\n"
        "<!-- [commented](/c1)\n[still](/c2) -->[after](/after)\n"
        "``a ` [in code](/code2) ``\n"
    )
    assert targets(text) == [("/real", 5), ("/after", 14)]


def test_external_targets() -> None:
    assert is_external("https://x.org/a") and is_external("mailto:a@b.c") and is_external("//cdn.x/y")
    assert not is_external("/guide/x") and not is_external("../x.md") and not is_external("#a")
