"""The closest candidate: what a rename inference and a "did you mean" offer; and which way a
switch points, so that neither offers the opposite one."""

from __future__ import annotations

from bot.core.check.near import closest, fits_name, misspelt, name_polarity, polarity, same_polarity, subject
from tests.core.check.checkkit import fact


def test_the_most_alike_candidate_above_the_cutoff():
    candidates = ["--seed", "--speed", "--load"]
    assert closest("--sed", candidates, 0.6) == "--seed"
    assert closest("--gpus", candidates, 0.6) is None
    assert closest("--gpus", candidates, 0.0) is not None


def test_no_candidates_no_answer():
    assert closest("--seed", [], 0.0) is None
    assert closest("--seed", iter(()), 0.0) is None


# -- which way a switch points -------------------------------------------------------------------


def test_a_name_that_switches_something_off_says_so_and_no_other_name_does():
    for token in (
        "--no-keep-fp32-master",
        "--disable-fp32-master",
        "--without-cuda",
        "--skip-eval",
        "dont_save",
        "--non_resumable",
    ):
        assert name_polarity(token) is False, token
    for token in ("--keep-fp32-master", "--enable-x", "--node", "--disabled", "--no", "--fp16"):
        assert name_polarity(token) is None, token


def test_a_switch_points_where_its_destination_is_set():
    assert polarity(fact("--keep-fp32-master", "keep_fp32_master", sets="true")) is True
    assert polarity(fact("--no-keep-fp32-master", "keep_fp32_master", sets="false")) is False
    # PR 2384's old flag: a store_false on keep_fp32_master turns the master copy off.
    assert polarity(fact("--disable-fp32-master", "keep_fp32_master", sets="false")) is False
    # A destination named in the negative inverts what storing True means.
    assert polarity(fact("--disable-x", "disable_x", sets="true")) is False
    assert polarity(fact("--no-disable-x", "disable_x", sets="false")) is True
    # A flag taking a value points nowhere.
    assert polarity(fact("--lr", type="float")) is None


def test_two_switches_of_one_meaning_are_alike_whatever_their_names():
    old = fact("--disable-fp32-master", "keep_fp32_master", sets="false")
    assert same_polarity(old, fact("--no-keep-fp32-master", "keep_fp32_master", sets="false"))
    assert not same_polarity(old, fact("--keep-fp32-master", "keep_fp32_master", sets="true"))
    assert same_polarity(fact("--skip-x", "skip_x", sets="true"), fact("--no-x", "x", sets="false"))


def test_a_name_the_code_lacks_is_offered_only_switches_pointing_its_way():
    on = fact("--keep-fp32-master", "keep_fp32_master", sets="true")
    off = fact("--no-keep-fp32-master", "keep_fp32_master", sets="false")
    value = fact("--fp32-master-dtype", type="str")
    assert [f.token for f in (on, off, value) if fits_name("--disable-fp32-master", f)] == [off.token]
    assert [f.token for f in (on, off, value) if fits_name("--keep-fp32-mastr", f)] == [on.token, value.token]
    # open-instruct's `--resumable` is gone; its `--non_resumable` (a store_true) is the opposite.
    assert not fits_name("--resumable", fact("--non_resumable", "non_resumable", sets="true"))


def test_what_a_switch_is_about_is_its_name_without_on_and_off_words():
    assert subject("--no-keep-fp32-master") == "keep-fp32-master"
    assert subject("--disable-fp32-master") == "fp32-master"
    assert subject("--enable_x") == "x"
    assert subject("--no") == "no"


def test_a_misspelling_is_the_same_words_mistyped_not_other_words():
    for written, real in [
        ("--input-dri", "--input-dir"),
        ("--sed", "--seed"),
        ("--maxlen", "--max-len"),
        ("--lr-warmup", "--lr-warmup-iters"),
        ("--disable-fp32-master", "--no-keep-fp32-master"),
    ]:
        assert misspelt(written, real), (written, real)
    # miles' pages cite Megatron's `--no-load-optim` and its own later `--eval-backend`: close
    # by letters to a flag the parser has, and no misspelling of it.
    for written, real in [
        ("--no-load-optim", "--no-save-optim"),
        ("--eval-backend", "--train-backend"),
        ("--optimizer-state-nvme-dir", "--reset-optimizer-states"),
        # fairseq's and miles' pages: another word that shares letters is still another word
        ("--max-tokens", "--max-positions"),
        ("--reset-meters", "--reset-layers"),
        ("--tis-mode", "--tito-model"),
    ]:
        assert not misspelt(written, real), (written, real)
