"""App settings, read from an environment mapping when the app is built (never at import time).

Variables (Probot's names where Probot has one):

    APP_ID            the GitHub App id (integer, required)
    PRIVATE_KEY       the App's PEM private key; literal "\\n" escapes are accepted, as many
                      hosts cannot hold multi-line values
    PRIVATE_KEY_PATH  a file holding the key, used when PRIVATE_KEY is not set
    WEBHOOK_SECRET    the secret GitHub signs deliveries with (required)
    WEBHOOK_PATH      where deliveries are POSTed (default /webhook)
    GITHUB_API_URL    REST root (default https://api.github.com; GitHub Enterprise or a stand-in)
    DOCS_SYNC_DB      the SQLite file holding the job queue and App state (default ./docs-sync.db)
    DATABASE_URL      postgresql://user:password@host:port/db: the queue and App state on
                      PostgreSQL instead, shared by any number of web and worker processes
                      (`pip install 'docs-sync[postgres]'`); DOCS_SYNC_DB is then unused
    DOCS_SYNC_RULES   rule files or built-in pack names, separated by commas or spaces (optional)
    PORT              listening port (default 3000)
    LOG_LEVEL         DEBUG, INFO, WARNING, ERROR or CRITICAL (default INFO)
    DOCS_SYNC_WORKERS jobs run at once, each for another repository (default 4)
    METRICS_PORT      `docs-sync worker` only: serve GET /metrics (and /healthz) on this port, for
                      Prometheus to scrape each worker process (default: no server). A web
                      process serves both on PORT already.

    DOCS_SYNC_COMMANDS_PER_COMMENTER, DOCS_SYNC_COMMANDS_PER_REPOSITORY
                      `/docs-sync` commands answered in 10 minutes per commenter (default 10)
                      and per repository (default 30); past them, one reply says so

    DOCS_SYNC_RECOVER_EVERY_S  seconds between recoveries (bot.app.jobs.recovery: failed deliveries
                      redelivered, open pull requests swept); default 600, 0 turns it off

What one pull request may cost (bot.app.jobs.sandbox); past any of them its check run fails, naming it:

    DOCS_SYNC_MAX_SOURCE_MB   megabytes of files the analysis reads, base and head (default 5)
    DOCS_SYNC_MAX_FINDINGS    findings a check may post (default 500)
    DOCS_SYNC_MAX_RULES       rules in the repository's config (default 200)
    DOCS_SYNC_MAX_SECONDS     seconds of analysis (default 120)
    DOCS_SYNC_MAX_MEMORY_MB   memory of the analysis process, in megabytes (default 1024)

Every problem raises ConfigError with a one-line message that starts with the variable's name,
so a bad deployment says what to fix before it accepts a single delivery. A message never shows
the private key or the webhook secret, nor any value that looks like key material (a key pasted
into the wrong variable): such a value is described by its length.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bot.core.rules import RulePack

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


class ConfigError(ValueError):
    """A missing or malformed setting; the message names the variable, in one line."""

    def __init__(self, message: str):
        super().__init__(" ".join(message.split()))


@dataclass(frozen=True)
class Budget:
    """What the analysis of one pull request may use (see bot.app.jobs.sandbox)."""

    source_mb: float = 5.0  # files read for the check, base and head, each blob counted once
    findings: int = 500  # findings a check posts (annotations, comments, the summary)
    rules: int = 200  # rules in the config that judges the pull request
    seconds: float = 120.0  # wall time of the analysis process
    memory_mb: int = 1024  # address space of the analysis process

    @property
    def source_bytes(self) -> int:
        return int(self.source_mb * 1024 * 1024)


@dataclass(frozen=True)
class CommandLimits:
    """How many `/docs-sync` commands are answered in a window: per commenter (all repositories)
    and per repository (all commenters). A writer's `ignore` and `apply` are not counted."""

    per_commenter: int = 10
    per_repository: int = 30
    window_s: float = 600.0


BUDGET_SETTINGS = {
    "source_mb": "DOCS_SYNC_MAX_SOURCE_MB",
    "findings": "DOCS_SYNC_MAX_FINDINGS",
    "rules": "DOCS_SYNC_MAX_RULES",
    "seconds": "DOCS_SYNC_MAX_SECONDS",
    "memory_mb": "DOCS_SYNC_MAX_MEMORY_MB",
}


