"""The list endpoints' filters: django-filter FilterSets, checked strictly.

Every GenericAPIView filters through `StrictFilterBackend` (the REST_FRAMEWORK setting
DEFAULT_FILTER_BACKENDS), with the view's `filterset_class` or, when it declares none,
`NoFilters`. Why django-filter rather than parsing by hand: a FilterSet declares each parameter
once, with its type and allowed values, and that one declaration validates the request, builds
the ORM lookup (only from values its form field cleaned) and documents the parameter in the
OpenAPI schema (drf-spectacular's django-filter extension, `apps.core.schema`).

What this adds to django-filter: a parameter the list does not take is a 400 naming it
(apps.core.query_params), and a value a field refuses says what it allows — the choices, or
the format — instead of Django's generic "Select a valid choice"."""

import datetime as dt
from typing import Any, ClassVar, cast

from django import forms
from django.db.models import QuerySet
from django_filters import rest_framework as filters
from django_filters.fields import IsoDateTimeField
from rest_framework import serializers
from rest_framework.request import Request

from .query_params import one_of, shared_parameters, unknown_parameters

ISO_EXAMPLE = "2026-01-31T12:00:00Z"


def explain_errors(name: str, field: forms.Field) -> None:
    """Point `field`'s refusals at the parameter `name` and what it takes."""
    messages = field.error_messages
    if isinstance(field, forms.ChoiceField):
        # A filter's choices are a flat list of (value, label) pairs, the empty choice first.
        choices = cast(list[tuple[Any, Any]], field.choices)
        messages["invalid_choice"] = one_of(name, [str(value) for value, _ in choices if value != ""])
    elif isinstance(field, forms.DateTimeField):
        messages["invalid"] = f"{name}: expected an ISO 8601 date-time, e.g. {ISO_EXAMPLE}"
    elif isinstance(field, forms.UUIDField):
        messages["invalid"] = f"{name}: expected a UUID, e.g. 6f1c1f9e-8a51-4b4c-9d0e-2b1f3c4d5e6f"
    elif isinstance(field, forms.IntegerField):
        low, high = field.min_value, field.max_value
        bounds = f" {low}…{high}" if low is not None and high is not None else (
            f" ≥ {low}" if low is not None else f" ≤ {high}" if high is not None else "")
        for refusal in ("invalid", "min_value", "max_value"):
            messages[refusal] = f"{name}: expected a whole number{bounds}"
    elif isinstance(field, forms.SlugField):
        messages["invalid"] = f"{name}: expected a slug (letters, digits, - and _)"


class UtcDateTimeField(IsoDateTimeField):
    """An ISO 8601 date-time as UTC: PostgreSQL refuses a UTC offset beyond ±15:59, which
    ISO 8601 (and Python) allow."""

    def to_python(self, value: Any) -> dt.datetime | None:
        moment = super().to_python(value)
        try:
            return None if moment is None else moment.astimezone(dt.UTC)
        except OverflowError as exc:  # a moment near year 1 or 9999 whose UTC is outside them
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid") from exc


class UtcDateTimeFilter(filters.IsoDateTimeFilter):
    field_class = UtcDateTimeField


class IntegerFilter(filters.NumberFilter):
    """A whole number (NumberFilter's own field takes decimals)."""

    field_class = forms.IntegerField


class SlugFilter(filters.CharFilter):
    field_class = forms.SlugField


class StrictFilterSet(filters.FilterSet):
    """The base of the API's FilterSets: refusals that name the parameter and what it takes.

    `parameter_families` lists parameters named by a prefix and a key (`tag.<key>`), as the
    unknown-parameter message shows them; a subclass adds one filter per such parameter it was
    given in `add_family_filters` (so its form validates the key and the value, and a parameter
    with no filter is unknown)."""

    parameter_families: ClassVar[tuple[str, ...]] = ()

    def __init__(self, data: Any = None, *args: Any, **kwargs: Any) -> None:
        super().__init__(data, *args, **kwargs)
        self.add_family_filters()
        for name, filter_ in self.filters.items():
            explain_errors(name, filter_.field)

    def add_family_filters(self) -> None:
        """Add a filter (`add_filter`) for each parameter of a family in `self.data`."""

    def add_filter(self, name: str, filter_: filters.Filter) -> None:
        """One more filter for this request only, set up as FilterSet.__init__ sets up the declared ones."""
        filter_.model = self.queryset.model
        filter_.parent = self
        self.filters[name] = filter_

    @classmethod
    def parameters_shown(cls) -> list[str]:
        return [*cls.base_filters, *cls.parameter_families]


class NoFilters(StrictFilterSet):
    """A list that takes no filter: only its pagination and `format`."""


class StrictFilterBackend(filters.DjangoFilterBackend):
    def get_filterset_class(self, view: Any, queryset: QuerySet[Any] | None = None) -> type[StrictFilterSet]:
        return super().get_filterset_class(view, queryset) or NoFilters

    def filter_queryset(self, request: Request, queryset: QuerySet[Any], view: Any) -> QuerySet[Any]:
        filterset = self.get_filterset(request, queryset, view)
        shared = shared_parameters(view)
        errors = unknown_parameters(request.query_params, accepted={*filterset.filters, *shared},
                                    shown=[*filterset.parameters_shown(), *shared])
        if not filterset.is_valid():
            errors.update({name: list(messages) for name, messages in filterset.errors.items()})
        if errors:
            raise serializers.ValidationError(errors)
        return filterset.qs
