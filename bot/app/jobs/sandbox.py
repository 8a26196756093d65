"""The check of one pull request in a process of its own, within the App's budgets.

The analysis is pure (bot.core.check: rules and two trees in, a report out), but what a pull
request hands it can be large or pathological: Python's parser holds about 55 MB of tree per MB
of source, twice that while it runs, and a file can be made to parse slowly. Run in the worker's
process, one such pull request could take the memory of the process that also answers GitHub's
webhooks, or hold the worker for minutes. So the check runs in a child process (`python -m
bot.app.jobs.sandbox`), which exits after each job and gives its memory back:

    the worker (parent)                          the analysis (child)
    limits (its command line)  --------------->  setrlimit(RLIMIT_AS, RLIMIT_CPU) first
    rules, changes  -------------------------->  check(...)
    file texts, blob ids, listings  <--------->  reads through the trees, asked for one by one
    the history's answers (optional)  <------->  what replaced a token (bot/core/check/history.py)
    extractions by blob id (the facts cache) <->  cache lookups and stores
    the report  <-------------------------------  done

The parent reads the trees (over the GitHub API) and keeps the facts cache; the child never
makes a call, and inherits none of the App's secrets: its environment is PATH, HOME, the
temporary folder and the locale (`CHILD_ENVIRONMENT`), plus the PYTHONPATH that finds `bot`.
Frames are pickles with a length in front, on the child's stdin and stdout.
Starting Python and importing the check takes a few tenths of a second, so each thread that runs
checks keeps one process started ahead, idle until its job's first frame; a process still serves
one job only.

Budgets (config.Budget, set by the DOCS_SYNC_MAX_* settings); one exceeded ends the job's check
run as a failure naming it (`BudgetExceeded.outcome`), never a success:

    rules      rules in the config: counted before anything starts
    source     bytes of files the check reads, each blob counted once: counted as the parent
               hands them over; the child is stopped at the first byte past the budget
    seconds    wall time of the child; past it the child is killed
    memory     the child's address space (RLIMIT_AS): allocation fails past it, and the child
               says so (a file that ran Python's parser out of memory counts, too)
    findings   findings in the report: past it, nothing is posted
"""

from __future__ import annotations

import atexit
import logging
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from bot.app.config import BUDGET_SETTINGS, Budget
from bot.core.facts import ParseCache
from bot.core.model import Change, Report, Tree
from bot.core.rules import Other, Rule, RulesError
from bot.render.comments import CheckOutcome, over_budget

if TYPE_CHECKING:
    from bot.core.check.history import Commit, History, Move

log = logging.getLogger(__name__)

_HEADER = struct.Struct(">Q")
CACHE_ENTRY_LIMIT = 1 << 20  # pickled bytes: a bigger extraction is not kept between jobs
_MEMORY_HEADROOM = 32 << 20  # a peak this close to the limit means the limit was reached


class BudgetExceeded(Exception):
    """A pull request went past one of the budgets; `outcome` is how its check run ends."""

    def __init__(self, budget: str, used: str, limit: str, setting: str):
        super().__init__(f"over the {budget} budget: {used} (limit {limit})")
        self.outcome: CheckOutcome = over_budget(budget, used, limit, setting)


class AnalysisFailed(RuntimeError):
    """The analysis process broke (a bug, or it was killed from outside): the check run says so."""


def over(name: str, used: str, limit: str) -> BudgetExceeded:
    field = {"source": "source_mb", "memory": "memory_mb", "time": "seconds"}.get(name, name)
    return BudgetExceeded(name, used, limit, BUDGET_SETTINGS[field])


