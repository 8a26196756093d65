"""The check step of the GitHub Action (action.yml): `python -m bot.action`.

One check of the pull request (its merge base against its head), written three ways: workflow
commands on stdout for annotations, the whole markdown report in the job summary (GitHub shows
only 10 error annotations per step, the summary carries every finding), and the step's outputs.

Read from the environment, as action.yml sets it: INPUT_BASE (a pull request's or merge group's
base, a push's `before`; empty or zeros: the remote's default branch), INPUT_HEAD (default HEAD),
INPUT_RULES (file paths or pack names, whitespace-separated; default .github/docs-sync.yml at the
base), INPUT_FAIL_ON (error|warning|notice|never; empty: each rule's own), INPUT_PATH (the
checkout, default .), and GitHub's GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_SERVER_URL and
GITHUB_REPOSITORY.

Exit codes as the command line's: 0 success or neutral, 1 the check failed, 2 it could not run.
"""

from __future__ import annotations

import os
import sys
from urllib.parse import quote

from bot import cli
from bot.cli_args import parse_args
from bot.core.model import Report
from bot.core.rules import RulesError
from bot.render import FORMATS
from bot.render.common import DocText, Options
from bot.render.markdown import DocUrl, to_markdown
from bot.trees.git import GitError, GitRepo

FAIL_ON = ("error", "warning", "notice", "never")
# GitHub takes at most 1 MiB of summary per step; a character is at most 4 bytes of UTF-8.
SUMMARY_LIMIT = 250_000


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, "").strip() or default


def _append(variable: str, text: str) -> None:
    path = os.environ.get(variable)
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)


def _outputs(**values: object) -> None:
    _append("GITHUB_OUTPUT", "".join(f"{name}={value}\n" for name, value in values.items()))


def _command_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _doc_url(head_sha: str) -> DocUrl | None:
    server, repository = _env("GITHUB_SERVER_URL", "https://github.com"), _env("GITHUB_REPOSITORY")
    if not repository:
        return None

    def url(path: str, start: int, end: int) -> str:
        lines = f"L{start}" if start == end else f"L{start}-L{end}"
        return f"{server}/{repository}/blob/{head_sha}/{quote(path)}#{lines}"

    return url


def _failed(message: str) -> int:
    """The check could not run: an error annotation, the reason in the summary, exit 2."""
    print(f"::error title=docs-sync::{_command_data(message)}")
    print(message, file=sys.stderr)
    _append("GITHUB_STEP_SUMMARY", f"## docs-sync could not run\n\n```text\n{message}\n```\n")
    _outputs(conclusion="error", count=0, errors=0, warnings=0, notices=0)
    return 2


def _report(report: Report, fail_on: str | None, head_sha: str, doc_text: DocText) -> int:
    print(FORMATS["github"](report, Options(fail_on)))
    summary = to_markdown(report, fail_on, doc_url=_doc_url(head_sha), doc_text=doc_text, limit=SUMMARY_LIMIT)
    _append("GITHUB_STEP_SUMMARY", summary if summary.endswith("\n") else summary + "\n")
    by = {sev: sum(1 for f in report.findings if f.severity == sev) for sev in ("error", "warning", "notice")}
    conclusion = report.conclusion(fail_on)
    _outputs(
        conclusion=conclusion,
        count=len(report.findings),
        errors=by["error"],
        warnings=by["warning"],
        notices=by["notice"],
    )
    return 1 if conclusion == "failure" else 0


def main() -> int:
    path, base, head = _env("INPUT_PATH", "."), _env("INPUT_BASE"), _env("INPUT_HEAD", "HEAD")
    fail_on = _env("INPUT_FAIL_ON") or None
    rules = _env("INPUT_RULES").split()
    if base and set(base) == {"0"}:
        base = ""  # a push that created the branch: no commit before it, the default branch's merge base
    if fail_on is not None and fail_on not in FAIL_ON:
        return _failed(f"docs-sync: fail-on must be one of {', '.join(FAIL_ON)}, not {fail_on!r}")
    # `--x=value`: a value starting with "-" stays a value. No base: the command line's default,
    # the remote's default branch.
    argv = ["check", f"--repo={path}", f"--head={head}"] + ([f"--base={base}"] if base else [])
    argv += [f"--fail-on={fail_on}"] if fail_on else []
    argv += [f"--rules={rule}" for rule in rules]
    try:
        with GitRepo(path) as repo:
            # A merge base needs history: deepen a shallow checkout (actions/checkout's default).
            repo.deepen()
            head_sha = repo.resolve(head)
        with cli.checked(parse_args(argv)) as (report, doc_text):
            return _report(report, fail_on, head_sha, doc_text)
    except (cli.UsageError, RulesError, GitError) as exc:
        return _failed(f"docs-sync: {exc}")


if __name__ == "__main__":
    sys.exit(main())
