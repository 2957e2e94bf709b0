"""Every Celery task of ours survives a worker that dies mid-task (docs/architecture.md,
"Inside an app"): it is acknowledged only once it ran (acks_late), and a worker killed under
it hands it back to the broker (task_reject_on_worker_lost) instead of dropping it. A new
task that forgets acks_late fails here."""

from django.conf import settings

from config.celery import app


def our_tasks() -> dict:
    app.loader.import_default_modules()  # what a worker imports at start: every app's tasks.py
    return {name: task for name, task in app.tasks.items() if not name.startswith("celery.")}


def test_every_task_is_acknowledged_late():
    tasks = our_tasks()
    assert "comparisons.plan_comparison" in tasks
    assert "results.analyse_comparison" in tasks
    assert [name for name, task in tasks.items() if not task.acks_late] == []


def test_a_task_whose_worker_died_goes_back_to_the_queue():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1  # a dying worker holds few unacknowledged tasks


def test_every_scheduled_task_is_registered_under_the_name_beat_sends():
    """Beat and queued messages name a task by string, not by module: a task whose module
    moved (the scheduler's, out of apps.comparisons) keeps its registered name."""
    tasks = our_tasks()
    scheduled = [entry["task"] for entry in settings.CELERY_BEAT_SCHEDULE.values()]
    assert "comparisons.reap_expired_leases" in scheduled
    assert [name for name in scheduled if name not in tasks] == []
