"""The provider's overhead per non-streamed structured call, against a raw httpx2 POST of the
same request body to the same loopback server, measured in the same run.

    python bench/models.py [--calls N]

Prints the median (over interleaved rounds) time per call of each, the provider's overhead in
milliseconds, and the median per-round ratio.
Target: ratio <= 1.5. Both sides reuse one keep-alive connection and parse the JSON reply; the
provider also builds the prompt, validates the answer with pydantic and records the call.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pydantic import BaseModel, ConfigDict  # noqa: E402

TARGET = 1.5


class Verdict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    verdict: str
    explanation: str
    claims: list[str]


ANSWER = {"verdict": "PASS", "explanation": "found in the excerpt", "claims": ["c1", "c2"]}
DATA = {
    "context": "Phase 1 · Lesson 3 · step 2/5",
    "untrusted_excerpt": "The step size scales each move against the gradient. " * 8,
    "claims": [{"id": "c1", "claim": "The step size scales each move."}],
}


async def bench(calls: int, rounds: int) -> tuple[float, float]:
    import httpx2

    from tutor.llm.openai_provider import OpenAIProvider
    from tutor.llm.recorder import MemoryRecorder
    from tutor.llm.settings import ModelSettings
    from tutor.testing.model_server import ModelServer

    with ModelServer(default=ANSWER) as srv:
        settings = ModelSettings(
            base_url=srv.base_url, model="loopback-model", timeout=10, max_retries=0
        )
        provider = OpenAIProvider(settings, MemoryRecorder())

        async def via_provider() -> None:
            await provider.structured(
                skill="GATE:fact_check", data=DATA, schema=Verdict, purpose="bench"
            )

        await via_provider()  # warm up: imports, the connection
        body = srv.chat_requests[-1].body
        url = f"{srv.base_url}/chat/completions"
        headers = {"Authorization": "Bearer no-key"}
        async with httpx2.AsyncClient(timeout=10) as client:

            async def raw() -> None:
                response = await client.post(url, json=body, headers=headers)
                response.raise_for_status()
                json.loads(response.json()["choices"][0]["message"]["content"])

            await raw()
            per_round = max(1, calls // rounds)
            provider_times: list[float] = []
            raw_times: list[float] = []
            for _ in range(rounds):  # interleaved, so drift hits both sides alike
                start = time.perf_counter()
                for _ in range(per_round):
                    await raw()
                raw_times.append((time.perf_counter() - start) / per_round)
                start = time.perf_counter()
                for _ in range(per_round):
                    await via_provider()
                provider_times.append((time.perf_counter() - start) / per_round)
        await provider.aclose()
        return provider_times, raw_times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["TUTOR_HOME"] = home
        provider_times, raw_times = asyncio.run(bench(args.calls, args.rounds))
    # the median round: the loopback server shares this process, so single rounds are noisy
    provider = statistics.median(provider_times)
    raw = statistics.median(raw_times)
    ratio = statistics.median(p / r for p, r in zip(provider_times, raw_times, strict=True))
    print(f"calls per side:          {args.calls} in {args.rounds} interleaved rounds")
    print(f"raw httpx2 POST:         {raw * 1000:.3f} ms/call")
    print(f"provider.structured:     {provider * 1000:.3f} ms/call")
    print(f"provider overhead:       {(provider - raw) * 1000:.3f} ms/call")
    print(
        f"ratio provider/raw:      {ratio:.2f}x median of rounds (target <= {TARGET}x) "
        f"{'OK' if ratio <= TARGET else 'OVER TARGET'}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
