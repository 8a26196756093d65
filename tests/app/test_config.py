import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.app.config import Budget, ConfigError, Settings


@pytest.fixture(scope="module")
def pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    fmt = serialization.PrivateFormat.TraditionalOpenSSL  # "BEGIN RSA PRIVATE KEY", as GitHub issues
    return key.private_bytes(serialization.Encoding.PEM, fmt, serialization.NoEncryption()).decode("ascii")


@pytest.fixture
def env(pem: str) -> dict[str, str]:
    return {"APP_ID": "12345", "PRIVATE_KEY": pem, "WEBHOOK_SECRET": "s3cret"}


def error_for(environ: dict[str, str]) -> str:
    with pytest.raises(ConfigError) as info:
        Settings.from_env(environ)
    return str(info.value)


def test_defaults(env, pem):
    s = Settings.from_env(env)
    assert s.app_id == 12345
    assert s.private_key == pem
    assert s.webhook_secret == "s3cret"
    assert s.webhook_path == "/webhook"
    assert s.github_api_url == "https://api.github.com"
    assert s.db_path == "./docs-sync.db"
    assert s.rules == () and s.rule_packs == ()
    assert s.port == 3000
    assert s.log_level == "INFO"


def test_secrets_stay_out_of_repr(env):
    text = repr(Settings.from_env(env))
    assert "s3cret" not in text and "PRIVATE KEY" not in text and "12345" in text


def test_every_setting_read(env, tmp_path):
    env |= {
        "WEBHOOK_PATH": "/gh/hook",
        "GITHUB_API_URL": "http://127.0.0.1:9999/api/v3/",
        "DOCS_SYNC_DB": str(tmp_path / "q.db"),
        "PORT": "8080",
        "LOG_LEVEL": "debug",
    }
    s = Settings.from_env(env)
    assert (s.webhook_path, s.github_api_url, s.db_path, s.port, s.log_level) == (
        "/gh/hook",
        "http://127.0.0.1:9999/api/v3",
        str(tmp_path / "q.db"),
        8080,
        "DEBUG",
    )


def test_private_key_with_escaped_newlines(env, pem):
    env["PRIVATE_KEY"] = '"' + pem.strip().replace("\n", "\\n") + '"'
    assert Settings.from_env(env).private_key == pem


def test_private_key_from_file(env, pem, tmp_path):
    path = tmp_path / "app.pem"
    path.write_text(pem)
    del env["PRIVATE_KEY"]
    env["PRIVATE_KEY_PATH"] = str(path)
    assert Settings.from_env(env).private_key == pem


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"APP_ID": None}, "APP_ID is required"),
        ({"APP_ID": "abc"}, "APP_ID must be an integer, got 'abc'"),
        ({"APP_ID": "-3"}, "APP_ID must be a positive integer"),
        ({"WEBHOOK_SECRET": None}, "WEBHOOK_SECRET is required"),
        ({"WEBHOOK_SECRET": "   "}, "WEBHOOK_SECRET is required"),
        ({"PRIVATE_KEY": None}, "set PRIVATE_KEY or PRIVATE_KEY_PATH"),
        ({"PRIVATE_KEY": "not a key"}, "PRIVATE_KEY is not a PEM private key"),
        ({"PORT": "http"}, "PORT must be an integer, got 'http'"),
        ({"PORT": "70000"}, "PORT must be between 1 and 65535"),
        ({"LOG_LEVEL": "chatty"}, "LOG_LEVEL must be one of"),
        ({"WEBHOOK_PATH": "webhook"}, "WEBHOOK_PATH must be a path starting with '/'"),
        ({"GITHUB_API_URL": "api.github.com"}, "GITHUB_API_URL must be an http(s) URL"),
    ],
)
def test_errors_name_the_variable(env, change, message):
    for name, value in change.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    assert message in error_for(env)


def test_pem_shape_with_bad_content_is_refused(env):
    env["PRIVATE_KEY"] = "-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----"
    assert error_for(env).startswith("PRIVATE_KEY is not a PEM private key")


