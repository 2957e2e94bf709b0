"""The Devices page's device endpoints. Served here, not by the devices app, because a
device's recent runs are comparisons' (the apps depend one way)."""

from typing import Any

from django.db.models import QuerySet
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of
from apps.devices.api.views import FleetPagination, fleet_context
from apps.devices.models import Device
from apps.devices.selectors import device_state_history

from ..fleet import devices_with_recent_runs
from .device_serializers import DeviceDetailOutputSerializer, DeviceWithRunsOutputSerializer
from .filters import DeviceFilterSet

DEVICE_DETAIL_RECENT_RUNS = 20


class DeviceListView(ListAPIView):
    serializer_class = DeviceWithRunsOutputSerializer
    pagination_class = FleetPagination
    filterset_class = DeviceFilterSet

    def get_queryset(self) -> QuerySet[Device]:
        return devices_with_recent_runs(organization=organization_of(self.request))

    def get_serializer_context(self) -> dict[str, Any]:
        return {**super().get_serializer_context(), **fleet_context(self.request)}

    @extend_schema(summary="Devices of the visible pools: state and why, health, last seen, recent runs")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class DeviceDetailView(APIView):
    @extend_schema(responses={200: DeviceDetailOutputSerializer},
                   summary="A device with its state changes (newest first) and recent runs")
    def get(self, request: Request, device_id: str) -> Response:
        organization = organization_of(request)
        device = get_object_or_404(devices_with_recent_runs(organization=organization,
                                                            limit=DEVICE_DETAIL_RECENT_RUNS), pk=device_id)
        device.history = list(device_state_history(device=device))  # type: ignore[attr-defined]
        return Response(DeviceDetailOutputSerializer(device, context=fleet_context(request)).data)
