"""The container image (Dockerfile, .dockerignore) and compose.yaml, without a Docker daemon.

The structure is read with a small Dockerfile reader; what can run outside Docker runs: the
build's context is cut as .dockerignore cuts it and the build stage's wheel is built from it,
and the image's CMD starts the App that its HEALTHCHECK then asks.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import yaml

from bot.testing.standin import make_app_key

ROOT = Path(__file__).resolve().parents[1]


def instructions(text: str) -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) of a Dockerfile: comments dropped, continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        word, _, args = (pending + line).strip().partition(" ")
        out.append((word.upper(), args.strip()))
        pending = ""
    return out


STEPS = instructions((ROOT / "Dockerfile").read_text())
FINAL = STEPS[max(i for i, (word, _) in enumerate(STEPS) if word == "FROM") :]  # the image's stage


def final(word: str) -> list[str]:
    return [args for w, args in FINAL if w == word]


def exec_form(args: str) -> list[str]:
    value = json.loads(args)
    assert isinstance(value, list), f"not the exec form: {args}"
    return value


def test_the_image_is_slim_python_running_the_app_as_a_user():
    assert all(args.split()[0] == "python:3.12-slim" for w, args in STEPS if w == "FROM")
    (user,) = final("USER")
    assert user not in ("root", "0") and not user.startswith(("root:", "0:"))
    # The user is set before the image's command and after every RUN (which needs root to install).
    words = [w for w, _ in FINAL]
    assert words.index("USER") > max(i for i, w in enumerate(words) if w == "RUN")
    assert exec_form(final("CMD")[0]) == ["docs-sync", "serve", "--host", "0.0.0.0", "--port", "3000"]
    assert final("EXPOSE") == ["3000"]


def test_the_database_lives_on_the_data_volume():
    env = " ".join(final("ENV"))
    db = re.search(r"DOCS_SYNC_DB=(\S+)", env)
    assert db, env
    (volume,) = (exec_form(v) for v in final("VOLUME"))
    assert Path(db.group(1)).parent.as_posix() in volume
    # The user can write there: the folder is created and handed over before VOLUME.
    assert any("chown" in run and "/data" in run for run in final("RUN"))


def test_the_healthcheck_asks_healthz_with_the_standard_library():
    (check,) = final("HEALTHCHECK")
    options, _, command = check.partition("CMD ")
    assert "--interval=" in options and "--timeout=" in options
    argv = exec_form(command)
    assert argv[:2] == ["python", "-c"] and "urllib.request" in argv[2]
    assert "http://127.0.0.1:3000/healthz" in argv[2]


# ------------------------------------------------------------------ the build context


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore rule for these patterns: the last matching one wins, a pattern
    matching a folder covers what is inside, `**/` matches at any depth (the top included)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        options = [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]

        def match(prefix: str, options: list[str] = options) -> bool:
            return any(fnmatch.fnmatchcase(prefix, p) and prefix.count("/") >= p.count("/") for p in options)

        if any(match(prefix) for prefix in prefixes):
            result = not negate
    return result


def context(dest: Path) -> Path:
    """The build context Docker would send: this checkout less what .dockerignore excludes."""
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    listed = subprocess.run(
        ["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")
    for name in listed:
        if name and (ROOT / name).is_file() and not ignored(name, patterns):
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def test_the_context_holds_what_the_build_copies_and_nothing_else(tmp_path: Path):
    ctx = context(tmp_path / "ctx")
    top = {p.name for p in ctx.iterdir()}
    assert top == {"pyproject.toml", "README.md", "bot", "rules"}
    assert not list(ctx.rglob("__pycache__")) and not list(ctx.rglob("test_*.py"))
    for args in (a for w, a in STEPS if w == "COPY" and not a.startswith("--from")):
        for source in args.split()[:-1]:
            assert (ctx / source).exists(), f"COPY {source}: not in the build context"


def test_the_build_stage_makes_a_wheel_with_the_rule_packs(tmp_path: Path):
    """The build stage's RUN, on the context .dockerignore leaves (pip needs the package index for
    the build backend, as in the image)."""
    ctx = context(tmp_path / "ctx")
    build = next(args for w, args in STEPS if w == "RUN" and "pip wheel" in args)
    argv = [sys.executable, "-m", *shlex.split(build.replace("/dist", str(tmp_path / "dist")))]
    proc = subprocess.run(argv, cwd=ctx, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (wheel,) = (tmp_path / "dist").glob("docs_sync-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "bot/packs/miles.yml" in names and "bot/cli.py" in names
    assert not any(name.startswith("tests/") for name in names)


# ------------------------------------------------------------------ the command and its healthcheck


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def healthcheck(port: int) -> subprocess.CompletedProcess:
    (check,) = final("HEALTHCHECK")
    argv = exec_form(check.partition("CMD ")[2])
    argv = [sys.executable, *(arg.replace(":3000/", f":{port}/") for arg in argv[1:])]
    return subprocess.run(argv, capture_output=True, text=True, timeout=30)


def test_the_command_serves_and_the_healthcheck_sees_it(tmp_path: Path):
    assert shutil.which("docs-sync"), "docs-sync is not installed (pip install -e .)"
    port = free_port()
    assert healthcheck(port).returncode != 0  # nothing listens yet: unhealthy
    argv = exec_form(final("CMD")[0])
    argv = [a.replace("0.0.0.0", "127.0.0.1").replace("3000", str(port)) for a in argv]
    env = dict(
        os.environ,
        APP_ID="1",
        PRIVATE_KEY=make_app_key()[0],
        WEBHOOK_SECRET="s",
        DOCS_SYNC_DB=str(tmp_path / "data" / "docs-sync.db"),
        LOG_LEVEL="WARNING",
    )
    (tmp_path / "data").mkdir()
    app = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while (result := healthcheck(port)).returncode != 0:
            assert app.poll() is None, app.stderr.read().decode() if app.stderr else ""
            assert time.monotonic() < deadline, result.stderr
            time.sleep(0.2)
        assert (tmp_path / "data" / "docs-sync.db").exists()
    finally:
        app.terminate()
        app.wait(10)
        if app.stderr:
            app.stderr.close()


# ------------------------------------------------------------------ compose


def test_compose_runs_the_app_with_its_database_on_a_named_volume():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    assert set(compose) == {"services", "volumes"}
    (service,) = compose["services"].values()
    assert service["build"] == "."
    assert any(port.endswith(":3000") for port in service["ports"])
    env = service["environment"]
    volume, target = service["volumes"][0].split(":")
    assert volume in compose["volumes"]  # a named volume, not a host folder
    assert Path(env["DOCS_SYNC_DB"]).parent.as_posix() == target
    # Every setting of the README's Configuration table reaches the App; the required ones stop
    # `docker compose up` with a message when unset.
    readme = (ROOT / "README.md").read_text()
    table = readme.split("### Configuration", 1)[1].split("\n\n", 2)[1]
    # PORT: the host side here; METRICS_PORT: a worker process's own (compose.postgres.yaml).
    names = set(re.findall(r"`([A-Z][A-Z0-9_]+)`", table)) - {"PORT", "METRICS_PORT"}
    assert names == set(env), names ^ set(env)
    for required in ("APP_ID", "WEBHOOK_SECRET"):
        assert env[required].startswith(f"${{{required}:?") and env[required].endswith("}")
