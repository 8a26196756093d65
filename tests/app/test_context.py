"""The per-job context: opened on the job's repository as its installation, asking GitHub for the
installation only when the delivery named none; a step that needs the pull request before it is
known says so."""

from __future__ import annotations

import pytest

from bot.app.github.client import GitHubApp
from bot.app.github.context import Deps, Pull, job_context
from bot.app.intake.events import route
from bot.app.intake.payloads import CheckJob
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.store import PullRef
from bot.testing.appkit import pull_request_payload, settings_for


def test_a_payload_without_installation_asks_github_for_it(bot, standin, repo_and_shas):
    standin.open_pull(15, "main", "clean")
    payload = pull_request_payload(
        standin, "opened", 15, repo_and_shas[1]["clean"], repo_and_shas[1]["main"], "main"
    )
    del payload["installation"]
    (spec,) = route("pull_request", payload)
    assert spec.payload["installation_id"] is None
    bot.queue.enqueue("no-installation", spec.kind, spec.payload, key=spec.key)
    bot.worker.run_once()
    assert standin.calls("GET", r"/repos/octo-org/docs-repo/installation$")
    assert standin.check_runs[0]["conclusion"] == "success"


def test_the_context_carries_the_job_and_opens_one_session(standin, tmp_path):
    settings = settings_for(standin, tmp_path / "q.db")
    with SQLiteQueue(settings.db_path) as queue:
        app = GitHubApp(standin.app_id, standin.private_key_pem, standin.url, write_interval_s=0)
        deps = Deps(settings, queue, Metrics(), app)
        queue.enqueue("d-1", "check", {"owner": standin.owner, "repo": standin.name}, key=None)
        job = queue.claim()
        target = CheckJob(standin.owner, standin.name, standin.installation_id)
        with job_context(deps, job, target) as ctx:
            assert (ctx.job_id, ctx.delivery_id, ctx.repo.full_name) == (
                job.id,
                "d-1",
                f"{standin.owner}/{standin.name}",
            )
            assert ctx.settings is settings and ctx.facts is deps.facts  # shared across jobs
            with pytest.raises(LookupError, match="pull request"):
                ctx.pr  # noqa: B018 - the property raises
            with_pull = ctx.with_pull(Pull(7, "h" * 40, "b" * 40, "main"))
            assert with_pull.pr == PullRef(f"{standin.owner}/{standin.name}", 7)
            assert ctx.pull_request is None  # the context handed on is a copy
        assert standin.calls("GET", r"/installation$") == []  # the payload named it


def test_a_pull_request_reads_from_githubs_object():
    data = {"number": 3, "head": {"sha": "h" * 40}, "base": {"sha": "b" * 40, "ref": "main"}}
    assert Pull.from_api(data) == Pull(3, "h" * 40, "b" * 40, "main")
    data["base"] = {"sha": "b" * 40}  # GitHub leaves out what it does not know
    assert Pull.from_api(data).base_ref is None
