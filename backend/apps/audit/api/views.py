from django.db.models import QuerySet
from drf_spectacular.utils import extend_schema
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from apps.accounts.permissions import IsOrganizationAdmin, organization_of

from ..models import AuditEvent
from ..selectors import audit_events_for
from .serializers import AuditEventOutputSerializer, AuditEventQuerySerializer


class AuditEventListView(ListAPIView):
    permission_classes = [IsOrganizationAdmin]
    serializer_class = AuditEventOutputSerializer

    def get_queryset(self) -> QuerySet[AuditEvent]:
        query = AuditEventQuerySerializer(data=self.request.query_params)
        query.is_valid(raise_exception=True)
        return audit_events_for(organization=organization_of(self.request), action=query.validated_data.get("action"),
                                since=query.validated_data.get("since"), until=query.validated_data.get("until"),
                                actor_id=query.validated_data.get("actor"))

    @extend_schema(parameters=[AuditEventQuerySerializer],
                   summary="The organization's audit log, newest first (owners and admins)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)
