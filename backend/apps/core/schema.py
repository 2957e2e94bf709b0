"""OpenAPI descriptions of our two token schemes and of the list endpoints' filters
(drf-spectacular extensions)."""

from typing import Any

from drf_spectacular.contrib.django_filters import DjangoFilterExtension
from drf_spectacular.extensions import OpenApiAuthenticationExtension

from .filtering import IntegerFilter


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.accounts.authentication.ApiTokenAuthentication"
    name = "apiToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "An organization's API token (make up prints one)."}


class RunnerTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.devices.authentication.RunnerTokenAuthentication"
    name = "runnerToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Runner <token>`: runner agents only."}


class StrictFilterParameters(DjangoFilterExtension):
    """The FilterSet's filters as query parameters, the model read from the FilterSet itself:
    drf-spectacular's own extension asks the view's get_queryset(), which needs the request's
    organization a schema generation does not have."""

    target_class = "apps.core.filtering.StrictFilterBackend"
    priority = 1

    def get_schema_operation_parameters(self, auto_schema: Any, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
        filterset_class = self.target.get_filterset_class(auto_schema.view)
        model = filterset_class._meta.model
        if model is None:  # NoFilters
            return []
        parameters = []
        for name, filter_ in filterset_class.base_filters.items():
            for parameter in self.resolve_filter_field(auto_schema, model, filterset_class, name, filter_):
                if isinstance(filter_, IntegerFilter):  # whole numbers, and their bounds
                    parameter["schema"] = {"type": "integer", **{
                        key: filter_.extra[bound] for key, bound in (("minimum", "min_value"), ("maximum", "max_value"))
                        if bound in filter_.extra}}
                parameters.append(parameter)
        return parameters
