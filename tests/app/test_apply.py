"""`/docs-sync apply`: the suggested doc changes committed to the pull request's branch, end to end
against the GitHub stand-in (the commit, the synchronize delivery it causes, the new check), the
refusals (read access, a fork, a moved head), and the patch applied exactly as `git apply` does."""

from __future__ import annotations

import itertools

import pytest

from bot.app.intake.events import route
from bot.app.jobs.apply import PatchError, apply_patch
from bot.app.jobs.handler import make_handler
from bot.app.metrics import Metrics
from bot.app.queue.sqlite import SQLiteQueue
from bot.app.queue.worker import Worker
from bot.core.model import DocLocation, Finding, Report, Suggestion
from bot.render.comments import SUMMARY_MARKER
from bot.render.patch import to_patch
from bot.testing.appkit import DOC, BotServer, comment_payload, pull_request_payload, settings_for
from bot.testing.standin import GitHubStandIn, add_commit, run_git
from tests.appkit import Clock

_numbers = itertools.count(1)


class Bot:
    """The App's worker over a fresh queue; what GitHub delivers is routed into it."""

    def __init__(self, standin: GitHubStandIn, tmp_path):
        self.standin = standin
        settings = settings_for(standin, tmp_path / "q.db")
        self.queue = SQLiteQueue(settings.db_path, clock=Clock())
        handler = make_handler(settings, self.queue, Metrics(), write_interval_s=0)
        self.worker = Worker(self.queue, handler, base_delay_s=0)
        self.n = 0

    def deliver(self, event: str, payload: dict) -> None:
        for spec in route(event, payload) or []:
            self.n += 1
            self.queue.enqueue(
                f"d{self.n}", spec.kind, spec.payload, key=spec.key, supersede=spec.kind == "check"
            )
        while self.worker.run_once() is not None:
            pass

    def deliver_pushes(self) -> None:
        """The webhooks the stand-in queued for pushes (the App's own included), as GitHub sends them."""
        pending = list(self.standin.deliveries)
        self.standin.deliveries.clear()
        for event, payload in pending:
            self.deliver(event, payload)

    def comment(self, number: int, body: str, user: str) -> str:
        comment = self.standin.add_issue_comment(number, body, user=user)
        self.deliver("issue_comment", comment_payload(self.standin, number, comment))
        mine = [
            c["body"] for c in self.standin.issue_comments if c["user"]["login"] == self.standin.bot_login
        ]
        return mine[-1]


@pytest.fixture
def bot(standin, tmp_path):
    b = Bot(standin, tmp_path)
    yield b
    b.queue.close()


def checked_pull(bot: Bot, repo_and_shas, scenario: str = "one", **kw) -> tuple[int, str, str]:
    """A pull request from a branch of its own at `scenario`, checked once: (number, branch, head)."""
    repo, shas = repo_and_shas
    number = next(_numbers)
    branch = f"apply-{number}"
    run_git(repo, "branch", branch, shas[scenario])
    bot.standin.open_pull(number, "main", branch, **kw)
    head = shas[scenario]
    bot.deliver(
        "pull_request", pull_request_payload(bot.standin, "opened", number, head, shas["main"], "main")
    )
    return number, branch, head


def git_writes(standin: GitHubStandIn) -> list:
    return standin.calls("POST", r"/git/") + standin.calls("PATCH", r"/git/refs/")


