from typing import Any

from django.contrib.auth import authenticate, login, logout
from django.middleware.csrf import get_token
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import ApiToken, Membership
from ..permissions import role_in
from ..selectors import memberships_of_user, organization_for_request
from .entry import AnonymousEntryView


class LoginInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(max_length=200, style={"input_type": "password"})


class OrganizationRefSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()


class MembershipRefSerializer(OrganizationRefSerializer):
    role = serializers.ChoiceField(choices=Membership.Role.choices)


class SessionOutputSerializer(serializers.Serializer):
    username = serializers.CharField()
    organization = OrganizationRefSerializer(help_text="the organization this session (or token) acts for")
    role = serializers.ChoiceField(choices=Membership.Role.choices, allow_null=True,
                                   help_text="the caller's role in the organization (owners and admins manage it)")
    organizations = MembershipRefSerializer(many=True, help_text="every organization the user belongs to (the "
                                            "switcher's list); an API token's only")


def session_body(request: Request) -> dict[str, Any]:
    org = organization_for_request(request)
    role = role_in(organization=org, request=request) if org else None
    if isinstance(request.auth, ApiToken) or not request.user.is_authenticated:
        organizations = [{"slug": org.slug, "name": org.name, "role": role}] if org and role else []
    else:
        organizations = [{"slug": m.organization.slug, "name": m.organization.name, "role": m.role}
                         for m in memberships_of_user(user_id=request.user.pk)]
    return {
        "username": request.user.get_username(),
        "organization": {"slug": org.slug, "name": org.name} if org else None,
        "role": role,
        "organizations": organizations,
    }


@method_decorator(ensure_csrf_cookie, name="dispatch")
class CsrfView(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list = []

    @extend_schema(responses={204: None}, summary="Set the csrftoken cookie")
    def get(self, request: Request) -> Response:
        get_token(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class LoginView(AnonymousEntryView):
    @extend_schema(request=LoginInputSerializer, responses={200: SessionOutputSerializer}, summary="Log in")
    def post(self, request: Request) -> Response:
        data = LoginInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, **data.validated_data)
        if user is None:
            return Response({"detail": "Wrong username or password."}, status=status.HTTP_400_BAD_REQUEST)
        login(request, user)
        if organization_for_request(request) is None:
            logout(request)
            return Response({"detail": "This user belongs to no organization."}, status=status.HTTP_400_BAD_REQUEST)
        return Response(session_body(request))


class LogoutView(APIView):
    permission_classes = [AllowAny]

    @extend_schema(request=None, responses={204: None}, summary="Log out")
    def post(self, request: Request) -> Response:
        logout(request)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeView(APIView):
    @extend_schema(responses={200: SessionOutputSerializer}, summary="Who am I")
    def get(self, request: Request) -> Response:
        return Response(session_body(request))
