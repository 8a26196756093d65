"""Issue comments on pull requests, and reactions to them and to review comments."""

from __future__ import annotations

from typing import Any

from bot.testing.standin.protocol import JSON, REACTIONS, REPO, Answer, HTTPError, Req, endpoint, invalid, iso
from bot.testing.standin.shapes import Shapes
from bot.testing.standin.state import Pull

# What the endpoints below need of an installation token (any one alternative; write includes read).
_READ = (("issues", "read"), ("pull_requests", "read"))
_WRITE = (("issues", "write"), ("pull_requests", "write"))


class Comments(Shapes):
    def _new_issue_comment(self, pr: Pull, body: str, login: str) -> JSON:
        cid = self._next_id()
        now = iso()
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        comment = {
            "id": cid,
            "node_id": f"IC_kwDO{cid}",
            "url": f"{api}/issues/comments/{cid}",
            "html_url": f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}#issuecomment-{cid}",
            "body": body,
            "user": self._user(login),
            "created_at": now,
            "updated_at": now,
            "issue_url": f"{api}/issues/{pr.number}",
            "author_association": self._association(login),
            "performed_via_github_app": self._integration() if login == self.bot_login else None,
            "reactions": self._reaction_summary(f"{api}/issues/comments/{cid}/reactions", cid),
            "pull_number": pr.number,
        }
        self.issue_comments.append(comment)
        return self._comment_json(comment)

    @staticmethod
    def _check_body(body: Any) -> str:
        if not isinstance(body, str) or not body:
            raise invalid("`body` is a required property.")
        if len(body) > 65536:
            raise HTTPError(
                422,
                "Validation Failed",
                [
                    {
                        "resource": "IssueComment",
                        "code": "unprocessable",
                        "field": "data",
                        "message": "Body is too long (maximum is 65536 characters)",
                    }
                ],
            )
        return body

    @endpoint("GET", REPO + r"/issues/(?P<n>\d+)/comments", needs=_READ)
    def _h_list_issue_comments(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        comments = [self._comment_json(c) for c in self.issue_comments if c["pull_number"] == pr.number]
        if "since" in req.query:
            comments = [c for c in comments if c["updated_at"] >= req.query["since"]]
        return self._paginate(req, comments)

    @endpoint("POST", REPO + r"/issues/(?P<n>\d+)/comments", needs=_WRITE)
    def _h_create_issue_comment(self, req: Req) -> Answer:
        pr = self._pull(req.params["n"])
        return 201, self._new_issue_comment(pr, self._check_body(req.json().get("body")), self.bot_login)

    @endpoint("GET", REPO + r"/issues/comments/(?P<id>\d+)", needs=_READ)
    def _h_get_issue_comment(self, req: Req) -> Answer:
        return 200, self._comment_json(self._issue_comment(req.params["id"]))

    @endpoint(
        "PATCH",
        REPO + r"/issues/comments/(?P<id>\d+)",
        needs=_WRITE,
    )
    def _h_update_issue_comment(self, req: Req) -> Answer:
        comment = self._issue_comment(req.params["id"])
        comment["body"] = self._check_body(req.json().get("body"))
        comment["updated_at"] = iso()
        return 200, self._comment_json(comment)

    @endpoint(
        "DELETE",
        REPO + r"/issues/comments/(?P<id>\d+)",
        needs=_WRITE,
    )
    def _h_delete_issue_comment(self, req: Req) -> Answer:
        comment = self._issue_comment(req.params["id"])
        self.issue_comments.remove(comment)
        return 204, None

    def _react(self, req: Req, subject: str, comment_id: int) -> Answer:
        content = req.json().get("content")
        if content not in REACTIONS:
            raise HTTPError(
                422,
                "Validation Failed",
                [
                    {
                        "resource": "Reaction",
                        "code": "custom",
                        "field": "content",
                        "message": f"content {content!r} is not included in the list",
                    }
                ],
            )
        for r in self.reactions:
            if (
                r["comment_id"] == comment_id
                and r["content"] == content
                and r["user"]["login"] == self.bot_login
            ):
                return 200, self._comment_json(r)
        rid = self._next_id()
        reaction = {
            "id": rid,
            "node_id": f"REA_lADO{rid}",
            "user": self._bot(),
            "content": content,
            "created_at": iso(),
            "subject": subject,
            "comment_id": comment_id,
        }
        self.reactions.append(reaction)
        return 201, {k: v for k, v in reaction.items() if k not in ("subject", "comment_id")}

    @endpoint(
        "POST",
        REPO + r"/issues/comments/(?P<id>\d+)/reactions",
        needs=_WRITE,
    )
    def _h_issue_reaction(self, req: Req) -> Answer:
        return self._react(req, "issue_comment", self._issue_comment(req.params["id"])["id"])

    @endpoint("POST", REPO + r"/pulls/comments/(?P<id>\d+)/reactions", needs=(("pull_requests", "write"),))
    def _h_review_reaction(self, req: Req) -> Answer:
        return self._react(req, "review_comment", self._review_comment(req.params["id"])["id"])
