from django.apps import AppConfig


class AuditConfig(AppConfig):
    name = "apps.audit"
    label = "audit"

    def ready(self) -> None:
        # Handlers import models: only possible once the app registry is ready.
        from . import handlers

        handlers.register()
