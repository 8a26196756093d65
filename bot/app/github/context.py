"""One job's context, in the manner of probot's `Context`: everything a step needs, in one object.

The handler opens it for each job (`job_context`): the delivery id that queued the job, the
repository's client (as the job's installation, with one HTTP connection kept open for the
job), the typed store, the settings and the metrics. Steps take the context and nothing else;
once the pull request is known, `ctx.with_pull(pull)` hands on a context that carries it.

`Deps` is what the contexts are made from: built once per process by handler.make_handler.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from bot.app.config import Settings
from bot.app.github import shapes
from bot.app.github.client import GitHubApp, Repo
from bot.app.intake.payloads import Payload
from bot.app.metrics import Metrics
from bot.app.queue.protocol import Job, JobQueue
from bot.app.queue.store import PullRef, Store


@dataclass(frozen=True)
class Deps:
    """What every job needs, built once per process."""

    settings: Settings
    queue: JobQueue
    metrics: Metrics
    app: GitHubApp
    facts: dict[str, object] = field(default_factory=dict, compare=False)  # extracted facts by blob

    @property
    def store(self) -> Store:
        return Store(self.queue)


@dataclass(frozen=True)
class Pull:
    """The pull request a job is about, at the head commit it checks."""

    number: int
    head_sha: str
    base_sha: str
    base_ref: str | None

    @classmethod
    def from_api(cls, data: shapes.Pull) -> Pull:
        """From GitHub's pull request object."""
        return cls(int(data["number"]), data["head"]["sha"], data["base"]["sha"], data["base"].get("ref"))


@dataclass(frozen=True)
class Context:
    """One job's view of the world."""

    job_id: int  # the queue's job id: what the job's check run and reply are kept under
    delivery_id: str  # X-GitHub-Delivery of the delivery that queued the job (the check run's external_id)
    repo: Repo  # the repository's client, as the job's installation
    store: Store
    queue: JobQueue  # to ask whether newer work for the same pull request arrived
    settings: Settings
    metrics: Metrics
    facts: dict[str, object] = field(default_factory=dict, compare=False)
    pull_request: Pull | None = None

    @property
    def pull(self) -> Pull:
        """The pull request; a step that needs it runs only once it is known."""
        if self.pull_request is None:
            raise LookupError("this step needs the job's pull request, and none is known yet")
        return self.pull_request

    @property
    def pr(self) -> PullRef:
        """The store's key for the pull request."""
        return PullRef(self.repo.full_name, self.pull.number)

    def with_pull(self, pull: Pull) -> Context:
        return replace(self, pull_request=pull)


@contextmanager
def job_context(deps: Deps, job: Job, target: Payload) -> Iterator[Context]:
    """The context of `job` on `target`'s repository, with the job's GitHub session open.

    A payload without an installation id (a delivery that named none) costs one call to find it.
    """
    installation = target.installation_id or deps.app.installation_id(target.owner, target.repo)
    repo = deps.app.repo(installation, target.owner, target.repo)
    with deps.app.session(installation):
        yield Context(
            job_id=job.id,
            delivery_id=job.delivery_id,
            repo=repo,
            store=deps.store,
            queue=deps.queue,
            settings=deps.settings,
            metrics=deps.metrics,
            facts=deps.facts,
        )
