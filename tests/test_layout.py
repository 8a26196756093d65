"""The package's floors, as a gate: imports inside `bot/` only point down, and nothing forms a cycle.

Floors, lowest first (a module may import its own floor and the floors below it):

    core      the pure analysis: model, rules, pages, extractors, the check
    render    every output format and every word shown on GitHub
    trees     revisions: git, the working tree, in memory; the facts cache
    app       the GitHub App: web, queue, worker, jobs, commands, GitHub adapter
    testing   the GitHub stand-in and the rule-example runner (shipped, for the demo and users)
    demo      `docs-sync demo`
    cli       the command line (bot/cli.py, cli_args.py, __main__.py, action.py)

`render` and `trees` share a storey but not each other: neither imports the other. Every import
is read, function-local ones included, so a cycle cannot hide behind a deferred import.

The App's floor has wings, lowest first (a module of bot/app imports its own wing and those
before it):

    base     bot/app/config.py, logs.py, metrics.py: shared by every wing
    queue    bot/app/queue/: the job queue, its backends, the store, the workers
    intake   bot/app/intake/: the webhook endpoint, events routed to job payloads
    github   bot/app/github/: the GitHub adapter, a job's context, the writes on GitHub
    jobs     bot/app/jobs/: what the worker runs (the handler, the check, the commands)
    root     bot/app/main.py: the composition root, where the App is wired together
"""

from __future__ import annotations

import ast
from pathlib import Path

BOT = Path(__file__).resolve().parents[1] / "bot"

FLOORS = {"core": 0, "render": 1, "trees": 1, "app": 2, "testing": 3, "demo": 4}
TOP = 5  # modules directly in bot/: the command line and its entry points
PURE = {"core", "render"}  # floors that may import no I/O library
IO_LIBRARIES = {
    "subprocess",
    "socket",
    "httpx",
    "githubkit",
    "starlette",
    "uvicorn",
    "sqlite3",
    "urllib.request",
}


APP_WINGS = ("base", "queue", "intake", "github", "jobs", "root")
APP_MODULES = {"config": "base", "logs": "base", "metrics": "base", "main": "root"}  # in bot/app itself


