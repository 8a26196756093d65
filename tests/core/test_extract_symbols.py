import textwrap

from bot.core.extract import extract
from bot.core.rules import Source
from tests.miles import miles_file

SOURCE = Source(id="actor", kind="symbols", paths=("pkg/actor.py",))

MODULE = textwrap.dedent(
    """\
    import logging
    from typing import TYPE_CHECKING

    logger = logging.getLogger(__name__)
    DEFAULT_BACKEND = "alpha"
    _SUPPORTED_MODES: tuple[str, ...] = ("fast", "slow")
    LOW, HIGH = 0, 10
    mixed_Case = 1

    if TYPE_CHECKING:
        from pkg.ray import Handle

    try:
        import fastpath

        HAS_FASTPATH = True
    except ImportError:
        HAS_FASTPATH = False


    class TrainActor(BaseActor, metaclass=Registry):
        RETRIES = 3

        def init(self, args):
            def helper():
                pass

        @property
        def world_size(self):
            return 1

        async def train(self, rollout_id):
            pass

        class Inner:
            def hidden(self):
                pass


    def build_actor(args):
        class Local:
            pass


    async def launch():
        pass


    class Plain:
        pass
    """
)


def symbols(text: str, source: Source = SOURCE) -> list[tuple[str, str, int, dict[str, str]]]:
    result = extract(source, "pkg/actor.py", text)
    assert result.errors == ()
    assert all(
        f.kind == "symbol" and f.source == source.id and f.path == "pkg/actor.py" for f in result.facts
    )
    return [(f.token, f.key, f.line, dict(f.attrs)) for f in result.facts]


def test_classes_functions_methods_and_constants():
    assert symbols(MODULE) == [
        ("DEFAULT_BACKEND", "DEFAULT_BACKEND", 5, {"kind": "constant"}),
        ("_SUPPORTED_MODES", "_SUPPORTED_MODES", 6, {"kind": "constant"}),
        ("HIGH", "HIGH", 7, {"kind": "constant"}),
        ("LOW", "LOW", 7, {"kind": "constant"}),
        ("HAS_FASTPATH", "HAS_FASTPATH", 16, {"kind": "constant"}),  # the first assignment
        ("TrainActor", "TrainActor", 21, {"bases": "BaseActor", "kind": "class"}),
        ("init", "TrainActor.init", 24, {"kind": "method"}),
        ("world_size", "TrainActor.world_size", 29, {"kind": "method"}),  # the `def` line, not the decorator
        ("train", "TrainActor.train", 32, {"kind": "method"}),
        ("build_actor", "build_actor", 40, {"kind": "function"}),
        ("launch", "launch", 45, {"kind": "function"}),
        ("Plain", "Plain", 49, {"kind": "class"}),
    ]


def test_names_keep_only_the_listed_tokens():
    source = Source(id="actor", kind="symbols", names=("TrainActor", "train", "launch", "Missing"))

    assert [(token, key) for token, key, _, _ in symbols(MODULE, source)] == [
        ("TrainActor", "TrainActor"),
        ("train", "TrainActor.train"),
        ("launch", "launch"),
    ]


def test_same_method_name_in_two_classes_gives_two_facts():
    text = "class A:\n    def run(self): ...\n\n\nclass B(A, object):\n    def run(self): ...\n"

    assert symbols(text) == [
        ("A", "A", 1, {"kind": "class"}),
        ("run", "A.run", 2, {"kind": "method"}),
        ("B", "B", 5, {"bases": "A, object", "kind": "class"}),
        ("run", "B.run", 6, {"kind": "method"}),
    ]


def test_syntax_error_is_reported_with_its_line():
    result = extract(SOURCE, "pkg/actor.py", "class A:\n    pass\n\ndef broken(\n")

    assert result.facts == ()
    assert [(e.path, e.line) for e in result.errors] == [("pkg/actor.py", 4)]


def test_real_miles_fsdp_actor():
    text = miles_file("miles/backends/fsdp_utils/actor.py")
    source = Source(id="fsdp-actor", kind="symbols", names=("FSDPTrainRayActor", "init", "train"))

    facts = extract(source, "miles/backends/fsdp_utils/actor.py", text).facts

    keys = {f.key: f for f in facts}
    assert {"FSDPTrainRayActor", "FSDPTrainRayActor.init", "FSDPTrainRayActor.train"} <= set(keys)
    assert keys["FSDPTrainRayActor"].attr("kind") == "class"
    assert "class FSDPTrainRayActor" in text.splitlines()[keys["FSDPTrainRayActor"].line - 1]
