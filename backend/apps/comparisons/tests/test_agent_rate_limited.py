"""The backend's per-runner rate limit (apps/core/throttling.py) answering the real agent 429
in the middle of a run, against a live backend, the real reference target and a real Celery
worker: the agent waits what `Retry-After` says, sends the refused block's batch again, and
the run goes on — the same attempt finishes, every block and every sample stored once."""

import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from celery.contrib.testing.worker import start_worker
from django.core.cache import cache

from apps.comparisons.models import Comparison, RunBlock
from apps.core.throttling import RunnerRateThrottle
from apps.devices.services import runner_register
from apps.results.models import Sample
from config.celery import app as celery_app
from latencylab_runner.agent.client import RunnerClient
from testing.host_agent import host_agent, reference_of
from testing.waiting import wait_for

BLOCKS = 3
THROTTLED_BLOCK = 1
SPEC = {"name": "rate limited", "preset": "mid-image-series", "blocks": BLOCKS, "seed": 5,
        "workload": {"kind": "series", "periods": [3], "repetitions": BLOCKS}}
# How long the spent limit holds once it is spent: what the 429's Retry-After says, at most.
LIMIT_HOLDS_S = 5


class ObservedClient(RunnerClient):
    """The real client, with the test watching: every answer it gets (httpx's own response
    hook), every wait it takes (`pass_time` moves the rate limit's clock on by it, as if it had
    been slept), and each block's batch as it is first sent.
    Just before THROTTLED_BLOCK's batch goes out, `before_throttled_block` spends the runner's
    rate limit; once the upload call returns (or raises), `after_throttled_block` lifts it."""

    def __init__(self, *args: Any, before_throttled_block: Callable[[], None],
                 after_throttled_block: Callable[[], None], pass_time: Callable[[float], None],
                 **kwargs: Any) -> None:
        super().__init__(*args, sleep=self._wait, **kwargs)
        self.pass_time = pass_time
        self._http.event_hooks["response"].append(self._answered)
        self.before_throttled_block = before_throttled_block
        self.after_throttled_block = after_throttled_block
        self.answers: list[tuple[str, int, str | None]] = []  # (path, status, Retry-After)
        self.waits: list[float] = []
        self.samples_sent: dict[int, int] = {}  # block → samples in its batch

    def _answered(self, response: httpx.Response) -> None:
        self.answers.append((response.request.url.path.rsplit("/", 1)[-1], response.status_code,
                             response.headers.get("Retry-After")))

    def _wait(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.pass_time(seconds)

    def upload_block(self, run_id: str, batch: dict[str, Any]) -> dict[str, Any]:
        self.samples_sent.setdefault(batch["block"], len(batch["samples"]))
        if batch["block"] != THROTTLED_BLOCK:
            return super().upload_block(run_id, batch)
        self.before_throttled_block()
        try:
            return super().upload_block(run_id, batch)
        finally:
            self.after_throttled_block()


@pytest.mark.django_db(transaction=True)
def test_a_429_mid_upload_is_waited_out_and_the_run_finishes_with_every_sample_once(live_server, api, pool,
                                                                                      target, settings):
    runner, token = runner_register(pool=pool, name="limited-runner")
    throttle_key = RunnerRateThrottle.cache_format % {"scope": RunnerRateThrottle.scope,
                                                      "ident": f"runner:{runner.pk}"}
    roomy_rate = settings.RUNNER_RATE

    def spend_the_limit() -> None:
        # One call a minute, and this minute's call was made (60 - LIMIT_HOLDS_S) s ago: the
        # next call is refused until that one leaves the window, LIMIT_HOLDS_S s from now.
        settings.RUNNER_RATE = "1/minute"
        cache.set(throttle_key, [time.time() - (60 - LIMIT_HOLDS_S)], 60)

    def lift_the_limit() -> None:
        settings.RUNNER_RATE = roomy_rate

    def pass_time(seconds: float) -> None:
        # The wait the agent asked for, as the rate limit sees it: its record of the runner's
        # calls ages by `seconds` (the limit is the only thing here that reads the clock), so
        # the next call is admitted exactly when it would be after a real wait of that long.
        cache.set(throttle_key, [at - seconds for at in cache.get(throttle_key, [])], 60)

    client = ObservedClient(live_server.url, token, before_throttled_block=spend_the_limit,
                            after_throttled_block=lift_the_limit, pass_time=pass_time)
    # No heartbeats: the upload is the only call while the limit is spent.
    agent = host_agent(client, "limited-runner", target=reference_of(target), heartbeat_interval_s=3600)
    try:
        with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            created = api.post("/api/v1/comparisons", SPEC, format="json")
            assert created.status_code == 201, created.content
            comparison_id = created.json()["id"]
            thread = threading.Thread(target=agent.run_forever, kwargs={"max_runs": 1}, daemon=True)
            thread.start()
            # The agent runs its one run and returns: by then the run has finished, or it has not.
            assert wait_for(lambda: not thread.is_alive(), 180), "the agent never finished its run"
            run = Comparison.objects.get(pk=comparison_id).runs.get()
            assert (run.status, run.attempt) == ("done", 1), run.error
            assert wait_for(lambda: Comparison.objects.get(pk=comparison_id).status in Comparison.TERMINAL, 60)
    finally:
        client.close()

    uploads = [(status, retry_after) for path, status, retry_after in client.answers if path == "samples"]
    # Block 1's batch was refused by the rate limit once, waited out, and sent again.
    assert [status for status, _ in uploads] == [200, 429, 200, 200], client.answers
    refused_retry_after = uploads[1][1]
    assert refused_retry_after is not None
    assert 1 <= int(refused_retry_after) <= LIMIT_HOLDS_S
    assert client.waits == [float(refused_retry_after)]

    comparison = Comparison.objects.get(pk=comparison_id)
    assert comparison.status == "finished", comparison.error
    assert list(RunBlock.objects.filter(run=run).order_by("block").values_list("block", "attempt")) == [
        (block, 1) for block in range(BLOCKS)]
    rows = list(Sample.objects.filter(run=run).values_list("block", "seq"))
    assert len(rows) == len(set(rows))  # none twice
    assert {block: sum(1 for b, _ in rows if b == block) for block in range(BLOCKS)} == client.samples_sent
