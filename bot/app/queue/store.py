"""What the App remembers between jobs, as typed values over the queue database's kv and blob tables.

Every value is a frozen dataclass, stored as JSON under a namespace and a key; the layout (the
same as the database has always held, so an upgrade keeps its state) is:

    ns "config",      "owner/repo@<base ref>"   {"oid"}: the config blob last seen on that branch
                                                (oid null: the branch has no config)
    ns "waivers",     "owner/repo#12"           [{"symbol", "reason", "user"}]: `/docs-sync ignore`
    ns "report",      "owner/repo#12"           {"head_sha", "html_url", "findings", "ignored"}:
                                                the last report, for `/docs-sync explain`
    ns "checked",     "owner/repo@<head sha>"   {"pr", "base_sha", "rules"}: that commit was checked and
                                                published against that base
    ns "check-run",   "<job id>"                {"id", "head_sha", "html_url", "sent", "done"}:
                                                the job's check run, annotations already sent,
                                                whether it is completed
    ns "check-run-pending", "<job id>"          {"head_sha"}: a creation sent and not yet answered
                                                (else null)
    ns "pr",          "owner/repo#12"           {"reviews", "comments": {fingerprint: {"state",
                                                "message", "id"}}, "summary_id", "summary_hash",
                                                "review_pending", "summary_pending", "synced"}:
                                                what docs-sync has written on the pull request
    ns "reply",       "<job id>"                {"id"}: the reply to a command (id null while
                                                it is being sent)
    ns "limit",       "<job id>"                {"verdict"}: "run", "tell:<who>" or "quiet", what
                                                the command limits said of the job
    ns "swept",       "owner/repo@<head sha>"   {}: a recovery sweep found a docs-sync run there
    ns "redelivery",  "<delivery guid>"         {"asks"}: redeliveries asked of GitHub (recovery)
    ns "applied",     "<job id>"                {"parent", "commit", "answer"}: the commit
                                                `/docs-sync apply` made, before the branch was
                                                moved to it, and what the reply says
    ns "merge-base",  "owner/repo@<base>...<head>"  {"sha"}
    ns "blob-at",     "owner/repo@<sha>:<path>" {"oid", "binary"}: (oid null: no file there;
                                                binary: its bytes are not UTF-8, none kept)
    blobs table       blob oid -> its bytes as text, for bytes that are UTF-8

Reads are tolerant: a field missing from an older value reads as its default.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Protocol

from bot.core.model import CodeLocation, DocLocation, Finding, Report, Suggestion


class Database(Protocol):
    """The part of the queue (bot.app.queue.protocol.JobQueue) the store is built on."""

    def kv_get(self, ns: str, key: str) -> str | None: ...

    def kv_put(self, ns: str, key: str, value_json: str) -> None: ...

    def blob_get(self, sha: str) -> str | None: ...

    def blob_put(self, sha: str, text: str) -> None: ...


@dataclass(frozen=True)
class PullRef:
    """One pull request of one repository: "owner/repo#12"."""

    repo: str  # owner/repo
    number: int

    def __str__(self) -> str:
        return f"{self.repo}#{self.number}"


@dataclass(frozen=True)
class Waiver:
    """`/docs-sync ignore <symbol> [reason]`, said by `user`."""

    symbol: str
    reason: str
    user: str


@dataclass(frozen=True)
class Checked:
    """A head commit checked and published: the pull request, the base and the rules
    (`repoconfig.Rules.digest`) it was checked against."""

    pr: int
    base_sha: str
    rules: str = ""


@dataclass(frozen=True)
class SeenConfig:
    """The config blob last seen on a base branch; `oid` None when the branch has none."""

    oid: str | None


@dataclass(frozen=True)
class StoredReport:
    """The last report published on a pull request, for `/docs-sync explain` and `apply`.

    Findings keep what explaining them needs, and their suggestion, which `apply` commits.
    """

    head_sha: str
    html_url: str
    report: Report


@dataclass(frozen=True)
class CheckRun:
    """A job's check run and how far its completion got."""

    id: int
    head_sha: str
    html_url: str = ""
    sent: int = 0  # annotations already sent
    done: bool = False


