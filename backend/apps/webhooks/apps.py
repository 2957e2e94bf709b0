from django.apps import AppConfig


class WebhooksConfig(AppConfig):
    name = "apps.webhooks"
    label = "webhooks"

    def ready(self) -> None:
        # Handlers import tasks and models: only possible once the app registry is ready.
        from . import handlers

        handlers.register()
