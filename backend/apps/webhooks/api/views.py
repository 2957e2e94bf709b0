from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.accounts.permissions import organization_of

from ..models import EVENTS, Webhook
from ..selectors import webhook_get, webhooks_for
from ..services import webhook_create, webhook_delete


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


class WebhookListCreateView(ListAPIView):
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
                                         events=body.validated_data["events"])
        data = WebhookCreatedSerializer(webhook).data
        data["secret"] = secret
        return Response(data, status=status.HTTP_201_CREATED)


class WebhookDetailView(APIView):
    @extend_schema(request=None, responses={204: None}, summary="Delete a webhook")
    def delete(self, request: Request, webhook_id: str) -> Response:
        try:
            webhook = webhook_get(organization=organization_of(request), webhook_id=webhook_id)
        except Webhook.DoesNotExist as exc:
            raise Http404 from exc
        webhook_delete(webhook=webhook)
        return Response(status=status.HTTP_204_NO_CONTENT)