@dataclass(frozen=True)
class Settings:
    app_id: int
    private_key: str = field(repr=False)  # secrets stay out of reprs and logs
    webhook_secret: str = field(repr=False)
    webhook_path: str = "/webhook"
    github_api_url: str = "https://api.github.com"
    db_path: str = "./docs-sync.db"
    database_url: str | None = field(default=None, repr=False)  # holds the database password
    rules: tuple[str, ...] = ()  # DOCS_SYNC_RULES as given, split
    rule_packs: tuple[RulePack, ...] = field(default=(), repr=False, compare=False)  # rules, loaded
    port: int = 3000
    log_level: str = "INFO"
    workers: int = 4
    metrics_port: int | None = None  # METRICS_PORT: a worker process's /metrics
    budget: Budget = Budget()
    command_limits: CommandLimits = CommandLimits()
    recover_every_s: float = 600.0  # DOCS_SYNC_RECOVER_EVERY_S; 0: no recovery (bot.app.jobs.recovery)

    @classmethod
    def from_env(cls, environ: Mapping[str, str]) -> Settings:
        rules = _split_list(_get(environ, "DOCS_SYNC_RULES") or "")
        return cls(
            app_id=_app_id(environ),
            private_key=_private_key(environ),
            webhook_secret=_required(environ, "WEBHOOK_SECRET"),
            webhook_path=_webhook_path(environ),
            github_api_url=_api_url(environ),
            db_path=_get(environ, "DOCS_SYNC_DB") or "./docs-sync.db",
            database_url=_database_url(environ),
            rules=rules,
            rule_packs=_load_rules(rules),
            port=_port(environ),
            log_level=_log_level(environ),
            workers=int(_number(environ, "DOCS_SYNC_WORKERS", 4, 1, 64, whole=True)),
            metrics_port=_metrics_port(environ),
            budget=_budget(environ),
            recover_every_s=_number(environ, "DOCS_SYNC_RECOVER_EVERY_S", 600, 0, 86400, whole=False),
            command_limits=CommandLimits(
                per_commenter=int(
                    _number(environ, "DOCS_SYNC_COMMANDS_PER_COMMENTER", 10, 1, 10_000, whole=True)
                ),
                per_repository=int(
                    _number(environ, "DOCS_SYNC_COMMANDS_PER_REPOSITORY", 30, 1, 100_000, whole=True)
                ),
            ),
        )

    @property
    def queue_location(self) -> str:
        """Where the queue lives: DATABASE_URL when set, else the SQLite file."""
        return self.database_url or self.db_path


def _database_url(environ: Mapping[str, str]) -> str | None:
    url = _get(environ, "DATABASE_URL")
    if url is None:
        return None
    scheme = url.partition("://")[0]
    if scheme not in ("postgresql", "postgres"):
        # The URL is never shown: it may carry the database password.
        raise ConfigError(
            f"DATABASE_URL must be a postgresql:// URL (got a {scheme!r} URL); "
            "unset it to keep the queue in the SQLite file DOCS_SYNC_DB"
        )
    return url


def redacted_url(url: str) -> str:
    """`url` with its password replaced by ***, for messages and logs."""
    return re.sub(r"(://[^:/@]*:)[^/]*@", r"\1***@", url)


def _get(environ: Mapping[str, str], name: str) -> str | None:
    """The stripped value, or None when unset or blank (an empty variable means "not set")."""
    value = environ.get(name)
    if value is None or not value.strip():
        return None
    return value.strip()


def _required(environ: Mapping[str, str], name: str) -> str:
    value = _get(environ, name)
    if value is None:
        raise ConfigError(f"{name} is required")
    return value


def shown(value: str) -> str:
    """`value` quoted for an error message, unless it could be a secret put in the wrong place:
    anything long, multi-line or shaped like a PEM is described, never shown."""
    if len(value) > 100 or "\n" in value or "\\n" in value or "-----" in value or "PRIVATE" in value:
        return f"a value of {len(value)} characters (not shown: it may hold a secret)"
    return repr(value)


def _app_id(environ: Mapping[str, str]) -> int:
    raw = _required(environ, "APP_ID")
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"APP_ID must be an integer, got {shown(raw)}") from None
    if value <= 0:
        raise ConfigError(f"APP_ID must be a positive integer, got {shown(raw)}")
    return value


def _private_key(environ: Mapping[str, str]) -> str:
    text = _get(environ, "PRIVATE_KEY")
    name = "PRIVATE_KEY"
    if text is None:
        path = _get(environ, "PRIVATE_KEY_PATH")
        if path is None:
            raise ConfigError("set PRIVATE_KEY or PRIVATE_KEY_PATH")
        name = "PRIVATE_KEY_PATH"
        text = _read_key_file(path)
    # Hosts that cannot store multi-line values get the key with literal "\n" escapes,
    # sometimes wrapped in quotes by a .env file.
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    if "\n" not in text and "\\n" in text:
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    text = text.replace("\r\n", "\n")
    _check_pem(name, text)
    return text + "\n"


