from django.apps import AppConfig


class MonitoringConfig(AppConfig):
    name = "apps.monitoring"
    label = "monitoring"
    verbose_name = "Operations metrics"
