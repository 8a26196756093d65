"""Cited repository paths: moved or deleted by the change, or missing at head."""

from __future__ import annotations

from bot.core.check import check, paths
from bot.core.check.findings import Findings
from bot.core.check.touched import Touched
from bot.core.model import Change, Finding
from bot.core.rules import Rule
from bot.trees.memory import MemoryTree
from tests.core.check.checkkit import CLI, DOC, cli, flags_source, kinds, paths_source, prepare, rule

RULE = rule(flags_source(), paths_source())


def moved_or_deleted(
    page: str, base: dict[str, str], head: dict[str, str], changes: list[Change], rule_: Rule = RULE
) -> list[Finding]:
    inputs = prepare(rule_, dict(base, **{DOC: page}), dict(head, **{DOC: page}), changes)
    out = Findings(rule_)
    for p in inputs.pages:
        paths.moved_or_deleted(inputs, p, out)
    return out.finish()


def unresolved(page: str, files: dict[str, str], rule_: Rule = RULE) -> list[Finding]:
    """doc -> code for every path on a new page."""
    inputs = prepare(rule_, {}, dict(files, **{DOC: page}))
    out = Findings(rule_)
    for p in inputs.pages:
        for ref in p.new_refs:
            if ref.kind == "path":
                paths.unresolved(inputs, p.doc, ref, out)
    return out.finish()


def test_a_moved_file_the_page_cites_suggests_its_new_path():
    page = "The flags live in `tool/cli.py`.\n"
    [f] = moved_or_deleted(
        page, {CLI: "x = 1\n"}, {"tool/args.py": "x = 1\n"}, [Change("renamed", "tool/args.py", CLI)]
    )
    assert (f.kind, f.symbol) == ("renamed", CLI)
    assert f.suggestion.replacement == "The flags live in `tool/args.py`."
    assert (f.code.path, f.code.line) == ("tool/args.py", 1)


def test_a_folder_whose_files_all_moved_to_one_folder_suggests_it():
    page = "See `tool/` for the code.\n"
    base = {"tool/a.py": "", "tool/sub/b.py": ""}
    head = {"pkg/tool/a.py": "", "pkg/tool/sub/b.py": ""}
    changes = [Change("renamed", "pkg/" + p, p) for p in base]
    [f] = moved_or_deleted(page, base, head, changes)
    assert f.suggestion.replacement == "See `pkg/tool/` for the code."
    # Files scattered over two folders give no one place to suggest, and the folder is not deleted.
    scattered = [
        Change("renamed", "pkg/a.py", "tool/a.py"),
        Change("renamed", "lib/sub/b.py", "tool/sub/b.py"),
    ]
    assert moved_or_deleted(page, base, {"pkg/a.py": "", "lib/sub/b.py": ""}, scattered) == []


def test_moved_folder_is_none_while_the_folder_still_exists_at_head():
    touched = Touched.of([Change("renamed", "pkg/a.py", "tool/a.py")])
    assert paths.moved_folder("tool", touched, MemoryTree({"pkg/a.py": ""})) == "pkg"
    assert paths.moved_folder("tool", touched, MemoryTree({"pkg/a.py": "", "tool/b.py": ""})) is None


def test_a_deleted_file_or_folder_the_page_cites_is_removed():
    page = "Convert with `tools/convert.py`; helpers in `tools/`.\n"
    base = {"tools/convert.py": ""}
    found = moved_or_deleted(page, base, {}, [Change("removed", "tools/convert.py")])
    assert kinds(found) == [("removed", "tools/"), ("removed", "tools/convert.py")]
    assert found[0].message == "`tools/` was deleted by this change; the doc still cites it"


def test_a_deleted_file_the_reader_is_told_to_add_is_still_theirs_to_add():
    # The release workflow deletes the contributor's RELEASE.md once it is read: the page asking
    # for a new one is right.
    page = "Add a ``RELEASE.md`` file in the root of the project with the release type.\n"
    assert moved_or_deleted(page, {"RELEASE.md": ""}, {}, [Change("removed", "RELEASE.md")]) == []
    cited = "The release type is read from ``RELEASE.md`` in the root.\n"
    found = moved_or_deleted(cited, {"RELEASE.md": ""}, {}, [Change("removed", "RELEASE.md")])
    assert kinds(found) == [("removed", "RELEASE.md")]


