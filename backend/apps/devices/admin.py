"""Operators' view of pools, runners and devices (staff only), never a token's hash. Actions
call apps.devices.services: disable/enable a runner, reset its breaker, quarantine/release a device."""

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from apps.core.admin_tools import ReadOnlyAdmin, ReadOnlyInline, operator_of, reason_action, service_action

from .models import Device, DevicePool, DeviceStateChange, Runner
from .services import (
    device_quarantine,
    device_release_quarantine,
    runner_disable,
    runner_enable,
    runner_reset_breaker,
)


@admin.register(DevicePool)
class DevicePoolAdmin(ReadOnlyAdmin):
    list_display = ["slug", "name", "kind", "organization", "created_at"]
    list_filter = ["kind"]
    search_fields = ["slug", "name", "organization__slug"]
    list_select_related = ["organization"]


def _disable(request: HttpRequest, runner: Runner, reason: str) -> str:
    runner_disable(runner=runner, reason=reason, disabled_by=operator_of(request))
    return f"Disabled: {reason}"


def _enable(request: HttpRequest, runner: Runner) -> str:
    runner_enable(runner=runner)
    return "Enabled"


def _reset_breaker(request: HttpRequest, runner: Runner) -> str:
    runner_reset_breaker(runner=runner, reset_by=operator_of(request))
    return "Breaker reset"


@admin.register(Runner)
class RunnerAdmin(ReadOnlyAdmin):
    list_display = ["name", "pool", "hostname", "version", "last_seen_at", "disabled_at", "breaker_tripped_at"]
    list_filter = [("disabled_at", admin.EmptyFieldListFilter), "pool__kind"]
    search_fields = ["name", "hostname", "pool__slug", "pool__organization__slug"]
    list_select_related = ["pool"]
    exclude = ["token_hash"]
    actions = [
        reason_action(name="disable_runner", description="Disable the selected runners",
                      help_text="Their calls will answer 403 and their devices go offline; a run one holds now is "
                                "requeued when its lease expires.",
                      perform=_disable),
        service_action(name="enable_runner", description="Enable the selected runners", perform=_enable),
        service_action(name="reset_breaker", description="Reset the lab breaker of the selected runners",
                       perform=_reset_breaker),
    ]


class DeviceStateChangeInline(ReadOnlyInline):
    model = DeviceStateChange
    fields = readonly_fields = ("at", "from_state", "to_state", "reason", "changed_by")
    show_change_link = False
    max_num = 0

    def get_queryset(self, request: HttpRequest) -> QuerySet[DeviceStateChange]:
        return super().get_queryset(request).select_related("changed_by")


def _quarantine(request: HttpRequest, device: Device, reason: str) -> str:
    device_quarantine(device=device, reason=reason, quarantined_by=operator_of(request))
    return f"Quarantined: {reason}"


def _release(request: HttpRequest, device: Device) -> str:
    device_release_quarantine(device=device, released_by=operator_of(request))
    return "Released from quarantine"


@admin.register(Device)
class DeviceAdmin(ReadOnlyAdmin):
    list_display = ["serial", "model", "platform", "os_version", "state", "state_reason", "runner", "pool",
                    "battery", "temperature", "last_seen_at"]
    list_filter = ["state", "platform", "pool__kind"]
    search_fields = ["serial", "model", "runner__name", "pool__slug"]
    list_select_related = ["runner", "pool"]
    inlines = [DeviceStateChangeInline]
    actions = [
        reason_action(name="quarantine_device", description="Quarantine the selected devices",
                      help_text="They take no new run until released; a run one measures now finishes.",
                      perform=_quarantine),
        service_action(name="release_device", description="Release the selected devices from quarantine",
                       perform=_release),
    ]
