"""The handler on top of the App: each job parsed once into its typed payload and handed, with its
context, to the module of its kind; and the App's rooms import downwards only, to it."""

from __future__ import annotations

import ast
from pathlib import Path

from bot.app.jobs.handler import FactsMemo, make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import Worker
from bot.testing.appkit import settings_for

APP = Path(__file__).resolve().parents[2] / "bot" / "app"


def test_a_job_of_a_kind_no_version_queued_is_done_without_a_call(standin, tmp_path):
    settings = settings_for(standin, tmp_path / "q.db")
    with SQLiteQueue(settings.db_path) as queue:
        queue.enqueue("d-1", "deploy", {"owner": standin.owner, "repo": standin.name}, key=None)
        worker = Worker(queue, make_handler(settings, queue, Metrics(), write_interval_s=0), Metrics())
        job = worker.run_once()
        assert queue.get(job.id).state == "done"
    assert standin.requests == []


def test_a_payload_without_its_repository_fails_the_job_saying_so(standin, tmp_path):
    settings = settings_for(standin, tmp_path / "q.db")
    with SQLiteQueue(settings.db_path) as queue:
        queue.enqueue("d-1", "check", {"repo": standin.name, "head_sha": "a" * 40}, key=None)
        worker = Worker(queue, make_handler(settings, queue, Metrics(), write_interval_s=0), Metrics())
        job = worker.run_once()
        done = queue.get(job.id)
        assert done.state == "failed" and "PayloadError: the job's payload has no 'owner'" in done.last_error
    assert standin.requests == []  # no check run was started for a job that cannot say where


def _app_imports() -> dict[str, list[tuple[str, bool]]]:
    """bot/app module ("jobs.handler") -> the bot.app modules it imports, and whether at module level."""
    graph: dict[str, list[tuple[str, bool]]] = {}
    packages = {".".join(("bot.app", *p.parent.relative_to(APP).parts)) for p in APP.rglob("__init__.py")}
    for path in sorted(APP.rglob("*.py")):
        tree = ast.parse(path.read_text())
        top = {id(node) for node in tree.body}
        found = graph.setdefault(".".join(path.relative_to(APP).with_suffix("").parts), [])
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("bot.app"):
                if node.module in packages:  # `from bot.app.jobs import checkjob`: the modules named
                    names = [f"{node.module}.{a.name}".removeprefix("bot.app.") for a in node.names]
                else:
                    names = [node.module.removeprefix("bot.app.")]
            elif isinstance(node, ast.Import):
                names = [a.name.removeprefix("bot.app.") for a in node.names if a.name.startswith("bot.app.")]
            found += [(name, id(node) in top) for name in names]
    return graph


def test_the_handler_sits_on_top_and_only_the_composition_root_reaches_it_lazily():
    graph = _app_imports()
    importers = {
        module: top for module, targets in graph.items() for name, top in targets if name == "jobs.handler"
    }
    assert importers == {"main": False}  # inside the composition root: the intake never loads the analysis
    assert {"jobs.checkjob", "jobs.commands"} <= {name for name, _ in graph["jobs.handler"]}
    # The web process's own modules stay clear of the analysis and of GitHub's client.
    intake = {"intake.web", "intake.events", "intake.payloads", "queue.protocol", "queue.sqlite"}
    intake |= {"queue.database", "queue.worker", "metrics", "logs", "config"}
    heavy = {"jobs.checkjob", "jobs.analysis", "jobs.commands", "jobs.snapshot"}
    heavy |= {"github.review", "github.checkruns", "github.summary", "github.client"}
    for module in intake:
        assert not {name for name, top in graph[module] if top} & heavy, module


def test_the_facts_cache_keeps_its_newest_entries_within_its_bytes():
    memo = FactsMemo(max_bytes=3000)
    for i in range(10):
        memo[f"blob-{i}"] = "x" * 1000  # about 1 kB pickled
    assert list(memo) == ["blob-8", "blob-9"] and memo.total <= 3000
    memo["huge"] = "x" * 5000  # bigger than the whole cache: not kept, and nothing dropped for it
    assert list(memo) == ["blob-8", "blob-9"]