class Sandbox:
    """One job's analysis process: the config validated against the trees (`validate`, as many
    times as asked), then the check (`check`), within one set of budgets. BudgetExceeded when
    it goes past one, AnalysisFailed when the child breaks; the process ends with the block.

    `prefetch(paths)`, when given, fetches files of both sides at once: the child names the
    pages it is about to read for their headings, so they come in a few queries, not one each.
    """

    def __init__(
        self,
        base: Tree,
        head: Tree,
        cache: ParseCache | None,
        budget: Budget,
        history: History | None = None,
        prefetch: Callable[[Sequence[str]], object] | None = None,
    ):
        self.budget = budget
        self._child = _Child(_limits(budget))
        self._inputs = _Inputs(base, head, cache, budget, history, prefetch)
        self._session: _Session | None = None

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._session is not None:
            self._child.__exit__()

    def _open(self) -> _Session:
        if self._session is None:
            self._session = _Session(self._child.__enter__(), self._inputs)
        return self._session

    def _rules(self, rules: Sequence[Rule]) -> None:
        if len(rules) > self.budget.rules:
            raise over("rules", _count(len(rules), "rule"), _count(self.budget.rules, "rule"))

    def validate(
        self, rules: Sequence[Rule], renames: Mapping[str, str], *, head_only: bool = False
    ) -> list[RulesError]:
        """`bot.core.validate.unmatched(rules, base, head, renames)` in the child: what the rules
        name that matches nothing. `head_only`: against the head alone (a config the pull
        request edits is judged on what it would meet once merged)."""
        self._rules(rules)
        problems: list[RulesError] = self._open().ask(("validate", list(rules), dict(renames), head_only))
        return problems

    def check(
        self, rules: Sequence[Rule], changes: Sequence[Change], others: Mapping[Other, Tree] | None = None
    ) -> Report:
        """`bot.core.check.check(rules, base, head, changes, cache, history)` in the child. The
        child asks `history` through the parent, as it reads the trees."""
        self._rules(rules)
        session = self._open()
        # The other projects' files go whole with the request: they are few, bounded and read already.
        files = {o: {p: t.read(p) or "" for p in sorted(t.paths())} for o, t in (others or {}).items()}
        report: Report = session.ask(
            ("check", list(rules), list(changes), session.history is not None, files)
        )
        budget = self.budget
        if len(report.findings) > budget.findings:
            raise over(
                "findings", _count(len(report.findings), "finding"), _count(budget.findings, "finding")
            )
        return report


def check(
    rules: Sequence[Rule],
    base: Tree,
    head: Tree,
    changes: Sequence[Change],
    cache: ParseCache | None,
    budget: Budget,
    history: History | None = None,
) -> Report:
    """The check alone in a sandbox of its own (`Sandbox.check`)."""
    with Sandbox(base, head, cache, budget, history) as box:
        return box.check(rules, changes)


# -- the parent's side ---------------------------------------------------------------------------


# What the analysis inherits of the worker's environment: where programs and temporary files
# are, the locale. Not the App's key, its webhook secret or the database URL with its password.
CHILD_ENVIRONMENT = ("PATH", "HOME", "TMPDIR", "TMP", "TEMP", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ")

Limits = tuple[int, float]  # the analysis's address space in bytes, and its seconds


def _limits(budget: Budget) -> Limits:
    return budget.memory_mb << 20, budget.seconds


def child_environment(environ: Mapping[str, str]) -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[2])  # where `bot` is, installed or not
    path = os.pathsep.join(filter(None, [root, environ.get("PYTHONPATH")]))
    return {**{k: environ[k] for k in CHILD_ENVIRONMENT if k in environ}, "PYTHONPATH": path}


