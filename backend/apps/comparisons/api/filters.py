"""Filters of the comparison list and the Devices page's device list (apps.core.filtering)."""

from typing import Any

from django import forms
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django_filters import rest_framework as filters

from apps.core.filtering import SlugFilter, StrictFilterSet
from apps.devices.models import Device

from ..models import Comparison
from ..spec import tag_name_problem

TAG_PREFIX = "tag."
TAG_PARAMETER = f"{TAG_PREFIX}<key>"
TAG_DESCRIPTION = ("Only comparisons tagged KEY=value, e.g. `tag.branch=main`; several combine (all must match). "
                   "KEY follows the spec's rule for tag names (1–64 characters); any other `tag.` parameter is "
                   "a 400. An empty value matches an empty tag.")


class TagValueField(forms.CharField):
    """The value of one `tag.<key>` parameter, refused whatever it is when the name breaks the
    spec's rule for tag names (a field's validators skip an empty value; this check does not)."""

    def __init__(self, *, tag_name: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.tag_name = tag_name

    def clean(self, value: Any) -> Any:
        parameter = f"{TAG_PREFIX}{self.tag_name}"
        if problem := tag_name_problem(self.tag_name):
            raise ValidationError(f"{parameter}: {problem}")
        # PostgreSQL's jsonb holds no NUL character: refused here rather than by the database.
        if "\x00" in self.tag_name or "\x00" in (value or ""):
            raise ValidationError(f"{parameter}: NUL characters are not allowed")
        return super().clean(value)


class TagFilter(filters.CharFilter):
    """One `tag.<key>=value` parameter. Its field refuses a name outside the spec's rule, and the
    FilterSet filters only with what its form cleaned, so the lookup below is only ever built
    from a name that passed. The name goes into a jsonb containment as a key, never into an ORM
    lookup path (`tags__<key>` would read a name such as `branch__contains` as a lookup). An
    empty value matches the comparisons whose tag is empty, as the spec allows."""

    field_class = TagValueField

    def __init__(self, *, tag_name: str) -> None:
        super().__init__(field_name="tags", tag_name=tag_name)
        self.tag_name = tag_name

    def filter(self, qs: QuerySet[Any], value: str | None) -> QuerySet[Any]:
        if value is None:
            return qs
        return qs.filter(tags__contains={self.tag_name: value})


class ComparisonFilterSet(StrictFilterSet):
    status = filters.ChoiceFilter(choices=Comparison.Status.choices,
                                  help_text="only comparisons in this status (finished: what a baseline can be)")
    parameter_families = (TAG_PARAMETER,)

    class Meta:
        model = Comparison
        fields: list[str] = []

    def add_family_filters(self) -> None:
        for parameter in self.data:
            if parameter.startswith(TAG_PREFIX):
                self.add_filter(parameter, TagFilter(tag_name=parameter[len(TAG_PREFIX):]))


class DeviceFilterSet(StrictFilterSet):
    state = filters.ChoiceFilter(choices=Device.State.choices)
    platform = filters.ChoiceFilter(choices=Device.Platform.choices)
    pool = SlugFilter(field_name="pool__slug", help_text="a pool's slug")

    class Meta:
        model = Device
        fields: list[str] = []

