"""OpenAPI description of the enrollment token scheme (drf-spectacular extension)."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class EnrollmentTokenScheme(OpenApiAuthenticationExtension):
    target_class = "apps.devices.authentication.EnrollmentTokenAuthentication"
    name = "enrollmentToken"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {"type": "apiKey", "in": "header", "name": "Authorization",
                "description": "`Enroll <token>`: a pool enrollment token, for `POST /api/runner/v1/register` only."}
