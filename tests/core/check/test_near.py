"""The closest candidate: what a rename inference and a "did you mean" offer."""

from __future__ import annotations

from bot.core.check.near import closest


def test_the_most_alike_candidate_above_the_cutoff():
    candidates = ["--seed", "--speed", "--load"]
    assert closest("--sed", candidates, 0.6) == "--seed"
    assert closest("--gpus", candidates, 0.6) is None
    assert closest("--gpus", candidates, 0.0) is not None


def test_no_candidates_no_answer():
    assert closest("--seed", [], 0.0) is None
    assert closest("--seed", iter(()), 0.0) is None
