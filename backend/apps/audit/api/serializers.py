from rest_framework import serializers

from ..models import AuditEvent


class AuditActorSerializer(serializers.Serializer):
    id = serializers.IntegerField(source="actor_user_id", allow_null=True,
                                  help_text="the user's id; null for a token without a creator, or the system")
    token_id = serializers.UUIDField(source="actor_token_id", allow_null=True,
                                     help_text="the API token it acted through, if any")
    # A field, though Field has .label.
    label = serializers.CharField(source="actor_label",  # type: ignore[assignment]
                                  help_text="who, as it read when it happened; empty: the system")


class AuditTargetSerializer(serializers.Serializer):
    type = serializers.CharField(source="target_type")
    id = serializers.CharField(source="target_id")
    label = serializers.CharField(source="target_label")  # type: ignore[assignment]  # a field, though Field has .label


class AuditEventOutputSerializer(serializers.ModelSerializer):
    action = serializers.ChoiceField(choices=AuditEvent.Action.choices)
    actor = AuditActorSerializer(source="*")
    target = AuditTargetSerializer(source="*")
    details = serializers.DictField(help_text="what else the event said (e.g. the role before and after, "
                                              "a revoked share link's open count)")

    class Meta:
        model = AuditEvent
        fields = ["id", "created_at", "action", "actor", "target", "details"]
        read_only_fields = fields