def test_unreadable_key_file(env, tmp_path):
    del env["PRIVATE_KEY"]
    env["PRIVATE_KEY_PATH"] = str(tmp_path / "missing.pem")
    assert error_for(env).startswith("PRIVATE_KEY_PATH: cannot read")


def test_key_file_with_garbage(env, tmp_path):
    path = tmp_path / "app.pem"
    path.write_text("hello")
    del env["PRIVATE_KEY"]
    env["PRIVATE_KEY_PATH"] = str(path)
    assert error_for(env).startswith("PRIVATE_KEY_PATH is not a PEM private key")


def test_reading_settings_has_no_side_effects(env, tmp_path):
    env["DOCS_SYNC_DB"] = str(tmp_path / "never-created.db")
    Settings.from_env(env)
    assert not Path(env["DOCS_SYNC_DB"]).exists()


def test_rules_built_in_pack_and_file(env, tmp_path):
    pack = tmp_path / "mine.yml"
    pack.write_text(
        "pack: mine\n"
        "rules:\n"
        "  - id: page\n"
        "    docs: [{path: docs/page.md}]\n"
        "    sources: [{id: syms, kind: symbols, paths: [pkg/mod.py]}]\n"
    )
    env["DOCS_SYNC_RULES"] = f"miles, {pack}"
    s = Settings.from_env(env)
    assert s.rules == ("miles", str(pack))
    assert [p.pack for p in s.rule_packs] == ["miles", "mine"]


@pytest.mark.parametrize("value", ["no-such-pack", "/nowhere/rules.yml"])
def test_bad_rules_name_the_variable(env, value):
    env["DOCS_SYNC_RULES"] = value
    assert error_for(env).startswith("DOCS_SYNC_RULES: ")


def test_broken_rules_file(env, tmp_path):
    pack = tmp_path / "bad.yml"
    pack.write_text("pack: bad\nrules: 7\n")
    env["DOCS_SYNC_RULES"] = str(pack)
    message = error_for(env)
    assert message.startswith("DOCS_SYNC_RULES: ") and "bad.yml" in message


# -- `docs-sync serve` with a bad setting: one line naming the variable, exit 2, no key material


def _key_material(pem: str) -> list[str]:
    """Pieces of the key's body that must never appear in an error, as written or escaped."""
    body = [line for line in pem.strip().splitlines() if not line.startswith("-----")]
    return [line[i : i + 16] for line in body for i in range(0, len(line) - 16, 16)]