def test_apply_commits_the_patch_and_the_new_head_checks_clean(bot, standin, repo_and_shas):
    repo, shas = repo_and_shas
    number, branch, head = checked_pull(bot, repo_and_shas)
    assert standin.check_runs[-1]["conclusion"] == "failure"
    (summary,) = [c["body"] for c in standin.issue_comments if c["body"].startswith(SUMMARY_MARKER)]
    assert f"diff --git a/{DOC} b/{DOC}" in summary and "`/docs-sync apply`" in summary
    code_comments = [c["body"] for c in standin.review_comments]
    assert any(f"```diff\ndiff --git a/{DOC} b/{DOC}\n" in b for b in code_comments)

    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")

    new_head = standin.pull(number)["head"]["sha"]
    assert new_head != head and f"committed {new_head[:12]}" in reply, reply
    assert run_git(repo, "rev-parse", branch).decode().strip() == new_head
    assert run_git(repo, "rev-parse", f"{new_head}^").decode().strip() == head  # one commit on the head
    message = run_git(repo, "log", "-1", "--format=%an%n%B", new_head).decode()
    assert message.startswith("docs-sync[bot]\ndocs-sync: apply 1 suggested doc change")
    assert "attn_implementation" in message or "--attn-implementation" in message  # names the finding
    changed = run_git(repo, "diff", "--name-only", head, new_head).decode().split()
    assert changed == [DOC]
    # The summary's patch, applied by git itself to the old head, gives the committed page.
    patch = "diff --git" + summary.split("```diff\ndiff --git", 1)[1].split("\n```", 1)[0] + "\n"
    worktree = repo.parent / f"wt-{number}"
    run_git(repo, "worktree", "add", "-q", "--detach", str(worktree), head)
    run_git(worktree, "apply", "-", input=patch.encode())
    assert (worktree / DOC).read_bytes() == run_git(repo, "show", f"{new_head}:{DOC}")

    # GitHub sends pull_request.synchronize for the App's own push: the check runs on the new head.
    assert [e for e, _ in standin.deliveries] == ["pull_request"]
    bot.deliver_pushes()
    last = standin.check_runs[-1]
    assert last["head_sha"] == new_head and last["conclusion"] == "success"
    assert not standin.server_errors


def test_apply_below_write_is_refused_and_nothing_is_pushed(bot, standin, repo_and_shas):
    number, _, head = checked_pull(bot, repo_and_shas)
    standin.set_permission("reader", "read")
    reply = bot.comment(number, "/docs-sync apply", "reader")
    assert "pushes a commit to this pull request's branch, so it needs write access" in reply
    assert "(you have read access)" in reply
    assert standin.pull(number)["head"]["sha"] == head and git_writes(standin) == []


def test_apply_on_a_fork_says_how_to_apply_the_patch_locally(bot, standin, repo_and_shas):
    number, _, head = checked_pull(bot, repo_and_shas, head_repo_fork=True)
    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")
    base = repo_and_shas[1]["main"]
    assert "comes from a fork" in reply
    assert f"docs-sync check --base {base[:12]} --head {head[:12]} --format patch | git apply" in reply
    assert standin.pull(number)["head"]["sha"] == head and git_writes(standin) == []


def test_apply_after_the_head_moved_is_refused_with_a_recheck_asked(bot, standin, repo_and_shas):
    repo, _ = repo_and_shas
    number, branch, head = checked_pull(bot, repo_and_shas)
    pushed = add_commit(repo, {"NOTES.md": "a push after the check\n"}, parent=branch, branch=branch)
    standin.update_pull(number, head=branch)
    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")
    assert "nothing was committed" in reply and f"head is now {pushed[:12]}" in reply
    assert f"checked {head[:12]}" in reply and "`/docs-sync recheck`" in reply
    assert standin.pull(number)["head"]["sha"] == pushed and git_writes(standin) == []


def test_apply_with_nothing_to_commit_says_so(bot, standin, repo_and_shas):
    number, _, head = checked_pull(bot, repo_and_shas, scenario="clean")
    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")
    assert reply.split("\n\n")[1].startswith("@writer nothing to commit at " + head[:12])
    assert git_writes(standin) == []


# -- the patch, applied as git applies it ----------------------------------------------------------


def _finding(path: str, start: int, end: int, text: str) -> Finding:
    return Finding(
        "removed",
        "error",
        "--x",
        "gone",
        "r",
        DocLocation(path, start, None, None),
        suggestion=Suggestion(path, start, end, text),
    )


PAGES = {
    "a.md": "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\nten\neleven\n",
    "b.md": "first\r\nsecond\r\nlast without newline",
    "c.md": "only line\n",
}
FINDINGS = [
    _finding("a.md", 2, 2, "TWO"),
    _finding("a.md", 10, 11, ""),  # deleted
    _finding("b.md", 3, 3, "last, changed"),
    _finding("b.md", 4, 3, "added after the end"),  # inserted after a last line with no newline
    _finding("c.md", 1, 1, "only line\nand a second"),
]


