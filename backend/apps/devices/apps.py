from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "apps.devices"
    label = "devices"

    def ready(self) -> None:
        from . import schema  # noqa: F401  registers the enrollment token's OpenAPI scheme