def _read_key_file(path: str) -> str:
    if "PRIVATE KEY" in path or "\n" in path or "\\n" in path:
        # The key itself, pasted where its path belongs: say so without repeating it.
        raise ConfigError("PRIVATE_KEY_PATH holds a key, not a file path: put the key in PRIVATE_KEY instead")
    where = shown(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:  # strerror only: the exception's text repeats the path
        raise ConfigError(
            f"PRIVATE_KEY_PATH: cannot read {where}: {exc.strerror or type(exc).__name__}"
        ) from None
    try:
        return data.decode("ascii").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"PRIVATE_KEY_PATH: {where} is not a PEM private key (not ASCII text)") from None


_PEM = re.compile(r"-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\n.+\n-----END \1-----\Z", re.DOTALL)


def _check_pem(name: str, text: str) -> None:
    what = f"{name} is not a PEM private key"
    if not _PEM.match(text):
        raise ConfigError(
            f"{what} (expected -----BEGIN RSA PRIVATE KEY----- ... -----END RSA PRIVATE KEY-----)"
        )
    try:
        from cryptography.hazmat.primitives.serialization import load_pem_private_key
    except ImportError:  # the shape check above is all we can do without cryptography
        return
    try:
        load_pem_private_key(text.encode("ascii"), password=None)
    except TypeError:
        raise ConfigError(f"{what} that can be used: it is encrypted, and GitHub App keys are not") from None
    except (ValueError, UnicodeEncodeError, IndexError):
        # The library's own message is left out: what it quotes is no business of a log.
        raise ConfigError(f"{what} that can be loaded: its body is damaged or cut short") from None


def _webhook_path(environ: Mapping[str, str]) -> str:
    path = _get(environ, "WEBHOOK_PATH") or "/webhook"
    if not path.startswith("/") or any(c.isspace() for c in path):
        raise ConfigError(f"WEBHOOK_PATH must be a path starting with '/', got {shown(path)}")
    return path


def _api_url(environ: Mapping[str, str]) -> str:
    url = _get(environ, "GITHUB_API_URL") or "https://api.github.com"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"GITHUB_API_URL must be an http(s) URL, got {shown(url)}")
    return url.rstrip("/")


def _port(environ: Mapping[str, str]) -> int:
    raw = _get(environ, "PORT") or "3000"
    try:
        port = int(raw)
    except ValueError:
        raise ConfigError(f"PORT must be an integer, got {shown(raw)}") from None
    if not 0 < port < 65536:
        raise ConfigError(f"PORT must be between 1 and 65535, got {shown(raw)}")
    return port


def _metrics_port(environ: Mapping[str, str]) -> int | None:
    if _get(environ, "METRICS_PORT") is None:
        return None
    return int(_number(environ, "METRICS_PORT", 0, 1, 65535, whole=True))


def _log_level(environ: Mapping[str, str]) -> str:
    raw = _get(environ, "LOG_LEVEL") or "INFO"
    level = raw.upper()
    if level not in LOG_LEVELS:
        raise ConfigError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, got {shown(raw)}")
    return level


def _number(
    environ: Mapping[str, str], name: str, default: float, low: float, high: float, *, whole: bool
) -> float:
    raw = _get(environ, name)
    if raw is None:
        return default
    try:
        value = float(int(raw)) if whole else float(raw)
    except ValueError:
        kind = "a whole number" if whole else "a number"
        raise ConfigError(f"{name} must be {kind}, got {shown(raw)}") from None
    if not low <= value <= high:
        raise ConfigError(f"{name} must be between {low:g} and {high:g}, got {shown(raw)}")
    return value


def _budget(environ: Mapping[str, str]) -> Budget:
    d = Budget()
    return Budget(
        source_mb=_number(environ, BUDGET_SETTINGS["source_mb"], d.source_mb, 0.001, 1024, whole=False),
        findings=int(_number(environ, BUDGET_SETTINGS["findings"], d.findings, 1, 100_000, whole=True)),
        rules=int(_number(environ, BUDGET_SETTINGS["rules"], d.rules, 1, 100_000, whole=True)),
        seconds=_number(environ, BUDGET_SETTINGS["seconds"], d.seconds, 1, 3600, whole=False),
        memory_mb=int(
            _number(environ, BUDGET_SETTINGS["memory_mb"], d.memory_mb, 200, 1_048_576, whole=True)
        ),
    )


def _split_list(value: str) -> tuple[str, ...]:
    return tuple(part for part in re.split(r"[,\s]+", value) if part)


def _load_rules(values: tuple[str, ...]) -> tuple[RulePack, ...]:
    if not values:
        return ()
    if any(shown(v) != repr(v) for v in values):
        raise ConfigError("DOCS_SYNC_RULES must name rule files or packs; it holds what may be a secret")
    # Imported here: rules loading pulls in YAML parsing the web process needs only when set.
    from bot.core.packs import resolve_rule_args
    from bot.core.rules import RulesError

    try:
        return tuple(resolve_rule_args(values))
    except (RulesError, OSError) as exc:
        raise ConfigError(f"DOCS_SYNC_RULES: {exc}") from None
