from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.permissions import IsOrganizationAdmin, organization_of

from ..models import AuditEvent
from ..selectors import audit_events_for
from .filters import AuditEventFilterSet
from .serializers import AuditEventOutputSerializer


class AuditEventListView(ListAPIView):
    permission_classes = [IsOrganizationAdmin]
    serializer_class = AuditEventOutputSerializer
    filterset_class = AuditEventFilterSet

    def get_queryset(self) -> QuerySet[AuditEvent]:
        return audit_events_for(organization=organization_of(self.request))

    @extend_schema(summary="The organization's audit log, newest first (owners and admins)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)