def _module(path: Path) -> str:
    parts = path.relative_to(BOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """Every module of bot/ -> the modules it imports (absolute names, relative ones resolved).

    `from pkg import sub` depends on the module `pkg.sub` (and not on the package's __init__, which
    may import its children); `from mod import name` depends on `mod`."""
    paths = sorted(BOT.rglob("*.py"))
    modules = {_module(path) for path in paths}
    graph: dict[str, set[str]] = {}
    for path in paths:
        name = _module(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        deps = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                deps.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    deps.add(sub if sub in modules else base)
    return graph


def _floor_of(module: str) -> tuple[str, int]:
    parts = module.split(".")
    if len(parts) >= 2 and parts[1] in FLOORS:
        return parts[1], FLOORS[parts[1]]
    return "cli", TOP


def _wing_of(module: str) -> str | None:
    """The wing of a module of bot/app ("?" for one in no known wing); None outside bot/app."""
    parts = module.split(".")
    if parts[:2] != ["bot", "app"]:
        return None
    if len(parts) == 2:
        return "base"  # the package's own __init__: a docstring
    if parts[2] in APP_WINGS and parts[2] not in APP_MODULES.values():
        return parts[2]
    return APP_MODULES.get(parts[2], "?") if len(parts) == 3 else "?"


def _internal(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    return {m: {t for t in targets if t in graph and t != m} for m, targets in graph.items()}


def test_every_module_sits_on_a_known_floor():
    graph = _imports()
    assert (
        "bot.core.check" in graph
        or "bot.core.check.__init__" in graph
        or any(m.startswith("bot.core.check") for m in graph)
    )
    strays = [m for m in graph if m.count(".") >= 2 and m.split(".")[1] not in FLOORS]
    assert strays == [], f"modules in a folder that is no floor: {strays}"


def test_imports_only_point_down():
    upward = []
    for module, targets in _internal(_imports()).items():
        room, floor = _floor_of(module)
        for target in targets:
            target_room, target_floor = _floor_of(target)
            if target_floor > floor or (target_floor == floor and target_room != room):
                upward.append(f"{module} ({room}) imports {target} ({target_room})")
    assert upward == [], "\n".join(upward)


def test_every_app_module_sits_in_a_known_wing():
    graph = _imports()
    strays = sorted(m for m in graph if _wing_of(m) == "?")
    assert strays == [], f"modules of bot/app in no wing (tests/test_layout.py names the wings): {strays}"
    assert {_wing_of(m) for m in graph} - {None} == set(APP_WINGS)


def test_app_imports_only_point_to_its_own_wing_or_an_earlier_one():
    wrong = []
    for module, targets in _internal(_imports()).items():
        wing = _wing_of(module)
        if wing is None or wing == "?":
            continue
        for target in targets:
            target_wing = _wing_of(target)
            if target_wing in APP_WINGS and APP_WINGS.index(target_wing) > APP_WINGS.index(wing):
                wrong.append(f"{module} ({wing}) imports {target} ({target_wing})")
    assert wrong == [], "\n".join(wrong)


def test_the_pure_floors_do_no_io():
    found = []
    for module, targets in _imports().items():
        room, _ = _floor_of(module)
        if room in PURE:
            found += [
                f"{module} imports {t}"
                for t in targets
                if t.split(".")[0] in IO_LIBRARIES or t in IO_LIBRARIES
            ]
    assert found == [], "\n".join(found)


def test_no_import_cycles():
    graph = _internal(_imports())
    # Importing a submodule imports its packages first, so `bot.app.x` also depends on `bot.app`;
    # only count edges between modules, not a package's __init__ importing its own children.
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    assert cycles == [], "\n".join(" -> ".join(c) for c in cycles)


def test_the_checker_sees_an_upward_import_and_a_cycle(tmp_path, monkeypatch):
    """The gate itself works: a core module importing the App, and two modules importing each other."""
    fake = tmp_path / "bot"
    (fake / "core").mkdir(parents=True)
    (fake / "app").mkdir()
    for init in (fake / "__init__.py", fake / "core" / "__init__.py", fake / "app" / "__init__.py"):
        init.write_text("")
    (fake / "core" / "a.py").write_text("def f():\n    from bot.app import b\n")
    (fake / "app" / "b.py").write_text("from bot.app import c\n")
    (fake / "app" / "c.py").write_text("import bot.app.b\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["BOT"]), "BOT", fake)

    graph = _internal(_imports())
    assert "bot.app.b" in graph["bot.core.a"]
    try:
        test_imports_only_point_down()
    except AssertionError as e:
        assert "bot.core.a (core) imports bot.app.b (app)" in str(e)
    else:
        raise AssertionError("an upward import passed the gate")
    try:
        test_no_import_cycles()
    except AssertionError as e:
        assert "bot.app.b -> bot.app.c -> bot.app.b" in str(e)
    else:
        raise AssertionError("a cycle passed the gate")


def test_the_checker_sees_an_import_into_a_later_wing_and_a_module_in_no_wing(tmp_path, monkeypatch):
    """The wings' gate works: the queue importing a job module (even inside a function), and a
    module dropped into bot/app beside the base."""
    fake = tmp_path / "bot"
    for folder in (fake, fake / "app", fake / "app" / "queue", fake / "app" / "jobs"):
        folder.mkdir(exist_ok=True)
        (folder / "__init__.py").write_text("")
    (fake / "app" / "config.py").write_text("")
    (fake / "app" / "queue" / "worker.py").write_text("def run():\n    from bot.app.jobs import handler\n")
    (fake / "app" / "jobs" / "handler.py").write_text(
        "from bot.app.queue import worker\nfrom bot.app import config\n"
    )
    (fake / "app" / "helpers.py").write_text("")
    monkeypatch.setattr(__import__(__name__, fromlist=["BOT"]), "BOT", fake)

    try:
        test_app_imports_only_point_to_its_own_wing_or_an_earlier_one()
    except AssertionError as e:
        assert str(e).splitlines()[0] == "bot.app.queue.worker (queue) imports bot.app.jobs.handler (jobs)"
        assert "bot.app.jobs.handler (jobs) imports" not in str(e)  # down into the queue and the base
    else:
        raise AssertionError("an import into a later wing passed the gate")
    try:
        test_every_app_module_sits_in_a_known_wing()
    except AssertionError as e:
        assert "['bot.app.helpers']" in str(e)
    else:
        raise AssertionError("a module in no wing passed the gate")