def _spawn(limits: Limits) -> subprocess.Popen[bytes]:
    """An analysis process, its limits given on its command line: set before it reads a frame."""
    memory, seconds = limits
    return subprocess.Popen(
        [sys.executable, "-m", "bot.app.jobs.sandbox", str(memory), repr(seconds)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=child_environment(os.environ),
    )


def _reap(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for stream in (proc.stdin, proc.stdout):
        if stream is not None:
            stream.close()


class _Spares:
    """One analysis process started ahead for each thread that runs checks.

    Starting Python and importing the check takes a few tenths of a second; a job takes the
    process started for it during the previous job (it waits, idle, for its first frame) and
    starts the next one's, so no job waits for it. Each process still serves one job only.
    """

    def __init__(self) -> None:
        self._ready: dict[int, tuple[Limits, subprocess.Popen[bytes]]] = {}
        self._lock = threading.Lock()
        atexit.register(self.close)

    def take(self, limits: Limits) -> subprocess.Popen[bytes]:
        me = threading.get_ident()
        with self._lock:
            ready = self._ready.pop(me, None)
        proc = ready[1] if ready is not None and ready[0] == limits else None
        if ready is not None and (proc is None or proc.poll() is not None):
            _reap(ready[1])  # ended, or started under other limits
            proc = None
        if proc is None:
            proc = _spawn(limits)
        spare = _spawn(limits)
        with self._lock:
            self._ready[me] = (limits, spare)
            alive = {t.ident for t in threading.enumerate()}
            gone = [self._ready.pop(t)[1] for t in list(self._ready) if t not in alive]
        for old in gone:  # started for a thread that has ended since
            _reap(old)
        return proc

    def close(self) -> None:
        with self._lock:
            ready, self._ready = [proc for _, proc in self._ready.values()], {}
        for proc in ready:
            _reap(proc)


_SPARES = _Spares()


class _Child:
    """The analysis process of one job, killed on the way out whatever happened."""

    def __init__(self, limits: Limits):
        self.limits = limits

    def __enter__(self) -> subprocess.Popen[bytes]:
        self.proc = _SPARES.take(self.limits)
        return self.proc

    def __exit__(self, *exc: object) -> None:
        _reap(self.proc)


@dataclass(frozen=True)
class _Inputs:
    """What one analysis works on: `Sandbox`'s arguments, handed to its session once it starts."""

    base: Tree
    head: Tree
    cache: ParseCache | None
    budget: Budget
    history: History | None
    prefetch: Callable[[Sequence[str]], object] | None


class _Session:
    """The parent's half of one analysis: answers the child's questions, counts and times it."""

    def __init__(self, proc: subprocess.Popen[bytes], inputs: _Inputs):
        self.proc, self.budget, self.cache, self.history = proc, inputs.budget, inputs.cache, inputs.history
        self.prefetch = inputs.prefetch
        self.trees = {"base": inputs.base, "head": inputs.head}  # and the revisions the history hands out
        self.counted: set[str] = set()  # blobs whose bytes are counted already
        self.read_bytes = 0
        self.buffer = b""
        self.deadline = time.monotonic() + self.budget.seconds  # for all the session's requests

    def ask(self, request: tuple[Any, ...]) -> Any:
        """Send one request and answer the child's questions until it replies."""
        budget = self.budget
        self._send(request)
        while True:
            message = self._receive()
            kind = message[0]
            if kind == "validated":
                return message[1]
            if kind == "done":
                log.info(
                    "analysis: %s, %s read, %.2fs, peak memory %s",
                    _count(len(request[1]), "rule"),
                    _size(self.read_bytes),
                    budget.seconds - (self.deadline - time.monotonic()),
                    _size(message[2] * 1024) if message[2] else "unknown",
                )
                return message[1]
            if kind == "memory":
                raise over(
                    "memory",
                    f"the analysis needed more than {budget.memory_mb:,} MB",
                    f"{budget.memory_mb:,} MB",
                )
            if kind == "error":
                raise AnalysisFailed(f"the analysis failed: {message[1]}")
            started = time.monotonic()
            answer = self._answer(message)
            self.deadline += time.monotonic() - started  # the parent's reads are not the child's time
            if kind not in ("cache_put", "prefetch"):
                self._send(answer)

    def _answer(self, message: tuple[Any, ...]) -> Any:
        kind = message[0]
        if kind == "cache_get":
            hit = self.cache.get(message[1]) if self.cache is not None else None
            return hit
        if kind == "cache_put":
            if self.cache is not None and len(message[2]) <= CACHE_ENTRY_LIMIT:
                self.cache[message[1]] = pickle.loads(message[2])
            return None
        if kind == "history":
            return self._history(message[1], message[2:])
        if kind == "prefetch":
            if self.prefetch is not None:
                self.prefetch(message[1])
            return None
        tree = self.trees[message[1]]
        if kind == "read":
            text = tree.read(message[2])
            if text is not None:
                self._count(tree.blob_id(message[2]) or f"{message[1]}:{message[2]}", text)
            return text
        if kind == "blob_id":
            return tree.blob_id(message[2])
        if kind == "exists":
            return tree.exists(message[2])
        if kind == "paths":
            return tree.paths()
        raise AnalysisFailed(f"the analysis asked for {kind!r}, which it never asks")

    def _history(self, method: str, args: tuple[Any, ...]) -> Any:
        """The history's answer; a refusal from GitHub (not a retryable error) is no answer."""
        from bot.app.github.client import GitHubError

        history = self.history
        if history is None or method not in ("touching", "prefetch", "never", "never_had", "moves", "trees"):
            raise AnalysisFailed(f"the analysis asked the history for {method!r}, which it never asks")
        try:
            if method == "touching":
                return list(history.touching(*args))
            if method == "prefetch":
                history.prefetch(*args)
                return None
            if method == "never":
                return bool(history.never(*args))
            if method == "never_had":
                return sorted(history.never_had(*args))
            if method == "moves":
                return list(history.moves(*args))
            pair = history.trees(args[0])
        except GitHubError as exc:
            log.info("history: %s", exc)
            if method == "never":
                return False
            return [] if method in ("touching", "moves", "never_had") else None
        if pair is None:
            return None
        names = (f"parent:{args[0].id}", f"commit:{args[0].id}")
        self.trees[names[0]], self.trees[names[1]] = pair
        return names

    def _count(self, blob: str, text: str) -> None:
        if blob in self.counted:
            return
        self.counted.add(blob)
        self.read_bytes += len(text.encode("utf-8", "surrogatepass"))
        limit = self.budget.source_bytes
        if self.read_bytes > limit:
            raise over("source", f"more than {_size(self.read_bytes)} of files to read", _size(limit))

    def _send(self, value: object) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(_HEADER.pack(len(data)) + data)
            self.proc.stdin.flush()
        except BrokenPipeError:
            self._died()

    def _receive(self) -> tuple[Any, ...]:
        size = _HEADER.unpack(self._take(_HEADER.size))[0]
        message: tuple[Any, ...] = pickle.loads(self._take(size))
        return message

    def _take(self, n: int) -> bytes:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while len(self.buffer) < n:
            left = self.deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise self._over_time()
            chunk = os.read(fd, max(n - len(self.buffer), 1 << 16))
            if not chunk:
                self._died()
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _died(self) -> None:
        code = self.proc.wait()
        if code == -signal.SIGXCPU:  # the CPU limit, a second line behind the wall clock
            raise over(
                "time", f"the analysis ran past {self.budget.seconds:g} s", f"{self.budget.seconds:g} s"
            )
        if code == _OUT_OF_MEMORY:
            budget = self.budget.memory_mb
            raise over("memory", f"the analysis needed more than {budget:,} MB", f"{budget:,} MB")
        how = f"signal {-code}" if code < 0 else f"status {code}"
        raise AnalysisFailed(f"the analysis process ended with {how} before it finished")

    def _over_time(self) -> BudgetExceeded:
        seconds = f"{self.budget.seconds:g} s"
        return over("time", f"the analysis ran past {seconds}", seconds)

    def _over_memory(self) -> BudgetExceeded:
        memory = f"{self.budget.memory_mb:,} MB"
        return over("memory", f"the analysis needed more than {memory}", memory)


def _size(n: int) -> str:
    return f"{n / (1 << 20):,.1f} MB" if n >= 1 << 20 else f"{n / 1024:,.1f} kB"


def _count(n: int, what: str) -> str:
    return f"{n:,} {what}" if n == 1 else f"{n:,} {what}s"


# -- the child's side ------------------------------------------------------------------------------

_OUT_OF_MEMORY = 3  # the child's exit status when it could not even say so


class _Channel:
    def __init__(self, read: IO[bytes], write: IO[bytes]):
        self.read, self.write = read, write

    def send(self, value: object) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        self.write.write(_HEADER.pack(len(data)) + data)
        self.write.flush()

    def receive(self) -> Any:
        head = self.read.read(_HEADER.size)
        if len(head) < _HEADER.size:
            raise EOFError("the worker went away")
        return pickle.loads(self.read.read(_HEADER.unpack(head)[0]))

    def ask(self, *question: object) -> Any:
        self.send(question)
        return self.receive()


class _RemoteTree:
    """A revision whose files the parent reads; each answer is kept (the check asks again)."""

    def __init__(self, channel: _Channel, side: str):
        self.channel, self.side = channel, side
        self._answers: dict[tuple[str, str], Any] = {}

    def _ask(self, kind: str, path: str = "") -> Any:
        key = (kind, path)
        if key not in self._answers:
            self._answers[key] = self.channel.ask(kind, self.side, path)
        return self._answers[key]

    def read(self, path: str) -> str | None:
        text: str | None = self._ask("read", path)
        return text

    def blob_id(self, path: str) -> str | None:
        blob: str | None = self._ask("blob_id", path)
        return blob

    def exists(self, path: str) -> bool:
        return bool(self._ask("exists", path))

    def paths(self) -> frozenset[str]:
        paths: frozenset[str] = self._ask("paths")
        return paths

    def prefetch(self, paths: Sequence[str]) -> None:
        """A hint: these files are read next (the parent fetches them together)."""
        wanted = [p for p in paths if ("read", p) not in self._answers]
        if wanted:
            self.channel.send(("prefetch", wanted))


class _RemoteHistory:
    """The history (bot.core.check.history.History) the parent reads for the child."""

    def __init__(self, channel: _Channel):
        self.channel = channel

    def touching(self, strings: Sequence[str], paths: Sequence[str]) -> Sequence[Commit]:
        found: list[Commit] = self.channel.ask("history", "touching", list(strings), list(paths))
        return found

    def prefetch(self, questions: Sequence[Sequence[str]], paths: Sequence[str]) -> None:
        self.channel.ask("history", "prefetch", [list(q) for q in questions], list(paths))

    def never(self, strings: Sequence[str], paths: Sequence[str]) -> bool:
        return bool(self.channel.ask("history", "never", list(strings), list(paths)))

    def never_had(self, paths: Sequence[str]) -> frozenset[str]:
        return frozenset(self.channel.ask("history", "never_had", list(paths)))

    def trees(self, commit: Commit) -> tuple[Tree, Tree] | None:
        names = self.channel.ask("history", "trees", commit)
        if names is None:
            return None
        return _RemoteTree(self.channel, names[0]), _RemoteTree(self.channel, names[1])

    def moves(self, path: str) -> Sequence[Move]:
        found: list[Move] = self.channel.ask("history", "moves", path)
        return found


class _RemoteCache(MutableMapping[str, object]):
    """The worker's facts cache, seen from the child: lookups and stores, nothing else."""

    def __init__(self, channel: _Channel):
        self.channel = channel

    def __getitem__(self, key: str) -> object:
        value = self.channel.ask("cache_get", key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: object) -> None:
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        if len(data) <= CACHE_ENTRY_LIMIT:  # the worker would not keep a bigger one
            self.channel.send(("cache_put", key, data))

    def __delitem__(self, key: str) -> None:
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _limit(memory_bytes: int, seconds: float) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    cpu = int(seconds) + 5
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))


