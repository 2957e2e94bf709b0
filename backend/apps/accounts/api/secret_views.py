"""/api/v1/secrets: an organization's secrets by name. Members list names; owners and
admins create, replace and delete. No endpoint returns a value."""

from django.contrib.auth.models import User
from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from ..models import Secret
from ..permissions import IsOrganizationAdminForWrites, organization_of
from ..selectors import secrets_of
from ..services import secret_create, secret_delete, secret_set
from .secret_serializers import SecretCreateInputSerializer, SecretOutputSerializer, SecretValueInputSerializer


def _acting_user(request: Request) -> User | None:
    return request.user if isinstance(request.user, User) else None


class SecretListCreateView(ListAPIView):
    permission_classes = [IsOrganizationAdminForWrites]
    serializer_class = SecretOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[Secret]:
        return secrets_of(organization=organization_of(self.request))

    @extend_schema(summary="The organization's secrets: names only (values are never returned)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=SecretCreateInputSerializer, responses={201: SecretOutputSerializer},
                   summary="Create a secret (owners and admins; 409 if the name exists)")
    def post(self, request: Request) -> Response:
        body = SecretCreateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        organization = organization_of(request)
        secret = secret_create(organization=organization, created_by=_acting_user(request), **body.validated_data)
        secret = secrets_of(organization=organization).get(pk=secret.pk)
        return Response(SecretOutputSerializer(secret).data, status=status.HTTP_201_CREATED)


class SecretDetailView(APIView):
    permission_classes = [IsOrganizationAdminForWrites]

    @extend_schema(request=SecretValueInputSerializer, responses={200: SecretOutputSerializer,
                                                                  201: SecretOutputSerializer},
                   summary="Replace a secret's value, or create it (owners and admins)")
    def put(self, request: Request, name: str) -> Response:
        body = SecretValueInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        organization = organization_of(request)
        secret, created = secret_set(organization=organization, name=name, updated_by=_acting_user(request),
                                     **body.validated_data)
        secret = secrets_of(organization=organization).get(pk=secret.pk)
        return Response(SecretOutputSerializer(secret).data,
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)

    @extend_schema(request=None, responses={204: None},
                   summary="Delete a secret (owners and admins; a queued run that names it fails, saying so)")
    def delete(self, request: Request, name: str) -> Response:
        if not secret_delete(organization=organization_of(request), name=name):
            raise Http404
        return Response(status=status.HTTP_204_NO_CONTENT)

