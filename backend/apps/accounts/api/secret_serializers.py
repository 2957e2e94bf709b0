from rest_framework import serializers

from ..models import SECRET_NAME_PATTERN, SECRET_VALUE_MAX_BYTES, Secret

NAME_HELP = "referenced in specs as {{secret.NAME}}: 1–64 of A-Z, 0-9 and _, starting with a letter"
VALUE_HELP = (f"write-only: never returned by any endpoint; 1–{SECRET_VALUE_MAX_BYTES} bytes (UTF-8), "
              f"no CR, LF or NUL")


class SecretOutputSerializer(serializers.ModelSerializer):
    """A secret as every member sees it: its name and history, never its value."""

    created_by = serializers.CharField(source="created_by.username", allow_null=True, default=None)
    updated_by = serializers.CharField(source="updated_by.username", allow_null=True, default=None)

    class Meta:
        model = Secret
        fields = ["name", "created_at", "updated_at", "created_by", "updated_by"]
        read_only_fields = fields


class SecretCreateInputSerializer(serializers.Serializer):
    name = serializers.RegexField(SECRET_NAME_PATTERN, max_length=64, help_text=NAME_HELP,
                                  error_messages={"invalid": "1–64 of A-Z, 0-9 and _, starting with a letter."})
    value = serializers.CharField(write_only=True, min_length=1, max_length=SECRET_VALUE_MAX_BYTES,
                                  trim_whitespace=False, style={"input_type": "password"}, help_text=VALUE_HELP)


class SecretValueInputSerializer(serializers.Serializer):
    value = serializers.CharField(write_only=True, min_length=1, max_length=SECRET_VALUE_MAX_BYTES,
                                  trim_whitespace=False, style={"input_type": "password"}, help_text=VALUE_HELP)
