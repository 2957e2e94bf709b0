from django.apps import AppConfig


class ComparisonsConfig(AppConfig):
    name = "apps.comparisons"
    label = "comparisons"

    def ready(self) -> None:
        # Handlers import tasks and models: only possible once the app registry is ready.
        from . import handlers

        handlers.register()
