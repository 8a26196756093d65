"""Pull requests: the list, one pull request (its JSON or its diff), its files, a commit's pulls."""

from __future__ import annotations

from bot.testing.standin.protocol import REPO, Answer, HTTPError, Raw, Req, endpoint
from bot.testing.standin.shapes import Shapes

_DIFF_TYPES = ("application/vnd.github.diff", "application/vnd.github.v3.diff")

# What the endpoints below need of an installation token (any one alternative; write includes read).
_READ = (("pull_requests", "read"),)


class Pulls(Shapes):
    @endpoint("GET", REPO + r"/pulls", needs=_READ)
    def _h_list_pulls(self, req: Req) -> Answer:
        state = req.query.get("state", "open")
        pulls = sorted(self._pulls.values(), key=lambda p: -p.number)
        if state != "all":
            pulls = [p for p in pulls if p.state == state]
        if "head" in req.query:
            owner, _, ref = req.query["head"].partition(":")
            pulls = [
                p
                for p in pulls
                if (p.user if p.fork else self.owner) == owner and (not ref or p.head_ref == ref)
            ]
        if "base" in req.query:
            pulls = [p for p in pulls if p.base_ref == req.query["base"]]
        status, page, headers = self._paginate(req, pulls)
        return status, [self._pull_json(p, req.version, simple=True) for p in page], headers

    @endpoint("GET", REPO + r"/pulls/(?P<n>\d+)", needs=_READ)
    def _h_get_pull(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        if req.accepts(_DIFF_TYPES):
            files, text = self.repo.diff(pr.base_sha, pr.head_sha)
            if len(files) > 300:
                raise HTTPError(
                    406,
                    "Sorry, the diff exceeded the maximum number of files (300). Consider using 'List pull "
                    "requests files' API or locally cloning the repository instead.",
                    [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                )
            if text.count("\n") > 20000:
                raise HTTPError(
                    406,
                    "Sorry, the diff exceeded the maximum number of lines (20000). Consider using 'List pull "
                    "requests files' API or locally cloning the repository instead.",
                    [{"resource": "PullRequest", "field": "diff", "code": "too_large"}],
                )
            return Raw(200, text.encode(), "application/vnd.github.diff; charset=utf-8")
        return 200, self._pull_json(pr, req.version)

    @endpoint("GET", REPO + r"/pulls/(?P<n>\d+)/files", needs=_READ)
    def _h_pull_files(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        files, _ = self.repo.diff(pr.base_sha, pr.head_sha)
        status, page, headers = self._paginate(req, files, cap=3000)
        return status, [self._file_json(f, pr.head_sha) for f in page], headers

    @endpoint(
        "GET",
        REPO + r"/commits/(?P<sha>[^/]+)/pulls",
        needs=(("pull_requests", "read"), ("contents", "read")),
    )
    def _h_commit_pulls(self, req: Req) -> Answer:
        sha = self.repo.resolve(req.params["sha"])
        if sha is None:
            raise HTTPError(422, f"No commit found for SHA: {req.params['sha']}")
        found = []
        for pr in sorted(self._pulls.values(), key=lambda p: -p.number):
            if pr.fork:
                continue  # a fork's commits are not objects of the base repository
            mb = self.repo.merge_base(pr.base_sha, pr.head_sha)
            if sha == pr.head_sha or (
                self.repo.is_ancestor(sha, pr.head_sha) and not self.repo.is_ancestor(sha, mb)
            ):
                found.append(pr)
        status, page, headers = self._paginate(req, found)
        return status, [self._pull_json(p, req.version, simple=True) for p in page], headers
