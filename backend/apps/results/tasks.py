from celery import shared_task


@shared_task(
    name="results.analyse_comparison", acks_late=True, max_retries=3, ignore_result=True,
    soft_time_limit=600, time_limit=660,
)
def analyse_comparison(comparison_id: str) -> None:
    from .services import comparison_analyse

    comparison_analyse(comparison_id=comparison_id)
