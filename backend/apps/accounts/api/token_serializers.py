from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import ApiToken
from ..services import API_TOKEN_MAX_DAYS, API_TOKEN_NAME_MAX

SCOPES = sorted(ApiToken.Scope.values)
SCOPES_TEXT = ", ".join(SCOPES)
EXPIRY_MESSAGE = f"Between 1 and {API_TOKEN_MAX_DAYS} days, or null for a token that does not expire."


class ApiTokenOutputSerializer(serializers.ModelSerializer):
    """An API token as listed: never its secret, which only the create response carries."""

    scopes = serializers.ListField(child=serializers.ChoiceField(choices=SCOPES))
    created_by = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()

    class Meta:
        model = ApiToken
        fields = ["id", "name", "prefix", "scopes", "created_by", "created_at", "last_used_at", "expires_at",
                  "revoked_at", "status"]
        read_only_fields = fields

    def get_created_by(self, token: ApiToken) -> str | None:
        return token.created_by.get_username() if token.created_by else None

    @extend_schema_field(serializers.ChoiceField(choices=["active", "expired", "revoked"]))
    def get_status(self, token: ApiToken) -> str:
        if token.revoked_at:
            return "revoked"
        return "expired" if token.expires_at and token.expires_at <= timezone.now() else "active"


class ApiTokenCreatedSerializer(ApiTokenOutputSerializer):
    token = serializers.CharField(help_text="`Authorization: Bearer <token>`; shown only here, never again")

    class Meta(ApiTokenOutputSerializer.Meta):
        fields = [*ApiTokenOutputSerializer.Meta.fields, "token"]
        read_only_fields = fields


class ApiTokenInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=API_TOKEN_NAME_MAX, help_text="a label: what or who uses the token",
                                 error_messages={"blank": f"Give the token a name (1–{API_TOKEN_NAME_MAX} characters).",
                                                 "required": f"Give the token a name (1–{API_TOKEN_NAME_MAX} "
                                                             "characters)."})
    scopes = serializers.ListField(
        child=serializers.ChoiceField(choices=SCOPES, error_messages={
            "invalid_choice": f'"{{input}}" is not a scope; choose from {SCOPES_TEXT}.'}),
        min_length=1, max_length=len(SCOPES),
        help_text="read: GET anything; write: create and change; ci: what the CLI needs (submit, wait, gate)",
        error_messages={"min_length": f"Choose one or more of {SCOPES_TEXT}.",
                        "max_length": f"Choose one or more of {SCOPES_TEXT}, each once."})
    expires_in_days = serializers.IntegerField(
        min_value=1, max_value=API_TOKEN_MAX_DAYS, required=False, allow_null=True, default=None,
        help_text=f"1–{API_TOKEN_MAX_DAYS}; null or absent: the token never expires (revoke it instead)",
        error_messages={"min_value": EXPIRY_MESSAGE, "max_value": EXPIRY_MESSAGE, "invalid": EXPIRY_MESSAGE})
