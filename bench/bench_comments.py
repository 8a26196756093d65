"""What reading a dataclass's field comments with libcst costs, next to `ast.parse` of the same file.

Facts come from `ast`, which drops comments. A new dataclass-built flag's suggested row takes
its description from the field's comments, so `bot.core.extract.field_comments` parses that one
file with libcst, only when a suggestion needs it. This prints what that read costs against
`ast.parse` (the fast path's parse) on two files of radixark/miles:

  - miles/backends/fsdp_utils/arguments.py, the FSDPArgs dataclass (the file actually read), and
  - miles/utils/arguments.py, a large argparse module (about 3,700 lines; no dataclass of the
    name, so its row is the parse alone: what a large file would cost).

Rows, per file, median and fastest of N repetitions (wall clock, in-process):

  ast.parse                          the stdlib parse
  libcst parse_module                the concrete syntax tree alone
  field_comments (parse + walk)      what a suggestion pays: the parse and the walk of the class
  first import of libcst             once per process (in a fresh interpreter)

and the ratio of each to `ast.parse`. Asserts nothing about time.

    python bench/bench_comments.py --miles PATH [--rev REV] [--reps N]

PATH is a checkout or a bare mirror of radixark/miles (read with `git show REV:path`, nothing
is checked out); REV defaults to HEAD.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import subprocess
import sys
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench_check import timed  # noqa: E402  (this folder is on the path of a script run from it)

FILES = (
    ("miles/backends/fsdp_utils/arguments.py", "FSDPArgs"),
    ("miles/utils/arguments.py", "FSDPArgs"),
)


def import_cost(reps: int) -> list[float]:
    """`import libcst` in a fresh interpreter, minus the interpreter's own start."""
    code = "import time,warnings;warnings.simplefilter('ignore');t=time.perf_counter();import libcst;"
    code += "print(time.perf_counter()-t)"
    out = []
    for _ in range(reps):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        out.append(float(done.stdout))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--miles", required=True, help="a checkout or bare mirror of radixark/miles")
    parser.add_argument("--rev", default="HEAD")
    parser.add_argument("--reps", type=int, default=7)
    args = parser.parse_args(argv)

    import libcst

    from bot.core.extract.field_comments import field_comments

    print(f"libcst {metadata.version('libcst')}, Python {sys.version.split()[0]}, {args.reps} reps")
    print(f"{'file / row':58} {'median':>10} {'fastest':>10} {'x ast':>7}")
    for path, cls in FILES:
        shown = subprocess.run(
            ["git", "-C", args.miles, "show", f"{args.rev}:{path}"], capture_output=True, text=True
        )
        if shown.returncode != 0:
            print(f"{path}: not at {args.rev}: {shown.stderr.strip()}", file=sys.stderr)
            return 2
        text = shown.stdout
        found = field_comments(text, cls)
        described = sum(1 for c in (found or {}).values() if c.description())
        note = f"{len(found)} fields, {described} described" if found is not None else f"no class {cls}"
        print(f"{path} ({text.count(chr(10))} lines; {note})")
        rows = [
            ("ast.parse", timed(lambda text=text: ast.parse(text), args.reps)),
            ("libcst parse_module", timed(lambda text=text: libcst.parse_module(text), args.reps)),
            (
                "field_comments (parse + walk)",
                timed(lambda text=text, cls=cls: field_comments(text, cls), args.reps),
            ),
        ]
        base = statistics.median(rows[0][1])
        for name, times in rows:
            median = statistics.median(times)
            print(f"  {name:56} {median * 1e3:8.2f}ms {min(times) * 1e3:8.2f}ms {median / base:6.1f}x")
    times = import_cost(min(args.reps, 5))
    print(f"{'first import of libcst (fresh interpreter)':58} {statistics.median(times) * 1e3:8.2f}ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
