from django.apps import AppConfig


class ComparisonsConfig(AppConfig):
    name = "apps.comparisons"
    label = "comparisons"
