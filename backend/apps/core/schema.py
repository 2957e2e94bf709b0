"""OpenAPI descriptions of our two token schemes (drf-spectacular extensions)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


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