def test_the_files_of_a_drawn_tree_under_a_placeholder_are_the_readers_project():
    page = (
        "# Layout\n\nA plugin must be installable (contain `setup.py` or equivalent):\n\n"
        "```\nmyplugin\n├── pkg\n│   └── __init__.py\n└── setup.py\n```\n\n"
        "# Install\n\n```\npython setup.py install\n```\n"
    )
    base = {"setup.py": "", "pkg/__init__.py": ""}
    found = moved_or_deleted(page, base, {"pkg/__init__.py": ""}, [Change("removed", "setup.py")])
    # the repository's own setup.py, run in another section, is gone
    assert [(f.kind, f.symbol, f.doc.line) for f in found] == [("removed", "setup.py", 15)]
    # a drawing of the repository's own tree is the repository's
    own = "# Layout\n\n```\nrepo\n├── pkg\n└── setup.py\n```\n"
    found = moved_or_deleted(own, base, {"pkg/__init__.py": ""}, [Change("removed", "setup.py")])
    assert kinds(found) == [("removed", "setup.py")]


GITMODULES = '[submodule "recipes"]\n\tpath = recipes\n\turl = https://example.com/org/recipes.git\n'


def test_a_folder_that_became_a_submodule_is_another_repository_s_not_a_deleted_one():
    page = "Run `recipes/dapo/run.sh`.\n"
    base = {"recipes/dapo/run.sh": ""}
    gone = [Change("removed", "recipes/dapo/run.sh"), Change("added", ".gitmodules")]
    assert moved_or_deleted(page, base, {".gitmodules": GITMODULES}, gone) == []
    assert kinds(moved_or_deleted(page, base, {}, gone[:1])) == [("removed", "recipes/dapo/run.sh")]
    # A new line citing one of its files is not judged either; a path of ours still is.
    assert unresolved("See `recipes/gkd/train.sh`.\n", {".gitmodules": GITMODULES}) == []
    ours = {".gitmodules": GITMODULES, "tool/train.py": ""}
    assert kinds(unresolved("See `tool/tarin.py`.\n", ours)) == [("unresolved", "tool/tarin.py")]


def test_paths_are_left_alone_without_a_paths_source_or_when_external():
    page = "The flags live in `tool/cli.py`.\n"
    changes = [Change("removed", CLI)]
    assert moved_or_deleted(page, {CLI: cli()}, {}, changes, rule(flags_source())) == []
    external = rule(flags_source(), paths_source(), external=("tool/*",))
    assert moved_or_deleted(page, {CLI: cli()}, {}, changes, external) == []


def test_a_missing_path_suggests_the_file_of_the_same_name_or_a_close_path():
    files = {"tool/args/cli.py": "", "docs/setup.md": ""}
    [same_name] = unresolved("See `tool/cli.py`.\n", files)
    assert (same_name.kind, same_name.symbol) == ("unresolved", "tool/cli.py")
    assert same_name.message == "`tool/cli.py` does not exist at head; did you mean `tool/args/cli.py`?"
    assert same_name.suggestion.replacement == "See `tool/args/cli.py`."
    [close] = unresolved("See `docs/setpu.md`.\n", files)
    assert close.suggestion.replacement == "See `docs/setup.md`."
    [far] = unresolved("See `tool/thing.txt`.\n", files)
    assert far.suggestion is None
    # A name many files have says nothing of which one the page meant.
    packages = {"src/tool/__init__.py": "", "src/tool/plugin/__init__.py": "", "src/other/__init__.py": ""}
    [generic] = unresolved("In `src/extras/hooks/__init__.py`, define hooks.\n", packages)
    assert generic.suggestion is None


def test_a_missing_folder_is_not_offered_a_sibling_whose_name_is_another_word():
    files = {"src/pkg/utils/io.py": "", "src/pkg/models/net.py": ""}
    [missing] = unresolved("The registry lives under `src/pkg/tools/`.\n", files)
    assert missing.message == "`src/pkg/tools/` does not exist at head"
    assert missing.suggestion is None
    assert unresolved("The registry under `src/pkg/tools/` is not part of this release.\n", files) == []
    [typo] = unresolved("See `src/pkg/modles/`.\n", files)
    assert typo.suggestion.replacement == "See `src/pkg/models/`."


