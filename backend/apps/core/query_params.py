"""The query parameters an endpoint takes, and nothing else: a parameter it does not take is a
400 naming it and what it does take, rather than being ignored (a misspelt filter that answered
the whole list would look like a filter that matched).

Two declarative layers feed this one check. A list of model rows filters through a django-filter
FilterSet (apps.core.filtering); an endpoint whose parameters do not narrow a queryset — what the
trends compute, how many months of usage, a list built in Python such as the presets — declares
them as a DRF serializer and reads them with `query_of`. Both answer in the API's error shape: a
map from each offending parameter to messages saying the allowed values or the expected format."""

from collections.abc import Collection, Iterable, Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings

# Attributes of DRF's paginators that name a query parameter (None when a paginator has not got it).
PAGINATION_PARAMETERS = ("page_query_param", "page_size_query_param", "limit_query_param", "offset_query_param",
                         "cursor_query_param")


def shared_parameters(view: Any) -> list[str]:
    """Parameters every endpoint of this kind takes besides its own: its paginator's (`page`,
    `page_size` where the view lets the client choose) and DRF's `format`."""
    paginator = getattr(view, "paginator", None)
    names = [getattr(paginator, attribute, None) for attribute in PAGINATION_PARAMETERS]
    return [name for name in names if name] + [api_settings.URL_FORMAT_OVERRIDE or "format"]


def one_of(name: str, choices: Iterable[str]) -> str:
    """The message for a value outside `choices`, with a %(value)s placeholder for it."""
    return f"{name}: %(value)s is not one of {', '.join(choices)}"


def unknown_parameters(query: Mapping[str, Any], *, accepted: Collection[str],
                       shown: Iterable[str]) -> dict[str, list[str]]:
    """Each parameter of `query` not in `accepted`, mapped to a message listing `shown` (what the
    endpoint takes, as its documentation names it)."""
    takes = ", ".join(shown)
    return {name: [f"{name}: not a parameter of this endpoint; it takes {takes}"] for name in query
            if name not in accepted}


def query_of(request: Request, serializer_class: type[serializers.Serializer], *, view: Any = None) -> dict[str, Any]:
    """The request's query parameters validated by `serializer_class`, none but its fields
    (and the shared ones) allowed: a 400 naming every unknown or invalid parameter otherwise."""
    fields = list(serializer_class().fields)
    shared = shared_parameters(view)
    errors = unknown_parameters(request.query_params, accepted={*fields, *shared}, shown=[*fields, *shared])
    query = serializer_class(data={k: v for k, v in request.query_params.items() if k in fields})
    if not query.is_valid():
        errors.update({name: list(messages) if isinstance(messages, list) else [str(messages)]
                       for name, messages in query.errors.items()})
    if errors:
        raise serializers.ValidationError(errors)
    return dict(query.validated_data)


class NoParameters(serializers.Serializer):
    """A list built in Python that takes no query parameter (only `format`)."""
