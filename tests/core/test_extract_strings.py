import textwrap

from bot.core.extract import extract
from bot.core.rules import Source
from tests.miles import miles_file

MESH = Source(
    id="mesh",
    kind="strings",
    calls=("init_device_mesh", "_unflatten"),
    keyword="mesh_dim_names",
    position=2,
    group="mesh-dims",
)

PARALLEL = textwrap.dedent(
    """\
    from torch.distributed.device_mesh import init_device_mesh


    def build_meshes(device_type, world_size, replicas):
        flat = init_device_mesh(
            device_type,
            mesh_shape=(world_size,),
            mesh_dim_names=("data",),
        )
        if replicas > 1 and hasattr(flat, "_unflatten"):
            return flat._unflatten(
                0,
                (replicas, world_size // replicas),
                ("data_replicate", "data_shard"),
            )
        log("unflatten", "data_shard")
        return init_device_mesh(device_type, (replicas, 2), mesh_dim_names=["data_replicate", "data_shard"])
    """
)


def strings(source: Source, text: str) -> list[tuple[str, str, int]]:
    result = extract(source, "pkg/parallel.py", text)
    assert result.errors == ()
    group = source.group or source.id
    assert all(f.kind == "string" and f.group == group and f.source == source.id for f in result.facts)
    return [(f.token, f.key, f.line) for f in result.facts]


def test_literals_in_the_chosen_argument_of_the_chosen_calls():
    assert strings(MESH, PARALLEL) == [
        ("data", "mesh-dims:data", 8),
        ("data_replicate", "mesh-dims:data_replicate", 14),  # later occurrences are deduped
        ("data_shard", "mesh-dims:data_shard", 14),
    ]


def test_only_the_keyword_or_only_the_position():
    by_keyword = Source(id="k", kind="strings", calls=("init_device_mesh",), keyword="mesh_dim_names")
    by_position = Source(id="p", kind="strings", calls=("_unflatten", "init_device_mesh"), position=2)

    assert strings(by_keyword, PARALLEL) == [
        ("data", "k:data", 8),
        ("data_replicate", "k:data_replicate", 17),
        ("data_shard", "k:data_shard", 17),
    ]
    assert strings(by_position, PARALLEL) == [
        ("data_replicate", "p:data_replicate", 14),
        ("data_shard", "p:data_shard", 14),
    ]


def test_without_keyword_or_position_every_argument_counts():
    source = Source(id="logged", kind="strings", calls=("log",))

    assert strings(source, PARALLEL) == [
        ("data_shard", "logged:data_shard", 16),
        ("unflatten", "logged:unflatten", 16),
    ]


def test_position_after_a_splat_is_not_guessed():
    source = Source(id="s", kind="strings", calls=("make",), position=1)

    assert strings(source, 'make(*prefix, "a")\nmake("x", "b")\n') == [("b", "s:b", 2)]


FACTORY = textwrap.dedent(
    """\
    def create_actor(args):
        if args.offload and args.train_backend == "alpha":
            preload()
        backend = args.train_backend
        if backend == "alpha":
            impl = AlphaActor
        elif "beta" == backend:
            impl = BetaActor
        elif backend in ("gamma", "delta"):
            impl = None
        elif backend not in {"epsilon"} or backend != 3:
            raise ValueError(backend)
        if "alp" in backend or args.mode == "ignored":
            pass
        match backend:
            case "zeta" | "eta":
                pass
            case "theta" as name:
                pass
            case _:
                pass
        return impl
    """
)


def test_literals_compared_with_the_expressions():
    source = Source(id="backends", kind="strings", compared_with=("args.train_backend", "backend"))

    assert strings(source, FACTORY) == [
        ("alpha", "backends:alpha", 2),
        ("beta", "backends:beta", 7),
        ("delta", "backends:delta", 9),
        ("gamma", "backends:gamma", 9),
        ("epsilon", "backends:epsilon", 11),
        ("eta", "backends:eta", 16),
        ("zeta", "backends:zeta", 16),
        ("theta", "backends:theta", 18),
    ]


def test_only_the_listed_expression_is_followed():
    source = Source(id="b", kind="strings", compared_with=("args.train_backend",))

    assert strings(source, FACTORY) == [("alpha", "b:alpha", 2)]


def test_syntax_error_is_reported_with_its_line():
    result = extract(MESH, "pkg/parallel.py", "x = (\n")

    assert result.facts == ()
    assert [(e.path, e.line) for e in result.errors] == [("pkg/parallel.py", 1)]


def test_real_miles_mesh_dims_and_backends():
    mesh = extract(MESH, "p.py", miles_file("miles/backends/fsdp_utils/parallel.py")).facts
    assert [f.token for f in mesh] == ["dp", "dp_replicate", "dp_shard"]

    backends = Source(id="backends", kind="strings", compared_with=("args.train_backend", "backend"))
    facts = extract(backends, "f.py", miles_file("miles/ray/train/actor_factory.py")).facts
    assert [f.token for f in facts] == ["megatron"]
