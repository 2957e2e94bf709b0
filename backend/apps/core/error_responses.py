"""Every operation's refusals, documented (a drf-spectacular postprocessing hook).

Views document their success answers; the refusals come from layers every view shares —
authentication and scopes (401/403), a missing or another organization's object (404),
validation (400), the service's conflicts (409), body limits (413) and throttles (429) — so
they are added here, to every operation they can come from, with one error body. Clients (and
the schema fuzzing, which checks every status against the schema) then know them all."""

from typing import Any

ERROR_SCHEMA = "Error"
ERROR_BODY = {
    "type": "object",
    "description": "`detail` says what went wrong; a 400 also maps each offending field's path to its "
                   "messages (nested objects and lists follow the request's shape).",
    "properties": {"detail": {"type": "string"}},
    "additionalProperties": True,
}
WRITE_METHODS = {"post", "put", "patch", "delete"}
HTTP_METHODS = WRITE_METHODS | {"get", "head", "options", "trace"}
DESCRIPTIONS = {
    "400": "The request is not valid: `detail` and each field path say why and the allowed range",
    "401": "No credentials, or credentials that are not valid",
    "403": "Not allowed: the role, token scope or organization's state says no (detail says which)",
    "404": "No such object in your organization (another organization's object answers the same), "
           "or no such page of a list",
    "409": "The object's state does not allow this now (detail says why)",
    "413": "The request body is larger than this endpoint accepts",
    "429": "Too many requests: retry after the Retry-After header's seconds",
}


def is_list_operation(method: str, operation: dict[str, Any]) -> bool:
    """A GET answering a JSON array or a page of one (`results`): a list, which refuses a query
    parameter it does not take (apps.core.query_params) even when it documents none."""
    if method != "get":
        return False
    schema = operation.get("responses", {}).get("200", {}).get("content", {}).get("application/json", {}).get(
        "schema", {})
    paginated = any(p.get("name") == "page" for p in operation.get("parameters", []))
    return schema.get("type") == "array" or paginated


def _refusals(path: str, method: str, operation: dict[str, Any]) -> list[str]:
    statuses = ["401", "403", "429"]
    parameters = operation.get("parameters", [])
    if "{" in path or any(p.get("name") == "page" for p in parameters):
        statuses.append("404")  # a missing object, or a page past the last (DRF's pagination)
    if ("requestBody" in operation or any(p.get("in") == "query" for p in parameters)
            or is_list_operation(method, operation)):
        statuses.append("400")
    if method in WRITE_METHODS:
        statuses += ["409", "413"]
    return statuses


def document_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_SCHEMA] = ERROR_BODY
    body = {"application/json": {"schema": {"$ref": f"#/components/schemas/{ERROR_SCHEMA}"}}}
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            responses = operation.setdefault("responses", {})
            for status in _refusals(path, method, operation):
                responses.setdefault(status, {"content": body, "description": DESCRIPTIONS[status]})
            operation["responses"] = dict(sorted(responses.items()))
    return result