def _status_kb(field: str) -> int | None:
    """A size from /proc/self/status, in kB: VmPeak (the most address space held), VmHWM (the
    most memory resident); None where Linux does not say."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def child_main(argv: Sequence[str]) -> int:
    """The analysis process: validations of the config, then one check, asked for on stdin and
    answered on stdout; its limits (address space in bytes, seconds) on its command line, set
    before anything is read."""
    memory_bytes, seconds = int(argv[0]), float(argv[1])
    spare = bytearray(4 << 20)  # given back to say "out of memory" when memory runs out
    _limit(memory_bytes, seconds)
    from bot.core.check import check
    from bot.core.extract import TOO_COMPLEX
    from bot.core.validate import unmatched
    from bot.trees.memory import MemoryTree

    channel = _Channel(sys.stdin.buffer, sys.stdout.buffer)
    sys.stdout = sys.stderr  # a stray print must not land in the frames
    base, head = _RemoteTree(channel, "base"), _RemoteTree(channel, "head")
    try:
        request = channel.receive()
    except EOFError:
        return 0  # started ahead for a job that never came: the worker stopped
    try:
        while request[0] == "validate":  # the config against the trees, before the check
            _, rules, renames, head_only = request
            problems = unmatched(rules, head if head_only else base, head, renames, _RemoteCache(channel))
            channel.send(("validated", problems))
            request = channel.receive()
        _, rules, changes, with_history, files = request
        history = _RemoteHistory(channel) if with_history else None
        others = {o: MemoryTree(texts) for o, texts in files.items()}
        report = check(rules, base, head, changes, _RemoteCache(channel), history=history, others=others)
        peak = _status_kb("VmPeak")
        # A file that ran the parser out of memory is reported by the check as one it could not
        # parse; near the limit, that is the memory budget talking, not the file.
        near_limit = peak is not None and peak * 1024 > memory_bytes - _MEMORY_HEADROOM
        if near_limit and any(f.kind == "parse-error" and TOO_COMPLEX in f.message for f in report.findings):
            raise MemoryError
        channel.send(("done", report, _status_kb("VmHWM")))  # VmHWM: this process's own peak
    except MemoryError:
        del spare
        try:
            channel.send(("memory",))
        except MemoryError:
            return _OUT_OF_MEMORY
    except (EOFError, BrokenPipeError):
        return 1  # the worker stopped waiting (its budget ran out, or it is shutting down)
    except Exception as exc:  # a bug: the traceback to the log, the error to the check run
        traceback.print_exc()
        channel.send(("error", f"{type(exc).__name__}: {exc}"))
    return 0


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1:]))
