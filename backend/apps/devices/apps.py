from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "apps.devices"
    label = "devices"
