"""Shared pieces of the operators' Django admin (docs/security.md, "Operators: the Django
admin"): pages that only read, and actions that call a service once per selected row."""

from collections.abc import Callable
from typing import Any, TypeVar

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db.models import Model, QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from .errors import ApplicationError
from .operator_reason import OPERATOR_REASON_MAX

M = TypeVar("M", bound=Model)


def operator_of(request: HttpRequest) -> User:
    """The staff user acting (the admin site lets no one else in)."""
    if not isinstance(request.user, User) or not request.user.is_staff:
        raise PermissionDenied
    return request.user


class ReadOnlyAdmin(admin.ModelAdmin):
    """Operators look; they change things only through the actions, which call services.
    The change permission is what the actions require."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [f.name for f in self.model._meta.fields if f.name not in (self.exclude or ())]

    def changeform_view(self, request: HttpRequest, object_id: str | None = None, form_url: str = "",
                        extra_context: dict[str, Any] | None = None) -> Any:
        context = {**(extra_context or {}), "show_save": False, "show_save_and_continue": False,
                   "show_save_and_add_another": False, "show_delete": False}
        return super().changeform_view(request, object_id, form_url, context)


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def _apply(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Any],
           perform: Callable[[Any], str]) -> None:
    """perform(obj) → what was done (logged in the object's admin history); a refusal by the
    service is shown and the other rows go on."""
    done = 0
    for obj in queryset:
        try:
            change = perform(obj)
        except ApplicationError as exc:
            model_admin.message_user(request, f"{obj}: {exc.message}", level=messages.ERROR)
            continue
        model_admin.log_change(request, obj, change)
        done += 1
    if done:
        model_admin.message_user(request, f"Done for {done} of {len(queryset)}.", level=messages.SUCCESS)


def service_action(*, name: str, description: str, perform: Callable[[HttpRequest, M], str]) -> Callable[..., None]:
    """An admin action calling perform(request, obj) for each selected row."""

    @admin.action(description=description, permissions=["change"])
    def action(model_admin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[M]) -> None:
        _apply(model_admin, request, queryset, lambda obj: perform(request, obj))

    action.__name__ = name
    return action


def reason_action(*, name: str, description: str, help_text: str,
                  perform: Callable[[HttpRequest, M, str], str]) -> Callable[..., TemplateResponse | None]:
    """An admin action that first asks for a reason (kept with the change), then calls
    perform(request, obj, reason) for each selected row."""

    @admin.action(description=description, permissions=["change"])
    def action(model_admin: admin.ModelAdmin, request: HttpRequest,
               queryset: QuerySet[M]) -> TemplateResponse | None:
        reason = request.POST.get("reason", "").strip()
        if "apply" in request.POST and reason:
            _apply(model_admin, request, queryset, lambda obj: perform(request, obj, reason))
            return None
        opts = model_admin.model._meta
        context = {**model_admin.admin_site.each_context(request), "title": description, "action_title": description,
                   "action_help": help_text, "action_name": name, "queryset": queryset, "opts": opts,
                   "objects_name": opts.verbose_name_plural, "action_checkbox_name": ACTION_CHECKBOX_NAME,
                   "reason_max": OPERATOR_REASON_MAX}
        return TemplateResponse(request, "admin/latencylab_reason_action.html", context)

    action.__name__ = name
    return action
