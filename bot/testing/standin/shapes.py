"""GitHub's JSON shapes, built from the stand-in's state: users, repositories, pull requests, the App
and its installation, changed files, commits, comments; and GitHub's pagination."""

from __future__ import annotations

import math
from typing import Any, TypeVar
from urllib.parse import quote, urlencode

from bot.testing.standin.gitrepo import FileDiff
from bot.testing.standin.protocol import JSON, REACTIONS, Req
from bot.testing.standin.state import Pull, State

T = TypeVar("T")
APP_EVENTS = ["check_run", "check_suite", "issue_comment", "pull_request"]


class Shapes(State):
    def _user(self, login: str, kind: str | None = None) -> JSON:
        if login not in self._user_ids:
            self._user_ids[login] = 5000 + len(self._user_ids)
        uid = self._user_ids[login]
        kind = kind or (
            "Bot" if login.endswith("[bot]") else "Organization" if login == self.owner else "User"
        )
        api = f"{self.api}/users/{quote(login)}"
        return {
            "login": login,
            "id": uid,
            "node_id": f"U_kgDO{uid}",
            "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": f"{self.html}/{quote(login)}",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": kind,
            "user_view_type": "public",
            "site_admin": False,
        }

    def _bot(self) -> JSON:
        return self._user(self.bot_login, "Bot")

    def _association(self, login: str) -> str:
        if login == self.bot_login:
            return "NONE"
        permission = self._permissions.get(login)
        if permission in ("admin", "maintain"):
            return "MEMBER"
        if permission in ("write", "triage", "read"):
            return "COLLABORATOR"
        return "CONTRIBUTOR" if any(p.user == login for p in self._pulls.values()) else "NONE"

    def _repo_json(self, owner: str, fork: bool, version: str, full: bool = False) -> JSON:
        name = self.name
        api = f"{self.api}/repos/{owner}/{name}"
        html = f"{self.html}/{owner}/{name}"
        rid = self.repository_id + (1 if fork else 0)
        d = {
            "id": rid,
            "node_id": f"R_kgDO{rid}",
            "name": name,
            "full_name": f"{owner}/{name}",
            "private": False,
            "owner": self._user(owner),
            "html_url": html,
            "description": "Documentation fixture",
            "fork": fork,
            "url": api,
            "forks_url": f"{api}/forks",
            "keys_url": f"{api}/keys{{/key_id}}",
            "collaborators_url": f"{api}/collaborators{{/collaborator}}",
            "teams_url": f"{api}/teams",
            "hooks_url": f"{api}/hooks",
            "issue_events_url": f"{api}/issues/events{{/number}}",
            "events_url": f"{api}/events",
            "assignees_url": f"{api}/assignees{{/user}}",
            "branches_url": f"{api}/branches{{/branch}}",
            "tags_url": f"{api}/tags",
            "blobs_url": f"{api}/git/blobs{{/sha}}",
            "git_tags_url": f"{api}/git/tags{{/sha}}",
            "git_refs_url": f"{api}/git/refs{{/sha}}",
            "trees_url": f"{api}/git/trees{{/sha}}",
            "statuses_url": f"{api}/statuses/{{sha}}",
            "languages_url": f"{api}/languages",
            "stargazers_url": f"{api}/stargazers",
            "contributors_url": f"{api}/contributors",
            "subscribers_url": f"{api}/subscribers",
            "subscription_url": f"{api}/subscription",
            "commits_url": f"{api}/commits{{/sha}}",
            "git_commits_url": f"{api}/git/commits{{/sha}}",
            "comments_url": f"{api}/comments{{/number}}",
            "issue_comment_url": f"{api}/issues/comments{{/number}}",
            "contents_url": f"{api}/contents/{{+path}}",
            "compare_url": f"{api}/compare/{{base}}...{{head}}",
            "merges_url": f"{api}/merges",
            "archive_url": f"{api}/{{archive_format}}{{/ref}}",
            "downloads_url": f"{api}/downloads",
            "issues_url": f"{api}/issues{{/number}}",
            "pulls_url": f"{api}/pulls{{/number}}",
            "milestones_url": f"{api}/milestones{{/number}}",
            "notifications_url": f"{api}/notifications{{?since,all,participating}}",
            "labels_url": f"{api}/labels{{/name}}",
            "releases_url": f"{api}/releases{{/id}}",
            "deployments_url": f"{api}/deployments",
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "pushed_at": self._created_at,
            "git_url": f"git://github.com/{owner}/{name}.git",
            "ssh_url": f"git@github.com:{owner}/{name}.git",
            "clone_url": f"{html}.git",
            "svn_url": html,
            "homepage": None,
            "size": 1,
            "stargazers_count": 0,
            "watchers_count": 0,
            "language": "Python",
            "has_issues": True,
            "has_projects": True,
            "has_wiki": False,
            "has_pages": False,
            "has_discussions": False,
            "forks_count": 1,
            "mirror_url": None,
            "archived": False,
            "disabled": False,
            "open_issues_count": sum(1 for p in self._pulls.values() if p.state == "open"),
            "license": None,
            "allow_forking": True,
            "is_template": False,
            "web_commit_signoff_required": False,
            "topics": [],
            "visibility": "public",
            "forks": 1,
            "open_issues": sum(1 for p in self._pulls.values() if p.state == "open"),
            "watchers": 0,
            "default_branch": self.default_branch,
        }
        if version == "2022-11-28":
            d["has_downloads"] = True
        if full:
            d.update(subscribers_count=0, network_count=1, temp_clone_token=None)
            d["permissions"] = {
                "admin": False,
                "maintain": False,
                "push": False,
                "triage": False,
                "pull": True,
            }
        return d

    def _pull_json(self, pr: Pull, version: str, simple: bool = False) -> JSON:
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/pull/{pr.number}"
        head_owner = pr.user if pr.fork else self.owner
        d = {
            "url": f"{api}/pulls/{pr.number}",
            "id": pr.id,
            "node_id": f"PR_kwDO{pr.id}",
            "html_url": html,
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "issue_url": f"{api}/issues/{pr.number}",
            "commits_url": f"{api}/pulls/{pr.number}/commits",
            "review_comments_url": f"{api}/pulls/{pr.number}/comments",
            "review_comment_url": f"{api}/pulls/comments{{/number}}",
            "comments_url": f"{api}/issues/{pr.number}/comments",
            "statuses_url": f"{api}/statuses/{pr.head_sha}",
            "number": pr.number,
            "state": pr.state,
            "locked": False,
            "title": pr.title,
            "user": self._user(pr.user),
            "body": pr.body or None,
            "labels": [],
            "milestone": None,
            "active_lock_reason": None,
            "created_at": pr.created_at,
            "updated_at": pr.updated_at,
            "closed_at": pr.closed_at,
            "merged_at": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "draft": pr.draft,
            "head": {
                "label": f"{head_owner}:{pr.head_ref}",
                "ref": pr.head_ref,
                "sha": pr.head_sha,
                "user": self._user(head_owner),
                "repo": self._repo_json(head_owner, pr.fork, version),
            },
            "base": {
                "label": f"{self.owner}:{pr.base_ref}",
                "ref": pr.base_ref,
                "sha": pr.base_sha,
                "user": self._user(self.owner),
                "repo": self._repo_json(self.owner, False, version),
            },
            "_links": {
                "self": {"href": f"{api}/pulls/{pr.number}"},
                "html": {"href": html},
                "issue": {"href": f"{api}/issues/{pr.number}"},
                "comments": {"href": f"{api}/issues/{pr.number}/comments"},
                "review_comments": {"href": f"{api}/pulls/{pr.number}/comments"},
                "review_comment": {"href": f"{api}/pulls/comments{{/number}}"},
                "commits": {"href": f"{api}/pulls/{pr.number}/commits"},
                "statuses": {"href": f"{api}/statuses/{pr.head_sha}"},
            },
            "author_association": self._association(pr.user),
            "auto_merge": None,
        }
        if version == "2022-11-28":
            d["merge_commit_sha"] = None
            d["assignee"] = None
        if not simple:
            files, _ = self.repo.diff(pr.base_sha, pr.head_sha)
            d.update(
                merged=False,
                mergeable=None,
                rebaseable=None,
                mergeable_state="unknown",
                merged_by=None,
                comments=sum(1 for c in self.issue_comments if c["pull_number"] == pr.number),
                review_comments=sum(1 for c in self.review_comments if c["pull_number"] == pr.number),
                maintainer_can_modify=pr.fork,
                commits=self.repo.count_commits(self.repo.merge_base(pr.base_sha, pr.head_sha), pr.head_sha),
                additions=sum(f.additions for f in files),
                deletions=sum(f.deletions for f in files),
                changed_files=len(files),
            )
        return d

    def _integration(self) -> JSON:
        return {
            "id": self.app_id,
            "slug": self.app_slug,
            "node_id": f"A_kwDO{self.app_id}",
            "client_id": f"Iv1.{self.app_id:016x}",
            "owner": self._user(self.owner),
            "name": self.app_slug,
            "description": "Keeps documentation honest",
            "external_url": f"https://{self.app_slug}.example.com",
            "html_url": f"{self.html}/apps/{self.app_slug}",
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "permissions": dict(self.app_permissions),
            "events": list(APP_EVENTS),
        }

    def _installation_json(self) -> JSON:
        return {
            "id": self.installation_id,
            "account": self._user(self.owner),
            "repository_selection": "selected",
            "access_tokens_url": f"{self.api}/app/installations/{self.installation_id}/access_tokens",
            "repositories_url": f"{self.api}/installation/repositories",
            "html_url": f"{self.html}/organizations/{self.owner}/settings/installations/"
            f"{self.installation_id}",
            "app_id": self.app_id,
            "app_slug": self.app_slug,
            "target_id": self._user(self.owner)["id"],
            "target_type": "Organization",
            "permissions": dict(self.app_permissions),
            "events": list(APP_EVENTS),
            "created_at": self._created_at,
            "updated_at": self._created_at,
            "single_file_name": None,
            "has_multiple_single_files": False,
            "single_file_paths": [],
            "suspended_by": None,
            "suspended_at": None,
        }

    def _paginate(
        self, req: Req, items: list[T], cap: int | None = None
    ) -> tuple[int, list[T], dict[str, str]]:
        try:
            per_page = min(100, max(1, int(req.query.get("per_page", 30))))
        except ValueError:
            per_page = 30
        try:
            page = max(1, int(req.query.get("page", 1)))
        except ValueError:
            page = 1
        if cap is not None:
            items = items[:cap]
        last = max(1, math.ceil(len(items) / per_page))

        def link(p: int, rel: str) -> str:
            query = {**req.query, "per_page": str(per_page), "page": str(p)}
            return f'<{self.api}{req.path}?{urlencode(query)}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links.append(link(1, "first"))
        headers = {"link": ", ".join(links)} if links else {}
        return 200, items[(page - 1) * per_page : page * per_page], headers

    def _file_json(self, f: FileDiff, head_sha: str) -> JSON:
        path = quote(f.filename)
        d: dict[str, Any] = {
            "sha": f.new_blob or f.old_blob,
            "filename": f.filename,
            "status": f.status,
            "additions": f.additions,
            "deletions": f.deletions,
            "changes": f.additions + f.deletions,
            "blob_url": f"{self.html}/{self.owner}/{self.name}/blob/{head_sha}/{path}",
            "raw_url": f"{self.html}/{self.owner}/{self.name}/raw/{head_sha}/{path}",
            "contents_url": f"{self.api}/repos/{self.owner}/{self.name}/contents/{path}?ref={head_sha}",
        }
        if f.patch is not None and not any(p.search(f.filename) for p in self._no_patch):
            d["patch"] = f.patch
        if f.previous_filename is not None:
            d["previous_filename"] = f.previous_filename
        return d

    def _commit_json(self, sha: str) -> JSON:
        info = self.repo.commit_info(sha)
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        html = f"{self.html}/{self.owner}/{self.name}/commit"
        return {
            "url": f"{api}/commits/{sha}",
            "sha": sha,
            "node_id": f"C_kwDO{sha[:12]}",
            "html_url": f"{html}/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "commit": {
                "url": f"{api}/git/commits/{sha}",
                "author": info["author"],
                "committer": info["committer"],
                "message": info["message"],
                "comment_count": 0,
                "tree": {"sha": info["tree"], "url": f"{api}/git/trees/{info['tree']}"},
            },
            "author": None,
            "committer": None,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{html}/{p}"} for p in info["parents"]
            ],
        }

    def _comment_json(self, c: JSON) -> JSON:
        out = {k: v for k, v in c.items() if k != "pull_number"}
        if "reactions" in out:
            out["reactions"] = self._reaction_summary(out["reactions"]["url"], out["id"])
        return out

    def _reaction_summary(self, url: str, cid: int) -> JSON:
        summary: dict[str, Any] = {"url": url, "total_count": 0, **dict.fromkeys(REACTIONS, 0)}
        for r in self.reactions:
            if r["comment_id"] == cid:
                summary[r["content"]] += 1
                summary["total_count"] += 1
        return summary
