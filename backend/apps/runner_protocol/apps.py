from django.apps import AppConfig


class RunnerProtocolConfig(AppConfig):
    """The runner protocol v1 (device-runner/contract/README.md): the HTTP face the
    device-runner agents pull work through. It sits on top of devices (who the runner is),
    comparisons (leases) and results (storing blocks), and owns no models."""

    name = "apps.runner_protocol"
    label = "runner_protocol"
