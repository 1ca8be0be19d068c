"""Issue 22, every wait within the promise: whole lessons against an endpoint that answers
validly but one token per 200 ms, and one that always says 429 — both loopback servers of
tests/test_model_gaps.py. No screen keeps the learner past `wait_max`: the slow endpoint is
taken offline by the learner's wait at one screen (not by a request running into its own 20 s
timeout), and a Retry-After longer than that wait is not slept on. Bounded by what is counted
(requests, notices), not by the clock."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_model_gaps import BREAKER_NOTICE, drafting, endpoint, run, taught

pytestmark = pytest.mark.usefixtures("isolated_model_env")
__all__ = ["endpoint"]  # the fixture: both loopback servers in turn

TOKEN_SECONDS = 0.2
WAIT_MAX = 0.5


def healthy_but_slow(body: dict) -> tuple[str, Any]:
    """Valid answers, each dripped at one token (about four characters) per 200 ms."""
    kind, value = drafting(lambda step: f"The model explains {step}.", lambda c: "PASS")(body)
    if kind != "json":
        return kind, value
    return "slow", (value, TOKEN_SECONDS * max(1, len(json.dumps(value)) // 4))


def notices(seen) -> list[str]:
    return [f for p in seen for f in p.flags if f.startswith(BREAKER_NOTICE)]


def test_a_slow_endpoint_is_left_when_the_learner_has_waited_wait_max(store, endpoint):
    server = endpoint(healthy_but_slow)
    session, seen = run(store, server.base_url, retries=2, timeout=20, wait_max=WAIT_MAX)
    assert session.done and taught(seen)
    told = notices(seen)
    assert len(told) == 1 and f"while you waited {WAIT_MAX:g} s at one screen" in told[0], told
    assert "within the timeout" not in told[0]
    assert len(server.bodies()) <= 16  # what was in flight; nothing sent after


def test_an_always_429_endpoint_is_never_slept_on_past_the_learners_wait(store, endpoint):
    """Retry-After 30 s, more than the learner's wait: no call waits it out; the calls fail at
    once, the breaker opens, the learner is told once and the lesson goes on offline."""
    server = endpoint(lambda body: ("429", 30))
    session, seen = run(store, server.base_url, retries=2, timeout=20, wait_max=WAIT_MAX)
    assert session.done and taught(seen)
    told = notices(seen)
    assert len(told) == 1, told
    assert len(server.bodies()) <= 16
    failed = {row["error_kind"] for row in store.model_calls.all() if row["outcome"] == "failed"}
    # rate limited, and what was in flight when the breaker opened
    assert "rate_limited" in failed and failed <= {"rate_limited", "unavailable"}, failed
