"""The repository and its git data: contents, blobs, trees, compare and commits read; trees,
commits and branch moves written (a push to a pull request's head queues its synchronize delivery)."""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from bot.testing.standin.fixtures import GitError, git_with
from bot.testing.standin.gitrepo import GitRepo
from bot.testing.standin.protocol import JSON, REPO, Answer, HTTPError, Raw, Req, b64, endpoint, iso, refused
from bot.testing.standin.shapes import Shapes
from bot.testing.standin.state import Pull

_RAW_TYPES = ("application/vnd.github.raw", "application/vnd.github.v3.raw")

# What the endpoints below need of an installation token (any one alternative; write includes read).
_READ = (("contents", "read"),)
_WRITE = (("contents", "write"),)


@contextlib.contextmanager
def _scratch_index(repo: GitRepo) -> Iterator[Callable[..., bytes]]:
    """A git runner over an index of its own, so building a tree leaves the work tree's alone."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}

        def git(*args: str, input: bytes | None = None) -> bytes:
            try:
                return git_with(repo.path, env, *args, input=input)
            except GitError as exc:
                raise refused(str(exc)) from None

        yield git


class GitData(Shapes):
    @endpoint("GET", REPO, needs=(("metadata", "read"),))
    def _h_repository(self, req: Req) -> Answer:
        return 200, self._repo_json(self.owner, False, req.version, full=True)

    def _ref_or_404(self, ref: str | None) -> str:
        sha = self.repo.resolve(ref or self.default_branch)
        if sha is None:
            raise HTTPError(404, f"No commit found for the ref {ref}")
        return sha

    def _content_entry(self, entry: JSON, ref: str, sha: str) -> JSON:
        path = entry["path"]
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        kind = {"blob": "file", "tree": "dir", "commit": "submodule"}[entry["type"]]
        if entry["mode"] == "120000":
            kind = "symlink"
        html_kind = "tree" if kind == "dir" else "blob"
        git_url = f"{api}/git/{'trees' if kind == 'dir' else 'blobs'}/{entry['sha']}"
        d = {
            "type": kind,
            "size": entry["size"] or 0,
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": entry["sha"],
            "url": f"{api}/contents/{quote(path)}?ref={quote(ref)}",
            "git_url": git_url,
            "html_url": f"{self.html}/{self.owner}/{self.name}/{html_kind}/{quote(ref)}/{quote(path)}",
            "download_url": (
                f"https://raw.githubusercontent.com/{self.owner}/{self.name}/{sha}/{quote(path)}"
                if kind == "file"
                else None
            ),
        }
        d["_links"] = {"self": d["url"], "git": git_url, "html": d["html_url"]}
        return d

    @endpoint("GET", REPO + r"/contents(?:/(?P<path>.*))?", needs=_READ)
    def _h_contents(self, req: Req) -> Answer:
        ref = req.query.get("ref") or self.default_branch
        sha = self._ref_or_404(ref)
        path = req.params.get("path", "").strip("/")
        entry = self.repo.entry(sha, path)
        if entry is None:
            raise HTTPError(404, "Not Found")
        if entry["type"] == "tree":
            children = self.repo.ls_tree(entry["sha"])
            listing = []
            for child in children:
                child = {**child, "path": f"{path}/{child['path']}" if path else child["path"]}
                listing.append(self._content_entry(child, ref, sha))
            return 200, listing
        size = entry["size"] or 0
        if size > 100 * 1024 * 1024:
            raise HTTPError(
                403,
                "This API returns blobs up to 100 MB in size. The requested blob is too large "
                "to fetch via the API, but you can use the Git Data API to request blobs up to "
                "100 MB in size.",
                [{"resource": "Blob", "field": "data", "code": "too_large"}],
            )
        data = self.repo.read(entry["sha"]) if entry["type"] == "blob" else b""
        if req.accepts(_RAW_TYPES) and entry["type"] == "blob":
            return Raw(200, data, "text/plain; charset=utf-8")
        d = self._content_entry(entry, ref, sha)
        if d["type"] == "symlink":
            d["target"] = data.decode(errors="replace")
        elif d["type"] == "submodule":
            d["submodule_git_url"] = ""
        elif size > 1024 * 1024:
            d.update(content="", encoding="none")
        else:
            d.update(content=b64(data), encoding="base64")
        return 200, d

    @endpoint("GET", REPO + r"/git/blobs/(?P<sha>[^/]+)", needs=_READ)
    def _h_blob(self, req: Req) -> Answer:
        sha = req.params["sha"]
        if self.repo.object_type(sha) != "blob":
            raise HTTPError(404, "Not Found")
        data = self.repo.read(sha)
        if req.accepts(_RAW_TYPES):
            return Raw(200, data, "application/vnd.github.raw")
        full = self.repo.git("rev-parse", sha).decode().strip()
        return 200, {
            "sha": full,
            "node_id": f"B_kwDO{full[:12]}",
            "size": len(data),
            "url": f"{self.api}/repos/{self.owner}/{self.name}/git/blobs/{full}",
            "content": b64(data),
            "encoding": "base64",
        }

    @endpoint("GET", REPO + r"/git/trees/(?P<sha>.+)", needs=_READ)
    def _h_tree(self, req: Req) -> Answer:
        tree = self.repo.resolve(req.params["sha"], "tree")
        if tree is None:
            raise HTTPError(404, "Not Found")
        recursive = req.query.get("recursive", "") not in ("", "0", "false")
        entries = self.repo.ls_tree(tree, recursive=recursive)
        truncated = len(entries) > self.tree_entry_limit
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        items = []
        for e in entries[: self.tree_entry_limit]:
            item = {"path": e["path"], "mode": e["mode"], "type": e["type"], "sha": e["sha"]}
            if e["type"] == "blob":
                item["size"] = e["size"]
                item["url"] = f"{api}/blobs/{e['sha']}"
            elif e["type"] == "tree":
                item["url"] = f"{api}/trees/{e['sha']}"
            items.append(item)
        return 200, {"sha": tree, "url": f"{api}/trees/{tree}", "tree": items, "truncated": truncated}

    @endpoint("GET", REPO + r"/compare/(?P<basehead>.+)", needs=_READ)
    def _h_compare(self, req: Req) -> Answer:
        base_rev, sep, head_rev = req.params["basehead"].partition("...")
        base, head = self.repo.resolve(base_rev), self.repo.resolve(head_rev)
        if not sep or base is None or head is None:
            raise HTTPError(404, "Not Found")
        merge_base = self.repo.merge_base(base, head)
        ahead = self.repo.git("rev-list", "--reverse", f"{merge_base}..{head}").decode().split()
        behind = self.repo.count_commits(merge_base, base)
        if base == head:
            status = "identical"
        elif merge_base == base:
            status = "ahead"
        elif merge_base == head:
            status = "behind"
        else:
            status = "diverged"
        paged = "per_page" in req.query or "page" in req.query
        headers: dict[str, str] = {}
        if paged:
            _, commits, headers = self._paginate(req, ahead)
        else:
            commits = ahead[-250:]  # unpaged: the 250 most recent, the newest last
        html = f"{self.html}/{self.owner}/{self.name}/compare/{req.params['basehead']}"
        body: dict[str, Any] = {
            "url": f"{self.api}/repos/{self.owner}/{self.name}/compare/{req.params['basehead']}",
            "html_url": html,
            "permalink_url": f"{self.html}/{self.owner}/{self.name}/compare/"
            f"{self.owner}:{base[:7]}...{self.owner}:{head[:7]}",
            "diff_url": f"{html}.diff",
            "patch_url": f"{html}.patch",
            "base_commit": self._commit_json(base),
            "merge_base_commit": self._commit_json(merge_base),
            "status": status,
            "ahead_by": len(ahead),
            "behind_by": behind,
            "total_commits": len(ahead),
            "commits": [self._commit_json(sha) for sha in commits],
        }
        if not paged or req.query.get("page", "1") == "1":  # files come with the first page only
            files, _ = self.repo.diff(base, head)
            body["files"] = [self._file_json(f, head) for f in files[:300]]
        return 200, body, headers

    @endpoint("GET", REPO + r"/commits/(?P<ref>[^/]+)", needs=_READ)
    def _h_commit(self, req: Req) -> Answer:
        """GET commits/{ref}: the commit, with the files its first parent's diff lists (at most
        300, as on github.com's first page; a root commit's files are left out here)."""
        sha = self.repo.resolve(req.params["ref"])
        if sha is None:
            raise HTTPError(422, f"No commit found for SHA: {req.params['ref']}")
        body = self._commit_json(sha)
        parents = body["parents"]
        files = self.repo.diff(parents[0]["sha"], sha)[0] if parents else []
        body["files"] = [self._file_json(f, sha) for f in files[:300]]
        body["stats"] = {
            "additions": sum(f.additions for f in files),
            "deletions": sum(f.deletions for f in files),
            "total": sum(f.additions + f.deletions for f in files),
        }
        return 200, body

    @endpoint("GET", REPO + r"/commits")
    def _h_list_commits(self, req: Req) -> Answer:
        """GET commits?sha=&path=&per_page=&page=: the history of `sha` (default: the default
        branch), newest first, only the commits that changed `path` (a file, or any file under a
        folder) when given, as `git log` simplifies it."""
        ref = req.query.get("sha") or self.default_branch
        sha = self.repo.resolve(ref)
        if sha is None:
            raise HTTPError(404, "Not Found")
        path = req.query.get("path", "").strip("/")
        args = ["log", "--format=%H", sha] + (["--", path] if path else [])
        shas = self.repo.git(*args).decode().split()
        _, page, headers = self._paginate(req, shas)
        return 200, [self._commit_json(c) for c in page], headers

    _MODES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}

    @endpoint("POST", REPO + r"/git/trees", needs=_WRITE)
    def _h_create_tree(self, req: Req) -> Answer:
        """POST git/trees: `tree` entries over `base_tree` (content becomes a blob, sha null deletes)."""
        data = req.json()
        entries = data.get("tree")
        if not isinstance(entries, list) or not entries:
            raise refused("tree is not an array")
        base = data.get("base_tree")
        if base is not None and (not isinstance(base, str) or self.repo.resolve(base, "tree") is None):
            raise refused("base_tree is not a valid tree oid")
        with _scratch_index(self.repo) as git:
            if base is not None:
                git("read-tree", base)
            for e in entries:
                if not isinstance(e, dict) or not isinstance(e.get("path"), str) or not e["path"]:
                    raise refused("tree.path is missing")
                path, mode, kind = e["path"].strip("/"), e.get("mode"), e.get("type")
                if self._MODES.get(str(mode)) != kind:
                    raise refused(f"tree.mode {mode!r} and tree.type {kind!r} do not go together")
                if "content" in e and "sha" in e:
                    raise refused("Must supply either tree.sha or tree.content, not both")
                if "content" in e:
                    if kind != "blob" or not isinstance(e["content"], str):
                        raise refused("tree.content must be a string, for a blob")
                    sha = git("hash-object", "-w", "--stdin", input=e["content"].encode()).decode().strip()
                elif e.get("sha") is None:
                    git("update-index", "--force-remove", "--", path)
                    continue
                else:
                    sha = str(e["sha"])
                    if self.repo.object_type(sha) != kind:
                        raise refused(f"tree.sha {sha} is not a valid {kind}")
                git("update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}")
            tree = git("write-tree").decode().strip()
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        items = [
            {
                "path": x["path"],
                "mode": x["mode"],
                "type": x["type"],
                "sha": x["sha"],
                "url": f"{api}/{x['type']}s/{x['sha']}",
            }
            for x in self.repo.ls_tree(tree)
        ]
        return 201, {"sha": tree, "url": f"{api}/trees/{tree}", "tree": items, "truncated": False}

    @endpoint("POST", REPO + r"/git/commits", needs=_WRITE)
    def _h_create_commit(self, req: Req) -> Answer:
        """POST git/commits: a commit of `tree` on `parents`, by the App when no author is given."""
        data = req.json()
        message, tree, parents = data.get("message"), data.get("tree"), data.get("parents", [])
        if not isinstance(message, str):
            raise refused("message wasn't supplied.")
        if not isinstance(tree, str) or self.repo.object_type(tree) != "tree":
            raise refused("Tree SHA does not exist")
        if not isinstance(parents, list) or any(
            not isinstance(p, str) or self.repo.object_type(p) != "commit" for p in parents
        ):
            raise refused("Parent SHA does not exist or is not a commit object")
        when = f"{int(self.now())} +0000"
        bot = f"{self.bot_login}"
        email = f"{self.app_id}+{self.bot_login}@users.noreply.github.com"
        env = {"GIT_AUTHOR_NAME": bot, "GIT_AUTHOR_EMAIL": email, "GIT_AUTHOR_DATE": when}
        env |= {"GIT_COMMITTER_NAME": "GitHub", "GIT_COMMITTER_EMAIL": "noreply@github.com"}
        env["GIT_COMMITTER_DATE"] = when
        args = ["commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-F", "-"]
        sha = git_with(self.repo.path, env, *args, input=message.encode()).decode().strip()
        c = self._commit_json(sha)
        git = c["commit"]
        git.update(sha=sha, html_url=c["html_url"], parents=c["parents"])
        git["verification"] = {"verified": True, "reason": "valid", "signature": None, "payload": None}
        return 201, git

    @endpoint("PATCH", REPO + r"/git/refs/(?P<ref>.+)", needs=_WRITE)
    def _h_update_ref(self, req: Req) -> Answer:
        """PATCH git/refs/{ref}: move a branch, only forward unless `force`; a push to a pull
        request's head branch moves the pull request and queues its synchronize delivery."""
        ref = req.params["ref"]
        data = req.json()
        sha, force = data.get("sha"), data.get("force", False)
        branch = ref.removeprefix("heads/")
        if not ref.startswith("heads/") or not self.repo.is_branch(branch):
            raise refused("Reference does not exist")
        if not isinstance(sha, str) or self.repo.object_type(sha) != "commit":
            raise refused("Object does not exist")
        old = self._commit_or_fail(branch)
        if force is not True and not self.repo.is_ancestor(old, sha):
            raise refused("Update is not a fast forward")
        self.repo.git("update-ref", f"refs/heads/{branch}", sha, old)
        for pr in self._pulls.values():
            if pr.state == "open" and not pr.fork and pr.head_ref == branch and pr.head_sha != sha:
                before, pr.head_sha, pr.updated_at = pr.head_sha, sha, iso()
                self.deliveries.append(("pull_request", self._synchronize(pr, before, req.version)))
        api = f"{self.api}/repos/{self.owner}/{self.name}/git"
        return 200, {
            "ref": f"refs/{ref}",
            "node_id": f"REF_kwDO{sha[:12]}",
            "url": f"{api}/refs/{ref}",
            "object": {"type": "commit", "sha": sha, "url": f"{api}/commits/{sha}"},
        }

    def _synchronize(self, pr: Pull, before: str, version: str) -> JSON:
        """The pull_request.synchronize delivery of a push by the App to `pr`'s head branch."""
        return {
            "action": "synchronize",
            "number": pr.number,
            "before": before,
            "after": pr.head_sha,
            "pull_request": self._pull_json(pr, version),
            "repository": self._repo_json(self.owner, False, version),
            "installation": {"id": self.installation_id, "node_id": f"MDIz{self.installation_id}"},
            "sender": self._bot(),
        }
