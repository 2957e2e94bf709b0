"""Sign-up, choosing the acting organization, creating another one, accepting an
invitation, and password reset. Everything here works for an anonymous visitor except
choosing and creating organizations."""

from django.conf import settings
from django.contrib.auth import login
from django.contrib.auth.models import User
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.query_params import NoParameters, query_of

from ..emails import link_base
from ..member_services import (
    invitation_accept,
    invitation_problem,
    organization_create,
    password_reset_confirm,
    password_reset_request,
    signup,
)
from ..models import ApiToken, Organization
from ..selectors import SESSION_ORGANIZATION_KEY, invitation_by_secret, memberships_of_user
from .account_serializers import (
    DetailOutputSerializer,
    InvitationAcceptInputSerializer,
    InvitationPreviewOutputSerializer,
    MyOrganizationSerializer,
    OrganizationCreateInputSerializer,
    OrganizationSelectInputSerializer,
    PasswordResetConfirmInputSerializer,
    PasswordResetRequestInputSerializer,
    SignupAvailabilityOutputSerializer,
    SignupInputSerializer,
)
from .entry import AnonymousEntryView
from .views import SessionOutputSerializer, session_body

# Sessions are signed in with the model backend whatever authenticated the request.
MODEL_BACKEND = "django.contrib.auth.backends.ModelBackend"
RESET_SENT = "If an account uses that email, a link to reset its password is on its way."


def request_base_url(request: Request) -> str:
    return link_base(request.build_absolute_uri("/"))


def sign_in_to(request: Request, user: User, organization: Organization) -> None:
    if request.user.pk != user.pk:
        login(request, user, backend=MODEL_BACKEND)
    request.session[SESSION_ORGANIZATION_KEY] = str(organization.pk)


class SignupView(AnonymousEntryView):
    @extend_schema(responses={200: SignupAvailabilityOutputSerializer},
                   summary="Whether sign-up is open on this server (the sign-in page offers it only then)")
    def get(self, request: Request) -> Response:
        return Response({"open": settings.LATENCYLAB_OPEN_SIGNUP})

    @extend_schema(request=SignupInputSerializer, responses={201: SessionOutputSerializer},
                   summary="Sign up: a new user owning a new organization, signed in (403 when sign-up is closed)")
    def post(self, request: Request) -> Response:
        if not settings.LATENCYLAB_OPEN_SIGNUP:
            raise PermissionDenied("Sign-up is closed on this server; ask an organization's owner for an invitation.")
        body = SignupInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user, organization = signup(**body.validated_data)
        sign_in_to(request, user, organization)
        return Response(session_body(request), status=status.HTTP_201_CREATED)


class SessionOnlyView(APIView):
    """Signed-in people only: an API token belongs to one organization and cannot switch or create one."""

    authentication_classes = [SessionAuthentication]
    permission_classes = [IsAuthenticated]


def _user(request: Request) -> User:
    """The signed-in user of a SessionOnlyView (IsAuthenticated let it through)."""
    if not isinstance(request.user, User):
        raise PermissionDenied("Sign in to do this.")
    return request.user


class OrganizationListCreateView(SessionOnlyView):
    @extend_schema(responses={200: MyOrganizationSerializer(many=True)},
                   summary="The organizations you belong to, with your role in each")
    def get(self, request: Request) -> Response:
        query_of(request, NoParameters)
        rows = [{"slug": m.organization.slug, "name": m.organization.name, "role": m.role}
                for m in memberships_of_user(user_id=_user(request).pk)]
        return Response(MyOrganizationSerializer(rows, many=True).data)

    @extend_schema(request=OrganizationCreateInputSerializer, responses={201: SessionOutputSerializer},
                   summary="Create another organization, which you own, and act for it")
    def post(self, request: Request) -> Response:
        if not settings.LATENCYLAB_OPEN_SIGNUP:
            raise PermissionDenied("Creating organizations is closed on this server.")
        body = OrganizationCreateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        organization = organization_create(name=body.validated_data["name"], owner=_user(request))
        sign_in_to(request, _user(request), organization)
        return Response(session_body(request), status=status.HTTP_201_CREATED)


class OrganizationSelectView(SessionOnlyView):
    @extend_schema(request=OrganizationSelectInputSerializer, responses={200: SessionOutputSerializer},
                   summary="Act for another of your organizations in this session (404 if you are not a member)")
    def post(self, request: Request) -> Response:
        body = OrganizationSelectInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        membership = memberships_of_user(user_id=_user(request).pk).filter(
            organization__slug=body.validated_data["slug"]).first()
        if membership is None:
            raise Http404
        request.session[SESSION_ORGANIZATION_KEY] = str(membership.organization_id)
        return Response(session_body(request))


class InvitationPreviewView(AnonymousEntryView):
    @extend_schema(responses={200: InvitationPreviewOutputSerializer, 404: DetailOutputSerializer,
                              410: DetailOutputSerializer},
                   summary="What an invitation link offers (404 unknown; 410 accepted, revoked or expired)")
    def get(self, request: Request, token: str) -> Response:
        invitation = invitation_by_secret(secret=token)
        if problem := invitation_problem(invitation):
            return Response({"detail": problem},
                            status=status.HTTP_404_NOT_FOUND if invitation is None else status.HTTP_410_GONE)
        return Response(InvitationPreviewOutputSerializer(invitation).data)


class InvitationAcceptView(AnonymousEntryView):
    @extend_schema(request=InvitationAcceptInputSerializer, responses={200: SessionOutputSerializer},
                   summary="Accept an invitation: join as the signed-in user, or sign up (username, password) and "
                           "join; then act for that organization")
    def post(self, request: Request, token: str) -> Response:
        if isinstance(request.auth, ApiToken):
            raise PermissionDenied("Accept an invitation signed in, or as a new user; not with an API token.")
        body = InvitationAcceptInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        user = request.user if isinstance(request.user, User) else None
        membership = invitation_accept(secret=token, user=user, username=body.validated_data.get("username", ""),
                                       password=body.validated_data.get("password", ""))
        sign_in_to(request, membership.user, membership.organization)
        return Response(session_body(request))


class PasswordResetRequestView(AnonymousEntryView):
    authentication_classes: list = []

    @extend_schema(request=PasswordResetRequestInputSerializer, responses={200: DetailOutputSerializer},
                   summary="Email a password reset link (the same answer whether or not an account uses the email)")
    def post(self, request: Request) -> Response:
        body = PasswordResetRequestInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        password_reset_request(email=body.validated_data["email"], base_url=request_base_url(request))
        return Response({"detail": RESET_SENT})


class PasswordResetConfirmView(AnonymousEntryView):
    authentication_classes: list = []

    @extend_schema(request=PasswordResetConfirmInputSerializer, responses={200: DetailOutputSerializer},
                   summary="Set a new password with the emailed link's uid and token (the link then stops working)")
    def post(self, request: Request) -> Response:
        body = PasswordResetConfirmInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        password_reset_confirm(**body.validated_data)
        return Response({"detail": "Your password is changed; sign in with it."})
