from django.utils import timezone
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from ..models import Invitation, Membership

ROLES_TEXT = ", ".join(Membership.Role.values)


class MemberOutputSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username")
    email = serializers.CharField(source="user.email")
    joined_at = serializers.DateTimeField(source="created_at")
    is_you = serializers.SerializerMethodField()

    class Meta:
        model = Membership
        fields = ["id", "username", "email", "role", "joined_at", "is_you"]
        read_only_fields = fields

    def get_is_you(self, membership: Membership) -> bool:
        request = self.context.get("request")
        return bool(request is not None and request.user.pk == membership.user_id)


class MemberRoleInputSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices, error_messages={
        "invalid_choice": f'"{{input}}" is not a role; choose one of {ROLES_TEXT}.'})


class InvitationOutputSerializer(serializers.ModelSerializer):
    invited_by = serializers.SerializerMethodField()
    status = serializers.SerializerMethodField()

    class Meta:
        model = Invitation
        fields = ["id", "email", "role", "invited_by", "created_at", "expires_at", "accepted_at", "revoked_at",
                  "status"]
        read_only_fields = fields

    def get_invited_by(self, invitation: Invitation) -> str | None:
        return invitation.invited_by.get_username() if invitation.invited_by else None

    @extend_schema_field(serializers.ChoiceField(choices=["pending", "expired", "accepted", "revoked"]))
    def get_status(self, invitation: Invitation) -> str:
        if invitation.accepted_at:
            return "accepted"
        if invitation.revoked_at:
            return "revoked"
        return "expired" if invitation.expires_at <= timezone.now() else "pending"


class InvitationInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)
    role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.MEMBER, error_messages={
        "invalid_choice": f'"{{input}}" is not a role; choose one of {ROLES_TEXT}.'})