@pytest.mark.parametrize("path", sorted(PAGES))
def test_apply_patch_gives_what_git_apply_gives(tmp_path, path):
    report = Report(tuple(f for f in FINDINGS if f.suggestion and f.suggestion.path == path))
    patch = to_patch(report, PAGES.get)
    ours = apply_patch(PAGES, {path: patch})[path]
    run_git(tmp_path, "init", "-q")
    (tmp_path / path).write_bytes(PAGES[path].encode())
    run_git(tmp_path, "apply", "-", input=patch.encode())
    assert ours.encode() == (tmp_path / path).read_bytes() != PAGES[path].encode()


def test_a_patch_that_does_not_fit_the_page_is_refused():
    patch = to_patch(Report((_finding("a.md", 2, 2, "TWO"),)), PAGES.get)
    with pytest.raises(PatchError):
        apply_patch({"a.md": PAGES["a.md"].replace("three", "THREE")}, {"a.md": patch})


def test_a_push_racing_the_commit_is_not_overwritten(server, repo_and_shas, tmp_path):
    """GitHub refuses the ref update (not a fast-forward) when a push lands mid-way: said, not retried."""
    server.reset()
    bot = Bot(server, tmp_path)
    try:
        number, branch, head = checked_pull(bot, repo_and_shas)
        server.set_permission("writer", "write")
        body = {
            "message": "Update is not a fast forward",
            "documentation_url": "https://docs.github.com/rest",
        }
        server.fail_next("PATCH", r"/git/refs/heads/", 422, body=body)
        reply = bot.comment(number, "/docs-sync apply", "writer")
    finally:
        bot.queue.close()
    assert "nothing was committed: the branch moved while docs-sync was committing" in reply
    assert f"from {head[:12]}: not a fast-forward" in reply and "`/docs-sync recheck`" in reply
    assert server.pull(number)["head"]["sha"] == head and server.deliveries == []


def test_apply_on_a_closed_pull_request_commits_nothing(bot, standin, repo_and_shas):
    number, _, head = checked_pull(bot, repo_and_shas)
    standin.update_pull(number, state="closed")
    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")
    assert f"nothing to commit at {head[:12]}: this pull request is closed" in reply
    assert git_writes(standin) == []


def test_the_same_comment_under_a_new_delivery_id_does_not_apply_again(standin, repo_and_shas, tmp_path):
    """A command is one comment: signed again under another delivery id, it is a duplicate."""
    bot = Bot(standin, tmp_path)
    number, branch, head = checked_pull(bot, repo_and_shas)
    bot.queue.close()
    settings = settings_for(standin, tmp_path / "q.db")
    queue = SQLiteQueue(settings.db_path, clock=Clock())
    handler = make_handler(settings, queue, Metrics(), write_interval_s=0)
    standin.set_permission("writer", "write")
    comment = standin.add_issue_comment(number, "/docs-sync apply", user="writer")
    payload = comment_payload(standin, number, comment)
    try:
        with BotServer(settings, queue, handler) as served:
            assert served.deliver("issue_comment", payload, "first").status_code == 202
            served.drain()
            first_head = standin.pull(number)["head"]["sha"]
            again = served.deliver("issue_comment", payload, "second")
            assert (again.status_code, again.json().get("duplicate")) == (200, True)
            assert served.drain() == []
    finally:
        queue.close()
    assert first_head != head and standin.pull(number)["head"]["sha"] == first_head
    assert len(standin.calls("POST", r"/git/commits")) == 1
    assert len([c for c in standin.issue_comments if c["body"].startswith("> `/docs-sync apply`")]) == 1