def test_a_missing_file_is_offered_a_close_name_only_when_it_could_be_that_name_misspelt():
    files = {"scripts/data/sft/prepare_all.sh": "", "open_instruct/dpo_tune_cache.py": ""}
    # open-instruct: the eval-data script was deleted; the one left prepares other data.
    [other] = unresolved("Run `scripts/data/sft/prepare_eval_data.sh` first.\n", files)
    assert other.suggestion is None
    [longer] = unresolved("Run `open_instruct/dpo_tune.py`.\n", files)  # a word more: that file
    assert longer.suggestion.replacement == "Run `open_instruct/dpo_tune_cache.py`."


def test_a_module_that_became_a_package_is_offered_no_other_module_of_its_name():
    files = {
        "pkg/srt/utils/__init__.py": "",
        "pkg/srt/utils/common.py": "def load_image(): ...\n",
        "pkg/srt/lora/utils.py": "",
    }
    [f] = unresolved("See also `pkg/srt/utils.py:load_image`.\n", files)
    assert f.message == "`pkg/srt/utils.py` does not exist at head" and f.suggestion is None
    # A module of that name that is no package now is still offered its one namesake.
    [moved] = unresolved("See also `pkg/srt/helpers/utils.py`.\n", {"pkg/srt/lora/utils.py": ""})
    assert moved.suggestion.replacement == "See also `pkg/srt/lora/utils.py`."


def test_a_file_beside_a_folder_still_there_is_offered_its_namesake_only_in_an_alike_folder():
    files = {
        "gw/src/protocols/chat.rs": "",
        "gw/src/protocols/classify.rs": "",
        "gw/src/wasm/spec.rs": "",
        "examples/scripts/agent.py": "",
        "pkg/scripts/train.py": "",
        "pkg/tools/eval/run.py": "",
    }
    # The spec was split into the protocols/ modules: the WASM module's spec is another file.
    [split] = unresolved("Request models live in `gw/src/protocols/spec.rs`.\n", files)
    assert split.message == "`gw/src/protocols/spec.rs` does not exist at head" and split.suggestion is None
    # A script moved to a folder of the same name elsewhere, or below its own, is still offered.
    [moved] = unresolved("Run `pkg/scripts/agent.py`.\n", files)
    assert moved.suggestion.replacement == "Run `examples/scripts/agent.py`."
    [below] = unresolved("Run `pkg/tools/run.py`.\n", files)
    assert below.suggestion.replacement == "Run `pkg/tools/eval/run.py`."


def test_a_root_file_named_from_the_folder_of_the_clone_is_the_repository_s():
    # lmdeploy's FAQ: "set `PYTHON_EXECUTABLE` in `lmdeploy/generate.sh`", the root's
    # generate.sh, where the package folder lmdeploy/ has none.
    files = {
        "pyproject.toml": '[project]\nname = "tool"\nversion = "1"\n',
        "generate.sh": "cmake ..\n",
        "tool/__init__.py": "",
    }
    assert unresolved("Set it in `tool/generate.sh`.\n", files) == []
    # setup.py's name is the project's too.
    setup = {"setup.py": "setup(\n    name='tool',\n)\n", "generate.sh": "", "tool/__init__.py": ""}
    assert unresolved("Set it in `tool/generate.sh`.\n", setup) == []
    # A file the root lacks too, or a first folder of another name, is still missing.
    [gone] = unresolved("Set it in `tool/build.sh`.\n", files)
    assert gone.symbol == "tool/build.sh"
    [other] = unresolved("Set it in `docs/generate.sh`.\n", {**files, "docs/index.md": ""})
    assert other.symbol == "docs/generate.sh"


def test_a_path_the_change_deletes_on_a_line_it_also_writes_is_reported_once():
    # lmdeploy #4468: the parsers moved out of `lmdeploy/serve/openai/reasoning_parser/`, and the
    # page's line was rewritten in the same commit, still citing the old folder.
    base = {
        CLI: "x = 1\n",
        "tool/parsers/a.py": "",
        "tool/parsers/b.py": "",
        DOC: "Parsers go in `tool/parsers/`.\n",
    }
    head = {CLI: "x = 1\n", "tool/other/c.py": "", DOC: "Add a parser under `tool/parsers/`.\n"}
    changes = [
        Change("removed", "tool/parsers/a.py"),
        Change("removed", "tool/parsers/b.py"),
        Change("added", "tool/other/c.py"),
        Change("modified", DOC),
    ]
    report = check([RULE], MemoryTree(base), MemoryTree(head), changes)
    assert [(f.kind, f.symbol, f.doc.line) for f in report.findings] == [("removed", "tool/parsers/", 1)]


