from django.urls import path

from . import views

urlpatterns = [
    path("webhooks", views.WebhookListCreateView.as_view(), name="webhook-list"),
    path("webhooks/<uuid:webhook_id>", views.WebhookDetailView.as_view(), name="webhook-detail"),
    path("webhooks/<uuid:webhook_id>/deliveries", views.WebhookDeliveryListView.as_view(), name="webhook-deliveries"),
    path("webhooks/<uuid:webhook_id>/deliveries/<uuid:delivery_id>/redeliver",
         views.WebhookDeliveryRedeliverView.as_view(), name="webhook-delivery-redeliver"),
]
