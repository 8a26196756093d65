"""Check runs: created, updated, read and listed, under GitHub's limits on outputs, annotations
and actions."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from bot.testing.standin.protocol import JSON, REPO, Answer, HTTPError, Req, endpoint, invalid, iso, too_long
from bot.testing.standin.shapes import Shapes

_CONCLUSIONS = ("action_required", "cancelled", "failure", "neutral", "success", "skipped", "timed_out")
_LEVELS = ("notice", "warning", "failure")

# What the endpoints below need of an installation token (any one alternative; write includes read).
_READ = (("checks", "read"),)
_WRITE = (("checks", "write"),)


def _too_big(field: str, allowed: int = 65535) -> HTTPError:
    """The 422 for a check run's text over `allowed` bytes (over `allowed` characters: `too_long`)."""
    return HTTPError(
        422,
        "Validation Failed",
        [
            {
                "resource": "CheckRun",
                "code": "custom",
                "field": field,
                "message": f"{field} exceeds a maximum bytesize of {allowed}",
            }
        ],
    )


class Checks(Shapes):
    def _suite_id(self, head_sha: str) -> int:
        if head_sha not in self._suites:
            self._suites[head_sha] = self._next_id()
        return self._suites[head_sha]

    def _check_json(self, run: JSON) -> JSON:
        api = f"{self.api}/repos/{self.owner}/{self.name}"
        url = f"{api}/check-runs/{run['id']}"
        out = run["output"]
        pulls = [
            {
                "url": f"{api}/pulls/{p.number}",
                "id": p.id,
                "number": p.number,
                "head": {
                    "ref": p.head_ref,
                    "sha": p.head_sha,
                    "repo": {"id": self.repository_id, "url": api, "name": self.name},
                },
                "base": {
                    "ref": p.base_ref,
                    "sha": p.base_sha,
                    "repo": {"id": self.repository_id, "url": api, "name": self.name},
                },
            }
            for p in self._pulls.values()
            if p.head_sha == run["head_sha"] and p.state == "open" and not p.fork
        ]
        return {
            "id": run["id"],
            "head_sha": run["head_sha"],
            "node_id": f"CR_kwDO{run['id']}",
            "external_id": run["external_id"],
            "url": url,
            "html_url": f"{self.html}/{self.owner}/{self.name}/runs/{run['id']}",
            "details_url": run["details_url"],
            "status": run["status"],
            "conclusion": run["conclusion"],
            "started_at": run["started_at"],
            "completed_at": run["completed_at"],
            "output": {
                "title": out["title"],
                "summary": out["summary"],
                "text": out["text"],
                "annotations_count": len(out["annotations"]),
                "annotations_url": f"{url}/annotations",
            },
            "name": run["name"],
            "check_suite": {"id": self._suite_id(run["head_sha"])},
            "app": self._integration(),
            "pull_requests": pulls,
        }

    def _validate_check(self, data: JSON, run: JSON | None) -> JSON:
        """The changes `data` makes to a check run, after GitHub's checks; `run` is None on create."""
        changes: dict[str, Any] = {}
        if run is None:
            name = data.get("name")
            if not isinstance(name, str) or not name.strip():
                raise invalid("`name` is a required property.")
            head_sha = data.get("head_sha")
            if not isinstance(head_sha, str):
                raise invalid("`head_sha` is a required property.")
            resolved = self.repo.resolve(head_sha) if re.fullmatch(r"[0-9a-f]{40}", head_sha) else None
            if resolved is None:
                raise HTTPError(422, f"No commit found for SHA: {head_sha}")
            changes.update(name=name, head_sha=resolved)
        elif "name" in data:
            if not isinstance(data["name"], str) or not data["name"].strip():
                raise invalid("For 'properties/name', it must be a non-empty string.")
            changes["name"] = data["name"]
        status, conclusion = data.get("status"), data.get("conclusion")
        if status is not None and status not in ("queued", "in_progress", "completed"):
            raise invalid(
                f'For \'properties/status\', "{status}" is not one of ["queued", "in_progress", "completed"].'
            )
        if conclusion is not None and conclusion not in _CONCLUSIONS:
            raise invalid(
                f"For 'properties/conclusion', \"{conclusion}\" is not one of "
                f"{json.dumps(list(_CONCLUSIONS))}."
            )
        if conclusion is not None:
            status = "completed"  # GitHub: providing a conclusion sets the status to completed
        has_conclusion = conclusion is not None or (run is not None and run["conclusion"] is not None)
        if (status == "completed" or data.get("completed_at")) and not has_conclusion:
            raise invalid('`conclusion` is required when `status` is "completed" or `completed_at` is given.')
        if status is not None:
            changes["status"] = status
        if conclusion is not None:
            changes["conclusion"] = conclusion
        for key in ("details_url", "external_id", "started_at", "completed_at"):
            if key in data:
                changes[key] = data[key]
        if "output" in data:
            changes["output"] = self._validate_output(data["output"], creating=run is None)
        if "actions" in data:
            changes["actions"] = self._validate_actions(data["actions"])
        return changes

    def _validate_output(self, output: Any, creating: bool) -> JSON:
        if not isinstance(output, dict):
            raise invalid("For 'properties/output', it is not an object.")
        if creating and not isinstance(output.get("title"), str):
            raise invalid("`title` is a required property of `output`.")
        if not isinstance(output.get("summary"), str):
            raise invalid("`summary` is a required property of `output`.")
        for key in ("summary", "text"):
            value = output.get(key)
            if isinstance(value, str) and len(value) > 65535:
                raise too_long(len(value))
            if isinstance(value, str) and len(value.encode("utf-8")) > 65535:
                raise _too_big(key)
        annotations = output.get("annotations") or []
        if not isinstance(annotations, list):
            raise invalid("For 'properties/annotations', it is not an array.")
        if len(annotations) > 50:
            raise invalid(f"Only 50 annotations are allowed per request; {len(annotations)} were supplied.")
        for i, a in enumerate(annotations):
            where = f"annotations[{i}]"
            if not isinstance(a, dict):
                raise invalid(f"For '{where}', it is not an object.")
            for key in ("path", "start_line", "end_line", "annotation_level", "message"):
                if key not in a or a[key] is None:
                    raise invalid(f"`{key}` is a required property of `{where}`.")
            if (
                not isinstance(a["start_line"], int)
                or not isinstance(a["end_line"], int)
                or a["start_line"] < 1
            ):
                raise invalid(f"For '{where}', start_line and end_line must be positive integers.")
            if a["end_line"] < a["start_line"]:
                raise invalid(f"For '{where}', end_line must not come before start_line.")
            if a["annotation_level"] not in _LEVELS:
                raise invalid(
                    f"For '{where}/annotation_level', \"{a['annotation_level']}\" is not one of "
                    '["notice", "warning", "failure"].'
                )
            if ("start_column" in a or "end_column" in a) and a["start_line"] != a["end_line"]:
                raise invalid(f"For '{where}', columns are only allowed when start_line equals end_line.")
            if len(str(a["message"])) > 65535 or len(str(a.get("raw_details") or "")) > 65535:
                raise too_long(max(len(str(a["message"])), len(str(a.get("raw_details") or ""))))
            for key in ("message", "raw_details"):  # "The maximum size is 64 KB."
                if len(str(a.get(key) or "").encode("utf-8")) > 64 * 1024:
                    raise _too_big(f"{where}/{key}", 64 * 1024)
            if len(str(a.get("title") or "")) > 255:
                raise too_long(len(str(a["title"])), 255)
        return {
            "title": output.get("title"),
            "summary": output["summary"],
            "text": output.get("text"),
            "annotations": [dict(a) for a in annotations],
        }

    @staticmethod
    def _validate_actions(actions: Any) -> list[JSON]:
        if not isinstance(actions, list):
            raise invalid("For 'properties/actions', it is not an array.")
        if len(actions) > 3:
            raise invalid(f"Only 3 actions are allowed; {len(actions)} were supplied.")
        for i, action in enumerate(actions):
            if not isinstance(action, dict):
                raise invalid(f"For 'actions[{i}]', it is not an object.")
            for key, limit in (("label", 20), ("description", 40), ("identifier", 20)):
                value = action.get(key)
                if not isinstance(value, str) or not value:
                    raise invalid(f"`{key}` is a required property of `actions[{i}]`.")
                if len(value) > limit:
                    raise too_long(len(value), limit)
        return [dict(a) for a in actions]

    @endpoint("POST", REPO + r"/check-runs", needs=_WRITE)
    def _h_create_check_run(self, req: Req) -> Answer:
        changes = self._validate_check(req.json(), None)
        now = iso()
        run = {
            "id": self._next_id(),
            "name": changes["name"],
            "head_sha": changes["head_sha"],
            "status": changes.get("status", "queued"),
            "conclusion": changes.get("conclusion"),
            "details_url": changes.get("details_url"),
            "external_id": changes.get("external_id", ""),
            "started_at": changes.get("started_at", now),
            "completed_at": None,
            "output": {"title": None, "summary": None, "text": None, "annotations": []},
            "actions": changes.get("actions", []),
        }
        if "output" in changes:
            run["output"] = changes["output"]
        if run["status"] == "completed":
            run["completed_at"] = changes.get("completed_at", now)
        self.check_runs.append(run)
        return 201, self._check_json(run)

    @endpoint("PATCH", REPO + r"/check-runs/(?P<id>\d+)", needs=_WRITE)
    def _h_update_check_run(self, req: Req) -> Answer:
        run = self._check_run(req.params["id"])
        changes = self._validate_check(req.json(), run)
        output = changes.pop("output", None)
        for key, value in changes.items():
            run[key] = value
        if output is not None:
            run["output"]["title"] = output["title"] or run["output"]["title"]
            run["output"]["summary"] = output["summary"]
            if output["text"] is not None:
                run["output"]["text"] = output["text"]
            run["output"]["annotations"].extend(output["annotations"])
        if run["status"] == "completed" and run["completed_at"] is None:
            run["completed_at"] = iso()
        return 200, self._check_json(run)

    @endpoint("GET", REPO + r"/check-runs/(?P<id>\d+)", needs=_READ)
    def _h_get_check_run(self, req: Req) -> Answer:
        return 200, self._check_json(self._check_run(req.params["id"]))

    @endpoint("GET", REPO + r"/check-runs/(?P<id>\d+)/annotations", needs=_READ)
    def _h_check_annotations(self, req: Req) -> Answer:
        run = self._check_run(req.params["id"])
        blob = f"{self.html}/{self.owner}/{self.name}/blob/{run['head_sha']}"
        items = [
            {
                "path": a["path"],
                "start_line": a["start_line"],
                "end_line": a["end_line"],
                "start_column": a.get("start_column"),
                "end_column": a.get("end_column"),
                "annotation_level": a["annotation_level"],
                "title": a.get("title"),
                "message": a["message"],
                "raw_details": a.get("raw_details"),
                "blob_href": f"{blob}/{quote(a['path'])}",
            }
            for a in run["output"]["annotations"]
        ]
        return self._paginate(req, items)

    @endpoint("GET", REPO + r"/commits/(?P<ref>.+)/check-runs", needs=_READ)
    def _h_list_check_runs(self, req: Req) -> Answer:
        sha = self.repo.resolve(req.params["ref"])
        if sha is None:
            raise HTTPError(422, f"No commit found for SHA: {req.params['ref']}")
        runs = [r for r in self.check_runs if r["head_sha"] == sha]
        if "check_name" in req.query:
            runs = [r for r in runs if r["name"] == req.query["check_name"]]
        if "status" in req.query:
            runs = [r for r in runs if r["status"] == req.query["status"]]
        if req.query.get("filter", "latest") == "latest":
            latest: dict[str, JSON] = {}
            for r in runs:
                latest[r["name"]] = r
            runs = list(latest.values())
        runs = sorted(runs, key=lambda r: -r["id"])
        status, page, headers = self._paginate(req, runs)
        return status, {"total_count": len(runs), "check_runs": [self._check_json(r) for r in page]}, headers