def _serve(environ: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in _SETTINGS}
    env |= {"DOCS_SYNC_DB": str(tmp_path / "q.db"), **environ}
    return subprocess.run(
        [sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


_SETTINGS = (
    "APP_ID",
    "PRIVATE_KEY",
    "PRIVATE_KEY_PATH",
    "WEBHOOK_SECRET",
    "WEBHOOK_PATH",
    "GITHUB_API_URL",
    "DOCS_SYNC_DB",
    "DOCS_SYNC_RULES",
    "PORT",
    "LOG_LEVEL",
)


def _bad_settings(pem: str, tmp_path: Path) -> list[tuple[str, dict[str, str | None]]]:
    escaped = pem.strip().replace("\n", "\\n")
    damaged = pem.replace(pem.strip().splitlines()[5], "A" * 64)
    garbage = tmp_path / "garbage.pem"
    garbage.write_text(damaged)
    latin = tmp_path / "latin.pem"
    latin.write_bytes(b"\xff" + pem.encode())
    return [
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": pem}),  # the key, not a path
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": escaped}),
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": str(tmp_path / "none.pem")}),
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": str(garbage)}),
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": str(latin)}),
        ("PRIVATE_KEY_PATH", {"PRIVATE_KEY": None, "PRIVATE_KEY_PATH": str(tmp_path)}),  # a folder
        ("PRIVATE_KEY", {"PRIVATE_KEY": damaged}),
        ("PRIVATE_KEY", {"PRIVATE_KEY": pem[: len(pem) // 2]}),  # cut short
        ("PRIVATE_KEY", {"PRIVATE_KEY": pem.replace("RSA PRIVATE", "EC PRIVATE")}),
        ("PRIVATE_KEY", {"PRIVATE_KEY": None}),
        ("APP_ID", {"APP_ID": pem}),  # pasted into the wrong variable
        ("APP_ID", {"APP_ID": escaped}),
        ("APP_ID", {"APP_ID": None}),
        ("WEBHOOK_SECRET", {"WEBHOOK_SECRET": None}),
        ("WEBHOOK_PATH", {"WEBHOOK_PATH": escaped}),
        ("GITHUB_API_URL", {"GITHUB_API_URL": escaped}),
        ("PORT", {"PORT": "http"}),
        ("PORT", {"PORT": escaped}),
        ("LOG_LEVEL", {"LOG_LEVEL": escaped}),
        ("DOCS_SYNC_RULES", {"DOCS_SYNC_RULES": "no-such-pack"}),
        ("DOCS_SYNC_DB", {"DOCS_SYNC_DB": str(tmp_path / "no" / "such" / "dir" / "q.db")}),
        ("DOCS_SYNC_WORKERS", {"DOCS_SYNC_WORKERS": "many"}),
        ("DOCS_SYNC_MAX_MEMORY_MB", {"DOCS_SYNC_MAX_MEMORY_MB": escaped}),
    ]


def test_serve_refuses_each_bad_setting_in_one_line_without_the_key(pem, tmp_path):
    base = {"APP_ID": "12345", "PRIVATE_KEY": pem, "WEBHOOK_SECRET": "s3cret-of-the-hook"}
    secrets = [*_key_material(pem), "s3cret-of-the-hook"]
    for variable, change in _bad_settings(pem, tmp_path):
        environ = {k: v for k, v in {**base, **change}.items() if v is not None}
        proc = _serve(environ, tmp_path)
        shown = f"{variable} {sorted(change)}: {proc.returncode} {proc.stderr!r}"
        assert proc.returncode == 2, shown
        lines = proc.stderr.strip().splitlines()
        assert len(lines) == 1 and variable in lines[0], shown
        assert "Traceback" not in proc.stderr and proc.stdout == "", shown
        leaked = [s for s in secrets if s in proc.stderr or s in proc.stderr.replace("\\n", "")]
        assert not leaked, shown


def test_a_key_file_with_escaped_newlines_is_accepted(env, pem, tmp_path):
    path = tmp_path / "app.pem"
    path.write_text(pem.strip().replace("\n", "\\n") + "\n")
    del env["PRIVATE_KEY"]
    env["PRIVATE_KEY_PATH"] = str(path)
    assert Settings.from_env(env).private_key == pem


def test_serve_starts_with_a_key_pasted_with_escaped_newlines(pem, tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {k: v for k, v in os.environ.items() if k not in _SETTINGS}
    env |= {
        "APP_ID": "12345",
        "PRIVATE_KEY": pem.strip().replace("\n", "\\n"),
        "WEBHOOK_SECRET": "s3cret",
        "DOCS_SYNC_DB": str(tmp_path / "q.db"),
        "PORT": str(port),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "bot.cli", "serve", "--host", "127.0.0.1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
                time.sleep(0.1)
        assert answer.status_code == 200
    finally:
        proc.terminate()
        proc.wait(30)
        proc.stderr.close()


def test_budgets_and_workers(env):
    s = Settings.from_env(env)
    assert (s.workers, s.budget) == (4, Budget())
    env |= {
        "DOCS_SYNC_WORKERS": "2",
        "DOCS_SYNC_MAX_SOURCE_MB": "0.5",
        "DOCS_SYNC_MAX_FINDINGS": "50",
        "DOCS_SYNC_MAX_RULES": "10",
        "DOCS_SYNC_MAX_SECONDS": "30",
        "DOCS_SYNC_MAX_MEMORY_MB": "512",
    }
    s = Settings.from_env(env)
    assert s.workers == 2
    assert s.budget == Budget(source_mb=0.5, findings=50, rules=10, seconds=30, memory_mb=512)
    assert s.budget.source_bytes == 512 * 1024


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("DOCS_SYNC_WORKERS", "0", "DOCS_SYNC_WORKERS must be between 1 and 64, got '0'"),
        ("DOCS_SYNC_WORKERS", "two", "DOCS_SYNC_WORKERS must be a whole number, got 'two'"),
        ("DOCS_SYNC_MAX_FINDINGS", "1.5", "DOCS_SYNC_MAX_FINDINGS must be a whole number, got '1.5'"),
        ("DOCS_SYNC_MAX_SOURCE_MB", "lots", "DOCS_SYNC_MAX_SOURCE_MB must be a number, got 'lots'"),
        ("DOCS_SYNC_MAX_MEMORY_MB", "100", "DOCS_SYNC_MAX_MEMORY_MB must be between 200 and"),
        ("DOCS_SYNC_MAX_SECONDS", "0", "DOCS_SYNC_MAX_SECONDS must be between 1 and 3600"),
    ],
)
def test_bad_budgets_name_the_variable(env, name, value, message):
    env[name] = value
    assert error_for(env).startswith(message)


def test_database_url_selects_postgresql_and_stays_out_of_repr(env):
    s = Settings.from_env({**env, "DATABASE_URL": "postgresql://app:s3cret-pw@db:5432/docs"})
    assert s.queue_location == "postgresql://app:s3cret-pw@db:5432/docs"
    assert "s3cret-pw" not in repr(s)
    assert Settings.from_env(env).queue_location == "./docs-sync.db"  # unset: the SQLite file


def test_database_url_of_another_kind_is_refused_without_showing_it(env):
    with pytest.raises(ConfigError) as info:
        Settings.from_env({**env, "DATABASE_URL": "mysql://app:s3cret-pw@db/docs"})
    assert str(info.value).startswith("DATABASE_URL must be a postgresql:// URL")
    assert "s3cret-pw" not in str(info.value)


def test_redacted_url_hides_the_password_only():
    from bot.app.config import redacted_url

    assert redacted_url("postgresql://app:p@ss:w0rd@db:5432/docs") == "postgresql://app:***@db:5432/docs"
    assert redacted_url("postgresql://db/docs") == "postgresql://db/docs"


def test_the_multi_process_compose_file_runs_two_webs_three_workers_on_postgres():
    import yaml

    root = Path(__file__).resolve().parents[2]
    compose = yaml.safe_load((root / "compose.postgres.yaml").read_text())
    services = compose["services"]
    web, worker = services["web"], services["worker"]
    assert (web["deploy"]["replicas"], worker["deploy"]["replicas"]) == (2, 3)
    assert web["command"][:3] == ["docs-sync", "serve", "--no-worker"] and worker["command"] == [
        "docs-sync",
        "worker",
    ]
    url = web["environment"]["DATABASE_URL"]
    assert (
        url.startswith("postgresql://")
        and "@postgres:5432/" in url
        and worker["environment"] == web["environment"]
    )
    assert services["postgres"]["image"].startswith("postgres:")
    # The same settings as the one-process compose.yaml, with PostgreSQL instead of the SQLite file.
    single = yaml.safe_load((root / "compose.yaml").read_text())["services"]["docs-sync"]["environment"]
    # METRICS_PORT: a worker process's /metrics (one process serves them on PORT).
    assert set(web["environment"]) == set(single) - {"DOCS_SYNC_DB"} | {"METRICS_PORT"}
    assert "METRICS_PORT" in " ".join(worker["healthcheck"]["test"])


def test_metrics_port_is_a_worker_process_port_or_unset(env):
    assert Settings.from_env(env).metrics_port is None
    assert Settings.from_env({**env, "METRICS_PORT": "9100"}).metrics_port == 9100
    for bad in ("0", "70000", "ninety"):
        with pytest.raises(ConfigError) as info:
            Settings.from_env({**env, "METRICS_PORT": bad})
        assert str(info.value).startswith("METRICS_PORT must be")