def test_a_path_the_reader_is_told_to_create_is_theirs():
    files = {"changelog.d/.gitignore": "", "docs/setup.md": ""}
    told = (
        "For issue 1234 you would create ``changelog.d/1234.bugfix.md`` and ``changelog.d/1234.doc.md``.\n"
        "Create a file named `conf/local.yaml` with your settings.\n\n"
        "For a fix, you would create a file\n``changelog.d/1235.bugfix.md``. An example of\n"
        "``changelog.d/####.bugfix.md`` is below. In `src/tox_myplugin/__init__.py` or\n"
        "`src/mymodule.py`, define your hooks.\n"
    )
    assert unresolved(told, files) == []
    [missing] = unresolved("The fragments live in `changelog.d/1234.bugfix.md`.\n", files)
    assert missing.symbol == "changelog.d/1234.bugfix.md"


def test_where_the_reader_is_told_to_put_what_they_fetch_and_what_goes_under_it_are_theirs():
    files = {"playground/data/prompts/a.txt": "", "configs/base.yaml": ""}
    # LLaVA's evaluation page: a folder the reader extracts an archive to, then fills.
    told = (
        "Download eval.zip first. Extract to `./playground/data/eval`.\n\n"
        "1. Download [`test2015`](http://images.cocodataset.org/zips/test2015.zip) and put it under\n"
        "   `./playground/data/eval/vqav2`.\n"
        "2. Submit the results: `./playground/data/eval/vqav2/answers_upload`.\n"
        "3. Unzip the images into the folder `images/coco`, then save the checkpoint to `ckpt/`.\n"
    )
    assert unresolved(told, files) == []
    # Where a verb names the source, or nothing says the reader makes it, the path is judged.
    judged = (
        "Copy the config in `configs/local.yaml`, then edit `playground/data/eval/x.json`.\n"
        "Save your changes in `configs/mine.yaml`.\n"
    )
    assert [f.symbol for f in unresolved(judged, files)] == [
        "configs/local.yaml",
        "playground/data/eval/x.json",
        "configs/mine.yaml",
    ]


def test_a_name_the_page_links_on_another_site_is_that_site_s_not_a_missing_path():
    files = {"xtuner/__init__.py": ""}  # the package's folder, which model ids start with too
    page = (
        "- LLaVA format model (`xtuner/llava-phi-3-mini-hf`): [HuggingFace](https://huggingface.co/xtuner/llava-phi-3-mini-hf)\n"
        "- The weights of ``xtuner/llava-internlm2-7b`` are [here](https://modelscope.cn/models/xtuner/llava-internlm2-7b/files).\n"
    )
    assert unresolved(page, files) == []
    # A GitHub address names the repository's own files: a missing one is still missing.
    page = "See `xtuner/tools/old.py` ([source](https://github.com/InternLM/xtuner/blob/main/xtuner/tools/old.py)).\n"
    assert [f.symbol for f in unresolved(page, files)] == ["xtuner/tools/old.py"]


def test_a_path_a_command_writes_its_results_to_is_the_runs_output():
    files = {"judge/gen_judgment.py": "", "judge/data/question.jsonl": ""}
    told = (
        "```\npython judge/gen_judgment.py --parallel 2\n```\n"
        "The judgments will be saved to `judge/data/model_judgment/gpt-4_single.jsonl`\n\n"
        "Its plots are written to `judge/plots/` and the scores are\nsaved in `judge/scores.csv`.\n"
    )
    assert unresolved(told, files) == []
    # a file the repository keeps is judged: it "is stored in" one of its own paths
    [kept] = unresolved("The questions are stored in `judge/data/questions.jsonl`.\n", files)
    assert kept.symbol == "judge/data/questions.jsonl"
    [lives] = unresolved("Answers load from `judge/data/answers.jsonl`.\n", files)
    assert lives.symbol == "judge/data/answers.jsonl"


