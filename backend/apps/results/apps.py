from django.apps import AppConfig


class ResultsConfig(AppConfig):
    name = "apps.results"
    label = "results"

    def ready(self) -> None:
        # Handlers import tasks and models: only possible once the app registry is ready.
        from . import handlers

        handlers.register()