@pytest.mark.parametrize(
    "lost",
    [("PATCH", r"/git/refs/heads/", True), ("POST", r"/issues/\d+/comments$", False)],
    ids=["the ref update's answer", "the reply"],
)
def test_a_retried_apply_whose_commit_landed_answers_committed(bot, standin, repo_and_shas, lost):
    """The branch moved to apply's own commit and then the job stopped: the retry says so."""
    repo, _ = repo_and_shas
    number, branch, head = checked_pull(bot, repo_and_shas)
    standin.set_permission("writer", "write")
    method, path, after = lost
    standin.fail_next(method, path, 502, after=after)
    reply = bot.comment(number, "/docs-sync apply", "writer")
    new_head = standin.pull(number)["head"]["sha"]
    assert new_head != head and run_git(repo, "rev-parse", f"{new_head}^").decode().strip() == head
    assert f"committed {new_head[:12]} to this branch" in reply and "nothing was committed" not in reply
    assert len(standin.calls("PATCH", r"/git/refs/heads/")) == 1
    assert len([c for c in standin.issue_comments if c["body"].startswith("> `/docs-sync apply`")]) == 1


SITE_CONFIG = "rules:\n  - id: site\n    site: {config: docs/docs.json}\n"
SITE_BASE = {
    ".github/docs-sync.yml": SITE_CONFIG,
    "docs/docs.json": '{\n  "navigation": {"pages": ["a", "b"]},\n  "redirects": [\n'
    '    {"source": "/old", "destination": "/a", "permanent": true}\n  ]\n}\n',
    "docs/a.mdx": "# A\n\ntext\n",
    "docs/b.mdx": "# B\n\ntext\n",
}
REDIRECTS = '[\n  {"source": "/old", "destination": "/a", "permanent": true}\n]\n'


@pytest.mark.parametrize("where", ["package.json", ".github/workflows/redirects.yml", "docs/redirects.json"])
def test_apply_writes_only_the_base_configs_doc_and_site_files(bot, standin, repo_and_shas, where):
    """The pull request moves the redirects behind a `$ref` of its choosing and deletes a page: the
    check suggests the missing redirect in that file; apply writes it only in the site's folder."""
    repo, shas = repo_and_shas
    number = next(_numbers)
    base = add_commit(repo, SITE_BASE, parent="main", branch=f"site-{number}")
    config = '{\n  "navigation": {"pages": ["a"]},\n  "redirects": {"$ref": "../' + where + '"}\n}\n'
    files = {"docs/docs.json": config, where: REDIRECTS, "docs/b.mdx": None}
    head = add_commit(repo, files, parent=base, branch=f"site-pr-{number}")
    standin.open_pull(number, f"site-{number}", f"site-pr-{number}")
    bot.deliver("pull_request", pull_request_payload(standin, "opened", number, head, base, f"site-{number}"))
    (summary,) = [c["body"] for c in standin.issue_comments if c["body"].startswith(SUMMARY_MARKER)]
    assert f"diff --git a/{where} b/{where}" in summary  # what the check suggests
    standin.set_permission("writer", "write")
    reply = bot.comment(number, "/docs-sync apply", "writer")
    if where.startswith("docs/"):
        new_head = standin.pull(number)["head"]["sha"]
        assert f"committed {new_head[:12]}" in reply
        assert run_git(repo, "diff", "--name-only", head, new_head).decode().split() == [where]
        return
    assert f"nothing to commit at {head[:12]}: `{where}` is not a doc page or docs-site file" in reply
    assert standin.pull(number)["head"]["sha"] == head and git_writes(standin) == []


def test_may_write_names_the_base_configs_pages_and_site_files():
    from bot.app.jobs.apply import may_write
    from bot.core.packs import parse_repo_config

    config = (
        SITE_CONFIG
        + '  - id: pages\n    docs:\n      - path: "guide/**/*.md"\n        exclude: [guide/old.md]\n'
        "    sources:\n      - {id: p, kind: paths}\n"
    )
    rules = [r for pack in parse_repo_config(config, ".github/docs-sync.yml") for r in pack.rules]
    for path in ("docs/docs.json", "docs/x/y.mdx", "docs/nav.json", "guide/a/b.md"):
        assert may_write(rules, path), path
    for path in ("package.json", ".github/workflows/ci.yml", ".GitHub/x.md", "guide/old.md", "docs/../x.md"):
        assert not may_write(rules, path), path
