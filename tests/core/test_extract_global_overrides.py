"""A script's settings as its flags, when a configuring file overrides them from its command line."""

from __future__ import annotations

from bot.core.check import audit, check
from bot.core.extract import extract
from bot.core.init import config_for
from bot.core.model import Change
from bot.core.packs import parse_repo_config
from bot.trees.memory import MemoryTree

TRAIN = """\
import os
import torch

out_dir = 'out'
eval_iters = 200
gradient_accumulation_steps = 5 * 8  # computed: a flag, its default not written
learning_rate = 6e-4
min_lr = -1.0
compile = True
dtype = 'bfloat16' if torch.cuda.is_available() else 'float16'
backend: str = 'nccl'
betas = (0.9, 0.95)  # a tuple: no command line gives one
_private = 3
config_keys = [k for k, v in globals().items() if not k.startswith('_')]
exec(open('configurator.py').read())  # overrides from command line or config file
ddp = int(os.environ.get('RANK', -1)) != -1  # after it: no flag
"""

CONFIGURATOR = """\
import sys
from ast import literal_eval

for arg in sys.argv[1:]:
    key, val = arg.split('=')
    globals()[key[2:]] = literal_eval(val)
"""


def flags(text: str, path: str = "train.py") -> dict[str, dict[str, str]]:
    facts = extract(_source(path), path, text).facts
    return {f.token: dict(f.attrs) for f in facts if f.kind == "flag"}


def _source(path: str):
    from bot.core.rules import Source

    return Source(id="cli", kind="argparse", paths=(path,))


def test_the_settings_before_the_configuring_file_runs_are_the_script_s_flags():
    assert flags(TRAIN) == {
        "--out_dir": {"default": "out", "type": "str"},
        "--eval_iters": {"default": "200", "type": "int"},
        "--gradient_accumulation_steps": {},
        "--learning_rate": {"default": "0.0006", "type": "float"},
        "--min_lr": {"default": "-1.0", "type": "float"},
        "--compile": {"default": "True", "type": "bool"},
        "--dtype": {},
        "--backend": {"default": "nccl", "type": "str"},
    }


def test_a_file_run_for_another_reason_makes_no_flags():
    setup = "name = 'pkg'\nversion = '1.0'\nexec(open('pkg/version.py').read())\n"
    assert flags(setup, "setup.py") == {}
    nested = "def main():\n    lr = 1\n    exec(open('configurator.py').read())\n"
    assert flags(nested) == {}


def test_init_couples_the_page_and_a_renamed_setting_is_found_stale():
    page = (
        "# Train\n\n```bash\npython train.py --eval_iters=20 --compile=False --out_dir=out-small\n```\n\n"
        "Set `--learning_rate` lower for small data.\n"
    )
    files = {"train.py": TRAIN, "configurator.py": CONFIGURATOR, "README.md": page}
    tree = MemoryTree(files)
    text = config_for(tree)
    assert text is not None and "train.py" in text
    (pack,) = parse_repo_config(text)
    assert audit(pack.rules, tree).findings == ()
    head = dict(files, **{"train.py": TRAIN.replace("eval_iters = 200", "eval_steps = 200")})
    report = check(pack.rules, tree, MemoryTree(head), [Change("modified", "train.py")])
    assert [(f.kind, f.symbol, f.doc.line) for f in report.findings] == [("renamed", "--eval_iters", 4)]
    # A setting the script does not have is an error there ("Unknown config key"): so it is here.
    typo = dict(files, **{"README.md": page.replace("--out_dir=", "--outdir=")})
    assert [(f.kind, f.symbol) for f in audit(pack.rules, MemoryTree(typo)).findings] == [
        ("unresolved", "--outdir")
    ]