def test_a_path_a_flag_of_the_rule_defaults_to_is_where_the_program_reads_not_a_missing_file():
    server = cli('"--model_config", "-m", default="./available_models/conf.json"', '"--port", default="x"')
    files = {CLI: server, "available_models/example.conf.json": ""}
    page = "A server configuration file (`./available_models/conf.json`) is required.\n"
    assert unresolved(page, files) == []
    # no flag defaults to it: a missing file of the repository's
    other = {CLI: cli('"--model_config", default="conf.json"'), "available_models/example.conf.json": ""}
    assert kinds(unresolved(page, other)) == [("unresolved", "./available_models/conf.json")]


def test_a_folder_inside_a_place_the_code_computes_or_the_home_holds_is_not_the_repositorys():
    files = {"scrapy/__init__.py": ""}
    page = (
        "The directory for job files. When unset, a ``scrapy/jobfiles`` subdirectory in\n"
        ":func:`platformdirs.user_state_dir` is used; models go to a `scrapy/models/` folder\n"
        "under `$XDG_CACHE_HOME`.\n"
    )
    assert unresolved(page, files) == []
    # a subdirectory of a folder of the repository is a path of the repository
    [missing] = unresolved("Job files live in a `scrapy/jobfiles` subdirectory of `scrapy/`.\n", files)
    assert missing.symbol == "scrapy/jobfiles"


def test_a_file_the_reader_adds_to_their_own_repository_is_theirs():
    files = {".github/workflows/ci.yml": ""}
    page = (
        "2. Commit a ``.github/workflows/site.yml`` file to your repo with these contents:\n\n"
        "   .. code-block:: yaml\n\n       name: Deploy\n"
    )
    assert unresolved(page, files) == []
    # the repository's own folder named the same way is still checked
    [missing] = unresolved("Our workflow is the ``.github/workflows/site.yml`` file in this repo.\n", files)
    assert missing.symbol == ".github/workflows/site.yml"


def test_partial_paths_bare_names_and_paths_outside_the_repository_resolve_quietly():
    files = {"src/fsdp_utils/kernels/a.py": ""}
    page = (
        "`fsdp_utils/kernels/` and `config.json`, `/etc/hosts`, `~/x/y`, `./run/x.sh`,\n"
        "`$HOME/a/b`, `<ckpt>/model`, `runs/*/log`.\n"
    )
    assert unresolved(page, files) == []


def test_a_link_to_a_file_the_sphinx_build_writes_beside_the_pages_is_no_missing_path():
    page = "Get [the index](llms.txt) or [the notes](notes.txt).\n"
    ext = 'import os\n\ndef done(app, exc):\n    open(os.path.join(app.outdir, "llms.txt"), "w")\n'
    files = {"docs/conf.py": 'extensions = ["gen"]\n', "docs/_ext/gen.py": ext}
    assert [f.symbol for f in unresolved(page, files)] == ["notes.txt"]
    # no Sphinx project around the page: the link is the tree's, and the tree lacks it
    assert [f.symbol for f in unresolved(page, {"tools/gen.py": ext})] == ["llms.txt", "notes.txt"]


def test_a_github_url_of_a_sibling_repository_names_its_files_not_ours():
    setup = 'setup(\n    name="tool",\n    url="https://github.com/org/tool",\n)\n'
    base = {"setup.py": setup, "examples/run.py": ""}
    head = {"setup.py": base["setup.py"]}
    removed = [Change("removed", "examples/run.py")]
    sibling = "See the [examples](https://github.com/org/tool-gpu/tree/main/examples) of Tool GPU.\n"
    assert moved_or_deleted(sibling, base, head, removed) == []
    # the project's own repository (the setup file's url) still names our folder
    own = "See the [examples](https://github.com/org/tool/tree/main/examples).\n"
    assert kinds(moved_or_deleted(own, base, head, removed)) == [("removed", "examples")]
    # a project whose files name no repository: any repository's URL may be its own
    unnamed = {k: v for k, v in base.items() if k != "setup.py"}
    assert kinds(moved_or_deleted(sibling, unnamed, {}, removed)) == [("removed", "examples")]


MODULES_BASE = {"tool/__init__.py": "", "tool/prepare.py": "", "tool/old.py": "", "src/app/__main__.py": ""}
MODULES_HEAD = {"tool/__init__.py": "", "builder/prepare.py": "", "src/app2/__main__.py": ""}
MODULE_MOVES = [
    Change("renamed", "builder/prepare.py", "tool/prepare.py"),
    Change("removed", "tool/old.py"),
    Change("renamed", "src/app2/__main__.py", "src/app/__main__.py"),
]


