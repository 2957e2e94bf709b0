"""/api/v1/members and /api/v1/invitations. Every member reads the member list; owners
change roles and remove members; owners and admins invite (admins: members and viewers
only), list, resend and revoke invitations; anyone leaves (except the last owner).
Only a signed-in session changes membership: a leaked API token must not add people."""

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..member_services import (
    invitation_create,
    invitation_resend,
    invitation_revoke,
    membership_change_role,
    membership_remove,
)
from ..models import Invitation, Membership
from ..permissions import (
    IsOrganizationAdminSignedIn,
    IsOrganizationOwnerSignedIn,
    IsSignedInMember,
    organization_of,
    role_in,
)
from ..selectors import SESSION_ORGANIZATION_KEY, invitations_pending_of, members_of
from .account_views import request_base_url
from .member_serializers import (
    InvitationInputSerializer,
    InvitationOutputSerializer,
    MemberOutputSerializer,
    MemberRoleInputSerializer,
)


def _actor(request: Request) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _member(request: Request, membership_id: str) -> Membership:
    try:
        return members_of(organization=organization_of(request)).get(pk=membership_id)
    except Membership.DoesNotExist as exc:
        raise Http404 from exc


def _invitation(request: Request, invitation_id: str) -> Invitation:
    try:
        return invitations_pending_of(organization=organization_of(request)).get(pk=invitation_id)
    except Invitation.DoesNotExist as exc:
        raise Http404 from exc


def _role(request: Request) -> str | None:
    return role_in(organization=organization_of(request), request=request)


class MemberListView(ListAPIView):
    serializer_class = MemberOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[Membership]:
        return members_of(organization=organization_of(self.request))

    @extend_schema(summary="The organization's members and their roles (every member may read)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class MemberDetailView(APIView):
    permission_classes = [IsOrganizationOwnerSignedIn]

    @extend_schema(request=MemberRoleInputSerializer, responses={200: MemberOutputSerializer},
                   summary="Change a member's role (owners; 409 when it would leave no owner)")
    def patch(self, request: Request, membership_id: str) -> Response:
        body = MemberRoleInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        membership = membership_change_role(membership=_member(request, membership_id),
                                            role=body.validated_data["role"], actor=_actor(request))
        return Response(MemberOutputSerializer(_member(request, str(membership.pk)),
                                               context={"request": request}).data)

    @extend_schema(request=None, responses={204: None},
                   summary="Remove a member (owners; 409 for the last owner). Their API tokens stop working.")
    def delete(self, request: Request, membership_id: str) -> Response:
        membership_remove(membership=_member(request, membership_id), actor=_actor(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberLeaveView(APIView):
    permission_classes = [IsSignedInMember]

    @extend_schema(request=None, responses={204: None},
                   summary="Leave the organization you act for (409 for its last owner)")
    def post(self, request: Request) -> Response:
        organization = organization_of(request)
        user = _actor(request)
        membership = members_of(organization=organization).filter(user=user).first()
        if membership is None:
            raise Http404
        membership_remove(membership=membership, actor=user)
        request.session.pop(SESSION_ORGANIZATION_KEY, None)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationListCreateView(ListAPIView):
    permission_classes = [IsOrganizationAdminSignedIn]
    serializer_class = InvitationOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[Invitation]:
        return invitations_pending_of(organization=organization_of(self.request))

    @extend_schema(summary="Pending invitations, expired ones included (owners and admins)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=InvitationInputSerializer, responses={201: InvitationOutputSerializer},
                   summary="Invite someone by email (owners any role; admins members and viewers)")
    def post(self, request: Request) -> Response:
        body = InvitationInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        organization = organization_of(request)
        invitation = invitation_create(organization=organization, invited_by=_actor(request),
                                       inviter_role=_role(request), base_url=request_base_url(request),
                                       **body.validated_data)
        return Response(InvitationOutputSerializer(_invitation(request, str(invitation.pk))).data,
                        status=status.HTTP_201_CREATED)


class InvitationResendView(APIView):
    permission_classes = [IsOrganizationAdminSignedIn]

    @extend_schema(request=None, responses={200: InvitationOutputSerializer},
                   summary="Email the invitation again with a new link and expiry (the old link stops working)")
    def post(self, request: Request, invitation_id: str) -> Response:
        invitation = invitation_resend(invitation=_invitation(request, invitation_id), inviter_role=_role(request),
                                       base_url=request_base_url(request))
        return Response(InvitationOutputSerializer(_invitation(request, str(invitation.pk))).data)


class InvitationRevokeView(APIView):
    permission_classes = [IsOrganizationAdminSignedIn]

    @extend_schema(request=None, responses={200: InvitationOutputSerializer},
                   summary="Revoke a pending invitation (its link stops working)")
    def post(self, request: Request, invitation_id: str) -> Response:
        invitation = invitation_revoke(invitation=_invitation(request, invitation_id), inviter_role=_role(request))
        return Response(InvitationOutputSerializer(invitation).data)
