from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "apps.accounts"
    label = "accounts"

    def ready(self) -> None:
        # Handlers import tasks and models: only possible once the app registry is ready.
        from . import handlers

        handlers.register()
