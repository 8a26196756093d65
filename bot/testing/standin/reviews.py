"""Pull request reviews and review comments, each placed in the pull request's diff as GitHub places it."""

from __future__ import annotations

from typing import Any

from bot.testing.standin.protocol import (
    JSON,
    REPO,
    Answer,
    HTTPError,
    Req,
    endpoint,
    invalid,
    iso,
    unprocessable,
)
from bot.testing.standin.shapes import Shapes
from bot.testing.standin.state import Pull

# What the endpoints below need of an installation token (any one alternative; write includes read).
_READ = (("pull_requests", "read"),)
_WRITE = (("pull_requests", "write"),)


class Reviews(Shapes):
    def _review_json(self, review: JSON) -> JSON:
        return {k: v for k, v in review.items() if k not in ("comments", "pull_number")}

    def _pr_commit(self, pr: Pull, commit_id: Any) -> str:
        if commit_id is None:
            return pr.head_sha
        sha = self.repo.resolve(commit_id) if isinstance(commit_id, str) else None
        if sha is None:
            raise unprocessable(f"No commit found for SHA: {commit_id}")
        mb = self.repo.merge_base(pr.base_sha, pr.head_sha)
        if sha != pr.head_sha and not (
            self.repo.is_ancestor(sha, pr.head_sha) and not self.repo.is_ancestor(sha, mb)
        ):
            raise unprocessable("Pull request review thread commit_oid is not part of the pull request")
        return sha

    def _place(self, pr: Pull, commit: str, c: JSON) -> JSON:
        """Where comment `c` lands in the PR's diff at `commit`, or the 422 GitHub gives."""
        if not isinstance(c, dict) or not isinstance(c.get("path"), str):
            raise invalid("`path` is a required property of each comment.")
        if not isinstance(c.get("body"), str):
            raise invalid("`body` is a required property of each comment.")
        if len(c["body"]) > 65536:
            raise unprocessable("Body is too long (maximum is 65536 characters)")
        files, _ = self.repo.diff(pr.base_sha, commit)
        fdiff = next((f for f in files if f.filename == c["path"]), None)
        if fdiff is None:
            raise unprocessable("Pull request review thread path is invalid")
        if c.get("subject_type") == "file":
            return {
                "path": c["path"],
                "subject_type": "file",
                "diff_hunk": fdiff.patch or "",
                "position": None,
                "line": None,
                "side": None,
                "start_line": None,
                "start_side": None,
            }
        if not fdiff.hunks:
            raise unprocessable("Pull request review thread diff hunk can't be blank")
        if c.get("line") is None and c.get("position") is not None:
            found = fdiff.at_position(c["position"]) if isinstance(c["position"], int) else None
            if found is None:
                raise unprocessable("Pull request review thread line must be part of the diff")
            hunk, dl = found
            side = "LEFT" if dl.kind == "-" else "RIGHT"
            line = dl.old if side == "LEFT" else dl.new
            start: tuple[int, str] | None = None
        else:
            line, side = c.get("line"), c.get("side") or "RIGHT"
            if side not in ("LEFT", "RIGHT"):
                raise invalid(f'For \'side\', "{side}" is not one of ["LEFT", "RIGHT"].')
            if not isinstance(line, int):
                raise unprocessable("Pull request review thread line must be part of the diff")
            found = fdiff.find(side, line)
            if found is None:
                raise unprocessable("Pull request review thread line must be part of the diff")
            hunk, dl = found
            start = None
            if c.get("start_line") is not None:
                start_side = c.get("start_side")
                start_line = c["start_line"]
                if start_side not in ("LEFT", "RIGHT") or not isinstance(start_line, int):
                    raise unprocessable("pull_request_review_thread.start_line must precede the end line.")
                first = fdiff.find(start_side, start_line)
                if first is not None and first[1].position >= dl.position:
                    raise unprocessable("pull_request_review_thread.start_line must precede the end line.")
                if first is None or first[0].index != hunk.index:
                    raise unprocessable(
                        "Pull request review thread start line must be part of the same hunk as the line"
                    )
                start = (start_line, start_side)
        upto = dl.position - hunk.header_position
        return {
            "path": c["path"],
            "subject_type": "line",
            "diff_hunk": "\n".join(hunk.text_lines[: upto + 1]),
            "position": dl.position,
            "line": line,
            "side": side,
            "start_line": start[0] if start else None,
            "start_side": start[1] if start else None,
        }

    def _new_review_comment(
        self, pr: Pull, review_id: int, commit: str, place: JSON, body: str, reply_to: int | None = None
    ) -> JSON:
        cid = self._next_id()
        now = iso()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#discussion_r{cid}"
        comment = {
            "url": f"{api}/pulls/comments/{cid}",
            "pull_request_review_id": review_id,
            "id": cid,
            "node_id": f"PRRC_kwDO{cid}",
            "diff_hunk": place["diff_hunk"],
            "path": place["path"],
            "position": place["position"],
            "original_position": place["position"],
            "commit_id": commit,
            "original_commit_id": commit,
            "user": self._bot(),
            "body": body,
            "created_at": now,
            "updated_at": now,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{pr.number}",
            "author_association": "NONE",
            "_links": {
                "self": {"href": f"{api}/pulls/comments/{cid}"},
                "html": {"href": html},
                "pull_request": {"href": f"{api}/pulls/{pr.number}"},
            },
            "start_line": place["start_line"],
            "original_start_line": place["start_line"],
            "start_side": place["start_side"],
            "line": place["line"],
            "original_line": place["line"],
            "side": place["side"],
            "subject_type": place["subject_type"],
            "pull_number": pr.number,
        }
        if reply_to is not None:
            comment["in_reply_to_id"] = reply_to
        self.review_comments.append(comment)
        return comment

    def _new_review(self, pr: Pull, commit: str, body: str, state: str) -> JSON:
        rid = self._next_id()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#pullrequestreview-{rid}"
        review = {
            "id": rid,
            "node_id": f"PRR_kwDO{rid}",
            "user": self._bot(),
            "body": body,
            "state": state,
            "html_url": html,
            "pull_request_url": f"{api}/pulls/{pr.number}",
            "_links": {"html": {"href": html}, "pull_request": {"href": f"{api}/pulls/{pr.number}"}},
            "submitted_at": None if state == "PENDING" else iso(),
            "commit_id": commit,
            "author_association": "NONE",
            "comments": [],
            "pull_number": pr.number,
        }
        self.reviews.append(review)
        return review

    @endpoint("POST", REPO + r"/pulls/(?P<n>\d+)/reviews", needs=_WRITE)
    def _h_create_review(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        data = req.json()
        event, body, comments = data.get("event"), data.get("body") or "", data.get("comments") or []
        states = {
            "COMMENT": "COMMENTED",
            "APPROVE": "APPROVED",
            "REQUEST_CHANGES": "CHANGES_REQUESTED",
            None: "PENDING",
        }
        if event not in states:
            raise invalid(
                f'For \'properties/event\', "{event}" is not one of ["APPROVE", "REQUEST_CHANGES", '
                '"COMMENT"].'
            )
        if not isinstance(body, str) or not isinstance(comments, list):
            raise invalid("`body` must be a string and `comments` an array.")
        if len(body) > 65536:
            raise unprocessable("Body is too long (maximum is 65536 characters)")
        if event == "REQUEST_CHANGES" and not body.strip():
            raise unprocessable("Body can't be blank when requesting changes")
        if event == "COMMENT" and not body.strip() and not comments:
            raise unprocessable("Review body can't be blank when commenting without review comments")
        if event is None and any(
            r["pull_number"] == pr.number and r["state"] == "PENDING" for r in self.reviews
        ):
            raise unprocessable("User can only have one pending review per pull request")
        commit = self._pr_commit(pr, data.get("commit_id"))
        placed, errors = [], []
        for c in comments:
            if isinstance(c, dict) and "subject_type" in c:
                raise invalid(
                    "`subject_type` is not a property of review comments; use the single comment call."
                )
            try:
                placed.append((self._place(pr, commit, c), c["body"]))
            except HTTPError as err:
                if "errors" not in err.body:
                    raise
                errors += [e for e in err.body["errors"] if e not in errors]
        if errors:
            raise unprocessable(*errors)  # one bad comment fails the whole review
        review = self._new_review(pr, commit, body, states[event])
        for place, text in placed:
            review["comments"].append(self._new_review_comment(pr, review["id"], commit, place, text))
        return 200, self._review_json(review)

    @endpoint("GET", REPO + r"/pulls/(?P<n>\d+)/reviews", needs=_READ)
    def _h_list_reviews(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        reviews = [self._review_json(r) for r in self.reviews if r["pull_number"] == pr.number]
        return self._paginate(req, reviews)

    def _visible_comments(self, number: int) -> list[JSON]:
        pending = {r["id"] for r in self.reviews if r["state"] == "PENDING"}
        return [
            c
            for c in self.review_comments
            if c["pull_number"] == number and c["pull_request_review_id"] not in pending
        ]

    @endpoint("GET", REPO + r"/pulls/(?P<n>\d+)/comments", needs=_READ)
    def _h_list_review_comments(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        return self._paginate(req, [self._comment_json(c) for c in self._visible_comments(pr.number)])

    def _reply(self, pr: Pull, parent: JSON, body: Any) -> JSON:
        if not isinstance(body, str) or not body:
            raise invalid("`body` is a required property.")
        if len(body) > 65536:
            raise unprocessable("Body is too long (maximum is 65536 characters)")
        if parent.get("in_reply_to_id") is not None:
            raise unprocessable("Replies to replies are not supported; reply to the thread's first comment")
        place = {
            k: parent[k]
            for k in (
                "path",
                "diff_hunk",
                "position",
                "line",
                "side",
                "start_line",
                "start_side",
                "subject_type",
            )
        }
        review = self._new_review(pr, parent["commit_id"], "", "COMMENTED")
        comment = self._new_review_comment(pr, review["id"], parent["commit_id"], place, body, parent["id"])
        review["comments"].append(comment)
        return comment

    @endpoint("POST", REPO + r"/pulls/(?P<n>\d+)/comments", needs=_WRITE)
    def _h_create_review_comment(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        data = req.json()
        if data.get("in_reply_to") is not None:
            parent = self._review_comment(data["in_reply_to"])
            return 201, self._comment_json(self._reply(pr, parent, data.get("body")))
        if not isinstance(data.get("commit_id"), str):
            raise invalid("`commit_id` is a required property.")
        commit = self._pr_commit(pr, data["commit_id"])
        place = self._place(pr, commit, data)
        review = self._new_review(pr, commit, "", "COMMENTED")
        comment = self._new_review_comment(pr, review["id"], commit, place, data["body"])
        review["comments"].append(comment)
        return 201, self._comment_json(comment)

    @endpoint("GET", REPO + r"/pulls/comments/(?P<id>\d+)", needs=_READ)
    def _h_get_review_comment(self, req: Req) -> Answer:
        return 200, self._comment_json(self._review_comment(req.params["id"]))

    @endpoint("PATCH", REPO + r"/pulls/comments/(?P<id>\d+)", needs=_WRITE)
    def _h_update_review_comment(self, req: Req) -> Answer:
        comment = self._review_comment(req.params["id"])
        body = req.json().get("body")
        if not isinstance(body, str) or not body:
            raise invalid("`body` is a required property.")
        if len(body) > 65536:
            raise unprocessable("Body is too long (maximum is 65536 characters)")
        comment["body"] = body
        comment["updated_at"] = iso()
        return 200, self._comment_json(comment)

    @endpoint("POST", REPO + r"/pulls/(?P<n>\d+)/comments/(?P<id>\d+)/replies", needs=_WRITE)
    def _h_reply(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        parent = self._review_comment(req.params["id"])
        if parent["pull_number"] != pr.number:
            raise HTTPError(404, "Not Found")
        return 201, self._comment_json(self._reply(pr, parent, req.json().get("body")))
