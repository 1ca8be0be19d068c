"""A circuit breaker per provider: after a few consecutive failed calls, or one call that timed
out, the provider stops calling the endpoint for the rest of the lesson. Calls then fail at once
with `unavailable`, so the engine goes on offline (deterministic verifiers, compiled teaching)
instead of waiting on a dead endpoint. The engine tells the learner once and resets the breaker
at the next lesson.

Requests already in flight when the breaker opens are cancelled: every waiting call is woken on
its own event loop (`wait_open`)."""

from __future__ import annotations

import asyncio
import threading

# Answers that came back but not in the required format, after the bounded re-asks: an
# endpoint that keeps giving them is as useless to a lesson as one that does not answer.
FORMAT_FAILURES = frozenset({"schema", "refusal"})
# Failures that say the endpoint is unhealthy (a length cut-off is not counted: a long answer
# is the model's, not the endpoint's).
ENDPOINT_FAILURES = (
    frozenset({"timeout", "rate_limited", "server_error", "connection", "malformed", "unavailable"})
    | FORMAT_FAILURES
)
FORMAT_NOTICE = (
    "The model's answers do not follow the required format — going on with the lesson's own text."
)
# said once when an answer was cut off at the token bound (which does not open the breaker)
LENGTH_NOTICE = (
    "The model's answers are cut off at their token limit — raise TUTOR_MAX_TOKENS for whole "
    "answers; the lesson's own text stands in for those cut off."
)


class CircuitBreaker:
    def __init__(self, failures: int = 3) -> None:
        self.threshold = failures
        self._lock = threading.Lock()
        self._consecutive = 0
        self._open = False
        self.reason = ""
        self._told = False
        self.trips = 0
        self.format_trip = False  # opened because the answers did not follow the format
        self._last_kind = ""
        self._cut_off = False  # an answer was cut off at the token bound (said once)
        self._told_cut = False
        self._waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    @property
    def is_open(self) -> bool:
        return self._open

    def success(self) -> None:
        with self._lock:
            self._consecutive = 0
            self._last_kind = ""

    @property
    def reask(self) -> bool:
        """Whether an invalid answer is worth re-asking: not once the last logical call failed
        on its format after its own re-asks (the endpoint has shown re-asking does not help;
        a valid answer makes it worth it again)."""
        return self._last_kind not in FORMAT_FAILURES

    def failure(self, kind: str, detail: str = "") -> None:
        """Count one failed logical call; a timeout opens the breaker at once. A `length` cut-off
        is not counted, only kept to be told."""
        if kind == "length":
            with self._lock:
                self._cut_off = True
        if kind not in ENDPOINT_FAILURES:
            return
        with self._lock:
            if self._open:
                return
            self._consecutive += 1
            self._last_kind = kind
            if kind != "timeout" and self._consecutive < self.threshold:
                return
            self.format_trip = kind in FORMAT_FAILURES
            waiters = self._trip(
                (detail or "no answer within the timeout")
                if kind == "timeout"
                else f"{self._consecutive} failed calls in a row (last: {kind})"
            )
        self._wake(waiters)

    def stall(self, detail: str) -> bool:
        """The learner has waited too long at one screen: when requests are in flight (the wait
        is on the model), open the breaker and cancel them. Whether it opened."""
        with self._lock:
            if self._open or not self._waiters:
                return False
            waiters = self._trip(f"no answer while you waited {detail}")
        self._wake(waiters)
        return True

    def halt(self, reason: str) -> None:
        """Open now and cancel the requests in flight: whatever waits on them has stopped (the
        lesson was closed), so nothing is kept waiting for the endpoint's timeout."""
        with self._lock:
            if self._open:
                return
            waiters = self._trip(reason)
        self._wake(waiters)

    def _trip(self, reason: str) -> list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]:
        """Open (under the lock); the waiters to wake."""
        self._open = True
        self.trips += 1
        self.reason = reason
        waiters, self._waiters = self._waiters, []
        return waiters

    @staticmethod
    def _wake(waiters: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]]) -> None:
        for loop, future in waiters:
            try:
                loop.call_soon_threadsafe(_settle, future)
            except RuntimeError:  # that loop is closed; nothing waits there any more
                pass

    def reset(self) -> None:
        """Close the breaker: the next lesson tries the model again."""
        with self._lock:
            self._open = False
            self._consecutive = 0
            self._told = False
            self._cut_off = self._told_cut = False
            self.reason = ""
            self.format_trip = False
            self._last_kind = ""

    def notice(
        self, who: str = "The model", then: str = "the lesson's own text and the offline checks"
    ) -> str | None:
        """The one message for the learner after the breaker opened; None after that. When the
        answers kept failing their format: FORMAT_NOTICE (`who` names the verifier model when it
        is a separate one). Before it opens, LENGTH_NOTICE once when an answer was cut off."""
        with self._lock:
            if not self._open:
                if not self._cut_off or self._told_cut:
                    return None
                self._told_cut = True
                return LENGTH_NOTICE.replace("The model's", f"{who}'s", 1)
            if self._told:
                return None
            self._told = True
            reason = self.reason
            format_trip = self.format_trip
        if format_trip:
            if who == "The model":
                return FORMAT_NOTICE
            return FORMAT_NOTICE.replace("The model's", f"{who}'s", 1)
        return (
            f"{who} stopped answering ({reason}); this lesson goes on offline, with {then}. "
            "It is tried again at the next lesson."
        )

    def wait_open(self) -> asyncio.Future[None]:
        """A future on the running loop that completes when the breaker opens."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            if self._open:
                future.set_result(None)
            else:
                self._waiters.append((loop, future))
        return future

    def forget(self, future: asyncio.Future[None]) -> None:
        with self._lock:
            self._waiters = [(lo, f) for lo, f in self._waiters if f is not future]


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
