import os
from typing import Any

from celery import Celery
from celery.signals import task_prerun

from apps.core.log_context import bind  # plain logging and contextvars: safe before Django is set up

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.base")

app = Celery("latencylab")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
def bind_log_context(task_id: str, task: Any, args: tuple[Any, ...], kwargs: dict[str, Any], **_: Any) -> None:
    """A task's log lines carry its id as the request id, and the comparison it works on
    (tasks take ids: `comparison_id`, or the first argument of a `…_comparison` task)."""
    comparison_id = kwargs.get("comparison_id") or (args[0] if task.name.endswith("_comparison") and args else None)
    bind(request_id=task_id, comparison_id=str(comparison_id) if comparison_id else None, run_id=None)
