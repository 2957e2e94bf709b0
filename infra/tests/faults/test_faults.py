"""Faults injected into a whole running stack (docs/operations.md, "When a part of the
service fails"): the web server killed, Redis restarted with its data gone, PostgreSQL away
while the runner's upload is refused five times. After each, the comparison finishes with
exactly the samples the plan asked for and the runner sent: none lost, none twice, each one
as measured (faultstack.exact_sample_problems)."""

import json
import re

from faultstack import FaultStack, exact_sample_problems, wait_until

UPLOAD = r"/runs/[0-9a-f-]+/samples"


def ran_a_task_after_reconnecting(stack: FaultStack, mark: int) -> bool:
    log = stack.log("worker")[mark:]
    lost = log.find("Connection to broker lost")
    return lost >= 0 and re.search(r"Task comparisons\.reconcile\[[^]]+\] succeeded", log[lost:]) is not None


def worker_exited(stack: FaultStack, mark: int) -> bool:
    return "Unrecoverable error" in stack.log("worker")[mark:]


def ran_a_task(stack: FaultStack, mark: int) -> bool:
    return re.search(r"Task comparisons\.reconcile\[[^]]+\] succeeded", stack.log("worker")[mark:]) is not None


def finished_exactly(stack: FaultStack, comparison_id: str) -> dict:
    final = stack.wait_status(comparison_id, {"finished", "failed"})
    assert final["status"] == "finished", final
    assert exact_sample_problems(stack, comparison_id) == []
    return final


def test_web_killed_and_restarted_while_the_runner_uploads(stack: FaultStack):
    comparison_id = stack.submit("fault: web server killed")
    assert stack.wait_blocks_done(comparison_id, 1) < 6
    mark = len(stack.log("runner"))
    stack.kill("web")
    # The runner's next upload finds nothing listening, and keeps trying.
    stack.wait_runner_retrying("the runner retrying a block's upload", UPLOAD + r": ConnectError", mark)
    stack.start("web")

    final = finished_exactly(stack, comparison_id)
    # Retried under the same lease: the runner rode through, nothing waited for the reaper.
    assert [run["attempt"] for run in final["runs"]] == [1]


def test_redis_restarted_with_planning_and_analysis_in_flight(stack: FaultStack):
    # Planning queued, then lost: no worker takes it before Redis comes back empty.
    stack.kill("worker")
    comparison_id = stack.submit("fault: redis restarted")
    assert stack.is_queued("comparisons.plan_comparison", comparison_id)
    stack.stop_server("redis")
    stack.start_servers()
    assert not stack.is_queued("comparisons.plan_comparison", comparison_id)
    stack.start("worker")
    # Only reconciliation can plan it now: the broker lost its marker, so it does not wait
    # for the comparison to look old (apps.core.broker_memory).
    stack.wait_status(comparison_id, {"running"}, timeout_s=60)

    # Redis restarted under a live worker and beat: both reconnect, and the worker takes
    # tasks beat sends again (reconciliation's, every few seconds).
    mark = len(stack.log("worker"))
    stack.stop_server("redis")
    stack.start_servers()
    wait_until("the worker to reconnect and run a task, or to exit",
               lambda: ran_a_task_after_reconnecting(stack, mark) or worker_exited(stack, mark), 60)
    if not ran_a_task_after_reconnecting(stack, mark):
        # kombu can raise while the worker reconnects ("'NoneType' object has no attribute
        # 'hostname'") and the worker exits; its supervisor starts it again (Kubernetes, Compose's
        # restart: unless-stopped), as this test does. The work must come through either way.
        stack.kill("worker")  # gone for sure (a no-op once it has exited)
        restarted = len(stack.log("worker"))
        stack.start("worker")
        wait_until("the restarted worker to run a task", lambda: ran_a_task(stack, restarted), 60)
    # The analysis queued, then lost the same way.
    stack.kill("worker")
    stack.wait_status(comparison_id, {"analysing"})
    # The web server publishes the task just after the commit the status is read from (and
    # reconnects to the restarted Redis first): queued within seconds, not at the same instant.
    wait_until("the analysis task queued", lambda: stack.is_queued("results.analyse_comparison", comparison_id), 30)
    stack.stop_server("redis")
    stack.start_servers()
    assert not stack.is_queued("results.analyse_comparison", comparison_id)
    stack.start("worker")

    final = finished_exactly(stack, comparison_id)
    assert [run["attempt"] for run in final["runs"]] == [1]
    # Reconciliation did it, told by the lost marker (not by age: these were seconds old).
    worker = stack.log("worker")
    assert "reconciled comparisons whose task was lost (the broker lost its data)" in worker
    assert "analyses queued again, their task lost (the broker lost its data)" in worker


def test_postgres_unreachable_across_several_upload_retries_mid_run(stack: FaultStack):
    comparison_id = stack.submit("fault: postgres away")
    assert stack.wait_blocks_done(comparison_id, 1) < 6
    mark = len(stack.log("runner"))
    stack.stop_server("postgres")
    # The web server is up but cannot store anything: it answers 5xx, and the runner retries.
    # The outage lasts until the runner has been refused and backed off five times (about 4-8 s
    # of its growing back-off, which starts at 0.5 s and doubles), told by its log, not by a
    # clock: the same outage, retries included, on a slow machine and a fast one.
    stack.wait_runner_retrying("the runner retrying a block's upload five times", UPLOAD + r": HTTP 5\d\d",
                               mark, times=5)
    stack.start_servers()

    final = finished_exactly(stack, comparison_id)
    assert [run["attempt"] for run in final["runs"]] == [1]


def test_the_exact_check_catches_a_sample_that_differs_from_what_the_runner_sent(stack: FaultStack):
    """The check every fault test ends with can fail: on an undisturbed comparison it passes,
    and it names a block whose stored samples no longer match the runner's journal, or that
    the journal lacks."""
    comparison_id = stack.submit("no fault: the check itself")
    final = finished_exactly(stack, comparison_id)
    run_dir = stack.journal / final["runs"][0]["id"]
    first, second = sorted(run_dir.glob("a*-b*.json"))[:2]
    kept = first.read_text(), second.read_text()
    try:
        batch = json.loads(kept[0])
        batch["samples"][0]["resp_end"] += 1  # one microsecond
        first.write_text(json.dumps(batch))
        second.unlink()
        problems = exact_sample_problems(stack, comparison_id)
    finally:
        first.write_text(kept[0])
        second.write_text(kept[1])
    changed, missing = (json.loads(text)["block"] for text in kept)
    assert problems == [
        f"run {run_dir.name} block {changed}: the stored samples differ from every batch the runner sent",
        f"run {run_dir.name} block {missing}: stored, but the runner's journal has no batch for it",
    ]