def test_a_module_a_command_runs_with_python_m_that_the_change_moved_suggests_its_new_name():
    page = (
        "Build with `python -m tool.prepare --force` first.\n\n"
        "```bash\npython3 -m tool.prepare --force\npython -m tool.old\npython -m app --port 1\n"
        "python -m pip install tool\n```\n"
    )
    found = moved_or_deleted(page, MODULES_BASE, MODULES_HEAD, MODULE_MOVES)
    assert [(f.kind, f.symbol, f.doc.line) for f in found] == [
        ("renamed", "tool.prepare", 1),
        ("renamed", "tool.prepare", 4),
        ("removed", "tool.old", 5),
        ("renamed", "app", 6),  # a package's __main__.py under src/
    ]
    assert found[0].suggestion.replacement == "Build with `python -m builder.prepare --force` first."
    assert found[1].suggestion.replacement == "python3 -m builder.prepare --force"
    assert found[0].message == "`tool.prepare` was moved to `builder.prepare` by this change"
    assert found[3].suggestion.replacement == "python -m app2 --port 1"


def test_a_module_still_there_or_never_the_repository_s_is_not_judged():
    # `pip` names no file of ours; `tool.prepare` stays where it was while a copy is added.
    page = "```bash\npython -m pip install x\npython -m tool.prepare\n```\n"
    head = dict(MODULES_HEAD, **{"tool/prepare.py": ""})
    changes = [Change("added", "builder/prepare.py"), Change("removed", "pip.py")]
    assert moved_or_deleted(page, dict(MODULES_BASE, **{"pip.py": ""}), head, changes[:1]) == []
    # A file `pip.py` of the repository deleted: judged only as the module the page runs.
    [f] = moved_or_deleted(page, dict(MODULES_BASE, **{"pip.py": ""}), head, changes)
    assert (f.kind, f.symbol) == ("removed", "pip")


def test_a_page_running_a_moved_module_is_reached_when_the_change_did_not_edit_it():
    # The check reads a page the change did not edit only when its words may cite what moved.
    inputs = prepare(
        RULE,
        dict(MODULES_BASE, **{DOC: "```bash\npython -m tool.prepare\n```\n"}),
        dict(MODULES_HEAD, **{DOC: "```bash\npython -m tool.prepare\n```\n"}),
        MODULE_MOVES,
    )
    assert [p.doc.path for p in inputs.pages] == [DOC]
    report = check([RULE], inputs.base, inputs.head, MODULE_MOVES)
    assert kinds(report.findings) == [("renamed", "tool.prepare")]


def test_a_module_a_python_block_imports_or_a_span_names_alone_is_judged_like_one_run():
    page = (
        "- `tool.prepare`: builds the images\n"
        "- `torch.nn`, `config.yaml`: no module of ours\n\n"
        "```python\nfrom tool.prepare import build\nimport tool.old as old\nimport os.path\n```\n"
    )
    found = moved_or_deleted(page, MODULES_BASE, MODULES_HEAD, MODULE_MOVES)
    assert [(f.kind, f.symbol, f.doc.line) for f in found] == [
        ("renamed", "tool.prepare", 1),
        ("renamed", "tool.prepare", 5),
        ("removed", "tool.old", 6),
    ]
    assert found[0].suggestion.replacement == "- `builder.prepare`: builds the images"
    assert found[1].suggestion.replacement == "from builder.prepare import build"


def test_a_module_of_a_namespace_package_is_not_judged_removed():
    # PEP 420: `ns/__init__.py` deleted leaves `ns.sub` a namespace package, and `ns.gone`, whose
    # folder went to another distribution of the namespace, may still be installed by it.
    page = "- `ns.sub`: the exporters\n- `ns.gone`: moved to a plugin\n- `tool.old`: removed\n"
    base = dict(MODULES_BASE, **{"ns/sub/__init__.py": "", "ns/sub/a.py": "", "ns/gone/__init__.py": ""})
    head = dict(MODULES_HEAD, **{"ns/sub/a.py": "", "ns/other.py": ""})
    changes = [Change("removed", p) for p in ("ns/sub/__init__.py", "ns/gone/__init__.py", "tool/old.py")]
    found = moved_or_deleted(page, base, head, changes)
    assert [(f.kind, f.symbol) for f in found] == [("removed", "tool.old")]