@dataclass(frozen=True)
class PostedComment:
    """A review comment docs-sync posted (or adopted), by its finding's fingerprint."""

    state: str  # "open" | "fixed"
    message: str  # the finding in one line, kept for the "fixed" edit
    id: int | None = None  # None until looked up: the review call does not answer with it


@dataclass(frozen=True)
class PullState:
    """What docs-sync has written on one pull request."""

    reviews: tuple[int, ...] = ()
    comments: Mapping[str, PostedComment] = field(default_factory=dict)
    summary_id: int | None = None
    summary_hash: str | None = None
    review_pending: bool = False  # a review was sent and its answer not seen
    summary_pending: bool = False  # the summary comment was sent and its answer not seen
    # What docs-sync wrote before this database knew the pull request (it is new, or the
    # database was lost) was looked up on GitHub and adopted.
    synced: bool = False

    def open_fingerprints(self) -> set[str]:
        return {fp for fp, c in self.comments.items() if c.state == "open"}

    def with_comment(self, fingerprint: str, comment: PostedComment) -> PullState:
        return replace(self, comments={**self.comments, fingerprint: comment})


@dataclass(frozen=True)
class Reply:
    """The reply to a command; `id` None while it is being sent (its answer may be lost)."""

    id: int | None


@dataclass(frozen=True)
class Applied:
    """A commit `/docs-sync apply` made on `parent`, recorded before the branch is moved to it:
    a retried job that finds the branch at `commit` knows the commit is its own."""

    parent: str
    commit: str
    answer: str


@dataclass(frozen=True)
class BlobAt:
    """What a commit has at a path: the blob's oid (None: nothing there), and whether its bytes are
    not UTF-8 (binary, or another encoding), so that no text of it is kept."""

    oid: str | None
    binary: bool = False


