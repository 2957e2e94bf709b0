"""/api/v1/tokens: an organization's API tokens. Owners and admins, signed in, list,
create (the secret is in the create response only) and revoke them. An API token cannot
manage API tokens at all: a leaked token must not be able to mint a longer-lived or wider
one, nor revoke the others."""

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import ApiToken
from ..permissions import IsOrganizationAdminSignedIn, organization_of
from ..selectors import api_tokens_of
from ..services import api_token_create, api_token_revoke
from .token_serializers import ApiTokenCreatedSerializer, ApiTokenInputSerializer, ApiTokenOutputSerializer


class ApiTokenListCreateView(ListAPIView):
    permission_classes = [IsOrganizationAdminSignedIn]
    serializer_class = ApiTokenOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[ApiToken]:
        return api_tokens_of(organization=organization_of(self.request))

    @extend_schema(summary="The organization's API tokens (owners and admins, signed in; secrets never shown again)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=ApiTokenInputSerializer, responses={201: ApiTokenCreatedSerializer},
                   summary="Create an API token (the secret is returned only here)")
    def post(self, request: Request) -> Response:
        body = ApiTokenInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        organization = organization_of(request)
        created_by = request.user if isinstance(request.user, User) else None
        token, secret = api_token_create(organization=organization, created_by=created_by, **body.validated_data)
        token = api_tokens_of(organization=organization).get(pk=token.pk)
        token.token = secret  # type: ignore[attr-defined]  # in this response only, never stored
        return Response(ApiTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED)


class ApiTokenRevokeView(APIView):
    permission_classes = [IsOrganizationAdminSignedIn]

    @extend_schema(request=None, responses={200: ApiTokenOutputSerializer},
                   summary="Revoke an API token (refused from its next request on; revoking twice is harmless)")
    def post(self, request: Request, token_id: str) -> Response:
        tokens = api_tokens_of(organization=organization_of(request))
        try:
            token = tokens.get(pk=token_id)
        except ApiToken.DoesNotExist as exc:
            raise Http404 from exc
        api_token_revoke(token=token, revoked_by=request.user if isinstance(request.user, User) else None)
        return Response(ApiTokenOutputSerializer(tokens.get(pk=token.pk)).data)
