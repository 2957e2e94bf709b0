from django.apps import AppConfig


class NetworkConfig(AppConfig):
    name = "apps.network"
    label = "network"