class Store:
    """Typed reads and writes of the App's state; every call is one short transaction."""

    def __init__(self, db: Database):
        self.db = db

    def _get(self, ns: str, key: str) -> Any:
        raw = self.db.kv_get(ns, key)
        return None if raw is None else json.loads(raw)

    def _put(self, ns: str, key: str, value: Any) -> None:
        self.db.kv_put(ns, key, json.dumps(value))

    # -- the rules' config, by base branch ---------------------------------------------------------

    def config(self, repo: str, ref: str) -> SeenConfig | None:
        """The config last seen on `ref` of `repo`; None when never looked at."""
        data = self._get("config", f"{repo}@{ref}")
        return None if data is None else SeenConfig(data.get("oid"))

    def save_config(self, repo: str, ref: str, oid: str | None) -> None:
        self._put("config", f"{repo}@{ref}", {"oid": oid})

    # -- commits already checked -----------------------------------------------------------------

    def checked(self, repo: str, head_sha: str) -> Checked | None:
        data = self._get("checked", f"{repo}@{head_sha}")
        if not isinstance(data, dict) or data.get("pr") is None:
            return None
        return Checked(int(data["pr"]), str(data.get("base_sha")), str(data.get("rules") or ""))

    def mark_checked(self, repo: str, head_sha: str, checked: Checked) -> None:
        value = {"pr": checked.pr, "base_sha": checked.base_sha, "rules": checked.rules}
        self._put("checked", f"{repo}@{head_sha}", value)

    # -- waivers -----------------------------------------------------------------------------------

    def waivers(self, pr: PullRef) -> list[Waiver]:
        return [
            Waiver(str(w["symbol"]), str(w.get("reason") or ""), str(w.get("user") or ""))
            for w in self._get("waivers", str(pr)) or []
        ]

    def add_waiver(self, pr: PullRef, waiver: Waiver) -> None:
        """Add `waiver`, replacing an earlier one for the same symbol."""
        waivers = [w for w in self.waivers(pr) if w.symbol != waiver.symbol] + [waiver]
        self._put("waivers", str(pr), [_waiver_json(w) for w in waivers])

    # -- the last report -------------------------------------------------------------------------

    def last_report(self, pr: PullRef) -> StoredReport | None:
        data = self._get("report", str(pr))
        if data is None:
            return None
        findings = tuple(_finding(f) for f in data.get("findings") or [])
        ignored = tuple((_finding(f), str(f.get("reason") or "")) for f in data.get("ignored") or [])
        report = Report(findings, ignored)
        return StoredReport(str(data["head_sha"]), str(data["html_url"]), report)

    def save_report(self, pr: PullRef, stored: StoredReport) -> None:
        report = stored.report
        data = {
            "head_sha": stored.head_sha,
            "html_url": stored.html_url,
            "findings": [finding_json(f) for f in report.findings],
            "ignored": [{**finding_json(f), "reason": reason} for f, reason in report.ignored],
        }
        self._put("report", str(pr), data)

    # -- check runs, by job ----------------------------------------------------------------------

    def check_run(self, job_id: int) -> CheckRun | None:
        data = self._get("check-run", str(job_id))
        if data is None:
            return None
        return CheckRun(
            id=int(data["id"]),
            head_sha=str(data["head_sha"]),
            html_url=str(data.get("html_url") or ""),
            sent=int(data.get("sent") or 0),
            done=bool(data.get("done")),
        )

    def save_check_run(self, job_id: int, run: CheckRun) -> None:
        data = {"id": run.id, "head_sha": run.head_sha, "html_url": run.html_url, "sent": run.sent}
        self._put("check-run", str(job_id), {**data, "done": run.done})

    def pending_check_run(self, job_id: int) -> str | None:
        """The head SHA of a check run creation the job sent and saw no answer to, if any."""
        data = self._get("check-run-pending", str(job_id)) or {}
        head = data.get("head_sha")
        return None if head is None else str(head)

    def set_pending_check_run(self, job_id: int, head_sha: str | None) -> None:
        self._put("check-run-pending", str(job_id), {"head_sha": head_sha})

    def check_run_started(self, job_id: int) -> bool:
        """Has the job created its check run, or sent the creation (answered or not)?"""
        return self.pending_check_run(job_id) is not None or self.check_run(job_id) is not None

    # -- what docs-sync wrote on a pull request --------------------------------------------------

    def pull_state(self, pr: PullRef) -> PullState:
        data = self._get("pr", str(pr))
        if data is None:
            return PullState()
        comments = {
            fp: PostedComment(
                str(c.get("state") or "open"),
                str(c.get("message") or ""),
                None if c.get("id") is None else int(c["id"]),
            )
            for fp, c in (data.get("comments") or {}).items()
        }
        return PullState(
            reviews=tuple(int(r) for r in data.get("reviews") or []),
            comments=comments,
            summary_id=data.get("summary_id"),
            summary_hash=data.get("summary_hash"),
            review_pending=bool(data.get("review_pending")),
            summary_pending=bool(data.get("summary_pending")),
            synced=bool(data.get("synced")),
        )

    def save_pull_state(self, pr: PullRef, state: PullState) -> None:
        data = {
            "reviews": list(state.reviews),
            "comments": {
                fp: {"state": c.state, "message": c.message, "id": c.id} for fp, c in state.comments.items()
            },
            "summary_id": state.summary_id,
            "summary_hash": state.summary_hash,
            "review_pending": state.review_pending,
            "summary_pending": state.summary_pending,
            "synced": state.synced,
        }
        self._put("pr", str(pr), data)

    # -- replies to commands, by job -------------------------------------------------------------

    def reply(self, job_id: int) -> Reply | None:
        data = self._get("reply", str(job_id))
        if data is None:
            return None
        return Reply(None if data.get("id") is None else int(data["id"]))

    def save_reply(self, job_id: int, reply: Reply) -> None:
        self._put("reply", str(job_id), {"id": reply.id})

    def limit_verdict(self, job_id: int) -> str | None:
        """What the command limits said of a command job: "run", "tell:<who>" or "quiet"."""
        data = self._get("limit", str(job_id))
        return None if not isinstance(data, dict) else str(data.get("verdict"))

    def save_limit_verdict(self, job_id: int, verdict: str) -> None:
        self._put("limit", str(job_id), {"verdict": verdict})

    def swept(self, repo: str, head_sha: str) -> bool:
        """Did a recovery sweep find a docs-sync run on this head already?"""
        return self._get("swept", f"{repo}@{head_sha}") is not None

    def save_swept(self, repo: str, head_sha: str) -> None:
        self._put("swept", f"{repo}@{head_sha}", {})

    def redelivery(self, guid: str) -> int:
        """How many times GitHub was asked to redeliver delivery `guid` (bot.app.jobs.recovery)."""
        data = self._get("redelivery", guid)
        return int(data.get("asks") or 0) if isinstance(data, dict) else 0

    def save_redelivery(self, guid: str, asks: int) -> None:
        self._put("redelivery", guid, {"asks": asks})

    def applied(self, job_id: int) -> Applied | None:
        data = self._get("applied", str(job_id))
        if not isinstance(data, dict):
            return None
        return Applied(str(data["parent"]), str(data["commit"]), str(data.get("answer") or ""))

    def save_applied(self, job_id: int, applied: Applied) -> None:
        self._put("applied", str(job_id), asdict(applied))

    # -- revisions read through the API (bot.app.jobs.snapshot) ---------------------------------------

    def merge_base(self, repo: str, base_sha: str, head_sha: str) -> str | None:
        data = self._get("merge-base", f"{repo}@{base_sha}...{head_sha}")
        return None if data is None else str(data["sha"])

    def save_merge_base(self, repo: str, base_sha: str, head_sha: str, sha: str) -> None:
        self._put("merge-base", f"{repo}@{base_sha}...{head_sha}", {"sha": sha})

    def blob_at(self, repo: str, sha: str, path: str) -> BlobAt | None:
        """What commit `sha` has at `path`, when it was read before; None when never read."""
        data = self._get("blob-at", f"{repo}@{sha}:{path}")
        if data is None:
            return None
        return BlobAt(data.get("oid"), bool(data.get("binary")))

    def save_blob_at(self, repo: str, sha: str, path: str, at: BlobAt) -> None:
        self._put("blob-at", f"{repo}@{sha}:{path}", {"oid": at.oid, "binary": at.binary})

    def blob_text(self, oid: str) -> str | None:
        return self.db.blob_get(oid)

    def history(self, repo: str, key: str) -> Any:
        """What the history of a commit said (bot.app.jobs.history): a commit never changes."""
        return self._get("history", f"{repo}@{key}")

    def save_history(self, repo: str, key: str, value: Any) -> None:
        self._put("history", f"{repo}@{key}", value)

    def save_blob_text(self, oid: str, text: str) -> None:
        self.db.blob_put(oid, text)


