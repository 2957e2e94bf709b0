from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.actor import actor_of
from apps.accounts.permissions import IsOrganizationAdminForWrites, organization_of

from ..models import EVENTS, Webhook, WebhookDelivery
from ..selectors import webhook_deliveries_of, webhook_get, webhooks_for
from ..services import webhook_create, webhook_delete, webhook_delivery_redeliver, webhook_update
from ..tasks import deliver


class WebhookOutputSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS))

    class Meta:
        model = Webhook
        fields = ["id", "url", "events", "active", "created_at"]
        read_only_fields = fields


class WebhookCreatedSerializer(WebhookOutputSerializer):
    secret = serializers.CharField(help_text="HMAC-SHA256 key for X-LatencyLab-Signature; shown only once")

    class Meta(WebhookOutputSerializer.Meta):
        fields = [*WebhookOutputSerializer.Meta.fields, "secret"]
        read_only_fields = fields


class WebhookInputSerializer(serializers.Serializer):
    url = serializers.URLField(max_length=500)
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS), min_length=1, max_length=len(EVENTS),
                                   default=list(EVENTS))


class WebhookUpdateInputSerializer(serializers.Serializer):
    active = serializers.BooleanField(required=False, help_text="off: no new deliveries (pending ones still go out)")
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS), min_length=1, max_length=len(EVENTS),
                                   required=False)


class DeliveryComparisonSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    name = serializers.CharField()


class WebhookDeliveryOutputSerializer(serializers.ModelSerializer):
    comparison = DeliveryComparisonSerializer(help_text="the comparison whose event this is")
    status = serializers.ChoiceField(choices=WebhookDelivery.Status.choices)

    class Meta:
        model = WebhookDelivery
        fields = ["id", "event", "comparison", "status", "attempts", "last_status_code", "last_error",
                  "next_attempt_at", "created_at", "delivered_at"]
        read_only_fields = fields


def _webhook(request: Request, webhook_id: str) -> Webhook:
    try:
        return webhook_get(organization=organization_of(request), webhook_id=webhook_id)
    except Webhook.DoesNotExist as exc:
        raise Http404 from exc


class WebhookListCreateView(ListAPIView):
    # Members read webhooks and their deliveries; owners and admins change them.
    permission_classes = [IsOrganizationAdminForWrites]
    serializer_class = WebhookOutputSerializer

    def get_queryset(self) -> QuerySet[Webhook]:
        return webhooks_for(organization=organization_of(self.request))

    @extend_schema(summary="This organization's webhooks (secrets are never shown again)")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(request=WebhookInputSerializer, responses={201: WebhookCreatedSerializer},
                   summary="Register a webhook (the secret is returned only here)")
    def post(self, request: Request) -> Response:
        body = WebhookInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        webhook, secret = webhook_create(organization=organization_of(request), url=body.validated_data["url"],
                                         events=body.validated_data["events"], actor=actor_of(request))
        data = WebhookCreatedSerializer(webhook).data
        data["secret"] = secret
        return Response(data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    # Members read webhooks and their deliveries; owners and admins change them.
    permission_classes = [IsOrganizationAdminForWrites]
    @extend_schema(responses={200: WebhookOutputSerializer}, summary="A webhook (its secret is never shown again)")
    def get(self, request: Request, webhook_id: str) -> Response:
        return Response(WebhookOutputSerializer(_webhook(request, webhook_id)).data)

    @extend_schema(request=WebhookUpdateInputSerializer, responses={200: WebhookOutputSerializer},
                   summary="Turn a webhook on or off, or change its events")
    def patch(self, request: Request, webhook_id: str) -> Response:
        webhook = _webhook(request, webhook_id)
        body = WebhookUpdateInputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        webhook = webhook_update(webhook=webhook, **body.validated_data, actor=actor_of(request))
        return Response(WebhookOutputSerializer(webhook).data)

    @extend_schema(request=None, responses={204: None}, summary="Delete a webhook")
    def delete(self, request: Request, webhook_id: str) -> Response:
        webhook_delete(webhook=_webhook(request, webhook_id), actor=actor_of(request))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveryListView(ListAPIView):
    serializer_class = WebhookDeliveryOutputSerializer

    def get_queryset(self) -> QuerySet[WebhookDelivery]:
        return webhook_deliveries_of(webhook=_webhook(self.request, self.kwargs["webhook_id"]))

    @extend_schema(summary="A webhook's deliveries, newest first: status, attempts, the receiver's last answer")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class WebhookDeliveryRedeliverView(APIView):
    # Members read webhooks and their deliveries; owners and admins change them.
    permission_classes = [IsOrganizationAdminForWrites]
    @extend_schema(request=None, responses={202: WebhookDeliveryOutputSerializer},
                   summary="Send a delivery again: a new attempt with the same payload and delivery id "
                           "(nothing new while it is still pending)")
    def post(self, request: Request, webhook_id: str, delivery_id: str) -> Response:
        deliveries = webhook_deliveries_of(webhook=_webhook(request, webhook_id))
        if not deliveries.filter(pk=delivery_id).exists():
            raise Http404
        if webhook_delivery_redeliver(delivery_id=str(delivery_id)):
            deliver.delay(str(delivery_id))
        return Response(WebhookDeliveryOutputSerializer(deliveries.get(pk=delivery_id)).data,
                        status=status.HTTP_202_ACCEPTED)
