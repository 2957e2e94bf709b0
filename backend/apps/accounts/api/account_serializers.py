from rest_framework import serializers

from ..member_services import ORGANIZATION_NAME_MAX
from ..models import Invitation, Membership

PASSWORD_HELP = "checked by the server's password validators (at least 10 characters, not common, not all digits)"  # noqa: S105  (help text)


class SignupInputSerializer(serializers.Serializer):
    username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150, error_messages={
        "invalid": "Letters, digits and @ . + - _ only (up to 150)."})
    email = serializers.EmailField(max_length=254)
    password = serializers.CharField(max_length=200, trim_whitespace=False, style={"input_type": "password"},
                                     help_text=PASSWORD_HELP)
    organization_name = serializers.CharField(max_length=ORGANIZATION_NAME_MAX,
                                              help_text="the new organization, which you will own")


class SignupAvailabilityOutputSerializer(serializers.Serializer):
    open = serializers.BooleanField(help_text="false: people join by invitation only (LATENCYLAB_OPEN_SIGNUP=0)")


class OrganizationCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=ORGANIZATION_NAME_MAX)


class OrganizationSelectInputSerializer(serializers.Serializer):
    slug = serializers.SlugField(max_length=64, help_text="an organization you are a member of")


class MyOrganizationSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class PasswordResetRequestInputSerializer(serializers.Serializer):
    email = serializers.EmailField(max_length=254)


class PasswordResetConfirmInputSerializer(serializers.Serializer):
    uid = serializers.CharField(max_length=64)
    token = serializers.CharField(max_length=128)
    new_password = serializers.CharField(max_length=200, trim_whitespace=False, style={"input_type": "password"},
                                         help_text=PASSWORD_HELP)


class DetailOutputSerializer(serializers.Serializer):
    detail = serializers.CharField()


class InvitationPreviewOutputSerializer(serializers.Serializer):
    organization = serializers.CharField(source="organization.name")
    email = serializers.EmailField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    invited_by = serializers.SerializerMethodField()
    expires_at = serializers.DateTimeField()

    def get_invited_by(self, invitation: Invitation) -> str | None:
        return invitation.invited_by.get_username() if invitation.invited_by else None


class InvitationAcceptInputSerializer(serializers.Serializer):
    """Empty when signed in; a new account's username and password otherwise (its email is the invitation's)."""

    username = serializers.RegexField(r"^[\w.@+-]+\Z", max_length=150, required=False, allow_blank=True,
                                      error_messages={"invalid": "Letters, digits and @ . + - _ only (up to 150)."})
    password = serializers.CharField(max_length=200, required=False, allow_blank=True, trim_whitespace=False,
                                     style={"input_type": "password"}, help_text=PASSWORD_HELP)