def _waiver_json(w: Waiver) -> dict[str, str]:
    return {"symbol": w.symbol, "reason": w.reason, "user": w.user}


def finding_json(f: Finding) -> dict[str, Any]:
    """A finding as the stored report keeps it."""
    return {
        "rule": f.rule,
        "kind": f.kind,
        "severity": f.severity,
        "symbol": f.symbol,
        "message": f.message,
        "why": f.why,
        "doc": {"path": f.doc.path, "line": f.doc.line, "section": f.doc.section} if f.doc else None,
        "code": {"path": f.code.path, "line": f.code.line} if f.code else None,
        # what `/docs-sync apply` commits
        "suggestion": asdict(f.suggestion) if f.suggestion else None,
    }


def _finding(data: dict[str, Any]) -> Finding:
    doc, code = data.get("doc"), data.get("code")
    return Finding(
        kind=data["kind"],
        severity=data["severity"],
        symbol=str(data["symbol"]),
        message=str(data.get("message") or ""),
        rule=str(data.get("rule") or ""),
        doc=DocLocation(doc["path"], int(doc["line"]), doc.get("section") or "", "") if doc else None,
        code=CodeLocation(code["path"], int(code["line"])) if code else None,
        why=str(data.get("why") or ""),
        suggestion=Suggestion(**data["suggestion"]) if data.get("suggestion") else None,
    )
