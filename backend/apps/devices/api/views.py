"""Pools, runners (and the reset of a runner's breaker), enrollment tokens and the quarantine
release, for the dashboard and the API. The device list itself reads runs, so apps.comparisons serves it."""

from typing import Any

from django.db.models import QuerySet
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import ListAPIView
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.actor import actor_of
from apps.accounts.permissions import IsOrganizationAdmin, is_organization_admin, organization_of

from ..models import DevicePool, EnrollmentToken, Runner
from ..selectors import devices_visible_to, enrollment_tokens_of, pool_managed_by, pools_with_counts, runners_visible_to
from ..services import (
    device_release_quarantine,
    enrollment_token_create,
    enrollment_token_revoke,
    runner_reset_breaker,
)
from .serializers import (
    DeviceOutputSerializer,
    EnrollmentTokenCreatedSerializer,
    EnrollmentTokenInputSerializer,
    EnrollmentTokenOutputSerializer,
    PoolOutputSerializer,
    RunnerOutputSerializer,
)


class FleetPagination(PageNumberPagination):
    """A lab page lists its whole fleet at once when it can; `page_size` up to 200."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def fleet_context(request: Request) -> dict[str, Any]:
    """What the serializers need to say what the caller may do (one query, once per request)."""
    return {"manages_own_pools": is_organization_admin(request), "organization_id": organization_of(request).id,
            "now": timezone.now()}


class PoolListView(ListAPIView):
    serializer_class = PoolOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[DevicePool]:
        return pools_with_counts(organization=organization_of(self.request))

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **fleet_context(self.request)}

    @extend_schema(summary="Device pools visible to this organization, with device counts by state")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class RunnerListView(ListAPIView):
    serializer_class = RunnerOutputSerializer
    pagination_class = FleetPagination

    def get_queryset(self) -> QuerySet[Runner]:
        return runners_visible_to(organization=organization_of(self.request))

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **fleet_context(self.request)}

    @extend_schema(summary="Runners of the visible pools: version, drivers, last heartbeat, devices, the lab's breaker")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


def _managed_pool(request: Request, slug: str) -> DevicePool:
    try:
        return pool_managed_by(organization=organization_of(request), slug=slug)
    except DevicePool.DoesNotExist as exc:
        raise Http404 from exc


class EnrollmentTokenListCreateView(ListAPIView):
    permission_classes = [IsOrganizationAdmin]
    serializer_class = EnrollmentTokenOutputSerializer
    pagination_class = None

    def get_queryset(self) -> QuerySet[EnrollmentToken]:
        return enrollment_tokens_of(pool=_managed_pool(self.request, self.kwargs["slug"]))

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **fleet_context(self.request)}

    @extend_schema(summary="A pool's enrollment tokens (owners and admins; secrets are never shown again)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=EnrollmentTokenInputSerializer, responses={201: EnrollmentTokenCreatedSerializer},
                   summary="Create a pool enrollment token for `latencylab-runner register` (shown once)")
    def post(self, request: Request, slug: str) -> Response:
        body = EnrollmentTokenInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        token, secret = enrollment_token_create(pool=_managed_pool(request, slug), created_by=request.user,
                                                **body.validated_data)
        token.runners_enrolled = 0  # type: ignore[attr-defined]
        token.token = secret  # type: ignore[attr-defined]  # in this response only, never stored
        return Response(EnrollmentTokenCreatedSerializer(token, context=fleet_context(request)).data,
                        status=status.HTTP_201_CREATED)


class EnrollmentTokenRevokeView(APIView):
    permission_classes = [IsOrganizationAdmin]

    @extend_schema(request=None, responses={200: EnrollmentTokenOutputSerializer},
                   summary="Revoke an enrollment token (runners enrolled with it keep working)")
    def post(self, request: Request, slug: str, token_id: str) -> Response:
        try:
            token = enrollment_tokens_of(pool=_managed_pool(request, slug)).get(pk=token_id)
        except EnrollmentToken.DoesNotExist as exc:
            raise Http404 from exc
        enrollment_token_revoke(token=token)
        token = enrollment_tokens_of(pool=token.pool).get(pk=token.pk)
        return Response(EnrollmentTokenOutputSerializer(token, context=fleet_context(request)).data)


class DeviceReleaseView(APIView):
    permission_classes = [IsOrganizationAdmin]

    @extend_schema(request=None, responses={200: DeviceOutputSerializer},
                   summary="Release a device from quarantine (owners and admins of its pool's organization)")
    def post(self, request: Request, device_id: str) -> Response:
        organization = organization_of(request)
        device = devices_visible_to(organization=organization).filter(pk=device_id).first()
        if device is None:
            raise Http404
        if device.pool.organization_id != organization.id:
            return Response({"detail": "Devices of hosted pools are released by LatencyLab."},
                            status=status.HTTP_403_FORBIDDEN)
        device = device_release_quarantine(device=device, released_by=request.user, actor=actor_of(request))
        device = devices_visible_to(organization=organization).get(pk=device.pk)
        return Response(DeviceOutputSerializer(device, context=fleet_context(request)).data)


class RunnerBreakerResetView(APIView):
    permission_classes = [IsOrganizationAdmin]

    @extend_schema(request=None, responses={200: RunnerOutputSerializer},
                   summary="Reset a runner's breaker once its lab is fixed (owners and admins of its pool's "
                           "organization); 409 when it is not tripped")
    def post(self, request: Request, runner_id: str) -> Response:
        organization = organization_of(request)
        runner = runners_visible_to(organization=organization).filter(pk=runner_id).first()
        if runner is None:
            raise Http404
        if runner.pool.organization_id != organization.id:
            return Response({"detail": "Runners of hosted pools are reset by LatencyLab."},
                            status=status.HTTP_403_FORBIDDEN)
        runner_reset_breaker(runner=runner, reset_by=request.user, actor=actor_of(request))
        runner = runners_visible_to(organization=organization).get(pk=runner.pk)
        return Response(RunnerOutputSerializer(runner, context=fleet_context(request)).data)
