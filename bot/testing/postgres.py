"""A throwaway PostgreSQL cluster for tests and the load test: initdb into a temporary directory,
started on a free port, stopped and removed at the end.

The binaries come from the PostgreSQL packages (/usr/lib/postgresql/<version>/bin, or PATH).
initdb refuses to run as root, so as root the cluster runs as the `postgres` user.
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def binaries() -> Path | None:
    """The directory holding initdb and pg_ctl, or None when PostgreSQL is not installed."""
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if os.path.exists(os.path.join(candidate, "initdb")):
            return Path(candidate)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


def skip_unless_available() -> None:
    """Skip the test, saying why, when PostgreSQL or psycopg is missing; under CI
    (DOCS_SYNC_TEST_POSTGRES=required) fail instead, so the PostgreSQL tests never silently vanish."""
    import pytest

    missing = None
    if binaries() is None:
        missing = "PostgreSQL is not installed (no initdb): apt-get install -y postgresql"
    else:
        try:
            import psycopg  # noqa: F401
            import psycopg_pool  # noqa: F401
        except ImportError:
            missing = "psycopg is not installed: pip install -e '.[postgres]'"
    if missing and os.environ.get("DOCS_SYNC_TEST_POSTGRES") == "required":
        pytest.fail(missing)
    if missing:
        pytest.skip(missing)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Cluster:
    def __init__(self) -> None:
        bindir = binaries()
        if bindir is None:
            raise RuntimeError("PostgreSQL is not installed (no initdb): apt-get install -y postgresql")
        self.bindir = bindir
        self.dir = Path(tempfile.mkdtemp(prefix="pgtest-"))
        self.port = _free_port()
        self._user: str | None = None
        self._counter = itertools.count(1)
        if os.geteuid() == 0:
            self._user = "postgres"
            pw = pwd.getpwnam("postgres")
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
        self._run("initdb", "-D", str(self.dir / "data"), "-U", "postgres", "-A", "trust", "--no-sync")
        conf = (
            f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n"
            "fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 300\n"
        )
        with open(self.dir / "data" / "postgresql.conf", "a") as f:
            f.write(conf)
        self._run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "start")

    def _run(self, tool: str, *args: str) -> None:
        command = [str(self.bindir / tool), *args]
        if self._user:
            command = ["runuser", "-u", self._user, "--", *command]
        subprocess.run(command, check=True, capture_output=True, cwd=self.dir)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._counter)}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.dir / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
